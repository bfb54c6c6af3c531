// SPDX-License-Identifier: MIT
// The export entry points: one load, the chosen exporters fed window by window
// on a second thread while the next window loads (load_options::threaded); at
// the end the db is finished on a second thread beside the text files.
#include "msprof/convert/export.hpp"
#include "msprof/convert/beside.hpp"
#include "msprof/convert/hccl.hpp"

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// Collects the files of the parts, reported in part order (timeline, summaries, db).
struct part_results {
  std::optional<result<export_result>> timeline, summary, db, chrome;
  result<export_result> merged(export_result all) && {
    // A part's warnings are the model's (already in `all`) plus its own, such
    // as the leftover temporaries it removed.
    std::unordered_set<std::string> seen(all.warnings.begin(), all.warnings.end());
    std::unordered_set<std::string> written;  // README.txt: each text part updates it
    for (auto* r : {&timeline, &summary, &db, &chrome}) {
      if (!*r) continue;
      if (!**r) return (**r).err();
      for (const auto& f : (**r)->files)
        if (written.insert(f).second) all.files.push_back(f);
      for (const auto& w : (**r)->warnings)
        if (seen.insert(w).second) all.warnings.push_back(w);
    }
    return all;
  }
};

/// The one empty-input rule of every export (timeline, summary, db): a
/// collection with no record to show is an error, never an empty output.
/// `records` counts API calls, tasks, mstx events and mstx memory records.
result<void> check_not_empty(const std::string& prof_dir, std::size_t records, const model& final) {
  if (records != 0 || !final.iterations.empty()) return {};
  std::string why = "(empty, damaged or missing slices?)";
  if (final.session.unfinished) {  // killed before any record was saved: say what it lost
    why = "(the collection did not finish: the program was killed or crashed before any record was saved";
    if (const auto lost = final.session.lost_at_kill())
      why += "; " + std::to_string(*lost) + " mstx call(s) were lost in its memory (lost_at_kill)";
    why += ")";
  }
  return make_error(errc::not_found, prof_dir +
                                         ": nothing to export: no API call, task, mstx event, mstx memory record or "
                                         "step-trace iteration in any data slice " + why);
}

/// export_options::chrome_too: whether the chrome form is written beside the
/// exact files; above the size, a warning that says how to write it.
bool chrome_beside(const std::string& prof_dir, const export_options& o, std::vector<std::string>& warnings) {
  const std::uint64_t bytes = data_bytes(prof_dir);
  if (bytes <= o.chrome_too_max_bytes) return true;
  warnings.push_back(prof_dir + ": no chrome trace written after this run: its " + std::to_string(bytes >> 20) +
                     " MiB of data are more than the " + std::to_string(o.chrome_too_max_bytes >> 20) +
                     " MiB written by default; write it with `msprof export timeline --timeline-format=chrome "
                     "-dir " + prof_dir + "`");
  return false;
}

}  // namespace

result<export_result> export_parts_of(const std::string& prof_dir, const export_options& o, export_parts p) {
  // One rule for all three exports, before any work: the output directory is a real directory.
  MSPROF_TRY(detail::check_output_dir(prof_dir));
  export_options oo = o;
  if (oo.timestamp.empty()) oo.timestamp = detail::free_stamp(prof_dir);
  MSPROF_TRY(detail::check_options(oo));
  const bool select = oo.model_id || oo.iteration_id;
  std::optional<detail::iteration_filter> filter;
  result<void> filter_status;  // the selection's error: no more windows
  auto choose = [&](const model& m) {
    auto f = detail::iteration_filter::choose(m, oo);
    if (f)
      filter.emplace(std::move(*f));
    else
      filter_status = f.err();
  };
  std::optional<timeline_exporter> timeline;
  std::optional<summary_exporter> summary;
  std::optional<db_exporter> db;
  // The chrome form instead of the exact timeline, or beside it (a failure of
  // that extra is a warning: the exact files are written).
  std::optional<chrome_exporter> chrome;
  std::vector<std::string> chrome_notes;
  const bool chrome_extra = p.timeline && !oo.chrome && oo.chrome_too && !select;
  if (p.timeline && (oo.chrome || (chrome_extra && chrome_beside(prof_dir, oo, chrome_notes))))
    chrome.emplace(oo, prof_dir, oo.spill_budget);
  if (p.timeline && !oo.chrome) {
    timeline.emplace(oo, prof_dir, oo.spill_budget);
    timeline->set_threaded(true);
  }
  if (p.summary) summary.emplace(oo, prof_dir, oo.spill_budget);
  if (p.db) db.emplace(oo, prof_dir, oo.spill_budget);
  // A writer's first error; it gets no more windows.
  result<void> timeline_status, db_status, chrome_status;
  auto add = [](auto& writer, const model& w, result<void>& status) {
    if (writer && status) status = writer->add(w);
  };
  // HCCL communication: its own records read now, its calls and tasks kept
  // from the windows, linked once they are all in (convert/hccl.hpp).
  // An unreadable directory is the load's error to report (idle collector).
  auto opened = hccl::collector::open(prof_dir);
  hccl::collector comm_records = opened ? std::move(*opened) : hccl::collector{};
  std::size_t records = 0, mem_records = 0;
  load_options lo;
  lo.spill_budget = oo.spill_budget;
  lo.bytes_read = oo.bytes_read;
  lo.threaded = true;
  // Every writer gets every window, in load order: the summary on a thread of
  // its own, the others on another (their shares of the work are about equal).
  auto prepare = [&](model& w) {
    if (select) {
      if (!filter && filter_status) choose(w);
      if (!filter) return false;  // no selection yet: the writers get nothing
      filter->apply(w);
    }
    records += detail::record_count(w);
    mem_records += w.mstx_mem.size();
    comm_records.add(w);
    // The summary's rows but op_summary's here, on the loading thread, beside
    // the summary's writer busy with the window before: of the writers'
    // threads, the summary's has the most work.
    if (summary) summary->add_other_rows(w);
    return true;
  };
  std::vector<std::function<void(model&)>> writers;
  if (timeline || chrome || db)
    writers.emplace_back([&](model& w) {
      add(timeline, w, timeline_status);
      add(chrome, w, chrome_status);
      add(db, w, db_status);
    });
  if (summary) writers.emplace_back([&](model& w) { summary->add_op_rows(w); });
  auto loaded = load_windows(prof_dir, lo, prepare, std::move(writers));
  if (!loaded) return loaded.err();
  MSPROF_TRY(detail::check_strict(prof_dir, *loaded, oo));
  if (select) {
    if (!filter && filter_status) choose(*loaded);  // no windows
    MSPROF_TRY(filter_status);
    filter->apply(*loaded);
    if (timeline) timeline->set_selection(filter->range());
    if (chrome) chrome->set_selection(filter->range());
  }
  MSPROF_TRY(check_not_empty(prof_dir, records + mem_records, *loaded));
  MSPROF_TRY(timeline_status);
  if (oo.chrome) MSPROF_TRY(chrome_status);  // the chrome form is the timeline
  MSPROF_TRY(db_status);
  detail::clear_intermediates(prof_dir, oo);
  auto linked = comm_records.finish(*loaded);
  if (!linked) return linked.err();
  const hccl::communication comm = std::move(*linked);
  if (timeline) timeline->set_communication(comm);
  if (summary) summary->set_communication(comm);
  if (db) db->set_communication(comm);
  part_results r;
  // The db alone finishes on this thread: one of its own would only add a malloc arena (~30 MiB).
  beside(
      db.has_value() && (timeline || summary || chrome),
      [&] {
        if (db) r.db.emplace(db->finish(*loaded));
      },
      [&] {
        if (timeline) r.timeline.emplace(timeline->finish(*loaded));
        if (chrome && oo.chrome) r.timeline.emplace(chrome->finish(*loaded));
        if (summary && (!r.timeline || *r.timeline)) r.summary.emplace(summary->finish(*loaded));
      });
  export_result all;
  all.warnings = loaded->warnings;
  all.warnings.insert(all.warnings.end(), comm.warnings.begin(), comm.warnings.end());
  all.records = records;
  if (chrome_extra && (!r.timeline || *r.timeline)) {
    auto c = chrome ? (chrome_status ? chrome->finish(*loaded) : result<export_result>(chrome_status.err()))
                    : result<export_result>(export_result{});
    if (!c) {  // the exact files are written: a missing extra is a warning, not a failed export
      const std::string why = c.err().message;
      c = export_result{};
      c->warnings.push_back(prof_dir + ": no chrome trace written: " + why);
    }
    c->warnings.insert(c->warnings.end(), chrome_notes.begin(), chrome_notes.end());
    r.chrome.emplace(std::move(c));
  }
  return std::move(r).merged(std::move(all));
}

result<export_result> export_timeline(const std::string& prof_dir, const export_options& o) {
  return export_parts_of(prof_dir, o, {true, false, false});
}

result<export_result> export_summary(const std::string& prof_dir, const export_options& o) {
  return export_parts_of(prof_dir, o, {false, true, false});
}

result<export_result> export_db(const std::string& prof_dir, const export_options& o) {
  return export_parts_of(prof_dir, o, {false, false, true});
}

result<export_result> export_all(const std::string& prof_dir, const export_options& o) {
  return export_parts_of(prof_dir, o, {o.text, o.text, o.db});
}

}  // namespace convert
MSPROF_END_NAMESPACE
