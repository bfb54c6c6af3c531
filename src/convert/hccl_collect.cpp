// SPDX-License-Identifier: MIT
// convert/hccl.hpp's collector: the HCCL part of the export's windows, linked
// at the end (the exports' one hook into convert/hccl).
#include <msprof/convert/hccl.hpp>

#include <algorithm>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

result<collector> collector::open(const std::string& prof_dir) {
  collector c;
  auto r = prof::prof_reader::open(prof_dir);
  if (!r) return r.err();
  const model none;
  auto in = read_inputs(*r, none);
  if (!in) return in.err();
  c.in_ = std::move(*in);
  for (const auto& i : c.in_.infos) c.info_ts_[i.thread_id].push_back(i.ts_ns);
  for (auto& [tid, v] : c.info_ts_) std::sort(v.begin(), v.end());
  // Only the op types of threads that report communication can name a collective.
  auto& types = c.in_.node_types;
  types.erase(std::remove_if(types.begin(), types.end(), [&](const node_type_record& n) { return !c.info_ts_.count(n.thread_id); }),
              types.end());
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


communication collector::finish(const model& final) {
  if (!active()) return {};
  in_.apis = &apis_;
  in_.tasks = &tasks_;
  in_.collection_start_ns = final.session.start_ns;
  return link(in_);
}

overlap_lanes::overlap_lanes(const communication& c, std::uint32_t device_id, std::uint64_t pid) : pid_(pid) {
  for (const auto& op : c.ops)
    if (op.device_id == device_id) spans_.emplace_back(op.start_ns, op.end_ns);
  std::sort(spans_.begin(), spans_.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (const auto& s : spans_) {
    if (!merged.empty() && s.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, s.second);
    else
      merged.push_back(s);
  }
  spans_ = std::move(merged);
}

namespace {
void lane_event(detail::event_output& out, const char* name, std::uint64_t pid, std::uint32_t tid, std::int64_t b,
                std::int64_t e) {
  trace_event x;
  x.ph = 'X';
  x.name = name;
  x.pid = pid;
  x.tid = tid;
  x.ts_ns = b;
  x.dur_ns = e - b;
  out(std::move(x));
}
}  // namespace

void overlap_lanes::emit_communication(detail::event_output& out) const {
  for (const auto& s : spans_) lane_event(out, "Communication", pid_, 1, s.first, s.second);
}

std::vector<std::pair<std::int64_t, std::int64_t>> overlap_lanes::free_gap(std::int64_t b, std::int64_t e,
                                                                          detail::event_output& out) const {
  std::vector<std::pair<std::int64_t, std::int64_t>> still_free;
  auto it = std::lower_bound(spans_.begin(), spans_.end(), std::make_pair(b, b),
                             [](const auto& x, const auto& y) { return x.second <= y.first; });  // first ending after b
  std::int64_t at = b;
  for (; it != spans_.end() && it->first < e; ++it) {
    const std::int64_t from = std::max(at, it->first), to = std::min(e, it->second);
    if (from > at) still_free.emplace_back(at, from);
    if (to > from) lane_event(out, "Communication(Not Overlapped)", pid_, 2, from, to);
    at = std::max(at, to);
  }
  if (e > at) still_free.emplace_back(at, e);
  return still_free;
}

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE
