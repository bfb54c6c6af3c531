// SPDX-License-Identifier: MIT
// ascend_pytorch_profiler_{rank}.db and analysis.db (ascend_pt/db.hpp): the
// CANN tables by the msprof db writer, then torch_npu's framework tables
// (its DbParser, FwkApiDbParser, StepInfoDbParser, TraceStepTimeDbParser)
// added to the same file before it is renamed into place.
#include "msprof/convert/ascend_pt/db.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "msprof/convert/db.hpp"
#include "msprof/convert/export_files.hpp"
#include "msprof/convert/timeline_event.hpp"
#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

namespace fs = std::filesystem;
using detail::db_value;
using rows = std::vector<std::vector<db_value>>;

constexpr std::int64_t first_string_id = std::int64_t{1} << 28;       // torch_npu START_STRING_ID_FWK_API
constexpr std::int64_t first_fwk_connection = std::int64_t{5} << 28;  // START_CONNECTION_ID_FWK_API
constexpr std::int64_t invalid_string_id = 4294967295;                // DB_INVALID_VALUE: the id of ""
constexpr std::int64_t node_level = 10000;
enum api_type : std::int64_t { torch_op = 50001, task_queue = 50002, python_trace = 50003, mstx_op = 50004 };

std::int64_t global_tid(std::uint64_t pid, std::uint64_t tid) { return static_cast<std::int64_t>((pid << 32) | tid); }

/// A framework table's rows, inserted 64 Ki at a time so that none is ever
/// held whole; the table is created with its first rows (torch_npu writes no
/// empty framework table), or exists already (`columns` nullptr). The first
/// error is kept for finish().
class batched_table {
 public:
  batched_table(detail::sqlite_db& db, std::string name, const char* columns, std::size_t ncols)
      : db_(db), name_(std::move(name)), columns_(columns), ncols_(ncols) {}
  void add(std::vector<db_value>&& r) {
    batch_.push_back(std::move(r));
    if (batch_.size() >= (1u << 16)) flush();
  }
  result<void> finish() {
    flush();
    return status_;
  }

 private:
  void flush() {
    if (batch_.empty() || !status_) return;
    if (!created_ && columns_) status_ = db_.exec("CREATE TABLE IF NOT EXISTS " + name_ + " (" + columns_ + ")");
    created_ = true;
    if (status_) status_ = db_.insert(name_, ncols_, batch_);
    batch_.clear();
  }
  detail::sqlite_db& db_;
  std::string name_;
  const char* columns_;
  std::size_t ncols_;
  rows batch_;
  bool created_ = false;
  result<void> status_;
};

/// torch_npu's id managers: strings from 1 << 28 in registration order ("" is
/// never registered), connection-id lists and call chains numbered from 0;
/// their rows go to STRING_IDS, CONNECTION_IDS and PYTORCH_CALLCHAINS.
struct fwk_ids {
  fwk_ids(batched_table& s, batched_table& c, batched_table& cc)
      : string_rows(s), connection_rows(c), callchain_rows(cc) {}
  batched_table& string_rows;
  batched_table& connection_rows;
  batched_table& callchain_rows;
  std::unordered_map<std::string, std::int64_t> strings;
  std::int64_t connections = 0, callchains = 0;

  std::int64_t str(std::string_view s) {
    if (s.empty()) return invalid_string_id;
    const auto [it, fresh] =
        strings.try_emplace(std::string(s), first_string_id + static_cast<std::int64_t>(strings.size()));
    if (fresh) string_rows.add({it->second, it->first});
    return it->second;
  }
  std::int64_t connection(const std::vector<std::int64_t>& ids) {
    for (auto c : ids) connection_rows.add({connections, c});
    return connections++;
  }
  /// A ';'-separated call stack, one row per frame (torch_npu splits the ";\r\n" it made of each ';').
  std::int64_t callchain(std::string_view stack) {
    std::size_t depth = 0, from = 0;
    for (;;) {
      const std::size_t to = stack.find(';', from);
      callchain_rows.add({callchains, str(stack.substr(from, to - from)), static_cast<std::int64_t>(depth++)});
      if (to == std::string::npos) break;
      from = to + 1;
    }
    return callchains++;
  }
};

/// A PYTORCH_API row being built (torch_npu's api lists).
struct api {
  std::int64_t start = 0, end = 0, gtid = 0;
  std::int64_t corr = 0;                   ///< task queue: the raw correlation id
  std::vector<std::int64_t> connections;   ///< ops: forward/backward and CANN ids
  std::optional<std::int64_t> connection;  ///< the CONNECTION_IDS id, or NULL
  std::int64_t name = 0;
  // NULL when unset (optional, not db_value: a big run holds millions of these).
  std::optional<std::int64_t> seq, fwd_tid, dtypes, shapes, callchain;
  std::int64_t type = 0;
};

db_value or_null(const std::optional<std::int64_t>& v) { return v ? db_value(*v) : db_value(std::monostate{}); }

}  // namespace

// Named (not anonymous): db_export::calls holds them.
namespace db_detail {
/// A CANN call a framework op can own: a node-level launch, or an mstx event.
struct cann_call {
  std::int64_t start = 0, end = 0, gtid = 0;
  std::int64_t connection = 0;
};
using span = std::pair<std::int64_t, std::int64_t>;
}  // namespace db_detail
using db_detail::cann_call;
using db_detail::span;

/// What the framework tables need of the CANN part, gathered window by window
/// (a record or two of numbers per launch and per op task; the CANN tables
/// themselves go into the file as the windows come).
struct db_export::calls {
  std::vector<cann_call> launches;    ///< node-level launch calls, by start (then connection id)
  std::vector<cann_call> mstx;        ///< mstx events, by start (then record order)
  std::vector<cann_call> node_calls;  ///< node-level calls (start, end, connection id), by start
  std::unordered_map<std::uint64_t, span> by_call;     ///< tasks' first start, last end by connection id
  std::map<std::uint32_t, std::vector<span>> compute;  ///< op tasks' spans by device, by start

  /// `links`: the framework's ops can link to calls (its CPU activity).
  void add(const model& w, bool links) {
    for (const auto& a : w.apis) {
      if (a.level != node_level) continue;
      const cann_call c{a.start_ns, a.end_ns, global_tid(w.session.pid, a.thread_id),
                        static_cast<std::int64_t>(a.connection_id)};
      node_calls.push_back(c);
      if (links && a.name == "launch") launches.push_back(c);
    }
    if (links)
      for (const auto& e : w.mstx)
        mstx.push_back({e.start_ns, e.end_ns, global_tid(w.session.pid, e.tid),
                        static_cast<std::int64_t>(detail::mstx_connection_id(e))});
    for (const auto& t : w.tasks) {
      auto& c = by_call.try_emplace(t.connection_id, t.start_ns, t.end_ns).first->second;
      c = {std::min(c.first, t.start_ns), std::max(c.second, t.end_ns)};
      if (t.op) compute[t.device_id].emplace_back(t.start_ns, t.end_ns);
    }
  }
  /// After the last window: each list in the order the whole model gives.
  void sort() {
    const auto by_start_then_id = [](const cann_call& a, const cann_call& b) {
      return a.start != b.start ? a.start < b.start : a.connection < b.connection;
    };
    std::sort(launches.begin(), launches.end(), by_start_then_id);
    std::sort(node_calls.begin(), node_calls.end(), by_start_then_id);
    std::stable_sort(mstx.begin(), mstx.end(), [](const cann_call& a, const cann_call& b) { return a.start < b.start; });
    for (auto& d : compute)
      std::stable_sort(d.second.begin(), d.second.end(), [](const span& a, const span& b) { return a.first < b.first; });
  }
};

namespace {

std::optional<std::int64_t> text_or_null(fwk_ids& ids, std::string_view semicolons) {
  if (semicolons.empty()) return std::nullopt;
  std::string s;
  for (char c : semicolons) {
    s += c;
    if (c == ';') s += "\r\n";  // torch_npu shows list items one a line
  }
  return ids.str(s);
}

/// torch_npu get_torch_op_connection_ids_with_enqueue: the last op (start
/// order, from `from`) of the enqueue's thread that holds the enqueue gets the
/// id. Kept as torch_npu does it, including which index it appends to.
std::size_t bind_enqueue(std::vector<api*>& ops, const api& e, std::size_t from, std::int64_t id) {
  std::size_t last = from;
  bool found = false;
  for (std::size_t i = from; i < ops.size(); ++i) {
    const api& o = *ops[i];
    if (e.gtid != o.gtid || e.start > o.end) continue;
    if (e.start > o.start && e.end < o.end) {
      found = true;
      last = i;
    } else if (found) {
      break;
    }
    if (e.end < o.start) {
      last = i;
      break;
    }
  }
  if (found) ops[last]->connections.push_back(id);
  return last;
}

/// torch_npu get_torch_op_connection_ids_with_task_queue: a CANN call inside a
/// dequeue (same thread, strictly inside) belongs to the op holding the
/// enqueue of the same position among the matched enqueues and dequeues.
void bind_through_queue(const std::vector<api>& enq, const std::vector<api>& deq, std::vector<api*>& ops,
                        const std::vector<cann_call>& calls) {
  std::set<std::int64_t> in_enq, in_deq;
  for (const auto& e : enq) in_enq.insert(e.corr);
  for (const auto& q : deq) in_deq.insert(q.corr);
  std::vector<const api*> enqs, deqs;
  for (const auto& e : enq)
    if (in_deq.count(e.corr)) enqs.push_back(&e);
  for (const auto& q : deq)
    if (in_enq.count(q.corr)) deqs.push_back(&q);
  std::size_t last_deq = 0, last_op = 0;
  for (const auto& c : calls) {
    for (std::size_t i = last_deq; i < deqs.size() && i < enqs.size(); ++i) {
      if (c.gtid != deqs[i]->gtid) continue;
      if (c.start > deqs[i]->start && c.end < deqs[i]->end) {
        last_deq = i;
        last_op = bind_enqueue(ops, *enqs[i], last_op, c.connection);
        break;
      }
      if (deqs[i]->start > c.end) {
        last_deq = i;
        break;
      }
    }
  }
}

/// torch_npu get_torch_op_connection_ids_without_task_queue: a launch belongs
/// to the innermost op of its thread holding it, found when the next op does not.
void bind_direct(std::vector<api*>& ops, const std::vector<cann_call>& calls) {
  bool found = false;
  std::size_t last = 0;
  for (const auto& c : calls) {
    for (std::size_t i = last; i < ops.size(); ++i) {
      const api& o = *ops[i];
      if (o.gtid != c.gtid || c.start > o.end) continue;
      if (c.start > o.start && c.end < o.end) {
        found = true;
        last = i;
      } else if (found) {
        ops[last]->connections.push_back(c.connection);
        found = false;
        break;
      }
      if (c.end < o.start) {
        last = i;
        break;
      }
    }
  }
}

void by_start(std::vector<api*>& v) {
  std::stable_sort(v.begin(), v.end(), [](const api* a, const api* b) { return a->start < b->start; });
}

/// PYTORCH_API rows into `apis`, the id tables' into `ids` (torch_npu
/// FwkFileParser.get_fwk_api, then FwkApiDbParser).
result<void> fwk_apis(const pt_dir& d, const db_export::calls& cann, fwk_ids& ids, batched_table& apis) {
  if (!d.info.cpu || (d.ops.empty() && d.enqueue.empty() && d.dequeue.empty())) return {};
  const std::uint64_t pid =
      !d.ops.empty() ? d.ops.front().pid : (!d.enqueue.empty() ? d.enqueue.front().pid : d.dequeue.front().pid);
  const auto queue_api = [&](const queue_span& q, const std::string& name) {
    api a;
    a.start = q.ts;
    a.end = q.ts + q.dur;
    a.gtid = global_tid(pid, q.tid);
    a.corr = static_cast<std::int64_t>(q.corr_id);
    a.connection = ids.connection({a.corr + first_fwk_connection});
    a.name = ids.str(name);
    a.type = task_queue;
    return a;
  };
  std::vector<api> deq, enq;
  std::map<std::uint64_t, std::string_view> deq_name;
  MSPROF_TRY(d.dequeue.each([&](const queue_span& q) {
    deq.push_back(queue_api(q, "Dequeue@" + std::string(q.name)));
    deq_name[q.corr_id] = q.name;
  }));
  std::int64_t max_corr = -1;
  MSPROF_TRY(d.enqueue.each([&](const queue_span& q) {
    const auto n = deq_name.find(q.corr_id);
    enq.push_back(queue_api(q, n == deq_name.end() ? std::string("Enqueue") : "Enqueue@" + std::string(n->second)));
    max_corr = std::max(max_corr, static_cast<std::int64_t>(q.corr_id));
  }));

  // Ops in file order; mstx_* ops apart (linked to MSTX_EVENTS, no forward/backward pairs).
  std::vector<api> ops;
  std::vector<bool> is_mstx;
  struct fwd_bwd {
    std::optional<std::size_t> fwd, bwd;
  };
  std::vector<std::pair<std::int64_t, fwd_bwd>> pairs;  // by sequence number, first-seen order
  auto read = d.ops.each([&](const fw_op& o) {
    api a;
    a.start = o.start_ns;
    a.end = o.end_ns;
    a.gtid = global_tid(pid, o.tid);
    a.name = ids.str(o.name);
    a.seq = o.seq;
    a.fwd_tid = static_cast<std::int64_t>(o.fwd_tid);
    a.dtypes = text_or_null(ids, o.input_dtypes);
    a.shapes = text_or_null(ids, o.input_shapes);
    if (!o.call_stack.empty()) a.callchain = ids.callchain(o.call_stack);
    a.type = torch_op;
    const bool mstx = o.name.rfind("mstx_", 0) == 0;
    if (!mstx && o.seq >= 0) {
      auto p = std::find_if(pairs.begin(), pairs.end(), [&](const auto& e) { return e.first == o.seq; });
      if (p == pairs.end()) p = pairs.insert(pairs.end(), {o.seq, {}});
      (o.fwd_tid == 0 ? p->second.fwd : p->second.bwd) = ops.size();
    }
    ops.push_back(std::move(a));
    is_mstx.push_back(mstx);
  });
  if (!read) return read;
  // Forward/backward ids after the task queue's correlation ids.
  std::int64_t next_pair = max_corr + 1;
  for (const auto& [seq, p] : pairs) {
    if (!p.fwd || !p.bwd) continue;
    ops[*p.fwd].connections.push_back(next_pair + first_fwk_connection);
    ops[*p.bwd].connections.push_back(next_pair + first_fwk_connection);
    ++next_pair;
  }
  std::vector<api*> torch_ops, mstx_ops;
  for (std::size_t i = 0; i < ops.size(); ++i) (is_mstx[i] ? mstx_ops : torch_ops).push_back(&ops[i]);
  for (const auto& c : python_functions(d))
    apis.add({std::to_string(c.ts), std::to_string(c.end), global_tid(c.pid, c.tid), std::monostate{}, ids.str(c.name),
              std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{},
              std::int64_t{python_trace}});

  const bool queue = !enq.empty() && !deq.empty();
  // CANN_API exists when the PROF_ data has calls; torch_npu links through node-level launches.
  const std::vector<cann_call>& launches = cann.launches;
  if (!torch_ops.empty() && !launches.empty()) {
    by_start(torch_ops);
    if (queue)
      bind_through_queue(enq, deq, torch_ops, launches);
    else
      bind_direct(torch_ops, launches);
  }
  if (!mstx_ops.empty() && !cann.mstx.empty()) {
    by_start(mstx_ops);
    if (queue) bind_through_queue(enq, deq, mstx_ops, cann.mstx);
  }
  const auto emit = [&](api& a) {
    if (!a.connections.empty()) a.connection = ids.connection(a.connections);
    apis.add({std::to_string(a.start), std::to_string(a.end), a.gtid, or_null(a.connection), a.name, or_null(a.seq),
              or_null(a.fwd_tid), or_null(a.dtypes), or_null(a.shapes), or_null(a.callchain), a.type});
  };
  for (auto& a : enq) emit(a);
  for (auto& a : deq) emit(a);
  for (auto* a : torch_ops) emit(*a);
  for (auto* a : mstx_ops) emit(*a);
  return {};
}

/// The ProfilerStep ops at the top of the op tree (torch_npu is_profiler_step).
std::vector<const fw_op*> step_ops(const relation& rel) {
  std::vector<const fw_op*> out;
  for (const auto& s : rel.steps) out.push_back(&s.op);
  return out;
}

std::string step_id(const fw_op& o) { return std::string(o.name.substr(o.name.rfind('#') + 1)); }

/// StepTraceTime rows (torch_npu StepInfoDbParser.get_step_range, then
/// TraceStepTimeDbParser) from the CANN data alone: each step's device range
/// spans the tasks of the node-level calls inside the step op (to at least the
/// op's end); computing and free time come from the compute tasks starting in
/// it. No communication data yet: those columns stay 0.
result<rows> step_trace_rows(const pt_dir& d, const db_export::calls& cann, const relation& rel) {
  constexpr std::int64_t forever = std::numeric_limits<std::int64_t>::max();
  struct range {
    db_value id;
    std::int64_t start = 0, end = 0, fwk_start = 0;
    bool has_step = false;
  };
  const auto& by_call = cann.by_call;
  // Tasks of the node-level calls in [from, to] (node_calls are sorted by start).
  const auto task_span = [&](std::int64_t from, std::int64_t to) {
    std::optional<span> out;
    auto a = std::lower_bound(cann.node_calls.begin(), cann.node_calls.end(), from,
                              [](const cann_call& c, std::int64_t v) { return c.start < v; });
    for (; a != cann.node_calls.end() && a->start <= to; ++a) {
      if (a->end > to) continue;
      const auto t = by_call.find(static_cast<std::uint64_t>(a->connection));
      if (t == by_call.end()) continue;
      const span& s = t->second;
      out = out ? span{std::min(out->first, s.first), std::max(out->second, s.second)} : s;
    }
    return out;
  };
  std::vector<range> ranges;
  const auto steps = step_ops(rel);
  for (const fw_op* s : steps) {
    const auto tasks = task_span(s->start_ns, s->end_ns);
    ranges.push_back({step_id(*s), tasks ? tasks->first : s->start_ns, std::max(tasks ? tasks->second : -1, s->end_ns),
                      s->start_ns, true});
  }
  if (steps.empty()) {
    const auto tasks = task_span(std::numeric_limits<std::int64_t>::min(), forever);
    ranges.push_back({std::monostate{}, tasks ? tasks->first : 0, forever, 0, false});
  }
  std::optional<std::int64_t> first_op;  // the first non-mstx op (torch_npu's torch op list)
  auto read = d.ops.each([&](const fw_op& o) {
    if (o.name.rfind("mstx_", 0) != 0 && (!first_op || o.start_ns < *first_op)) first_op = o.start_ns;
  });
  if (!read) return read.err();

  const auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  rows out;
  for (const auto& device_tasks : cann.compute) {
    const std::uint32_t device = device_tasks.first;
    const auto& tasks = device_tasks.second;  // a plain reference: lambdas may not capture a structured binding in C++17
    const auto starting = [&](std::int64_t v) {
      return std::lower_bound(tasks.begin(), tasks.end(), v, [](const span& t, std::int64_t x) { return t.first < x; });
    };
    for (const auto& r : ranges) {
      std::vector<span> merged;
      for (auto t = starting(r.start), end = starting(r.end); t != end; ++t) {
        if (!merged.empty() && t->first <= merged.back().second)
          merged.back().second = std::max(merged.back().second, t->second);
        else
          merged.push_back(*t);
      }
      std::int64_t busy = 0, free = 0, stage = 0, prepare = 0;
      for (std::size_t i = 0; i < merged.size(); ++i) {
        busy += merged[i].second - merged[i].first;
        if (i) free += merged[i].first - merged[i - 1].second;
      }
      if (!merged.empty()) {
        std::int64_t hi = merged.front().second;
        for (const auto& iv : merged) hi = std::max(hi, iv.second);
        stage = hi - merged.front().first;
        const std::int64_t first_task = merged.front().first;
        if (first_task != 0) prepare = first_task - (r.has_step ? r.fwk_start : first_op.value_or(first_task));
      }
      out.push_back({static_cast<std::int64_t>(device), r.id, us(busy), 0.0, 0.0, 0.0, us(free), us(stage), 0.0, 0.0,
                     us(prepare)});
    }
  }
  return out;
}

/// META_DATA rows torch_npu adds: the analysing process's environment
/// (its collect_env_vars list) and each profiler_metadata.json member, as json.dumps writes them.
rows meta_rows(const pt_dir& d, std::vector<std::string>& warnings) {
  static const char* const env_names[] = {"ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC",           "HCCL_RDMA_SL",
                                          "ACLNN_CACHE_LIMIT",       "HOST_CACHE_CAPACITY",    "ASCEND_ENHANCE_ENABLE",
                                          "PYTORCH_NPU_ALLOC_CONF",  "ASCEND_LAUNCH_BLOCKING", "HCCL_ALGO"};
  json::value env = json::value::make_object();
  for (const char* n : env_names) {
    const char* v = std::getenv(n);
    env.set(n, json::value::make_string(v ? v : ""));
  }
  std::string text;
  json::dump(env, text);
  rows out{{std::string("ENV_VARIABLES"), text}};
  const std::string file = (fs::path(d.dir) / "profiler_metadata.json").string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  auto body = read_file(file);
  if (!body) {
    warnings.push_back(body.err().message + "; its META_DATA rows are left out");
    return out;
  }
  auto doc = json::parse(*body, file);
  if (!doc || !doc->is_object()) {
    warnings.push_back((doc ? file + ": not a JSON object" : doc.err().message) + "; its META_DATA rows are left out");
    return out;
  }
  for (const auto& [key, value] : doc->members()) {
    text.clear();
    json::dump(value, text);
    out.push_back({key, text});
  }
  return out;
}

/// Writes one SQLite file into `out` under a temporary name, renamed when `fill` succeeded.
template <class F>
result<std::string> write_sqlite(const outfile::dir& out, const std::string& name, F fill) {
  auto f = outfile::atomic_file::create(out, name);
  if (!f) return f.err();
  MSPROF_TRY(fill(detail::sqlite_path(out, *f)));
  MSPROF_TRY(f->commit());
  return (fs::path(out.path()) / name).string();
}

result<void> create_and_fill(detail::sqlite_db& db, const std::string& table, const char* columns, std::size_t ncols,
                             const rows& r) {
  MSPROF_TRY(db.exec("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ")"));
  return db.insert(table, ncols, r);
}

}  // namespace

std::string framework_db_name(const pt_dir& d) {
  const bool mindspore = framework_of(d.dir) == framework_kind::mindspore;
  const std::string stem = mindspore ? "ascend_mindspore_profiler" : "ascend_pytorch_profiler";
  return d.info.rank_id == -1 ? stem + ".db" : stem + "_" + std::to_string(d.info.rank_id) + ".db";
}

db_export::db_export(const outfile::dir& out, std::string spill_dir, std::size_t spill_budget)
    : out_(out), spill_dir_(std::move(spill_dir)), spill_budget_(spill_budget), cann_(std::make_unique<calls>()) {}

db_export::~db_export() = default;

void db_export::add(const model& w, const pt_dir& d) {
  if (!status_) return;
  if (!file_) {
    auto f = outfile::atomic_file::create(out_, framework_db_name(d));
    if (!f) {
      status_ = f.err();
      return;
    }
    file_.emplace(std::move(*f));
    writer_ = std::make_unique<db_window_writer>(detail::sqlite_path(out_, *file_), spill_dir_, spill_budget_);
  }
  status_ = writer_->add(w);
  cann_->add(w, d.info.cpu);
}

result<std::vector<std::string>> db_export::finish(const pt_dir& d, const model& m, const relation& rel,
                                                   std::vector<std::string>& warnings) {
  if (!file_) add(m, d);  // no window: the CANN tables of the final model alone
  MSPROF_TRY(status_);
  cann_->sort();
  std::vector<std::string> files;
  const auto fill = [&](const std::string& path) -> result<void> {
    MSPROF_TRY(writer_->finish(m));
    writer_.reset();
    detail::sqlite_db db(path);
    MSPROF_TRY(db.open());
    // torch_npu's DbParser: the rank of profiler_info with the PROF_'s first device.
    if (d.info.rank_id != -1 && !m.session.devices.empty()) {
      MSPROF_TRY(db.exec("DELETE FROM RANK_DEVICE_MAP"));
      MSPROF_TRY(db.insert("RANK_DEVICE_MAP", 2, {{d.info.rank_id, std::int64_t{m.session.devices.front().id}}}));
    }
    MSPROF_TRY(db.insert("META_DATA", 2, meta_rows(d, warnings)));

    batched_table apis(db, "PYTORCH_API",
                       "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                       "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, "
                       "inputShapes INTEGER, callchainId INTEGER, type INTEGER",
                       11);
    batched_table strings(db, "STRING_IDS", nullptr, 2);
    batched_table connections(db, "CONNECTION_IDS", "id INTEGER, connectionId INTEGER", 2);
    batched_table callchains(db, "PYTORCH_CALLCHAINS", "id INTEGER, stack INTEGER, stackDepth INTEGER", 3);
    {
      fwk_ids ids(strings, connections, callchains);
      MSPROF_TRY(fwk_apis(d, *cann_, ids, apis));
    }
    MSPROF_TRY(apis.finish());
    MSPROF_TRY(strings.finish());
    MSPROF_TRY(connections.finish());
    MSPROF_TRY(callchains.finish());
    MSPROF_TRY(db.insert("ENUM_API_TYPE", 2,
                         {{std::int64_t{torch_op}, std::string("op")},
                          {std::int64_t{task_queue}, std::string("queue")},
                          {std::int64_t{python_trace}, std::string("trace")},
                          {std::int64_t{mstx_op}, std::string("mstx")}}));
    rows steps;
    for (const fw_op* s : step_ops(rel)) steps.push_back({step_id(*s), s->start_ns, s->end_ns});
    if (!steps.empty())
      MSPROF_TRY(create_and_fill(db, "STEP_TIME", "id INTEGER, startNs INTEGER, endNs INTEGER", 3, steps));
    return db.close();
  };
  MSPROF_TRY(fill(detail::sqlite_path(out_, *file_)));
  MSPROF_TRY(file_->commit());
  files.push_back((fs::path(out_.path()) / framework_db_name(d)).string());

  // torch_npu finds no step range at Level_none and writes no analysis.db.
  if (d.info.level == "Level_none") return files;
  auto analysis = write_sqlite(out_, "analysis.db", [&](const std::string& path) -> result<void> {
    detail::sqlite_db db(path);
    MSPROF_TRY(db.open());
    auto step_rows = step_trace_rows(d, *cann_, rel);
    if (!step_rows) return step_rows.err();
    MSPROF_TRY(create_and_fill(db, "StepTraceTime",
                               "deviceId INTEGER, step TEXT, computing NUMERIC, communication_not_overlapped NUMERIC, "
                               "overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, "
                               "bubble NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, "
                               "preparing NUMERIC",
                               11, std::move(*step_rows)));
    return db.close();
  });
  if (!analysis) return analysis.err();
  files.push_back(std::move(*analysis));
  return files;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
