// SPDX-License-Identifier: MIT
// spill_sorter: rows come out in key order, equal keys in push order, whether
// they stayed in memory or went through sorted runs on disk.
#include <doctest/doctest.h>
#include <msprof/convert/spill.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cv = msprof::convert;

namespace {

struct key {
  std::uint32_t device;
  std::int64_t start;
  bool operator<(const key& o) const { return std::tie(device, start) < std::tie(o.device, o.start); }
  bool operator==(const key& o) const { return device == o.device && start == o.start; }
};

// Pushes `n` rows with few distinct keys (many ties) and payloads of varied length.
std::vector<std::pair<key, std::string>> drained(std::size_t n, std::size_t budget) {
  cv::spill_sorter<key> s(std::filesystem::temp_directory_path().string(), budget);
  std::mt19937 rng(7);
  for (std::size_t i = 0; i < n; ++i) {
    const key k{static_cast<std::uint32_t>(rng() % 3), static_cast<std::int64_t>(rng() % 50) - 25};
    s.push(k, std::to_string(i) + std::string(i % 300, 'x'));
  }
  CHECK(s.size() == n);
  std::vector<std::pair<key, std::string>> out;
  const auto r = s.drain([&](const key& k, std::string_view p) { out.emplace_back(k, std::string(p)); });
  REQUIRE(r);
  CHECK(s.size() == 0);
  return out;
}

std::size_t push_index(const std::string& payload) { return std::stoul(payload); }

}  // namespace

TEST_CASE("spill_sorter: key order, ties in push order, the same in memory and through disk runs") {
  const std::size_t n = 5000;
  const auto in_memory = drained(n, SIZE_MAX);
  REQUIRE(in_memory.size() == n);
  for (std::size_t i = 1; i < n; ++i) {
    const auto& [ka, pa] = in_memory[i - 1];
    const auto& [kb, pb] = in_memory[i];
    CHECK(!(kb < ka));
    if (ka == kb) CHECK(push_index(pa) < push_index(pb));
  }
  // 4 KiB budget: hundreds of runs, payloads longer than one read-ahead included.
  CHECK(drained(n, 4096) == in_memory);
  CHECK(drained(n, 1) == in_memory);  // a run per row
}

TEST_CASE("spill_sorter: a payload larger than the read buffer survives the merge, and the sorter is reusable") {
  cv::spill_sorter<int> s(std::filesystem::temp_directory_path().string(), 100);
  const std::string big(200000, 'b');
  s.push(2, "two");
  s.push(1, big);
  s.push(0, "");
  std::vector<std::pair<int, std::string>> out;
  REQUIRE(s.drain([&](int k, std::string_view p) { out.emplace_back(k, std::string(p)); }));
  CHECK(out == std::vector<std::pair<int, std::string>>{{0, ""}, {1, big}, {2, "two"}});
  s.push(5, "again");
  out.clear();
  REQUIRE(s.drain([&](int k, std::string_view p) { out.emplace_back(k, std::string(p)); }));
  CHECK(out == std::vector<std::pair<int, std::string>>{{5, "again"}});
}

TEST_CASE("spill_sorter: a directory that cannot hold the runs is an error naming it") {
  cv::spill_sorter<int> s("/nonexistent/msprof", 1);
  s.push(1, "a");
  s.push(2, "b");
  const auto r = s.drain([](int, std::string_view) {});
  REQUIRE(!r);
  CHECK(r.err().message.find("/nonexistent/msprof") != std::string::npos);
}

TEST_CASE("spill_sorter: rows pushed as a few ascending runs (merged, not sorted) come out as a stable sort puts them") {
  // 1..17 runs: up to 16 they are merged, above that sorted; each run ascending
  // with ties inside it and across runs; some rows written through push_with.
  for (std::size_t runs : {1u, 2u, 3u, 5u, 16u, 17u}) {
    for (std::size_t budget : {std::size_t{SIZE_MAX}, std::size_t{2048}}) {
      CAPTURE(runs);
      CAPTURE(budget);
      cv::spill_sorter<key> s(std::filesystem::temp_directory_path().string(), budget);
      std::vector<std::pair<key, std::string>> want;
      std::mt19937 rng(static_cast<unsigned>(runs));
      std::size_t i = 0;
      for (std::size_t r = 0; r < runs; ++r) {
        key k{0, static_cast<std::int64_t>(rng() % 10)};
        for (std::size_t n = 0; n < 200 + r * 7; ++n, ++i) {
          k.start += static_cast<std::int64_t>(rng() % 3);  // ascending, with ties
          const std::string payload = std::to_string(i);
          if (i % 2)
            s.push(k, payload);
          else
            s.push_with(k, [&](std::string& out) { out += payload; });
          want.emplace_back(k, payload);
        }
      }
      std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<std::pair<key, std::string>> got;
      REQUIRE(s.drain([&](const key& k, std::string_view p) { got.emplace_back(k, std::string(p)); }));
      CHECK(got == want);
    }
  }
}
