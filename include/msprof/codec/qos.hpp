// SPDX-License-Identifier: MIT
// The device's QoS bandwidth samples (device_<id>/data/qos.data.<id>.slice_<n>,
// CANN's QoS collection): 64-byte records "=2I2Q10I", little-endian. The
// reference reads the second 64-bit field as the time (device counter ticks,
// as STARS logs) and the ten 32-bit fields after it as bandwidths in MB/s, one
// per name of sample.json's qosEvents in order (docs/formats.md, "Device QoS").
// Any 64 bytes are a sample; only a cut record is damage.
#ifndef MSPROF_CODEC_QOS_HPP
#define MSPROF_CODEC_QOS_HPP

#include <cstddef>
#include <cstdint>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "decode.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

inline constexpr std::size_t qos_size = 64;
inline constexpr std::size_t qos_bandwidths = 10;

/// One QoS sample, decoded field by field (the fields the reference does not
/// read are kept as they are).
struct QosSample {
  std::uint32_t head[2] = {0, 0};
  std::uint64_t reserved = 0;
  std::uint64_t syscnt = 0;                  ///< device counter ticks (hwts_frequency)
  std::uint32_t bandwidth[qos_bandwidths] = {};  ///< MB/s, one per qosEvents name
};

/// The sample at `p` (`size` bytes available); an error naming `at` when
/// fewer than qos_size bytes are there.
inline result<QosSample> decode_qos(const unsigned char* p, std::size_t size, const place& at) {
  if (size < qos_size) return detail::short_input(at, qos_size, size);
  QosSample s;
  s.head[0] = detail::load_le<std::uint32_t>(p);
  s.head[1] = detail::load_le<std::uint32_t>(p + 4);
  s.reserved = detail::load_le<std::uint64_t>(p + 8);
  s.syscnt = detail::load_le<std::uint64_t>(p + 16);
  for (std::size_t i = 0; i < qos_bandwidths; ++i) s.bandwidth[i] = detail::load_le<std::uint32_t>(p + 24 + 4 * i);
  return s;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_QOS_HPP
