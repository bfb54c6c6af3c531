// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <msprof/core/error.hpp>
#include <msprof/version.hpp>

TEST_CASE("version.hpp agrees with the VERSION file") {
  std::ifstream in(MSPROF_TEST_VERSION_FILE);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  CHECK(line == MSPROF_VERSION_STRING);
  CHECK(MSPROF_VERSION == MSPROF_VERSION_MAJOR * 10000 + MSPROF_VERSION_MINOR * 100 + MSPROF_VERSION_PATCH);
}

TEST_CASE("errors print their stable id and message") {
  msprof::error e = msprof::make_error(msprof::errc::truncated, "a.slice_0: record at offset 40 needs 40 bytes, 17 remain");
  CHECK(e.what() == "[msprof.truncated] a.slice_0: record at offset 40 needs 40 bytes, 17 remain");
  msprof::result<int> r = e;
  CHECK_FALSE(r);
  CHECK(r.err().code == msprof::errc::truncated);
  msprof::result<int> ok = 7;
  REQUIRE(ok);
  CHECK(*ok == 7);
}

namespace {
msprof::result<int> half(int x) {
  if (x % 2) return msprof::make_error(msprof::errc::invalid_argument, "odd");
  return x / 2;
}
msprof::result<int> quarter(int x) {
  auto h = half(x);
  MSPROF_TRY(h);
  return half(*h);
}
}  // namespace

TEST_CASE("MSPROF_TRY returns the first error") {
  CHECK(*quarter(8) == 2);
  CHECK_FALSE(quarter(6));
  CHECK(quarter(6).err().message == "odd");
}
