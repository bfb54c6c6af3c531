// SPDX-License-Identifier: MIT
// The ring records of framework events (<msprof/framework.hpp>: ops, task-queue
// marks, allocator events) and their decoding on the drain side. Each record
// starts like every ring record (ring_header, u64 timestamp, u64 second word),
// so the ring, the drop counting and the call counters treat them as any other.
//
//   fw_op      header: flags bit 0 async;
//              domain = scope; msg_len = name bytes.  ts = end, word 2 = start.
//              + i64 seq, u64 fwd_tid, u32 dtypes, shapes, stack bytes, u32 0,
//              then name, dtypes, shapes, stack, padded to 8.
//   fw_mark    msg_len = name bytes; ts, word 2 = correlation id;
//              + u64 category, then the name, padded to 8.
//   fw_memory  ts, word 2 = 0; + i64 ptr, alloc_size, total_allocated,
//              total_reserved, total_active, stream_ptr, then the five u8/i8
//              fields in one u64 (device_type first).
// Every string is cut at fw_max_field bytes (the record stays far below
// byte_ring::max_record).
#ifndef MSPROF_COLLECT_FRAMEWORK_RING_HPP
#define MSPROF_COLLECT_FRAMEWORK_RING_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/abi.hpp"
#include "../mstx.h"
#include "record_sink.hpp"
#include "ring_buffer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

/// The longest string a framework record keeps (longer ones are cut).
inline constexpr std::size_t fw_max_field = 16384;

namespace detail {

inline constexpr std::size_t fw_op_fixed = record_fixed_bytes + 32;
inline constexpr std::size_t fw_mark_fixed = record_fixed_bytes + 8;
inline constexpr std::size_t fw_memory_bytes = record_fixed_bytes + 56;
static_assert(fw_op_fixed % 8 == 0 && fw_mark_fixed % 8 == 0 && fw_memory_bytes % 8 == 0, "ring records are 8-byte units");

inline std::size_t cut(const char* s, std::size_t n) noexcept { return s == nullptr ? 0 : n < fw_max_field ? n : fw_max_field; }
inline std::size_t pad8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }
inline void put_header(unsigned char* p, std::size_t size, record_kind kind, std::uint8_t flags, std::uint16_t domain,
                       std::uint16_t msg_len, std::uint64_t ts, std::uint64_t word2) noexcept {
  const ring_header h{static_cast<std::uint16_t>(size / 8), kind, flags, domain, msg_len};
  const std::uint64_t v[2] = {ts, word2};
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, v, sizeof v);
}
inline unsigned char* put_text(unsigned char* p, const char* s, std::size_t n) noexcept {
  if (n != 0) std::memcpy(p, s, n);
  return p + n;
}

}  // namespace detail

/// Ring bytes of a finished op.
inline std::size_t fw_op_bytes(const msprof_fw_op_v0_1& op) noexcept {
  using detail::cut;
  return detail::pad8(detail::fw_op_fixed + cut(op.name, op.name_len) + cut(op.dtypes, op.dtypes_len) +
                      cut(op.shapes, op.shapes_len) + cut(op.stack, op.stack_len));
}
inline void fill_fw_op(unsigned char* p, std::size_t size, const msprof_fw_op_v0_1& op, std::uint64_t end) noexcept {
  using detail::cut;
  const std::size_t name = cut(op.name, op.name_len);
  const std::uint32_t lens[4] = {static_cast<std::uint32_t>(cut(op.dtypes, op.dtypes_len)),
                                 static_cast<std::uint32_t>(cut(op.shapes, op.shapes_len)),
                                 static_cast<std::uint32_t>(cut(op.stack, op.stack_len)), 0};
  detail::put_header(p, size, record_kind::fw_op, op.is_async ? 1 : 0, op.scope, static_cast<std::uint16_t>(name), end,
                     op.start);
  unsigned char* q = p + record_fixed_bytes;
  std::memcpy(q, &op.seq, 8);
  std::memcpy(q + 8, &op.fwd_tid, 8);
  std::memcpy(q + 16, lens, sizeof lens);
  q = detail::put_text(p + detail::fw_op_fixed, op.name, name);
  q = detail::put_text(q, op.dtypes, lens[0]);
  q = detail::put_text(q, op.shapes, lens[1]);
  detail::put_text(q, op.stack, lens[2]);
}

inline std::size_t fw_mark_bytes(const char* name, std::size_t len) noexcept {
  return detail::pad8(detail::fw_mark_fixed + detail::cut(name, len));
}
inline void fill_fw_mark(unsigned char* p, std::size_t size, std::uint64_t category, std::uint64_t corr_id,
                         const char* name, std::size_t len, std::uint64_t ts) noexcept {
  len = detail::cut(name, len);
  detail::put_header(p, size, record_kind::fw_mark, 0, 0, static_cast<std::uint16_t>(len), ts, corr_id);
  std::memcpy(p + record_fixed_bytes, &category, 8);
  detail::put_text(p + detail::fw_mark_fixed, name, len);
}

inline constexpr std::size_t fw_memory_bytes = detail::fw_memory_bytes;
inline void fill_fw_memory(unsigned char* p, const msprof_fw_memory_v0_1& m, std::uint64_t ts) noexcept {
  detail::put_header(p, fw_memory_bytes, record_kind::fw_memory, 0, 0, 0, ts, 0);
  const std::int64_t v[6] = {m.ptr, m.alloc_size, m.total_allocated, m.total_reserved, m.total_active, m.stream_ptr};
  std::memcpy(p + record_fixed_bytes, v, sizeof v);
  const unsigned char b[8] = {static_cast<unsigned char>(m.device_type), static_cast<unsigned char>(m.device_index),
                              m.component_type, m.data_type, m.allocator_type, 0, 0, 0};
  std::memcpy(p + record_fixed_bytes + 48, b, sizeof b);
}

// ------------------------------------------------------------ drain side
// `p`/`size`: one whole record of the kind (the ring hands whole records). The
// strings of the result point into the record. False: a damaged record.
inline bool decode_fw_op(const unsigned char* p, std::size_t size, fw_op_record& r) noexcept {
  if (size < detail::fw_op_fixed) return false;
  ring_header h;
  std::memcpy(&h, p, sizeof h);
  std::memcpy(&r.end, p + sizeof h, 8);
  std::memcpy(&r.start, p + sizeof h + 8, 8);
  const unsigned char* q = p + record_fixed_bytes;
  std::memcpy(&r.seq, q, 8);
  std::memcpy(&r.fwd_tid, q + 8, 8);
  std::uint32_t lens[4];
  std::memcpy(lens, q + 16, sizeof lens);
  if (std::size_t{h.msg_len} + lens[0] + lens[1] + lens[2] > size - detail::fw_op_fixed) return false;
  const char* s = reinterpret_cast<const char*>(p + detail::fw_op_fixed);
  r.name = {s, h.msg_len};
  r.dtypes = {s += h.msg_len, lens[0]};
  r.shapes = {s += lens[0], lens[1]};
  r.stack = {s + lens[1], lens[2]};
  r.is_async = (h.flags & 1) != 0;
  r.scope = static_cast<std::uint8_t>(h.domain);
  return true;
}

inline bool decode_fw_mark(const unsigned char* p, std::size_t size, fw_mark_record& r) noexcept {
  if (size < detail::fw_mark_fixed) return false;
  ring_header h;
  std::memcpy(&h, p, sizeof h);
  if (h.msg_len > size - detail::fw_mark_fixed) return false;
  std::memcpy(&r.time, p + sizeof h, 8);
  std::memcpy(&r.corr_id, p + sizeof h + 8, 8);
  std::memcpy(&r.category, p + record_fixed_bytes, 8);
  r.name = {reinterpret_cast<const char*>(p + detail::fw_mark_fixed), h.msg_len};
  return true;
}

inline bool decode_fw_memory(const unsigned char* p, std::size_t size, fw_memory_record& r) noexcept {
  if (size < fw_memory_bytes) return false;
  std::memcpy(&r.time, p + sizeof(ring_header), 8);
  std::int64_t v[6];
  std::memcpy(v, p + record_fixed_bytes, sizeof v);
  r.ptr = v[0];
  r.alloc_size = v[1];
  r.total_allocated = v[2];
  r.total_reserved = v[3];
  r.total_active = v[4];
  r.stream_ptr = v[5];
  const unsigned char* b = p + record_fixed_bytes + 48;
  r.device_type = static_cast<std::int8_t>(b[0]);
  r.device_index = static_cast<std::int8_t>(b[1]);
  r.component_type = b[2];
  r.data_type = b[3];
  r.allocator_type = b[4];
  return true;
}

/// Decodes a framework record of `kind` written by thread `tid` of process
/// `pid` and hands its sink call to `to_sink(write)` (write(record_sink&)).
template <class ToSink>
void deliver_fw(record_kind kind, const unsigned char* p, std::size_t size, std::uint32_t pid, std::uint64_t tid,
                ToSink&& to_sink) noexcept {
  const auto give = [&](auto& r, bool decoded, auto write) {
    if (!decoded) return;
    r.pid = pid;
    r.tid = tid;
    to_sink([&](record_sink& s) { write(s, r); });
  };
  if (kind == record_kind::fw_op) {
    fw_op_record r;
    give(r, decode_fw_op(p, size, r), [](record_sink& s, const fw_op_record& x) { s.write_fw_op(x); });
  } else if (kind == record_kind::fw_mark) {
    fw_mark_record r;
    give(r, decode_fw_mark(p, size, r), [](record_sink& s, const fw_mark_record& x) { s.write_fw_mark(x); });
  } else if (kind == record_kind::fw_memory) {
    fw_memory_record r;
    give(r, decode_fw_memory(p, size, r), [](record_sink& s, const fw_memory_record& x) { s.write_fw_memory(x); });
  }
}

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_FRAMEWORK_RING_HPP
