// SPDX-License-Identifier: MIT
// The injection path: a program built against CANN's header (no msprof code)
// records through libmsprof_mstx.so named by MSTX_INJECTION_PATH, as under
// `msprof --application`. Each round times, on one thread, 8,000 events of:
// the speed-of-light baseline (rdtsc + 24-byte store into a prefaulted
// thread-local array), mstxRangeStartA + mstxRangeEnd pairs, and mstxMarkA
// with a 31-byte message; a round is small enough for the thread's ring and
// a pause between rounds lets the drain empty it, so this is the producer's
// cost. Ratios are taken within each round; the medians are printed.
//   build-rel/bench/bench_mstx_injection build-rel/lib/libmsprof_mstx.so
#include "mstx/ms_tools_ext.h"

#include <msprof/collect/clock.hpp>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

namespace {

constexpr int events = 8000;  // 56 bytes each at most: under half of a 1 MiB ring, so the drain stays asleep

struct baseline_rec {
  std::uint64_t ts, id, payload;
};
baseline_rec* baseline_buf() {
  static thread_local baseline_rec* b = [] {
    auto* p = new baseline_rec[events];
    std::memset(static_cast<void*>(p), 0, sizeof(baseline_rec) * events);  // prefault
    return p;
  }();
  return b;
}

template <class Body>
double ns_per_event(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / events;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <path of libmsprof_mstx.so>\n", argv[0]);
    return 2;
  }
  const auto out = std::filesystem::temp_directory_path() / "msprof_bench_injection";
  std::filesystem::create_directories(out);
  ::setenv("MSTX_INJECTION_PATH", argv[1], 1);
  ::setenv("MSPROF_OUTPUT", out.c_str(), 1);
  constexpr int rounds = 15;
  static const char msg31[] = "dynamic message of 31 bytes....";
  static_assert(sizeof msg31 == 32, "31 characters and the NUL");
  mstxMarkA("warm up", nullptr);  // loads the library, registers the thread
  std::vector<double> base, range, mark, r_range, r_mark;
  for (int r = 0; r < rounds; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const double b = ns_per_event([] {
      baseline_rec* buf = baseline_buf();
      for (int i = 0; i < events; ++i) {
        buf[i].ts = msprof::collect::cpu_counter();
        buf[i].id = static_cast<std::uint64_t>(i);
        buf[i].payload = 42;
        asm volatile("" ::: "memory");
      }
    });
    const double rg = ns_per_event([] {
      for (int i = 0; i < events / 2; ++i) mstxRangeEnd(mstxRangeStartA("step", nullptr));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const double mk = ns_per_event([] {
      for (int i = 0; i < events; ++i) mstxMarkA(msg31, nullptr);
    });
    base.push_back(b);
    range.push_back(rg);
    mark.push_back(mk);
    r_range.push_back(rg / b);
    r_mark.push_back(mk / b);
  }
  std::printf("bench=mstx_injection case=baseline_rdtsc_store24 ns_per_event=%.2f rounds=%d events=%d\n", median(base),
              rounds, events);
  std::printf("bench=mstx_injection case=range_start_end ns_per_event=%.2f ns_per_pair=%.2f\n", median(range),
              2 * median(range));
  std::printf("bench=mstx_injection case=markA_dynamic31 ns_per_event=%.2f\n", median(mark));
  std::printf("ratio range_start_end_vs_baseline=%.2f\n", median(r_range));
  std::printf("ratio markA_dynamic31_vs_baseline=%.2f\n", median(r_mark));
  std::printf("(the PROF_ directory is written under %s at exit)\n", out.c_str());
  return 0;
}
