// SPDX-License-Identifier: MIT
// The raw input of the golden case `hbm` (tests/golden/README.md): the
// `ops_pipeutil` collection plus 16 HBM samples of device 0 (device slice
// hbm.data.0), written here through the project's own encoder, and
// device_0/sample.json's hbm_profiling_events "read,write". Four times
// (100, 300, 600, 1000 µs after the device's start; the 600 ones first in the
// file), each with a read and a write of channels 0 and 1 in an order that is
// not the reference's table order; channel 1 reads nothing (its summary row
// shows the write average as read), counts from 0 to 999999999.
// The input of the golden case `ddr`: the same collection on chip "4" (both
// info.json; the reference reads DDR on chips 0-4, 7, 8 and 11 only) plus 13
// DDR samples of device 0 (device slice ddr.data.0): three times (250, 100,
// 600 µs in file order), each with a read and a write of controllers 0 and 1,
// and one master's read (master id 3), which the bandwidths leave out.
// sys_mem_test.cpp checks that the checked-in inputs are what this writes.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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
  golden_memory::write_slice(prof, msprof::prof::stream::hbm(0), dev);
  golden_memory::add_sample_fields(prof, "\"hbm_profiling\": \"on\", \"hbm_profiling_events\": \"read,write\"");
}

/// The case `ddr`: add_ddr on a copy of `ops_pipeutil`'s input.
inline void add_ddr(const fs::path& prof) {
  constexpr std::uint32_t all = 0xFFFFFFFFu;  // no master: the controller's whole flux
  struct time {
    std::uint32_t us, read0, write0, read1, write1;
  };
  const time times[] = {{250, 3000, 1000, 5, 0}, {100, 123456, 654321, 7, 8}, {600, 999999, 1, 0, 77777}};
  std::vector<codec::DdrSample> samples;
  for (const auto& t : times) {
    samples.push_back({t.us, t.write0, 1, 0, all});
    samples.push_back({t.us, t.read0, 0, 0, all});
    samples.push_back({t.us, t.read1, 0, 1, all});
    samples.push_back({t.us, t.write1, 1, 1, all});
  }
  samples.insert(samples.begin() + 5, codec::DdrSample{250, 4242, 0, 2, 3});
  std::string dev;
  for (const auto& s : samples) golden_memory::append(dev, codec::encode_device(s));
  golden_memory::write_slice(prof, msprof::prof::stream::ddr(0), dev);
  for (const auto& info : {prof / "host" / "info.json", prof / msprof::prof::layout::device_dir(0) / "info.json.0"})
    golden_memory::replace_in(info, "\"platform_version\": \"5\"", "\"platform_version\": \"4\"");
  golden_memory::add_sample_fields(prof, "\"ddr_profiling\": \"on\"");
}

}  // namespace golden_sysmem

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_SYSMEM_HPP
