// SPDX-License-Identifier: MIT
// ASCEND_PROFILER_OUTPUT/ text files, as torch_npu 9e73e708a writes them: the
// CANN summaries it copies (op_statistic, api_statistic, task_time), the
// kernel view (op_summary renamed, with the step of each kernel), the operator
// view (op tree durations), the step times (Overlap Analysis per step) and the
// memory views (torch.memory_usage). Every CSV file is Python csv.writer
// text: CRLF line ends, cells quoted when they hold , " or a line break. The
// timeline, trace_view.json, is trace_view.cpp's.
#include "msprof/convert/ascend_pt/analyse.hpp"
#include "msprof/convert/ascend_pt/trace_view.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "msprof/convert/ascend_pt/cann_part.hpp"
#include "msprof/convert/ascend_pt/db.hpp"
#include "msprof/convert/beside.hpp"
#include "msprof/convert/hccl.hpp"
#include "msprof/convert/hccl_analyze.hpp"
#include "msprof/convert/load.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/overlap.hpp"
#include "msprof/convert/show.hpp"
#include "msprof/convert/summary.hpp"
#include "msprof/convert/sys_io.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

namespace fs = std::filesystem;

/// Where a table goes, row by row, so that no big table is ever held whole:
/// a CSV file (analyse) or the few tables show needs. torch_npu writes no file
/// for a table without rows: a sink is told the header with the first row.
class table_sink {
 public:
  virtual ~table_sink() = default;
  /// A new table: its name and header (no rows yet).
  virtual void begin(const std::string& name, std::vector<std::string> header) = 0;
  virtual result<void> row(const table::row& cells) = 0;
  /// The table is complete.
  virtual result<void> end() = 0;
  /// A table built whole (the small ones).
  result<void> whole(std::optional<table>&& t) {
    if (!t) return {};
    begin(t->name, std::move(t->header));
    for (const auto& r : t->rows) MSPROF_TRY(row(r));
    return end();
  }
};

/// csv.writer text of one row (CRLF, cells quoted when they hold , " or a line break).
void csv_crlf_line(std::string& out, const table::row& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    append_csv_cell(out, cells[i]);
  }
  out += "\r\n";
}

/// The kernel view (torch_npu KernelViewParser): op_summary's columns, 8 of
/// them renamed; Level0 keeps only those 8 and the shape columns; with steps,
/// a "Step Id" column first (the step whose device range holds the start,
/// compared as text as torch_npu does). Row by row, in op_summary's order.
result<void> kernel_details(cann_part& cann, const profiler_info& info, const std::vector<step_range>& steps,
                            table_sink& out) {
  if (cann.op_summary_rows() == 0) return {};
  const std::vector<std::string> header = cann.op_summary_header();
  static const std::vector<std::pair<std::string, std::string>> renamed = {{"Device_id", "Device_id"},
                                                                           {"Op Name", "Name"},
                                                                           {"OP Type", "Type"},
                                                                           {"Task Type", "Accelerator Core"},
                                                                           {"Task Start Time(us)", "Start Time(us)"},
                                                                           {"Task Duration(us)", "Duration(us)"},
                                                                           {"Task Wait Time(us)", "Wait Time(us)"},
                                                                           {"Block Num", "Block Num"}};
  static const std::vector<std::string> shapes = {"Input Shapes",  "Input Data Types",  "Input Formats",
                                                  "Output Shapes", "Output Data Types", "Output Formats"};
  std::vector<std::size_t> cols;
  const auto col_of = [&](const std::string& h) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == h) return i;
    return std::nullopt;
  };
  if (info.level == "Level0") {
    for (const auto& r : renamed)
      if (auto c = col_of(r.first)) cols.push_back(*c);
    for (const auto& h : shapes)
      if (auto c = col_of(h)) cols.push_back(*c);
  } else {
    for (std::size_t i = 0; i < header.size(); ++i) cols.push_back(i);
  }
  std::vector<std::string> h;
  if (!steps.empty()) h.push_back("Step Id");
  for (auto c : cols) {
    std::string name = header[c];
    for (const auto& r : renamed)
      if (r.first == name) name = r.second;
    h.push_back(std::move(name));
  }
  out.begin("kernel_details", std::move(h));
  const auto start_col = col_of("Task Start Time(us)");
  std::vector<std::pair<std::string, std::string>> bounds;
  for (const auto& st : steps) bounds.emplace_back(ts_us(st.start_ns), ts_us(st.end_ns));
  table::row r;
  MSPROF_TRY(cann.drain_op_summary([&](table::row& full) -> result<void> {
    r.clear();
    if (!steps.empty()) {
      const std::string ts = start_col ? full[*start_col] : "0";
      std::string id;
      for (std::size_t k = 0; k < steps.size(); ++k)
        if (bounds[k].first <= ts && ts <= bounds[k].second) {
          id = steps[k].id;
          break;
        }
      r.push_back(std::move(id));
    }
    for (auto k : cols) r.push_back(std::move(full[k]));
    return out.row(r);
  }));
  return out.end();
}

/// task_time (the CANN summary torch_npu copies), row by row: tasks by start over all devices.
result<void> task_time_rows(cann_part& cann, table_sink& out) {
  if (cann.task_time_rows() == 0) return {};
  out.begin("task_time", task_time_header());
  MSPROF_TRY(cann.drain_task_time([&](table::row& r) { return out.row(r); }));
  return out.end();
}

/// npu_module_mem (the CANN summary torch_npu copies, IntegrateParser with
/// NpuModuleMemoryBean): the same rows, the reserved memory in MB as Python's
/// str(float(KB) / 1024). Problems of the slices go to `warnings`.
result<void> npu_module_mem(const pt_dir& d, std::vector<std::string>& warnings, table_sink& out) {
  std::error_code ec;
  const auto tmp = fs::temp_directory_path(ec);
  module_mem_rows rows(ec ? std::string("/tmp") : tmp.string(), spill_budget_default);
  MSPROF_TRY(rows.read(d.prof_dir, warnings));
  if (rows.size() == 0) return {};
  out.begin("npu_module_mem", {"Device_id", "Component", "Timestamp(us)", "Total Reserved(MB)", "Device"});
  table::row r;
  result<void> written;
  MSPROF_TRY(rows.drain([&](const module_mem_sample& m) {
    if (!written) return;
    r.clear();
    cell_list c(r);
    npu_module_mem_row(c, m);
    r[3] = py_float(static_cast<double>(m.reserved / 1024) / 1024.0);
    written = out.row(r);
  }));
  MSPROF_TRY(written);
  return out.end();
}

/// l2_cache and soc_pmu (torch_npu's IntegrateParser with L2CacheBean and
/// SocPmuBean, at any level when experimental_config._l2_cache is set): CANN's
/// l2_cache / soc_pmu summary, its header and cells as they are (l2_cache.hpp);
/// no file without rows.
result<void> l2_summary(const pt_dir& d, const char* name, std::vector<std::string> (*header)(bool),
                        decltype(&for_each_l2_cache) for_each, const l2_cache_names& names,
                        std::vector<std::string>& warnings, table_sink& out) {
  const l2_cache_names* named = names.empty() ? nullptr : &names;
  bool begun = false;
  table::row r;
  MSPROF_TRY(for_each(d.prof_dir, warnings, [&](const task_rates& c) -> result<void> {
    if (!begun) out.begin(name, header(named != nullptr));
    begun = true;
    r.clear();
    cell_list s(r);
    task_rates_row(s, c, named);
    return out.row(r);
  }));
  return begun ? out.end() : result<void>{};
}

/// A ts or dur cell of the msprof timeline read back as Python float() does.
double as_py_float(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

/// step_trace_time (torch_npu TraceStepTimeParser) from the timeline's Overlap
/// Analysis events, per device and step: Computing and Free, and with HCCL
/// data the Communication and Communication(Not Overlapped) lanes and the
/// hcom_receive collectives (Bubble), each event counted in the step its
/// start falls in, as torch_npu reads them back from the timeline.
result<std::optional<table>> step_trace_time(cann_part& cann, const pt_dir& d, const std::vector<step_range>& steps,
                                             const hccl::communication& comm) {
  struct step_state {
    std::optional<std::string> id;
    double start = -1, end = -1, fwk_start = -1;
    double e2e_start = -1, e2e_end = -1, first_task = -1;
    bool e2e_set = false, first_set = false;
  };
  std::vector<step_state> proto;
  for (const auto& s : steps)
    proto.push_back(
        {s.id, as_py_float(ts_us(s.start_ns)), as_py_float(ts_us(s.end_ns)), as_py_float(ts_us(s.fwk_start_ns))});
  if (steps.empty()) proto.push_back({std::nullopt});
  enum kind { computing, free_time, communication, not_overlapped, bubble };
  struct sums {
    py_num compute, free, comm, not_overlapped, bubble;
  };
  // TraceStepTimeParser.count_time scans the steps twice per event: for the
  // first one holding its start, then for the first one with that one's id
  // (none: the first without an id). Both answers are found here without the
  // scans (thousands of steps, millions of events): the first by binary search
  // when the steps are in time order without overlap (ProfilerStep ranges),
  // else by the scan; the second from `first_with_id`.
  const std::size_t none = proto.size();
  std::vector<std::size_t> first_with_id(proto.size());
  std::map<std::optional<std::string>, std::size_t> first_of;
  std::size_t first_without_id = none;
  bool in_order = true;
  for (std::size_t i = 0; i < proto.size(); ++i) {
    first_with_id[i] = first_of.try_emplace(proto[i].id, i).first->second;
    if (!proto[i].id && first_without_id == none) first_without_id = i;
    if (i > 0) in_order = in_order && proto[i - 1].start <= proto[i].start && proto[i - 1].end <= proto[i].start;
  }
  const auto holding = [&](double start) {
    if (in_order) {
      const auto after = std::upper_bound(proto.begin(), proto.end(), start,
                                          [](double t, const step_state& st) { return t < st.start; });
      if (after == proto.begin()) return none;
      const std::size_t k = static_cast<std::size_t>(after - proto.begin()) - 1;
      return proto[k].start <= start && start < proto[k].end ? k : none;
    }
    for (std::size_t k = 0; k < proto.size(); ++k)
      if (proto[k].start <= start && start < proto[k].end) return k;
    return none;
  };
  std::map<std::uint32_t, std::vector<step_state>> per_device;
  // device -> (step id or none, in first-seen order) -> sums, and where each id's sums are
  // (by the id's first step; `none` for no id).
  std::map<std::uint32_t, std::vector<std::pair<std::optional<std::string>, sums>>> saved;
  std::map<std::uint32_t, std::vector<std::size_t>> saved_at;
  bool any = false;
  // One timeline event (TraceStepTimeParser.count_time).
  const auto count = [&](std::uint32_t device, kind k, std::int64_t b, std::int64_t e) {
    auto& list = per_device.try_emplace(device, proto).first->second;
    const double start = as_py_float(ts_us(b));
    const double dur = detail::dur_us(b, e);  // what dur_us_json(e - b) reads back as
    const std::size_t in = holding(start);
    const std::size_t id_key = in == none ? none : first_with_id[in];
    if (const std::size_t at = in == none ? first_without_id : id_key; at != none) {
      step_state& st = list[at];
      if (!st.e2e_set || start < st.e2e_start) st.e2e_start = start;
      if (!st.e2e_set || start + dur > st.e2e_end) st.e2e_end = start + dur;
      st.e2e_set = true;
      if ((k == computing || k == communication) && (!st.first_set || start < st.first_task)) {
        st.first_task = start;
        st.first_set = true;
      }
    }
    auto& dev = saved[device];
    constexpr std::size_t unset = SIZE_MAX;
    auto& slot = saved_at.try_emplace(device, proto.size() + 1, unset).first->second[id_key];
    if (slot == unset) {
      slot = dev.size();
      dev.push_back({in == none ? std::nullopt : proto[in].id, sums{}});
    }
    sums& s = dev[slot].second;
    py_num* const into[] = {&s.compute, &s.free, &s.comm, &s.not_overlapped, &s.bubble};
    into[k]->add(dur);
  };
  std::optional<hccl::overlap_lanes> lanes;  // the current device's collectives
  std::optional<std::uint32_t> device;
  MSPROF_TRY(cann.drain_overlap([&](const overlap_interval& iv) {
    any = true;
    if (device != iv.device_id) {
      device = iv.device_id;
      lanes.emplace(comm, iv.device_id);
      for (const auto& op : comm.ops)
        if (op.device_id == iv.device_id && op.name.rfind("hcom_receive", 0) == 0)
          count(iv.device_id, bubble, op.start_ns, op.end_ns);
      for (const auto& sp : lanes->communication_spans()) count(iv.device_id, communication, sp.first, sp.second);
    }
    if (iv.compute) return count(iv.device_id, computing, iv.start_ns, iv.end_ns);
    const auto parts = lanes->free_gap(iv.start_ns, iv.end_ns);
    for (const auto& sp : parts.not_overlapped) count(iv.device_id, not_overlapped, sp.first, sp.second);
    for (const auto& sp : parts.free) count(iv.device_id, free_time, sp.first, sp.second);
  }));
  if (!any) return std::optional<table>();
  const bool has_op = !d.ops.empty();
  const std::int64_t first_op = d.earliest_op_ns;
  struct out_row {
    std::uint32_t device;
    long long step;
    table::row cells;
  };
  std::vector<out_row> rows;
  for (const auto& [device, list] : saved) {
    for (const auto& [id, sm] : list) {
      if (!steps.empty() && !id) continue;
      py_num stage, prepare;
      for (const auto& st : per_device[device]) {
        if (st.id != id) continue;
        if (st.e2e_set) stage.add(st.e2e_end - st.e2e_start);
        const double first = st.first_set ? st.first_task : -1;
        if (id)
          prepare.add(first - st.fwk_start);
        else if (has_op)
          prepare.add(first - as_py_float(ts_us(first_op)));
        break;
      }
      // Python's int and float arithmetic: end to end less the bubbles, the
      // overlapped part, the part not overlapped less the bubbles (max(x, 0)).
      const auto minus = [](const py_num& a, const py_num& b) { return py_num{a.v - b.v, a.is_float || b.is_float}; };
      stage = minus(stage, sm.bubble);
      py_num rec = minus(sm.not_overlapped, sm.bubble);
      if (rec.v < 0) rec = py_num{};
      table::row r = {std::to_string(device),
                      id.value_or(""),
                      sm.compute.str(),
                      sm.not_overlapped.str(),
                      minus(sm.comm, sm.not_overlapped).str(),
                      sm.comm.str(),
                      sm.free.str(),
                      stage.str(),
                      sm.bubble.str(),
                      rec.str(),
                      prepare.str()};
      rows.push_back({device, id ? std::atoll(id->c_str()) : 0, std::move(r)});
    }
  }
  if (rows.empty()) return std::optional<table>();
  std::stable_sort(rows.begin(), rows.end(), [&](const out_row& a, const out_row& b) {
    return steps.empty() ? a.device < b.device : std::make_pair(a.device, a.step) < std::make_pair(b.device, b.step);
  });
  table t;
  t.name = "step_trace_time";
  t.header = {"Device_id",  "Step",
              "Computing",  "Communication(Not Overlapped)",
              "Overlapped", "Communication",
              "Free",       "Stage",
              "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
              "Preparing"};
  for (auto& r : rows) t.rows.push_back(std::move(r.cells));
  return std::optional<table>(std::move(t));
}

/// operator_details (torch_npu OperatorViewParser): every framework op but the
/// ProfilerStep ones, in start order, with host durations from the op tree and
/// device durations from the kernels bound to it (self) and below it (total):
/// link()'s rows, drained from their sorted run.
result<void> operator_details(relation& r, table_sink& out) {
  if (!r.details || r.details->size() == 0) return {};
  table::row row(9);
  item_lines_memo lines(r.texts, false);
  const auto us = [](std::int64_t ns) {  // dur_us_json's text but for ns past 2^53
    char buf[24];
    if (char* end = put_dur_us(buf, ns)) return std::string(buf, end);
    return py_float(as_py_float(ts_us(ns)));
  };
  out.begin("operator_details", {"Name", "Input Shapes", "Call Stack", "Host Self Duration(us)",
                                 "Host Total Duration(us)", "Device Self Duration(us)", "Device Total Duration(us)",
                                 "Device Self Duration With AICore(us)", "Device Total Duration With AICore(us)"});
  result<void> written;
  MSPROF_TRY(r.details->drain([&](std::uint64_t, std::string_view p) {
    if (!written) return;
    op_detail n;
    std::memcpy(static_cast<void*>(&n), p.data(), sizeof n);
    row[0].assign(r.texts[n.name]);
    row[1] = lines(n.input_shapes);
    row[2] = lines(n.call_stack);
    row[3] = us(n.self_ns);
    row[4] = us(n.total_ns);
    for (std::size_t k = 0; k < 4; ++k) row[5 + k] = n.dev[k].str();
    written = out.row(row);
  }));
  MSPROF_TRY(written);
  return out.end();
}

/// GE's memory records as torch_npu reads them back from CANN's memory_record
/// CSV (GeMemoryRecordBean): every row once per device directory, the time the
/// CSV's µs (the raw clock) in ns, totals float(KB text) / 1024 in MB.
struct ge_record {
  std::int64_t time;           ///< ns
  double allocated, reserved;  ///< MB
  std::int64_t device;         ///< the Device cell's "NPU:<id>"
};
struct ge_record_key {
  std::int64_t time_ns;
  std::uint64_t device, n;  ///< place in the CSV: device directories one after the other, then file order
  bool operator<(const ge_record_key& o) const noexcept {
    return std::tie(time_ns, device, n) < std::tie(o.time_ns, o.device, o.n);
  }
};

/// memory_record (torch_npu MemoryViewParser) from its rows (memory_record_rows)
/// merged with GE's records (merge_ge_memory): each GE record a GE row and a
/// PTA+GE row summed with the last PTA record of its device, each PTA record a
/// PTA row and a PTA+GE row summed with the last GE record (a workspace record
/// one WORKSPACE row). Sizes in MB as Python prints floats. GE's times are
/// CANN's raw-clock µs, so on a real collection they all come before the PTA
/// ones, as in torch_npu.
result<void> memory_record(const pt_dir& d, const model& m, std::vector<std::string>& warnings, table_sink& out) {
  const auto mb = [](std::int64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); };
  spill_sorter<ge_record_key> ge(d.spill_dir, d.spill_budget);
  if (d.info.npu) {
    std::vector<std::uint32_t> devices;
    std::uint64_t n = 0;
    MSPROF_TRY(for_each_ge_memory(d.prof_dir, warnings, devices, [&](const ge_memory_event& e) -> result<void> {
      const auto kb = [](std::uint64_t b) { return std::strtod(py_round3_kb(static_cast<double>(b)).c_str(), nullptr); };
      const ge_record r{e.mono_ns, kb(e.allocated) / 1024.0, kb(e.reserved) / 1024.0, e.device_id};
      for (std::uint32_t k = 0; k < std::max<std::size_t>(devices.size(), 1); ++k)
        ge.push({r.time, k, n}, bytes_of(r));
      ++n;
      return {};
    }));
  }
  bool begun = false;
  const auto begin = [&] {
    if (!begun)
      out.begin("memory_record", {"Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)",
                                  "Total Active(MB)", "Stream Ptr", "Device Type"});
    begun = true;
  };
  if (d.info.npu) MSPROF_TRY(npu_mem_app_rows(d.prof_dir, warnings, [&](table::row&& app) { return begin(), out.row(app); }));
  // Cells are remade only when their value changes: a PTA record's two rows
  // share all but the first, and the totals often stay the same.
  table::row r(7);
  std::int64_t time_of = -1, device_of = -1;
  std::string time_text, device_text;
  double mb_of[3] = {-1, -1, -1};
  std::string mb_text[3];
  const auto set_place = [&](std::int64_t time, std::int64_t device) {
    if (time != time_of || time_text.empty()) time_text = ts_us(time) + '\t';
    if (device != device_of || device_text.empty()) device_text = "NPU:" + std::to_string(device);
    time_of = time;
    device_of = device;
    r[1] = time_text;
    r[6] = device_text;
  };
  const auto set_mb = [&](std::size_t k, double v) {  // k: allocated, reserved, active
    // The same bits (0.0 and -0.0 print apart).
    if (std::memcmp(&v, &mb_of[k], sizeof v) != 0 || mb_text[k].empty()) mb_text[k] = py_float(v);
    mb_of[k] = v;
    r[2 + k] = mb_text[k];
  };
  const auto ge_row = [&](const ge_record& g, const memory_record_row* p) -> result<void> {
    begin();
    set_place(g.time, g.device);
    r[0] = "GE";
    set_mb(0, g.allocated);
    set_mb(1, g.reserved);
    r[4].clear();
    r[5].clear();
    MSPROF_TRY(out.row(r));
    r[0] = "PTA+GE";
    if (!p) {
      r[4] = "0";
    } else {
      set_mb(0, g.allocated + mb(p->allocated));
      set_mb(1, g.reserved + mb(p->reserved));
      set_mb(2, mb(p->active));
      r[5] = std::to_string(p->stream);
    }
    return out.row(r);
  };
  const auto pta_row = [&](const memory_record_row& x, const ge_record* g) -> result<void> {
    begin();
    set_place(x.time, x.device);
    r[0].assign(x.component);
    const bool with_ge = x.component == std::string_view("PTA+GE") && g;
    set_mb(0, mb(x.allocated) + (with_ge ? g->allocated : 0.0));
    set_mb(1, mb(x.reserved) + (with_ge ? g->reserved : 0.0));
    set_mb(2, mb(x.active));
    if (with_ge && !x.stream)
      r[5].clear();
    else
      r[5] = std::to_string(x.stream);
    return out.row(r);
  };
  MSPROF_TRY(merge_ge_memory<ge_record>(d, m, ge, ge_row, pta_row));
  return begun ? out.end() : result<void>();
}

/// Python's int() of a µs text as torch_npu's convert_us2ns reads it: the
/// digits with the fraction cut or padded to 3 places ("135.0" -> 135000).
std::int64_t us_text_ns(const std::string& us) {
  const auto dot = us.find('.');
  std::string digits = dot == std::string::npos ? us + "000" : us.substr(0, dot) + (us.substr(dot + 1) + "000").substr(0, 3);
  return std::strtoll(digits.c_str(), nullptr, 10);
}

/// operator_memory (torch_npu MemoryViewParser) from its rows (op_memory_rows):
/// sizes in KB and MB, times in us; then GE's operator memory as torch_npu
/// reads it back from CANN's operator_memory CSV (GeOpMemoryBean): "cann::"
/// and the op, the CSV's size, time and duration texts, a release time of
/// allocation + duration (an allocation never released gets its own time and
/// duration 0.0, as there), totals float(KB text) / 1024 in MB; the CSV's rows
/// once per device directory.
result<void> operator_memory(const pt_dir& d, const spilled_list<op_memory_row>& rows,
                             std::vector<std::string>& warnings, table_sink& out) {
  bool begun = false;
  const auto begin = [&] {
    if (!begun)
      out.begin("operator_memory", {"Name",
                                    "Size(KB)",
                                    "Allocation Time(us)",
                                    "Release Time(us)",
                                    "Active Release Time(us)",
                                    "Duration(us)",
                                    "Active Duration(us)",
                                    "Allocation Total Allocated(MB)",
                                    "Allocation Total Reserved(MB)",
                                    "Allocation Total Active(MB)",
                                    "Release Total Allocated(MB)",
                                    "Release Total Reserved(MB)",
                                    "Release Total Active(MB)",
                                    "Stream Ptr",
                                    "Device Type"});
    begun = true;
  };
  // The cells are rewritten in place, not made anew each row (a row of 15
  // new strings took a microsecond), and the size and the totals only when
  // their value changes: they repeat from row to row.
  table::row r(15);
  std::optional<std::int64_t> text_of[13];  // by cell: the bytes cells 1 and 7..12 were made from
  const auto set_number = [&](std::size_t cell, const std::optional<std::int64_t>& b, double unit) {
    if (!r[cell].empty() && text_of[cell] == b) return;
    text_of[cell] = b;
    r[cell] = b ? py_float(static_cast<double>(*b) / unit) : std::string();
  };
  const auto set_time = [&](std::size_t cell, const std::optional<std::int64_t>& ns) {
    r[cell].clear();
    if (!ns) return;
    append_ts_us(r[cell], *ns);
    r[cell] += '\t';
  };
  constexpr double kb = 1024.0, mb = 1024.0 * 1024.0;
  std::optional<std::int64_t> device_of;
  result<void> written;
  MSPROF_TRY(rows.each([&](const op_memory_row& x) {
    if (!written) return;
    begin();
    r[0].assign(x.name);
    set_number(1, x.size, kb);
    set_time(2, x.allocation_time);
    set_time(3, x.release_time);
    set_time(4, x.active_release_time);
    set_time(5, x.duration);
    set_time(6, x.active_duration);
    for (std::size_t k = 0; k < 3; ++k) {
      set_number(7 + k, x.allocation_total[k], mb);
      set_number(10 + k, x.release_total[k], mb);
    }
    r[13] = std::to_string(x.stream);
    if (device_of != x.device) r[14] = "NPU:" + std::to_string(x.device);
    device_of = x.device;
    written = out.row(r);
  }));
  MSPROF_TRY(written);
  if (d.info.npu) {
    const auto kb_mb = [](std::uint64_t b) {
      return py_float(std::strtod(py_round3_kb(static_cast<double>(b)).c_str(), nullptr) / 1024.0);
    };
    std::vector<std::uint32_t> devices;
    std::vector<std::string> again;  // the later passes' warnings are the first one's
    for (std::size_t k = 0; k == 0 || k < devices.size(); ++k) {
      std::vector<std::uint32_t> seen;
      MSPROF_TRY(for_each_ge_op_memory(
          d.prof_dir, k == 0 ? warnings : again, k == 0 ? devices : seen,
          [&](const ge_memory_event& a, const ge_memory_event* rel) -> result<void> {
            begin();
            const std::string dur = py_round3(rel ? static_cast<double>(rel->mono_ns - a.mono_ns) / 1000 : 0.0);
            r = {"cann::" + (a.named ? a.name : std::string()),
                 py_round3_kb(static_cast<double>(a.size)),
                 ts_us(a.mono_ns) + '\t',
                 ts_us(a.mono_ns + us_text_ns(dur)) + '\t',
                 "",
                 dur,
                 "",
                 kb_mb(a.allocated),
                 kb_mb(a.reserved),
                 "",
                 rel ? kb_mb(rel->allocated) : py_float(0.0),
                 rel ? kb_mb(rel->reserved) : py_float(0.0),
                 "",
                 "",
                 "NPU:" + std::to_string(a.device_id)};
            return out.row(r);
          }));
    }
  }
  return begun ? out.end() : result<void>();
}

/// An allocator record's device as torch_npu shows it: the PROF_ device when
/// there is exactly one, else the record's own index.
std::int64_t memory_device(const model& m, std::int8_t device_index) {
  return m.session.devices.size() == 1 ? static_cast<std::int64_t>(m.session.devices.front().id)
                                       : static_cast<std::int64_t>(device_index);
}

}  // namespace

result<void> memory_record_rows(const pt_dir& d, const model& m,
                                const std::function<result<void>(const memory_record_row&)>& row) {
  namespace fw = codec::framework;
  // The rows by time (equal times: file order); component views a literal.
  result<void> written;
  const auto npu = [](const fw::memory_usage& u) { return u.device_type == fw::memory_usage::npu; };
  MSPROF_TRY(memory_by_time(d, d.spill_budget, npu, [&](const fw::memory_usage& u) {
    if (!written) return;
    memory_record_row x;
    x.component = u.component_type == fw::memory_usage::workspace ? "WORKSPACE" : "PTA";
    x.time = u.time;
    x.allocated = u.total_allocated;
    x.reserved = u.total_reserved;
    x.active = u.total_active;
    x.stream = u.stream_ptr;
    x.device = memory_device(m, u.device_index);
    written = row(x);
    if (!written || x.component == std::string_view("WORKSPACE")) return;
    x.component = "PTA+GE";  // GE having nothing to add
    written = row(x);
  }));
  return written;
}

result<void> op_memory_rows(const pt_dir& d, const memory_naming& mem, relation& rel, const model& m,
                            spilled_list<op_memory_row>& out) {
  out = spilled_list<op_memory_row>(d.spill_dir, d.spill_budget);
  if (!rel.linked || mem.blocks.empty()) return {};
  std::uint64_t name_of = 0, b = 0;
  std::string_view name;
  bool named = rel.memory_names && rel.memory_names->next(name_of, name);
  MSPROF_TRY(mem.blocks.each([&](const memory_block& a) {
    op_memory_row x;
    if (named && name_of == b) {
      x.name = d.texts[record_from<text_table::id>(name)];
      named = rel.memory_names->next(name_of, name);
    }
    ++b;
    x.size = a.size;
    x.allocation_time = a.time;
    for (int k = 0; k < 3; ++k) {
      x.allocation_total[k] = a.total[k];
      if (a.has_release_total) x.release_total[k] = a.release_total[k];
    }
    x.stream = a.stream;
    x.device = memory_device(m, a.device_index);
    if (a.has_freed) {
      x.release_time = a.freed;
      x.duration = a.freed - a.time;
    }
    if (a.has_block_freed) {
      x.active_release_time = a.block_freed;
      x.active_duration = a.block_freed - a.time;
    }
    out.push_back(x);
  }));
  if (rel.memory_names) {
    while (named) named = rel.memory_names->next(name_of, name);
    MSPROF_TRY(rel.memory_names->take_status());
  }
  return {};
}

std::string item_lines(std::string_view v) {
  std::string out;
  for (std::size_t at = 0; at < v.size();) {
    const std::size_t end = std::min(v.find(';', at), v.size() - 1) + 1;
    out.append(v, at, end - at);
    if (v[end - 1] == ';') out += "\r\n";
    at = end;
  }
  return out;
}

text_table::text_table() : s_(std::make_shared<state>()) { of({}); }

text_table::id text_table::of(std::string_view s) {
  if (const auto it = s_->ids.find(s); it != s_->ids.end()) return it->second;
  const auto n = static_cast<id>(s_->views.size());
  s_->views.push_back(s_->texts.emplace_back(s));
  s_->ids.emplace(s_->views.back(), n);
  return n;
}

const std::string& item_lines_memo::operator()(text_table::id text) {
  auto [it, fresh] = memo_.try_emplace(text);
  if (fresh) {
    if (json_)
      append_json_string(it->second, item_lines(texts_[text]));
    else
      it->second = item_lines(texts_[text]);
  }
  return it->second;
}

namespace {

/// A directory read and linked: what every output is made from. Filled in
/// place (the relation points into `d`).
struct linked {
  pt_dir d;
  model m;  ///< the PROF_ directory's final model: session, iterations and warnings (no records)
  std::optional<cann_part> cann;  ///< the CANN part, gathered window by window
  hccl::communication comm;       ///< its HCCL collectives (the timeline and db point here)
  memory_naming memory;  ///< operator_memory's blocks
  spilled_list<op_memory_row> op_memory;  ///< and its rows, for either export
  relation rel;
  std::vector<step_range> steps;
  std::vector<std::string> warnings;
};

/// Where the CANN loader's sorted runs go: the temporary directory.
std::string spill_dir() {
  std::error_code ec;
  const auto d = fs::temp_directory_path(ec);
  return ec ? std::string("/tmp") : d.string();
}

/// Reads the directory and links it. The PROF_ part is loaded in windows,
/// each handed to l.cann (`text`: with what the text tables need) and to `db`
/// (when given), then let go; `threaded`: on a second thread while the next loads.
/// `beside_link` (when given) runs beside the link, once l.d and l.m are
/// final: it may read them, and nothing else of `l`.
result<void> read_and_link(result<pt_dir>&& pd, linked& l, bool text, db_export* db, bool threaded,
                           std::atomic<std::uint64_t>* bytes_read = nullptr,
                           std::size_t spill_budget = spill_budget_default,
                           const std::function<void()>& beside_link = {}) {
  if (!pd) return pd.err();
  l.d = std::move(*pd);
  load_options lo;
  lo.spill_dir = spill_dir();
  lo.bytes_read = bytes_read;
  lo.spill_budget = spill_budget;
  lo.threaded = threaded;
  l.cann.emplace(lo.spill_dir, l.d.info.cpu, text, 2 * spill_budget);
  if (text && l.d.info.l2_cache) l.cann->want_l2_names(l.d.prof_dir);
  // HCCL communication, gathered as the CANN export does (convert/hccl.hpp);
  // an unreadable directory is the load's error to report (idle collector).
  auto opened = hccl::collector::open(l.d.prof_dir);
  hccl::collector comm = opened ? std::move(*opened) : hccl::collector{};
  // FRAMEWORK/ is decoded, and its allocations named, beside the load from the
  // moment the session's clock is known (of l.d, the windows' writers read
  // only dir and info, which the framework's work leaves alone).
  result<void> memory_named;
  side_work<std::int64_t> framework(threaded, [&](const std::int64_t& wall_offset_ns) {
    place_framework(l.d, wall_offset_ns, bytes_read, lo.spill_dir, spill_budget);
    // A sixteenth of the budget per sorted run: they live beside the load's own.
    if (text || db) memory_named = prepare_memory_naming(l.d, l.memory, spill_budget / 16);
  });
  lo.on_session = [&](const session_info& s) { framework.start(s.wall_offset_ns); };
  // The CANN part's two halves on two threads (with the text outputs the
  // second has work); the db's and the collectives' with the first.
  std::vector<std::function<void(model&)>> writers = {[&](model& w) {
    comm.add(w);
    l.cann->add_ops(w);
    if (db) db->add(w, l.d);
  }};
  if (text) writers.push_back([&](model& w) { l.cann->add_tasks(w); });
  auto m = load_windows(l.d.prof_dir, lo, {}, std::move(writers));
  if (m) framework.finish(m->session.wall_offset_ns);
  if (!m) return m.err();
  if (!memory_named) return make_error(errc::io, l.d.dir + ": operator_memory: " + memory_named.err().what());
  l.m = std::move(*m);
  l.cann->finish(l.m);
  auto linked_comm = comm.finish(l.m);
  if (!linked_comm) return linked_comm.err();
  l.comm = std::move(*linked_comm);
  if (text) l.cann->timeline().set_communication(l.comm);
  if (db) db->set_communication(l.comm);
  l.warnings = std::move(l.d.warnings);
  for (auto& w : l.m.warnings) l.warnings.push_back(std::move(w));
  for (auto& w : l.comm.warnings) l.warnings.push_back(w);
  link_options ko;
  ko.spill_dir = lo.spill_dir;
  ko.spill_budget = spill_budget;
  ko.text = text;
  if (text || db) ko.memory = &l.memory;
  const auto do_link = [&] { l.rel = link(l.d, l.cann->take_acl(), ko); };
  if (beside_link)
    beside(threaded, beside_link, do_link);
  else
    do_link();
  if (!l.rel.error.empty()) return make_error(errc::io, l.d.dir + ": " + l.rel.error);
  if (auto rows = op_memory_rows(l.d, l.memory, l.rel, l.m, l.op_memory); !rows)
    return make_error(errc::io, l.d.dir + ": operator_memory: " + rows.err().what());
  l.steps = step_ranges(l.rel);
  return {};
}

/// torch_npu's text tables, in its file order but for memory_record (the
/// last; it needs no link, so analyse() writes it beside the link), each
/// handed to `out` row by row (a big run's kernel_details and
/// operator_details would otherwise be a large part of the memory);
/// `incomplete` counts the allocations without their free records. The first
/// error stops.
result<void> text_tables(linked& l, std::size_t& incomplete, table_sink& out) {
  const auto& info = l.d.info;
  MSPROF_TRY(kernel_details(*l.cann, info, l.steps, out));  // feeds op_statistic
  MSPROF_TRY(operator_details(l.rel, out));
  if (info.level == "Level1" || info.level == "Level2") {
    MSPROF_TRY(out.whole(l.cann->op_statistic()));
    auto api = l.cann->api_statistic();
    if (!api) return api.err();
    MSPROF_TRY(out.whole(std::move(*api)));
  }
  if (info.level != "Level_none") MSPROF_TRY(task_time_rows(*l.cann, out));
  if (info.level != "Level_none") MSPROF_TRY(npu_module_mem(l.d, l.warnings, out));
  if (info.level == "Level2") {  // torch_npu's IntegrateParser: data_preprocess.csv (aicpu.hpp)
    auto dp = data_preprocess(l.d.prof_dir, l.cann->aicpu(), l.warnings);
    if (!dp) return dp.err();
    MSPROF_TRY(out.whole(std::move(*dp)));
  }
  if (info.sys_interconnection) {  // IntegrateParser's PcieBean and HccsBean: the CANN summaries' cells (sys_io.hpp)
    auto pcie = pcie_summary(l.d.prof_dir, l.warnings);
    if (!pcie) return pcie.err();
    MSPROF_TRY(out.whole(std::move(*pcie)));
    auto hccs = hccs_summary(l.d.prof_dir, l.warnings);
    if (!hccs) return hccs.err();
    MSPROF_TRY(out.whole(std::move(*hccs)));
  }
  if (info.l2_cache) {
    MSPROF_TRY(l2_summary(l.d, "l2_cache", &l2_cache_header, &for_each_l2_cache, l.cann->l2_names(), l.warnings, out));
    MSPROF_TRY(l2_summary(l.d, "soc_pmu", &soc_pmu_header, &for_each_soc_pmu, l.cann->l2_names(), l.warnings, out));
  }
  if (info.sys_io) {  // IntegrateParser's NicBean and RoCEBean: the CANN summaries' cells (sys_io.hpp)
    for (auto summary : {&nic_summary, &roce_summary}) {
      auto t = (*summary)(l.d.prof_dir, l.warnings);
      if (!t) return t.err();
      MSPROF_TRY(out.whole(std::move(*t)));
    }
  }
  auto steps = step_trace_time(*l.cann, l.d, l.steps, l.comm);
  if (!steps) return steps.err();
  MSPROF_TRY(out.whole(std::move(*steps)));
  incomplete = l.memory.incomplete;
  return operator_memory(l.d, l.op_memory, l.warnings, out);
}

/// CSV files in ASCEND_PROFILER_OUTPUT/, each opened at its first row and
/// written a MiB at a time.
class csv_files final : public table_sink {
 public:
  csv_files(const outfile::dir& dir, analyse_result& res) : dir_(dir), res_(res) {}
  void begin(const std::string& name, std::vector<std::string> header) override {
    name_ = name + ".csv";
    header_ = std::move(header);
    file_.reset();
    buf_.clear();
  }
  result<void> row(const table::row& cells) override {
    if (!file_) {
      auto f = outfile::atomic_file::create(dir_, name_);
      if (!f) return f.err();
      file_ = std::move(*f);
      csv_crlf_line(buf_, header_);
    }
    csv_crlf_line(buf_, cells);
    if (buf_.size() < (1u << 20)) return {};
    auto w = file_->write(buf_);
    buf_.clear();
    return w;
  }
  result<void> end() override {
    if (!file_) return {};  // no rows: no file
    MSPROF_TRY(file_->write(buf_));
    buf_.clear();
    MSPROF_TRY(file_->commit());
    file_.reset();
    res_.files.push_back((fs::path(dir_.path()) / name_).string());
    return {};
  }

 private:
  const outfile::dir& dir_;
  analyse_result& res_;
  std::string name_, buf_;
  std::vector<std::string> header_;
  std::optional<outfile::atomic_file> file_;
};

/// The tables named in `wanted`, kept whole (show).
class kept_tables final : public table_sink {
 public:
  explicit kept_tables(std::vector<std::string> wanted) : wanted_(std::move(wanted)) {}
  void begin(const std::string& name, std::vector<std::string> header) override {
    keep_ = std::find(wanted_.begin(), wanted_.end(), name) != wanted_.end();
    if (!keep_) return;
    tables.emplace_back();
    tables.back().name = name;
    tables.back().header = std::move(header);
  }
  result<void> row(const table::row& cells) override {
    if (keep_) tables.back().rows.push_back(cells);
    return {};
  }
  result<void> end() override { return {}; }
  std::vector<table> tables;

 private:
  std::vector<std::string> wanted_;
  bool keep_ = false;
};

}  // namespace

result<analyse_result> analyse(const std::string& dir, const analyse_options& o) {
  auto pd = read_pt_dir(dir);
  if (!pd) return pd.err();
  // profiler_info may ask for both (torch_npu's _export_type is a list); the option picks one.
  std::vector<std::string> types = pd->info.export_type;
  if (!o.export_type.empty()) types = {o.export_type};
  if (types.empty()) types = {"text"};
  for (const auto& type : types)
    if (type != "text" && type != "db")
      return make_error(errc::invalid_argument, dir + ": unknown export type '" + type + "' (text or db)");
  const auto wants = [&](const char* t) { return std::find(types.begin(), types.end(), t) != types.end(); };

  auto out = outfile::dir::make((fs::path(dir) / "ASCEND_PROFILER_OUTPUT").string());
  if (!out) return out.err();
  analyse_result res;
  for (auto& n : out->remove_stale_temps()) res.warnings.push_back(std::move(n));
  res.output_dir = out->path();
  std::optional<db_export> db;  // fed while the PROF_ directory loads
  if (wants("db")) db.emplace(*out, spill_dir(), o.spill_budget);
  linked l;
  // Beside the link: memory_record.csv, the last text table, and the db's
  // CANN tables, each with its own result, files and warnings, taken in
  // their place below.
  analyse_result memory_out;
  std::vector<std::string> memory_warnings, cann_db_warnings;
  result<void> memory, cann_db;
  csv_files memory_csv(*out, memory_out);
  const auto beside_link = [&] {
    if (wants("text")) memory = memory_record(l.d, l.m, memory_warnings, memory_csv);
    if (db) cann_db = db->finish_cann(l.d, l.m, cann_db_warnings);
  };
  if (auto read = read_and_link(std::move(pd), l, wants("text"), db ? &*db : nullptr, o.threaded, o.bytes_read,
                                   o.spill_budget, beside_link);
      !read) {
    db.reset();
    std::error_code ec;
    for (const auto& f : memory_out.files) fs::remove(f, ec);  // written beside a link that failed
    fs::remove(out->path(), ec);  // only when empty: made here for nothing
    return read.err();
  }
  for (auto& w : l.warnings) res.warnings.push_back(std::move(w));
  l.warnings.clear();  // text_tables adds the problems of what it reads itself
  // `fill(put)` hands the file's text to put(text) in pieces.
  const auto write = [&](const std::string& name, auto fill) -> result<void> {
    auto f = outfile::atomic_file::create(*out, name);
    if (!f) return f.err();
    MSPROF_TRY(fill([&](const std::string& text) { return f->write(text); }));
    MSPROF_TRY(f->commit());
    res.files.push_back((fs::path(out->path()) / name).string());
    return {};
  };
  if (wants("text")) {
    std::size_t incomplete = 0;
    csv_files csv(*out, res);
    // trace_view.json and the tables share only what both read (the relation's
    // sorted runs they drain are their own, the spilled lists are read with
    // pread): the one beside the others.
    result<void> tables, trace;
    beside(o.threaded, [&] { trace = write_trace_view(*out, l.d, l.m, l.cann->timeline(), l.rel); },
           [&] { tables = text_tables(l, incomplete, csv); });
    MSPROF_TRY(tables);
    MSPROF_TRY(memory);
    res.files.insert(res.files.end(), memory_out.files.begin(), memory_out.files.end());
    for (auto& w : l.warnings) res.warnings.push_back(std::move(w));
    for (auto& w : memory_warnings) res.warnings.push_back(std::move(w));
    if (incomplete)
      res.warnings.push_back(l.d.dir + "/FRAMEWORK/torch.memory_usage: " + std::to_string(incomplete) +
                             " memory record(s) are incomplete (blocks without their free records)");
    MSPROF_TRY(trace);
    res.files.push_back((fs::path(out->path()) / "trace_view.json").string());
    if (l.d.info.level != "Level_none") {  // torch_npu's CommunicationParser (hccl_analyze.hpp)
      auto comm = hccl::write_pt_communication(out->path(), l.comm, l.m.session.start_ns, comm_steps(l.steps));
      if (!comm) return comm.err();
      res.files.insert(res.files.end(), comm->begin(), comm->end());
    }
  }
  if (db) {
    MSPROF_TRY(cann_db);
    for (auto& w : cann_db_warnings) res.warnings.push_back(std::move(w));
    auto dbs = db->finish(l.d, l.m, l.rel, l.op_memory, res.warnings, o.threaded);
    if (!dbs) return dbs.err();
    res.files.insert(res.files.end(), dbs->begin(), dbs->end());
  }
  MSPROF_TRY(write("analyse.done", [](auto) { return result<void>(); }));
  if (o.data_simplification.value_or(l.d.info.data_simplification)) res.removed = simplify_data(dir, res.warnings);
  return res;
}

result<std::string> show_text(const std::string& dir, std::size_t top, bool bold, std::vector<std::string>& warnings) {
  linked l;
  MSPROF_TRY(read_and_link(read_pt_dir(dir), l, true, nullptr, true));
  std::size_t incomplete = 0;
  kept_tables kept({"operator_details", "step_trace_time"});  // the two shown
  MSPROF_TRY(text_tables(l, incomplete, kept));
  warnings = std::move(l.warnings);
  const std::vector<table>& tables = kept.tables;
  const auto find = [&](const char* name) -> const table* {
    for (const auto& t : tables)
      if (t.name == name) return &t;
    return nullptr;
  };
  std::string out = l.d.dir + "\n" + std::to_string(l.d.ops.size()) + " framework ops, " +
                    std::to_string(l.d.enqueue.size()) + " task-queue enqueues, " + std::to_string(l.steps.size()) +
                    " steps (" + l.d.info.level + ")\n";
  if (const table* od = find("operator_details")) {
    // Calls of one op name together: count and summed durations (operator_details has one row a call).
    table ops;
    ops.header = {"Name", "Calls", "Host Total(us)", "Host Self(us)", "Device Total(us)"};
    std::map<std::string, std::array<double, 4>> by_name;
    const auto num = [](const std::string& s) { return s.empty() ? 0.0 : std::strtod(s.c_str(), nullptr); };
    for (const auto& r : od->rows) {
      auto& a = by_name[r[0]];
      a[0] += 1;
      a[1] += num(r[4]);
      a[2] += num(r[3]);
      a[3] += num(r[6]);
    }
    std::vector<std::pair<std::string, std::array<double, 4>>> sorted(by_name.begin(), by_name.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second[1] > b.second[1]; });
    for (const auto& op : sorted)
      add_row(ops, [&](auto& s) {
        s.str(op.first);
        s.num(static_cast<std::uint64_t>(op.second[0]));
        for (int k = 1; k < 4; ++k) s.fixed3(op.second[static_cast<std::size_t>(k)]);
      });
    out += "\n" + render_table("Framework operators (top " + std::to_string(top) + " by host total time)", ops,
                               {0, 1, 2, 3, 4}, top, bold);
  }
  if (const table* st = find("step_trace_time")) {
    std::vector<std::size_t> cols;
    for (const char* want : {"Step", "Computing", "Free", "Stage", "Preparing"})
      for (std::size_t c = 0; c < st->header.size(); ++c)
        if (st->header[c] == want) cols.push_back(c);
    if (out.size() < 2 || out.compare(out.size() - 2, 2, "\n\n") != 0) out += "\n";
    out += render_table("Steps (us)", *st, cols, top, bold);
  }
  return out;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
