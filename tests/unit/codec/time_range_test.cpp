// SPDX-License-Identifier: MIT
// Regression tests for fuzz findings F1 and F3 (docs/fuzzing.md) at the codec
// level: the checked time arithmetic (prof::time_ns), the reader's range
// checks on clock values, and dictionary strings ending in '\r'.
#include <doctest/doctest.h>
#include <msprof/codec/dictionary.hpp>
#include <msprof/prof/reader.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "../../fuzz/targets.hpp"

namespace prof = msprof::prof;
namespace codec = msprof::codec;
namespace tn = msprof::prof::time_ns;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A fuzz corpus input unpacked into a scratch PROF_ directory (removed at scope exit).
struct reproducer {
  std::string dir;
  reproducer(const std::string& target, const std::string& name) {
    const std::string bytes = slurp(fs::path(MSPROF_TEST_SOURCE_DIR) / "tests/fuzz/corpus" / target / name);
    REQUIRE(!bytes.empty());
    dir = msprof_fuzz::write_prof_dir(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  ~reproducer() {
    std::error_code ec;
    fs::remove_all(msprof_fuzz::scratch_dir().parent_path(), ec);
  }
};

bool has_warning(const prof::prof_reader& r, const std::string& part) {
  for (const auto& w : r.warnings())
    if (w.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("time_ns: checked conversions report what does not fit in int64 ns") {
  CHECK(tn::from_u64(0) == 0);
  CHECK(tn::from_u64(static_cast<std::uint64_t>(kMax)) == kMax);
  CHECK_FALSE(tn::from_u64(static_cast<std::uint64_t>(kMax) + 1).has_value());

  CHECK(tn::max_us == 9223372036854775ull);
  CHECK(tn::from_us(tn::max_us) == 9223372036854775000ll);
  CHECK_FALSE(tn::from_us(tn::max_us + 1).has_value());
  CHECK_FALSE(tn::from_us(18446744073709551ull).has_value());  // F3's value

  CHECK(tn::add(kMax - 1, 1) == kMax);
  CHECK_FALSE(tn::add(kMax, 1).has_value());
  CHECK_FALSE(tn::add(kMin, -1).has_value());
  CHECK_FALSE(tn::add(8026297344300900224ll, 1767267800000000000ll).has_value());  // F2's sum

  CHECK(tn::shift(1000, 2.4) == 1002);
  CHECK(tn::shift(1000, -1000.0) == 0);
  CHECK_FALSE(tn::shift(static_cast<std::uint64_t>(kMax) + 1, -1e18).has_value());
  CHECK_FALSE(tn::shift(static_cast<std::uint64_t>(kMax) - 10, 20.0).has_value());
  CHECK_FALSE(tn::shift(0, 1e19).has_value());
  CHECK_FALSE(tn::shift(0, -1e19).has_value());
  CHECK_FALSE(tn::shift(0, std::nan("")).has_value());
  CHECK_FALSE(tn::shift(0, HUGE_VAL).has_value());

  CHECK(tn::to_wall(5, 10) == 15);
  CHECK(tn::to_wall(10, -10) == 0);
  CHECK_FALSE(tn::to_wall(10, -11).has_value());  // before 1970
  CHECK_FALSE(tn::to_wall(kMax, 1).has_value());

  CHECK(tn::saturate(1e30) == kMax);
  CHECK(tn::saturate(-1e30) == kMin);
  CHECK(tn::saturate(std::nan("")) == 0);
  CHECK(tn::saturate(-12.7) == -12);
  CHECK(tn::shift_saturated(static_cast<std::uint64_t>(kMax) - 10, 20.0) == kMax);
  CHECK(tn::shift_saturated(0, -1e19) == kMin);
}

TEST_CASE("time_ns: round_half_away is std::llround for every double in range") {
  // The edges: halves, the doubles next to them, and where doubles stop having fractions.
  const double edges[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                          std::nextafter(0.5, 1.0), std::nextafter(-0.5, -1.0), 4503599627370495.5,
                          -4503599627370495.5, 4503599627370497.0, 9007199254740993.0, 9.1e18, -9.1e18};
  for (const double x : edges) CHECK_MESSAGE(tn::round_half_away(x) == std::llround(x), x);
  // Clock conversions' values: tick differences over frequencies, and random bit patterns in range.
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < 200000; ++k) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const double ticks = static_cast<double>(static_cast<std::int64_t>(s >> 8) - (std::int64_t{1} << 54));
    for (const double mhz : {19.2, 50.0, 100.0, 1800.0, 3.0}) {
      const double x = ticks / mhz * 1e3 / 1e6;
      REQUIRE(tn::round_half_away(x) == std::llround(x));
    }
    double bits = 0;
    std::memcpy(&bits, &s, sizeof bits);
    if (std::isfinite(bits) && std::fabs(bits) < 9.2e18) REQUIRE(tn::round_half_away(bits) == std::llround(bits));
  }
}

TEST_CASE("time_ns: host and device clocks are checked, and clamped in to_monotonic_ns") {
  prof::host_info h;  // clock frequency 0: records are monotonic ns
  CHECK(h.clock.monotonic_ns(42) == 42);
  CHECK_FALSE(h.clock.monotonic_ns(0xFFFFFFFFFFFFFFFFull).has_value());
  CHECK(h.clock.to_monotonic_ns(0xFFFFFFFFFFFFFFFFull) == kMax);
  h.clock.frequency_mhz = 100;
  h.clock.anchor_ticks = 1000;
  h.clock.anchor_ns = 5000;
  CHECK(h.clock.monotonic_ns(1100) == 6000);
  CHECK(h.clock.to_monotonic_ns(1100) == 6000);
  CHECK_FALSE(h.clock.monotonic_ns(0xFFFFFFFFFFFFFFFFull).has_value());  // 1.8e20 ns
  CHECK(h.clock.to_monotonic_ns(0xFFFFFFFFFFFFFFFFull) == kMax);

  h.collection_time_begin_us = 1767268800000000ull;
  h.start_monotonic_raw_ns = 1000000000000ull;
  CHECK(h.wall_offset_ns() == 1767268800000000000ll - 1000000000000ll);
  h.collection_time_begin_us = 18446744073709551ull;  // set by hand; the reader rejects it
  CHECK(h.wall_offset_ns() == kMax);

  prof::device_info d;
  d.clock.frequency_mhz = 50;
  d.clock.anchor_ticks = 0;
  d.clock.anchor_ns = 1000;
  CHECK(d.clock.monotonic_ns(50) == 2000);
  CHECK_FALSE(d.clock.monotonic_ns(0xFFFFFFFFFFFFFFFFull).has_value());
  CHECK(d.clock.to_monotonic_ns(0xFFFFFFFFFFFFFFFFull) == kMax);
}

TEST_CASE("F3: the reader rejects a collectionTimeBegin that overflows int64 ns (fuzz reproducer)") {
  reproducer r("reader", "finding-F3-collection-time-begin-overflow");
  prof::reader_options strict;
  strict.strict = true;
  auto s = prof::prof_reader::open(r.dir, strict);
  REQUIRE_FALSE(s);
  CHECK(s.err().message.find(r.dir + "/host/start_info: collectionTimeBegin out of range (18446744073709551 us") !=
        std::string::npos);

  // Lenient: a warning, and the value is treated as missing.
  auto l = prof::prof_reader::open(r.dir);
  REQUIRE(l);
  CHECK(has_warning(*l, "/host/start_info: collectionTimeBegin out of range"));
  CHECK(l->host().collection_time_begin_us == 0);
  CHECK(l->host().wall_offset_ns() == -1000000000000ll);
}

TEST_CASE("F3: clock_monotonic_raw above INT64_MAX in host_start.log is a control-file problem") {
  reproducer r("reader", "seed-host_api_only");
  std::ofstream(r.dir + "/host/host_start.log", std::ios::trunc)
      << "clock_monotonic_raw: 9223372036854775808\ncntvct: 1\n";
  prof::reader_options strict;
  strict.strict = true;
  auto s = prof::prof_reader::open(r.dir, strict);
  REQUIRE_FALSE(s);
  CHECK(s.err().message.find(r.dir + "/host/host_start.log: clock_monotonic_raw out of range") != std::string::npos);
  auto l = prof::prof_reader::open(r.dir);
  REQUIRE(l);
  CHECK(has_warning(*l, "/host/host_start.log: clock_monotonic_raw out of range (9223372036854775808 ns"));
  CHECK(l->host().clock.anchor_ns == 0);
}

TEST_CASE("F1: dictionary strings ending in CR are cut by the formatters, what they write reads back exactly") {
  // The formatters drop trailing '\r' (after the cut at the first '\n').
  CHECK(codec::format_hash_line(1, "x\r") == "1:x\n");
  CHECK(codec::format_hash_line(1, "x\r\r") == "1:x\n");
  CHECK(codec::format_hash_line(1, "x\r\ny") == "1:x\n");
  CHECK(codec::format_hash_line(1, "\r") == "1:\n");
  CHECK(codec::format_hash_line(1, "a\rb") == "1:a\rb\n");  // an inner '\r' is kept
  CHECK(codec::format_type_line(5000, 1, "name\r") == "5000_1:name\n");

  // The reader accepts CRLF files: one '\r' before '\n' is the line end.
  codec::hash_map hm;
  codec::type_map tm;
  std::vector<std::string> problems;
  codec::parse_hash_dic("1:a\r\n2:b\r\r\n3:c\rd\n", "hash_dic", hm, problems);
  codec::parse_type_info_dic("5000_1:k\r\n", "type_info_dic", tm, problems);
  CHECK(problems.empty());
  CHECK(hm[1] == "a");
  CHECK(hm[2] == "b\r");  // only one '\r' is a line end
  CHECK(hm[3] == "c\rd");
  CHECK((tm[{5000, 1}] == "k"));

  // Whatever the formatters write parses back to exactly that string.
  for (const char* s : {"", "x", "x\r", "x\r\r", "\r\r", "a\rb", "a:b\r", "x\ny"}) {
    CAPTURE(s);
    const std::string line = codec::format_hash_line(7, s);
    codec::hash_map again;
    codec::parse_hash_dic(line, "again", again, problems);
    REQUIRE(again.size() == 1);
    CHECK(line == "7:" + again[7] + "\n");
    CHECK(codec::format_hash_line(7, again[7]) == line);
  }
  CHECK(problems.empty());
}

TEST_CASE("F1: the fuzz reproducer's entries are stable once formatted") {
  const std::string text =
      slurp(fs::path(MSPROF_TEST_SOURCE_DIR) / "tests/fuzz/corpus/dictionary/crash-trailing-cr-roundtrip");
  REQUIRE(text == std::string("6438:2\0\x01" "38:2\0\x01\r\r", 16));
  codec::hash_map hm;
  std::vector<std::string> problems;
  codec::parse_hash_dic(text, "hash_dic", hm, problems);
  REQUIRE(hm.size() == 1);
  const std::string& s = hm.begin()->second;
  CHECK(s.back() == '\r');  // "...\r\r" at the end of the file: one '\r' is the line end
  const std::string line = codec::format_hash_line(hm.begin()->first, s);
  CHECK(line.back() == '\n');
  CHECK(line[line.size() - 2] != '\r');
  codec::hash_map again;
  codec::parse_hash_dic(line, "again", again, problems);
  CHECK(problems.empty());
  CHECK(again.begin()->second == s.substr(0, s.size() - 1));
  CHECK(codec::format_hash_line(hm.begin()->first, again.begin()->second) == line);
}
