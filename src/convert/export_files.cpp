// SPDX-License-Identifier: MIT
// The output files of an export: the file-name stamp, output stems and
// directory, README.txt.
#include "msprof/convert/export_files.hpp"

#include <ctime>
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

result<outfile::dir> prof_output_dir(const std::string& prof_dir, std::vector<std::string>& notes) {
  auto d = open_prof_dir(prof_dir);
  if (!d) return d.err();
  for (auto& n : d->remove_stale_temps()) notes.push_back(std::move(n));
  return d;
}

result<outfile::dir> output_dir(const std::string& prof_dir, std::vector<std::string>& notes) {
  auto prof = open_prof_dir(prof_dir);
  if (!prof) return prof.err();
  auto d = prof->mkdir("mindstudio_profiler_output");
  if (!d) return d.err();
  for (auto& n : d->remove_stale_temps()) notes.push_back(std::move(n));
  return d;
}

result<void> check_output_dir(const std::string& prof_dir) {
  auto d = outfile::dir::open((std::filesystem::path(prof_dir) / "mindstudio_profiler_output").string());
  if (!d && d.err().code != errc::not_found) return d.err();
  return {};
}

std::string readme_text(const std::vector<std::string>& files) {
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
}  // namespace convert
MSPROF_END_NAMESPACE
