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
#include <set>
#include <unordered_map>

#include "msprof/convert/ascend_pt/analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

std::map<std::int64_t, std::vector<kernel_ref>> acl_to_npu(const model& m) {
  std::unordered_map<std::uint64_t, std::int64_t> launch_start;  // connection id -> API start
  for (const auto& a : m.apis)
    if (a.has_device_task) launch_start.emplace(a.connection_id, a.start_ns);
  // The timeline's HostToDevice flow keeps one end per id: the first task.
  std::set<std::uint64_t> seen;
  std::map<std::int64_t, std::vector<kernel_ref>> out;
  for (const auto& t : m.tasks) {
    if (t.connection_id == 0 || !seen.insert(t.connection_id).second) continue;
    const auto it = launch_start.find(t.connection_id);
    if (it == launch_start.end()) continue;
    out[it->second].push_back({t.start_ns, t.end_ns});
  }
  return out;
}

namespace {

struct node {
  const fw_op* op = nullptr;  // nullptr: the root
  node* parent = nullptr;
  std::vector<node*> children;
  std::vector<std::int64_t> corr_total;  // correlation ids (task queue) or launch starts
};

/// Builds the op tree; returns the nodes (root first) and fills corr_total
/// from the enqueues.
std::vector<node> build_tree(const pt_dir& d) {
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

  std::vector<node> nodes(d.ops.size() + 1);  // fixed size: children point into it
  std::size_t used = 1;
  node* root = &nodes[0];
  node* last = root;
  for (const auto& it : items) {
    while (last) {
      if (last != root && it.ts > last->op->end_ns) {
        last = last->parent;
        continue;
      }
      if (it.op) {
        node* n = &nodes[used++];
        n->op = it.op;
        n->parent = last;
        last->children.push_back(n);
        last = n;
      } else if (last->op && last->op->tid == it.enq->tid) {
        for (node* p = last; p->parent; p = p->parent) p->corr_total.push_back(static_cast<std::int64_t>(it.enq->corr_id));
      }
      break;
    }
  }
  return nodes;
}

/// Correlation ids -> kernels: each launch start (ascending) goes to the first
/// dequeue, in list order, that has not ended before it, if that one encloses it.
std::map<std::int64_t, std::vector<kernel_ref>> kernels_by_corr(const std::vector<queue_span>& dequeue,
                                                                const std::map<std::int64_t, std::vector<kernel_ref>>& acl) {
  std::map<std::int64_t, std::vector<kernel_ref>> out;
  std::size_t i = 0;
  for (const auto& [start, kernels] : acl) {
    while (i < dequeue.size()) {
      const auto& q = dequeue[i];
      if (q.ts > start) break;
      if (start <= q.ts + q.dur) {
        auto& v = out[static_cast<std::int64_t>(q.corr_id)];
        v.insert(v.end(), kernels.begin(), kernels.end());
        break;
      }
      ++i;
    }
  }
  return out;
}

}  // namespace

std::vector<step_range> step_ranges(const pt_dir& d, const model& m) {
  if (!d.info.cpu || d.ops.empty()) return {};
  const auto acl = acl_to_npu(m);
  const auto kernels = d.dequeue.empty() ? acl : kernels_by_corr(d.dequeue, acl);
  if (kernels.empty()) return {};
  auto nodes = build_tree(d);
  std::vector<node*> steps;
  for (node* c : nodes[0].children)
    if (c->op->name.find("ProfilerStep#") != std::string::npos) steps.push_back(c);
  if (steps.empty()) return {};
  if (!d.has_task_queue) {
    // Launch starts go to the step that holds them.
    std::stable_sort(steps.begin(), steps.end(), [](const node* a, const node* b) { return a->op->start_ns < b->op->start_ns; });
    std::size_t k = 0;
    for (const auto& [start, ks] : acl) {
      while (k < steps.size()) {
        node* s = steps[k];
        if (s->op->start_ns <= start && start <= s->op->end_ns) {
          s->corr_total.push_back(start);
          break;
        }
        if (start < s->op->start_ns) break;
        ++k;
      }
    }
  }
  std::vector<step_range> out;
  for (node* s : steps) {
    if (s->corr_total.empty()) continue;  // torch_npu: "no flow events in the step range"
    std::vector<std::int64_t> ids = s->corr_total;
    std::sort(ids.begin(), ids.end());
    const std::vector<kernel_ref>* first = nullptr;
    const std::vector<kernel_ref>* last = nullptr;
    for (auto id : ids)
      if (auto it = kernels.find(id); it != kernels.end() && !it->second.empty()) {
        first = &it->second;
        break;
      }
    for (auto r = ids.rbegin(); r != ids.rend(); ++r)
      if (auto it = kernels.find(*r); it != kernels.end() && !it->second.empty()) {
        last = &it->second;
        break;
      }
    step_range sr;
    const std::string& name = s->op->name;
    sr.id = name.substr(name.rfind('#') + 1);
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
