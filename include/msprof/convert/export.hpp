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
#include <vector>

#include <unistd.h>

#include "../core/error.hpp"
#include "db.hpp"
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
/// [id, id + count) of the model and the API calls, device tasks and mstx
/// events of their time range (iteration_range); an iteration that does not
/// exist is an error naming the ones that do.
inline result<void> select_iterations(model& m, const export_options& o) {
  if (!o.model_id || !o.iteration_id)
    return make_error(errc::invalid_argument, "--model-id and --iteration-id go together");
  const std::uint32_t model_id = *o.model_id, first = *o.iteration_id;
  const std::string what = "--model-id=" + std::to_string(model_id) + " --iteration-id=" + std::to_string(first) +
                           (o.iteration_count > 1 ? " --iteration-count=" + std::to_string(o.iteration_count) : "");
  if (m.iterations.empty())
    return make_error(errc::not_found, m.session.prof_dir + ": " + what +
                                           ": the collection has no step data (no ts_track step-trace records)");
  std::vector<iteration> chosen;
  iteration_range r;
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
    r.lo = any ? std::min(r.lo, lo) : lo;
    r.hi = any ? std::max(r.hi, found->end_ns) : found->end_ns;
    any = true;
    chosen.push_back(*found);
  }
  auto out = [&](std::int64_t b, std::int64_t e) { return !r.contains(b, e); };
  m.apis.erase(std::remove_if(m.apis.begin(), m.apis.end(),
                              [&](const api_call& a) { return out(a.start_ns, a.end_ns); }),
               m.apis.end());
  m.tasks.erase(std::remove_if(m.tasks.begin(), m.tasks.end(),
                               [&](const device_task& t) { return out(t.start_ns, t.end_ns); }),
                m.tasks.end());
  m.mstx.erase(std::remove_if(m.mstx.begin(), m.mstx.end(),
                              [&](const mstx_event& e) { return out(e.start_ns, e.end_ns); }),
               m.mstx.end());
  // HostToDevice flows start only at calls whose task was kept.
  std::set<std::uint64_t> launched;
  for (const auto& t : m.tasks)
    if (t.connection_id) launched.insert(t.connection_id);
  for (auto& a : m.apis) a.has_device_task = a.has_device_task && launched.count(a.connection_id) != 0;
  std::stable_sort(chosen.begin(), chosen.end(), [](const iteration& a, const iteration& b) {
    return std::tie(a.device_id, a.end_ns) < std::tie(b.device_id, b.end_ns);
  });
  m.iterations = std::move(chosen);
  return {};
}

inline result<model> load_checked(const std::string& prof_dir, const export_options& o) {
  auto m = load_model(prof_dir);
  if (!m) return m.err();
  if (o.strict && !m->warnings.empty())
    return make_error(errc::truncated, prof_dir + ": " + m->warnings.front() + " (strict mode)");
  if (o.iteration_count < 1 || o.iteration_count > 5)
    return make_error(errc::invalid_argument, "--iteration-count must be 1..5, got " + std::to_string(o.iteration_count));
  if (o.format != "csv" && o.format != "json")
    return make_error(errc::invalid_argument, "--format must be csv or json, got '" + o.format + "'");
  if (o.model_id || o.iteration_id) MSPROF_TRY(select_iterations(*m, o));
  if (o.clear) {
    for (const auto& e : std::filesystem::directory_iterator(prof_dir)) {
      std::error_code ec;
      if (e.is_directory(ec)) std::filesystem::remove_all(e.path() / "sqlite", ec);
    }
  }
  return m;
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

/// Summary files from an already-loaded model.
inline result<export_result> export_summary(const model& m, const export_options& o) {
  export_result r;
  r.warnings = m.warnings;
  r.records = detail::record_count(m);
  auto dir = detail::output_dir(m.session.prof_dir);
  if (!dir) return dir.err();
  const std::string ts = o.timestamp.empty() ? detail::now_stamp() : o.timestamp;
  const auto tables = all_summaries(m, /*lazy=*/true);
  if (tables.empty())
    return make_error(errc::not_found, m.session.prof_dir + ": no API, task or mstx records to summarize");
  const bool json = o.format == "json";
  const std::string ext = json ? ".json" : ".csv";
  const std::size_t per = o.slice_rows == 0 ? SIZE_MAX : o.slice_rows;
  for (const auto& t : tables) {
    if (!detail::wanted(o, t.name)) continue;
    const std::size_t n = t.size();
    const std::size_t slices = n <= per ? 1 : (n + per - 1) / per;
    // Rows stream from the model into one slice file after another.
    std::size_t row_index = 0, slice = 0;
    std::string buf;
    std::optional<std::ofstream> f;
    std::string tmp, final_path;
    result<void> status;
    auto open_slice = [&] {
      const std::string base = detail::summary_stem(t.name, json);
      const std::string stem = slices == 1 ? base : base + "_slice_" + std::to_string(slice);
      final_path = (*dir / (stem + "_" + ts + ext)).string();
      tmp = final_path + ".tmp" + std::to_string(::getpid());
      f.emplace(tmp, std::ios::binary | std::ios::trunc);
      if (!*f) status = make_error(errc::io, tmp + ": cannot create file");
      buf.clear();
      if (json)
        buf += '[';
      else
        append_csv_row(buf, t.header);
    };
    auto flush = [&] {
      if (status && f && !buf.empty()) {
        f->write(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (!*f) status = make_error(errc::io, tmp + ": write failed (disk full?)");
      }
      buf.clear();
    };
    auto close_slice = [&] {
      if (json) buf += ']';
      flush();
      f->close();
      std::error_code ec;
      if (status) {
        std::filesystem::rename(tmp, final_path, ec);
        if (ec) status = make_error(errc::io, final_path + ": cannot rename temporary file: " + ec.message());
      }
      if (!status) std::filesystem::remove(tmp, ec);
      if (status) r.files.push_back(final_path);
      f.reset();
      ++slice;
    };
    open_slice();
    std::size_t in_slice = 0;
    t.for_each([&](const table::row& row) {
      if (!status) return;
      if (in_slice == per) {
        close_slice();
        if (!status) return;
        open_slice();
        in_slice = 0;
      }
      if (json) {
        if (in_slice) buf += ',';
        append_json_row(buf, t.header, row);
      } else {
        append_csv_row(buf, row);
      }
      ++in_slice;
      ++row_index;
      if (buf.size() >= (1u << 20)) flush();
    });
    if (f) close_slice();
    if (!status) return status.err();
  }
  const auto readme = *dir / "README.txt";
  MSPROF_TRY(detail::write_file_atomic(readme, detail::readme_text(r.files)));
  r.files.push_back(readme.string());
  return r;
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

/// Loads `prof_dir` and writes the timeline files.
inline result<export_result> export_timeline(const std::string& prof_dir, const export_options& o = {}) {
  auto m = detail::load_checked(prof_dir, o);
  if (!m) return m.err();
  return export_timeline(*m, o);
}

/// Loads `prof_dir` and writes the summary files.
inline result<export_result> export_summary(const std::string& prof_dir, const export_options& o = {}) {
  auto m = detail::load_checked(prof_dir, o);
  if (!m) return m.err();
  return export_summary(*m, o);
}

/// Loads `prof_dir` and writes msprof_<ts>.db.
inline result<export_result> export_db(const std::string& prof_dir, const export_options& o = {}) {
  auto m = detail::load_checked(prof_dir, o);
  if (!m) return m.err();
  return export_db(*m, o);
}

/// Loads once and writes timeline, summaries and db (the launcher's default).
inline result<export_result> export_all(const std::string& prof_dir, const export_options& o = {}) {
  auto m = detail::load_checked(prof_dir, o);
  if (!m) return m.err();
  export_options oo = o;
  if (oo.timestamp.empty()) oo.timestamp = detail::now_stamp();
  export_result all;
  all.warnings = m->warnings;
  all.records = detail::record_count(*m);
  auto keep = [&](result<export_result> r) -> result<void> {
    if (!r) return r.err();
    all.files.insert(all.files.end(), r->files.begin(), r->files.end());
    return {};
  };
  // The db is the slowest writer: it runs beside the text files (the model is
  // only read), inline when no thread can be started.
  std::optional<result<export_result>> db;
  std::thread db_writer;
  if (oo.db) {
    try {
      db_writer = std::thread([&] { db.emplace(export_db(*m, oo)); });
    } catch (const std::system_error&) {
      db.emplace(export_db(*m, oo));
    }
  }
  result<export_result> timeline = export_result{}, summary = export_result{};
  if (oo.text) {
    timeline = export_timeline(*m, oo);
    if (timeline) summary = export_summary(*m, oo);
  }
  if (db_writer.joinable()) db_writer.join();
  MSPROF_TRY(keep(std::move(timeline)));
  MSPROF_TRY(keep(std::move(summary)));
  if (db) MSPROF_TRY(keep(std::move(*db)));
  return all;
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
