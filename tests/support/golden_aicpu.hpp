// SPDX-License-Identifier: MIT
// The raw input of the golden case `aicpu` (tests/golden/README.md): the
// `ops_pipeutil` collection plus the AI CPU's own reports of its kernels
// (device slice aicpu.data.0: additional AICPU/node records), written here
// through the project's own encoders: one for Cast_5 (stream 2, task 14, the
// AI_CPU task of 360-460 µs), one for a task no op launched, one that started
// before the collection (left out of the summary), and one on another stream
// with sub-µs times.
// aicpu_test.cpp checks that the checked-in input is what this writes.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_AICPU_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_AICPU_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace golden_aicpu {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// Device counter of `us` µs after the collection start (dev_start.log: 7e9 at
/// the start, 50 MHz).
inline std::uint64_t tick_us(double us) {
  return 7000000000ull + static_cast<std::uint64_t>(static_cast<std::int64_t>(us * 50.0 + (us < 0 ? -0.5 : 0.5)));
}

/// The slice's records, as bytes.
inline std::string records() {
  struct node {
    std::uint16_t stream, task;
    double submit, start, end, after;   // µs after the start (device counter)
    std::uint64_t compute, memcpy, end_memcpy;  // µs on the AI CPU's clock
    std::uint32_t dispatch;             // µs
  };
  const std::vector<node> nodes = {
      {2, 14, 358, 365, 455.5, 458.02, 1000000, 1000080, 1000085, 3},  // Cast_5
      {2, 99, 470, 471.25, 480.5, 481, 1000200, 1000207, 1000209, 1},   // no op
      {2, 7, -20, -10, -2, -1, 999000, 999006, 999007, 2},               // before the start
      {3, 1, 500, 500.02, 512.34, 512.36, 1000300, 1000310, 1000311, 0},
  };
  std::string out;
  const auto append = [&out](const codec::additional_bytes& b) { out.append(reinterpret_cast<const char*>(b.data()), b.size()); };
  for (const auto& n : nodes) {
    codec::MsprofAicpuNodeAdditionalData d;
    d.streamId = n.stream;
    d.taskId = n.task;
    d.runStartTick = tick_us(n.start);
    d.runEndTick = tick_us(n.end);
    d.runStartTime = n.compute - 2;
    d.computeStartTime = n.compute;
    d.memcpyStartTime = n.memcpy;
    d.memcpyEndTime = n.end_memcpy;
    d.runEndTime = n.end_memcpy + 1;
    d.threadId = 7;
    d.submitTick = tick_us(n.submit);
    d.scheduleTick = tick_us(n.submit + 1);
    d.tickBeforeRun = d.runStartTick;
    d.tickAfterRun = tick_us(n.after);
    d.dispatchTime = n.dispatch;
    d.totalTime = static_cast<std::uint32_t>(n.after - n.submit);
    append(codec::encode_aicpu_node(7, d.runEndTick, d));
  }
  return out;
}

/// Adds the AI CPU slice to device 0 of the PROF_ directory `prof` (ops_pipeutil's input).
inline void add_records(const fs::path& prof) {
  const fs::path dir = prof / msprof::prof::layout::device_dir(0) / msprof::prof::layout::data_dir;
  fs::create_directories(dir);
  const std::string name = msprof::prof::layout::slice_file(msprof::prof::stream::aicpu(0).base_name(), 0);
  const std::string bytes = records();
  std::ofstream(dir / name, std::ios::binary) << bytes;
  std::ofstream(dir / (name + msprof::prof::layout::done_suffix)) << "filesize:" << bytes.size() << "\n";
}

}  // namespace golden_aicpu

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_AICPU_HPP
