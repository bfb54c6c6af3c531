// SPDX-License-Identifier: MIT
// convert/hccl.hpp's collector: the HCCL part of the export's windows, linked
// at the end (the exports' one hook into convert/hccl).
#include <msprof/convert/hccl.hpp>

#include <msprof/core/directory.hpp>
#include <msprof/prof/layout.hpp>

#include <algorithm>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

result<collector> collector::open(const std::string& prof_dir) {
  collector c;
  // Most collections have no communication: a look at the host data's names
  // spares them a second reader (its dictionaries).
  auto names = posix_dir::list(prof_dir + "/" + prof::layout::host_dir + "/" + prof::layout::data_dir);
  if (!names || std::none_of(names->begin(), names->end(), [](const std::string& n) {
        return n.find(".hccl_info.") != std::string::npos;
      }))
    return c;
  auto r = prof::prof_reader::open(prof_dir);
  if (!r) return r.err();
  const model none;
  auto in = read_inputs(*r, none, false);
  if (!in) return in.err();
  c.in_ = std::move(*in);
  c.in_.apis = nullptr;  // they pointed into `none`; finish() sets the kept ones
  c.in_.tasks = nullptr;
  for (const auto& i : c.in_.infos) c.info_ts_[i.thread_id].push_back(i.ts_ns);
  for (auto& [tid, v] : c.info_ts_) std::sort(v.begin(), v.end());
  c.reader_.emplace(std::move(*r));
  return c;
}

bool collector::holds_info(const api_call& a) const {
  auto it = info_ts_.find(a.thread_id);
  if (it == info_ts_.end()) return false;
  auto at = std::upper_bound(it->second.begin(), it->second.end(), a.start_ns);  // (start, end]
  return at != it->second.end() && *at <= a.end_ns;
}

void collector::add(const model& w) {
  if (!active()) return;
  for (const auto& a : w.apis)
    if (a.level == level::hccl || (a.level == level::node && holds_info(a))) apis_.push_back(a);
  for (const auto& t : w.tasks)
    if (!t.op && info_ts_.count(t.thread_id)) tasks_.push_back(t);
}


result<communication> collector::finish(const model& final) {
  if (!active()) return communication{};
  // Op types inside the kept node-level calls only: per thread, those calls by
  // start with the latest end so far (calls may nest), so a record's test is a search.
  struct calls {
    std::vector<std::int64_t> starts, max_ends;
  };
  std::unordered_map<std::uint32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  for (const auto& a : apis_)
    if (a.level == level::node) spans[a.thread_id].emplace_back(a.start_ns, a.end_ns);
  std::unordered_map<std::uint32_t, calls> nodes;
  for (auto& [tid, v] : spans) {
    std::sort(v.begin(), v.end());
    auto& c = nodes[tid];
    for (const auto& [b, e] : v) {
      c.starts.push_back(b);
      c.max_ends.push_back(c.max_ends.empty() ? e : std::max(c.max_ends.back(), e));
    }
  }
  auto inside = [&](std::uint32_t tid, std::int64_t ts) {  // in (start, end] of a kept call
    auto it = nodes.find(tid);
    if (it == nodes.end()) return false;
    const auto& c = it->second;
    const auto n = std::lower_bound(c.starts.begin(), c.starts.end(), ts) - c.starts.begin();
    return n > 0 && c.max_ends[static_cast<std::size_t>(n - 1)] >= ts;
  };
  MSPROF_TRY(read_node_types(*reader_, inside, in_.node_types));
  in_.apis = &apis_;
  in_.tasks = &tasks_;
  in_.collection_start_ns = final.session.start_ns;
  return link(in_);
}

overlap_lanes::overlap_lanes(const communication& c, std::uint32_t device_id) {
  std::vector<span> all;
  for (const auto& op : c.ops)
    if (op.device_id == device_id) all.emplace_back(op.start_ns, op.end_ns);
  std::sort(all.begin(), all.end());
  for (const auto& s : all) {
    if (!spans_.empty() && s.first <= spans_.back().second)
      spans_.back().second = std::max(spans_.back().second, s.second);
    else
      spans_.push_back(s);
  }
}

overlap_lanes::split overlap_lanes::free_gap(std::int64_t b, std::int64_t e) const {
  split out;
  auto it = std::partition_point(spans_.begin(), spans_.end(), [&](const span& s) { return s.second <= b; });
  std::int64_t at = b;
  for (; it != spans_.end() && it->first < e; ++it) {
    const std::int64_t from = std::max(at, it->first), to = std::min(e, it->second);
    if (from > at) out.free.emplace_back(at, from);
    if (to > from) out.not_overlapped.emplace_back(from, to);
    at = std::max(at, to);
  }
  if (e > at) out.free.emplace_back(at, e);
  return out;
}

void overlap_lanes::emit(detail::event_output& out, bool not_overlapped, std::uint64_t pid, const span& s) {
  trace_event x;
  x.ph = 'X';
  x.name = not_overlapped ? "Communication(Not Overlapped)" : "Communication";
  x.pid = pid;
  x.tid = not_overlapped ? 2 : 1;
  x.ts_ns = s.first;
  x.dur_ns = s.second - s.first;
  out(std::move(x));
}

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE
