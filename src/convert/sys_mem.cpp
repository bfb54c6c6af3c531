// SPDX-License-Identifier: MIT
// HBM as the reference (9ba1ac7be) exports it: ParsingHBMData decodes the
// samples of collection version "1.0" (their µs through
// get_absolute_time_by_sampling_timestamp), HbmModel.insert_bw_data turns
// them into bandwidths (HBMbwData), get_hbm_summary_data writes the summary
// (Python path); HBMProcessor, hbm_assembler.cpp and SaveHbmData read
// HBMbwData for the timeline and the db (C++ path). The Python parser runs on
// chips 0-5, 7, 8, 11, 15 and 16 (data_parsers_config.py).
// DDR likewise: ParsingDDRData (chips 0-4, 7, 8, 11) and DdrModel make
// DDRMetricData, get_ddr_data the summary; DDRProcessor, ddr_assembler.cpp and
// SaveDDRData the timeline and the db.
#include "msprof/convert/sys_mem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// The key of a row of the reference's HBMOriginalData, grouped by (time, type, channel).
struct hbm_key {
  std::int64_t time_ns;
  std::uint32_t hbm_id, write;  // write 0 or 1; no padding bytes go to the spill file
  bool operator<(const hbm_key& o) const {
    return std::tie(time_ns, write, hbm_id) < std::tie(o.time_ns, o.write, o.hbm_id);
  }
  bool operator==(const hbm_key& o) const { return !(*this < o) && !(o < *this); }
};

struct hbm_count {
  hbm_key key;
  std::uint64_t count;
};

/// HbmModel's rows per bandwidth: 8 when sample.json's hbm_profiling_events
/// names two events, 4 for one (a missing key is one empty name), else 0.
std::size_t check_len(const prof::device_info& d) {
  const std::string events = d.sample.get("hbm_profiling_events").as_string_or("");
  const auto n = static_cast<std::size_t>(std::count(events.begin(), events.end(), ',')) + 1;
  return n == 2 ? 8 : n == 1 ? 4 : 0;
}

/// The reference's bandwidth (MB/s) of a row over the one `len` rows before
/// it in the grouped table (HbmModel._get_hbm_data; the first `len` rows take
/// the last `len`, as its index -len does).
double bandwidth(const hbm_count& row, const hbm_count& prev) {
  constexpr double scale = 0.000030517578125;  // 256 B per count / 8 events / 2^20
  const double dur = static_cast<double>(row.key.time_ns) - static_cast<double>(prev.key.time_ns);
  if (dur == 0) return static_cast<double>(row.count);
  const double v = static_cast<double>(row.count) * scale / dur * 1e9;
  return v > 0 ? v : 0.0;
}

/// A summary `name` with the header of both bandwidth summaries, no rows yet.
table bandwidth_table(const char* name) {
  table t;
  t.name = name;
  t.header = {"Device_id", "Metric", "Read(MB/s)", "Write(MB/s)"};
  return t;
}

}  // namespace

result<void> for_each_hbm_bandwidth(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const hbm_bandwidth&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::hbm) + ".data.", false);
  if (!r) return {};
  const auto& host = r->host();
  std::uint64_t bad_time = 0, early = 0;
  for (const auto& d : r->devices()) {
    if (d.info.get("version").as_string_or("") == "2.0") {  // a 32-byte layout, stamped in ns
      const std::string info = prof::layout::for_device(prof::layout::info_json, d.id);
      warnings.push_back(prof_dir + "/" + prof::layout::device_dir(d.id) + "/" + info +
                         ": collection version 2.0's HBM samples are not read; no HBM bandwidths for device " +
                         std::to_string(d.id));
      continue;
    }
    const auto clock = detail::own_clock(prof_dir, host, d, warnings);
    const detail::sampling_clock local(clock);
    const auto start = clock.start_ns();
    const std::size_t len = check_len(d);
    // The grouped table in order through a spill sorter (memory bounded, not
    // one row per sample), and its last `len` rows aside, which the first
    // `len` bandwidths need: the largest keys, each with its last count.
    spill_sorter<hbm_key> sorted(prof_dir);
    std::map<hbm_key, std::uint64_t> tail;
    MSPROF_TRY(r->for_each_hbm(d.id, [&](const codec::HbmSample& s, const codec::place&) {
      const auto t = local(s.timestampUs);
      if (!t) return void(++bad_time);
      const hbm_key k{*t, s.hbmId, s.eventId != 0 ? 1u : 0u};
      sorted.push(k, bytes_of(s.count));
      if (len == 0) return;
      if (tail.size() == len && k < tail.begin()->first) return;
      tail[k] = s.count;
      if (tail.size() > len) tail.erase(tail.begin());
    }));
    if (sorted.size() == 0) continue;
    const std::string sample = prof_dir + "/" + prof::layout::device_dir(d.id) + "/" + prof::layout::sample_json;
    if (len == 0) {
      warnings.push_back(sample + ": hbm_profiling_events names more than two events; no HBM bandwidths for device " +
                         std::to_string(d.id));
      continue;
    }
    if (tail.size() < len) {  // as many grouped rows as the tail holds
      warnings.push_back(prof_dir + ": device " + std::to_string(d.id) + " has " + std::to_string(tail.size()) +
                         " HBM sample(s), fewer than the " + std::to_string(len) +
                         " a bandwidth needs (as the reference, none)");
      continue;
    }
    // `recent` holds the last `len` grouped rows (a ring, the tail's at first).
    std::vector<hbm_count> recent;
    for (const auto& [k, count] : tail) recent.push_back({k, count});
    hbm_bandwidth b;
    b.device_id = d.id;
    std::size_t i = 0;
    auto emit = [&](const hbm_count& row) -> result<void> {
      hbm_count& prev = recent[i++ % len];
      if (!from_start || row.key.time_ns >= start) {
        b.time_ns = row.key.time_ns;
        b.hbm_id = row.key.hbm_id;
        b.write = row.key.write != 0;
        b.mb_s = bandwidth(row, prev);
        MSPROF_TRY(fn(b));
      } else {
        ++early;
      }
      prev = row;
      return {};
    };
    // GROUP BY time, type, channel: of equal keys the last in file order is kept.
    std::optional<hbm_count> held;
    hbm_key k{};
    std::string_view payload;
    while (sorted.next(k, payload)) {
      const hbm_count row{k, from_bytes<decltype(hbm_count::count)>(payload)};
      if (held && !(held->key == k)) MSPROF_TRY(emit(*held));
      held = row;
    }
    MSPROF_TRY(sorted.take_status());
    if (held) MSPROF_TRY(emit(*held));
  }
  detail::slice_warnings(*r, prof::layout::hbm, warnings);
  detail::left_out(warnings, prof_dir, bad_time, "hbm sample(s) with a time outside the clock's range");
  detail::left_out(warnings, prof_dir, early, "HBM bandwidth(s) from before the collection start (as the reference)");
  return {};
}

result<std::optional<table>> hbm_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  struct sums {
    double read = 0, write = 0;  // SQLite's double sums, in the table's order
    std::uint64_t reads = 0, writes = 0;
  };
  std::map<std::uint32_t, std::map<std::uint32_t, sums>> devices;  // device -> channel -> sums
  MSPROF_TRY(for_each_hbm_bandwidth(prof_dir, false, warnings, [&](const hbm_bandwidth& b) -> result<void> {
    auto& s = devices[b.device_id][b.hbm_id];
    if (b.write) s.write += b.mb_s, ++s.writes;
    else s.read += b.mb_s, ++s.reads;
    return {};
  }));
  if (devices.empty()) return std::optional<table>();
  table t = bandwidth_table("hbm");
  for (const auto& [dev, channels] : devices) {
    // SQL's sum / count: NULL (None) without rows of the direction.
    std::vector<std::pair<std::optional<double>, std::optional<double>>> avg;
    for (const auto& [id, s] : channels)
      avg.emplace_back(s.reads ? std::optional<double>(s.read / static_cast<double>(s.reads)) : std::nullopt,
                       s.writes ? std::optional<double>(s.write / static_cast<double>(s.writes)) : std::nullopt);
    // _insert_hbm_data: float_calculate's Decimal sum, then over the channel count ("0" when one is None).
    const auto average = [&](bool write) {
      std::vector<double> v;
      for (const auto& a : avg) {
        const auto& x = write ? a.second : a.first;
        if (!x) return decimal_mean3({}, avg.size());
        v.push_back(*x);
      }
      return decimal_mean3(v, avg.size());
    };
    const std::string id = std::to_string(dev);
    t.rows.push_back({id, "Average", average(false), average(true)});
    // _format_hbm_data: a zero or missing read average shows the write average as read (unrounded).
    const auto cell = [](const std::optional<double>& x) { return x ? py_float(*x) : std::string(); };
    std::size_t k = 0;
    for (const auto& [hbm, s] : channels) {
      const auto& [read, write] = avg[k++];
      t.rows.push_back({id, std::to_string(hbm), read && *read != 0 ? py_round3(*read) : cell(write),
                        write && *write != 0 ? py_round3(*write) : cell(write)});
    }
  }
  return std::optional<table>(std::move(t));
}

result<void> for_each_ddr_bandwidth(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const ddr_bandwidth&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::ddr) + ".data.", false);
  if (!r) return {};
  detail::local_times local(prof_dir, r->host());
  for (const auto& d : r->devices()) {
    const std::string chip = d.info.get("platform_version").as_string_or("");
    // data_parsers_config.py's ParsingDDRData chips; ConfigMgr.get_ddr_bit_width.
    const bool parsed = chip == "0" || chip == "1" || chip == "2" || chip == "3" || chip == "4" || chip == "7" ||
                        chip == "8" || chip == "11";
    const double bit_width = chip == "1" || chip == "2" || chip == "3" || chip == "4" ? 256 : 128;
    struct flux {
      std::uint64_t read = 0, write = 0;
    };
    std::map<std::int64_t, flux> by_time;  // GROUP BY timestamp: device ns
    const auto start = static_cast<std::int64_t>(d.clock.anchor_ns);  // dev_start.log's clock_monotonic_raw
    bool any = false;
    MSPROF_TRY(r->for_each_ddr(d.id, [&](const codec::DdrSample& s, const codec::place&) {
      any = true;
      auto& f = by_time[start + std::int64_t{s.timestampUs} * 1000];
      if (s.masterId != 0xFFFFFFFFu) return;  // a master's flux ("fluxid_*"): not in the bandwidths
      (s.eventId == 0 ? f.read : f.write) += s.count;
    }));
    if (!any) continue;
    if (!parsed) {
      warnings.push_back(prof_dir + ": device " + std::to_string(d.id) + "'s DDR samples were left out: chip \"" +
                         chip + "\" (info.json's platform_version) is not one whose DDR data the reference reads");
      continue;
    }
    ddr_bandwidth b;
    b.device_id = d.id;
    std::int64_t prev = start;
    for (const auto& [t, f] : by_time) {
      const double dur = static_cast<double>(t - prev) * 1024.0 * 1024.0 * 8;  // DdrModel._cal_ddr_bandwidth
      const auto mb_s = [&](std::uint64_t n) { return dur != 0 ? static_cast<double>(n) * bit_width / dur * 1e9 : 0.0; };
      b.device_ns = t;
      b.read_mb_s = mb_s(f.read);
      b.write_mb_s = mb_s(f.write);
      prev = t;
      b.local_ns = 0;
      if (from_start) {
        const auto l = local(d, static_cast<double>(t));
        if (!l) continue;
        b.local_ns = *l;
      }
      MSPROF_TRY(fn(b));
    }
  }
  detail::slice_warnings(*r, prof::layout::ddr, warnings);
  local.warn(warnings, prof_dir, "DDR bandwidth(s)");
  return {};
}

result<std::optional<table>> ddr_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  struct sums {
    double read = 0, write = 0;  // Python's float sums in the table's order
    std::uint64_t n = 0;
  };
  std::map<std::uint32_t, sums> devices;
  MSPROF_TRY(for_each_ddr_bandwidth(prof_dir, false, warnings, [&](const ddr_bandwidth& b) -> result<void> {
    auto& s = devices[b.device_id];
    s.read += b.read_mb_s;
    s.write += b.write_mb_s;
    ++s.n;
    return {};
  }));
  if (devices.empty()) return std::optional<table>();
  table t = bandwidth_table("ddr");
  for (const auto& [dev, s] : devices) {
    const auto n = static_cast<double>(s.n);
    t.rows.push_back({std::to_string(dev), "Average", py_round3(s.read * 1.0 / n), py_round3(s.write * 1.0 / n)});
  }
  return std::optional<table>(std::move(t));
}

result<void> db_window_writer::write_ddr(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_ddr_bandwidth(prof_dir, true, warnings_, [&](const ddr_bandwidth& b) -> result<void> {
    if (!t) t = &rows_of("DDR");
    t->row(b.device_id, b.local_ns, detail::db_bytes_per_s(b.read_mb_s), detail::db_bytes_per_s(b.write_mb_s));  // SaveDDRData
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

result<void> db_window_writer::write_hbm(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  std::int64_t type[2] = {-1, -1};  // registered at a type's first row, as SaveHbmData does
  MSPROF_TRY(for_each_hbm_bandwidth(prof_dir, true, warnings_, [&](const hbm_bandwidth& b) -> result<void> {
    if (!t) t = &rows_of("HBM");
    if (type[b.write] < 0) type[b.write] = ids_.id(b.write ? "write" : "read");
    t->row(b.device_id, b.time_ns, detail::db_bytes_per_s(b.mb_s), static_cast<std::uint8_t>(b.hbm_id), type[b.write]);  // SaveHbmData
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
