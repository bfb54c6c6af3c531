// SPDX-License-Identifier: MIT
// The AI CPU's own report of each kernel it ran (device slices aicpu.data.<id>,
// additional AICPU/node records), read straight from the slices (it is not
// part of the joined model), and the CANN summary `aicpu` made of it, which
// torch_npu copies into data_preprocess.csv at profiler level 2
// (docs/formats.md, "aicpu").
#ifndef MSPROF_CONVERT_AICPU_HPP
#define MSPROF_CONVERT_AICPU_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "model.hpp"
#include "summary.hpp"
#include "text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One AI CPU kernel as the summary shows it.
struct aicpu_kernel {
  std::uint32_t device_id = 0;
  std::uint32_t stream_id = 0;
  std::uint32_t task_id = 0;
  std::int64_t start_ns = 0;  ///< local Unix ns (device counter through dev_start.log's clock)
  std::int64_t end_ns = 0;
  std::string compute_us, memcpy_us, task_us, dispatch_us, total_us;  ///< the cells, as the reference prints them
};

/// Every device's kernels in file order (devices by id); those that started
/// before the collection are left out, as the reference leaves them out.
/// Problems of the slices (a cut record, a time that does not fit) are added
/// to `warnings`, naming the file; the other kernels are kept.
result<void> for_each_aicpu_kernel(const std::string& prof_dir, std::vector<std::string>& warnings,
                                   const std::function<result<void>(const aicpu_kernel&)>& fn);

/// The op names of the AI_CPU tasks, collected from the model's windows: a
/// kernel is named by the AI_CPU op whose task (device, stream, task id) ran
/// when the kernel ended; "N/A" when there is none. Holds one entry per AI_CPU task.
class aicpu_names {
 public:
  void add(const model& w);
  std::string name_of(const aicpu_kernel& k) const;

 private:
  struct span {
    std::int64_t start_ns, end_ns;
    std::string name;
  };
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::vector<span>> tasks_;
};

/// Every kernel of for_each_aicpu_kernel in the summary's order (by start,
/// then file order). AI CPU kernels are few next to the device's tasks, so
/// they are held in memory.
result<std::vector<aicpu_kernel>> aicpu_kernels(const std::string& prof_dir, std::vector<std::string>& warnings);

/// The kernels of an iteration selection, by the reference's rule
/// (ParseAiCpuData._get_aicpu_data, MsprofIteration.get_iter_interval,
/// TsTrackModel.get_step_syscnt_range_by_iter_range): per device, those that
/// start at or after the first start of its `chosen` iterations (from the
/// beginning when the selection's first iteration id, `first_id`, is 1) and
/// end at or before their last end. A device with no chosen iteration keeps
/// all its kernels, as the reference adds no condition then.
void select_aicpu_kernels(std::vector<aicpu_kernel>& ks, const std::vector<iteration>& chosen, std::uint32_t first_id);

/// The CANN summary aicpu: header and one row (the start cell ends in a TAB).
std::vector<std::string> aicpu_header();
template <class Cells>
void aicpu_row(Cells& s, const aicpu_kernel& k, const std::string& node) {
  s.num(k.device_id);
  s.ts(k.start_ns);
  s.str(node);
  s.raw(k.compute_us);
  s.raw(k.memcpy_us);
  s.raw(k.task_us);
  s.raw(k.dispatch_us);
  s.raw(k.total_us);
  s.num(k.stream_id);
  s.num(k.task_id);
}

/// torch_npu's data_preprocess.csv (profiler level 2; its IntegrateParser
/// copies the aicpu summary through AiCpuBean): the summary's header and
/// cells; nullopt without kernels (torch_npu writes no file then).
result<std::optional<table>> data_preprocess(const std::string& prof_dir, const aicpu_names& names,
                                             std::vector<std::string>& warnings);

/// One row of the CANN summary dp (the AI CPU's data preprocessing: its
/// queue dequeues), from device_<id>/data/DATA_PREPROCESS.DP slices.
struct dp_row {
  std::uint32_t device_id = 0;
  std::string time;  ///< local µs as the reference prints it (Python's repr of a float)
  std::string action, source, size;
  bool size_is_number = false;  ///< binary records' sizes; the text's are as written
};

/// The rows of every device with DP slices, devices in the order of their
/// folders' names (as the reference merges them: device_10 before device_2),
/// each device's slices newest first (the reference's order); binary records
/// or text lines as the reference judges the device's slices (its rule: the
/// record where the last whole one would start). Damage (a cut record, a
/// binary header that is not 0x5A5A/100, a line whose time is not a number, an
/// empty slice) is a warning naming the file and offset; every other row is kept.
result<void> for_each_dp_row(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<result<void>(const dp_row&)>& fn);

/// The CANN summary dp: header and one row.
std::vector<std::string> dp_header();
template <class Cells>
void dp_cells(Cells& s, const dp_row& r) {
  s.num(r.device_id);
  s.raw(r.time);
  s.str(r.action);
  s.str(r.source);
  if (r.size_is_number) s.raw(r.size);
  else s.str(r.size);
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_AICPU_HPP
