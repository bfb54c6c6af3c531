// SPDX-License-Identifier: MIT
// The device's LLC samples (device slices llc.data.<id>), the CANN summary
// llc_read_write, the timeline's LLC process and the db's LLC table, against
// the golden case `llc`: its input is what tests/support/golden_llc.hpp
// writes, its expected summary the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/llc.hpp>
#include <msprof/convert/py_decimal.hpp>
#include <msprof/convert/text.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "../../support/golden_llc.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kLlcCase = "llc";
// The LLC process of device 0: info.json's pid 6060 << 10 | sort index 27 << 5 | 0.
constexpr std::uint64_t kLlcPid = (6060u << 10) | (27u << 5);

path llc_slice(const path& prof) { return prof / "device_0" / "data" / "llc.data.0.slice_0"; }

/// The summary's rows of `prof`, with the warnings.
std::vector<std::vector<std::string>> summary_rows(const path& prof, std::vector<std::string>& warnings) {
  auto s = cv::llc_summary(prof.string(), warnings);
  REQUIRE(s.has_value());
  return s->has_value() ? (*s)->rows : std::vector<std::vector<std::string>>{};
}

/// The one warning of the summary of `prof`, which has no rows.
std::string sole_warning_without_rows(const path& prof) {
  std::vector<std::string> warnings;
  CHECK(summary_rows(prof, warnings).empty());
  REQUIRE(warnings.size() == 1);
  return warnings[0];
}

/// Replaces the LLC slice of `prof` with collection version 2.0's samples in
/// mode "write": `add_llc_v2`'s rows (the reference's second run).
void add_llc_v2(const path& prof) {
  constexpr std::uint32_t kWrite[8] = {0x00, 0x01, 0x03, 0x14, 0x21, 0x23, 0x35, 0x37};
  constexpr std::uint64_t base = 1767268800000000000ull;  // the collection start, ns
  struct row {
    std::uint64_t ns;
    std::uint32_t tag, count[8];
  };
  const row rows[] = {
      {base + 450001, 0, {5000, 6000, 10, 20, 30, 40, 50, 60}}, {base - 100000, 0, {1, 2, 3, 4, 5, 6, 7, 8}},
      {base + 200003, 0, {100, 200, 1, 1, 1, 1, 1, 1}},         {base + 200003, 1, {64, 64, 9, 0, 3, 0, 0, 0}},
      {base + 450001, 1, {4000000000u, 1, 2, 3, 4, 5, 6, 7}},
  };
  std::string dev;
  for (const auto& r : rows)
    for (std::size_t k = 0; k < 8; ++k)
      golden_memory::append(dev, msprof::codec::encode_device(msprof::codec::LlcSampleV2{0xDEAD, r.count[k], kWrite[k], r.tag, r.ns}));
  golden::fs::remove(llc_slice(prof));
  golden::fs::remove(llc_slice(prof).string() + ".done");
  golden_memory::write_slice(prof, msprof::prof::stream::llc(0), dev);
  golden_memory::replace_in(prof / "device_0" / "sample.json", "\"llc_profiling\": \"read\"", "\"llc_profiling\": \"write\"");
  golden_memory::replace_in(prof / "device_0" / "info.json.0", "\"version\": \"1.0\"", "\"version\": \"2.0\"");
}

}  // namespace

TEST_CASE("llc: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_llc::add_llc(base.prof);
  golden::temp_copy ours(kLlcCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("llc: the llc_read_write summary equals the reference") {
  golden::temp_copy t(kLlcCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kLlcCase) == 1);
  CHECK(s->warnings.empty());
}

TEST_CASE("llc: collection version 2.0's layout in mode write, as the reference's second run") {
  // The reference's run of add_llc_v2's input wrote these rows: times in ns as
  // they are (through a REAL), tag 1's 4e9 lines over 250 µs, and the sample
  // before the collection start kept (the Python path does not filter).
  golden::temp_copy t(kLlcCase);
  add_llc_v2(t.prof);
  std::vector<std::string> warnings;
  const std::vector<std::vector<std::string>> want = {{"0", "write", "Average", "207.083", "15618032422.478"},
                                                      {"0", "write", "0", "179.167", "58567.956"},
                                                      {"0", "write", "1", "235.0", "31236006277.0"}};
  CHECK(summary_rows(t.prof, warnings) == want);
  CHECK(warnings.empty());
  std::vector<cv::llc_metric> from_start;
  REQUIRE(cv::for_each_llc_metric(t.prof.string(), true, warnings, [&](const cv::llc_metric& m) -> msprof::result<void> {
    from_start.push_back(m);
    return {};
  }));
  REQUIRE(from_start.size() == 4);
  CHECK(from_start[0].time_ns == 1767268800000199936);  // 200003 ns after the start, as a double holds it
  CHECK(from_start[0].throughput == 3905.833);
  CHECK(from_start[3].throughput == 62472012554.001);
  CHECK(from_start[3].mode == "write");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == t.prof.string() + ": 1 LLC metric(s) from before the collection start (as the reference) were left out");
}

TEST_CASE("llc: the timeline's LLC process and the db's LLC table (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (whose whole msprof.json
  // and db are the case's expected files, golden_test.cpp); the values follow its
  // code (llc_processor.cpp, llc_assembler.cpp, db_assembler.cpp SaveLlcData,
  // msprof_db.cpp LLC, meta_data_event.h) applied to the LLCMetrics table its
  // Python parser wrote for this input: every metric (none is before the
  // collection start) in the table's order; the time is the REAL's ns; the
  // timeline's "Hit Rate(%)" is the hit rate * 100 / 100 (a fraction), its
  // throughput the table's MB/s; the db keeps the hit rate * 100, the
  // throughput * 2^20 cut to an integer and the string id of "read".
  golden::temp_copy t(kLlcCase);
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  CHECK(tl_warnings.empty());
  CHECK(db_warnings.empty());
  const std::string p = "pid:" + std::to_string(kLlcPid) + ",tid:0,";
  const auto c = [&](int tag, const char* us, const char* hit, const char* throughput) {
    const std::string name = "{name:\"LLC " + std::to_string(tag) + " Read/";
    const std::string ts = "ts:\"1767268800000" + std::string(us) + "\",ph:\"C\",args:{";
    return std::vector<std::string>{name + "Hit Rate\"," + p + ts + "Hit Rate(%):" + hit + ",},}",
                                    name + "Throughput\"," + p + ts + "Throughput(MB/s):" + throughput + ",},}"};
  };
  std::vector<std::string> want = {
      "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
      "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"LLC\",},}",
      "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:27,},}",
  };
  for (const auto& v : {c(0, "100.096", "2.439", "0.0"), c(0, "300.032", "0.02", "15195819.694"),
                        c(0, "699.904", "2.0", "9768751.0"), c(1, "100.096", "0.0", "0.0"),
                        c(1, "300.032", "0.16699999999999998", "15180.639"),
                        c(1, "699.904", "1.3329999999999997", "83864.727")})
    want.insert(want.end(), v.begin(), v.end());
  std::sort(want.begin(), want.end());
  CHECK(golden::process_events(t.prof, kLlcPid) == want);
  const auto rows = golden::table_rows(t.prof, "LLC");
  REQUIRE(rows.size() == 7);
  CHECK(rows[0] ==
        "CREATE TABLE LLC (deviceId INTEGER, llcId INTEGER, timestampNs INTEGER, hitRate REAL, throughput INTEGER, mode INTEGER);");
  // Canonical order (by every column; REAL as SQLite prints %!.20g, its last digit not always
  // the exact value's); the mode is an id, so only the rest is spelled out here.
  std::vector<std::string> got;
  for (std::size_t i = 1; i < rows.size(); ++i) got.push_back(rows[i].substr(0, rows[i].rfind(',')));
  const std::vector<std::string> want_rows = {
      "INSERT INTO LLC VALUES(0,0,1767268800000100096,243.90000000000000568,0",
      "INSERT INTO LLC VALUES(0,0,1767268800000300032,2.0,15933971831455",
      "INSERT INTO LLC VALUES(0,0,1767268800000699904,200.0,10243277848576",
      "INSERT INTO LLC VALUES(0,1,1767268800000100096,0.0,0",
      "INSERT INTO LLC VALUES(0,1,1767268800000300032,16.699999999999999289,15918053720",
      "INSERT INTO LLC VALUES(0,1,1767268800000699904,133.29999999999998294,87938539978",
  };
  CHECK(got == want_rows);
}

TEST_CASE("llc: json_process.llc false leaves the LLC process out") {
  golden::temp_copy on(kLlcCase), off(kLlcCase);
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(on.prof.string(), o).has_value());
  o.json_process.llc = false;
  REQUIRE(cv::export_timeline(off.prof.string(), o).has_value());
  CHECK(golden::process_events(on.prof, kLlcPid).size() == 15);
  CHECK(golden::process_events(off.prof, kLlcPid).empty());
}

TEST_CASE("llc: an event sampled twice at one time and tag counts with its last sample in file order") {
  // A sample appended again with another count gives what that count in the sample's own place gives.
  auto metrics = [](const path& prof) {
    std::vector<std::string> warnings, out;
    auto r = cv::for_each_llc_metric(prof.string(), false, warnings, [&](const cv::llc_metric& m) -> msprof::result<void> {
      out.push_back(std::to_string(m.llc_id) + " " + std::to_string(m.time_ns) + " " + cv::py_float(m.hit_rate) + " " +
                    cv::py_float(m.throughput));
      return {};
    });
    REQUIRE(r.has_value());
    CHECK(warnings.empty());
    return out;
  };
  golden::temp_copy original(kLlcCase), appended(kLlcCase), in_place(kLlcCase);
  const auto size = golden::fs::file_size(llc_slice(original.prof));
  constexpr std::streamoff record = 8;  // time 300, tag 0, event 0 (read lines: the throughput)
  std::string sample(24, '\0');
  std::ifstream(llc_slice(original.prof), std::ios::binary).seekg(record * 24).read(sample.data(), 24);
  const std::uint64_t count = 5000;
  sample.replace(8, 8, reinterpret_cast<const char*>(&count), 8);
  std::ofstream(llc_slice(appended.prof), std::ios::binary | std::ios::app) << sample;
  std::ofstream(llc_slice(appended.prof).string() + ".done", std::ios::trunc) << "filesize:" << size + 24 << "\n";
  std::fstream f(llc_slice(in_place.prof), std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(record * 24).write(sample.data(), 24);
  f.close();
  const auto want = metrics(in_place.prof);
  CHECK(want != metrics(original.prof));
  CHECK(metrics(appended.prof) == want);
}

TEST_CASE("llc: a cut sample is a warning naming the file and offset, and the whole ones are kept") {
  golden::temp_copy t(kLlcCase);
  golden::fs::remove(llc_slice(t.prof).string() + ".done");
  std::ofstream(llc_slice(t.prof), std::ios::binary | std::ios::app) << std::string(10, '\x01');
  std::vector<std::string> warnings;
  const auto rows = summary_rows(t.prof, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(llc_slice(t.prof).string() + ": truncated record at byte offset 1368") != std::string::npos);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"0", "read", "Average", "99.317", "4177269.343"});
}

TEST_CASE("llc: a version 2.0 time beyond int64 (once a REAL) is skipped with a warning, the others kept") {
  golden::temp_copy t(kLlcCase);
  add_llc_v2(t.prof);
  std::string bytes = golden::slurp(llc_slice(t.prof));
  for (std::size_t i = 16; i < 24; ++i) bytes[i] = i == 23 ? '\x7f' : '\xff';  // the first sample's ns: INT64_MAX
  std::ofstream(llc_slice(t.prof), std::ios::binary | std::ios::trunc) << bytes;
  std::vector<std::string> warnings;
  CHECK(summary_rows(t.prof, warnings).size() == 3);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == t.prof.string() + ": 1 llc sample(s) with a time outside the clock's range were left out");
}

TEST_CASE("llc: an unknown collection version is read in the first layout with one warning naming info.json") {
  golden::temp_copy t(kLlcCase);
  const path info = t.prof / "device_0" / "info.json.0";
  golden_memory::replace_in(info, "\"version\": \"1.0\"", "\"version\": \"3.0\"");
  std::vector<std::string> warnings;
  CHECK(summary_rows(t.prof, warnings).size() == 3);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == info.string() + ": collection version \"3.0\" has no known LLC layout; its LLC samples were read "
                                       "as version 1.0's (as the reference)");
}

TEST_CASE("llc: sample.json without llc_profiling gives no metrics and one warning naming it") {
  golden::temp_copy t(kLlcCase);
  const path sample = t.prof / "device_0" / "sample.json";
  golden_memory::replace_in(sample, "\"llc_profiling\": \"read\", ", "");
  CHECK(sole_warning_without_rows(t.prof) == sample.string() + ": llc_profiling \"\" is neither read nor write; no LLC metrics for device 0");
}

TEST_CASE("llc: chip 0 (whose LLC data has another format) gives no metrics and one warning naming info.json") {
  golden::temp_copy t(kLlcCase);
  const path info = t.prof / "device_0" / "info.json.0";
  golden_memory::replace_in(info, "\"platform_version\": \"5\"", "\"platform_version\": \"0\"");
  CHECK(sole_warning_without_rows(t.prof) == info.string() + ": chip \"0\" (platform_version) is not one whose LLC read/write data the "
                                       "reference reads; no LLC metrics for device 0");
}

TEST_CASE("llc: chip 7 keeps one tag, chip 1 four (LlcModel's tag list)") {
  golden::temp_copy t(kLlcCase);
  const path info = t.prof / "device_0" / "info.json.0";
  golden_memory::replace_in(info, "\"platform_version\": \"5\"", "\"platform_version\": \"7\"");
  std::vector<std::string> warnings;
  auto rows = summary_rows(t.prof, warnings);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][2] == "0");
  golden_memory::replace_in(info, "\"platform_version\": \"7\"", "\"platform_version\": \"1\"");
  rows = summary_rows(t.prof, warnings);
  REQUIRE(rows.size() == 4);
  CHECK(rows[3] == std::vector<std::string>{"0", "read", "2", "200.0", "0.0"});  // tag 2's one time: 40/20, no throughput
  CHECK(warnings.empty());
}

TEST_CASE("float_calculate_quotient: Python's Decimal quotients left to right, quantized half-even, 0 for a zero divisor") {
  // Expected: the reference's float_calculate(values, '/') run in Python (Decimal(str(v)) each, 28 digits).
  const auto d = [](const char* t) { return cv::py_decimal::of_text(t); };
  CHECK(cv::float_calculate_quotient({d("2"), d("3")}) == 0.667);
  CHECK(cv::float_calculate_quotient({d("1"), d("16")}) == 0.062);  // 0.0625: a tie to even
  CHECK(cv::float_calculate_quotient({d("3"), d("16")}) == 0.188);
  CHECK(cv::float_calculate_quotient({d("5"), d("0")}) == 0.0);
  CHECK(cv::float_calculate_quotient({d("0"), d("2.5")}) == 0.0);
  CHECK(cv::float_calculate_quotient({d("777777"), d("0.015625"), d("1024.0"), d("1024.0"), d("3.124e-06")}) == 15195819.694);
  CHECK(cv::float_calculate_quotient({d("1e+24"), d("3")}) == 333333333333333333333333.333);
  CHECK(cv::float_calculate_quotient({d("1e+26"), d("3")}) == 0.0);  // 29 digits once quantized: Python's error, "0"
}
