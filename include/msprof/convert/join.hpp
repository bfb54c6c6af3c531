// SPDX-License-Identifier: MIT
// Joins decoded raw records into the converter model, streaming, so memory does
// not grow with the number of records (see model.hpp, "Windows"):
// - API calls get connection ids 1.. in start order;
// - task_track records (launches) find the API that launched them: the
//   innermost API on the same thread whose time range contains them;
// - ops (node_basic_info + tensor_info) attach to the innermost API containing
//   them, and a launch takes the op of the innermost enclosing API that has
//   reported one by then (ops are reported before their kernels launch);
// - per (device, stream, task) key, the i-th launch takes the i-th device span
//   (ACSQ start/end pair, in arrival order) and the i-th PMU record.
//
// Two passes. add_*() takes every record: host records go into spill_sorters
// in time order, device records into per-device spools in arrival order, and
// per-key counts are taken, so the second pass knows at each launch whether a
// span and a PMU record will come for it. run() then sweeps the host records in
// time order, pulls each launch's span and PMU record from the spools as it
// needs them (device order follows launch order closely, so little waits), and
// hands out windows of finished API calls and tasks.
//
// Times use the codec's checked arithmetic (codec::time_ns): a record whose
// timestamp cannot be placed on the wall clock (a damaged value, outside
// 1970..2262 as int64 ns) is skipped and counted in one warning per kind.
#ifndef MSPROF_CONVERT_JOIN_HPP
#define MSPROF_CONVERT_JOIN_HPP

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

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
struct acsq { std::uint32_t device_id; bool start; std::uint16_t stream_id; std::uint16_t task_id; std::uint64_t timestamp; };
struct pmu { std::uint32_t device_id; std::uint16_t stream_id; std::uint16_t task_id; pmu_counters counters; };
struct mstx { std::uint32_t pid; std::uint32_t tid; std::uint32_t event_type; std::uint64_t start; std::uint64_t end; std::uint64_t mark_id; std::uint64_t domain; std::string message; };

/// A whole collection in memory: the input of join(), for tests and small tools.
struct collection {
  session_info session;
  codec::host_clock host_clock;  ///< host record timestamps -> monotonic ns
  std::vector<codec::device_info> clocks;  ///< device cycles -> host monotonic ns (by id)
  std::unordered_map<std::uint64_t, std::string> hashes;
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types;
  std::vector<api> apis;
  std::vector<node_basic> nodes;
  std::vector<tensor_info> tensors;
  std::vector<task_track> tracks;
  std::vector<acsq> acsqs;
  std::vector<pmu> pmus;
  std::vector<mstx> mstxs;
  std::vector<std::string> warnings;
};

}  // namespace raw

namespace detail {

/// Reports `n` records of `what` skipped because their timestamp cannot be
/// placed on the wall clock (one warning per kind; load.hpp uses it too).
inline void warn_bad_time(std::vector<std::string>& warnings, std::size_t n, const std::string& what) {
  if (n)
    warnings.push_back(std::to_string(n) + " " + what +
                       " record(s) have a timestamp that cannot be placed on the wall clock (outside 1970..2262 "
                       "as signed 64-bit ns: damaged data); skipped");
}

inline std::uint64_t task_key(std::uint32_t dev, std::uint32_t stream, std::uint32_t task) noexcept {
  return (static_cast<std::uint64_t>(dev & 0xFFFFu) << 32) | (static_cast<std::uint64_t>(stream & 0xFFFFu) << 16) |
         (task & 0xFFFFu);
}

/// Trivially copyable records in and out of spill_sorter payloads.
template <class T>
std::string_view bytes_of(const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  return {reinterpret_cast<const char*>(&v), sizeof v};
}
template <class T>
T from_bytes(std::string_view b) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, b.data(), sizeof v);
  return v;
}

/// An mstx record on the wall clock; nullopt when its times cannot be placed.
inline std::optional<mstx_event> place_mstx(const raw::mstx& r, const codec::host_clock& clock, std::int64_t wall,
                                            const std::string& domain) {
  const auto start_mono = clock.monotonic_ns(r.start), end_mono = clock.monotonic_ns(r.end);
  const auto start = codec::time_ns::to_wall(start_mono, wall), end = codec::time_ns::to_wall(end_mono, wall);
  if (!start || !end) return std::nullopt;
  mstx_event e;
  e.pid = r.pid;
  e.tid = r.tid;
  e.event_type = r.event_type;
  e.start_mono_ns = *start_mono;
  e.end_mono_ns = *end_mono;
  e.start_ns = *start;
  e.end_ns = *end;
  e.mark_id = r.mark_id;
  e.message = r.message;
  e.domain = domain;
  return e;
}

/// Moves a window's records to the end of `all` (collecting a whole model).
inline void append_window(model& all, model& w) {
  std::move(w.apis.begin(), w.apis.end(), std::back_inserter(all.apis));
  std::move(w.tasks.begin(), w.tasks.end(), std::back_inserter(all.tasks));
  std::move(w.mstx.begin(), w.mstx.end(), std::back_inserter(all.mstx));
  std::move(w.mstx_mem.begin(), w.mstx_mem.end(), std::back_inserter(all.mstx_mem));
}

/// Puts collected windows in the model's order: calls by connection id, tasks by global id.
inline void order_by_ids(model& m) {
  std::sort(m.apis.begin(), m.apis.end(),
            [](const api_call& a, const api_call& b) { return a.connection_id < b.connection_id; });
  std::sort(m.tasks.begin(), m.tasks.end(),
            [](const device_task& a, const device_task& b) { return a.global_task_id < b.global_task_id; });
}

}  // namespace detail

/// The streaming join (see the file comment). Feed every record with add_*(),
/// then call run() once.
class stream_join {
 public:
  struct options {
    std::string spill_dir = ".";  ///< where sorted runs go when memory runs out
    std::size_t spill_budget = spill_budget_default;  ///< per sorter
    std::size_t window_records = 1u << 20;  ///< API calls + tasks per window
  };

  stream_join(session_info session, codec::host_clock host_clock, std::vector<codec::device_info> clocks,
              std::unordered_map<std::uint64_t, std::string> hashes,
              std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types, options o)
      : session_(std::move(session)),
        host_clock_(host_clock),
        clocks_(std::move(clocks)),
        hashes_(std::move(hashes)),
        types_(std::move(types)),
        opt_(std::move(o)),
        apis_(opt_.spill_dir, opt_.spill_budget),
        host_events_(opt_.spill_dir, opt_.spill_budget) {}

  // Pass 1 ---------------------------------------------------------------

  void add(const raw::api& a) {
    const auto start = host_local(a.begin), end = host_local(a.end);
    if (!start || !end) {
      ++bad_time_.api;
      return;
    }
    apis_.push({*start, 0}, detail::bytes_of(placed_api{*end, a.level, a.type, a.thread_id, a.item_id}));
  }
  void add(const raw::node_basic& n) {
    if (const auto at = host_local(n.timestamp))
      host_events_.push({*at, kind_node}, detail::bytes_of(n));
    else
      ++bad_time_.node;
  }
  void add(const raw::tensor_info& t) {
    const auto at = host_local(t.timestamp);
    if (!at) {
      ++bad_time_.tensor;
      return;
    }
    std::string b(detail::bytes_of(t.thread_id));
    for (const auto& d : t.tensors) b += detail::bytes_of(d);
    host_events_.push({*at, kind_tensor}, b);
  }
  void add(const raw::task_track& t) {
    if (const auto at = host_local(t.timestamp)) {
      host_events_.push({*at, kind_track}, detail::bytes_of(t));
      ++counts_[detail::task_key(t.device_id, t.stream_id, t.task_id)].launches;
    } else {
      ++bad_time_.track;
    }
  }
  void add(const raw::acsq& a) {
    const auto at = device_local(a.device_id, a.timestamp);
    if (!at) {
      ++bad_time_.acsq;
      return;
    }
    const auto key = detail::task_key(a.device_id, a.stream_id, a.task_id);
    spools_of(a.device_id).acsq.push(0, detail::bytes_of(span_edge{key, *at, a.start}));
    // Pairs as run() will, counting only: how many spans each key gets.
    auto& c = counts_[key];
    if (a.start)
      ++c.open_starts;
    else if (c.open_starts > 0) {
      --c.open_starts;
      ++c.spans;
    }
  }
  void add(const raw::pmu& p) {
    const auto key = detail::task_key(p.device_id, p.stream_id, p.task_id);
    spools_of(p.device_id).pmu.push(0, detail::bytes_of(pmu_record{key, p.counters}));
    ++counts_[key].pmus;
  }

  // Pass 2 ---------------------------------------------------------------

  /// Joins; calls on_window(model&) for each window of finished API calls and
  /// tasks (model.hpp, "Windows"; mstx is the caller's). Returns the session,
  /// the warnings and the end of the last API call.
  template <class Fn>
  result<model> run(Fn&& on_window) {
    window_.session = session_;
    placed_api_key akey{};
    std::string_view api;
    bool have_api = apis_.next(akey, api);
    host_event_key ekey{};
    std::string_view event;
    bool have_event = host_events_.next(ekey, event);
    while (have_api || have_event) {
      // An API that starts at an event's time contains it: starts go first.
      if (have_api && (!have_event || akey.start <= ekey.at)) {
        close_before(akey.start, on_window);
        open(akey.start, detail::from_bytes<placed_api>(api));
        have_api = apis_.next(akey, api);
        continue;
      }
      close_before(ekey.at, on_window);
      switch (ekey.kind) {
        case kind_node: on_node(ekey.at, detail::from_bytes<raw::node_basic>(event)); break;
        case kind_tensor: on_tensor(ekey.at, event); break;
        default: on_track(ekey.at, detail::from_bytes<raw::task_track>(event)); break;
      }
      if (window_.apis.size() + window_.tasks.size() >= opt_.window_records) flush_window(on_window);
      have_event = host_events_.next(ekey, event);
    }
    close_before(INT64_MAX, on_window);
    for (std::uint32_t dev : devices_in_order()) flush_device(dev);
    emit_orphans(on_window);
    flush_window(on_window);
    MSPROF_TRY(apis_.take_status());
    MSPROF_TRY(host_events_.take_status());
    for (auto& [dev, sp] : spools_) {
      MSPROF_TRY(sp.acsq.take_status());
      MSPROF_TRY(sp.pmu.take_status());
    }
    return finish();
  }

  /// The latest end of the API calls placed (0 when none).
  std::int64_t last_api_end() const noexcept { return last_api_end_; }

 private:
  enum : std::uint8_t { kind_node = 0, kind_tensor = 1, kind_track = 2 };  // order at equal times
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
  struct span_edge {
    std::uint64_t key;
    std::int64_t at;
    bool start;
  };
  struct pmu_record {
    std::uint64_t key;
    pmu_counters counters;
  };
  struct span {
    std::int64_t start, end;
  };
  /// Per (device, stream, task): totals from pass 1, progress in pass 2.
  struct key_counts {
    std::uint32_t launches = 0, spans = 0, pmus = 0, open_starts = 0;  // pass 1
    std::uint32_t launched = 0, spans_formed = 0;                       // pass 2
  };
  /// Records of one key waiting in pass 2; a queue per key exists only while
  /// it holds something (keys are many, waiting records few).
  template <class T>
  class waiting {
   public:
    void push(std::uint64_t key, const T& v) { q_[key].push_back(v); }
    bool empty(std::uint64_t key) const { return q_.find(key) == q_.end(); }
    T pop(std::uint64_t key) {  // !empty(key)
      auto it = q_.find(key);
      const T v = it->second.front();
      it->second.pop_front();
      if (it->second.empty()) q_.erase(it);
      return v;
    }
    std::size_t total() const {
      std::size_t n = 0;
      for (const auto& kv : q_) n += kv.second.size();
      return n;
    }

   private:
    std::unordered_map<std::uint64_t, std::deque<T>> q_;
  };
  /// A device's records in arrival order (constant key: the sorter keeps push order).
  struct device_spools {
    device_spools(const std::string& dir, std::size_t budget) : acsq(dir, budget), pmu(dir, budget) {}
    spill_sorter<std::uint8_t> acsq, pmu;
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
  };

  std::optional<std::int64_t> host_local(std::uint64_t v) const {
    return codec::time_ns::to_wall(host_clock_.monotonic_ns(v), session_.wall_offset_ns);
  }
  // A device without a clock (hand-built collections only): cycles taken as ns.
  std::optional<std::int64_t> device_local(std::uint32_t dev, std::uint64_t cyc) const {
    auto k = std::find_if(clocks_.begin(), clocks_.end(), [&](const codec::device_info& d) { return d.id == dev; });
    return codec::time_ns::to_wall(k == clocks_.end() ? codec::time_ns::from_u64(cyc) : k->monotonic_ns(cyc),
                                   session_.wall_offset_ns);
  }
  device_spools& spools_of(std::uint32_t dev) {
    auto it = spools_.find(dev);
    if (it == spools_.end()) it = spools_.try_emplace(dev, opt_.spill_dir, opt_.spill_budget).first;
    return it->second;
  }
  std::vector<std::uint32_t> devices_in_order() const {
    std::vector<std::uint32_t> v;
    for (const auto& kv : spools_) v.push_back(kv.first);
    return v;
  }
  std::string hash_name(std::uint64_t h) const {
    if (h == 0) return {};
    auto it = hashes_.find(h);
    return it == hashes_.end() ? std::to_string(h) : it->second;
  }
  std::string type_name(std::uint16_t lv, std::uint32_t type) const {
    auto it = types_.find({lv, type});
    return it == types_.end() ? std::to_string(type) : it->second;
  }

  // API calls ----------------------------------------------------------------

  void open(std::int64_t start, const placed_api& a) {
    api_call x;
    x.level = a.level;
    x.type = a.type;
    x.thread_id = a.thread_id;
    x.start_ns = start;
    x.end_ns = a.end;
    x.name = type_name(a.level, a.type);
    x.item = hash_name(a.item_id);
    x.connection_id = next_connection_++;
    last_api_end_ = std::max(last_api_end_, a.end);
    by_thread_[a.thread_id].push_back(x.connection_id);
    closing_.push({a.end, x.connection_id});
    open_.emplace(x.connection_id, open_api{std::move(x), nullptr});
  }
  /// Finishes the calls that end before `t`: nothing after them can be inside.
  template <class Fn>
  void close_before(std::int64_t t, Fn& on_window) {
    while (!closing_.empty() && closing_.top().first < t) {
      const std::uint64_t conn = closing_.top().second;
      closing_.pop();
      auto it = open_.find(conn);
      auto& on_thread = by_thread_[it->second.call.thread_id];
      on_thread.erase(std::find(on_thread.begin(), on_thread.end(), conn));
      window_.apis.push_back(std::move(it->second.call));
      open_.erase(it);
      if (window_.apis.size() + window_.tasks.size() >= opt_.window_records) flush_window(on_window);
    }
  }
  /// The calls on `tid` containing the current time, innermost first (after
  /// close_before, every open call contains it; later starts are inner).
  template <class Visit>
  void enclosing(std::uint32_t tid, Visit&& visit) {
    auto it = by_thread_.find(tid);
    if (it == by_thread_.end()) return;
    for (auto c = it->second.rbegin(); c != it->second.rend(); ++c)
      if (!visit(open_.find(*c)->second)) return;
  }
  open_api* innermost(std::uint32_t tid) {
    open_api* found = nullptr;
    enclosing(tid, [&](open_api& a) {
      found = &a;
      return false;
    });
    return found;
  }

  // Host events ----------------------------------------------------------------

  void on_node(std::int64_t, const raw::node_basic& n) {
    open_api* api = innermost(n.thread_id);
    if (!api) {
      warnings_.push_back("node_basic_info of op " + hash_name(n.op_name) + " (thread " + std::to_string(n.thread_id) +
                          ") lies outside every API call; op ignored");
      return;
    }
    auto op = std::make_shared<op_info>();
    op->name = hash_name(n.op_name);
    op->type = hash_name(n.op_type);
    op->ge_task_type = n.task_type;
    op->block_num = n.block_num;
    op->dynamic = n.dynamic;
    api->op = std::move(op);  // the last node of a call wins
  }
  void on_tensor(std::int64_t, std::string_view b) {
    const auto tid = detail::from_bytes<std::uint32_t>(b);
    open_api* api = innermost(tid);
    if (!api || !api->op) return;
    // Ops with more than 5 tensors send several records; they concatenate.
    for (std::size_t at = sizeof tid; at + sizeof(tensor_desc) <= b.size(); at += sizeof(tensor_desc))
      api->op->tensors.push_back(detail::from_bytes<tensor_desc>(b.substr(at)));
  }
  void on_track(std::int64_t at, const raw::task_track& tr) {
    const std::uint32_t task_id = tr.task_id & 0xFFFFu;
    const auto key = detail::task_key(tr.device_id, tr.stream_id, task_id);
    auto& c = counts_[key];
    const std::uint32_t index = c.launched++;
    if (index >= c.spans) {  // its key has fewer device spans than launches
      ++unmatched_launches_;
      return;
    }
    device_task t;
    t.device_id = tr.device_id;
    t.stream_id = tr.stream_id;
    t.task_id = task_id;
    const span sp = take_span(tr.device_id, key);
    t.start_ns = sp.start;
    t.end_ns = sp.end;
    t.track_ns = at;
    t.thread_id = tr.thread_id;
    t.task_type = type_name(level::runtime, static_cast<std::uint32_t>(tr.task_type));
    t.kernel_name = hash_name(tr.kernel_name);
    // The op belongs to the node-level call, which usually encloses the runtime
    // call that launched the task (aclnnAdd > rtKernelLaunch): the innermost
    // enclosing call that reported one.
    bool first = true;
    enclosing(tr.thread_id, [&](open_api& a) {
      if (first) {
        t.connection_id = a.call.connection_id;
        a.call.has_device_task = true;
        first = false;
      }
      if (!a.op) return true;
      t.op = a.op;
      return false;
    });
    if (index < c.pmus) t.pmu = take_pmu(tr.device_id, key);
    t.global_task_id = next_task_++;
    window_.tasks.push_back(std::move(t));
  }

  // Device spools ----------------------------------------------------------------

  /// Reads one ACSQ record of `dev`; false at the end. A completed span goes to
  /// its launch's queue, or to the orphans when no launch will claim it.
  bool pull_acsq(std::uint32_t dev) {
    std::uint8_t k = 0;
    std::string_view b;
    if (!spools_of(dev).acsq.next(k, b)) return false;
    const auto e = detail::from_bytes<span_edge>(b);
    auto& c = counts_[e.key];
    if (e.start) {
      starts_.push(e.key, e.at);
    } else if (starts_.empty(e.key)) {
      ++spans_without_start_;
    } else {
      const span s{starts_.pop(e.key), e.at};
      const std::uint32_t index = c.spans_formed++;
      if (index < c.launches)
        ready_.push(e.key, s);
      else
        orphans_.push({s.start, e.key, index}, detail::bytes_of(s.end));
    }
    return true;
  }
  span take_span(std::uint32_t dev, std::uint64_t key) {
    while (ready_.empty(key) && pull_acsq(dev)) {
    }
    return ready_.empty(key) ? span{} : ready_.pop(key);  // empty: unreachable, pass 1 counted it
  }
  pmu_counters take_pmu(std::uint32_t dev, std::uint64_t key) {
    while (pmu_.empty(key)) {
      std::uint8_t k = 0;
      std::string_view b;
      if (!spools_of(dev).pmu.next(k, b)) return {};  // unreachable: pass 1 counted it
      const auto r = detail::from_bytes<pmu_record>(b);
      pmu_.push(r.key, r.counters);
    }
    return pmu_.pop(key);
  }
  /// Reads what is left of a device's spools (spans nobody launched, unmatched edges).
  void flush_device(std::uint32_t dev) {
    while (pull_acsq(dev)) {
    }
    std::uint8_t k = 0;
    std::string_view b;
    while (spools_of(dev).pmu.next(k, b)) {
    }
  }

  // Output ----------------------------------------------------------------

  /// Device tasks nobody launched (device-only data, lost host slices) are kept,
  /// without a connection, so the device side is never silently dropped.
  template <class Fn>
  void emit_orphans(Fn& on_window) {
    std::size_t n = 0;
    orphans_status_ = orphans_.drain([&](const orphan_key& k, std::string_view b) {
      device_task t;
      t.device_id = static_cast<std::uint32_t>(k.key >> 32);
      t.stream_id = static_cast<std::uint32_t>((k.key >> 16) & 0xFFFFu);
      t.task_id = static_cast<std::uint32_t>(k.key & 0xFFFFu);
      t.start_ns = k.start;
      t.end_ns = detail::from_bytes<std::int64_t>(b);
      t.task_type = "UNKNOWN";
      t.global_task_id = next_task_++;
      window_.tasks.push_back(std::move(t));
      ++n;
      if (window_.tasks.size() >= opt_.window_records) flush_window(on_window);
    });
    orphan_count_ = n;
  }
  template <class Fn>
  void flush_window(Fn& on_window) {
    if (window_.apis.empty() && window_.tasks.empty()) return;
    std::sort(window_.apis.begin(), window_.apis.end(),
              [](const api_call& a, const api_call& b) { return a.connection_id < b.connection_id; });
    on_window(window_);
    window_.apis.clear();
    window_.tasks.clear();
  }
  result<model> finish() {
    MSPROF_TRY(orphans_status_);
    model m;
    m.session = session_;
    m.warnings = std::move(warnings_);
    const std::size_t no_end = starts_.total();
    if (spans_without_start_)
      m.warnings.push_back(std::to_string(spans_without_start_) + " device task end record(s) without a start; ignored");
    if (no_end) m.warnings.push_back(std::to_string(no_end) + " device task start record(s) without an end; ignored");
    if (unmatched_launches_)
      m.warnings.push_back(std::to_string(unmatched_launches_) +
                           " task_track record(s) have no device task (no ACSQ start/end)");
    if (orphan_count_)
      m.warnings.push_back(std::to_string(orphan_count_) +
                           " device task(s) have no task_track record (no launching API); exported as UNKNOWN");
    auto report = [&](std::size_t n, const char* what) { detail::warn_bad_time(m.warnings, n, what); };
    report(bad_time_.api, "api_event");
    report(bad_time_.node, "node_basic_info");
    report(bad_time_.tensor, "tensor_info");
    report(bad_time_.acsq, "device ACSQ (stars_soc)");
    report(bad_time_.track, "task_track");
    return m;
  }

  session_info session_;
  codec::host_clock host_clock_;
  std::vector<codec::device_info> clocks_;
  std::unordered_map<std::uint64_t, std::string> hashes_;
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types_;
  options opt_;
  // Pass 1 output.
  spill_sorter<placed_api_key> apis_;
  spill_sorter<host_event_key> host_events_;
  std::map<std::uint32_t, device_spools> spools_;
  std::unordered_map<std::uint64_t, key_counts> counts_;
  waiting<std::int64_t> starts_;  // ACSQ starts waiting for their end
  waiting<span> ready_;           // spans waiting for their launch
  waiting<pmu_counters> pmu_;     // PMU records waiting for their task
  struct {
    std::size_t api = 0, node = 0, tensor = 0, acsq = 0, track = 0;
  } bad_time_;
  // Pass 2 state.
  std::uint64_t next_connection_ = 1, next_task_ = 0;
  std::unordered_map<std::uint64_t, open_api> open_;                      // by connection id
  std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> by_thread_;  // open calls, in start order
  std::priority_queue<std::pair<std::int64_t, std::uint64_t>, std::vector<std::pair<std::int64_t, std::uint64_t>>,
                      std::greater<>>
      closing_;  // (end, connection id) of the open calls
  spill_sorter<orphan_key> orphans_{opt_.spill_dir, opt_.spill_budget};
  result<void> orphans_status_;
  model window_;
  std::vector<std::string> warnings_;
  std::size_t unmatched_launches_ = 0, spans_without_start_ = 0, orphan_count_ = 0;
  std::int64_t last_api_end_ = 0;
};

/// Options that keep everything in memory (the collection is already).
inline stream_join::options in_memory() {
  stream_join::options o;
  o.spill_budget = SIZE_MAX;
  o.window_records = SIZE_MAX;
  return o;
}

/// Joins a collection held in memory into one model (tests and small tools;
/// load.hpp streams instead).
inline model join(raw::collection&& c, const stream_join::options& o = in_memory()) {
  const std::int64_t wall = c.session.wall_offset_ns;
  stream_join j(c.session, c.host_clock, std::move(c.clocks), c.hashes, std::move(c.types), o);
  for (const auto& a : c.apis) j.add(a);
  for (const auto& n : c.nodes) j.add(n);
  for (const auto& t : c.tensors) j.add(t);
  for (const auto& t : c.tracks) j.add(t);
  for (const auto& a : c.acsqs) j.add(a);
  for (const auto& p : c.pmus) j.add(p);
  model m;
  auto joined = j.run([&](model& w) { detail::append_window(m, w); });
  detail::order_by_ids(m);
  if (!joined) {  // a spill failure: kept visible
    m.warnings.push_back(joined.err().message);
    return m;
  }
  m.session = std::move(joined->session);
  m.warnings = std::move(c.warnings);
  m.warnings.insert(m.warnings.end(), joined->warnings.begin(), joined->warnings.end());
  std::size_t bad_mstx = 0;
  for (const auto& r : c.mstxs) {
    auto it = c.hashes.find(r.domain);
    const std::string domain = r.domain == 0 ? "default" : it == c.hashes.end() ? std::to_string(r.domain) : it->second;
    if (auto e = detail::place_mstx(r, c.host_clock, wall, domain))
      m.mstx.push_back(std::move(*e));
    else
      ++bad_mstx;
  }
  detail::warn_bad_time(m.warnings, bad_mstx, "msproftx");
  return m;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_JOIN_HPP
