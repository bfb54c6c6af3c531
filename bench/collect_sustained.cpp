// SPDX-License-Identifier: MIT
// Sustained collection through the path users get: a program built against
// CANN's header (no msprof code) records ranges through libmsprof_mstx.so
// (MSTX_INJECTION_PATH, as `msprof --application` sets it) into a real PROF_
// directory. Each case runs in a child process; afterwards the rows on disk
// and the loss counters in info.json must account for every event emitted:
//   2·ranges + dropped + unfinished + unknown ends + storage-limit = emitted.
//
//   build-rel/bench/bench_collect_sustained build-rel/lib/libmsprof_mstx.so [dir] [--quick]
//       [--scale=<x>] [--direct] [--case=<name>]...
//
// Cases: a tight loop on 1 thread for 10 s and on 2 threads, 2 threads paced
// at 10 M events/s together for 30 s (the collector's defaults), the same
// tight loop with --buffer-full=block, and the drop policy's offered-vs-kept
// curve at 1, 4, 10 and 20 M events/s (5 s each). --quick divides durations by 5,
// --scale=<x> multiplies them by x; --case=<name> runs only the cases named.
// The default is the launcher's: the compact staging while collecting
// (MSPROF_STAGING on, MSPROF_STAGING_CONVERT=launcher), so the program's exit
// (stop_s) only closes it; then the bench makes the slices as the launcher
// does (prof::recover_staging, convert_s). staging_mb is the staging's size on
// disk at the exit, staging_mb_per_s that over emit_s. --direct:
// MSPROF_STAGING=off, msproftx records written as the program runs.
// Output: one `bench=collect_sustained case=... key=value ...` line per case.
#include "mstx/ms_tools_ext.h"

#include <msprof/core/json.hpp>
#include <msprof/prof/staging.hpp>

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace {

struct workload {
  const char* name;
  int threads;
  double seconds;
  double rate;       // events/s, all threads together; 0 = as fast as they can
  const char* full;  // MSPROF_BUFFER_FULL; nullptr = the default
};
bool staging = true;  // --direct: false

struct child_report {
  std::uint64_t emitted = 0;
  double busy_ns_per_event = 0;  // the producers' own time per event (tight loops)
  double emit_seconds = 0;
};

// The child: ranges on `threads` threads for `seconds`, paced or not.
child_report emit(const workload& w) {
  std::atomic<std::uint64_t> total{0};
  std::atomic<std::uint64_t> busy_ns{0};
  const double per_thread = w.rate / w.threads;
  mstxMarkA("warm up", nullptr);  // loads the library before the clock starts
  const auto t0 = clk::now();
  std::vector<std::thread> ts;
  for (int t = 0; t < w.threads; ++t)
    ts.emplace_back([&] {
      const auto start = clk::now();
      const auto end = start + std::chrono::duration<double>(w.seconds);
      std::uint64_t n = 0;
      for (auto now = start; now < end; now = clk::now()) {
        for (int i = 0; i < 500; ++i) mstxRangeEnd(mstxRangeStartA("sustained range", nullptr));
        n += 1000;
        if (per_thread > 0)  // n events by start + n / rate; sleeping leaves the cores to the collector
          std::this_thread::sleep_until(start + std::chrono::duration_cast<clk::duration>(
                                                    std::chrono::duration<double>(static_cast<double>(n) / per_thread)));
      }
      busy_ns.fetch_add(static_cast<std::uint64_t>(std::chrono::duration<double, std::nano>(clk::now() - start).count()));
      total.fetch_add(n);
    });
  for (auto& t : ts) t.join();
  child_report r;
  r.emitted = total.load() + 1;  // + the warm-up mark
  r.emit_seconds = std::chrono::duration<double>(clk::now() - t0).count();
  r.busy_ns_per_event = static_cast<double>(busy_ns.load()) / static_cast<double>(total.load() ? total.load() : 1);
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::uint64_t loss(const msprof::json::value& losses, const char* key) {
  std::uint64_t n = 0;
  const auto* v = losses.find(key);
  return v != nullptr && v->to_uint64(n) ? n : 0;
}

void run_case(const char* lib, const fs::path& root, const workload& w) {
  const fs::path out = root / w.name;
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out);
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) return;
  std::fflush(nullptr);
  const auto t0 = clk::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fd[0]);
    ::setenv("MSTX_INJECTION_PATH", lib, 1);
    ::setenv("MSPROF_OUTPUT", out.c_str(), 1);
    if (w.full != nullptr) ::setenv("MSPROF_BUFFER_FULL", w.full, 1);
    ::setenv("MSPROF_STAGING", staging ? "on" : "off", 1);
    ::setenv("MSPROF_STAGING_CONVERT", "launcher", 1);
    const child_report r = emit(w);
    if (::write(pipe_fd[1], &r, sizeof r) != static_cast<ssize_t>(sizeof r)) std::_Exit(2);
    std::exit(0);  // the collector stops and flushes at exit, as in any program
  }
  ::close(pipe_fd[1]);
  child_report r;
  const bool got = ::read(pipe_fd[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  ::close(pipe_fd[0]);
  const auto emitted_at = clk::now();
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  const auto t1 = clk::now();
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::printf("bench=collect_sustained case=%s error=child_failed\n", w.name);
    return;
  }
  fs::path prof;
  for (const auto& e : fs::directory_iterator(out)) prof = e.path();
  // What the launcher does after the program's exit.
  double staged_bytes = 0;
  for (const auto& e : fs::directory_iterator(prof / "host" / msprof::prof::layout::staging_dir, ec))
    staged_bytes += static_cast<double>(e.file_size());
  const auto c0 = clk::now();
  auto rec = msprof::prof::recover_staging(prof.string());
  const double convert = std::chrono::duration<double>(clk::now() - c0).count();
  if (!rec) {
    std::printf("bench=collect_sustained case=%s error=%s\n", w.name, rec.err().message.c_str());
    return;
  }
  std::uint64_t bytes = 0;
  for (const auto& e : fs::directory_iterator(prof / "host" / "data"))
    if (e.path().filename().string().find("msproftx.slice_") != std::string::npos &&
        e.path().extension() != ".done")
      bytes += e.file_size();
  const std::uint64_t rows = bytes / 256;  // one 256-byte record per range (short messages)
  auto info = msprof::json::parse(slurp(prof / "host" / "info.json"));
  const msprof::json::value* l = info ? info->find("msprof_losses") : nullptr;
  const msprof::json::value none;
  const auto& losses = l != nullptr ? *l : none;
  const std::uint64_t dropped = loss(losses, "dropped"), unfinished = loss(losses, "unfinished_ranges"),
                      unknown = loss(losses, "unknown_range_ends"), storage = loss(losses, "storage_limit_dropped");
  // The warm-up mark is one row of one event; every other row is a range (two events).
  const std::uint64_t accounted = 2 * (rows - 1) + 1 + dropped + unfinished + unknown + storage;
  const double wall = std::chrono::duration<double>(t1 - t0).count();
  const double stop = std::chrono::duration<double>(t1 - emitted_at).count();
  std::printf(
      "bench=collect_sustained case=%s threads=%d seconds=%.0f policy=%s offered_events_per_s=%.0f emitted=%llu "
      "kept_events=%llu kept_pct=%.2f dropped=%llu unfinished=%llu unknown_ends=%llu storage=%llu accounted=%s "
      "producer_ns_per_event=%.2f emit_s=%.2f stop_s=%.2f convert_s=%.2f wall_s=%.2f cann_mb=%.0f disk_mb_per_s=%.0f staging_mb=%.0f "
      "staging_mb_per_s=%.0f peak_rss_mib=%.0f form=%s\n",
      w.name, w.threads, w.seconds, w.full != nullptr ? w.full : "default",
      static_cast<double>(r.emitted) / r.emit_seconds, static_cast<unsigned long long>(r.emitted),
      static_cast<unsigned long long>(2 * (rows - 1) + 1),
      100.0 * static_cast<double>(2 * (rows - 1) + 1) / static_cast<double>(r.emitted),
      static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(unfinished),
      static_cast<unsigned long long>(unknown), static_cast<unsigned long long>(storage),
      accounted == r.emitted ? "yes" : "NO", r.busy_ns_per_event, r.emit_seconds, stop, convert, wall,
      static_cast<double>(bytes) / 1e6, static_cast<double>(bytes) / wall / 1e6, staged_bytes / 1e6,
      staged_bytes / r.emit_seconds / 1e6, static_cast<double>(usage.ru_maxrss) / 1024.0, staging ? "staging" : "direct");
  std::fflush(stdout);
  fs::remove_all(out, ec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <path of libmsprof_mstx.so> [output dir] [--quick]\n", argv[0]);
    return 2;
  }
  fs::path root = fs::temp_directory_path() / "msprof_bench_sustained";
  double scale = 1;
  std::vector<std::string> only;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick")
      scale = 0.2;
    else if (a.rfind("--scale=", 0) == 0)
      scale = std::atof(a.c_str() + 8);
    else if (a == "--direct")
      staging = false;
    else if (a.rfind("--case=", 0) == 0)
      only.push_back(a.substr(7));
    else
      root = a;
  }
  const workload cases[] = {
      {"tight_1thread", 1, 10, 0, nullptr},
      {"tight_2threads", 2, 10, 0, nullptr},
      {"paced_2threads_10M", 2, 30, 10e6, nullptr},
      {"tight_1thread_block", 1, 10, 0, "block"},
      {"drop_1M", 2, 5, 1e6, "drop"},
      {"drop_4M", 2, 5, 4e6, "drop"},
      {"drop_10M", 2, 5, 10e6, "drop"},
      {"drop_20M", 2, 5, 20e6, "drop"},
  };
  for (workload w : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), w.name) == only.end()) continue;
    w.seconds *= scale;
    run_case(argv[1], root, w);
  }
  return 0;
}
