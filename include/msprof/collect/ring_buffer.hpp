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
// Growth (the collector's `grow` policy): the producer may move to a new,
// larger block; the old one is chained to it and read to its end first, then
// freed by the consumer. The hot path sees only its current block.
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
#include <utility>

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
  explicit byte_ring(std::size_t capacity) : byte_ring(new_block(capacity, 0)) {}
  ~byte_ring() {
    for (block* b = cb_; b != nullptr;) {
      block* next = b->next.load(std::memory_order_acquire);
      free_block(b);
      b = next;
    }
  }
  byte_ring(const byte_ring&) = delete;
  byte_ring& operator=(const byte_ring&) = delete;

  /// The producer's block size (grows with grow()).
  std::size_t capacity() const noexcept { return cap_; }
  /// A block size for `capacity`: a power of two >= 4 KiB.
  static std::size_t block_bytes(std::size_t capacity) noexcept {
    std::size_t c = 4096;
    while (c < capacity) c <<= 1;
    return c;
  }

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

  // Moves the producer to a new, empty block of `capacity` bytes (rounded as in
  // the constructor); the consumer reads the old block to its end first, so the
  // order of records is kept. Returns the new block's bytes, 0 when it could
  // not be allocated (nothing changed then).
  std::size_t grow(std::size_t capacity) noexcept {
    const std::uint64_t w = write_.load(std::memory_order_relaxed);
    const std::size_t c = block_bytes(capacity);
    // The new block's first position: a multiple of its size, so offsets stay `pos & mask`.
    block* nb = new_block(c, (w + c - 1) & ~static_cast<std::uint64_t>(c - 1));
    if (nb == nullptr) return 0;
    pb_->end = w;
    pb_->next.store(nb, std::memory_order_release);  // before any record of the new block
    use_block(nb);
    write_.store(nb->start, std::memory_order_release);
    set_cached_read(nb->start);
    return c;
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
  // No half_mark() crossing before write position `pos` (the producer asked already).
  void postpone_half_mark(std::uint64_t pos) noexcept { half_mark_ = pos; }

  // ------------------------------------------------------------ consumer
  // Calls f(const unsigned char* record, std::size_t size) for every committed
  // record, then frees them. Returns the number of records. `freed(bytes)` is
  // called for every block left behind by grow() once it is read to its end.
  template <class F, class Freed>
  std::size_t consume(F&& f, Freed&& freed) {
    std::uint64_t r = read_.load(std::memory_order_relaxed);
    std::size_t n = 0;
    for (;;) {
      // write_ before next: a position in a newer block implies next is visible.
      const std::uint64_t w = write_.load(std::memory_order_acquire);
      block* nb = cb_->next.load(std::memory_order_acquire);
      const std::uint64_t end = nb != nullptr ? cb_->end : w;
      const std::size_t cap = cb_->cap, mask = cap - 1;
      while (r < end) {
        const std::size_t off = static_cast<std::size_t>(r & mask);
        std::uint16_t units = 0;
        std::memcpy(&units, cb_->data + off, sizeof units);
        if (units == 0) {  // skip marker
          r += cap - off;
          continue;
        }
        const std::size_t size = static_cast<std::size_t>(units) * align;
        f(static_cast<const unsigned char*>(cb_->data + off), size);
        r += size;
        ++n;
      }
      if (nb == nullptr) break;
      freed(cb_->cap);
      free_block(cb_);
      cb_ = nb;
      r = nb->start;
    }
    read_.store(r, std::memory_order_release);
    return n;
  }
  template <class F>
  std::size_t consume(F&& f) {
    return consume(std::forward<F>(f), [](std::size_t) {});
  }
  // Drops everything committed so far (consumer side).
  template <class Freed>
  void discard(Freed&& freed) {
    consume([](const unsigned char*, std::size_t) {}, std::forward<Freed>(freed));
  }
  bool empty() const noexcept {
    return read_.load(std::memory_order_acquire) == write_.load(std::memory_order_acquire);
  }
  /// Bytes of every block not yet freed (consumer side, or with no producer left).
  std::size_t held_bytes() const noexcept {
    std::size_t n = 0;
    for (const block* b = cb_; b != nullptr; b = b->next.load(std::memory_order_acquire)) n += b->cap;
    return n;
  }

 private:
  // One block of storage. grow() chains a new one: `end` (the producer's last
  // position in this block) is set before `next` is published.
  struct block {
    unsigned char* data = nullptr;
    std::size_t cap = 0;
    std::uint64_t start = 0;                 // position of data[0] (a multiple of cap)
    std::uint64_t end = 0;
    std::atomic<block*> next{nullptr};
  };
  static block* new_block(std::size_t capacity, std::uint64_t start) noexcept {
    const std::size_t c = block_bytes(capacity);
    auto* data = static_cast<unsigned char*>(std::aligned_alloc(64, c));
    if (data == nullptr) return nullptr;
    auto* b = new (std::nothrow) block;
    if (b == nullptr) {
      std::free(data);
      return nullptr;
    }
    std::memset(data, 0, c);  // touch every page now, not on the hot path
    b->data = data;
    b->cap = c;
    b->start = start;
    return b;
  }
  static void free_block(block* b) noexcept {
    std::free(b->data);
    delete b;
  }
  explicit byte_ring(block* first) {
    if (first == nullptr) throw std::bad_alloc();
    cb_ = first;
    use_block(first);
    set_cached_read(0);
  }
  void use_block(block* b) noexcept {
    pb_ = b;
    data_ = b->data;
    cap_ = b->cap;
    mask_ = b->cap - 1;
  }

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
  // `r`: the consumer's position. Until the consumer reaches the producer's
  // block, that block is all free (reading an older block frees nothing here).
  void set_cached_read(std::uint64_t r) noexcept {
    if (r < pb_->start) r = pb_->start;
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
  unsigned char* data_ = nullptr;  // pb_'s storage, size and mask
  std::size_t mask_ = 0;
  std::uint64_t half_mark_ = 0;  // cached_read_ + cap_ / 2
  std::uint64_t cached_read_ = 0;
  std::size_t cap_ = 0;
  block* pb_ = nullptr;
  // Consumer-owned.
  alignas(64) std::atomic<std::uint64_t> read_{0};
  block* cb_ = nullptr;
};

// Every record starts with this 8-byte header, then u64 timestamp, u64 id.
//   mark/range start, static message: + u64 pointer to the literal (no copy)
//   mark/range start, dynamic message: + msg_len bytes, padded to 8
//   range end, step begin/end: nothing more
//   memory: + u64 handle, heap, address, size, device id
//   fw_op, fw_mark, fw_memory: framework records (framework_ring.hpp)
enum class record_kind : std::uint8_t {
  mark_static = 1,
  mark_dynamic,
  range_start_static,
  range_start_dynamic,
  range_end,
  memory,
  step_begin,
  step_end,
  fw_op,
  fw_mark,
  fw_memory,
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
  // The calls this thread made (recorded or dropped): a slot of the session's
  // call counters (record_sink::call_counters), else own_calls. Written by the
  // producer only (load + store), read after it is gone (another process).
  std::atomic<std::atomic<std::uint64_t>*> calls{&own_calls};
  std::atomic<std::uint64_t> own_calls{0};
  // Drain side (stop()'s check that the counter and what the drain took agree).
  std::uint64_t calls_base = 0;   // the counter's value when this collection gave it
  std::uint64_t taken_calls = 0;  // mstx calls the drain decoded from this ring this collection
  std::uint32_t tid;
  std::uint64_t woken_in_pass = 0;           // producer-only: drain pass + 1 when it last woke the drain
  std::atomic<std::uint64_t> dropped{0};     // written by the producer only (load + store)
  std::atomic<bool> finished{false};         // thread exited; drain then reclaims

  void count_drop() noexcept {
    dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    count_call();
  }
  MSPROF_INLINE void count_call() noexcept {
    // acquire: a new collection (a session's next window, a --dynamic start) may hand a running thread a freshly mapped slot
    std::atomic<std::uint64_t>* c = calls.load(std::memory_order_acquire);
    // release: what this thread did before (the record's commit, a drop, an
    // earlier count in another slot) is seen by whoever reads this count with
    // acquire (collector's settle_calls). A plain store on x86, stlr on Arm.
    c->store(c->load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_RING_BUFFER_HPP
