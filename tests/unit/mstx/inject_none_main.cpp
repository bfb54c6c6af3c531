// SPDX-License-Identifier: MIT
// No tool: every call is a no-op returning 0 / NULL, also when
// MSTX_INJECTION_PATH names something that is not an mstx tool.
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <cstdlib>

TEST_CASE("no tool: calls do nothing and return 0 / NULL") {
  REQUIRE(::setenv("MSTX_INJECTION_PATH", "/nonexistent/libnothing.so", 1) == 0);
  mstxMarkA("x", nullptr);
  CHECK(mstxRangeStartA("x", nullptr) == 0);
  mstxRangeEnd(1);
  CHECK(mstxDomainCreateA("d") == nullptr);
  CHECK(mstxDomainRangeStartA(nullptr, "x", nullptr) == 0);
  std::uint64_t id = 99;
  mstxGetToolId(&id);
  CHECK(id == MSTX_TOOL_INVALID_ID);
  CHECK(mstxMemHeapRegister(globalDomain, nullptr) == nullptr);
  CHECK(msprof::range_push("p") == -1);
  CHECK(msprof::range_pop() == -1);
  msprof::scoped_range_in<msprof::default_domain> r{"r"};
  CHECK(r.id() == 0);
  CHECK(msprof_mstx_context_v0_1.state == 3);  // FAILED: no tool
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.markA) == false);
}
