// SPDX-License-Identifier: MIT
// The exporters (timeline files, the chrome trace, summary files, the SQLite
// db), each fed a model in windows (model.hpp) or a whole model.
#ifndef MSPROF_CONVERT_EXPORT_WRITERS_HPP
#define MSPROF_CONVERT_EXPORT_WRITERS_HPP

#include <cstddef>
#include <memory>
#include <string>

#include "../core/error.hpp"
#include "export_options.hpp"
#include "model.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {
struct communication;
}  // namespace hccl
struct iteration_range;  // iterations.hpp

/// The timeline files of a model handed over in windows (model.hpp): add()
/// every window, then finish() with the final model. Between windows it holds
/// the spill budget's worth of events plus sets of devices, streams and
/// threads; finish() writes the bytes export_timeline writes for the whole
/// model (the chrome form: chrome_exporter).
class timeline_exporter {
 public:
  /// Sorted runs of events spill into `prof_dir` once `spill_budget` bytes are held.
  timeline_exporter(const export_options& o, const std::string& prof_dir,
                    std::size_t spill_budget = spill_budget_default);
  timeline_exporter(const timeline_exporter&) = delete;
  timeline_exporter& operator=(const timeline_exporter&) = delete;
  ~timeline_exporter();

  /// The window's records are copied (as their JSON text); the window may go afterwards.
  result<void> add(const model& window);

  /// The collectives (convert/hccl.hpp; must outlive finish()): their
  /// Communication process and Overlap Analysis lanes.
  void set_communication(const hccl::communication& c);

  /// An iteration selection's time range (export_select.hpp): the device
  /// counters read from the slices are those inside it.
  void set_selection(const iteration_range& r);

  /// finish() writes msprof_<ts>.json's last part (Overlap Analysis, device
  /// counters, ...) on a second thread beside its sorted events; same bytes.
  void set_threaded(bool on);

  /// Writes msprof_<ts>.json, msprof_tx_<ts>.json and step_trace_<ts>.json;
  /// `final` gives the session, iterations and warnings (its records are ignored).
  result<export_result> finish(const model& final);

 private:
  struct impl;  // export_timeline.cpp
  std::unique_ptr<impl> p_;
};

/// Timeline files from an already-loaded model (the chrome form when o.chrome).
result<export_result> export_timeline(const model& m, const export_options& o);

/// The chrome form (chrome/chrome_trace.hpp, docs/chrome-trace.md) of a model
/// handed over in windows: add() every window, then finish() with the final
/// model. Each event goes into a chrome::detail::trace_builder at its place in
/// the whole model's order, so finish() writes the bytes the form has for the
/// whole model; the builder plans and writes through sorted runs spilled into
/// `prof_dir`, so memory stays within the spill budget whatever the number
/// of events. Options: export_options::chrome_options.
class chrome_exporter {
 public:
  chrome_exporter(const export_options& o, const std::string& prof_dir,
                  std::size_t spill_budget = spill_budget_default);
  chrome_exporter(const chrome_exporter&) = delete;
  chrome_exporter& operator=(const chrome_exporter&) = delete;
  ~chrome_exporter();

  /// The window's timeline events are encoded and kept in sorted runs; the window may go afterwards.
  result<void> add(const model& window);

  /// As timeline_exporter::set_selection.
  void set_selection(const iteration_range& r);

  /// Writes chrome_trace_<ts>.json (or its parts and their note) and README.txt;
  /// `final` gives the session, iterations and warnings (its records are ignored).
  result<export_result> finish(const model& final);

 private:
  struct impl;  // export_chrome.cpp
  std::unique_ptr<impl> p_;
};

/// Summary files from a model handed over in windows (model.hpp, add() once
/// per window, then finish()). Rows of the per-record tables (op_summary,
/// task_time, msprof_tx, mstx_mem) are formatted for o.format as they arrive
/// and put into file order by spill_sorters, which share the spill budget; the
/// API call durations go through one too, because the statistics add them up
/// in call order. op_statistic and api_statistic are per-group aggregates fed
/// while finish() drains the sorters in file order, so every double is
/// computed as with the whole model. finish() writes every file.
class summary_exporter {
 public:
  summary_exporter(const export_options& o, const std::string& prof_dir,
                   std::size_t spill_budget = spill_budget_default);
  summary_exporter(const summary_exporter&) = delete;
  summary_exporter& operator=(const summary_exporter&) = delete;
  ~summary_exporter();

  result<void> add(const model& w);
  /// add() in two parts that change different state, so that they may run at
  /// once on two threads (each on its own window, in window order): every row
  /// but op_summary's, and op_summary's (the most work). add() is
  /// add_other_rows(), then add_op_rows().
  void add_other_rows(const model& w);
  void add_op_rows(const model& w);

  /// The collectives (convert/hccl.hpp; must outlive finish()): their
  /// op_summary rows and communication_statistic.
  void set_communication(const hccl::communication& c);

  result<export_result> finish(const model& final);

 private:
  struct impl;  // export_summary.cpp
  std::unique_ptr<impl> p_;
};

/// Summary files from an already-loaded model.
result<export_result> export_summary(const model& m, const export_options& o);

/// msprof_<ts>.db from windows of the model (model.hpp): add() every window,
/// then finish() with the final model. Written under a temporary name in the
/// PROF_ directory (core/output_file.hpp) and renamed when complete; an
/// exporter dropped before finish() removes it.
/// Sorted runs spill into the PROF_ directory.
class db_exporter {
 public:
  db_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget = spill_budget_default);
  db_exporter(const db_exporter&) = delete;
  db_exporter& operator=(const db_exporter&) = delete;
  ~db_exporter();

  result<void> add(const model& window);

  /// The collectives (convert/hccl.hpp; must outlive finish()): their tables.
  void set_communication(const hccl::communication& c);

  result<export_result> finish(const model& final);

 private:
  struct impl;  // export_db.cpp
  std::unique_ptr<impl> p_;
};

/// The SQLite db from an already-loaded model.
result<export_result> export_db(const model& m, const export_options& o);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_WRITERS_HPP
