// SPDX-License-Identifier: MIT
// `msprof import -dir JOBXXX` (docs/soc.md): a JOB directory's raw data
// (load_job) into JOBXXX/sqlite/*.db, regenerated on every import. The tables
// are described in docs/formats.md, "JOB directories".
#ifndef MSPROF_CONVERT_SOC_IMPORT_HPP
#define MSPROF_CONVERT_SOC_IMPORT_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "../../core/abi.hpp"
#include "../../core/error.hpp"
#include "job.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

/// The databases import writes, in JOB/sqlite/.
inline constexpr const char* acl_db = "acl_module.db";       ///< AclApi
inline constexpr const char* task_db = "task_scheduler.db";  ///< JobInfo, ModelRun, Task
inline constexpr const char* aacore_db = "aa_core.db";       ///< ArithmeticUtilization

struct import_result {
  std::vector<std::string> files;     ///< the databases written
  std::vector<std::string> warnings;  ///< load_job's, then import's own
  std::size_t acl_calls = 0, models = 0, tasks = 0, metrics = 0;
};

/// Memory Bound of docs/soc.md: max(Dstr, DLD, WLD) / max(Mac Busy, Vec Ppen);
/// negative when the denominator is 0 (no value: "N/A").
double memory_bound(const aa_metrics& m);

/// Writes `j`'s databases into j.dir/sqlite/ (a database whose raw data is
/// absent is not written, and an old copy of it is removed).
result<import_result> write_job_db(const job& j);

/// load_job(dir), then write_job_db.
result<import_result> import_job(const std::string& dir);

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SOC_IMPORT_HPP
