// SPDX-License-Identifier: MIT
// result<T>: value() of an error is a caller bug and says so (it never hands out
// a default-constructed value); the error keeps its id and message.
#include <msprof/core/error.hpp>

#include <doctest/doctest.h>

#include <string>

namespace {
msprof::result<int> parse(bool ok) {
  if (!ok) return msprof::make_error(msprof::errc::parse, "x.json: offset 3: expected a digit");
  return 42;
}
}  // namespace

TEST_CASE("result: value() of a success is the value") {
  auto r = parse(true);
  REQUIRE(r);
  CHECK(r.value() == 42);
  CHECK(*r == 42);
}

TEST_CASE("result: value() of an error throws bad_result_access naming the error") {
  auto r = parse(false);
  REQUIRE_FALSE(r);
  CHECK(r.err().code == msprof::errc::parse);
  std::string what;
  try {
    (void)r.value();
  } catch (const msprof::bad_result_access& e) {
    what = e.what();
  }
  CHECK(what.find("x.json: offset 3: expected a digit") != std::string::npos);
  CHECK(what.find("[msprof.parse]") != std::string::npos);
}
