// SPDX-License-Identifier: MIT
// The compile-time interface between the mstx tool core and a collector.
//
// The tool core (instrument/tool_core.hpp) implements every mstx rule: message
// validation, event ids from one process-wide counter starting at 1, the
// domain registry, the runtime include/exclude filter, range/domain checks
// and the reject counters. It hands each *accepted* event to a Recorder type
// chosen at compile time: plain static member functions, no virtual call on
// the hot path. A Recorder looks like this (all noexcept, called on the
// instrumented thread unless noted):
//
//   struct my_recorder {
//     // One relaxed load. false => the core records nothing: range start
//     // returns 0, ends are ignored, ids are not consumed.
//     static bool collecting() noexcept;
//     // An instant event (mark). `msg` is validated (non-empty, < 156 bytes,
//     // no leading = + - @; `{`-messages already had `\` stripped).
//     static void mark(const instrument::event& e) noexcept;
//     static void range_start(const instrument::event& e) noexcept;
//     // e.message is empty; e.domain is the domain the range started in.
//     static void range_end(const instrument::event& e) noexcept;
//     // Heap/region (un)registrations, already validated.
//     static void memory(const instrument::mem_event& e) noexcept;
//     // A domain got an index (called once per index, under the registry
//     // lock, not on the hot path). Index 0 is "default".
//     static void domain_registered(std::uint32_t index, const char* name) noexcept;
//   };
//
// The collector's recorder is collect::collector::recorder (collect/collector.hpp).
// Tests use recorders of their own. A stream argument is passed through in
// event::stream; the core also calls the device backend (stream_marker below).
#ifndef MSPROF_INSTRUMENT_EVENT_HPP
#define MSPROF_INSTRUMENT_EVENT_HPP

#include <cstddef>
#include <cstdint>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace instrument {

// Values of the downstream event-type enum (0 marker, 1 push/pop, 2 start/end, 3 marker_ex).
enum class event_type : std::uint8_t { mark = 0, push_pop = 1, start_stop = 2, mark_ex = 3 };

// A validated message. Static messages (string literals from the C++ layer)
// outlive the program's use of them, so a collector may keep the pointer and
// copy nothing; dynamic ones must be copied before the call returns.
struct message {
  const char* data = nullptr;
  std::uint32_t size = 0;  // bytes, without the terminating NUL; < 156
  bool is_static = false;
  // `{`-messages have `\` stripped; the core then hands a copy on its stack
  // (is_static false) so the collector never sees the unstripped text.
};

struct event {
  event_type type = event_type::mark;
  std::uint64_t id = 0;        // mark id / range id (>= 1)
  std::uint32_t domain = 0;    // registry index; 0 = "default"
  message msg{};
  void* stream = nullptr;      // aclrtStream, NULL for host-only
};

enum class mem_op : std::uint8_t {
  heap_register = 0,
  heap_unregister = 1,
  region_register = 2,
  region_unregister = 3,
};

struct mem_event {
  mem_op op = mem_op::heap_register;
  std::uint32_t domain = 0;
  std::uint64_t handle = 0;      // heap / region handle (the core's id, >= 1)
  std::uint64_t heap = 0;        // owning heap for regions
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint32_t device_id = 0;
};

// Why the core refused a call; every refusal is counted (tool_core::rejects()).
enum class reject_reason : std::uint8_t {
  bad_message = 0,        // NULL, empty, leading = + - @, >= 156 bytes
  bad_domain_name,        // NULL, "default", bad first char, >= 1024 bytes
  destroyed_domain,       // call on a destroyed/unknown handle
  range_domain_mismatch,  // ended with another domain than it started in
  unknown_range,          // end of an id that is not open
  bad_mem_descriptor,     // mem API with a bad descriptor
  registry_full,          // domain/heap table exhausted
  count_
};

// Device side of a stream argument: the core calls marker() for a non-null
// stream (range start and range end both call it, with the same id), which a
// device (device::backend) turns into a device-side marker task (the simulated device
// implements it). Not on the host-only hot path. Set with
// tool_core<S>::set_stream_marker(); it must outlive the collection.
class stream_marker {
 public:
  virtual ~stream_marker() = default;
  // `end` is false for a mark or range start, true for a range end.
  virtual void marker(void* stream, std::uint64_t id, bool end) noexcept = 0;
};

// A recorder that records nothing (used for "compiled but no collector" builds).
struct null_recorder {
  static bool collecting() noexcept { return false; }
  static void mark(const event&) noexcept {}
  static void range_start(const event&) noexcept {}
  static void range_end(const event&) noexcept {}
  static void memory(const mem_event&) noexcept {}
  static void domain_registered(std::uint32_t, const char*) noexcept {}
};

}  // namespace instrument
MSPROF_END_NAMESPACE

#endif  // MSPROF_INSTRUMENT_EVENT_HPP
