// SPDX-License-Identifier: MIT
// The output files of an export: the file-name stamp, atomic whole-file
// writes, output stems and directory, README.txt.
#include "msprof/convert/export_files.hpp"

#include <ctime>
#include <fstream>
#include <system_error>

#include <unistd.h>

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

result<void> write_file_atomic(const std::filesystem::path& path, const std::string& text) {
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

bool wanted(const export_options& o, const std::string& stem) {
  return o.reports.empty() || o.reports.count(stem) != 0;
}

std::string summary_stem(const std::string& name, bool json) {
  return json && (name == "msprof_tx" || name == "step_trace") ? name + "_summary" : name;
}

result<std::filesystem::path> output_dir(const std::string& prof_dir) {
  const auto dir = std::filesystem::path(prof_dir) / "mindstudio_profiler_output";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(errc::io, dir.string() + ": cannot create output directory: " + ec.message());
  return dir;
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
