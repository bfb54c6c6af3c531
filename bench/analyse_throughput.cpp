// SPDX-License-Identifier: MIT
// `msprof analyse` throughput on a generated torch_npu `*_ascend_pt` directory.
//
//   analyse_throughput [framework_ops=2000000] [dir=/tmp/msprof_bench_pt] [ranks=1]
//
// The directory is tests/support/generated_pt.hpp's: 4 framework ops, 4
// task-queue marks, 5 allocator records (two allocations for operator_memory
// to name), 4 Python tracer records and ~7 CANN records per launch, a
// ProfilerStep per 1,000 launches. Times the text and the db export each in a child (for its own
// peak RSS) and prints records/s. With ranks > 1, that many copies of the
// directory (as several ranks' under one parent) are then analysed (text) at
// once, one thread each, as `msprof analyse -dir <parent>` does on as many cores.
#include <msprof/convert/ascend_pt/analyse.hpp>

#include "../tests/support/child_peak_rss.hpp"
#include "../tests/support/generated_pt.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const std::uint64_t target_ops = argc > 1 ? std::stoull(argv[1]) : 2000000;
  const fs::path root = argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "msprof_bench_pt";
  const unsigned ranks = argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 1;
  fs::remove_all(root);
  const generated_pt::written w = generated_pt::generate(root, target_ops);
  const fs::path dir = w.dir;
  const std::uint64_t ops = w.ops, launches = w.marks / 4, cann_bytes = w.cann_bytes;
  const std::uintmax_t fw_bytes = w.framework_bytes;
  const double records = static_cast<double>(w.ops + w.marks + w.allocations + w.python_records + w.cann_records);
  std::printf("input: %llu framework ops + %llu task-queue marks + %llu allocator + %llu Python tracer records "
              "(%.1f MB FRAMEWORK), ~%llu CANN records (%.1f MB)\n",
              static_cast<unsigned long long>(ops), static_cast<unsigned long long>(launches * 4),
              static_cast<unsigned long long>(w.allocations), static_cast<unsigned long long>(w.python_records),
              fw_bytes / 1e6, static_cast<unsigned long long>(launches * 57 / 8), static_cast<double>(cann_bytes) / 1e6);
  std::printf("%-24s %9s %12s %10s\n", "export", "seconds", "records/s", "peak MiB");
  using clk = std::chrono::steady_clock;
  int rc = 0;
  for (const char* type : {"text", "db"}) {
    const auto t = clk::now();
    const child_run run = run_in_child([&] {
      auto r = msprof::convert::ascend_pt::analyse(dir.string(), {type});
      if (!r) std::fprintf(stderr, "%s\n", r.err().what().c_str());
      return static_cast<bool>(r);
    });
    const double secs = std::chrono::duration<double>(clk::now() - t).count();
    if (!run.ok) rc = 1;
    std::printf("%-24s %9.2f %12.0f %10.1f%s\n", (std::string("analyse --export-type ") + type).c_str(), secs,
                records / secs, run.peak_mib, run.ok ? "" : "  FAILED");
  }
  if (ranks > 1) {
    std::vector<fs::path> dirs{dir};
    for (unsigned k = 1; k < ranks; ++k) {
      const std::string name = "worker" + std::to_string(k) + "_100" + std::to_string(k) + "_20260101000000000_ascend_pt";
      dirs.push_back(root / name);
      fs::copy(dir, dirs.back(), fs::copy_options::recursive);
    }
    const auto t = clk::now();
    const child_run run = run_in_child([&] {
      std::vector<char> ok(dirs.size(), 0);
      std::vector<std::thread> pool;
      for (std::size_t k = 0; k < dirs.size(); ++k)
        pool.emplace_back([&, k] { ok[k] = msprof::convert::ascend_pt::analyse(dirs[k].string(), {"text"}) ? 1 : 0; });
      for (auto& th : pool) th.join();
      return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
    });
    const double secs = std::chrono::duration<double>(clk::now() - t).count();
    if (!run.ok) rc = 1;
    std::printf("%-24s %9.2f %12.0f %10.1f%s\n", (std::to_string(ranks) + " ranks at once, text").c_str(), secs,
                records * ranks / secs, run.peak_mib, run.ok ? "" : "  FAILED");
  }
  fs::remove_all(root);
  return rc;
}
