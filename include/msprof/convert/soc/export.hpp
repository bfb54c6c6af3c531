// SPDX-License-Identifier: MIT
// The SoC flow's outputs of a JOB directory (docs/soc.md): timeline/task_time_*
// and acl_* (Chrome-trace JSON), summary/op_summary_*, acl_statistic_* and
// op_statistic_* (CSV or JSON), and the four tables `msprof show` prints. They
// are made from a soc::job (job.hpp) only; names, columns and fields are the
// SS928/SS927 profiling tool's, placeholders formatted as docs/soc.md says.
#ifndef MSPROF_CONVERT_SOC_EXPORT_HPP
#define MSPROF_CONVERT_SOC_EXPORT_HPP

#include <string>
#include <vector>

#include "../../core/error.hpp"
#include "../summary.hpp"
#include "job.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

/// The columns of the summary files, in the document's order.
const std::vector<std::string>& op_summary_columns();
const std::vector<std::string>& acl_statistic_columns();
const std::vector<std::string>& op_statistic_columns();

/// File names (without directory). The placeholders: docs/soc.md, "File names".
std::string task_time_name(const job& j, const job_model_run& m);
std::string acl_timeline_name(const job& j, const job_model_run& m);
/// `ext`: "csv" or "json".
std::string op_summary_name(const job& j, const job_model_run& m, const std::string& ext);
std::string acl_statistic_name(const job& j, const job_model_run& m, const std::string& ext);
std::string op_statistic_name(const job& j, const job_model_run& m, const std::string& ext);

/// The model runs the outputs are written for: the job's, or one stand-in
/// (model id 0, no model file name: "unknown" in file names) when the job has ACL calls but no model.
const std::vector<job_model_run>& output_runs(const job& j);  ///< j.models, or a static stand-in

/// The summary tables (cells as the files hold them).
table op_summary_table(const job_model_run& m);  ///< a row per layer, then the "-" total row
table acl_statistic_table(const job& j);         ///< a row per (process, thread, type, API)
table op_statistic_table(const job_model_run& m);  ///< a row per (operator, task type, stream)

/// The Chrome-trace JSON arrays of the two timelines.
std::string task_time_json(const job& j, const job_model_run& m);
std::string acl_timeline_json(const job& j);

struct export_result {
  std::vector<std::string> files;     ///< paths written
  std::vector<std::string> warnings;  ///< files not written for lack of data (the job's own: job::warnings)
};

/// JOB/timeline/task_time_*.json and acl_*.json.
result<export_result> export_timeline(const job& j);
/// JOB/summary/{op_summary,acl_statistic,op_statistic}_*.<format>; `format` csv or json.
result<export_result> export_summary(const job& j, const std::string& format = "csv");

/// What `msprof show` prints: "AA core metric", "Op statistic", "Acl statistic", "Frequency".
std::string show_text(const job& j, bool color);

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SOC_EXPORT_HPP
