// SPDX-License-Identifier: MIT
// The nesting planner of the chrome form: everything decided before writing a
// byte (time origin, per-thread nesting with clamped durations, write order).
#ifndef MSPROF_CONVERT_CHROME_PLAN_HPP
#define MSPROF_CONVERT_CHROME_PLAN_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../../core/error.hpp"
#include "../timeline.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

inline constexpr std::uint32_t npos32 = std::numeric_limits<std::uint32_t>::max();

/// A flow that will be written: event indices of its two slices and its category.
struct flow_ref {
  std::uint32_t host = 0;    ///< slice the `s` binds to
  std::uint32_t device = 0;  ///< slice the `f` binds to
  std::uint32_t s_event = 0; ///< the input `s` event (name, id)
  std::uint32_t cat = 0;     ///< index into plan::cats
};

/// Everything decided before writing a byte.
struct plan {
  const std::vector<trace_event>* ev = nullptr;
  std::int64_t origin_ns = 0;
  std::vector<std::int64_t> dur;      ///< written duration per event (X)
  std::vector<std::uint32_t> cat;     ///< category per event (X/I), index into cats
  std::vector<std::string> cats;      ///< [0] = options::default_cat
  std::vector<std::uint32_t> order;   ///< X, I and C events in write order (time order)
  std::vector<std::uint32_t> meta;    ///< M events, input order
  std::vector<flow_ref> flows;
  stats st;
};

/// One thread's X and I events: the range [begin, end) of make_plan's slice
/// list, which is sorted by (pid, tid) and then in nesting order.
struct thread_run {
  std::uint64_t pid, tid;
  std::size_t begin, end;
};

inline std::int64_t end_ns(const plan& p, std::uint32_t i) { return (*p.ev)[i].ts_ns + p.dur[i]; }

/// Plans `ev` for writing: time origin, nesting (with its clamps and trims),
/// flows (flows.hpp) and write order.
result<plan> make_plan(const std::vector<trace_event>& ev, std::int64_t session_start_ns, const options& opt);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_PLAN_HPP
