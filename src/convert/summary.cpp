// SPDX-License-Identifier: MIT
// Summary tables (summary.hpp): the cell writers, the row formatters and the tables
// built from them, except the statistics (summary_statistic.cpp).
#include "msprof/convert/summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "msprof/convert/model.hpp"
#include "msprof/convert/text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Cell writers -------------------------------------------------------------

void row_text::open(std::size_t from_col) {
  col_ = from_col;
  if (keys_ && from_col == 0) out_ += '{';
}
void row_text::close() { out_ += keys_ ? '}' : '\n'; }

void row_text::str(std::string_view v) {
  next();
  if (!keys_) return append_csv_cell(out_, v);
  if (!v.empty() && v.back() == '\t') v.remove_suffix(1);
  append_json_string(out_, v);
}
void row_text::raw(std::string_view v) {
  next();
  quote();
  out_ += v;
  quote();
}
void row_text::num(std::uint64_t v) {
  next();
  quote();
  append_u64(out_, v);
  quote();
}
void row_text::ts(std::int64_t ns) {
  next();
  quote();
  append_ts_us(out_, ns);
  out_ += keys_ ? '"' : '\t';  // JSON: the closing quote instead of the TAB
}
void row_text::us(std::int64_t ns) {
  next();
  quote();
  append_ts_us(out_, ns);
  quote();
}
void row_text::fixed3(double v) {
  next();
  quote();
  append_fixed(out_, v, 3);
  quote();
}
void row_text::fixed6(double v) {
  next();
  quote();
  append_fixed(out_, v, 6);
  quote();
}
void row_text::round3(double v) {
  next();
  quote();
  append_round3_sql(out_, v);
  quote();
}

std::vector<std::string> row_text::json_keys(const std::vector<std::string>& header) {
  std::vector<std::string> keys;
  for (const auto& h : header) {
    std::string k;
    append_json_string(k, h);
    keys.push_back(k + ':');
  }
  return keys;
}

void row_text::next() {
  if (col_) out_ += ',';
  if (keys_) out_ += (*keys_)[col_];
  ++col_;
}
void row_text::quote() {
  if (keys_) out_ += '"';
}

void cell_list::str(std::string_view v) { cells_.emplace_back(v); }
void cell_list::raw(std::string_view v) { cells_.emplace_back(v); }
// Through the same appenders as row_text (no std::to_string or fmt::format per cell).
void cell_list::num(std::uint64_t v) { append_u64(cells_.emplace_back(), v); }
void cell_list::ts(std::int64_t ns) {
  std::string& c = cells_.emplace_back();
  append_ts_us(c, ns);
  c += '\t';
}
void cell_list::us(std::int64_t ns) { append_ts_us(cells_.emplace_back(), ns); }
void cell_list::fixed3(double v) { append_fixed(cells_.emplace_back(), v, 3); }
void cell_list::fixed6(double v) { append_fixed(cells_.emplace_back(), v, 6); }
void cell_list::round3(double v) { append_round3_sql(cells_.emplace_back(), v); }

template <class Append>
void cell_pack::cell(const Append& append) {
  out_.append(sizeof(std::uint32_t), '\0');
  const std::size_t at = out_.size();
  append(out_);
  const auto n = static_cast<std::uint32_t>(out_.size() - at);
  std::memcpy(&out_[at - sizeof n], &n, sizeof n);
  ++cells_;
}
// The same appenders as cell_list's, into the row's bytes.
void cell_pack::num(std::uint64_t v) {
  cell([&](std::string& s) { append_u64(s, v); });
}
void cell_pack::ts(std::int64_t ns) {
  cell([&](std::string& s) {
    append_ts_us(s, ns);
    s += '\t';
  });
}
void cell_pack::us(std::int64_t ns) {
  cell([&](std::string& s) { append_ts_us(s, ns); });
}
void cell_pack::fixed3(double v) {
  cell([&](std::string& s) { append_fixed(s, v, 3); });
}
void cell_pack::fixed6(double v) {
  cell([&](std::string& s) { append_fixed(s, v, 6); });
}
void cell_pack::round3(double v) {
  cell([&](std::string& s) { append_round3_sql(s, v); });
}

void append_row_text(std::string& out, const table::row& cells, const std::vector<std::string>* json_keys) {
  row_text s(out, json_keys);
  s.open();
  for (const auto& c : cells) s.str(c);
  s.close();
}

namespace detail {

std::string shape_cell(const op_info& op, std::uint32_t kind) {
  std::string s = "\"";
  bool first = true;
  for (const auto& t : op.tensors) {
    if (t.kind != kind) continue;
    if (!first) s += ';';
    first = false;
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      if (i) s += ',';
      append_u64(s, t.shape[i]);
    }
  }
  s += '"';
  return s;
}

bool in_op_summary(const op_info& op) {
  switch (op.ge_task_type) {
    case 3: case 11: case 256: return false;
    case 9: return op.name.size() >= 9 && op.name.compare(op.name.size() - 9, 9, "AivKernel") == 0;
    default: return true;
  }
}

}  // namespace detail

namespace {

namespace am = codec::aic_metrics;

// The counter of `event`: its first place in the side's event list (the
// reference maps events to pmuList slots that way); 0 when not listed.
double counter(const pmu_side& side, const pmu_counters& p, std::uint32_t event) {
  for (std::size_t i = 0; i < side.events.size() && i < p.events.size(); ++i)
    if (side.events[i] == event) return static_cast<double>(p.events[i]);
  return 0.0;
}

// Columns the reference removes on chip 5 (metric_processor.cpp UNSUPPORTED_HEADER).
bool unsupported(std::string_view column) {
  static constexpr std::string_view names[] = {
      "aic_vec_ratio", "aic_vec_time", "aiv_mac_ratio", "aiv_mac_time", "aiv_mte1_ratio", "aic_ub_read_bw",
      "aiv_mte1_time", "aic_ub_write_bw", "aiv_l1_read_bw", "aiv_l1_write_bw", "aic_l0c_read_bw",
      "aic_l0c_write_bw", "aiv_l0a_read_bw", "aiv_l0a_write_bw", "aiv_l0b_read_bw", "aiv_l0b_write_bw",
      "aiv_l0c_read_bw_cube", "aiv_l0c_write_bw_cube", "aic_ub_read_bw_mte", "aic_ub_write_bw_mte",
      "aic_ub_read_bw_vector", "aic_ub_write_bw_vector", "aiv_mac_fp16_ratio", "aiv_mac_int8_ratio",
      "aic_vec_fp32_ratio", "aic_vec_fp16_ratio", "aic_vec_int32_ratio", "aic_vec_misc_ratio",
      "aic_vec_fp16_128lane_ratio", "aic_vec_fp16_64lane_ratio", "aic_vec_bankgroup_cflt_ratio",
      "aic_vec_bank_cflt_ratio", "aic_vec_resc_cflt_ratio", "aic_vector_fops", "aiv_cube_fops",
      "aiv_fixpipe_ratio", "aiv_fixpipe_time"};
  return std::find(std::begin(names), std::end(names), column) != std::end(names);
}

// The op_summary name of a metric column (the reference's ModifySummaryHeaders).
std::string summary_name(std::string c) {
  if (am::output_name(c).size() != c.size()) return std::string(am::output_name(c));
  if (c.find("time") != std::string::npos) return c + "(us)";
  if (c.find("bw") != std::string::npos) return c + "(GB/s)";
  if (c.find("datas") != std::string::npos) return c + "(KB)";
  return c;
}

pmu_side side_of(std::string_view calc, const std::vector<std::uint32_t>& events) {
  pmu_side s;
  s.calc = am::find_calculator(calc);
  s.events = events;
  return s;
}

}  // namespace

// Every calculator's metrics fit in pmu_values (the db rows rely on it: a value per name).
static_assert([] {
  for (const auto& c : am::calculators)
    if (c.size > std::tuple_size<decltype(pmu_values::metrics)>::value) return false;
  return true;
}());

pmu_values compute_pmu(const pmu_side& side, const pmu_counters& p, std::uint32_t block_num, double freq_mhz,
                       std::uint32_t core_num) {
  pmu_values v;
  // The reference's integer MHz, in Hz, and its operation order (metric_calculator.cpp).
  const double hz = freq_mhz >= 1 && freq_mhz < 4294967296.0  // a u32 MHz there; else no time
                        ? static_cast<double>(static_cast<std::uint64_t>(freq_mhz) * 1000000u)
                        : 0.0;
  const double cycles = static_cast<double>(p.total_cycles);
  if (block_num && core_num && hz > 0)
    v.total_time_us = cycles * 1e6 / hz / block_num * static_cast<double>((block_num + core_num - 1) / core_num);
  if (!side.calc) return v;
  v.size = std::min(side.calc->size, v.metrics.size());
  for (std::size_t k = 0; k < v.size; ++k) {
    const am::metric& m = side.calc->metrics[k];
    double r = 0;
    switch (m.kind) {
      case am::formula::ratio:
      case am::formula::time:
        if (p.total_cycles)
          for (std::size_t i = 0; i < m.n; ++i) r += 1.0 * counter(side, p, m.events[i]) / cycles;
        if (m.kind == am::formula::time) r = v.total_time_us * r;
        break;
      case am::formula::miss_rate: {
        const double miss = counter(side, p, m.events[0]), req = counter(side, p, m.events[1]);
        if (p.total_cycles && miss != 0 && req != 0) r = 1.0 * miss / cycles / (1.0 * req / cycles);
        break;
      }
      case am::formula::bandwidth:
        if (p.total_cycles && hz > 0)
          r = 1.0 * counter(side, p, m.events[0]) * m.weight[0] * m.weight[1] / (cycles / hz) / 8589934592.0;
        break;
      case am::formula::count:
        for (std::size_t i = 0; i < m.n; ++i) r += counter(side, p, m.events[i]);
        break;
      case am::formula::fops:
      case am::formula::data:
        if (p.total_cycles || m.kind == am::formula::data)
          for (std::size_t i = 0; i < m.n; ++i) r += 1.0 * counter(side, p, m.events[i]) * m.weight[i];
        break;
    }
    v.metrics[k] = r;
  }
  return v;
}

pmu_columns pmu_columns::of(const session_info& s) {
  pmu_columns c;
  c.aic = side_of(s.ai_core_metrics, s.aic_events);
  c.aiv = side_of(s.aiv_metrics, s.aiv_events);
  // The reference needs both calculators to write any metric (metric_summary_persistence.cpp).
  if (!c.aic.calc || !c.aiv.calc) return {};
  auto add = [&](pmu_side& side, const char* prefix, const char* time) {
    c.header.push_back(time);
    c.header.push_back(std::string(prefix) + "total_cycles");
    for (std::size_t k = 0; k < side.calc->size; ++k) {
      const std::string col = prefix + std::string(side.calc->metrics[k].name);
      if (unsupported(col)) continue;
      side.shown.push_back(k);
      c.header.push_back(summary_name(col));
    }
  };
  add(c.aic, "aic_", "aicore_time(us)");
  add(c.aiv, "aiv_", "aiv_time(us)");
  // cube_utilization(%) needs aic_mac_ratio (metric_processor.cpp CheckAndGetCubeUsageRelatedDataIndex).
  c.cube_utilization = std::find(c.header.begin(), c.header.end(), "aic_mac_ratio") != c.header.end();
  if (c.cube_utilization) c.header.push_back("cube_utilization(%)");
  return c;
}

bool in_op_summary(const device_task& t) { return t.op && detail::in_op_summary(*t.op); }

std::vector<const device_task*> op_summary_tasks(const model& m) {
  std::vector<const device_task*> v;
  for (const auto& t : m.tasks)
    if (in_op_summary(t)) v.push_back(&t);
  std::stable_sort(v.begin(), v.end(), [](const device_task* a, const device_task* b) {
    return std::tie(a->device_id, a->start_ns) < std::tie(b->device_id, b->start_ns);
  });
  return v;
}

/// op_summary ----------------------------------------------------------------

std::vector<std::string> op_summary_header(const pmu_columns* pmu) {
  std::vector<std::string> h = {
      "Device_id",         "Model ID",         "Task ID",          "Stream ID",         "Op Name",
      "OP Type",           "OP State",         "Task Type",        "Task Start Time(us)", "Task Duration(us)",
      "Task Wait Time(us)", "Block Num",       "Mix Block Num",    "HF32 Eligible",     "Input Shapes",
      "Input Data Types",  "Input Formats",    "Output Shapes",    "Output Data Types", "Output Formats",
      "Context ID"};
  if (pmu) h.insert(h.end(), pmu->header.begin(), pmu->header.end());
  return h;
}

template <class Cells>
void op_summary_head(Cells& s, const device_task& t) {
  const op_info& op = *t.op;
  s.num(t.device_id);
  s.num(t.model_id);
  s.num(t.task_id);
  s.num(t.stream_id);
  s.str(op.name);
  s.str(op.type);
  s.raw(op.dynamic ? "dynamic" : "static");
  s.raw(ge_task_type_name(op.ge_task_type));
  s.ts(t.start_ns);
  s.fixed3(detail::dur_us(t.start_ns, t.end_ns));
}

template <class Cells>
void op_summary_wait(Cells& s, std::optional<std::int64_t> prev_end_ns, std::int64_t start_ns) {
  if (!prev_end_ns) return s.raw("0");
  const double wait = detail::dur_us(*prev_end_ns, start_ns);
  s.fixed6(wait > 0 ? wait : 0.0);
}

template <class Cells>
void op_summary_tail(Cells& s, const device_task& t, const device_spec* dev, const pmu_columns* pmu) {
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
  if (!pmu || pmu->empty()) return;
  const bool aic = detail::is_aic(op.ge_task_type), aiv = detail::is_aiv(op.ge_task_type);
  if (!t.pmu || (!aic && !aiv) || !dev) {
    for (std::size_t i = 0; i < pmu->header.size(); ++i) s.raw("N/A");
    return;
  }
  // The task's own side is computed; the other side reads 0 (the reference stores 0 there).
  auto side = [&](const pmu_side& sd, bool on) {
    const pmu_values v = on ? compute_pmu(sd, *t.pmu, op.block_num, dev->aic_frequency_mhz, aic ? dev->ai_core_num : dev->aiv_num)
                            : pmu_values{};
    auto value = [&](double x) { on ? s.round3(x) : s.raw("0.0"); };
    value(v.total_time_us);
    if (on)
      s.num(t.pmu->total_cycles);
    else
      s.raw("0");
    for (std::size_t k : sd.shown) value(v.metrics[k]);
  };
  side(pmu->aic, aic);
  side(pmu->aiv, aiv);
  if (!pmu->cube_utilization) return;
  const double dur = detail::dur_us(t.start_ns, t.end_ns);
  double cube = 0;
  if (aic && dur > 0)
    cube = static_cast<double>(t.pmu->total_cycles) / (dev->aic_frequency_mhz * dev->ai_core_num * dur) * 100.0;
  s.fixed3(cube);
}

table op_summary(const model& m) {
  table t;
  t.name = "op_summary";
  const pmu_columns pmu = pmu_columns::of(m.session);
  t.header = op_summary_header(&pmu);
  const device_task* prev = nullptr;
  for (const device_task* task : op_summary_tasks(m)) {
    add_row(t, [&](auto& s) {
      op_summary_head(s, *task);
      op_summary_wait(s, prev ? std::optional(prev->end_ns) : std::nullopt, task->start_ns);
      op_summary_tail(s, *task, m.device(task->device_id), &pmu);
    });
    prev = task;
  }
  return t;
}

/// task_time -----------------------------------------------------------------

std::vector<std::string> task_time_header() {
  return {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id", "task_time(us)", "task_start(us)",
          "task_stop(us)"};
}

template <class Cells>
void task_time_row(Cells& s, const device_task& t) {
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

table task_time(const model& m) {
  table t;
  t.name = "task_time";
  t.header = task_time_header();
  std::vector<const device_task*> v;
  for (const auto& task : m.tasks) v.push_back(&task);
  std::stable_sort(v.begin(), v.end(), [](const device_task* a, const device_task* b) {
    return task_time_key::of(*a) < task_time_key::of(*b);
  });
  for (const device_task* task : v) add_row(t, [&](auto& s) { task_time_row(s, *task); });
  return t;
}

/// msprof_tx -----------------------------------------------------------------

std::vector<std::string> msprof_tx_header() {
  return {"Device_id", "pid", "tid", "category", "event_type", "payload_type", "payload_value",
          "Start_time(us)", "End_time(us)", "message_type", "message", "domain", "Device Start_time(us)",
          "Device End_time(us)"};
}

bool msprof_tx_raw_clock(const model& m) { return m.has_device(); }

template <class Cells>
void msprof_tx_row(Cells& s, const mstx_event& e, bool raw_clock) {
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

table msprof_tx(const model& m) {
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

std::vector<std::string> step_trace_header() {
  return {"Device_id",          "Iteration ID",      "FP Start(us)",          "BP End(us)",         "Iteration End(us)",
          "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)", "Model ID"};
}

template <class Cells>
void step_trace_row(Cells& s, const iteration& it) {
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

table step_trace(const model& m) {
  table t;
  t.name = "step_trace";
  t.header = step_trace_header();
  for (const auto& it : m.iterations) add_row(t, [&](auto& s) { step_trace_row(s, it); });
  return t;
}

/// mstx_mem ------------------------------------------------------------------

std::vector<std::string> mstx_mem_header() {
  return {"Timestamp(us)", "tid", "domain", "operation", "handle", "heap", "address", "size(B)", "Device_id"};
}

template <class Cells>
void mstx_mem_row(Cells& s, const mstx_mem_event& e) {
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

table mstx_mem(const model& m) {
  table t;
  t.name = "mstx_mem";
  t.header = mstx_mem_header();
  for (const auto& e : m.mstx_mem) add_row(t, [&](auto& s) { mstx_mem_row(s, e); });
  return t;
}

/// msprof_losses -------------------------------------------------------------

table msprof_losses(const model& m) {
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
    if (k == "storage_limit_dropped") return "events deleted with old slices by the storage limit, or not written (limit reached, full disk)";
    if (k == "sink_failed") return "calls whose records the output failed to take (an error writing them): not in any output";
    if (k == "lost_at_kill")
      return "calls made but lost when the program ended without stopping collection: still in the collector's "
             "memory (unread buffers, ranges still open) or dropped after the counters were last saved";
    return "";
  };
  for (const auto& [k, n] : m.session.losses)
    if (n > 0) t.rows.push_back({k, std::to_string(n), meaning(k)});
  const bool all_counted = m.session.lost_at_kill().has_value();
  if (m.session.unfinished && !m.session.losses.empty())
    t.rows.push_back({"collection_unfinished", all_counted ? "0" : "unknown",
                      all_counted ? "the program ended without stopping collection (killed or crashed): lost_at_kill "
                                    "counts what it lost then, so every call is accounted for"
                                  : "the program ended without stopping collection (killed or crashed): the counters "
                                    "above are the last ones saved; calls still in memory at the end are missing "
                                    "and not counted"});
  return t;
}

std::vector<table> all_summaries(const model& m) {
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

std::string csv_text(const table& t, std::size_t first, std::size_t last) {
  std::string out;
  append_row_text(out, t.header, nullptr);
  for (std::size_t i = first; i < t.rows.size() && i < last; ++i) append_row_text(out, t.rows[i], nullptr);
  return out;
}

std::string json_text(const table& t, std::size_t first, std::size_t last) {
  const auto keys = row_text::json_keys(t.header);
  std::string out = "[";
  for (std::size_t i = first; i < t.rows.size() && i < last; ++i) {
    if (i != first) out += ',';
    append_row_text(out, t.rows[i], &keys);
  }
  out += "]";
  return out;
}

// The row formatters for the two cell writers.
template void op_summary_head<row_text>(row_text&, const device_task&);
template void op_summary_wait<row_text>(row_text&, std::optional<std::int64_t>, std::int64_t);
template void op_summary_tail<row_text>(row_text&, const device_task&, const device_spec*, const pmu_columns*);
template void task_time_row<row_text>(row_text&, const device_task&);
template void msprof_tx_row<row_text>(row_text&, const mstx_event&, bool);
template void step_trace_row<row_text>(row_text&, const iteration&);
template void mstx_mem_row<row_text>(row_text&, const mstx_mem_event&);
template void op_summary_head<cell_pack>(cell_pack&, const device_task&);
template void op_summary_tail<cell_pack>(cell_pack&, const device_task&, const device_spec*, const pmu_columns*);
template void task_time_row<cell_pack>(cell_pack&, const device_task&);
template void op_summary_head<cell_list>(cell_list&, const device_task&);
template void op_summary_wait<cell_list>(cell_list&, std::optional<std::int64_t>, std::int64_t);
template void op_summary_tail<cell_list>(cell_list&, const device_task&, const device_spec*, const pmu_columns*);
template void task_time_row<cell_list>(cell_list&, const device_task&);
template void msprof_tx_row<cell_list>(cell_list&, const mstx_event&, bool);
template void step_trace_row<cell_list>(cell_list&, const iteration&);
template void mstx_mem_row<cell_list>(cell_list&, const mstx_mem_event&);

}  // namespace convert
MSPROF_END_NAMESPACE
