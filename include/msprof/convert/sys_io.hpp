// SPDX-License-Identifier: MIT
// The device's interconnect and I/O data, read straight from its slices (it is
// not part of the joined model): PCIe samples (device slices pcie.data.<id>)
// and HCCS byte counters (hccs.data.<id>, text), NIC port counters
// and RoCE port counters (nic.data.<id>, roce.data.<id>, text), and the CANN
// summaries `pcie`, `hccs`, `nic` and `roce` made of them, which torch_npu
// copies into ASCEND_PROFILER_OUTPUT (pcie.csv, hccs.csv when
// experimental_config's _sys_interconnection is on; nic.csv, roce.csv when its
// _sys_io is), and the samples (HCCS: throughputs) the timeline's counter
// processes and the unified db's tables show (docs/formats.md, "Interconnect and I/O").
#ifndef MSPROF_CONVERT_SYS_IO_HPP
#define MSPROF_CONVERT_SYS_IO_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../codec/format.hpp"
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

/// The CANN summary hccs: for each device with throughputs (by id), the rows
/// "Tx (MB/s)" and "Rx (MB/s)" of their max, min and average. A throughput is
/// the counter's growth between neighbouring samples (by time) over their time
/// apart, computed and rounded as the reference does (docs/formats.md).
/// nullopt without throughputs. Bad lines are added to `warnings`, naming the
/// file and offset.
result<std::optional<table>> hccs_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// The CANN summary nic: for each device with NIC samples (by id), one row per
/// port (funcId, in order of its first sample): the samples' time span pushed
/// through the local-time conversion as "Timestamp(us)", the bandwidth, the
/// bandwidth efficiencies, packets per second and error/drop rates computed
/// and rounded as the reference does (docs/formats.md). nullopt without
/// samples. Bad lines are added to `warnings`, naming the file and offset.
result<std::optional<table>> nic_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// The CANN summary roce: nic_summary's rows of the RoCE samples (device slices
/// roce.data.<id>, the same line format).
result<std::optional<table>> roce_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// One PCIe sample as the reference's C++ path (PCIeProcessor) hands it to
/// the timeline and the db: the directory's device id, the time on the local
/// clock (ns) and the sample's values, each bandwidth's B/µs times 10^6 kept
/// in 32 bits (the reference's uint32 fields wrap), the latencies in ns.
struct pcie_sample {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  codec::PcieSample values;  ///< values.timestamp: the raw device time
};

/// Every device's PCIe samples in file order (devices by id), as the
/// reference's C++ path keeps them: those before the collection start and
/// those whose Tx_p maximum is below its minimum are left out (each a
/// warning with their count, as are cut records, naming the file and offset).
result<void> for_each_pcie_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                  const std::function<result<void>(const pcie_sample&)>& fn);

/// One HCCS throughput as the reference's C++ path (HCCSProcessor) hands it
/// to the timeline and the db: the directory's device id, the later sample's
/// time on the local clock (ns) and the throughputs of hccs_summary (MB/s).
struct hccs_throughput {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  double tx_mb_s = 0, rx_mb_s = 0;
};

/// Every device's HCCS throughputs (devices by id; by time within one), those
/// before the collection start left out (a warning with their count, as are
/// bad lines, naming the file and offset).
result<void> for_each_hccs_throughput(const std::string& prof_dir, std::vector<std::string>& warnings,
                                      const std::function<result<void>(const hccs_throughput&)>& fn);

/// One NIC or RoCE sample as the reference's C++ path (SysIOProcessor) hands
/// it to the db: the directory's device id, the time on the local clock (ns)
/// and the sample as read.
struct network_sample {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  codec::NicSample values;
};

/// Every device's samples of slices `stem` (nic or roce) in file order
/// (devices by id), those before the collection start left out (a warning with
/// their count, as are bad lines, naming the file and offset).
result<void> for_each_network_sample(const std::string& prof_dir, const char* stem, std::vector<std::string>& warnings,
                                     const std::function<result<void>(const network_sample&)>& fn);

/// One NIC or RoCE timeline point as the reference's C++ path
/// (SysIOTimelineProcessor) reads it from its Python models' NicReceiveSend /
/// RoceReceiveSend tables: the directory's device id, the sample's local
/// time, the port, and the sample's rates (ratios, not percent).
struct network_rate {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  std::uint16_t func_id = 0;
  double rx_efficiency = 0, rx_packets = 0, rx_error = 0, rx_dropped = 0;
  double tx_efficiency = 0, tx_packets = 0, tx_error = 0, tx_dropped = 0;
};

/// Every device's timeline points of slices `stem` (nic or roce): per port
/// (in order of its first sample) its samples in file order with a non-zero
/// bandwidth (nic: the sample's; roce: the port's first sample's), those
/// before the collection start left out. A port with no such sample is left
/// out with a warning (the reference's models fail on it).
result<void> for_each_network_rate(const std::string& prof_dir, const char* stem, std::vector<std::string>& warnings,
                                   const std::function<result<void>(const network_rate&)>& fn);

/// The reference's float_calculate([bytes, time], '/'): Python's Decimal of
/// `bytes` over Decimal(str(time)), 28 significant digits, quantized to 3
/// decimals (both half-even), as SQLite then reads the text; 0 where Python
/// raises (a zero time, a result too long).
double decimal_quotient3(std::int64_t bytes, double time);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SYS_IO_HPP
