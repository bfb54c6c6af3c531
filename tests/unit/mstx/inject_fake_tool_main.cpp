// SPDX-License-Identifier: MIT
// A program built with our header; MSTX_INJECTION_PATH names a fake tool.
// (Own executable: injection happens once per process, at the first call.)
#include <msprof/mstx.h>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

TEST_CASE("a tool named by MSTX_INJECTION_PATH fills the table (first call from 8 threads)") {
  REQUIRE(::setenv("MSTX_INJECTION_PATH", MSPROF_FAKE_TOOL, 1) == 0);
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i) ts.emplace_back([] { mstxMarkA("race", nullptr); });
  for (auto& t : ts) t.join();
  CHECK(mstxRangeStartA("r", nullptr) == 41);
  mstxRangeEnd(41);
  std::uint64_t id = 0;
  mstxGetToolId(&id);
  CHECK(id == MSTX_TOOL_MSSANITIZER_ID);
  mstxDomainHandle_t d = mstxDomainCreateA("tooldom");
  REQUIRE(d != nullptr);
  mstxDomainMarkA(d, d ? "dm" : "", nullptr);
  mstxDomainRangeEnd(d, 5);  // slot the tool left empty: a no-op
  static char pool[64];
  mstxMemVirtualRangeDesc_t r{0, pool, sizeof pool};
  mstxMemHeapDesc_t desc{MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &r};
  CHECK(mstxMemHeapRegister(globalDomain, &desc) == reinterpret_cast<mstxMemHeapHandle_t>(0x10));
  msprof::mark("cpp layer falls back to the C API");
  { MSPROF_RANGE("literal via fallback"); }

  void* h = ::dlopen(MSPROF_FAKE_TOOL, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto log = reinterpret_cast<const char* (*)()>(::dlsym(h, "fake_tool_log"));
  auto size = reinterpret_cast<unsigned (*)(int)>(::dlsym(h, "fake_tool_size"));
  REQUIRE(static_cast<bool>(log));
  REQUIRE(static_cast<bool>(size));
  std::string s = log();
  CHECK(s.rfind("init;", 0) == 0);  // initialised exactly once, before any call
  CHECK(s.find("init;", 1) == std::string::npos);
  std::size_t races = 0;
  for (std::size_t p = s.find("mark:race;"); p != std::string::npos; p = s.find("mark:race;", p + 1)) ++races;
  CHECK(races == 8);
  CHECK(s.find("start:r;end:41;") != std::string::npos);
  CHECK(s.find("domain:tooldom;dmark:tooldom:dm;") != std::string::npos);
  CHECK(s.find("heap:64;") != std::string::npos);
  CHECK(s.find("mark:cpp layer falls back to the C API;") != std::string::npos);
  CHECK(s.find("start:literal via fallback;end:41;") != std::string::npos);
  CHECK(s.find("invalid module accepted") == std::string::npos);
  CHECK(size(1) == 5);  // slots 0..5, last is the NULL sentinel
  CHECK(size(2) == 6);
  CHECK(size(3) == 6);
}
