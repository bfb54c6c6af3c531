// SPDX-License-Identifier: MIT
// The same API without MSPROF_DISABLE, linked into the same program.
#include <msprof/mstx.hpp>

namespace {
struct dom {
  static constexpr const char* name = "abi_dom";
};
}  // namespace

static_assert(sizeof(msprof::scoped_range) == sizeof(mstxRangeId));

unsigned long long enabled_work() {
  msprof::scoped_range r{"enabled range"};
  msprof::scoped_range_in<dom> rd{"enabled range in dom"};
  msprof::mark("enabled mark");
  return r.id();
}
