// SPDX-License-Identifier: MIT
// The CANN summary aicpu, from the AI CPU's kernel reports as the reference
// (9ba1ac7be) exports them (AicpuAddInfoParser, ParseAiCpuData): start and end
// through the device counter's clock; compute and memcpy time from the AI
// CPU's own µs stamps; total time from submit to after-run ticks; every time
// cell Python's round(x, 3) of µs; kernels that started before the collection
// left out; rows by start.
#include "msprof/convert/aicpu.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "msprof/codec/dp.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/py_decimal.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

// Named apart from the other sources' helpers (a unity build joins them).
namespace aicpu_detail {

/// a - b of two counters as the reference's Python ints give it, as a double.
double diff(std::uint64_t a, std::uint64_t b) {
  return a >= b ? static_cast<double>(a - b) : -static_cast<double>(b - a);
}

}  // namespace aicpu_detail

result<void> for_each_aicpu_kernel(const std::string& prof_dir, std::vector<std::string>& warnings,
                                   const std::function<result<void>(const aicpu_kernel&)>& fn) {
  const std::string slices = std::string(prof::layout::aicpu) + ".data.";
  auto r = detail::open_for_slices(prof_dir, true, slices, false);
  if (!r) return {};
  const auto& host = r->host();
  const std::int64_t offset = host.wall_offset_ns();
  const auto start = prof::time_ns::from_us(host.collection_time_begin_us).value_or(0);
  result<void> status;
  std::uint64_t bad_time = 0;
  for (const auto& d : r->devices()) {
    const double hz = d.clock.frequency_mhz * 1e6;
    auto read = r->for_each_aicpu_node(d.id, [&](const codec::MsprofAicpuNodeAdditionalData& a, const codec::place&) {
      if (!status || a.runStartTick == 0) return;  // no start: the reference's time 0, before any collection
      const auto begin = prof::time_ns::to_wall(d.clock.monotonic_ns(a.runStartTick), offset);
      const auto end = a.runEndTick == 0 ? std::optional<std::int64_t>(0)
                                         : prof::time_ns::to_wall(d.clock.monotonic_ns(a.runEndTick), offset);
      if (!begin || !end) {
        ++bad_time;
        return;
      }
      if (*begin < start) return;
      aicpu_kernel k;
      k.device_id = d.id;
      const auto ids = codec::unpack_stream_task(a.streamId, a.taskId);
      k.stream_id = ids.stream_id;
      k.task_id = ids.task_id;
      k.start_ns = *begin;
      k.end_ns = *end;
      // The reference keeps ms in its table and multiplies by 1000 when it exports.
      k.compute_us = py_round3(aicpu_detail::diff(a.memcpyStartTime, a.computeStartTime) / 1000 * 1000);
      k.memcpy_us = py_round3(aicpu_detail::diff(a.memcpyEndTime, a.memcpyStartTime) / 1000 * 1000);
      k.task_us = py_round3(a.runEndTick == 0 ? -static_cast<double>(*begin - offset) / 1000
                                              : static_cast<double>(*end - *begin) / 1000);
      k.dispatch_us = py_round3(static_cast<double>(a.dispatchTime) / 1000 * 1000);
      k.total_us = hz > 0 ? py_round3(aicpu_detail::diff(a.tickAfterRun, a.submitTick) / hz * 1000 * 1000) : "0.0";
      status = fn(k);
    });
    MSPROF_TRY(read);
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, slices, warnings);
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " AI CPU kernel report(s) with a time outside the clock's range were skipped");
  return {};
}

void aicpu_names::add(const model& w) {
  for (const auto& t : w.tasks)
    if (t.op && t.op->ge_task_type == 1)  // AI_CPU
      tasks_[{t.device_id, t.stream_id, t.task_id}].push_back({t.start_ns, t.end_ns, t.op->name});
}

std::string aicpu_names::name_of(const aicpu_kernel& k) const {
  const auto it = tasks_.find({k.device_id, k.stream_id, k.task_id});
  if (it != tasks_.end())
    for (const auto& s : it->second)
      if (s.start_ns <= k.end_ns && k.end_ns <= s.end_ns) return s.name;
  return "N/A";
}

void select_aicpu_kernels(std::vector<aicpu_kernel>& ks, const std::vector<iteration>& chosen, std::uint32_t first_id) {
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> range;  // device -> [min start, max end]
  for (const auto& it : chosen) {
    auto [at, added] = range.try_emplace(it.device_id, it.start_ns, it.end_ns);
    if (!added) at->second = {std::min(at->second.first, it.start_ns), std::max(at->second.second, it.end_ns)};
  }
  // Iteration 1: the reference's step_start is 0 (the device counter's zero), before any kernel.
  if (first_id == 1)
    for (auto& [device, r] : range) r.first = INT64_MIN;
  ks.erase(std::remove_if(ks.begin(), ks.end(),
                          [&](const aicpu_kernel& k) {
                            const auto r = range.find(k.device_id);
                            return r != range.end() && !(k.start_ns >= r->second.first && k.end_ns <= r->second.second);
                          }),
           ks.end());
}

result<std::vector<aicpu_kernel>> aicpu_kernels(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<aicpu_kernel> rows;
  MSPROF_TRY(for_each_aicpu_kernel(prof_dir, warnings, [&](const aicpu_kernel& k) -> result<void> {
    rows.push_back(k);
    return {};
  }));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const aicpu_kernel& a, const aicpu_kernel& b) { return a.start_ns < b.start_ns; });
  return rows;
}

std::vector<std::string> aicpu_header() {
  return {"Device_id", "Timestamp(us)", "Node", "Compute_time(us)", "Memcpy_time(us)", "Task_time(us)",
          "Dispatch_time(us)", "Total_time(us)", "Stream ID", "Task ID"};
}

result<std::optional<table>> data_preprocess(const std::string& prof_dir, const aicpu_names& names,
                                             std::vector<std::string>& warnings) {
  auto ks = aicpu_kernels(prof_dir, warnings);
  if (!ks) return ks.err();
  if (ks->empty()) return std::optional<table>();
  table t;
  t.name = "data_preprocess";
  t.header = aicpu_header();
  for (const auto& k : *ks) {
    t.rows.emplace_back();
    cell_list c(t.rows.back());
    aicpu_row(c, k, names.name_of(k));
  }
  return std::optional<table>(std::move(t));
}

namespace dp_detail {

/// The reference's trans_into_local_time: Decimal(raw ns) / 1000 plus
/// Decimal(str(offset µs)), quantized to 3 decimals (half-even), read back by
/// float(); nullopt where Python's Decimal would raise.
std::optional<double> local_us(const py_decimal& raw_ns, double offset_us) {
  if (!std::isfinite(offset_us)) return std::nullopt;
  const auto us = raw_ns / py_decimal::of_int(1000);
  const auto sum = us ? *us + py_decimal::of_text(py_float(offset_us)) : std::nullopt;
  const auto q = sum ? quantize(*sum, 3) : std::nullopt;
  if (!q) return std::nullopt;
  return to_double(*q);
}

/// Whether the 4 bytes at `pos` of `path` are a binary record's start.
bool header_at(const std::string& path, std::uint64_t pos) {
  std::uint64_t size = 0;
  auto f = codec::open_regular(path, size);
  if (!f) return false;
  unsigned char h[4];
  const bool ok = pos + 4 <= size && std::fseek(*f, static_cast<long>(pos), SEEK_SET) == 0 && std::fread(h, 1, 4, *f) == 4;
  std::fclose(*f);
  return ok && codec::dp_binary_header(h);
}

/// The reference's dp_data_dispatch on a device's slices (oldest first):
/// under 128 bytes in all, text; else the header where the last record would
/// start (in the newest slice, or the one before when the newest holds less
/// than a record). Added here: binary also when the first slice starts with
/// a record (a cut tail moves the place the reference looks at).
bool judged_binary(const std::vector<const prof::data_file*>& fs) {
  std::uint64_t total = 0;
  for (const auto* f : fs) total += f->size;
  if (total >= codec::dp_record_size) {
    std::size_t j = fs.size() - 1;
    std::int64_t off = 0;
    if (fs[j]->size < codec::dp_record_size) off = static_cast<std::int64_t>(fs[j--]->size);
    if (static_cast<std::int64_t>(codec::dp_record_size) - off < 4) off -= static_cast<std::int64_t>(codec::dp_record_size);
    const std::int64_t pos = static_cast<std::int64_t>(fs[j]->size) + off - static_cast<std::int64_t>(codec::dp_record_size);
    if (pos >= 0 && header_at(fs[j]->path, static_cast<std::uint64_t>(pos))) return true;
  }
  for (const auto* f : fs)
    if (f->size != 0) return header_at(f->path, 0);
  return false;
}

}  // namespace dp_detail

result<void> for_each_dp_row(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<result<void>(const dp_row&)>& fn) {
  using namespace dp_detail;
  auto r = detail::open_for_slices(prof_dir, true, "DATA_PREPROCESS.", false);
  if (!r) return {};
  std::vector<const prof::device_info*> devices;
  for (const auto& d : r->devices()) devices.push_back(&d);
  std::sort(devices.begin(), devices.end(), [](const prof::device_info* a, const prof::device_info* b) {
    return std::to_string(a->id) < std::to_string(b->id);  // the folders' names, as sorted() gives them
  });
  result<void> status;
  for (const auto* d : devices) {
    std::vector<const prof::data_file*> fs;
    for (const auto& f : r->files())
      if (f.device && f.device_id == d->id && f.module == prof::layout::data_preprocess) fs.push_back(&f);
    if (fs.empty()) continue;
    const auto offset = detail::device_local_offset_us(prof_dir, *d, "dp rows", warnings);
    if (!offset) continue;
    const double offset_us = *offset;
    const bool binary = judged_binary(fs);
    dp_row row;
    row.device_id = d->id;
    row.size_is_number = binary;
    const auto emit = [&](const codec::DpEntry& e, const py_decimal& ns, const codec::place& at, detail::file_problems& p) {
      const auto us = local_us(ns, offset_us);
      if (!us) return p.add(at.str() + ": data preprocess time outside what the reference's Decimal holds; skipped");
      row.time = py_float(*us);
      row.action = e.action;
      row.source = e.source;
      row.size = e.size;
      status = fn(row);
    };
    // Newest slice first, as the reference reads them (its sort is in place, newest first).
    for (auto it = fs.rbegin(); it != fs.rend() && status; ++it) {
      const prof::data_file& f = **it;
      detail::file_problems p(warnings, f.path);
      if (f.size == 0) {
        p.add(f.path + ": record at byte offset 0: empty data preprocess slice, no records");
        continue;
      }
      if (binary) {
        std::uint64_t bad_header = 0, first_bad = 0;
        auto rep = codec::scan_file(f.path, codec::dp_record_size, [&](const unsigned char* b, std::uint64_t off) {
          if (!status) return;
          const codec::place at{f.path, off};
          auto e = codec::decode_dp_record(b, codec::dp_record_size, at);
          if (!e) return p.add(e.err().message);
          if (!e->header_ok && bad_header++ == 0) first_bad = off;
          emit(*e, py_decimal::of_uint(e->timestamp), at, p);
        });
        if (!rep) {
          if (rep.err().code == errc::io) return rep.err();
          p.add(rep.err().message + "; data preprocess slice skipped");
          continue;
        }
        if (bad_header)
          p.add(codec::place{f.path, first_bad}.str() + ": " + std::to_string(bad_header) +
                " data preprocess record(s) whose magic or tag is not 0x5A5A/100 (the first here); kept, as the reference keeps them");
        if (rep->tail_bytes)
          p.add(codec::place{f.path, rep->records * codec::dp_record_size}.str() + ": truncated data preprocess record: " +
                std::to_string(rep->tail_bytes) + " of 128 bytes; the " + std::to_string(rep->records) +
                " whole record(s) before it are kept");
        continue;
      }
      bool found = false;
      auto text = prof::read_small_file(f.path, found, 64u << 20);
      if (!text) {
        if (text.err().code == errc::io) return text.err();
        p.add(text.err().message + "; data preprocess slice skipped");
        continue;
      }
      codec::for_each_dp_piece(*text, [&](std::string_view piece, std::size_t off) {
        if (!status || piece.find(codec::dp_mark) == std::string_view::npos) return;
        const codec::place at{f.path, off};
        auto e = codec::decode_dp_line(piece, at);
        if (!e) return p.add(e.err().message + "; line skipped");
        emit(*e, py_decimal::of_text(py_float(e->text_timestamp)), at, p);
      });
    }
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, "DATA_PREPROCESS.", warnings);
  return {};
}

std::vector<std::string> dp_header() {
  return {"Device_id", "Timestamp(us)", "Action", "Source", "Cached Buffer Size"};
}

}  // namespace convert
MSPROF_END_NAMESPACE
