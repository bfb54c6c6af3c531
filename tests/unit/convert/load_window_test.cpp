// SPDX-License-Identifier: MIT
// load_windows() on the golden inputs: whatever the window size and however
// little memory the join's sorted streams get, the windows keep model.hpp's
// contract and add up to the same model as one load.
#include <doctest/doctest.h>
#include <msprof/convert/load.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/timeline.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "golden_util.hpp"

namespace cv = msprof::convert;

namespace {

std::string everything_of(const cv::model& m) {
  std::string s = cv::timeline_json(cv::build_timeline(m));
  for (const auto& t : cv::all_summaries(m)) s += cv::csv_text(t);
  for (const auto& w : m.warnings) s += w + "\n";
  return s;
}

}  // namespace

TEST_CASE("load_windows: any window size and spill budget give the model of one load") {
  for (const char* name : golden::cases) {
    CAPTURE(name);
    golden::temp_copy t(name);
    const auto whole = cv::load_model(t.prof.string());
    REQUIRE(whole);
    for (std::size_t window : {std::size_t{1}, std::size_t{3}}) {
      CAPTURE(window);
      cv::load_options o;
      o.window_records = window;
      o.spill_budget = 64;  // every sorted stream goes through runs on disk
      o.spill_dir = std::filesystem::temp_directory_path().string();
      // The windows keep the contract...
      std::set<std::uint64_t> conns, tasks;
      std::size_t windows = 0, mstx = 0;
      bool mstx_started = false, api_after_mstx = false;
      auto final_model = cv::load_windows(t.prof.string(), o, [&](cv::model& w) {
        ++windows;
        CHECK(w.apis.size() + w.tasks.size() <= window);
        for (std::size_t i = 1; i < w.apis.size(); ++i) CHECK(w.apis[i - 1].connection_id < w.apis[i].connection_id);
        for (std::size_t i = 1; i < w.tasks.size(); ++i) CHECK(w.tasks[i - 1].global_task_id < w.tasks[i].global_task_id);
        // A task never comes after the window of the call that launched it.
        for (const auto& k : w.tasks) CHECK((k.connection_id == 0 || conns.count(k.connection_id) == 0));
        for (const auto& a : w.apis) CHECK(conns.insert(a.connection_id).second);
        for (const auto& k : w.tasks) CHECK(tasks.insert(k.global_task_id).second);
        mstx_started |= !w.mstx.empty();
        api_after_mstx |= mstx_started && !(w.apis.empty() && w.tasks.empty());
        mstx += w.mstx.size();
      });
      REQUIRE(final_model);
      CHECK(final_model->apis.empty());
      CHECK_FALSE(api_after_mstx);
      CHECK(conns.size() == whole->apis.size());
      CHECK(tasks.size() == whole->tasks.size());
      CHECK(mstx == whole->mstx.size());
      CHECK(windows * window >= whole->apis.size() + whole->tasks.size());  // windows were cut
      // ...and add up to the same model.
      const auto collected = cv::load_model(t.prof.string(), o);
      REQUIRE(collected);
      CHECK(everything_of(*collected) == everything_of(*whole));
    }
  }
}
