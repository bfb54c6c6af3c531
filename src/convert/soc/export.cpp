// SPDX-License-Identifier: MIT
// The SoC flow's timeline/ and summary/ files and show's tables, from a
// soc::job. Formats of the placeholders and cells: docs/soc.md.
#include "msprof/convert/soc/export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "msprof/convert/show.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

namespace {

std::int64_t soc_dur_ns(std::int64_t start, std::int64_t end) { return end > start ? end - start : 0; }

std::string soc_us(std::int64_t ns) { return dur_us_fixed3(ns); }

/// A ratio in [0, 1] as a percentage with 2 decimals ("12.50").
std::string soc_percent(double r) { return fmt::format("{:.2f}", r * 100.0); }

/// part / whole as a percentage ("0.00" when whole is 0).
std::string soc_share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? soc_percent(static_cast<double>(part) / static_cast<double>(whole)) : "0.00";
}

/// The model file name as a file-name field: without directory and ".om", every
/// character but letters, digits, '_' and '-' as '_' (so the '.'-separated
/// fields of the name stay apart); "unknown" when empty.
std::string soc_name_field(const std::string& model_file_name) {
  std::string s = model_file_name.substr(model_file_name.rfind('/') == std::string::npos ? 0 : model_file_name.rfind('/') + 1);
  if (s.size() > 3 && s.compare(s.size() - 3, 3, ".om") == 0) s.resize(s.size() - 3);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return s.empty() ? "unknown" : s;
}

/// The frequency as the {frequency} field: whole MHz (0 when not a sane number).
std::uint64_t soc_mhz(double f) { return f >= 0 && f < 1e9 ? static_cast<std::uint64_t>(f + 0.5) : 0; }

/// The highest sampled iteration of a run (0 without tasks): {iter_id}.
std::uint64_t soc_iter_id(const job_model_run& m) {
  std::uint64_t it = 0;
  for (const auto& t : m.tasks) it = std::max(it, t.iteration);
  return it;
}

/// "AA CORE" -> "AA_CORE", "AA Vector Core" -> "AA_VECTOR_CORE" (op_statistic's spelling).
std::string soc_statistic_type(const std::string& timeline_type) {
  std::string s = timeline_type;
  for (char& c : s) c = c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Time-weighted ArithmeticUtilization of a set of tasks.
struct soc_pmu_sum {
  std::int64_t ns = 0;  // time of the tasks with counters
  double mac_busy = 0, mac_ppen = 0, vec_busy = 0, vec_ppen = 0, dstr = 0, dtrans = 0, dld = 0, wld = 0;
  std::uint64_t rd = 0, wr = 0;
  bool any = false;

  void add(const layer_task& t) {
    if (!t.pmu) return;
    any = true;
    const auto d = soc_dur_ns(t.start_ns, t.end_ns);
    const double w = static_cast<double>(d);
    const aa_metrics& p = *t.pmu;
    ns += d;
    mac_busy += p.mac_busy * w, mac_ppen += p.mac_ppen * w, vec_busy += p.vec_busy * w, vec_ppen += p.vec_ppen * w;
    dstr += p.dstr * w, dtrans += p.dtrans * w, dld += p.dld * w, wld += p.wld * w;
    rd += p.ddr_read_bytes, wr += p.ddr_write_bytes;
  }
  /// The cells from "Mac Busy Ratio" to "DDR Total(byte)".
  void cells(table::row& r) const {
    if (!any) {
      r.insert(r.end(), 12, "N/A");
      return;
    }
    const double w = ns > 0 ? static_cast<double>(ns) : 1.0;
    const double v[] = {mac_busy / w, mac_ppen / w, vec_busy / w, vec_ppen / w, dstr / w, dtrans / w, dld / w, wld / w};
    for (double x : v) r.push_back(soc_percent(x));
    // Memory Bound = max(Dstr, DLD, WLD) / max(Mac Busy, Vec Ppen), as the document defines it.
    const double num = std::max({v[4], v[6], v[7]}), den = std::max(v[0], v[3]);
    r.push_back(den > 0 ? fmt::format("{:.3f}", num / den) : "N/A");
    r.push_back(std::to_string(rd));
    r.push_back(std::to_string(wr));
    r.push_back(std::to_string(rd + wr));
  }
};

/// Calls, total, max and min of a group of spans.
struct soc_stat {
  std::uint64_t count = 0;
  std::int64_t total = 0, max = 0, min = 0;
  void add(std::int64_t d) {
    if (count == 0 || d > max) max = d;
    if (count == 0 || d < min) min = d;
    ++count;
    total += d;
  }
  /// Total Time Ratio(%), Total Time(us), Count, Avg(us), Max(us), Min(us).
  void cells(table::row& r, std::int64_t all) const {
    r.push_back(soc_share(total, all));
    r.push_back(soc_us(total));
    r.push_back(std::to_string(count));
    r.push_back(soc_us(count ? total / static_cast<std::int64_t>(count) : 0));
    r.push_back(soc_us(max));
    r.push_back(soc_us(min));
  }
};

/// The columns whose cells stay JSON strings in a summary's json form.
bool soc_text_column(const std::string& c) {
  static const std::set<std::string> text = {"Layer Id", "Ori Layer Name", "Layer Name", "Layer Type", "Type",
                                             "Name",     "OP Name",        "Task Type"};
  return text.count(c) != 0;
}

bool soc_json_number(const std::string& s) {
  if (s.empty() || s == "-") return false;
  bool dot = false, digit = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' && !dot && digit) {
      dot = true;
    } else if (!(c == '-' && i == 0)) {
      return false;
    }
  }
  return digit && s.back() != '.';
}

std::string soc_csv(const table& t) {
  std::string out;
  auto line = [&out](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      if (cells[i] == "-")
        out += '-';  // the total row's mark, as the document writes it (not a formula)
      else
        append_csv_cell(out, cells[i]);
    }
    out += '\n';
  };
  line(t.header);
  for (const auto& r : t.rows) line(r);
  return out;
}

/// An array of objects keyed by the header; numbers as numbers, "N/A" and names as strings.
std::string soc_json(const table& t) {
  std::string out = "[";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    out += r ? ",\n{" : "\n{";
    for (std::size_t c = 0; c < t.header.size() && c < t.rows[r].size(); ++c) {
      if (c) out += ',';
      append_json_string(out, t.header[c]);
      out += ':';
      const std::string& v = t.rows[r][c];
      if (!soc_text_column(t.header[c]) && soc_json_number(v))
        out += v;
      else
        append_json_string(out, v);
    }
    out += '}';
  }
  out += "\n]\n";
  return out;
}

/// One Chrome-trace event: a complete span ("X") or metadata ("M").
void soc_span(std::string& out, const std::string& name, std::uint64_t pid, std::uint64_t tid, std::int64_t start_ns,
              std::int64_t end_ns, const std::string& args) {
  out += out.size() > 1 ? ",\n" : "\n";
  out += "{\"name\":";
  append_json_string(out, name);
  out += fmt::format(",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
  append_ts_us(out, start_ns);
  out += ",\"dur\":" + dur_us_json(soc_dur_ns(start_ns, end_ns)) + ",\"ph\":\"X\",\"args\":{" + args + "}}";
}

void soc_meta(std::string& out, const char* what, std::uint64_t pid, std::uint64_t tid, const std::string& value) {
  out += out.size() > 1 ? ",\n" : "\n";
  out += fmt::format("{{\"name\":\"{}\",\"pid\":{},\"tid\":{},\"ph\":\"M\",\"args\":{{\"name\":", what, pid, tid);
  append_json_string(out, value);
  out += "}}";
}

/// The output directory `name` under the JOB directory (created; never through a link).
result<outfile::dir> soc_out_dir(const job& j, const char* name) {
  auto d = outfile::dir::open(j.dir, true);
  if (!d) return d.err();
  auto sub = d->mkdir(name);
  if (!sub) return sub.err();
  (void)sub->remove_stale_temps();
  return sub;
}

}  // namespace

const std::vector<std::string>& op_summary_columns() {
  static const std::vector<std::string> c = {
      "Layer Id",       "Ori Layer Name",     "Layer Name",     "Layer Type",     "Time(us)",       "Time Ratio",
      "Mac Busy Ratio", "Mac Ppen Ratio",     "Vec Busy Ratio", "Vec Ppen Ratio", "Dstr Ratio",     "Dtrans Ratio",
      "DLD Ratio",      "WLD Ratio",          "Memory Bound",   "DDR Read(byte)", "DDR Write(byte)", "DDR Total(byte)"};
  return c;
}

const std::vector<std::string>& acl_statistic_columns() {
  static const std::vector<std::string> c = {"Process ID", "Thread ID", "Type",    "Name",    "Total Time Ratio(%)",
                                             "Total Time(us)", "Count", "Avg(us)", "Max(us)", "Min(us)"};
  return c;
}

const std::vector<std::string>& op_statistic_columns() {
  static const std::vector<std::string> c = {"Task ID",        "Stream ID", "OP Name", "Task Type", "Total Time Ratio(%)",
                                             "Total Time(us)", "Count",     "Avg(us)", "Max(us)",   "Min(us)"};
  return c;
}

std::string task_time_name(const job& j, const job_model_run& m) {
  return fmt::format("task_time_{}.{}.{}.{}.json", j.device_id, soc_name_field(m.model_file_name), m.model_id, m.batch_num);
}

std::string acl_timeline_name(const job& j, const job_model_run& m) {
  return fmt::format("acl_{}.{}.{}.{}.json", j.device_id, soc_name_field(m.model_file_name), m.model_id, m.batch_num);
}

std::string op_summary_name(const job& j, const job_model_run& m, const std::string& ext) {
  std::string miss = fmt::format("{:.2f}", m.icache_miss_rate * 100.0);  // percent, the point written 'p'
  std::replace(miss.begin(), miss.end(), '.', 'p');
  return fmt::format("op_summary_{}.{}.{}.{}.{}.{}.{}.{}.{}", j.device_id, soc_name_field(m.model_file_name), m.model_id,
                     m.batch_num, m.input_pic_num, m.current_pic_count, miss,
                     soc_mhz(j.frequency_mhz), ext);
}

std::string acl_statistic_name(const job& j, const job_model_run& m, const std::string& ext) {
  return fmt::format("acl_statistic_{}_{}_{}.{}", j.device_id, m.model_id, soc_iter_id(m), ext);
}

std::string op_statistic_name(const job& j, const job_model_run& m, const std::string& ext) {
  return fmt::format("op_statistic_{}_{}_{}_{}.{}", j.device_id, m.model_id, m.current_pic_count, soc_iter_id(m), ext);
}

const std::vector<job_model_run>& output_runs(const job& j) {
  static const std::vector<job_model_run> stand_in(1);
  return !j.models.empty() || j.acl.empty() ? j.models : stand_in;
}

table op_summary_table(const job_model_run& m) {
  table t;
  t.name = "op_summary";
  t.header = op_summary_columns();
  struct layer {
    const layer_task* first;
    std::int64_t ns = 0;
    soc_pmu_sum pmu;
  };
  std::vector<layer> layers;
  std::map<std::uint32_t, std::size_t> index;  // layer id -> layers[]
  std::int64_t all_ns = 0;
  soc_pmu_sum all;
  for (const auto& task : m.tasks) {
    auto it = index.find(task.layer_id);
    if (it == index.end()) {
      it = index.emplace(task.layer_id, layers.size()).first;
      layers.push_back(layer{&task, 0, {}});
    }
    const auto d = soc_dur_ns(task.start_ns, task.end_ns);
    layers[it->second].ns += d;
    layers[it->second].pmu.add(task);
    all_ns += d;
    all.add(task);
  }
  for (const auto& l : layers) {
    table::row r = {std::to_string(l.first->layer_id), l.first->ori_layer_name, l.first->layer_name,
                    l.first->layer_type, soc_us(l.ns), soc_share(l.ns, all_ns)};
    l.pmu.cells(r);
    t.rows.push_back(std::move(r));
  }
  if (!layers.empty()) {
    table::row r = {"-", "-", "-", "-", soc_us(all_ns), soc_share(all_ns, all_ns)};
    all.cells(r);
    t.rows.push_back(std::move(r));
  }
  return t;
}

table acl_statistic_table(const job& j) {
  table t;
  t.name = "acl_statistic";
  t.header = acl_statistic_columns();
  using key = std::tuple<std::uint32_t, std::uint32_t, std::string, std::string>;
  std::map<key, soc_stat> groups;
  std::int64_t all = 0;
  for (const auto& c : j.acl) {
    const auto d = soc_dur_ns(c.start_ns, c.end_ns);
    groups[key{c.pid, c.tid, c.type, c.name}].add(d);
    all += d;
  }
  std::vector<std::pair<key, soc_stat>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  for (const auto& g : sorted) {
    table::row r = {std::to_string(std::get<0>(g.first)), std::to_string(std::get<1>(g.first)), std::get<2>(g.first),
                    std::get<3>(g.first)};
    g.second.cells(r, all);
    t.rows.push_back(std::move(r));
  }
  return t;
}

table op_statistic_table(const job_model_run& m) {
  table t;
  t.name = "op_statistic";
  t.header = op_statistic_columns();
  struct group {
    const layer_task* first;
    soc_stat stat;
  };
  std::vector<group> groups;  // in the order of their first task
  std::map<std::tuple<std::string, std::string, std::uint32_t>, std::size_t> index;
  std::int64_t all = 0;
  for (const auto& task : m.tasks) {
    const auto k = std::make_tuple(task.layer_name, task.task_type, task.stream_id);
    auto it = index.find(k);
    if (it == index.end()) {
      it = index.emplace(k, groups.size()).first;
      groups.push_back(group{&task, {}});
    }
    const auto d = soc_dur_ns(task.start_ns, task.end_ns);
    groups[it->second].stat.add(d);
    all += d;
  }
  for (const auto& g : groups) {
    table::row r = {std::to_string(g.first->task_id), std::to_string(g.first->stream_id), g.first->layer_name,
                    soc_statistic_type(g.first->task_type)};
    g.stat.cells(r, all);
    t.rows.push_back(std::move(r));
  }
  return t;
}

std::string task_time_json(const job& j, const job_model_run& m) {
  std::string out = "[";
  std::vector<std::string> units;  // tid = index of the task type, in order of appearance
  for (const auto& task : m.tasks)
    if (std::find(units.begin(), units.end(), task.task_type) == units.end()) units.push_back(task.task_type);
  soc_meta(out, "process_name", j.pid, 0, "Task Scheduler");
  for (std::size_t u = 0; u < units.size(); ++u) soc_meta(out, "thread_name", j.pid, u, units[u]);
  for (const auto& task : m.tasks) {
    const auto tid = static_cast<std::uint64_t>(std::find(units.begin(), units.end(), task.task_type) - units.begin());
    std::string args = "\"Task Type\":";
    append_json_string(args, task.task_type);
    args += fmt::format(",\"Stream Id\":{},\"Task Id\":{}", task.stream_id, task.task_id);
    soc_span(out, task.layer_name, j.pid, tid, task.start_ns, task.end_ns, args);
  }
  out += "\n]\n";
  return out;
}

std::string acl_timeline_json(const job& j) {
  std::string out = "[";
  std::set<std::uint32_t> pids;
  std::set<std::pair<std::uint32_t, std::uint32_t>> threads;
  for (const auto& c : j.acl) {
    if (pids.insert(c.pid).second) soc_meta(out, "process_name", c.pid, 0, "ACL");
    if (threads.insert({c.pid, c.tid}).second) soc_meta(out, "thread_name", c.pid, c.tid, "Thread " + std::to_string(c.tid));
  }
  for (const auto& c : j.acl) {
    std::string args = "\"Mode\":";
    append_json_string(args, c.type);
    args += fmt::format(",\"Process_Id\":{},\"Thread_Id\":{}", c.pid, c.tid);
    soc_span(out, c.name, c.pid, c.tid, c.start_ns, c.end_ns, args);
  }
  out += "\n]\n";
  return out;
}

result<export_result> export_timeline(const job& j) {
  export_result res;
  outfile::dir d;
  MSPROF_TRY_ASSIGN(d, soc_out_dir(j, "timeline"));
  for (const auto& m : output_runs(j)) {
    if (!m.tasks.empty()) {
      const std::string name = task_time_name(j, m);
      MSPROF_TRY(outfile::write_atomic(d, name, task_time_json(j, m)));
      res.files.push_back(d.path_of(name));
    } else {
      res.warnings.push_back(j.dir + ": model " + std::to_string(m.model_id) + " has no task data: no task_time file");
    }
    if (!j.acl.empty()) {
      const std::string name = acl_timeline_name(j, m);
      MSPROF_TRY(outfile::write_atomic(d, name, acl_timeline_json(j)));
      res.files.push_back(d.path_of(name));
    } else {
      res.warnings.push_back(j.dir + ": no ACL API data (acl_api off?): no acl timeline file");
    }
  }
  if (output_runs(j).empty()) res.warnings.push_back(j.dir + ": the job holds no model run and no ACL API call");
  return res;
}

result<export_result> export_summary(const job& j, const std::string& format) {
  if (format != "csv" && format != "json")
    return make_error(errc::invalid_argument, "summary format must be csv or json, got '" + format + "'");
  export_result res;
  outfile::dir d;
  MSPROF_TRY_ASSIGN(d, soc_out_dir(j, "summary"));
  auto write = [&](const std::string& name, const table& t) -> result<void> {
    MSPROF_TRY(outfile::write_atomic(d, name, format == "csv" ? soc_csv(t) : soc_json(t)));
    res.files.push_back(d.path_of(name));
    return {};
  };
  for (const auto& m : output_runs(j)) {
    const bool pmu = std::any_of(m.tasks.begin(), m.tasks.end(), [](const layer_task& t) { return t.pmu.has_value(); });
    if (pmu)
      MSPROF_TRY(write(op_summary_name(j, m, format), op_summary_table(m)));
    else
      res.warnings.push_back(j.dir + ": model " + std::to_string(m.model_id) +
                             " has no AA Core ArithmeticUtilization data (aac_metrics): no op_summary file");
    if (!j.acl.empty())
      MSPROF_TRY(write(acl_statistic_name(j, m, format), acl_statistic_table(j)));
    else
      res.warnings.push_back(j.dir + ": no ACL API data (acl_api off?): no acl_statistic file");
    if (!m.tasks.empty())
      MSPROF_TRY(write(op_statistic_name(j, m, format), op_statistic_table(m)));
    else
      res.warnings.push_back(j.dir + ": model " + std::to_string(m.model_id) + " has no task data: no op_statistic file");
  }
  if (output_runs(j).empty()) res.warnings.push_back(j.dir + ": the job holds no model run and no ACL API call");
  return res;
}

std::string show_text(const job& j, bool color) {
  std::string out;
  const auto& runs = output_runs(j);
  for (const auto& m : runs) {
    const std::string model = "model " + std::to_string(m.model_id) + " (" + m.model_file_name + ")";
    const table ops = op_summary_table(m);
    if (!ops.rows.empty())  // the file has every column; the view the ones that say where time goes
      out += render_table("AA core metric: " + model, ops, {0, 2, 3, 4, 5, 6, 8, 10, 12, 13, 14, 17}, SIZE_MAX, color);
    const table st = op_statistic_table(m);
    if (!st.rows.empty()) out += render_table("Op statistic: " + model, st, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, SIZE_MAX, color);
  }
  const table acl = acl_statistic_table(j);
  if (!acl.rows.empty()) out += render_table("Acl statistic", acl, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, SIZE_MAX, color);
  table f;
  f.header = {"Device ID", "Model ID", "Model File Name", "AA Core Frequency(MHz)", "icache Miss Rate(%)"};
  for (const auto& m : runs)
    f.rows.push_back({std::to_string(j.device_id), std::to_string(m.model_id), m.model_file_name,
                      std::to_string(soc_mhz(j.frequency_mhz)), soc_percent(m.icache_miss_rate)});
  if (f.rows.empty()) f.rows.push_back({std::to_string(j.device_id), "N/A", "N/A", std::to_string(soc_mhz(j.frequency_mhz)), "N/A"});
  out += render_table("Frequency", f, {0, 1, 2, 3, 4}, SIZE_MAX, color);
  return out;
}

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE
