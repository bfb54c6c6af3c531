// SPDX-License-Identifier: MIT
// CANN's own memory data of a PROF_ directory, read straight from its slices
// (it is not part of the joined model): the device's npu_module_mem samples,
// the memory each software module holds reserved. The summary writer, the db
// writer and `msprof analyse` all take the samples from here (docs/formats.md,
// "npu_module_mem").
#ifndef MSPROF_CONVERT_NPU_MEMORY_HPP
#define MSPROF_CONVERT_NPU_MEMORY_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// CANN's software modules (the db's ENUM_MODULE), in id order.
const std::vector<std::pair<std::uint32_t, const char*>>& module_names();
/// The module's name; "Unknown" (the summary's word) for an id without one.
const char* module_name(std::uint32_t id);

/// One npu_module_mem sample, on the wall clock.
struct module_mem_sample {
  std::uint32_t device_id = 0;
  std::uint32_t module_id = 0;
  std::int64_t time_ns = 0;   ///< local Unix ns (host counter + start_info's offset)
  std::uint64_t reserved = 0; ///< bytes
};

/// Every device's samples in file order (devices by id), those before the
/// collection start left out as the reference leaves them out. Problems of
/// the slices (a cut record, a time that does not fit) are added to
/// `warnings`, naming the file; the other samples are kept. A directory that
/// cannot be opened has no samples (its problem is the model loader's to say).
result<void> for_each_module_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const module_mem_sample&)>& fn);

/// The samples in the summary's order, by module id, then time, then file
/// order, through a spill_sorter (runs in `prof_dir` past `spill_budget`).
class module_mem_rows {
 public:
  module_mem_rows(const std::string& prof_dir, std::size_t spill_budget) : rows_(prof_dir, spill_budget) {}
  result<void> read(const std::string& prof_dir, std::vector<std::string>& warnings);
  std::size_t size() const noexcept { return rows_.size(); }
  /// fn(const module_mem_sample&) for each sample in order; then the rows are gone.
  result<void> drain(const std::function<void(const module_mem_sample&)>& fn);

 private:
  struct key {
    std::uint32_t module_id;
    std::int64_t time_ns;
    bool operator<(const key& o) const noexcept {
      return module_id != o.module_id ? module_id < o.module_id : time_ns < o.time_ns;
    }
  };
  spill_sorter<key> rows_;
};

/// The CANN summary npu_module_mem: header and one row (reserved memory in
/// whole KB, rounded down; the time cell ends in a TAB).
std::vector<std::string> npu_module_mem_header();
template <class Cells>
void npu_module_mem_row(Cells& s, const module_mem_sample& m) {
  s.num(m.device_id);
  s.str(module_name(m.module_id));
  s.ts(m.time_ns);
  s.num(m.reserved / 1024);
  s.str("NPU:" + std::to_string(m.device_id));
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_NPU_MEMORY_HPP
