// SPDX-License-Identifier: MIT
// LLC as the reference (9ba1ac7be) exports it: NonMiniLLCParser decodes the
// samples (LLC_STRUCT_SPECS: layout by collection version; version 1.0's µs
// through get_absolute_time_by_sampling_timestamp, 2.0's ns as they are) on
// chips 1-5, 7, 8, 11, 15 and 16 (data_parsers_config.py), LlcModel keeps the
// counts of its mode's eight PMU events per tag and time (LLCEvents, by a
// trigger per event) and turns them into hit rates and throughputs
// (LLCMetrics), get_llc_train_summary writes the summary (Python path);
// LLcProcessor, llc_assembler.cpp and SaveLlcData read LLCMetrics for the
// timeline and the db (C++ path).
#include "msprof/convert/llc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/py_decimal.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// LlcModel.READ_PMU_LIST and WRITE_PMU_LIST: the events event0..event7 of a mode.
constexpr std::array<std::uint32_t, 8> read_events = {0x00, 0x01, 0x02, 0x13, 0x20, 0x22, 0x34, 0x36};
constexpr std::array<std::uint32_t, 8> write_events = {0x00, 0x01, 0x03, 0x14, 0x21, 0x23, 0x35, 0x37};

/// The key of an LLCEvents row: the tag, then the time.
struct llc_key {
  std::uint32_t tag, unused;  // unused: 0, no padding bytes go to the spill file
  std::int64_t time_ns;
  bool operator<(const llc_key& o) const { return tag != o.tag ? tag < o.tag : time_ns < o.time_ns; }
};

/// One LLCEvents row: the last count of each event (none when not sampled).
using event_counts = std::array<std::optional<std::uint64_t>, 8>;

/// LlcModel._init_l3_list_dispatch: the tags with metrics on `chip`.
std::uint32_t tag_count(const std::string& chip) {
  if (chip == "7" || chip == "8" || chip == "11") return 1;
  return chip == "5" ? 2 : 4;
}

bool parsed_chip(const std::string& c) {
  return c == "1" || c == "2" || c == "3" || c == "4" || c == "5" || c == "7" || c == "8" || c == "11" || c == "15" ||
         c == "16";
}

/// float_calculate of the sum of events `ks` (None, then "0", when one is missing).
std::optional<std::uint64_t> sum(const event_counts& e, std::initializer_list<int> ks) {
  std::uint64_t s = 0;
  for (int k : ks) {
    if (!e[static_cast<std::size_t>(k)]) return std::nullopt;
    s += *e[static_cast<std::size_t>(k)];
  }
  return s;
}

/// LlcModel.calculate_hit_rate: (event2 + event3 + event5 + event7) / (event4 + event6).
double hit_rate(const event_counts& e) {
  const auto hits = sum(e, {2, 3, 5, 7});
  const auto all = sum(e, {4, 6});
  return hits && all ? float_calculate_quotient({py_decimal::of_uint(*hits), py_decimal::of_uint(*all)}) : 0.0;
}

/// LlcModel.calculate_throughput: (event0 + event1) 64-byte lines over the
/// time since the tag's previous sample, as it computes that (ns / 64 / 1e9,
/// str() of the float) and divides: by 1/64, 1024 and 1024, then the time.
double throughput(const event_counts& e, double dt_ns) {
  const auto lines = sum(e, {0, 1});
  if (!lines) return 0.0;
  const auto kib = py_decimal::of_text("1024.0");
  return float_calculate_quotient({py_decimal::of_uint(*lines), py_decimal::of_text("0.015625"), kib, kib,
                                   py_decimal::of_text(fmt::format("{}", dt_ns / 64.0 / 1e9))});
}

}  // namespace

result<void> for_each_llc_metric(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const llc_metric&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::llc) + ".data.", false);
  if (!r) return {};
  const auto& host = r->host();
  std::uint64_t bad_time = 0, early = 0;
  for (const auto& d : r->devices()) {
    const std::string dir = prof_dir + "/" + prof::layout::device_dir(d.id) + "/";
    const auto clock = detail::own_clock(prof_dir, host, d, warnings);
    const std::string version = d.info.get("version").as_string_or("");
    const std::string chip = d.info.get("platform_version").as_string_or("");
    const std::string mode = d.sample.get("llc_profiling").as_string_or("");
    const auto& events = mode == "write" ? write_events : read_events;
    // LLCEvents: per (tag, time as a REAL) each event's last count; the
    // samples of its events go into that order through a spill sorter (equal
    // keys in file order), so memory stays within its budget.
    spill_sorter<llc_key> rows(prof_dir);
    std::uint64_t samples = 0;
    const auto add = [&](std::optional<std::int64_t> t, std::uint64_t count, std::uint32_t event, std::uint32_t tag) {
      ++samples;
      const double real = t ? static_cast<double>(*t) : 0.0;
      if (!t || real >= 9223372036854775808.0) return void(++bad_time);  // 2^63: beyond int64 once rounded
      for (std::uint32_t k = 0; k < events.size(); ++k)
        if (events[k] == event)
          rows.push_with({tag, 0, static_cast<std::int64_t>(real)}, [&](std::string& out) {
            put(out, k);
            put(out, count);
          });
    };
    if (version == "2.0") {
      MSPROF_TRY(r->for_each_llc<codec::LlcSampleV2>(d.id, [&](const codec::LlcSampleV2& s, const codec::place&) {
        const bool in_range = s.timestampNs <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        add(in_range ? std::optional<std::int64_t>(static_cast<std::int64_t>(s.timestampNs)) : std::nullopt, s.count,
            s.eventId, s.l3tId);
      }));
    } else {
      const detail::sampling_clock local(clock);
      MSPROF_TRY(r->for_each_llc<codec::LlcSample>(d.id, [&](const codec::LlcSample& s, const codec::place&) {
        add(local(s.timestampUs), s.count, s.eventId, s.l3tId);
      }));
    }
    if (samples == 0) continue;
    const std::string none = "; no LLC metrics for device " + std::to_string(d.id);
    const std::string info = dir + prof::layout::for_device(prof::layout::info_json, d.id);
    if (version != "1.0" && version != "2.0")  // VersionedStructParser's fallback
      warnings.push_back(info + ": collection version \"" + version +
                         "\" has no known LLC layout; its LLC samples were read as version 1.0's (as the reference)");
    if (!parsed_chip(chip)) {
      warnings.push_back(info + ": chip \"" + chip + "\" (platform_version) is not one whose LLC read/write data the " +
                         "reference reads" + none);
      continue;
    }
    if (mode != "read" && mode != "write") {
      warnings.push_back(dir + prof::layout::sample_json + ": llc_profiling \"" + mode + "\" is neither read nor write" +
                         none);
      continue;
    }
    llc_metric m;
    m.device_id = d.id;
    m.mode = mode;
    const std::uint32_t tags = tag_count(chip);
    bool begun = false;
    std::int64_t prev = 0;
    auto emit = [&](const llc_key& key, const event_counts& counts) -> result<void> {
      const bool starts = !begun || m.llc_id != key.tag;  // a tag's first time: throughput 0
      begun = true;
      m.llc_id = key.tag;
      m.time_ns = key.time_ns;
      m.hit_rate = hit_rate(counts);
      m.throughput = starts ? 0.0 : throughput(counts, static_cast<double>(key.time_ns) - static_cast<double>(prev));
      prev = key.time_ns;
      if (from_start && m.time_ns < clock.start_ns()) ++early;
      else MSPROF_TRY(fn(m));
      return {};
    };
    std::optional<llc_key> row;  // the row being gathered, and its counts
    event_counts counts;
    llc_key key{};
    std::string_view payload;
    while (rows.next(key, payload) && key.tag < tags) {  // the model's tag list ends there
      if (!row || *row < key) {  // a new row (the keys come in order)
        if (row) MSPROF_TRY(emit(*row, counts));
        counts = {}, row = key;
      }
      payload_reader r{payload};
      const auto k = r.get<std::uint32_t>();
      counts[k] = r.get<std::uint64_t>();
    }
    MSPROF_TRY(rows.take_status());
    if (row) MSPROF_TRY(emit(*row, counts));
  }
  detail::slice_warnings(*r, prof::layout::llc, warnings);
  detail::left_out(warnings, prof_dir, bad_time, "llc sample(s) with a time outside the clock's range");
  detail::left_out(warnings, prof_dir, early, "LLC metric(s) from before the collection start (as the reference)");
  return {};
}

result<std::optional<table>> llc_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  struct sums {
    double hit = 0, throughput = 0;  // SQLite's double sums, in the table's order
    std::uint64_t n = 0;
  };
  struct device {
    std::string mode;
    std::map<std::uint32_t, sums> tags;
  };
  std::map<std::uint32_t, device> devices;
  MSPROF_TRY(for_each_llc_metric(prof_dir, false, warnings, [&](const llc_metric& m) -> result<void> {
    auto& d = devices[m.device_id];
    d.mode = m.mode;
    auto& s = d.tags[m.llc_id];
    s.hit += m.hit_rate;
    s.throughput += m.throughput;
    ++s.n;
    return {};
  }));
  if (devices.empty()) return std::optional<table>();
  table t;
  t.name = "llc_read_write";
  t.header = {"Device_id", "Mode", "Task", "Hit Rate(%)", "Throughput(MB/s)"};
  for (const auto& [dev, d] : devices) {
    // _get_llc_sql's round(AVG(..), 6) per tag, then _get_llc_result_data's Python rounds to 3.
    std::vector<std::pair<double, double>> avg;
    double hit_sum = 0, throughput_sum = 0;
    for (const auto& [tag, s] : d.tags) {
      const auto n = static_cast<double>(s.n);
      avg.emplace_back(sql_round(s.hit / n, 6), sql_round(s.throughput / n, 6));
      hit_sum += avg.back().first * 100;
      throughput_sum += avg.back().second;
    }
    const std::string id = std::to_string(dev);
    const auto tags = static_cast<double>(d.tags.size());
    t.rows.push_back({id, d.mode, "Average", py_round(hit_sum / tags, 3), py_round(throughput_sum / tags, 3)});
    std::size_t k = 0;
    for (const auto& [tag, s] : d.tags) {
      const auto& [hit, tp] = avg[k++];
      t.rows.push_back({id, d.mode, std::to_string(tag), py_round(hit * 100, 3), py_round(tp, 3)});
    }
  }
  return std::optional<table>(std::move(t));
}

std::vector<std::string> llc_modes(const std::string& prof_dir) {
  std::vector<std::string> modes;
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::llc) + ".data.", false);
  if (!r) return modes;
  for (const auto& d : r->devices()) {
    const std::string mode = d.sample.get("llc_profiling").as_string_or("");
    if ((mode == "read" || mode == "write") && parsed_chip(d.info.get("platform_version").as_string_or("")) &&
        std::find(modes.begin(), modes.end(), mode) == modes.end())
      modes.push_back(mode);
  }
  return modes;
}

result<void> db_window_writer::write_llc(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_llc_metric(prof_dir, true, warnings_, [&](const llc_metric& m) -> result<void> {
    if (!t) t = &rows_of("LLC");
    // SaveLlcData: the hit rate in %, the throughput in B/s, the mode's string id.
    t->row(m.device_id, m.llc_id, m.time_ns, m.hit_rate * 100, detail::db_bytes_per_s(m.throughput), ids_.id(m.mode));
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
