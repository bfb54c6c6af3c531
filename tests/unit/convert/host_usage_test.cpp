// SPDX-License-Identifier: MIT
// The host's usage (host/data/host_cpu.data, host_mem.data): the CANN
// summaries host_cpu_usage and host_mem_usage against the golden case
// `host_usage`, and the timeline's CPU Usage / Memory Usage processes.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/host_usage.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kHostUsageCase = "host_usage";
// info.json's pid 4242 << 10 | sort index << 5 | 31 (the host).
constexpr std::uint64_t kCpuPid = (4242u << 10) | (9u << 5) | 31u;
constexpr std::uint64_t kMemPid = (4242u << 10) | (10u << 5) | 31u;

/// The CPU usages of `prof`, nullopt without host_cpu slices.
std::optional<std::vector<cv::host_cpu_usage>> cpu_usages(const golden::fs::path& prof, std::vector<std::string>& warnings) {
  std::vector<cv::host_cpu_usage> v;
  if (!cv::for_each_host_cpu_usage(prof.string(), warnings, [&](const cv::host_cpu_usage& u) { v.push_back(u); }))
    return std::nullopt;
  return v;
}

/// The memory usages of `prof`, nullopt without host_mem slices or memoryTotal.
std::optional<std::vector<cv::host_mem_usage>> mem_usages(const golden::fs::path& prof, std::vector<std::string>& warnings) {
  std::vector<cv::host_mem_usage> v;
  if (!cv::for_each_host_mem_usage(prof.string(), warnings, [&](const cv::host_mem_usage& u) { v.push_back(u); }))
    return std::nullopt;
  return v;
}

}  // namespace

TEST_CASE("host_usage: the host_cpu_usage and host_mem_usage summaries equal the reference") {
  golden::temp_copy t(kHostUsageCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kHostUsageCase) == 2);
  CHECK(s->warnings.empty());
}

TEST_CASE("host_usage: the CPU usages of each interval, as the reference computes them") {
  golden::temp_copy t(kHostUsageCase);
  std::vector<std::string> warnings;
  const auto u = cpu_usages(t.prof, warnings);
  REQUIRE(u.has_value());
  CHECK(warnings.empty());
  std::vector<std::string> got;
  for (const auto& x : *u) got.push_back(std::to_string(x.start % 1000000000) + " " + x.cpu + " " + std::to_string(x.usage));
  // Second interval: 22 of 20 ticks on CPU 1 (a thread moved there) is left out.
  const std::vector<std::string> want = {
      "100000 0 25.000000",        "100000 1 20.000000",        "100000 2 0.000000",         "100000 Avg 11.250000",
      "20100000 2 10.000000",      "20100000 Avg 30.000000",    "40100000 1 14.285714",      "40100000 0 23.809524",
      "40100000 3 9.523810",       "40100000 Avg 11.904762",    "60200000 2 10.000000",      "60200000 0 0.000000",
      "60200000 3 5.000000",       "60200000 Avg 3.750000",
  };
  CHECK(got == want);
}

TEST_CASE("host_usage: the timeline's CPU Usage and Memory Usage processes (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/host_usage/
  // expected/msprof.json holds its output; host_usage_processor.cpp reads the
  // Python path's CpuUsage / MemUsage tables, host_usage_assembler.cpp makes a counter "CPU <cpu_no>" or "Memory
  // Usage" of series Usage(%) at each interval's start, then the process
  // metadata with label "CPU" and sort indices 9 and 10). The values are those
  // the Python path stored (its timeline shows the same ones).
  golden::temp_copy t(kHostUsageCase);
  auto tl = cv::export_timeline(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(tl.has_value(), tl.err().what());
  CHECK(tl->warnings.empty());
  const auto c = [](std::uint64_t pid, const std::string& name, const char* us, const char* usage) {
    return "{name:\"" + name + "\",pid:" + std::to_string(pid) + ",tid:0,ts:\"17672688000" + us +
           ".000\",ph:\"C\",args:{Usage(%):" + usage + ",},}";
  };
  const auto meta = [](std::uint64_t pid, const char* name, int sort) {
    const std::string p = "pid:" + std::to_string(pid) + ",tid:0,";
    return std::vector<std::string>{"{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"CPU\",},}",
                                    "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"" + name + "\",},}",
                                    "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:" + std::to_string(sort) + ",},}"};
  };
  std::vector<std::string> want_cpu = {
      c(kCpuPid, "CPU 0", "00100", "25.0"),         c(kCpuPid, "CPU 0", "40100", "23.809524"),
      c(kCpuPid, "CPU 0", "60200", "0.0"),          c(kCpuPid, "CPU 1", "00100", "20.0"),
      c(kCpuPid, "CPU 1", "40100", "14.285714"),    c(kCpuPid, "CPU 2", "00100", "0.0"),
      c(kCpuPid, "CPU 2", "20100", "10.0"),         c(kCpuPid, "CPU 2", "60200", "10.0"),
      c(kCpuPid, "CPU 3", "40100", "9.52381"),      c(kCpuPid, "CPU 3", "60200", "5.0"),
      c(kCpuPid, "CPU Avg", "00100", "11.25"),      c(kCpuPid, "CPU Avg", "20100", "30.0"),
      c(kCpuPid, "CPU Avg", "40100", "11.904762"),  c(kCpuPid, "CPU Avg", "60200", "3.75"),
  };
  for (auto& m : meta(kCpuPid, "CPU Usage", 9)) want_cpu.push_back(m);
  std::sort(want_cpu.begin(), want_cpu.end());
  CHECK(golden::process_events(t.prof, kCpuPid) == want_cpu);
  std::vector<std::string> want_mem = {
      c(kMemPid, "Memory Usage", "00100", "8.773804"), c(kMemPid, "Memory Usage", "20100", "9.960556"),
      c(kMemPid, "Memory Usage", "40100", "9.536743"), c(kMemPid, "Memory Usage", "60200", "0.0"),
      c(kMemPid, "Memory Usage", "80100", "11.444473"),
  };
  for (auto& m : meta(kMemPid, "Memory Usage", 10)) want_mem.push_back(m);
  std::sort(want_mem.begin(), want_mem.end());
  CHECK(golden::process_events(t.prof, kMemPid) == want_mem);
}

TEST_CASE("host_usage: no host usage slices, no summaries and no processes") {
  golden::temp_copy t("host_api_only");
  std::vector<std::string> warnings;
  CHECK_FALSE(cv::host_cpu_usage_summary(t.prof.string(), warnings).has_value());
  CHECK_FALSE(cv::host_mem_usage_summary(t.prof.string(), warnings).has_value());
  CHECK(warnings.empty());
  REQUIRE(cv::export_timeline(t.prof.string(), golden::fixed_ts()).has_value());
  CHECK(golden::process_events(t.prof, kCpuPid).empty());
  CHECK(golden::process_events(t.prof, kMemPid).empty());
}

TEST_CASE("host_usage: bad lines are warnings naming the file and offset, and the good lines are kept") {
  golden::temp_copy t(kHostUsageCase);
  const auto cpu = golden::host_data(t.prof, "host_cpu.data.slice_0");
  const auto mem = golden::host_data(t.prof, "host_mem.data.slice_0");
  golden::fs::remove(cpu.string() + ".done");
  golden::fs::remove(mem.string() + ".done");
  const auto cpu_size = golden::fs::file_size(cpu), mem_size = golden::fs::file_size(mem);
  std::ofstream(cpu, std::ios::app) << "time 12x\n1 (cut) S 4";      // a bad time, a cut thread line
  std::ofstream(mem, std::ios::app) << "1000100100000 60000\n";  // 2 fields
  std::vector<std::string> warnings;
  const auto u = cpu_usages(t.prof, warnings);
  REQUIRE(u.has_value());
  CHECK(u->size() == 14);
  const auto m = mem_usages(t.prof, warnings);
  REQUIRE(m.has_value());
  CHECK(m->size() == 5);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].find(cpu.string() + ": record at byte offset " + std::to_string(cpu_size)) != std::string::npos);
  CHECK(warnings[0].find("'time' line") != std::string::npos);
  CHECK(warnings[1].find(cpu.string() + ": record at byte offset " + std::to_string(cpu_size + 9)) != std::string::npos);
  CHECK(warnings[2].find(mem.string() + ": record at byte offset " + std::to_string(mem_size)) != std::string::npos);
  CHECK(warnings[2].find("2 fields in a host memory line") != std::string::npos);
}

TEST_CASE("host_usage: a thread line before any uptime line is out of place, and without memoryTotal there is no memory usage") {
  golden::temp_copy t(kHostUsageCase);
  const auto cpu = golden::host_data(t.prof, "host_cpu.data.slice_0");
  golden::fs::remove(cpu.string() + ".done");
  std::string text = golden::slurp(cpu);
  text = text.substr(text.find('\n') + 1);  // the first 'time' line gone: its uptime and threads have no sample
  std::ofstream(cpu, std::ios::trunc) << text;
  std::vector<std::string> warnings;
  const auto u = cpu_usages(t.prof, warnings);
  REQUIRE(u.has_value());
  CHECK(u->size() == 10);  // the first interval is gone
  REQUIRE(warnings.size() == 4);  // the uptime and 3 thread lines
  for (const auto& w : warnings) CHECK(w.find("out of place") != std::string::npos);

  const auto info = t.prof / "host" / "info.json";
  std::string j = golden::slurp(info);
  const auto at = j.find("\"memoryTotal\": 1048576");
  REQUIRE(at != std::string::npos);
  j.replace(at, 22, "\"memoryTotal\": 0");
  std::ofstream(info, std::ios::trunc) << j;
  warnings.clear();
  CHECK_FALSE(cv::host_mem_usage_summary(t.prof.string(), warnings).has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("memoryTotal") != std::string::npos);
}

TEST_CASE("host_usage: the db's CPU_USAGE and HOST_MEM_USAGE tables (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/host_usage/
  // expected/db.canonical.sql holds its output; msprof_db.cpp's CPU_USAGE and
  // HOST_MEM_USAGE columns, db_assembler.cpp SaveCpuUsageData: the Avg rows
  // left out, the CPU as a number;
  // SaveHostMemUsageData), the times the intervals' starts on the local clock;
  // NUMERIC columns keep a whole usage as an integer, the dump prints 20 digits.
  golden::temp_copy t(kHostUsageCase);
  auto db = cv::export_db(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(db.has_value(), db.err().what());
  CHECK(db->warnings.empty());
  std::vector<std::string> cpu, mem;
  for (const auto& l : golden::canonical_db(t.prof / "msprof_T.db")) {
    if (l.find(" CPU_USAGE ") != std::string::npos) cpu.push_back(l);
    if (l.find(" HOST_MEM_USAGE ") != std::string::npos) mem.push_back(l);
  }
  const auto row = [](const char* table, const char* us, const std::string& rest) {
    return std::string("INSERT INTO ") + table + " VALUES(17672688000" + us + "000," + rest + ");";
  };
  std::vector<std::string> want_cpu = {
      "CREATE TABLE CPU_USAGE (timestampNs NUMERIC, cpuId NUMERIC, usage NUMERIC);",
      row("CPU_USAGE", "00100", "0,25"),
      row("CPU_USAGE", "40100", "0,23.809523999999999688"),
      row("CPU_USAGE", "60200", "0,0"),
      row("CPU_USAGE", "00100", "1,20"),
      row("CPU_USAGE", "40100", "1,14.285714000000000467"),
      row("CPU_USAGE", "00100", "2,0"),
      row("CPU_USAGE", "20100", "2,10"),
      row("CPU_USAGE", "60200", "2,10"),
      row("CPU_USAGE", "40100", "3,9.5238099999999992206"),
      row("CPU_USAGE", "60200", "3,5"),
  };
  std::vector<std::string> want_mem = {
      "CREATE TABLE HOST_MEM_USAGE (timestampNs NUMERIC, usage NUMERIC);",
      row("HOST_MEM_USAGE", "00100", "8.7738040000000001583"),
      row("HOST_MEM_USAGE", "20100", "9.9605560000000004094"),
      row("HOST_MEM_USAGE", "40100", "9.536742999999999526"),
      row("HOST_MEM_USAGE", "60200", "0"),
      row("HOST_MEM_USAGE", "80100", "11.444473000000000339"),
  };
  std::sort(want_cpu.begin() + 1, want_cpu.end());
  std::sort(want_mem.begin() + 1, want_mem.end());
  CHECK(cpu == want_cpu);
  CHECK(mem == want_mem);
}
