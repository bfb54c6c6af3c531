// SPDX-License-Identifier: MIT
// A fresh directory under the test build directory, removed with everything in
// it when the test ends; and reading a whole file.
#ifndef MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP
#define MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

#endif  // MSPROF_TESTS_SUPPORT_TEMP_DIR_HPP
