// SPDX-License-Identifier: MIT
// The recorded bodies shared by bench_collect_record and
// bench_collect_record_rounds: the speed-of-light baseline (rdtsc + 24-byte
// store into a prefaulted thread-local array) and our static mark, static
// range and 32-byte dynamic mark. Each runs n events on the calling thread.
#ifndef MSPROF_BENCH_COLLECT_BODIES_HPP
#define MSPROF_BENCH_COLLECT_BODIES_HPP

#include <msprof/collect/collector.hpp>
#include <msprof/mstx.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bench_bodies {

struct baseline_rec {
  std::uint64_t ts, id, payload;
};
constexpr std::size_t baseline_slots = (std::size_t{1} << 20) / sizeof(baseline_rec);

inline void baseline(long n) {
  static thread_local baseline_rec* buf = [] {
    auto* b = new baseline_rec[baseline_slots];
    std::memset(static_cast<void*>(b), 0, sizeof(baseline_rec) * baseline_slots);  // prefault
    return b;
  }();
  static thread_local std::size_t pos = 0;
  for (long i = 0; i < n; ++i) {
    baseline_rec& r = buf[pos++ & (baseline_slots - 1)];
    r.ts = msprof::collect::cpu_counter();
    r.id = static_cast<std::uint64_t>(i);
    r.payload = 42;
    asm volatile("" ::: "memory");
  }
}
inline void static_mark(long n) {
  for (long i = 0; i < n; ++i) MSPROF_MARK("static mark");
}
inline void static_range(long n) {  // one begin + one end = 2 events
  for (long i = 0; i < n / 2; ++i) {
    MSPROF_RANGE("static range");
  }
}
inline void dynamic_mark(long n) {
  static const char msg[] = "dynamic message of 32 bytes....";  // 31 chars + NUL
  for (long i = 0; i < n; ++i) mstxMarkA(msg, nullptr);
}

}  // namespace bench_bodies

#endif  // MSPROF_BENCH_COLLECT_BODIES_HPP
