// SPDX-License-Identifier: MIT
// HCCL communication (convert/hccl.hpp): linking, naming, bandwidth, spans, and
// the Communication timeline process and communication_statistic rows.
#include <msprof/codec/dictionary.hpp>
#include <msprof/convert/hccl.hpp>
#include <msprof/convert/text.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

namespace {

/// The HCCL-level call's type name the reference counts as the master's.
constexpr char master_name[] = "master";

/// The calls of one level on one thread, by start.
struct thread_calls {
  std::vector<const api_call*> node, hccl;
};

/// The call holding ts in (start, end], as the reference attaches records to
/// calls; nullptr when none does. Calls of a level do not overlap on a thread,
/// but node-level ones may nest (an AI CPU launch inside a collective's): the
/// search walks back to the innermost one that still holds ts.
const api_call* containing(const std::vector<const api_call*>& v, std::int64_t ts) {
  auto it = std::partition_point(v.begin(), v.end(), [&](const api_call* a) { return a->start_ns < ts; });
  while (it != v.begin()) {
    --it;
    if ((*it)->end_ns >= ts) return *it;
  }
  return nullptr;
}

/// A call's outer node-level call: the latest-starting one that holds it whole.
const api_call* enclosing(const std::vector<const api_call*>& nodes, const api_call& a) {
  auto it = std::partition_point(nodes.begin(), nodes.end(), [&](const api_call* n) { return n->start_ns <= a.start_ns; });
  while (it != nodes.begin()) {
    --it;
    if ((*it)->end_ns >= a.end_ns) return *it;
  }
  return nullptr;
}

std::string tail3(const std::string& s) { return s.size() > 3 ? s.substr(s.size() - 3) : s; }

struct task_key {
  std::uint32_t stream, batch, task, ctx;
  bool operator<(const task_key& o) const {
    return std::tie(stream, batch, task, ctx) < std::tie(o.stream, o.batch, o.task, o.ctx);
  }
};

double bandwidth_of(double bytes, std::int64_t ns) { return ns > 0 ? bytes / static_cast<double>(ns) : 0.0; }

void set_bandwidths(std::vector<comm_task*>& v, std::vector<std::string>& warnings) {
  constexpr std::uint32_t payload = 1;  // RDMA_SEND_PAYLOAD
  const std::size_t jump = rdma_jump(v.front()->op_name);
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto& t = *v[i];
    const double size = static_cast<double>(t.info.dataSize);
    if (!t.has_info || t.info.rdmaType != payload) {
      t.bandwidth = bandwidth_of(size, t.end_ns - t.start_ns);
      continue;
    }
    std::size_t n = 0;
    while (i + n < v.size() && v[i + n]->has_info && v[i + n]->info.rdmaType == payload) ++n;
    const std::size_t close = i + n + jump - 2;
    if (close >= v.size()) {
      warnings.push_back("HCCL " + t.op_name + ": an RDMA payload task has no closing task; its own bandwidth is used");
      t.bandwidth = bandwidth_of(size, t.end_ns - t.start_ns);
      continue;
    }
    double bytes = 0;
    for (std::size_t k = i; k < i + n; ++k) bytes += static_cast<double>(v[k]->info.dataSize);
    const double bw = bandwidth_of(bytes, v[close]->end_ns - t.start_ns);
    for (std::size_t k = i; k < i + n; ++k) v[k]->bandwidth = bw;
    i += n - 1;
  }
}

/// A host counter on the local wall clock, clamped to the int64 range (a
/// damaged counter must not overflow; the clock's own conversion clamps too).
std::int64_t host_wall_ns(const prof::host_info& host, std::uint64_t ticks) {
  const std::int64_t offset = host.wall_offset_ns();
  return prof::time_ns::add(host.clock.to_monotonic_ns(ticks), offset)
      .value_or(offset > 0 ? prof::time_ns::max : prof::time_ns::min);
}

/// hccl_info's plane of a task outside any plane; the reference's thread table counts it as plane 0.
constexpr std::uint32_t no_plane = 0xFFFFFFFF;

/// Each (device, group)'s Communication threads: the group's own row and its
/// planes'. The reference numbers the rows with one count over every device:
/// a group takes its row, then one per plane up to its highest. It walks hash
/// maps to do so (device -> group -> planes, filled from the tasks in start
/// order, then copied into a second such map); these are std::unordered_map
/// filled in the same order (devices by id), so with the same standard library
/// (libstdc++) they are walked in its order and several groups get its rows.
std::map<std::pair<std::uint32_t, std::string>, group_rows> group_threads(const communication& c) {
  using planes = std::unordered_map<std::string, std::set<std::uint32_t>>;
  std::map<std::uint32_t, std::vector<const comm_task*>> by_device;
  for (const auto& t : c.tasks) by_device[t.device_id].push_back(&t);
  std::unordered_map<std::uint16_t, planes> seen, table;
  for (const auto& [device, tasks] : by_device)
    for (const auto* t : tasks)
      seen[static_cast<std::uint16_t>(device)][t->group].insert(t->info.planeID == no_plane ? 0 : t->info.planeID);
  for (const auto& [device, groups] : seen)
    for (const auto& [group, ids] : groups) table[device][group] = ids;
  std::map<std::pair<std::uint32_t, std::string>, group_rows> out;
  std::uint32_t index = 0;
  for (const auto& [device, groups] : table)
    for (const auto& [group, ids] : groups) {
      out[{device, group}] = {index, ids};
      index += *ids.rbegin() + 2;
    }
  return out;
}

}  // namespace

std::size_t rdma_jump(const std::string& op_name) {
  std::string lower = op_name;
  for (auto& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.find("send") != std::string::npos || lower.find("receive") != std::string::npos ? 3 : 5;
}

const char* data_type_name(std::uint32_t v) noexcept {
  static const char* const names[] = {"INT8",  "INT16", "INT32", "FP16",   "FP32", "INT64",   "UINT64",  "UINT8", "UINT16",
                                      "UINT32", "FP64", "BFP16", "INT128", "N/A",  "HIF8",    "FP8E4M3", "FP8E5M2",
                                      "FP8E8M0"};
  if (v < sizeof names / sizeof names[0]) return names[v];
  return v == 255 ? "RESERVED" : "N/A";
}
const char* link_type_name(std::uint32_t v) noexcept {
  static const char* const names[] = {"ON_CHIP", "HCCS", "PCIE", "ROCE", "SIO", "HCCS_SW", "STANDARD_ROCE", "UB", "UBoE"};
  return v < sizeof names / sizeof names[0] ? names[v] : "N/A";
}
const char* transport_type_name(std::uint32_t v) noexcept {
  static const char* const names[] = {"SDMA", "RDMA", "LOCAL", "UB", "ROCE"};
  return v < sizeof names / sizeof names[0] ? names[v] : "N/A";
}
const char* rdma_type_name(std::uint32_t v) noexcept {
  static const char* const names[] = {"RDMA_SEND_NOTIFY", "RDMA_SEND_PAYLOAD"};
  return v < sizeof names / sizeof names[0] ? names[v] : "N/A";
}

result<inputs> read_inputs(prof::prof_reader& r, const model& m, bool with_node_types) {
  inputs in;
  in.apis = &m.apis;
  in.tasks = &m.tasks;
  in.collection_start_ns = m.session.start_ns;
  auto local = [&](std::uint64_t ts) { return host_wall_ns(r.host(), ts); };
  MSPROF_TRY(r.for_each_hccl_info([&](const auto& rec) {
    info_record i;
    i.thread_id = rec.head.threadId;
    i.ts_ns = local(rec.head.timeStamp);
    i.payload = rec.payload;
    i.name = r.lookup(rec.payload.itemId);
    if (!in.group_names.count(rec.payload.groupName)) {
      // Only hash_dic's texts: a group it lacks is shown as its number, as the reference shows it.
      std::string g = r.lookup(rec.payload.groupName);
      if (!g.empty() && g != codec::unknown_hash_text(rec.payload.groupName))
        in.group_names.emplace(rec.payload.groupName, std::move(g));
    }
    in.infos.push_back(std::move(i));
  }));
  if (in.infos.empty()) return in;  // no communication: the other records are not needed
  MSPROF_TRY(r.for_each_hccl_op_info([&](const auto& rec) {
    op_info_record o;
    o.thread_id = rec.head.threadId;
    o.ts_ns = local(rec.head.timeStamp);
    o.payload = rec.payload;
    o.alg_type = r.lookup(rec.payload.algType);
    in.op_infos.push_back(std::move(o));
  }));
  if (with_node_types) MSPROF_TRY(read_node_types(r, [](std::uint32_t, std::int64_t) { return true; }, in.node_types));
  return in;
}

result<void> read_node_types(prof::prof_reader& r, const std::function<bool(std::uint32_t, std::int64_t)>& keep,
                             std::vector<node_type_record>& out) {
  return r.for_each_node_basic_info([&](const auto& rec) {
    const std::int64_t ts = host_wall_ns(r.host(), rec.head.timeStamp);
    if (!keep(rec.head.threadId, ts)) return;
    node_type_record n;
    n.thread_id = rec.head.threadId;
    n.ts_ns = ts;
    n.op_type = r.lookup(rec.payload.opType);
    out.push_back(std::move(n));
  });
}

communication link(const inputs& in) {
  communication out;
  if (!in.apis || !in.tasks) return out;
  std::map<std::uint32_t, thread_calls> threads;
  for (const auto& a : *in.apis) {
    if (a.level == level::node) threads[a.thread_id].node.push_back(&a);
    else if (a.level == level::hccl) threads[a.thread_id].hccl.push_back(&a);
  }
  if (std::none_of(threads.begin(), threads.end(), [](const auto& t) { return !t.second.hccl.empty(); })) return out;
  auto by_start = [](const api_call* x, const api_call* y) { return x->start_ns < y->start_ns; };
  for (auto& [tid, t] : threads) {
    std::stable_sort(t.node.begin(), t.node.end(), by_start);
    std::stable_sort(t.hccl.begin(), t.hccl.end(), by_start);
  }
  auto calls_of = [&](std::uint32_t tid) -> const thread_calls* {
    auto it = threads.find(tid);
    return it == threads.end() ? nullptr : &it->second;
  };

  // Records inside their calls: hccl_info in the HCCL call, hccl_op_info and
  // node_basic_info's type in the collective's node call ((start, end]).
  std::unordered_map<const api_call*, std::vector<const info_record*>> infos;
  for (const auto& r : in.infos) {
    const auto* c = calls_of(r.thread_id);
    const api_call* h = c ? containing(c->hccl, r.ts_ns) : nullptr;
    if (h) infos[h].push_back(&r);
  }
  std::unordered_map<const api_call*, const op_info_record*> op_infos;
  for (const auto& r : in.op_infos) {
    const auto* c = calls_of(r.thread_id);
    const api_call* n = c ? containing(c->node, r.ts_ns) : nullptr;
    if (n) op_infos.emplace(n, &r);  // the first one, as the reference
  }
  std::unordered_map<const api_call*, std::string> op_types;
  for (const auto& r : in.node_types) {
    const auto* c = calls_of(r.thread_id);
    const api_call* n = c ? containing(c->node, r.ts_ns) : nullptr;
    if (n) op_types.emplace(n, r.op_type);
  }
  auto group_text = [&](const std::string& number) {
    if (number == "N/A") return number;
    auto it = in.group_names.find(std::stoull(number));
    return it == in.group_names.end() ? number : it->second;
  };

  // Each device task launched inside an HCCL call is one of its small tasks.
  struct found {
    comm_task t;
    const api_call* node;
    std::string group_number;  // the group hash as decimal text ("N/A": none)
  };
  std::vector<found> tasks;
  for (const auto& d : *in.tasks) {
    const auto* c = calls_of(d.thread_id);
    const api_call* h = c ? containing(c->hccl, d.track_ns) : nullptr;
    if (!h) continue;
    const api_call* n = enclosing(c->node, *h);
    if (!n) {
      out.warnings.push_back("HCCL task (stream " + std::to_string(d.stream_id) + ", task " + std::to_string(d.task_id) +
                             ") is in a communication call outside any node-level call; left out");
      continue;
    }
    found f;
    f.node = n;
    comm_task& t = f.t;
    t.device_id = d.device_id;
    t.stream_id = d.stream_id;
    t.task_id = d.task_id;
    t.batch_id = d.batch_id;
    t.start_ns = d.start_ns;
    t.end_ns = d.end_ns;
    t.host_ns = d.track_ns;
    t.op_host_ns = n->start_ns;
    t.connection_id = n->connection_id;
    t.global_task_id = d.global_task_id;
    t.master = h->name == master_name;
    auto ot = op_types.find(n);
    t.op_type = ot == op_types.end() ? "N/A" : ot->second;
    // One task per context id of the call's hccl_info; outside FFTS+ that is
    // the one with no context id (the last such record, as the reference).
    const info_record* info = nullptr;
    auto ii = infos.find(h);
    if (ii != infos.end()) {
      for (const auto* r : ii->second)
        if (r->payload.ctxID == codec::context_id_none) info = r;
      if (!info) {
        out.warnings.push_back("HCCL call " + h->item + " (thread " + std::to_string(h->thread_id) +
                               ") has only FFTS+ context records, not read yet; its task is left out");
        continue;
      }
    }
    if (info) {
      t.info = info->payload;
      t.has_info = true;
      t.name = info->name;
      f.group_number = std::to_string(info->payload.groupName);
    } else {
      t.name = "N/A";
      f.group_number = "N/A";
    }
    tasks.push_back(std::move(f));
  }
  if (tasks.empty()) return out;

  // Per thread, collectives by start; iteration = how often a (stream, task)
  // came up so far on the device (the reference links each device apart). It
  // walks threads in hash-map order, filled from its host database's rows,
  // which its threads write in the order they finish; here by id.
  std::stable_sort(tasks.begin(), tasks.end(), [](const found& a, const found& b) {
    return std::tie(a.t.host_ns, a.t.start_ns) < std::tie(b.t.host_ns, b.t.start_ns);
  });
  {
    std::map<std::pair<std::uint32_t, task_key>, std::uint32_t> seen;
    std::map<std::uint32_t, std::vector<found*>> by_thread;
    for (auto& f : tasks) by_thread[f.node->thread_id].push_back(&f);
    for (auto& [tid, v] : by_thread) {
      std::stable_sort(v.begin(), v.end(), [](const found* a, const found* b) {
        return std::tie(a->node->start_ns, a->t.host_ns, a->t.start_ns) <
               std::tie(b->node->start_ns, b->t.host_ns, b->t.start_ns);
      });
      for (auto* f : v)
        f->t.iteration = ++seen[{f->t.device_id, {f->t.stream_id, f->t.batch_id, f->t.task_id, f->t.context_id}}];
    }
  }
  // Names: <op>_<group tail>_<group index>_<iteration>; the group index counts
  // a device's collectives of a group (apart for AI CPU kernels), warm-up ones not.
  {
    struct group_count {
      std::int64_t first = 0;
      std::int64_t count = -1;
    };
    std::unordered_map<std::string, group_count> groups;
    for (auto& f : tasks) {
      auto oi = op_infos.find(f.node);
      if (f.group_number == "N/A" && oi != op_infos.end()) f.group_number = std::to_string(oi->second->payload.groupName);
      const std::string& op = f.node->item;
      const std::string key = std::to_string(f.t.device_id) +
                              (op.find("AicpuKernel") != std::string::npos ? "_AicpuKernel_" : "_Normal_") +
                              f.group_number;
      auto& g = groups[key];
      if (f.t.start_ns > in.collection_start_ns && f.t.op_host_ns > g.first) {
        g.first = f.t.op_host_ns;
        ++g.count;
      }
      f.t.op_name = op + "_" + tail3(f.group_number) + "_" + std::to_string(g.count) + "_" + std::to_string(f.t.iteration);
      f.t.group_hash = f.group_number == "N/A" ? 0 : std::stoull(f.group_number);
      f.t.group = group_text(f.group_number);
    }
  }
  out.tasks.reserve(tasks.size());
  for (auto& f : tasks) out.tasks.push_back(std::move(f.t));
  std::stable_sort(out.tasks.begin(), out.tasks.end(),
                   [](const comm_task& a, const comm_task& b) { return a.start_ns < b.start_ns; });

  // Bandwidth per collective and plane, in device order.
  {
    std::map<std::pair<std::string, std::uint32_t>, std::vector<comm_task*>> planes;
    for (auto& t : out.tasks) planes[{t.op_name, t.info.planeID}].push_back(&t);
    for (auto& [k, v] : planes) set_bandwidths(v, out.warnings);
  }

  // Collectives: the span of their master tasks; the hccl_op_info of their call.
  std::map<std::tuple<std::string, std::uint64_t, std::uint32_t>, std::size_t> index;
  std::map<std::uint64_t, const api_call*> node_of;
  for (const auto& f : tasks) node_of.emplace(f.t.connection_id, f.node);
  for (const auto& t : out.tasks) {
    const auto key = std::make_tuple(t.op_name, t.group_hash, t.device_id);
    auto it = index.find(key);
    if (it == index.end()) {
      comm_op op;
      op.name = t.op_name;
      op.op_type = t.op_type;
      op.group = t.group;
      op.group_hash = t.group_hash;
      op.device_id = t.device_id;
      op.connection_id = t.connection_id;
      op.start_ns = std::numeric_limits<std::int64_t>::max();
      op.end_ns = std::numeric_limits<std::int64_t>::min();
      auto oi = op_infos.find(node_of[t.connection_id]);
      if (oi != op_infos.end()) {
        const auto& p = oi->second->payload;
        op.has_info = true;
        op.relay = p.flags & 1;
        op.retry = (p.flags >> 1) & 1;
        op.data_type = p.dataType;
        op.alg_type = oi->second->alg_type;
        op.count = p.count;
      }
      it = index.emplace(key, out.ops.size()).first;
      out.ops.push_back(std::move(op));
    }
    auto& op = out.ops[it->second];
    if (!t.master) continue;
    op.start_ns = std::min(op.start_ns, t.start_ns);
    op.end_ns = std::max(op.end_ns, t.end_ns);
  }
  // Rank size: that of the collective's last task in host order, as the reference.
  {
    std::vector<const comm_task*> host_order;
    for (const auto& t : out.tasks) host_order.push_back(&t);
    std::stable_sort(host_order.begin(), host_order.end(), [](const comm_task* a, const comm_task* b) {
      return std::tie(a->host_ns, a->start_ns) < std::tie(b->host_ns, b->start_ns);
    });
    for (const auto* t : host_order)
      if (t->has_info) out.ops[index[std::make_tuple(t->op_name, t->group_hash, t->device_id)]].rank_size = t->info.rankSize;
  }
  std::vector<comm_op> kept;
  for (auto& op : out.ops) {
    if (op.start_ns > op.end_ns) {
      out.warnings.push_back("HCCL " + op.name + " has no master task; left out");
      continue;
    }
    kept.push_back(std::move(op));
  }
  out.ops = std::move(kept);
  std::stable_sort(out.ops.begin(), out.ops.end(), [](const comm_op& a, const comm_op& b) { return a.start_ns < b.start_ns; });
  out.rows = group_threads(out);
  return out;
}

void emit_timeline(const communication& c, std::uint32_t pid, std::uint32_t device_id, detail::event_output& out) {
  using detail::add_process_meta;
  using detail::add_thread_meta;
  const auto& threads = c.rows;
  auto first = threads.lower_bound({device_id, std::string()});
  if (first == threads.end() || first->first.first != device_id) return;
  const std::uint64_t p = format_pid(pid, sort_index::communication, device_id);
  add_process_meta(out, p, "Communication", "NPU " + std::to_string(device_id), sort_index::communication);
  for (auto it = first; it != threads.end() && it->first.first == device_id; ++it) {
    const std::string& group = it->first.second;
    const std::uint32_t index = it->second.tid;
    add_thread_meta(out, p, index, group == "N/A" ? "Communication" : "Group " + group + " Communication", index);
    for (auto plane : it->second.planes)
      add_thread_meta(out, p, index + plane + 1, "Plane " + std::to_string(plane), index + plane + 1);
  }
  // Every task's and collective's group has its row (the rows are made from the tasks).
  auto group_tid = [&](const std::string& group) { return threads.find({device_id, group})->second.tid; };
  for (const auto& t : c.tasks) {
    if (t.device_id != device_id || t.info.planeID == no_plane) continue;  // the reference draws no such task
    trace_event e;
    e.name = t.name;
    e.pid = p;
    e.tid = group_tid(t.group) + t.info.planeID + 1;
    e.ts_ns = t.start_ns;
    e.dur_ns = t.end_ns - t.start_ns;
    const auto& i = t.info;
    e.args = {trace_arg::str("notify_id", t.has_info ? std::to_string(i.notifyID) : "N/A"),
              trace_arg::real("duration estimated(us)", i.durationEstimated),
              trace_arg::num("stream id", t.stream_id),
              trace_arg::num("task id", t.task_id),
              trace_arg::num("context id", t.context_id),
              trace_arg::str("task type", t.name),
              trace_arg::num("src rank", i.localRank),
              trace_arg::num("dst rank", i.remoteRank),
              trace_arg::str("transport type", transport_type_name(i.transportType)),
              trace_arg::num("size(Byte)", static_cast<std::int64_t>(i.dataSize)),
              trace_arg::str("data type", data_type_name(i.dataType)),
              trace_arg::str("link type", link_type_name(i.linkType)),
              trace_arg::real("bandwidth(GB/s)", t.bandwidth),
              trace_arg::num("model id", 4294967295LL)};
    out(std::move(e));
  }
  for (const auto& op : c.ops) {
    if (op.device_id != device_id) continue;
    trace_event e;
    e.name = op.name;
    e.pid = p;
    e.tid = group_tid(op.group);
    e.ts_ns = op.start_ns;
    e.dur_ns = op.end_ns - op.start_ns;
    e.args = {trace_arg::num("rank_size", op.rank_size),
              trace_arg::num("connection_id", static_cast<std::int64_t>(op.connection_id)),
              trace_arg::num("model id", 4294967295LL),
              trace_arg::str("data_type", op.has_info ? data_type_name(op.data_type) : "N/A"),
              trace_arg::str("alg_type", op.has_info ? op.alg_type : "N/A"),
              op.has_info ? trace_arg::num("count", static_cast<std::int64_t>(op.count))
                          : trace_arg::str("count", "N/A"),
              trace_arg::str("relay", op.relay == 1 ? "yes" : "no"),
              trace_arg::str("retry", op.retry == 1 ? "yes" : "no")};
    out(std::move(e));
    trace_event f;
    f.ph = 'f';
    f.pid = p;
    f.tid = e.tid;
    f.ts_ns = op.start_ns;
    f.cat = "HostToDevice";
    f.id = std::to_string(detail::host_to_device_id(op.connection_id));
    f.name = "HostToDevice" + f.id;
    f.bp_enclosing = true;
    out(std::move(f));
  }
}

std::vector<std::string> statistic_header() {
  return {"Device_id", "OP Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)"};
}

std::vector<std::vector<std::string>> statistic_rows(const communication& c, std::uint32_t device_id,
                                                     std::int64_t collection_start_ns) {
  // Per collective (its master tasks after the start) its span; per op type
  // count, total, min, avg, max and share of the total, largest share first.
  struct span {
    std::int64_t start = std::numeric_limits<std::int64_t>::max(), end = std::numeric_limits<std::int64_t>::min();
  };
  std::map<std::tuple<std::string, std::int64_t, std::string>, span> spans;
  for (const auto& t : c.tasks) {
    if (t.device_id != device_id || !t.master || t.start_ns < collection_start_ns) continue;
    auto& s = spans[{t.op_name, t.op_host_ns, t.op_type}];
    s.start = std::min(s.start, t.start_ns);
    s.end = std::max(s.end, t.end_ns);
  }
  if (spans.empty()) return {};
  struct row {
    std::string type;
    std::uint64_t count = 0;
    double total = 0, min = std::numeric_limits<double>::infinity(), max = 0;
  };
  std::map<std::string, row> rows;
  double all = 0;
  for (const auto& [k, s] : spans) {
    const double us = static_cast<double>(s.end - s.start) / 1000.0;
    auto& r = rows[std::get<2>(k)];
    r.type = std::get<2>(k);
    ++r.count;
    r.total += us;
    r.min = std::min(r.min, us);
    r.max = std::max(r.max, us);
    all += us;
  }
  std::vector<row> v;
  for (auto& [k, r] : rows) v.push_back(r);
  std::stable_sort(v.begin(), v.end(), [](const row& a, const row& b) { return a.total > b.total; });
  std::vector<std::vector<std::string>> out;
  for (const auto& r : v) {
    if (all == 0) break;
    out.push_back({std::to_string(device_id), r.type, std::to_string(r.count), fewest3(r.total), fewest3(r.min),
                   fewest3(r.total / static_cast<double>(r.count)), fewest3(r.max), fewest3(r.total / all * 100)});
  }
  return out;
}

std::string statistic_csv(const communication& c, std::uint32_t device_id, std::int64_t collection_start_ns) {
  const auto rows = statistic_rows(c, device_id, collection_start_ns);
  if (rows.empty()) return {};
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (k) out += ',';
      append_csv_cell(out, cells[k]);
    }
    out += '\n';
  };
  line(statistic_header());
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE
