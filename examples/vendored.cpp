// SPDX-License-Identifier: MIT
// vendored: one file compiled against the generated single header alone.
// Copy single_include/msprof/mstx.hpp into your tree; no build-system support,
// no other include path, no library to link (CMake target: examples_vendored):
//   g++ -std=c++17 -O2 -I single_include examples/vendored.cpp -o vendored -ldl -pthread
//   build/bin/msprof --output=out --application=./vendored
#include "msprof/mstx.hpp"

#include <cstdio>

struct app {
  static constexpr const char* name = "vendored_app";
};

static unsigned long long collatz_steps(unsigned long long n) {
  MSPROF_FUNC_RANGE_IN(app);
  unsigned long long steps = 0;
  while (n != 1) {
    n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
    ++steps;
  }
  return steps;
}

int main() {
  unsigned long long longest = 0;
  for (unsigned long long start = 1; start < 2000; ++start) {
    const unsigned long long s = collatz_steps(start);
    if (s > longest) {
      longest = s;
      msprof::markf_in<app>("new longest chain {} from {}", s, start);
    }
  }
  std::printf("vendored: longest chain %llu\n", longest);
  return 0;
}
