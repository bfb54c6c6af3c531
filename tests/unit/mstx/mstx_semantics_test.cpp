// SPDX-License-Identifier: MIT
// Every rule of the mstx C API as msprof's collector implements it.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "recorder.hpp"

namespace collect = msprof::collect;
using msprof::instrument::reject_reason;
using core = collect::default_core;

TEST_CASE("nothing is recorded and range start returns 0 while not collecting") {
  { session_guard s; }  // attaches, then stops
  CHECK(mstxRangeStartA("idle", nullptr) == 0);
  mstxMarkA("idle", nullptr);
  session_guard s;
  REQUIRE(s.ok);
  mstxMarkA("live", nullptr);
  s.stop();
  CHECK(s.rec->find("idle") == nullptr);
  CHECK(s.rec->find("live") != nullptr);
}

TEST_CASE("message rules: NULL, empty, leading = + - @ TAB CR and >= 156 bytes are rejected and counted") {
  session_guard s;
  REQUIRE(s.ok);
  auto before = core::rejects(reject_reason::bad_message);
  mstxMarkA(nullptr, nullptr);
  mstxMarkA("", nullptr);
  mstxMarkA("=1+1", nullptr);
  mstxMarkA("+x", nullptr);
  mstxMarkA("-x", nullptr);
  mstxMarkA("@x", nullptr);
  mstxMarkA("\t=1+1", nullptr);
  mstxMarkA("\r=1+1", nullptr);
  CHECK(mstxRangeStartA("=cmd", nullptr) == 0);
  CHECK(mstxRangeStartA("\t=cmd", nullptr) == 0);
  std::string ok155(155, 'a'), bad156(156, 'b');
  mstxMarkA(ok155.c_str(), nullptr);
  mstxMarkA(bad156.c_str(), nullptr);
  CHECK(core::rejects(reject_reason::bad_message) - before == 11);
  // `{` messages: backslashes are stripped first, then the length rule applies.
  mstxMarkA("{\"k\\\\\":\\\"v\"}", nullptr);
  std::string brace = "{" + std::string(150, 'c') + std::string(40, '\\') + "}";
  mstxMarkA(brace.c_str(), nullptr);
  std::string brace_long = "{" + std::string(155, 'd') + "}";
  mstxMarkA(brace_long.c_str(), nullptr);
  CHECK(core::rejects(reject_reason::bad_message) - before == 12);
  s.stop();
  CHECK(s.rec->find(ok155) != nullptr);
  CHECK(s.rec->find(bad156) == nullptr);
  CHECK(s.rec->find("{\"k\":\"v\"}") != nullptr);
  CHECK(s.rec->find("{" + std::string(150, 'c') + "}") != nullptr);
  CHECK(collect::losses().rejected >= 12);
}

TEST_CASE("range end: id 0 ignored, ranges pair, cross-thread end keeps the start thread") {
  session_guard s;
  REQUIRE(s.ok);
  auto rej = core::total_rejects();
  mstxRangeEnd(0);
  CHECK(core::total_rejects() == rej);
  mstxRangeId id = mstxRangeStartA("xthread", nullptr);
  REQUIRE(id != 0);
  std::uint32_t other = 0;
  std::thread([&] {
    other = collect::current_tid();
    mstxRangeEnd(id);
  }).join();
  s.stop();
  auto* r = s.rec->find("xthread");
  REQUIRE(r != nullptr);
  CHECK(r->type == 2);
  CHECK(r->tid == collect::current_tid());
  CHECK(r->end_tid == other);
  CHECK(r->end >= r->start);
  CHECK(collect::losses().unknown_end == 0);
}

TEST_CASE("an end that never started and a range left open are counted") {
  session_guard s;
  REQUIRE(s.ok);
  mstxRangeEnd(987654321);
  mstxRangeStartA("left open", nullptr);
  s.stop();
  auto l = collect::losses();
  CHECK(l.unknown_end == 1);
  CHECK(l.unfinished == 1);
}

TEST_CASE("domains: default refused, same name same handle, destroyed records nothing") {
  session_guard s;
  REQUIRE(s.ok);
  CHECK(mstxDomainCreateA("default") == nullptr);
  CHECK(mstxDomainCreateA(nullptr) == nullptr);
  CHECK(mstxDomainCreateA("=evil") == nullptr);
  CHECK(mstxDomainCreateA("\tevil") == nullptr);
  mstxDomainHandle_t a = mstxDomainCreateA("sem_a");
  REQUIRE(a != nullptr);
  CHECK(mstxDomainCreateA("sem_a") == a);
  mstxDomainHandle_t b = mstxDomainCreateA("sem_b");
  CHECK(b != a);
  mstxDomainMarkA(a, "in a", nullptr);
  auto before = core::rejects(reject_reason::destroyed_domain);
  mstxDomainDestroy(b);
  CHECK(msprof_mstx_domain_quiet_v0_1(b) == 0);  // so calls on it are still counted
  mstxDomainMarkA(b, "after destroy", nullptr);
  CHECK(mstxDomainRangeStartA(b, "after destroy range", nullptr) == 0);
  CHECK(core::rejects(reject_reason::destroyed_domain) - before == 2);
  // A bogus handle is rejected, never dereferenced.
  int junk = 0;
  mstxDomainMarkA(reinterpret_cast<mstxDomainHandle_t>(&junk), "junk", nullptr);
  CHECK(core::rejects(reject_reason::destroyed_domain) - before == 3);
  mstxDomainHandle_t b2 = mstxDomainCreateA("sem_b");
  CHECK(b2 != nullptr);
  CHECK(b2 != b);
  s.stop();
  auto* r = s.rec->find("in a");
  REQUIRE(r != nullptr);
  CHECK(r->domain == "sem_a");
  CHECK(s.rec->find("after destroy") == nullptr);
  CHECK(s.rec->find("junk") == nullptr);
}

TEST_CASE("ending a range with another domain is rejected / the right end still closes it") {
  session_guard s;
  REQUIRE(s.ok);
  mstxDomainHandle_t a = mstxDomainCreateA("mm_a");
  mstxDomainHandle_t b = mstxDomainCreateA("mm_b");
  mstxRangeId id = mstxDomainRangeStartA(a, "mismatch", nullptr);
  REQUIRE(id != 0);
  mstxDomainRangeEnd(b, id);
  mstxRangeEnd(id);  // default domain: also a mismatch
  collect::flush();
  CHECK(s.rec->find("mismatch") == nullptr);
  mstxDomainRangeEnd(a, id);
  s.stop();
  CHECK(collect::losses().domain_mismatch == 2);
  auto* r = s.rec->find("mismatch");
  REQUIRE(r != nullptr);
  CHECK(r->domain == "mm_a");
}

TEST_CASE("tool id is msprof's") {
  session_guard s;
  std::uint64_t id = 0;
  mstxGetToolId(&id);
  CHECK(id == MSTX_TOOL_MSPROF_ID);
  mstxGetToolId(nullptr);  // does nothing
}

namespace {
void filter_case(std::vector<std::string> inc, std::vector<std::string> exc, bool want_default, bool want_a,
                 bool want_b, bool want_warning) {
  collect::options o;
  o.domain_include = inc;
  o.domain_exclude = exc;
  session_guard s(o);
  REQUIRE(s.ok);
  mstxDomainHandle_t a = mstxDomainCreateA("flt_a");
  mstxDomainHandle_t b = mstxDomainCreateA("flt_b");
  mstxMarkA("d", nullptr);
  mstxDomainMarkA(a, "a", nullptr);
  mstxDomainMarkA(b, "b", nullptr);
  // A filtered named domain is skipped inline, before any call into the tool.
  CHECK(msprof_mstx_domain_quiet_v0_1(a) == (want_a ? 0 : 1));
  CHECK(msprof_mstx_domain_quiet_v0_1(b) == (want_b ? 0 : 1));
  CHECK(msprof_mstx_domain_quiet_v0_1(nullptr) == 0);
  mstxRangeId r = mstxDomainRangeStartA(a, "ra", nullptr);
  CHECK((r != 0) == want_a);
  mstxDomainRangeEnd(a, r);
  s.stop();
  CHECK((s.rec->find("d") != nullptr) == want_default);
  CHECK((s.rec->find("a") != nullptr) == want_a);
  CHECK((s.rec->find("ra") != nullptr) == want_a);
  CHECK((s.rec->find("b") != nullptr) == want_b);
  CHECK(s.warnings.empty() == !want_warning);
}
}  // namespace

TEST_CASE("domain filter matrix") {
  SUBCASE("none") { filter_case({}, {}, true, true, true, false); }
  SUBCASE("include") { filter_case({"flt_a"}, {}, false, true, false, false); }
  SUBCASE("include default") { filter_case({"default"}, {}, true, false, false, false); }
  SUBCASE("exclude") { filter_case({}, {"flt_a"}, true, false, true, false); }
  SUBCASE("exclude default") { filter_case({}, {"default"}, false, true, true, false); }
  SUBCASE("both: include wins, warning") { filter_case({"flt_b"}, {"flt_b", "default"}, false, false, true, true); }
}

TEST_CASE("8 threads create domains concurrently") {
  session_guard s;
  REQUIRE(s.ok);
  std::vector<std::thread> ts;
  mstxDomainHandle_t shared[8] = {};
  mstxDomainHandle_t own[8] = {};
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      shared[i] = mstxDomainCreateA("conc_shared");
      own[i] = mstxDomainCreateA(("conc_own_" + std::to_string(i)).c_str());
      mstxDomainMarkA(own[i], ("own " + std::to_string(i)).c_str(), nullptr);
    });
  for (auto& t : ts) t.join();
  for (int i = 0; i < 8; ++i) {
    CHECK(shared[i] != nullptr);
    CHECK(shared[i] == shared[0]);
    for (int j = 0; j < i; ++j) CHECK(own[i] != own[j]);
  }
  s.stop();
  for (int i = 0; i < 8; ++i) {
    auto* r = s.rec->find("own " + std::to_string(i));
    REQUIRE(r != nullptr);
    CHECK(r->domain == "conc_own_" + std::to_string(i));
  }
}

namespace {
struct fake_device : msprof::instrument::stream_marker {
  std::vector<std::pair<std::uint64_t, bool>> calls;
  void* last = nullptr;
  void marker(void* stream, std::uint64_t id, bool end) noexcept override {
    last = stream;
    calls.emplace_back(id, end);
  }
};
}  // namespace

TEST_CASE("a stream argument issues a device marker with the event id") {
  fake_device dev;
  core::set_stream_marker(&dev);
  session_guard s;
  REQUIRE(s.ok);
  int stream_obj = 0;
  mstxMarkA("on stream", &stream_obj);
  mstxMarkA("host only", nullptr);
  s.stop();
  core::set_stream_marker(nullptr);
  auto* r = s.rec->find("on stream");
  REQUIRE(r != nullptr);
  CHECK(r->stream);
  REQUIRE(dev.calls.size() == 1);
  CHECK(dev.calls[0].first == r->id);
  CHECK(dev.last == &stream_obj);
  CHECK_FALSE(s.rec->find("host only")->stream);
}

TEST_CASE("memory APIs are validated and recorded") {
  session_guard s;
  REQUIRE(s.ok);
  static char pool[4096];
  mstxMemVirtualRangeDesc_t range{3, pool, sizeof pool};
  mstxMemHeapDesc_t desc{MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &range};
  auto rej = core::rejects(reject_reason::bad_mem_descriptor);
  CHECK(mstxMemHeapRegister(globalDomain, nullptr) == nullptr);
  mstxMemHeapDesc_t bad = desc;
  bad.typeSpecificDesc = nullptr;
  CHECK(mstxMemHeapRegister(globalDomain, &bad) == nullptr);
  mstxMemHeapHandle_t heap = mstxMemHeapRegister(globalDomain, &desc);
  REQUIRE(heap != nullptr);
  mstxMemVirtualRangeDesc_t regions[2] = {{3, pool + 64, 128}, {3, pool + 4000, 200}};  // 2nd out of heap
  mstxMemRegionHandle_t handles[2] = {};
  mstxMemRegionsRegisterBatch_t batch{heap, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, 2, regions, handles};
  mstxMemRegionsRegister(globalDomain, &batch);
  CHECK(handles[0] != nullptr);
  CHECK(handles[1] == nullptr);
  mstxMemRegionRef_t ref;
  ref.refType = MSTX_MEM_REGION_REF_TYPE_POINTER;
  ref.pointer = pool + 64;
  mstxMemRegionsUnregisterBatch_t unreg{1, &ref};
  mstxMemRegionsUnregister(globalDomain, &unreg);
  mstxMemRegionsUnregister(globalDomain, &unreg);  // already gone
  mstxMemHeapUnregister(globalDomain, heap);
  mstxMemHeapUnregister(globalDomain, heap);  // already gone
  CHECK(core::rejects(reject_reason::bad_mem_descriptor) - rej == 5);
  s.stop();
  auto m = s.rec->mem();
  REQUIRE(m.size() == 4);
  CHECK(m[0].op == 0);
  CHECK(m[0].address == reinterpret_cast<std::uintptr_t>(pool));
  CHECK(m[0].size == sizeof pool);
  CHECK(m[0].device_id == 3);
  CHECK(m[1].op == 2);
  CHECK(m[1].address == reinterpret_cast<std::uintptr_t>(pool + 64));
  CHECK(m[1].heap == m[0].handle);
  CHECK(m[2].op == 3);
  CHECK(m[2].handle == m[1].handle);
  CHECK(m[3].op == 1);
  CHECK(m[3].timestamp >= m[0].timestamp);
}

TEST_CASE("step markers reach the sink") {
  session_guard s;
  REQUIRE(s.ok);
  collect::step_begin(7);
  mstxMarkA("inside step", nullptr);
  collect::step_end(7);
  s.stop();
  auto st = s.rec->steps();
  REQUIRE(st.size() == 1);
  CHECK(st[0].step == 7);
  CHECK(st[0].end >= st[0].start);
}

TEST_CASE("fork: the child does not inherit a working collector") {
  session_guard s;
  REQUIRE(s.ok);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    mstxMarkA("from child", nullptr);
    int code = collect::collecting() ? 10 : 0;
    collect::options o;
    o.sink = std::make_shared<recorder>();
    if (collect::start(o)) code += 20;
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  mstxMarkA("from parent", nullptr);
  s.stop();
  CHECK(s.rec->find("from child") == nullptr);
  CHECK(s.rec->find("from parent") != nullptr);
}

namespace {
// The exit status of `child` run in a fork()ed process; a child that hangs is
// ended by SIGALRM after 20 s (a watchdog: the suite never hangs), -1.
template <class F>
int in_child(F&& child) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(20);
    ::_exit(child());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("fork: a child's stop(), flush() and losses() leave the parent's collection alone") {
  collect::options o;
  o.drain_interval = std::chrono::hours(1);  // nothing is drained before stop()
  session_guard s(o);
  REQUIRE(s.ok);
  mstxMarkA("before fork", nullptr);
  CHECK(in_child([&] {
          mstxMarkA("in child", nullptr);  // not recorded; says so on stderr once
          collect::flush();
          const auto l = collect::losses();
          collect::stop();  // the parent's drain thread does not exist here
          // Nothing of the parent's rings went to (the child's copy of) its sink.
          return l.total() == 0 && !collect::default_collector::running() && s.rec->find("before fork") == nullptr
                     ? 0 : 1;
        }) == 0);
  mstxMarkA("after fork", nullptr);
  s.stop();
  CHECK(s.rec->find("before fork") != nullptr);
  CHECK(s.rec->find("after fork") != nullptr);
  CHECK(s.rec->find("in child") == nullptr);
}

TEST_CASE("fork during the first call's initialisation: the child never waits for the parent's initialiser") {
  // The state a fork() leaves when another thread of the parent is inside the
  // init: claimed by the parent's pid, still initialising.
  CHECK(in_child([] {
          __atomic_store_n(&msprof_mstx_context_v0_1.initPid, static_cast<int>(::getppid()), __ATOMIC_RELAXED);
          __atomic_store_n(&msprof_mstx_context_v0_1.state, 1, __ATOMIC_RELAXED);
          msprof_mstx_init_once_v0_1();
          mstxMarkA("no tool in this child", nullptr);
          return msprof_mstx_context_v0_1.state == 3 && msprof_mstx_context_v0_1.markA == nullptr ? 0 : 1;
        }) == 0);
  // The attach lock held by a parent thread at fork().
  CHECK(in_child([] {
          __atomic_store_n(&msprof_mstx_context_v0_1.lock, static_cast<int>(::getppid()), __ATOMIC_RELAXED);
          msprof_mstx_lock_v0_1();
          msprof_mstx_unlock_v0_1();
          return 0;
        }) == 0);
}
