// SPDX-License-Identifier: MIT
// Cost of recording one event on the hot path, against the speed-of-light
// baseline (rdtsc + 24-byte store into a prefaulted thread-local array), with
// 1 and 2 threads; then sustained drain throughput to a file.
// Output: `bench=collect_record case=<name> threads=<t> ns_per_event=<x> ...`
// and `ratio <name>=<x>` lines.
#include "collect_bodies.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace collect = msprof::collect;

namespace {
struct null_sink : collect::record_sink {
  void write_tx(const collect::tx_record&) override {}
};

// 256-byte records to a file, like the PROF_ writer.
struct file_sink : collect::record_sink {
  FILE* f;
  std::uint64_t bytes = 0;
  explicit file_sink(const char* path) : f(std::fopen(path, "wb")) {}
  ~file_sink() override {
    if (f) std::fclose(f);
  }
  void write_tx(const collect::tx_record& r) override {
    unsigned char rec[256] = {};
    std::memcpy(rec + 16, &r.start, 8);
    std::memcpy(rec + 80, &r.end, 8);
    std::memcpy(rec + 88, &r.id, 8);
    std::memcpy(rec + 108, r.message.data(), r.message.size() < 155 ? r.message.size() : 155);
    if (f) bytes += std::fwrite(rec, 1, sizeof rec, f);
  }
};

double run_threads(int threads, long n, void (*body)(long)) {
  std::vector<std::thread> ts;
  std::vector<double> ns(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      body(n / 10);  // warm up: registers the thread, faults in the ring
      auto t0 = std::chrono::steady_clock::now();
      body(n);
      auto t1 = std::chrono::steady_clock::now();
      ns[static_cast<std::size_t>(t)] = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n);
    });
  for (auto& th : ts) th.join();
  double sum = 0;
  for (double v : ns) sum += v;
  return sum / threads;
}

using bench_bodies::baseline;
using bench_bodies::dynamic_mark;
using bench_bodies::static_mark;
using bench_bodies::static_range;
}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  collect::options o;
  o.sink = std::make_shared<null_sink>();
  o.ring_bytes = std::size_t{128} << 20;  // holds a whole run: measures the producer, not drops
  if (!collect::start(o)) return 1;
  struct row {
    const char* name;
    void (*body)(long);
    double ns[2];
  } rows[] = {{"baseline_rdtsc_store24", baseline, {}},
              {"static_mark", static_mark, {}},
              {"static_range_begin_end", static_range, {}},
              {"markA_dynamic32", dynamic_mark, {}}};
  for (auto& r : rows) {
    for (int t = 1; t <= 2; ++t) {
      r.ns[t - 1] = run_threads(t, n, r.body);
      collect::flush();
      std::printf("bench=collect_record case=%s threads=%d ns_per_event=%.2f events_per_thread=%ld\n", r.name, t,
                  r.ns[t - 1], n);
    }
  }
  collect::stop();
  auto l = collect::losses();
  std::printf("bench=collect_record case=losses dropped=%llu\n", static_cast<unsigned long long>(l.dropped));
  for (int i = 1; i < 4; ++i)
    std::printf("ratio %s_vs_baseline=%.2f\n", rows[i].name, rows[i].ns[0] / rows[0].ns[0]);
  for (int i = 0; i < 4; ++i) std::printf("ratio %s_2threads_vs_1=%.2f\n", rows[i].name, rows[i].ns[1] / rows[i].ns[0]);

  // Drain alone: records already in the ring, null sink (decode + pairing + dispatch).
  {
    collect::options d;
    d.sink = std::make_shared<null_sink>();
    d.ring_bytes = std::size_t{128} << 20;
    d.drain_interval = std::chrono::milliseconds(10000);  // only the explicit flush drains
    if (!collect::start(d)) return 1;
    static_mark(n);
    auto t0 = std::chrono::steady_clock::now();
    collect::flush();
    auto t1 = std::chrono::steady_clock::now();
    collect::stop();
    double s = std::chrono::duration<double>(t1 - t0).count();
    std::printf("bench=collect_record case=drain_null_sink events=%ld seconds=%.4f events_per_s=%.0f\n", n, s,
                static_cast<double>(n) / s);
  }

  // Sustained drain throughput: 256-byte records to a file.
  auto sink = std::make_shared<file_sink>("/tmp/msprof_bench_drain.bin");
  collect::options d;
  d.sink = sink;
  d.ring_bytes = std::size_t{64} << 20;
  d.overflow = collect::overflow_policy::block;
  d.block_timeout = std::chrono::milliseconds(100);
  d.drain_interval = std::chrono::milliseconds(1);
  if (!collect::start(d)) return 1;
  const long events = n * 2;
  auto t0 = std::chrono::steady_clock::now();
  static_mark(events);
  collect::stop();
  auto t1 = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(t1 - t0).count();
  auto dl = collect::losses();
  std::printf("bench=collect_record case=drain_to_file events=%ld seconds=%.3f events_per_s=%.0f mb_per_s=%.1f dropped=%llu\n",
              events, s, static_cast<double>(dl.collected) / s, static_cast<double>(sink->bytes) / s / 1e6,
              static_cast<unsigned long long>(dl.dropped));
  std::remove("/tmp/msprof_bench_drain.bin");
  return 0;
}
