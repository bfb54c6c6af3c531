// SPDX-License-Identifier: MIT
// Framework ops to kernels and steps, as torch_npu 9e73e708a links them
// (TreeBuilder.build_tree, FwkCANNRelationParser): the ops and enqueue spans
// form one tree by start time; an enqueue's correlation id belongs to the op
// that holds it and to that op's ancestors; a dequeue that encloses a launch
// API's start binds that launch's kernels to its correlation id. A
// ProfilerStep#N op at the top of the tree then spans, on the device, from
// the first kernel of its first bound correlation id to the later of its own
// end and the last kernel's end.
#include <algorithm>
#include <map>
#include <utility>

#include "msprof/convert/ascend_pt/analyse.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/convert/timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

/// Builds the op tree and binds each enqueue's correlation id to the op that
/// holds it (self) and to that op and its ancestors (total).
std::vector<op_node> build_tree(const pt_dir& d) {
  struct item {
    std::int64_t ts;
    const fw_op* op;
    const queue_span* enq;
  };
  std::vector<item> items;
  items.reserve(d.ops.size() + d.enqueue.size());
  for (const auto& o : d.ops) items.push_back({o.start_ns, &o, nullptr});
  for (const auto& e : d.enqueue) items.push_back({e.ts, nullptr, &e});
  std::stable_sort(items.begin(), items.end(), [](const item& a, const item& b) { return a.ts < b.ts; });

  std::vector<op_node> nodes(d.ops.size() + 1);  // fixed size: nodes point into it
  std::size_t used = 1;
  op_node* root = &nodes[0];
  op_node* last = root;
  for (const auto& it : items) {
    while (last) {
      if (last != root && it.ts > last->op->end_ns) {
        last = last->parent;
        continue;
      }
      if (it.op) {
        op_node* n = &nodes[used++];
        n->op = it.op;
        n->parent = last;
        last->children.push_back(n);
        last = n;
      } else if (last->op && last->op->tid == it.enq->tid) {
        const auto id = static_cast<std::int64_t>(it.enq->corr_id);
        last->corr_self.push_back(id);
        for (op_node* p = last; p->parent; p = p->parent) p->corr_total.push_back(id);
      }
      break;
    }
  }
  return nodes;
}

/// Correlation ids -> kernels: each launch start (ascending) goes to the first
/// dequeue, in list order, that has not ended before it, if that one encloses it.
/// The kernels are moved out of `acl` (one copy of each at a time).
std::map<std::int64_t, std::vector<kernel_ref>> kernels_by_corr(const std::vector<queue_span>& dequeue,
                                                                std::map<std::int64_t, std::vector<kernel_ref>>& acl) {
  std::map<std::int64_t, std::vector<kernel_ref>> out;
  std::size_t i = 0;
  for (auto& launch : acl) {
    const std::int64_t start = launch.first;
    auto& kernels = launch.second;
    while (i < dequeue.size()) {
      const auto& q = dequeue[i];
      if (q.ts > start) break;
      if (start <= q.ts + q.dur) {
        auto& v = out[static_cast<std::int64_t>(q.corr_id)];
        if (v.empty())
          v = std::move(kernels);
        else
          v.insert(v.end(), kernels.begin(), kernels.end());
        kernels = {};
        break;
      }
      ++i;
    }
  }
  return out;
}

/// The child of `n` running at `ts` (the last one starting at or before it, if
/// it has not ended), or nullptr (torch_npu TorchOpNode.match_child_node).
op_node* child_at(const op_node& n, std::int64_t ts) {
  if (n.children.empty()) return nullptr;
  auto it = std::upper_bound(n.children.begin(), n.children.end(), ts,
                             [](std::int64_t t, const op_node* c) { return t < c->op->start_ns; });
  op_node* c = it == n.children.begin() ? n.children.front() : *(it - 1);
  return c->op->end_ns > ts ? c : nullptr;
}

}  // namespace

relation link(const pt_dir& d, std::map<std::int64_t, std::vector<kernel_ref>> acl) {
  relation r;
  if (!d.info.cpu || d.ops.empty()) return r;
  r.acl = std::move(acl);
  if (d.dequeue.empty()) {
    r.kernels = r.acl;
  } else {
    // Dequeues come with a task queue; only the linking without one reads the launches by start.
    r.kernels = kernels_by_corr(d.dequeue, r.acl);
    r.acl = {};
  }
  r.nodes = build_tree(d);
  if (!d.has_task_queue) {
    // Without a task queue each launch belongs to the innermost op running at
    // its start (torch_npu TreeBuilder.update_tree_node_info).
    for (const auto& [start, ks] : r.acl) {
      for (op_node* n = child_at(r.nodes[0], start); n;) {
        n->corr_total.push_back(start);
        op_node* c = child_at(*n, start);
        if (!c) n->corr_self.push_back(start);
        n = c;
      }
    }
  }
  return r;
}

std::vector<step_range> step_ranges(relation& r, const pt_dir& d) {
  if (r.kernels.empty() || r.nodes.empty()) return {};
  std::vector<op_node*> steps;
  for (op_node* c : r.nodes[0].children)
    if (c->op->name.find("ProfilerStep#") != std::string::npos) steps.push_back(c);
  if (steps.empty()) return {};
  std::vector<std::vector<std::int64_t>> step_ids(steps.size());
  if (d.has_task_queue) {
    for (std::size_t k = 0; k < steps.size(); ++k) step_ids[k] = steps[k]->corr_total;
  } else {
    // Launch starts go to the step that holds them, ends included
    // (torch_npu _update_step_node_info, on steps sorted by start).
    std::stable_sort(steps.begin(), steps.end(),
                     [](const op_node* a, const op_node* b) { return a->op->start_ns < b->op->start_ns; });
    std::size_t k = 0;
    for (const auto& [start, ks] : r.acl) {
      while (k < steps.size()) {
        const op_node* s = steps[k];
        if (s->op->start_ns <= start && start <= s->op->end_ns) {
          step_ids[k].push_back(start);
          break;
        }
        if (start < s->op->start_ns) break;
        ++k;
      }
    }
  }
  std::vector<step_range> out;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const op_node* s = steps[k];
    if (step_ids[k].empty()) continue;  // torch_npu: "no flow events in the step range"
    std::vector<std::int64_t> ids = step_ids[k];
    std::sort(ids.begin(), ids.end());
    const std::vector<kernel_ref>* first = nullptr;
    const std::vector<kernel_ref>* last = nullptr;
    for (auto id : ids)
      if (auto it = r.kernels.find(id); it != r.kernels.end() && !it->second.empty()) {
        first = &it->second;
        break;
      }
    for (auto id = ids.rbegin(); id != ids.rend(); ++id)
      if (auto it = r.kernels.find(*id); it != r.kernels.end() && !it->second.empty()) {
        last = &it->second;
        break;
      }
    step_range sr;
    const std::string_view name = s->op->name;
    sr.id = std::string(name.substr(name.rfind('#') + 1));
    sr.start_ns = s->op->start_ns;
    if (first) {
      sr.start_ns = first->front().ts;
      for (const auto& k : *first) sr.start_ns = std::min(sr.start_ns, k.ts);
    }
    std::int64_t dev_end = -1;
    if (last) {
      dev_end = last->front().end_ns;
      for (const auto& k : *last) dev_end = std::max(dev_end, k.end_ns);
    }
    sr.end_ns = std::max(dev_end, s->op->end_ns);
    sr.fwk_start_ns = s->op->start_ns;
    out.push_back(std::move(sr));
  }
  return out;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
