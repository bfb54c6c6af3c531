// SPDX-License-Identifier: MIT
// torch_npu.profiler.schedule: which steps are skipped, warmed up, recorded
// and saved, and what the profiler does on each change of action.
//
//   schedule s{/*wait*/ 1, /*active*/ 2, /*warmup*/ 1, /*repeat*/ 2, /*skip_first*/ 1};
//   s(0) == profiler_action::none ... s(4) == profiler_action::record_and_save
//
// Step numbers count from 0 at start(); each profiler::step() adds one.
#ifndef MSPROF_SESSION_SCHEDULE_HPP
#define MSPROF_SESSION_SCHEDULE_HPP

#include <cstdint>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

enum class profiler_action : std::uint8_t { none = 0, warmup = 1, record = 2, record_and_save = 3 };

constexpr std::string_view to_string(profiler_action a) noexcept {
  switch (a) {
    case profiler_action::none: return "NONE";
    case profiler_action::warmup: return "WARMUP";
    case profiler_action::record: return "RECORD";
    case profiler_action::record_and_save: return "RECORD_AND_SAVE";
  }
  return "?";
}

constexpr bool is_recording(profiler_action a) noexcept {
  return a == profiler_action::record || a == profiler_action::record_and_save;
}

struct schedule {
  std::uint64_t wait = 0;
  std::uint64_t active = 1;  ///< 0 is treated as 1, as torch_npu resets it
  std::uint64_t warmup = 0;
  std::uint64_t repeat = 0;  ///< 0: cycles continue until stop()
  std::uint64_t skip_first = 0;

  profiler_action operator()(std::uint64_t step) const noexcept {
    if (step < skip_first) return profiler_action::none;
    step -= skip_first;
    const std::uint64_t act = active == 0 ? 1 : active;
    const std::uint64_t cycle = wait + warmup + act;
    if (repeat > 0 && step / cycle >= repeat) return profiler_action::none;
    const std::uint64_t pos = step % cycle;
    if (pos < wait) return profiler_action::none;
    if (pos < wait + warmup) return profiler_action::warmup;
    return pos < cycle - 1 ? profiler_action::record : profiler_action::record_and_save;
  }
};

/// What the profiler does between two actions, in order: torch's action map,
/// except that a warm-up followed by NONE is simply discarded (torch starts
/// and stops a trace nobody receives; neither calls on_trace_ready).
enum class transition_step : std::uint8_t {
  warn,         ///< the schedule is unusual (RECORD followed by NONE, stop() mid-window): say so
  prepare,      ///< start collecting into a discarding sink (warm-up)
  discard,      ///< stop a warm-up that never recorded (torch starts and stops an unsaved trace)
  start_trace,  ///< open a new PROF_ directory and record into it
  stop_trace,   ///< stop collecting, finish the PROF_ directory
  trace_ready,  ///< call on_trace_ready with the finished directory
};

/// The steps from `from` to `to`; `to_end` means stop() (torch's None).
inline std::vector<transition_step> transition(profiler_action from, profiler_action to, bool to_end = false) {
  using a = profiler_action;
  using t = transition_step;
  if (to_end) {
    switch (from) {
      case a::none: return {};
      case a::warmup: return {t::warn, t::discard};
      case a::record:
      case a::record_and_save: return {t::warn, t::stop_trace, t::trace_ready};
    }
  }
  switch (from) {
    case a::none:
      if (to == a::warmup) return {t::prepare};
      if (is_recording(to)) return {t::prepare, t::start_trace};
      return {};
    case a::warmup:
      if (to == a::none) return {t::warn, t::discard};
      if (is_recording(to)) return {t::start_trace};
      return {};
    case a::record:
      if (to == a::none || to == a::warmup) return {t::warn, t::stop_trace};
      return {};
    case a::record_and_save:
      if (to == a::none) return {t::stop_trace, t::trace_ready};
      if (to == a::warmup) return {t::stop_trace, t::trace_ready, t::prepare};
      return {t::stop_trace, t::trace_ready, t::prepare, t::start_trace};
  }
  return {};
}

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_SCHEDULE_HPP
