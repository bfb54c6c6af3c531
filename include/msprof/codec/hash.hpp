// SPDX-License-Identifier: MIT
// CANN's DoubleHash: the 64-bit ids that host records use for op names, op
// types, kernel names and mstx domains (ascend-formats.md §2.5). Two uint32
// accumulators, h0 = h0*29 + c and h1 = h1*131 + c, over the bytes, where c is
// the byte converted through (signed) char as CANN's x86 build does, so bytes
// >= 0x80 are sign-extended; the id is (h0 << 32) | h1.
#ifndef MSPROF_CODEC_HASH_HPP
#define MSPROF_CODEC_HASH_HPP

#include <cstdint>
#include <string_view>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

constexpr std::uint64_t double_hash(std::string_view s) noexcept {
  std::uint32_t h0 = 0, h1 = 0;
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    // Sign extension made explicit so the result does not depend on whether
    // char is signed on this host.
    const std::uint32_t c = u >= 0x80 ? (0xFFFFFF00u | u) : u;
    h0 = h0 * 29u + c;
    h1 = h1 * 131u + c;
  }
  return (static_cast<std::uint64_t>(h0) << 32) | h1;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_HASH_HPP
