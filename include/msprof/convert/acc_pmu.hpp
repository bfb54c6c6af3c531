// SPDX-License-Identifier: MIT
// The device's accelerator PMU samples (ACC_PMU), read straight from its STARS
// SoC log slices (stars_soc.data.<id>, beside the ACSQ task logs; not part of
// the joined model): the samples the timeline's Acc PMU process and the
// unified db's ACC_PMU table show (docs/formats.md, "Device ACC PMU and SIO").
// The reference writes no summary of them.
#ifndef MSPROF_CONVERT_ACC_PMU_HPP
#define MSPROF_CONVERT_ACC_PMU_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One ACC_PMU sample as the reference's C++ path keeps it (AccPmuProcessor):
/// the directory's device id, the accelerator id, the local time (ns) and the
/// four levels, each the low 32 bits of the record's u64 (its uint32 read).
struct acc_pmu_sample {
  std::uint32_t device_id = 0;
  std::uint32_t acc_id = 0;
  std::int64_t time_ns = 0;
  std::uint32_t read_bw = 0, write_bw = 0, read_ost = 0, write_ost = 0;
};

/// Every device's ACC_PMU samples (devices by id), those from the collection
/// start, each device's in the reference's order: by time as it stores it (a
/// double of device ns), then accelerator id; equal ones in file order. The
/// order is made through a spill sorter: memory does not grow with the
/// samples. The reference reads them on chip 5 only (info.json's
/// platform_version): a device of another chip with ACC_PMU records has none,
/// one warning naming the file. Records without the STARS magic, and samples
/// before the collection start or outside the clock's range, are left out
/// with one warning each kind (their count). A cut record is the ACSQ
/// reader's warning; the whole records before it are kept.
result<void> for_each_acc_pmu_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                     const std::function<result<void>(const acc_pmu_sample&)>& fn);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ACC_PMU_HPP
