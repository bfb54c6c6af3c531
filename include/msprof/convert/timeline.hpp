// SPDX-License-Identifier: MIT
// Timeline: the model as a list of normalized trace events (reused by the
// chrome/ writer), and msprof's own JSON form of them (msprof_<ts>.json,
// msprof_tx_<ts>.json): top-level array, key order name,pid,tid,ts,dur,ph,args,
// ts as a string with 3 decimals, pid = (pid << 10) | (sort_index << 5) | device.
#ifndef MSPROF_CONVERT_TIMELINE_HPP
#define MSPROF_CONVERT_TIMELINE_HPP

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "model.hpp"
#include "spill.hpp"
#include "text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One argument value of a trace event.
struct trace_arg {
  enum class kind : unsigned char { integer, real, string };
  std::string key;
  kind k = kind::integer;
  std::int64_t i = 0;
  double d = 0;
  std::string s;

  static trace_arg num(std::string key, std::int64_t v) { return {std::move(key), kind::integer, v, 0, {}}; }
  static trace_arg real(std::string key, double v) { return {std::move(key), kind::real, 0, v, {}}; }
  static trace_arg str(std::string key, std::string v) { return {std::move(key), kind::string, 0, 0, std::move(v)}; }
};

/// A normalized trace event. `ph` is one of X, M, C, s, f.
struct trace_event {
  char ph = 'X';
  std::string name;
  std::uint64_t pid = 0;
  std::uint64_t tid = 0;
  std::int64_t ts_ns = 0;    ///< X, C, s, f
  std::int64_t dur_ns = 0;   ///< X
  std::string cat;           ///< s, f
  std::string id;            ///< s, f (opaque string)
  bool bp_enclosing = false; ///< f: "bp":"e"
  std::vector<trace_arg> args;
};

/// Process sort indices of msprof 9ba1ac7be (meta_data_event.h).
namespace sort_index {
inline constexpr std::uint32_t msprof_losses = 1;  ///< msprof's own: the loss note (only when something was lost)
inline constexpr std::uint32_t mstx = 6;
inline constexpr std::uint32_t cann = 7;
inline constexpr std::uint32_t ascend_hardware = 14;
inline constexpr std::uint32_t ai_core_freq = 15;
inline constexpr std::uint32_t overlap_analysis = 31;
}  // namespace sort_index

/// Host layers use device bits 31.
inline constexpr std::uint32_t host_device_bits = 31;

inline std::uint64_t format_pid(std::uint32_t pid, std::uint32_t sort, std::uint32_t dev) noexcept {
  return (static_cast<std::uint64_t>(pid) << 10) | (static_cast<std::uint64_t>(sort & 31u) << 5) | (dev & 31u);
}

/// Which parts to build.
struct timeline_parts {
  bool cann = true;
  bool hardware = true;
  bool freq = true;
  bool overlap = true;
  bool mstx = true;
  bool step_trace = true;  ///< Step Trace threads of the Ascend Hardware process (when iterations exist)
  bool losses = true;      ///< the loss note (when the collector counted losses)
};

namespace detail {

template <class Emit>
void add_meta(Emit& out, const char* name, std::uint64_t pid, std::uint64_t tid, trace_arg a) {
  trace_event e;
  e.ph = 'M';
  e.name = name;
  e.pid = pid;
  e.tid = tid;
  e.args.push_back(std::move(a));
  out(std::move(e));
}

template <class Emit>
void add_process_meta(Emit& out, std::uint64_t pid, const std::string& name, const std::string& label,
                      std::int64_t sort) {
  add_meta(out, "process_name", pid, 0, trace_arg::str("name", name));
  add_meta(out, "process_labels", pid, 0, trace_arg::str("labels", label));
  add_meta(out, "process_sort_index", pid, 0, trace_arg::num("sort_index", sort));
}

template <class Emit>
void add_thread_meta(Emit& out, std::uint64_t pid, std::uint64_t tid, const std::string& name, std::int64_t sort) {
  add_meta(out, "thread_name", pid, tid, trace_arg::str("name", name));
  add_meta(out, "thread_sort_index", pid, tid, trace_arg::num("sort_index", sort));
}

/// Id of the HostToDevice flow from an API call to its device task.
inline std::uint64_t host_to_device_id(std::uint64_t connection_id) noexcept { return connection_id << 32; }

inline const char* mstx_event_type_name(std::uint32_t t) noexcept {
  switch (t) {
    case 0: return "marker";
    case 1: return "push/pop";
    case 2: return "start/end";
    case 3: return "marker_ex";
    default: return "unknown";
  }
}

/// Connection id of an mstx event without a device marker (db_constant.h).
inline std::uint64_t mstx_connection_id(const mstx_event& e) noexcept { return e.mark_id + 4000000001ull; }

// The metadata of each process (written around its events by emit_timeline
// and by the timeline exporter, from the sets they collected).

/// Ascend Hardware: one process per device, a thread per stream.
template <class Emit>
void add_hardware_meta(Emit& out, const session_info& s,
                       const std::map<std::uint32_t, std::set<std::uint32_t>>& streams) {
  for (const auto& [dev, ids] : streams) {
    const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, dev);
    add_process_meta(out, pid, "Ascend Hardware", "NPU " + std::to_string(dev), sort_index::ascend_hardware);
    for (auto st : ids) add_thread_meta(out, pid, st, "Stream " + std::to_string(st), st);
  }
}

/// CANN: host threads that called APIs.
template <class Emit>
void add_cann_meta(Emit& out, const session_info& s, const std::set<std::uint32_t>& tids) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
  add_process_meta(out, pid, "CANN", "CPU", sort_index::cann);
  for (auto tid : tids) add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
}

/// mstx: host threads that marked.
template <class Emit>
void add_mstx_meta(Emit& out, const session_info& s, const std::set<std::uint32_t>& tids) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::mstx, host_device_bits);
  add_process_meta(out, pid, s.pid_name, "CPU", sort_index::mstx);
  for (auto tid : tids) add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
}

/// Overlap Analysis of one device: its four fixed threads.
template <class Emit>
void add_overlap_meta(Emit& out, const session_info& s, std::uint32_t dev) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
  add_process_meta(out, pid, "Overlap Analysis", "NPU " + std::to_string(dev), sort_index::overlap_analysis);
  const char* names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
  for (int i = 0; i < 4; ++i) add_thread_meta(out, pid, static_cast<std::uint64_t>(i), names[i], i);
}

}  // namespace detail

namespace detail {
/// Sinks with `fast_json` write the hot events (tasks, APIs, mstx, overlap) directly
/// from the model instead of receiving a trace_event (msprof JSON writer).
template <class T, class = void>
struct is_fast_sink : std::false_type {};
template <class T>
struct is_fast_sink<T, std::void_t<decltype(T::fast_json)>> : std::true_type {};
}  // namespace detail

/// Compute intervals (ops) merged, and the free gaps between the first task
/// start and the last task end, per device.
struct overlap_interval {
  std::uint32_t device_id = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool compute = true;
};

/// One device's overlap analysis, fed its compute intervals sorted by (start,
/// end): each merged interval goes to `compute(start, end)` once complete, each
/// gap between the first task start `lo` and the last task end `hi` that no
/// interval covers goes to `free(start, end)`; both in time order. Streams, so
/// the timeline exporter can merge intervals it reads back from disk.
class overlap_merger {
 public:
  overlap_merger(std::int64_t lo, std::int64_t hi) : cur_(lo), hi_(hi) {}

  template <class Compute, class Free>
  void add(std::int64_t start, std::int64_t end, Compute&& compute, Free&& free) {
    if (open_ && start <= end_) {
      end_ = std::max(end_, end);
      return;
    }
    close(compute, free);
    open_ = true;
    start_ = start;
    end_ = end;
  }
  /// After the last interval: the rest of the free time (only when some interval was seen).
  template <class Compute, class Free>
  void finish(Compute&& compute, Free&& free) {
    close(compute, free);
    if (any_ && hi_ > cur_) free(cur_, hi_);
  }

 private:
  template <class Compute, class Free>
  void close(Compute& compute, Free& free) {
    if (!open_) return;
    compute(start_, end_);
    if (start_ > cur_) free(cur_, start_);
    cur_ = std::max(cur_, end_);
    any_ = true;
    open_ = false;
  }

  std::int64_t cur_, hi_;  ///< end of the covered time so far; last task end
  std::int64_t start_ = 0, end_ = 0;  ///< the merged interval still growing
  bool open_ = false, any_ = false;
};

/// Per device (ascending): its compute intervals merged, then its free gaps.
inline std::vector<overlap_interval> overlap_analysis(const model& m) {
  std::vector<overlap_interval> out;
  std::set<std::uint32_t> devs;
  for (const auto& t : m.tasks) devs.insert(t.device_id);
  for (std::uint32_t dev : devs) {
    std::vector<std::pair<std::int64_t, std::int64_t>> iv;
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& t : m.tasks) {
      if (t.device_id != dev) continue;
      lo = std::min(lo, t.start_ns);
      hi = std::max(hi, t.end_ns);
      if (t.op) iv.emplace_back(t.start_ns, t.end_ns);
    }
    std::sort(iv.begin(), iv.end());
    std::vector<overlap_interval> free;
    auto on_compute = [&](std::int64_t b, std::int64_t e) { out.push_back({dev, b, e, true}); };
    auto on_free = [&](std::int64_t b, std::int64_t e) { free.push_back({dev, b, e, false}); };
    overlap_merger merge(lo, hi);
    for (const auto& p : iv) merge.add(p.first, p.second, on_compute, on_free);
    merge.finish(on_compute, on_free);
    out.insert(out.end(), free.begin(), free.end());
  }
  return out;
}

/// mstx events only (msprof_tx_<ts>.json, and the mstx part of msprof_<ts>.json),
/// handed one by one to `out(trace_event&&)`.
template <class Emit>
void emit_mstx_events(const model& m, Emit& out) {
  if (m.mstx.empty()) return;
  const std::uint64_t pid = format_pid(m.session.pid, sort_index::mstx, host_device_bits);
  std::set<std::uint32_t> tids;
  for (const auto& e : m.mstx) {
    tids.insert(e.tid);
    if constexpr (detail::is_fast_sink<Emit>::value) {
      out.mstx(e, pid);
      continue;
    }
    trace_event x;
    x.ph = 'X';
    x.name = e.message;
    x.pid = pid;
    x.tid = e.tid;
    x.ts_ns = e.start_ns;
    x.dur_ns = e.end_ns - e.start_ns;
    x.args.push_back(trace_arg::str("event_type", detail::mstx_event_type_name(e.event_type)));
    x.args.push_back(trace_arg::str("domain", e.domain));
    out(std::move(x));
    trace_event s;
    s.ph = 's';
    const auto id = std::to_string(detail::mstx_connection_id(e));
    s.name = "MsTx_" + id;
    s.pid = pid;
    s.tid = e.tid;
    s.cat = "MsTx";
    s.id = id;
    s.ts_ns = e.start_ns;
    out(std::move(s));
  }
  detail::add_mstx_meta(out, m.session, tids);
}

/// Step trace events (step_trace_<ts>.json, and a part of msprof_<ts>.json), as
/// msprof 9ba1ac7be's step_trace_assembler writes them: in the Ascend Hardware
/// process of the device, thread (int)model_id + 70000 ("Step Trace(Model
/// ID:<id>)"; step mode's 4294967295 wraps to 69999); per iteration an
/// "Iteration <id>" slice (cat "Iteration Time") and, when FP and BP exist,
/// "FP_BP Time <id>", "Iteration Refresh <id>" and the Data_aug flow pair.
template <class Emit>
void emit_step_trace(const model& m, Emit& out) {
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

/// When the collector lost anything (info.json msprof_losses), one slice over
/// the whole collection in a process of its own, "msprof collection", named
/// with the total and carrying each counter as an argument, so nobody reads a
/// timeline with holes without seeing it.
template <class Emit>
void emit_loss_note(const model& m, Emit& out) {
  trace_event x;
  std::uint64_t total = 0;
  for (const auto& [what, n] : m.session.losses) {
    total += n;
    if (n > 0) x.args.push_back(trace_arg::num(what, static_cast<std::int64_t>(n)));
  }
  if (total == 0) return;
  const std::uint64_t pid = format_pid(m.session.pid, sort_index::msprof_losses, host_device_bits);
  detail::add_process_meta(out, pid, "msprof collection", "CPU", sort_index::msprof_losses);
  detail::add_thread_meta(out, pid, 0, "losses", 0);
  x.ph = 'X';
  x.name = "msprof: " + std::to_string(total) + " events lost, the timeline is incomplete";
  x.pid = pid;
  x.tid = 0;
  x.ts_ns = m.session.start_ns;
  x.dur_ns = std::max<std::int64_t>(0, m.session.end_ns - m.session.start_ns);
  out(std::move(x));
}

/// Every event of msprof_<ts>.json, handed one by one to `out(trace_event&&)`
/// (streaming: nothing is kept).
template <class Emit>
void emit_timeline(const model& m, Emit& out, const timeline_parts& parts = {}) {
  const auto& s = m.session;

  // Ascend Hardware: one process per device, one thread per stream.
  if (parts.hardware && !m.tasks.empty()) {
    std::map<std::uint32_t, std::set<std::uint32_t>> streams;
    for (const auto& t : m.tasks) {
      const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, t.device_id);
      streams[t.device_id].insert(t.stream_id);
      if constexpr (detail::is_fast_sink<Emit>::value) {
        out.task(t, pid);
        continue;
      }
      trace_event x;
      x.ph = 'X';
      x.name = t.op ? t.op->name : t.task_type;
      x.pid = pid;
      x.tid = t.stream_id;
      x.ts_ns = t.start_ns;
      x.dur_ns = t.end_ns - t.start_ns;
      x.args.push_back(trace_arg::num("Model Id", 4294967295LL));
      x.args.push_back(trace_arg::str("Task Type", t.op ? ge_task_type_name(t.op->ge_task_type) : t.task_type));
      x.args.push_back(trace_arg::num("Physic Stream Id", t.stream_id));
      x.args.push_back(trace_arg::num("Task Id", t.task_id));
      x.args.push_back(trace_arg::num("Batch Id", t.batch_id));
      x.args.push_back(trace_arg::num("Subtask Id", 4294967295LL));
      x.args.push_back(trace_arg::num("connection_id", static_cast<std::int64_t>(t.connection_id)));
      out(std::move(x));
      if (t.connection_id != 0) {
        trace_event f;
        f.ph = 'f';
        f.id = std::to_string(detail::host_to_device_id(t.connection_id));
        f.name = "HostToDevice" + f.id;
        f.pid = pid;
        f.tid = t.stream_id;
        f.cat = "HostToDevice";
        f.ts_ns = t.start_ns;
        f.bp_enclosing = true;
        out(std::move(f));
      }
    }
    detail::add_hardware_meta(out, s, streams);
  }

  // CANN: host APIs per thread, HostToDevice flow starts.
  if (parts.cann && !m.apis.empty()) {
    const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
    std::set<std::uint32_t> tids;
    for (const auto& a : m.apis) tids.insert(a.thread_id);
    detail::add_cann_meta(out, s, tids);
    for (const auto& a : m.apis) {
      if constexpr (detail::is_fast_sink<Emit>::value) {
        out.api(a, pid);
        continue;
      }
      trace_event x;
      x.ph = 'X';
      x.name = std::string(layer_name(a.level)) + "@" + a.name;
      x.pid = pid;
      x.tid = a.thread_id;
      x.ts_ns = a.start_ns;
      x.dur_ns = a.end_ns - a.start_ns;
      x.args.push_back(trace_arg::num("Thread Id", a.thread_id));
      const bool acl = a.level == level::acl;
      x.args.push_back(trace_arg::str("Mode", acl ? acl_group_name(a.type) : a.name));
      x.args.push_back(trace_arg::str("level", level_name(a.level)));
      x.args.push_back(trace_arg::str("id", acl ? a.name : "0"));
      x.args.push_back(trace_arg::str("item_id", a.item.empty() ? "0" : a.item));
      x.args.push_back(trace_arg::num("connection_id", static_cast<std::int64_t>(a.connection_id)));
      out(std::move(x));
    }
    for (const auto& a : m.apis) {
      if (!a.has_device_task) continue;
      if constexpr (detail::is_fast_sink<Emit>::value) {
        out.api_flow(a, pid);
        continue;
      }
      trace_event f;
      f.ph = 's';
      f.id = std::to_string(detail::host_to_device_id(a.connection_id));
      f.name = "HostToDevice" + f.id;
      f.pid = pid;
      f.tid = a.thread_id;
      f.cat = "HostToDevice";
      f.ts_ns = a.start_ns;
      out(std::move(f));
    }
  }

  if (parts.mstx) emit_mstx_events(m, out);
  if (parts.step_trace) emit_step_trace(m, out);
  if (parts.losses) emit_loss_note(m, out);

  // AI Core Freq: msprof 9ba1ac7be emits the counter and its metadata twice.
  if (parts.freq && m.has_device()) {
    for (const auto& d : s.devices) {
      const std::uint64_t pid = format_pid(s.pid, sort_index::ai_core_freq, d.id);
      for (int twice = 0; twice < 2; ++twice) {
        for (std::int64_t ts : {s.start_ns, s.end_ns}) {
          trace_event c;
          c.ph = 'C';
          c.name = "AI Core Freq";
          c.pid = pid;
          c.tid = 0;
          c.ts_ns = ts;
          c.args.push_back(trace_arg::num("MHz", static_cast<std::int64_t>(d.aic_frequency_mhz)));
          out(std::move(c));
        }
        detail::add_process_meta(out, pid, "AI Core Freq", "NPU " + std::to_string(d.id), sort_index::ai_core_freq);
      }
    }
  }

  // Overlap Analysis, whenever there are device tasks.
  if (parts.overlap && !m.tasks.empty()) {
    const auto iv = overlap_analysis(m);
    std::set<std::uint32_t> devs;
    for (const auto& t : m.tasks) devs.insert(t.device_id);
    for (auto dev : devs) {
      const std::uint64_t pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
      detail::add_overlap_meta(out, s, dev);
      for (const auto& o : iv) {
        if (o.device_id != dev) continue;
        if constexpr (detail::is_fast_sink<Emit>::value) {
          out.overlap(o, pid);
          continue;
        }
        trace_event x;
        x.ph = 'X';
        x.name = o.compute ? "Computing" : "Free";
        x.pid = pid;
        x.tid = o.compute ? 0 : 3;
        x.ts_ns = o.start_ns;
        x.dur_ns = o.end_ns - o.start_ns;
        out(std::move(x));
      }
    }
  }
}

/// mstx events as a vector.
inline void build_mstx_events(const model& m, std::vector<trace_event>& v) {
  auto push = [&](trace_event&& e) { v.push_back(std::move(e)); };
  emit_mstx_events(m, push);
}

/// Every event of msprof_<ts>.json as a vector (the chrome writer's input).
inline std::vector<trace_event> build_timeline(const model& m, const timeline_parts& parts = {}) {
  std::vector<trace_event> v;
  v.reserve(m.apis.size() * 2 + m.tasks.size() * 2 + m.mstx.size() * 2 + 64);
  auto push = [&](trace_event&& e) { v.push_back(std::move(e)); };
  emit_timeline(m, push, parts);
  return v;
}

/// Appends one event in msprof's JSON form.
inline void append_event_json(std::string& out, const trace_event& e) {
  out += "{\"name\":";
  append_json_string(out, e.name);
  fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":{}", e.pid, e.tid);
  auto ts = [&] {
    out += ",\"ts\":\"";
    append_ts_us(out, e.ts_ns);
    out += '"';
  };
  switch (e.ph) {
    case 'X':
      ts();
      out += ",\"dur\":";
      out += dur_us_json(e.dur_ns);
      out += ",\"ph\":\"X\"";
      if (!e.cat.empty()) {  // step trace slices carry a category
        out += ",\"cat\":";
        append_json_string(out, e.cat);
      }
      break;
    case 'C':
      ts();
      out += ",\"ph\":\"C\"";
      break;
    case 'M':
      out += ",\"ph\":\"M\"";
      break;
    default:  // flows
      out += ",\"ph\":\"";
      out += e.ph;
      out += "\",\"cat\":";
      append_json_string(out, e.cat);
      out += ",\"id\":";
      append_json_string(out, e.id);
      ts();
      if (e.bp_enclosing) out += ",\"bp\":\"e\"";
      if (e.args.empty()) {
        out += '}';
        return;
      }
      break;  // step trace Data_aug flows have args
  }
  out += ",\"args\":{";
  bool first = true;
  for (const auto& a : e.args) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, a.key);
    out += ':';
    switch (a.k) {
      case trace_arg::kind::integer: fmt::format_to(std::back_inserter(out), "{}", a.i); break;
      case trace_arg::kind::real: out += py_float(a.d); break;
      case trace_arg::kind::string: append_json_string(out, a.s); break;
    }
  }
  out += "}}";
}

namespace detail {

inline void append_u64(std::string& out, std::uint64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  out.append(p, static_cast<std::size_t>(buf + sizeof buf - p));
}

inline void append_i64(std::string& out, std::int64_t v) {
  if (v < 0) {
    out += '-';
    append_u64(out, 0 - static_cast<std::uint64_t>(v));
  } else {
    append_u64(out, static_cast<std::uint64_t>(v));
  }
}

inline void append_ts_fast(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    append_ts_us(out, ns);
    return;
  }
  const auto u = static_cast<std::uint64_t>(ns);
  append_u64(out, u / 1000u);
  const auto f = static_cast<unsigned>(u % 1000u);
  const char d[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                     static_cast<char>('0' + f % 10)};
  out.append(d, 4);
}

// msprof JSON of the hot events straight from the model, one event each,
// without separators: the one formatter of json_sink and of the timeline
// exporter. Same bytes as append_event_json on build_timeline's events (checked
// by a test).

/// A literal, its length known at compile time.
template <std::size_t N>
void append_lit(std::string& out, const char (&s)[N]) {
  out.append(s, N - 1);
}

/// name, pid, tid, ts; a layer (API calls) prefixes the name: "AscendCL@aclrtMalloc".
inline void append_head_json(std::string& out, std::string_view layer, std::string_view name, std::uint64_t pid,
                             std::uint64_t tid, std::int64_t ts) {
  append_lit(out, "{\"name\":\"");
  if (!layer.empty()) {
    out.append(layer);  // layer names need no escaping
    out += '@';
  }
  append_json_escaped(out, name);
  append_lit(out, "\",\"pid\":");
  append_u64(out, pid);
  append_lit(out, ",\"tid\":");
  append_u64(out, tid);
  append_lit(out, ",\"ts\":\"");
  append_ts_fast(out, ts);
  out += '"';
}

/// dur, ph and the opening of args.
inline void append_dur_json(std::string& out, std::int64_t ns) {
  append_lit(out, ",\"dur\":");
  if (ns >= 0 && ns < 1000000000000000LL) {
    // ns/1000 has at most 3 decimals, so its shortest round-trip form is the
    // decimal itself without trailing zeros (what dur_us_json prints).
    append_u64(out, static_cast<std::uint64_t>(ns) / 1000u);
    unsigned f = static_cast<unsigned>(static_cast<std::uint64_t>(ns) % 1000u);
    char d[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                 static_cast<char>('0' + f % 10)};
    std::size_t len = 4;
    while (len > 2 && d[len - 1] == '0') --len;
    out.append(d, len);
  } else {
    out += dur_us_json(ns);
  }
  append_lit(out, ",\"ph\":\"X\",\"args\":{");
}

/// A flow event; its id is a number written as a string ("HostToDevice<id>").
inline void append_flow_json(std::string& out, char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts,
                             std::string_view cat, std::uint64_t id, std::string_view prefix, bool bp) {
  append_lit(out, "{\"name\":\"");
  out.append(prefix);
  append_u64(out, id);
  append_lit(out, "\",\"pid\":");
  append_u64(out, pid);
  append_lit(out, ",\"tid\":");
  append_u64(out, tid);
  append_lit(out, ",\"ph\":\"");
  out += ph;
  append_lit(out, "\",\"cat\":\"");
  out.append(cat);
  append_lit(out, "\",\"id\":\"");
  append_u64(out, id);
  append_lit(out, "\",\"ts\":\"");
  append_ts_fast(out, ts);
  if (bp)
    append_lit(out, "\",\"bp\":\"e\"}");
  else
    append_lit(out, "\"}");
}

inline void append_task_json(std::string& out, const device_task& t, std::uint64_t pid) {
  append_head_json(out, {}, t.op ? std::string_view(t.op->name) : std::string_view(t.task_type), pid, t.stream_id,
                   t.start_ns);
  append_dur_json(out, t.end_ns - t.start_ns);
  append_lit(out, "\"Model Id\":4294967295,\"Task Type\":");
  append_json_string(out, t.op ? ge_task_type_name(t.op->ge_task_type) : t.task_type);
  append_lit(out, ",\"Physic Stream Id\":");
  append_u64(out, t.stream_id);
  append_lit(out, ",\"Task Id\":");
  append_u64(out, t.task_id);
  append_lit(out, ",\"Batch Id\":");
  append_u64(out, t.batch_id);
  append_lit(out, ",\"Subtask Id\":4294967295,\"connection_id\":");
  append_u64(out, t.connection_id);
  append_lit(out, "}}");
}

/// The HostToDevice flow end of a task with a connection id.
inline void append_task_flow_json(std::string& out, const device_task& t, std::uint64_t pid) {
  append_flow_json(out, 'f', pid, t.stream_id, t.start_ns, "HostToDevice", host_to_device_id(t.connection_id),
                   "HostToDevice", true);
}

inline void append_api_json(std::string& out, const api_call& a, std::uint64_t pid) {
  const bool acl = a.level == level::acl;
  append_head_json(out, layer_name(a.level), a.name, pid, a.thread_id, a.start_ns);
  append_dur_json(out, a.end_ns - a.start_ns);
  append_lit(out, "\"Thread Id\":");
  append_u64(out, a.thread_id);
  append_lit(out, ",\"Mode\":");
  append_json_string(out, acl ? std::string_view(acl_group_name(a.type)) : std::string_view(a.name));
  append_lit(out, ",\"level\":\"");
  out.append(level_name(a.level));
  append_lit(out, "\",\"id\":");
  append_json_string(out, acl ? std::string_view(a.name) : std::string_view("0"));
  append_lit(out, ",\"item_id\":");
  append_json_string(out, a.item.empty() ? std::string_view("0") : std::string_view(a.item));
  append_lit(out, ",\"connection_id\":");
  append_u64(out, a.connection_id);
  append_lit(out, "}}");
}

/// The HostToDevice flow start of an API call with a device task.
inline void append_api_flow_json(std::string& out, const api_call& a, std::uint64_t pid) {
  append_flow_json(out, 's', pid, a.thread_id, a.start_ns, "HostToDevice", host_to_device_id(a.connection_id),
                   "HostToDevice", false);
}

inline void append_overlap_json(std::string& out, const overlap_interval& o, std::uint64_t pid) {
  append_head_json(out, {}, o.compute ? "Computing" : "Free", pid, o.compute ? 0 : 3, o.start_ns);
  append_dur_json(out, o.end_ns - o.start_ns);
  append_lit(out, "}}");
}

inline void append_mstx_json(std::string& out, const mstx_event& e, std::uint64_t pid) {
  append_head_json(out, {}, e.message, pid, e.tid, e.start_ns);
  append_dur_json(out, e.end_ns - e.start_ns);
  append_lit(out, "\"event_type\":\"");
  out.append(mstx_event_type_name(e.event_type));
  append_lit(out, "\",\"domain\":");
  append_json_string(out, e.domain);
  append_lit(out, "}}");
}

/// The MsTx flow start of an mstx event.
inline void append_mstx_flow_json(std::string& out, const mstx_event& e, std::uint64_t pid) {
  append_flow_json(out, 's', pid, e.tid, e.start_ns, "MsTx", mstx_connection_id(e), "MsTx_", false);
}

/// Writes msprof JSON: the hot events through the formatters above, the others
/// through append_event_json; commas between events, `flush()` every MiB.
template <class Flush>
struct json_sink {
  static constexpr bool fast_json = true;
  std::string& buf;
  Flush& flush;
  bool first = true;

  void sep() {
    if (!first) buf += ',';
    first = false;
    if (buf.size() >= (1u << 20)) flush();
  }
  void operator()(trace_event&& e) {
    sep();
    append_event_json(buf, e);
  }
  /// Events already in msprof JSON form (several: separated by commas).
  void raw(std::string_view json) {
    sep();
    buf.append(json);
  }
  void dur(std::int64_t ns) { append_dur_json(buf, ns); }
  void task(const device_task& t, std::uint64_t pid) {
    sep();
    append_task_json(buf, t, pid);
    if (t.connection_id == 0) return;
    sep();
    append_task_flow_json(buf, t, pid);
  }
  void api(const api_call& a, std::uint64_t pid) {
    sep();
    append_api_json(buf, a, pid);
  }
  void api_flow(const api_call& a, std::uint64_t pid) {
    sep();
    append_api_flow_json(buf, a, pid);
  }
  void overlap(const overlap_interval& o, std::uint64_t pid) {
    sep();
    append_overlap_json(buf, o, pid);
  }
  void mstx(const mstx_event& e, std::uint64_t pid) {
    sep();
    append_mstx_json(buf, e, pid);
    sep();
    append_mstx_flow_json(buf, e, pid);
  }
};

}  // namespace detail

/// The whole array.
inline std::string timeline_json(const std::vector<trace_event>& events) {
  std::string out;
  out.reserve(events.size() * 160 + 2);
  out += '[';
  bool first = true;
  for (const auto& e : events) {
    if (!first) out += ',';
    first = false;
    append_event_json(out, e);
  }
  out += ']';
  return out;
}

/// The events of msprof_<ts>.json and msprof_tx_<ts>.json gathered from a
/// model handed over in windows (model.hpp), written at the end in
/// emit_timeline's order. Each event is formatted once, when its window
/// arrives, and kept in a spill_sorter under its place in the output; what
/// stays in memory besides the sorters is one set per device, stream and
/// thread. Overlap Analysis merges every op task's interval per device: those
/// go through a sorter of their own as (device, start, end).
class timeline_collector {
 public:
  /// `timeline`/`tx`: which of the two files will be written (the others' rows
  /// are not kept). The sorters share `budget` and spill into `spill_dir`.
  timeline_collector(const std::string& spill_dir, std::size_t budget, bool timeline, bool tx)
      : timeline_(timeline),
        tx_(tx),
        events_(spill_dir, budget / 3),
        tx_events_(spill_dir, budget / 3),
        compute_(spill_dir, budget / 3) {}

  void add(const model& w) {
    const auto& s = w.session;
    records_ += w.apis.size() + w.tasks.size() + w.mstx.size();
    mstx_ += w.mstx.size();
    std::string text;
    if (timeline_) {
      for (const auto& t : w.tasks) {
        const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, t.device_id);
        text.clear();
        detail::append_task_json(text, t, pid);
        if (t.connection_id != 0) {
          text += ',';
          detail::append_task_flow_json(text, t, pid);
        }
        events_.push({sections::tasks, t.global_task_id}, text);
        streams_[t.device_id].insert(t.stream_id);
        auto span = spans_.try_emplace(t.device_id, task_span{t.start_ns, t.end_ns}).first;
        span->second.lo = std::min(span->second.lo, t.start_ns);
        span->second.hi = std::max(span->second.hi, t.end_ns);
        if (t.op) compute_.push({t.device_id, t.start_ns, t.end_ns}, {});
      }
      const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
      for (const auto& a : w.apis) {
        text.clear();
        detail::append_api_json(text, a, pid);
        events_.push({sections::apis, a.connection_id}, text);
        api_tids_.insert(a.thread_id);
        if (!a.has_device_task) continue;
        text.clear();
        detail::append_api_flow_json(text, a, pid);
        events_.push({sections::api_flows, a.connection_id}, text);
      }
    }
    const std::uint64_t pid = format_pid(s.pid, sort_index::mstx, host_device_bits);
    for (const auto& e : w.mstx) {
      text.clear();
      detail::append_mstx_json(text, e, pid);
      text += ',';
      detail::append_mstx_flow_json(text, e, pid);
      if (timeline_) events_.push({sections::mstx, mstx_seq_}, text);
      if (tx_) tx_events_.push({sections::mstx, mstx_seq_}, text);
      ++mstx_seq_;
      mstx_tids_.insert(e.tid);
    }
  }

  /// API calls, device tasks and mstx events of all windows.
  std::size_t records() const noexcept { return records_; }
  std::size_t mstx_count() const noexcept { return mstx_; }

  /// msprof_<ts>.json's events into a detail::json_sink; `final` gives the
  /// session (pid, devices, end) and the iterations. Once only.
  template <class Sink>
  result<void> write_timeline(const model& final, Sink& sink) {
    const auto& s = final.session;
    // The metadata between the sorted sections, written as the rows reach them.
    std::uint8_t at = sections::tasks;
    auto reach = [&](std::uint8_t next) {
      for (; at < next; ++at) {
        if (at == sections::tasks) {
          detail::add_hardware_meta(sink, s, streams_);
          if (!api_tids_.empty()) detail::add_cann_meta(sink, s, api_tids_);
        }
        if (at == sections::mstx && !mstx_tids_.empty()) detail::add_mstx_meta(sink, s, mstx_tids_);
      }
    };
    MSPROF_TRY(events_.drain([&](const event_key& k, std::string_view json) {
      reach(k.section);
      sink.raw(json);
    }));
    reach(sections::end);
    timeline_parts rest;  // what only the final model knows: step trace, loss note, AI Core Freq
    rest.cann = rest.hardware = rest.mstx = rest.overlap = false;
    emit_timeline(final, sink, rest);
    return write_overlap(s, sink);
  }

  /// msprof_tx_<ts>.json's events into a detail::json_sink. Once only.
  template <class Sink>
  result<void> write_mstx(const model& final, Sink& sink) {
    MSPROF_TRY(tx_events_.drain([&](const event_key&, std::string_view json) { sink.raw(json); }));
    if (!mstx_tids_.empty()) detail::add_mstx_meta(sink, final.session, mstx_tids_);
    return {};
  }

 private:
  /// Sections of msprof_<ts>.json that hold records, in file order.
  struct sections {
    static constexpr std::uint8_t tasks = 0, apis = 1, api_flows = 2, mstx = 3, end = 4;
    static constexpr std::uint8_t overlap_free = 5;  ///< events_ reused for one device's free gaps
  };
  /// A row's place: its section, then the global task id, connection id or record number.
  struct event_key {
    std::uint8_t section;
    std::uint64_t order;
    bool operator<(const event_key& o) const noexcept {
      return section != o.section ? section < o.section : order < o.order;
    }
  };
  struct interval_key {
    std::uint32_t device;
    std::int64_t start, end;
    bool operator<(const interval_key& o) const noexcept {
      if (device != o.device) return device < o.device;
      return start != o.start ? start < o.start : end < o.end;
    }
  };
  struct task_span {
    std::int64_t lo, hi;  ///< first task start, last task end
  };

  /// Overlap Analysis: per device its metadata, merged compute intervals, then
  /// its free gaps (held in the drained events_ until the device is complete).
  template <class Sink>
  result<void> write_overlap(const session_info& s, Sink& sink) {
    result<void> status;
    auto next = spans_.begin();
    std::optional<overlap_merger> merge;
    std::uint32_t dev = 0;
    std::uint64_t pid = 0, gaps = 0;
    std::string text;
    auto on_compute = [&](std::int64_t b, std::int64_t e) { sink.overlap({dev, b, e, true}, pid); };
    auto on_free = [&](std::int64_t b, std::int64_t e) {
      text.clear();
      detail::append_overlap_json(text, {dev, b, e, false}, pid);
      events_.push({sections::overlap_free, gaps++}, text);
    };
    auto close = [&] {
      if (!merge) return;
      merge->finish(on_compute, on_free);
      auto r = events_.drain([&](const event_key&, std::string_view json) { sink.raw(json); });
      if (status && !r) status = std::move(r);
      merge.reset();
    };
    // Opens the devices up to `last` (all when null) in turn, closing each before the next.
    auto open_until = [&](const std::uint32_t* last) {
      for (; next != spans_.end() && (!last || next->first <= *last); ++next) {
        close();
        dev = next->first;
        pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
        detail::add_overlap_meta(sink, s, dev);
        merge.emplace(next->second.lo, next->second.hi);
      }
    };
    auto r = compute_.drain([&](const interval_key& k, std::string_view) {
      if (!merge || k.device != dev) open_until(&k.device);
      merge->add(k.start, k.end, on_compute, on_free);
    });
    open_until(nullptr);
    close();
    if (!r) return r;
    return status;
  }

  bool timeline_, tx_;
  spill_sorter<event_key> events_;     ///< msprof_<ts>.json's records
  spill_sorter<event_key> tx_events_;  ///< msprof_tx_<ts>.json's records (section mstx)
  spill_sorter<interval_key> compute_;  ///< op tasks' intervals, for Overlap Analysis
  std::map<std::uint32_t, std::set<std::uint32_t>> streams_;  ///< device -> streams with tasks
  std::map<std::uint32_t, task_span> spans_;                  ///< device -> its tasks' time span
  std::set<std::uint32_t> api_tids_, mstx_tids_;
  std::size_t records_ = 0, mstx_ = 0;
  std::uint64_t mstx_seq_ = 0;
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_HPP
