// SPDX-License-Identifier: MIT
// Cost of an mstx call that records nothing: no tool and no session (one load
// + one branch), and a session whose include/exclude filter drops the domain.
// The compiled-out case is bench/mstx_dispatch_disabled.cpp.
// Output: one line per case: `bench=mstx_dispatch case=<name> ns_per_call=<x> calls=<n>`.
#include <msprof/collect/collector.hpp>
#include <msprof/mstx.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {
struct null_sink : msprof::collect::record_sink {
  void write_tx(const msprof::collect::tx_record&) override {}
};
struct filtered {
  static constexpr const char* name = "filtered";
};

template <class F>
double per_call_ns(long n, F&& f) {
  for (long i = 0; i < n / 10; ++i) f();  // warm up
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n);
}
void report(const char* name, double ns, long n) {
  std::printf("bench=mstx_dispatch case=%s ns_per_call=%.3f calls=%ld\n", name, ns, n);
}
}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 50'000'000;
  ::unsetenv("MSTX_INJECTION_PATH");
  mstxMarkA("init", nullptr);  // first call initialises the table (no tool)
  report("no_tool_markA", per_call_ns(n, [] { mstxMarkA("m", nullptr); }), n);
  report("no_tool_range_start_end", per_call_ns(n, [] { mstxRangeEnd(mstxRangeStartA("r", nullptr)); }), n);
  report("no_tool_cpp_static_mark", per_call_ns(n, [] { MSPROF_MARK("m"); }), n);
  report("no_tool_cpp_scoped_range", per_call_ns(n, [] { msprof::scoped_range r{"r"}; }), n);

  msprof::collect::options o;
  o.sink = std::make_shared<null_sink>();
  o.domain_exclude = {"filtered", "default"};
  if (!msprof::collect::start(o)) return 1;
  mstxDomainHandle_t h = mstxDomainCreateA("filtered");
  report("filtered_default_markA", per_call_ns(n, [] { mstxMarkA("m", nullptr); }), n);
  report("filtered_domain_markA", per_call_ns(n, [h] { mstxDomainMarkA(h, "m", nullptr); }), n);
  report("filtered_domain_range_start", per_call_ns(n, [h] { mstxDomainRangeStartA(h, "r", nullptr); }), n);
  report("filtered_cpp_static_mark_in", per_call_ns(n, [] { MSPROF_MARK_IN(filtered, "m"); }), n);
  msprof::collect::stop();
  auto l = msprof::collect::losses();
  return l.collected == 0 ? 0 : 2;  // nothing may have been recorded
}
