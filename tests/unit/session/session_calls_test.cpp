// SPDX-License-Identifier: MIT
// A session's call accounting, window by window: each window's PROF_ directory
// has host/msprof_calls counting exactly the mstx calls made while it
// collected, so `calls = 2·ranges + marks + losses` holds per window, drops
// are counted in the window where they happened, and a killed session leaves
// its counters.
#include <msprof/convert/load.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/session/session.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../support/temp_dir.hpp"
#include "killed_child.hpp"

namespace session = msprof::session;
namespace convert = msprof::convert;
namespace prof = msprof::prof;
namespace fs = std::filesystem;

namespace {

// Worker threads that each run `work(step)` once per step when told, so that
// no call is in flight while the session changes windows (prof.step()).
class step_workers {
 public:
  step_workers(int n, std::function<void(int worker, std::uint64_t step)> work) : work_(std::move(work)) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { run(i); });
  }
  ~step_workers() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Every worker runs step `s`; returns when all are done.
  void run_step(std::uint64_t s) {
    std::unique_lock<std::mutex> lk(mu_);
    step_ = s;
    ++generation_;
    done_ = 0;
    cv_.notify_all();
    cv_.wait(lk, [&] { return done_ == threads_.size(); });
  }

 private:
  void run(int i) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t s = 0;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return quit_ || generation_ != seen; });
        if (quit_) return;
        seen = generation_;
        s = step_;
      }
      work_(i, s);
      {
        std::lock_guard<std::mutex> lk(mu_);
        ++done_;
      }
      cv_.notify_all();
    }
  }

  std::function<void(int, std::uint64_t)> work_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t generation_ = 0, step_ = 0;
  std::size_t done_ = 0;
  bool quit_ = false;
  std::vector<std::thread> threads_;
};

struct window_accounting {
  std::uint64_t made = 0;     // host/msprof_calls
  std::uint64_t written = 0;  // calls whose records are in the trace
  std::uint64_t counted = 0;  // calls counted lost
  std::uint64_t dropped = 0, unknown_end = 0;
  bool has_calls = false;
  std::vector<std::string> warnings;
};

std::uint64_t loss(const convert::model& m, const std::string& key) {
  for (const auto& [k, n] : m.session.losses)
    if (k == key) return n;
  return 0;
}

window_accounting account(const std::string& dir) {
  window_accounting a;
  auto r = prof::prof_reader::open(dir);
  REQUIRE(r);
  a.has_calls = r->host().calls_made.has_value();
  a.made = r->host().calls_made.value_or(0);
  auto m = convert::load_model(dir);
  REQUIRE(m);
  for (const auto& e : m->mstx) a.written += e.event_type == 2 ? 2 : 1;
  a.written += m->mstx_mem.size();
  a.dropped = loss(*m, "dropped");
  a.unknown_end = loss(*m, "unknown_range_ends");
  for (const char* k : {"dropped", "domain_mismatch", "unknown_range_ends", "unfinished_ranges", "sink_failed",
                        "storage_limit_dropped", "lost_at_kill"})
    a.counted += loss(*m, k);
  a.warnings = m->warnings;
  return a;
}

session::session_config config_in(const temp_dir& t) {
  session::session_config c;
  c.output = t.path;
  c.npu = false;
  c.drain_interval = std::chrono::milliseconds(5);
  return c;
}

}  // namespace

TEST_CASE("session calls: each window's msprof_calls counts exactly the calls of its steps, on every thread") {
  temp_dir t;
  // wait 1, warm-up 1, active 2, two cycles: windows of steps 2-3 and 6-7.
  session::profiler prof(config_in(t), session::schedule{1, 2, 1, 2, 0});
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  constexpr int workers = 3;
  constexpr std::uint64_t steps = 9;
  // Worker i, step s: s+i marks and 2s+i ranges; in warm-up step 1 worker 0
  // opens a range it ends in step 2, the first recorded step.
  mstxRangeId carried = 0;
  step_workers w(workers, [&](int i, std::uint64_t s) {
    for (std::uint64_t k = 0; k < s + static_cast<std::uint64_t>(i); ++k) mstxMarkA("mark", nullptr);
    for (std::uint64_t k = 0; k < 2 * s + static_cast<std::uint64_t>(i); ++k)
      mstxRangeEnd(mstxRangeStartA("range", nullptr));
    if (i == 0 && s == 1) carried = mstxRangeStartA("carried into the window", nullptr);
    if (i == 0 && s == 2) mstxRangeEnd(carried);
  });
  REQUIRE(prof.start());
  for (std::uint64_t s = 0; s < steps; ++s) {
    w.run_step(s);
    if (s + 1 < steps) REQUIRE(prof.step());
  }
  REQUIRE(prof.stop());
  REQUIRE(warnings.size() == 1);  // the first window: the carried range's end has no start there
  CHECK(warnings[0].find("some calls are not (completely) in the trace") != std::string::npos);

  const auto dirs = prof.saved_dirs();
  REQUIRE(dirs.size() == 2);
  const std::vector<std::vector<std::uint64_t>> window_steps{{2, 3}, {6, 7}};
  for (std::size_t win = 0; win < dirs.size(); ++win) {
    CAPTURE(dirs[win]);
    const window_accounting a = account(dirs[win]);
    REQUIRE(a.has_calls);
    std::uint64_t want = 0;
    for (std::uint64_t s : window_steps[win]) {
      want += 2;  // its ProfilerStep range: step_begin and step_end
      for (std::uint64_t i = 0; i < workers; ++i) want += (s + i) + 2 * (2 * s + i);
    }
    if (win == 0) want += 1;  // the end of the carried range: an unknown end here
    CHECK(a.made == want);
    CHECK(a.unknown_end == (win == 0 ? 1u : 0u));
    CHECK(a.dropped == 0);
    CHECK(a.made == a.written + a.counted);
    for (const auto& wr : a.warnings) CHECK(wr.find("mstx calls") == std::string::npos);  // no mismatch
    CHECK(a.warnings.size() == (win == 0 ? 1u : 0u));
  }
}

TEST_CASE("session calls: a drop policy's losses are counted in the window where they happened") {
  temp_dir t;
  session::session_config cfg = config_in(t);
  cfg.buffers.ring_bytes = session::min_buffer_bytes;  // 4 KiB: a burst overflows it
  cfg.buffers.full = msprof::collect::overflow_policy::drop_newest;
  cfg.drain_interval = std::chrono::milliseconds(50);
  // Every step records; a window per step (active 1): windows of steps 0, 1, 2.
  session::profiler prof(cfg, session::schedule{0, 1, 0, 3, 0});
  prof.on_warning([](const std::string&) {});  // the lossy window warns
  constexpr std::uint64_t burst = 20000;
  // Step 1 bursts without pause (drops); steps 0 and 2 emit a few calls.
  step_workers w(2, [&](int, std::uint64_t s) {
    const std::uint64_t n = s == 1 ? burst : 10;
    for (std::uint64_t k = 0; k < n; ++k) mstxRangeEnd(mstxRangeStartA("r", nullptr));
  });
  REQUIRE(prof.start());
  for (std::uint64_t s = 0; s < 3; ++s) {
    w.run_step(s);
    if (s < 2) REQUIRE(prof.step());
  }
  REQUIRE(prof.stop());

  const auto dirs = prof.saved_dirs();
  REQUIRE(dirs.size() == 3);
  for (std::size_t win = 0; win < dirs.size(); ++win) {
    CAPTURE(dirs[win]);
    const window_accounting a = account(dirs[win]);
    REQUIRE(a.has_calls);
    const std::uint64_t want = 2 + 2 * 2 * (win == 1 ? burst : 10);  // ProfilerStep + two workers' ranges
    CHECK(a.made == want);
    CHECK(a.made == a.written + a.counted);
    if (win == 1) {
      CHECK(a.dropped > 0);
      CHECK(a.written < want);
    } else {
      CHECK(a.dropped == 0);  // the burst's drops stay in its own window
      CHECK(a.written == want);
    }
    for (const auto& wr : a.warnings) CHECK(wr.find("mstx calls") == std::string::npos);
  }
}

TEST_CASE("session calls: threads that never pause while windows change: every window's accounting is exact") {
  temp_dir t;
  // A window per step (repeat 0: until stop()); the workers run freely, so
  // windows end while calls are under way on every thread.
  session::profiler prof(config_in(t), session::schedule{0, 1, 0, 0, 0});
  prof.on_warning([](const std::string&) {});  // ranges open at a window's end
  std::atomic<bool> quit{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      while (!quit.load(std::memory_order_relaxed)) mstxRangeEnd(mstxRangeStartA("free", nullptr));
    });
  REQUIRE(prof.start());
  for (int s = 0; s < 24; ++s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    REQUIRE(prof.step());
  }
  REQUIRE(prof.stop());
  quit = true;
  for (auto& th : threads) th.join();
  const auto dirs = prof.saved_dirs();
  REQUIRE(dirs.size() == 25);
  // A call under way when a window ends is in that window's counters and
  // trace, or in neither (collect::stop() settles each thread's counter
  // against what it took). Left over: a thread preempted inside one call for
  // longer than the whole window change (seen in about one window in 300 with
  // 8 runnable threads on 2 cores, and in 3 of the 25 once while meson ran
  // other tests beside this one): its window is off by that one call.
  std::uint64_t calls = 0, off = 0;
  for (const auto& dir : dirs) {
    CAPTURE(dir);
    const window_accounting a = account(dir);
    REQUIRE(a.has_calls);
    const std::uint64_t accounted = a.written + a.counted;
    if (a.made != accounted) {
      ++off;
      CHECK((a.made > accounted ? a.made - accounted : accounted - a.made) <= 3);  // one call per thread at most
    }
    calls += a.made;
  }
  CHECK(off <= 5);  // without the settling, about 10 of the 25 windows are off
  CHECK(calls > 25 * 2);  // the workers' calls are in the windows, not only the steps
}

namespace {
constexpr const char* kill_env = "MSPROF_TEST_SESSION_KILL_DIR";
}

// Runs only as the child of the test below (the test binary runs itself with
// this case selected): a session records, then the process is killed mid-window.
TEST_CASE("session calls: helper: a session killed while it records") {
  const char* out = std::getenv(kill_env);
  if (out == nullptr) return;
  session::session_config c;
  c.output = out;
  c.npu = false;
  c.staging = false;  // the direct form: msproftx slices as it runs (a staged session's kill: staging_test.cpp)
  c.drain_interval = std::chrono::milliseconds(5);
  session::profiler prof(c);
  if (!prof.start()) ::_exit(3);
  for (int i = 0; i < 500; ++i) mstxRangeEnd(mstxRangeStartA("drained", nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // many drain intervals: on disk
  for (int i = 0; i < 1000; ++i) mstxMarkA("in memory at the kill", nullptr);
  ::kill(::getpid(), SIGKILL);
}

TEST_CASE("session calls: a killed session's window keeps its call counters, and the export counts lost_at_kill") {
  temp_dir t;
  const std::string dir = run_killed_child("session calls: helper: a session killed while it records", kill_env, t.path);
  const window_accounting a = account(dir);
  REQUIRE(a.has_calls);
  CHECK(a.made == 1 + 2 * 500 + 1000);  // step 0 begun (one call), never ended
  CHECK(a.written >= 2 * 500);
  CHECK(a.made == a.written + a.counted);  // the rest is lost_at_kill
  bool said = false;
  for (const auto& w : a.warnings) said = said || w.find("lost at the end (lost_at_kill") != std::string::npos;
  CHECK(said);
}
