// SPDX-License-Identifier: MIT
// Every AI Core metric group (tests/golden/aic_metrics/<group>: inputs written by
// the simulated device, expected output by the reference): op_summary byte for
// byte, TASK_PMU_INFO value for value, the PipeUtilization columns against a real
// Ascend910B output, and AiCoreNone without PMU columns.
#include <doctest/doctest.h>
#include <msprof/codec/aic_metrics.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/summary.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace am = msprof::codec::aic_metrics;

namespace {

std::string case_of(const am::group& g) { return "aic_metrics/" + std::string(g.name); }

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> v;
  std::stringstream s(line);
  for (std::string cell; std::getline(s, cell, sep);) v.push_back(cell);
  return v;
}

using pmu_rows = std::map<std::tuple<long long, long long, std::string>, double>;

/// CSV text without the Task Wait Time cells, which msprof computes exactly
/// from the ns times where the reference is off by up to 0.25 µs (docs/formats.md,
/// deliberate difference 13). The cells before it hold no quoted comma here.
std::string without_wait(const std::string& csv) {
  std::istringstream in(csv);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < cv::op_summary_wait_col && at != std::string::npos; ++i) at = line.find(',', at + 1);
    const std::size_t end = at == std::string::npos ? at : line.find(',', at + 1);
    if (end != std::string::npos) line.erase(at + 1, end - at - 1);
    out += line + '\n';
  }
  return out;
}

/// TASK_PMU_INFO by (stream, task, name); global task ids are left out (the
/// reference numbers tasks in its own order).
pmu_rows task_pmu_info(const golden::fs::path& db_path) {
  pmu_rows rows;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db,
                         "SELECT t.streamId, t.taskId, s.value, p.value FROM TASK_PMU_INFO p JOIN TASK t ON "
                         "t.globalTaskId = p.globalTaskId JOIN STRING_IDS s ON s.id = p.name",
                         -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW)
      rows[{sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
            reinterpret_cast<const char*>(sqlite3_column_text(st, 2))}] = sqlite3_column_double(st, 3);
  }
  sqlite3_finalize(st);  // no table: no rows
  sqlite3_close(db);
  return rows;
}

/// expected/task_pmu_info.csv: the reference's rows, values as shortest round-trip text.
pmu_rows expected_task_pmu_info(const std::string& c) {
  pmu_rows rows;
  std::istringstream in(golden::slurp(golden::case_dir(c) / "expected" / "task_pmu_info.csv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto f = split(line, ',');
    REQUIRE(f.size() == 4);
    rows[{std::stoll(f[0]), std::stoll(f[1]), f[2]}] = std::strtod(f[3].c_str(), nullptr);
  }
  return rows;
}

}  // namespace

TEST_CASE("aic metrics: every group's op_summary is byte-identical to the reference (but Task Wait Time)") {
  for (const auto& g : am::groups) {
    const std::string c = case_of(g);
    CAPTURE(c);
    golden::temp_copy t(c);
    auto r = cv::export_summary(t.prof.string(), golden::fixed_ts());
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    CHECK(r->warnings.empty());
    const auto ours = golden::output(t.prof, "op_summary", "csv");
    REQUIRE(!ours.empty());
    const std::string got = golden::slurp(ours);
    const std::string want = golden::slurp(golden::case_dir(c) / "expected" / "op_summary.csv");
    CHECK(without_wait(got) == without_wait(want));
    CHECK(without_wait(got) != got);  // the wait cells were cut
    // The PMU columns are the ones pmu_columns names (the show and db paths use it too).
    auto m = cv::load_model(t.prof.string());
    REQUIRE(m.has_value());
    const auto cols = cv::pmu_columns::of(m->session);
    CHECK(split(got.substr(0, got.find('\n')), ',') == cv::op_summary_header(&cols));
    CHECK(cols.empty() == g.aic_events.empty());
  }
}

TEST_CASE("aic metrics: TASK_PMU_INFO equals the reference's for every task and name") {
  for (const auto& g : am::groups) {
    const std::string c = case_of(g);
    CAPTURE(c);
    golden::temp_copy t(c);
    auto r = cv::export_db(t.prof.string(), golden::fixed_ts());
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    const auto got = task_pmu_info(t.prof / "msprof_T.db");
    const auto want = expected_task_pmu_info(c);
    CHECK(got.size() == want.size());
    for (const auto& [k, v] : want) {
      CAPTURE(std::get<2>(k));
      CAPTURE(std::get<1>(k));
      const auto it = got.find(k);
      REQUIRE(it != got.end());
      CHECK(it->second == v);
    }
  }
}

TEST_CASE("aic metrics: PipeUtilization has the PMU columns of a real Ascend910B output") {
  // kernel_details.csv of torch_npu Level1 + PipeUtilization on Ascend910B
  // (MindStudio Insight test data; /work/shared/real-samples), from aicore_time on.
  const std::vector<std::string> real = split(
      "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
      "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
      "aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
      "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
      "cube_utilization(%)",
      ',');
  golden::temp_copy t(case_of(*am::find_group("PipeUtilization")));
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m.has_value());
  CHECK(cv::pmu_columns::of(m->session).header == real);
}

TEST_CASE("aic metrics: the converters follow the input's sample.json events, not the group's name") {
  // The ops_pipeutil golden says PipeUtilization with the AI Vector events on
  // the AI Core side too: aic_mte3, no fixpipe.
  golden::temp_copy t("ops_pipeutil");
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m.has_value());
  const auto h = cv::pmu_columns::of(m->session).header;
  CHECK(std::find(h.begin(), h.end(), "aic_mte3_ratio") != h.end());
  CHECK(std::find(h.begin(), h.end(), "aic_fixpipe_ratio") == h.end());
}
