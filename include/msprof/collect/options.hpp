// SPDX-License-Identifier: MIT
// What a collector is started with: the compile-time policy (clock, ring
// size, what a full ring does) and the run-time options (collector.hpp).
#ifndef MSPROF_COLLECT_OPTIONS_HPP
#define MSPROF_COLLECT_OPTIONS_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "clock.hpp"
#include "record_sink.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

enum class overflow_policy : std::uint8_t {
  drop_newest = 0,  // a full ring drops the new event (counted per thread)
  block = 1,        // wait for the drain (up to block_timeout, 0 = no limit), then drop (counted)
  grow = 2,         // a larger ring while all rings fit in buffer_limit, then as block
};

/// All rings together, by default: where `grow` stops growing.
inline constexpr std::size_t default_buffer_limit = std::size_t{64} << 20;

template <class Clock = auto_clock, std::size_t RingBytes = (std::size_t{1} << 20),
          overflow_policy Overflow = overflow_policy::grow>
struct collector_policy {
  using clock = Clock;
  static constexpr std::size_t ring_bytes = RingBytes;
  static constexpr overflow_policy overflow = Overflow;
};
using default_policy = collector_policy<>;

struct options {
  std::vector<std::string> domain_include;  // names; "default" = default domain
  std::vector<std::string> domain_exclude;  // both set: include wins (warning)
  std::optional<overflow_policy> overflow;  // runtime override of the policy
  std::chrono::milliseconds drain_interval{100};
  std::chrono::microseconds block_timeout{0};  // block/grow: longest wait for room; 0 = while collecting
  std::size_t ring_bytes = 0;               // 0: the policy's; applies to threads registered later
  std::size_t buffer_limit = 0;             // all rings together (grow); 0: default_buffer_limit
  std::shared_ptr<record_sink> sink;        // required
  std::function<void(const std::string&)> warn;  // warnings (e.g. include+exclude); may be empty
  // Fill this module's mstx table in-process (msprof_mstx_attach_v0_1). The
  // injection library sets false: its table is the instrumented program's.
  bool attach_in_process = true;
  // With attach_in_process: record the program's mstx calls. false attaches
  // only the framework records (record_function, queue marks, memory events),
  // as torch_npu records its ops with its mstx switch off.
  bool mstx_calls = true;
  // Use this calibration (from collect::calibrate) instead of measuring one:
  // the PROF_ directory's info.json / host_start.log must describe exactly the
  // clock the records use, and they are written before start().
  std::optional<clock_calibration> calibration;
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_OPTIONS_HPP
