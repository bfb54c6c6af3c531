// SPDX-License-Identifier: MIT
// The timeline's step trace events (step_trace_<ts>.json, and a part of
// msprof_<ts>.json), from the model's iterations (iterations.hpp).
#ifndef MSPROF_CONVERT_STEP_TRACE_HPP
#define MSPROF_CONVERT_STEP_TRACE_HPP

#include "model.hpp"
#include "timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace detail {
/// emit_step_trace's events into an event_output.
void step_trace_events(const model& m, event_output& out);
}  // namespace detail

/// Step trace events (step_trace_<ts>.json, and a part of msprof_<ts>.json), as
/// msprof 9ba1ac7be's step_trace_assembler writes them: in the Ascend Hardware
/// process of the device, thread (int)model_id + 70000 ("Step Trace(Model
/// ID:<id>)"; step mode's 4294967295 wraps to 69999); per iteration an
/// "Iteration <id>" slice (cat "Iteration Time") and, when FP and BP exist,
/// "FP_BP Time <id>", "Iteration Refresh <id>" and the Data_aug flow pair.
template <class Emit>
void emit_step_trace(const model& m, Emit& out) {
  detail::output_ref<Emit> dest(out);
  detail::step_trace_events(m, dest);
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_STEP_TRACE_HPP
