// SPDX-License-Identifier: MIT
// The export entry points, callable in-process (session export handler) and
// from `msprof export`:
//
//   auto r = msprof::convert::export_timeline("PROF_000001_...", {});
//   if (!r) std::cerr << r.err().what() << '\n';
//   for (auto& w : r->warnings) std::cerr << "warning: " << w << '\n';
//
// Outputs go to <PROF>/mindstudio_profiler_output/ (and <PROF>/msprof_<ts>.db),
// each written under a temporary name and renamed when complete.
#ifndef MSPROF_CONVERT_EXPORT_HPP
#define MSPROF_CONVERT_EXPORT_HPP

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <vector>

#include <unistd.h>

#include "../core/error.hpp"
#include "db.hpp"
#include "spill.hpp"
#include "iterations.hpp"
#include "load.hpp"
#include "model.hpp"
#include "summary.hpp"
#include "timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Options shared by the three exports (CANN msprof flag names in comments).
struct export_options {
  std::string format = "csv";                ///< --format csv|json (summaries)
  std::optional<std::uint32_t> model_id;     ///< --model-id
  std::optional<std::uint32_t> iteration_id; ///< --iteration-id
  std::uint32_t iteration_count = 1;         ///< --iteration-count 1..5
  bool clear = false;                        ///< --clear: delete intermediates
  std::set<std::string> reports;             ///< -reports: output stems to write (empty = all)
  std::string timestamp;                     ///< file-name stamp; default: now, YYYYMMDDhhmmss
  std::size_t slice_rows = 1000000;          ///< CSV rows per file before _slice_<k> splitting
  bool strict = false;                       ///< warnings (truncated tails...) become errors
  /// Writer of the viewer-safe Chrome form (convert/chrome/chrome.hpp
  /// `chrome::writer()`): writes its file(s) into out_dir with stamp ts
  /// (temporary name + rename) and returns the paths.
  std::function<result<std::vector<std::string>>(const model&, const std::vector<trace_event>&,
                                                 const std::filesystem::path& out_dir, const std::string& ts)>
      chrome_writer;
  bool chrome = false;  ///< --timeline-format=chrome: the chrome form instead of msprof_<ts>.json
  bool text = true;     ///< export_all: timeline and summaries (torch_npu export_type "text")
  bool db = true;       ///< export_all: msprof_<ts>.db (export_type "db")
  /// Bytes each sorted stream of the join and of each writer holds in memory
  /// before it spills a run to disk (spill.hpp): with the window size, what
  /// bounds an export's memory.
  std::size_t spill_budget = spill_budget_default;
};

/// What an export wrote.
struct export_result {
  std::vector<std::string> files;     ///< paths written (final names)
  std::vector<std::string> warnings;  ///< data problems that did not stop the export
  std::size_t records = 0;            ///< API + task + mstx records exported
};

namespace detail {

inline std::string now_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

/// Writes `text` to `path` through a temporary file and a rename.
inline result<void> write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return make_error(errc::io, tmp + ": cannot create file");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.flush();
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return make_error(errc::io, tmp + ": write failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return make_error(errc::io, path.string() + ": cannot rename temporary file: " + ec.message());
  }
  return {};
}

/// Streams text to `path` through a temporary file and a rename: `fill(buf,
/// flush)` appends to buf and calls flush() now and then (buffer stays small).
template <class Fill>
result<void> write_stream_atomic(const std::filesystem::path& path, Fill fill) {
  const auto tmp = path.string() + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return make_error(errc::io, tmp + ": cannot create file");
    std::string buf;
    buf.reserve(1 << 20);
    bool ok = true;
    auto flush = [&] {
      if (ok && !buf.empty()) {
        f.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        ok = static_cast<bool>(f);
      }
      buf.clear();
    };
    fill(buf, flush);
    flush();
    f.flush();
    if (!ok || !f) {
      f.close();
      std::filesystem::remove(tmp, ec);
      return make_error(errc::io, tmp + ": write failed (disk full?)");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return make_error(errc::io, path.string() + ": cannot rename temporary file: " + ec.message());
  }
  return {};
}

/// A timeline JSON array streamed from an emitter.
template <class EmitAll>
result<void> write_timeline_file(const std::filesystem::path& path, EmitAll emit_all) {
  return write_stream_atomic(path, [&](std::string& buf, auto& flush) {
    buf += '[';
    detail::json_sink<std::remove_reference_t<decltype(flush)>> sink{buf, flush};
    emit_all(sink);
    buf += ']';
  });
}

inline bool wanted(const export_options& o, const std::string& stem) {
  return o.reports.empty() || o.reports.count(stem) != 0;
}

/// File stem of summary `name`: a JSON summary that shares its name with a
/// timeline file (msprof_tx, step_trace) is <name>_summary, so that exporting
/// both (same timestamp) keeps both; the timeline keeps the reference's name.
inline std::string summary_stem(const std::string& name, bool json) {
  return json && (name == "msprof_tx" || name == "step_trace") ? name + "_summary" : name;
}

inline result<std::filesystem::path> output_dir(const std::string& prof_dir) {
  const auto dir = std::filesystem::path(prof_dir) / "mindstudio_profiler_output";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(errc::io, dir.string() + ": cannot create output directory: " + ec.message());
  return dir;
}

/// "model 4294967295: iterations 1-3, 5" for every model of the collection.
inline std::string available_iterations(const model& m) {
  std::map<std::uint32_t, std::set<std::uint32_t>> ids;
  for (const auto& it : m.iterations) ids[it.model_id].insert(it.iteration_id);
  std::string out;
  for (const auto& [model_id, set] : ids) {
    if (!out.empty()) out += "; ";
    out += "model " + std::to_string(model_id) + ": iteration" + (set.size() == 1 ? " " : "s ");
    std::vector<std::uint32_t> v(set.begin(), set.end());
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
      if (i) out += ", ";
      out += std::to_string(v[i]);
      if (j > i) out += "-" + std::to_string(v[j]);
      i = j + 1;
    }
  }
  return out;
}

/// --model-id/--iteration-id/--iteration-count: keeps the iterations
/// [id, id + count) of a model and the API calls, device tasks and mstx events
/// of their time range (iteration_range), window by window (load_windows), so
/// selecting iterations streams like a whole export.
class iteration_filter {
 public:
  /// Picks the iterations from `m`'s (any window has them all); one that does
  /// not exist is an error naming the ones that do.
  static result<iteration_filter> choose(const model& m, const export_options& o) {
    if (!o.model_id || !o.iteration_id)
      return make_error(errc::invalid_argument, "--model-id and --iteration-id go together");
    const std::uint32_t model_id = *o.model_id, first = *o.iteration_id;
    const std::string what = "--model-id=" + std::to_string(model_id) + " --iteration-id=" + std::to_string(first) +
                             (o.iteration_count > 1 ? " --iteration-count=" + std::to_string(o.iteration_count) : "");
    if (m.iterations.empty())
      return make_error(errc::not_found, m.session.prof_dir + ": " + what +
                                             ": the collection has no step data (no ts_track step-trace records)");
    iteration_filter f;
    bool any = false;
    for (std::uint32_t k = 0; k < o.iteration_count; ++k) {
      const std::uint64_t id = static_cast<std::uint64_t>(first) + k;
      const iteration* found = nullptr;
      for (const auto& it : m.iterations)
        if (it.model_id == model_id && it.iteration_id == id) found = &it;
      if (!found)
        return make_error(errc::not_found, m.session.prof_dir + ": " + what + ": model " + std::to_string(model_id) +
                                               " has no iteration " + std::to_string(id) + " (available: " +
                                               available_iterations(m) + ")");
      // Lower bound: end of the latest iteration (any model, same device) that
      // ended before this one started; none: from the beginning.
      std::int64_t lo = INT64_MIN;
      for (const auto& it : m.iterations)
        if (it.device_id == found->device_id && it.end_ns < found->start_ns) lo = std::max(lo, it.end_ns);
      f.range_.lo = any ? std::min(f.range_.lo, lo) : lo;
      f.range_.hi = any ? std::max(f.range_.hi, found->end_ns) : found->end_ns;
      any = true;
      f.chosen_.push_back(*found);
    }
    std::stable_sort(f.chosen_.begin(), f.chosen_.end(), [](const iteration& a, const iteration& b) {
      return std::tie(a.device_id, a.end_ns) < std::tie(b.device_id, b.end_ns);
    });
    return f;
  }

  /// Keeps the window's records of the range and the chosen iterations. A
  /// HostToDevice flow starts only at a call whose task was kept; a call's
  /// tasks come in its own window or an earlier one (model.hpp, "Windows"), so
  /// only the kept tasks of calls still to come are remembered.
  void apply(model& w) {
    auto out = [&](std::int64_t b, std::int64_t e) { return !range_.contains(b, e); };
    w.tasks.erase(std::remove_if(w.tasks.begin(), w.tasks.end(),
                                 [&](const device_task& t) { return out(t.start_ns, t.end_ns); }),
                  w.tasks.end());
    for (const auto& t : w.tasks)
      if (t.connection_id) launched_.insert(t.connection_id);
    for (auto& a : w.apis) a.has_device_task = launched_.erase(a.connection_id) != 0 && a.has_device_task;
    w.apis.erase(std::remove_if(w.apis.begin(), w.apis.end(),
                                [&](const api_call& a) { return out(a.start_ns, a.end_ns); }),
                 w.apis.end());
    w.mstx.erase(std::remove_if(w.mstx.begin(), w.mstx.end(),
                                [&](const mstx_event& e) { return out(e.start_ns, e.end_ns); }),
                 w.mstx.end());
    w.iterations = chosen_;
  }

 private:
  std::vector<iteration> chosen_;
  iteration_range range_;
  std::unordered_set<std::uint64_t> launched_;  // connection ids of kept tasks whose call has not come yet
};

/// The iteration selection on a whole model.
inline result<void> select_iterations(model& m, const export_options& o) {
  auto f = iteration_filter::choose(m, o);
  if (!f) return f.err();
  f->apply(m);
  return {};
}

/// The option checks every export makes before it reads anything.
inline result<void> check_options(const export_options& o) {
  if (o.iteration_count < 1 || o.iteration_count > 5)
    return make_error(errc::invalid_argument, "--iteration-count must be 1..5, got " + std::to_string(o.iteration_count));
  if (o.format != "csv" && o.format != "json")
    return make_error(errc::invalid_argument, "--format must be csv or json, got '" + o.format + "'");
  return {};
}

/// --strict: the first warning of the load is an error.
inline result<void> check_strict(const std::string& prof_dir, const model& m, const export_options& o) {
  if (o.strict && !m.warnings.empty())
    return make_error(errc::truncated, prof_dir + ": " + m.warnings.front() + " (strict mode)");
  return {};
}

/// --clear: the intermediate sqlite/ directories go.
inline void clear_intermediates(const std::string& prof_dir, const export_options& o) {
  if (!o.clear) return;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(prof_dir, ec)) {
    std::error_code ec2;
    if (e.is_directory(ec2)) std::filesystem::remove_all(e.path() / "sqlite", ec2);
  }
}

/// The whole model, for the chrome form.
inline result<model> load_checked(const std::string& prof_dir, const export_options& o) {
  auto m = load_model(prof_dir);
  if (!m) return m.err();
  MSPROF_TRY(check_strict(prof_dir, *m, o));
  MSPROF_TRY(check_options(o));
  if (o.model_id || o.iteration_id) MSPROF_TRY(select_iterations(*m, o));
  clear_intermediates(prof_dir, o);
  return m;
}

/// Runs `side` on a second thread while `main` runs here (inline when no thread
/// can be started): the db, the slowest writer, goes beside the text files.
template <class Side, class Main>
void beside(bool with_side, Side&& side, Main&& main) {
  std::thread t;
  if (with_side) {
    try {
      t = std::thread([&] { side(); });
    } catch (const std::system_error&) {
      side();
    }
  }
  main();
  if (t.joinable()) t.join();
}

inline std::size_t record_count(const model& m) { return m.apis.size() + m.tasks.size() + m.mstx.size(); }

}  // namespace detail

/// The timeline files of a model handed over in windows (model.hpp): add()
/// every window, then finish() with the final model. Between windows it holds
/// the spill budget's worth of events plus sets of devices, streams and
/// threads; finish() writes the bytes export_timeline writes for the whole
/// model (not the chrome form, which needs the whole model).
class timeline_exporter {
 public:
  /// Sorted runs of events spill into `prof_dir` once `spill_budget` bytes are held.
  timeline_exporter(const export_options& o, const std::string& prof_dir,
                    std::size_t spill_budget = spill_budget_default)
      : o_(o),
        prof_dir_(prof_dir),
        events_(prof_dir.empty() ? "." : prof_dir, spill_budget, detail::wanted(o, "msprof"),
                detail::wanted(o, "msprof_tx")) {}

  /// The window's records are copied (as their JSON text); the window may go afterwards.
  result<void> add(const model& window) {
    events_.add(window);
    return {};
  }

  /// Writes msprof_<ts>.json, msprof_tx_<ts>.json and step_trace_<ts>.json;
  /// `final` gives the session, iterations and warnings (its records are ignored).
  result<export_result> finish(const model& final) {
    export_result r;
    r.warnings = final.warnings;
    r.records = events_.records();
    auto dir = detail::output_dir(prof_dir_);
    if (!dir) return dir.err();
    const std::string ts = o_.timestamp.empty() ? detail::now_stamp() : o_.timestamp;
    if (r.records == 0) return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to export");
    if (detail::wanted(o_, "msprof")) {
      const auto p = *dir / ("msprof_" + ts + ".json");
      MSPROF_TRY(write(p, [&](auto& sink) { return events_.write_timeline(final, sink); }));
      r.files.push_back(p.string());
    }
    if (events_.mstx_count() != 0 && detail::wanted(o_, "msprof_tx")) {
      const auto p = *dir / ("msprof_tx_" + ts + ".json");
      MSPROF_TRY(write(p, [&](auto& sink) { return events_.write_mstx(final, sink); }));
      r.files.push_back(p.string());
    }
    if (!final.iterations.empty() && detail::wanted(o_, "step_trace")) {
      const auto p = *dir / ("step_trace_" + ts + ".json");
      MSPROF_TRY(detail::write_timeline_file(p, [&](auto& sink) { emit_step_trace(final, sink); }));
      r.files.push_back(p.string());
    }
    return r;
  }

 private:
  /// write_timeline_file for events read back from disk, which can fail: the
  /// file is removed again then.
  template <class Fill>
  static result<void> write(const std::filesystem::path& p, Fill fill) {
    result<void> status;
    MSPROF_TRY(detail::write_timeline_file(p, [&](auto& sink) { status = fill(sink); }));
    if (!status) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
    return status;
  }

  export_options o_;
  std::string prof_dir_;
  timeline_collector events_;
};

/// Timeline files from an already-loaded model.
inline result<export_result> export_timeline(const model& m, const export_options& o) {
  if (!o.chrome) {
    timeline_exporter x(o, m.session.prof_dir);
    MSPROF_TRY(x.add(m));
    return x.finish(m);
  }
  export_result r;
  r.warnings = m.warnings;
  r.records = detail::record_count(m);
  auto dir = detail::output_dir(m.session.prof_dir);
  if (!dir) return dir.err();
  const std::string ts = o.timestamp.empty() ? detail::now_stamp() : o.timestamp;
  if (r.records == 0)
    return make_error(errc::not_found, m.session.prof_dir + ": no API, task or mstx records to export");
  if (!o.chrome_writer)
    return make_error(errc::unsupported, "--timeline-format=chrome: the chrome trace writer is not available");
  auto w = o.chrome_writer(m, build_timeline(m), *dir, ts);
  if (!w) return w.err();
  r.files.insert(r.files.end(), w->begin(), w->end());
  return r;
}

namespace detail {

inline std::string readme_text(const std::vector<std::string>& files) {
  std::string s =
      "msprof export output (msprof " MSPROF_VERSION_STRING ")\n\n"
      "msprof_<ts>.json      timeline (Chrome trace array): CANN APIs, Ascend Hardware tasks, AI Core Freq,\n"
      "                      mstx events, HostToDevice/MsTx flows, Overlap Analysis\n"
      "msprof_tx_<ts>.json   timeline of mstx markers and ranges only\n"
      "step_trace_<ts>.json  timeline of the iterations (steps) only, when the device recorded step traces\n"
      "op_summary_<ts>       one row per device op: shapes, types, timing, PMU metrics\n"
      "op_statistic_<ts>     ops grouped by type and core type\n"
      "api_statistic_<ts>    host API calls grouped by level and name\n"
      "task_time_<ts>        one row per device task\n"
      "msprof_tx_<ts>        mstx markers and ranges (JSON: msprof_tx_summary_<ts>.json)\n"
      "step_trace_<ts>       one row per iteration (step): FP/BP, iteration end and time, model id\n"
      "                      (JSON: step_trace_summary_<ts>.json)\n"
      "mstx_mem_<ts>         mstx heap and region (un)registrations (msprof's own, when there are any)\n"
      "msprof_losses_<ts>    events the collector lost, per counter (only when something was lost:\n"
      "                      then every other output is incomplete)\n"
      "Summaries are .csv, or .json with --format json. Files over 1,000,000 rows are split into\n"
      "<name>_slice_<k>_<ts>.\n"
      "Times are local Unix time in microseconds; time cells end in a TAB so spreadsheets keep precision.\n\n"
      "Files written:\n";
  for (const auto& f : files) s += "  " + std::filesystem::path(f).filename().string() + "\n";
  return s;
}

}  // namespace detail

/// Summary files from a model handed over in windows (model.hpp, add() once
/// per window, then finish()). Rows of the per-record tables (op_summary,
/// task_time, msprof_tx, mstx_mem) are formatted for o.format as they arrive
/// and put into file order by spill_sorters, which share the spill budget; the
/// API call durations go through one too, because the statistics add them up
/// in call order. op_statistic and api_statistic are per-group aggregates fed
/// while finish() drains the sorters in file order, so every double is
/// computed as with the whole model. finish() writes every file.
class summary_exporter {
 public:
  summary_exporter(const export_options& o, const std::string& prof_dir,
                   std::size_t spill_budget = spill_budget_default)
      : o_(o),
        prof_dir_(prof_dir),
        budget_(spill_budget / sorters),
        op_rows_(prof_dir, budget_),
        task_rows_(prof_dir, budget_),
        tx_rows_(prof_dir, budget_),
        mem_rows_(prof_dir, budget_),
        api_(prof_dir, budget_) {
    if (o.format == "json") {
      op_keys_ = row_text::json_keys(op_summary_header(true));
      task_keys_ = row_text::json_keys(task_time_header());
      tx_keys_ = row_text::json_keys(msprof_tx_header());
      mem_keys_ = row_text::json_keys(mstx_mem_header());
    }
  }

  result<void> add(const model& w) {
    records_ += detail::record_count(w);
    for (const auto& a : w.apis) api_.add(a);
    const bool pipe = has_pipe_pmu(w);
    std::string& b = scratch_;
    for (const auto& t : w.tasks) {
      const auto k = task_row_key::of(t);
      b.clear();
      row_text s(b, keys(task_keys_));
      s.open();
      task_time_row(s, t);
      s.close();
      task_rows_.push(k, b);
      if (!in_op_summary(t)) continue;
      // The wait cell needs the previous row: formatted when finish() drains.
      b.assign(sizeof(op_row), '\0');
      row_text o(b, keys(op_keys_));
      o.open();
      op_summary_head(o, t);
      const op_row h{t.end_ns, op_groups_.group_of(t), static_cast<std::uint32_t>(b.size() - sizeof(op_row))};
      std::memcpy(&b[0], &h, sizeof h);
      o.open(op_summary_wait_col + 1);
      op_summary_tail(o, t, w.device(t.device_id), pipe);
      o.close();
      op_rows_.push(k, b);
    }
    const bool raw_clock = msprof_tx_raw_clock(w);
    for (const auto& e : w.mstx) {
      b.clear();
      row_text s(b, keys(tx_keys_));
      s.open();
      msprof_tx_row(s, e, raw_clock);
      s.close();
      tx_rows_.push({e.start_ns, arrivals_++}, b);
    }
    for (const auto& e : w.mstx_mem) {
      b.clear();
      row_text s(b, keys(mem_keys_));
      s.open();
      mstx_mem_row(s, e);
      s.close();
      mem_rows_.push({arrivals_++}, b);
    }
    return {};
  }

  result<export_result> finish(const model& final) {
    export_result r;
    r.warnings = final.warnings;
    r.records = records_;
    auto dir = detail::output_dir(prof_dir_);
    if (!dir) return dir.err();
    dir_ = *dir;
    ts_ = o_.timestamp.empty() ? detail::now_stamp() : o_.timestamp;
    const table losses = msprof_losses(final);
    if (op_rows_.size() + api_.size() + task_rows_.size() + tx_rows_.size() + final.iterations.size() +
            mem_rows_.size() + losses.size() ==
        0)
      return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to summarize");

    {  // op_summary; op_statistic adds the durations up in its row order
      file f(*this, "op_summary", op_summary_header(has_pipe_pmu(final)), op_rows_.size());
      std::optional<std::pair<std::uint32_t, std::int64_t>> prev;  // device and end of the previous row
      MSPROF_TRY(op_rows_.drain([&](const task_row_key& k, std::string_view p) {
        op_row h;
        std::memcpy(&h, p.data(), sizeof h);
        op_groups_.add(h.group, detail::dur_us(k.start_ns, h.end_ns));
        std::string& b = f.row();
        b.append(p.substr(sizeof h, h.head_size));
        row_text s(b, keys(op_keys_));
        s.open(op_summary_wait_col);
        op_summary_wait(s, prev && prev->first == k.device_id ? std::optional(prev->second) : std::nullopt,
                        k.start_ns);
        b.append(p.substr(sizeof h + h.head_size));
        prev = {k.device_id, h.end_ns};
      }));
      MSPROF_TRY(f.close(r.files));
    }
    MSPROF_TRY(write_groups("op_statistic", op_statistic_header(), op_groups_, r.files));
    MSPROF_TRY(api_.finish());
    MSPROF_TRY(write_groups("api_statistic", api_statistic_header(), api_.groups(), r.files));
    MSPROF_TRY(write_sorted("task_time", task_time_header(), task_rows_, r.files));
    MSPROF_TRY(write_sorted("msprof_tx", msprof_tx_header(), tx_rows_, r.files));
    {
      file f(*this, "step_trace", step_trace_header(), final.iterations.size());
      for (const auto& it : final.iterations) f.format_row([&](auto& s) { step_trace_row(s, it); });
      MSPROF_TRY(f.close(r.files));
    }
    MSPROF_TRY(write_sorted("mstx_mem", mstx_mem_header(), mem_rows_, r.files));
    {
      file f(*this, losses.name, losses.header, losses.size());
      for (const auto& row : losses.rows) f.format_row([&](auto& s) {
          for (const auto& c : row) s.str(c);
        });
      MSPROF_TRY(f.close(r.files));
    }
    const auto readme = dir_ / "README.txt";
    MSPROF_TRY(detail::write_file_atomic(readme, detail::readme_text(r.files)));
    r.files.push_back(readme.string());
    return r;
  }

 private:
  static constexpr std::size_t sorters = 5;  // they share the budget

  struct tx_key {  // msprof_tx: by start, then record order
    std::int64_t start_ns;
    std::uint64_t arrival;
    bool operator<(const tx_key& o) const { return std::tie(start_ns, arrival) < std::tie(o.start_ns, o.arrival); }
  };
  struct arrival_key {  // mstx_mem: record order
    std::uint64_t arrival;
    bool operator<(const arrival_key& o) const { return arrival < o.arrival; }
  };
  /// Head of an op_summary payload, followed by the text before the wait cell, then the text after it.
  struct op_row {
    std::int64_t end_ns;
    std::uint32_t group;  ///< op_statistic group
    std::uint32_t head_size;
  };

  /// The files of one summary: <stem>[_slice_<k>]_<ts>.<ext>, o.slice_rows rows
  /// each (the row count is known before the first row, so are the names);
  /// none for an unwanted or empty summary. Each written under a temporary name
  /// and renamed when complete.
  class file {
   public:
    file(summary_exporter& x, const std::string& name, const std::vector<std::string>& header, std::size_t rows)
        : x_(x), name_(name), header_(header), on_(rows != 0 && detail::wanted(x.o_, name)),
          per_(x.o_.slice_rows == 0 ? SIZE_MAX : x.o_.slice_rows), slices_(rows <= per_ ? 1 : (rows + per_ - 1) / per_) {
      if (json() && on_) keys_ = row_text::json_keys(header);
    }
    ~file() {
      std::error_code ec;
      if (f_) std::filesystem::remove(tmp_, ec);  // close() was not reached
    }

    /// The buffer to append the next row's text to.
    std::string& row() {
      if (!on_) {
        buf_.clear();
        return buf_;
      }
      if (!f_ || in_slice_ == per_) {
        if (f_) close_slice();
        open_slice();
      }
      if (buf_.size() >= (1u << 20)) flush();
      if (json() && in_slice_) buf_ += ',';
      ++in_slice_;
      return buf_;
    }
    /// A row from a formatter (summary.hpp) of this summary's columns.
    template <class Format>
    void format_row(Format&& format) {
      row_text s(row(), json() ? &keys_ : nullptr);
      s.open();
      format(s);
      s.close();
    }
    /// Finishes the last file; the paths written go to `files`.
    result<void> close(std::vector<std::string>& files) {
      if (f_) close_slice();
      files.insert(files.end(), written_.begin(), written_.end());
      return status_;
    }

   private:
    bool json() const { return x_.o_.format == "json"; }
    void open_slice() {
      const std::string base = detail::summary_stem(name_, json());
      const std::string stem = slices_ == 1 ? base : base + "_slice_" + std::to_string(slice_);
      final_ = (x_.dir_ / (stem + "_" + x_.ts_ + (json() ? ".json" : ".csv"))).string();
      tmp_ = final_ + ".tmp" + std::to_string(::getpid());
      f_.emplace(tmp_, std::ios::binary | std::ios::trunc);
      if (!*f_ && status_) status_ = make_error(errc::io, tmp_ + ": cannot create file");
      buf_.clear();
      in_slice_ = 0;
      if (json())
        buf_ += '[';
      else
        append_row_text(buf_, header_, nullptr);
    }
    void flush() {
      if (status_ && !buf_.empty()) {
        f_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        if (!*f_) status_ = make_error(errc::io, tmp_ + ": write failed (disk full?)");
      }
      buf_.clear();
    }
    void close_slice() {
      if (json()) buf_ += ']';
      flush();
      f_->close();
      f_.reset();
      std::error_code ec;
      if (status_) {
        std::filesystem::rename(tmp_, final_, ec);
        if (ec) status_ = make_error(errc::io, final_ + ": cannot rename temporary file: " + ec.message());
      }
      if (status_)
        written_.push_back(final_);
      else
        std::filesystem::remove(tmp_, ec);
      ++slice_;
    }

    summary_exporter& x_;
    std::string name_;
    std::vector<std::string> header_;
    bool on_;
    std::size_t per_, slices_;
    std::vector<std::string> keys_;
    std::optional<std::ofstream> f_;
    std::string buf_, tmp_, final_;
    std::size_t slice_ = 0, in_slice_ = 0;
    std::vector<std::string> written_;
    result<void> status_;
  };

  template <class Key>
  result<void> write_sorted(const std::string& name, const std::vector<std::string>& header,
                            spill_sorter<Key>& rows, std::vector<std::string>& files) {
    file f(*this, name, header, rows.size());
    MSPROF_TRY(rows.drain([&](const Key&, std::string_view text) { f.row().append(text); }));
    return f.close(files);
  }
  template <class Groups>
  result<void> write_groups(const std::string& name, const std::vector<std::string>& header, const Groups& g,
                            std::vector<std::string>& files) {
    file f(*this, name, header, g.size());
    g.rows([&](const auto& format) { f.format_row(format); });
    return f.close(files);
  }
  const std::vector<std::string>* keys(const std::vector<std::string>& k) const { return k.empty() ? nullptr : &k; }

  export_options o_;
  std::string prof_dir_;
  std::size_t budget_;
  std::vector<std::string> op_keys_, task_keys_, tx_keys_, mem_keys_;  // JSON object keys; empty for CSV
  spill_sorter<task_row_key> op_rows_, task_rows_;
  spill_sorter<tx_key> tx_rows_;
  spill_sorter<arrival_key> mem_rows_;
  api_statistic_stream api_;
  op_statistic_groups op_groups_;
  std::size_t records_ = 0;
  std::uint64_t arrivals_ = 0;  // mstx and mstx_mem records so far
  std::string scratch_;
  std::filesystem::path dir_;  // set by finish()
  std::string ts_;
};

/// Summary files from an already-loaded model.
inline result<export_result> export_summary(const model& m, const export_options& o) {
  summary_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

/// msprof_<ts>.db from windows of the model (model.hpp): add() every window,
/// then finish() with the final model. Written as <PROF>/msprof_<ts>.db.tmp<pid>
/// and renamed when complete; an exporter dropped before finish() removes it.
/// Sorted runs spill into the PROF_ directory.
class db_exporter {
 public:
  db_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget = spill_budget_default)
      : path_(std::filesystem::path(prof_dir) /
              ("msprof_" + (o.timestamp.empty() ? detail::now_stamp() : o.timestamp) + ".db")),
        tmp_(path_.string() + ".tmp" + std::to_string(::getpid())),
        writer_(tmp_, prof_dir, spill_budget) {
    remove_tmp();  // a leftover of a crashed export; the writer creates the file on its first call
  }
  db_exporter(const db_exporter&) = delete;
  db_exporter& operator=(const db_exporter&) = delete;
  ~db_exporter() {
    if (!finished_) remove_tmp();
  }

  result<void> add(const model& window) {
    records_ += detail::record_count(window);
    return writer_.add(window);
  }

  result<export_result> finish(const model& final) {
    finished_ = true;
    auto w = writer_.finish(final);
    std::error_code ec;
    if (!w) {
      remove_tmp();
      return w.err();
    }
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) {
      remove_tmp();
      return make_error(errc::io, path_.string() + ": cannot rename temporary file: " + ec.message());
    }
    export_result r;
    r.warnings = final.warnings;
    r.records = records_;
    r.files.push_back(path_.string());
    return r;
  }

 private:
  void remove_tmp() const {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  std::filesystem::path path_;
  std::string tmp_;
  db_window_writer writer_;
  std::size_t records_ = 0;
  bool finished_ = false;
};

/// The SQLite db from an already-loaded model.
inline result<export_result> export_db(const model& m, const export_options& o) {
  db_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

/// Which files an export writes.
struct export_parts {
  bool timeline = false;
  bool summary = false;
  bool db = false;
};

namespace detail {

/// Collects the files of the parts, reported in part order (timeline, summaries, db).
struct part_results {
  std::optional<result<export_result>> timeline, summary, db;
  result<export_result> merged(export_result all) && {
    for (auto* r : {&timeline, &summary, &db}) {
      if (!*r) continue;
      if (!**r) return (**r).err();
      all.files.insert(all.files.end(), (**r)->files.begin(), (**r)->files.end());
    }
    return all;
  }
};

/// The parts from a model loaded whole.
inline result<export_result> export_whole(const model& m, const export_options& o, export_parts p) {
  part_results r;
  beside(
      p.db, [&] { r.db.emplace(export_db(m, o)); },
      [&] {
        if (p.timeline) r.timeline.emplace(export_timeline(m, o));
        if (p.summary && (!r.timeline || *r.timeline)) r.summary.emplace(export_summary(m, o));
      });
  export_result all;
  all.warnings = m.warnings;
  all.records = record_count(m);
  return std::move(r).merged(std::move(all));
}

}  // namespace detail

/// Loads `prof_dir` and writes the chosen parts, all with one timestamp.
/// Memory does not grow with the number of records: the model comes in windows
/// (load_windows) and each writer keeps sorted runs on disk (spill.hpp) and a
/// few small sets; iteration selection filters each window. The chrome form
/// needs the whole model, and loads it.
inline result<export_result> export_parts_of(const std::string& prof_dir, const export_options& o, export_parts p) {
  export_options oo = o;
  if (oo.timestamp.empty()) oo.timestamp = detail::now_stamp();
  if (p.timeline && oo.chrome) {
    auto m = detail::load_checked(prof_dir, oo);
    if (!m) return m.err();
    return detail::export_whole(*m, oo, p);
  }
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
  if (p.timeline) timeline.emplace(oo, prof_dir, oo.spill_budget);
  if (p.summary) summary.emplace(oo, prof_dir, oo.spill_budget);
  if (p.db) db.emplace(oo, prof_dir, oo.spill_budget);
  // A writer's first error; it gets no more windows.
  result<void> text_status, db_status;
  auto add = [](auto& writer, const model& w, result<void>& status) {
    if (writer && status) status = writer->add(w);
  };
  std::size_t records = 0;
  load_options lo;
  lo.spill_budget = oo.spill_budget;
  auto loaded = load_windows(prof_dir, lo, [&](model& w) {
    if (select) {
      if (!filter && filter_status) choose(w);
      if (!filter) return;
      filter->apply(w);
    }
    records += detail::record_count(w);
    detail::beside(
        db.has_value(), [&] { add(db, w, db_status); },
        [&] {
          add(timeline, w, text_status);
          add(summary, w, text_status);
        });
  });
  if (!loaded) return loaded.err();
  MSPROF_TRY(detail::check_strict(prof_dir, *loaded, oo));
  if (select) {
    if (!filter && filter_status) choose(*loaded);  // no windows
    MSPROF_TRY(filter_status);
    filter->apply(*loaded);
  }
  MSPROF_TRY(text_status);
  MSPROF_TRY(db_status);
  detail::clear_intermediates(prof_dir, oo);
  detail::part_results r;
  detail::beside(
      db.has_value(), [&] { r.db.emplace(db->finish(*loaded)); },
      [&] {
        if (timeline) r.timeline.emplace(timeline->finish(*loaded));
        if (summary && (!r.timeline || *r.timeline)) r.summary.emplace(summary->finish(*loaded));
      });
  export_result all;
  all.warnings = loaded->warnings;
  all.records = records;
  return std::move(r).merged(std::move(all));
}

/// Loads `prof_dir` and writes the timeline files.
inline result<export_result> export_timeline(const std::string& prof_dir, const export_options& o = {}) {
  return export_parts_of(prof_dir, o, {true, false, false});
}

/// Loads `prof_dir` and writes the summary files.
inline result<export_result> export_summary(const std::string& prof_dir, const export_options& o = {}) {
  return export_parts_of(prof_dir, o, {false, true, false});
}

/// Loads `prof_dir` and writes msprof_<ts>.db.
inline result<export_result> export_db(const std::string& prof_dir, const export_options& o = {}) {
  return export_parts_of(prof_dir, o, {false, false, true});
}

/// Loads once and writes timeline, summaries and db (the launcher's default;
/// export_options::text and ::db choose).
inline result<export_result> export_all(const std::string& prof_dir, const export_options& o = {}) {
  return export_parts_of(prof_dir, o, {o.text, o.text, o.db});
}

/// PROF_ directories named by `dir`: itself if it is one, else its PROF_* children.
inline std::vector<std::string> find_prof_dirs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path p(dir);
  auto is_prof = [](const fs::path& x) {
    std::error_code e;
    return fs::is_directory(x / "host", e) || fs::exists(x / "device_0", e) ||
           x.filename().string().rfind("PROF_", 0) == 0;
  };
  if (p.filename().string().rfind("PROF_", 0) == 0 || fs::is_directory(p / "host", ec)) {
    out.push_back(dir);
    return out;
  }
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (e.is_directory(ec) && e.path().filename().string().rfind("PROF_", 0) == 0 && is_prof(e.path()))
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_HPP
