// SPDX-License-Identifier: MIT
// Loading an exported model in a test, and picking out its mstx messages.
#ifndef MSPROF_TESTS_SUPPORT_MODEL_TESTING_HPP
#define MSPROF_TESTS_SUPPORT_MODEL_TESTING_HPP

#include <msprof/convert/load.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>

inline msprof::convert::model load(const std::string& prof_dir) {
  auto m = msprof::convert::load_model(prof_dir);
  REQUIRE_MESSAGE(static_cast<bool>(m), (m ? std::string() : m.err().message));
  return std::move(*m);
}

// Messages of the mstx events of `m` in `domain`.
inline std::multiset<std::string> messages(const msprof::convert::model& m, const std::string& domain) {
  std::multiset<std::string> out;
  for (const auto& e : m.mstx)
    if (e.domain == domain) out.insert(e.message);
  return out;
}

#endif  // MSPROF_TESTS_SUPPORT_MODEL_TESTING_HPP
