// SPDX-License-Identifier: MIT
// A session's window change: what prof.step() costs when it ends one window
// and starts the next (each window is a collection of its own, with its own
// host/msprof_calls), and whether every window's accounting is exact while
// other threads call mstx without pause.
//
//   build-rel/bench/bench_session_windows [dir] [--staging=off]
//
// With the staging (the default) each window's end also makes its msproftx
// slices from the staging; --staging=off writes them directly, for comparison.
//
// Cases: 0 and 3 threads in a tight loop of ranges; 40 windows of one step
// each (about 5 ms). Output: one `bench=session_windows ...` line per case with
// the median and the slowest window change, and the windows whose calls did
// not add up (export's accounting: calls = 2·ranges + marks + losses).
#include <msprof/convert/load.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/session/session.hpp>
#include <msprof/mstx.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace {

int run_case(const fs::path& out, int threads, bool staging) {
  fs::remove_all(out);
  fs::create_directories(out);
  msprof::session::session_config c;
  c.output = out.string();
  c.npu = false;
  c.staging = staging;
  msprof::session::profiler prof(c, msprof::session::schedule{0, 1, 0, 0, 0});
  prof.on_warning([](const std::string&) {});
  std::atomic<bool> quit{false};
  std::vector<std::thread> th;
  for (int i = 0; i < threads; ++i)
    th.emplace_back([&] {
      while (!quit.load(std::memory_order_relaxed)) mstxRangeEnd(mstxRangeStartA("bench", nullptr));
    });
  if (!prof.start()) return 1;
  constexpr int windows = 40;
  std::vector<double> change_ms;
  for (int w = 0; w < windows; ++w) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto t0 = clk::now();
    if (!prof.step()) return 1;
    change_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
  }
  (void)prof.stop();
  quit = true;
  for (auto& t : th) t.join();
  int off = 0;
  std::uint64_t calls = 0;
  for (const auto& dir : prof.saved_dirs()) {
    auto m = msprof::convert::load_model(dir);
    auto r = msprof::prof::prof_reader::open(dir);
    if (!m || !r) return 1;
    calls += r->host().calls_made.value_or(0);
    for (const auto& w : m->warnings) off += w.find("mstx calls") != std::string::npos;
  }
  std::sort(change_ms.begin(), change_ms.end());
  std::printf("bench=session_windows staging=%s threads=%d windows=%zu change_ms_median=%.2f change_ms_max=%.2f calls=%llu "
              "windows_off=%d\n",
              staging ? "on" : "off", threads, prof.saved_dirs().size(), change_ms[change_ms.size() / 2], change_ms.back(),
              static_cast<unsigned long long>(calls), off);
  std::fflush(stdout);
  fs::remove_all(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out = fs::temp_directory_path() / "bench_session_windows";
  bool staging = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--staging=off") {
      staging = false;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: bench_session_windows [dir] [--staging=off]\n");
      return 2;
    } else {
      out = a;
    }
  }
  for (int threads : {0, 3})
    if (run_case(out, threads, staging) != 0) {
      std::fprintf(stderr, "bench_session_windows: a session call failed\n");
      return 1;
    }
  return 0;
}
