// SPDX-License-Identifier: MIT
// The raw input of the golden case `soc_pmu` (tests/golden/README.md): the
// `ops_pipeutil` collection plus SoC PMU records of device 0, written here
// through the project's own encoder. device_0/sample.json gets npuEvents with
// a part of another type, a part without ':' and the SMMU events shuffled,
// spaced and in upper case (then a second SMMU part, which is not read); the
// two slices hold TLB records (data type 2) of the ops' tasks and of tasks no
// op launched, rates that round, a zero request count, a rate of exactly 1 and
// a hit sum of 2^64, and records of data types 1, 3 and 4 that the summary
// leaves out. The HA records (data type 1) are the summary l2_cache's, their
// counters named by l2CacheTaskProfilingEvents (spaced, in upper case); the
// collection has no L2 cache slices. l2_cache_test.cpp checks that the
// checked-in input is what this writes; with `v6` it writes the same records
// in the layout of chips 15 and 16.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_SOC_PMU_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_SOC_PMU_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "golden_memory.hpp"

namespace golden_soc_pmu {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// The SMMU events, in the order of the records' counters: hit, miss, request, hit.
inline const char* const kNpuEvents = "DDR:0x1,0x2;junk;SMMU: 0x8C,0x2 ,0x8a, 0x8d;SMMU:0x8a";

/// The L2 cache events of the HA records' counters: on platform 5 the request
/// is hit1 + request, the victim is miss.
inline const char* const kL2Events = "0xfb, 0x9C,0xfc,0x90,0x91";

struct record {
  std::uint16_t data_type, stream, task;
  std::uint64_t hit1, miss, request, hit2;
};

inline std::string encode(const record& r, bool v6) {
  std::string out;
  const auto fill = [&](auto t) {
    t.dataType = r.data_type;
    t.taskType = 1;
    t.streamId = r.stream;
    t.taskId = r.task;
    const std::uint64_t ev[8] = {r.hit1, r.miss, r.request, r.hit2, 777, 778, 779, 780};
    for (std::size_t i = 0; i < 8; ++i) t.events[i] = ev[i];
    golden_memory::append(out, codec::encode_device(t));
  };
  if (v6)
    fill(codec::SocPmuTaskV6{});
  else
    fill(codec::SocPmuTask{});
  return out;
}

/// device_0's socpmu slices (v6: chips 15 and 16's layout).
inline void write_slices(const fs::path& prof, bool v6) {
  constexpr std::uint64_t top = std::uint64_t{1} << 63;
  const std::vector<std::vector<record>> slices = {
      {{2, 2, 10, 1, 1, 3, 0},  // 1/3, 1/3
       {2, 2, 11, 1, 0, 3, 1},
       {4, 2, 10, 5, 5, 5, 5},  // a page fault record: not a task's
       {2, 2, 12, 0, 0, 0, 0},  // no requests
       {2, 2, 13, 2, 0, 4, 2},  // a hit rate of 1
       {2, 2, 14, 3, 1, 1000000, 0},
       {1, 2, 10, 1, 1, 2, 0},   // HA: 1/3
       {1, 2, 12, 0, 0, 0, 0}},  // HA without requests
      {{2, 2, 99, 1, 7, 6, 0},           // no op launched task 99; a miss rate above 1
       {2, 3, 10, top, 0, ~std::uint64_t{0}, top},  // hits summing to 2^64
       {1, 2, 11, 9, 9, 9, 9},           // HA: the L2 cache's
       {2, 2, 14, 1, 0, 2000000, 0},     // 5e-07 rounded
       {3, 2, 12, 1, 1, 1, 1},           // an unknown data type
       {2, 2, 10, 1, 1, 2, 1},
       {1, 5, 99, 3, 7, 0, 0}},  // HA of a task no op launched, a victim rate above 1
  };
  for (std::size_t n = 0; n < slices.size(); ++n) {
    std::string bytes;
    for (const auto& r : slices[n]) bytes += encode(r, v6);
    golden_memory::write_slice(prof, msprof::prof::stream::soc_pmu(0), bytes, static_cast<std::uint32_t>(n));
  }
}

/// The case `soc_pmu`: add_soc_pmu on a copy of `ops_pipeutil`'s input.
inline void add_soc_pmu(const fs::path& prof) {
  golden_memory::add_sample_fields(prof, std::string("\"npuEvents\": \"") + kNpuEvents +
                                             "\", \"l2CacheTaskProfilingEvents\": \"" + kL2Events + "\"");
  write_slices(prof, false);
}

}  // namespace golden_soc_pmu

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_SOC_PMU_HPP
