// SPDX-License-Identifier: MIT
// The raw inputs of the golden cases `pcie`, `hccs`, `nic` and `roce` (tests/golden/README.md):
// the `ops_pipeutil` collection plus four PCIe samples of device 0 (device
// slice pcie.data.0), written here through the project's own encoder, or plus
// seven HCCS samples (the text slice hccs.data.0). The latest PCIe sample is
// the second in the file; it holds the counter's "no value" (0xFFFFF) as a
// minimum and as a maximum, a bandwidth of 2^32 - 1 and latencies that are not
// whole µs. Its deviceId (7) is not the directory's. The HCCS samples are out
// of time order, one counter goes down, two share a timestamp. The NIC case
// (text slice nic.data.0) has two ports: funcId 0 with three samples out of
// time order (a span not whole µs, a first bandwidth of 1 MB/s), funcId 1 with
// one; the RoCE case the same samples in roce.data.0.
// sys_io_test.cpp checks that the checked-in inputs are what this writes.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_SYSIO_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_SYSIO_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "golden_memory.hpp"

namespace golden_sysio {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// The case `pcie`: add_pcie on a copy of `ops_pipeutil`'s input.
inline void add_pcie(const fs::path& prof) {
  constexpr std::uint32_t none = 0xFFFFF, full = 0xFFFFFFFFu;
  struct sample {
    std::uint64_t ns;
    std::uint32_t v[21];  // tx_p, tx_np, tx_cpl, tx_np_latency, rx_p, rx_np, rx_cpl: min, max, avg
  };
  const std::vector<sample> samples = {
      {1000000100000, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}},
      {1000000900000, {100, none, 333, none, 500, 250, 10, 20, 15, 1500, 2500, 3457, full, 0, 1, 7, 9, 8, none, none, none}},
      {1000000300000, {500, 100, 300, 9, 999999, 999999, 9, 999999, 999999, 9, 999999, 999999, 9, 999999, 999999, 9,
                       999999, 999999, 9, 999999, 999999}},
      {1000000200000, {0, 0, 0, none, 0, 0, 1, 2, 3, 999, 1001, 1000, full, full, full, 5, 5, 5, 2, 2, 2}},
  };
  std::string dev;
  for (const auto& s : samples) {
    codec::PcieSample p;
    p.timestamp = s.ns;
    p.deviceId = 7;
    for (std::size_t i = 0; i < 21; ++i) p.values[i] = s.v[i];
    golden_memory::append(dev, codec::encode_device(p));
  }
  golden_memory::write_slice(prof, msprof::prof::stream::pcie(0), dev);
}

/// The case `hccs`: add_hccs on a copy of `ops_pipeutil`'s input.
inline void add_hccs(const fs::path& prof) {
  const std::string text =
      "timestamp(ns) txAmount(B) rxAmount(B)\n"
      "1000000300000: 3000000 1500000\n"
      "1000000100000: 1000000 500000\n"
      "1000000200000: 2000123 1000077\n"
      "1000000400000: 2000000 2500000\n"
      "1000000500000: 9000000 3000000\n"
      "1000000500000: 9000001 3000001\n"
      "1000000700001: 12345678 4000000\n";
  golden_memory::write_slice(prof, msprof::prof::stream::hccs(0), text);
}

/// The NIC samples of the cases `nic` and `roce` (one format), as slice `stream`.
inline void add_network(const fs::path& prof, const msprof::prof::stream& stream) {
  const std::string text =
      "timestamp bandwidth rxPacket/s rxByte/s rxPackets rxBytes rxErrors rxDropped "
      "txPacket/s txByte/s txPackets txBytes txErrors txDropped funcId\n"
      "1000000100000: 1 10 1000 10 1000 1 0 20 2000 20 2000 0 1 0\n"
      "1000000300457.5: 100000 30 3000 40 30000001000 2 1 25 2500 45 4500 1 2 0\n"
      "1000000200123: 100000 15 1500 25 2500 2 1 22 2200 30 3000 1 1 0\n"
      "1000000150000: 25 7 700 40 70000000.9 3 1 9 900 0 9000 2 0 1\n";
  golden_memory::write_slice(prof, stream, text);
}

/// The case `nic`: add_nic on a copy of `ops_pipeutil`'s input.
inline void add_nic(const fs::path& prof) { add_network(prof, msprof::prof::stream::nic(0)); }

/// The case `roce`: add_roce on a copy of `ops_pipeutil`'s input (the same samples).
inline void add_roce(const fs::path& prof) { add_network(prof, msprof::prof::stream::roce(0)); }

}  // namespace golden_sysio

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_SYSIO_HPP
