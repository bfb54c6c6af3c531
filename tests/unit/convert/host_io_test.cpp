// SPDX-License-Identifier: MIT
// The host's disk and network usage (host/data/host_disk.data,
// host_network.data): the CANN summaries host_disk_usage and
// host_network_usage against the golden case `host_io`, the rows the
// reference's Python path stores, the timeline's Disk Usage / Network Usage
// processes, and bad input. The whole timeline and db of the case are
// compared in golden_test.cpp.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/host_usage.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kHostIoCase = "host_io";
// info.json's pid 4242 << 10 | sort index << 5 | 31 (the host).
constexpr std::uint64_t kNetworkPid = (4242u << 10) | (11u << 5) | 31u;
constexpr std::uint64_t kDiskPid = (4242u << 10) | (12u << 5) | 31u;

path host_file(const path& prof, const char* name) { return prof / "host" / name; }

/// `text` appended to a slice (its .done file removed: the slice grew).
void append(const path& prof, const char* slice, const std::string& text) {
  const path p = host_file(prof, "data") / slice;
  golden::fs::remove(p.string() + ".done");
  std::ofstream(p, std::ios::app) << text;
}

/// info.json or sample.json with `from` replaced by `to`.
void edit(const path& prof, const char* name, const std::string& from, const std::string& to) {
  const path p = host_file(prof, name);
  std::string j = golden::slurp(p);
  const auto at = j.find(from);
  REQUIRE(at != std::string::npos);
  j.replace(at, from.size(), to);
  std::ofstream(p, std::ios::trunc) << j;
}

std::string fixed(double v, const char* f = "%.6f") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::vector<cv::host_disk_usage> disk_usages(const path& prof, std::vector<std::string>& warnings) {
  std::vector<cv::host_disk_usage> v;
  REQUIRE(cv::for_each_host_disk_usage(prof.string(), warnings, [&](const cv::host_disk_usage& u) { v.push_back(u); }));
  return v;
}

std::vector<std::string> network_usages(const path& prof, std::vector<std::string>& warnings) {
  std::vector<std::string> v;
  REQUIRE(cv::for_each_host_network_usage(prof.string(), warnings, [&](const cv::host_network_usage& u) {
    v.push_back(fixed(u.start, "%.0f") + " " + fixed(u.end, "%.0f") + " " + fixed(u.usage) + " " + fixed(u.speed, "%.10g"));
  }));
  return v;
}

using golden::has_warning;

// The case's two warnings: slice_0's cut line (6 fields; the reference skips it
// too) and slice_1 without a start_time line (its rows start at 0, as the
// reference's do: they count in the summary, and the timeline and db leave
// them out as before the collection start).
void check_case_warnings(const std::vector<std::string>& w) {
  CHECK(w.size() == 2);
  CHECK(has_warning(w, "host_disk.data.slice_0: record at byte offset 803", "6 fields in a host disk line, not at least 8"));
  CHECK(has_warning(w, "host_disk.data.slice_1: record at byte offset 0", "no start_time line"));
}

}  // namespace

TEST_CASE("host_io: the host_disk_usage and host_network_usage summaries equal the reference") {
  // Checked against the reference's Python path (HostDiskUsagePresenter,
  // HostNetworkUsagePresenter, get_recommend_value; expected/ of the case):
  // the peaks and the recommended rates as Python prints floats; the netcard
  // speed the listed speeds but docker0's -1, in KB/s.
  golden::temp_copy t(kHostIoCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kHostIoCase) == 2);
  check_case_warnings(s->warnings);
}

TEST_CASE("host_io: the disk rows, as the reference's Python path stores them") {
  golden::temp_copy t(kHostIoCase);
  std::vector<std::string> warnings;
  const auto u = disk_usages(t.prof, warnings);
  check_case_warnings(warnings);
  REQUIRE(u.size() == 63 + 2);  // iotop's headers and the cut line are not rows
  const double interval = 1 / 7.0 * 1e9;  // sample.json host_disk_freq 7
  CHECK(u[0].start == 999900050000.0);
  CHECK(u[0].end == 999900050000.0 + interval);
  CHECK(u[1].start == u[0].end);
  CHECK(u[0].read == 0.5);  // 512.00 B/s
  CHECK(u[0].usage == 1.25);
  CHECK(u[1].write == 3.25 * 1024);  // M/s
  CHECK(u[2].write == 0.75 * 1024 * 1024);  // G/s
  CHECK(u[2].usage == 0);  // "?unavailable?"
  CHECK(u[5].read == 100);
  CHECK(u[5].usage == 0);  // under 11 fields
  CHECK(u[63].start == 0);  // slice_1: no start_time
  CHECK(u[64].read == 1024 * 1024);
}

TEST_CASE("host_io: the network rows, as the reference's Python path stores them") {
  // The reference's NetworkUsage table (host_network_usage.db) of the case:
  // each slice on its own (slice_1's first, cut sample counts nothing), eth1
  // left out of the interval where its receive counter went back, docker0
  // (speed -1) and lo (not listed) never counted, and each usage over the
  // speed of its sample's last listed interface (eth1, 1000 Mbit/s: 175.5555%).
  golden::temp_copy t(kHostIoCase);
  std::vector<std::string> warnings;
  const auto got = network_usages(t.prof, warnings);
  const std::vector<std::string> want = {
      "999990100000 1000000100000 0.153024 14009.76563",    "1000000100000 1000020100003 0.782159 71608.82715",
      "1000020100003 1000040099999 1.208799 73779.2628",    "1000040099999 1000060100000 0.400160 976.9530761",
      "1000060100000 1000080100000 175.555500 428602.2949", "1000100100000 1000120100000 11.111140 27126.80664",
      "1000120100000 1000140100001 0.004004 97.75390136",
  };
  CHECK(got == want);
}

TEST_CASE("host_io: the timeline's Disk Usage and Network Usage processes (the reference's C++ path)") {
  // host_usage_assembler.cpp: a counter named as the process, series
  // Usage(%), at each row's start (its whole ns) on the local clock, those
  // before the collection start left out; label "CPU", sort indices 12 and 11.
  golden::temp_copy t(kHostIoCase);
  auto tl = cv::export_timeline(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(tl.has_value(), tl.err().what());
  check_case_warnings(tl->warnings);
  const auto net = golden::process_events(t.prof, kNetworkPid);
  CHECK(net.size() == 6 + 3);  // the first interval starts before the collection
  CHECK(std::count(net.begin(), net.end(),
                   "{name:\"Network Usage\",pid:" + std::to_string(kNetworkPid) +
                       ",tid:0,ts:\"1767268800060100.000\",ph:\"C\",args:{Usage(%):175.5555,},}") == 1);
  const auto disk = golden::process_events(t.prof, kDiskPid);
  CHECK(disk.size() == 62 + 3);  // slice_0's first row and slice_1's are before the collection
  CHECK(std::count(disk.begin(), disk.end(),
                   "{name:\"process_sort_index\",pid:" + std::to_string(kDiskPid) + ",tid:0,ph:\"M\",args:{sort_index:12,},}") == 1);
  CHECK(std::count(disk.begin(), disk.end(),
                   "{name:\"Disk Usage\",pid:" + std::to_string(kDiskPid) +
                       ",tid:0,ts:\"1767268800042907.142\",ph:\"C\",args:{Usage(%):17.5,},}") == 1);
}

TEST_CASE("host_io: no disk or network slices, no summaries and no processes") {
  golden::temp_copy t("host_usage");
  std::vector<std::string> warnings;
  CHECK_FALSE(cv::host_disk_usage_summary(t.prof.string(), warnings).has_value());
  CHECK_FALSE(cv::host_network_usage_summary(t.prof.string(), warnings).has_value());
  CHECK(warnings.empty());
  REQUIRE(cv::export_timeline(t.prof.string(), golden::fixed_ts()).has_value());
  CHECK(golden::process_events(t.prof, kDiskPid).empty());
  CHECK(golden::process_events(t.prof, kNetworkPid).empty());
}

TEST_CASE("host_io: bad disk lines are warnings naming the file and offset, and the rest is kept") {
  golden::temp_copy t(kHostIoCase);
  const auto size = golden::fs::file_size(host_file(t.prof, "data") / "host_disk.data.slice_0");
  const std::string bad_read = "12:00:09  4242 be/4 root  abc K/s  1.00 K/s  0.00 %  1.00 % python\n";
  const std::string bad_unit = "12:00:09  4242 be/4 root  2.00 X/s  1.00 K/s  0.00 %  1.00 % python\n";
  const std::string bad_io = "12:00:09  4242 be/4 root  1.00 K/s  1.00 K/s  0.00 %  zz % python\n";
  append(t.prof, "host_disk.data.slice_0", bad_read + bad_unit + bad_io + "12:00:09  4242 be/4 ro");
  std::vector<std::string> warnings;
  const auto u = disk_usages(t.prof, warnings);
  CHECK(u.size() == 65 + 2);  // the bad read counts 0, the unknown unit as K/s
  CHECK(u[63].read == 0);
  CHECK(u[64].read == 2);
  CHECK(u[63].start == u[62].end);
  REQUIRE(warnings.size() == 2 + 4);
  const std::string f = "host_disk.data.slice_0: record at byte offset ";
  CHECK(has_warning(warnings, f + std::to_string(size) + ":", "read or write rate is not a number; counted as 0"));
  CHECK(has_warning(warnings, f + std::to_string(size + bad_read.size()) + ":", "unit is not B/s, K/s, M/s or G/s"));
  CHECK(has_warning(warnings, f + std::to_string(size + bad_read.size() + bad_unit.size()) + ":", "host disk IO 'zz' is not a number"));
  CHECK(has_warning(warnings, f + std::to_string(size + bad_read.size() + bad_unit.size() + bad_io.size()) + ":", "4 fields"));
}

TEST_CASE("host_io: a slice's bad disk lines share the reader's cap of 20 warnings, then one count") {
  // Lines the decoder rejects and lines the usage flags (a rate that is not a
  // number) are counted together, as every problem the reader finds in a slice.
  golden::temp_copy t(kHostIoCase);
  const std::string bad_read = "12:00:09  4242 be/4 root  abc K/s  1.00 K/s  0.00 %  1.00 % python\n";
  const std::string cut = "12:00:09  4242 be/4 ro\n";
  std::string text = "start_time 1000100050000\n";
  for (int k = 0; k < 15; ++k) text += bad_read + cut;
  append(t.prof, "host_disk.data.slice_2", text);
  std::vector<std::string> warnings;
  const auto u = disk_usages(t.prof, warnings);
  CHECK(u.size() == 65 + 15);  // the bad reads count 0
  const std::string slice = (host_file(t.prof, "data") / "host_disk.data.slice_2").string();
  CHECK(std::count_if(warnings.begin(), warnings.end(), [&](const std::string& w) {
          return w.find(slice + ": record at byte offset ") != std::string::npos;
        }) == 20);
  CHECK(std::count(warnings.begin(), warnings.end(), "[msprof.codec] ... and 10 more problems in " + slice) == 1);
  CHECK(warnings.size() == 2 + 20 + 1);  // the case's two, the slice's
}

TEST_CASE("host_io: without host_disk_freq the disk usage is a warning and its summary N/A") {
  golden::temp_copy t(kHostIoCase);
  edit(t.prof, "sample.json", "\"host_disk_freq\": 7", "\"host_disk_freq\": \"7\"");  // a string: the reference fails too
  std::vector<std::string> warnings;
  const auto s = cv::host_disk_usage_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  REQUIRE(s->rows.size() == 1);
  CHECK(s->rows[0] == std::vector<std::string>{"host", "N/A", "N/A", "N/A", "N/A"});
  REQUIRE(warnings.size() == 1);
  CHECK(has_warning(warnings, "host/sample.json", "no positive host_disk_freq"));
}

TEST_CASE("host_io: bad network lines, equal times and a missing netCard are warnings, and the rest is kept") {
  golden::temp_copy t(kHostIoCase);
  const path slice = host_file(t.prof, "data") / "host_network.data.slice_1";
  const auto size = golden::fs::file_size(slice);
  const std::string bad_time = "time 12x\n";
  const std::string bad_eth0 = "  eth0: 1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16\n";
  const std::string bad_lo = "    lo: 1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16\n";  // not listed: not read
  const std::string same_time = "time 1000140100001\n  eth0: 10333335 1 0 0 0 0 0 0 8000001 1 0 0 0 0 0 0\n";
  append(t.prof, "host_network.data.slice_1", bad_time + bad_eth0 + bad_lo + same_time);
  std::vector<std::string> warnings;
  const auto got = network_usages(t.prof, warnings);
  CHECK(got.size() == 7);  // the interval of no time is left out
  REQUIRE(warnings.size() == 3);
  const std::string f = "host_network.data.slice_1: record at byte offset ";
  CHECK(has_warning(warnings, f + std::to_string(size) + ":", "'time' line is not 'time <ns>'"));
  CHECK(has_warning(warnings, f + std::to_string(size + bad_time.size()) + ":", "interface 'eth0': its counters are not integers"));
  CHECK(has_warning(warnings, "host_network.data.slice_1", "two samples at the same time; the interval before it is left out"));

  edit(t.prof, "info.json", "\"netCard\":", "\"netCards\":");
  warnings.clear();
  CHECK_FALSE(cv::host_network_usage_summary(t.prof.string(), warnings).has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(has_warning(warnings, "host/info.json", "no netCard list"));
}

TEST_CASE("host_io: every netCard speed -1, a summary of no usage") {
  // compute_netcard_speed's int 0 and get_recommend_value's N/A.
  golden::temp_copy t(kHostIoCase);
  for (const char* s : {"10000", "1000", "25000", "100000"})
    edit(t.prof, "info.json", std::string("\"speed\": ") + s + "}", "\"speed\": -1}");
  std::vector<std::string> warnings;
  const auto s = cv::host_network_usage_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  REQUIRE(s->rows.size() == 1);
  CHECK(s->rows[0] == std::vector<std::string>{"host", "0", "N/A", "N/A"});
  CHECK(warnings.empty());
}
