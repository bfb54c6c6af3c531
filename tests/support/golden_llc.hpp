// SPDX-License-Identifier: MIT
// The raw input of the golden case `llc` (tests/golden/README.md): the
// `ops_pipeutil` collection (chip "5", collection version "1.0": the first
// layout, two L3 tags) plus 57 LLC samples of device 0 (device slice
// llc.data.0), written here through the project's own encoder, and
// device_0/sample.json's llc_profiling "read". Three times (300, 100, 700 µs
// after the device's start, in file order), each with the eight read events of
// tags 1 and 0; at 300 µs also a count of event 0x03 (a write event, which
// mode "read" leaves out), at 100 µs also the eight events of tag 2 (beyond
// chip 5's two tags). Tag 1 at 100 µs has no accesses (hit rate 0).
// llc_test.cpp checks that the checked-in input is what this writes.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_LLC_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_LLC_HPP

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "golden_memory.hpp"

namespace golden_llc {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// The events event0..event7 of mode "read".
constexpr std::uint32_t kReadEvents[8] = {0x00, 0x01, 0x02, 0x13, 0x20, 0x22, 0x34, 0x36};

/// The case `llc`: add_llc on a copy of `ops_pipeutil`'s input.
inline void add_llc(const fs::path& prof) {
  const std::map<std::pair<std::uint32_t, std::uint64_t>, std::array<std::uint64_t, 8>> counts = {  // (tag, µs)
      {{0, 100}, {1000, 2000, 30, 40, 50, 60, 7, 9}},    {{0, 300}, {123456, 654321, 17, 0, 1000, 3, 29, 1}},
      {{0, 700}, {999999, 1, 5, 5, 5, 5, 5, 5}},         {{1, 100}, {10, 20, 1, 2, 0, 3, 0, 4}},
      {{1, 300}, {777, 0, 250, 250, 1500, 0, 1500, 0}}, {{1, 700}, {4242, 4343, 1, 1, 3, 1, 0, 1}},
  };
  std::string dev;
  const auto put = [&](std::uint64_t us, std::uint64_t count, std::uint32_t event, std::uint32_t tag) {
    golden_memory::append(dev, codec::encode_device(codec::LlcSample{us, count, event, tag}));
  };
  for (std::uint64_t us : {300, 100, 700}) {
    for (std::uint32_t tag : {1u, 0u})
      for (std::size_t k = 0; k < 8; ++k) put(us, counts.at({tag, us})[k], kReadEvents[k], tag);
    if (us == 300) put(us, 99999, 0x03, 0);
    if (us == 100)
      for (auto e : kReadEvents) put(us, 5, e, 2);
  }
  golden_memory::write_slice(prof, msprof::prof::stream::llc(0), dev);
  golden_memory::replace_in(prof / msprof::prof::layout::device_dir(0) / msprof::prof::layout::sample_json,
                            "\"llc_profiling\": \"\"", "\"llc_profiling\": \"read\"");
}

}  // namespace golden_llc

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_LLC_HPP
