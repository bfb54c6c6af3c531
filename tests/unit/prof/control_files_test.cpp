// SPDX-License-Identifier: MIT
// host_start.log's cntvct_diff: added to clock_monotonic_raw as the reference's
// host_mon (TimerBean.host_mon: Python's round(diff * 1e9 / Hz); the C++
// Context's hostMonotonic + diff * 1000 / MHz).
#include <doctest/doctest.h>
#include <msprof/prof/control_files.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace prof = msprof::prof;

namespace {

/// The clock of a host_start.log holding `diff_line`, read at `mhz`; `warnings` gets the reader's.
std::uint64_t mono_of(const std::string& diff_line, double mhz, std::vector<prof::warning>& warnings) {
  temp_dir d("control_files");
  const auto p = (d / "host_start.log").string();
  std::ofstream(p) << "[Host]\nclock_monotonic_raw: 1000000000000\ncntvct: 123456789\n" << diff_line;
  prof::reader_options o;
  prof::control_reader r(o, warnings);
  std::uint64_t mono = 0, cnt = 0;
  REQUIRE(r.read_host_clock_log(p, mono, cnt, true, mhz).has_value());
  CHECK(cnt == 123456789);
  return mono;
}

}  // namespace

TEST_CASE("control files: host_start.log's cntvct_diff moves its clock by that many host ticks, rounded as Python's round()") {
  std::vector<prof::warning> w;
  CHECK(mono_of("cntvct_diff: 0\n", 2000, w) == 1000000000000);
  CHECK(mono_of("", 2000, w) == 1000000000000);
  CHECK(mono_of("cntvct_diff: 4000\n", 2000, w) == 1000000002000);  // 4000 ticks at 2 GHz
  CHECK(mono_of("cntvct_diff: 5\n", 2000, w) == 1000000000002);     // 2.5 ns: ties to even
  CHECK(mono_of("cntvct_diff: 7\n", 2000, w) == 1000000000004);     // 3.5 ns
  CHECK(mono_of("cntvct_diff: 4000\n", 0, w) == 1000000004000);     // no Frequency: the default 1000 MHz, ticks are ns
  CHECK(w.empty());
  CHECK(mono_of("cntvct_diff: -3\n", 2000, w) == 1000000000000);    // not a whole number: the C++ Context's 0
  REQUIRE(w.size() == 1);
  CHECK(w[0].message.find("host_start.log: cntvct_diff \"-3\" is not a whole number; 0 used") != std::string::npos);
}
