// SPDX-License-Identifier: MIT
// Summary tables (op_summary, op_statistic, api_statistic, task_time,
// msprof_tx) as header + rows of already-formatted cells, exactly as msprof
// 9ba1ac7be prints them. The CSV/JSON file writers (with _slice_<k> splitting)
// are in export.hpp; `msprof show` prints the same tables.
#ifndef MSPROF_CONVERT_SUMMARY_HPP
#define MSPROF_CONVERT_SUMMARY_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "model.hpp"
#include "text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// A formatted table. Cells are final text (CSV quoting is applied on write).
struct table {
  using row = std::vector<std::string>;
  using row_fn = std::function<void(const row&)>;
  std::string name;  ///< file stem, e.g. "op_summary"
  std::vector<std::string> header;
  std::vector<row> rows;
  /// Lazy tables (per-record ones, built with lazy = true) produce their rows on
  /// demand instead of holding them; they refer to the model, which must outlive them.
  std::function<void(const row_fn&)> generate;
  std::size_t lazy_count = 0;

  std::size_t size() const noexcept { return generate ? lazy_count : rows.size(); }
  void for_each(const row_fn& f) const {
    if (generate)
      generate(f);
    else
      for (const auto& r : rows) f(r);
  }
  void materialize() {
    if (!generate) return;
    rows.reserve(lazy_count);
    generate([this](const row& r) { rows.push_back(r); });
    generate = nullptr;
  }
};

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

/// Tasks of op_summary order: ops only, by start time.
inline std::vector<const device_task*> op_summary_tasks(const model& m) {
  std::vector<const device_task*> v;
  for (const auto& t : m.tasks)
    if (t.op && detail::in_op_summary(*t.op)) v.push_back(&t);
  std::stable_sort(v.begin(), v.end(), [](const device_task* a, const device_task* b) {
    return std::tie(a->device_id, a->start_ns) < std::tie(b->device_id, b->start_ns);
  });
  return v;
}

inline bool has_pipe_pmu(const model& m) { return m.session.ai_core_metrics == "PipeUtilization"; }

inline table op_summary(const model& m, bool lazy = false) {
  table t;
  t.name = "op_summary";
  t.header = {"Device_id", "Model ID", "Task ID", "Stream ID", "Op Name", "OP Type", "OP State", "Task Type",
              "Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)", "Block Num", "Mix Block Num",
              "HF32 Eligible", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
              "Output Data Types", "Output Formats", "Context ID"};
  const bool pipe = has_pipe_pmu(m);
  if (pipe) {
    auto h = pipe_header();
    t.header.insert(t.header.end(), h.begin(), h.end());
  }
  auto tasks = std::make_shared<std::vector<const device_task*>>(op_summary_tasks(m));
  t.lazy_count = tasks->size();
  const std::size_t ncols = t.header.size();
  t.generate = [&m, tasks, pipe, ncols](const table::row_fn& emit) {
  const device_task* prev = nullptr;
  std::vector<std::string> r;
  for (const device_task* task : *tasks) {
    const op_info& op = *task->op;
    r.clear();
    r.reserve(ncols);
    r.push_back(std::to_string(task->device_id));
    r.push_back("4294967295");
    r.push_back(std::to_string(task->task_id));
    r.push_back(std::to_string(task->stream_id));
    r.push_back(op.name);
    r.push_back(op.type);
    r.push_back(op.dynamic ? "dynamic" : "static");
    r.push_back(ge_task_type_name(op.ge_task_type));
    r.push_back(ts_us(task->start_ns) + "\t");
    r.push_back(dur_us_fixed3(task->end_ns - task->start_ns));
    if (!prev || prev->device_id != task->device_id) {
      r.push_back("0");
    } else {
      const double wait = static_cast<double>(task->start_ns - prev->end_ns) / 1000.0;
      r.push_back(fmt::format("{:.6f}", wait > 0 ? wait : 0.0));
    }
    prev = task;
    r.push_back(std::to_string(op.block_num));
    r.push_back("0");
    r.push_back("NO");
    r.push_back(detail::shape_cell(op, 0));
    r.push_back(detail::join_tensors(op, 0, [](const tensor_desc& d) { return data_type_name(d.data_type); }));
    r.push_back(detail::join_tensors(op, 0, [](const tensor_desc& d) { return format_name(d.format); }));
    r.push_back(detail::shape_cell(op, 1));
    r.push_back(detail::join_tensors(op, 1, [](const tensor_desc& d) { return data_type_name(d.data_type); }));
    r.push_back(detail::join_tensors(op, 1, [](const tensor_desc& d) { return format_name(d.format); }));
    r.push_back("N/A");
    if (pipe) {
      const bool aic = detail::is_aic(op.ge_task_type), aiv = detail::is_aiv(op.ge_task_type);
      const device_info* dev = m.device(task->device_id);
      if (!task->pmu || (!aic && !aiv) || !dev) {
        for (int i = 0; i < 25; ++i) r.push_back("N/A");
      } else {
        const auto pm = compute_pipe(*task->pmu, op.block_num, dev->aic_frequency_mhz,
                                     aic ? dev->ai_core_num : dev->aiv_num);
        auto side = [&](bool on, bool is_aic_side) {
          // aic side: time, cycles, mac, scalar, mte1, mte2, mte3, icache
          // aiv side: time, cycles, vec, scalar, mte2, mte3, icache
          const std::vector<int> idx = is_aic_side ? std::vector<int>{1, 2, 3, 4, 5} : std::vector<int>{0, 2, 4, 5};
          r.push_back(on ? round3_py(pm.total_time_us) : "0.0");
          r.push_back(on ? fmt::format("{}", task->pmu->total_cycles) : "0");
          for (int i : idx) {
            r.push_back(on ? round3_py(pm.time_us[static_cast<std::size_t>(i)]) : "0.0");
            r.push_back(on ? round3_py(pm.ratio[static_cast<std::size_t>(i)]) : "0.0");
          }
          r.push_back(on ? round3_py(pm.icache_miss_rate) : "0.0");
        };
        side(aic, true);
        side(aiv, false);
        const double dur_us = static_cast<double>(task->end_ns - task->start_ns) / 1000.0;
        double cube = 0;
        if (aic && dur_us > 0)
          cube = static_cast<double>(task->pmu->total_cycles) /
                 (dev->aic_frequency_mhz * dev->ai_core_num * dur_us) * 100.0;
        r.push_back(fmt::format("{:.3f}", cube));
      }
    }
    emit(r);
  }
  };
  if (!lazy) t.materialize();
  return t;
}

inline table op_statistic(const model& m) {
  table t;
  t.name = "op_statistic";
  t.header = {"Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
              "Avg Time(us)", "Max Time(us)", "Ratio(%)"};
  struct agg {
    std::size_t count = 0;
    double total = 0, mn = 0, mx = 0;
  };
  std::map<std::tuple<std::uint32_t, std::string, std::string>, agg> groups;
  std::map<std::uint32_t, double> device_total;
  for (const device_task* task : op_summary_tasks(m)) {
    const double d = static_cast<double>(task->end_ns - task->start_ns) / 1000.0;
    auto& g = groups[{task->device_id, task->op->type, ge_task_type_name(task->op->ge_task_type)}];
    if (g.count == 0) g.mn = g.mx = d;
    g.mn = std::min(g.mn, d);
    g.mx = std::max(g.mx, d);
    g.total += d;
    ++g.count;
    device_total[task->device_id] += d;
  }
  std::vector<std::pair<std::tuple<std::uint32_t, std::string, std::string>, agg>> v(groups.begin(), groups.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a.first) != std::get<0>(b.first)) return std::get<0>(a.first) < std::get<0>(b.first);
    return a.second.total > b.second.total;
  });
  for (const auto& [k, g] : v) {
    const double all = device_total[std::get<0>(k)];
    t.rows.push_back({std::to_string(std::get<0>(k)), std::get<1>(k), std::get<2>(k), std::to_string(g.count),
                      fewest3(g.total), fewest3(g.mn), fewest3(g.total / static_cast<double>(g.count)),
                      fewest3(g.mx), fewest3(all > 0 ? g.total / all * 100.0 : 0.0)});
  }
  return t;
}

inline table api_statistic(const model& m) {
  table t;
  t.name = "api_statistic";
  t.header = {"Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)", "Variance"};
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;
  for (const auto& a : m.apis)
    groups[{level_name(a.level), a.name}].push_back(static_cast<double>(a.end_ns - a.start_ns) / 1000.0);
  for (const auto& [k, d] : groups) {
    const double n = static_cast<double>(d.size());
    const double sum = std::accumulate(d.begin(), d.end(), 0.0);
    const double avg = sum / n;
    double var = 0;
    for (double x : d) var += (x - avg) * (x - avg);
    var /= n;
    t.rows.push_back({"host", k.first, k.second, fewest3(sum), std::to_string(d.size()), fewest3(avg),
                      fewest3(*std::min_element(d.begin(), d.end())), fewest3(*std::max_element(d.begin(), d.end())),
                      fewest3(var)});
  }
  return t;
}

inline table task_time(const model& m, bool lazy = false) {
  table t;
  t.name = "task_time";
  t.header = {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)", "task_start(us)",
              "task_stop(us)"};
  auto v = std::make_shared<std::vector<const device_task*>>();
  for (const auto& task : m.tasks) v->push_back(&task);
  std::stable_sort(v->begin(), v->end(), [](const device_task* a, const device_task* b) {
    return std::tie(a->device_id, a->start_ns) < std::tie(b->device_id, b->start_ns);
  });
  t.lazy_count = v->size();
  t.generate = [v](const table::row_fn& emit) {
    for (const device_task* task : *v) {
      emit({std::to_string(task->device_id), task->kernel_name.empty() ? "N/A" : task->kernel_name,
            task->op ? ge_task_type_name(task->op->ge_task_type) : task->task_type, std::to_string(task->stream_id),
            std::to_string(task->task_id), dur_us_fixed3(task->end_ns - task->start_ns), ts_us(task->start_ns) + "\t",
            ts_us(task->end_ns) + "\t"});
    }
  };
  if (!lazy) t.materialize();
  return t;
}

inline table msprof_tx(const model& m, bool lazy = false) {
  table t;
  t.name = "msprof_tx";
  t.header = {"Device_id", "pid", "tid", "category", "event_type", "payload_type", "payload_value",
              "Start_time(us)", "End_time(us)", "message_type", "message", "domain", "Device Start_time(us)",
              "Device End_time(us)"};
  auto v = std::make_shared<std::vector<const mstx_event*>>();
  for (const auto& e : m.mstx) v->push_back(&e);
  std::stable_sort(v->begin(), v->end(),
                   [](const mstx_event* a, const mstx_event* b) { return a->start_ns < b->start_ns; });
  // Quirk of the reference (Python msprof_tx export): with a device present the
  // host times are printed on the raw monotonic clock, without the wall offset.
  const bool raw = m.has_device();
  t.lazy_count = v->size();
  t.generate = [v, raw](const table::row_fn& emit) {
    static const char* const types[] = {"marker", "push/pop", "start/end", "marker_ex"};
    for (const mstx_event* e : *v) {
      emit({"host", std::to_string(e->pid), std::to_string(e->tid), "N/A",
            e->event_type < 4 ? types[e->event_type] : "unknown", "N/A", "N/A",
            ts_us(raw ? e->start_mono_ns : e->start_ns) + "\t", ts_us(raw ? e->end_mono_ns : e->end_ns) + "\t", "N/A",
            e->message, e->domain, "N/A", "N/A"});
    }
  };
  if (!lazy) t.materialize();
  return t;
}

/// step_trace: one row per iteration (msprof 9ba1ac7be summary_step_trace_assembler):
/// FP/BP/Iteration End are local times with the spreadsheet TAB, a missing
/// FP/BP prints as 0.000 (the reference converts only non-zero times and
/// prints the 0 as is), durations with 3 decimals. No all-reduce columns: the
/// all-reduce tags are not read.
inline table step_trace(const model& m) {
  table t;
  t.name = "step_trace";
  t.header = {"Device_id",          "Iteration ID",      "FP Start(us)",          "BP End(us)",         "Iteration End(us)",
              "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)", "Model ID"};
  for (const auto& it : m.iterations) {
    const bool fp_bp = it.fp_ns != 0 && it.bp_ns != 0;
    t.rows.push_back({std::to_string(it.device_id), std::to_string(it.iteration_id),
                      (it.fp_ns ? ts_us(it.fp_ns) : std::string("0.000")) + "\t",
                      (it.bp_ns ? ts_us(it.bp_ns) : std::string("0.000")) + "\t", ts_us(it.end_ns) + "\t",
                      ts_us(it.end_ns - it.start_ns), ts_us(fp_bp ? it.bp_ns - it.fp_ns : 0),
                      ts_us(it.bp_ns ? it.end_ns - it.bp_ns : 0), ts_us(it.data_aug_ns), std::to_string(it.model_id)});
  }
  return t;
}

/// mstx_mem: the mstx heap and region (un)registrations, in record order
/// (msprof's own summary; CANN's tools have none).
inline table mstx_mem(const model& m) {
  table t;
  t.name = "mstx_mem";
  t.header = {"Timestamp(us)", "tid", "domain", "operation", "handle", "heap", "address", "size(B)", "Device_id"};
  static const char* const ops[] = {"heap_register", "heap_unregister", "region_register", "region_unregister"};
  for (const auto& e : m.mstx_mem) {
    char address[24];
    std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(e.address));
    t.rows.push_back({ts_us(e.ts_ns) + "\t", std::to_string(e.tid), e.domain, e.op < 4 ? ops[e.op] : "unknown",
                      std::to_string(e.handle), e.heap ? std::to_string(e.heap) : "N/A", address,
                      std::to_string(e.size), std::to_string(e.device_id)});
  }
  return t;
}

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

/// Every summary that has rows, in a fixed order. With lazy = true the
/// per-record tables stream their rows (the model must outlive the tables).
inline std::vector<table> all_summaries(const model& m, bool lazy = false) {
  std::vector<table> v;
  auto add = [&](table t) {
    if (t.size() != 0) v.push_back(std::move(t));
  };
  add(op_summary(m, lazy));
  add(op_statistic(m));
  add(api_statistic(m));
  add(task_time(m, lazy));
  add(msprof_tx(m, lazy));
  add(step_trace(m));
  add(mstx_mem(m));
  add(msprof_losses(m));
  return v;
}

/// One CSV line.
inline void append_csv_row(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    append_csv_cell(out, cells[i]);
  }
  out += '\n';
}

/// One JSON object keyed by the header (time cells without their spreadsheet TAB).
inline void append_json_row(std::string& out, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
  out += '{';
  for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) {
    if (c) out += ',';
    append_json_string(out, header[c]);
    out += ':';
    std::string_view v = cells[c];
    if (!v.empty() && v.back() == '\t') v.remove_suffix(1);
    append_json_string(out, v);
  }
  out += '}';
}

/// CSV text of a table (rows [first, last)).
inline std::string csv_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  std::string out;
  append_csv_row(out, t.header);
  std::size_t i = 0;
  t.for_each([&](const table::row& r) {
    if (i >= first && i < last) append_csv_row(out, r);
    ++i;
  });
  return out;
}

/// JSON text of a table: an array of objects keyed by the header.
inline std::string json_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  std::string out = "[";
  std::size_t i = 0;
  t.for_each([&](const table::row& r) {
    if (i >= first && i < last) {
      if (i != first) out += ',';
      append_json_row(out, t.header, r);
    }
    ++i;
  });
  out += "]";
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SUMMARY_HPP
