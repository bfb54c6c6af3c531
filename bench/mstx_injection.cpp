// SPDX-License-Identifier: MIT
// The injection path: a program built against CANN's header (no msprof code)
// records through libmsprof_mstx.so named by MSTX_INJECTION_PATH. Times
// mstxRangeStartA + mstxRangeEnd pairs in rounds small enough for the thread's
// ring, with a pause between rounds so the drain empties it (no drops).
//   build-rel/bench/bench_mstx_injection build-rel/lib/libmsprof_mstx.so
#include "mstx/ms_tools_ext.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <path of libmsprof_mstx.so>\n", argv[0]);
    return 2;
  }
  const auto out = std::filesystem::temp_directory_path() / "msprof_bench_injection";
  std::filesystem::create_directories(out);
  ::setenv("MSTX_INJECTION_PATH", argv[1], 1);
  ::setenv("MSPROF_OUTPUT", out.c_str(), 1);
  constexpr int pairs = 10000, rounds = 15;
  mstxMarkA("warm up", nullptr);  // loads the library, registers the thread
  std::vector<double> ns;
  for (int r = 0; r < rounds; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < pairs; ++i) mstxRangeEnd(mstxRangeStartA("step", nullptr));
    const auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / pairs);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("bench=mstx_injection case=range_start_end ns_per_pair=%.2f ns_min=%.2f pairs_per_round=%d rounds=%d\n",
              ns[ns.size() / 2], ns.front(), pairs, rounds);
  std::printf("(the PROF_ directory is written under %s at exit)\n", out.c_str());
  return 0;
}
