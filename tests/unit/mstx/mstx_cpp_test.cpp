// SPDX-License-Identifier: MIT
// The C++ layer (<msprof/mstx.hpp>) on top of the in-process collector. This
// TU is the program's MSPROF_IMPLEMENT TU.
#define MSPROF_IMPLEMENT
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <type_traits>

#include "recorder.hpp"

namespace {
struct train {
  static constexpr const char* name = "train";
};
struct noisy {
  static constexpr const char* name = "noisy";
};
}  // namespace
template <>
struct msprof::domain_traits<noisy> {
  static constexpr bool enabled = false;
};

static_assert(!std::is_copy_constructible_v<msprof::scoped_range>);
static_assert(!std::is_move_constructible_v<msprof::scoped_range>);
static_assert(std::is_move_constructible_v<msprof::unique_range>);
static_assert(!std::is_copy_constructible_v<msprof::unique_range>);
static_assert(std::is_nothrow_constructible_v<msprof::scoped_range, const char*>);
static_assert(std::is_empty_v<msprof::scoped_range_in<noisy>>, "a disabled domain compiles out");
static_assert(std::is_empty_v<msprof::unique_range_in<noisy>>);
static_assert(sizeof(msprof::scoped_range) == sizeof(mstxRangeId), "no heap, only the id");
static_assert(noexcept(msprof::mark("x")));
static_assert(noexcept(msprof::markf("{}", 1)));
static_assert(!std::is_copy_constructible_v<msprof::record_function>);
static_assert(!std::is_move_constructible_v<msprof::record_function>);
static_assert(std::is_nothrow_constructible_v<msprof::record_function, const char*>);
static_assert(noexcept(msprof::record_memory({})));

namespace {
void instrumented_function() { MSPROF_FUNC_RANGE(); }
void instrumented_in_train() { MSPROF_FUNC_RANGE_IN(train); }
}  // namespace

TEST_CASE("scoped ranges, typed domains and static literals") {
  session_guard s;
  REQUIRE(s.ok);
  static const char* literal_address = nullptr;
  {
    msprof::scoped_range_in<train> r{"epoch"};
    CHECK(r.id() != 0);
    MSPROF_RANGE_IN(train, "literal range");
    MSPROF_MARK("literal mark");
  }
  instrumented_function();
  instrumented_in_train();
  msprof::mark_in<noisy>("never");
  { msprof::scoped_range_in<noisy> n{"never range"}; }
  s.stop();
  (void)literal_address;
  auto* e = s.rec->find("epoch");
  REQUIRE(e != nullptr);
  CHECK(e->domain == "train");
  CHECK(e->type == 2);
  REQUIRE(s.rec->find("literal range") != nullptr);
  CHECK(s.rec->find("literal range")->domain == "train");
  CHECK(s.rec->find("literal mark") != nullptr);
  auto* f = s.rec->find("instrumented_function");
  REQUIRE(f != nullptr);
  CHECK(f->domain == "default");
  REQUIRE(s.rec->find("instrumented_in_train") != nullptr);
  CHECK(s.rec->find("instrumented_in_train")->domain == "train");
  CHECK(s.rec->find("never") == nullptr);
  CHECK(s.rec->find("never range") == nullptr);
}

TEST_CASE("unique_range moves to another thread and ends there") {
  session_guard s;
  REQUIRE(s.ok);
  msprof::unique_range u{"moved"};
  auto id = u.id();
  CHECK(id != 0);
  std::uint32_t other = 0;
  std::thread([r = std::move(u), &other]() mutable {
    other = msprof::collect::current_tid();
    r.end();
    r.end();  // second end is a no-op
  }).join();
  CHECK(u.id() == 0);
  s.stop();
  auto* r = s.rec->find("moved");
  REQUIRE(r != nullptr);
  CHECK(r->id == id);
  CHECK(r->end_tid == other);
  CHECK(msprof::collect::losses().unknown_end == 0);
}

TEST_CASE("range_push / range_pop return torch_npu's values") {
  session_guard s;
  REQUIRE(s.ok);
  CHECK(msprof::range_pop() == -1);  // empty
  CHECK(msprof::range_push("outer") == 0);
  CHECK(msprof::range_push("inner") == 1);
  CHECK(msprof::range_push_in<train>("other domain") == 0);  // per-domain stacks
  CHECK(msprof::range_push("=bad") == -1);
  CHECK(msprof::range_pop() == 1);
  CHECK(msprof::range_pop() == 0);
  CHECK(msprof::range_pop() == -1);
  CHECK(msprof::range_pop_in<train>() == 0);
  int other_thread = 5;
  std::thread([&] { other_thread = msprof::range_pop(); }).join();
  CHECK(other_thread == -1);  // per-thread
  s.stop();
  auto* in = s.rec->find("inner");
  auto* out = s.rec->find("outer");
  REQUIRE(in != nullptr);
  REQUIRE(out != nullptr);
  CHECK(in->start >= out->start);
  CHECK(in->end <= out->end);
  CHECK(s.rec->find("other domain")->domain == "train");
}

TEST_CASE("markf formats with the std-only formatter") {
  char buf[64];
  CHECK(std::string(buf, msprof::format_to(buf, sizeof buf, "step {} of {}", 3, 10u)) == "step 3 of 10");
  CHECK(std::string(buf, msprof::format_to(buf, sizeof buf, "{} {} {} {}", -7, 2.5, true, "s")) == "-7 2.5 true s");
  CHECK(std::string(buf, msprof::format_to(buf, sizeof buf, "{{}} {}", std::string("x"))) == "{} x");
  CHECK(std::string(buf, msprof::format_to(buf, sizeof buf, "missing {}")) == "missing {}");
  CHECK(msprof::format_to(buf, 8, "{}", "0123456789") == 7);  // truncated, NUL-terminated
  CHECK(std::string(buf) == "0123456");
  session_guard s;
  REQUIRE(s.ok);
  msprof::markf("iter {} loss {}", 42, 0.125);
  msprof::markf_in<train>("domain {}", "t");
  msprof::markf("{}{}", std::string(150, 'y').c_str(), 1234567890);  // 160 bytes: cut, not rejected
  s.stop();
  CHECK(s.rec->find(std::string(150, 'y') + "12345") != nullptr);
  CHECK(s.rec->find("iter 42 loss 0.125") != nullptr);
  REQUIRE(s.rec->find("domain t") != nullptr);
  CHECK(s.rec->find("domain t")->domain == "train");
}

TEST_CASE("MSPROF_IMPLEMENT: domains work before start(), idle calls are one load + branch") {
  mstxDomainHandle_t d = mstxDomainCreateA("before_start");
  CHECK(d != nullptr);
  CHECK(d == mstxDomainCreateA("before_start"));
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.markA) == false);  // idle: NULL slot
  CHECK(mstxRangeStartA("idle", nullptr) == 0);
  session_guard s;
  REQUIRE(s.ok);
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.markA));
  mstxDomainMarkA(d, "early handle", nullptr);
  s.stop();
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.markA) == false);
  REQUIRE(s.rec->find("early handle") != nullptr);
  CHECK(s.rec->find("early handle")->domain == "before_start");
}

TEST_CASE("static literals in a domain still record when the default domain is filtered out") {
  msprof::collect::options o;
  o.domain_exclude = {"default"};
  session_guard s(o);
  REQUIRE(s.ok);
  MSPROF_MARK("default literal");
  MSPROF_MARK_IN(train, "train literal");
  { MSPROF_RANGE_IN(train, "train literal range"); }
  s.stop();
  CHECK(s.rec->find("default literal") == nullptr);
  CHECK(s.rec->find("train literal") != nullptr);
  CHECK(s.rec->find("train literal range") != nullptr);
}

namespace {
struct flt_cpp {
  static constexpr const char* name = "flt_cpp";
};
}  // namespace

TEST_CASE("a typed domain filtered out is skipped inline and records again when the filter changes") {
  msprof::collect::options o;
  o.domain_exclude = {"flt_cpp"};
  {
    session_guard s(o);
    REQUIRE(s.ok);
    MSPROF_MARK_IN(flt_cpp, "filtered literal");
    { MSPROF_RANGE_IN(flt_cpp, "filtered range"); }
    msprof::mark_in<flt_cpp>("filtered dynamic");
    CHECK(msprof::detail::filtered<flt_cpp>());  // the cached byte, read without a call
    s.stop();
    CHECK(s.rec->find("filtered literal") == nullptr);
    CHECK(s.rec->find("filtered range") == nullptr);
    CHECK(s.rec->find("filtered dynamic") == nullptr);
  }
  session_guard s;  // no filter: the same cached handle records
  REQUIRE(s.ok);
  CHECK_FALSE(msprof::detail::filtered<flt_cpp>());
  MSPROF_MARK_IN(flt_cpp, "kept literal");
  s.stop();
  REQUIRE(s.rec->find("kept literal") != nullptr);
  CHECK(s.rec->find("kept literal")->domain == "flt_cpp");
}

TEST_CASE("record_function, queue marks and memory events: idle one load + branch, collected as framework records") {
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.extFwNow) == false);  // idle: NULL slot
  {
    msprof::record_function idle("idle op");
    CHECK_FALSE(idle.active());
    msprof::scoped_enqueue q("idle op", 1);
    msprof::record_memory({});
  }
  session_guard s;
  REQUIRE(s.ok);
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.extFwNow));
  const auto main_tid = msprof::collect::current_tid();
  std::uint32_t worker_tid = 0;
  {
    msprof::op_attributes a;
    a.input_dtypes = "float";
    a.input_shapes = "4,4";
    a.call_stack = "a.cpp(1): f;b.cpp(2): g";
    a.sequence_nr = 7;
    a.scope = 1;
    const std::string long_name(20000, 'x');  // cut at collect::fw_max_field
    msprof::record_function outer("outer op", a);
    CHECK(outer.active());
    { msprof::record_function inner(long_name); }
    msprof::scoped_enqueue q("outer op", 42);
    std::thread t([&] {
      worker_tid = msprof::collect::current_tid();
      msprof::scoped_dequeue d("outer op", 42);
      msprof::op_attributes b;
      b.fwd_thread_id = main_tid;
      msprof::record_function bw("backward op", b);
    });
    t.join();
    msprof::memory_event m;
    m.ptr = 64;
    m.alloc_size = -32;
    m.device_index = 3;
    m.allocator_type = 1;
    msprof::record_memory(m);
  }
  s.stop();
  CHECK(static_cast<bool>(msprof_mstx_context_v0_1.extFwNow) == false);
  auto ops = s.rec->fw_ops();
  REQUIRE(ops.size() == 3);
  // Each thread's ops in the order they ended; threads in any order.
  std::map<std::string, recorded_fw> by_name;
  for (auto& o : ops) by_name[o.name.substr(0, 20)] = o;
  const auto& inner = by_name[std::string(20, 'x')];
  CHECK(inner.name == std::string(msprof::collect::fw_max_field, 'x'));
  CHECK(inner.op.seq == -1);
  CHECK(inner.dtypes.empty());
  const auto& backward = by_name["backward op"];
  CHECK(backward.op.tid == worker_tid);
  CHECK(backward.op.fwd_tid == main_tid);
  const auto& outer = by_name["outer op"];
  CHECK(outer.op.tid == main_tid);
  CHECK(outer.op.seq == 7);
  CHECK(outer.op.scope == 1);
  CHECK(outer.dtypes == "float");
  CHECK(outer.shapes == "4,4");
  CHECK(outer.stack == "a.cpp(1): f;b.cpp(2): g");
  CHECK(outer.op.start <= inner.op.start);
  CHECK(inner.op.end <= outer.op.end);
  const auto marks = s.rec->fw_marks();
  REQUIRE(marks.size() == 4);
  std::multiset<std::uint64_t> categories;
  for (const auto& m : marks) {
    categories.insert(m.mark.category);
    CHECK(m.name == "outer op");
    CHECK(m.mark.corr_id == 42);
    CHECK(m.mark.tid == (m.mark.category < 2 ? main_tid : worker_tid));
  }
  CHECK(categories == std::multiset<std::uint64_t>{0, 1, 2, 3});
  const auto mem = s.rec->fw_memory();
  REQUIRE(mem.size() == 1);
  CHECK(mem[0].ptr == 64);
  CHECK(mem[0].alloc_size == -32);
  CHECK(mem[0].device_type == 20);
  CHECK(mem[0].device_index == 3);
  CHECK(mem[0].allocator_type == 1);
  CHECK(mem[0].tid == main_tid);
  const auto l = msprof::collect::losses();
  CHECK(l.complete());
  CHECK(l.collected == 8);
}
