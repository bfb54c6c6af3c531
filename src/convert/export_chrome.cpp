// SPDX-License-Identifier: MIT
// The chrome exporter: chrome_trace_<ts>.json (or its parts) from a model
// handed over in windows, through a chrome::detail::trace_builder.
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

}  // namespace

struct chrome_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : o_(o),
        prof_dir_(prof_dir),
        events_(o.chrome_options, prof_dir.empty() ? "." : prof_dir, spill_budget / 2),
        overlap_(prof_dir.empty() ? "." : prof_dir, spill_budget / 4) {}

  /// The window's timeline events go to the builder, each at its place in the
  /// whole model's order (build_timeline's: tasks by global task id, API calls
  /// by connection id, mstx events in arrival order).
  result<void> add(const model& w) {
    records_ += detail::record_count(w);
    std::size_t task = 0, api = 0, api_flow = 0, mark = 0;
    bool in_order = true;
    auto feed = [&](trace_event&& e) {
      if (e.ph == 'M') return;  // written in finish() from the sets of all windows
      const std::uint32_t sort = (e.pid >> 5) & 31u;
      chrome::detail::seq at;
      if (sort == sort_index::ascend_hardware && e.ph == 'X' && task < w.tasks.size()) {
        at = {chrome_section::tasks, w.tasks[task++].global_task_id};
      } else if (sort == sort_index::ascend_hardware && e.ph == 'f' && task > 0) {
        at = {chrome_section::task_flows, w.tasks[task - 1].global_task_id};
      } else if (sort == sort_index::cann && e.ph == 'X' && api < w.apis.size()) {
        at = {chrome_section::apis, w.apis[api++].connection_id};
      } else if (sort == sort_index::cann && e.ph == 's') {
        while (api_flow < w.apis.size() && !w.apis[api_flow].has_device_task) ++api_flow;
        if (api_flow == w.apis.size()) {
          in_order = false;
          return;
        }
        at = {chrome_section::api_flows, w.apis[api_flow++].connection_id};
      } else if (sort == sort_index::mstx && e.ph == 'X') {
        at = {chrome_section::mstx, mstx_seq_ + mark};
      } else if (sort == sort_index::mstx && e.ph == 's') {
        at = {chrome_section::mstx_flows, mstx_seq_ + mark++};
      } else {
        in_order = false;
        return;
      }
      events_.add(e, at);
    };
    timeline_parts parts;
    parts.freq = parts.overlap = parts.step_trace = parts.losses = false;
    emit_timeline(w, feed, parts);
    mstx_seq_ += w.mstx.size();
    if (!in_order) return make_error(errc::unsupported, prof_dir_ + ": chrome trace: a timeline event of no known record");
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
    // trace, loss note, AI Core Freq) and Overlap Analysis, in build_timeline's order.
    const auto& s = final.session;
    chrome::detail::seq at{chrome_section::end, 0};
    auto feed = [&](trace_event&& e) { events_.add(e, {at.hi, at.lo++}); };
    detail::output_ref<decltype(feed)> out(feed);
    detail::add_hardware_meta(out, s, streams_);
    if (!api_tids_.empty()) detail::add_cann_meta(out, s, api_tids_);
    if (!mstx_tids_.empty()) detail::add_mstx_meta(out, s, mstx_tids_);
    timeline_parts rest;
    rest.cann = rest.hardware = rest.mstx = rest.overlap = false;
    detail::timeline_events(final, out, rest);
    MSPROF_TRY(add_overlap(s, out));
    auto w = chrome::detail::write_built(events_, s.start_ns, dir->path(), chrome::file_stem(ts));
    if (!w) return w.err();
    for (const auto& p : w->parts) r.files.push_back(dir->path_of(p.file_name));
    if (!w->note_file.empty()) r.files.push_back(dir->path_of(w->note_file));
    auto readme = detail::write_readme(*dir, o_, ts, r.files);
    if (!readme) return readme.err();
    r.files.push_back(std::move(*readme));
    return r;
  }

 private:
  /// Overlap Analysis per device: its metadata, then its merged compute
  /// intervals and free gaps (overlap.hpp), as emit_timeline writes them.
  result<void> add_overlap(const session_info& s, detail::event_output& out) {
    std::uint64_t pid = 0;
    auto open = [&](std::uint32_t dev) {
      pid = format_pid(s.pid, sort_index::overlap_analysis, dev);
      detail::add_overlap_meta(out, s, dev);
    };
    auto slice = [&](bool compute, std::int64_t b, std::int64_t e) {
      trace_event x;
      x.ph = 'X';
      x.name = compute ? "Computing" : "Free";
      x.pid = pid;
      x.tid = compute ? 0 : 3;
      x.ts_ns = b;
      x.dur_ns = e - b;
      out(std::move(x));
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
};

chrome_exporter::chrome_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

chrome_exporter::~chrome_exporter() = default;

result<void> chrome_exporter::add(const model& window) { return p_->add(window); }

result<export_result> chrome_exporter::finish(const model& final) { return p_->finish(final); }

}  // namespace convert
MSPROF_END_NAMESPACE
