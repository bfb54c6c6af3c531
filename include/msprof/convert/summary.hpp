// SPDX-License-Identifier: MIT
// Summary tables (op_summary, op_statistic, api_statistic, task_time,
// msprof_tx, step_trace, mstx_mem, msprof_losses), exactly as msprof 9ba1ac7be
// prints them.
//
// Each table's cells are formatted in one place, a row formatter
// (op_summary_head/_wait/_tail, task_time_row, ...) that writes through a
// sink: row_text writes the row straight into CSV or JSON text (the exporter,
// export.hpp), cell_list collects the cells as strings (the `table` API, for
// `msprof show` and tests). The per-group statistics are computed by
// op_statistic_groups / api_statistic_groups, fed in row order by both.
#ifndef MSPROF_CONVERT_SUMMARY_HPP
#define MSPROF_CONVERT_SUMMARY_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/compile.h>

#include "model.hpp"
#include "spill.hpp"
#include "text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// A formatted table. Cells are final text (CSV quoting is applied on write).
struct table {
  using row = std::vector<std::string>;
  std::string name;  ///< file stem, e.g. "op_summary"
  std::vector<std::string> header;
  std::vector<row> rows;

  std::size_t size() const noexcept { return rows.size(); }
};

/// Sinks ---------------------------------------------------------------------
// A row formatter calls, once per column in header order: str (any text),
// raw (text that never needs CSV quoting or JSON escaping: numbers, fixed
// names), num, ts (a time cell: µs with 3 decimals and the spreadsheet TAB),
// us (µs with 3 decimals, no TAB), fixed3 / fixed6 (a double with 3 / 6
// decimals) or round3 (round3_py: 3 decimals, trailing zeros but one dropped).

/// Writes a row as CSV text (cells joined by ',', quoted when needed, ending in
/// a newline) or as a JSON object keyed by the header (time cells without
/// their spreadsheet TAB).
class row_text {
 public:
  /// `json_keys`: the header as JSON object keys ("\"Device_id\":", see
  /// json_keys()) for JSON rows; nullptr for CSV rows.
  row_text(std::string& out, const std::vector<std::string>* json_keys) : out_(out), keys_(json_keys) {}

  /// Starts a row; from_col > 0 continues a row whose first cells were written
  /// elsewhere (the exporter formats op_summary's wait cell last).
  void open(std::size_t from_col = 0) {
    col_ = from_col;
    if (keys_ && from_col == 0) out_ += '{';
  }
  void close() { out_ += keys_ ? '}' : '\n'; }

  void str(std::string_view v) {
    next();
    if (!keys_) return append_csv_cell(out_, v);
    if (!v.empty() && v.back() == '\t') v.remove_suffix(1);
    append_json_string(out_, v);
  }
  void raw(std::string_view v) {
    next();
    quote();
    out_ += v;
    quote();
  }
  void num(std::uint64_t v) {
    const fmt::format_int f(v);
    raw(std::string_view(f.data(), f.size()));
  }
  void ts(std::int64_t ns) {
    next();
    quote();
    append_ts_us(out_, ns);
    out_ += keys_ ? '"' : '\t';  // JSON: the closing quote instead of the TAB
  }
  void us(std::int64_t ns) {
    next();
    quote();
    append_ts_us(out_, ns);
    quote();
  }
  // Compiled format strings: parsing "{:.3f}" at run time cost more than the number.
  void fixed3(double v) {
    next();
    quote();
    fmt::format_to(std::back_inserter(out_), FMT_COMPILE("{:.3f}"), v);
    quote();
  }
  void fixed6(double v) {
    next();
    quote();
    fmt::format_to(std::back_inserter(out_), FMT_COMPILE("{:.6f}"), v);
    quote();
  }
  /// round3_py (text.hpp), formatted in place (the PMU cells: 20 a row).
  void round3(double v) {
    next();
    quote();
    const std::size_t at = out_.size();
    fmt::format_to(std::back_inserter(out_), FMT_COMPILE("{:.3f}"), v);
    while (out_.size() - at > 2 && out_.back() == '0' && out_[out_.size() - 2] != '.') out_.pop_back();
    if (std::string_view(out_).substr(at) == "-0.0") out_.erase(at, 1);
    quote();
  }

  /// The JSON object keys of a header.
  static std::vector<std::string> json_keys(const std::vector<std::string>& header) {
    std::vector<std::string> keys;
    for (const auto& h : header) {
      std::string k;
      append_json_string(k, h);
      keys.push_back(k + ':');
    }
    return keys;
  }

 private:
  void next() {
    if (col_) out_ += ',';
    if (keys_) out_ += (*keys_)[col_];
    ++col_;
  }
  void quote() {
    if (keys_) out_ += '"';
  }

  std::string& out_;
  const std::vector<std::string>* keys_;
  std::size_t col_ = 0;
};

/// Collects a row's cells as strings (the `table` API).
class cell_list {
 public:
  explicit cell_list(table::row& cells) : cells_(cells) {}
  void str(std::string_view v) { cells_.emplace_back(v); }
  void raw(std::string_view v) { cells_.emplace_back(v); }
  void num(std::uint64_t v) { cells_.push_back(std::to_string(v)); }
  void ts(std::int64_t ns) { cells_.push_back(ts_us(ns) + '\t'); }
  void us(std::int64_t ns) { cells_.push_back(ts_us(ns)); }
  void fixed3(double v) { cells_.push_back(fmt::format("{:.3f}", v)); }
  void fixed6(double v) { cells_.push_back(fmt::format("{:.6f}", v)); }
  void round3(double v) { cells_.push_back(round3_py(v)); }

 private:
  table::row& cells_;
};

/// Appends a row to `t`: format(sink) writes its cells.
template <class Format>
void add_row(table& t, const Format& format) {
  table::row r;
  cell_list s(r);
  format(s);
  t.rows.push_back(std::move(r));
}

/// CSV or JSON text of one row of already formatted cells.
inline void append_row_text(std::string& out, const table::row& cells, const std::vector<std::string>* json_keys) {
  row_text s(out, json_keys);
  s.open();
  for (const auto& c : cells) s.str(c);
  s.close();
}

namespace detail {

inline std::string shape_cell(const op_info& op, std::uint32_t kind) {
  std::string s = "\"";
  bool first = true;
  for (const auto& t : op.tensors) {
    if (t.kind != kind) continue;
    if (!first) s += ';';
    first = false;
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(t.shape[i]);
    }
  }
  s += '"';
  return s;
}

template <class F>
std::string join_tensors(const op_info& op, std::uint32_t kind, F name_of) {
  std::string s;
  bool first = true;
  for (const auto& t : op.tensors) {
    if (t.kind != kind) continue;
    if (!first) s += ';';
    first = false;
    s += name_of(t);
  }
  return s;
}

inline bool in_op_summary(const op_info& op) {
  switch (op.ge_task_type) {
    case 3: case 11: case 256: return false;
    case 9: return op.name.size() >= 9 && op.name.compare(op.name.size() - 9, 9, "AivKernel") == 0;
    default: return true;
  }
}

inline bool is_aic(std::uint32_t ge) { return ge == 0 || ge == 4; }
inline bool is_aiv(std::uint32_t ge) { return ge == 2 || ge == 5; }

inline double dur_us(std::int64_t start_ns, std::int64_t end_ns) {
  return static_cast<double>(end_ns - start_ns) / 1000.0;
}

}  // namespace detail

/// PipeUtilization values of one task, in the order the db stores them
/// (total_time, total_cycles, then time/ratio for vec, mac, scalar, mte1, mte2,
/// mte3, then icache_miss_rate). Times in µs.
struct pipe_metrics {
  double total_time_us = 0;
  double total_cycles = 0;
  std::array<double, 6> time_us{};  ///< vec, mac, scalar, mte1, mte2, mte3
  std::array<double, 6> ratio{};
  double icache_miss_rate = 0;
};

/// Event order of PipeUtilization: 0x8 vec, 0xa mac, 0x9 scalar, 0xb mte1, 0xc mte2, 0xd mte3, 0x54, 0x55.
inline pipe_metrics compute_pipe(const pmu_counters& p, std::uint32_t block_num, double freq_mhz,
                                 std::uint32_t core_num) {
  pipe_metrics m;
  const double block = block_num == 0 ? 1.0 : static_cast<double>(block_num);
  const double cores = core_num == 0 ? 1.0 : static_cast<double>(core_num);
  const double waves = std::floor((block + cores - 1) / cores);
  m.total_cycles = static_cast<double>(p.total_cycles);
  m.total_time_us = m.total_cycles / freq_mhz / block * waves;
  // pmuList order in the record: vec, mac, scalar, mte1, mte2, mte3, icache_req, icache_miss.
  for (int i = 0; i < 6; ++i) {
    const double c = static_cast<double>(p.events[static_cast<std::size_t>(i)]);
    // time = ratio * total time: this order reproduces the reference's doubles bit for bit.
    m.ratio[static_cast<std::size_t>(i)] = p.total_cycles ? c / m.total_cycles : 0.0;
    m.time_us[static_cast<std::size_t>(i)] = m.ratio[static_cast<std::size_t>(i)] * m.total_time_us;
  }
  // miss rate = miss ratio / request ratio (the reference divides the two ratios).
  const double req = p.total_cycles ? static_cast<double>(p.events[6]) / m.total_cycles : 0.0;
  const double miss = p.total_cycles ? static_cast<double>(p.events[7]) / m.total_cycles : 0.0;
  m.icache_miss_rate = req != 0.0 ? miss / req : 0.0;
  return m;
}

inline std::vector<std::string> pipe_header() {
  return {"aicore_time(us)", "aic_total_cycles", "aic_mac_time(us)", "aic_mac_ratio", "aic_scalar_time(us)",
          "aic_scalar_ratio", "aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)", "aic_mte2_ratio",
          "aic_mte3_time(us)", "aic_mte3_ratio", "aic_icache_miss_rate", "aiv_time(us)", "aiv_total_cycles",
          "aiv_vec_time(us)", "aiv_vec_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio", "aiv_mte2_time(us)",
          "aiv_mte2_ratio", "aiv_mte3_time(us)", "aiv_mte3_ratio", "aiv_icache_miss_rate", "cube_utilization(%)"};
}

inline bool has_pipe_pmu(const model& m) { return m.session.ai_core_metrics == "PipeUtilization"; }

/// A task that has an op_summary row.
inline bool in_op_summary(const device_task& t) { return t.op && detail::in_op_summary(*t.op); }

/// A task's place in op_summary and task_time: by device, then start time, then launch.
struct task_row_key {
  std::uint32_t device_id;
  std::int64_t start_ns;
  std::uint64_t global_task_id;
  static task_row_key of(const device_task& t) noexcept { return {t.device_id, t.start_ns, t.global_task_id}; }
  bool operator<(const task_row_key& o) const noexcept {
    return std::tie(device_id, start_ns, global_task_id) < std::tie(o.device_id, o.start_ns, o.global_task_id);
  }
};

/// Tasks of op_summary order: ops only, by device, then start time, then launch.
inline std::vector<const device_task*> op_summary_tasks(const model& m) {
  std::vector<const device_task*> v;
  for (const auto& t : m.tasks)
    if (in_op_summary(t)) v.push_back(&t);
  std::stable_sort(v.begin(), v.end(), [](const device_task* a, const device_task* b) {
    return std::tie(a->device_id, a->start_ns) < std::tie(b->device_id, b->start_ns);
  });
  return v;
}

/// op_summary ----------------------------------------------------------------

inline std::vector<std::string> op_summary_header(bool pipe) {
  std::vector<std::string> h = {
      "Device_id",         "Model ID",         "Task ID",          "Stream ID",         "Op Name",
      "OP Type",           "OP State",         "Task Type",        "Task Start Time(us)", "Task Duration(us)",
      "Task Wait Time(us)", "Block Num",       "Mix Block Num",    "HF32 Eligible",     "Input Shapes",
      "Input Data Types",  "Input Formats",    "Output Shapes",    "Output Data Types", "Output Formats",
      "Context ID"};
  if (pipe) {
    const auto p = pipe_header();
    h.insert(h.end(), p.begin(), p.end());
  }
  return h;
}

/// Column of "Task Wait Time(us)", the one cell that depends on the previous row.
inline constexpr std::size_t op_summary_wait_col = 10;

/// op_summary columns before the wait cell.
template <class Sink>
void op_summary_head(Sink& s, const device_task& t) {
  const op_info& op = *t.op;
  s.num(t.device_id);
  s.raw("4294967295");
  s.num(t.task_id);
  s.num(t.stream_id);
  s.str(op.name);
  s.str(op.type);
  s.raw(op.dynamic ? "dynamic" : "static");
  s.raw(ge_task_type_name(op.ge_task_type));
  s.ts(t.start_ns);
  s.fixed3(detail::dur_us(t.start_ns, t.end_ns));
}

/// The wait cell: start minus the end of the previous op of the same device
/// (prev_end_ns; none for a device's first op), never negative.
template <class Sink>
void op_summary_wait(Sink& s, std::optional<std::int64_t> prev_end_ns, std::int64_t start_ns) {
  if (!prev_end_ns) return s.raw("0");
  const double wait = detail::dur_us(*prev_end_ns, start_ns);
  s.fixed6(wait > 0 ? wait : 0.0);
}

/// op_summary columns after the wait cell (the PMU ones when `pipe`; `dev` is
/// the task's device, nullptr when unknown).
template <class Sink>
void op_summary_tail(Sink& s, const device_task& t, const device_info* dev, bool pipe) {
  const op_info& op = *t.op;
  auto data_type = [](const tensor_desc& d) { return data_type_name(d.data_type); };
  auto format = [](const tensor_desc& d) { return format_name(d.format); };
  s.num(op.block_num);
  s.raw("0");
  s.raw("NO");
  s.str(detail::shape_cell(op, 0));
  s.str(detail::join_tensors(op, 0, data_type));
  s.str(detail::join_tensors(op, 0, format));
  s.str(detail::shape_cell(op, 1));
  s.str(detail::join_tensors(op, 1, data_type));
  s.str(detail::join_tensors(op, 1, format));
  s.raw("N/A");
  if (!pipe) return;
  const bool aic = detail::is_aic(op.ge_task_type), aiv = detail::is_aiv(op.ge_task_type);
  if (!t.pmu || (!aic && !aiv) || !dev) {
    for (int i = 0; i < 25; ++i) s.raw("N/A");
    return;
  }
  const auto pm = compute_pipe(*t.pmu, op.block_num, dev->aic_frequency_mhz, aic ? dev->ai_core_num : dev->aiv_num);
  // aic side: time, cycles, mac, scalar, mte1, mte2, mte3, icache miss rate;
  // aiv side: time, cycles, vec, scalar, mte2, mte3, icache miss rate.
  static constexpr std::size_t aic_pipes[] = {1, 2, 3, 4, 5};
  static constexpr std::size_t aiv_pipes[] = {0, 2, 4, 5};
  auto side = [&](bool on, const auto& pipes) {
    auto value = [&](double v) { on ? s.round3(v) : s.raw("0.0"); };
    value(pm.total_time_us);
    if (on)
      s.num(t.pmu->total_cycles);
    else
      s.raw("0");
    for (std::size_t i : pipes) {
      value(pm.time_us[i]);
      value(pm.ratio[i]);
    }
    value(pm.icache_miss_rate);
  };
  side(aic, aic_pipes);
  side(aiv, aiv_pipes);
  const double dur = detail::dur_us(t.start_ns, t.end_ns);
  double cube = 0;
  if (aic && dur > 0)
    cube = static_cast<double>(t.pmu->total_cycles) / (dev->aic_frequency_mhz * dev->ai_core_num * dur) * 100.0;
  s.fixed3(cube);
}

inline table op_summary(const model& m) {
  table t;
  t.name = "op_summary";
  const bool pipe = has_pipe_pmu(m);
  t.header = op_summary_header(pipe);
  const device_task* prev = nullptr;
  for (const device_task* task : op_summary_tasks(m)) {
    add_row(t, [&](auto& s) {
      op_summary_head(s, *task);
      op_summary_wait(s, prev && prev->device_id == task->device_id ? std::optional(prev->end_ns) : std::nullopt,
                      task->start_ns);
      op_summary_tail(s, *task, m.device(task->device_id), pipe);
    });
    prev = task;
  }
  return t;
}

/// op_statistic --------------------------------------------------------------

/// Ops grouped by (device, type, core type). Durations are added in op_summary
/// row order, so the sums are the same doubles whoever feeds them.
class op_statistic_groups {
 public:
  /// The id of a task's group (created on first use).
  std::uint32_t group_of(const device_task& t) {
    const auto [it, added] = ids_.try_emplace(key{t.device_id, t.op->type, ge_task_type_name(t.op->ge_task_type)},
                                              static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.push_back({t.device_id});
    return it->second;
  }
  void add(std::uint32_t group, double dur_us) {
    agg& g = groups_[group];
    if (g.count == 0) g.mn = g.mx = dur_us;
    g.mn = std::min(g.mn, dur_us);
    g.mx = std::max(g.mx, dur_us);
    g.total += dur_us;
    ++g.count;
    device_total_[g.device] += dur_us;
  }
  /// Calls row(format) per row, by device, then total time (largest first),
  /// then group key; format(sink) writes the row's cells.
  template <class Row>
  void rows(Row&& row) const {
    std::vector<std::pair<const key*, const agg*>> v;
    for (const auto& [k, id] : ids_) v.emplace_back(&k, &groups_[id]);
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      if (a.second->device != b.second->device) return a.second->device < b.second->device;
      return a.second->total > b.second->total;
    });
    for (const auto& [k, g] : v) {
      const double all = device_total_.at(g->device);
      row([&, k = k, g = g](auto& s) {
        s.num(g->device);
        s.str(std::get<1>(*k));
        s.raw(std::get<2>(*k));
        s.num(g->count);
        s.raw(fewest3(g->total));
        s.raw(fewest3(g->mn));
        s.raw(fewest3(g->total / static_cast<double>(g->count)));
        s.raw(fewest3(g->mx));
        s.raw(fewest3(all > 0 ? g->total / all * 100.0 : 0.0));
      });
    }
  }
  std::size_t size() const noexcept { return groups_.size(); }

 private:
  using key = std::tuple<std::uint32_t, std::string, std::string>;
  struct agg {
    std::uint32_t device = 0;
    std::size_t count = 0;
    double total = 0, mn = 0, mx = 0;
  };
  std::map<key, std::uint32_t> ids_;
  std::vector<agg> groups_;
  std::map<std::uint32_t, double> device_total_;
};

inline std::vector<std::string> op_statistic_header() {
  return {"Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
          "Avg Time(us)", "Max Time(us)", "Ratio(%)"};
}

inline table op_statistic(const model& m) {
  table t;
  t.name = "op_statistic";
  t.header = op_statistic_header();
  op_statistic_groups g;
  for (const device_task* task : op_summary_tasks(m)) g.add(g.group_of(*task), detail::dur_us(task->start_ns, task->end_ns));
  g.rows([&](const auto& format) { add_row(t, format); });
  return t;
}

/// api_statistic -------------------------------------------------------------

/// Host API calls grouped by (level, name). The reference's two passes: sums
/// in call order, then the population variance around the mean, again in call
/// order.
class api_statistic_groups {
 public:
  std::uint32_t group_of(const api_call& a) {
    const auto [it, added] =
        ids_.try_emplace(key{level_name(a.level), a.name}, static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.emplace_back();
    return it->second;
  }
  /// First pass.
  void add(std::uint32_t group, double dur_us) {
    agg& g = groups_[group];
    g.mn = g.count ? std::min(g.mn, dur_us) : dur_us;
    g.mx = g.count ? std::max(g.mx, dur_us) : dur_us;
    g.sum += dur_us;
    ++g.count;
  }
  /// Second pass, after every add().
  void add_deviation(std::uint32_t group, double dur_us) {
    agg& g = groups_[group];
    const double avg = g.sum / static_cast<double>(g.count);
    g.var_sum += (dur_us - avg) * (dur_us - avg);
  }
  /// Calls row(format) per row, by level name, then API name.
  template <class Row>
  void rows(Row&& row) const {
    for (const auto& [k, id] : ids_) {
      const agg& g = groups_[id];
      row([&, k = &k](auto& s) {
        const double n = static_cast<double>(g.count);
        s.raw("host");
        s.raw(k->first);
        s.str(k->second);
        s.raw(fewest3(g.sum));
        s.num(g.count);
        s.raw(fewest3(g.sum / n));
        s.raw(fewest3(g.mn));
        s.raw(fewest3(g.mx));
        s.raw(fewest3(g.var_sum / n));
      });
    }
  }
  std::size_t size() const noexcept { return groups_.size(); }

 private:
  using key = std::pair<std::string, std::string>;
  struct agg {
    std::size_t count = 0;
    double sum = 0, mn = 0, mx = 0, var_sum = 0;
  };
  std::map<key, std::uint32_t> ids_;
  std::vector<agg> groups_;
};

inline std::vector<std::string> api_statistic_header() {
  return {"Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)", "Variance"};
}

inline table api_statistic(const model& m) {
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

/// api_statistic fed window by window (load_windows): the calls go through a
/// sorter so both passes see them in call (connection id) order.
class api_statistic_stream {
 public:
  api_statistic_stream(std::string spill_dir, std::size_t budget)
      : spill_dir_(std::move(spill_dir)), budget_(budget), calls_(spill_dir_, budget) {}

  void add(const api_call& a) {
    const row r{groups_.group_of(a), a.end_ns - a.start_ns};
    calls_.push({a.connection_id}, std::string_view(reinterpret_cast<const char*>(&r), sizeof r));
  }
  /// Calls added and not yet finished.
  std::size_t size() const noexcept { return calls_.size(); }
  /// Runs both passes; groups() then holds the statistics.
  result<void> finish() {
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
  const api_statistic_groups& groups() const noexcept { return groups_; }

 private:
  struct call_key {
    std::uint64_t connection_id;
    bool operator<(const call_key& o) const { return connection_id < o.connection_id; }
  };
  struct row {  // no padding: the bytes go to disk as they are
    std::uint64_t group;
    std::int64_t dur_ns;
  };
  static row row_of(std::string_view p) {
    row r;
    std::memcpy(&r, p.data(), sizeof r);
    return r;
  }

  std::string spill_dir_;
  std::size_t budget_;
  spill_sorter<call_key> calls_;
  api_statistic_groups groups_;
};

/// task_time -----------------------------------------------------------------

inline std::vector<std::string> task_time_header() {
  return {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)", "task_start(us)",
          "task_stop(us)"};
}

template <class Sink>
void task_time_row(Sink& s, const device_task& t) {
  s.num(t.device_id);
  if (t.kernel_name.empty())
    s.raw("N/A");
  else
    s.str(t.kernel_name);
  if (t.op)
    s.raw(ge_task_type_name(t.op->ge_task_type));
  else
    s.str(t.task_type);
  s.num(t.stream_id);
  s.num(t.task_id);
  s.fixed3(detail::dur_us(t.start_ns, t.end_ns));
  s.ts(t.start_ns);
  s.ts(t.end_ns);
}

/// Rows by device, then start time, then launch.
inline table task_time(const model& m) {
  table t;
  t.name = "task_time";
  t.header = task_time_header();
  std::vector<const device_task*> v;
  for (const auto& task : m.tasks) v.push_back(&task);
  std::stable_sort(v.begin(), v.end(), [](const device_task* a, const device_task* b) {
    return std::tie(a->device_id, a->start_ns) < std::tie(b->device_id, b->start_ns);
  });
  for (const device_task* task : v) add_row(t, [&](auto& s) { task_time_row(s, *task); });
  return t;
}

/// msprof_tx -----------------------------------------------------------------

inline std::vector<std::string> msprof_tx_header() {
  return {"Device_id", "pid", "tid", "category", "event_type", "payload_type", "payload_value",
          "Start_time(us)", "End_time(us)", "message_type", "message", "domain", "Device Start_time(us)",
          "Device End_time(us)"};
}

/// Quirk of the reference (Python msprof_tx export): with a device present the
/// host times are printed on the raw monotonic clock, without the wall offset.
inline bool msprof_tx_raw_clock(const model& m) { return m.has_device(); }

template <class Sink>
void msprof_tx_row(Sink& s, const mstx_event& e, bool raw_clock) {
  static const char* const types[] = {"marker", "push/pop", "start/end", "marker_ex"};
  s.raw("host");
  s.num(e.pid);
  s.num(e.tid);
  s.raw("N/A");
  s.raw(e.event_type < 4 ? types[e.event_type] : "unknown");
  s.raw("N/A");
  s.raw("N/A");
  s.ts(raw_clock ? e.start_mono_ns : e.start_ns);
  s.ts(raw_clock ? e.end_mono_ns : e.end_ns);
  s.raw("N/A");
  s.str(e.message);
  s.str(e.domain);
  s.raw("N/A");
  s.raw("N/A");
}

/// Rows by start time, then record order.
inline table msprof_tx(const model& m) {
  table t;
  t.name = "msprof_tx";
  t.header = msprof_tx_header();
  std::vector<const mstx_event*> v;
  for (const auto& e : m.mstx) v.push_back(&e);
  std::stable_sort(v.begin(), v.end(), [](const mstx_event* a, const mstx_event* b) { return a->start_ns < b->start_ns; });
  const bool raw = msprof_tx_raw_clock(m);
  for (const mstx_event* e : v) add_row(t, [&](auto& s) { msprof_tx_row(s, *e, raw); });
  return t;
}

/// step_trace ----------------------------------------------------------------

/// step_trace: one row per iteration (msprof 9ba1ac7be summary_step_trace_assembler):
/// FP/BP/Iteration End are local times with the spreadsheet TAB, a missing
/// FP/BP prints as 0.000 (the reference converts only non-zero times and
/// prints the 0 as is), durations with 3 decimals. No all-reduce columns: the
/// all-reduce tags are not read.
inline std::vector<std::string> step_trace_header() {
  return {"Device_id",          "Iteration ID",      "FP Start(us)",          "BP End(us)",         "Iteration End(us)",
          "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)", "Model ID"};
}

template <class Sink>
void step_trace_row(Sink& s, const iteration& it) {
  const bool fp_bp = it.fp_ns != 0 && it.bp_ns != 0;
  s.num(it.device_id);
  s.num(it.iteration_id);
  s.ts(it.fp_ns);  // 0 prints as 0.000
  s.ts(it.bp_ns);
  s.ts(it.end_ns);
  s.us(it.end_ns - it.start_ns);
  s.us(fp_bp ? it.bp_ns - it.fp_ns : 0);
  s.us(it.bp_ns ? it.end_ns - it.bp_ns : 0);
  s.us(it.data_aug_ns);
  s.num(it.model_id);
}

inline table step_trace(const model& m) {
  table t;
  t.name = "step_trace";
  t.header = step_trace_header();
  for (const auto& it : m.iterations) add_row(t, [&](auto& s) { step_trace_row(s, it); });
  return t;
}

/// mstx_mem ------------------------------------------------------------------

/// mstx_mem: the mstx heap and region (un)registrations, in record order
/// (msprof's own summary; CANN's tools have none).
inline std::vector<std::string> mstx_mem_header() {
  return {"Timestamp(us)", "tid", "domain", "operation", "handle", "heap", "address", "size(B)", "Device_id"};
}

template <class Sink>
void mstx_mem_row(Sink& s, const mstx_mem_event& e) {
  static const char* const ops[] = {"heap_register", "heap_unregister", "region_register", "region_unregister"};
  char address[24];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(e.address));
  s.ts(e.ts_ns);
  s.num(e.tid);
  s.str(e.domain);
  s.raw(e.op < 4 ? ops[e.op] : "unknown");
  s.num(e.handle);
  if (e.heap)
    s.num(e.heap);
  else
    s.raw("N/A");
  s.raw(address);
  s.num(e.size);
  s.num(e.device_id);
}

inline table mstx_mem(const model& m) {
  table t;
  t.name = "mstx_mem";
  t.header = mstx_mem_header();
  for (const auto& e : m.mstx_mem) add_row(t, [&](auto& s) { mstx_mem_row(s, e); });
  return t;
}

/// msprof_losses -------------------------------------------------------------

/// msprof_losses: the collector's nonzero loss counters (info.json
/// msprof_losses), so a summary of an incomplete trace says so next to the
/// other summaries. No rows (no file) when nothing was lost.
inline table msprof_losses(const model& m) {
  table t;
  t.name = "msprof_losses";
  t.header = {"counter", "events", "meaning"};
  auto meaning = [](const std::string& k) -> const char* {
    if (k == "dropped") return "recorded while a thread's buffer was full: not in any output";
    if (k == "rejected") return "calls refused (bad message, domain, handle or memory descriptor)";
    if (k == "domain_mismatch") return "range ends in another domain than their start: ignored";
    if (k == "unknown_range_ends") return "range ends without a recorded start";
    if (k == "unfinished_ranges") return "ranges still open when collection stopped";
    if (k == "lost_threads") return "threads whose buffer could not be created: their events are missing";
    if (k == "storage_limit_dropped") return "records not written because of the storage limit or a full disk";
    return "";
  };
  for (const auto& [k, n] : m.session.losses)
    if (n > 0) t.rows.push_back({k, std::to_string(n), meaning(k)});
  return t;
}

/// Every summary that has rows, in a fixed order (the exporter's file order).
inline std::vector<table> all_summaries(const model& m) {
  std::vector<table> v;
  auto add = [&](table t) {
    if (t.size() != 0) v.push_back(std::move(t));
  };
  add(op_summary(m));
  add(op_statistic(m));
  add(api_statistic(m));
  add(task_time(m));
  add(msprof_tx(m));
  add(step_trace(m));
  add(mstx_mem(m));
  add(msprof_losses(m));
  return v;
}

/// CSV text of a table (rows [first, last)).
inline std::string csv_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  std::string out;
  append_row_text(out, t.header, nullptr);
  for (std::size_t i = first; i < t.rows.size() && i < last; ++i) append_row_text(out, t.rows[i], nullptr);
  return out;
}

/// JSON text of a table: an array of objects keyed by the header.
inline std::string json_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  const auto keys = row_text::json_keys(t.header);
  std::string out = "[";
  for (std::size_t i = first; i < t.rows.size() && i < last; ++i) {
    if (i != first) out += ',';
    append_row_text(out, t.rows[i], &keys);
  }
  out += "]";
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SUMMARY_HPP
