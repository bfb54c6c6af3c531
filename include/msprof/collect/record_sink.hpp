// SPDX-License-Identifier: MIT
// What the drain thread hands to the output side: finished, paired mstx
// events and memory records, in plain structs. A record_sink implementation
// encodes them (codec encoders: MsprofTxInfo in MsprofAdditionalInfo, level
// 20500, file aging.additional.msproftx) and appends them to a prof::prof_dir.
// Called only from the drain thread (and from stop()), never concurrently, so
// a virtual call is fine here.
#ifndef MSPROF_COLLECT_RECORD_SINK_HPP
#define MSPROF_COLLECT_RECORD_SINK_HPP

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

class record_sink {
 public:
  virtual ~record_sink() = default;
  virtual void write_tx(const tx_record& r) = 0;
  virtual void write_mem(const mem_record&) {}
  virtual void write_step(const step_record&) {}
  // End of one drain pass (or of stop()): make appended data durable.
  virtual void flush() {}
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_RECORD_SINK_HPP
