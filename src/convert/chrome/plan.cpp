// SPDX-License-Identifier: MIT
// The nesting planner of the chrome form (include/msprof/convert/chrome/plan.hpp):
// time origin, per-thread nesting as DevTools computes it, write order.
#include "msprof/convert/chrome/plan.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "msprof/convert/chrome/flows.hpp"
#include "msprof/convert/chrome/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {
namespace {

bool is_slice_phase(char ph) noexcept { return ph == 'X' || ph == 'I' || ph == 'i'; }

/// Per thread: clamp overlaps (integer ns), then simulate DevTools' tree
/// builder in doubles and trim by whole ns until it agrees, so the engine keeps
/// every slice at the depth the ns data gives it. Returns false if it did not
/// converge (it always has in tests; the bound is a guard against a bug).
bool nest_thread(plan& p, const std::uint32_t* idx, std::size_t n, std::vector<std::uint8_t>& flags) {
  const auto& ev = *p.ev;
  std::vector<std::uint32_t> stack;
  enum : std::uint8_t { overlap = 1, rounding = 2 };
  for (int round = 0; round < 64; ++round) {
    // 1. Integer pass: a child ends no later than its parent.
    stack.clear();
    std::size_t depth = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t i = idx[k];
      const std::int64_t s = ev[i].ts_ns;
      while (!stack.empty() && end_ns(p, stack.back()) <= s) stack.pop_back();
      if (!stack.empty() && end_ns(p, i) > end_ns(p, stack.back())) {
        p.dur[i] = end_ns(p, stack.back()) - s;
        flags[i] |= round == 0 ? overlap : rounding;
      }
      stack.push_back(i);
      depth = std::max(depth, stack.size());
    }
    // 2. Double pass: what the engine computes (TreeHelpers.treify) on the
    //    numbers JSON.parse will produce. Trim where it disagrees.
    bool changed = false;
    stack.clear();
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t i = idx[k];
      const double b = js_us(ev[i].ts_ns - p.origin_ns);
      const double e = b + js_us(p.dur[i]);
      bool push = true;
      while (!stack.empty()) {
        const std::uint32_t t = stack.back();
        const double tb = js_us(ev[t].ts_ns - p.origin_ns);
        const double te = tb + js_us(p.dur[t]);
        if (end_ns(p, t) <= ev[i].ts_ns) {
          // ns: t ended before i starts. The engine must see that too.
          if (b < te) {
            --p.dur[t];  // t's rounded end reaches past i's start
            flags[t] |= rounding;
            changed = true;
          }
          stack.pop_back();
          continue;
        }
        // ns: i starts inside t. Below 2^50 ns the rounding error of ts + dur
        // is under 0.4 ns, so the engine agrees; anything else is a bug.
        if (b >= te) return false;
        if (e > te) {  // ns: i inside t, but its rounded end is past t's
          --p.dur[i];
          flags[i] |= rounding;
          changed = true;
          push = false;
        }
        break;
      }
      if (push) stack.push_back(i);
    }
    if (!changed) {
      p.st.max_depth = std::max(p.st.max_depth, depth);
      return true;
    }
  }
  return false;
}

}  // namespace

result<plan> make_plan(const std::vector<trace_event>& ev, std::int64_t session_start_ns, const options& opt) {
  plan p;
  p.ev = &ev;
  if (ev.size() >= npos32) return make_error(errc::limit, "chrome trace: more than 4 Gi events");
  p.dur.assign(ev.size(), 0);
  p.cat.assign(ev.size(), 0);
  p.cats.push_back(opt.default_cat);

  // Time origin: the session start, unless a slice starts at or before it
  // (DevTools leaves ts == 0 out of the trace bounds, so no slice sits at 0) or
  // a counter before it (nothing is negative).
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_slice = none, min_counter = none;
  std::int64_t max_ts = std::numeric_limits<std::int64_t>::min();
  std::vector<std::uint32_t> slices;  // X and I events
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    const auto i = static_cast<std::uint32_t>(k);
    if (is_slice_phase(e.ph) || e.ph == 'C') {
      std::int64_t d = e.ph == 'X' ? e.dur_ns : 0;
      if (d < 0) {
        ++p.st.negative_dur;
        d = 0;
      }
      p.dur[i] = d;
      if (is_slice_phase(e.ph)) {
        slices.push_back(i);
        min_slice = std::min(min_slice, e.ts_ns);
      } else {
        min_counter = std::min(min_counter, e.ts_ns);
      }
      max_ts = std::max(max_ts, e.ts_ns + d);
    } else if (e.ph == 'M') {
      p.meta.push_back(i);
    } else if (e.ph != 's' && e.ph != 'f') {
      ++p.st.unsupported;
    }
  }
  p.origin_ns = session_start_ns;
  if ((min_slice != none && min_slice <= session_start_ns) || (min_counter != none && min_counter < session_start_ns)) {
    p.origin_ns = std::min(min_slice == none ? none : min_slice - 1000, min_counter);
    p.origin_ns -= ((p.origin_ns % 1000) + 1000) % 1000;  // a whole µs, for readable numbers
  }
  // Relative times must stay far below the precision of a double: under
  // 2^50 ns (13 days) ts + dur is off by less than 0.4 ns, which keeps the
  // engine's comparisons exact for anything 1 ns apart.
  if (max_ts != std::numeric_limits<std::int64_t>::min() && max_ts - p.origin_ns >= (std::int64_t{1} << 50))
    return make_error(errc::limit, fmt::format("chrome trace: events span {} ns after the time origin; the chrome form "
                                               "holds at most 2^50 ns (13 days)",
                                               max_ts - p.origin_ns));

  // Per-thread nesting order: start, longer first, input order. Sorted on a
  // compact copy of the keys: the events themselves are large and scattered.
  {
    struct key {
      std::uint64_t pid, tid;
      std::int64_t ts, neg_dur;
      std::uint32_t index;
    };
    std::vector<key> keys;
    keys.reserve(slices.size());
    for (auto i : slices) keys.push_back({ev[i].pid, ev[i].tid, ev[i].ts_ns, -p.dur[i], i});
    std::sort(keys.begin(), keys.end(), [](const key& a, const key& b) {
      return std::tie(a.pid, a.tid, a.ts, a.neg_dur, a.index) < std::tie(b.pid, b.tid, b.ts, b.neg_dur, b.index);
    });
    for (std::size_t k = 0; k < keys.size(); ++k) slices[k] = keys[k].index;
  }
  std::vector<thread_run> threads;
  std::vector<std::uint8_t> flags(ev.size(), 0);
  for (std::size_t b = 0; b < slices.size();) {
    std::size_t e = b;
    while (e < slices.size() && ev[slices[e]].pid == ev[slices[b]].pid && ev[slices[e]].tid == ev[slices[b]].tid) ++e;
    threads.push_back({ev[slices[b]].pid, ev[slices[b]].tid, b, e});
    if (!nest_thread(p, slices.data() + b, e - b, flags))
      return make_error(errc::unsupported, fmt::format("chrome trace: nesting on pid {} tid {} did not settle",
                                                       ev[slices[b]].pid, ev[slices[b]].tid));
    b = e;
  }
  for (auto f : flags) {
    if (f & 1) ++p.st.clamped_overlap;
    if (f & 2) ++p.st.clamped_rounding;
  }

  plan_flows(p, slices, threads);

  // Write order: time, then the per-thread nesting order (parents first),
  // counters after slices of the same time, in input order.
  {
    struct key {
      std::int64_t ts;
      std::uint64_t rank;  // slices: position in nesting order; counters: 2^32 + input index
      std::uint32_t index;
    };
    std::vector<key> keys;
    keys.reserve(slices.size() + 16);
    for (std::size_t k = 0; k < slices.size(); ++k) keys.push_back({ev[slices[k]].ts_ns, k, slices[k]});
    for (std::size_t k = 0; k < ev.size(); ++k)
      if (ev[k].ph == 'C') keys.push_back({ev[k].ts_ns, (std::uint64_t{1} << 32) + k, static_cast<std::uint32_t>(k)});
    std::sort(keys.begin(), keys.end(),
              [](const key& a, const key& b) { return a.ts < b.ts || (a.ts == b.ts && a.rank < b.rank); });
    p.order.resize(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) p.order[k] = keys[k].index;
  }
  return p;
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
