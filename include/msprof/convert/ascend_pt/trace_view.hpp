// SPDX-License-Identifier: MIT
// ASCEND_PROFILER_OUTPUT/trace_view.json, the timeline torch_npu's offline
// analysis writes (Ascend/pytorch 9e73e708a: TracePreParser, then
// TraceViewParser): the framework events ("Python" process: ops, task-queue
// spans, Python tracer functions; "Python GC"), the CANN timeline of the
// PROF_ directory (msprof_<ts>.json's events, pruned at Level0) and the flows
// between them (torch_to_npu, enqueue_to_dequeue, fwdbwd; HostToDevice from
// CANN).
//
//   auto out = msprof::outfile::dir::make(".../ASCEND_PROFILER_OUTPUT");
//   MSPROF_TRY(write_trace_view(*out, pt, final_model, cann.timeline(), relation));
//
// Definitions: src/convert/ascend_pt/trace_view.cpp.
#ifndef MSPROF_CONVERT_ASCEND_PT_TRACE_VIEW_HPP
#define MSPROF_CONVERT_ASCEND_PT_TRACE_VIEW_HPP

#include <string>
#include <string_view>

#include "../../core/error.hpp"
#include "../../core/output_file.hpp"
#include "../model.hpp"
#include "../timeline_json.hpp"
#include "analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

/// Streams trace_view.json into `out` (temporary name, rename when complete):
/// `d` placed on the PROF_ clock (place_framework), `m` its PROF_ directory's
/// final model (session and iterations; its records are not read), `cann` the
/// timeline events gathered from its windows (cann_part::timeline(), written
/// once), `r` the framework ops linked to its kernels (link(); its
/// torch_to_npu flows are drained). The layout is Python json.dumps' (", " and ": ").
result<void> write_trace_view(const outfile::dir& out, const pt_dir& d, const model& m, timeline_collector& cann,
                              relation& r);

/// `compact_json` (the CANN timeline's form) appended to `out` in json.dumps'
/// layout: a space after each ',' and ':' outside strings.
void append_spaced(std::string& out, std::string_view compact_json);

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ASCEND_PT_TRACE_VIEW_HPP
