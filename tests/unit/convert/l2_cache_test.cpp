// SPDX-License-Identifier: MIT
// The L2 cache counters (device slices l2_cache.data.<id>) and the CANN
// summary l2_cache, against the golden case `l2_cache`: ops_pipeutil's input
// with two l2_cache slices and sample.json's l2CacheTaskProfilingEvents; its
// expected files are the reference's (Python path, the only one it has for
// this summary), on platform 5 (expected/) and with platform_version 1
// (expected_platform1/, where the Hit Rate is shown). Likewise the SoC PMU
// records (device slices socpmu.data.<id>) and the summary soc_pmu, against
// the golden case `soc_pmu`: ops_pipeutil's input plus what
// tests/support/golden_soc_pmu.hpp writes; its expected file is the
// reference's (Python path), on platform 5 and, the same bytes, on platform 15
// with the records in that chip's layout; its expected l2_cache.csv holds the
// rows of its HA records (data type 1), which the reference's SoC PMU parser
// puts in the L2 cache table.
#include <doctest/doctest.h>
#include <msprof/codec/format.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/l2_cache.hpp>

#include <algorithm>
#include <fstream>

#include "../../support/golden_soc_pmu.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kL2CacheCase = "l2_cache";

path device_file(const path& prof, const std::string& name) { return prof / "device_0" / name; }

using golden_memory::replace_in;

void write(const path& p, const std::string& text) { std::ofstream(p, std::ios::binary | std::ios::trunc) << text; }

/// The summary `name` (l2_cache or soc_pmu) the export writes, "" without one.
std::string export_l2(const golden::temp_copy& t, std::vector<std::string>* warnings = nullptr,
                      const char* name = "l2_cache") {
  auto r = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  if (warnings) *warnings = r->warnings;
  const auto p = golden::output(t.prof, name, "csv");
  return p.empty() ? std::string() : golden::slurp(p);
}

std::vector<cv::task_rates> rates(const path& prof, std::vector<std::string>& warnings) {
  std::vector<cv::task_rates> out;
  auto r = cv::for_each_l2_cache(prof.string(), warnings, [&](const cv::task_rates& c) -> msprof::result<void> {
    out.push_back(c);
    return {};
  });
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  return out;
}

const std::string kEvents = "\"l2CacheTaskProfilingEvents\": \"0x90, 0xFB,0x9c,0xfc,0x91,0x59,0x5b,0x5c\"";

}  // namespace

TEST_CASE("l2_cache: the summary equals the reference (platform 5: no Hit Rate)") {
  golden::temp_copy t(kL2CacheCase);
  const std::string ours = export_l2(t);
  CHECK(ours == golden::slurp(golden::case_dir(kL2CacheCase) / "expected" / "l2_cache.csv"));
  // 9 records over 2 slices: rounding (1/3, 3e-06), zero requests, a task
  // without an op (N/A), counters whose sum passes 2^64.
  const auto rows = golden::lines(ours);
  REQUIRE(rows.size() == 1 + 9);
  CHECK(rows[3] == "0,2,12,N/A,0.0,MatMul_3");
  CHECK(rows[7] == "0,3,10,N/A,0.25,N/A");
}

TEST_CASE("l2_cache: with platform_version 1 the Hit Rate is computed, as the reference computes it") {
  golden::temp_copy t(kL2CacheCase);
  for (const auto& p : {device_file(t.prof, "info.json.0"), t.prof / "host" / "info.json"})
    replace_in(p, "\"platform_version\": \"5\"", "\"platform_version\": \"1\"");
  std::vector<std::string> warnings;
  const auto rs = rates(t.prof, warnings);
  CHECK(warnings.empty());
  REQUIRE(rs.size() == 9);
  // The reference's rows, read from its file, without the op names (the model
  // is not loaded here): Device_id, Stream Id, Task Id, Hit Rate, Victim Rate.
  const auto expected = golden::lines(golden::slurp(golden::case_dir(kL2CacheCase) / "expected_platform1" / "l2_cache.csv"));
  REQUIRE(expected.size() == 1 + rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto& c = rs[i];
    const std::string row = std::to_string(c.device_id) + "," + std::to_string(c.stream_id) + "," +
                            std::to_string(c.task_id) + "," + c.hit_rate + "," + c.second_rate + ",";
    CHECK(expected[i + 1].rfind(row, 0) == 0);
  }
  CHECK(rs[0].hit_rate == "0.666667");
  CHECK(rs[2].second_rate == "2e-06");  // 1.5e-06 rounded
}

TEST_CASE("l2_cache: a collection without L2 cache slices has no l2_cache summary") {
  golden::temp_copy t("ops_pipeutil");
  CHECK(export_l2(t).empty());
}

TEST_CASE("l2_cache: events or a platform the reference cannot use give a warning naming sample.json, no rows") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing", ""},
      {"unknown event", "\"l2CacheTaskProfilingEvents\": \"0xfb,0xfc,0x90,0x91,0x9c,0x123\""},
      {"more than 8", "\"l2CacheTaskProfilingEvents\": \"0xfb,0xfc,0x90,0x91,0x9c,0x59,0x5b,0x5c,0x62\""},
      {"an event of the platform lacking", "\"l2CacheTaskProfilingEvents\": \"0xfb,0xfc,0x90,0x91\""},
  };
  for (const auto& [what, events] : cases) {
    CAPTURE(what);
    golden::temp_copy t(kL2CacheCase);
    replace_in(device_file(t.prof, "sample.json"), ", " + kEvents, events.empty() ? "" : ", " + events);
    std::vector<std::string> warnings;
    CHECK(rates(t.prof, warnings).empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("device_0/sample.json") != std::string::npos);
    CHECK(export_l2(t).empty());
  }
  golden::temp_copy t(kL2CacheCase);
  replace_in(device_file(t.prof, "info.json.0"), "\"platform_version\": \"5\"", "\"platform_version\": \"9\"");
  std::vector<std::string> warnings;
  CHECK(rates(t.prof, warnings).empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("platform_version '9'") != std::string::npos);
}

TEST_CASE("l2_cache: a damaged sample.json is a warning naming it and the offset, not a crash") {
  golden::temp_copy t(kL2CacheCase);
  write(device_file(t.prof, "sample.json"), "{\"l2CacheTaskProfilingEvents\": \"0xfb,");
  std::vector<std::string> warnings;
  CHECK(rates(t.prof, warnings).empty());
  REQUIRE(warnings.size() == 2);
  for (const auto& w : warnings) CHECK(w.find("device_0/sample.json") != std::string::npos);
  CHECK(warnings[0].find("byte offset 31") != std::string::npos);
  // The export reads control files strictly: the same words, as its error.
  auto r = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_FALSE(r.has_value());
  CHECK(std::string(r.err().what()).find("sample.json: invalid JSON at byte offset 31") != std::string::npos);
}

TEST_CASE("l2_cache: a cut record is a warning naming the slice and offset, and the whole records are kept") {
  golden::temp_copy t(kL2CacheCase);
  const path slice = t.prof / "device_0" / "data" / "l2_cache.data.0.slice_1";
  std::string bytes = golden::slurp(slice);
  REQUIRE(bytes.size() == 4 * msprof::codec::l2_cache_size);
  bytes.resize(bytes.size() - 30);
  write(slice, bytes);
  write(slice.string() + ".done", "filesize:" + std::to_string(bytes.size()) + "\n");
  std::vector<std::string> warnings;
  const auto rs = rates(t.prof, warnings);
  CHECK(rs.size() == 5 + 3);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("l2_cache.data.0.slice_1") != std::string::npos);
  CHECK(warnings[0].find("offset 216") != std::string::npos);
  // The summary keeps the reference's first 8 rows.
  const auto expected = golden::lines(golden::slurp(golden::case_dir(kL2CacheCase) / "expected" / "l2_cache.csv"));
  const auto ours = golden::lines(export_l2(t));
  REQUIRE(ours.size() == 1 + 8);
  for (std::size_t i = 0; i < ours.size(); ++i) CHECK(ours[i] == expected[i]);
}

TEST_CASE("l2_cache: Op Name is the op of the last launch with those ids (page_fault's: the first), whatever the window order") {
  golden::temp_copy t(kL2CacheCase);
  const auto task = [](std::uint64_t launch, std::uint32_t stream, std::uint32_t id, const char* op) {
    cv::device_task d;
    d.global_task_id = launch;
    d.stream_id = stream;
    d.task_id = id;
    auto o = std::make_shared<cv::op_info>();
    o->name = op;
    d.op = std::move(o);
    return d;
  };
  cv::model later, earlier;
  later.tasks = {task(70000, 2, 10, "Second"), task(70001, 2, 0x10000, "WideId")};
  earlier.tasks = {task(5, 2, 10, "First"), task(6, 3, 10, "Other")};
  cv::l2_cache_names names(t.prof.string());
  names.add(later);
  names.add(earlier);
  CHECK(names.name_of(2, 10) == "Second");
  CHECK(names.name_of(2, 10, true) == "First");  // the C++ path's (page_fault): the first launch
  CHECK(names.name_of(3, 10) == "Other");
  CHECK(names.name_of(3, 10, true) == "Other");
  CHECK(names.name_of(2, 11) == "N/A");
  CHECK(names.name_of(2, 0) == "N/A");  // 0x10000 is no 16-bit id a record can hold
  // Without L2 cache slices nothing is kept (the names cost memory per task).
  golden::temp_copy plain("ops_pipeutil");
  cv::l2_cache_names none(plain.prof.string());
  none.add(later);
  CHECK(none.empty());
}

namespace {

const char* const kSocCase = "soc_pmu";

std::string soc_pmu_expected() { return golden::slurp(golden::case_dir(kSocCase) / "expected" / "soc_pmu.csv"); }

std::vector<std::string> soc_pmu_rows(const path& prof, std::vector<std::string>& warnings) {
  std::vector<std::string> out;
  auto r = cv::for_each_soc_pmu(prof.string(), warnings, [&](const cv::task_rates& c) -> msprof::result<void> {
    out.push_back(std::to_string(c.device_id) + "," + std::to_string(c.stream_id) + "," + std::to_string(c.task_id) +
                  "," + c.hit_rate + "," + c.second_rate);
    return {};
  });
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  return out;
}

}  // namespace

TEST_CASE("soc_pmu: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_soc_pmu::add_soc_pmu(base.prof);
  golden::temp_copy ours(kSocCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("soc_pmu: the summary equals the reference") {
  golden::temp_copy t(kSocCase);
  std::vector<std::string> warnings;
  const std::string ours = export_l2(t, &warnings, "soc_pmu");
  CHECK(ours == soc_pmu_expected());
  // 9 task records of 17 (3 page faults, 4 HA and an unknown type left out):
  // rounding (1/3, 3e-06, 5e-07 to 0), zero requests, rates of exactly 1
  // printed as integers, a task without an op, hits summing to 2^64.
  const auto rows = golden::lines(ours);
  REQUIRE(rows.size() == 1 + 9);
  CHECK(rows[0] == "Device_id,Stream Id,Task Id,TLB Hit Rate,TLB Miss Rate,Op Name");
  CHECK(rows[3] == "0,2,12,0,0,MatMul_3");
  CHECK(rows[7] == "0,3,10,1,0,N/A");
  // The unknown data type is the one warning, with its file and offset.
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("socpmu.data.0.slice_1: record at byte offset 320") != std::string::npos);
  CHECK(warnings[0].find("data type 3") != std::string::npos);
}

TEST_CASE("page_fault: the summary equals the reference's C++ path, on chip 5 and in the layout of chips 15 and 16") {
  // Its page faults: the first counter cut to 32 bits (2^32 + 3 -> 3), a task no op launched "N/A".
  const std::string expected = golden::slurp(golden::case_dir(kSocCase) / "expected" / "page_fault.csv");
  REQUIRE(golden::lines(expected).size() == 1 + 3);
  {
    golden::temp_copy t(kSocCase);
    CHECK(export_l2(t, nullptr, "page_fault") == expected);
  }
  golden::temp_copy t(kSocCase);
  for (const auto& info : {t.prof / "host" / "info.json", device_file(t.prof, "info.json.0")})
    replace_in(info, "\"platform_version\": \"5\"", "\"platform_version\": \"15\"");
  golden_soc_pmu::write_slices(t.prof, true);
  CHECK(export_l2(t, nullptr, "page_fault") == expected);
  // Chip 4 has no SoC PMU: no file.
  golden::temp_copy chip4(kSocCase);
  for (const auto& info : {chip4.prof / "host" / "info.json", device_file(chip4.prof, "info.json.0")})
    replace_in(info, "\"platform_version\": \"5\"", "\"platform_version\": \"4\"");
  CHECK(export_l2(chip4, nullptr, "page_fault").empty());
}

TEST_CASE("soc_pmu: chips 15 and 16 write their own layout, with the same rows") {
  golden::temp_copy t(kSocCase);
  for (const auto& p : {device_file(t.prof, "info.json.0"), t.prof / "host" / "info.json"})
    replace_in(p, "\"platform_version\": \"5\"", "\"platform_version\": \"15\"");
  std::vector<std::string> warnings;
  // Read in the chip-5 layout the records are other tasks' (wrong types, ids).
  CHECK(soc_pmu_rows(t.prof, warnings).size() != 9);
  golden_soc_pmu::write_slices(t.prof, true);
  CHECK(export_l2(t, nullptr, "soc_pmu") == soc_pmu_expected());
}

TEST_CASE("soc_pmu: npuEvents or a platform the reference cannot use give a warning naming sample.json, no file") {
  const std::string events = std::string("\"npuEvents\": \"") + golden_soc_pmu::kNpuEvents + "\"";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing", ""},
      {"no SMMU part", "\"npuEvents\": \"DDR:0x8a,0x8c,0x8d,0x2\""},
      {"unknown event", "\"npuEvents\": \"SMMU:0x8a,0x8c,0x8d,0x2,0x3\""},
      {"more than 8", "\"npuEvents\": \"SMMU:0x8a,0x8c,0x8d,0x2,0x8b,0x8b,0x8b,0x8b,0x8b\""},
      {"an event of the platform lacking", "\"npuEvents\": \"SMMU:0x8a,0x8c,0x2\""},
  };
  for (const auto& [what, text] : cases) {
    CAPTURE(what);
    golden::temp_copy t(kSocCase);
    replace_in(device_file(t.prof, "sample.json"), ", " + events, text.empty() ? "" : ", " + text);
    std::vector<std::string> warnings;
    CHECK(soc_pmu_rows(t.prof, warnings).empty());
    REQUIRE(warnings.size() == 2);  // then the unknown data type's
    CHECK(warnings[0].find("device_0/sample.json") != std::string::npos);
    CHECK(export_l2(t, nullptr, "soc_pmu").empty());
  }
  golden::temp_copy t(kSocCase);
  replace_in(device_file(t.prof, "info.json.0"), "\"platform_version\": \"5\"", "\"platform_version\": \"1\"");
  std::vector<std::string> warnings;
  CHECK(soc_pmu_rows(t.prof, warnings).empty());
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("platform_version '1'") != std::string::npos);
}

TEST_CASE("soc_pmu: a cut record is a warning naming the slice and offset, and the whole records are kept") {
  golden::temp_copy t(kSocCase);
  const path slice = t.prof / "device_0" / "data" / "socpmu.data.0.slice_0";
  std::string bytes = golden::slurp(slice);
  REQUIRE(bytes.size() == 8 * msprof::codec::soc_pmu_size);
  bytes.resize(6 * msprof::codec::soc_pmu_size - 30);  // the two HA records gone, the sixth cut
  write(slice, bytes);
  write(slice.string() + ".done", "filesize:" + std::to_string(bytes.size()) + "\n");
  std::vector<std::string> warnings;
  CHECK(soc_pmu_rows(t.prof, warnings).size() == 4 + 4);  // task records: slice_0 loses one of 5
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[1].find("socpmu.data.0.slice_0") != std::string::npos);
  CHECK(warnings[1].find("offset 400") != std::string::npos);
  // The summary keeps the reference's rows but the cut one (the fifth).
  auto expected = golden::lines(soc_pmu_expected());
  expected.erase(expected.begin() + 5);
  CHECK(golden::lines(export_l2(t, nullptr, "soc_pmu")) == expected);
}

TEST_CASE("l2_cache: the SoC PMU's HA records are rows of the summary l2_cache, as the reference writes them") {
  golden::temp_copy t(kSocCase);
  std::vector<std::string> warnings;
  const std::string ours = export_l2(t, &warnings);
  CHECK(ours == golden::slurp(golden::case_dir(kSocCase) / "expected" / "l2_cache.csv"));
  // The 4 HA records of 17 in file order: 1/3, no requests, 9/18, a victim rate above 1 of a task without an op.
  const auto rows = golden::lines(ours);
  REQUIRE(rows.size() == 1 + 4);
  CHECK(rows[2] == "0,2,12,N/A,0.0,MatMul_3");
  CHECK(rows[4] == "0,5,99,N/A,2.333333,N/A");
  // The slices' unknown data type is said once (by the soc_pmu summary), not once more here.
  CHECK(warnings.size() == 1);
  // Chips other than 5, 15 and 16 have no SoC PMU parser: no HA rows.
  replace_in(device_file(t.prof, "info.json.0"), "\"platform_version\": \"5\"", "\"platform_version\": \"2\"");
  replace_in(device_file(t.prof, "sample.json"), golden_soc_pmu::kL2Events, "0x78,0x79,0x6a,0x71");
  warnings.clear();
  CHECK(rates(t.prof, warnings).empty());
  CHECK(warnings.empty());
}

TEST_CASE("l2_cache: on chip 15 the HA records are read in its layout and summed by its L2 events") {
  golden::temp_copy t(kSocCase);
  for (const auto& p : {device_file(t.prof, "info.json.0"), t.prof / "host" / "info.json"})
    replace_in(p, "\"platform_version\": \"5\"", "\"platform_version\": \"15\"");
  replace_in(device_file(t.prof, "sample.json"), golden_soc_pmu::kL2Events, "0x00,0x74,0x81,0x75,0x82,0x83");
  golden_soc_pmu::write_slices(t.prof, true);
  const std::string ours = export_l2(t);
  CHECK(ours == golden::slurp(golden::case_dir(kSocCase) / "expected_v6" / "l2_cache.csv"));
  CHECK(golden::lines(ours).size() == 1 + 4);
}

TEST_CASE("l2_cache: with L2 cache slices too, their rows come first, then the HA records' (the reference's runs)") {
  golden::temp_copy t(kSocCase);
  for (const auto& e : golden::fs::recursive_directory_iterator(golden::case_dir(kL2CacheCase) / "input"))
    if (e.path().filename().string().rfind("l2_cache.data.", 0) == 0)
      golden::fs::copy_file(e.path(), t.prof / "device_0" / "data" / e.path().filename());
  replace_in(device_file(t.prof, "sample.json"), golden_soc_pmu::kL2Events, "0x90, 0xFB,0x9c,0xfc,0x91,0x59,0x5b,0x5c");
  const std::string ours = export_l2(t);
  CHECK(ours == golden::slurp(golden::case_dir(kSocCase) / "expected_l2_slices" / "l2_cache.csv"));
  // The L2 cache case's own rows, then 4 more.
  const auto l2_only = golden::lines(golden::slurp(golden::case_dir(kL2CacheCase) / "expected" / "l2_cache.csv"));
  const auto rows = golden::lines(ours);
  REQUIRE(rows.size() == l2_only.size() + 4);
  CHECK(std::equal(l2_only.begin(), l2_only.end(), rows.begin()));
  CHECK(rows[l2_only.size()] == "0,2,10,N/A,2.0,MatMul_1");
}

TEST_CASE("soc_pmu: a collection without SoC PMU slices has no soc_pmu summary") {
  golden::temp_copy t("l2_cache");
  CHECK(export_l2(t, nullptr, "soc_pmu").empty());
}
