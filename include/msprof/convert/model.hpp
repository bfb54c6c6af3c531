// SPDX-License-Identifier: MIT
// The converter-facing view of one PROF_ directory: host API calls, ops, device
// tasks (joined with their launch API, op description and PMU counters), mstx
// events and the session facts the writers need. Built by convert/load.hpp from
// the codec reader; every writer (timeline, summary, db, show) reads only this.
//
// All times are local Unix time in nanoseconds (host monotonic clock shifted by
// start_info's wall-clock offset, device counters converted through
// dev_start.log), so writers never touch clocks.
#ifndef MSPROF_CONVERT_MODEL_HPP
#define MSPROF_CONVERT_MODEL_HPP

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Report levels (CANN `MSPROF_REPORT_*_LEVEL`).
namespace level {
inline constexpr std::uint16_t acl = 20000;
inline constexpr std::uint16_t model = 15000;
inline constexpr std::uint16_t node = 10000;
inline constexpr std::uint16_t hccl = 5500;
inline constexpr std::uint16_t runtime = 5000;
}  // namespace level

/// One NPU of the collection (device_<id>/info.json.<id>).
struct device_spec {
  std::uint32_t id = 0;
  double aic_frequency_mhz = 1800;  ///< also the AI Core Freq counter value
  std::uint32_t ai_core_num = 1;
  std::uint32_t aiv_num = 1;
};

/// Facts about the whole collection.
struct session_info {
  std::string prof_dir;        ///< path of the PROF_ directory
  std::uint32_t pid = 0;       ///< info.json "pid"
  std::string pid_name;        ///< info.json "pid_name" (mstx process name)
  std::string hostname;        ///< info.json "hostname"
  std::string host_uid = "0";  ///< info.json "hostUid"
  std::string platform_version;  ///< chip id string, "5" = Ascend910B
  std::int64_t rank_id = -1;
  std::int64_t start_ns = 0;   ///< collectionTimeBegin, local ns
  std::int64_t end_ns = 0;     ///< collectionTimeEnd, local ns
  std::int64_t wall_offset_ns = 0;  ///< local ns = monotonic ns + this
  std::vector<device_spec> devices;
  /// The first device's sample.json: ai_core_metrics / aiv_metrics (the
  /// parser's calculator names, e.g. "PipeUtilizationExct") and their events
  /// in pmuList order.
  std::string ai_core_metrics, aiv_metrics;
  std::vector<std::uint32_t> aic_events, aiv_events;
  /// The collector's loss counters (info.json "msprof_losses"), in file order;
  /// empty for data from other collectors.
  std::vector<std::pair<std::string, std::uint64_t>> losses;
  /// No collectionTimeEnd: the collection never stopped (the program was
  /// killed or crashed); `losses` are then the counters last saved in the run.
  bool unfinished = false;
  /// The calls a killed run lost at the end (`losses`' lost_at_kill, which
  /// load counts from host/msprof_calls); when known, every call is accounted for.
  std::optional<std::uint64_t> lost_at_kill() const {
    for (const auto& l : losses)
      if (l.first == "lost_at_kill") return l.second;
    return std::nullopt;
  }
  bool simulated_device = false;  ///< device data from msprof's simulated device
};

/// A host API call (api_event record, or a begin/end event pair).
struct api_call {
  std::uint16_t level = 0;
  std::uint32_t type = 0;
  std::uint32_t thread_id = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::string name;  ///< registered type name, e.g. "aclrtMalloc", "launch"
  std::string item;  ///< itemId resolved through hash_dic ("" when 0/unknown)
  std::uint64_t connection_id = 0;  ///< 1.. in start order, set by finish()
  bool has_device_task = false;     ///< a HostToDevice flow starts here
};

/// The name an API call is shown by (timeline, api_statistic, db CANN_API):
/// its type name, but an HCCL-level call's task name (its itemId, "Memcpy";
/// its type, "master", is the timeline's Mode).
inline const std::string& display_name(const api_call& a) {
  return a.level == level::hccl && !a.item.empty() ? a.item : a.name;
}

/// A tensor shape: at most 8 dimensions (tensor_info's fixed array), held
/// inline so a tensor costs no allocation of its own.
class tensor_shape {
 public:
  tensor_shape() = default;
  tensor_shape(std::initializer_list<std::uint32_t> dims) {
    for (auto d : dims) push_back(d);
  }
  /// Ignored when all 8 dimensions are taken.
  void push_back(std::uint32_t d) noexcept {
    if (rank_ < dims_.size()) dims_[rank_++] = d;
  }
  std::size_t size() const noexcept { return rank_; }
  std::uint32_t operator[](std::size_t i) const noexcept { return dims_[i]; }
  const std::uint32_t* begin() const noexcept { return dims_.data(); }
  const std::uint32_t* end() const noexcept { return dims_.data() + rank_; }

 private:
  std::array<std::uint32_t, 8> dims_{};
  std::uint8_t rank_ = 0;
};

/// One tensor of an op (tensor_info).
struct tensor_desc {
  std::uint32_t kind = 0;  ///< 0 input, 1 output
  std::uint32_t format = 0;
  std::uint32_t data_type = 0;
  tensor_shape shape;
};

/// An op (node_basic_info + tensor_info).
struct op_info {
  std::string name;
  std::string type;
  std::uint32_t ge_task_type = 0;  ///< 0 AI_CORE, 1 AI_CPU, 2 AI_VECTOR_CORE, ...
  std::uint32_t block_num = 0;
  bool dynamic = false;  ///< from an aging.compact.node_basic_info file
  std::vector<tensor_desc> tensors;
};

/// Per-task PMU counters (ContextPmu).
struct pmu_counters {
  std::uint64_t total_cycles = 0;
  std::array<std::uint64_t, 8> events{};
};

/// What one MEMCPY_ASYNC task copied: its memcpy_info record, found by the
/// task_track's thread and timestamp (a copy larger than maxSize is split over
/// the tasks that share them, as the reference does).
struct memcpy_copy {
  std::uint64_t size = 0;           ///< bytes this task copied
  std::uint16_t operation = 65535;  ///< ENUM_MEMCPY_OPERATION id (0..7); 65535 = other / unknown
};

/// A device task joined with what launched it.
struct device_task {
  std::uint32_t device_id = 0;
  std::uint32_t stream_id = 0;
  std::uint32_t task_id = 0;
  std::uint32_t batch_id = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t track_ns = 0;      ///< task_track timestamp (launch order)
  std::uint32_t thread_id = 0;    ///< launching thread
  /// The graph model executing it: the itemId of the model-level call (GE's
  /// ModelExecute) around its launch; 4294967295 = none (single-op / step mode).
  std::uint32_t model_id = 4294967295u;
  std::string task_type;          ///< runtime task type name, e.g. KERNEL_AICORE
  std::string kernel_name;        ///< "" when unknown
  /// The launching API call's connection id; for a task_track that no call
  /// above the runtime level contains, the id of its thread, which names no
  /// call (join.hpp); 0 = no task_track.
  std::uint64_t connection_id = 0;
  bool host_flow = false;  ///< a HostToDevice flow from that call ends here (detail::draws_host_flow)
  std::uint64_t global_task_id = 0;
  std::shared_ptr<const op_info> op;  ///< shared by every task of one launch
  std::optional<pmu_counters> pmu;
  std::uint16_t sqe_type = 0xFFFF;    ///< STARS SQE type of its ACSQ start (0xFFFF: none)
  /// MEMCPY_ASYNC tasks of a collection with memcpy_info records (the
  /// reference's size/bandwidth/operation args and MEMCPY_INFO rows).
  std::optional<memcpy_copy> memcpy;

  /// A runtime memcpy: the timeline names it by the device's SQE type.
  bool is_memcpy_async() const noexcept { return task_type == "MEMCPY_ASYNC"; }
};

/// An mstx marker or range.
struct mstx_event {
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint32_t event_type = 0;  ///< 0 marker, 1 push/pop, 2 start/end, 3 marker_ex
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t start_mono_ns = 0;  ///< raw clock (msprof_tx.csv quirk)
  std::int64_t end_mono_ns = 0;
  std::uint64_t mark_id = 0;
  std::string message;
  std::string domain;
};

/// An mstx heap or region (un)registration (msprof's own msprof_mstx_mem records).
struct mstx_mem_event {
  std::uint32_t tid = 0;
  std::int64_t ts_ns = 0;
  std::uint8_t op = 0;  ///< instrument::mem_op
  std::uint32_t device_id = 0;
  std::uint64_t handle = 0;  ///< heap or region id
  std::uint64_t heap = 0;    ///< owning heap of a region
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::string domain;
};

/// One iteration (step) of a device, from its ts_track step-trace records.
/// Step mode (torch_npu ProfilerStep): tags 60000/60001, model_id 4294967295.
/// Model mode (graph): tags 0 model start, 1 model end, 4 iteration end,
/// 2 FP start, 3 BP end; ids count from 1 per model, as the reference does.
struct iteration {
  std::uint32_t device_id = 0;
  std::uint32_t model_id = 0;       ///< 4294967295 = step mode
  std::uint32_t iteration_id = 0;   ///< step-trace indexId (step mode) or 1.. per model
  std::int64_t start_ns = 0;        ///< iteration start, local ns
  std::int64_t end_ns = 0;          ///< iteration end, local ns
  std::int64_t fp_ns = 0;           ///< FP start, local ns; 0 = none
  std::int64_t bp_ns = 0;           ///< BP end, local ns; 0 = none
  std::int64_t data_aug_ns = 0;     ///< FP start - end of the previous iteration (0 = none)
};

/// Everything the writers need.
///
/// Windows. To keep memory independent of the number of records, the exporter
/// hands writers the model in windows (load_windows() in load.hpp): each window
/// is a `model` holding a part of the records.
/// - Every API call, device task, mstx event and mstx_mem event is in exactly
///   one window; records are valid only while the window is being handled.
/// - Within a window `apis` ascend by connection_id and `tasks` by
///   global_task_id; across windows there is no order, so writers that need a
///   global one sort by those ids (connection_id is the global start order,
///   global_task_id the global task order), through convert/spill.hpp.
/// - mstx and mstx_mem come in record order, window after window, after every
///   API call and task.
/// - A device task comes in the window of the API call that launched it (its
///   connection_id) or in an earlier one: the call is handed out when it ends.
/// - connection_id, global_task_id, has_device_task and op are final.
/// - session and iterations are the same in every window, except
///   session.end_ns, which is final only in the model returned at the end
///   (with the warnings; its record vectors are empty).
struct model {
  session_info session;
  std::vector<api_call> apis;        ///< sorted by start, connection ids 1..
  std::vector<device_task> tasks;    ///< sorted by launch (global_task_id order)
  std::vector<mstx_event> mstx;      ///< record order
  std::vector<mstx_mem_event> mstx_mem;  ///< record order
  std::vector<iteration> iterations; ///< by device, then iteration end
  std::vector<std::string> warnings; ///< e.g. truncated tails, unmatched tasks

  bool has_device() const noexcept { return !session.devices.empty(); }
  /// The device with this id; nullptr when the session has none.
  const device_spec* device(std::uint32_t id) const noexcept;
};

/// Display names -------------------------------------------------------------

/// Lower-case level name used in args/api_statistic ("acl", "node", ...).
const char* level_name(std::uint16_t lv) noexcept;

/// Timeline layer prefix ("AscendCL@...").
const char* layer_name(std::uint16_t lv) noexcept;

/// ACL API group (type >> 16) shown as "Mode".
const char* acl_group_name(std::uint32_t type) noexcept;

/// GE task type name (node_basic_info.taskType).
std::string ge_task_type_name(std::uint32_t t);

/// STARS SQE type name ("SDMA_SQE"), "UNKNOWN" outside 0..20.
std::string sqe_type_name(std::uint16_t t);

/// ENUM_MEMCPY_OPERATION name ("host to device"); "other" outside 0..7.
const char* memcpy_operation_name(std::uint16_t op) noexcept;

/// GE data type name.
std::string data_type_name(std::uint32_t t);

/// GE format name.
std::string format_name(std::uint32_t f);

/// NPU_INFO chip name from info.json platform_version.
std::string chip_name(const std::string& v);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_MODEL_HPP
