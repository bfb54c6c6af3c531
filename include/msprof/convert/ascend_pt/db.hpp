// SPDX-License-Identifier: MIT
// The db export of ascend_pt::analyse (analyse.hpp), as torch_npu 9e73e708a
// writes it into ASCEND_PROFILER_OUTPUT/:
//
// - ascend_pytorch_profiler_{rank}.db (ascend_pytorch_profiler.db without a
//   rank): CANN's msprof db tables (convert/db.hpp writes them) plus the
//   framework's: PYTORCH_API, CONNECTION_IDS, PYTORCH_CALLCHAINS, STEP_TIME,
//   META_DATA's environment and profiler_metadata.json rows, ENUM_API_TYPE's
//   framework types, RANK_DEVICE_MAP of the profiler_info rank, and when
//   their data is present MEMORY_RECORD, OP_MEMORY (the rows of
//   memory_record.csv and operator_memory.csv in bytes and ns) and GC_RECORD;
// - analysis.db: StepTraceTime (torch_npu's db flavour of step_trace_time).
//
// Framework strings take STRING_IDS ids from 1 << 28, framework connection
// ids (task queue, forward/backward) from 5 << 28, as torch_npu numbers them.
// Definitions: src/convert/ascend_pt/db.cpp.
#ifndef MSPROF_CONVERT_ASCEND_PT_DB_HPP
#define MSPROF_CONVERT_ASCEND_PT_DB_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../../core/output_file.hpp"
#include "../db.hpp"
#include "analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

/// ascend_pytorch_profiler_{rank}.db (ascend_mindspore_profiler_{rank}.db for a
/// MindSpore *_ascend_ms directory), without _{rank} when profiler_info has none.
std::string framework_db_name(const pt_dir& d);

/// Both databases, written into `out` under temporary names renamed when
/// complete. The PROF_ directory's windows (load_windows) go to add() as they
/// load: the CANN tables are written from them then (convert/db.hpp's
/// db_window_writer, sorted runs in `spill_dir`), and what the framework
/// tables need of them (per call and per task, a few numbers) waits in sorted
/// runs there too. finish() adds the framework tables, their rows through
/// sorted runs as well, and writes analysis.db.
class db_export {
 public:
  db_export(const outfile::dir& out, std::string spill_dir, std::size_t spill_budget = spill_budget_default);
  ~db_export();
  db_export(const db_export&) = delete;
  db_export& operator=(const db_export&) = delete;

  /// One window; `d` names the file (read_pt_dir is enough). The first error
  /// stops the export; finish() returns it.
  void add(const model& w, const pt_dir& d);
  /// The collectives (convert/hccl.hpp; must outlive finish()): their
  /// COMMUNICATION_OP and COMMUNICATION_TASK_INFO rows, as the CANN db has them.
  void set_communication(const hccl::communication& c) { comm_ = &c; }
  /// The CANN tables, once every window is in (`m` the final model, its
  /// records not read): they need nothing of the framework's, so this may run
  /// beside link(); finish() does it when it was not done. `warnings` gets
  /// what their writer skipped.
  result<void> finish_cann(const pt_dir& d, const model& m, std::vector<std::string>& warnings);
  /// `d` placed (place_framework), `m` the final model (its records are not
  /// read), `rel` link()'s, `op_memory` op_memory_rows()'. Returns the paths
  /// written; `warnings` gets what was skipped (an unreadable
  /// profiler_metadata.json). `threaded`: the memory tables' rows and
  /// analysis.db are made on a second thread beside the other framework
  /// tables (same bytes).
  result<std::vector<std::string>> finish(const pt_dir& d, const model& m, const relation& rel,
                                          const spilled_list<op_memory_row>& op_memory,
                                          std::vector<std::string>& warnings, bool threaded);

  struct calls;  // db.cpp

 private:
  const outfile::dir& out_;
  std::string spill_dir_;
  std::size_t spill_budget_;
  std::optional<outfile::atomic_file> file_;
  std::unique_ptr<db_window_writer> writer_;
  std::unique_ptr<calls> cann_;
  const hccl::communication* comm_ = nullptr;
  result<void> status_;
};

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ASCEND_PT_DB_HPP
