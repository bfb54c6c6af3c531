// SPDX-License-Identifier: MIT
// HCCL communication: the collectives ("big ops") and their small tasks, linked
// from the host records as the reference links them, named, with bandwidths and
// spans; their Communication timeline process and communication_statistic rows.
// docs/formats.md, "HCCL communication data", has the rules; the hccl_allreduce
// golden case (tests/golden) their reference output.
//
// Inputs are plain records with local times (model.hpp) and resolved names, so
// the linking does not depend on how the loader hands them over.
#ifndef MSPROF_CONVERT_HCCL_HPP
#define MSPROF_CONVERT_HCCL_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../codec/format.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../prof/reader.hpp"
#include "model.hpp"
#include "timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

/// A host record of a thread at a time (local ns), with its payload.
template <class Payload>
struct host_record {
  std::uint32_t thread_id = 0;
  std::int64_t ts_ns = 0;
  Payload payload{};
};

/// hccl_info with its task name (itemId) resolved.
struct info_record : host_record<codec::MsprofHcclInfo> {
  std::string name;
};
/// hccl_op_info with its algorithm (algType) resolved.
struct op_info_record : host_record<codec::MsprofHcclOPInfo> {
  std::string alg_type;
};
/// node_basic_info's op type (opType resolved), to name a collective's type.
struct node_type_record : host_record<int> {
  std::string op_type;
};

/// What the linking needs besides the records.
struct inputs {
  const std::vector<api_call>* apis = nullptr;      ///< node (10000) and HCCL (5500) level calls; others ignored
  const std::vector<device_task>* tasks = nullptr;  ///< with track_ns / thread_id (task_track)
  std::vector<info_record> infos;
  std::vector<op_info_record> op_infos;
  std::vector<node_type_record> node_types;
  /// hash_dic texts of the group hashes; a group missing here is shown as its number.
  std::unordered_map<std::uint64_t, std::string> group_names;
  std::int64_t collection_start_ns = 0;  ///< tasks starting before it are warm-up (not counted)
};

/// One small task on the device.
struct comm_task {
  std::string op_name;      ///< its collective's full name
  std::string name;         ///< task name ("Memcpy")
  std::string group;        ///< group text
  std::uint64_t group_hash = 0;
  std::uint32_t device_id = 0, stream_id = 0, task_id = 0, batch_id = 0, context_id = codec::context_id_none;
  std::int64_t start_ns = 0, end_ns = 0;  ///< device
  std::int64_t host_ns = 0;                ///< its task_track
  std::int64_t op_host_ns = 0;             ///< its collective's Node@launch start
  std::uint64_t connection_id = 0;         ///< its collective's Node@launch
  std::uint64_t global_task_id = 0;
  std::uint32_t iteration = 1;
  bool master = true;
  std::string op_type;      ///< its collective's op type ("N/A" when unknown)
  double bandwidth = 0;     ///< GB/s (B/ns)
  codec::MsprofHcclInfo info{};
  bool has_info = false;    ///< no hccl_info: the reference's N/A task
};

/// One collective.
struct comm_op {
  std::string name;  ///< full name: <op>_<group tail>_<group index>_<iteration>
  std::string op_type;
  std::string group;
  std::uint64_t group_hash = 0;
  std::uint32_t device_id = 0;
  std::uint64_t connection_id = 0;
  std::int64_t start_ns = 0, end_ns = 0;  ///< first master task's start, last master task's end
  std::uint32_t rank_size = 0;
  bool has_info = false;  ///< an hccl_op_info record: the fields below
  int relay = -1, retry = -1;
  std::uint32_t data_type = 0;
  std::string alg_type;
  std::uint64_t count = 0;
};

/// A group's Communication rows on one device: its own thread and its planes'
/// (plane p at tid + p + 1).
struct group_rows {
  std::uint32_t tid = 0;
  std::set<std::uint32_t> planes;
};

struct communication {
  std::vector<comm_op> ops;      ///< by start
  std::vector<comm_task> tasks;  ///< by device start
  /// By (device, group), numbered in the reference's order with one count
  /// over all devices (hccl.cpp, group_threads).
  std::map<std::pair<std::uint32_t, std::string>, group_rows> rows;
  std::vector<std::string> warnings;
};

/// The HCCL records of a PROF_ directory (hccl_info, hccl_op_info, and the op
/// types of node_basic_info) with local times and resolved names, for the
/// model `m` loaded from it (its calls and tasks; `m` must outlive the result).
/// The reader's warnings say what was skipped. Without `with_node_types` the
/// op types are left to read_node_types().
result<inputs> read_inputs(prof::prof_reader& r, const model& m, bool with_node_types = true);

/// node_basic_info's op types of the records `keep(thread, local ts)` wants.
result<void> read_node_types(prof::prof_reader& r, const std::function<bool(std::uint32_t, std::int64_t)>& keep,
                             std::vector<node_type_record>& out);

/// Links tasks to HCCL calls, hccl_info and their collectives; names them, and
/// computes bandwidths and spans.
communication link(const inputs& in);

/// The Communication process of msprof_<ts>.json for one device (metadata,
/// collectives and their HostToDevice flow ends, tasks by plane), handed to
/// `out`; nothing without tasks on it. Groups are drawn on `c.rows`.
void emit_timeline(const communication& c, std::uint32_t pid, std::uint32_t device_id, detail::event_output& out);

/// communication_statistic's columns, and its rows of one device (none
/// without master tasks).
std::vector<std::string> statistic_header();
std::vector<std::vector<std::string>> statistic_rows(const communication& c, std::uint32_t device_id,
                                                     std::int64_t collection_start_ns);

/// communication_statistic_<ts>.csv of one device (header included; "" without
/// rows).
std::string statistic_csv(const communication& c, std::uint32_t device_id, std::int64_t collection_start_ns);

/// RDMA payload tasks share one bandwidth up to their closing task: a send /
/// receive closes 3 tasks on, the others 5 (the reference's barrier counts).
std::size_t rdma_jump(const std::string& op_name);

/// ENUM_HCCL_* names ("FP32", "HCCS", "SDMA", "RDMA_SEND_PAYLOAD"); "N/A" for others.
const char* data_type_name(std::uint32_t v) noexcept;
const char* link_type_name(std::uint32_t v) noexcept;
const char* transport_type_name(std::uint32_t v) noexcept;
const char* rdma_type_name(std::uint32_t v) noexcept;

/// Overlap Analysis of one device: the collectives' spans, merged, by start
/// (its Communication lane); free_gap() splits a gap between compute
/// intervals into its Communication(Not Overlapped) parts and the parts still
/// free, both in time order.
class overlap_lanes {
 public:
  using span = std::pair<std::int64_t, std::int64_t>;
  struct split {
    std::vector<span> not_overlapped, free;
  };
  overlap_lanes(const communication& c, std::uint32_t device_id);
  const std::vector<span>& communication_spans() const noexcept { return spans_; }
  split free_gap(std::int64_t b, std::int64_t e) const;
  /// A timeline event of the lane: Communication (tid 1) or Communication(Not Overlapped) (tid 2).
  static void emit(detail::event_output& out, bool not_overlapped, std::uint64_t pid, const span& s);

 private:
  std::vector<span> spans_;
};

/// Gathers what link() needs from the export's windows (load.hpp) without
/// holding the collection: the HCCL records are read once when it opens, and
/// of the windows it keeps the HCCL-level calls, the node-level calls holding
/// an hccl_info record (the collectives' launches), and the tasks without an op
/// launched on a thread with hccl_info records (the small tasks among them;
/// a task can come before its call, so they are sorted out at the end). The
/// op types are read at the end, only those inside the kept calls. Memory
/// grows with the HCCL records, not with the other ones.
class collector {
 public:
  /// Reads prof_dir's HCCL records; a collection without hccl_info gives an
  /// idle collector.
  static result<collector> open(const std::string& prof_dir);
  bool active() const noexcept { return !in_.infos.empty(); }
  void add(const model& window);
  /// Reads the op types of the kept node-level calls and links what was
  /// kept; `final` gives the collection start.
  result<communication> finish(const model& final);

 private:
  bool holds_info(const api_call& a) const;
  std::optional<prof::prof_reader> reader_;  ///< for the op types, read at the end
  inputs in_;
  /// Per thread, the times of its hccl_info records, sorted.
  std::unordered_map<std::uint32_t, std::vector<std::int64_t>> info_ts_;
  std::vector<api_call> apis_;
  std::vector<device_task> tasks_;
};

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_HCCL_HPP
