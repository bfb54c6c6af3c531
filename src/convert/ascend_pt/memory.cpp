// SPDX-License-Identifier: MIT
// operator_memory's blocks and the questions that name them, as torch_npu
// 9e73e708a makes them (MemoryPrepareParser): the inner allocator's NPU
// records of one process, by time, cut per address into blocks; each block
// named through the dequeue running at its malloc, that dequeue's enqueue and
// the op around it, or else the allocating thread's op. Every step is a merge
// of sorted runs; the op tree answers the last questions in link()'s pass.
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "msprof/convert/ascend_pt/analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

// Named apart from the other sources' helpers (a unity build joins them).
namespace memory_runs {

namespace fw = codec::framework;

/// A block by its malloc's time, then its address's first appearance.
struct block_key {
  std::int64_t time;
  std::uint64_t address;
  bool operator<(const block_key& b) const noexcept { return time != b.time ? time < b.time : address < b.address; }
};
/// By thread, then a number (file order or block order).
struct thread_key {
  std::uint64_t pid, tid, n;
  bool operator<(const thread_key& b) const noexcept {
    return pid != b.pid ? pid < b.pid : tid != b.tid ? tid < b.tid : n < b.n;
  }
};
struct corr_key {
  std::uint64_t corr, n;
  bool operator<(const corr_key& b) const noexcept { return corr != b.corr ? corr < b.corr : n < b.n; }
};
struct enqueue_end {
  std::int64_t end;
  std::uint64_t tid;
};

/// A block while its address is open: its records (a malloc first).
struct open_block {
  std::uint8_t n = 0;
  fw::memory_usage r[3];
};

/// What the block's row needs of its records (torch_npu MemoryPrepareParser:
/// with two records the second gives the release totals, whichever it is;
/// with three the free does, and the other one is the block-free).
memory_block block_of(const open_block& o) {
  const fw::memory_usage& a = o.r[0];
  memory_block b;
  b.time = a.time;
  b.size = a.alloc_size;
  b.stream = a.stream_ptr;
  b.total[0] = a.total_allocated;
  b.total[1] = a.total_reserved;
  b.total[2] = a.total_active;
  b.tid = a.tid;
  b.pid = a.pid;
  b.device_index = a.device_index;
  b.component_type = a.component_type;
  b.records = o.n;
  const fw::memory_usage *freed = nullptr, *active = nullptr, *totals = nullptr;
  if (o.n == 2) {
    if (o.r[1].data_type == fw::memory_usage::free_record) freed = &o.r[1];
    if (o.r[1].data_type == fw::memory_usage::block_free) active = &o.r[1];
    totals = &o.r[1];
  } else if (o.n == 3) {
    freed = o.r[1].data_type == fw::memory_usage::free_record ? &o.r[1] : &o.r[2];
    active = freed == &o.r[1] ? &o.r[2] : &o.r[1];
    totals = freed;
  }
  if (totals) {
    b.has_release_total = true;
    b.release_total[0] = totals->total_allocated;
    b.release_total[1] = totals->total_reserved;
    b.release_total[2] = totals->total_active;
  }
  if (freed) {
    b.has_freed = true;
    b.freed = freed->time;
  }
  if (active) {
    b.has_block_freed = true;
    b.block_freed = active->time;
  }
  return b;
}

/// Pull reader of a sorted run: the current row's key and payload.
template <class Key>
struct run_cursor {
  explicit run_cursor(spill_sorter<Key>& s) : src(s) { pull(); }
  void pull() { more = src.next(key, payload); }
  spill_sorter<Key>& src;
  Key key{};
  std::string_view payload;
  bool more = false;
};

}  // namespace memory_runs

result<void> memory_by_time(const pt_dir& d, std::size_t budget,
                            const std::function<bool(const codec::framework::memory_usage&)>& wanted,
                            const std::function<void(const codec::framework::memory_usage&)>& fn) {
  using usage = codec::framework::memory_usage;
  if (d.memory_in_time_order)
    return d.memory.each([&](const usage& u) {
      if (wanted(u)) fn(u);
    });
  spill_sorter<std::int64_t> by_time(d.spill_dir, budget);
  MSPROF_TRY(d.memory.each([&](const usage& u) {
    if (wanted(u)) by_time.push(u.time, record_bytes(u));
  }));
  return by_time.drain([&](std::int64_t, std::string_view p) { fn(record_from<usage>(p)); });
}

result<void> prepare_memory_naming(const pt_dir& d, memory_naming& out, std::size_t budget) {
  using namespace memory_runs;
  using usage = fw::memory_usage;
  out.blocks = spilled_list<memory_block>(d.spill_dir, budget);
  out.queries = spilled_list<memory_query>(d.spill_dir, budget);
  out.incomplete = 0;
  if (!d.memory_pid) return {};
  const std::string& dir = d.spill_dir;

  // Each sorted run goes as soon as it is drained: a drained run keeps its
  // memory (up to the budget) while it lives.
  const auto run = [&](auto key) {
    return std::make_unique<spill_sorter<decltype(key)>>(dir, budget);
  };
  // Blocks per address: a malloc opens one; a record of a type it has not
  // got joins it (3 at most); any other record closes it, and opens the next
  // when it is a malloc. Only the open blocks are held (one per address).
  struct address {
    std::uint64_t first;  // its first appearance among the addresses
    open_block open;
  };
  std::map<std::int64_t, address> open;
  auto blocks = run(block_key{});
  const auto close = [&](address& a) {
    if (a.open.n) blocks->push({a.open.r[0].time, a.first}, record_bytes(block_of(a.open)));
    a.open.n = 0;
  };
  // The process's inner-allocator NPU records by time (equal times: file order).
  const auto wanted = [&](const usage& u) {
    return u.device_type == usage::npu && u.allocator_type == usage::inner_allocator && u.pid == *d.memory_pid;
  };
  MSPROF_TRY(memory_by_time(d, budget, wanted, [&](const usage& u) {
    auto [it, fresh] = open.try_emplace(u.ptr, address{open.size(), {}});
    address& a = it->second;
    if (a.open.n) {
      bool seen = false;
      for (std::uint8_t i = 0; i < a.open.n; ++i) seen = seen || a.open.r[i].data_type == u.data_type;
      if (!seen) {
        a.open.r[a.open.n++] = u;
        if (a.open.n == 3) close(a);  // nothing more can join it
        return;
      }
      close(a);
    }
    if (u.data_type == usage::malloc_record) {
      a.open.r[0] = u;
      a.open.n = 1;
    }
  }));
  for (auto& [ptr, a] : open) close(a);
  open.clear();

  // The dequeues' threads: an allocation on one of their processes and one of
  // their threads is named through the dequeue running at it.
  std::set<std::uint64_t> deq_pids, deq_tids;
  MSPROF_TRY(d.dequeue.each([&](const queue_span& q) {
    deq_pids.insert(q.pid);
    deq_tids.insert(q.tid);
  }));

  // Blocks in output order: numbered, counted, and asked about.
  auto through_queue = run(thread_key{});
  std::uint64_t b = 0;
  MSPROF_TRY(blocks->drain([&](const block_key&, std::string_view p) {
    const auto a = record_from<memory_block>(p);
    if (a.component_type == usage::caching) out.incomplete += 3 - std::size_t{a.records};  // its missing free records
    out.blocks.push_back(a);
    if (deq_pids.count(a.pid) && deq_tids.count(a.tid))
      through_queue->push({a.pid, a.tid, b}, record_bytes(a.time));
    else
      out.queries.push_back({a.time, b, a.tid, false});
    ++b;
  }));
  blocks.reset();

  // Each thread's dequeues (list order) meet its allocations (by time): the
  // last dequeue to start at or before one, if it has not ended.
  auto dequeues = run(thread_key{});
  std::uint64_t n = 0;
  MSPROF_TRY(d.dequeue.each([&](const queue_span& q) { dequeues->push({q.pid, q.tid, n++}, record_bytes(q)); }));
  auto by_corr = run(corr_key{});
  {
    run_cursor<thread_key> deq(*dequeues);
    bool have_prev = false;
    queue_span prev;
    thread_key prev_of{};
    MSPROF_TRY(through_queue->drain([&](const thread_key& k, std::string_view p) {
      const auto time = record_from<std::int64_t>(p);
      if (have_prev && (prev_of.pid != k.pid || prev_of.tid != k.tid)) have_prev = false;
      while (deq.more && (deq.key.pid < k.pid || (deq.key.pid == k.pid && deq.key.tid < k.tid))) deq.pull();
      while (deq.more && deq.key.pid == k.pid && deq.key.tid == k.tid) {
        const auto q = record_from<queue_span>(deq.payload);
        if (q.ts > time) break;
        prev = q;
        prev_of = deq.key;
        have_prev = true;
        deq.pull();
      }
      if (have_prev && time < prev.ts + prev.dur) by_corr->push({prev.corr_id, k.n}, {});
    }));
    while (deq.more) deq.pull();
    MSPROF_TRY(dequeues->take_status());
  }
  through_queue.reset();
  dequeues.reset();

  // The enqueue of each correlation id (the last in list order) meets them.
  auto enqueues = run(corr_key{});
  n = 0;
  MSPROF_TRY(d.enqueue.each([&](const queue_span& q) {
    enqueues->push({q.corr_id, n++}, record_bytes(enqueue_end{q.ts + q.dur, q.tid}));
  }));
  auto enqueued = run(std::uint64_t{});  // by block number
  {
    run_cursor<corr_key> enq(*enqueues);
    bool have = false;
    std::uint64_t have_corr = 0;
    enqueue_end last{};
    MSPROF_TRY(by_corr->drain([&](const corr_key& k, std::string_view) {
      if (!have || have_corr != k.corr) {
        have = false;
        while (enq.more && enq.key.corr < k.corr) enq.pull();
        while (enq.more && enq.key.corr == k.corr) {
          last = record_from<enqueue_end>(enq.payload);
          have = true;
          enq.pull();
        }
        have_corr = k.corr;
      }
      if (have) enqueued->push(k.n, record_bytes(last));
    }));
    while (enq.more) enq.pull();
    MSPROF_TRY(enqueues->take_status());
  }
  by_corr.reset();
  enqueues.reset();

  // In block order, each enqueue thread's question is asked at the latest
  // enqueue end so far on it (torch_npu's search keeps one cursor per thread).
  std::map<std::uint64_t, std::int64_t> latest;
  MSPROF_TRY(enqueued->drain([&](std::uint64_t block, std::string_view p) {
    const auto e = record_from<enqueue_end>(p);
    auto [it, fresh] = latest.try_emplace(e.tid, e.end);
    if (!fresh && e.end > it->second) it->second = e.end;
    out.queries.push_back({it->second, block, e.tid, true});
  }));
  return {};
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
