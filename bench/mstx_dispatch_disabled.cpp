// SPDX-License-Identifier: MIT
// The compiled-out case: with MSPROF_DISABLE every call site is nothing, so
// the loop below costs what an empty loop costs.
#define MSPROF_DISABLE
#include <msprof/mstx.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 50'000'000;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    mstxMarkA("m", nullptr);
    msprof::scoped_range r{"r"};
    MSPROF_MARK("m");
    asm volatile("" ::: "memory");  // keep the (empty) loop
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n);
  std::printf("bench=mstx_dispatch case=compiled_out ns_per_call=%.3f calls=%ld\n", ns, n);
  return 0;
}
