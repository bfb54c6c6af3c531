// SPDX-License-Identifier: MIT
// The join's matching rules on hand-made raw collections: per (device, stream,
// task) key, the i-th launch takes the i-th device span and the i-th PMU record,
// whatever the order the keys arrive in.
#include <doctest/doctest.h>
#include <msprof/convert/join.hpp>

#include <tuple>
#include <vector>

namespace cv = msprof::convert;

TEST_CASE("join: match_in_order pairs the i-th element of a key with the i-th of that key") {
  const std::vector<std::uint64_t> a{5, 7, 5, 9, 5}, b{7, 5, 5, 8};
  const auto m = cv::detail::match_in_order(a, b);
  REQUIRE(m.size() == a.size());
  CHECK(m[0] == 1);  // first 5 -> first 5 in b
  CHECK(m[1] == 0);  // 7 -> 7
  CHECK(m[2] == 2);  // second 5 -> second 5
  CHECK(m[3] == cv::detail::no_match);  // no 9 in b
  CHECK(m[4] == cv::detail::no_match);  // b has only two 5s
  CHECK(cv::detail::match_in_order({}, b).empty());
  CHECK(cv::detail::match_in_order(a, {}) == std::vector<std::size_t>(a.size(), cv::detail::no_match));
}

TEST_CASE("join: a reused task id takes its spans and PMU records in launch order, leftovers are reported") {
  namespace raw = cv::raw;
  raw::collection c;  // host and device clocks in ns, wall offset 0
  c.apis.push_back({cv::level::runtime, 1, 1, 100, 5000, 0});
  // Task id 7 on stream 1 launched twice (the id wrapped), task 8 once; the
  // task_track records arrive out of time order.
  c.tracks.push_back({2000, 1, 0, 1, 7, 0, 0});   // second launch of 7
  c.tracks.push_back({1000, 1, 0, 1, 7, 0, 0});   // first launch of 7
  c.tracks.push_back({1500, 1, 0, 1, 8, 0, 0});
  c.tracks.push_back({1600, 1, 0, 1, 11, 0, 0});  // never ran on the device
  // Device spans: key 7 twice in arrival order, key 8 once, key 9 nobody launched.
  for (auto [task, start, end] : {std::tuple{7, 10000, 11000}, std::tuple{8, 10500, 10600},
                                  std::tuple{7, 12000, 12500}, std::tuple{9, 13000, 13100}}) {
    c.acsqs.push_back({0, true, 1, static_cast<std::uint16_t>(task), static_cast<std::uint64_t>(start)});
    c.acsqs.push_back({0, false, 1, static_cast<std::uint16_t>(task), static_cast<std::uint64_t>(end)});
  }
  // PMU records of key 7, in device order: the first belongs to the first launch.
  c.pmus.push_back({0, 1, 7, {111, {}}});
  c.pmus.push_back({0, 1, 7, {222, {}}});

  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.tasks.size() == 4);
  // Launch order: 7 (t=1000), 8 (1500), 7 (2000), then the orphan 9.
  CHECK(m.tasks[0].task_id == 7);
  CHECK(m.tasks[0].start_ns == 10000);
  CHECK(m.tasks[0].track_ns == 1000);
  REQUIRE(m.tasks[0].pmu);
  CHECK(m.tasks[0].pmu->total_cycles == 111);
  CHECK(m.tasks[1].task_id == 8);
  CHECK(m.tasks[1].start_ns == 10500);
  CHECK_FALSE(m.tasks[1].pmu);
  CHECK(m.tasks[2].task_id == 7);
  CHECK(m.tasks[2].start_ns == 12000);
  REQUIRE(m.tasks[2].pmu);
  CHECK(m.tasks[2].pmu->total_cycles == 222);
  CHECK(m.tasks[3].task_id == 9);
  CHECK(m.tasks[3].task_type == "UNKNOWN");
  CHECK(m.tasks[3].connection_id == 0);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(m.tasks[i].connection_id == m.apis[0].connection_id);
    CHECK(m.tasks[i].global_task_id == i);
  }
  CHECK(m.apis[0].has_device_task);
  auto has = [&](const char* part) {
    for (const auto& w : m.warnings)
      if (w.find(part) != std::string::npos) return true;
    return false;
  };
  CHECK(has("1 task_track record(s) have no device task"));
  CHECK(has("1 device task(s) have no task_track record"));
}

TEST_CASE("join: tensor shapes hold up to 8 dimensions inline") {
  cv::tensor_shape s{2, 3};
  CHECK(s.size() == 2);
  CHECK(s[1] == 3);
  for (std::uint32_t d = 0; d < 10; ++d) s.push_back(d);
  CHECK(s.size() == 8);  // the record's array has 8: more cannot come from the data
  CHECK(std::vector<std::uint32_t>(s.begin(), s.end()) == std::vector<std::uint32_t>{2, 3, 0, 1, 2, 3, 4, 5});
}
