// SPDX-License-Identifier: MIT
// Concurrency: 8 producer threads (created and exiting throughout) against the
// drain; every event is either collected or counted as dropped.
#include <msprof/collect/collector.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace collect = msprof::collect;

namespace {
struct counting_sink : collect::record_sink {
  std::atomic<std::uint64_t> marks{0}, ranges{0};
  void write_tx(const collect::tx_record& r) override {
    (r.event_type == 0 ? marks : ranges).fetch_add(1, std::memory_order_relaxed);
  }
};

void run(collect::overflow_policy policy, std::size_t ring_bytes, int rounds, int per_thread) {
  auto sink = std::make_shared<counting_sink>();
  collect::options o;
  o.sink = sink;
  o.overflow = policy;
  o.ring_bytes = ring_bytes;
  o.drain_interval = std::chrono::milliseconds(5);
  REQUIRE(static_cast<bool>(collect::start(o)));
  std::atomic<std::uint64_t> emitted{0};
  for (int round = 0; round < rounds; ++round) {  // threads come and go
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          if (i % 4 == 0) {
            msprof::scoped_range r{"stress range"};
          } else if (i % 4 == 1) {
            MSPROF_MARK("stress literal");
          } else {
            msprof::markf("t{} i{}", t, i);
          }
        }
        emitted.fetch_add(static_cast<std::uint64_t>(per_thread), std::memory_order_relaxed);
      });
    for (auto& th : ts) th.join();
  }
  collect::stop();
  auto l = collect::losses();
  const std::uint64_t ranges_emitted = emitted.load() / 4;
  const std::uint64_t marks_emitted = emitted.load() - ranges_emitted;
  // Count records: a range is two (start + end). A dropped start leaves an
  // unknown end, a dropped end an unfinished range; both are counted.
  const std::uint64_t records_emitted = marks_emitted + 2 * ranges_emitted;
  const std::uint64_t records_seen = sink->marks.load() + 2 * sink->ranges.load() + l.unknown_end + l.unfinished;
  CHECK(records_seen + l.dropped == records_emitted);
  CHECK(sink->ranges.load() <= ranges_emitted);
  CHECK(l.collected == sink->marks.load() + sink->ranges.load());
  CHECK(collect::default_collector::live_buffers() <= 1);  // exited threads were reclaimed
  MESSAGE("emitted records " << records_emitted << ", dropped " << l.dropped);
}
}  // namespace

TEST_CASE("stress: drop-newest with small rings, exact accounting") {
  run(collect::overflow_policy::drop_newest, 4096, 3, 4000);
}

TEST_CASE("stress: block policy, exact accounting") {
  run(collect::overflow_policy::block, 16384, 2, 4000);
}

// The scale: 8 thread slots x 1 M events each, every slot a new thread
// per round of 100 k events, default ring size.
TEST_CASE("stress: 8 threads x 1 M events, threads replaced every 100 k, exact accounting") {
  run(collect::overflow_policy::drop_newest, 0, 10, 100000);
}

namespace {
/// Takes every other record and throws on the others.
struct flaky_sink : collect::record_sink {
  std::uint64_t calls = 0, taken = 0;
  void write_tx(const collect::tx_record&) override {
    if (calls++ % 2 == 1) throw std::runtime_error("disk full");
    ++taken;
  }
};
}  // namespace

TEST_CASE("a sink that throws: its records are counted as lost, not as collected") {
  auto sink = std::make_shared<flaky_sink>();
  collect::options o;
  o.sink = sink;
  REQUIRE(static_cast<bool>(collect::start(o)));
  for (int i = 0; i < 10; ++i) MSPROF_MARK("flaky");
  collect::stop();
  const auto l = collect::losses();
  CHECK(sink->calls == 10);
  CHECK(l.collected == sink->taken);
  CHECK(l.sink_failed == 5);
  CHECK(l.total() >= 5);
  CHECK_FALSE(l.complete());
}
