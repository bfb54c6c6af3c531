// SPDX-License-Identifier: MIT
// The output files of an export: the file-name stamp, output stems and
// directory, README.txt.
#include "msprof/convert/export_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <set>
#include <utility>

#include "msprof/version.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

std::string now_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

std::string export_stamp(const export_options& o) { return o.timestamp.empty() ? now_stamp() : o.timestamp; }

std::string free_stamp(const std::string& prof_dir) {
  namespace fs = std::filesystem;
  // Every name an export may have written: the db in the PROF_ directory, the
  // rest in mindstudio_profiler_output and its selection folders.
  std::vector<std::string> names;
  auto list = [&](const fs::path& d, bool into_dirs, auto& self) -> void {
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
      std::error_code e2;
      if (into_dirs && it->is_directory(e2) && !it->is_symlink(e2)) self(it->path(), false, self);
    }
  };
  list(prof_dir, false, list);
  list(fs::path(prof_dir) / "mindstudio_profiler_output", true, list);
  for (std::time_t t = std::time(nullptr);; ++t) {
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
    const std::string mark = std::string("_") + buf;
    bool taken = false;
    for (const auto& n : names) taken = taken || n.find(mark) != std::string::npos;
    if (!taken) return buf;
  }
}

std::string selection_dir(const export_options& o) {
  if (!o.model_id && !o.iteration_id) return {};
  const std::uint32_t first = o.iteration_id.value_or(0);
  std::string s = "selection_model" + std::to_string(o.model_id.value_or(0)) + "_iteration" + std::to_string(first);
  if (o.iteration_count > 1) s += "-" + std::to_string(static_cast<std::uint64_t>(first) + o.iteration_count - 1);
  return s;
}

bool wanted(const export_options& o, const std::string& stem) {
  return o.reports.empty() || o.reports.count(stem) != 0;
}

std::string summary_stem(const std::string& name, bool json) {
  return json && (name == "msprof_tx" || name == "step_trace") ? name + "_summary" : name;
}

namespace {

/// The PROF_ directory: the user's path (it may be a link); created when
/// missing (a model built in memory may name one that does not exist yet).
result<outfile::dir> open_prof_dir(const std::string& prof_dir) {
  auto d = outfile::dir::open(prof_dir, true);
  if (!d && d.err().code == errc::not_found) return outfile::dir::make(prof_dir);
  return d;
}

}  // namespace

result<outfile::dir> db_output_dir(const std::string& prof_dir, const export_options& o, std::vector<std::string>& notes) {
  if (!selection_dir(o).empty()) return output_dir(prof_dir, o, notes);
  auto d = open_prof_dir(prof_dir);
  if (!d) return d.err();
  for (auto& n : d->remove_stale_temps()) notes.push_back(std::move(n));
  return d;
}

std::string sqlite_path(const outfile::dir& d, const outfile::atomic_file& f) {
  std::string path = f.temp_path();
  if (char* real = ::realpath(d.path().c_str(), nullptr)) {
    path = std::string(real) + path.substr(path.rfind('/'));
    std::free(real);
  }
  return path;
}

result<outfile::dir> output_dir(const std::string& prof_dir, const export_options& o, std::vector<std::string>& notes) {
  auto prof = open_prof_dir(prof_dir);
  if (!prof) return prof.err();
  auto d = prof->mkdir("mindstudio_profiler_output");
  if (!d) return d.err();
  if (const std::string sel = selection_dir(o); !sel.empty()) {
    d = d->mkdir(sel);
    if (!d) return d.err();
  }
  for (auto& n : d->remove_stale_temps()) notes.push_back(std::move(n));
  return d;
}

result<outfile::dir> start_result(const model& final, std::size_t records, const std::string& prof_dir,
                                  const export_options& o, export_result& r) {
  r.warnings = final.warnings;
  r.records = records;
  return output_dir(prof_dir, o, r.warnings);
}

result<void> check_output_dir(const std::string& prof_dir) {
  auto d = outfile::dir::open((std::filesystem::path(prof_dir) / "mindstudio_profiler_output").string());
  if (!d && d.err().code != errc::not_found) return d.err();
  return {};
}

std::string readme_text(const std::string& old, const export_options& o, const std::string& stamp,
                        const std::vector<std::string>& files) {
  static const std::string exports_head = "Exports in this directory (newest last):\n";
  std::string s =
      "msprof export output (msprof " MSPROF_VERSION_STRING ")\n\n"
      "msprof_<ts>.json      timeline (Chrome trace array): CANN APIs, Ascend Hardware tasks, AI Core Freq,\n"
      "                      mstx events, HostToDevice/MsTx flows, Communication (HCCL), Overlap Analysis\n"
      "msprof_tx_<ts>.json   timeline of mstx markers and ranges only\n"
      "step_trace_<ts>.json  timeline of the iterations (steps) only, when the device recorded step traces\n"
      "chrome_trace_<ts>.json  the timeline in the form Chrome DevTools and the Perfetto UI draw\n"
      "                      (docs/chrome-trace.md; parts _part<k> above the size limit)\n"
      "op_summary_<ts>       one row per device op: shapes, types, timing, PMU metrics\n"
      "op_statistic_<ts>     ops grouped by type and core type\n"
      "api_statistic_<ts>    host API calls grouped by level and name\n"
      "task_time_<ts>        one row per device task\n"
      "communication_statistic_<ts>  HCCL collectives per op type: count and times (when there are any)\n"
      "msprof_tx_<ts>        mstx markers and ranges (JSON: msprof_tx_summary_<ts>.json)\n"
      "step_trace_<ts>       one row per iteration (step): FP/BP, iteration end and time, model id\n"
      "                      (JSON: step_trace_summary_<ts>.json)\n"
      "mstx_mem_<ts>         mstx heap and region (un)registrations (msprof's own, when there are any)\n"
      "msprof_losses_<ts>    events the collector lost, per counter (only when something was lost:\n"
      "                      then every other output is incomplete)\n"
      "Summaries are .csv, or .json with --format json. Files over 1,000,000 rows are split into\n"
      "<name>_slice_<k>_<ts>.\n"
      "Times are local Unix time in microseconds; time cells end in a TAB so spreadsheets keep precision.\n"
      "Each export has its own stamp <ts>; an iteration selection's files are in\n"
      "selection_model<M>_iteration<I>[-<J>]/ and hold only those iterations.\n\n" +
      exports_head;
  // The sections of earlier exports (other stamps) stay as they were; this
  // stamp's section (the timeline's, when the summaries follow) gains our files.
  const std::string own_head = "\n[" + stamp + "]";
  std::set<std::string> names;
  for (const auto& f : files) names.insert(std::filesystem::path(f).filename().string());
  if (const auto at = old.find(exports_head); at != std::string::npos) {
    std::string kept = old.substr(at + exports_head.size());
    if (const auto mine = kept.find(own_head); mine != std::string::npos) {
      const auto next = kept.find("\n[", mine + own_head.size());
      const std::string section = kept.substr(mine, next == std::string::npos ? std::string::npos : next - mine);
      for (std::size_t p = section.find("\n  "); p != std::string::npos; p = section.find("\n  ", p + 1)) {
        const auto e = section.find('\n', p + 3);
        names.insert(section.substr(p + 3, e == std::string::npos ? std::string::npos : e - p - 3));
      }
      kept.erase(mine, section.size());
    }
    s += kept;
  }
  s += own_head + " msprof " MSPROF_VERSION_STRING "; options:";
  std::string opts;
  if (o.model_id) opts += " --model-id=" + std::to_string(*o.model_id);
  if (o.iteration_id) opts += " --iteration-id=" + std::to_string(*o.iteration_id);
  if (o.iteration_count > 1) opts += " --iteration-count=" + std::to_string(o.iteration_count);
  if (o.format != "csv") opts += " --format=" + o.format;
  if (!o.reports.empty()) {
    opts += " -reports=";
    for (const auto& r : o.reports) opts += (opts.back() == '=' ? "" : ",") + r;
  }
  if (o.clear) opts += " --clear";
  if (o.strict) opts += " --strict";
  s += opts.empty() ? " none (everything)\n" : opts + "\n";
  names.insert("README.txt");
  for (const auto& n : names) s += "  " + n + "\n";
  return s;
}

std::string read_readme(const outfile::dir& d) {
  const std::string path = d.path_of("README.txt");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 20)) {
    text.resize(static_cast<std::size_t>(st.st_size));
    const ssize_t n = ::read(fd, text.data(), text.size());
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  ::close(fd);
  return text;
}

result<std::string> write_readme(const outfile::dir& d, const export_options& o, const std::string& stamp,
                                 const std::vector<std::string>& files) {
  MSPROF_TRY(outfile::write_atomic(d, "README.txt", readme_text(read_readme(d), o, stamp, files)));
  return d.path_of("README.txt");
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
