// SPDX-License-Identifier: MIT
// The device's PCIe samples (device slices pcie.data.<id>) and the CANN
// summary pcie, against the golden case `pcie`: its input is what
// tests/support/golden_sysio.hpp writes, its expected file the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/sys_io.hpp>

#include <algorithm>
#include <fstream>
#include <utility>

#include "../../support/golden_sysio.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kPcieCase = "pcie";
// The PCIe process of device 0: info.json's pid 6060 << 10 | sort index 23 << 5 | 0.
constexpr std::uint64_t kPciePid = (6060u << 10) | (23u << 5);

path pcie_slice(const path& prof) { return prof / "device_0" / "data" / "pcie.data.0.slice_0"; }

/// `file` with its one `from` replaced by `to`.
void replace_in(const path& file, const std::string& from, const std::string& to) {
  std::string text = golden::slurp(file);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  std::ofstream(file, std::ios::trunc | std::ios::binary) << text.replace(at, from.size(), to);
}

/// The times of the db's PCIE rows.
std::vector<std::string> pcie_times(const path& prof) {
  std::vector<std::string> v;
  for (const auto& l : golden::table_rows(prof, "PCIE"))
    if (l.rfind("INSERT", 0) == 0) v.push_back(l.substr(l.find(',') + 1, 19));
  return v;
}

}  // namespace

TEST_CASE("pcie, hccs, nic, roce: the golden inputs are what the generator writes") {
  for (const auto& [name, add] : {std::pair{"pcie", &golden_sysio::add_pcie}, std::pair{"hccs", &golden_sysio::add_hccs},
                                  std::pair{"nic", &golden_sysio::add_nic}, std::pair{"roce", &golden_sysio::add_roce}}) {
    CAPTURE(name);
    golden::temp_copy base("ops_pipeutil");
    add(base.prof);
    golden::temp_copy ours(name);
    golden::check_same_files(base.prof, ours.prof);
  }
}

TEST_CASE("pcie: the pcie summary equals the reference") {
  golden::temp_copy t(kPcieCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kPcieCase) == 1);
  CHECK(s->warnings.empty());
  // The latest sample (the file's second) is shown, its 0xFFFFF minimum as 0.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "pcie", "csv")));
  REQUIRE(rows.size() == 1 + 7);
  CHECK(rows[2] == "0,Tx_np_avg(MB/s),0.0,476.837,238.419");
  CHECK(rows[4] == "0,Tx_latency_avg(us),1.5,2.5,3.457");
}

namespace {
/// The golden case's collection as chip `chip` (host's and device's info.json).
void set_chip(const path& prof, const std::string& chip) {
  for (const auto& f : {prof / "host" / "info.json", prof / "device_0" / "info.json.0"})
    replace_in(f, "\"platform_version\": \"5\"", "\"platform_version\": \"" + chip + "\"");
}
}  // namespace

TEST_CASE("pcie: off chip 5 the summary averages the samples whose Tx_p maximum is not below its minimum") {
  // The reference's output (its Python path) for this input as chip "1" and as chip "15":
  // ROUND(AVG(x), 6) over the three samples its query keeps, then MB/s or µs.
  const std::vector<std::string> reference = {
      "Device_id,Mode,Min,Max,Avg",
      "0,Tx_p_avg(MB/s),32.107,333333.651,106.812",
      "0,Tx_np_avg(MB/s),666667.302,160.535,81.38",
      "0,Tx_cpl_avg(MB/s),5.722,9.537,8.583",
      "0,Tx_latency_avg(us),0.836,1.171,1.49",
      "0,Rx_p_avg(MB/s),2730666670.163,1365333337.466,1365333338.102",
      "0,Rx_np_avg(MB/s),8.901,9.855,9.855",
      "0,Rx_cpl_avg(MB/s),333339.691,333340.009,333340.327",
  };
  for (const char* chip : {"1", "15"}) {
    CAPTURE(chip);
    golden::temp_copy t(kPcieCase);
    set_chip(t.prof, chip);
    auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
    REQUIRE_MESSAGE(s.has_value(), s.err().what());
    CHECK(golden::lines(golden::slurp(golden::output(t.prof, "pcie", "csv"))) == reference);
    CHECK(std::count(s->warnings.begin(), s->warnings.end(),
                     t.prof.string() + ": 1 pcie sample(s) whose Tx_p maximum is below its minimum (as the "
                                       "reference's summary off chip 5) were left out") == 1);
  }
  // The reference's C++ timeline (chips 5, 15, 16) and db drew chip 15's PCIe as chip 5's.
  golden::temp_copy chip5(kPcieCase), chip15(kPcieCase);
  set_chip(chip15.prof, "15");
  for (const auto* t : {&chip5, &chip15}) golden::timeline_and_db_warnings(*t);
  CHECK(golden::process_events(chip15.prof, kPciePid) == golden::process_events(chip5.prof, kPciePid));
  CHECK(golden::table_rows(chip15.prof, "PCIE") == golden::table_rows(chip5.prof, "PCIE"));
  CHECK(golden::table_rows(chip15.prof, "PCIE").size() == 1 + 3);
}

TEST_CASE("pcie: a chip whose PCIe data the reference does not read has none, and a warning says so") {
  golden::temp_copy t(kPcieCase);
  set_chip(t.prof, "7");
  const std::string warning = (t.prof / "device_0" / "info.json.0").string() +
                              ": chip \"7\" (platform_version) is not one whose PCIe data the reference reads; no PCIe "
                              "data for device 0";
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  CHECK_FALSE(p->has_value());
  CHECK(warnings == std::vector<std::string>{warning});
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  CHECK(std::count(tl_warnings.begin(), tl_warnings.end(), warning) == 1);
  CHECK(std::count(db_warnings.begin(), db_warnings.end(), warning) == 1);
  CHECK(golden::process_events(t.prof, kPciePid).empty());
  CHECK(golden::table_rows(t.prof, "PCIE").empty());
}

TEST_CASE("pcie, hccs, nic, roce: a collection without their samples has none of the summaries") {
  golden::temp_copy t("ops_pipeutil");
  std::vector<std::string> warnings;
  for (auto summary : {&cv::pcie_summary, &cv::hccs_summary, &cv::nic_summary, &cv::roce_summary}) {
    auto p = (*summary)(t.prof.string(), warnings);
    REQUIRE(p.has_value());
    CHECK_FALSE(p->has_value());
  }
  CHECK(warnings.empty());
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::output(t.prof, "pcie", "csv").empty());
  CHECK(golden::output(t.prof, "hccs", "csv").empty());
  CHECK(golden::output(t.prof, "nic", "csv").empty());
  CHECK(golden::output(t.prof, "roce", "csv").empty());
}

TEST_CASE("pcie: a cut sample is a warning naming the file and offset, and the whole ones are kept") {
  golden::temp_copy t(kPcieCase);
  const auto slice = pcie_slice(t.prof);
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << std::string(50, '\x01');
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  bool named = false;
  for (const auto& w : warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 384") != std::string::npos;
  CHECK(named);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::slurp(golden::output(t.prof, "pcie", "csv")) ==
        golden::slurp(golden::case_dir(kPcieCase) / "expected" / "pcie.csv"));
}

TEST_CASE("pcie: of samples with equal timestamps the first in the file is shown") {
  golden::temp_copy t(kPcieCase);
  const auto slice = pcie_slice(t.prof);
  std::string bytes = golden::slurp(slice);
  REQUIRE(bytes.size() == 4 * 96);
  bytes.replace(3 * 96, 8, bytes.substr(96, 8));  // the last sample gets the latest time too
  std::ofstream(slice, std::ios::binary | std::ios::trunc) << bytes;
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  CHECK((*p)->rows[0] == std::vector<std::string>{"0", "Tx_p_avg(MB/s)", "95.367", "999999.046", "317.574"});
}

TEST_CASE("pcie: the timeline's PCIe process and the db's PCIE table (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/pcie/expected
  // msprof.json and db.canonical.sql hold its output). Of the four samples the third
  // (Tx_p max 100 < min 500) is left out by its query; bandwidths are B/µs
  // times 10^6 kept in uint32 (0xFFFFF -> 602979776, 2^32 - 1 -> 4293967296),
  // latencies ns; the time is the device ns + 0 (host_start.log minus
  // dev_start.log) + 1767268800000000000 - 10^12 (start_info).
  golden::temp_copy t(kPcieCase);
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  for (const auto* w : {&tl_warnings, &db_warnings}) {
    REQUIRE(w->size() == 1);
    CHECK(w->front() == t.prof.string() +
                            ": 1 pcie sample(s) whose Tx_p maximum is below its minimum (as the reference's timeline "
                            "and db) were left out");
  }
  // Per sample (by time): the averages of Cpl, Nonpost, Nonpost latency (µs) and Post, B/s / 2^20.
  const std::string p = "pid:" + std::to_string(kPciePid) + ",tid:0,";
  const auto c = [&](const char* name, const char* us, const char* tx, const char* rx) {
    return std::string("{name:\"") + name + "\"," + p + "ts:\"17672688000" + us + ".000\",ph:\"C\",args:{Rx:" + rx + ",Tx:" + tx + ",},}";
  };
  std::vector<std::string> want = {
      c("PCIe_cpl", "00100", "8.58306884765625", "20.02716064453125"),
      c("PCIe_cpl", "00200", "2.86102294921875", "1.9073486328125"),
      c("PCIe_cpl", "00900", "14.30511474609375", "575.0463256835938"),  // 602979776 B/s
      c("PCIe_nonpost", "00100", "5.7220458984375", "17.1661376953125"),
      c("PCIe_nonpost", "00200", "0.0", "4.76837158203125"),
      c("PCIe_nonpost", "00900", "238.4185791015625", "7.62939453125"),
      c("PCIe_nonpost_latency", "00100", "0.012", "0.0"),
      c("PCIe_nonpost_latency", "00200", "1.0", "0.0"),
      c("PCIe_nonpost_latency", "00900", "3.457", "0.0"),
      c("PCIe_post", "00100", "2.86102294921875", "14.30511474609375"),
      c("PCIe_post", "00200", "0.0", "4095.0463256835938"),  // 4293967296 B/s
      c("PCIe_post", "00900", "317.57354736328125", "0.95367431640625"),
      "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
      "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"PCIe\",},}",
      "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:23,},}",
  };
  CHECK(golden::process_events(t.prof, kPciePid) == want);
  const std::vector<std::string> want_db = {
      "CREATE TABLE PCIE (deviceId INTEGER, timestampNs INTEGER, txPostMin NUMERIC, txPostMax NUMERIC, txPostAvg "
      "NUMERIC, txNonpostMin NUMERIC, txNonpostMax NUMERIC, txNonpostAvg NUMERIC, txCplMin NUMERIC, txCplMax NUMERIC, "
      "txCplAvg NUMERIC, txNonpostLatencyMin NUMERIC, txNonpostLatencyMax NUMERIC, txNonpostLatencyAvg NUMERIC, "
      "rxPostMin NUMERIC, rxPostMax NUMERIC, rxPostAvg NUMERIC, rxNonpostMin NUMERIC, rxNonpostMax NUMERIC, "
      "rxNonpostAvg NUMERIC, rxCplMin NUMERIC, rxCplMax NUMERIC, rxCplAvg NUMERIC);",
      "INSERT INTO PCIE VALUES(0,1767268800000100000,1000000,2000000,3000000,4000000,5000000,6000000,7000000,8000000,"
      "9000000,10,11,12,13000000,14000000,15000000,16000000,17000000,18000000,19000000,20000000,21000000);",
      "INSERT INTO PCIE VALUES(0,1767268800000200000,0,0,0,602979776,0,0,1000000,2000000,3000000,999,1001,1000,"
      "4293967296,4293967296,4293967296,5000000,5000000,5000000,2000000,2000000,2000000);",
      "INSERT INTO PCIE VALUES(0,1767268800000900000,100000000,602979776,333000000,602979776,500000000,250000000,"
      "10000000,20000000,15000000,1500,2500,3457,4293967296,0,1000000,7000000,9000000,8000000,602979776,602979776,"
      "602979776);",
  };
  CHECK(golden::table_rows(t.prof, "PCIE") == want_db);
}

TEST_CASE("pcie: a device's samples are placed by its own host_start.log, dev_start.log and start_info") {
  // Both of the reference's paths read a device's clock files from its own
  // directory: the C++ path's Context loads device_<id>'s host_start.log,
  // dev_start.log and start_info by device id (context.cpp LoadJsonData,
  // LoadLogData, GetClockMonotonicRaw, GetProfTimeRecordInfo), the Python
  // parsers InfoConfReader.load_info(device_<id>). Here device 0's
  // host_start.log.0 is 5 µs later than the host's, its dev_start.log.0 1 µs
  // and its start_info.0's clockMonotonicRaw 2 µs: each sample moves by
  // 5 - 1 - 2 = 2 µs. The host's files are unchanged.
  golden::temp_copy t(kPcieCase);
  const path dev = t.prof / "device_0";
  const std::string raw = "clock_monotonic_raw: 1000000000000", info_raw = R"("clockMonotonicRaw": "1000000000000")";
  replace_in(dev / "host_start.log.0", raw, "clock_monotonic_raw: 1000000005000");
  replace_in(dev / "dev_start.log.0", raw, "clock_monotonic_raw: 1000000001000");
  replace_in(dev / "start_info.0", info_raw, R"("clockMonotonicRaw": "1000000002000")");
  golden::timeline_and_db_warnings(t);
  CHECK(pcie_times(t.prof) ==
        std::vector<std::string>{"1767268800000102000", "1767268800000202000", "1767268800000902000"});
  // Without host_start.log.0 and start_info.0 the host's are taken.
  golden::temp_copy u(kPcieCase);
  golden::fs::remove(u.prof / "device_0" / "host_start.log.0");
  golden::fs::remove(u.prof / "device_0" / "start_info.0");
  golden::timeline_and_db_warnings(u);
  CHECK(pcie_times(u.prof) ==
        std::vector<std::string>{"1767268800000100000", "1767268800000200000", "1767268800000900000"});
}

TEST_CASE("pcie: json_process.pcie false leaves the PCIe process out, and the other processes are unchanged") {
  golden::temp_copy on(kPcieCase), off(kPcieCase);
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(on.prof.string(), o).has_value());
  o.json_process.pcie = false;
  REQUIRE(cv::export_timeline(off.prof.string(), o).has_value());
  CHECK(golden::process_events(on.prof, kPciePid).size() == 15);
  CHECK(golden::process_events(off.prof, kPciePid).empty());
  std::string e1, e2;
  auto a = golden::canonical_timeline(golden::slurp(golden::output(on.prof, "msprof", "json")), e1);
  const auto b = golden::canonical_timeline(golden::slurp(golden::output(off.prof, "msprof", "json")), e2);
  a.erase(std::remove_if(a.begin(), a.end(), [](const std::string& e) { return e.find("pid:" + std::to_string(kPciePid) + ",") != std::string::npos; }), a.end());
  CHECK(a == b);
}

TEST_CASE("hccs: the hccs summary equals the reference") {
  golden::temp_copy t("hccs");
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, "hccs") == 1);
  CHECK(s->warnings.empty());
  // 4 throughputs: the pair where tx went down has none, the pair 700001 - 500000
  // ns apart is the one dropped last, two samples of one time give 0.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "hccs", "csv")));
  REQUIRE(rows.size() == 1 + 2);
  CHECK(rows[1] == "0,Tx (MB/s),66757.202,0.0,21457.672");
}

TEST_CASE("hccs: the timeline's HCCS process and the db's HCCS table (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/hccs/expected
  // msprof.json and db.canonical.sql hold its output). The summary's
  // throughputs (MB/s), each at the later sample's time (the local time as
  // for PCIe): 200000 and 300000 ns past the device's clock start,
  // then two at 500000 (the pair with equal times gives 0); the db's B/s are
  // MB/s × 2^20 truncated.
  golden::temp_copy t("hccs");
  const auto o = golden::fixed_ts();
  auto tl = cv::export_timeline(t.prof.string(), o);
  REQUIRE_MESSAGE(tl.has_value(), tl.err().what());
  CHECK(tl->warnings.empty());
  auto db = cv::export_db(t.prof.string(), o);
  REQUIRE_MESSAGE(db.has_value(), db.err().what());
  CHECK(db->warnings.empty());
  constexpr std::uint64_t pid = (6060u << 10) | (20u << 5);
  const std::string p = "pid:" + std::to_string(pid) + ",tid:0,";
  const auto c = [&](const char* dir, const char* us, const char* v) {
    return std::string("{name:\"") + dir + "\"," + p + "ts:\"17672688000" + us + ".000\",ph:\"C\",args:{" + dir +
           "(MB/s):" + v + ",},}";
  };
  const std::vector<std::string> want = {
      c("Rx", "00200", "4769.106"), c("Rx", "00300", "4767.637"), c("Rx", "00500", "0.0"), c("Rx", "00500", "4768.372"),
      c("Tx", "00200", "9537.916"), c("Tx", "00300", "9535.57"),  c("Tx", "00500", "0.0"), c("Tx", "00500", "66757.202"),
      "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
      "{name:\"process_name\"," + p + "ph:\"M\",args:{name:\"HCCS\",},}",
      "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:20,},}",
  };
  CHECK(golden::process_events(t.prof, pid) == want);
  const std::vector<std::string> want_db = {
      "CREATE TABLE HCCS (deviceId INTEGER, timestampNs INTEGER, txThroughput NUMERIC, rxThroughput NUMERIC);",
      "INSERT INTO HCCS VALUES(0,1767268800000200000,10001229807,5000770093);",
      "INSERT INTO HCCS VALUES(0,1767268800000300000,9998769848,4999229734);",
      "INSERT INTO HCCS VALUES(0,1767268800000500000,0,0);",
      "INSERT INTO HCCS VALUES(0,1767268800000500000,69999999844,5000000438);",
  };
  CHECK(golden::table_rows(t.prof, "HCCS") == want_db);
}

TEST_CASE("hccs: a line that is not a sample is a warning naming the file and offset, the others are kept") {
  golden::temp_copy t("hccs");
  const auto slice = t.prof / "device_0" / "data" / "hccs.data.0.slice_0";
  const auto size = golden::fs::file_size(slice);
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << "1000000800000: 1x 2\n1000000900000: 5\n";
  std::vector<std::string> warnings;
  auto h = cv::hccs_summary(t.prof.string(), warnings);
  REQUIRE(h.has_value());
  REQUIRE(h->has_value());
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find(slice.string() + ": record at byte offset " + std::to_string(size) +
                         ": HCCS byte count '1x' is not a 64-bit integer; line skipped") != std::string::npos);
  CHECK(warnings[1].find("2 fields in an HCCS sample line, not 3") != std::string::npos);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::slurp(golden::output(t.prof, "hccs", "csv")) ==
        golden::slurp(golden::case_dir("hccs") / "expected" / "hccs.csv"));
}

TEST_CASE("hccs: the last sample paired with the first (the reference's zip) is the throughput dropped") {
  // Counters that never move: every pair gives a throughput of 0, the wrapped
  // one too, so it (not the 200000 -> 300000 one) is the one dropped last.
  golden::temp_copy t("hccs");
  const auto slice = t.prof / "device_0" / "data" / "hccs.data.0.slice_0";
  const std::string text = "timestamp(ns) txAmount(B) rxAmount(B)\n1000000100000: 5 7\n1000000200000: 5 7\n1000000300000: 5 7\n";
  std::ofstream(slice, std::ios::trunc | std::ios::binary) << text;
  std::ofstream(slice.string() + ".done", std::ios::trunc) << "filesize:" << text.size() << "\n";
  std::vector<std::string> warnings;
  std::vector<std::int64_t> times;
  auto r = cv::for_each_hccs_throughput(t.prof.string(), warnings, [&](const cv::hccs_throughput& h) -> msprof::result<void> {
    CHECK(h.tx_mb_s == 0.0);
    times.push_back(h.time_ns);
    return {};
  });
  REQUIRE(r.has_value());
  CHECK(warnings.empty());
  REQUIRE(times.size() == 2);
  CHECK(times[1] - times[0] == 100000);
}

TEST_CASE("hccs: throughputs are Python's Decimal quotients, quantized half-even") {
  // Expected values: Python's Decimal(str(a)) / Decimal(str(b)), quantize(Decimal('0.000')).
  CHECK(cv::decimal_quotient3(1, 3.0) == 0.333);
  CHECK(cv::decimal_quotient3(1, 2000.0) == 0.0);    // 0.0005: half to even
  CHECK(cv::decimal_quotient3(3, 2000.0) == 0.002);  // 0.0015: half to even
  CHECK(cv::decimal_quotient3(5, 8000.0) == 0.001);
  CHECK(cv::decimal_quotient3(1000123, 1e5 / 953.67431640625) == 9537.916);
  CHECK(cv::decimal_quotient3(7, -0.1) == -70.0);
  CHECK(cv::decimal_quotient3(123456789, 0.1 + 0.2) == 411522630.0);  // str() of the divisor: 0.30000000000000004
  CHECK(cv::decimal_quotient3(9223372036854775807, 3.3e-5) == 279496122328932600212121.212);
  CHECK(cv::decimal_quotient3(9000000000000000000, 1e-10) == 0.0);  // 9e28 has more than 28 digits: Python's error, "0"
  CHECK(cv::decimal_quotient3(10, 1e300) == 0.0);
  CHECK(cv::decimal_quotient3(5, 0.0) == 0.0);  // division by zero: "0"
}

TEST_CASE("nic: the nic summary equals the reference") {
  golden::temp_copy t("nic");
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, "nic") == 1);
  CHECK(s->warnings.empty());
  // funcId 0: the span 200457.5 ns as "local time" (200.4575 µs, half-even), the
  // first sample's bandwidth, rxError rate of every port's average errors;
  // funcId 1 (one sample): its own counts, its rates not in percent.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "nic", "csv")));
  REQUIRE(rows.size() == 1 + 2);
  CHECK(rows[1] == "0,1767267800000200.458\t,1.0,1.142,0.0,3.6,1.2,0.0,0.0,1.0,6.0,0");
  CHECK(rows[2] == "0,1767267800000000.000\t,25.0,0.0,7.0,0.075,0.025,0.0,9.0,0.0,0.0,1");
}

TEST_CASE("nic: a line that is not a sample is a warning naming the file and offset, the others are kept") {
  golden::temp_copy t("nic");
  const auto slice = t.prof / "device_0" / "data" / "nic.data.0.slice_0";
  const auto size = golden::fs::file_size(slice);
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary)
      << "1000000800000: 1 x 1 1 1 1 1 1 1 1 1 1 1 0\n1000000900000: 5\n1000000900000: 1 1 1 1 1 1 1 1 1 1 1 1 1 0 0 0\n";
  std::vector<std::string> warnings;
  auto n = cv::nic_summary(t.prof.string(), warnings);
  REQUIRE(n.has_value());
  REQUIRE(n->has_value());
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].find(slice.string() + ": record at byte offset " + std::to_string(size) +
                         ": NIC counter 'x' is not a decimal number; line skipped") != std::string::npos);
  CHECK(warnings[1].find("2 fields in a NIC sample line, not 14 to 16") != std::string::npos);
  CHECK(warnings[2].find("more than 16 fields in a NIC sample line") != std::string::npos);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::slurp(golden::output(t.prof, "nic", "csv")) == golden::slurp(golden::case_dir("nic") / "expected" / "nic.csv"));
}

TEST_CASE("nic: a slice without a header and lines of 14 or 16 fields") {
  golden::temp_copy t("nic");
  const auto slice = t.prof / "device_0" / "data" / "nic.data.0.slice_0";
  golden::fs::remove(slice.string() + ".done");
  // 14 fields: funcId 0; 16: the last is not read.
  std::ofstream(slice, std::ios::binary) << "2000: 8 4 0 10 0 1 2 5 0 10 0 3 4\n1000: 8 4 0 10 0 1 2 5 0 10 0 3 4 0 9\n";
  std::vector<std::string> warnings;
  auto n = cv::nic_summary(t.prof.string(), warnings);
  REQUIRE(n.has_value());
  REQUIRE(n->has_value());
  CHECK(warnings.empty());
  REQUIRE((*n)->rows.size() == 1);
  // 1000 ns: 8 packets/µs over 2 samples; rxDropped 2 / 8 -> 0.25 -> 25.0; txDropped sums: 8 / 10 -> 80.0.
  CHECK((*n)->rows[0] == std::vector<std::string>{"0", "1767267800000001.000\t", "8.0", "0.0", "0.008", "12.5", "25.0",
                                                   "0.0", "0.01", "30.0", "80.0", "0"});
}

TEST_CASE("nic: Timestamp(us) is the span's Decimal quantized half-even (0.5005 µs -> 0.500)") {
  golden::temp_copy t("nic");
  const auto slice = t.prof / "device_0" / "data" / "nic.data.0.slice_0";
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::binary) << "1500.5: 8 4 0 10 0 1 2 5 0 10 0 3 4 0\n1000: 8 4 0 10 0 1 2 5 0 10 0 3 4 0\n";
  std::vector<std::string> warnings;
  auto n = cv::nic_summary(t.prof.string(), warnings);
  REQUIRE(n.has_value());
  REQUIRE(n->has_value());
  // The reference's row for this slice.
  CHECK((*n)->rows[0] == std::vector<std::string>{"0", "1767267800000000.500\t", "8.0", "0.0", "0.016", "12.5", "25.0",
                                                   "0.0", "0.02", "30.0", "80.0", "0"});
}

TEST_CASE("nic, roce: the db's NIC and ROCE tables (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/{nic,roce}/
  // expected/db.canonical.sql hold its output): every sample, the local time as for PCIe (a float time
  // truncated: ...300457.5 -> ...300457), the bandwidth MB/s × 2^20, the
  // counters through SQLite's int64 into uint32 (30000001000 -> 4230197224,
  // 70000000.9 -> 70000000), the rates as read (whole ones stored as integers
  // by the NUMERIC columns, as SQLite stores the reference's doubles too).
  const std::vector<std::string> rows = {
      "VALUES(0,1767268800000100000,1048576,10,1000,10,1000,1,0,20,2000,20,2000,0,1,0);",
      "VALUES(0,1767268800000150000,26214400,7,700,40,70000000,3,1,9,900,0,9000,2,0,1);",
      "VALUES(0,1767268800000200123,104857600000,15,1500,25,2500,2,1,22,2200,30,3000,1,1,0);",
      "VALUES(0,1767268800000300457,104857600000,30,3000,40,4230197224,2,1,25,2500,45,4500,1,2,0);",
  };
  for (const auto& [kind, table] : {std::pair{"nic", "NIC"}, std::pair{"roce", "ROCE"}}) {
    CAPTURE(kind);
    golden::temp_copy t(kind);
    auto db = cv::export_db(t.prof.string(), golden::fixed_ts());
    REQUIRE_MESSAGE(db.has_value(), db.err().what());
    CHECK(db->warnings.empty());
    std::vector<std::string> want = {std::string("CREATE TABLE ") + table +
                                     " (deviceId INTEGER, timestampNs INTEGER, bandwidth INTEGER, rxPacketRate NUMERIC, "
                                     "rxByteRate NUMERIC, rxPackets INTEGER, rxBytes INTEGER, rxErrors INTEGER, rxDropped "
                                     "INTEGER, txPacketRate NUMERIC, txByteRate NUMERIC, txPackets INTEGER, txBytes "
                                     "INTEGER, txErrors INTEGER, txDropped INTEGER, funcId INTEGER);"};
    for (const auto& r : rows) want.push_back(std::string("INSERT INTO ") + table + " " + r);
    CHECK(golden::table_rows(t.prof, table) == want);
  }
}

TEST_CASE("nic, roce: the timeline's NIC and RoCE processes (the reference's C++ path)") {
  // Checked against a run of the reference's C++ path (tests/golden/{nic,roce}/
  // expected/msprof.json hold its output; the args in its order). Per port, its samples in file order: efficiency =
  // round(int(byte/s) × 8 / (bandwidth × 2^20), 3) with the sample's bandwidth
  // (nic) or the port's first (roce: 1 MB/s for port 0, so its efficiencies
  // are not 0); error and dropped rates are errors / packets (0 for 0 packets),
  // packets the packet/s; the time as for PCIe, truncated (...300457.5 -> ...300457).
  for (const auto& [kind, roce] : {std::pair{"nic", false}, std::pair{"roce", true}}) {
    CAPTURE(kind);
    golden::temp_copy t(kind);
    auto tl = cv::export_timeline(t.prof.string(), golden::fixed_ts());
    REQUIRE_MESSAGE(tl.has_value(), tl.err().what());
    CHECK(tl->warnings.empty());
    const std::uint64_t pid = (6060u << 10) | ((roce ? 22u : 21u) << 5);
    const std::string p = "pid:" + std::to_string(pid) + ",tid:0,";
    const auto c = [&](const char* port, const char* us, const char* dir, const char* dropped, const char* error,
                       const char* packets, const char* eff) {
      const std::string d = dir;
      return "{name:\"Port " + std::string(port) + "/" + d + "\"," + p + "ts:\"17672688000" + us +
             "\",ph:\"C\",args:{" + d + " Bandwidth Efficiency:" + eff + "," + d + " Packets:" + packets + "," + d +
             " Error Rate:" + error + "," + d + " Dropped Rate:" + dropped + ",},}";
    };
    const std::vector<std::string> want = {
        c("0", "00100.000", "Rx", "0.0", "0.1", "10.0", "0.008"),
        c("0", "00200.123", "Rx", "0.04", "0.08", "15.0", roce ? "0.011" : "0.0"),
        c("0", "00300.457", "Rx", "0.025", "0.05", "30.0", roce ? "0.023" : "0.0"),
        c("0", "00100.000", "Tx", "0.05", "0.0", "20.0", "0.015"),
        c("0", "00200.123", "Tx", "0.03333333333333333", "0.03333333333333333", "22.0", roce ? "0.017" : "0.0"),
        c("0", "00300.457", "Tx", "0.044444444444444446", "0.022222222222222223", "25.0", roce ? "0.019" : "0.0"),
        c("1", "00150.000", "Rx", "0.025", "0.075", "7.0", "0.0"),
        c("1", "00150.000", "Tx", "0.0", "0.0", "9.0", "0.0"),
        "{name:\"process_labels\"," + p + "ph:\"M\",args:{labels:\"NPU 0\",},}",
        std::string("{name:\"process_name\",") + p + "ph:\"M\",args:{name:\"" + (roce ? "RoCE" : "NIC") + "\",},}",
        "{name:\"process_sort_index\"," + p + "ph:\"M\",args:{sort_index:" + (roce ? "22" : "21") + ",},}",
    };
    CHECK(golden::process_events(t.prof, pid) == want);
  }
}

TEST_CASE("nic: a port without a bandwidth has no timeline points, and a warning says so") {
  golden::temp_copy t("nic");
  const auto slice = t.prof / "device_0" / "data" / "nic.data.0.slice_0";
  std::string text = golden::slurp(slice);
  const auto at = text.find("1000000150000: 25 ");
  REQUIRE(at != std::string::npos);
  text.replace(at, 18, "1000000150000: 0 ");  // port 1's only sample
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::binary | std::ios::trunc) << text;
  std::vector<std::string> warnings, ports;
  REQUIRE(cv::for_each_network_rate(t.prof.string(), "nic", warnings, [&](const cv::network_rate& p) -> msprof::result<void> {
            ports.push_back(std::to_string(p.func_id));
            return {};
          }).has_value());
  CHECK(ports == std::vector<std::string>{"0", "0", "0"});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == t.prof.string() +
                           ": 1 nic sample(s) of ports without a bandwidth (the reference's model fails on them) were "
                           "left out");
}

TEST_CASE("roce: the roce summary equals the reference (the nic case's samples give the nic case's rows)") {
  golden::temp_copy t("roce");
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, "roce") == 1);
  CHECK(s->warnings.empty());
  CHECK(golden::output(t.prof, "nic", "csv").empty());
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "roce", "csv")));
  REQUIRE(rows.size() == 1 + 2);
  CHECK(rows[1] == "0,1767267800000200.458\t,1.0,1.142,0.0,3.6,1.2,0.0,0.0,1.0,6.0,0");
}

TEST_CASE("roce: a line that is not a sample is a warning naming the file and offset") {
  golden::temp_copy t("roce");
  const auto slice = t.prof / "device_0" / "data" / "roce.data.0.slice_0";
  const auto size = golden::fs::file_size(slice);
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << "1000000900000: 5\n";
  std::vector<std::string> warnings;
  auto n = cv::roce_summary(t.prof.string(), warnings);
  REQUIRE(n.has_value());
  REQUIRE(n->has_value());
  CHECK((*n)->rows.size() == 2);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(slice.string() + ": record at byte offset " + std::to_string(size) +
                         ": 2 fields in a NIC sample line, not 14 to 16; line skipped") != std::string::npos);
}

TEST_CASE("nic, roce: a device start_info without collectionTimeBegin or clockMonotonicRaw leaves the device out") {
  // The reference's format_nic_summary takes its Timestamp(us) from the
  // device's start_info as dp does (InfoConfReader.trans_into_local_time),
  // and a false value there (absent, "") stops its export: the device's rows
  // are left out here, with one warning. The string "0" is true to Python.
  for (const auto& [name, summary] : {std::pair{"nic", &cv::nic_summary}, std::pair{"roce", &cv::roce_summary}}) {
    CAPTURE(name);
    for (const char* raw : {"", R"(, "clockMonotonicRaw": "")", R"(, "clockMonotonicRaw": "0")"}) {
      CAPTURE(raw);
      golden::temp_copy t(name);
      const auto info = t.prof / "device_0" / "start_info.0";
      std::ofstream(info, std::ios::trunc) << R"({"collectionTimeBegin": "1767268800000000")" << raw << "}";
      std::vector<std::string> warnings;
      auto n = (*summary)(t.prof.string(), warnings);
      REQUIRE(n.has_value());
      if (std::string(raw).find("\"0\"") != std::string::npos) {
        REQUIRE(n->has_value());
        CHECK((*n)->rows[0][1].rfind("1767268800000", 0) == 0);  // the span plus collectionTimeBegin alone
        CHECK(warnings.empty());
        continue;
      }
      CHECK_FALSE(n->has_value());
      REQUIRE(warnings.size() == 1);
      CHECK(warnings[0] == info.string() + ": collectionTimeBegin or clockMonotonicRaw missing, empty or not a number: "
                                           "device 0's " + name + " rows were left out (no local time; the reference's "
                                           "export stops)");
    }
  }
}
