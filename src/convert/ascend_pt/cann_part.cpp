// SPDX-License-Identifier: MIT
// The CANN part of an analysis, window by window (cann_part.hpp). Rows are
// formatted as their window arrives and kept as length-prefixed cells in
// sorted runs; the one cell that needs the previous row (op_summary's wait)
// is made while draining, as the summary exporter does.
#include "msprof/convert/ascend_pt/cann_part.hpp"

#include <algorithm>
#include <cstring>

#include "msprof/convert/text.hpp"
#include "msprof/convert/timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

/// What an op_summary row keeps before its cells.
struct op_row_head {
  std::int64_t end_ns;
  std::uint32_t group;
  std::uint32_t head_cells;  ///< cells before the wait cell
};

}  // namespace

cann_part::cann_part(const std::string& spill_dir, bool kernels, bool text, std::size_t budget)
    : kernels_(kernels), text_(text) {
  if (kernels) acl_ = std::make_unique<launch_runs>(spill_dir, budget / 8);
  if (!text) return;
  // Half to the timeline's events, the rest shared by the row sorters.
  const std::size_t part = budget / 8;
  op_rows_.emplace(spill_dir, part);
  task_rows_.emplace(spill_dir, part);
  apis_.emplace(spill_dir, part);
  overlap_.emplace(spill_dir, part);
  timeline_.emplace(spill_dir, budget / 2, true, false);
}

void cann_part::add_ops(const model& w) {
  aicpu_.add(w);
  l2_names_.add(w);
  // The HostToDevice flow keeps one end per launch: its first task. A task
  // comes in its launch's window or an earlier one, so the launch settles it.
  for (const auto& t : w.tasks) {
    if (!kernels_ || !t.host_flow) continue;
    kernel_ref k;
    k.ts = t.start_ns;
    k.dur_us = detail::dur_us(t.start_ns, t.end_ns);  // what its timeline text (dur_us_json) reads back as
    k.end_ns = t.start_ns + static_cast<std::int64_t>(k.dur_us * 1000);
    k.ai_core = (t.op ? ge_task_type_name(t.op->ge_task_type) : t.task_type) == "AI_CORE";
    k.pid = format_pid(w.session.pid, sort_index::ascend_hardware, t.device_id);
    k.tid = t.stream_id;
    const auto [it, fresh] = pending_.try_emplace(t.connection_id, pending_kernel{t.global_task_id, k});
    if (!fresh && t.global_task_id < it->second.global_task_id) it->second = {t.global_task_id, k};
  }
  for (const auto& a : w.apis) {
    if (!kernels_ || !a.has_device_task) continue;
    const auto it = pending_.find(a.connection_id);
    if (it == pending_.end()) continue;
    const kernel_ref& k = it->second.k;
    acl_->push({a.start_ns, it->second.global_task_id}, record_bytes(k));
    pending_.erase(it);
  }
  if (!text_) return;
  if (!pmu_) pmu_ = pmu_columns::of(w.session);
  for (const auto& a : w.apis) apis_->add(a);
  // Rows are packed straight into the sorters' memory.
  for (const auto& t : w.tasks) {
    if (!in_op_summary(t)) continue;
    op_rows_->push_with(task_row_key::of(t), [&](std::string& b) {
      const std::size_t at = b.size();
      b.append(sizeof(op_row_head), '\0');
      cell_pack s(b);
      op_summary_head(s, t);
      const op_row_head h{t.end_ns, op_groups_.group_of(t), static_cast<std::uint32_t>(s.cells())};
      std::memcpy(&b[at], &h, sizeof h);
      op_summary_tail(s, t, w.device(t.device_id), &*pmu_);
    });
  }
}

void cann_part::add_tasks(const model& w) {
  if (!text_) return;
  timeline_->add(w);
  for (const auto& t : w.tasks) {
    overlap_->add(t);
    task_rows_->push_with(task_time_key::of(t), [&](std::string& b) {
      cell_pack s(b);
      task_time_row(s, t);
    });
  }
}

void cann_part::finish(const model& final) {
  if (text_ && !pmu_) pmu_ = pmu_columns::of(final.session);
  pending_.clear();  // tasks no launch claimed
}

std::unique_ptr<launch_runs> cann_part::take_acl() { return std::move(acl_); }

std::vector<std::string> cann_part::op_summary_header() const {
  return convert::op_summary_header(pmu_ ? &*pmu_ : nullptr);
}

std::size_t cann_part::op_summary_rows() const noexcept { return op_rows_ ? op_rows_->size() : 0; }

std::size_t cann_part::task_time_rows() const noexcept { return task_rows_ ? task_rows_->size() : 0; }

result<void> cann_part::drain_op_summary(const std::function<result<void>(table::row&)>& row) {
  if (!op_rows_) return {};
  std::optional<std::int64_t> prev_end;  // of the previous row, whatever its device (as the reference)
  result<void> status;
  table::row cells;
  MSPROF_TRY(op_rows_->drain([&](const task_row_key& k, std::string_view p) {
    auto h = from_bytes<op_row_head>(p);
    op_groups_.add(h.group, detail::dur_us(k.start_ns, h.end_ns));
    if (!status) return;
    cells.clear();
    cell_pack::unpack(p.substr(sizeof h), cells);
    table::row wait;
    cell_list s(wait);
    op_summary_wait(s, prev_end, k.start_ns);
    cells.insert(cells.begin() + std::min<std::ptrdiff_t>(h.head_cells, static_cast<std::ptrdiff_t>(cells.size())),
                 wait.begin(), wait.end());
    prev_end = h.end_ns;
    status = row(cells);
  }));
  return status;
}

table cann_part::op_statistic() const {
  table t;
  t.name = "op_statistic";
  t.header = op_statistic_header();
  op_groups_.rows([&](const auto& format) { add_row(t, format); });
  return t;
}

result<table> cann_part::api_statistic() {
  table t;
  t.name = "api_statistic";
  t.header = api_statistic_header();
  if (!apis_) return t;
  MSPROF_TRY(apis_->finish());
  apis_->groups().rows([&](const auto& format) { add_row(t, format); });
  return t;
}

result<void> cann_part::drain_task_time(const std::function<result<void>(table::row&)>& row) {
  if (!task_rows_) return {};
  result<void> status;
  table::row cells;
  MSPROF_TRY(task_rows_->drain([&](const task_time_key&, std::string_view p) {
    if (!status) return;
    cells.clear();
    cell_pack::unpack(p, cells);
    status = row(cells);
  }));
  return status;
}

result<void> cann_part::drain_overlap(const std::function<void(const overlap_interval&)>& iv) {
  if (!overlap_) return {};
  std::uint32_t dev = 0;
  return overlap_->drain([&](std::uint32_t d) { dev = d; },
                         [&](std::int64_t b, std::int64_t e) { iv({dev, b, e, true}); },
                         [&](std::int64_t b, std::int64_t e) { iv({dev, b, e, false}); }, [](std::uint32_t) {});
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
