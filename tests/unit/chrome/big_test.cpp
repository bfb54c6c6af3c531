// SPDX-License-Identifier: MIT
// A large generated timeline: written with the default 256 MiB size guard into
// parts, each part loaded in the DevTools engine. Manual (minutes, GBs of RAM):
//   MSPROF_CHROME_BIG_EVENTS=6000000 build/tests/unit/chrome/test_chrome -tc='*big*'
// Without the variable the case is reported skipped. MSPROF_CHROME_BIG_PART_MIB
// overrides the part size (default 256).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <msprof/convert/chrome/chrome_trace.hpp>

#include "trace_testing.hpp"

namespace {

using namespace chrome_testing;
namespace chrome = msprof::convert::chrome;

/// About `n` events shaped like build_timeline's: per step an mstx range, and
/// inside it launches on 4 host threads (X + s) with device tasks on 4 streams
/// (X + f). Returns the step starts through `steps`.
std::vector<trace_event> synthetic(std::size_t n, std::int64_t start, std::vector<std::int64_t>& steps) {
  std::vector<trace_event> ev;
  ev.reserve(n + 64);
  const std::uint64_t cann = (4242ull << 10) | (7 << 5) | 31, hw = (4242ull << 10) | (14 << 5), tx = (4242ull << 10) | (6 << 5) | 31;
  auto meta = [&](std::uint64_t pid, std::uint64_t tid, const char* name, trace_arg a) {
    trace_event e;
    e.ph = 'M';
    e.pid = pid;
    e.tid = tid;
    e.name = name;
    e.args.push_back(std::move(a));
    ev.push_back(std::move(e));
  };
  meta(cann, 0, "process_name", trace_arg::str("name", "CANN"));
  meta(hw, 0, "process_name", trace_arg::str("name", "Ascend Hardware"));
  meta(tx, 0, "process_name", trace_arg::str("name", "big_app"));
  for (std::uint64_t t = 0; t < 4; ++t) {
    meta(cann, 100 + t, "thread_name", trace_arg::str("name", "Thread " + std::to_string(100 + t)));
    meta(hw, t, "thread_name", trace_arg::str("name", "Stream " + std::to_string(t)));
  }
  std::uint64_t conn = 0;
  std::int64_t ts = start + 1'000;
  const std::size_t per_step = 4'000;
  while (ev.size() < n) {
    steps.push_back(ts);
    trace_event step;
    step.ph = 'X';
    step.pid = tx;
    step.tid = 100;
    step.ts_ns = ts;
    step.dur_ns = static_cast<std::int64_t>(per_step / 16) * 2'500 + 1'000;
    step.name = "step " + std::to_string(steps.size());
    step.args = {trace_arg::str("event_type", "start/end"), trace_arg::str("domain", "default")};
    ev.push_back(std::move(step));
    for (std::size_t k = 0; k < per_step / 4 && ev.size() < n; ++k) {
      const std::uint64_t t = k % 4;
      const std::int64_t at = ts + 500 + static_cast<std::int64_t>(k / 4) * 2'500 + static_cast<std::int64_t>(t) * 300;
      ++conn;
      const std::string id = std::to_string(conn << 32);
      trace_event api;
      api.ph = 'X';
      api.pid = cann;
      api.tid = 100 + t;
      api.ts_ns = at;
      api.dur_ns = 1'200 + static_cast<std::int64_t>(k % 7);
      api.name = "Node@launch";
      api.args = {trace_arg::num("Thread Id", static_cast<std::int64_t>(100 + t)), trace_arg::str("Mode", "launch"),
                  trace_arg::str("level", "node"), trace_arg::str("id", "0"),
                  trace_arg::str("item_id", "MatMul_" + std::to_string(conn)),
                  trace_arg::num("connection_id", static_cast<std::int64_t>(conn))};
      trace_event task;
      task.ph = 'X';
      task.pid = hw;
      task.tid = t;
      task.ts_ns = at + 1'500;
      task.dur_ns = 2'000 + static_cast<std::int64_t>(k % 501);  // up to exactly back-to-back on a stream
      task.name = "MatMul_" + std::to_string(conn);
      task.args = {trace_arg::num("Model Id", 4294967295LL), trace_arg::str("Task Type", "AI_CORE"),
                   trace_arg::num("Physic Stream Id", static_cast<std::int64_t>(t)),
                   trace_arg::num("Task Id", static_cast<std::int64_t>(conn & 0xFFFF)), trace_arg::num("Batch Id", 0),
                   trace_arg::num("Subtask Id", 4294967295LL),
                   trace_arg::num("connection_id", static_cast<std::int64_t>(conn))};
      trace_event s;
      s.ph = 's';
      s.pid = cann;
      s.tid = 100 + t;
      s.ts_ns = at;
      s.cat = "HostToDevice";
      s.id = id;
      s.name = "HostToDevice" + id;
      trace_event f = s;
      f.ph = 'f';
      f.pid = hw;
      f.tid = t;
      f.ts_ns = task.ts_ns;
      f.bp_enclosing = true;
      ev.push_back(std::move(api));
      ev.push_back(std::move(task));
      ev.push_back(std::move(s));
      ev.push_back(std::move(f));
    }
    ts += static_cast<std::int64_t>(per_step / 16) * 2'500 + 5'000;
  }
  return ev;
}

}  // namespace

TEST_CASE("chrome: big: a generated multi-million-event timeline is written in parts that each load") {
  const char* n_env = std::getenv("MSPROF_CHROME_BIG_EVENTS");
  if (!n_env) {
    if (const char* code = std::getenv("MSPROF_SKIP_EXIT_CODE")) {
      std::fprintf(stderr, "skipped: manual case, set MSPROF_CHROME_BIG_EVENTS (docs/chrome-trace.md)\n");
      std::fflush(nullptr);
      std::_Exit(std::atoi(code));
    }
    MESSAGE("skipped: manual case, set MSPROF_CHROME_BIG_EVENTS (docs/chrome-trace.md)");
    return;
  }
  const std::size_t n = std::strtoull(n_env, nullptr, 10);
  REQUIRE(n >= 1000);
  constexpr std::int64_t start = 1767268800000000000;
  chrome::options opt;
  if (const char* mib = std::getenv("MSPROF_CHROME_BIG_PART_MIB")) opt.max_part_bytes = std::strtoull(mib, nullptr, 10) << 20;
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  const auto ev = synthetic(n, start, opt.step_starts_ns);
  auto t1 = clock::now();
  const fs::path dir = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_big";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto r = chrome::write(ev, start, dir, "chrome_trace_big", opt);
  auto t2 = clock::now();
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  std::uint64_t bytes = 0;
  for (const auto& p : r->parts) bytes += p.bytes;
  const double secs = std::chrono::duration<double>(t2 - t1).count();
  MESSAGE(fmt::format("{} events generated in {:.1f} s; chrome form: {} parts, {:.1f} MiB, written in {:.2f} s "
                      "({:.2f} M events/s, {:.0f} MiB/s); clamps {} overlap / {} rounding; flows {} written, {} cut",
                      ev.size(), std::chrono::duration<double>(t1 - t0).count(), r->parts.size(),
                      static_cast<double>(bytes) / (1 << 20), secs, static_cast<double>(ev.size()) / secs / 1e6,
                      static_cast<double>(bytes) / (1 << 20) / secs, r->totals.clamped_overlap,
                      r->totals.clamped_rounding, r->totals.flows_written, r->totals.flows_cut));
  CHECK(r->totals.steps_split == 0);
  for (const auto& p : r->parts) CHECK(p.bytes <= opt.max_part_bytes);
  if (engine_skipped()) return;
  for (const auto& p : r->parts) {
    auto l0 = clock::now();
    const auto t = parse_trace(read_file(dir / p.file_name), form::chrome);
    for (const auto& pr : t.problems) FAIL_CHECK(p.file_name << ": " << pr);
    const auto rep = run_engine(dir / p.file_name);
    REQUIRE(rep.ran);
    for (const auto& f : engine_findings(rep, t)) FAIL_CHECK(p.file_name << ": " << f);
    MESSAGE(fmt::format("{}: {:.1f} MiB, {} slices, loaded and checked in {:.1f} s", p.file_name,
                        static_cast<double>(p.bytes) / (1 << 20), rep.slices_in_tracks,
                        std::chrono::duration<double>(clock::now() - l0).count()));
  }
}
