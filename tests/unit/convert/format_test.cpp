// SPDX-License-Identifier: MIT
// Number formatting, CSV quoting, slicing and the pid scheme, on hand-made models.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/core/json.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/text.hpp>
#include <msprof/convert/timeline.hpp>
#include <sqlite3.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;

TEST_CASE("text: ts strings insert a dot into the ns integer") {
  CHECK(cv::ts_us(1767268800000200000) == "1767268800000200.000");
  CHECK(cv::ts_us(1767268800000330500) == "1767268800000330.500");
  CHECK(cv::ts_us(1999) == "1.999");
  CHECK(cv::ts_us(0) == "0.000");
  CHECK(cv::ts_us(-1999) == "-1.999");
  CHECK(cv::ts_us(INT64_MIN) == "-9223372036854775.808");
  std::string digits;
  cv::append_u64(digits, UINT64_MAX);
  cv::append_u64(digits, 0);
  CHECK(digits == "184467440737095516150");
}

TEST_CASE("text: reference number forms") {
  CHECK(cv::dur_us_json(40000) == "40.0");
  CHECK(cv::dur_us_json(60500) == "60.5");
  CHECK(cv::dur_us_json(0) == "0.0");
  CHECK(cv::dur_us_fixed3(60500) == "60.500");
  CHECK(cv::fewest3(100.5) == "100.5");
  CHECK(cv::fewest3(40.0) == "40");
  CHECK(cv::fewest3(100.0 / 215.5 * 100) == "46.404");
  CHECK(cv::fewest3(10.0 / 215.5 * 100) == "4.64");
  CHECK(cv::fewest3(0.25) == "0.25");
  CHECK(cv::round3_sql(16.0) == "16.0");
  CHECK(cv::round3_sql(2.7777777) == "2.778");
  CHECK(cv::round3_sql(0.0) == "0.0");
  CHECK(cv::round3_sql(0.013) == "0.013");
  // Ties round up as SQLite's ROUND does (the reference reads its PMU cells back
  // from SQLite), also decimal ties binary holds a hair below (1.0005).
  CHECK(cv::round3_sql(0.3125) == "0.313");
  CHECK(cv::round3_sql(0.1875) == "0.188");
  CHECK(cv::round3_sql(1.0005) == "1.001");
  CHECK(cv::round3_sql(-2.5005) == "-2.501");
  CHECK(cv::round3_sql(-0.0001) == "0.0");
  CHECK(cv::round3_sql(10000000000000.0625) == "10000000000000.1");
  CHECK(cv::py_float(12.5) == "12.5");
}

TEST_CASE("timeline: a counter that is not a finite number is null, so the JSON still parses") {
  cv::trace_event c;
  c.ph = 'C';
  c.name = "Port 0/Rx";
  c.args.push_back(cv::trace_arg::real("Rx Packets", std::nan("")));
  c.args.push_back(cv::trace_arg::real("Rx Dropped Rate", HUGE_VAL));
  c.args.push_back(cv::trace_arg::real("Rx Error Rate", 0.5));
  const std::string s = cv::timeline_json({c});
  CHECK(s.find("\"Rx Packets\":null,\"Rx Dropped Rate\":null,\"Rx Error Rate\":0.5}") != std::string::npos);
  CHECK(bool(msprof::json::parse(s, "msprof.json")));
}

TEST_CASE("text: CSV cells are quoted only when needed") {
  std::string s;
  cv::append_csv_cell(s, "plain");
  CHECK(s == "plain");
  s.clear();
  cv::append_csv_cell(s, "\"128,256\"");
  CHECK(s == "\"\"\"128,256\"\"\"");
  s.clear();
  cv::append_csv_cell(s, "1.000\t");
  CHECK(s == "1.000\t");
  s.clear();
  cv::append_json_string(s, "a\"b\\c\n\x01");
  CHECK(s == "\"a\\\"b\\\\c\\n\\u0001\"");
}

TEST_CASE("text: CSV cells a spreadsheet would run as a formula get a leading quote, numbers do not") {
  auto cell = [](std::string_view v) {
    std::string s;
    cv::append_csv_cell(s, v);
    return s;
  };
  CHECK(cell("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  CHECK(cell("\t=1+1") == "'\t=1+1");
  CHECK(cell("\r=1+1") == "\"'\r=1+1\"");
  CHECK(cell("+cmd") == "'+cmd");
  CHECK(cell("-2+3") == "'-2+3");
  CHECK(cell("@SUM(A1)") == "'@SUM(A1)");
  // Numbers stay numbers (also msprof's timestamps with their trailing TAB).
  CHECK(cell("-1.5") == "-1.5");
  CHECK(cell("+2e-3") == "+2e-3");
  CHECK(cell("-1767268800000010.000\t") == "-1767268800000010.000\t");
  CHECK(cell("-") == "'-");
  CHECK(cell("a=b") == "a=b");
}

TEST_CASE("text: invalid UTF-8 becomes U+FFFD in JSON strings, valid UTF-8 passes") {
  std::string s;
  cv::append_json_string(s, "ok \xff\xfe Gr\xc3\xb6\xc3\x9f" "e \xe6\xa2\xaf \xc3");
  CHECK(s == "\"ok \xEF\xBF\xBD\xEF\xBF\xBD Gr\xc3\xb6\xc3\x9f" "e \xe6\xa2\xaf \xEF\xBF\xBD\"");
  s.clear();
  // Overlong '/', a surrogate, above U+10FFFF: each byte replaced.
  cv::append_json_escaped(s, "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80");
  CHECK(s.find('\xc0') == std::string::npos);
  CHECK(s.find("\xed\xa0") == std::string::npos);
  CHECK(s.find("\xf4\x90") == std::string::npos);
  CHECK(s.find("\xEF\xBF\xBD") != std::string::npos);
}

TEST_CASE("timeline: pid scheme") {
  CHECK(cv::format_pid(6060, 14, 0) == 6205888u);
  CHECK(cv::format_pid(6060, 7, 31) == 6205695u);
  CHECK(cv::format_pid(6060, 31, 0) == 6206432u);
}

namespace {

cv::model api_model(const std::string& dir, std::size_t n) {
  cv::model m;
  m.session.prof_dir = dir;
  m.session.pid = 42;
  for (std::size_t i = 0; i < n; ++i) {
    cv::api_call a;
    a.level = cv::level::acl;
    a.type = 0x30001;
    a.thread_id = 7;
    a.start_ns = static_cast<std::int64_t>(i) * 1000;
    a.end_ns = a.start_ns + 500 + static_cast<std::int64_t>(i % 3) * 250;
    a.name = i % 2 ? "aclrtMalloc" : "aclrtFree";
    a.connection_id = i + 1;
    m.apis.push_back(a);
    cv::mstx_event e;
    e.pid = 42;
    e.tid = 7;
    e.event_type = 0;
    e.start_ns = e.end_ns = a.start_ns;
    e.mark_id = i + 1;
    e.message = "m,\"" + std::to_string(i);
    e.domain = "default";
    m.mstx.push_back(e);
  }
  return m;
}

}  // namespace

TEST_CASE("summary: statistics and CSV slicing") {
  golden::temp_copy dir("host_api_only", "_slices");
  auto m = api_model(dir.prof.string(), 7);
  const auto t = cv::api_statistic(m);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][2] == "aclrtFree");  // sorted by API name
  CHECK(t.rows[0][4] == "4");
  // durations of i = 0, 2, 4, 6: 0.5, 1.0, 0.75, 0.5 µs
  CHECK(t.rows[0][3] == "2.75");
  CHECK(t.rows[0][5] == "0.688");
  CHECK(t.rows[0][8] == "0.043");  // population variance 0.04296875

  cv::export_options o;
  o.timestamp = "T";
  o.slice_rows = 3;
  auto r = cv::export_summary(m, o);
  REQUIRE(r.has_value());
  const auto out = dir.prof / "mindstudio_profiler_output";
  CHECK(std::filesystem::exists(out / "msprof_tx_slice_0_T.csv"));
  CHECK(std::filesystem::exists(out / "msprof_tx_slice_1_T.csv"));
  CHECK(std::filesystem::exists(out / "msprof_tx_slice_2_T.csv"));
  CHECK(!std::filesystem::exists(out / "msprof_tx_slice_3_T.csv"));
  CHECK(std::filesystem::exists(out / "api_statistic_T.csv"));  // 2 rows: no split
  const auto last = golden::lines(golden::slurp(out / "msprof_tx_slice_2_T.csv"));
  REQUIRE(last.size() == 2);  // header + 1 row
  CHECK(last[0].rfind("Device_id,pid,tid", 0) == 0);
  CHECK(last[1].find(",\"m,\"\"6\",default,") != std::string::npos);
  const auto readme = golden::slurp(out / "README.txt");
  CHECK(readme.find("msprof_tx_slice_1_T.csv") != std::string::npos);

  o.format = "json";
  o.slice_rows = 0;
  r = cv::export_summary(m, o);
  REQUIRE(r.has_value());
  const auto j = golden::slurp(out / "msprof_tx_summary_T.json");  // msprof_tx_T.json is the timeline
  CHECK(j.find("\"Start_time(us)\":\"0.000\"") != std::string::npos);  // no spreadsheet TAB in JSON
}

TEST_CASE("summary: api_statistic rounds as the reference (mean and variance of 3-decimal values, half away)") {
  golden::temp_copy dir("host_api_only", "_api_rounding");
  cv::model m;
  m.session.prof_dir = dir.prof.string();
  m.session.pid = 42;
  auto call = [&](std::uint16_t level, const char* name, std::int64_t dur_ns) {
    cv::api_call a;
    a.level = level;
    a.type = 1;
    a.thread_id = 7;
    a.start_ns = static_cast<std::int64_t>(m.apis.size()) * 100000;
    a.end_ns = a.start_ns + dur_ns;
    a.name = name;
    a.connection_id = m.apis.size() + 1;
    m.apis.push_back(a);
  };
  // 3.867 µs over 2 calls: the mean 1.9335 is 1.93349999.. as a double, so
  // printing it with 3 decimals gives 1.933; the reference's round() gives 1.934.
  call(cv::level::acl, "aclrtMalloc", 1933);
  call(cv::level::acl, "aclrtMalloc", 1934);
  // The variance is exactly 5.0625: the reference's round() gives 5.063.
  call(cv::level::acl, "aclrtFree", 24343);
  call(cv::level::acl, "aclrtFree", 28843);
  // Rows by API name (byte order: upper case first), then level number.
  call(cv::level::acl, "launch", 1000);
  call(cv::level::node, "launch", 2000);
  call(cv::level::model, "ModelExecute", 3000);
  const std::vector<std::string> expected = {
      "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance",
      "host,model,ModelExecute,3,1,3,3,3,0",
      "host,acl,aclrtFree,53.186,2,26.593,24.343,28.843,5.063",
      "host,acl,aclrtMalloc,3.867,2,1.934,1.933,1.934,0",
      "host,node,launch,2,1,2,2,2,0",
      "host,acl,launch,1,1,1,1,1,0",
  };
  // The table (msprof show) and the exporter's window-by-window statistics.
  auto csv_line = [](const std::vector<std::string>& cells) {
    std::string line;
    for (const auto& c : cells) line += (line.empty() ? "" : ",") + c;
    return line;
  };
  const auto t = cv::api_statistic(m);
  std::vector<std::string> rows = {csv_line(t.header)};
  for (const auto& r : t.rows) rows.push_back(csv_line(r));
  cv::export_options o;
  o.timestamp = "T";
  REQUIRE(cv::export_summary(m, o).has_value());
  const auto written = golden::lines(golden::slurp(dir.prof / "mindstudio_profiler_output" / "api_statistic_T.csv"));
  REQUIRE(rows.size() == expected.size());
  REQUIRE(written.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(rows[i] == expected[i]);
    CHECK(written[i] == expected[i]);
  }
}

namespace {

/// The i-th value of the rounding tests, of five kinds in turn, either sign.
double sql_round_sample(std::mt19937_64& g, int i) {
  double v = 0;
  switch (i % 5) {
    case 0: v = std::ldexp(static_cast<double>(g() >> 11), -static_cast<int>(g() % 75)); break;  // any magnitude below 2^53
    case 1: v = static_cast<double>(g() % 100000000) / 1000.0 + 0.0005; break;                 // ties
    case 2: v = static_cast<double>(g() % 10000000000000ull) / 1e4; break;                      // up to 1e9
    case 3: v = static_cast<double>(g() % 1000) / 1000.0; break;                               // 3 decimals already
    default: v = std::ldexp(static_cast<double>(g() >> 11), static_cast<int>(g() % 20)); break;  // up to 2^72
  }
  return g() & 1 ? -v : v;
}

}  // namespace

TEST_CASE("text: sql_round3 equals SQLite's ROUND(v, 3) below 1e12, ties and random values") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT round(?, 3)", -1, &st, nullptr) == SQLITE_OK);
  std::mt19937_64 g(7);
  int differ = 0;
  for (int i = 0; i < 200000; ++i) {
    const double v = sql_round_sample(g, i);
    if (!(std::fabs(v) < 1e12)) continue;
    sqlite3_bind_double(st, 1, v);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const double want = sqlite3_column_double(st, 0);
    sqlite3_reset(st);
    const double got = cv::sql_round3(v);
    if (got != want) {
      if (++differ <= 3) CHECK_MESSAGE(got == want, "v = " << v);
    }
  }
  CHECK(differ == 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_CASE("text: round3_sql prints sql_round3's value as %.15g does, ties and random values") {
  std::mt19937_64 g(11);
  int differ = 0;
  for (int i = 0; i < 300000; ++i) {
    const double v = sql_round_sample(g, i);
    char want[64];
    std::snprintf(want, sizeof want, "%.15g", cv::sql_round3(v));
    std::string w = want;
    if (w.find_first_of(".en") == std::string::npos) w += ".0";
    if (cv::round3_sql(v) != w && ++differ <= 3) CHECK_MESSAGE(cv::round3_sql(v) == w, "v = " << v);
  }
  CHECK(differ == 0);
}

TEST_CASE("timeline: flows link host APIs and device tasks") {
  cv::model m = api_model("unused", 1);
  m.mstx.clear();
  m.apis[0].has_device_task = true;
  m.session.devices.push_back({0, 1800, 24, 48});
  cv::device_task t;
  t.start_ns = 2000;
  t.end_ns = 3000;
  t.stream_id = 2;
  t.task_type = "KERNEL_AICORE";
  t.connection_id = 1;
  t.host_flow = true;
  m.tasks.push_back(t);
  const auto ev = cv::build_timeline(m);
  int s = 0, f = 0, freq = 0;
  for (const auto& e : ev) {
    if (e.ph == 's') {
      ++s;
      CHECK(e.id == "4294967296");
      CHECK(e.name == "HostToDevice4294967296");
    }
    if (e.ph == 'f') {
      ++f;
      CHECK(e.bp_enclosing);
      CHECK(e.ts_ns == 2000);
    }
    freq += e.ph == 'C';
  }
  CHECK(s == 1);
  CHECK(f == 1);
  CHECK(freq == 4);  // emitted twice, as the reference does
  const auto json = cv::timeline_json(ev);
  CHECK(json.find("{\"name\":\"KERNEL_AICORE\",\"pid\":43456,\"tid\":2,\"ts\":\"2.000\",\"dur\":1.0,\"ph\":\"X\"") !=
        std::string::npos);
}

TEST_CASE("timeline: fast dur digits equal the shortest double form for every ns remainder") {
  std::string fast;
  std::function<void()> noop = [] {};
  cv::detail::json_output<std::function<void()>> sink{fast, noop};
  // Both sides of the fast form's range (0 <= ns < 10^15), and past 2^53.
  for (std::int64_t ns : {std::int64_t{-3000}, std::int64_t{0}, std::int64_t{1}, std::int64_t{999}, std::int64_t{1000},
                          std::int64_t{60500}, std::int64_t{12345678901}, std::int64_t{999999999999000},
                          std::int64_t{999999999999999}, std::int64_t{1} << 53}) {
    for (std::int64_t k = 0; k < 1000; k += 7) {
      CAPTURE(ns + k);
      const std::string shortest = cv::py_float(static_cast<double>(ns + k) / 1000.0);
      REQUIRE(cv::dur_us_json(ns + k) == shortest);
      // Its text reads back as the plain quotient (what the analyses use instead of the text).
      REQUIRE(std::strtod(shortest.c_str(), nullptr) == cv::detail::dur_us(0, ns + k));
      fast.clear();
      sink.dur(ns + k);
      REQUIRE(fast == ",\"dur\":" + shortest + ",\"ph\":\"X\",\"args\":{");
    }
  }
}

namespace {

// Doubles the fixed and round3 cells see: durations (ns / 1000), ratios of
// counters, exact binary ties, decimal ties binary holds a hair off, and the
// edges (zero, negative zero, negatives, huge, NaN, infinity).
std::vector<double> cell_values() {
  std::vector<double> v = {0.0, -0.0, 0.0005, 0.0015, 0.0025, 1.0005, 2.5e-7, 0.5e-6, 1.5e-6, 0.3125, 0.1875,
                           -1.5, -0.0001, 123456789.0625, 1e15, 1e20, 4503599627370496.5, std::nan(""),
                           HUGE_VAL, -HUGE_VAL, 999.9995, 999999.9999995};
  std::mt19937_64 rng(21);
  std::uniform_int_distribution<std::int64_t> ns(0, 5000000000000LL);
  std::uniform_int_distribution<std::uint64_t> counts(0, 2000000000);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t a = ns(rng), b = ns(rng) % 100000000;
    v.push_back(static_cast<double>(b) / 1000.0);
    v.push_back(static_cast<double>(a) / 1000.0);
    v.push_back(static_cast<double>(b - 50000000) / 1000.0);
    const double c = static_cast<double>(counts(rng)), total = static_cast<double>(counts(rng) + 1);
    v.push_back(c / total);
    v.push_back(c / total * 3078.36);
    v.push_back(static_cast<double>(i) / 16.0);
    v.push_back(static_cast<double>(i) / 2000.0);
  }
  return v;
}

}  // namespace

TEST_CASE("text: append_fixed prints what fmt's {:.3f} and {:.6f} print") {
  for (double v : cell_values()) {
    CAPTURE(v);
    std::string three = "x", six = "y";
    cv::append_fixed(three, v, 3);
    cv::append_fixed(six, v, 6);
    REQUIRE(three == "x" + fmt::format("{:.3f}", v));
    REQUIRE(six == "y" + fmt::format("{:.6f}", v));
  }
}

TEST_CASE("text: append_round3_sql prints sql_round3 as {:.15g} with at least one decimal") {
  for (double v : cell_values()) {
    CAPTURE(v);
    std::string want = fmt::format("{:.15g}", cv::sql_round3(v));
    if (want.find_first_of(".en") == std::string::npos) want += ".0";
    std::string got = "x";
    cv::append_round3_sql(got, v);
    REQUIRE(got == "x" + want);
  }
}

TEST_CASE("format: round3_sql is SQLite's ROUND(v, 3) as text (SQLite before 3.43, whose printf the reference uses)") {
  if (sqlite3_libversion_number() >= 3043000) return;  // 3.43 rewrote float printing
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT CAST(ROUND(?, 3) AS TEXT)", -1, &st, nullptr) == SQLITE_OK);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::uint64_t> counts(0, 2000000000);
  for (int i = 0; i < 20000; ++i) {
    // PMU-like values: ratios and times of integer counters, and exact ties.
    const double c = static_cast<double>(counts(rng)), total = static_cast<double>(counts(rng) + 1);
    const double v = i % 3 == 0 ? c / total : i % 3 == 1 ? c / total * 3078.36 : static_cast<double>(i) / 16.0;
    sqlite3_reset(st);
    sqlite3_bind_double(st, 1, v);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const std::string want = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    CAPTURE(v);
    CHECK(cv::round3_sql(v) == want);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
}
