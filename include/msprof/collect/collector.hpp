// SPDX-License-Identifier: MIT
// The hot-path collector and its control API (what the session drives).
//
//   collect::options o;                 // include/exclude, overflow, drain interval, sink
//   o.sink = std::make_shared<my_record_sink>(...);   // writes into a prof::prof_dir
//   if (auto r = collect::start(o); !r) { ...r.err()... }
//   ... mstx calls on any thread ...
//   collect::step_begin(1); ... collect::step_end(1);
//   collect::stop();                    // drains everything, flushes the sink
//   collect::loss_counters l = collect::losses();
//
// Producers (instrumented threads) write fixed-layout records into their own
// SPSC byte ring (ring_buffer.hpp); a drain thread empties all rings every
// drain_interval (default 100 ms) and whenever a ring passes half full,
// pairs ranges (range_pairer.hpp) and hands finished events to options::sink.
//
// A full ring does what the overflow policy says: `grow` (the default) moves
// the thread to a ring twice as large while all rings together stay within
// buffer_limit, then waits like `block`; `block` waits for the drain (up to
// block_timeout, 0 = as long as collection runs); `drop_newest` drops the
// event. Nothing is lost but by `drop_newest`, a block_timeout or stop(), and
// every loss is counted (losses()).
//
// The drain side (the drain loop, decoding, pairing, settle_calls) is in
// drain.hpp, which this header includes after the class.
//
// Compile-time policy: MSPROF_COLLECTOR names a collector_policy<Clock,
// RingBytes, Overflow>; default_policy = auto_clock, 1 MiB rings, grow.
//
// Losses survive a crash: at least every drain_interval the sink gets the
// counters so far (record_sink::update_losses), and every call a thread makes
// is counted as it happens in storage the sink gives (record_sink::
// call_counters, a shared file mapping), so a killed run's export can count
// the calls that were still in memory: calls made = recorded + every loss.
//
// fork(): the child never inherits a running collector. Its calls record
// nothing (its first call says so on stderr, once); a child of a process that
// was collecting counts itself and its calls in the parent's storage
// (call_counter_block::forks: host/msprof_forks), so the export says how many
// calls fork()ed children made that are in no trace. start() in the child
// fails (errc::unsupported), and stop()/flush()/losses() in the child touch
// nothing of the parent's (no drain thread to join, no lock a parent thread
// may have held at fork). The parent is unaffected.
#ifndef MSPROF_COLLECT_COLLECTOR_HPP
#define MSPROF_COLLECT_COLLECTOR_HPP

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/platform.hpp"
#include "../instrument/tool_core.hpp"
#include "clock.hpp"
#include "framework_ring.hpp"
#include "options.hpp"
#include "range_pairer.hpp"
#include "record_sink.hpp"
#include "ring_buffer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

template <class Policy>
class basic_collector {
 public:
  using clock = typename Policy::clock;

  // ------------------------------------------------- recorder for the tool core
  struct recorder {
    MSPROF_INLINE static bool collecting() noexcept {
      if (MSPROF_LIKELY(collecting_.load(std::memory_order_relaxed))) return true;
      if (MSPROF_UNLIKELY(forked_child_.load(std::memory_order_relaxed))) note_forked_child();
      return false;
    }
    // Inline into the tool core's calls: the event stays in registers (an
    // out-of-line call built it on the stack and read it back).
    MSPROF_INLINE static void mark(const instrument::event& e) noexcept {
      write_event(e.msg.is_static ? record_kind::mark_static : record_kind::mark_dynamic, e);
    }
    MSPROF_INLINE static void range_start(const instrument::event& e) noexcept {
      write_event(e.msg.is_static ? record_kind::range_start_static : record_kind::range_start_dynamic, e);
    }
    MSPROF_INLINE static void range_end(const instrument::event& e) noexcept { write_event(record_kind::range_end, e); }
    static void memory(const instrument::mem_event& e) noexcept {
      thread_buffer* b = current();
      if (b == nullptr) return;
      unsigned char* p = reserve(b, record_fixed_bytes + 40);
      if (p == nullptr) return;
      ring_header h{static_cast<std::uint16_t>((record_fixed_bytes + 40) / 8), record_kind::memory,
                    static_cast<std::uint8_t>(static_cast<unsigned>(e.op) << 4),
                    static_cast<std::uint16_t>(e.domain), 0};
      std::uint64_t v[7] = {clock::now(), 0, e.handle, e.heap, e.address, e.size, e.device_id};
      std::memcpy(p, &h, sizeof h);
      std::memcpy(p + sizeof h, v, sizeof v);
      commit(b);
    }
    static void domain_registered(std::uint32_t, const char*) noexcept {}
    // The tool core's ids live beside the thread's buffer pointer (one TLS access).
    MSPROF_INLINE static instrument::id_cache& ids() noexcept { return ts().ids; }

    // Framework records (<msprof/framework.hpp>, mstx.h's extension slots 4-7).
    static std::uint64_t fw_now() noexcept { return collecting_.load(std::memory_order_relaxed) ? clock::now() : 0; }
    static void fw_op(const msprof_fw_op_v0_1* op) noexcept {
      if (op == nullptr || op->start == 0) return;
      const std::uint64_t end = clock::now();
      write_fw(fw_op_bytes(*op), [&](unsigned char* p, std::size_t size) { fill_fw_op(p, size, *op, end); });
    }
    static void fw_mark(std::uint64_t category, std::uint64_t corr_id, const char* name, std::size_t len) noexcept {
      const std::uint64_t ts = clock::now();
      write_fw(fw_mark_bytes(name, len),
               [&](unsigned char* p, std::size_t size) { fill_fw_mark(p, size, category, corr_id, name, len, ts); });
    }
    static void fw_memory(const msprof_fw_memory_v0_1* m) noexcept {
      if (m == nullptr) return;
      const std::uint64_t ts = clock::now();
      write_fw(fw_memory_bytes, [&](unsigned char* p, std::size_t) { fill_fw_memory(p, *m, ts); });
    }
  };
  using core = instrument::tool_core<recorder>;
  // The mstx C table of this collector: the tool core's, plus the framework
  // slots while it collects (init, init_default_filtered); init_without_default
  // (nothing collects) leaves them NULL, so a record_function costs one load
  // and one branch.
  struct api : instrument::c_api<recorder> {
    using base = instrument::c_api<recorder>;
    static int init(mstxGetModuleFuncTableFunc get) noexcept { return with_framework(get, base::init(get)); }
    static int init_default_filtered(mstxGetModuleFuncTableFunc get) noexcept {
      return with_framework(get, base::init_without_default(get));
    }
    // The framework slots alone: mstx calls stay NULL (one load and one branch).
    static int init_framework_only(mstxGetModuleFuncTableFunc get) noexcept { return with_framework(get, MSTX_SUCCESS); }

   private:
    static int with_framework(mstxGetModuleFuncTableFunc get, int rc) noexcept {
      mstxFuncTable table = nullptr;
      unsigned int size = 0;
      if (rc != MSTX_SUCCESS || get(static_cast<mstxFuncModule>(MSPROF_MSTX_MODULE_EXT), &table, &size) != MSTX_SUCCESS ||
          table == nullptr)
        return rc;
      const mstxFuncPointer fns[] = {reinterpret_cast<mstxFuncPointer>(&recorder::fw_now),
                                     reinterpret_cast<mstxFuncPointer>(&recorder::fw_op),
                                     reinterpret_cast<mstxFuncPointer>(&recorder::fw_mark),
                                     reinterpret_cast<mstxFuncPointer>(&recorder::fw_memory)};
      for (unsigned int i = 0; i < 4; ++i)
        if (4 + i < size && table[4 + i] != nullptr) *table[4 + i] = fns[i];  // an older table has fewer slots
      return rc;
    }
  };

  // ------------------------------------------------------------ control
  static result<void> start(const options& o) {
    if (forked_child())
      return make_error(errc::unsupported,
                        "collector: start() in a fork()ed child; the child does not inherit a collector");
    if (!o.sink) return make_error(errc::invalid_argument, "collector: options.sink is required");
    std::lock_guard<std::mutex> control(control_mutex());
    if (running_) return make_error(errc::invalid_argument, "collector: already started");
    static const bool atfork = [] {
      ::pthread_atfork(nullptr, nullptr, [] {
        // A child of a collecting process counts its calls there (a grandchild keeps its parent's counters).
        if (!forked_child_.load(std::memory_order_relaxed))
          child_fork_counts_.store(collecting_.load(std::memory_order_relaxed)
                                       ? fork_counts_.load(std::memory_order_relaxed)
                                       : nullptr,
                                   std::memory_order_relaxed);
        forked_child_.store(true, std::memory_order_release);
        fork_noted_.store(false, std::memory_order_relaxed);  // each child says it once
        collecting_.store(false, std::memory_order_relaxed);
      });
      return true;
    }();
    (void)atfork;
    if (o.calibration) {
      calibration_ = *o.calibration;
      detail::use_counter.store(calibration_.counter, std::memory_order_relaxed);
    } else {
      calibration_ = calibrate(clock::prefer_counter());
    }
    auto st = core::set_filter(o.domain_include, o.domain_exclude);
    if (st.include_wins_warning && o.warn)
      o.warn("mstx domain include and exclude lists both given: include wins, exclude ignored");
    opts_ = o;
    overflow_.store(o.overflow.value_or(Policy::overflow), std::memory_order_relaxed);
    block_timeout_ns_.store(static_cast<std::uint64_t>(
                                std::chrono::duration_cast<std::chrono::nanoseconds>(o.block_timeout).count()),
                            std::memory_order_relaxed);
    ring_bytes_.store(o.ring_bytes != 0 ? o.ring_bytes : Policy::ring_bytes, std::memory_order_relaxed);
    buffer_limit_.store(o.buffer_limit != 0 ? o.buffer_limit : default_buffer_limit, std::memory_order_relaxed);
    const call_counter_block calls = o.sink->call_counters();
    call_slot_count_.store(calls.count, std::memory_order_relaxed);
    next_call_slot_.store(1, std::memory_order_relaxed);  // slot 0: threads without one
    call_slots_.store(calls.slots, std::memory_order_release);
    fork_counts_.store(calls.forks, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      for (auto* b : buffers()) {
        b->ring.discard(release_bytes);  // leftovers of a previous session
        base_dropped_[b] = b->dropped.load(std::memory_order_relaxed);
        b->taken_calls = 0;
        assign_call_slot(b);
      }
    }
    pairer_.reset();
    steps_.clear();
    unmatched_step_ends_ = 0;
    unfinished_steps_ = 0;
    exited_dropped_ = 0;
    collected_ = 0;
    sink_failed_ = 0;
    reject_base_ = core::total_rejects();
    losses_persisted_ns_ = 0;
    pid_ = static_cast<std::uint32_t>(::getpid());
    attach_in_process_ = o.attach_in_process;
    if (attach_in_process_ && !o.mstx_calls) attach_table(&api::init_framework_only);
    else if (attach_in_process_)  // fill this module's mstx table; a filtered-out default domain stays NULL
      attach_table(core::domain_enabled(0) ? &api::init : &api::init_default_filtered);
    stop_requested_ = false;
    // Construct the drain's function-local statics here, not on the new thread: their
    // exit-time registration would otherwise race the caller's own atexit() calls.
    (void)wake_mutex();
    (void)wake_cv();
    (void)space_mutex();
    (void)space_cv();
    (void)drain_mutex();
    (void)registry_mutex();
    drain_thread_ = new std::thread(&basic_collector::drain_loop);  // never destroyed while joinable
    running_ = true;
    collecting_.store(true, std::memory_order_release);
    return {};
  }

  // Stops collecting, drains every ring, pairs what is left and flushes the sink.
  // A producer waiting for room (block, grow) gives up and counts its event dropped.
  static void stop() {
    if (forked_child()) return;  // the parent's collector: nothing of it is ours to stop
    std::lock_guard<std::mutex> control(control_mutex());
    if (!running_) return;
    collecting_.store(false, std::memory_order_release);
    notify_space();
    if (attach_in_process_) attach_table(&api::init_without_default);  // default-domain calls: one load + branch
    {
      std::lock_guard<std::mutex> lock(wake_mutex());
      stop_requested_ = true;
    }
    wake_cv().notify_all();
    drain_thread_->join();
    delete drain_thread_;
    drain_thread_ = nullptr;
    drain_once(true);
    settle_calls();
    pairer_.finish();
    unfinished_steps_ = steps_.size();  // a step begun and never ended: one call with no output
    steps_.clear();
    if (opts_.sink) opts_.sink->flush();
    final_losses_ = compute_losses();
    running_ = false;
    opts_.sink.reset();
  }

  static bool collecting() noexcept { return collecting_.load(std::memory_order_relaxed); }
  static bool running() {
    if (forked_child()) return false;
    std::lock_guard<std::mutex> control(control_mutex());
    return running_;
  }
  static const clock_calibration& calibration() noexcept { return calibration_; }

  // Step boundaries (torch_npu step()): written on the calling thread's ring,
  // paired by step number on the drain, handed to record_sink::write_step.
  static void step_begin(std::uint64_t step) noexcept { write_step(record_kind::step_begin, step); }
  static void step_end(std::uint64_t step) noexcept { write_step(record_kind::step_end, step); }

  // Losses of the current (or, after stop(), the last) session.
  static loss_counters losses() {
    if (forked_child()) return {};
    std::lock_guard<std::mutex> control(control_mutex());
    if (!running_) return final_losses_;
    std::lock_guard<std::mutex> d(drain_mutex());
    return compute_losses();
  }

  // Registered thread buffers (exited threads' buffers are reclaimed by the drain).
  static std::size_t live_buffers() {
    if (forked_child()) return 0;
    std::lock_guard<std::mutex> lock(registry_mutex());
    return buffers().size();
  }

  // Drains now (used by tests and by the session before a step boundary).
  static void flush() {
    if (forked_child()) return;
    std::lock_guard<std::mutex> control(control_mutex());
    if (running_) drain_once(true);
  }

  /// Bytes of all thread rings now (what buffer_limit bounds for `grow`).
  static std::size_t buffer_bytes() noexcept { return buffer_bytes_.load(std::memory_order_relaxed); }

  /// True in a process fork()ed from one where start() was called.
  static bool forked_child() noexcept { return forked_child_.load(std::memory_order_acquire); }

 private:
  // Each mstx call of a fork()ed child: counted in the parent's fork counters
  // (when the parent was collecting); the first says on stderr that the
  // child is not recorded.
  MSPROF_NOINLINE static void note_forked_child() noexcept {
    const bool first = !fork_noted_.exchange(true, std::memory_order_relaxed);
    if (std::atomic<std::uint64_t>* forks = child_fork_counts_.load(std::memory_order_relaxed)) {
      if (first) forks[0].fetch_add(1, std::memory_order_relaxed);
      forks[1].fetch_add(1, std::memory_order_relaxed);
    }
    if (!first) return;
    char line[200];
    const int n = std::snprintf(line, sizeof line,
                                "[msprof] pid %d, fork()ed from profiled pid %u: its mstx calls are not recorded "
                                "(only pid %u is)\n",
                                static_cast<int>(::getpid()), pid_, pid_);
    if (n > 0) {
      const ssize_t w = ::write(2, line, static_cast<std::size_t>(n) < sizeof line ? static_cast<std::size_t>(n) : sizeof line - 1);
      (void)w;
    }
  }

  // ---------------------------------------------------------- hot path
  // What the hot path keeps per thread, in one thread-local object: in the
  // injection library each thread-local object costs a TLS descriptor call.
  struct thread_state {
    thread_buffer* buffer = nullptr;
    instrument::id_cache ids;
  };
  MSPROF_INLINE static thread_state& ts() noexcept {
    static thread_local thread_state s;
    return s;
  }
  MSPROF_INLINE static thread_buffer*& tl() noexcept { return ts().buffer; }
  MSPROF_INLINE static thread_buffer* current() noexcept {
    thread_buffer* b = tl();
    return MSPROF_LIKELY(b != nullptr) ? b : register_thread();
  }

  struct exit_hook {
    bool armed = false;
    ~exit_hook() {
      if (!armed) return;
      if (thread_buffer* b = tl()) {
        tl() = nullptr;
        b->finished.store(true, std::memory_order_release);
      }
    }
  };

  MSPROF_NOINLINE static thread_buffer* register_thread() noexcept {
    if (forked_child_.load(std::memory_order_acquire)) return nullptr;
    try {
      auto* b = new thread_buffer(ring_bytes_.load(std::memory_order_relaxed));
      buffer_bytes_.fetch_add(b->ring.capacity(), std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(registry_mutex());  // a slot and the registry together (settle_calls)
        assign_call_slot(b);
        buffers().push_back(b);
      }
      static thread_local exit_hook hook;
      hook.armed = true;
      tl() = b;
      return b;
    } catch (...) {
      lost_threads_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
  }

  MSPROF_INLINE static unsigned char* reserve(thread_buffer* b, std::size_t size) noexcept {
    unsigned char* p = b->ring.try_reserve(size);
    return MSPROF_LIKELY(p != nullptr) ? p : reserve_slow(b, size);
  }

  // The ring is full: what the overflow policy says.
  MSPROF_NOINLINE static unsigned char* reserve_slow(thread_buffer* b, std::size_t size) noexcept {
    const overflow_policy policy = overflow_.load(std::memory_order_relaxed);
    unsigned char* p = nullptr;
    if (policy == overflow_policy::grow) p = grow(b, size);
    if (p == nullptr && policy != overflow_policy::drop_newest) p = wait_for_room(b, size);
    if (p != nullptr) return p;
    wake_once_per_pass(b);
    b->count_drop();
    return nullptr;
  }

  // A ring twice as large (at least twice the record), if all rings then fit in buffer_limit.
  static unsigned char* grow(thread_buffer* b, std::size_t size) noexcept {
    const std::size_t want = byte_ring::block_bytes(std::max(b->ring.capacity() * 2, size * 2));
    std::size_t used = buffer_bytes_.load(std::memory_order_relaxed);
    do {
      if (used + want > buffer_limit_.load(std::memory_order_relaxed)) return nullptr;
    } while (!buffer_bytes_.compare_exchange_weak(used, used + want, std::memory_order_relaxed));
    if (b->ring.grow(want) == 0) {
      release_bytes(want);
      return nullptr;
    }
    return b->ring.try_reserve(size);
  }

  // Waits until the drain makes room, collection stops or block_timeout passes.
  static unsigned char* wait_for_room(thread_buffer* b, std::size_t size) noexcept {
    const std::uint64_t limit = block_timeout_ns_.load(std::memory_order_relaxed);
    const std::uint64_t t0 = limit != 0 ? monotonic_raw_ns() : 0;
    unsigned char* p = nullptr;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    {
      std::unique_lock<std::mutex> lock(space_mutex());
      while (collecting_.load(std::memory_order_relaxed)) {
        wake_drain();
        if ((p = b->ring.try_reserve(size)) != nullptr) break;
        if (limit != 0 && monotonic_raw_ns() - t0 >= limit) break;
        // A timed wait: a wake-up lost between the check and the wait costs 1 ms, not a hang.
        space_cv().wait_for(lock, std::chrono::milliseconds(1));
      }
    }
    waiting_.fetch_sub(1, std::memory_order_relaxed);
    return p;
  }

  // The thread's slot of the session's call counters (record_sink::call_counters);
  // past the last slot, its calls are counted in memory only and slot 0 says so.
  static void assign_call_slot(thread_buffer* b) noexcept {
    std::atomic<std::uint64_t>* slots = call_slots_.load(std::memory_order_acquire);
    std::atomic<std::uint64_t>* c = &b->own_calls;
    if (slots != nullptr) {
      const std::size_t i = next_call_slot_.fetch_add(1, std::memory_order_relaxed);
      if (i < call_slot_count_.load(std::memory_order_relaxed))
        c = &slots[i];
      else
        slots[0].fetch_add(1, std::memory_order_relaxed);
    }
    b->calls_base = c->load(std::memory_order_relaxed);
    b->calls.store(c, std::memory_order_release);  // the thread may be running (a session's next window)
  }

  // stop(): the call counters agree with what the drain took (drain.hpp).
  static void settle_calls();

  // `mstx_call`: count it in the call counters (host/msprof_calls), which
  // account for mstx calls; framework records are not mstx calls.
  MSPROF_INLINE static void commit(thread_buffer* b, bool mstx_call = true) noexcept {
    const std::uint64_t w = b->ring.commit();
    if (mstx_call) b->count_call();  // after the commit: count_call's release store keeps the order
    if (MSPROF_UNLIKELY(w > b->ring.half_mark())) maybe_wake(b, w);  // producer_used() > capacity / 2
  }
  // Past half full: wake the drain. While it is behind, look again only after another
  // eighth of the ring, not at every event (reading its position costs a cache miss).
  MSPROF_NOINLINE static void maybe_wake(thread_buffer* b, std::uint64_t w) noexcept {
    if (b->ring.refresh_used() <= b->ring.capacity() / 2) return;
    wake_once_per_pass(b);
    b->ring.postpone_half_mark(w + b->ring.capacity() / 8);
  }
  // Wakes the drain unless this thread already did since its last pass began.
  static void wake_once_per_pass(thread_buffer* b) noexcept {
    const std::uint64_t pass = passes_.load(std::memory_order_relaxed);
    if (b->woken_in_pass == pass + 1) return;
    b->woken_in_pass = pass + 1;
    wake_drain();
  }

  // The hot path makes no call until the record is committed: the thread has a
  // buffer, the record fits without a wrap or a refresh of the consumer's
  // position, and (auto_clock) the clock is the CPU counter. Anything else — a
  // thread's first event, the wrap, a full ring, CLOCK_MONOTONIC_RAW — goes
  // through write_event_slow, which does the same with every check.
  MSPROF_INLINE static void write_event(record_kind kind, const instrument::event& e) noexcept {
    const std::size_t size = record_size(kind, e);
    thread_buffer* b = tl();
    unsigned char* p = nullptr;
    if (MSPROF_LIKELY(b != nullptr) && MSPROF_LIKELY(clock_is_inline()))
      p = b->ring.try_reserve_fast(size);
    if (MSPROF_UNLIKELY(p == nullptr))  // by value: the caller's event stays in registers
      return write_event_slow(kind, e.id, e.domain, e.msg.data, e.msg.size, e.stream);
    fill_record(p, kind, size, e, inline_now());
    commit(b);
  }
  MSPROF_NOINLINE static void write_event_slow(record_kind kind, std::uint64_t id, std::uint32_t domain,
                                               const char* msg, std::uint32_t msg_size, void* stream) noexcept {
    instrument::event e;
    e.id = id;
    e.domain = domain;
    e.msg.data = msg;
    e.msg.size = msg_size;
    e.stream = stream;
    thread_buffer* b = current();
    if (MSPROF_UNLIKELY(b == nullptr)) return;
    const std::size_t size = record_size(kind, e);
    unsigned char* p = reserve(b, size);
    if (MSPROF_UNLIKELY(p == nullptr)) return;
    fill_record(p, kind, size, e, clock::now());
    commit(b);
  }
  MSPROF_INLINE static std::size_t record_size(record_kind kind, const instrument::event& e) noexcept {
    const bool is_static = kind == record_kind::mark_static || kind == record_kind::range_start_static;
    const bool has_msg = kind != record_kind::range_end;
    return record_fixed_bytes + (!has_msg ? 0 : is_static ? 8 : ((e.msg.size + 7u) & ~std::size_t{7}));
  }
  MSPROF_INLINE static void fill_record(unsigned char* p, record_kind kind, std::size_t size,
                                        const instrument::event& e, std::uint64_t ts) noexcept {
    const bool is_static = kind == record_kind::mark_static || kind == record_kind::range_start_static;
    const bool has_msg = kind != record_kind::range_end;
    ring_header h{static_cast<std::uint16_t>(size / 8), kind,
                  static_cast<std::uint8_t>(e.stream != nullptr ? record_flag_stream : 0),
                  static_cast<std::uint16_t>(e.domain), static_cast<std::uint16_t>(has_msg ? e.msg.size : 0)};
    std::uint64_t v[2] = {ts, e.id};
    std::memcpy(p, &h, sizeof h);
    std::memcpy(p + sizeof h, v, sizeof v);
    if (has_msg) {
      if (is_static)
        std::memcpy(p + record_fixed_bytes, &e.msg.data, sizeof(const char*));
      else if (e.msg.size != 0)  // an empty message may have a null pointer
        copy_message(p + record_fixed_bytes, e.msg.data, e.msg.size);
    }
  }
  // memcpy of n <= max_message_bytes bytes without a library call for n <= 64:
  // two overlapping fixed-size copies read and write exactly [0, n).
  MSPROF_INLINE static void copy_message(unsigned char* d, const char* s, std::size_t n) noexcept {
    if (n >= 16) {
      if (n <= 32) {
        std::memcpy(d, s, 16);
        std::memcpy(d + n - 16, s + n - 16, 16);
      } else if (n <= 64) {
        std::memcpy(d, s, 32);
        std::memcpy(d + n - 32, s + n - 32, 32);
      } else {
        std::memcpy(d, s, n);
      }
    } else if (n >= 8) {
      std::memcpy(d, s, 8);
      std::memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(d, s, 4);
      std::memcpy(d + n - 4, s + n - 4, 4);
    } else if (n != 0) {
      d[0] = static_cast<unsigned char>(s[0]);
      d[n / 2] = static_cast<unsigned char>(s[n / 2]);
      d[n - 1] = static_cast<unsigned char>(s[n - 1]);
    }
  }
  // auto_clock: the counter inline, CLOCK_MONOTONIC_RAW (a call) on the slow path.
  MSPROF_INLINE static bool clock_is_inline() noexcept {
    if constexpr (std::is_same_v<clock, auto_clock>)
      return detail::use_counter.load(std::memory_order_relaxed);
    else
      return true;
  }
  MSPROF_INLINE static std::uint64_t inline_now() noexcept {
    if constexpr (std::is_same_v<clock, auto_clock>)
      return cpu_counter();
    else
      return clock::now();
  }

  // A framework record of `size` bytes, filled by fill(p, size) on this thread's ring.
  template <class Fill>
  static void write_fw(std::size_t size, Fill&& fill) noexcept {
    if (!collecting()) return;
    thread_buffer* b = current();
    if (MSPROF_UNLIKELY(b == nullptr)) return;
    unsigned char* p = reserve(b, size);
    if (MSPROF_UNLIKELY(p == nullptr)) return;
    fill(p, size);
    commit(b, false);
  }

  static void write_step(record_kind kind, std::uint64_t step) noexcept {
    if (!collecting()) return;
    instrument::event e;
    e.id = step;
    write_event(kind, e);
  }

  static void wake_drain() noexcept {
    wake_.store(true, std::memory_order_relaxed);
    wake_cv().notify_one();
  }
  // Producers waiting for room (block, grow) try again.
  static void notify_space() {
    if (waiting_.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard<std::mutex> lock(space_mutex());
    space_cv().notify_all();
  }
  static void release_bytes(std::size_t n) noexcept { buffer_bytes_.fetch_sub(n, std::memory_order_relaxed); }

  // Fills this module's mstx table. Under MSPROF_DISABLE the calls are compiled
  // out and there is no table: the collector still runs (steps, sinks).
  template <class Init>
  static void attach_table(Init init) noexcept {
#if !defined(MSPROF_DISABLE)
    msprof_mstx_attach_v0_1(init);
#else
    (void)init;
#endif
  }

  // ---------------------------------------------------------- drain side (drain.hpp)
  static void drain_loop();
  static void drain_once(bool persist = false);
  static std::string_view domain_name(std::uint16_t d);
  static void emit_range(std::uint64_t id, const range_pairer::start_info& s, const range_pairer::end_info& e);
  template <class Write>
  static void to_sink(Write&& write, std::uint64_t calls) noexcept;
  static void deliver(const tx_record& r);
  static void decode(thread_buffer& b, const unsigned char* p, std::size_t size);
  static std::uint64_t base_dropped(thread_buffer* b);
  static loss_counters compute_losses();

  static std::mutex& control_mutex() { static std::mutex m; return m; }
  static std::mutex& registry_mutex() { static std::mutex m; return m; }
  static std::mutex& drain_mutex() { static std::mutex m; return m; }
  static std::mutex& wake_mutex() { static std::mutex m; return m; }
  static std::mutex& space_mutex() { static std::mutex m; return m; }
  // Never destroyed: a fork()ed child inherits the drain thread's wait on it,
  // and destroying a condition variable with a waiter blocks forever (glibc).
  static std::condition_variable& wake_cv() { static auto* c = new std::condition_variable(); return *c; }
  static std::condition_variable& space_cv() { static auto* c = new std::condition_variable(); return *c; }
  static std::vector<thread_buffer*>& buffers() { static auto* v = new std::vector<thread_buffer*>(); return *v; }

  static inline std::atomic<bool> collecting_{false};
  static inline std::atomic<bool> forked_child_{false};
  static inline std::atomic<bool> fork_noted_{false};
  static inline std::atomic<bool> wake_{false};
  static inline std::atomic<overflow_policy> overflow_{Policy::overflow};
  static inline std::atomic<std::uint64_t> block_timeout_ns_{0};
  static inline std::atomic<std::size_t> ring_bytes_{Policy::ring_bytes};
  static inline std::atomic<std::size_t> buffer_limit_{default_buffer_limit};
  static inline std::atomic<std::size_t> buffer_bytes_{0};   // every thread's ring blocks
  static inline std::atomic<std::uint64_t> passes_{0};       // drain passes begun
  static inline std::atomic<std::uint32_t> waiting_{0};      // producers in wait_for_room
  static inline std::atomic<std::uint64_t> lost_threads_{0};
  static inline bool running_ = false;
  static inline bool attach_in_process_ = true;
  static inline bool stop_requested_ = false;
  static inline std::thread* drain_thread_ = nullptr;
  static inline options opts_{};
  static inline clock_calibration calibration_{};
  static inline range_pairer pairer_{};
  static inline std::unordered_map<std::uint64_t, step_record> steps_{};
  static inline std::unordered_map<thread_buffer*, std::uint64_t> base_dropped_{};
  static inline std::uint64_t exited_dropped_ = 0;
  static inline std::uint64_t collected_ = 0;
  static inline std::uint64_t sink_failed_ = 0;
  static inline std::uint64_t reject_base_ = 0;
  static inline std::uint64_t losses_persisted_ns_ = 0;
  static inline std::uint64_t unmatched_step_ends_ = 0;
  static inline std::uint64_t unfinished_steps_ = 0;
  static inline std::atomic<std::atomic<std::uint64_t>*> call_slots_{nullptr};
  static inline std::atomic<std::size_t> call_slot_count_{0};
  static inline std::atomic<std::atomic<std::uint64_t>*> fork_counts_{nullptr};        // this collection's
  static inline std::atomic<std::atomic<std::uint64_t>*> child_fork_counts_{nullptr};  // in a child: its parent's
  static inline std::atomic<std::size_t> next_call_slot_{1};
  static inline std::uint32_t pid_ = 0;
  static inline loss_counters final_losses_{};
};

}  // namespace collect
MSPROF_END_NAMESPACE

#include "drain.hpp"  // the drain side of basic_collector

MSPROF_BEGIN_NAMESPACE
namespace collect {

#ifndef MSPROF_COLLECTOR
#  define MSPROF_COLLECTOR ::msprof::collect::default_policy
#endif
using default_collector = basic_collector<MSPROF_COLLECTOR>;

#if defined(MSPROF_IMPLEMENT) && !defined(MSPROF_DISABLE)
// The TU that defines MSPROF_IMPLEMENT attaches the collector to this module's
// mstx table at program start, so domains get real handles before start().
// Until start(), default-domain calls cost one load + one branch; named-domain
// calls reach the collector, which returns at its `collecting` check.
namespace detail {
static const int implement_attached_ = msprof_mstx_attach_v0_1(&default_collector::api::init_without_default);
}
#endif

// The control API the session uses (forwarders to default_collector).
inline result<void> start(const options& o) { return default_collector::start(o); }
inline void stop() { default_collector::stop(); }
inline void flush() { default_collector::flush(); }
inline bool collecting() noexcept { return default_collector::collecting(); }
inline loss_counters losses() { return default_collector::losses(); }
inline void step_begin(std::uint64_t step) noexcept { default_collector::step_begin(step); }
inline void step_end(std::uint64_t step) noexcept { default_collector::step_end(step); }
inline const clock_calibration& calibration() noexcept { return default_collector::calibration(); }
// The tool core of the default collector (reject counters, device backend).
using default_core = default_collector::core;

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_COLLECTOR_HPP
