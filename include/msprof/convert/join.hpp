// SPDX-License-Identifier: MIT
// Joins decoded raw records into the converter model: API calls get connection
// ids, task_track records find the API that launched them (innermost API on the
// same thread whose time range contains them), ops (node_basic_info +
// tensor_info) attach to the same API, device ACSQ start/end pairs and PMU
// records attach to task_track records by (stream, task id) in order.
// Input structs hold raw values; load.hpp fills them from the codec reader.
// Times use the codec's checked arithmetic (codec::time_ns): a record whose
// timestamp cannot be placed on the wall clock (a damaged value, outside
// 1970..2262 as int64 ns) is skipped and counted in one warning per kind.
#ifndef MSPROF_CONVERT_JOIN_HPP
#define MSPROF_CONVERT_JOIN_HPP

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../codec/reader.hpp"
#include "model.hpp"

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

inline std::string lookup_hash(const raw::collection& c, std::uint64_t h) {
  if (h == 0) return {};
  auto it = c.hashes.find(h);
  return it == c.hashes.end() ? std::to_string(h) : it->second;
}

inline std::string lookup_type(const raw::collection& c, std::uint16_t lv, std::uint32_t type) {
  auto it = c.types.find({lv, type});
  return it == c.types.end() ? std::to_string(type) : it->second;
}

inline constexpr std::size_t no_match = static_cast<std::size_t>(-1);

/// FIFO matching per key: the i-th element of `a` with some key takes the i-th
/// element of `b` with that key (each in its own order). Returns, for each
/// element of `a`, the index of its partner in `b`, or no_match. A sort-merge:
/// it reads memory in order, where a hash lookup per element missed the cache.
inline std::vector<std::size_t> match_in_order(const std::vector<std::uint64_t>& a,
                                               const std::vector<std::uint64_t>& b) {
  auto by_key = [](const std::vector<std::uint64_t>& keys) {
    std::vector<std::pair<std::uint64_t, std::size_t>> v(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) v[i] = {keys[i], i};
    std::sort(v.begin(), v.end());  // (key, position): each key's elements stay in order
    return v;
  };
  const auto sa = by_key(a), sb = by_key(b);
  std::vector<std::size_t> match(a.size(), no_match);
  for (std::size_t i = 0, j = 0; i < sa.size() && j < sb.size();) {
    if (sa[i].first < sb[j].first)
      ++i;
    else if (sb[j].first < sa[i].first)
      ++j;
    else
      match[sa[i++].second] = sb[j++].second;
  }
  return match;
}

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

}  // namespace detail

/// Builds the model (consumes the collection).
inline model join(raw::collection&& c) {
  model m;
  m.session = std::move(c.session);
  m.warnings = std::move(c.warnings);
  const auto wall = m.session.wall_offset_ns;
  // nullopt: the time does not fit (counted in bad_time, reported at the end).
  auto host_mono = [&](std::uint64_t v) { return c.host_clock.monotonic_ns(v); };
  auto host_local = [&](std::uint64_t v) { return codec::time_ns::to_wall(host_mono(v), wall); };
  struct {
    std::size_t api = 0, node = 0, tensor = 0, acsq = 0, track = 0, mstx = 0;
  } bad_time;

  // API calls, by start time; connection ids 1.. in that order. Sorted as
  // (start, end, index) triples so the calls themselves are built once, in place.
  {
    struct placed {
      std::int64_t start, end;
      std::size_t index;
    };
    std::vector<placed> order;
    order.reserve(c.apis.size());
    for (std::size_t i = 0; i < c.apis.size(); ++i) {
      const auto start = host_local(c.apis[i].begin), end = host_local(c.apis[i].end);
      if (start && end)
        order.push_back({*start, *end, i});
      else
        ++bad_time.api;
    }
    std::stable_sort(order.begin(), order.end(), [](const placed& a, const placed& b) { return a.start < b.start; });
    m.apis.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& a = c.apis[order[i].index];
      api_call& x = m.apis[i];
      x.level = a.level;
      x.type = a.type;
      x.thread_id = a.thread_id;
      x.start_ns = order[i].start;
      x.end_ns = order[i].end;
      x.name = detail::lookup_type(c, a.level, a.type);
      x.item = detail::lookup_hash(c, a.item_id);
      x.connection_id = i + 1;
    }
  }
  std::vector<raw::api>().swap(c.apis);

  // Ops by launching API (connection id), filled below.
  std::unordered_map<std::uint64_t, std::shared_ptr<op_info>> op_by_conn;
  // Per-thread index for "innermost API containing t".
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> by_thread;
  for (std::size_t i = 0; i < m.apis.size(); ++i) by_thread[m.apis[i].thread_id].push_back(i);
  struct enclosing {
    std::optional<std::size_t> innermost;  ///< the innermost API on the thread containing t
    std::optional<std::size_t> with_op;    ///< the innermost of those that reported an op
  };
  // One walk finds both (with_op only when want_op).
  auto find_api = [&](std::uint32_t tid, std::int64_t t, bool want_op) {
    enclosing r;
    auto it = by_thread.find(tid);
    if (it == by_thread.end()) return r;
    const auto& v = it->second;
    auto ub = std::upper_bound(v.begin(), v.end(), t,
                               [&](std::int64_t x, std::size_t i) { return x < m.apis[i].start_ns; });
    // Walk back over earlier-starting calls; containing ones come innermost first.
    // Bounded so pathological nesting stays linear.
    int budget = 64;
    while (ub != v.begin() && budget-- > 0) {
      --ub;
      if (m.apis[*ub].end_ns < t) continue;
      if (!r.innermost) r.innermost = *ub;
      if (!want_op) break;
      if (op_by_conn.count(m.apis[*ub].connection_id)) {
        r.with_op = *ub;
        break;
      }
    }
    return r;
  };

  // node_basic_info key (thread, ts, op name) -> connection id, for tensor_info;
  // sorted once below and searched (a tree map here was a third of join's time).
  using node_key = std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>;
  std::vector<std::pair<node_key, std::uint64_t>> node_key_to_conn;
  node_key_to_conn.reserve(c.nodes.size());
  for (const auto& n : c.nodes) {
    const auto at = host_local(n.timestamp);
    if (!at) {
      ++bad_time.node;
      continue;
    }
    const auto ai = find_api(n.thread_id, *at, false).innermost;
    if (!ai) {
      m.warnings.push_back("node_basic_info of op " + detail::lookup_hash(c, n.op_name) + " (thread " +
                           std::to_string(n.thread_id) + ") lies outside every API call; op ignored");
      continue;
    }
    op_info op;
    op.name = detail::lookup_hash(c, n.op_name);
    op.type = detail::lookup_hash(c, n.op_type);
    op.ge_task_type = n.task_type;
    op.block_num = n.block_num;
    op.dynamic = n.dynamic;
    const auto conn = m.apis[*ai].connection_id;
    node_key_to_conn.push_back({{n.thread_id, n.timestamp, n.op_name}, conn});
    op_by_conn[conn] = std::make_shared<op_info>(std::move(op));
  }
  std::vector<raw::node_basic>().swap(c.nodes);
  // The last node with a key wins, as it would in a map: stable sort, take the last.
  std::stable_sort(node_key_to_conn.begin(), node_key_to_conn.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& t : c.tensors) {
    std::uint64_t conn = 0;
    const node_key key{t.thread_id, t.timestamp, t.op_name};
    auto k = std::upper_bound(node_key_to_conn.begin(), node_key_to_conn.end(), key,
                              [](const node_key& x, const auto& e) { return x < e.first; });
    if (k != node_key_to_conn.begin() && (k - 1)->first == key) {
      conn = (k - 1)->second;
    } else if (const auto at = host_local(t.timestamp); !at) {
      ++bad_time.tensor;
      continue;
    } else if (const auto ai = find_api(t.thread_id, *at, false).innermost) {
      conn = m.apis[*ai].connection_id;
    }
    auto it = op_by_conn.find(conn);
    if (conn == 0 || it == op_by_conn.end()) continue;
    // Ops with more than 5 tensors send several records; they concatenate.
    for (auto& d : t.tensors) it->second->tensors.push_back(std::move(d));
  }
  std::vector<raw::tensor_info>().swap(c.tensors);
  std::vector<std::pair<node_key, std::uint64_t>>().swap(node_key_to_conn);

  // Device tasks from ACSQ start/end pairs, matched per (device, stream, task).
  // A device without a clock (hand-built collections only): cycles taken as ns.
  auto dev_local = [&](std::uint32_t dev, std::uint64_t cyc) -> std::optional<std::int64_t> {
    auto k = std::find_if(c.clocks.begin(), c.clocks.end(), [&](const codec::device_info& d) { return d.id == dev; });
    return codec::time_ns::to_wall(k == c.clocks.end() ? codec::time_ns::from_u64(cyc) : k->monotonic_ns(cyc), wall);
  };
  struct span {
    std::int64_t start, end;
  };
  std::vector<span> spans;              // by key, each key's in arrival order
  std::vector<std::uint64_t> span_keys;
  {
    // Pair starts and ends per (device, stream, task) in arrival order.
    std::vector<std::pair<std::uint64_t, std::pair<bool, std::int64_t>>> all;
    all.reserve(c.acsqs.size());
    for (const auto& a : c.acsqs) {
      if (const auto at = dev_local(a.device_id, a.timestamp))
        all.push_back({detail::task_key(a.device_id, a.stream_id, a.task_id), {a.start, *at}});
      else
        ++bad_time.acsq;
    }
    std::vector<raw::acsq>().swap(c.acsqs);
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t no_start = 0, no_end = 0;
    std::vector<std::int64_t> open;
    std::uint64_t cur = UINT64_MAX;
    std::size_t head = 0;
    auto close_key = [&] {
      no_end += open.size() - head;
      open.clear();
      head = 0;
    };
    spans.reserve(all.size() / 2);
    span_keys.reserve(all.size() / 2);
    for (const auto& [k, e] : all) {
      if (k != cur) {
        close_key();
        cur = k;
      }
      if (e.first) {
        open.push_back(e.second);
      } else if (head < open.size()) {
        spans.push_back({open[head++], e.second});
        span_keys.push_back(k);
      } else {
        ++no_start;
      }
    }
    close_key();
    if (no_start)
      m.warnings.push_back(std::to_string(no_start) + " device task end record(s) without a start; ignored");
    if (no_end)
      m.warnings.push_back(std::to_string(no_end) + " device task start record(s) without an end; ignored");
  }

  // Launches in task_track time order; one that cannot be placed is skipped
  // before it takes a device task, which then stays an orphan (UNKNOWN).
  struct launch {
    std::size_t track;
    std::int64_t at;
  };
  std::vector<launch> launches;
  {
    std::vector<std::size_t> order(c.tracks.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return c.tracks[a].timestamp < c.tracks[b].timestamp; });
    launches.reserve(order.size());
    for (std::size_t idx : order) {
      if (const auto at = host_local(c.tracks[idx].timestamp))
        launches.push_back({idx, *at});
      else
        ++bad_time.track;
    }
  }
  std::vector<std::uint64_t> launch_keys(launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& tr = c.tracks[launches[i].track];
    launch_keys[i] = detail::task_key(tr.device_id, tr.stream_id, tr.task_id & 0xFFFFu);
  }
  const auto span_of = detail::match_in_order(launch_keys, span_keys);
  std::vector<bool> span_taken(spans.size(), false);
  std::vector<std::uint64_t> task_keys;  // of m.tasks, for the PMU records
  std::size_t unmatched = 0;
  m.tasks.reserve(spans.size());  // every task takes one span, launched or not
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (span_of[i] == detail::no_match) {
      ++unmatched;
      continue;
    }
    const auto& tr = c.tracks[launches[i].track];
    const span& sp = spans[span_of[i]];
    span_taken[span_of[i]] = true;
    device_task t;
    t.device_id = tr.device_id;
    t.stream_id = tr.stream_id;
    t.task_id = tr.task_id & 0xFFFFu;
    t.batch_id = 0;
    t.start_ns = sp.start;
    t.end_ns = sp.end;
    t.track_ns = launches[i].at;
    t.thread_id = tr.thread_id;
    t.task_type = detail::lookup_type(c, level::runtime, static_cast<std::uint32_t>(tr.task_type));
    t.kernel_name = detail::lookup_hash(c, tr.kernel_name);
    // The op belongs to the node-level call, which usually encloses the runtime
    // call that launched the task (aclnnAdd > rtKernelLaunch): the innermost
    // enclosing call that reported one.
    const auto launched_by = find_api(tr.thread_id, t.track_ns, true);
    if (launched_by.innermost) {
      auto& api = m.apis[*launched_by.innermost];
      t.connection_id = api.connection_id;
      api.has_device_task = true;
      if (launched_by.with_op) t.op = op_by_conn.find(m.apis[*launched_by.with_op].connection_id)->second;
    }
    t.global_task_id = m.tasks.size();
    m.tasks.push_back(std::move(t));
    task_keys.push_back(launch_keys[i]);
  }
  std::vector<raw::task_track>().swap(c.tracks);
  if (unmatched)
    m.warnings.push_back(std::to_string(unmatched) + " task_track record(s) have no device task (no ACSQ start/end)");
  {
    // PMU records follow the launched tasks of their (device, stream, task) in order.
    std::vector<std::uint64_t> pmu_keys(c.pmus.size());
    for (std::size_t i = 0; i < c.pmus.size(); ++i)
      pmu_keys[i] = detail::task_key(c.pmus[i].device_id, c.pmus[i].stream_id, c.pmus[i].task_id);
    const auto pmu_of = detail::match_in_order(task_keys, pmu_keys);
    for (std::size_t i = 0; i < pmu_of.size(); ++i)
      if (pmu_of[i] != detail::no_match) m.tasks[i].pmu = c.pmus[pmu_of[i]].counters;
    std::vector<raw::pmu>().swap(c.pmus);
  }
  // Device tasks nobody launched (device-only data, lost host slices) are kept,
  // without a connection, so the device side is never silently dropped.
  std::vector<device_task> orphans;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (span_taken[i]) continue;
    const std::uint64_t k = span_keys[i];
    device_task t;
    t.device_id = static_cast<std::uint32_t>(k >> 32);
    t.stream_id = static_cast<std::uint32_t>((k >> 16) & 0xFFFFu);
    t.task_id = static_cast<std::uint32_t>(k & 0xFFFFu);
    t.start_ns = spans[i].start;
    t.end_ns = spans[i].end;
    t.task_type = "UNKNOWN";
    orphans.push_back(std::move(t));
  }
  std::stable_sort(orphans.begin(), orphans.end(),
                   [](const device_task& a, const device_task& b) { return a.start_ns < b.start_ns; });
  for (auto& t : orphans) {
    t.global_task_id = m.tasks.size();
    m.tasks.push_back(std::move(t));
  }
  if (!orphans.empty())
    m.warnings.push_back(std::to_string(orphans.size()) +
                         " device task(s) have no task_track record (no launching API); exported as UNKNOWN");

  // mstx: record order, times converted like host records.
  m.mstx.reserve(c.mstxs.size());
  for (auto& r : c.mstxs) {
    const auto start_mono = host_mono(r.start), end_mono = host_mono(r.end);
    const auto start = codec::time_ns::to_wall(start_mono, wall), end = codec::time_ns::to_wall(end_mono, wall);
    if (!start || !end) {
      ++bad_time.mstx;
      continue;
    }
    mstx_event e;
    e.pid = r.pid;
    e.tid = r.tid;
    e.event_type = r.event_type;
    e.start_mono_ns = *start_mono;
    e.end_mono_ns = *end_mono;
    e.start_ns = *start;
    e.end_ns = *end;
    e.mark_id = r.mark_id;
    e.message = std::move(r.message);
    e.domain = r.domain == 0 ? "default" : detail::lookup_hash(c, r.domain);
    m.mstx.push_back(std::move(e));
  }
  auto report_bad_time = [&](std::size_t n, const char* what) { detail::warn_bad_time(m.warnings, n, what); };
  report_bad_time(bad_time.api, "api_event");
  report_bad_time(bad_time.node, "node_basic_info");
  report_bad_time(bad_time.tensor, "tensor_info");
  report_bad_time(bad_time.acsq, "device ACSQ (stars_soc)");
  report_bad_time(bad_time.track, "task_track");
  report_bad_time(bad_time.mstx, "msproftx");
  return m;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_JOIN_HPP
