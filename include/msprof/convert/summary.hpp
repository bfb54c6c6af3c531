// SPDX-License-Identifier: MIT
// Summary tables (op_summary, op_statistic, api_statistic, task_time,
// msprof_tx, step_trace, mstx_mem, msprof_losses), exactly as msprof 9ba1ac7be
// prints them.
//
// Each table's cells are formatted in one place, a row formatter
// (op_summary_head/_wait/_tail, task_time_row, ...) that writes through a
// cell writer: row_text writes the row straight into CSV or JSON text (the exporter,
// export.hpp), cell_list collects the cells as strings (the `table` API, for
// `msprof show` and tests). The per-group statistics are computed by
// op_statistic_groups / api_statistic_groups, fed in row order by both.
//
// Definitions: src/convert/summary.cpp (cell writers, row formatters, tables) and
// src/convert/summary_statistic.cpp (op_statistic, api_statistic).
#ifndef MSPROF_CONVERT_SUMMARY_HPP
#define MSPROF_CONVERT_SUMMARY_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../codec/aic_metrics.hpp"
#include "../core/error.hpp"
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

/// Cell writers -------------------------------------------------------------
// A row formatter calls, once per column in header order: str (any text),
// raw (text that never needs CSV quoting or JSON escaping: numbers, fixed
// names), num, ts (a time cell: µs with 3 decimals and the spreadsheet TAB),
// us (µs with 3 decimals, no TAB), fixed3 / fixed6 (a double with 3 / 6
// decimals) or round3 (round3_sql: SQLite's ROUND(v, 3) as SQLite prints it).

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
  void open(std::size_t from_col = 0);
  void close();

  void str(std::string_view v);
  void raw(std::string_view v);
  void num(std::uint64_t v);
  void ts(std::int64_t ns);
  void us(std::int64_t ns);
  void fixed3(double v);
  void fixed6(double v);
  /// round3_sql (text.hpp): the PMU cells.
  void round3(double v);

  /// The JSON object keys of a header.
  static std::vector<std::string> json_keys(const std::vector<std::string>& header);

 private:
  void next();
  void quote();

  std::string& out_;
  const std::vector<std::string>* keys_;
  std::size_t col_ = 0;
};

/// Collects a row's cells as strings (the `table` API).
class cell_list {
 public:
  explicit cell_list(table::row& cells) : cells_(cells) {}
  void str(std::string_view v);
  void raw(std::string_view v);
  void num(std::uint64_t v);
  void ts(std::int64_t ns);
  void us(std::int64_t ns);
  void fixed3(double v);
  void fixed6(double v);
  void round3(double v);

 private:
  table::row& cells_;
};

/// Appends a row's cells to a string as put_text() writes texts (spill.hpp:
/// each its u32 length, then its bytes): how ascend_pt's CANN part keeps its
/// rows in its sorted runs, with no string per cell.
class cell_pack {
 public:
  explicit cell_pack(std::string& out) : out_(out) {}
  void str(std::string_view v) { raw(v); }
  void raw(std::string_view v) {
    put_text(out_, v);
    ++cells_;
  }
  void num(std::uint64_t v);
  void ts(std::int64_t ns);
  void us(std::int64_t ns);
  void fixed3(double v);
  void fixed6(double v);
  void round3(double v);
  /// Cells written so far.
  std::size_t cells() const noexcept { return cells_; }
  /// The cells of `packed` (what a cell_pack wrote) appended to `cells`.
  static void unpack(std::string_view packed, table::row& cells) {
    payload_reader r{packed};
    while (r.in.size() >= sizeof(std::uint32_t)) cells.emplace_back(r.text());
  }

 private:
  /// One cell: its length slot, then what `append` adds to the string.
  template <class Append>
  void cell(const Append& append);

  std::string& out_;
  std::size_t cells_ = 0;
};

/// Appends a row to `t`: format(cells) writes its cells.
template <class Format>
void add_row(table& t, const Format& format) {
  table::row r;
  cell_list s(r);
  format(s);
  t.rows.push_back(std::move(r));
}

/// CSV or JSON text of one row of already formatted cells.
void append_row_text(std::string& out, const table::row& cells, const std::vector<std::string>* json_keys);

namespace detail {

std::string shape_cell(const op_info& op, std::uint32_t kind);

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

bool in_op_summary(const op_info& op);

inline bool is_aic(std::uint32_t ge) { return ge == 0 || ge == 4; }
inline bool is_aiv(std::uint32_t ge) { return ge == 2 || ge == 5; }

inline double dur_us(std::int64_t start_ns, std::int64_t end_ns) {
  return static_cast<double>(end_ns - start_ns) / 1000.0;
}

}  // namespace detail

/// AI Core PMU values of one task on one side (AI Core or AI Vector): the
/// task's time (µs) and every metric of the side's calculator in its order
/// (codec/aic_metrics.hpp), computed as the reference does, double for double.
struct pmu_values {
  double total_time_us = 0;
  std::array<double, 16> metrics{};
  std::size_t size = 0;
};

/// One side's calculator and the events its counters hold (sample.json order).
struct pmu_side {
  const codec::aic_metrics::calculator* calc = nullptr;
  std::vector<std::uint32_t> events;
  /// The metrics op_summary shows (the reference drops some on chip 5), with
  /// their column names.
  std::vector<std::size_t> shown;
};

pmu_values compute_pmu(const pmu_side& side, const pmu_counters& p, std::uint32_t block_num, double freq_mhz,
                       std::uint32_t core_num);

/// op_summary's PMU columns for a collection: from the first device's
/// sample.json metrics names and events, as the reference picks them. Empty
/// (no columns) when either side has no calculator (AiCoreNone, no device).
struct pmu_columns {
  pmu_side aic, aiv;
  std::vector<std::string> header;
  bool cube_utilization = false;

  static pmu_columns of(const session_info& s);
  bool empty() const noexcept { return header.empty(); }
};

/// A task that has an op_summary row.
bool in_op_summary(const device_task& t);

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

/// task_time's row order: by start over all devices (the reference sorts its
/// rows by the start cell alone), then device and launch.
struct task_time_key {
  std::int64_t start_ns;
  std::uint32_t device_id;
  std::uint64_t global_task_id;
  static task_time_key of(const device_task& t) noexcept { return {t.start_ns, t.device_id, t.global_task_id}; }
  bool operator<(const task_time_key& o) const noexcept {
    return std::tie(start_ns, device_id, global_task_id) < std::tie(o.start_ns, o.device_id, o.global_task_id);
  }
};

/// Tasks of op_summary order: ops only, by device, then start time, then launch.
std::vector<const device_task*> op_summary_tasks(const model& m);

/// op_summary ----------------------------------------------------------------

/// `pmu`: the PMU columns (pmu_columns::of), nullptr or empty for none.
std::vector<std::string> op_summary_header(const pmu_columns* pmu);

/// Column of "Task Wait Time(us)", the one cell that depends on the previous row.
inline constexpr std::size_t op_summary_wait_col = 10;

// The row formatters below are defined in summary.cpp for the two cell writers,
// row_text and cell_list (explicit instantiations; the extern templates at the
// end of this file).

/// op_summary columns before the wait cell.
template <class Cells>
void op_summary_head(Cells& s, const device_task& t);

/// The wait cell: start minus the end of the previous row, of any device as in
/// the reference (prev_end_ns; none for the first row), never negative.
template <class Cells>
void op_summary_wait(Cells& s, std::optional<std::int64_t> prev_end_ns, std::int64_t start_ns);

/// op_summary columns after the wait cell (then the PMU ones of `pmu`; `dev`
/// is the task's device, nullptr when unknown).
template <class Cells>
void op_summary_tail(Cells& s, const device_task& t, const device_spec* dev, const pmu_columns* pmu);

table op_summary(const model& m);

/// op_statistic --------------------------------------------------------------

/// Ops grouped by (device, type, core type). Durations are added in op_summary
/// row order, so the sums are the same doubles whoever feeds them.
class op_statistic_groups {
 public:
  /// The id of a task's group (created on first use).
  std::uint32_t group_of(const device_task& t);
  void add(std::uint32_t group, double dur_us);
  /// Calls row(format) per row, by device, then total time (largest first),
  /// then group key; format(cells) writes the row's cells.
  template <class Row>
  void rows(Row&& row) const {
    for (const auto& r : sorted_rows()) row([self = this, r = &r](auto& s) { self->write_row(s, *r); });
  }
  std::size_t size() const noexcept { return groups_.size(); }

 private:
  using key = std::tuple<std::uint32_t, std::string, std::string>;
  struct agg {
    std::uint32_t device = 0;
    std::size_t count = 0;
    double total = 0, mn = 0, mx = 0;
  };
  struct sorted_row {
    const key* k;
    const agg* g;
  };
  /// The groups in row order.
  std::vector<sorted_row> sorted_rows() const;
  /// Writes one row's cells (summary_statistic.cpp: row_text and cell_list).
  template <class Cells>
  void write_row(Cells& s, const sorted_row& r) const;

  std::map<key, std::uint32_t> ids_;
  std::vector<agg> groups_;
  std::map<std::uint32_t, double> device_total_;
};

std::vector<std::string> op_statistic_header();

table op_statistic(const model& m);

/// api_statistic -------------------------------------------------------------

/// Host API calls grouped by (level, name), with the reference's arithmetic
/// (ApiStatisticAssembler::GenerateApiStatistic): every duration rounded to 3
/// decimals, sums in call order, the mean rounded to 3 decimals, then the
/// population variance around that rounded mean, rounded to 3 decimals.
/// Roundings are half away from zero (its RoundToDecimalPlaces).
class api_statistic_groups {
 public:
  std::uint32_t group_of(const api_call& a);
  /// First pass.
  void add(std::uint32_t group, double dur_us);
  /// Second pass, after every add().
  void add_deviation(std::uint32_t group, double dur_us);
  /// Calls row(format) per row, by API name (byte order), then level number.
  template <class Row>
  void rows(Row&& row) const {
    for (const auto& [k, id] : ids_) row([k = &k, g = &groups_[id]](auto& s) { write_row(s, *k, *g); });
  }
  std::size_t size() const noexcept { return groups_.size(); }

 private:
  using key = std::pair<std::string, std::uint16_t>;  // (API name, level)
  struct agg {
    std::size_t count = 0;
    double sum = 0, mn = 0, mx = 0, var_sum = 0;
  };
  /// Writes one row's cells (summary_statistic.cpp: row_text and cell_list).
  template <class Cells>
  static void write_row(Cells& s, const key& k, const agg& g);

  std::map<key, std::uint32_t> ids_;
  std::vector<agg> groups_;
};

std::vector<std::string> api_statistic_header();

table api_statistic(const model& m);

/// api_statistic fed window by window (load_windows): the calls go through a
/// sorter so both passes see them in call (connection id) order.
class api_statistic_stream {
 public:
  api_statistic_stream(std::string spill_dir, std::size_t budget);

  void add(const api_call& a);
  /// Calls added and not yet finished.
  std::size_t size() const noexcept { return calls_.size(); }
  /// Runs both passes; groups() then holds the statistics.
  result<void> finish();
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
  static row row_of(std::string_view p);

  std::string spill_dir_;
  std::size_t budget_;
  spill_sorter<call_key> calls_;
  api_statistic_groups groups_;
};

/// task_time -----------------------------------------------------------------

std::vector<std::string> task_time_header();

template <class Cells>
void task_time_row(Cells& s, const device_task& t);

/// Rows by device, then start time, then launch.
table task_time(const model& m);

/// msprof_tx -----------------------------------------------------------------

std::vector<std::string> msprof_tx_header();

/// Quirk of the reference (Python msprof_tx export): with a device present the
/// host times are printed on the raw monotonic clock, without the wall offset.
bool msprof_tx_raw_clock(const model& m);

template <class Cells>
void msprof_tx_row(Cells& s, const mstx_event& e, bool raw_clock);

/// Rows by start time, then record order.
table msprof_tx(const model& m);

/// step_trace ----------------------------------------------------------------

/// step_trace: one row per iteration (msprof 9ba1ac7be summary_step_trace_assembler):
/// FP/BP/Iteration End are local times with the spreadsheet TAB, a missing
/// FP/BP prints as 0.000 (the reference converts only non-zero times and
/// prints the 0 as is), durations with 3 decimals. No all-reduce columns: the
/// all-reduce tags are not read.
std::vector<std::string> step_trace_header();

template <class Cells>
void step_trace_row(Cells& s, const iteration& it);

table step_trace(const model& m);

/// mstx_mem ------------------------------------------------------------------

/// mstx_mem: the mstx heap and region (un)registrations, in record order
/// (msprof's own summary; CANN's tools have none).
std::vector<std::string> mstx_mem_header();

template <class Cells>
void mstx_mem_row(Cells& s, const mstx_mem_event& e);

table mstx_mem(const model& m);

/// msprof_losses -------------------------------------------------------------

/// msprof_losses: the collector's nonzero loss counters (info.json
/// msprof_losses), so a summary of an incomplete trace says so next to the
/// other summaries. No rows (no file) when nothing was lost.
table msprof_losses(const model& m);

/// Every summary that has rows, in a fixed order (the exporter's file order).
std::vector<table> all_summaries(const model& m);

/// CSV text of a table (rows [first, last)).
std::string csv_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX);

/// JSON text of a table: an array of objects keyed by the header.
std::string json_text(const table& t, std::size_t first = 0, std::size_t last = SIZE_MAX);

// The two cell writers' instantiations are in summary.cpp and summary_statistic.cpp.
extern template void op_summary_head<row_text>(row_text&, const device_task&);
extern template void op_summary_wait<row_text>(row_text&, std::optional<std::int64_t>, std::int64_t);
extern template void op_summary_tail<row_text>(row_text&, const device_task&, const device_spec*, const pmu_columns*);
extern template void task_time_row<row_text>(row_text&, const device_task&);
extern template void msprof_tx_row<row_text>(row_text&, const mstx_event&, bool);
extern template void step_trace_row<row_text>(row_text&, const iteration&);
extern template void mstx_mem_row<row_text>(row_text&, const mstx_mem_event&);
extern template void op_summary_head<cell_list>(cell_list&, const device_task&);
extern template void op_summary_wait<cell_list>(cell_list&, std::optional<std::int64_t>, std::int64_t);
extern template void op_summary_tail<cell_list>(cell_list&, const device_task&, const device_spec*, const pmu_columns*);
extern template void task_time_row<cell_list>(cell_list&, const device_task&);
extern template void msprof_tx_row<cell_list>(cell_list&, const mstx_event&, bool);
extern template void step_trace_row<cell_list>(cell_list&, const iteration&);
extern template void mstx_mem_row<cell_list>(cell_list&, const mstx_mem_event&);
extern template void op_summary_head<cell_pack>(cell_pack&, const device_task&);
extern template void op_summary_tail<cell_pack>(cell_pack&, const device_task&, const device_spec*, const pmu_columns*);
extern template void task_time_row<cell_pack>(cell_pack&, const device_task&);
extern template void op_statistic_groups::write_row<row_text>(row_text&, const sorted_row&) const;
extern template void op_statistic_groups::write_row<cell_list>(cell_list&, const sorted_row&) const;
extern template void api_statistic_groups::write_row<row_text>(row_text&, const key&, const agg&);
extern template void api_statistic_groups::write_row<cell_list>(cell_list&, const key&, const agg&);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SUMMARY_HPP
