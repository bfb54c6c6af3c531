// SPDX-License-Identifier: MIT
// Host timestamps the way CANN takes them: the raw CPU counter (invariant TSC
// on x86_64, cntvct_el0 on aarch64) when it is usable, otherwise
// CLOCK_MONOTONIC_RAW in ns. Records store raw ticks; calibration() gives what
// CANN writes next to them (info.json CPU[..].Frequency in MHz, host_start.log
// clock_monotonic_raw + cntvct), so converters map ticks to ns identically.
#ifndef MSPROF_COLLECT_CLOCK_HPP
#define MSPROF_COLLECT_CLOCK_HPP

#include <atomic>
#include <cstdint>
#include <ctime>

#include "../core/abi.hpp"
#include "../core/platform.hpp"

#if defined(__x86_64__)
#  include <cpuid.h>
#  include <x86intrin.h>
#endif

MSPROF_BEGIN_NAMESPACE
namespace collect {

inline std::uint64_t monotonic_raw_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t cpu_counter() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#elif defined(__aarch64__)
  std::uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return monotonic_raw_ns();
#endif
}

// True when the counter ticks at a constant rate across cores and sleep states.
inline bool cpu_counter_usable() noexcept {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d & (1u << 8)) != 0;  // invariant TSC
#elif defined(__aarch64__)
  return true;  // the generic timer is architecturally constant-rate
#else
  return false;
#endif
}

// What the session writes into info.json / host_start.log.
struct clock_calibration {
  bool counter = false;          // true: ticks are CPU counter cycles; false: CLOCK_MONOTONIC_RAW ns
  double frequency_mhz = 1000.;  // ticks per microsecond (1000 for ns)
  std::uint64_t monotonic_raw_ns = 0;  // a simultaneous pair of readings
  std::uint64_t counter_ticks = 0;
};

namespace detail {
inline std::atomic<bool> use_counter{false};
// Out of line so the hot path that inlines auto_clock::now() needs no timespec on its stack.
MSPROF_NOINLINE inline std::uint64_t monotonic_raw_ns_call() noexcept { return monotonic_raw_ns(); }
}  // namespace detail

// The clock policies a collector may select at compile time.
struct counter_clock {  // always the raw counter (only where it is usable)
  static std::uint64_t now() noexcept { return cpu_counter(); }
  static bool prefer_counter() noexcept { return true; }
};
struct monotonic_raw_clock {
  static std::uint64_t now() noexcept { return monotonic_raw_ns(); }
  static bool prefer_counter() noexcept { return false; }
};
// Default: counter when calibrate() found it usable, else CLOCK_MONOTONIC_RAW.
struct auto_clock {
  static std::uint64_t now() noexcept {
    return MSPROF_LIKELY(detail::use_counter.load(std::memory_order_relaxed)) ? cpu_counter()
                                                                             : detail::monotonic_raw_ns_call();
  }
  static bool prefer_counter() noexcept { return true; }
};

// Measures the counter against CLOCK_MONOTONIC_RAW over ~`window_ns` and picks
// the clock source for auto_clock. Called by collector start(), not hot.
inline clock_calibration calibrate(bool want_counter, std::uint64_t window_ns = 20'000'000) noexcept {
  clock_calibration c;
  bool counter = want_counter && cpu_counter_usable();
#if defined(__aarch64__)
  if (counter) {
    std::uint64_t f;
    asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
    c.frequency_mhz = static_cast<double>(f) / 1e6;
    if (f == 0) counter = false;
  }
#else
  if (counter) {
    std::uint64_t t0 = monotonic_raw_ns(), c0 = cpu_counter();
    std::uint64_t t1 = t0, c1 = c0;
    while (t1 - t0 < window_ns) {
      t1 = monotonic_raw_ns();
      c1 = cpu_counter();
    }
    c.frequency_mhz = static_cast<double>(c1 - c0) * 1000.0 / static_cast<double>(t1 - t0);
    if (!(c.frequency_mhz > 1.0)) counter = false;
  }
#endif
  if (!counter) c.frequency_mhz = 1000.0;
  c.counter = counter;
  c.monotonic_raw_ns = monotonic_raw_ns();
  c.counter_ticks = counter ? cpu_counter() : c.monotonic_raw_ns;
  detail::use_counter.store(counter, std::memory_order_relaxed);
  return c;
}

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_CLOCK_HPP
