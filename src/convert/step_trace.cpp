// SPDX-License-Identifier: MIT
// The timeline's step trace events (step_trace.hpp).
#include "msprof/convert/step_trace.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "msprof/convert/text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

// The layout follows msprof's step_trace_assembler (see emit_step_trace).
void step_trace_events(const model& m, event_output& out) {
  if (m.iterations.empty()) return;
  const auto& s = m.session;
  auto tid_of = [](std::uint32_t model_id) {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(model_id) + 70000);
  };
  std::set<std::uint32_t> devs;
  std::set<std::pair<std::uint64_t, std::uint32_t>> threads;
  for (const auto& it : m.iterations) {
    const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, it.device_id);
    const std::uint32_t tid = tid_of(it.model_id);
    devs.insert(it.device_id);
    threads.insert({pid, tid});
    const std::string id = std::to_string(it.iteration_id);
    const std::string na = "N/A";
    // One step-trace slice: name "<cat> <id>" (the iteration itself: "Iteration <id>").
    auto slice = [&](std::string name, const char* cat, std::int64_t from, std::int64_t to) {
      trace_event e;
      e.ph = 'X';
      e.name = std::move(name);
      e.pid = pid;
      e.tid = tid;
      e.ts_ns = from;
      e.dur_ns = to - from;
      e.cat = cat;
      e.args.push_back(trace_arg::num("Iteration ID", it.iteration_id));
      return e;
    };
    trace_event x = slice("Iteration " + id, "Iteration Time", it.start_ns, it.end_ns);
    x.args.push_back(trace_arg::str("FP Start", it.fp_ns ? ts_us(it.fp_ns) : na));
    x.args.push_back(trace_arg::str("BP End", it.bp_ns ? ts_us(it.bp_ns) : na));
    x.args.push_back(trace_arg::str("Iteration End", ts_us(it.end_ns)));
    x.args.push_back(trace_arg::real("Iteration Time(us)", static_cast<double>(it.end_ns - it.start_ns) / 1000.0));
    out(std::move(x));
    if (it.fp_ns == 0 || it.bp_ns == 0) continue;
    trace_event f = slice("FP_BP Time " + id, "FP_BP Time", it.fp_ns, it.bp_ns);
    f.args.push_back(trace_arg::str("FP Start", ts_us(it.fp_ns)));
    f.args.push_back(trace_arg::str("BP End", ts_us(it.bp_ns)));
    f.args.push_back(trace_arg::real("FP_BP Time(us)", static_cast<double>(it.bp_ns - it.fp_ns) / 1000.0));
    out(std::move(f));
    trace_event r = slice("Iteration Refresh " + id, "Iteration Refresh", it.bp_ns, it.end_ns);
    r.args.push_back(trace_arg::str("BP End", ts_us(it.bp_ns)));
    r.args.push_back(trace_arg::str("Iteration End", ts_us(it.end_ns)));
    r.args.push_back(trace_arg::real("Iteration Refresh(us)", static_cast<double>(it.end_ns - it.bp_ns) / 1000.0));
    out(std::move(r));
    const std::string flow_id = "Data_aug Bound " + std::to_string(pid) + "_" + std::to_string(tid);
    trace_event a0;
    a0.ph = 't';
    a0.name = "Data_aug Bound " + std::to_string(static_cast<std::int64_t>(it.iteration_id) - 1);
    a0.pid = pid;
    a0.tid = tid;
    a0.cat = "Data_aug Bound";
    a0.id = flow_id;
    a0.ts_ns = it.fp_ns;
    a0.args.push_back(trace_arg::num("Iteration ID", it.iteration_id));
    out(std::move(a0));
    trace_event a1;
    a1.ph = 's';
    a1.name = "Data_aug Bound " + id;
    a1.pid = pid;
    a1.tid = tid;
    a1.cat = "Data_aug Bound";
    a1.id = flow_id;
    a1.ts_ns = it.bp_ns + it.data_aug_ns / 2;
    a1.args.push_back(trace_arg::real("Data_aug Bound(us)", static_cast<double>(it.data_aug_ns) / 1000.0));
    out(std::move(a1));
  }
  for (auto dev : devs)
    detail::add_process_meta(out, format_pid(s.pid, sort_index::ascend_hardware, dev), "Ascend Hardware",
                             "NPU " + std::to_string(dev), sort_index::ascend_hardware);
  for (const auto& [pid, tid] : threads)
    detail::add_thread_meta(out, pid, tid,
                            "Step Trace(Model ID:" + std::to_string(static_cast<std::uint32_t>(
                                                         static_cast<std::int32_t>(tid) - 70000)) + ")",
                            tid);
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
