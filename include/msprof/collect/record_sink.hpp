// SPDX-License-Identifier: MIT
// What the drain thread hands to the output side: finished, paired mstx
// events, memory records, steps and framework records, in plain structs. A record_sink implementation
// encodes them (codec encoders: MsprofTxInfo in MsprofAdditionalInfo, level
// 20500, file aging.additional.msproftx) and appends them to a prof::prof_dir.
// Called only from the drain thread (and from stop()), never concurrently, so
// a virtual call is fine here.
#ifndef MSPROF_COLLECT_RECORD_SINK_HPP
#define MSPROF_COLLECT_RECORD_SINK_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

// One finished mark or range. Timestamps are raw clock ticks of the session's
// clock (see clock.hpp: TSC/cntvct or CLOCK_MONOTONIC_RAW ns; calibration()
// says which, with the frequency CANN writes to info.json).
struct tx_record {
  std::uint64_t id = 0;          // markId (the mstx event id)
  std::uint16_t event_type = 0;  // 0 mark, 2 start/stop (instrument::event_type)
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;         // thread of the mark / range start
  std::uint32_t end_tid = 0;     // thread of the range end (== tid for marks)
  std::uint64_t start = 0;
  std::uint64_t end = 0;         // == start for marks
  std::string_view domain;       // "default" for the default domain
  std::string_view message;      // valid only during the call
  bool has_stream = false;       // a device marker was issued with the same id
  /// The mstx calls it stands for: a mark one, a range two (start and end), the
  /// unit of every loss counter.
  std::uint64_t calls() const noexcept { return event_type == 0 ? 1 : 2; }
};

struct mem_record {
  std::uint8_t op = 0;           // instrument::mem_op
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t timestamp = 0;
  std::string_view domain;
  std::uint64_t handle = 0;
  std::uint64_t heap = 0;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint32_t device_id = 0;
};

// A step boundary from collector::step_begin / step_end.
struct step_record {
  std::uint64_t step = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t tid = 0;
};

// A framework op (msprof::record_function), finished: torch_npu's op_range.
// Times in the session's clock ticks, like tx_record's.
struct fw_op_record {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::int64_t seq = -1;         // sequence number, -1 for none
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;         // start and end thread (an RAII op ends where it began)
  std::uint64_t fwd_tid = 0;     // forward thread of a backward op, 0 for none
  std::uint8_t scope = 0;
  bool is_async = false;
  std::string_view name;         // valid only during the call, like the strings below
  std::string_view dtypes, shapes, stack;  // empty: not recorded
};

// A task-queue mark (torch_npu's op_mark): category 0/1 enqueue start/end, 2/3 dequeue start/end.
struct fw_mark_record {
  std::uint64_t time = 0;
  std::uint64_t category = 0;
  std::uint64_t corr_id = 0;
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::string_view name;
};

// An allocator event (torch_npu's memory_usage).
struct fw_memory_record {
  std::uint64_t time = 0;
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::int64_t ptr = 0, alloc_size = 0, total_allocated = 0, total_reserved = 0, total_active = 0, stream_ptr = 0;
  std::int8_t device_type = 0, device_index = 0;
  std::uint8_t component_type = 0, data_type = 0, allocator_type = 0;
};

struct loss_counters {
  std::uint64_t dropped = 0;           // events lost to full rings (all threads, incl. exited)
  std::uint64_t rejected = 0;          // calls refused (bad message/domain/descriptor, wrong-domain ends)
  std::uint64_t domain_mismatch = 0;   // of `rejected`: range ends naming another domain
  std::uint64_t unknown_end = 0;       // ends without a (collected) start
  std::uint64_t unfinished = 0;        // ranges open at stop()
  std::uint64_t lost_threads = 0;      // threads that could not get a buffer (their events are not counted)
  std::uint64_t sink_failed = 0;       // calls whose record the sink failed to take (it threw); a range is two
  std::uint64_t collected = 0;         // tx/mem/step records the sink took
  /// Calls that are not (completely) in the trace.
  std::uint64_t total() const noexcept { return dropped + rejected + unknown_end + unfinished + sink_failed; }
  /// Nothing lost, refused or left open, and every thread had a buffer.
  bool complete() const noexcept { return total() == 0 && lost_threads == 0; }
};

/// Per-thread call counters that outlive the process (a shared file mapping):
/// slot 0 counts the threads that got no slot, slots 1.. one thread each.
struct call_counter_block {
  std::atomic<std::uint64_t>* slots = nullptr;
  std::size_t count = 0;
  /// Shared with fork()ed children, which are not collected: [0] the children
  /// that made mstx calls, [1] their calls. Null: not counted.
  std::atomic<std::uint64_t>* forks = nullptr;
};

class record_sink {
 public:
  virtual ~record_sink() = default;
  virtual void write_tx(const tx_record& r) = 0;
  virtual void write_mem(const mem_record&) {}
  virtual void write_step(const step_record&) {}
  // Framework records (<msprof/framework.hpp>); a sink without a framework
  // layout ignores them.
  virtual void write_fw_op(const fw_op_record&) {}
  virtual void write_fw_mark(const fw_mark_record&) {}
  virtual void write_fw_memory(const fw_memory_record&) {}
  // End of one drain pass (or of stop()): make appended data durable.
  virtual void flush() {}
  // At least every drain interval: the losses so far. A sink persists them so
  // that a killed run still has them.
  virtual void update_losses(const loss_counters&) {}
  // Asked once by collect::start() (not on the drain thread): where to count
  // every thread's calls as they happen, so that even a killed run knows how
  // many calls were made. Empty: the counts are kept in memory only.
  virtual call_counter_block call_counters() { return {}; }
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_RECORD_SINK_HPP
