// SPDX-License-Identifier: MIT
// Timeline: the model as a list of normalized trace events (reused by the
// chrome/ writer), and msprof's own JSON form of them (msprof_<ts>.json,
// msprof_tx_<ts>.json): top-level array, key order name,pid,tid,ts,dur,ph,args,
// ts as a string with 3 decimals, pid = (pid << 10) | (sort_index << 5) | device.
//
// The header to include; its parts: timeline_event.hpp (events, pid encoding),
// overlap.hpp (Overlap Analysis), step_trace.hpp (step trace events) and
// timeline_json.hpp (the JSON writer). Definitions: src/convert/timeline*.cpp,
// overlap.cpp, step_trace.cpp.
#ifndef MSPROF_CONVERT_TIMELINE_HPP
#define MSPROF_CONVERT_TIMELINE_HPP

#include <vector>

#include "iterations.hpp"
#include "model.hpp"
#include "overlap.hpp"
#include "step_trace.hpp"
#include "timeline_event.hpp"
#include "timeline_json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace detail {
/// The emitters below, into an event_output.
void mstx_events(const model& m, event_output& out);
void loss_note(const model& m, event_output& out);
/// The model's events `parts` asks for; with an iteration selection
/// (`within`) the AI Core Freq counters are those at a time in [lo, hi), as
/// device_counter_events' (their metadata stays).
void timeline_events(const model& m, event_output& out, const timeline_parts& parts,
                     const iteration_range* within = nullptr);
/// The counter processes read from `s.prof_dir`'s slices, those `parts` asks
/// for, in the timeline's order: NPU MEM, DDR, Acc PMU, HCCS, NIC, RoCE, PCIe, HBM, LLC, QoS,
/// then the host's CPU Usage, Memory Usage, Disk Usage and Network Usage.
/// With an iteration selection (`within`), the devices' counters are those
/// at a time in [lo, hi) (their metadata stays), as the reference's Python
/// timeline filters every device event (MsprofTimeline.add_export_data); the
/// host's are all kept, as the reference exports the host unselected.
result<void> device_counter_events(const session_info& s, const timeline_parts& parts, event_output& out,
                                   std::vector<std::string>& warnings, const iteration_range* within = nullptr);
}  // namespace detail

/// mstx events only (msprof_tx_<ts>.json, and the mstx part of msprof_<ts>.json),
/// handed one by one to `out(trace_event&&)`.
template <class Emit>
void emit_mstx_events(const model& m, Emit& out) {
  detail::output_ref<Emit> dest(out);
  detail::mstx_events(m, dest);
}

/// When the collector lost anything (info.json msprof_losses), one slice over
/// the whole collection in a process of its own, "msprof collection", named
/// with the total and carrying each counter as an argument, so nobody reads a
/// timeline with holes without seeing it.
template <class Emit>
void emit_loss_note(const model& m, Emit& out) {
  detail::output_ref<Emit> dest(out);
  detail::loss_note(m, dest);
}

/// Every event of msprof_<ts>.json, handed one by one to `out(trace_event&&)`
/// (streaming: nothing is kept).
template <class Emit>
void emit_timeline(const model& m, Emit& out, const timeline_parts& parts = {}) {
  detail::output_ref<Emit> dest(out);
  detail::timeline_events(m, dest, parts);
}

/// mstx events as a vector.
void build_mstx_events(const model& m, std::vector<trace_event>& v);

/// Every event of msprof_<ts>.json as a vector (the chrome writer's input).
std::vector<trace_event> build_timeline(const model& m, const timeline_parts& parts = {});

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_HPP
