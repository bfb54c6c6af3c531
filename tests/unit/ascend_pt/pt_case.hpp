// SPDX-License-Identifier: MIT
// A writable copy of one golden-pt case's input for the ascend_pt tests.
#ifndef MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP
#define MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP

#include <doctest/doctest.h>

#include <filesystem>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <sqlite3.h>

#include <string>
#include <vector>

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

/// pt_memory with `add` applied to its PROF_ part, analysed (text and db);
/// its ASCEND_PROFILER_OUTPUT.
inline std::filesystem::path analysed(const temp_dir& tmp, void (*add)(const std::filesystem::path&)) {
  namespace fs = std::filesystem;
  const fs::path dir = copy_case(tmp, "pt_memory");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) add(e.path());
  for (const char* type : {"text", "db"}) {
    auto r = msprof::convert::ascend_pt::analyse(dir.string(), {type});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
  }
  return dir / "ASCEND_PROFILER_OUTPUT";
}

/// Rows of a query, cells joined by '|'.
inline std::vector<std::string> db_rows(const std::filesystem::path& db, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i) row += '|';
      const auto* t = sqlite3_column_text(st, i);
      row += t ? reinterpret_cast<const char*>(t) : "NULL";
    }
    out.push_back(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

/// How many times `s` occurs in `text` (overlapping occurrences counted).
inline std::size_t count_of(const std::string& text, const std::string& s) {
  std::size_t n = 0;
  for (auto at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
  return n;
}

#endif  // MSPROF_TESTS_ASCEND_PT_PT_CASE_HPP
