// SPDX-License-Identifier: MIT
// The raw input of the golden case `hbm` (tests/golden/README.md): the
// `ops_pipeutil` collection plus 16 HBM samples of device 0 (device slice
// hbm.data.0), written here through the project's own encoder, and
// device_0/sample.json's hbm_profiling_events "read,write". Four times
// (100, 300, 600, 1000 µs after the device's start; the 600 ones first in the
// file), each with a read and a write of channels 0 and 1 in an order that is
// not the reference's table order; channel 1 reads nothing (its summary row
// shows the write average as read), counts from 0 to 999999999.
// sys_mem_test.cpp checks that the checked-in input is what this writes.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "golden_memory.hpp"

namespace golden_sysmem {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// The case `hbm`: add_hbm on a copy of `ops_pipeutil`'s input.
inline void add_hbm(const fs::path& prof) {
  const std::uint64_t us[] = {100, 300, 600, 1000};
  struct channel {
    std::uint32_t hbm, event;
    std::uint64_t count[4];  // per time
  };
  const channel channels[] = {  // in file order within one time
      {1, 1, {77, 88, 12345678, 1}},
      {0, 0, {1000, 123456, 7, 999999999}},
      {1, 0, {0, 0, 0, 0}},
      {0, 1, {5, 0, 333333, 42}},
  };
  std::string dev;
  for (std::size_t k : {2, 0, 1, 3})
    for (const auto& c : channels) {
      codec::HbmSample s;
      s.timestampUs = us[k];
      s.count = c.count[k];
      s.eventId = c.event;
      s.hbmId = c.hbm;
      golden_memory::append(dev, codec::encode_device(s));
    }
  golden_memory::write_slice(prof / msprof::prof::layout::device_dir(0) / msprof::prof::layout::data_dir,
                             msprof::prof::stream::hbm(0).base_name(), dev);
  const fs::path sample = prof / msprof::prof::layout::device_dir(0) / msprof::prof::layout::sample_json;
  std::ifstream in(sample, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  in.close();
  text = text.substr(0, text.rfind('}')) + ", \"hbm_profiling\": \"on\", \"hbm_profiling_events\": \"read,write\"}";
  std::ofstream(sample, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace golden_sysmem

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP
