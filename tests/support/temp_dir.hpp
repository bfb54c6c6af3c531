// SPDX-License-Identifier: MIT
// A fresh directory under the test build directory, removed with everything in
// it when the test ends; reading a whole file (or its lines), and damaging one
// in place.
#ifndef MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP
#define MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

struct temp_dir {
  std::string path;  ///< absolute, no trailing slash

  explicit temp_dir(const std::string& prefix = "msprof") {
    std::string t = std::string(MSPROF_TEST_BINARY_DIR) + "/" + prefix + "_XXXXXX";
    REQUIRE(::mkdtemp(&t[0]) != nullptr);
    path = t;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  std::filesystem::path operator/(const std::string& name) const { return std::filesystem::path(path) / name; }
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The lines of `text`, without their '\n'.
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Overwrites the first `from` in file `p` by `to` (padded with NULs to its size).
inline void replace_bytes(const std::filesystem::path& p, std::string_view from, std::string to) {
  std::string b = read_text(p);
  const auto at = b.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(to.size() <= from.size());
  to.resize(from.size(), '\0');
  b.replace(at, from.size(), to);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << b;
}

#endif  // MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP
