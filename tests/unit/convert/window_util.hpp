// SPDX-License-Identifier: MIT
// Splits a loaded model into windows the way the streaming loader may hand them
// to writers (model.hpp, "Windows"): every call and task dealt to a
// pseudo-random window, each window keeping the model's order; mstx and
// mstx_mem in contiguous chunks, in record order. Writers must give the same
// bytes for any split.
#ifndef MSPROF_TESTS_UNIT_CONVERT_WINDOW_UTIL_HPP
#define MSPROF_TESTS_UNIT_CONVERT_WINDOW_UTIL_HPP

#include <msprof/convert/model.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace golden_windows {

namespace cv = msprof::convert;

/// A spill budget so small that every sorter spills a run per row or two.
constexpr std::size_t tiny_budget = 256;

/// The model without records: what a writer's finish() receives.
inline cv::model final_of(const cv::model& m) {
  cv::model f;
  f.session = m.session;
  f.iterations = m.iterations;
  f.warnings = m.warnings;
  return f;
}

inline std::vector<cv::model> split(const cv::model& m, std::size_t n, std::uint32_t seed) {
  std::vector<cv::model> w(n);
  for (auto& x : w) {
    x.session = m.session;
    x.iterations = m.iterations;
  }
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  for (const auto& a : m.apis) w[pick(rng)].apis.push_back(a);
  for (const auto& t : m.tasks) w[pick(rng)].tasks.push_back(t);
  auto chunks = [&](const auto& all, auto member) {
    const std::size_t per = (all.size() + n - 1) / n;
    for (std::size_t i = 0; i < all.size(); ++i) (w[i / (per ? per : 1)].*member).push_back(all[i]);
  };
  chunks(m.mstx, &cv::model::mstx);
  chunks(m.mstx_mem, &cv::model::mstx_mem);
  return w;
}

}  // namespace golden_windows

#endif  // MSPROF_TESTS_UNIT_CONVERT_WINDOW_UTIL_HPP
