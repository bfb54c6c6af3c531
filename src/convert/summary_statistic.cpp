// SPDX-License-Identifier: MIT
// The statistics summaries (summary.hpp): op_statistic and api_statistic, their
// per-group sums and the window-by-window api_statistic_stream.
#include "msprof/convert/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "msprof/convert/model.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/convert/text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// op_statistic --------------------------------------------------------------

std::uint32_t op_statistic_groups::group_of(const device_task& t) {
  const auto [it, added] = ids_.try_emplace(key{t.device_id, t.op->type, ge_task_type_name(t.op->ge_task_type)},
                                            static_cast<std::uint32_t>(groups_.size()));
  if (added) groups_.push_back({t.device_id});
  return it->second;
}

void op_statistic_groups::add(std::uint32_t group, double dur_us) {
  agg& g = groups_[group];
  if (g.count == 0) g.mn = g.mx = dur_us;
  g.mn = std::min(g.mn, dur_us);
  g.mx = std::max(g.mx, dur_us);
  g.total += dur_us;
  ++g.count;
  device_total_[g.device] += dur_us;
}

std::vector<op_statistic_groups::sorted_row> op_statistic_groups::sorted_rows() const {
  std::vector<sorted_row> v;
  for (const auto& [k, id] : ids_) v.push_back({&k, &groups_[id]});
  std::stable_sort(v.begin(), v.end(), [](const sorted_row& a, const sorted_row& b) {
    if (a.g->device != b.g->device) return a.g->device < b.g->device;
    return a.g->total > b.g->total;
  });
  return v;
}

template <class Cells>
void op_statistic_groups::write_row(Cells& s, const sorted_row& r) const {
  const key* k = r.k;
  const agg* g = r.g;
  const double all = device_total_.at(g->device);
  s.num(g->device);
  s.str(std::get<1>(*k));
  s.raw(std::get<2>(*k));
  s.num(g->count);
  s.raw(fewest3(g->total));
  s.raw(fewest3(g->mn));
  s.raw(fewest3(g->total / static_cast<double>(g->count)));
  s.raw(fewest3(g->mx));
  s.raw(fewest3(all > 0 ? g->total / all * 100.0 : 0.0));
}

std::vector<std::string> op_statistic_header() {
  return {"Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
          "Avg Time(us)", "Max Time(us)", "Ratio(%)"};
}

table op_statistic(const model& m) {
  table t;
  t.name = "op_statistic";
  t.header = op_statistic_header();
  op_statistic_groups g;
  for (const device_task* task : op_summary_tasks(m)) g.add(g.group_of(*task), detail::dur_us(task->start_ns, task->end_ns));
  g.rows([&](const auto& format) { add_row(t, format); });
  return t;
}

/// api_statistic -------------------------------------------------------------

namespace {

/// The reference's RoundToDecimalPlaces(v, 3): std::round halves away from
/// zero, where printing with 3 decimals rounds the exact binary value
/// (1.9335 -> 1.934 here, 1.933 printed).
double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

double mean3(double sum, std::size_t count) { return round3(sum / static_cast<double>(count)); }

}  // namespace

std::uint32_t api_statistic_groups::group_of(const api_call& a) {
  const auto [it, added] = ids_.try_emplace(key{display_name(a), a.level}, static_cast<std::uint32_t>(groups_.size()));
  if (added) groups_.emplace_back();
  return it->second;
}

void api_statistic_groups::add(std::uint32_t group, double dur_us) {
  agg& g = groups_[group];
  dur_us = round3(dur_us);
  g.mn = g.count ? std::min(g.mn, dur_us) : dur_us;
  g.mx = g.count ? std::max(g.mx, dur_us) : dur_us;
  g.sum += dur_us;
  ++g.count;
}

void api_statistic_groups::add_deviation(std::uint32_t group, double dur_us) {
  agg& g = groups_[group];
  const double d = round3(dur_us) - mean3(g.sum, g.count);
  g.var_sum += d * d;
}

template <class Cells>
void api_statistic_groups::write_row(Cells& s, const key& k, const agg& g) {
  s.raw("host");
  s.raw(level_name(k.second));
  s.str(k.first);
  s.raw(fewest3(g.sum));
  s.num(g.count);
  s.raw(fewest3(mean3(g.sum, g.count)));
  s.raw(fewest3(g.mn));
  s.raw(fewest3(g.mx));
  s.raw(fewest3(round3(g.var_sum / static_cast<double>(g.count))));
}

std::vector<std::string> api_statistic_header() {
  return {"Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)", "Variance"};
}

table api_statistic(const model& m) {
  table t;
  t.name = "api_statistic";
  t.header = api_statistic_header();
  api_statistic_groups g;
  std::vector<std::uint32_t> ids;
  ids.reserve(m.apis.size());
  for (const auto& a : m.apis) {
    ids.push_back(g.group_of(a));
    g.add(ids.back(), detail::dur_us(a.start_ns, a.end_ns));
  }
  for (std::size_t i = 0; i < m.apis.size(); ++i)
    g.add_deviation(ids[i], detail::dur_us(m.apis[i].start_ns, m.apis[i].end_ns));
  g.rows([&](const auto& format) { add_row(t, format); });
  return t;
}

api_statistic_stream::api_statistic_stream(std::string spill_dir, std::size_t budget)
    : spill_dir_(std::move(spill_dir)), budget_(budget), calls_(spill_dir_, budget) {}

void api_statistic_stream::add(const api_call& a) {
  const row r{groups_.group_of(a), a.end_ns - a.start_ns};
  calls_.push({a.connection_id}, bytes_of(r));
}

result<void> api_statistic_stream::finish() {
  spill_sorter<call_key> again(spill_dir_, budget_);
  MSPROF_TRY(calls_.drain([&](const call_key& k, std::string_view p) {
    const row r = row_of(p);
    groups_.add(static_cast<std::uint32_t>(r.group), static_cast<double>(r.dur_ns) / 1000.0);
    again.push(k, p);
  }));
  return again.drain([&](const call_key&, std::string_view p) {
    const row r = row_of(p);
    groups_.add_deviation(static_cast<std::uint32_t>(r.group), static_cast<double>(r.dur_ns) / 1000.0);
  });
}

api_statistic_stream::row api_statistic_stream::row_of(std::string_view p) {
  auto r = from_bytes<row>(p);
  return r;
}

// The statistics rows for the two cell writers.
template void op_statistic_groups::write_row<row_text>(row_text&, const sorted_row&) const;
template void op_statistic_groups::write_row<cell_list>(cell_list&, const sorted_row&) const;
template void api_statistic_groups::write_row<row_text>(row_text&, const key&, const agg&);
template void api_statistic_groups::write_row<cell_list>(cell_list&, const key&, const agg&);

}  // namespace convert
MSPROF_END_NAMESPACE
