// SPDX-License-Identifier: MIT
// The summary exporter: op_summary, op_statistic, api_statistic, task_time,
// msprof_tx, step_trace, mstx_mem, npu_module_mem, pcie, hbm, ddr, llc_read_write, hccs, nic, roce, host_cpu_usage, host_mem_usage, host_disk_usage, host_network_usage, cpu_usage, process_cpu_usage, sys_mem, process_mem, dp and msprof_losses files, and README.txt.
#include "msprof/convert/export_writers.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "msprof/convert/beside.hpp"
#include "msprof/convert/export_files.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/aicpu.hpp"
#include "msprof/convert/l2_cache.hpp"
#include "msprof/convert/hccl.hpp"
#include "msprof/convert/host_sys_usage.hpp"
#include "msprof/convert/host_usage.hpp"
#include "msprof/convert/summary.hpp"
#include "msprof/convert/sys_io.hpp"
#include "msprof/convert/llc.hpp"
#include "msprof/convert/sys_mem.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

struct summary_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : o_(o),
        prof_dir_(prof_dir),
        budget_(spill_budget / sorters),
        op_rows_(prof_dir, budget_),
        task_rows_(prof_dir, budget_),
        tx_rows_(prof_dir, budget_),
        mem_rows_(prof_dir, budget_),
        api_(prof_dir, budget_),
        l2_names_(prof_dir) {
    if (o.format == "json") {
      task_keys_ = row_text::json_keys(task_time_header());
      tx_keys_ = row_text::json_keys(msprof_tx_header());
      mem_keys_ = row_text::json_keys(mstx_mem_header());
    }
  }

  const hccl::communication* comm_ = nullptr;  // set_communication(); none: no collectives

  /// Every row but op_summary's (summary_exporter::add_other_rows).
  void add_other_rows(const model& w) {
    for (const auto& t : w.tasks)
      task_rows_.push_with(task_time_key::of(t), [&](std::string& b) {
        row_text s(b, keys(task_keys_));
        s.open();
        task_time_row(s, t);
        s.close();
      });
    aicpu_names_.add(w);
    l2_names_.add(w);
    for (const auto& a : w.apis) api_.add(a);
    const bool raw_clock = msprof_tx_raw_clock(w);
    for (const auto& e : w.mstx) {
      tx_rows_.push_with({e.start_ns, arrivals_++}, [&](std::string& b) {
        row_text s(b, keys(tx_keys_));
        s.open();
        msprof_tx_row(s, e, raw_clock);
        s.close();
      });
    }
    for (const auto& e : w.mstx_mem) {
      mem_rows_.push_with({arrivals_++}, [&](std::string& b) {
        row_text s(b, keys(mem_keys_));
        s.open();
        mstx_mem_row(s, e);
        s.close();
      });
    }
  }
  /// op_summary's rows (summary_exporter::add_op_rows).
  void add_op_rows(const model& w) {
    records_ += detail::record_count(w);
    // Every window has the same session: the PMU columns (and JSON keys) are set once.
    if (!pmu_) {
      pmu_ = pmu_columns::of(w.session);
      if (o_.format == "json") op_keys_ = row_text::json_keys(op_summary_header(&*pmu_));
    }
    // Rows are formatted straight into the sorters' memory.
    for (const auto& t : w.tasks) {
      if (!in_op_summary(t)) continue;
      // The wait cell needs the previous row: formatted when finish() drains.
      op_rows_.push_with(task_row_key::of(t), [&](std::string& b) {
        const std::size_t at = b.size();
        b.append(sizeof(op_row), '\0');
        row_text o(b, keys(op_keys_));
        o.open();
        op_summary_head(o, t);
        const op_row h{t.end_ns, op_groups_.group_of(t), static_cast<std::uint32_t>(b.size() - at - sizeof(op_row))};
        std::memcpy(&b[at], &h, sizeof h);
        o.open(op_summary_wait_col + 1);
        op_summary_tail(o, t, w.device(t.device_id), &*pmu_);
        o.close();
      });
    }
  }

  result<export_result> finish(const model& final) {
    export_result r;
    auto dir = detail::start_result(final, records_, prof_dir_, o_, r);
    if (!dir) return dir.err();
    dir_ = std::move(*dir);
    ts_ = detail::export_stamp(o_);
    const table losses = msprof_losses(final);
    if (op_rows_.size() + api_.size() + task_rows_.size() + tx_rows_.size() + final.iterations.size() +
            mem_rows_.size() + losses.size() ==
        0)
      return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to summarize");

    if (comm_) add_communication(*comm_);
    // api_statistic, task_time and msprof_tx on a second thread while this one
    // writes op_summary and what adds up its rows; their files listed after.
    std::vector<std::string> side_files;
    result<void> side, ops;
    beside(
        true,
        [&] {
          side = [&]() -> result<void> {
            MSPROF_TRY(api_.finish());
            MSPROF_TRY(write_groups("api_statistic", api_statistic_header(), api_.groups(), side_files));
            MSPROF_TRY(write_sorted("task_time", task_time_header(), task_rows_, side_files));
            return write_sorted("msprof_tx", msprof_tx_header(), tx_rows_, side_files);
          }();
        },
        [&] { ops = write_ops(final, r.files); });
    MSPROF_TRY(ops);
    MSPROF_TRY(side);
    r.files.insert(r.files.end(), side_files.begin(), side_files.end());
    {
      file f(*this, "step_trace", step_trace_header(), final.iterations.size());
      for (const auto& it : final.iterations) f.format_row([&](auto& s) { step_trace_row(s, it); });
      MSPROF_TRY(f.close(r.files));
    }
    MSPROF_TRY(write_sorted("mstx_mem", mstx_mem_header(), mem_rows_, r.files));
    MSPROF_TRY(write_module_mem(r));
    MSPROF_TRY(write_npu_mem(r));
    MSPROF_TRY(write_static_op_mem(r));
    MSPROF_TRY(write_ge_memory(r));
    MSPROF_TRY(write_aicpu(r, final));
    MSPROF_TRY(write_in_file_order(r, "dp", dp_header(), &for_each_dp_row,
                                   [](auto& s, const dp_row& m) { dp_cells(s, m); }));
    MSPROF_TRY(write_sys_io(r));
    MSPROF_TRY(write_host_usage(r));
    MSPROF_TRY(write_l2_cache(r));
    MSPROF_TRY(write_soc_pmu(r));
    MSPROF_TRY(write_page_fault(r));
    MSPROF_TRY(write_table(r, losses));
    auto readme = detail::write_readme(dir_, o_, ts_, r.files);
    if (!readme) return readme.err();
    r.files.push_back(std::move(*readme));
    return r;
  }

 private:
  static constexpr std::size_t sorters = 5;  // they share the budget

  struct tx_key {  // msprof_tx: by start, then record order
    std::int64_t start_ns;
    std::uint64_t arrival;
    bool operator<(const tx_key& o) const { return std::tie(start_ns, arrival) < std::tie(o.start_ns, o.arrival); }
  };
  struct arrival_key {  // mstx_mem: record order
    std::uint64_t arrival;
    bool operator<(const arrival_key& o) const { return arrival < o.arrival; }
  };
  /// Head of an op_summary payload, followed by the text before the wait cell, then the text after it.
  struct op_row {
    std::int64_t end_ns;
    std::uint32_t group;  ///< op_statistic group; no_group: a collective's row
    std::uint32_t head_size;
  };
  static constexpr std::uint32_t no_group = UINT32_MAX;
  /// A collective's op_summary row: its span, N/A for what belongs to compute
  /// tasks (it is no op_statistic group).
  void add_communication(const hccl::communication& c) {
    const std::size_t cols = op_summary_header(pmu_ ? &*pmu_ : nullptr).size();
    for (const auto& op : c.ops) {
      op_rows_.push_with({op.device_id, op.start_ns, 0}, [&](std::string& b) {
        const std::size_t at = b.size();
        b.append(sizeof(op_row), '\0');
        row_text o(b, keys(op_keys_));
        o.open();
        o.num(op.device_id);
        o.num(4294967295u);
        o.raw("N/A");
        o.raw("N/A");
        o.str(op.name);
        o.str(op.op_type);
        o.raw("N/A");
        o.raw("COMMUNICATION");
        o.ts(op.start_ns);
        o.fixed3(detail::dur_us(op.start_ns, op.end_ns));
        const op_row h{op.end_ns, no_group, static_cast<std::uint32_t>(b.size() - at - sizeof(op_row))};
        std::memcpy(&b[at], &h, sizeof h);
        o.open(op_summary_wait_col + 1);
        o.raw("0");
        for (std::size_t i = op_summary_wait_col + 2; i < cols; ++i) o.raw("N/A");
        o.close();
      });
    }
  }
  /// op_summary, then op_statistic (the durations added up in op_summary's row order) and communication_statistic.
  result<void> write_ops(const model& final, std::vector<std::string>& files) {
    {
      file f(*this, "op_summary", op_summary_header(pmu_ ? &*pmu_ : nullptr), op_rows_.size());
      std::optional<std::int64_t> prev_end;  // of the previous row, whatever its device (as the reference)
      MSPROF_TRY(op_rows_.drain([&](const task_row_key& k, std::string_view p) {
        auto h = from_bytes<op_row>(p);
        if (h.group != no_group) op_groups_.add(h.group, detail::dur_us(k.start_ns, h.end_ns));
        std::string& b = f.row();
        b.append(p.substr(sizeof h, h.head_size));
        row_text s(b, keys(op_keys_));
        s.open(op_summary_wait_col);
        op_summary_wait(s, prev_end, k.start_ns);
        b.append(p.substr(sizeof h + h.head_size));
        prev_end = h.end_ns;
      }));
      MSPROF_TRY(f.close(files));
    }
    MSPROF_TRY(write_groups("op_statistic", op_statistic_header(), op_groups_, files));
    if (comm_) MSPROF_TRY(write_communication_statistic(*comm_, final, files));
    return {};
  }
  /// communication_statistic: per device (ascending) its rows.
  result<void> write_communication_statistic(const hccl::communication& c, const model& final,
                                             std::vector<std::string>& files) {
    std::set<std::uint32_t> devices;
    for (const auto& t : c.tasks) devices.insert(t.device_id);
    std::vector<std::vector<std::string>> rows;
    for (auto d : devices) {
      auto r = hccl::statistic_rows(c, d, final.session.start_ns);
      rows.insert(rows.end(), r.begin(), r.end());
    }
    file f(*this, "communication_statistic", hccl::statistic_header(), rows.size());
    for (const auto& row : rows) f.format_row([&](auto& s) {
        for (const auto& cell : row) s.str(cell);
      });
    return f.close(files);
  }

  /// The files of one summary: <stem>[_slice_<k>]_<ts>.<ext>, o.slice_rows rows
  /// each (the row count is known before the first row, so are the names);
  /// none for an unwanted or empty summary. Each written under a temporary name
  /// and renamed when complete.
  class file {
   public:
    file(impl& x, const std::string& name, const std::vector<std::string>& header, std::size_t rows)
        : x_(x), name_(name), header_(header), on_(rows != 0 && detail::wanted(x.o_, name)),
          per_(x.o_.slice_rows == 0 ? SIZE_MAX : x.o_.slice_rows), slices_(rows <= per_ ? 1 : (rows + per_ - 1) / per_) {
      if (json() && on_) keys_ = row_text::json_keys(header);
    }

    /// The buffer to append the next row's text to.
    std::string& row() {
      if (!on_) {
        buf_.clear();
        return buf_;
      }
      if (!opened_ || in_slice_ == per_) {
        if (opened_) close_slice();
        open_slice();
      }
      if (buf_.size() >= (1u << 20)) flush();
      if (json() && in_slice_) buf_ += ',';
      ++in_slice_;
      return buf_;
    }
    /// A row from a formatter (summary.hpp) of this summary's columns.
    template <class Format>
    void format_row(Format&& format) {
      row_text s(row(), json() ? &keys_ : nullptr);
      s.open();
      format(s);
      s.close();
    }
    /// Finishes the last file; the paths written go to `files`.
    result<void> close(std::vector<std::string>& files) {
      if (opened_) close_slice();
      files.insert(files.end(), written_.begin(), written_.end());
      return status_;
    }

   private:
    bool json() const { return x_.o_.format == "json"; }
    void open_slice() {
      const std::string base = detail::summary_stem(name_, json());
      const std::string stem = slices_ == 1 ? base : base + "_slice_" + std::to_string(slice_);
      const std::string name = stem + "_" + x_.ts_ + (json() ? ".json" : ".csv");
      final_ = x_.dir_.path_of(name);
      f_.reset();  // an uncommitted temporary goes
      if (status_) {
        auto f = outfile::atomic_file::create(x_.dir_, name);
        if (f)
          f_ = std::move(*f);
        else
          status_ = f.err();
      }
      opened_ = true;
      buf_.clear();
      in_slice_ = 0;
      if (json())
        buf_ += '[';
      else
        append_row_text(buf_, header_, nullptr);
    }
    void flush() {
      if (status_ && f_ && !buf_.empty()) status_ = f_->write(buf_);
      buf_.clear();
    }
    void close_slice() {
      if (json()) buf_ += ']';
      flush();
      if (status_ && f_) status_ = f_->commit();
      if (status_) written_.push_back(final_);
      f_.reset();  // removes the temporary when it was not committed
      opened_ = false;
      ++slice_;
    }

    impl& x_;
    std::string name_;
    std::vector<std::string> header_;
    bool on_;
    std::size_t per_, slices_;
    std::vector<std::string> keys_;
    std::optional<outfile::atomic_file> f_;  // empty after an error
    bool opened_ = false;                    // a slice is open (f_ may still be empty)
    std::string buf_, final_;
    std::size_t slice_ = 0, in_slice_ = 0;
    std::vector<std::string> written_;
    result<void> status_;
  };

  template <class Key>
  result<void> write_sorted(const std::string& name, const std::vector<std::string>& header,
                            spill_sorter<Key>& rows, std::vector<std::string>& files) {
    file f(*this, name, header, rows.size());
    MSPROF_TRY(rows.drain([&](const Key&, std::string_view text) { f.row().append(text); }));
    return f.close(files);
  }
  template <class Groups>
  result<void> write_groups(const std::string& name, const std::vector<std::string>& header, const Groups& g,
                            std::vector<std::string>& files) {
    file f(*this, name, header, g.size());
    g.rows([&](const auto& format) { f.format_row(format); });
    return f.close(files);
  }
  /// npu_module_mem, read from its slices here (npu_memory.hpp).
  result<void> write_module_mem(export_result& r) {
    module_mem_rows rows(prof_dir_, budget_);
    MSPROF_TRY(rows.read(prof_dir_, r.warnings));
    file f(*this, "npu_module_mem", npu_module_mem_header(), rows.size());
    MSPROF_TRY(rows.drain([&](const module_mem_sample& m) { f.format_row([&](auto& s) { npu_module_mem_row(s, m); }); }));
    return f.close(r.files);
  }
  /// A summary of records read in file order (npu_memory.hpp): a counting pass, then the rows.
  template <class Record, class Row>
  result<void> write_in_file_order(export_result& r, const std::string& name, const std::vector<std::string>& header,
                                   result<void> (*for_each)(const std::string&, std::vector<std::string>&,
                                                            const std::function<result<void>(const Record&)>&),
                                   Row row) {
    std::size_t n = 0;
    std::vector<std::string> again;  // the warnings once, from the first pass
    MSPROF_TRY(for_each(prof_dir_, r.warnings, [&](const Record&) -> result<void> { return ++n, result<void>{}; }));
    file f(*this, name, header, n);
    if (n) MSPROF_TRY(for_each(prof_dir_, again, [&](const Record& m) -> result<void> {
      f.format_row([&](auto& s) { row(s, m); });
      return {};
    }));
    return f.close(r.files);
  }
  result<void> write_npu_mem(export_result& r) {
    return write_in_file_order(r, "npu_mem", npu_mem_header(), &for_each_npu_mem,
                               [](auto& s, const npu_mem_sample& m) { npu_mem_row(s, m); });
  }
  result<void> write_static_op_mem(export_result& r) {
    return write_in_file_order(r, "static_op_mem", static_op_mem_header(), &for_each_static_op_mem,
                               [](auto& s, const static_op_mem_row& m) { static_op_mem_cells(s, m); });
  }
  /// aicpu, read from its slices here (aicpu.hpp); the nodes named by the model's AI_CPU tasks. With an
  /// iteration selection, `final` holds the chosen iterations (select_aicpu_kernels).
  result<void> write_aicpu(export_result& r, const model& final) {
    auto ks = aicpu_kernels(prof_dir_, r.warnings);
    if (!ks) return ks.err();
    if (o_.model_id && o_.iteration_id) select_aicpu_kernels(*ks, final.iterations, *o_.iteration_id);
    file f(*this, "aicpu", aicpu_header(), ks->size());
    for (const auto& k : *ks) f.format_row([&](auto& s) { aicpu_row(s, k, aicpu_names_.name_of(k)); });
    return f.close(r.files);
  }
  aicpu_names aicpu_names_;
  /// The interconnect and I/O summaries, read from their slices (sys_io.hpp).
  result<void> write_sys_io(export_result& r) {
    auto pcie = pcie_summary(prof_dir_, r.warnings);
    if (!pcie) return pcie.err();
    if (*pcie) MSPROF_TRY(write_table(r, **pcie));
    for (auto summary : {&hbm_summary, &ddr_summary, &llc_summary}) {
      auto t = (*summary)(prof_dir_, r.warnings);
      if (!t) return t.err();
      if (*t) MSPROF_TRY(write_table(r, **t));
    }
    auto hccs = hccs_summary(prof_dir_, r.warnings);
    if (!hccs) return hccs.err();
    if (*hccs) MSPROF_TRY(write_table(r, **hccs));
    for (auto summary : {&nic_summary, &roce_summary}) {
      auto t = (*summary)(prof_dir_, r.warnings);
      if (!t) return t.err();
      if (*t) MSPROF_TRY(write_table(r, **t));
    }
    return {};
  }
  /// The host system's usage summaries, read from the host's slices (host_usage.hpp).
  result<void> write_host_usage(export_result& r) {
    for (auto summary : {&host_cpu_usage_summary, &host_mem_usage_summary, &host_disk_usage_summary, &host_network_usage_summary})
      if (const auto t = (*summary)(prof_dir_, r.warnings)) MSPROF_TRY(write_table(r, *t));
    for (const auto& t : host_sys_usage_summaries(prof_dir_, r.warnings)) MSPROF_TRY(write_table(r, t));  // --host-sys-usage
    return {};
  }
  /// A summary made whole in memory, its cells as text.
  result<void> write_table(export_result& r, const table& t) {
    file f(*this, t.name, t.header, t.size());
    for (const auto& row : t.rows) f.format_row([&](auto& s) {
        for (const auto& c : row) s.str(c);
      });
    return f.close(r.files);
  }
  /// l2_cache, read from its slices here (l2_cache.hpp); Op Name only when the model has ops.
  result<void> write_l2_cache(export_result& r) {
    const l2_cache_names* names = l2_names_.empty() ? nullptr : &l2_names_;
    return write_in_file_order(r, "l2_cache", l2_cache_header(names != nullptr), &for_each_l2_cache,
                               [names](auto& s, const task_rates& c) { task_rates_row(s, c, names); });
  }
  /// soc_pmu likewise (l2_cache.hpp), the same op names.
  result<void> write_soc_pmu(export_result& r) {
    const l2_cache_names* names = l2_names_.empty() ? nullptr : &l2_names_;
    return write_in_file_order(r, "soc_pmu", soc_pmu_header(names != nullptr), &for_each_soc_pmu,
                               [names](auto& s, const task_rates& c) { task_rates_row(s, c, names); });
  }
  /// page_fault (l2_cache.hpp), the ops named as the reference's C++ path does: by their first launch.
  /// None with an iteration selection: only that path writes it (PageFaultAssembler; the Python
  /// summaries have none), and the reference takes it only for a whole export (ExportSummaryScene).
  result<void> write_page_fault(export_result& r) {
    if (o_.model_id || o_.iteration_id) return {};
    return write_in_file_order(r, "page_fault", page_fault_header(), &for_each_page_fault,
                               [this](auto& s, const page_faults& p) {
                                 s.num(p.device_id);
                                 s.num(p.stream_id);
                                 s.num(p.task_id);
                                 s.num(p.count);
                                 s.str(l2_names_.name_of(p.stream_id, p.task_id, true));
                               });
  }
  /// memory_record and operator_memory from GE's task_memory_info events
  /// (npu_memory.hpp): every row once per device directory, as the reference
  /// exports them from each (its Device_id; "host" without a device).
  result<void> write_ge_memory(export_result& r) {
    struct key {
      std::uint32_t device;  ///< index in `devices`
      std::uint64_t n;
      bool operator<(const key& o) const { return std::tie(device, n) < std::tie(o.device, o.n); }
    };
    std::vector<std::uint32_t> devices;
    std::vector<std::string> dropped;  // each file's warnings once, from the first pass
    const bool json = o_.format == "json";
    const auto rec_keys = json ? row_text::json_keys(ge_memory_record_header()) : std::vector<std::string>{};
    const auto op_keys = json ? row_text::json_keys(ge_operator_memory_header()) : std::vector<std::string>{};
    spill_sorter<key> records(prof_dir_, budget_), ops(prof_dir_, budget_);
    std::uint64_t n = 0;
    MSPROF_TRY(for_each_ge_memory(prof_dir_, r.warnings, devices, [&](const ge_memory_event& e) -> result<void> {
      for (std::uint32_t d = 0; d < std::max<std::size_t>(devices.size(), 1); ++d)
        records.push_with({d, n}, [&](std::string& b) {
          row_text s(b, keys(rec_keys));
          s.open();
          ge_memory_record_row(s, devices.empty() ? -1 : std::int64_t{devices[d]}, e);
          s.close();
        });
      ++n;
      return {};
    }));
    devices.clear();
    n = 0;
    MSPROF_TRY(for_each_ge_op_memory(prof_dir_, dropped, devices,
                                     [&](const ge_memory_event& a, const ge_memory_event* rel) -> result<void> {
                                       for (std::uint32_t d = 0; d < std::max<std::size_t>(devices.size(), 1); ++d)
                                         ops.push_with({d, n}, [&](std::string& b) {
                                           row_text s(b, keys(op_keys));
                                           s.open();
                                           ge_operator_memory_row(s, devices.empty() ? -1 : std::int64_t{devices[d]}, a, rel);
                                           s.close();
                                         });
                                       ++n;
                                       return {};
                                     }));
    MSPROF_TRY(write_sorted("memory_record", ge_memory_record_header(), records, r.files));
    return write_sorted("operator_memory", ge_operator_memory_header(), ops, r.files);
  }
  const std::vector<std::string>* keys(const std::vector<std::string>& k) const { return k.empty() ? nullptr : &k; }

  export_options o_;
  std::string prof_dir_;
  std::size_t budget_;
  std::vector<std::string> op_keys_, task_keys_, tx_keys_, mem_keys_;  // JSON object keys; empty for CSV
  std::optional<pmu_columns> pmu_;  // op_summary's PMU columns, from the first window
  spill_sorter<task_row_key> op_rows_;
  spill_sorter<task_time_key> task_rows_;
  spill_sorter<tx_key> tx_rows_;
  spill_sorter<arrival_key> mem_rows_;
  api_statistic_stream api_;
  l2_cache_names l2_names_;  // the ops of the tasks, when there are L2 cache or SoC PMU slices
  op_statistic_groups op_groups_;
  std::size_t records_ = 0;
  std::uint64_t arrivals_ = 0;  // mstx and mstx_mem records so far
  outfile::dir dir_;  // set by finish()
  std::string ts_;
};

summary_exporter::summary_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

summary_exporter::~summary_exporter() = default;

result<void> summary_exporter::add(const model& w) {
  p_->add_other_rows(w);
  p_->add_op_rows(w);
  return {};
}
void summary_exporter::add_other_rows(const model& w) { p_->add_other_rows(w); }
void summary_exporter::add_op_rows(const model& w) { p_->add_op_rows(w); }

void summary_exporter::set_communication(const hccl::communication& c) { p_->comm_ = &c; }

result<export_result> summary_exporter::finish(const model& final) { return p_->finish(final); }

result<export_result> export_summary(const model& m, const export_options& o) {
  summary_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

}  // namespace convert
MSPROF_END_NAMESPACE
