// SPDX-License-Identifier: MIT
// A writable copy of one golden-pt case's input for the ascend_pt tests.
#ifndef MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP
#define MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "../../support/temp_dir.hpp"

/// A copy of tests/golden-pt/<c>/input/<*_ascend_pt> under `tmp` (writable: the
/// analysis writes ASCEND_PROFILER_OUTPUT/ into it).
inline std::filesystem::path copy_case(const temp_dir& tmp, const std::string& c) {
  namespace fs = std::filesystem;
  const fs::path in = fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / c / "input";
  fs::path pt_dir;
  for (const auto& e : fs::directory_iterator(in)) {
    pt_dir = tmp / e.path().filename().string();
    fs::copy(e.path(), pt_dir, fs::copy_options::recursive);
  }
  REQUIRE(!pt_dir.empty());
  for (const auto& e : fs::recursive_directory_iterator(pt_dir))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  return pt_dir;
}

/// How many times `s` occurs in `text` (overlapping occurrences counted).
inline std::size_t count_of(const std::string& text, const std::string& s) {
  std::size_t n = 0;
  for (auto at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
  return n;
}

#endif  // MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP
