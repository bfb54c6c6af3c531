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
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model.hpp"
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
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    for (const auto& p : iv) {
      if (!merged.empty() && p.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, p.second);
      else
        merged.push_back(p);
    }
    for (const auto& p : merged) out.push_back({dev, p.first, p.second, true});
    std::int64_t cur = lo;
    for (const auto& p : merged) {
      if (p.first > cur) out.push_back({dev, cur, p.first, false});
      cur = std::max(cur, p.second);
    }
    if (!merged.empty() && hi > cur) out.push_back({dev, cur, hi, false});
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
  detail::add_process_meta(out, pid, m.session.pid_name, "CPU", sort_index::mstx);
  for (auto tid : tids) detail::add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
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
    for (const auto& [dev, ids] : streams) {
      const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, dev);
      detail::add_process_meta(out, pid, "Ascend Hardware", "NPU " + std::to_string(dev),
                               sort_index::ascend_hardware);
      for (auto st : ids) detail::add_thread_meta(out, pid, st, "Stream " + std::to_string(st), st);
    }
  }

  // CANN: host APIs per thread, HostToDevice flow starts.
  if (parts.cann && !m.apis.empty()) {
    const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
    std::set<std::uint32_t> tids;
    for (const auto& a : m.apis) tids.insert(a.thread_id);
    detail::add_process_meta(out, pid, "CANN", "CPU", sort_index::cann);
    for (auto tid : tids) detail::add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
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
      detail::add_process_meta(out, pid, "Overlap Analysis", "NPU " + std::to_string(dev),
                               sort_index::overlap_analysis);
      const char* names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
      for (int i = 0; i < 4; ++i) detail::add_thread_meta(out, pid, static_cast<std::uint64_t>(i), names[i], i);
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

/// Writes msprof JSON, the hot events straight from the model. Produces the same
/// bytes as append_event_json on build_timeline's events (checked by a test).
template <class Flush>
struct json_sink {
  static constexpr bool fast_json = true;
  std::string& buf;
  Flush& flush;
  bool first = true;

  /// A literal, its length known at compile time.
  template <std::size_t N>
  void put(const char (&s)[N]) {
    buf.append(s, N - 1);
  }
  void sep() {
    if (!first) buf += ',';
    first = false;
    if (buf.size() >= (1u << 20)) flush();
  }
  void operator()(trace_event&& e) {
    sep();
    append_event_json(buf, e);
  }
  /// name, pid, tid, ts; a layer (API calls) prefixes the name: "AscendCL@aclrtMalloc".
  void head(std::string_view layer, std::string_view name, std::uint64_t pid, std::uint64_t tid, std::int64_t ts) {
    put("{\"name\":\"");
    if (!layer.empty()) {
      buf.append(layer);  // layer names need no escaping
      buf += '@';
    }
    append_json_escaped(buf, name);
    put("\",\"pid\":");
    append_u64(buf, pid);
    put(",\"tid\":");
    append_u64(buf, tid);
    put(",\"ts\":\"");
    append_ts_fast(buf, ts);
    buf += '"';
  }
  void dur(std::int64_t ns) {
    put(",\"dur\":");
    if (ns >= 0 && ns < 1000000000000000LL) {
      // ns/1000 has at most 3 decimals, so its shortest round-trip form is the
      // decimal itself without trailing zeros (what dur_us_json prints).
      append_u64(buf, static_cast<std::uint64_t>(ns) / 1000u);
      unsigned f = static_cast<unsigned>(static_cast<std::uint64_t>(ns) % 1000u);
      char d[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                   static_cast<char>('0' + f % 10)};
      std::size_t len = 4;
      while (len > 2 && d[len - 1] == '0') --len;
      buf.append(d, len);
    } else {
      buf += dur_us_json(ns);
    }
    put(",\"ph\":\"X\",\"args\":{");
  }
  /// A flow event; its id is a number written as a string ("HostToDevice<id>").
  void flow(char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string_view cat, std::uint64_t id,
            std::string_view prefix, bool bp) {
    sep();
    put("{\"name\":\"");
    buf.append(prefix);
    append_u64(buf, id);
    put("\",\"pid\":");
    append_u64(buf, pid);
    put(",\"tid\":");
    append_u64(buf, tid);
    put(",\"ph\":\"");
    buf += ph;
    put("\",\"cat\":\"");
    buf.append(cat);
    put("\",\"id\":\"");
    append_u64(buf, id);
    put("\",\"ts\":\"");
    append_ts_fast(buf, ts);
    if (bp)
      put("\",\"bp\":\"e\"}");
    else
      put("\"}");
  }
  void task(const device_task& t, std::uint64_t pid) {
    sep();
    head({}, t.op ? std::string_view(t.op->name) : std::string_view(t.task_type), pid, t.stream_id, t.start_ns);
    dur(t.end_ns - t.start_ns);
    put("\"Model Id\":4294967295,\"Task Type\":");
    append_json_string(buf, t.op ? ge_task_type_name(t.op->ge_task_type) : t.task_type);
    put(",\"Physic Stream Id\":");
    append_u64(buf, t.stream_id);
    put(",\"Task Id\":");
    append_u64(buf, t.task_id);
    put(",\"Batch Id\":");
    append_u64(buf, t.batch_id);
    put(",\"Subtask Id\":4294967295,\"connection_id\":");
    append_u64(buf, t.connection_id);
    put("}}");
    if (t.connection_id != 0)
      flow('f', pid, t.stream_id, t.start_ns, "HostToDevice", host_to_device_id(t.connection_id), "HostToDevice",
           true);
  }
  void api(const api_call& a, std::uint64_t pid) {
    sep();
    const bool acl = a.level == level::acl;
    head(layer_name(a.level), a.name, pid, a.thread_id, a.start_ns);
    dur(a.end_ns - a.start_ns);
    put("\"Thread Id\":");
    append_u64(buf, a.thread_id);
    put(",\"Mode\":");
    append_json_string(buf, acl ? std::string_view(acl_group_name(a.type)) : std::string_view(a.name));
    put(",\"level\":\"");
    buf.append(level_name(a.level));
    put("\",\"id\":");
    append_json_string(buf, acl ? std::string_view(a.name) : std::string_view("0"));
    put(",\"item_id\":");
    append_json_string(buf, a.item.empty() ? std::string_view("0") : std::string_view(a.item));
    put(",\"connection_id\":");
    append_u64(buf, a.connection_id);
    put("}}");
  }
  void api_flow(const api_call& a, std::uint64_t pid) {
    flow('s', pid, a.thread_id, a.start_ns, "HostToDevice", host_to_device_id(a.connection_id), "HostToDevice",
         false);
  }
  void overlap(const overlap_interval& o, std::uint64_t pid) {
    sep();
    head({}, o.compute ? "Computing" : "Free", pid, o.compute ? 0 : 3, o.start_ns);
    dur(o.end_ns - o.start_ns);
    put("}}");
  }
  void mstx(const mstx_event& e, std::uint64_t pid) {
    sep();
    head({}, e.message, pid, e.tid, e.start_ns);
    dur(e.end_ns - e.start_ns);
    put("\"event_type\":\"");
    buf.append(mstx_event_type_name(e.event_type));
    put("\",\"domain\":");
    append_json_string(buf, e.domain);
    put("}}");
    flow('s', pid, e.tid, e.start_ns, "MsTx", mstx_connection_id(e), "MsTx_", false);
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

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_HPP
