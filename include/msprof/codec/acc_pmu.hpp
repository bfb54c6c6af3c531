// SPDX-License-Identifier: MIT
// The device's accelerator PMU samples (ACC_PMU): 64-byte records in the STARS
// SoC log (device_<id>/data/stars_soc.data.<id>.slice_<n>, beside the ACSQ task
// logs), little-endian, told apart by the funcType in the low 6 bits of their
// first u16 (docs/formats.md, "Device ACC PMU and SIO").
// Only the size is checked here: the caller checks the STARS magic (offset 2)
// and the funcType.
#ifndef MSPROF_CODEC_ACC_PMU_HPP
#define MSPROF_CODEC_ACC_PMU_HPP

#include <cstddef>
#include <cstdint>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "decode.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

inline constexpr std::size_t acc_pmu_size = 64;

/// One ACC_PMU record, field by field ("HHLQHH3L4Q"): the time as a device
/// counter (ticks of hwts_frequency), the accelerator's id, then two u64
/// bandwidth levels and two u64 outstanding-request levels, read first and
/// write second as the reference's C++ parser reads them.
struct AccPmuSample {
  std::uint16_t word0 = 0;  ///< funcType bits 0-5, cnt bits 6-9
  std::uint16_t magic = 0;  ///< stars_magic in a valid record
  std::uint32_t reserved0 = 0;
  std::uint64_t syscnt = 0;
  std::uint16_t reserved1 = 0;
  std::uint16_t acc_id = 0;
  std::uint32_t reserved2[3] = {};
  std::uint64_t bandwidth[2] = {};  ///< read, write
  std::uint64_t ost[2] = {};        ///< read, write

  std::uint16_t func_type() const noexcept { return word0 & 0x3F; }
};

/// The ACC_PMU record at `p` (`size` bytes available); an error naming `at`
/// when fewer than acc_pmu_size bytes are there.
inline result<AccPmuSample> decode_acc_pmu(const unsigned char* p, std::size_t size, const place& at) {
  if (size < acc_pmu_size) return detail::short_input(at, acc_pmu_size, size);
  AccPmuSample s;
  s.word0 = detail::load_le<std::uint16_t>(p);
  s.magic = detail::load_le<std::uint16_t>(p + 2);
  s.reserved0 = detail::load_le<std::uint32_t>(p + 4);
  s.syscnt = detail::load_le<std::uint64_t>(p + 8);
  s.reserved1 = detail::load_le<std::uint16_t>(p + 16);
  s.acc_id = detail::load_le<std::uint16_t>(p + 18);
  for (std::size_t i = 0; i < 3; ++i) s.reserved2[i] = detail::load_le<std::uint32_t>(p + 20 + 4 * i);
  for (std::size_t i = 0; i < 2; ++i) {
    s.bandwidth[i] = detail::load_le<std::uint64_t>(p + 32 + 8 * i);
    s.ost[i] = detail::load_le<std::uint64_t>(p + 48 + 8 * i);
  }
  return s;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_ACC_PMU_HPP
