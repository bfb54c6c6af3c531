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
// what each op gives the outputs goes to sorted runs when it closes.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
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

/// Correlation ids -> kernels: each launch start (ascending) goes to the first
/// dequeue, in list order, that has not ended before it, if that one encloses it.
/// The kernels are moved out of `acl` (one copy of each at a time).
result<std::map<std::int64_t, std::vector<kernel_ref>>> kernels_by_corr(
    const spilled_list<queue_span>& dequeue, std::map<std::int64_t, std::vector<kernel_ref>>& acl) {
  std::map<std::int64_t, std::vector<kernel_ref>> out;
  auto launch = acl.begin();
  MSPROF_TRY(dequeue.each([&](const queue_span& q) {
    for (; launch != acl.end(); ++launch) {
      const std::int64_t start = launch->first;
      if (q.ts > start) continue;            // before every dequeue left: unbound
      if (start > q.ts + q.dur) return;      // this dequeue ended before it: the next one
      auto& kernels = launch->second;
      auto& v = out[static_cast<std::int64_t>(q.corr_id)];
      if (v.empty())
        v = std::move(kernels);
      else
        v.insert(v.end(), kernels.begin(), kernels.end());
      kernels = {};
    }
  }));
  return out;
}

bool is_step(const fw_op& o) { return o.name.find("ProfilerStep#") != std::string_view::npos; }

/// The op tree, one pass in start order (torch_npu TreeBuilder.build_tree):
/// ops and enqueues by start (an op before an enqueue of the same time); an
/// item starting after the top op's end closes it; an op opens as the child of
/// the top one; an enqueue's correlation id is bound to the top op when it is
/// of the same thread (self) and to it and its ancestors (total). Without a
/// task queue, each launch is bound to the innermost op running at its start
/// (TreeBuilder.update_tree_node_info: the last child of each to start at or
/// before it, while that one has not ended). A closed op's row and flows go to
/// the sorted runs under its number in start order.
class tree_pass {
 public:
  tree_pass(relation& r, bool text, bool parents) : r_(r), text_(text), parents_(parents) {}

  void op(const fw_op& o) {
    close_before(o.start_ns);
    const std::uint64_t node = ++nodes_;
    if (parents_) {
      r_.order.push_back(o);
      r_.parent.push_back(static_cast<std::uint32_t>(open_.empty() ? 0 : open_.back().node));
    }
    // The launches waiting for the parent's first child (the root's: for the first op).
    std::vector<std::int64_t> waiting;
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
    if (open_.empty() && is_step(o)) {
      n.step = r_.steps.size();
      r_.steps.emplace_back();
      r_.steps.back().op = o;
    }
    open_.push_back(std::move(n));
    for (const auto start : waiting) {
      if (o.end_ns > start) {
        add_total(open_.size() - 1, start);
        open_.back().parked.push_back(start);
      } else if (open_.size() > 1) {
        add_self(open_.size() - 2, start);
      }
    }
  }

  void enqueue(const queue_span& e) {
    close_before(e.ts);
    if (open_.empty() || open_.back().op.tid != e.tid) return;
    const std::size_t top = open_.size() - 1;
    add_self(top, static_cast<std::int64_t>(e.corr_id));
    for (std::size_t j = 0; j <= top; ++j) add_total(j, static_cast<std::int64_t>(e.corr_id));
  }

  /// Without a task queue: a launch at `start`, after every op starting at or
  /// before it. Each op on the path gets it (total) while the last child of
  /// the one before, started at or before it, has not ended; the last one on
  /// the path (self). An op without children yet keeps it until its first
  /// child comes: torch_npu's search takes a node's first child when none
  /// started before the launch, and descends into it when it has not ended.
  void launch(std::int64_t start) {
    if (nodes_ == 0) {
      root_parked_.push_back(start);
      return;
    }
    std::size_t k = 0;
    for (; k < open_.size() && open_[k].op.end_ns > start; ++k) add_total(k, start);
    if (k == 0) return;
    if (k == open_.size() && !open_[k - 1].has_child)
      open_[k - 1].parked.push_back(start);
    else
      add_self(k - 1, start);
  }

  void finish() {
    while (!open_.empty()) close_top();
  }

 private:
  static constexpr std::size_t no_step = static_cast<std::size_t>(-1);
  struct open_op {
    fw_op op;
    std::uint64_t node = 0;
    std::size_t step = no_step;  ///< its index in r.steps, or no_step
    std::int64_t children_ns = 0;
    py_num dev[4];
    std::vector<std::int64_t> self_ids;
    bool has_child = false;
    std::vector<std::int64_t> parked;  ///< launches waiting for its first child (no task queue)
  };

  void close_before(std::int64_t ts) {
    while (!open_.empty() && ts > open_.back().op.end_ns) close_top();
  }

  const std::vector<kernel_ref>* kernels_of(std::int64_t id) const {
    const auto k = r_.kernels.find(id);
    return k == r_.kernels.end() ? nullptr : &k->second;
  }

  /// Id `id` bound to open_[k] itself.
  void add_self(std::size_t k, std::int64_t id) {
    open_[k].self_ids.push_back(id);
    if (const auto* ks = kernels_of(id)) add(*ks, open_[k].dev[0], open_[k].dev[2]);
  }

  /// Id `id` bound to open_[k] or below it.
  void add_total(std::size_t k, std::int64_t id) {
    const auto* ks = kernels_of(id);
    if (ks) add(*ks, open_[k].dev[1], open_[k].dev[3]);
    if (open_[k].step == no_step) return;
    step_op& s = r_.steps[open_[k].step];
    s.any_id = true;
    if (!ks || ks->empty()) return;
    s.first_id = s.any_kernel ? std::min(s.first_id, id) : id;
    s.last_id = s.any_kernel ? std::max(s.last_id, id) : id;
    s.any_kernel = true;
  }

  static void add(const std::vector<kernel_ref>& ks, py_num& all, py_num& aic) {
    for (const auto& k : ks) {
      all.add(k.dur_us);
      if (k.ai_core)
        aic.add(k.dur_us);
      else
        aic.add_int(0);
    }
  }

  void close_top() {
    for (const auto start : open_.back().parked) add_self(open_.size() - 1, start);  // no child ran at it
    const open_op& n = open_.back();
    if (text_ && !is_step(n.op)) {
      op_detail row;
      row.op = n.op;
      row.total_ns = n.op.end_ns - n.op.start_ns;
      row.self_ns = row.total_ns - n.children_ns;
      for (int i = 0; i < 4; ++i) row.dev[i] = n.dev[i];
      r_.details->push(n.node, std::string_view(reinterpret_cast<const char*>(&row), sizeof row));
    }
    if (text_ && !n.self_ids.empty()) {
      payload_.clear();
      const relation::flow_source src{n.op.pid, n.op.tid, n.op.start_ns};
      payload_.append(reinterpret_cast<const char*>(&src), sizeof src);
      for (const auto id : n.self_ids) {
        const auto k = r_.kernels.find(id);
        if (k == r_.kernels.end()) continue;
        for (const auto& kr : k->second) {
          const relation::flow_target t{kr.ts, kr.pid, kr.tid};
          payload_.append(reinterpret_cast<const char*>(&t), sizeof t);
        }
      }
      if (payload_.size() > sizeof src) r_.flows->push(n.node, payload_);
    }
    open_.pop_back();
  }

  relation& r_;
  bool text_, parents_;
  std::uint64_t nodes_ = 0;
  std::vector<open_op> open_;
  std::vector<std::int64_t> root_parked_;  ///< launches before the first op
  std::string payload_;
};

/// Whether operator_memory will name allocations after ops: the directory has
/// the inner allocator's NPU records it reads.
bool names_memory(const pt_dir& d) {
  constexpr std::int8_t npu = 20;
  constexpr std::uint8_t inner = 0;
  for (const auto& u : d.memory)
    if (u.device_type == npu && u.allocator_type == inner) return true;
  return false;
}

}  // namespace

relation link(const pt_dir& d, std::map<std::int64_t, std::vector<kernel_ref>> acl, const link_options& o) {
  relation r;
  if (!d.info.cpu || d.ops.empty()) return r;
  r.linked = true;
  r.acl = std::move(acl);
  if (d.dequeue.empty()) {
    r.kernels = r.acl;
  } else {
    // Dequeues come with a task queue; only the linking without one reads the launches by start.
    auto k = kernels_by_corr(d.dequeue, r.acl);
    if (!k) {
      r.error = k.err().what();
      return r;
    }
    r.kernels = std::move(*k);
    r.acl = {};
  }
  std::error_code ec;
  std::string dir = o.spill_dir;
  if (dir.empty()) dir = std::filesystem::temp_directory_path(ec).string();
  if (dir.empty()) dir = "/tmp";
  if (o.text) {
    r.details = std::make_unique<spill_sorter<std::uint64_t>>(dir, o.spill_budget);
    r.flows = std::make_unique<spill_sorter<std::uint64_t>>(dir, o.spill_budget);
  }
  // Ops and enqueues by start, ops first at equal times (each kept in its own
  // order): one sorted run of their bytes, kind 0 an op, 1 an enqueue.
  // Without a task queue the launches (by start, from r.acl) come in between,
  // each after the ops starting at or before it.
  struct item_key {
    std::int64_t ts;
    std::uint8_t kind;
    bool operator<(const item_key& b) const noexcept { return ts != b.ts ? ts < b.ts : kind < b.kind; }
  };
  spill_sorter<item_key> items(dir, o.spill_budget);
  auto pushed = d.ops.each([&](const fw_op& op) {
    items.push({op.start_ns, 0}, std::string_view(reinterpret_cast<const char*>(&op), sizeof op));
  });
  if (!pushed) {
    r.error = pushed.err().what();
    return r;
  }
  pushed = d.enqueue.each([&](const queue_span& e) {
    items.push({e.ts, 1}, std::string_view(reinterpret_cast<const char*>(&e), sizeof e));
  });
  if (!pushed) {
    r.error = pushed.err().what();
    return r;
  }
  tree_pass t(r, o.text, names_memory(d));
  const bool launches = !d.has_task_queue;
  auto launch = r.acl.begin();
  // Launches at or before `ts` (ops starting at their time come first).
  const auto launches_before = [&](std::int64_t ts, bool inclusive) {
    for (; launches && launch != r.acl.end() && (inclusive ? launch->first <= ts : launch->first < ts); ++launch)
      t.launch(launch->first);
  };
  fw_op op;
  auto drained = items.drain([&](const item_key& k, std::string_view p) {
    launches_before(k.ts, false);
    if (k.kind == 0) {
      std::memcpy(static_cast<void*>(&op), p.data(), sizeof op);
      t.op(op);
      return;
    }
    queue_span e;
    std::memcpy(static_cast<void*>(&e), p.data(), sizeof e);
    t.enqueue(e);
  });
  launches_before(std::numeric_limits<std::int64_t>::max(), true);
  t.finish();
  if (!drained) r.error = "the framework ops could not be put in start order: " + drained.err().what();
  return r;
}

std::vector<step_range> step_ranges(relation& r, const pt_dir& d) {
  if (r.kernels.empty() || !r.linked || r.steps.empty()) return {};
  std::vector<step_op> steps = r.steps;
  if (!d.has_task_queue) {
    // Launch starts go to the step that holds them, ends included
    // (torch_npu _update_step_node_info, on steps sorted by start).
    std::stable_sort(steps.begin(), steps.end(),
                     [](const step_op& a, const step_op& b) { return a.op.start_ns < b.op.start_ns; });
    for (auto& s : steps) {
      s.any_id = s.any_kernel = false;
      s.first_id = s.last_id = 0;
    }
    std::size_t k = 0;
    for (const auto& [start, ks] : r.acl) {
      while (k < steps.size()) {
        step_op& s = steps[k];
        if (s.op.start_ns <= start && start <= s.op.end_ns) {
          s.any_id = true;
          if (const auto it = r.kernels.find(start); it != r.kernels.end() && !it->second.empty()) {
            s.first_id = s.any_kernel ? std::min(s.first_id, start) : start;
            s.last_id = s.any_kernel ? std::max(s.last_id, start) : start;
            s.any_kernel = true;
          }
          break;
        }
        if (start < s.op.start_ns) break;
        ++k;
      }
    }
  }
  std::vector<step_range> out;
  for (const auto& s : steps) {
    if (!s.any_id) continue;  // torch_npu: "no flow events in the step range"
    step_range sr;
    const std::string_view name = s.op.name;
    sr.id = std::string(name.substr(name.rfind('#') + 1));
    sr.start_ns = s.op.start_ns;
    std::int64_t dev_end = -1;
    if (s.any_kernel) {
      const auto& first = r.kernels.at(s.first_id);
      sr.start_ns = first.front().ts;
      for (const auto& k : first) sr.start_ns = std::min(sr.start_ns, k.ts);
      const auto& last = r.kernels.at(s.last_id);
      dev_end = last.front().end_ns;
      for (const auto& k : last) dev_end = std::max(dev_end, k.end_ns);
    }
    sr.end_ns = std::max(dev_end, s.op.end_ns);
    sr.fwk_start_ns = s.op.start_ns;
    out.push_back(std::move(sr));
  }
  return out;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
