// SPDX-License-Identifier: MIT
// The whole host's usage (--host-sys-usage=cpu,mem: host/data/host_sys_cpu.data,
// host_sys_mem.data, <pid>-CpuUsage.data, <pid>-Memory.data): the CANN
// summaries cpu_usage, process_cpu_usage, sys_mem and process_mem against the
// golden case `host_sys_usage`, and bad input.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/host_sys_usage.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kHostSysUsageCase = "host_sys_usage";

/// Appends `text` to the slice `name` of `prof` (its .done gone, so the size is not checked).
void append_to_slice(const path& prof, const char* name, const std::string& text) {
  const auto p = golden::host_data(prof, name);
  golden::fs::remove(p.string() + ".done");
  std::ofstream(p, std::ios::app) << text;
}

const cv::table* find(const std::vector<cv::table>& v, const std::string& name) {
  for (const auto& t : v)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

TEST_CASE("host_sys_usage: cpu_usage, process_cpu_usage, sys_mem and process_mem equal the reference") {
  golden::temp_copy t(kHostSysUsageCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kHostSysUsageCase) == 5);  // and api_statistic
  for (const auto& w : s->warnings) MESSAGE(w);
  CHECK(s->warnings.empty());
}

TEST_CASE("host_sys_usage: the reference's reading of the records") {
  std::vector<std::string> warnings;
  // A process name's colons are dropped; the system's ticks are its cpu line's sum.
  const std::string pid_cpu =
      "TimeStamp:5\nIndex:0\nDataLen:9\n"
      "7 (a b) S 1 7 7 0 -1 0 0 0 0 0 11 12 13 14 20\nProcessName:kworker/0:1\ncpu  1 2 3 4 5 6 7 8 9 10\n\n";
  auto rows = cv::parse_host_sys_usage(cv::host_sys_file::pid_cpu, pid_cpu, "f", 0, warnings);
  CHECK(warnings.empty());
  REQUIRE(rows.size() == 1);
  CHECK(*rows[0].pid == 7);
  CHECK(rows[0].name == "kworker/01");
  // Split at single blanks: the name "(a b)" moves utime (11) to field 14, stime's place, as in the reference.
  CHECK(*rows[0].v[0] == 0);
  CHECK(*rows[0].v[1] == 11);
  CHECK(*rows[0].v[4] == 55);

  // Every blank line ends a process memory row, in a record or not (NULL sizes).
  const std::string pid_mem = "TimeStamp:1\nIndex:0\nDataLen:3\n10 20 30 1 0 2 0\nProcessName:x\n\n\n";
  rows = cv::parse_host_sys_usage(cv::host_sys_file::pid_mem, pid_mem, "f", 42, warnings);
  CHECK(warnings.empty());
  REQUIRE(rows.size() == 2);
  CHECK(*rows[0].pid == 42);
  CHECK(*rows[0].v[1] == 20);
  CHECK_FALSE(rows[1].v[0].has_value());

  std::string unit;
  const std::string sys_mem = "TimeStamp:1\nMemTotal:   100 kB\nHugePages_Total:   6\n\n";
  rows = cv::parse_host_sys_usage(cv::host_sys_file::sys_mem, sys_mem, "f", 0, warnings, &unit);
  REQUIRE(rows.size() == 1);
  CHECK(unit == "kB");
  CHECK(*rows[0].v[0] == 100);
  CHECK(*rows[0].v[7] == 6);
  CHECK_FALSE(rows[0].v[1].has_value());
}

TEST_CASE("host_sys_usage: bad lines are warnings naming the file and offset, never a crash") {
  golden::temp_copy t(kHostSysUsageCase);
  const auto cpu = golden::host_data(t.prof, "host_sys_cpu.data.slice_0");
  const auto pid = golden::host_data(t.prof, "4242-CpuUsage.data.slice_0");
  const auto cpu_size = golden::fs::file_size(cpu), pid_size = golden::fs::file_size(pid);
  append_to_slice(t.prof, "host_sys_cpu.data.slice_0", "TimeStamp:9\ncpu 1 2\ncpu0 1 2 3 4 x 6 7 8 9 10\n\n");
  append_to_slice(t.prof, "4242-CpuUsage.data.slice_0", "TimeStamp:9\n4242 (cut) S 1\ncpu  1 2 3\n\n");
  std::vector<std::string> warnings;
  const auto tables = cv::host_sys_usage_summaries(t.prof.string(), warnings);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].find(cpu.string() + ": byte offset " + std::to_string(cpu_size + 12)) == 0);
  CHECK(warnings[0].find("3 fields in a cpu line") != std::string::npos);
  CHECK(warnings[1].find(cpu.string() + ": byte offset " + std::to_string(cpu_size + 20)) == 0);
  CHECK(warnings[1].find("field 5 is not a number") != std::string::npos);
  CHECK(warnings[2].find(pid.string() + ": byte offset " + std::to_string(pid_size + 12)) == 0);
  CHECK(warnings[2].find("the rest of the file is skipped") != std::string::npos);
  // The good samples are kept: the other summaries are the reference's, the CPU's a new row's worth.
  const auto* mem = find(tables, "process_mem");
  REQUIRE(mem != nullptr);
  CHECK(golden::lines(golden::slurp(golden::case_dir(kHostSysUsageCase) / "expected" / "process_mem.csv")).size() == mem->rows.size() + 1);
  const auto* proc = find(tables, "process_cpu_usage");
  REQUIRE(proc != nullptr);
  CHECK(proc->rows.size() == 3);
  const auto* sys = find(tables, "cpu_usage");
  REQUIRE(sys != nullptr);
  CHECK(sys->rows.size() == 1);
}

TEST_CASE("host_sys_usage: a slice's problems under the reader's cap, numbers beyond 64 bits left out") {
  golden::temp_copy t(kHostSysUsageCase);
  const auto mem = golden::host_data(t.prof, "4242-Memory.data.slice_0");
  std::string bad = "TimeStamp:9\n";
  for (int i = 0; i < 30; ++i) bad += "1 x 3 4 5 6 7\n";  // a statm line that is not seven whole numbers
  append_to_slice(t.prof, "4242-Memory.data.slice_0", bad + "\n");
  append_to_slice(t.prof, "host_sys_mem.data.slice_0", "TimeStamp:9\nMemTotal:       1e300 kB\nHugePages_Free: 99999999999999999999\n\n");
  std::vector<std::string> warnings;
  const auto tables = cv::host_sys_usage_summaries(t.prof.string(), warnings);
  std::size_t statm = 0, more = 0, beyond = 0;
  for (const auto& w : warnings) {
    statm += w.find(mem.string() + ": byte offset") == 0 && w.find("not seven whole numbers") != std::string::npos;
    more += w == "... and 10 more problems in " + mem.string();
    beyond += w.find("is not a whole number; left out") != std::string::npos;
  }
  CHECK(statm == 20);
  CHECK(more == 1);
  CHECK(beyond == 2);
  CHECK(find(tables, "sys_mem") != nullptr);
}

TEST_CASE("host_sys_usage: no --host-sys-usage slices, no summaries and no warnings") {
  golden::temp_copy t("host_usage");
  std::vector<std::string> warnings;
  CHECK(cv::host_sys_usage_summaries(t.prof.string(), warnings).empty());
  CHECK(warnings.empty());
}

TEST_CASE("host_sys_usage: the reference's timeline and db have nothing of these files") {
  // expected/msprof.json and db.canonical.sql are the reference's, equal to those of host_api_only (the same
  // input less these slices); golden_test.cpp compares ours to them. Here: the host's files are read without a
  // warning about their names.
  golden::temp_copy t(kHostSysUsageCase);
  auto r = cv::export_timeline(t.prof.string(), golden::fixed_ts());
  REQUIRE(r.has_value());
  for (const auto& w : r->warnings) CHECK(w.find("CpuUsage") == std::string::npos);
  for (const auto& w : r->warnings) CHECK(w.find("host_sys_") == std::string::npos);
}
