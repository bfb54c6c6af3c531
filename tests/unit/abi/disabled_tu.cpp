// SPDX-License-Identifier: MIT
// Built with MSPROF_DISABLE: every call site compiles to nothing.
#define MSPROF_DISABLE
#include <msprof/session/session.hpp>  // the collector and sessions build disabled too
#include <msprof/mstx.hpp>

#include <type_traits>

static_assert(std::is_empty_v<msprof::scoped_range>, "disabled ranges are empty types");
static_assert(std::is_empty_v<msprof::unique_range>);
static_assert(std::is_empty_v<msprof::scoped_range_in<msprof::default_domain>>);
static_assert(std::is_empty_v<msprof::record_function>, "disabled framework ops are empty types");
static_assert(std::is_empty_v<msprof::scoped_enqueue> && std::is_empty_v<msprof::scoped_dequeue>);

namespace {
struct dom {
  static constexpr const char* name = "abi_dom";
};
}  // namespace

// Returns what the C API handed back (all must be 0 / NULL).
long disabled_work() {
  long sum = 0;
  msprof::scoped_range r{"disabled range"};
  msprof::scoped_range_in<dom> rd{"disabled range in dom"};
  msprof::unique_range u{"disabled unique"};
  msprof::mark("disabled mark");
  msprof::markf("disabled {}", 1);
  MSPROF_FUNC_RANGE();
  MSPROF_MARK("disabled literal");
  sum += msprof::range_push("disabled push") + 1;  // -1 + 1
  sum += msprof::range_pop() + 1;
  mstxMarkA("disabled C mark", nullptr);
  sum += static_cast<long>(mstxRangeStartA("disabled C range", nullptr));
  sum += mstxDomainCreateA("abi_c") != nullptr ? 1 : 0;
  std::uint64_t id = 5;
  mstxGetToolId(&id);
  sum += static_cast<long>(id);
  sum += static_cast<long>(r.id() + u.id() + rd.id());
  {
    msprof::record_function f("disabled op", {"float", "1,2", "a.cpp(1): f"});
    msprof::scoped_enqueue q("disabled op", 1);
    msprof::scoped_dequeue d("disabled op", 1);
    msprof::record_memory({});
    msprof::mark_queue(msprof::queue_mark::enqueue_start, 2, "disabled op");
    sum += f.active() ? 1 : 0;
  }
  return sum;
}
