// SPDX-License-Identifier: MIT
// domains: several typed domains, runtime include/exclude, compile-time removal.
// A domain is a type with a name; `io` and `compute` are recorded, `trace` is
// compiled out (domain_traits<trace>::enabled = false; -DEXAMPLE_WITH_TRACE keeps it).
// Filter at run time without rebuilding (keep only compute, or --mstx-domain-exclude=io):
//   cmake --build build --target examples_domains msprof_cli msprof_mstx
//   build/bin/msprof --output=out --mstx-domain-include=compute --application=build/bin/examples/domains
#include <msprof/mstx.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

struct io {
  static constexpr const char* name = "io";
};
struct compute {
  static constexpr const char* name = "compute";
};
struct trace {  // very chatty, only wanted in special builds
  static constexpr const char* name = "trace";
};

#ifndef EXAMPLE_WITH_TRACE
template <>
struct msprof::domain_traits<trace> {
  static constexpr bool enabled = false;
};
#endif

namespace {

std::vector<int> read_batch(int i) {
  MSPROF_FUNC_RANGE_IN(io);
  std::vector<int> batch(100000);
  std::iota(batch.begin(), batch.end(), i);
  return batch;
}

long long reduce(const std::vector<int>& batch) {
  MSPROF_RANGE_IN(compute, "reduce");
  long long sum = 0;
  for (int x : batch) {
    sum += x;
    if (x % 50000 == 0) MSPROF_MARK_IN(trace, "element");  // removed at compile time
  }
  return sum;
}

}  // namespace

int main() {
  long long total = 0;
  for (int i = 0; i < 8; ++i) {
    msprof::markf_in<io>("batch {}", i);
    total += reduce(read_batch(i));
  }
  std::printf("domains: total %lld\n", total);
  return 0;
}
