// SPDX-License-Identifier: MIT
// The L2 cache counters of each task (device slices l2_cache.data.<id>), read
// straight from the slices (they are not part of the joined model), and the
// CANN summary `l2_cache` made of them, which torch_npu copies into
// l2_cache.csv when its experimental config asks for the L2 cache
// (docs/formats.md, "L2 cache"). Likewise the SoC PMU's TLB counters (device
// slices socpmu.data.<id>) and the summary `soc_pmu` (torch_npu's
// soc_pmu.csv), docs/formats.md "SoC PMU".
#ifndef MSPROF_CONVERT_L2_CACHE_HPP
#define MSPROF_CONVERT_L2_CACHE_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One task's two rates as the l2_cache or soc_pmu summary shows them.
struct task_rates {
  std::uint32_t device_id = 0;
  std::uint32_t stream_id = 0;  ///< the record's raw ids
  std::uint32_t task_id = 0;
  /// l2_cache: Python's round(hit / request, 6) as str() prints it, "N/A" on
  /// STARS chips; soc_pmu (TLB hits): as a NUMERIC column prints it: 0.5, 1.
  /// Both 0 (l2_cache: 0.0) without requests.
  std::string hit_rate;
  std::string second_rate;  ///< l2_cache: round(victim / request, 6); soc_pmu: round(TLB miss / request, 6)
};
using task_rates_fn = std::function<result<void>(const task_rates&)>;

/// Every device's records in file order (devices by id, slices by number):
/// its L2 cache slices' records, then the HA records (data type 1) of its
/// SoC PMU slices on chips 5, 15 and 16, which the reference puts in the same
/// table.
/// Which events count as requests, hits and victims follows the device's
/// platform_version (info.json) and the order of sample.json's
/// l2CacheTaskProfilingEvents; a device whose events or platform do not allow
/// it gives a warning naming the file and no rows, as the reference writes
/// none. Problems of the slices (a cut record) are added to `warnings`, naming
/// the file and offset; the other records are kept.
result<void> for_each_l2_cache(const std::string& prof_dir, std::vector<std::string>& warnings,
                               const task_rates_fn& fn);

/// Every device's SoC PMU task records in file order, as for_each_l2_cache:
/// sample.json's npuEvents ("SMMU:e,e,...") name the counters; chips 15 and
/// 16 use their own record layout; records of data type 1 (for_each_l2_cache's)
/// and 4 (another table) are passed over, any other type is a warning naming
/// file and offset.
result<void> for_each_soc_pmu(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const task_rates_fn& fn);

/// Every device's SoC PMU page fault records (data type 4) in file order, on
/// chips 5, 15 and 16: the count is the first counter cut to 32 bits, as the
/// reference's PageFaultProcessor reads it (std::stoul into a uint32_t). The
/// slices' problems and other chips are the soc_pmu summary's warnings: none
/// are added here.
struct page_faults {
  std::uint32_t device_id = 0, stream_id = 0, task_id = 0;
  std::uint32_t count = 0;
};
result<void> for_each_page_fault(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const page_faults&)>& fn);

/// The op of each (stream id, task id), collected from the model's windows:
/// the op of the last task with those ids (the reference's Python dictionary
/// of GE's tasks, whatever the device and time) or of the first (its C++
/// map of them); "N/A" for ids no op had.
class l2_cache_names {
 public:
  /// Names are kept only for a PROF_ directory with L2 cache or SoC PMU slices (they
  /// cost memory per task id); default: none.
  l2_cache_names() = default;
  explicit l2_cache_names(const std::string& prof_dir);
  void add(const model& w);
  /// Without any op the summary has no Op Name column.
  bool empty() const noexcept { return ops_.empty(); }
  const std::string& name_of(std::uint32_t stream_id, std::uint32_t task_id, bool first = false) const;

 private:
  /// The first and the last launch (global task id) with those ids, and their ops' names.
  struct launches {
    std::uint64_t first = ~std::uint64_t{0}, last = 0;
    std::string first_name, last_name;
  };
  std::unordered_map<std::uint64_t, launches> ops_;  ///< by stream << 32 | task
  bool wanted_ = false;
};

/// The CANN summaries' headers (Op Name only when `named`).
std::vector<std::string> l2_cache_header(bool named);
std::vector<std::string> soc_pmu_header(bool named);
/// page_fault's header: its Op Name column is always there (the reference's C++ path).
std::vector<std::string> page_fault_header();
/// A row of either summary (Op Name only with `names`).
template <class Cells>
void task_rates_row(Cells& s, const task_rates& r, const l2_cache_names* names) {
  s.num(r.device_id);
  s.num(r.stream_id);
  s.num(r.task_id);
  s.raw(r.hit_rate);
  s.raw(r.second_rate);
  if (names) s.str(names->name_of(r.stream_id, r.task_id));
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_L2_CACHE_HPP
