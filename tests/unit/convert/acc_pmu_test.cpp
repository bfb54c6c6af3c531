// SPDX-License-Identifier: MIT
// The device's ACC_PMU samples (records of funcType 0b011010 in the stars_soc
// slices), the timeline's Acc PMU process and the db's ACC_PMU table, against
// the golden case `acc_pmu`: its expected files are a run of the reference's
// C++ path, which lost device 2's samples over a cut record (its C++ parser
// reads all the device's slices from the remainder's offset, so no record has
// the magic where it looks).
#include <doctest/doctest.h>
#include <msprof/codec/acc_pmu.hpp>
#include <msprof/convert/acc_pmu.hpp>
#include <msprof/convert/export.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "../../support/golden_memory.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::device_file;
using golden::fs::path;

namespace {

const char* const kAccPmuCase = "acc_pmu";
// The Acc PMU process of device d: info.json's pid 6060 << 10 | sort index 19 << 5 | d.
constexpr std::uint64_t acc_pid(std::uint32_t d) { return (6060u << 10) | (19u << 5) | d; }

/// Every ACC_PMU sample of `prof` as "device time acc levels...", with the warnings.
std::vector<std::string> samples(const path& prof, std::vector<std::string>& warnings) {
  std::vector<std::string> out;
  auto r = cv::for_each_acc_pmu_sample(prof.string(), warnings, [&](const cv::acc_pmu_sample& a) -> msprof::result<void> {
    out.push_back(std::to_string(a.device_id) + " " + std::to_string(a.time_ns) + " acc " + std::to_string(a.acc_id) +
                  " " + std::to_string(a.read_bw) + " " + std::to_string(a.write_bw) + " " +
                  std::to_string(a.read_ost) + " " + std::to_string(a.write_ost));
    return {};
  });
  REQUIRE(r.has_value());
  return out;
}

/// The counters the reference lost: device 2's three samples (200, 400, 600 us), four counters each.
std::vector<std::string> device2_counters() {
  std::vector<std::string> v;
  const std::string p = ",pid:" + std::to_string(acc_pid(2)) + ",tid:0,ts:\"1767268800000";
  const char* const us[] = {"200.000", "400.000", "600.000"};
  const char* const names[] = {"read_bandwidth", "read_ost", "write_bandwidth", "write_ost"};
  const int base[] = {1, 3, 2, 4};  // a sample k's read bw, read ost, write bw, write ost: 4k + these
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 4; ++c)
      v.push_back(std::string("{name:\"") + names[c] + "\"" + p + us[k] + "\",ph:\"C\",args:{value:" +
                  std::to_string(4 * k + base[c]) + ",},}");
  std::sort(v.begin(), v.end());
  return v;
}

/// Record bytes of one ACC_PMU sample (funcType 0b011010, the STARS magic), `us` after the start at 50 MHz.
std::string record(double us, std::uint16_t acc, std::uint64_t rbw, std::uint64_t wbw, std::uint64_t rost,
                   std::uint64_t wost) {
  unsigned char b[64] = {};
  const auto put = [&](std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) b[at + i] = static_cast<unsigned char>(v >> (8 * i));
  };
  put(0, 0x1A, 2);
  put(2, 0x6BD3, 2);
  put(8, static_cast<std::uint64_t>(7000000000.0 + us * 50), 8);
  put(18, acc, 2);
  put(32, rbw, 8);
  put(40, wbw, 8);
  put(48, rost, 8);
  put(56, wost, 8);
  return std::string(reinterpret_cast<const char*>(b), sizeof b);
}

}  // namespace

TEST_CASE("acc_pmu: the timeline equals the reference's, plus device 2's samples it lost") {
  golden::temp_copy t(kAccPmuCase);
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  std::string e1, e2;
  const auto expected = golden::canonical_timeline(golden::slurp(golden::case_dir(kAccPmuCase) / "expected" / "msprof.json"), e1);
  const auto ours = golden::canonical_timeline(golden::slurp(golden::output(t.prof, "msprof", "json")), e2);
  REQUIRE(e1.empty());
  REQUIRE(e2.empty());
  CHECK(golden::minus(expected, ours).empty());
  CHECK(golden::minus(ours, expected) == device2_counters());
  // Device 0: 300 us's two samples are one event of their largest levels; the process sorts at index 19.
  const auto d0 = golden::process_events(t.prof, acc_pid(0));
  CHECK(std::count(d0.begin(), d0.end(),
                   "{name:\"read_bandwidth\",pid:" + std::to_string(acc_pid(0)) +
                       ",tid:0,ts:\"1767268800000300.000\",ph:\"C\",args:{value:15,},}") == 1);
  CHECK(std::count_if(d0.begin(), d0.end(), [](const std::string& l) { return l.find("sort_index:19") != std::string::npos; }) == 1);
  // The cut record of device 2 is one warning (the ACSQ reader's), in each export.
  const auto slice = device_file(t.prof, 2, "data/stars_soc.data.2.slice_1").string();
  CHECK(golden::has_warning(tl_warnings, slice, "30 of 64 bytes"));
  CHECK(golden::has_warning(db_warnings, slice, "30 of 64 bytes"));
  // The ACSQ reader passes the ACC_PMU records of the same slices over (it once warned of each).
  CHECK(!golden::has_warning(tl_warnings, "funcType", "neither start"));
}

TEST_CASE("acc_pmu: the db's ACC_PMU rows equal the reference's, plus device 2's rows") {
  golden::temp_copy t(kAccPmuCase);
  golden::export_everything(t);
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  const auto exp = golden::lines(golden::slurp(golden::case_dir(kAccPmuCase) / "expected" / "db.canonical.sql"));
  CHECK(golden::minus(exp, got).empty());
  CHECK(golden::minus(got, exp) == std::vector<std::string>{
                                       "INSERT INTO ACC_PMU VALUES(0,1,2,3,4,1767268800000200000,2);",
                                       "INSERT INTO ACC_PMU VALUES(0,5,6,7,8,1767268800000400000,2);",
                                       "INSERT INTO ACC_PMU VALUES(0,9,10,11,12,1767268800000600000,2);",
                                   });
  // u64 levels keep their low 32 bits, as the reference's uint32 read: 2^32 + 7 is 7, 2^40 is 0.
  const auto rows = golden::table_rows(t.prof, "ACC_PMU");
  CHECK(std::count(rows.begin(), rows.end(),
                   "INSERT INTO ACC_PMU VALUES(2,7,0,4294967295,4294967295,1767268800000700000,0);") == 1);
}

TEST_CASE("acc_pmu: samples in the reference's order, those before the start left out with a warning") {
  golden::temp_copy t(kAccPmuCase);
  std::vector<std::string> warnings;
  const auto got = samples(t.prof, warnings);
  const std::vector<std::string> want = {
      // device 0: by time, then acc id (300 us: acc 0 before acc 1, the other way round in the file)
      "0 1767268800000100020 acc 0 1 2 3 4",
      "0 1767268800000246340 acc 3 100 200 300 400",
      "0 1767268800000300000 acc 0 15 5 35 45",
      "0 1767268800000300000 acc 1 10 20 30 40",
      "0 1767268800000700000 acc 2 7 0 4294967295 4294967295",
      "1 1767268800000050000 acc 0 9 1 11 2",
      "1 1767268800000050000 acc 1 5 6 7 8",
      "1 1767268800000150000 acc 0 1 2 3 4",
      "2 1767268800000200000 acc 0 1 2 3 4",
      "2 1767268800000400000 acc 0 5 6 7 8",
      "2 1767268800000600000 acc 0 9 10 11 12",
  };
  CHECK(got == want);
  CHECK(golden::has_warning(warnings, "1 ACC_PMU sample(s) from before the collection start", "left out"));
  CHECK(warnings.size() == 1);
}

TEST_CASE("acc_pmu: a record without the STARS magic is left out with a warning, the device's others kept") {
  golden::temp_copy t(kAccPmuCase);
  // The reference's StarsSocParser fails the device's parse over it: that device loses every STARS record.
  std::string bad = record(500, 0, 8, 8, 8, 8);
  bad[2] = 0x34;
  bad[3] = 0x12;
  std::ofstream(device_file(t.prof, 1, "data/stars_soc.data.1.slice_0"), std::ios::binary | std::ios::app) << bad;
  golden_memory::replace_in(device_file(t.prof, 1, "data/stars_soc.data.1.slice_0.done"), "192", "256");
  std::vector<std::string> warnings;
  CHECK(samples(t.prof, warnings).size() == 11);
  CHECK(golden::has_warning(warnings, "1 ACC_PMU record(s) without the STARS magic 0x6BD3", "left out"));
  CHECK(warnings.size() == 2);
}

TEST_CASE("acc_pmu: two devices' samples of one time next to each other are one event, on the later device's pid") {
  golden::temp_copy t(kAccPmuCase);
  // Device 1's samples all at 700 us, the time of device 0's last: the reference's assembler
  // merges across the device boundary too (the largest of each level and of the pid).
  std::ofstream(device_file(t.prof, 1, "data/stars_soc.data.1.slice_0"), std::ios::binary | std::ios::trunc)
      << record(700, 4, 1, 1000, 1, 1) << record(700, 5, 1, 1, 1, 1);
  golden_memory::replace_in(device_file(t.prof, 1, "data/stars_soc.data.1.slice_0.done"), "192", "128");
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(t.prof.string(), o).has_value());
  const auto d1 = golden::process_events(t.prof, acc_pid(1));
  const std::string at = ",pid:" + std::to_string(acc_pid(1)) + ",tid:0,ts:\"1767268800000700.000\",ph:\"C\",args:{value:";
  CHECK(std::count(d1.begin(), d1.end(), "{name:\"read_bandwidth\"" + at + "7,},}") == 1);
  CHECK(std::count(d1.begin(), d1.end(), "{name:\"write_bandwidth\"" + at + "1000,},}") == 1);
  const auto d0 = golden::process_events(t.prof, acc_pid(0));
  CHECK(std::none_of(d0.begin(), d0.end(), [](const std::string& l) { return l.find("700.000") != std::string::npos; }));
}

TEST_CASE("acc_pmu: json_process.acc_pmu false leaves the Acc PMU process out") {
  golden::temp_copy on(kAccPmuCase), off(kAccPmuCase);
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(on.prof.string(), o).has_value());
  o.json_process.acc_pmu = false;
  REQUIRE(cv::export_timeline(off.prof.string(), o).has_value());
  CHECK(golden::process_events(on.prof, acc_pid(1)).size() == 3 + 2 * 4);  // metadata, 50 us and 150 us
  CHECK(golden::process_events(off.prof, acc_pid(1)).empty());
}

TEST_CASE("acc_pmu: another chip than 5 gives no samples and one warning naming its info.json") {
  golden::temp_copy t(kAccPmuCase);
  golden_memory::replace_in(device_file(t.prof, 1, "info.json.1"), "\"platform_version\": \"5\"", "\"platform_version\": \"7\"");
  std::vector<std::string> warnings;
  const auto got = samples(t.prof, warnings);
  CHECK(got.size() == 8);  // devices 0 and 2
  CHECK(golden::has_warning(warnings, device_file(t.prof, 1, "info.json.1").string(), "chip \"7\""));
}

TEST_CASE("acc_pmu: a device's samples are placed by its own start_info and host_start.log") {
  golden::temp_copy t(kAccPmuCase);
  std::vector<std::string> warnings;
  const auto before = samples(t.prof, warnings);
  // Device 1's collection began 5 us later; device 2's host clock read 3 us later at the same count.
  golden_memory::replace_in(device_file(t.prof, 1, "start_info.1"), "\"collectionTimeBegin\": \"1767268800000000\"",
                            "\"collectionTimeBegin\": \"1767268800000005\"");
  golden_memory::replace_in(device_file(t.prof, 2, "host_start.log.2"), "clock_monotonic_raw: 1000000000000",
                            "clock_monotonic_raw: 1000000003000");
  const auto after = samples(t.prof, warnings);
  REQUIRE(after.size() == before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    CAPTURE(before[i]);
    const auto dev = before[i][0];
    const long long ta = std::stoll(before[i].substr(2, 19)), tb = std::stoll(after[i].substr(2, 19));
    CHECK(tb - ta == (dev == '1' ? 5000 : dev == '2' ? 3000 : 0));
  }
}

TEST_CASE("codec: decode_acc_pmu reads a 64-byte record field by field and rejects fewer bytes") {
  unsigned char b[64];
  for (int i = 0; i < 64; ++i) b[i] = static_cast<unsigned char>(i + 1);
  const msprof::codec::place at{"stars_soc.data.0.slice_0", 128};
  auto s = msprof::codec::decode_acc_pmu(b, sizeof b, at);
  REQUIRE(s.has_value());
  CHECK(s->word0 == 0x0201u);
  CHECK(s->func_type() == 1);
  CHECK(s->magic == 0x0403u);
  CHECK(s->syscnt == 0x100F0E0D0C0B0A09ull);
  CHECK(s->acc_id == 0x1413u);
  CHECK(s->bandwidth[0] == 0x2827262524232221ull);
  CHECK(s->bandwidth[1] == 0x302F2E2D2C2B2A29ull);
  CHECK(s->ost[0] == 0x3837363534333231ull);
  CHECK(s->ost[1] == 0x403F3E3D3C3B3A39ull);
  auto cut = msprof::codec::decode_acc_pmu(b, 63, at);
  REQUIRE(!cut.has_value());
  CHECK(cut.err().message.find("stars_soc.data.0.slice_0") != std::string::npos);
}
