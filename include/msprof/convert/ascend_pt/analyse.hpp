// SPDX-License-Identifier: MIT
// torch_npu framework-profiler directories (`{worker}_{pid}_{ts}_ascend_pt/`:
// a PROF_ directory, FRAMEWORK/ raw files, profiler_info_{rank}.json) turned
// into `ASCEND_PROFILER_OUTPUT/` as torch_npu's own offline analysis
// (torch_npu.profiler.profiler.analyse, Ascend/pytorch 9e73e708a) writes it:
//
//   auto r = msprof::convert::ascend_pt::analyse("worker0_6060_..._ascend_pt", {});
//   if (!r) std::cerr << r.err().what() << '\n';
//
// The CANN part is converted in process by the PROF_ converters, window by
// window (load.hpp, cann_part.hpp, summary.hpp); FRAMEWORK files are decoded
// by codec/framework.hpp. Text export:
// trace_view.json (trace_view.hpp), kernel_details, operator_details,
// op_statistic, api_statistic, task_time, step_trace_time, memory_record,
// operator_memory; db export: ascend_pt/db.hpp (docs/torch_npu.md lists what is
// not written yet).
//
// Definitions: src/convert/ascend_pt/ (pt_dir.cpp reads the directory,
// relation.cpp links framework ops to kernels and steps, analyse.cpp writes,
// trace_view.cpp the timeline: trace_view.hpp).
#ifndef MSPROF_CONVERT_ASCEND_PT_ANALYSE_HPP
#define MSPROF_CONVERT_ASCEND_PT_ANALYSE_HPP

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../codec/framework.hpp"
#include "../../core/error.hpp"
#include "../hccl_analyze.hpp"
#include "../model.hpp"
#include "../spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

/// What profiler_info_{rank}.json says (torch_npu's defaults when a key is missing).
struct profiler_info {
  std::string level = "Level0";                  ///< experimental_config._profiler_level
  std::vector<std::string> export_type{"text"};  ///< experimental_config._export_type
  bool cpu = true;                               ///< ProfilerActivity.CPU in common_config.activities
  bool npu = true;                               ///< ProfilerActivity.NPU
  bool syscnt_enable = false;                    ///< start_info: FRAMEWORK times are counter ticks
  double freq = 100.0;                           ///< start_info.freq (MHz)
  std::int64_t start_cnt = 0;                    ///< start_info.start_cnt
  std::int64_t start_monotonic = 0;              ///< start_info.start_monotonic (ns)
  std::int64_t rank_id = -1;
  bool data_simplification = true;               ///< experimental_config._data_simplification
  bool sys_interconnection = false;              ///< experimental_config._sys_interconnection (pcie.csv)
  bool l2_cache = false;                         ///< experimental_config._l2_cache
  bool sys_io = false;                           ///< experimental_config._sys_io (nic.csv, roce.csv)
};

/// Each distinct text of a directory once, named by a 4-byte id (a run
/// repeats its names, shapes and stacks millions of times, and the records
/// that carry them go through sorted runs and temporary files: an id keeps
/// them small). Id 0 is "". Copies share the texts, so a view of one stays
/// valid while any copy lives.
class text_table {
 public:
  using id = std::uint32_t;
  text_table();
  /// s's id, a copy of s added when it is new.
  id of(std::string_view s);
  std::string_view operator[](id i) const noexcept { return s_->views[i]; }

 private:
  struct state {
    std::deque<std::string> texts;  ///< by id (a deque: its strings never move)
    std::vector<std::string_view> views;  ///< by id: views of `texts`
    std::unordered_map<std::string_view, id> ids;  ///< keyed by `views`
  };
  std::shared_ptr<state> s_;
};

/// A framework op (torch.op_range) on the local clock; its texts are ids of
/// pt_dir::texts.
struct fw_op {
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint64_t pid = 0, tid = 0;
  std::int64_t seq = -1;      ///< autograd sequence number (-1: none)
  std::uint64_t fwd_tid = 0;  ///< forward thread of a backward op, 0 for a forward op
  text_table::id name = 0;
  text_table::id input_shapes = 0;  ///< ';'-separated, as recorded
  text_table::id call_stack = 0;    ///< ';'-separated frames
  text_table::id input_dtypes = 0;  ///< ';'-separated
  text_table::id module_hierarchy = 0, flops = 0;
  bool step = false;  ///< a ProfilerStep#N op (its name holds "ProfilerStep#")
  bool mstx = false;  ///< torch_npu's op around an mstx call (its name starts "mstx_")
  /// Which optional fields the record carried (the trace shows only those).
  bool has_shapes = false, has_dtypes = false, has_stack = false, has_module = false, has_flops = false;
};

/// A plain value (numbers, string_views, pairs of them) as the bytes a sorted
/// run or a record_list keeps (record_bytes), and back (record_from).
template <class T>
std::string_view record_bytes(const T& v) noexcept {
  return std::string_view(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T record_from(std::string_view p) noexcept {
  T v;
  std::memcpy(static_cast<void*>(&v), p.data(), sizeof v);
  return v;
}

/// Fixed-size records in the order they come, not held: up to a budget (at
/// most 4 MiB) in memory, then in an unnamed temporary file (spill.hpp's), read back whole by
/// each() as often as needed. Copies share the records. spilled_list<T> types it.
class record_list {
 public:
  /// Records go to a file in `dir` (empty: the temporary directory) once `budget` bytes of them are held.
  record_list(std::size_t record_size, std::string dir, std::size_t budget);
  void push_back(const void* record);
  std::size_t size() const noexcept { return s_->count; }
  /// fn(bytes of one record) for every record in order; an error when they
  /// cannot be read back (or were not all written).
  result<void> each(const std::function<void(const char*)>& fn) const;

 private:
  struct state {
    state(std::string dir, std::size_t budget) : file(std::move(dir), budget) {}
    detail::spill_file file;
    std::string held;  ///< records not written yet (all of them while they fit the budget)
    std::size_t count = 0;
    std::string error;  ///< the first failure to write them, empty if none
  };
  std::size_t size_;
  std::shared_ptr<state> s_;
};

/// A record_list of T (trivially copyable: kept as its bytes; string_views
/// must point at text that outlives the list, as a text_table's texts do).
template <class T>
class spilled_list {
  static_assert(std::is_trivially_copyable_v<T>, "spilled_list keeps its records as bytes");

 public:
  explicit spilled_list(std::string dir, std::size_t budget = spill_budget_default)
      : list_(sizeof(T), std::move(dir), budget) {}
  spilled_list() : spilled_list(std::string()) {}
  void push_back(const T& v) {
    if (list_.size() == 0) first_ = v;
    list_.push_back(&v);
  }
  std::size_t size() const noexcept { return list_.size(); }
  bool empty() const noexcept { return list_.size() == 0; }
  const T& front() const noexcept { return first_; }  ///< only when not empty
  /// fn(const T&) for every record in order.
  template <class Fn>
  result<void> each(Fn&& fn) const {
    T v;
    return list_.each([&](const char* p) {
      std::memcpy(static_cast<void*>(&v), p, sizeof v);
      fn(static_cast<const T&>(v));
    });
  }

 private:
  record_list list_;
  T first_{};
};

/// A Python tracer record (torch.python_tracer_func) on the local clock.
struct py_call {
  std::int64_t ts = 0;
  std::uint64_t tid = 0, pid = 0, hash_key = 0;
  std::uint8_t tag = 0;  ///< 0 Python call, 1 Python return, 2 C call, 3 C return
};

/// A garbage collection (torch.gc_record) on the local clock.
struct gc_span {
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint64_t pid = 0;
};

/// A matched task-queue span (torch.op_mark start/end pair) on the local clock.
struct queue_span {
  std::int64_t ts = 0, dur = 0;
  std::uint64_t corr_id = 0, tid = 0, pid = 0;
  text_table::id name = 0;  ///< of pt_dir::texts
};

/// One `*_ascend_pt` directory read: its files, config and framework records.
struct pt_dir {
  std::string dir;        ///< the *_ascend_pt directory
  std::string prof_dir;   ///< its PROF_* directory
  std::string info_file;  ///< profiler_info_{rank}.json
  profiler_info info;
  spilled_list<fw_op> ops;          ///< torch.op_range, file order (not held: read through each())
  std::int64_t earliest_op_ns = 0;  ///< the earliest op start (when there are ops)
  text_table texts;  ///< the ops' and task-queue spans' texts
  spilled_list<queue_span> enqueue;  ///< in the order their end marks come (time order; not held)
  spilled_list<queue_span> dequeue;
  bool has_task_queue = false;  ///< a torch.op_mark file exists
  /// torch.memory_usage, `time` on the local clock, file order (not held).
  spilled_list<codec::framework::memory_usage> memory;
  bool memory_in_time_order = true;  ///< no record of `memory` is earlier than the one before it
  /// The process whose allocations operator_memory names: of the processes with ops, the one with the
  /// earliest inner-allocator NPU record (ties: file order); unset when none has one.
  std::optional<std::uint64_t> memory_pid;
  spilled_list<py_call> python_calls;  ///< file order (not held)
  /// The tracer's threads in first-seen order, `calls`: it has a call record (a function).
  struct py_thread {
    std::uint64_t tid;
    bool calls;
  };
  std::vector<py_thread> python_threads;
  std::map<std::uint64_t, std::string> python_names;  ///< torch.python_tracer_hash: key -> function name
  spilled_list<gc_span> gcs;                          ///< file order (not held)
  std::vector<std::string> warnings;
  std::string spill_dir;  ///< where the lists above and the outputs' sorted runs spill (place_framework's)
  std::size_t spill_budget = spill_budget_default;
};

/// The whole of a regular file (FRAMEWORK files, profiler_info, profiler_metadata).
result<std::string> read_file(const std::string& path);

/// Parses profiler_info JSON text; `file` names it in errors.
result<profiler_info> parse_profiler_info(const std::string& text, const std::string& file);

/// Reads the directory: profiler_info (its counter clock overridden by the
/// PROF_'s host/info.json and host/host_start.log, as torch_npu does), the
/// PROF_ directory's place. Errors: no profiler_info, no PROF_ directory.
result<pt_dir> read_pt_dir(const std::string& dir);

/// Decodes the FRAMEWORK files (warnings for damage) and places their times:
/// local = framework_ns(raw) + `wall_offset_ns` (the PROF_ start_info's).
/// Each file's size is added to `bytes_read` (when given) once it is decoded.
/// The task-queue marks are put in time order through a sorted run in
/// `spill_dir` (empty: the temporary directory; `spill_budget` of them in
/// memory), not held whole.
void place_framework(pt_dir& d, std::int64_t wall_offset_ns, std::atomic<std::uint64_t>* bytes_read = nullptr,
                     const std::string& spill_dir = {}, std::size_t spill_budget = spill_budget_default);

/// Raw FRAMEWORK time -> monotonic ns (torch_npu: counter ticks when syscnt is on).
std::int64_t framework_ns(const profiler_info& info, std::int64_t raw) noexcept;

/// A step's device range (torch_npu FwkCANNRelationParser.get_step_range).
struct step_range {
  std::string id;  ///< "1" from "ProfilerStep#1"
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t fwk_start_ns = 0;  ///< the ProfilerStep op's start
};

/// A kernel linked to its launch (the HostToDevice flow of the timeline), with
/// its times as torch_npu reads them back from the timeline JSON.
struct kernel_ref {
  std::int64_t ts = 0, end_ns = 0;  ///< end = ts + int(dur_us * 1000)
  double dur_us = 0;
  bool ai_core = false;            ///< Task Type AI_CORE
  std::uint64_t pid = 0, tid = 0;  ///< its slice in the timeline (Ascend Hardware process, stream)
};

/// Kernels by their launch: the start of the host API that launched them,
/// then the task's global id (a kernel_ref a row), in a sorted run
/// (cann_part::take_acl; link() reads it once).
struct launch_key {
  std::int64_t start;
  std::uint64_t task;
  bool operator<(const launch_key& b) const noexcept { return start != b.start ? start < b.start : task < b.task; }
};
using launch_runs = spill_sorter<launch_key>;

/// A Python number of torch_npu's sums: an int until a float is added,
/// printed the way str() prints it (text.hpp's py_float).
struct py_num {
  double v = 0;
  bool is_float = false;
  void add(double x) {
    v += x;
    is_float = true;
  }
  void add_int(long long x) { v += static_cast<double>(x); }
  std::string str() const;
};

/// A ProfilerStep op at the top of the op tree, with the ids bound to it or
/// below it (step_ranges reads them): correlation ids through its enqueues,
/// or without a task queue the starts of the launches in it.
struct step_op {
  fw_op op;
  bool any_id = false;  ///< an id was bound (a step without one has no device range)
  /// The smallest and largest of those ids that reach kernels (any_kernel: one
  /// does), the first start among the smallest one's kernels and the last end
  /// among the largest one's.
  bool any_kernel = false;
  std::int64_t first_id = 0, last_id = 0;
  std::int64_t first_ts = 0, last_end = 0;
};

/// An operator_details row as the op tree gives it (torch_npu OperatorViewParser):
/// the op's texts, its host durations and the device durations of the kernels
/// bound to it (self) and below it (total). Trivially copyable: it goes through sorted runs.
struct op_detail {
  text_table::id name = 0, input_shapes = 0, call_stack = 0;  ///< the op's
  std::int64_t self_ns = 0, total_ns = 0;
  py_num dev[4];  ///< self, total, self AI Core, total AI Core (us)
};

/// An operator_memory block (torch_npu MemoryPrepareParser._get_valid_record_entry):
/// a malloc, then at most one free and one block-free of its address; what
/// its row needs of them (blocks go through sorted runs: kept small).
struct memory_block {
  std::int64_t time = 0, size = 0, stream = 0;  ///< the malloc's
  std::int64_t total[3] = {};                    ///< at the malloc: allocated, reserved, active
  /// At the release (the free's record, else the other one; has_release_total: there is one).
  std::int64_t release_total[3] = {};
  std::int64_t freed = 0, block_freed = 0;  ///< the free's and block-free's times (has_freed, has_block_freed)
  std::uint64_t tid = 0, pid = 0;
  std::int8_t device_index = 0;
  std::uint8_t component_type = 0;
  std::uint8_t records = 0;  ///< 1 to 3
  bool has_release_total = false, has_freed = false, has_block_freed = false;
};

/// A question for the op tree: the op `block`'s allocation is named after.
/// The last op of `tid` (memory_pid's, not empty_tensor or malloc_workspace)
/// to start at or before `ts`, then up its ancestors: the first that has not
/// ended before `ts` (enq false: the allocating thread's op), or the first
/// aten/npu op (enq true: the op around the enqueue of the dequeue running at
/// the allocation).
struct memory_query {
  std::int64_t ts = 0;
  std::uint64_t block = 0, tid = 0;
  bool enq = false;
};

/// fn(record) for the records of d.memory that are `wanted`, by time (equal
/// times: file order): straight from the list when it is in time order (the
/// usual case), else through a sorted run of `budget` bytes.
result<void> memory_by_time(const pt_dir& d, std::size_t budget,
                            const std::function<bool(const codec::framework::memory_usage&)>& wanted,
                            const std::function<void(const codec::framework::memory_usage&)>& fn);

/// operator_memory's blocks and their naming, prepared before link() through
/// sorted runs of `budget` bytes each (nothing per record is held): `blocks`
/// in output order (by malloc time), `queries` for link() to answer. Empty
/// without memory_pid.
struct memory_naming {
  spilled_list<memory_block> blocks;
  spilled_list<memory_query> queries;
  std::size_t incomplete = 0;  ///< torch_npu's "N memory record(s) are incomplete"
};
result<void> prepare_memory_naming(const pt_dir& d, memory_naming& out, std::size_t budget);

/// Options of link().
struct link_options {
  std::string spill_dir;                   ///< sorted runs (empty: the temporary directory)
  std::size_t spill_budget = spill_budget_default;
  bool text = true;                        ///< keep operator_details rows and torch_to_npu flows
  const memory_naming* memory = nullptr;   ///< operator_memory's queries to answer (null: none)
};

/// Framework ops linked to kernels, as the op tree gives them, built in one
/// pass over the ops in start order with a stack of the open ones (only they
/// and the steps are in memory). The kernels come by correlation id (task
/// queue: each launch goes to the dequeue holding its start) or by launch
/// start (no task queue), joined to the enqueues and launches through sorted
/// runs, so none is held. What it gives: operator_details rows and each op's
/// torch_to_npu flows in sorted runs by the op's place in start order, the
/// steps, and the answers to operator_memory's queries.
struct relation {
  text_table texts;            ///< the ops' (link's pt_dir's)
  std::vector<step_op> steps;  ///< start order
  bool any_kernel = false;     ///< some kernel was bound to an id
  /// operator_details rows (every op but ProfilerStep ones), in start order: drain once.
  std::unique_ptr<spill_sorter<std::uint64_t>> details;
  /// torch_to_npu flows per op (drain once): rows of a flow_source, then kernels' flow_target
  /// (an op may have several rows: its flows are theirs in order).
  std::unique_ptr<spill_sorter<std::uint64_t>> flows;
  struct flow_source {
    std::uint64_t pid, tid;
    std::int64_t ts;
  };
  struct flow_target {
    std::int64_t ts;
    std::uint64_t pid, tid;
  };
  /// operator_memory's op names (text ids) by block number (drain once; a block without a row: no name).
  std::unique_ptr<spill_sorter<std::uint64_t>> memory_names;
  bool linked = false;  ///< the ops were linked (CPU activity and ops)
  std::string error;    ///< why the linking is incomplete (a sorted run failed), empty if it is not
};
/// `acl`: kernels by their launch (cann_part::take_acl; null: none).
relation link(const pt_dir& d, std::unique_ptr<launch_runs> acl, const link_options& o = {});

/// A ProfilerStep op's step id: "1" from "ProfilerStep#1".
std::string step_id(const relation& r, const fw_op& step);

/// The steps' device ranges: ProfilerStep ops at the top of the op tree, the
/// kernels reached through their enqueues (task queue) or launches.
std::vector<step_range> step_ranges(const relation& r);
/// The same steps as the communication files split by them (hccl_analyze.hpp).
std::vector<hccl::pt_step> comm_steps(const std::vector<step_range>& steps);

/// A memory_record row in torch_npu's db units (ns, bytes): each NPU
/// allocator record in time order as a "PTA" row followed by an equal
/// "PTA+GE" row (no GE memory is read), a workspace record as one "WORKSPACE"
/// row. The text table shows the same in us and MB.
struct memory_record_row {
  std::string_view component;
  std::int64_t time = 0, allocated = 0, reserved = 0, active = 0;
  std::int64_t stream = 0;
  std::int64_t device = 0;  ///< the PROF_ device when there is exactly one, else the record's
};
/// Hands every memory_record row to `row` in order (the records go through a
/// sorted run); the first error stops.
result<void> memory_record_rows(const pt_dir& d, const model& m,
                                const std::function<result<void>(const memory_record_row&)>& row);

/// torch_npu's merge of memory_record's rows with GE's records
/// (_add_pta_ge_record_data, and its db parser's twin), for both exports in
/// their own units: in time order, each GE record before the first row other
/// than "PTA+GE" that is not earlier. `ge` holds the GE records as their
/// bytes in time order (Ge has `time` and `device`); `ge_row(g, p)` gets p,
/// the last "PTA" row of g's device or null; `pta_row(x, g)` gets g, the last
/// GE record of x's device merged before x or null (the GE records after the
/// last row change nothing).
template <class Ge, class Key, class GeRow, class PtaRow>
result<void> merge_ge_memory(const pt_dir& d, const model& m, spill_sorter<Key>& ge, GeRow ge_row, PtaRow pta_row) {
  std::map<std::int64_t, memory_record_row> last_pta;  // by device
  std::map<std::int64_t, Ge> last_ge;
  Ge g{};
  const auto next_ge = [&](Ge& out) {
    Key k;
    std::string_view bytes;
    if (!ge.next(k, bytes)) return false;
    std::memcpy(&out, bytes.data(), sizeof out);
    return true;
  };
  bool more = next_ge(g);
  const auto ge_rows = [&](std::optional<std::int64_t> before) -> result<void> {
    for (; more && (!before || g.time < *before); more = next_ge(g)) {
      const auto p = last_pta.find(g.device);
      MSPROF_TRY(ge_row(g, p == last_pta.end() ? nullptr : &p->second));
      if (before) last_ge[g.device] = g;
    }
    return {};
  };
  MSPROF_TRY(memory_record_rows(d, m, [&](const memory_record_row& x) -> result<void> {
    if (x.component != std::string_view("PTA+GE")) MSPROF_TRY(ge_rows(x.time));
    const auto l = last_ge.find(x.device);
    MSPROF_TRY(pta_row(x, l == last_ge.end() ? nullptr : &l->second));
    if (x.component == std::string_view("PTA")) last_pta[x.device] = x;
    return {};
  }));
  MSPROF_TRY(ge_rows(std::nullopt));
  return ge.take_status();
}

/// An operator_memory row in torch_npu's db units (ns, bytes): one block.
/// Unset: the block has no such record (an empty cell, NULL). `name` views
/// pt_dir::texts ("": no op found). The text table shows it in us, KB and MB.
struct op_memory_row {
  std::string_view name;
  std::int64_t size = 0, allocation_time = 0;
  std::optional<std::int64_t> release_time, active_release_time, duration, active_duration;
  std::int64_t allocation_total[3] = {};         ///< allocated, reserved, active
  std::optional<std::int64_t> release_total[3];  ///< allocated, reserved, active
  std::int64_t stream = 0;
  std::int64_t device = 0;  ///< as memory_record_row::device
};
/// operator_memory's rows (the blocks of prepare_memory_naming() named by
/// link()), once for both exports: drains rel.memory_names. Empty when the
/// ops were not linked or there is no block.
result<void> op_memory_rows(const pt_dir& d, const memory_naming& mem, relation& rel, const model& m,
                            spilled_list<op_memory_row>& out);

/// A Python function from the tracer's call/return records (torch_npu
/// PythonTraceParser), on the local clock.
struct py_function {
  std::int64_t ts = 0, end = 0;
  std::uint64_t tid = 0, pid = 0;
  std::string name;  ///< "nn.Module: <module>_<n>" for a module call
  std::size_t id = 0, parent = 0;
  std::optional<std::size_t> module_id;  ///< an nn.Module call: its number among the modules of that name
};

/// Replays each thread's calls and returns (torch_npu _replay_stack): a call
/// opens a frame (id = its index in the thread's records by time, parent =
/// the frame open below it), a return closes the top one; frames left open end
/// at the last record's time. A name "<module>######<uid>" is an nn.Module
/// call, numbered per module name in order of first use. fn(const py_function&)
/// for each: threads in first-seen order, each thread's functions in the order
/// they return. The records go through a sorted run by thread and time (only
/// the open frames are held). None without both tracer files (torch_npu needs
/// both); an error when the sorted run fails.
result<void> python_functions(const pt_dir& d, const std::function<void(const py_function&)>& fn);
/// The threads python_functions() gives functions of, in its order.
std::vector<std::uint64_t> python_function_threads(const pt_dir& d);

/// A ';'-separated field (Python's `";".join(...)`) one item a line (";\r\n"),
/// as torch_npu shows shapes, dtypes and call stacks.
std::string item_lines(std::string_view v);

/// item_lines() of a pt_dir's texts, each made once (`json`: as a JSON
/// string): a run's ops repeat a few shapes and call stacks many times.
class item_lines_memo {
 public:
  item_lines_memo(text_table texts, bool json) : texts_(std::move(texts)), json_(json) {}
  const std::string& operator()(text_table::id text);

 private:
  text_table texts_;
  bool json_;
  std::unordered_map<text_table::id, std::string> memo_;
};

/// Options of analyse().
struct analyse_options {
  /// "text" or "db"; empty: what profiler_info says (one or both).
  std::string export_type;
  /// Progress: bytes of FRAMEWORK files and PROF_ data slices read so far are
  /// added here (input_bytes() is the total).
  std::atomic<std::uint64_t>* bytes_read = nullptr;
  /// Delete the intermediate data after the analysis (simplify_data()); unset:
  /// what profiler_info says (torch_npu's default: on).
  std::optional<bool> data_simplification = std::nullopt;
  /// What the PROF_ part keeps in memory before its sorted runs go to disk
  /// (per sorted stream; load.hpp's load_options::spill_budget).
  std::size_t spill_budget = spill_budget_default;
  /// Threads beside this one: the PROF_ part's windows written (by two with
  /// the text outputs) while the next joins, FRAMEWORK/ decoded beside the
  /// load, memory_record.csv and the db's CANN tables written beside the
  /// link, and trace_view.json beside the other text tables (the same files
  /// either way).
  bool threaded = true;
};

/// What analyse() wrote.
struct analyse_result {
  std::string output_dir;  ///< <dir>/ASCEND_PROFILER_OUTPUT
  std::vector<std::string> files;
  std::vector<std::string> warnings;
  std::vector<std::string> removed;  ///< what data simplification deleted
};

/// torch_npu's data simplification of an analysed directory: it keeps only
/// profiler_*.json, ASCEND_PROFILER_OUTPUT/, the PROF_ directories' raw data,
/// FRAMEWORK/ and logs/. What goes are the CANN parser's intermediate
/// directories in each PROF_ (mindstudio_profiler_output/,
/// mindstudio_profiler_log/, analyze/, and sqlite/, summary/, timeline/ of
/// host/ and each device_*/); anything else is left alone. A link is removed,
/// never followed. Returns the paths removed; failures go to `warnings`.
std::vector<std::string> simplify_data(const std::string& dir, std::vector<std::string>& warnings);

/// What analyse() reads of `dir`: its PROF_ directories' data slices and its
/// FRAMEWORK files, in bytes (the progress total).
std::uint64_t input_bytes(const std::string& dir);

/// Which framework's directory `dir` names, by its suffix (a trailing '/' allowed).
enum class framework_kind { none, torch_npu /* *_ascend_pt */, mindspore /* *_ascend_ms */ };
framework_kind framework_of(const std::string& dir);

/// The `*_ascend_pt` (torch_npu) and `*_ascend_ms` (MindSpore) directories at
/// `dir`: itself when its name ends so, else its subdirectories that do (sorted).
std::vector<std::string> find_pt_dirs(const std::string& dir);

/// Analyses one `*_ascend_pt` directory into <dir>/ASCEND_PROFILER_OUTPUT.
result<analyse_result> analyse(const std::string& dir, const analyse_options& o = {});

/// `msprof show` of one `*_ascend_pt` directory, writing nothing: a line of
/// counts, the framework operators by host total time (operator_details' calls
/// of one name together, at most `top`), and the steps (step_trace_time). The
/// CANN part is shown by convert/show.hpp on its PROF_ directory. `warnings`
/// gets the reading's warnings.
result<std::string> show_text(const std::string& dir, std::size_t top, bool bold, std::vector<std::string>& warnings);

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ASCEND_PT_ANALYSE_HPP
