// SPDX-License-Identifier: MIT
// Per-thread buffer: one byte_ring plus the counters only its thread writes,
// and the layout of the records the hot path puts into it.
#ifndef MSPROF_COLLECT_THREAD_BUFFER_HPP
#define MSPROF_COLLECT_THREAD_BUFFER_HPP

#include <atomic>
#include <cstdint>
#include <cstring>

#include <sys/syscall.h>
#include <unistd.h>

#include "../core/abi.hpp"
#include "ring_buffer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

// Every record starts with this 8-byte header, then u64 timestamp, u64 id.
//   mark/range start, static message: + u64 pointer to the literal (no copy)
//   mark/range start, dynamic message: + msg_len bytes, padded to 8
//   range end, step begin/end: nothing more
//   memory: + u64 handle, heap, address, size, device id
enum class record_kind : std::uint8_t {
  mark_static = 1,
  mark_dynamic,
  range_start_static,
  range_start_dynamic,
  range_end,
  memory,
  step_begin,
  step_end,
};

struct ring_header {
  std::uint16_t units;  // record size / 8 (written first; 0 = ring skip marker)
  record_kind kind;
  std::uint8_t flags;   // bit 0: a stream was given; memory: mem_op in bits 4..7
  std::uint16_t domain;
  std::uint16_t msg_len;
};
static_assert(sizeof(ring_header) == 8, "ring header is 8 bytes");

inline constexpr std::uint8_t record_flag_stream = 1;
inline constexpr std::size_t record_fixed_bytes = sizeof(ring_header) + 16;

inline std::uint32_t current_tid() noexcept { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

struct thread_buffer {
  explicit thread_buffer(std::size_t ring_bytes) : ring(ring_bytes), tid(current_tid()) {}

  byte_ring ring;
  std::uint32_t tid;
  bool wake_sent = false;                    // producer-only
  std::atomic<std::uint64_t> dropped{0};     // written by the producer only (load + store)
  std::atomic<bool> finished{false};         // thread exited; drain then reclaims

  void count_drop() noexcept { dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_THREAD_BUFFER_HPP
