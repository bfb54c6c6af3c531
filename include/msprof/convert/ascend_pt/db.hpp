// SPDX-License-Identifier: MIT
// The db export of ascend_pt::analyse (analyse.hpp), as torch_npu 9e73e708a
// writes it into ASCEND_PROFILER_OUTPUT/:
//
// - ascend_pytorch_profiler_{rank}.db (ascend_pytorch_profiler.db without a
//   rank): CANN's msprof db tables (convert/db.hpp writes them) plus the
//   framework's: PYTORCH_API, CONNECTION_IDS, PYTORCH_CALLCHAINS, STEP_TIME,
//   META_DATA's environment and profiler_metadata.json rows, ENUM_API_TYPE's
//   framework types, RANK_DEVICE_MAP of the profiler_info rank;
// - analysis.db: StepTraceTime (torch_npu's db flavour of step_trace_time).
//
// Framework strings take STRING_IDS ids from 1 << 28, framework connection
// ids (task queue, forward/backward) from 5 << 28, as torch_npu numbers them.
// Definitions: src/convert/ascend_pt/db.cpp.
#ifndef MSPROF_CONVERT_ASCEND_PT_DB_HPP
#define MSPROF_CONVERT_ASCEND_PT_DB_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "../../core/output_file.hpp"
#include "analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

/// ascend_pytorch_profiler_{rank}.db (ascend_mindspore_profiler_{rank}.db for a
/// MindSpore *_ascend_ms directory), without _{rank} when profiler_info has none.
std::string framework_db_name(const pt_dir& d);

/// Writes both databases into `out`, each under a temporary name renamed when
/// complete; returns the paths written. `spill_dir` takes the CANN writer's
/// sort runs; `warnings` gets what was skipped (an unreadable profiler_metadata.json).
result<std::vector<std::string>> write_dbs(const pt_dir& d, const model& m, const relation& rel,
                                           const outfile::dir& out, const std::string& spill_dir,
                                           std::vector<std::string>& warnings);

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ASCEND_PT_DB_HPP
