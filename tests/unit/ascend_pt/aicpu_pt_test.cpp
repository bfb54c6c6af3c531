// SPDX-License-Identifier: MIT
// Level2's data_preprocess.csv in `msprof analyse`: the pt_memory case made
// Level2, with the golden case aicpu's AI CPU slice added to its PROF_ part
// (the same CANN data, ops_pipeutil's). Expected file:
// tests/golden/aicpu/expected_pt, made from the reference's aicpu summary by
// torch_npu's rules (its code read, not run; tests/golden/README.md).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>
#include <utility>

#include "../../support/golden_aicpu.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

/// pt_memory at profiler level `level`, with the AI CPU slice when `aicpu`.
fs::path level_case(const temp_dir& tmp, const std::string& level, bool aicpu) {
  const fs::path dir = copy_case(tmp, "pt_memory");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("PROF_", 0) == 0 && aicpu) golden_aicpu::add_records(e.path());
    if (name.rfind("profiler_info", 0) == 0) {
      std::string text = read_text(e.path());
      const std::string from = "\"_profiler_level\": \"Level1\"";
      const auto at = text.find(from);
      REQUIRE(at != std::string::npos);
      text.replace(at, from.size(), "\"_profiler_level\": \"" + level + "\"");
      std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << text;
    }
  }
  return dir;
}

}  // namespace

TEST_CASE("ascend_pt aicpu: Level2 copies CANN's aicpu summary into data_preprocess.csv as torch_npu does") {
  temp_dir tmp("pt_aicpu");
  const fs::path dir = level_case(tmp, "Level2", true);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  REQUIRE(fs::exists(out / "data_preprocess.csv"));
  const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "aicpu" / "expected_pt" / "data_preprocess.csv";
  CHECK(read_text(out / "data_preprocess.csv") == read_text(expected));
}

TEST_CASE("ascend_pt aicpu: no data_preprocess.csv below Level2 or without AI CPU reports") {
  for (const auto& c : {std::pair<std::string, bool>{"Level1", true}, {"Level2", false}}) {
    CAPTURE(c.first);
    temp_dir tmp("pt_aicpu_none");
    const fs::path dir = level_case(tmp, c.first, c.second);
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "data_preprocess.csv"));
    CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "task_time.csv"));
  }
}
