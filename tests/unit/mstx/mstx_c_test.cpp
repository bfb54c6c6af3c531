// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "recorder.hpp"

extern "C" {
mstxRangeId c_range_start(const char* msg);
void c_range_end(mstxRangeId id);
void c_mark(const char* msg);
mstxDomainHandle_t c_domain(const char* name);
void c_domain_mark(mstxDomainHandle_t d, const char* msg);
uint64_t c_tool_id(void);
}

TEST_CASE("C translation units share the dispatch table with C++ ones") {
  session_guard s;
  REQUIRE(s.ok);
  CHECK(c_tool_id() == MSTX_TOOL_MSPROF_ID);
  c_mark("from C");
  mstxRangeId id = c_range_start("C range");
  CHECK(id != 0);
  mstxRangeEnd(id);  // ended from C++
  mstxDomainHandle_t d = c_domain("c_dom");
  CHECK(d == mstxDomainCreateA("c_dom"));
  c_domain_mark(d, "C domain mark");
  CHECK(c_range_start("=no") == 0);
  s.stop();
  CHECK(s.rec->find("from C") != nullptr);
  CHECK(s.rec->find("C range") != nullptr);
  REQUIRE(s.rec->find("C domain mark") != nullptr);
  CHECK(s.rec->find("C domain mark")->domain == "c_dom");
}
