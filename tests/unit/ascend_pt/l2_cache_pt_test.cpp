// SPDX-License-Identifier: MIT
// l2_cache.csv in `msprof analyse`: the pt_memory case (ops_pipeutil's CANN
// data) with the golden case l2_cache's slices and device sample.json added to
// its PROF_ part. Expected file: tests/golden/l2_cache/expected_pt, made from
// the reference's l2_cache summary by torch_npu's rule (its code read, not
// run): with experimental_config._l2_cache, at any profiler level of the text
// export, IntegrateParser reads CANN's l2_cache CSV with csv.DictReader into
// L2CacheBean and writes its header (the CSV's own, Device_id first) and
// cells with csv.writer, so CRLF line ends. soc_pmu.csv likewise, with the
// golden case soc_pmu's slices and sample.json: SocPmuBean under the same
// flag, its expected file derived here from the reference's soc_pmu summary
// by that rule (the same header and cells, each line ended by CRLF: none of
// its cells needs quoting), and l2_cache.csv from the rows of its HA records.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>
#include <tuple>

#include "../../support/golden_memory.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

using golden_memory::replace_in;

/// pt_memory at profiler level `level`, `_l2_cache` as given, with the golden
/// case `from`'s device sample.json and slices named `slices`*.
fs::path l2_case(const temp_dir& tmp, const std::string& level, bool l2_cache, const std::string& from_case = "l2_cache",
                 const std::string& slices = "l2_cache.") {
  const fs::path dir = copy_case(tmp, "pt_memory");
  const fs::path golden = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / from_case / "input";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("PROF_", 0) == 0) {
      const fs::path from = golden / name / "device_0";
      fs::copy_file(from / "sample.json", e.path() / "device_0" / "sample.json", fs::copy_options::overwrite_existing);
      for (const auto& f : fs::directory_iterator(from / "data"))
        if (f.path().filename().string().rfind(slices, 0) == 0)
          fs::copy_file(f.path(), e.path() / "device_0" / "data" / f.path().filename());
    }
    if (name.rfind("profiler_info", 0) == 0) {
      replace_in(e.path(), "\"_profiler_level\": \"Level1\"", "\"_profiler_level\": \"" + level + "\"");
      if (l2_cache) replace_in(e.path(), "\"_l2_cache\": false", "\"_l2_cache\": true");
    }
  }
  return dir;
}

/// The golden case soc_pmu's expected CANN summary `name`, as torch_npu
/// copies it: the same lines, CRLF-ended.
std::string crlf_of_soc_pmu_case(const std::string& name) {
  std::string out;
  for (char c : read_text(fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "soc_pmu" / "expected" / name))
    out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("ascend_pt l2_cache: _l2_cache copies CANN's l2_cache summary into l2_cache.csv at every level") {
  const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "l2_cache" / "expected_pt" / "l2_cache.csv";
  for (const char* level : {"Level_none", "Level0", "Level1", "Level2"}) {
    CAPTURE(level);
    temp_dir tmp("pt_l2_cache");
    const fs::path dir = l2_case(tmp, level, true);
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    const fs::path out = dir / "ASCEND_PROFILER_OUTPUT" / "l2_cache.csv";
    REQUIRE(fs::exists(out));
    CHECK(read_text(out) == read_text(expected));
  }
}

TEST_CASE("ascend_pt l2_cache: no l2_cache.csv without _l2_cache") {
  temp_dir tmp("pt_l2_cache_off");
  const fs::path dir = l2_case(tmp, "Level2", false);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "l2_cache.csv"));
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
}

TEST_CASE("ascend_pt soc_pmu: _l2_cache copies CANN's soc_pmu summary into soc_pmu.csv at every level") {
  // torch_npu's rule applied to the reference's summary: its lines, CRLF-ended.
  const std::string expected = crlf_of_soc_pmu_case("soc_pmu.csv");
  const std::string expected_l2 = crlf_of_soc_pmu_case("l2_cache.csv");
  REQUIRE(expected.size() > 100);
  REQUIRE(expected_l2.size() > 100);
  for (const char* level : {"Level_none", "Level0", "Level1", "Level2"}) {
    CAPTURE(level);
    temp_dir tmp("pt_soc_pmu");
    const fs::path dir = l2_case(tmp, level, true, "soc_pmu", "socpmu.");
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    const fs::path out = dir / "ASCEND_PROFILER_OUTPUT" / "soc_pmu.csv";
    REQUIRE(fs::exists(out));
    CHECK(read_text(out) == expected);
    CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "l2_cache.csv") == expected_l2);  // the HA records' rows
  }
}

TEST_CASE("ascend_pt soc_pmu: no soc_pmu.csv without _l2_cache, nor without SoC PMU slices, nor in the db export") {
  for (const auto& [flag, from, slices] : {std::tuple{false, "soc_pmu", "socpmu."}, std::tuple{true, "l2_cache", "l2_cache."}}) {
    CAPTURE(from);
    temp_dir tmp("pt_soc_pmu_off");
    const fs::path dir = l2_case(tmp, "Level2", flag, from, slices);
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "soc_pmu.csv"));
    CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  }
  temp_dir tmp("pt_soc_pmu_db");
  const fs::path dir = l2_case(tmp, "Level2", true, "soc_pmu", "socpmu.");
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "soc_pmu.csv"));
}
