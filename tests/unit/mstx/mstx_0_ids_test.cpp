// SPDX-License-Identifier: MIT
// Runs first in its process (doctest orders by file name; CTest runs each case
// in its own process): the id counter starts at 1.
#include <doctest/doctest.h>

#include "recorder.hpp"

TEST_CASE("ids start at 1 and are shared by marks and ranges") {
  session_guard s;
  REQUIRE(s.ok);
  mstxMarkA("first", nullptr);
  mstxRangeId r = mstxRangeStartA("second", nullptr);
  mstxMarkA("third", nullptr);
  mstxRangeEnd(r);
  s.stop();
  auto* a = s.rec->find("first");
  auto* b = s.rec->find("second");
  auto* c = s.rec->find("third");
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  REQUIRE(c != nullptr);
  CHECK(a->id == 1);
  CHECK(r == 2);
  CHECK(b->id == 2);
  CHECK(c->id == 3);
}
