// SPDX-License-Identifier: MIT
// The device's interconnect and I/O data, read straight from its slices (it is
// not part of the joined model): PCIe samples (device slices pcie.data.<id>)
// and the CANN summary `pcie` made of them, which torch_npu copies into
// ASCEND_PROFILER_OUTPUT/pcie.csv when experimental_config's
// _sys_interconnection is on (docs/formats.md, "pcie").
#ifndef MSPROF_CONVERT_SYS_IO_HPP
#define MSPROF_CONVERT_SYS_IO_HPP

#include <optional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "summary.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// The CANN summary pcie (Ascend910B, chip "5"): for each device with
/// samples (by id), seven rows (Tx_p, Tx_np, Tx_cpl, Tx_latency, Rx_p, Rx_np,
/// Rx_cpl) of the latest sample's min, max and average; bandwidths in MB/s,
/// the latency in µs. nullopt without samples (the reference writes no file
/// then). Cut records are added to `warnings`, naming the file and offset.
result<std::optional<table>> pcie_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SYS_IO_HPP
