// SPDX-License-Identifier: MIT
// The single-thread cases of bench_collect_record, interleaved: each round runs
// baseline, static mark, static range and dynamic mark once (n events each,
// ring drained after each), and a case's ratio to the baseline is taken within
// its round. The medians over rounds move much less with a noisy host than one
// 2 M-event measurement per case, so A/B comparisons of the recording path use
// this program (alternate old and new binaries run for run, see performance.md).
// Usage: bench_collect_record_rounds [n=1000000] [rounds=15]
// Output: `bench=collect_record_rounds case=<name> ns_per_event_median=<x> ns_min=<x>
//          ratio_median=<x> ratio_min=<x> ratio_max=<x>`
#include "collect_bodies.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace collect = msprof::collect;

namespace {
struct null_sink : collect::record_sink {
  void write_tx(const collect::tx_record&) override {}
};

using bench_bodies::baseline;
using bench_bodies::dynamic_mark;
using bench_bodies::static_mark;
using bench_bodies::static_range;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  if (n <= 0 || rounds <= 0) return 2;
  collect::options o;
  o.sink = std::make_shared<null_sink>();
  o.ring_bytes = std::size_t{128} << 20;  // as bench_collect_record
  if (!collect::start(o)) return 1;
  struct row {
    const char* name;
    void (*body)(long);
    std::vector<double> ns, ratio;
  } rows[] = {{"baseline_rdtsc_store24", baseline, {}, {}},
              {"static_mark", static_mark, {}, {}},
              {"static_range_begin_end", static_range, {}, {}},
              {"markA_dynamic32", dynamic_mark, {}, {}}};
  for (auto& r : rows) r.body(n / 10);  // warm up: registers the thread, faults in the baseline array
  collect::flush();
  for (int i = 0; i < rounds; ++i) {
    for (auto& r : rows) {
      auto t0 = std::chrono::steady_clock::now();
      r.body(n);
      auto t1 = std::chrono::steady_clock::now();
      r.ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
      collect::flush();
    }
    for (auto& r : rows) r.ratio.push_back(r.ns.back() / rows[0].ns.back());
  }
  collect::stop();
  for (auto& r : rows)
    std::printf("bench=collect_record_rounds case=%s ns_per_event_median=%.2f ns_min=%.2f ratio_median=%.3f "
                "ratio_min=%.3f ratio_max=%.3f\n",
                r.name, median(r.ns), *std::min_element(r.ns.begin(), r.ns.end()), median(r.ratio),
                *std::min_element(r.ratio.begin(), r.ratio.end()), *std::max_element(r.ratio.begin(), r.ratio.end()));
  return 0;
}
