// SPDX-License-Identifier: MIT
// The device's HBM samples (device slices hbm.data.<id>), the CANN summary
// hbm, the timeline's HBM process and the db's HBM table, against the golden
// case `hbm`: its input is what tests/support/golden_sysmem.hpp writes, its
// expected summary the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/sys_mem.hpp>
#include <msprof/convert/text.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "../../support/golden_sysmem.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kHbmCase = "hbm";
// The HBM process of device 0: info.json's pid 6060 << 10 | sort index 24 << 5 | 0.
constexpr std::uint64_t kHbmPid = (6060u << 10) | (24u << 5);

path hbm_slice(const path& prof) { return prof / "device_0" / "data" / "hbm.data.0.slice_0"; }

void set_events(const path& prof, const std::string& from, const std::string& to) {
  golden_memory::replace_in(prof / "device_0" / "sample.json", from, to);
}

}  // namespace

TEST_CASE("hbm: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_sysmem::add_hbm(base.prof);
  golden::temp_copy ours(kHbmCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("hbm: the hbm summary equals the reference") {
  golden::temp_copy t(kHbmCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kHbmCase) == 1);
  CHECK(s->warnings.empty());
  // Channel 1 reads nothing: its read cell is its write average, unrounded.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "hbm", "csv")));
  REQUIRE(rows.size() == 4);
  CHECK(rows[3] == "0,1,188392.16443400297,188392.164");
}

TEST_CASE("hbm: one hbm_profiling_events pairs each sample with the 4th before it, as the reference") {
  // The reference's run of the case without the key (an empty name: one event) wrote these rows.
  golden::temp_copy t(kHbmCase);
  set_events(t.prof, ", \"hbm_profiling_events\": \"read,write\"", "");
  std::vector<std::string> warnings;
  auto s = cv::hbm_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  REQUIRE(s->has_value());
  CHECK(warnings.empty());
  const std::vector<std::vector<std::string>> want = {{"0", "Average", "9542151.468", "161206.856"},
                                                      {"0", "0", "19084302.937", "8476.994"},
                                                      {"0", "1", "313936.7182572682", "313936.718"}};
  CHECK((*s)->rows == want);
}

TEST_CASE("hbm: three hbm_profiling_events give no bandwidths and one warning naming sample.json") {
  golden::temp_copy t(kHbmCase);
  set_events(t.prof, "\"read,write\"", "\"read,write,read\"");
  std::vector<std::string> warnings;
  auto s = cv::hbm_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  CHECK(!s->has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == (t.prof / "device_0" / "sample.json").string() +
                           ": hbm_profiling_events names more than two events; no HBM bandwidths for device 0");
}

TEST_CASE("hbm: collection version 2.0 (another layout) gives no bandwidths and one warning naming info.json") {
  golden::temp_copy t(kHbmCase);
  const path info = t.prof / "device_0" / "info.json.0";
  std::string text = golden::slurp(info);
  const auto at = text.find("\"version\": \"1.0\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 16, "\"version\": \"2.0\"");
  std::ofstream(info, std::ios::binary | std::ios::trunc) << text;
  std::vector<std::string> warnings;
  auto s = cv::hbm_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  CHECK(!s->has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == info.string() + ": collection version 2.0's HBM samples are not read; no HBM bandwidths for device 0");
}

TEST_CASE("hbm: a cut sample is a warning naming the file and offset, and the whole ones are kept") {
  golden::temp_copy t(kHbmCase);
  golden::fs::remove(hbm_slice(t.prof).string() + ".done");
  std::ofstream(hbm_slice(t.prof), std::ios::binary | std::ios::app) << std::string(10, '\x01');
  std::vector<std::string> warnings;
  auto s = cv::hbm_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  REQUIRE(s->has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(hbm_slice(t.prof).string() + ": truncated record at byte offset 384") != std::string::npos);
  CHECK((*s)->rows[0] == std::vector<std::string>{"0", "Average", "5450315.042", "96739.603"});
}

TEST_CASE("hbm: fewer samples than a bandwidth needs give no summary and a warning") {
  golden::temp_copy t(kHbmCase);
  golden::fs::resize_file(hbm_slice(t.prof), 7 * 24);
  std::ofstream(hbm_slice(t.prof).string() + ".done", std::ios::trunc) << "filesize:168\n";
  std::vector<std::string> warnings;
  auto s = cv::hbm_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  CHECK(!s->has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == t.prof.string() + ": device 0 has 7 HBM sample(s), fewer than the 8 a bandwidth needs (as the reference, none)");
}

TEST_CASE("hbm: samples of one time, type and channel count once, with the last in file order (GROUP BY)") {
  // A sample appended again with another count must give what that count in
  // the sample's own place gives: the middle of the table, and its end (the
  // rows the first bandwidths pair with).
  auto bandwidths = [](const path& prof) {
    std::vector<std::string> warnings, out;
    auto r = cv::for_each_hbm_bandwidth(prof.string(), false, warnings, [&](const cv::hbm_bandwidth& b) -> msprof::result<void> {
      out.push_back(std::to_string(b.time_ns) + " " + std::to_string(b.hbm_id) + (b.write ? " w " : " r ") + cv::py_float(b.mb_s));
      return {};
    });
    REQUIRE(r.has_value());
    CHECK(warnings.empty());
    return out;
  };
  golden::temp_copy original(kHbmCase);
  const auto size = golden::fs::file_size(hbm_slice(original.prof));
  const auto before = bandwidths(original.prof);
  for (const std::uint64_t record : {std::uint64_t{1}, size / 24 - 1}) {
    CAPTURE(record);
    golden::temp_copy appended(kHbmCase), in_place(kHbmCase);
    std::string sample(24, '\0');
    std::ifstream(hbm_slice(original.prof), std::ios::binary).seekg(static_cast<std::streamoff>(record * 24)).read(sample.data(), 24);
    const std::uint64_t count = 12345;
    sample.replace(8, 8, reinterpret_cast<const char*>(&count), 8);
    std::ofstream(hbm_slice(appended.prof), std::ios::binary | std::ios::app) << sample;
    std::ofstream(hbm_slice(appended.prof).string() + ".done", std::ios::trunc) << "filesize:" << size + 24 << "\n";
    std::fstream f(hbm_slice(in_place.prof), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(record * 24)).write(sample.data(), 24);
    f.close();
    const auto want = bandwidths(in_place.prof);
    CHECK(want != before);
    CHECK(bandwidths(appended.prof) == want);
  }
}

TEST_CASE("hbm: the timeline's HBM process and the db's HBM table (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/hbm/expected
  // msprof.json and db.canonical.sql hold its output): every bandwidth (none
  // is before the collection start), in the table's order; the time is the sample's µs * 1000
  // plus the clocks' offsets, summed in doubles (so a multiple of 256 ns); the
  // db's bandwidth is MB/s * 2^20 cut to an integer, its type the string id of
  // "read" or "write".
  golden::temp_copy t(kHbmCase);
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  CHECK(tl_warnings.empty());
  CHECK(db_warnings.empty());
  const std::string p = "pid:" + std::to_string(kHbmPid) + ",tid:0,";
  const auto c = [&](int hbm, bool write, const char* us, const char* v) {
    const std::string dir = write ? "Write" : "Read";
    return "{name:\"HBM " + std::to_string(hbm) + "/" + dir + "\"," + p + "ts:\"1767268800000" + us + "\",ph:\"C\",args:{" +
           dir + "(MB/s):" + v + ",},}";
  };
  std::vector<std::string> want = {
      c(0, false, "100.096", "0.0"),           c(0, false, "300.032", "0.0"),
      c(0, false, "600.064", "0.427273439250112"), c(0, false, "999.936", "43602519.90913386"),
      c(0, true, "100.096", "0.0"),            c(0, true, "300.032", "0.0"),
      c(0, true, "600.064", "20346.333903651084"), c(0, true, "999.936", "1.8313058380149276"),
      c(1, false, "100.096", "0.0"),           c(1, false, "300.032", "0.0"),
      c(1, false, "600.064", "0.0"),           c(1, false, "999.936", "0.0"),
      c(1, true, "100.096", "0.0"),            c(1, true, "300.032", "0.0"),
      c(1, true, "600.064", "753568.614133492"), c(1, true, "999.936", "0.043602519952736375"),
      "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
      "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"HBM\",},}",
      "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:24,},}",
  };
  CHECK(golden::process_events(t.prof, kHbmPid) == want);
  const auto rows = golden::table_rows(t.prof, "HBM");
  REQUIRE(rows.size() == 17);
  CHECK(rows[0] == "CREATE TABLE HBM (deviceId INTEGER, timestampNs INTEGER, bandwidth NUMERIC, hbmId INTEGER, type INTEGER);");
  // Canonical order (by every column); the types are ids, so only the bandwidths and times are spelled out here.
  std::vector<std::string> got_vals;
  for (std::size_t i = 1; i < rows.size(); ++i) got_vals.push_back(rows[i].substr(0, rows[i].rfind(',')));
  const std::vector<std::string> want_vals = {
      "INSERT INTO HBM VALUES(0,1767268800000100096,0,0", "INSERT INTO HBM VALUES(0,1767268800000100096,0,0",
      "INSERT INTO HBM VALUES(0,1767268800000100096,0,1", "INSERT INTO HBM VALUES(0,1767268800000100096,0,1",
      "INSERT INTO HBM VALUES(0,1767268800000300032,0,0", "INSERT INTO HBM VALUES(0,1767268800000300032,0,0",
      "INSERT INTO HBM VALUES(0,1767268800000300032,0,1", "INSERT INTO HBM VALUES(0,1767268800000300032,0,1",
      "INSERT INTO HBM VALUES(0,1767268800000600064,0,1", "INSERT INTO HBM VALUES(0,1767268800000600064,448028,0",
      "INSERT INTO HBM VALUES(0,1767268800000600064,21334677419,0",
      "INSERT INTO HBM VALUES(0,1767268800000600064,790173963133,1",
      "INSERT INTO HBM VALUES(0,1767268800000999936,0,1", "INSERT INTO HBM VALUES(0,1767268800000999936,45720,1",
      "INSERT INTO HBM VALUES(0,1767268800000999936,1920263,0",
      "INSERT INTO HBM VALUES(0,1767268800000999936,45720555916239,0",
  };
  CHECK(got_vals == want_vals);
}

TEST_CASE("hbm: json_process.hbm false leaves the HBM process out") {
  golden::temp_copy on(kHbmCase), off(kHbmCase);
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(on.prof.string(), o).has_value());
  o.json_process.hbm = false;
  REQUIRE(cv::export_timeline(off.prof.string(), o).has_value());
  CHECK(golden::process_events(on.prof, kHbmPid).size() == 19);
  CHECK(golden::process_events(off.prof, kHbmPid).empty());
}

TEST_CASE("decimal_mean3: Python's Decimal sum of the values' str() over n, each quantized half-even") {
  CHECK(cv::decimal_mean3({10900630.08393, 0.0}, 2) == "5450315.042");
  CHECK(cv::decimal_mean3({}, 3) == "0.000");
  CHECK(cv::decimal_mean3({0.0005}, 1) == "0.000");   // a tie to even
  CHECK(cv::decimal_mean3({0.0015}, 1) == "0.002");
  CHECK(cv::decimal_mean3({0.001, 0.002}, 4) == "0.001");  // 0.003 / 4 = 0.00075
  CHECK(cv::decimal_mean3({1e-05}, 1) == "0.000");
}

namespace {
// The DDR process of device 0: info.json's pid 6060 << 10 | sort index 18 << 5 | 0.
constexpr std::uint64_t kDdrPid = (6060u << 10) | (18u << 5);
}  // namespace

TEST_CASE("ddr: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_sysmem::add_ddr(base.prof);
  golden::temp_copy ours("ddr");
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("ddr: the ddr summary equals the reference") {
  golden::temp_copy t("ddr");
  std::vector<std::string> warnings;
  auto s = cv::ddr_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  REQUIRE(s->has_value());
  CHECK(warnings.empty());
  auto e = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(e.has_value(), e.err().what());
  const auto want = golden::slurp(golden::case_dir("ddr") / "expected" / "ddr.csv");
  CHECK(golden::slurp(golden::output(t.prof, "ddr", "csv")) == want);
  CHECK(want == "Device_id,Metric,Read(MB/s),Write(MB/s)\n0,Average,41827.426,68890.173\n");
}

TEST_CASE("ddr: on chip 5 (whose DDR the reference does not read) no rows and one warning") {
  golden::temp_copy t("ddr");
  golden_memory::replace_in(t.prof / "device_0" / "info.json.0", "\"platform_version\": \"4\"", "\"platform_version\": \"5\"");
  std::vector<std::string> warnings;
  auto s = cv::ddr_summary(t.prof.string(), warnings);
  REQUIRE(s.has_value());
  CHECK(!s->has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == t.prof.string() + ": device 0's DDR samples were left out: chip \"5\" (info.json's "
                                         "platform_version) is not one whose DDR data the reference reads");
}

TEST_CASE("ddr: the timeline's DDR process and the db's DDR table, as runs of the reference show them") {
  // Checked against runs of the reference on this input (chip 4): its db (C++
  // path, SaveDDRData) keeps the B/s (MB/s x 2^20) cut to integers; its
  // timeline, which on the chips it reads DDR on comes from its Python path,
  // shows MB/s (37677.91748046875 = 39508160000 / 2^20), each Read counter
  // twice and sort index 20 (its processes are numbered in order there);
  // msprof draws each counter once under the C++ layout's sort index 18.
  golden::temp_copy t("ddr");
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  CHECK(tl_warnings.empty());
  CHECK(db_warnings.empty());
  const std::string p = "pid:" + std::to_string(kDdrPid) + ",tid:0,";
  const auto c = [&](const char* dir, const char* us, const char* v) {
    return std::string("{name:\"DDR/") + dir + "\"," + p + "ts:\"1767268800000" + us + ".000\",ph:\"C\",args:{" + dir +
           "(MB/s):" + v + ",},}";
  };
  const std::vector<std::string> want = {
      c("Read", "100", "37677.91748046875"),    c("Read", "250", "611.3688151041666"),
      c("Read", "600", "87192.9931640625"),     c("Write", "100", "199685.36376953125"),
      c("Write", "250", "203.45052083333334"),  c("Write", "600", "6781.703404017857"),
      "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
      "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"DDR\",},}",
      "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:18,},}",
  };
  CHECK(golden::process_events(t.prof, kDdrPid) == want);
  const std::vector<std::string> want_db = {
      "CREATE TABLE DDR (deviceId INTEGER, timestampNs INTEGER, read NUMERIC, write NUMERIC);",
      "INSERT INTO DDR VALUES(0,1767268800000100000,39508160000,209385280000);",
      "INSERT INTO DDR VALUES(0,1767268800000250000,641066666,213333333);",
      "INSERT INTO DDR VALUES(0,1767268800000600000,91428480000,7111131428);",
  };
  CHECK(golden::table_rows(t.prof, "DDR") == want_db);
}
