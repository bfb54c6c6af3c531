// SPDX-License-Identifier: MIT
// The CANN summary aicpu, from the AI CPU's kernel reports as the reference
// (9ba1ac7be) exports them (AicpuAddInfoParser, ParseAiCpuData): start and end
// through the device counter's clock; compute and memcpy time from the AI
// CPU's own µs stamps; total time from submit to after-run ticks; every time
// cell Python's round(x, 3) of µs; kernels that started before the collection
// left out; rows by start.
#include "msprof/convert/aicpu.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "msprof/convert/npu_memory.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

// Named apart from the other sources' helpers (a unity build joins them).
namespace aicpu_detail {

/// a - b of two counters as the reference's Python ints give it, as a double.
double diff(std::uint64_t a, std::uint64_t b) {
  return a >= b ? static_cast<double>(a - b) : -static_cast<double>(b - a);
}

}  // namespace aicpu_detail

result<void> for_each_aicpu_kernel(const std::string& prof_dir, std::vector<std::string>& warnings,
                                   const std::function<result<void>(const aicpu_kernel&)>& fn) {
  // Most collections have no aicpu slice, and then no reader is opened.
  if (!npu_slices::any_slice(prof_dir, true, std::string(prof::layout::aicpu) + ".data.")) return {};
  prof::reader_options ro;
  ro.max_dictionary_bytes = 0;  // the kernels need no dictionary
  auto r = prof::prof_reader::open(prof_dir, ro);
  if (!r) return {};  // the model loader says what is wrong with the directory
  const auto& host = r->host();
  const std::int64_t offset = host.wall_offset_ns();
  const auto start = prof::time_ns::from_us(host.collection_time_begin_us).value_or(0);
  result<void> status;
  std::uint64_t bad_time = 0;
  for (const auto& d : r->devices()) {
    const double hz = d.clock.frequency_mhz * 1e6;
    auto read = r->for_each_aicpu_node(d.id, [&](const codec::MsprofAicpuNodeAdditionalData& a, const codec::place&) {
      if (!status || a.runStartTick == 0) return;  // no start: the reference's time 0, before any collection
      const auto begin = prof::time_ns::to_wall(d.clock.monotonic_ns(a.runStartTick), offset);
      const auto end = a.runEndTick == 0 ? std::optional<std::int64_t>(0)
                                         : prof::time_ns::to_wall(d.clock.monotonic_ns(a.runEndTick), offset);
      if (!begin || !end) {
        ++bad_time;
        return;
      }
      if (*begin < start) return;
      aicpu_kernel k;
      k.device_id = d.id;
      const auto ids = codec::unpack_stream_task(a.streamId, a.taskId);
      k.stream_id = ids.stream_id;
      k.task_id = ids.task_id;
      k.start_ns = *begin;
      k.end_ns = *end;
      // The reference keeps ms in its table and multiplies by 1000 when it exports.
      k.compute_us = py_round3(aicpu_detail::diff(a.memcpyStartTime, a.computeStartTime) / 1000 * 1000);
      k.memcpy_us = py_round3(aicpu_detail::diff(a.memcpyEndTime, a.memcpyStartTime) / 1000 * 1000);
      k.task_us = py_round3(a.runEndTick == 0 ? -static_cast<double>(*begin - offset) / 1000
                                              : static_cast<double>(*end - *begin) / 1000);
      k.dispatch_us = py_round3(static_cast<double>(a.dispatchTime) / 1000 * 1000);
      k.total_us = hz > 0 ? py_round3(aicpu_detail::diff(a.tickAfterRun, a.submitTick) / hz * 1000 * 1000) : "0.0";
      status = fn(k);
    });
    MSPROF_TRY(read);
    MSPROF_TRY(status);
  }
  for (const auto& w : r->warnings())
    if (w.file.find(std::string("/") + prof::layout::aicpu + ".data.") != std::string::npos) warnings.push_back(w.text());
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " AI CPU kernel report(s) with a time outside the clock's range were skipped");
  return {};
}

void aicpu_names::add(const model& w) {
  for (const auto& t : w.tasks)
    if (t.op && t.op->ge_task_type == 1)  // AI_CPU
      tasks_[{t.device_id, t.stream_id, t.task_id}].push_back({t.start_ns, t.end_ns, t.op->name});
}

std::string aicpu_names::name_of(const aicpu_kernel& k) const {
  const auto it = tasks_.find({k.device_id, k.stream_id, k.task_id});
  if (it != tasks_.end())
    for (const auto& s : it->second)
      if (s.start_ns <= k.end_ns && k.end_ns <= s.end_ns) return s.name;
  return "N/A";
}

result<std::vector<aicpu_kernel>> aicpu_kernels(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<aicpu_kernel> rows;
  MSPROF_TRY(for_each_aicpu_kernel(prof_dir, warnings, [&](const aicpu_kernel& k) -> result<void> {
    rows.push_back(k);
    return {};
  }));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const aicpu_kernel& a, const aicpu_kernel& b) { return a.start_ns < b.start_ns; });
  return rows;
}

std::vector<std::string> aicpu_header() {
  return {"Device_id", "Timestamp(us)", "Node", "Compute_time(us)", "Memcpy_time(us)", "Task_time(us)",
          "Dispatch_time(us)", "Total_time(us)", "Stream ID", "Task ID"};
}

result<std::optional<table>> data_preprocess(const std::string& prof_dir, const aicpu_names& names,
                                             std::vector<std::string>& warnings) {
  auto ks = aicpu_kernels(prof_dir, warnings);
  if (!ks) return ks.err();
  if (ks->empty()) return std::optional<table>();
  table t;
  t.name = "data_preprocess";
  t.header = aicpu_header();
  for (const auto& k : *ks) {
    t.rows.emplace_back();
    cell_list c(t.rows.back());
    aicpu_row(c, k, names.name_of(k));
  }
  return std::optional<table>(std::move(t));
}

}  // namespace convert
MSPROF_END_NAMESPACE
