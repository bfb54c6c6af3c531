// SPDX-License-Identifier: MIT
// Framework ops to kernels and steps, as torch_npu 9e73e708a links them
// (TreeBuilder.build_tree, FwkCANNRelationParser): the ops and enqueue spans
// form one tree by start time; an enqueue's correlation id belongs to the op
// that holds it and to that op's ancestors; a dequeue that encloses a launch
// API's start binds that launch's kernels to its correlation id. A
// ProfilerStep#N op at the top of the tree then spans, on the device, from
// the first kernel of its first bound correlation id to the later of its own
// end and the last kernel's end. The tree is never held: one pass over the
// ops in start order (a sorted run) keeps only the open ops on a stack, and
// what each op gives the outputs goes to sorted runs. Nor are the kernels:
// the launches meet the dequeues in one merge, the kernels by correlation id
// meet the enqueues sorted by it, and each enqueue (or, without a task queue,
// launch) enters the pass with its own.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "msprof/convert/ascend_pt/analyse.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/convert/timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

std::string py_num::str() const {
  return is_float ? py_float(v) : std::to_string(static_cast<long long>(v));
}

namespace {

using kernels = std::vector<kernel_ref>;

/// Kernels of a sorted run of kernel_ref rows, one group of equal keys at a
/// time (`same(a, b)`: a and b are of one group).
template <class Key, class Same>
class kernel_groups {
 public:
  kernel_groups(spill_sorter<Key>& src, Same same) : src_(src), same_(same) { pull(); }
  bool more() const noexcept { return has_; }
  const Key& key() const noexcept { return key_; }
  /// The group at key(), then the next one's key.
  void take(kernels& out) {
    out.clear();
    const Key first = key_;
    while (has_ && same_(key_, first)) {
      out.push_back(k_);
      pull();
    }
  }
  result<void> status() { return src_.take_status(); }

 private:
  void pull() {
    std::string_view p;
    has_ = src_.next(key_, p);
    if (has_) std::memcpy(static_cast<void*>(&k_), p.data(), sizeof k_);
  }
  spill_sorter<Key>& src_;
  Same same_;
  Key key_{};
  kernel_ref k_;
  bool has_ = false;
};

struct id_key {
  std::int64_t id;
  bool operator<(const id_key& b) const noexcept { return id < b.id; }
};

/// Correlation ids -> kernels (`out`, in the order each id gets them): each
/// launch start (ascending) goes to the first dequeue, in list order, that has
/// not ended before it, if that one encloses it.
result<void> kernels_by_corr(const spilled_list<queue_span>& dequeue, launch_runs& acl, spill_sorter<id_key>& out) {
  kernel_groups launch(acl, [](const launch_key& a, const launch_key& b) { return a.start == b.start; });
  kernels ks;
  MSPROF_TRY(dequeue.each([&](const queue_span& q) {
    while (launch.more()) {
      const std::int64_t start = launch.key().start;
      if (q.ts > start) {  // before every dequeue left: unbound
        launch.take(ks);
        continue;
      }
      if (start > q.ts + q.dur) return;  // this dequeue ended before it: the next one
      launch.take(ks);
      for (const auto& k : ks) out.push({static_cast<std::int64_t>(q.corr_id)}, record_bytes(k));
    }
  }));
  return launch.status();
}

/// The op tree, one pass in start order (torch_npu TreeBuilder.build_tree):
/// ops and enqueues by start (an op before an enqueue of the same time); an
/// item starting after the top op's end closes it; an op opens as the child of
/// the top one; an enqueue's correlation id is bound to the top op when it is
/// of the same thread (self) and to it and its ancestors (total). Without a
/// task queue, each launch is bound to the innermost op running at its start
/// (TreeBuilder.update_tree_node_info: the last child of each to start at or
/// before it, while that one has not ended), and to the step holding it. Each
/// id comes with its kernels. A closed op's row, and each self-bound id's
/// flows, go to the sorted runs under the op's number in start order.
class tree_pass {
 public:
  /// `memory_pid`: whose ops operator_memory's queries (memory()) are about.
  tree_pass(relation& r, bool text, std::optional<std::uint64_t> memory_pid, bool launches)
      : r_(r), text_(text), memory_pid_(memory_pid), launches_(launches) {}

  void op(const fw_op& o) {
    close_before(o.start_ns);
    const std::uint64_t node = ++nodes_;
    if (memory_pid_) {
      const std::uint64_t parent = open_.empty() ? 0 : open_.back().node;
      chain_.emplace(node, chain_node{o.name, o.end_ns, parent, 1});  // the open stack's reference
      if (parent) ++chain_.at(parent).refs;
      const std::string_view name = r_.texts[o.name];
      if (o.pid == *memory_pid_ && name != "empty_tensor" && name != "malloc_workspace") {
        ++chain_.at(node).refs;
        auto [it, fresh] = last_.try_emplace(o.tid, node);
        if (!fresh) {
          release(it->second);
          it->second = node;
        }
      }
    }
    // The launches waiting for the parent's first child (the root's: for the first op).
    std::vector<parked_launch> waiting;
    if (!open_.empty()) {
      open_.back().children_ns += o.end_ns - o.start_ns;
      open_.back().has_child = true;
      waiting.swap(open_.back().parked);
    } else if (node == 1) {
      waiting.swap(root_parked_);
    }
    open_op n;
    n.op = o;
    n.node = node;
    if (open_.empty() && o.step) {
      n.step = r_.steps.size();
      r_.steps.emplace_back();
      r_.steps.back().op = o;
    }
    open_.push_back(std::move(n));
    for (auto& w : waiting) {
      if (o.end_ns > w.start) {
        add_total(open_.size() - 1, w.start, w.ks);
        open_.back().parked.push_back(std::move(w));
      } else if (open_.size() > 1) {
        add_self(open_.size() - 2, w.ks);
      }
    }
  }

  void enqueue(const queue_span& e, const kernels& ks) {
    close_before(e.ts);
    if (open_.empty() || open_.back().op.tid != e.tid) return;
    const std::size_t top = open_.size() - 1;
    const auto id = static_cast<std::int64_t>(e.corr_id);
    add_self(top, ks);
    for (std::size_t j = 0; j <= top; ++j) add_total(j, id, ks);
  }

  /// Without a task queue: a launch at `start`, after every op starting at or
  /// before it. Each op on the path gets it (total) while the last child of
  /// the one before, started at or before it, has not ended; the last one on
  /// the path (self). An op without children yet keeps it until its first
  /// child comes: torch_npu's search takes a node's first child when none
  /// started before the launch, and descends into it when it has not ended.
  void launch(std::int64_t start, const kernels& ks) {
    step_launch(start, ks);
    if (nodes_ == 0) {
      root_parked_.push_back({start, ks});
      return;
    }
    std::size_t k = 0;
    for (; k < open_.size() && open_[k].op.end_ns > start; ++k) add_total(k, start, ks);
    if (k == 0) return;
    if (k == open_.size() && !open_[k - 1].has_child)
      open_[k - 1].parked.push_back({start, ks});
    else
      add_self(k - 1, ks);
  }

  /// operator_memory's query `q` (asked after every op starting at or before q.ts).
  void memory(const memory_query& q) {
    const auto last = last_.find(q.tid);
    for (std::uint64_t n = last == last_.end() ? 0 : last->second; n;) {
      const chain_node& c = chain_.at(n);
      const std::string_view name = r_.texts[c.name];
      const bool found = q.enq ? name.rfind("aten", 0) == 0 || name.rfind("npu", 0) == 0 : c.end_ns >= q.ts;
      if (found) {
        r_.memory_names->push(q.block, record_bytes(c.name));
        return;
      }
      n = c.parent;
    }
  }

  void finish() {
    while (!open_.empty()) close_top();
  }

 private:
  static constexpr std::size_t no_step = static_cast<std::size_t>(-1);
  struct parked_launch {
    std::int64_t start;
    kernels ks;
  };
  struct open_op {
    fw_op op;
    std::uint64_t node = 0;
    std::size_t step = no_step;  ///< its index in r.steps, or no_step
    std::int64_t children_ns = 0;
    py_num dev[4];
    bool has_child = false;
    std::vector<parked_launch> parked;  ///< launches waiting for its first child (no task queue)
  };

  /// An op as operator_memory's queries walk up from it: kept while it is
  /// open, the last of its thread, or an ancestor of one of those.
  struct chain_node {
    text_table::id name;
    std::int64_t end_ns;
    std::uint64_t parent;  ///< 0: the root
    std::size_t refs;
  };
  void release(std::uint64_t n) {
    while (n) {
      auto it = chain_.find(n);
      if (--it->second.refs) return;
      n = it->second.parent;
      chain_.erase(it);
    }
  }

  void close_before(std::int64_t ts) {
    while (!open_.empty() && ts > open_.back().op.end_ns) close_top();
  }

  /// An id with kernels `ks` bound to open_[k] itself: its device sums and its flows.
  void add_self(std::size_t k, const kernels& ks) {
    add(ks, open_[k].dev[0], open_[k].dev[2]);
    if (!text_ || ks.empty()) return;
    const open_op& n = open_[k];
    payload_.clear();
    payload_.append(record_bytes(relation::flow_source{n.op.pid, n.op.tid, n.op.start_ns}));
    for (const auto& kr : ks) payload_.append(record_bytes(relation::flow_target{kr.ts, kr.pid, kr.tid}));
    r_.flows->push(n.node, payload_);
  }

  /// Id `id` bound to open_[k] or below it.
  void add_total(std::size_t k, std::int64_t id, const kernels& ks) {
    add(ks, open_[k].dev[1], open_[k].dev[3]);
    if (open_[k].step == no_step || launches_) return;  // without a task queue: step_launch
    bind_step(r_.steps[open_[k].step], id, ks);
  }

  /// Without a task queue, launch starts go to the step that holds them, ends
  /// included (torch_npu _update_step_node_info, on steps by start: every
  /// step starting at or before a launch is known when it comes).
  void step_launch(std::int64_t start, const kernels& ks) {
    while (step_ < r_.steps.size()) {
      step_op& s = r_.steps[step_];
      if (s.op.start_ns <= start && start <= s.op.end_ns) {
        bind_step(s, start, ks);
        return;
      }
      if (start < s.op.start_ns) return;
      ++step_;
    }
  }

  static void bind_step(step_op& s, std::int64_t id, const kernels& ks) {
    s.any_id = true;
    if (ks.empty()) return;
    if (!s.any_kernel || id < s.first_id) {
      s.first_id = id;
      s.first_ts = ks.front().ts;
      for (const auto& k : ks) s.first_ts = std::min(s.first_ts, k.ts);
    }
    if (!s.any_kernel || id > s.last_id) {
      s.last_id = id;
      s.last_end = ks.front().end_ns;
      for (const auto& k : ks) s.last_end = std::max(s.last_end, k.end_ns);
    }
    s.any_kernel = true;
  }

  static void add(const kernels& ks, py_num& all, py_num& aic) {
    for (const auto& k : ks) {
      all.add(k.dur_us);
      if (k.ai_core)
        aic.add(k.dur_us);
      else
        aic.add_int(0);
    }
  }

  void close_top() {
    for (const auto& p : open_.back().parked) add_self(open_.size() - 1, p.ks);  // no child ran at it
    const open_op& n = open_.back();
    if (text_ && !n.op.step) {
      op_detail row;
      row.name = n.op.name;
      row.input_shapes = n.op.input_shapes;
      row.call_stack = n.op.call_stack;
      row.total_ns = n.op.end_ns - n.op.start_ns;
      row.self_ns = row.total_ns - n.children_ns;
      for (int i = 0; i < 4; ++i) row.dev[i] = n.dev[i];
      r_.details->push(n.node, record_bytes(row));
    }
    if (memory_pid_) release(n.node);
    open_.pop_back();
  }

  relation& r_;
  bool text_;
  std::optional<std::uint64_t> memory_pid_;
  bool launches_;
  std::unordered_map<std::uint64_t, chain_node> chain_;  ///< by node number
  std::unordered_map<std::uint64_t, std::uint64_t> last_;  ///< thread -> its last op's node (memory_pid's)
  std::uint64_t nodes_ = 0;
  std::vector<open_op> open_;
  std::vector<parked_launch> root_parked_;  ///< launches before the first op
  std::size_t step_ = 0;                    ///< step_launch's place in r.steps
  std::string payload_;
};

}  // namespace

relation link(const pt_dir& d, std::unique_ptr<launch_runs> acl, const link_options& o) {
  relation r;
  r.texts = d.texts;
  if (!d.info.cpu || d.ops.empty()) return r;
  r.linked = true;
  std::error_code ec;
  std::string dir = o.spill_dir;
  if (dir.empty()) dir = std::filesystem::temp_directory_path(ec).string();
  if (dir.empty()) dir = "/tmp";
  if (!acl) acl = std::make_unique<launch_runs>(dir, o.spill_budget);
  if (o.text) {
    r.details = std::make_unique<spill_sorter<std::uint64_t>>(dir, o.spill_budget);
    r.flows = std::make_unique<spill_sorter<std::uint64_t>>(dir, o.spill_budget);
  }
  const auto fail = [&](const std::string& what, const error& e) {
    r.error = what + e.what();
    return std::move(r);
  };
  // Ops (kind 0), enqueues (1) and, without a task queue, launches (2) by
  // start, each kind in its own order at equal times: one sorted run of their
  // bytes. An enqueue carries the kernels of its correlation id, a launch its
  // own: a launch comes after the ops starting at or before it. operator_memory's
  // queries (3) come after them too.
  struct item_key {
    std::int64_t ts;
    std::uint8_t kind;
    std::uint64_t n;
    bool operator<(const item_key& b) const noexcept {
      return ts != b.ts ? ts < b.ts : kind != b.kind ? kind < b.kind : n < b.n;
    }
  };
  spill_sorter<item_key> items(dir, o.spill_budget);
  std::uint64_t n = 0;
  auto pushed = d.ops.each([&](const fw_op& op) { items.push({op.start_ns, 0, n++}, record_bytes(op)); });
  if (!pushed) return fail("", pushed.err());
  const bool launches = !d.has_task_queue;
  kernels ks;
  std::string payload;
  if (launches) {
    kernel_groups g(*acl, [](const launch_key& a, const launch_key& b) { return a.start == b.start; });
    while (g.more()) {
      const std::int64_t start = g.key().start;
      g.take(ks);
      r.any_kernel = true;
      items.push({start, 2, 0}, std::string_view(reinterpret_cast<const char*>(ks.data()), ks.size() * sizeof ks[0]));
    }
    if (auto s = g.status(); !s) return fail("the launches could not be read back: ", s.err());
  } else {
    // Kernels by id: by correlation id through the dequeues, or, without
    // dequeues, by launch start (no enqueue's id is one then, as torch_npu has it).
    spill_sorter<id_key> by_id(dir, o.spill_budget);
    if (d.dequeue.empty()) {
      pushed = acl->drain([&](const launch_key& k, std::string_view p) { by_id.push({k.start}, p); });
      if (!pushed) return fail("the launches could not be read back: ", pushed.err());
    } else if (auto k = kernels_by_corr(d.dequeue, *acl, by_id); !k) {
      return fail("the launches could not be bound to the dequeues: ", k.err());
    }
    r.any_kernel = by_id.size() > 0;
    // Enqueues by correlation id meet the kernels, then go to the items.
    struct enq_key {
      std::int64_t corr;
      std::uint64_t n;
      bool operator<(const enq_key& b) const noexcept { return corr != b.corr ? corr < b.corr : n < b.n; }
    };
    spill_sorter<enq_key> enq(dir, o.spill_budget);
    n = 0;
    pushed = d.enqueue.each([&](const queue_span& e) { enq.push({static_cast<std::int64_t>(e.corr_id), n++}, record_bytes(e)); });
    if (!pushed) return fail("", pushed.err());
    kernel_groups g(by_id, [](const id_key& a, const id_key& b) { return a.id == b.id; });
    std::optional<std::int64_t> id;  // whose kernels `ks` holds
    kernels skipped;
    pushed = enq.drain([&](const enq_key& k, std::string_view p) {
      if (!id || *id != k.corr) {
        while (g.more() && g.key().id < k.corr) g.take(skipped);
        ks.clear();
        if (g.more() && g.key().id == k.corr) g.take(ks);
        id = k.corr;
      }
      queue_span e;
      std::memcpy(static_cast<void*>(&e), p.data(), sizeof e);
      payload.assign(p);
      payload.append(reinterpret_cast<const char*>(ks.data()), ks.size() * sizeof ks[0]);
      items.push({e.ts, 1, k.n}, payload);
    });
    if (!pushed) return fail("the enqueues could not be put in correlation order: ", pushed.err());
    if (auto s = g.status(); !s) return fail("the kernels could not be read back: ", s.err());
  }
  // operator_memory's queries, after the ops starting at or before them.
  const bool memory = o.memory && d.memory_pid && !o.memory->queries.empty();
  if (memory) {
    r.memory_names = std::make_unique<spill_sorter<std::uint64_t>>(dir, o.spill_budget);
    pushed = o.memory->queries.each([&](const memory_query& q) { items.push({q.ts, 3, q.block}, record_bytes(q)); });
    if (!pushed) return fail("", pushed.err());
  }
  tree_pass t(r, o.text, memory ? d.memory_pid : std::nullopt, launches);
  fw_op op;
  queue_span e;
  const auto kernels_of = [&](std::string_view p) {
    ks.resize(p.size() / sizeof(kernel_ref));
    if (!ks.empty()) std::memcpy(static_cast<void*>(ks.data()), p.data(), ks.size() * sizeof(kernel_ref));
  };
  auto drained = items.drain([&](const item_key& k, std::string_view p) {
    if (k.kind == 0) {
      std::memcpy(static_cast<void*>(&op), p.data(), sizeof op);
      t.op(op);
    } else if (k.kind == 1) {
      std::memcpy(static_cast<void*>(&e), p.data(), sizeof e);
      kernels_of(p.substr(sizeof e));
      t.enqueue(e, ks);
    } else if (k.kind == 3) {
      memory_query q;
      std::memcpy(static_cast<void*>(&q), p.data(), sizeof q);
      t.memory(q);
    } else {
      kernels_of(p);
      t.launch(k.ts, ks);
    }
  });
  t.finish();
  if (!drained) r.error = "the framework ops could not be put in start order: " + drained.err().what();
  return r;
}

std::string step_id(const relation& r, const fw_op& step) {
  const std::string_view name = r.texts[step.name];
  return std::string(name.substr(name.rfind('#') + 1));
}

std::vector<step_range> step_ranges(const relation& r) {
  if (!r.any_kernel || !r.linked || r.steps.empty()) return {};
  std::vector<step_range> out;
  for (const auto& s : r.steps) {
    if (!s.any_id) continue;  // torch_npu: "no flow events in the step range"
    step_range sr;
    sr.id = step_id(r, s.op);
    sr.start_ns = s.any_kernel ? s.first_ts : s.op.start_ns;
    sr.end_ns = std::max(s.any_kernel ? s.last_end : -1, s.op.end_ns);
    sr.fwk_start_ns = s.op.start_ns;
    out.push_back(std::move(sr));
  }
  return out;
}

std::vector<hccl::pt_step> comm_steps(const std::vector<step_range>& steps) {
  std::vector<hccl::pt_step> out;
  for (const auto& s : steps) out.push_back({s.id, s.start_ns, s.end_ns});
  return out;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
