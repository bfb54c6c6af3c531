// SPDX-License-Identifier: MIT
// The device's QoS samples (device slices qos.data.<id>), the timeline's QoS
// process and the db's QOS table, against the golden case `qos`: its
// expected files are a run of the reference's C++ path, which lost device 2's
// samples over a cut record (its Python parser fails the device's unpack).
#include <doctest/doctest.h>
#include <msprof/codec/qos.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/qos.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/golden_memory.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::device_file;
using golden::fs::path;

namespace {

const char* const kQosCase = "qos";
// The QoS process of device d: info.json's pid 6060 << 10 | sort index 29 << 5 | d.
constexpr std::uint64_t qos_pid(std::uint32_t d) { return (6060u << 10) | (29u << 5) | d; }

/// Every QoS sample of `prof` as "device time bandwidths...", with the warnings.
std::vector<std::string> samples(const path& prof, std::vector<std::string>& warnings) {
  std::vector<std::string> out;
  auto r = cv::for_each_qos_sample(prof.string(), warnings, [&](const cv::qos_sample& q) -> msprof::result<void> {
    std::string s = std::to_string(q.device_id) + " " + std::to_string(q.time_ns);
    for (std::size_t i = 0; i < q.mb_s.size(); ++i) s += " " + (*q.counters)[i] + "=" + std::to_string(q.mb_s[i]);
    out.push_back(s);
    return {};
  });
  REQUIRE(r.has_value());
  return out;
}

/// The counters the reference lost: device 2's three whole samples, three events each.
std::vector<std::string> device2_counters() {
  std::vector<std::string> v;
  const std::string p = ",pid:" + std::to_string(qos_pid(2)) + ",tid:0,ts:\"1767268800000";
  const char* const us[] = {"200.000", "400.000", "600.000"};
  for (int k = 0; k < 3; ++k)
    for (int e = 0; e < 3; ++e)
      v.push_back("{name:\"QoS e" + std::to_string(e) + "\"" + p + us[k] + "\",ph:\"C\",args:{value:" +
                  std::to_string(3 * k + e + 1) + ",},}");
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("qos: the timeline equals the reference's, plus device 2's samples it lost") {
  golden::temp_copy t(kQosCase);
  const auto [tl_warnings, db_warnings] = golden::timeline_and_db_warnings(t);
  std::string e1, e2;
  const auto expected = golden::canonical_timeline(golden::slurp(golden::case_dir(kQosCase) / "expected" / "msprof.json"), e1);
  const auto ours = golden::canonical_timeline(golden::slurp(golden::output(t.prof, "msprof", "json")), e2);
  REQUIRE(e1.empty());
  REQUIRE(e2.empty());
  CHECK(golden::minus(expected, ours).empty());
  CHECK(golden::minus(ours, expected) == device2_counters());
  // Every device's metadata (device 2's too in the reference), the QoS sort index 29.
  const auto d1 = golden::process_events(t.prof, qos_pid(1));
  REQUIRE(d1.size() == 7);  // 3 metadata + 2 samples of 2 events
  CHECK(std::count_if(d1.begin(), d1.end(), [](const std::string& l) { return l.find("sort_index:29") != std::string::npos; }) == 1);
}

TEST_CASE("qos: the db's QOS rows and STRING_IDS equal the reference's, plus device 2's rows") {
  golden::temp_copy t(kQosCase);
  golden::export_everything(t);
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  const auto exp = golden::lines(golden::slurp(golden::case_dir(kQosCase) / "expected" / "db.canonical.sql"));
  CHECK(golden::minus(exp, got).empty());
  // The reference lost device 2; its names e0..e2 are strings 8-10 (registered all the same).
  CHECK(golden::minus(got, exp) == std::vector<std::string>{
                                       "INSERT INTO QOS VALUES(2,10,3145728,1767268800000200000,-1);",
                                       "INSERT INTO QOS VALUES(2,10,6291456,1767268800000400000,-1);",
                                       "INSERT INTO QOS VALUES(2,10,9437184,1767268800000600000,-1);",
                                       "INSERT INTO QOS VALUES(2,8,1048576,1767268800000200000,-1);",
                                       "INSERT INTO QOS VALUES(2,8,4194304,1767268800000400000,-1);",
                                       "INSERT INTO QOS VALUES(2,8,7340032,1767268800000600000,-1);",
                                       "INSERT INTO QOS VALUES(2,9,2097152,1767268800000200000,-1);",
                                       "INSERT INTO QOS VALUES(2,9,5242880,1767268800000400000,-1);",
                                       "INSERT INTO QOS VALUES(2,9,8388608,1767268800000600000,-1);",
                                   });
  // MB/s * 2^20 in 32-bit arithmetic, as the reference: 4096 MB/s wraps to 0, 4095 to 4293918720.
  const auto rows = golden::table_rows(t.prof, "QOS");
  CHECK(std::count(rows.begin(), rows.end(), "INSERT INTO QOS VALUES(0,2,4293918720,1767268800000100020,-1);") == 1);
  CHECK(std::count(rows.begin(), rows.end(), "INSERT INTO QOS VALUES(0,3,0,1767268800000100020,-1);") == 1);
}

TEST_CASE("qos: a cut record is a warning naming the file and offset, the whole records kept") {
  golden::temp_copy t(kQosCase);
  std::vector<std::string> warnings;
  const auto got = samples(t.prof, warnings);
  REQUIRE(got.size() == 9);  // device 0: 5 - 1 before the start; device 1: 2; device 2: 3
  CHECK(got[0] == "0 1767268800000300000 QoS ddr_read=1 QoS ddr_write=2 QoS hbm_read=3 QoS aicore_mst0=4");
  CHECK(got[8] == "2 1767268800000600000 QoS e0=7 QoS e1=8 QoS e2=9");
  const auto slice = device_file(t.prof, 2, "data/qos.data.2.slice_1").string();
  CHECK(golden::has_warning(warnings, slice + ": truncated record at byte offset 64", "30 of 64 bytes"));
  CHECK(golden::has_warning(warnings, "1 QoS sample(s) from before the collection start", "left out"));
  CHECK(warnings.size() == 2);
}

TEST_CASE("qos: json_process.qos false leaves the QoS process out") {
  golden::temp_copy on(kQosCase), off(kQosCase);
  auto o = golden::fixed_ts();
  REQUIRE(cv::export_timeline(on.prof.string(), o).has_value());
  o.json_process.qos = false;
  REQUIRE(cv::export_timeline(off.prof.string(), o).has_value());
  CHECK(golden::process_events(on.prof, qos_pid(0)).size() == 3 + 4 * 4);
  CHECK(golden::process_events(off.prof, qos_pid(0)).empty());
}

TEST_CASE("qos: another chip than 5, or no qosEvents, gives no samples and one warning naming the file") {
  golden::temp_copy t(kQosCase);
  golden_memory::replace_in(device_file(t.prof, 0, "info.json.0"), "\"platform_version\": \"5\"", "\"platform_version\": \"15\"");
  golden_memory::replace_in(device_file(t.prof, 1, "sample.json"), "\"qosEvents\": \"mata_rd,mata_wr\"", "\"qosEvents\": \"\"");
  std::vector<std::string> warnings;
  const auto got = samples(t.prof, warnings);
  REQUIRE(got.size() == 3);  // device 2's only
  CHECK(golden::has_warning(warnings, device_file(t.prof, 0, "info.json.0").string(), "chip \"15\""));
  CHECK(golden::has_warning(warnings, device_file(t.prof, 1, "sample.json").string(), "no qosEvents"));
}

TEST_CASE("qos: a device's samples are placed by its own start_info") {
  golden::temp_copy t(kQosCase);
  std::vector<std::string> warnings;
  const auto before = samples(t.prof, warnings);
  // Device 1's collection began 5 us later on the same clock: its samples move by 5000 ns, the others stay.
  golden_memory::replace_in(device_file(t.prof, 1, "start_info.1"), "\"collectionTimeBegin\": \"1767268800000000\"",
                            "\"collectionTimeBegin\": \"1767268800000005\"");
  const auto after = samples(t.prof, warnings);
  REQUIRE(after.size() == before.size());
  std::size_t moved = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    CAPTURE(before[i]);
    std::istringstream a(before[i]), b(after[i]);
    std::uint32_t da = 0, db = 0;
    std::int64_t ta = 0, tb = 0;
    a >> da >> ta;
    b >> db >> tb;
    REQUIRE(da == db);
    CHECK(tb - ta == (da == 1 ? 5000 : 0));
    moved += da == 1;
  }
  CHECK(moved > 0);
}

TEST_CASE("qos: more than ten qosEvents names keep the first ten, with a warning") {
  golden::temp_copy t(kQosCase);
  golden_memory::replace_in(device_file(t.prof, 1, "sample.json"), "\"qosEvents\": \"mata_rd,mata_wr\"",
                 "\"qosEvents\": \"a,b,c,d,e,f,g,h,i,j,k,l\"");
  std::vector<std::string> warnings;
  const auto got = samples(t.prof, warnings);
  REQUIRE(got.size() == 9);
  CHECK(got[4] == "1 1767268800000150000 QoS a=300 QoS b=400 QoS c=1 QoS d=1 QoS e=1 QoS f=1 QoS g=1 QoS h=1 QoS i=1 QoS j=1");
  CHECK(golden::has_warning(warnings, device_file(t.prof, 1, "sample.json").string(), "names 12 events"));
}

TEST_CASE("codec: decode_qos reads a 64-byte sample field by field and rejects fewer bytes") {
  unsigned char b[64];
  for (int i = 0; i < 64; ++i) b[i] = static_cast<unsigned char>(i + 1);
  const msprof::codec::place at{"qos.data.0.slice_0", 128};
  auto s = msprof::codec::decode_qos(b, sizeof b, at);
  REQUIRE(s.has_value());
  CHECK(s->head[0] == 0x04030201u);
  CHECK(s->reserved == 0x100F0E0D0C0B0A09ull);
  CHECK(s->syscnt == 0x1817161514131211ull);
  CHECK(s->bandwidth[0] == 0x1C1B1A19u);
  CHECK(s->bandwidth[9] == 0x403F3E3Du);
  auto cut = msprof::codec::decode_qos(b, 63, at);
  REQUIRE(!cut.has_value());
  CHECK(cut.err().message.find("qos.data.0.slice_0") != std::string::npos);
}
