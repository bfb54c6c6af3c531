// SPDX-License-Identifier: MIT
#include <msprof/ext/fmt.hpp>

#include <doctest/doctest.h>

#include "recorder.hpp"

TEST_CASE("ext/fmt.hpp: fmt-formatted marks") {
  session_guard s;
  REQUIRE(s.ok);
  msprof::fmt_mark("loss {:.3f} at {}", 0.12345, 7);
  msprof::fmt_mark("{}", std::string(300, 'x'));  // cut to the longest accepted message
  s.stop();
  CHECK(s.rec->find("loss 0.123 at 7") != nullptr);
  CHECK(s.rec->find(std::string(155, 'x')) != nullptr);
}
