// SPDX-License-Identifier: MIT
// The timeline's event model (trace_event, reused by the chrome/ writer), msprof's
// pid encoding, and the event_output the event emitters (timeline.hpp, step_trace.hpp) feed.
#ifndef MSPROF_CONVERT_TIMELINE_EVENT_HPP
#define MSPROF_CONVERT_TIMELINE_EVENT_HPP

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "model.hpp"
#include "overlap.hpp"

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
inline constexpr std::uint32_t cpu_usage = 9;      ///< host
inline constexpr std::uint32_t memory_usage = 10;  ///< host
inline constexpr std::uint32_t network_usage = 11;  ///< host
inline constexpr std::uint32_t disk_usage = 12;     ///< host
inline constexpr std::uint32_t ascend_hardware = 14;
inline constexpr std::uint32_t ai_core_freq = 15;
inline constexpr std::uint32_t communication = 16;
inline constexpr std::uint32_t npu_mem = 17;
inline constexpr std::uint32_t ddr = 18;
inline constexpr std::uint32_t acc_pmu = 19;
inline constexpr std::uint32_t hccs = 20;
inline constexpr std::uint32_t nic = 21;
inline constexpr std::uint32_t roce = 22;
inline constexpr std::uint32_t pcie = 23;
inline constexpr std::uint32_t hbm = 24;
inline constexpr std::uint32_t llc = 27;
inline constexpr std::uint32_t qos = 29;
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
  bool npu_mem = true;     ///< NPU MEM: the devices' npu_mem samples, read from their slices
  bool hccs = true;        ///< HCCS: the devices' hccs throughputs, read from their slices
  bool nic = true;         ///< NIC: the devices' nic samples, read from their slices
  bool roce = true;        ///< RoCE: the devices' roce samples, read from their slices
  bool pcie = true;        ///< PCIe: the devices' pcie samples, read from their slices
  bool hbm = true;         ///< HBM: the devices' hbm bandwidths, read from their slices
  bool ddr = true;         ///< DDR: the devices' ddr bandwidths, read from their slices
  bool llc = true;         ///< LLC: the devices' llc hit rates and throughputs, read from their slices
  bool qos = true;         ///< QoS: the devices' qos bandwidths, read from their slices
  bool acc_pmu = true;     ///< Acc PMU: the devices' accelerator PMU levels, read from their stars_soc slices
  bool cpu_usage = true;     ///< CPU Usage: the host's CPU usage samples, read from its slices
  bool memory_usage = true;  ///< Memory Usage: the host's memory usage samples, read from its slices
  bool disk_usage = true;     ///< Disk Usage: the host's disk usage samples, read from its slices
  bool network_usage = true;  ///< Network Usage: the host's network usage samples, read from its slices
  bool overlap = true;
  bool mstx = true;
  bool step_trace = true;  ///< Step Trace threads of the Ascend Hardware process (when iterations exist)
  bool losses = true;      ///< the loss note (when the collector counted losses)
};

namespace detail {
/// Outputs with `fast_json` write the hot events (tasks, APIs, mstx, overlap) directly
/// from the model instead of receiving a trace_event (msprof JSON writer).
template <class T, class = void>
struct is_fast_output : std::false_type {};
template <class T>
struct is_fast_output<T, std::void_t<decltype(T::fast_json)>> : std::true_type {};

/// What the compiled emitters hand their events to, whatever the caller's output
/// (`out(trace_event&&)`, or a fast output): each event as a trace_event, or, when
/// `fast`, the hot records themselves (the other members are then called only
/// for a fast output; their defaults do nothing).
class event_output {
 public:
  const bool fast;

  virtual void operator()(trace_event&& e) = 0;
  virtual void task(const device_task& t, std::uint64_t pid);
  virtual void api(const api_call& a, std::uint64_t pid);
  virtual void api_flow(const api_call& a, std::uint64_t pid);
  virtual void overlap(const overlap_interval& o, std::uint64_t pid);
  virtual void mstx(const mstx_event& e, std::uint64_t pid);
  /// Events already in msprof JSON form.
  virtual void raw(std::string_view json);

 protected:
  explicit event_output(bool is_fast) noexcept : fast(is_fast) {}
  event_output(const event_output&) = delete;
  event_output& operator=(const event_output&) = delete;
  ~event_output() = default;
};

/// An event_output over the caller's `Emit` (held by reference).
template <class Emit, bool Fast = is_fast_output<Emit>::value>
class output_ref final : public event_output {
 public:
  explicit output_ref(Emit& out) noexcept : event_output(false), out_(out) {}
  void operator()(trace_event&& e) override { out_(std::move(e)); }

 private:
  Emit& out_;
};

template <class Emit>
class output_ref<Emit, true> final : public event_output {
 public:
  explicit output_ref(Emit& out) noexcept : event_output(true), out_(out) {}
  void operator()(trace_event&& e) override { out_(std::move(e)); }
  void task(const device_task& t, std::uint64_t pid) override { out_.task(t, pid); }
  void api(const api_call& a, std::uint64_t pid) override { out_.api(a, pid); }
  void api_flow(const api_call& a, std::uint64_t pid) override { out_.api_flow(a, pid); }
  void overlap(const overlap_interval& o, std::uint64_t pid) override { out_.overlap(o, pid); }
  void mstx(const mstx_event& e, std::uint64_t pid) override { out_.mstx(e, pid); }
  void raw(std::string_view json) override { out_.raw(json); }

 private:
  Emit& out_;
};

void add_meta(event_output& out, const char* name, std::uint64_t pid, std::uint64_t tid, trace_arg a);
void add_process_meta(event_output& out, std::uint64_t pid, const std::string& name, const std::string& label,
                      std::int64_t sort);
void add_thread_meta(event_output& out, std::uint64_t pid, std::uint64_t tid, const std::string& name,
                     std::int64_t sort);

/// Id of the HostToDevice flow from an API call to its device task.
inline std::uint64_t host_to_device_id(std::uint64_t connection_id) noexcept { return connection_id << 32; }

/// The name and "Task Type" of a device task's slice: its op's name and GE task
/// type, else its runtime task type for both; a MEMCPY_ASYNC task (even inside
/// an op's call) is typed by its device SQE type (SDMA_SQE), as the reference.
std::string_view task_slice_name(const device_task& t) noexcept;
std::string task_slice_type(const device_task& t);
/// A memcpy's "bandwidth(GB/s)": bytes per ns, 0 for a zero-length task.
double memcpy_bandwidth(const device_task& t, const memcpy_copy& c) noexcept;

const char* mstx_event_type_name(std::uint32_t t) noexcept;

/// Connection id of an mstx event without a device marker (db_constant.h).
inline std::uint64_t mstx_connection_id(const mstx_event& e) noexcept { return e.mark_id + 4000000001ull; }

// The args of a task's, an API call's and an mstx event's slice, in their
// order, handed to w.num(key, int64) / w.real(key, double) / w.str(key,
// string_view): one list for the trace_event path and the chrome exporter.
template <class W>
void task_args(const device_task& t, W& w) {
  w.num("Model Id", t.model_id);
  w.str("Task Type", task_slice_type(t));
  w.num("Physic Stream Id", t.stream_id);
  w.num("Task Id", t.task_id);
  w.num("Batch Id", t.batch_id);
  w.num("Subtask Id", 4294967295LL);
  w.num("connection_id", static_cast<std::int64_t>(t.connection_id));
  if (t.memcpy) {
    w.num("size(B)", static_cast<std::int64_t>(t.memcpy->size));
    w.real("bandwidth(GB/s)", memcpy_bandwidth(t, *t.memcpy));
    w.str("operation", memcpy_operation_name(t.memcpy->operation));
  }
}
template <class W>
void api_args(const api_call& a, W& w) {
  const bool acl = a.level == level::acl;
  w.num("Thread Id", a.thread_id);
  w.str("Mode", acl ? std::string_view(acl_group_name(a.type)) : std::string_view(a.name));
  w.str("level", level_name(a.level));
  w.str("id", acl ? std::string_view(a.name) : std::string_view("0"));
  w.str("item_id", a.item.empty() ? std::string_view("0") : std::string_view(a.item));
  w.num("connection_id", static_cast<std::int64_t>(a.connection_id));
}
template <class W>
void mstx_args(const mstx_event& e, W& w) {
  w.str("event_type", mstx_event_type_name(e.event_type));
  w.str("domain", e.domain);
}
/// Collects those args as trace_args.
struct trace_args {
  std::vector<trace_arg>& out;
  void num(std::string_view k, std::int64_t v) { out.push_back(trace_arg::num(std::string(k), v)); }
  void real(std::string_view k, double v) { out.push_back(trace_arg::real(std::string(k), v)); }
  void str(std::string_view k, std::string_view v) { out.push_back(trace_arg::str(std::string(k), std::string(v))); }
};

// The metadata of each process (written around its events by emit_timeline
// and by the timeline exporter, from the sets they collected).

/// Ascend Hardware: one process per device, a thread per stream.
void add_hardware_meta(event_output& out, const session_info& s,
                       const std::map<std::uint32_t, std::set<std::uint32_t>>& streams);
/// CANN: host threads that called APIs.
void add_cann_meta(event_output& out, const session_info& s, const std::set<std::uint32_t>& tids);
/// mstx: host threads that marked.
void add_mstx_meta(event_output& out, const session_info& s, const std::set<std::uint32_t>& tids);
/// Overlap Analysis of one device: its four fixed threads.
void add_overlap_meta(event_output& out, const session_info& s, std::uint32_t dev);

}  // namespace detail

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_EVENT_HPP
