// SPDX-License-Identifier: MIT
// Concurrency: 8 producer threads (created and exiting throughout) against the
// drain; every event is either collected or counted as dropped.
#include <msprof/collect/collector.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

// Returns the losses; every record is collected or counted.
collect::loss_counters run(collect::overflow_policy policy, std::size_t ring_bytes, int rounds, int per_thread,
                           std::size_t buffer_limit = 0, int threads = 8) {
  auto sink = std::make_shared<counting_sink>();
  collect::options o;
  o.sink = sink;
  o.overflow = policy;
  o.ring_bytes = ring_bytes;
  o.buffer_limit = buffer_limit;
  o.drain_interval = std::chrono::milliseconds(5);
  REQUIRE(static_cast<bool>(collect::start(o)));
  std::atomic<std::uint64_t> emitted{0};
  for (int round = 0; round < rounds; ++round) {  // threads come and go
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
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
  return l;
}
}  // namespace

TEST_CASE("stress: drop-newest with small rings, exact accounting") {
  run(collect::overflow_policy::drop_newest, 4096, 3, 4000);
}

TEST_CASE("stress: block policy, exact accounting, nothing dropped") {
  CHECK(run(collect::overflow_policy::block, 16384, 2, 4000).dropped == 0);
}

TEST_CASE("stress: grow (the default) with 4 KiB rings: 8 tight producers lose nothing") {
  CHECK(run(collect::overflow_policy::grow, 4096, 2, 20000).dropped == 0);
}

TEST_CASE("stress: grow stops at buffer_limit and then waits: nothing dropped, the limit holds") {
  constexpr std::size_t ring = 4096, limit = 64 * 1024;
  std::atomic<bool> done{false};
  std::size_t peak = 0;
  std::thread watch([&] {
    while (!done.load()) {
      peak = std::max(peak, collect::default_collector::buffer_bytes());
      std::this_thread::yield();
    }
  });
  const auto l = run(collect::overflow_policy::grow, ring, 2, 20000, limit);
  done = true;
  watch.join();
  CHECK(l.dropped == 0);
  // Each thread always gets its first ring; growth stays within the limit.
  CHECK(peak <= limit + 8 * ring);
  CHECK(peak > 8 * ring);  // it did grow
}

TEST_CASE("stress: thread storm, 1,000 short-lived threads: exact accounting, nothing dropped, buffers reclaimed") {
  const auto l = run(collect::overflow_policy::grow, 0, 125, 200);  // 125 rounds of 8 threads
  CHECK(l.dropped == 0);
  CHECK(l.lost_threads == 0);
}

// Fork storm: 100 children fork()ed while 4 threads record. A child's calls
// record nothing and it exits at once (no hang); the parent loses nothing.
TEST_CASE("stress: fork storm, 100 children while 4 threads record: no child hangs, the parent loses nothing") {
  auto sink = std::make_shared<counting_sink>();
  collect::options o;
  o.sink = sink;
  o.drain_interval = std::chrono::milliseconds(5);
  REQUIRE(static_cast<bool>(collect::start(o)));
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> ranges{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      std::uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        msprof::scoped_range r{"fork storm"};
        ++n;
      }
      ranges.fetch_add(n);
    });
  int hung = 0, failed = 0;
  for (int i = 0; i < 100; ++i) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      { msprof::scoped_range r{"in the child"}; }
      collect::flush();
      collect::stop();
      ::_exit(collect::default_collector::forked_child() && !collect::collecting() ? 0 : 1);
    }
    int status = 0, waited = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0 && waited < 2000) {  // 20 s watchdog, not a timing assumption
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ++waited;
    }
    if (waited == 2000) {
      ++hung;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
    }
  }
  stop = true;
  for (auto& th : ts) th.join();
  collect::stop();
  const auto l = collect::losses();
  CHECK(hung == 0);
  CHECK(failed == 0);
  CHECK(l.dropped == 0);
  CHECK(sink->ranges.load() == ranges.load());
  CHECK(l.unfinished + l.unknown_end == 0);
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
