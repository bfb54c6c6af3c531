// SPDX-License-Identifier: MIT
// show_collector gathers `msprof show`'s tables window by window: whatever the
// window size and spill budget, its text is the one computed from the whole
// model with the table API (op_summary sorted by duration, op_statistic,
// api_statistic sorted by total time).
#include <doctest/doctest.h>
#include <msprof/convert/load.hpp>
#include <msprof/convert/show.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/text.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

/// The tables from the whole model, as the command printed them before it streamed.
std::string whole_model_show(const cv::model& m, std::size_t top) {
  std::string out = m.session.prof_dir + "\n" + cv::collection_summary(m) + "\n\n";
  auto ops = cv::op_summary(m);
  if (!ops.rows.empty()) {
    std::stable_sort(ops.rows.begin(), ops.rows.end(),
                     [](const auto& a, const auto& b) { return std::stod(a[9]) > std::stod(b[9]); });
    out += cv::render_table("Op summary (top " + std::to_string(top) + " by duration)", ops, {0, 4, 5, 7, 3, 2, 9, 11},
                            top, false);
  }
  auto st = cv::op_statistic(m);
  if (!st.rows.empty()) out += cv::render_table("Op statistic", st, {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, false);
  auto api = cv::api_statistic(m);
  if (!api.rows.empty()) {
    std::stable_sort(api.rows.begin(), api.rows.end(),
                     [](const auto& a, const auto& b) { return std::stod(a[3]) > std::stod(b[3]); });
    out += cv::render_table("API statistic (top " + std::to_string(top) + " by total time)", api,
                            {1, 2, 3, 4, 5, 6, 7, 8}, top, false);
  }
  if (m.has_device()) {
    cv::table f;
    f.header = {"Device", "AI Core Freq(MHz)", "AI Cores", "AIV Cores"};
    for (const auto& d : m.session.devices)
      f.rows.push_back({std::to_string(d.id), cv::fewest3(d.aic_frequency_mhz), std::to_string(d.ai_core_num),
                        std::to_string(d.aiv_num)});
    out += cv::render_table("Frequency", f, {0, 1, 2, 3}, SIZE_MAX, false);
  }
  if (ops.rows.empty() && api.rows.empty() && m.mstx.empty()) out += "(no API, task or mstx records)\n";
  return out;
}

std::string streamed_show(const std::string& prof, std::size_t top, std::size_t window, std::size_t budget) {
  cv::load_options lo;
  lo.window_records = window;
  lo.spill_budget = budget;
  lo.spill_dir = fs::temp_directory_path().string();
  cv::show_collector c(top, lo.spill_dir, budget);
  auto final_model = cv::load_windows(prof, lo, [&](cv::model& w) { c.add(w); });
  REQUIRE(final_model);
  auto text = c.text(*final_model, false);
  REQUIRE(text);
  return *text;
}

}  // namespace

TEST_CASE("show: the golden cases' tables, window by window, equal the whole model's") {
  for (const char* name : golden::cases) {
    CAPTURE(name);
    golden::temp_copy t(name);
    const auto whole = cv::load_model(t.prof.string());
    REQUIRE(whole);
    for (std::size_t top : {0, 1, 3, 10})
      for (std::size_t window : {1, 2, 1 << 16}) {
        CAPTURE(top);
        CAPTURE(window);
        CHECK(streamed_show(t.prof.string(), top, window, window == 1 ? 64 : cv::spill_budget_default) ==
              whole_model_show(*whole, top));
      }
  }
}

TEST_CASE("show: a generated collection of 20 k records, spilled, equals the whole model's") {
  temp_dir t;
  const fs::path prof = fs::path(t.path) / "PROF_000001_20260101000000000_SHOWTESTAAAAAAAA";
  generated_prof::generate(prof, 20000);
  const auto whole = cv::load_model(prof.string());
  REQUIRE(whole);
  REQUIRE(whole->warnings.empty());
  REQUIRE(whole->tasks.size() > 1000);
  for (std::size_t top : {1, 25})
    CHECK(streamed_show(prof.string(), top, 500, 4096) == whole_model_show(*whole, top));
}
