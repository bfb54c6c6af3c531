// SPDX-License-Identifier: MIT
// The chrome exporter: chrome_trace_<ts>.json (or its parts) from a model
// handed over in windows, through a chrome::detail::trace_builder.
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "msprof/convert/chrome/chrome.hpp"
#include "msprof/convert/chrome/chrome_trace.hpp"
#include "msprof/convert/export_files.hpp"
#include "msprof/convert/export_writers.hpp"
#include "msprof/convert/timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// Where an event stands in build_timeline's order of the whole model: its
/// section, then the key the timeline exporter sorts that section by. Only the
/// order within a kind matters (slices, s, f, metadata): a task's X and its f
/// may sit in different sections.
namespace chrome_section {
inline constexpr std::uint64_t tasks = 0, task_flows = 1, apis = 2, api_flows = 3, mstx = 4, mstx_flows = 5,
                               end = 6;  ///< metadata and what only the final model knows, in emission order
}  // namespace chrome_section

/// The timeline emitter's fast output (timeline_event.hpp): tasks, API calls and
/// mstx events go into the builder field by field, with the names and args
/// timeline.cpp gives their trace_events (detail::task_args, ...). Metadata is
/// written in finish(); any other event is unknown here.
struct hot_events {
  static constexpr bool fast_json = true;
  hot_events(chrome::detail::trace_builder& builder, std::uint64_t first_mstx) : b(builder), mstx_seq(first_mstx) {}
  chrome::detail::trace_builder& b;
  std::uint64_t mstx_seq;
  bool unknown = false;
  char id[24];  // a flow id's digits

  std::string_view digits(std::uint64_t v) {
    const auto r = std::to_chars(id, id + sizeof id, v);
    return {id, static_cast<std::size_t>(r.ptr - id)};
  }
  void operator()(trace_event&& e) {
    if (e.ph != 'M') unknown = true;
  }
  void raw(std::string_view) { unknown = true; }
  void overlap(const overlap_interval&, std::uint64_t) { unknown = true; }
  void task(const device_task& t, std::uint64_t pid) {
    const chrome::detail::slice_fields f{'X', pid, t.stream_id, t.start_ns, t.end_ns - t.start_ns,
                                         detail::task_slice_name(t), t.connection_id};
    detail::task_args(t, b.begin_slice(f, {chrome_section::tasks, t.global_task_id}));
    b.end_slice();
    if (t.host_flow)
      host_to_device('f', t.connection_id, pid, t.stream_id, t.start_ns, {chrome_section::task_flows, t.global_task_id});
  }
  void api(const api_call& a, std::uint64_t pid) {
    std::string& name = name_;
    name.assign(layer_name(a.level));
    name += '@';
    name += display_name(a);
    const chrome::detail::slice_fields f{'X', pid, a.thread_id, a.start_ns, a.end_ns - a.start_ns, name, a.connection_id};
    detail::api_args(a, b.begin_slice(f, {chrome_section::apis, a.connection_id}));
    b.end_slice();
  }
  void api_flow(const api_call& a, std::uint64_t pid) {
    host_to_device('s', a.connection_id, pid, a.thread_id, a.start_ns, {chrome_section::api_flows, a.connection_id});
  }
  void mstx(const mstx_event& e, std::uint64_t pid) {
    const chrome::detail::slice_fields f{'X', pid, e.tid, e.start_ns, e.end_ns - e.start_ns, e.message, 0};
    detail::mstx_args(e, b.begin_slice(f, {chrome_section::mstx, mstx_seq}));
    b.end_slice();
    const auto n = digits(detail::mstx_connection_id(e));
    name_.assign("MsTx_");
    name_ += n;
    b.add_flow({'s', pid, e.tid, e.start_ns, "MsTx", name_, n}, {chrome_section::mstx_flows, mstx_seq++});
  }

 private:
  void host_to_device(char ph, std::uint64_t conn, std::uint64_t pid, std::uint64_t tid, std::int64_t ts,
                      chrome::detail::seq at) {
    const auto n = digits(detail::host_to_device_id(conn));
    name_.assign("HostToDevice");
    name_ += n;
    b.add_flow({ph, pid, tid, ts, "HostToDevice", name_, n}, at);
  }
  std::string name_;  // reused
};

}  // namespace

struct chrome_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : o_(o),
        prof_dir_(prof_dir),
        events_(o.chrome_options, prof_dir.empty() ? "." : prof_dir, spill_budget / 2),
        overlap_(prof_dir.empty() ? "." : prof_dir, spill_budget / 4) {}

  /// The window's timeline events go to the builder, each at its place in the
  /// whole model's order (build_timeline's: tasks by global task id, API calls
  /// by connection id, mstx events in arrival order). The records are encoded
  /// straight from the model (hot_events), as add() would encode the
  /// trace_events build_timeline makes of them (stream_test checks the bytes).
  result<void> add(const model& w) {
    records_ += detail::record_count(w);
    hot_events hot(events_, mstx_seq_);
    timeline_parts parts;
    parts.freq = parts.overlap = parts.step_trace = parts.losses = false;
    emit_timeline(w, hot, parts);
    mstx_seq_ += w.mstx.size();
    if (hot.unknown) return make_error(errc::unsupported, prof_dir_ + ": chrome trace: a timeline event of no known record");
    for (const auto& t : w.tasks) {
      streams_[t.device_id].insert(t.stream_id);
      overlap_.add(t);
    }
    for (const auto& a : w.apis) api_tids_.insert(a.thread_id);
    for (const auto& e : w.mstx) mstx_tids_.insert(e.tid);
    return {};
  }

  result<export_result> finish(const model& final) {
    export_result r;
    auto dir = detail::start_result(final, records_, prof_dir_, o_, r);
    if (!dir) return dir.err();
    const std::string ts = detail::export_stamp(o_);
    if (r.records == 0) return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to export");
    // The metadata of all windows, then what only the final model knows (step
    // trace, loss note, AI Core Freq), the device counters read from the slices
    // and Overlap Analysis, in the exact timeline's order.
    const auto& s = final.session;
    chrome::detail::seq at{chrome_section::end, 0};
    auto feed = [&](trace_event&& e) { events_.add(e, {at.hi, at.lo++}); };
    detail::output_ref<decltype(feed)> out(feed);
    detail::add_hardware_meta(out, s, streams_);
    if (!api_tids_.empty()) detail::add_cann_meta(out, s, api_tids_);
    if (!mstx_tids_.empty()) detail::add_mstx_meta(out, s, mstx_tids_);
    timeline_parts rest;
    rest.cann = rest.hardware = rest.mstx = rest.overlap = false;
    detail::timeline_events(final, out, rest, within_ ? &*within_ : nullptr);
    MSPROF_TRY(detail::device_counter_events(s, o_.json_process, out, r.warnings, within_ ? &*within_ : nullptr));
    MSPROF_TRY(add_overlap(s, out, at));
    auto w = chrome::detail::write_built(events_, s.start_ns, dir->path(), chrome::file_stem(ts));
    if (!w) return w.err();
    for (const auto& p : w->parts) r.files.push_back(dir->path_of(p.file_name));
    if (!w->note_file.empty()) r.files.push_back(dir->path_of(w->note_file));
    auto readme = detail::write_readme(*dir, o_, ts, r.files);
    if (!readme) return readme.err();
    r.files.push_back(std::move(*readme));
    return r;
  }

  void select(const iteration_range& r) { within_ = r; }

 private:
  /// Overlap Analysis per device: its metadata, then its merged compute
  /// intervals and free gaps (overlap.hpp), as emit_timeline writes them.
  result<void> add_overlap(const session_info& s, detail::event_output& out, chrome::detail::seq& at) {
    std::uint64_t pid = 0;
    auto open = [&](std::uint32_t dev) {
      pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
      detail::add_overlap_meta(out, s, dev);
    };
    auto slice = [&](bool compute, std::int64_t b, std::int64_t e) {
      chrome::detail::slice_fields x;
      x.name = compute ? "Computing" : "Free";
      x.pid = pid;
      x.tid = compute ? 0 : 3;
      x.ts_ns = b;
      x.dur_ns = e - b;
      events_.begin_slice(x, {at.hi, at.lo++});
      events_.end_slice();
    };
    return overlap_.drain(
        open, [&](std::int64_t b, std::int64_t e) { slice(true, b, e); },
        [&](std::int64_t b, std::int64_t e) { slice(false, b, e); }, [](std::uint32_t) {});
  }

  export_options o_;
  std::string prof_dir_;
  chrome::detail::trace_builder events_;
  overlap_windows overlap_;
  std::map<std::uint32_t, std::set<std::uint32_t>> streams_;  ///< device -> streams with tasks
  std::set<std::uint32_t> api_tids_, mstx_tids_;
  std::size_t records_ = 0;
  std::uint64_t mstx_seq_ = 0;
  std::optional<iteration_range> within_;  ///< set_selection
};

chrome_exporter::chrome_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

chrome_exporter::~chrome_exporter() = default;

result<void> chrome_exporter::add(const model& window) { return p_->add(window); }

void chrome_exporter::set_selection(const iteration_range& r) { p_->select(r); }

result<export_result> chrome_exporter::finish(const model& final) { return p_->finish(final); }

}  // namespace convert
MSPROF_END_NAMESPACE
