// SPDX-License-Identifier: MIT
// The timeline's event emitters (timeline.hpp), NPU MEM's, HCCS's, NIC's, RoCE's
// PCIe's and the host's CPU, memory, disk and network usage from their slices, and the process metadata they share with the step trace and the JSON
// collector (timeline_event.hpp).
#include "msprof/convert/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/host_usage.hpp"
#include "msprof/convert/sys_io.hpp"
#include "msprof/convert/llc.hpp"
#include "msprof/convert/qos.hpp"
#include "msprof/convert/acc_pmu.hpp"
#include "msprof/convert/sys_mem.hpp"
#include "msprof/prof/layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

// Only fast outputs receive these (output_ref<Emit, true> overrides them).
void event_output::task(const device_task&, std::uint64_t) {}
void event_output::api(const api_call&, std::uint64_t) {}
void event_output::api_flow(const api_call&, std::uint64_t) {}
void event_output::overlap(const overlap_interval&, std::uint64_t) {}
void event_output::mstx(const mstx_event&, std::uint64_t) {}
void event_output::raw(std::string_view) {}

std::string_view task_slice_name(const device_task& t) noexcept {
  return t.op && !t.is_memcpy_async() ? std::string_view(t.op->name) : std::string_view(t.task_type);
}
std::string task_slice_type(const device_task& t) {
  if (t.is_memcpy_async()) return sqe_type_name(t.sqe_type);
  return t.op ? ge_task_type_name(t.op->ge_task_type) : t.task_type;
}
double memcpy_bandwidth(const device_task& t, const memcpy_copy& c) noexcept {
  const std::int64_t ns = t.end_ns - t.start_ns;
  return ns > 0 ? static_cast<double>(c.size) / static_cast<double>(ns) : 0.0;
}

void add_meta(event_output& out, const char* name, std::uint64_t pid, std::uint64_t tid, trace_arg a) {
  trace_event e;
  e.ph = 'M';
  e.name = name;
  e.pid = pid;
  e.tid = tid;
  e.args.push_back(std::move(a));
  out(std::move(e));
}

void add_process_meta(event_output& out, std::uint64_t pid, const std::string& name, const std::string& label,
                      std::int64_t sort) {
  add_meta(out, "process_name", pid, 0, trace_arg::str("name", name));
  add_meta(out, "process_labels", pid, 0, trace_arg::str("labels", label));
  add_meta(out, "process_sort_index", pid, 0, trace_arg::num("sort_index", sort));
}

void add_thread_meta(event_output& out, std::uint64_t pid, std::uint64_t tid, const std::string& name,
                     std::int64_t sort) {
  add_meta(out, "thread_name", pid, tid, trace_arg::str("name", name));
  add_meta(out, "thread_sort_index", pid, tid, trace_arg::num("sort_index", sort));
}

const char* mstx_event_type_name(std::uint32_t t) noexcept {
  switch (t) {
    case 0: return "marker";
    case 1: return "push/pop";
    case 2: return "start/end";
    case 3: return "marker_ex";
    default: return "unknown";
  }
}

/// Ascend Hardware: one process per device, a thread per stream.
void add_hardware_meta(event_output& out, const session_info& s,
                       const std::map<std::uint32_t, std::set<std::uint32_t>>& streams) {
  for (const auto& [dev, ids] : streams) {
    const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, dev);
    add_process_meta(out, pid, "Ascend Hardware", "NPU " + std::to_string(dev), sort_index::ascend_hardware);
    for (auto st : ids) add_thread_meta(out, pid, st, "Stream " + std::to_string(st), st);
  }
}

/// CANN: host threads that called APIs.
void add_cann_meta(event_output& out, const session_info& s, const std::set<std::uint32_t>& tids) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
  add_process_meta(out, pid, "CANN", "CPU", sort_index::cann);
  for (auto tid : tids) add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
}

/// mstx: host threads that marked.
void add_mstx_meta(event_output& out, const session_info& s, const std::set<std::uint32_t>& tids) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::mstx, host_device_bits);
  add_process_meta(out, pid, s.pid_name, "CPU", sort_index::mstx);
  for (auto tid : tids) add_thread_meta(out, pid, tid, "Thread " + std::to_string(tid), tid);
}

/// Overlap Analysis of one device: its four fixed threads.
void add_overlap_meta(event_output& out, const session_info& s, std::uint32_t dev) {
  const std::uint64_t pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
  add_process_meta(out, pid, "Overlap Analysis", "NPU " + std::to_string(dev), sort_index::overlap_analysis);
  const char* names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
  for (int i = 0; i < 4; ++i) add_thread_meta(out, pid, static_cast<std::uint64_t>(i), names[i], i);
}

/// emit_mstx_events' events.
void mstx_events(const model& m, event_output& out) {
  if (m.mstx.empty()) return;
  const std::uint64_t pid = format_pid(m.session.pid, sort_index::mstx, host_device_bits);
  std::set<std::uint32_t> tids;
  for (const auto& e : m.mstx) {
    tids.insert(e.tid);
    if (out.fast) {
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
    detail::trace_args args{x.args};
    detail::mstx_args(e, args);
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

/// emit_loss_note's slice.
void loss_note(const model& m, event_output& out) {
  trace_event x;
  std::uint64_t total = 0;
  for (const auto& [what, n] : m.session.losses) {
    total += n;
    if (n > 0) x.args.push_back(trace_arg::num(what, static_cast<std::int64_t>(n)));
  }
  const bool unfinished = m.session.unfinished && !m.session.losses.empty();
  if (total == 0 && !unfinished) return;
  const std::uint64_t pid = format_pid(m.session.pid, sort_index::msprof_losses, host_device_bits);
  detail::add_process_meta(out, pid, "msprof collection", "CPU", sort_index::msprof_losses);
  detail::add_thread_meta(out, pid, 0, "losses", 0);
  x.ph = 'X';
  x.name = unfinished ? "msprof: collection unfinished (program killed or crashed), at least " + std::to_string(total) +
                            " events lost, the timeline is incomplete"
                      : "msprof: " + std::to_string(total) + " events lost, the timeline is incomplete";
  x.pid = pid;
  x.tid = 0;
  x.ts_ns = m.session.start_ns;
  x.dur_ns = std::max<std::int64_t>(0, m.session.end_ns - m.session.start_ns);
  out(std::move(x));
}

namespace {

/// The counters of `out` at a time in [lo, hi) of `r` and every other event
/// (metadata), as the reference's MsprofTimeline.is_in_iteration keeps an
/// event without a duration.
class counters_within final : public event_output {
 public:
  counters_within(event_output& out, const iteration_range& r) noexcept : event_output(false), out_(out), r_(r) {}
  void operator()(trace_event&& e) override {
    if (e.ph != 'C' || (e.ts_ns >= r_.lo && e.ts_ns < r_.hi)) out_(std::move(e));
  }

 private:
  event_output& out_;
  const iteration_range& r_;
};

/// `out`, or `narrowed` (then made) with a selection: its counters within it.
event_output& within_selection(event_output& out, const iteration_range* within,
                               std::optional<counters_within>& narrowed) {
  if (!within) return out;
  narrowed.emplace(out, *within);
  return *narrowed;
}

}  // namespace

/// emit_timeline's events.
void timeline_events(const model& m, event_output& out, const timeline_parts& parts, const iteration_range* within) {
  const auto& s = m.session;

  // Ascend Hardware: one process per device, one thread per stream.
  if (parts.hardware && !m.tasks.empty()) {
    std::map<std::uint32_t, std::set<std::uint32_t>> streams;
    for (const auto& t : m.tasks) {
      const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, t.device_id);
      streams[t.device_id].insert(t.stream_id);
      if (out.fast) {
        out.task(t, pid);
        continue;
      }
      trace_event x;
      x.ph = 'X';
      x.name = std::string(detail::task_slice_name(t));
      x.pid = pid;
      x.tid = t.stream_id;
      x.ts_ns = t.start_ns;
      x.dur_ns = t.end_ns - t.start_ns;
      detail::trace_args args{x.args};
      detail::task_args(t, args);
      out(std::move(x));
      if (t.host_flow) {
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
      if (out.fast) {
        out.api(a, pid);
        continue;
      }
      trace_event x;
      x.ph = 'X';
      x.name = std::string(layer_name(a.level)) + "@" + display_name(a);
      x.pid = pid;
      x.tid = a.thread_id;
      x.ts_ns = a.start_ns;
      x.dur_ns = a.end_ns - a.start_ns;
      detail::trace_args args{x.args};
      detail::api_args(a, args);
      out(std::move(x));
    }
    for (const auto& a : m.apis) {
      if (!a.has_device_task) continue;
      if (out.fast) {
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

  if (parts.mstx) mstx_events(m, out);
  if (parts.step_trace) step_trace_events(m, out);
  if (parts.losses) loss_note(m, out);

  // AI Core Freq: msprof 9ba1ac7be emits the counter and its metadata twice.
  // With a selection, its counters within it (as device_counter_events').
  if (parts.freq && m.has_device()) {
    std::optional<counters_within> narrowed;
    event_output& freq = within_selection(out, within, narrowed);
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
          freq(std::move(c));
        }
        detail::add_process_meta(freq, pid, "AI Core Freq", "NPU " + std::to_string(d.id), sort_index::ai_core_freq);
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
        if (out.fast) {
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

namespace {

/// A device counter process's metadata (name, "NPU <id>", its sort index).
void add_device_process_meta(event_output& out, const session_info& s, std::uint32_t sort, std::uint32_t device,
                             const char* name) {
  add_process_meta(out, format_pid(s.pid, sort, device), name, "NPU " + std::to_string(device), sort);
}

/// One counter event (tid 0) of a device counter process, its series in order.
void add_counter(event_output& out, const session_info& s, std::uint32_t sort, std::uint32_t device, std::int64_t ts_ns,
                 std::string name, std::initializer_list<std::pair<const char*, double>> series) {
  trace_event c;
  c.ph = 'C';
  c.name = std::move(name);
  c.pid = format_pid(s.pid, sort, device);
  c.tid = 0;
  c.ts_ns = ts_ns;
  for (const auto& [key, v] : series) c.args.push_back(trace_arg::real(key, v));
  out(std::move(c));
}

/// The reference's metadata of a counter process that has data: every
/// device's, once, before the first counter.
void every_device_meta_once(bool& begun, event_output& out, const session_info& s, std::uint32_t sort, const char* name) {
  if (begun) return;
  for (const auto& d : s.devices) add_device_process_meta(out, s, sort, d.id, name);
  begun = true;
}

/// NPU MEM: per device with any npu_mem sample in `s.prof_dir`, the counters
/// APP/ and Device/ DDR, HBM and Memory (KB), after every device's metadata;
/// the slices' problems go to `warnings`.
result<void> npu_mem_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_npu_mem(s.prof_dir, warnings, [&](const npu_mem_sample& m) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::npu_mem, "NPU MEM");
    const char* const event = m.event == 0 ? "APP" : m.event == 1 ? "Device" : nullptr;
    if (event == nullptr) return {};  // the reference has counter names for these two events only
    const std::pair<const char*, std::uint64_t> counters[] = {{"DDR", m.ddr}, {"HBM", m.hbm}, {"Memory", m.ddr + m.hbm}};
    for (const auto& [name, bytes] : counters)
      add_counter(out, s, sort_index::npu_mem, m.device_id, m.time_ns, std::string(event) + "/" + name,
                  {{"KB", static_cast<double>(bytes) / 1024.0}});
    return {};
  });
}

/// HCCS: when any hccs throughput is kept (sys_io.hpp), every device's
/// metadata, then per throughput the counters Rx ("Rx(MB/s)") and Tx
/// ("Tx(MB/s)"), as the reference's C++ path (hccs_assembler.cpp).
result<void> hccs_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_hccs_throughput(s.prof_dir, warnings, [&](const hccs_throughput& h) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::hccs, "HCCS");
    add_counter(out, s, sort_index::hccs, h.device_id, h.time_ns, "Rx", {{"Rx(MB/s)", h.rx_mb_s}});
    add_counter(out, s, sort_index::hccs, h.device_id, h.time_ns, "Tx", {{"Tx(MB/s)", h.tx_mb_s}});
    return {};
  });
}

/// NIC (`roce` false) or RoCE: when any point is kept (sys_io.hpp), every
/// device's metadata, then per point the counters "Port <funcId>/Rx" and
/// "Port <funcId>/Tx" (bandwidth efficiency, packets, error and dropped
/// rates), as the reference's C++ path (sys_io_assembler.cpp).
result<void> network_events(const session_info& s, event_output& out, std::vector<std::string>& warnings, bool roce) {
  const std::uint32_t sort = roce ? sort_index::roce : sort_index::nic;
  bool begun = false;
  return for_each_network_rate(s.prof_dir, roce ? prof::layout::roce : prof::layout::nic, warnings,
                               [&](const network_rate& p) -> result<void> {
    every_device_meta_once(begun, out, s, sort, roce ? "RoCE" : "NIC");
    const std::string port = "Port " + std::to_string(p.func_id) + "/";
    // The args in the order a run of the reference writes them (its counters keep them in an unordered_map).
    add_counter(out, s, sort, p.device_id, p.time_ns, port + "Rx",
                {{"Rx Bandwidth Efficiency", p.rx_efficiency}, {"Rx Packets", p.rx_packets},
                 {"Rx Error Rate", p.rx_error}, {"Rx Dropped Rate", p.rx_dropped}});
    add_counter(out, s, sort, p.device_id, p.time_ns, port + "Tx",
                {{"Tx Bandwidth Efficiency", p.tx_efficiency}, {"Tx Packets", p.tx_packets},
                 {"Tx Error Rate", p.tx_error}, {"Tx Dropped Rate", p.tx_dropped}});
    return {};
  });
}

/// PCIe: per device with any pcie sample kept (sys_io.hpp), the counters
/// PCIe_cpl, PCIe_nonpost, PCIe_nonpost_latency and PCIe_post of the sample's
/// averages (Rx and Tx, MB/s; the latency's Tx in µs, its Rx 0), then the
/// devices' metadata, as the reference's C++ path (pcie_assembler.cpp).
result<void> pcie_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  using P = codec::PcieSample;
  std::set<std::uint32_t> devices;
  MSPROF_TRY(for_each_pcie_sample(s.prof_dir, warnings, [&](const pcie_sample& p) -> result<void> {
    devices.insert(p.device_id);
    const auto mb_s = [&](P::metric m) { return static_cast<double>(p.values.value(m, P::avg)) / 1024 / 1024; };
    const auto counter = [&](const char* name, double tx, double rx) {
      add_counter(out, s, sort_index::pcie, p.device_id, p.time_ns, name, {{"Rx", rx}, {"Tx", tx}});  // a run's order
    };
    counter("PCIe_cpl", mb_s(P::tx_cpl), mb_s(P::rx_cpl));
    counter("PCIe_nonpost", mb_s(P::tx_np), mb_s(P::rx_np));
    counter("PCIe_nonpost_latency", static_cast<double>(p.values.value(P::tx_np_latency, P::avg)) / 1000, 0);
    counter("PCIe_post", mb_s(P::tx_p), mb_s(P::rx_p));
    return {};
  }));
  for (auto d : devices) add_device_process_meta(out, s, sort_index::pcie, d, "PCIe");  // after the counters, as the reference
  return {};
}

/// HBM: when any bandwidth from the collection start is kept (sys_mem.hpp),
/// every device's metadata, then per bandwidth the counter "HBM <id>/Read"
/// ({"Read(MB/s)": x}) or ".../Write", as the reference's C++ path (hbm_assembler.cpp).
result<void> hbm_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_hbm_bandwidth(s.prof_dir, true, warnings, [&](const hbm_bandwidth& b) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::hbm, "HBM");
    add_counter(out, s, sort_index::hbm, b.device_id, b.time_ns,
                "HBM " + std::to_string(b.hbm_id) + (b.write ? "/Write" : "/Read"),
                {{b.write ? "Write(MB/s)" : "Read(MB/s)", b.mb_s}});
    return {};
  });
}

/// DDR: when any bandwidth is kept (sys_mem.hpp), every device's metadata,
/// then per bandwidth the counters "DDR/Read" ({"Read(MB/s)": x}) and
/// "DDR/Write", x in MB/s. The reference reads DDR only on chips whose
/// timeline its Python path writes, and a run shows MB/s there (its C++
/// path would show B/s, but never has DDR data).
result<void> ddr_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_ddr_bandwidth(s.prof_dir, true, warnings, [&](const ddr_bandwidth& b) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::ddr, "DDR");
    add_counter(out, s, sort_index::ddr, b.device_id, b.local_ns, "DDR/Read", {{"Read(MB/s)", b.read_mb_s}});
    add_counter(out, s, sort_index::ddr, b.device_id, b.local_ns, "DDR/Write", {{"Write(MB/s)", b.write_mb_s}});
    return {};
  });
}

/// LLC: when any metric from the collection start is kept (llc.hpp), every
/// device's metadata, then per metric the counters "LLC <id> Read/Hit Rate"
/// ({"Hit Rate(%)": the fraction, though the series says %}) and
/// "LLC <id> Read/Throughput" ({"Throughput(MB/s)": x}), Write for mode
/// "write", as the reference's C++ path (llc_processor.cpp, llc_assembler.cpp).
result<void> llc_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_llc_metric(s.prof_dir, true, warnings, [&](const llc_metric& m) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::llc, "LLC");
    const std::string name = "LLC " + std::to_string(m.llc_id) + (m.mode == "write" ? " Write/" : " Read/");
    add_counter(out, s, sort_index::llc, m.device_id, m.time_ns, name + "Hit Rate", {{"Hit Rate(%)", m.hit_rate * 100 / 100}});  // its % back to a fraction
    add_counter(out, s, sort_index::llc, m.device_id, m.time_ns, name + "Throughput", {{"Throughput(MB/s)", m.throughput}});
    return {};
  });
}

/// QoS: when any sample from the collection start is kept (qos.hpp), every
/// device's metadata, then per sample one counter "QoS <event>" per name of
/// the device's qosEvents, its bandwidth as an integer ({"value": MB/s}), as
/// the reference's C++ path (qos_assembler.cpp, GenerateQosTrace).
result<void> qos_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  return for_each_qos_sample(s.prof_dir, warnings, [&](const qos_sample& q) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::qos, "QoS");
    for (std::size_t i = 0; i < q.mb_s.size(); ++i) {
      trace_event c;
      c.ph = 'C';
      c.name = (*q.counters)[i];
      c.pid = format_pid(s.pid, sort_index::qos, q.device_id);
      c.tid = 0;
      c.ts_ns = q.time_ns;
      c.args.push_back(trace_arg::num("value", q.mb_s[i]));
      out(std::move(c));
    }
    return {};
  });
}

/// Acc PMU: when any sample from the collection start is kept (acc_pmu.hpp),
/// every device's metadata, then per time the counters read_bandwidth,
/// read_ost, write_bandwidth and write_ost ({"value": level}), as the
/// reference's C++ path (acc_pmu_assembler.cpp, GenerateAccPmuTrace): the
/// samples of one time (ns), next to each other in its order, are one event
/// each whose values are their largest, and so is its pid (the later device's
/// when two devices' samples meet at one time). No accelerator id is shown.
result<void> acc_pmu_events(const session_info& s, event_output& out, std::vector<std::string>& warnings) {
  bool begun = false;
  std::optional<std::int64_t> held_ns;
  std::uint64_t held[5] = {};  // read bw, read ost, write bw, write ost, pid
  auto flush = [&] {
    if (!held_ns) return;
    const char* const names[] = {"read_bandwidth", "read_ost", "write_bandwidth", "write_ost"};
    for (std::size_t i = 0; i < 4; ++i) {
      trace_event c;
      c.ph = 'C';
      c.name = names[i];
      c.pid = held[4];
      c.tid = 0;
      c.ts_ns = *held_ns;
      c.args.push_back(trace_arg::num("value", static_cast<std::int64_t>(held[i])));
      out(std::move(c));
    }
  };
  MSPROF_TRY(for_each_acc_pmu_sample(s.prof_dir, warnings, [&](const acc_pmu_sample& a) -> result<void> {
    every_device_meta_once(begun, out, s, sort_index::acc_pmu, "Acc PMU");
    const std::uint64_t v[5] = {a.read_bw, a.read_ost, a.write_bw, a.write_ost,
                                format_pid(s.pid, sort_index::acc_pmu, a.device_id)};
    if (held_ns && *held_ns == a.time_ns) {
      for (std::size_t i = 0; i < 5; ++i) held[i] = std::max(held[i], v[i]);
      return {};
    }
    flush();
    held_ns = a.time_ns;
    std::copy(v, v + 5, held);
    return {};
  }));
  flush();
  return {};
}

/// CPU Usage, Memory Usage, Disk Usage or Network Usage: the host's usage
/// points (host_usage.hpp), the counters "CPU <n>" / "CPU Avg" (or the
/// process's name) of series "Usage(%)", then the process's metadata, as the
/// reference's C++ path (host_usage_assembler.cpp).
result<void> host_usage_events(const session_info& s, host_usage_kind kind, event_output& out, std::vector<std::string>& warnings) {
  static constexpr std::pair<const char*, std::uint32_t> process[] = {
      {"CPU Usage", sort_index::cpu_usage},
      {"Memory Usage", sort_index::memory_usage},
      {"Disk Usage", sort_index::disk_usage},
      {"Network Usage", sort_index::network_usage},
  };
  const char* const name = process[static_cast<std::size_t>(kind)].first;  // not a structured binding: the lambda takes it
  const std::uint32_t sort = process[static_cast<std::size_t>(kind)].second;
  const std::uint64_t pid = format_pid(s.pid, sort, host_device_bits);
  bool any = false;
  MSPROF_TRY(for_each_host_usage(s.prof_dir, kind, warnings, [&](const host_usage_point& p) -> result<void> {
    trace_event c;
    c.ph = 'C';
    c.name = kind == host_usage_kind::cpu ? "CPU " + p.cpu : name;
    c.pid = pid;
    c.tid = 0;
    c.ts_ns = p.time_ns;
    c.args.push_back(trace_arg::real("Usage(%)", p.usage));
    out(std::move(c));
    any = true;
    return {};
  }));
  if (any) add_process_meta(out, pid, name, "CPU", sort);  // after the counters, as the reference
  return {};
}

}  // namespace

result<void> device_counter_events(const session_info& s, const timeline_parts& parts, event_output& out,
                                   std::vector<std::string>& warnings, const iteration_range* within) {
  std::optional<counters_within> narrowed;
  event_output& dev = within_selection(out, within, narrowed);
  if (parts.npu_mem) MSPROF_TRY(npu_mem_events(s, dev, warnings));
  if (parts.ddr) MSPROF_TRY(ddr_events(s, dev, warnings));
  if (parts.acc_pmu) MSPROF_TRY(acc_pmu_events(s, dev, warnings));
  if (parts.hccs) MSPROF_TRY(hccs_events(s, dev, warnings));
  if (parts.nic) MSPROF_TRY(network_events(s, dev, warnings, false));
  if (parts.roce) MSPROF_TRY(network_events(s, dev, warnings, true));
  if (parts.pcie) MSPROF_TRY(pcie_events(s, dev, warnings));
  if (parts.hbm) MSPROF_TRY(hbm_events(s, dev, warnings));
  if (parts.llc) MSPROF_TRY(llc_events(s, dev, warnings));
  if (parts.qos) MSPROF_TRY(qos_events(s, dev, warnings));
  if (parts.cpu_usage) MSPROF_TRY(host_usage_events(s, host_usage_kind::cpu, out, warnings));
  if (parts.memory_usage) MSPROF_TRY(host_usage_events(s, host_usage_kind::memory, out, warnings));
  if (parts.disk_usage) MSPROF_TRY(host_usage_events(s, host_usage_kind::disk, out, warnings));
  if (parts.network_usage) MSPROF_TRY(host_usage_events(s, host_usage_kind::network, out, warnings));
  return {};
}

}  // namespace detail

/// mstx events as a vector.
void build_mstx_events(const model& m, std::vector<trace_event>& v) {
  auto push = [&](trace_event&& e) { v.push_back(std::move(e)); };
  emit_mstx_events(m, push);
}

/// Every event of msprof_<ts>.json as a vector (the chrome writer's input).
std::vector<trace_event> build_timeline(const model& m, const timeline_parts& parts) {
  std::vector<trace_event> v;
  v.reserve(m.apis.size() * 2 + m.tasks.size() * 2 + m.mstx.size() * 2 + 64);
  auto push = [&](trace_event&& e) { v.push_back(std::move(e)); };
  emit_timeline(m, push, parts);
  return v;
}

}  // namespace convert
MSPROF_END_NAMESPACE
