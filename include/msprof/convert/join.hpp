// SPDX-License-Identifier: MIT
// Joins decoded raw records into the converter model, streaming, so memory does
// not grow with the number of records (see model.hpp, "Windows"):
// - API calls get connection ids 1.. in start order;
// - a call contains what happens after its start, up to and including its end
//   (the reference's (start, end] when it builds its per-thread call trees);
// - task_track records (launches) find the API that launched them as the
//   reference's tree analyzer links them: the innermost API on the same thread
//   containing them above the runtime level (Node@launch rather than its
//   rtKernelLaunch; runtime calls are not in its trees). A launch no such call
//   contains (an mstx marker with a stream, a bare runtime call) takes the id
//   of its thread (the reference's tree root): above every call's id, naming
//   no call, one per thread;
// - ops (node_basic_info + tensor_info) attach to the innermost API containing
//   them, and a launch takes the op of the innermost enclosing API that has
//   reported one by then (ops are reported before their kernels launch);
// - per (device, stream, task) key, the i-th launch takes the i-th device span
//   (ACSQ start/end pair, in arrival order) and the i-th PMU record;
// - a MEMCPY_ASYNC launch takes the memcpy_info record with its thread and
//   timestamp (the reference's pairing; memcpy_copy in model.hpp).
//
// Two passes. add_*() takes every record: host records go into spill_sorters
// in time order; a device's ACSQ starts and ends are paired into spans, which
// go into a per-device spool in the order of their ends, and its PMU records
// into another in arrival order; per-key counts are taken, so the second pass
// knows at each launch whether a span and a PMU record will come for it. run() then sweeps the host records in
// time order, pulls each launch's span and PMU record from the spools as it
// needs them (device order follows launch order closely, so little waits), and
// hands out windows of finished API calls and tasks.
//
// Times use the codec's checked arithmetic (prof::time_ns): a record whose
// timestamp cannot be placed on the wall clock (a damaged value, outside
// 1970..2262 as int64 ns) is skipped and counted in one warning per kind.
#ifndef MSPROF_CONVERT_JOIN_HPP
#define MSPROF_CONVERT_JOIN_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../prof/reader.hpp"
#include "model.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace raw {

struct api { std::uint16_t level; std::uint32_t type; std::uint32_t thread_id; std::uint64_t begin; std::uint64_t end; std::uint64_t item_id; };
struct node_basic { std::uint64_t timestamp; std::uint32_t thread_id; std::uint64_t op_name; std::uint32_t task_type; std::uint64_t op_type; std::uint32_t block_num; bool dynamic; };
struct tensor_info { std::uint64_t timestamp; std::uint32_t thread_id; std::uint64_t op_name; std::vector<tensor_desc> tensors; };
struct task_track { std::uint64_t timestamp; std::uint32_t thread_id; std::uint16_t device_id; std::uint16_t stream_id; std::uint32_t task_id; std::uint64_t task_type; std::uint64_t kernel_name; };
/// One ACSQ log record (funcType 0 start, 1 end); timestamp in device cycles.
struct acsq { std::uint32_t device_id; bool start; std::uint16_t stream_id; std::uint16_t task_id; std::uint64_t timestamp; std::uint16_t sqe_type = 0xFFFF; };
/// One memcpy_info record: the copy of the MEMCPY_ASYNC task(s) whose task_track
/// has the same thread and timestamp.
struct memcpy_info { std::uint64_t timestamp; std::uint32_t thread_id; std::uint64_t data_size; std::uint64_t max_size; std::uint16_t direction; };
struct pmu { std::uint32_t device_id; std::uint16_t stream_id; std::uint16_t task_id; pmu_counters counters; };

/// A whole collection in memory: the input of join(), for tests and small tools.
struct collection {
  session_info session;
  prof::tick_clock host_clock;  ///< host record timestamps -> monotonic ns
  std::vector<prof::device_info> clocks;  ///< device cycles -> host monotonic ns (by id)
  std::unordered_map<std::uint64_t, std::string> hashes;
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types;
  std::vector<api> apis;
  std::vector<node_basic> nodes;
  std::vector<tensor_info> tensors;
  std::vector<task_track> tracks;
  std::vector<memcpy_info> memcpys;
  std::vector<acsq> acsqs;
  std::vector<pmu> pmus;
  std::vector<prof::mstx_record> mstxs;
  std::vector<std::string> warnings;
};

}  // namespace raw

namespace detail {

/// Reports `n` records of `what` skipped because their timestamp cannot be
/// placed on the wall clock (one warning per kind; load.hpp uses it too).
void warn_bad_time(std::vector<std::string>& warnings, std::size_t n, const std::string& what);

/// An mstx record on the wall clock; nullopt when its times cannot be placed.
std::optional<mstx_event> place_mstx(const prof::mstx_record& r, const prof::tick_clock& clock, std::int64_t wall,
                                     const std::string& domain);

/// Whether the timeline links a task to the call that launched it with a
/// HostToDevice flow, as the reference draws them (AscendHardwareAssembler,
/// its TaskInfo): kernels (compute tasks), copies and the tasks of
/// aclrtRecordEvent / aclrtStreamWaitEvent; not e.g. an mstx marker.
bool draws_host_flow(std::string_view task_type, const api_call& launcher);

/// Reads `n` bytes at `offset` of `f` into `out`; false (the error recorded in
/// `f`) when they cannot be read.
bool read_back(spill_file& f, std::uint64_t offset, void* out, std::size_t n);

/// Fixed-size records handed back in the order they came (first in, first
/// out), their memory bounded by a budget: the ones beyond it wait in an
/// unnamed temporary file. The join's device spools: a sorter's row (key,
/// sequence number, place) would cost as much as the record.
template <class T>
class record_spool {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  record_spool(std::string dir, std::size_t budget)
      : file_(std::move(dir), budget), per_spill_(std::max<std::size_t>(1, budget / sizeof(T))) {}

  /// Adds a record; no push() once next() was called.
  void push(const T& v) {
    if (mem_.capacity() == 0 && per_spill_ <= max_reserved) mem_.reserve(per_spill_);  // pages touched as filled
    mem_.push_back(v);
    if (mem_.size() == per_spill_) spill();
  }
  /// The next record in push order; false at the end, or on an error (take_status() tells).
  bool next(T& v) {
    if (at_ == got_.size() && !refill()) return false;
    v = got_[at_++];
    return true;
  }
  /// The first error of writing or reading the file (ok if none); resets it.
  result<void> take_status() { return file_.take_status(); }

 private:
  static constexpr std::size_t max_reserved = (std::size_t{1} << 30) / sizeof(T);
  static constexpr std::size_t read_records = std::max<std::size_t>(1, (64u << 10) / sizeof(T));
  void spill() {
    if (file_.ready()) file_.write(reinterpret_cast<const char*>(mem_.data()), mem_.size() * sizeof(T));
    mem_.clear();  // a failed file loses them: the error is reported
  }
  /// The next records: the file's while it has some, then those in memory.
  bool refill() {
    at_ = 0;
    got_.clear();
    if (read_ < file_.written()) {
      if (!file_.ok()) return false;
      got_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(read_records, (file_.written() - read_) / sizeof(T))));
      if (!read_back(file_, read_, got_.data(), got_.size() * sizeof(T))) return false;
      read_ += got_.size() * sizeof(T);
      return true;
    }
    got_.swap(mem_);
    return !got_.empty();
  }

  spill_file file_;
  std::size_t per_spill_;  // records held before they go to the file
  std::vector<T> mem_;     // pushed, not yet in the file
  std::vector<T> got_;     // being handed back, from at_
  std::size_t at_ = 0;
  std::uint64_t read_ = 0;  // bytes of the file handed back
};

/// A T per task key (device, stream and task id, 16 bits each: task_key),
/// value-initialised when first used, in pages of 256 task ids per device and
/// stream. A stream's task ids come in order, so the keys looked up one after
/// the other share a page; a hash map's node per key cost a cache miss each
/// and twice the memory.
template <class T>
class task_table {
 public:
  T& operator[](std::uint64_t key) {
    const auto stream = static_cast<std::uint32_t>(key >> 16);
    if (stream != last_stream_ || !last_) {
      last_ = &streams_[stream];
      last_stream_ = stream;
    }
    auto& pg = (*last_)[(key >> 8) & 0xFFu];
    if (!pg) pg = std::make_unique<page>();
    return (*pg)[key & 0xFFu];
  }
  /// fn(key, value) for every key of a page that was used, in key order per stream.
  template <class Fn>
  void each(Fn&& fn) const {
    for (const auto& [stream, pages] : streams_)
      for (std::uint64_t p = 0; p < pages.size(); ++p)
        if (pages[p])
          for (std::uint64_t i = 0; i < page_size; ++i)
            fn((std::uint64_t{stream} << 16) | (p << 8) | i, (*pages[p])[i]);
  }

 private:
  static constexpr std::size_t page_size = 256;
  using page = std::array<T, page_size>;
  using stream_pages = std::array<std::unique_ptr<page>, 65536 / page_size>;
  std::unordered_map<std::uint32_t, stream_pages> streams_;  // by device << 16 | stream (node-based: last_ stays valid)
  stream_pages* last_ = nullptr;
  std::uint32_t last_stream_ = 0;
};

/// Moves a window's records to the end of `all` (collecting a whole model).
void append_window(model& all, model& w);

/// Puts collected windows in the model's order: calls by connection id, tasks by global id.
void order_by_ids(model& m);

}  // namespace detail

/// The streaming join (see the file comment). Feed every record with add_*(),
/// then call run() once. Four groups of add()s touch nothing of each other's:
/// the devices' records (acsq, pmu), the API calls, the launches (task_track,
/// memcpy_info) and the ops (node_basic, tensor_info); each group may be fed
/// from a thread of its own, all at once.
class stream_join {
 public:
  struct options {
    std::string spill_dir = ".";  ///< where sorted runs go when memory runs out
    std::size_t spill_budget = spill_budget_default;  ///< per sorter
    std::size_t window_records = 1u << 20;  ///< API calls + tasks per window
    /// Per-record warnings of one kind (an op outside every API call): this
    /// many lines, then one with the count (the reader's cap per file).
    std::size_t max_warnings_per_kind = prof::reader_options{}.max_warnings_per_file;
  };

  stream_join(session_info session, prof::tick_clock host_clock, std::vector<prof::device_info> clocks,
              std::unordered_map<std::uint64_t, std::string> hashes,
              std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types, options o);

  // Pass 1 ---------------------------------------------------------------

  void add(const raw::api& a);
  void add(const raw::node_basic& n);
  void add(const raw::tensor_info& t);
  void add(const raw::task_track& t);
  void add(const raw::memcpy_info& m);
  void add(const raw::acsq& a);
  void add(const raw::pmu& p);

  /// Joins the devices' per-key counts to the launches' (run() does it if this
  /// was not called): once both groups' add()s are done, e.g. on the thread
  /// that fed them, while another group still loads.
  void merge_counts();

  // Pass 2 ---------------------------------------------------------------

  /// Joins; calls on_window(model&) for each window of finished API calls and
  /// tasks (model.hpp, "Windows"; mstx is the caller's). Returns the session,
  /// the warnings and the end of the last API call.
  template <class Fn>
  result<model> run(Fn&& on_window) {
    return run_windows([&on_window](model& w) { on_window(w); });
  }

  /// The latest end of the API calls placed (0 when none).
  std::int64_t last_api_end() const noexcept { return last_api_end_; }

 private:
  /// What run() calls for each window (once per window, not per record).
  using window_fn = std::function<void(model&)>;
  // Order at equal times: an op's records, then a memcpy_info before the
  // task_track it shares its timestamp with.
  enum : std::uint8_t { kind_node = 0, kind_tensor = 1, kind_memcpy = 2, kind_track = 3 };
  struct placed_api_key {
    std::int64_t start;
    std::uint8_t pad;
    bool operator<(const placed_api_key& o) const { return start < o.start; }
  };
  struct placed_api {
    std::int64_t end;
    std::uint16_t level;
    std::uint32_t type, thread_id;
    std::uint64_t item_id;
  };
  struct host_event_key {
    std::int64_t at;
    std::uint8_t kind;
    bool operator<(const host_event_key& o) const { return std::tie(at, kind) < std::tie(o.at, o.kind); }
  };
  struct pmu_record {
    std::uint64_t key;
    pmu_counters counters;
  };
  struct span {
    std::int64_t start, end;
    std::uint16_t sqe_type;  ///< of the start record
  };
  struct keyed_span {
    std::uint64_t key;
    span s;
  };
  /// A memcpy_info waiting for its task_track(s), by (time, thread, raw timestamp).
  using memcpy_key = std::tuple<std::int64_t, std::uint32_t, std::uint64_t>;
  struct memcpy_left {
    std::uint64_t remain, max_size;
    std::uint16_t direction;
  };
  /// Per (device, stream, task): totals from pass 1, progress in pass 2.
  struct key_counts {
    std::uint32_t launches = 0, spans = 0, pmus = 0;  // pass 1
    std::uint32_t launched = 0, spans_formed = 0;                       // pass 2
  };
  /// Records of one key waiting in pass 2; a queue per key exists only while
  /// it holds something (keys are many, waiting records few: mostly one, held
  /// inline, so a key's queue costs no allocation besides its map node).
  template <class T>
  class waiting {
   public:
    void push(std::uint64_t key, const T& v);
    bool empty(std::uint64_t key) const;
    T pop(std::uint64_t key);  // !empty(key)
    std::size_t total() const;

   private:
    struct queue {
      T front;                   // the oldest record
      std::vector<T> rest;       // the later ones from `next` on, in arrival order
      std::size_t next = 0;
    };
    std::unordered_map<std::uint64_t, queue> q_;
  };
  /// A device's spans and PMU records in arrival order.
  struct device_spools {
    device_spools(const std::string& dir, std::size_t budget) : spans(dir, budget), pmu(dir, budget) {}
    detail::record_spool<keyed_span> spans;
    detail::record_spool<pmu_record> pmu;
  };
  struct orphan_key {
    std::int64_t start;
    std::uint64_t key;
    std::uint32_t index;
    bool operator<(const orphan_key& o) const {
      return std::tie(start, key, index) < std::tie(o.start, o.key, o.index);
    }
  };
  struct open_api {
    api_call call;
    std::shared_ptr<op_info> op;
    std::uint64_t item_id = 0;  ///< raw itemId: the model id of a model-level call
  };

  result<model> run_windows(const window_fn& on_window);

  std::optional<std::int64_t> host_local(std::uint64_t v) const;
  // A device without a clock (hand-built collections only): cycles taken as ns.
  std::optional<std::int64_t> device_local(std::uint32_t dev, std::uint64_t cyc) const;
  device_spools& spools_of(std::uint32_t dev);
  std::vector<std::uint32_t> devices_in_order() const;
  std::string hash_name(std::uint64_t h) const;
  // A name referenced by hash (op name/type, kernel): the hash_dic string, or
  // codec::unknown_hash_text(h), counted per kind for one warning at the end.
  std::string name_of(std::uint64_t h, const char* kind);
  std::string type_name(std::uint16_t lv, std::uint32_t type) const;

  // API calls ----------------------------------------------------------------

  void open(std::int64_t start, const placed_api& a);
  /// Finishes the calls that end before `t`: nothing after them can be inside.
  void close_before(std::int64_t t, const window_fn& on_window);
  /// The calls on `tid` containing the current time, innermost first (after
  /// close_before, every open call contains it; later starts are inner).
  template <class Visit>
  void enclosing(std::uint32_t tid, Visit&& visit);
  open_api* innermost(std::uint32_t tid);
  /// The connection id of a thread's launches that no call above the runtime
  /// level contains: api_count_ + 1.., in the order the threads first need one.
  std::uint64_t thread_root(std::uint32_t tid);

  // Host events ----------------------------------------------------------------

  void on_node(std::int64_t, const raw::node_basic& n);
  void on_tensor(std::int64_t, std::string_view b);
  void on_memcpy(std::int64_t at, const raw::memcpy_info& m);
  void on_track(std::int64_t at, const raw::task_track& tr);
  /// The copy of a MEMCPY_ASYNC launch, the reference's way: its memcpy_info's
  /// bytes, at most maxSize per task, the rest left to the next task.
  memcpy_copy take_memcpy(std::int64_t at, const raw::task_track& tr);

  // Device spools ----------------------------------------------------------------

  /// Reads one span of `dev`; false at the end. It goes to its launch's queue,
  /// or to the orphans when no launch will claim it; into `got` instead when
  /// it is the first of key `want` (no_key: none) and `got` is empty.
  bool pull_span(std::uint32_t dev, std::uint64_t want, std::optional<span>& got);
  static constexpr std::uint64_t no_key = ~std::uint64_t{0};  // task keys are 48 bits
  span take_span(std::uint32_t dev, std::uint64_t key);
  pmu_counters take_pmu(std::uint32_t dev, std::uint64_t key);
  /// Reads what is left of a device's spools (spans nobody launched, unmatched edges).
  void flush_device(std::uint32_t dev);

  // Output ----------------------------------------------------------------

  /// Device tasks nobody launched (device-only data, lost host slices) are kept,
  /// without a connection, so the device side is never silently dropped.
  void emit_orphans(const window_fn& on_window);
  void flush_window(const window_fn& on_window);
  result<model> finish();

  session_info session_;
  prof::tick_clock host_clock_;
  std::vector<prof::device_info> clocks_;
  std::unordered_map<std::uint64_t, std::string> hashes_;
  static std::uint64_t type_key(std::uint16_t lv, std::uint32_t type) noexcept {
    return (std::uint64_t{lv} << 32) | type;
  }
  std::unordered_map<std::uint64_t, std::string> types_;  // by type_key: looked up per call and launch
  options opt_;
  // Pass 1 output.
  spill_sorter<placed_api_key> apis_;
  spill_sorter<host_event_key> ops_;       // node_basic_info and tensor_info
  spill_sorter<host_event_key> launches_;  // memcpy_info and task_track
  std::map<std::uint32_t, device_spools> spools_;
  detail::task_table<key_counts> counts_;
  detail::task_table<key_counts> device_counts_;  // the device side's, into counts_ by merge_counts()
  waiting<span> starts_;          // ACSQ starts waiting for their end (end unset)
  std::size_t spans_without_start_ = 0;  // ACSQ ends no start waited for
  waiting<span> ready_;           // spans waiting for their launch
  waiting<pmu_counters> pmu_;     // PMU records waiting for their task
  struct {
    std::size_t api = 0, node = 0, tensor = 0, acsq = 0, track = 0, memcpy = 0;
  } bad_time_;
  bool any_memcpy_info_ = false;  // the collection has memcpy_info: MEMCPY_ASYNC tasks get a copy
  std::uint64_t api_count_ = 0;   // calls placed: their ids are 1..api_count_
  // Pass 2 state.
  std::uint64_t next_connection_ = 1, next_task_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> thread_roots_;  // thread -> thread_root()
  // The open calls of each thread, in start order (held here: no node per call).
  std::unordered_map<std::uint32_t, std::vector<open_api>> by_thread_;
  using closing_call = std::tuple<std::int64_t, std::uint64_t, std::uint32_t>;  // end, connection id, thread
  std::priority_queue<closing_call, std::vector<closing_call>, std::greater<>> closing_;  // the open calls
  spill_sorter<orphan_key> orphans_{opt_.spill_dir, opt_.spill_budget};
  result<void> orphans_status_;
  model window_;
  std::vector<std::string> warnings_;
  std::map<std::string, std::size_t> unknown_hashes_;  // kind -> references to hashes not in hash_dic
  std::map<memcpy_key, memcpy_left> memcpys_;  // memcpy_info at the sweep's time, for its task_track(s)
  std::size_t unmatched_launches_ = 0, orphan_count_ = 0, memcpy_unmatched_ = 0;
  std::size_t ops_outside_calls_ = 0;  // node_basic_info records no API call contains
  std::int64_t last_api_end_ = 0;
};

/// Options that keep everything in memory (the collection is already).
stream_join::options in_memory();

/// Joins a collection held in memory into one model (tests and small tools;
/// load.hpp streams instead).
model join(raw::collection&& c, const stream_join::options& o = in_memory());

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_JOIN_HPP
