// SPDX-License-Identifier: MIT
// Single-producer single-consumer byte ring for variable-length records.
// Producer side: no read-modify-write atomics — it owns write_ (release store
// on commit) and a cached copy of the consumer's position, refreshed only when
// the cached view says the ring is full. The common case (the record fits
// before the end of the buffer and in the cached free space) is one compare
// against `limit_`; wrapping and refreshing the consumer's position happen out
// of line. Records are 8-byte aligned, start
// with a 2-byte size in 8-byte units, and are never split across the wrap: a
// record that does not fit before the end is preceded by a skip marker
// (size unit 0) that tells the consumer to jump to the start.
//
// Below the ring: the layout of the records the hot path puts into it, and the
// per-thread buffer (one ring plus the counters only its thread writes).
#ifndef MSPROF_COLLECT_RING_BUFFER_HPP
#define MSPROF_COLLECT_RING_BUFFER_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/syscall.h>
#include <unistd.h>

#include "../core/abi.hpp"
#include "../core/platform.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

class byte_ring {
 public:
  static constexpr std::size_t align = 8;
  static constexpr std::size_t max_record = 0xffff * align;

  // capacity: rounded up to a power of two >= 4 KiB. Storage is prefaulted.
  explicit byte_ring(std::size_t capacity) {
    std::size_t c = 4096;
    while (c < capacity) c <<= 1;
    cap_ = c;
    mask_ = c - 1;
    data_ = static_cast<unsigned char*>(std::aligned_alloc(64, c));
    if (data_ == nullptr) throw std::bad_alloc();
    std::memset(data_, 0, c);  // touch every page now, not on the hot path
    limit_ = c;
    half_mark_ = c / 2;
  }
  ~byte_ring() { std::free(data_); }
  byte_ring(const byte_ring&) = delete;
  byte_ring& operator=(const byte_ring&) = delete;

  std::size_t capacity() const noexcept { return cap_; }

  // ------------------------------------------------------------ producer
  // Space for `size` bytes (multiple of 8, <= max_record), or nullptr if full.
  // The first 2 bytes of the record must hold size / 8 before commit().
  MSPROF_INLINE unsigned char* try_reserve(std::size_t size) noexcept {
    unsigned char* p = try_reserve_fast(size);
    return MSPROF_LIKELY(p != nullptr) ? p : reserve_edge(size);
  }
  // The fast half alone: nullptr when the record needs a wrap or a refreshed
  // view of the consumer (try_reserve then decides), never because of a call.
  MSPROF_INLINE unsigned char* try_reserve_fast(std::size_t size) noexcept {
    const std::uint64_t w = write_.load(std::memory_order_relaxed);
    if (MSPROF_UNLIKELY(w + size > limit_)) return nullptr;  // past the end or the cached free space
    pending_ = w + size;
    return data_ + (w & mask_);
  }
  // Publishes the reserved record; returns the new write position.
  MSPROF_INLINE std::uint64_t commit() noexcept {
    const std::uint64_t p = pending_;
    write_.store(p, std::memory_order_release);
    return p;
  }

  // Fill level seen by the producer (may overestimate by what the consumer freed).
  std::size_t producer_used() const noexcept {
    return static_cast<std::size_t>(write_.load(std::memory_order_relaxed) - cached_read_);
  }
  // Write position above which producer_used() > capacity() / 2.
  std::uint64_t half_mark() const noexcept { return half_mark_; }
  std::size_t refresh_used() noexcept {
    set_cached_read(read_.load(std::memory_order_acquire));
    return producer_used();
  }

  // ------------------------------------------------------------ consumer
  // Calls f(const unsigned char* record, std::size_t size) for every committed
  // record, then frees them. Returns the number of records.
  template <class F>
  std::size_t consume(F&& f) {
    std::uint64_t r = read_.load(std::memory_order_relaxed);
    const std::uint64_t w = write_.load(std::memory_order_acquire);
    std::size_t n = 0;
    while (r < w) {
      std::size_t off = static_cast<std::size_t>(r & mask_);
      std::uint16_t units = 0;
      std::memcpy(&units, data_ + off, sizeof units);
      if (units == 0) {  // skip marker
        r += cap_ - off;
        continue;
      }
      std::size_t size = static_cast<std::size_t>(units) * align;
      f(static_cast<const unsigned char*>(data_ + off), size);
      r += size;
      ++n;
    }
    read_.store(r, std::memory_order_release);
    return n;
  }
  // Drops everything committed so far (consumer side).
  void discard() noexcept { read_.store(write_.load(std::memory_order_acquire), std::memory_order_release); }
  bool empty() const noexcept {
    return read_.load(std::memory_order_acquire) == write_.load(std::memory_order_acquire);
  }

 private:
  // The slow half of try_reserve: the record does not fit before the end of the
  // buffer (skip marker, restart at offset 0) or not in the cached free space
  // (refresh the consumer's position; nullptr if the ring is really full).
  MSPROF_NOINLINE unsigned char* reserve_edge(std::size_t size) noexcept {
    std::uint64_t w = write_.load(std::memory_order_relaxed);
    std::size_t off = static_cast<std::size_t>(w & mask_);
    std::size_t need = size;
    if (off + size > cap_) need += cap_ - off;  // skip to the start
    if (w + need - cached_read_ > cap_) {
      set_cached_read(read_.load(std::memory_order_acquire));
      if (w + need - cached_read_ > cap_) return nullptr;
    }
    if (need != size) {
      std::uint16_t skip = 0;
      std::memcpy(data_ + off, &skip, sizeof skip);
      w += cap_ - off;
      off = 0;
    }
    pending_ = w + size;
    // Next fast-path bound: the end of this lap of the buffer or of the free space.
    const std::uint64_t lap_end = (w & ~static_cast<std::uint64_t>(mask_)) + cap_;
    const std::uint64_t free_end = cached_read_ + cap_;
    limit_ = lap_end < free_end ? lap_end : free_end;
    return data_ + off;
  }
  void set_cached_read(std::uint64_t r) noexcept {
    cached_read_ = r;
    half_mark_ = r + cap_ / 2;
    const std::uint64_t w = write_.load(std::memory_order_relaxed);
    const std::uint64_t lap_end = (w & ~static_cast<std::uint64_t>(mask_)) + cap_;
    const std::uint64_t free_end = r + cap_;
    limit_ = lap_end < free_end ? lap_end : free_end;
  }

  // Producer-owned (write_ is also read by the consumer).
  alignas(64) std::atomic<std::uint64_t> write_{0};
  std::uint64_t limit_ = 0;      // try_reserve's fast path: write + size <= limit_
  std::uint64_t pending_ = 0;
  unsigned char* data_ = nullptr;
  std::size_t mask_ = 0;
  std::uint64_t half_mark_ = 0;  // cached_read_ + cap_ / 2
  std::uint64_t cached_read_ = 0;
  std::size_t cap_ = 0;
  alignas(64) std::atomic<std::uint64_t> read_{0};
};

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

#endif  // MSPROF_COLLECT_RING_BUFFER_HPP
