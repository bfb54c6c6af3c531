// SPDX-License-Identifier: MIT
// The collector's drain side: the drain thread's loop, one pass over every
// ring (decode, pair, hand to the sink, persist the losses) and stop()'s
// settling of the call counters against what the drain took. Definitions of
// basic_collector's members, included by collector.hpp after the class:
// include collector.hpp, not this.
#ifndef MSPROF_COLLECT_DRAIN_HPP
#define MSPROF_COLLECT_DRAIN_HPP

#ifndef MSPROF_COLLECT_COLLECTOR_HPP
#  error "include <msprof/collect/collector.hpp>, which includes this after basic_collector"
#endif

MSPROF_BEGIN_NAMESPACE
namespace collect {

// A call that passed the `collecting` check just before stop() ends after it.
// It must be in both the session's call counters and the trace, or in
// neither. Later counts go to the thread's own counter (memory only), and
// the drain goes on until every thread's counter agrees with what it took
// from that thread's ring (a late record not yet taken: drain again; a taken
// one whose count is still to come: wait for it; one whose count went to
// memory: add it here, the thread counts there now). A thread that stays
// stopped inside a call longer than the bound leaves a difference, which
// the export reports.
template <class Policy>
void basic_collector<Policy>::settle_calls() {
  if (call_slots_.load(std::memory_order_acquire) == nullptr) return;
  struct detached {
    std::atomic<std::uint64_t>* slot;
    std::uint64_t own_calls;  // the thread's own counter at the detach
  };
  std::unordered_map<thread_buffer*, detached> threads;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    call_slots_.store(nullptr, std::memory_order_release);  // a thread registering now counts in memory
    for (auto* b : buffers()) {
      std::atomic<std::uint64_t>* slot = b->calls.load(std::memory_order_relaxed);
      if (slot == &b->own_calls) continue;
      threads[b] = {slot, b->own_calls.load(std::memory_order_relaxed)};
      b->calls.store(&b->own_calls, std::memory_order_relaxed);
    }
  }
  // A call that took the window's counter before the detach committed its
  // record before that (it counts after it commits, a release): take it now.
  drain_once(true);
  const std::uint64_t deadline = monotonic_raw_ns() + 200'000'000;
  for (;;) {
    bool settled = true;
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      for (auto* b : buffers()) {  // a thread reclaimed meanwhile had finished its calls
        auto it = threads.find(b);
        if (it == threads.end()) continue;
        // The thread's own counter before the slot: a thread counting in memory
        // now made its last store to the slot before that, and count_call's
        // stores are releases, so this acquire makes the slot read below see
        // every count the thread gave it, and the difference added is exactly
        // the counts that went to memory. (x86 keeps stores in order anyway;
        // Arm does not without the release/acquire pair.)
        const bool moved = b->own_calls.load(std::memory_order_acquire) != it->second.own_calls;
        const std::uint64_t counted = it->second.slot->load(std::memory_order_acquire) - b->calls_base;
        const std::uint64_t expected =
            b->taken_calls + (b->dropped.load(std::memory_order_acquire) - base_dropped(b));
        if (counted == expected) continue;
        if (counted < expected && moved) {
          it->second.slot->store(it->second.slot->load(std::memory_order_relaxed) + (expected - counted),
                                 std::memory_order_relaxed);
          continue;
        }
        settled = false;
      }
    }
    if (settled || monotonic_raw_ns() >= deadline) return;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    drain_once(true);
  }
}

template <class Policy>
void basic_collector<Policy>::drain_loop() {
  std::unique_lock<std::mutex> lock(wake_mutex());
  while (!stop_requested_) {
    wake_cv().wait_for(lock, opts_.drain_interval,
                       [] { return stop_requested_ || wake_.load(std::memory_order_relaxed); });
    wake_.store(false, std::memory_order_relaxed);
    if (stop_requested_) break;
    lock.unlock();
    drain_once();
    lock.lock();
  }
}

// One pass over every ring. The loss counters go to the sink when `persist`
// or at least drain_interval after they last went.
template <class Policy>
void basic_collector<Policy>::drain_once(bool persist) {
  std::lock_guard<std::mutex> d(drain_mutex());
  passes_.fetch_add(1, std::memory_order_relaxed);
  std::vector<thread_buffer*> list;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    list = buffers();
  }
  std::vector<thread_buffer*> reclaim;
  for (thread_buffer* b : list) {
    const bool finished = b->finished.load(std::memory_order_acquire);  // before consuming
    b->ring.consume([b](const unsigned char* p, std::size_t size) { decode(*b, p, size); }, release_bytes);
    if (finished) reclaim.push_back(b);
  }
  notify_space();
  pairer_.end_pass([](std::uint64_t id, const range_pairer::start_info& s, const range_pairer::end_info& e) {
    emit_range(id, s, e);
  });
  if (!reclaim.empty()) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto& v = buffers();
    for (thread_buffer* b : reclaim) {
      exited_dropped_ += b->dropped.load(std::memory_order_relaxed) - base_dropped(b);
      base_dropped_.erase(b);
      v.erase(std::find(v.begin(), v.end(), b));
      release_bytes(b->ring.held_bytes());
      delete b;
    }
  }
  const std::uint64_t now = monotonic_raw_ns();
  const auto interval = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(opts_.drain_interval).count());
  if (opts_.sink && (persist || now - losses_persisted_ns_ >= interval)) {
    losses_persisted_ns_ = now;
    // Losses so far, persisted by the sink: a killed run still reports them.
    // Ranges open now are not counted as unfinished: they may still end and be
    // written, and a killed run's export counts the calls it lost from the
    // call counters instead (what they say minus what is accounted for).
    loss_counters l = compute_losses();
    try {
      opts_.sink->update_losses(l);
    } catch (...) {
      // Not a lost event: the next pass writes the counters again.
    }
    opts_.sink->flush();
  }
}

template <class Policy>
std::string_view basic_collector<Policy>::domain_name(std::uint16_t d) {
  const char* n = core::domain_name(d);
  return n != nullptr ? std::string_view(n) : std::string_view("default");
}

template <class Policy>
void basic_collector<Policy>::emit_range(std::uint64_t id, const range_pairer::start_info& s, const range_pairer::end_info& e) {
  tx_record r;
  r.id = id;
  r.event_type = static_cast<std::uint16_t>(instrument::event_type::start_stop);
  r.pid = pid_;
  r.tid = s.tid;
  r.end_tid = e.tid;
  r.start = s.ts;
  r.end = e.ts;
  r.domain = domain_name(s.domain);
  r.message = s.message;
  r.has_stream = s.stream;
  deliver(r);
}

/// Hands one record of `calls` mstx calls to the sink: collected when it took
/// it, lost (sink_failed, in calls) when it threw; the drain goes on either way.
template <class Policy>
template <class Write>
void basic_collector<Policy>::to_sink(Write&& write, std::uint64_t calls) noexcept {
  try {
    if (opts_.sink) write(*opts_.sink);
    ++collected_;
  } catch (...) {
    sink_failed_ += calls;
  }
}
template <class Policy>
void basic_collector<Policy>::deliver(const tx_record& r) {
  to_sink([&](record_sink& s) { s.write_tx(r); }, r.calls());
}

template <class Policy>
void basic_collector<Policy>::decode(thread_buffer& b, const unsigned char* p, std::size_t size) {
  ring_header h;
  std::memcpy(&h, p, sizeof h);
  if (h.kind != record_kind::fw_op && h.kind != record_kind::fw_mark && h.kind != record_kind::fw_memory)
    ++b.taken_calls;  // an mstx call (counted by commit)
  std::uint64_t v[2];
  std::memcpy(v, p + sizeof h, sizeof v);
  const std::uint64_t ts = v[0], id = v[1];
  auto message = [&]() -> std::string_view {
    if (h.kind == record_kind::mark_static || h.kind == record_kind::range_start_static) {
      const char* s = nullptr;
      std::memcpy(&s, p + record_fixed_bytes, sizeof s);
      return {s, h.msg_len};
    }
    if (size < record_fixed_bytes + h.msg_len) return {};
    return {reinterpret_cast<const char*>(p + record_fixed_bytes), h.msg_len};
  };
  switch (h.kind) {
    case record_kind::mark_static:
    case record_kind::mark_dynamic: {
      tx_record r;
      r.id = id;
      r.event_type = static_cast<std::uint16_t>(instrument::event_type::mark);
      r.pid = pid_;
      r.tid = r.end_tid = b.tid;
      r.start = r.end = ts;
      r.domain = domain_name(h.domain);
      r.message = message();
      r.has_stream = (h.flags & record_flag_stream) != 0;
      deliver(r);
      break;
    }
    case record_kind::range_start_static:
    case record_kind::range_start_dynamic: {
      range_pairer::start_info s;
      s.ts = ts;
      s.tid = b.tid;
      s.domain = h.domain;
      s.stream = (h.flags & record_flag_stream) != 0;
      s.message = std::string(message());
      pairer_.start(id, std::move(s));
      break;
    }
    case record_kind::range_end:
      pairer_.end(id, range_pairer::end_info{ts, b.tid, h.domain},
                  [](std::uint64_t i, const range_pairer::start_info& s, const range_pairer::end_info& e) {
                    emit_range(i, s, e);
                  });
      break;
    case record_kind::memory: {
      std::uint64_t m[5];
      std::memcpy(m, p + record_fixed_bytes, sizeof m);
      mem_record r;
      r.op = static_cast<std::uint8_t>(h.flags >> 4);
      r.pid = pid_;
      r.tid = b.tid;
      r.timestamp = ts;
      r.domain = domain_name(h.domain);
      r.handle = m[0];
      r.heap = m[1];
      r.address = m[2];
      r.size = m[3];
      r.device_id = static_cast<std::uint32_t>(m[4]);
      to_sink([&](record_sink& s) { s.write_mem(r); }, 1);
      break;
    }
    case record_kind::step_begin:
      steps_[id] = step_record{id, ts, 0, b.tid};
      break;
    case record_kind::fw_op:
    case record_kind::fw_mark:
    case record_kind::fw_memory:
      deliver_fw(h.kind, p, size, pid_, b.tid, [&](auto&& write) { to_sink(write, 1); });
      break;
    case record_kind::step_end: {
      auto it = steps_.find(id);
      if (it == steps_.end()) {
        ++unmatched_step_ends_;  // one call with no output, like a range end without its start
        break;
      }
      it->second.end = ts;
      to_sink([&](record_sink& s) { s.write_step(it->second); }, 2);
      steps_.erase(it);
      break;
    }
  }
}

template <class Policy>
std::uint64_t basic_collector<Policy>::base_dropped(thread_buffer* b) {
  auto it = base_dropped_.find(b);
  return it == base_dropped_.end() ? 0 : it->second;
}

template <class Policy>
loss_counters basic_collector<Policy>::compute_losses() {
  loss_counters l;
  l.dropped = exited_dropped_;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (auto* b : buffers()) l.dropped += b->dropped.load(std::memory_order_relaxed) - base_dropped(b);
  }
  const auto& pc = pairer_.counters();
  l.domain_mismatch = pc.domain_mismatch;
  l.unknown_end = pc.unknown_end + unmatched_step_ends_;
  l.unfinished = pc.unfinished + unfinished_steps_;
  l.rejected = core::total_rejects() - reject_base_ + pc.domain_mismatch;
  l.lost_threads = lost_threads_.load(std::memory_order_relaxed);
  l.sink_failed = sink_failed_;
  l.collected = collected_;
  return l;
}

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_DRAIN_HPP
