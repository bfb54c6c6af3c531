// SPDX-License-Identifier: MIT
// msprof's own JSON form of the timeline's events (msprof_<ts>.json,
// msprof_tx_<ts>.json, step_trace_<ts>.json): the formatters, the streaming
// output, and the collector that gathers a model handed over in windows.
#ifndef MSPROF_CONVERT_TIMELINE_JSON_HPP
#define MSPROF_CONVERT_TIMELINE_JSON_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "iterations.hpp"
#include "model.hpp"
#include "overlap.hpp"
#include "spill.hpp"
#include "timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {
struct communication;
}  // namespace hccl

/// Appends one event in msprof's JSON form.
void append_event_json(std::string& out, const trace_event& e);

namespace detail {

// msprof JSON of the hot events straight from the model, one event each,
// without separators: the one formatter of json_output and of the timeline
// exporter. Same bytes as append_event_json on build_timeline's events (checked
// by a test).

/// dur, ph and the opening of args.
void append_dur_json(std::string& out, std::int64_t ns);
void append_task_json(std::string& out, const device_task& t, std::uint64_t pid);
/// The HostToDevice flow end of a task with a connection id.
void append_task_flow_json(std::string& out, const device_task& t, std::uint64_t pid);
void append_api_json(std::string& out, const api_call& a, std::uint64_t pid);
/// The HostToDevice flow start of an API call with a device task.
void append_api_flow_json(std::string& out, const api_call& a, std::uint64_t pid);
void append_overlap_json(std::string& out, const overlap_interval& o, std::uint64_t pid);
void append_mstx_json(std::string& out, const mstx_event& e, std::uint64_t pid);
/// The MsTx flow start of an mstx event.
void append_mstx_flow_json(std::string& out, const mstx_event& e, std::uint64_t pid);

/// Writes msprof JSON: the hot events through the formatters above, the others
/// through append_event_json; commas between events, `flush()` every MiB.
template <class Flush>
struct json_output {
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
    if (!t.host_flow) return;
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
std::string timeline_json(const std::vector<trace_event>& events);

/// The events of msprof_<ts>.json and msprof_tx_<ts>.json gathered from a
/// model handed over in windows (model.hpp), written at the end in
/// emit_timeline's order. Each event is formatted once, when its window
/// arrives (a HostToDevice flow: when written, kept as its numbers until
/// then), and kept in a spill_sorter under its place in the output; what
/// stays in memory besides the sorters is one set per device, stream and
/// thread. Overlap Analysis merges every op task's interval per device: those
/// go through a sorter of their own as (device, start, end).
class timeline_collector {
 public:
  /// `timeline`/`tx`: which of the two files will be written (the others' rows
  /// are not kept). The sorters share `budget` and spill into `spill_dir`.
  /// `parts`: the processes of msprof_<ts>.json to keep (export_options::json_process).
  timeline_collector(const std::string& spill_dir, std::size_t budget, bool timeline, bool tx,
                     const timeline_parts& parts = {});
  ~timeline_collector();

  void add(const model& w);

  /// The collectives (convert/hccl.hpp; must outlive write_timeline): their
  /// Communication process and Overlap Analysis lanes.
  void set_communication(const hccl::communication& c) { comm_ = &c; }

  /// An iteration selection's time range: the device counters read from the
  /// slices are those inside it (timeline.hpp, device_counter_events).
  void set_selection(const iteration_range& r) { within_ = r; }

  /// write_timeline() writes what only the final model gives (Overlap
  /// Analysis, the device counters, step trace, ...) on a second thread while
  /// this one writes the sorted events, through a scratch file: same bytes.
  void set_threaded(bool on) noexcept { threaded_ = on; }

  /// API calls, device tasks and mstx events of all windows.
  std::size_t records() const noexcept { return records_; }
  std::size_t mstx_count() const noexcept { return mstx_; }
  /// Problems write_timeline met in data read outside the windows (npu_mem slices).
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  /// msprof_<ts>.json's events into a detail::json_output; `final` gives the
  /// session (pid, devices, end) and the iterations. Once only.
  template <class Output>
  result<void> write_timeline(const model& final, Output& dest) {
    static_assert(detail::is_fast_output<Output>::value, "write_timeline writes into a detail::json_output");
    detail::output_ref<Output> out(dest);
    return write_timeline_to(final, out);
  }

  /// msprof_tx_<ts>.json's events into a detail::json_output. Once only.
  template <class Output>
  result<void> write_mstx(const model& final, Output& dest) {
    static_assert(detail::is_fast_output<Output>::value, "write_mstx writes into a detail::json_output");
    detail::output_ref<Output> out(dest);
    return write_mstx_to(final, out);
  }

 private:
  /// Sections of msprof_<ts>.json that hold records, in file order.
  struct sections {
    static constexpr std::uint8_t tasks = 0, apis = 1, api_flows = 2, mstx = 3, end = 4;
  };
  /// A row's place: its section, then the global task id, connection id or record number.
  struct event_key {
    std::uint8_t section;
    std::uint64_t order;
    bool operator<(const event_key& o) const noexcept {
      return section != o.section ? section < o.section : order < o.order;
    }
  };
  result<void> write_timeline_to(const model& final, detail::event_output& dest);
  /// The sorted sections of msprof_<ts>.json with their metadata.
  result<void> write_sorted(const session_info& s, detail::event_output& dest);
  /// The events after them, which only the final model gives.
  result<void> write_rest(const model& final, detail::event_output& dest);
  result<void> write_mstx_to(const model& final, detail::event_output& dest);
  /// Overlap Analysis: per device its metadata, merged compute intervals, then
  /// its free gaps (held in gaps_ until the device is complete).
  result<void> write_overlap(const session_info& s, detail::event_output& dest);

  bool timeline_, tx_;
  timeline_parts parts_;
  spill_sorter<event_key> events_;     ///< msprof_<ts>.json's records
  spill_sorter<event_key> tx_events_;  ///< msprof_tx_<ts>.json's records (section mstx)
  overlap_windows overlap_;
  spill_sorter<std::uint64_t> gaps_;   ///< one device's Overlap Analysis free gaps, in order
  std::string spill_dir_;
  bool threaded_ = false;
  std::map<std::uint32_t, std::set<std::uint32_t>> streams_;  ///< device -> streams with tasks
  std::set<std::uint32_t> api_tids_, mstx_tids_;
  std::size_t records_ = 0, mstx_ = 0;
  std::uint64_t mstx_seq_ = 0;
  const hccl::communication* comm_ = nullptr;
  std::optional<iteration_range> within_;
  std::vector<std::string> warnings_;
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_JSON_HPP
