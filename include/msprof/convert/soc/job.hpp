// SPDX-License-Identifier: MIT
// The converter-facing view of one JOB directory of the SoC flow (SS928-class
// boards, docs/soc.md): ACL API calls on the host and the model's layer tasks on
// the AA Core / AA CPU with their ArithmeticUtilization counters. Built by
// load_job() from the raw slices under JOB*/data (their format: docs/formats.md,
// "JOB directories"); the import, export and show of JOB directories read only this.
//
// Times are the system monotonic clock in nanoseconds, as the SoC tool's outputs
// give them (no wall-clock shift).
#ifndef MSPROF_CONVERT_SOC_JOB_HPP
#define MSPROF_CONVERT_SOC_JOB_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../../core/abi.hpp"
#include "../../core/error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

/// One ACL API call (raw slices AclModule.*).
struct acl_call {
  std::uint32_t pid = 0, tid = 0;
  std::string name;  ///< e.g. "svp_acl_mdl_execute"
  std::string type;  ///< the API's type, as acl_statistic's Type column: "model", "runtime", ...
  std::int64_t start_ns = 0, end_ns = 0;
};

/// ArithmeticUtilization counters of one AA Core task, as ratios in [0, 1] of
/// the task's time (op_summary prints them as given by docs/soc.md) and bytes.
struct aa_metrics {
  double mac_busy = 0, mac_ppen = 0, vec_busy = 0, vec_ppen = 0;
  double dstr = 0, dtrans = 0, dld = 0, wld = 0;
  std::uint64_t ddr_read_bytes = 0, ddr_write_bytes = 0;
};

/// One task of a layer, in execution order (raw slices AAcore.* and the task
/// scheduler's track).
struct layer_task {
  std::uint32_t task_id = 0;    ///< execution-order index from 0
  std::uint32_t stream_id = 0;
  std::string task_type;        ///< "AA CORE", "AA Vector Core" or "AA CPU" (timeline spelling)
  std::uint32_t layer_id = 0;
  std::string ori_layer_name;   ///< original layer names, fused ones joined
  std::string layer_name;
  std::string layer_type;       ///< e.g. "Convolution"
  std::uint64_t iteration = 0;  ///< the sampled inference this task belongs to (from 1)
  std::int64_t start_ns = 0, end_ns = 0;
  std::optional<aa_metrics> pmu;  ///< absent when aac_metrics collected nothing
};

/// One model executed in the run; the file names of timeline/ and summary/ are per model.
struct job_model_run {
  std::uint32_t model_id = 0;
  std::string model_file_name;        ///< without directory
  std::uint32_t batch_num = 0;        ///< batches executed
  std::uint64_t input_pic_num = 0;    ///< pictures given to the model in total
  std::uint64_t current_pic_count = 0;  ///< pictures of the sampled inferences
  double icache_miss_rate = 0;        ///< ratio in [0, 1]
  std::vector<layer_task> tasks;      ///< in execution order
};

/// Everything one JOB directory holds.
struct job {
  std::string dir;                  ///< the JOB directory
  std::uint32_t device_id = 0;
  std::uint32_t pid = 0;            ///< the profiled process
  double frequency_mhz = 0;         ///< AA Core frequency
  std::string aac_metrics;          ///< "ArithmeticUtilization" or empty
  std::uint32_t interval = 0;       ///< acl.json interval (0: every inference)
  bool finished = false;            ///< the run ended normally (a killed run is still readable)
  std::vector<acl_call> acl;        ///< in start order
  std::vector<job_model_run> models;
  std::vector<std::string> warnings;  ///< damaged or missing slices, each naming its file
};

/// A directory with data/ and info.json.0: a JOB directory of the SoC flow.
bool is_job_dir(const std::string& dir);

/// Reads a JOB directory; errors name the file and the problem.
result<job> load_job(const std::string& dir);

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SOC_JOB_HPP
