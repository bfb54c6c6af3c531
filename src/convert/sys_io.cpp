// SPDX-License-Identifier: MIT
// The CANN summary pcie as the reference (9ba1ac7be) exports it
// (ParsingPcieData, InterConnectionView.get_pcie_summary_data): on chip "5"
// the sample with the latest timestamp (the first of equal ones), on its other
// chips SQLite's ROUND(AVG(x), 6) of each value over the samples whose Tx_p
// maximum is not below its minimum; a bandwidth in bytes/µs times 10^6 / 2^20
// (MB/s), the latency in ns / 1000 (µs), each Python's round(x, 3); a minimum
// of 0xFFFFF (the counter's "no value") shown as 0. Chips the reference's
// parser does not read PCIe of (7, 8, 11) have none.
// The CANN summary hccs as it exports it (ParsingHCCSData, HccsModel,
// InterConnectionView.get_hccs_data): the samples of all slices by time; for
// each neighbouring pair (and the last with the first) a throughput when
// neither counter went down, then the last throughput dropped when there is
// more than one; max, min and average of each direction through SQLite's
// ROUND(x, 3), as Python prints the double.
// The CANN summary nic as it exports it (ParsingNicData, NicModel,
// get_peripheral_nic_data): one row per port, its quirks in docs/formats.md;
// roce the same way (ParsingRoceData, RoceModel), from the same line format.
#include "msprof/convert/sys_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/py_decimal.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace sys_io_detail {

constexpr std::uint32_t no_min = 0xFFFFF;
constexpr double mb_per_s = 1e6 / (1024.0 * 1024.0);  // of 1 byte/µs

struct pcie_mode {
  codec::PcieSample::metric metric;
  const char* name;
  bool latency;
};
constexpr pcie_mode pcie_modes[] = {
    {codec::PcieSample::tx_p, "Tx_p_avg(MB/s)", false},       {codec::PcieSample::tx_np, "Tx_np_avg(MB/s)", false},
    {codec::PcieSample::tx_cpl, "Tx_cpl_avg(MB/s)", false},   {codec::PcieSample::tx_np_latency, "Tx_latency_avg(us)", true},
    {codec::PcieSample::rx_p, "Rx_p_avg(MB/s)", false},       {codec::PcieSample::rx_np, "Rx_np_avg(MB/s)", false},
    {codec::PcieSample::rx_cpl, "Rx_cpl_avg(MB/s)", false},
};

std::string pcie_cell(double v, bool latency) {
  return py_round3(latency ? v / 1000 : v * mb_per_s);
}

/// Whether the reference reads device `d`'s PCIe samples: ParsingPcieData's
/// chips (data_parsers_config.py); a device of another chip that has samples
/// gets one warning naming its info.json.
result<bool> reads_pcie(prof::prof_reader& r, const std::string& prof_dir, const prof::device_info& d,
                        std::vector<std::string>& warnings) {
  static constexpr std::string_view chips[] = {"0", "1", "2", "3", "4", "5", "15", "16"};
  const std::string chip = d.info.get("platform_version").as_string_or("");
  if (std::find(std::begin(chips), std::end(chips), chip) != std::end(chips)) return true;
  std::uint64_t samples = 0;
  MSPROF_TRY(r.for_each_pcie(d.id, [&](const codec::PcieSample&, const codec::place&) { ++samples; }));
  if (samples)
    warnings.push_back(prof_dir + "/" + prof::layout::device_dir(d.id) + "/" +
                       prof::layout::for_device(prof::layout::info_json, d.id) + ": chip \"" + chip +
                       "\" (platform_version) is not one whose PCIe data the reference reads; no PCIe data for device " +
                       std::to_string(d.id));
  return false;
}

/// SQLite's MAX, MIN and AVG (its double sum over the count, 3.40) of the
/// values added, each through ROUND(x, 3), as Python prints them.
struct max_min_avg {
  double mx = 0, mn = 0, sum = 0;
  std::size_t n = 0;
  void add(double x) {
    mx = n == 0 ? x : std::max(mx, x);
    mn = n == 0 ? x : std::min(mn, x);
    sum += x;
    ++n;
  }
  std::vector<std::string> cells() const {
    return {py_float(sql_round3(mx)), py_float(sql_round3(mn)), py_float(sql_round3(sum / static_cast<double>(n)))};
  }
};

/// A REAL the reference stores in a TEXT column and reads back through float()
/// (SQLite keeps 15 significant digits), then round(x, 3) as Python prints it.
std::string text_round3(double v) { return py_round3(std::strtod(fmt::format("{:.15g}", v).c_str(), nullptr)); }

/// The NIC summary's Timestamp(us): the duration (ns, a REAL in a TEXT column)
/// through the reference's trans_into_local_time: Decimal(text) / 1000 plus
/// Decimal(str(offset_us)), quantized to 3 decimals (half-even), then a TAB.
std::string nic_time_cell(double duration_ns, double offset_us) {
  __extension__ typedef __int128 i128;
  const double dur = std::fabs(duration_ns);
  if (!(dur < 1e18) || !(std::fabs(offset_us) < 1e18)) return fmt::format("{:.3f}\t", duration_ns / 1000 + offset_us);
  const auto scaled = [](std::pair<std::uint64_t, int> v, int shift) {  // v in units of 10^-shift
    i128 x = v.first;
    for (int e = v.second + shift; e > 0; --e) x *= 10;
    for (int e = v.second + shift; e < 0; ++e) x /= 10;  // digits past 10^-9 µs: none for these inputs
    return x;
  };
  // Both in 10^-9 µs: the duration's ns in 10^-6 ns.
  i128 sum = scaled(decimal_digits(fmt::format("{:.15g}", dur)), 6) * (duration_ns < 0 ? -1 : 1) +
             scaled(decimal_digits(fmt::format("{}", std::fabs(offset_us))), 9) * (offset_us < 0 ? -1 : 1);
  const bool neg = sum < 0;
  i128 a = neg ? -sum : sum, q = a / 1000000;
  const i128 rem = a % 1000000;
  if (rem > 500000 || (rem == 500000 && (q & 1))) ++q;
  std::string digits;
  for (int i = 0; q != 0 || i < 4; ++i, q /= 10) {
    if (i == 3) digits += '.';
    digits += static_cast<char>('0' + static_cast<int>(q % 10));
  }
  if (neg) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits + '\t';
}

}  // namespace sys_io_detail

double decimal_quotient3(std::int64_t bytes, double time) {
  if (!(time != 0) || !std::isfinite(time)) return 0;  // Decimal raises on x / 0: float_calculate's "0"
  // The divisor as Python's str() gives it: the shortest digits that read back as `time`.
  return float_calculate_quotient({py_decimal::of_int(bytes), py_decimal::of_text(fmt::format("{}", time))});
}

namespace sys_io_detail {

/// One throughput of the reference's HccsModel: the later sample's time (ns, as read) and MB/s.
struct hccs_rate {
  double timestamp;
  double tx, rx;
};

/// Calls fn(const hccs_rate&) with the throughputs of a device's hccs slices,
/// their samples by time (through a spill sorter: memory bounded, not one
/// sample each): for each neighbouring pair (and the last with the first, as
/// the reference's zip) a throughput when neither counter went down, then
/// the last dropped when there is more than one, whichever pair it came from.
template <class Fn>
result<void> for_each_hccs_rate(prof::prof_reader& r, const std::string& prof_dir, std::uint32_t device, Fn&& fn) {
  constexpr double byte_ns_to_mb_s = 1e9 / 1024.0 / 1024.0;
  struct by_time {
    double timestamp;
    bool operator<(const by_time& o) const { return timestamp < o.timestamp; }
  };
  spill_sorter<by_time> sorted(prof_dir);
  MSPROF_TRY(r.for_each_hccs(device, [&](const codec::HccsSample& s, const codec::place&) {
    sorted.push({s.timestamp}, bytes_of(s));
  }));
  std::optional<codec::HccsSample> first, cur;
  std::optional<hccs_rate> held;  // the newest throughput: the last is dropped when there are more
  std::size_t rates = 0;
  auto pair = [&](const codec::HccsSample& a, const codec::HccsSample& next) {
    if (next.tx < a.tx || next.rx < a.rx) return;  // a counter that went down (wrapped): no throughput
    if (held) fn(*held);
    const double time = (next.timestamp - a.timestamp) / byte_ns_to_mb_s;
    held = hccs_rate{next.timestamp, decimal_quotient3(next.tx - a.tx, time), decimal_quotient3(next.rx - a.rx, time)};
    ++rates;
  };
  by_time key{};
  std::string_view row;
  while (sorted.next(key, row)) {
    auto s = from_bytes<codec::HccsSample>(row);
    if (cur) pair(*cur, s);
    else first = s;
    cur = s;
  }
  MSPROF_TRY(sorted.take_status());
  if (cur) pair(*cur, *first);
  if (held && rates == 1) fn(*held);
  return {};
}

}  // namespace sys_io_detail

result<std::optional<table>> hccs_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  using namespace sys_io_detail;
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::hccs) + ".data.", false);
  if (!r) return std::optional<table>();
  table t;
  t.name = "hccs";
  t.header = {"Device_id", "Mode", "Max", "Min", "Average"};
  for (const auto& d : r->devices()) {
    max_min_avg tx, rx;
    MSPROF_TRY(for_each_hccs_rate(*r, prof_dir, d.id, [&](const hccs_rate& x) { tx.add(x.tx), rx.add(x.rx); }));
    if (tx.n == 0) continue;
    for (const auto& [mode, v] : {std::pair{"Tx (MB/s)", &tx}, std::pair{"Rx (MB/s)", &rx}}) {
      t.rows.push_back({std::to_string(d.id), mode});
      for (auto& c : v->cells()) t.rows.back().push_back(std::move(c));
    }
  }
  detail::slice_warnings(*r, prof::layout::hccs, warnings);
  if (t.rows.empty()) return std::optional<table>();
  return std::optional<table>(std::move(t));
}

result<void> for_each_hccs_throughput(const std::string& prof_dir, std::vector<std::string>& warnings,
                                      const std::function<result<void>(const hccs_throughput&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::hccs) + ".data.", false);
  if (!r) return {};
  detail::local_times local(prof_dir, r->host());
  for (const auto& d : r->devices()) {
    result<void> status;
    MSPROF_TRY(sys_io_detail::for_each_hccs_rate(*r, prof_dir, d.id, [&](const sys_io_detail::hccs_rate& x) {
      if (const auto t = local(d, x.timestamp); t && status) status = fn(hccs_throughput{d.id, *t, x.tx, x.rx});
    }));
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, prof::layout::hccs, warnings);
  local.warn(warnings, prof_dir, "hccs throughput(s)");
  return {};
}

/// HCCS: the throughputs of for_each_hccs_throughput in B/s (db_bytes_per_s).
result<void> db_window_writer::write_hccs(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  const auto b_s = detail::db_bytes_per_s;
  MSPROF_TRY(for_each_hccs_throughput(prof_dir, warnings_, [&](const hccs_throughput& h) -> result<void> {
    if (!t) t = &rows_of("HCCS");
    t->row(h.device_id, h.time_ns, b_s(h.tx_mb_s), b_s(h.rx_mb_s));
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

result<void> for_each_pcie_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                  const std::function<result<void>(const pcie_sample&)>& fn) {
  using P = codec::PcieSample;
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::pcie) + ".data.", false);
  if (!r) return {};
  detail::local_times local(prof_dir, r->host());
  result<void> status;
  std::uint64_t inverted = 0;
  for (const auto& d : r->devices()) {
    auto read = sys_io_detail::reads_pcie(*r, prof_dir, d, warnings);
    if (!read) return read.err();
    if (!*read) continue;
    pcie_sample s;
    s.device_id = d.id;  // the reference's parser writes the directory's id, not the sample's
    MSPROF_TRY(r->for_each_pcie(d.id, [&](const P& raw, const codec::place&) {
      if (!status) return;
      if (raw.value(P::tx_p, P::max) < raw.value(P::tx_p, P::min)) {  // the reference's query: WHERE max >= min
        ++inverted;
        return;
      }
      const auto t = local(d, static_cast<double>(raw.timestamp));
      if (!t) return;
      s.time_ns = *t;
      s.values = raw;
      for (unsigned m = 0; m < P::metric_count; ++m)
        if (m != P::tx_np_latency)  // B/µs -> B/s in the reference's uint32 fields
          for (unsigned k = 0; k < 3; ++k)
            s.values.values[m * 3 + k] = static_cast<std::uint32_t>(std::uint64_t{raw.values[m * 3 + k]} * 1000000u);
      status = fn(s);
    }));
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, prof::layout::pcie, warnings);
  local.warn(warnings, prof_dir, "pcie sample(s)");
  detail::left_out(warnings, prof_dir, inverted,
                          "pcie sample(s) whose Tx_p maximum is below its minimum (as the reference's timeline and db)");
  return {};
}

/// PCIE: the samples of for_each_pcie_sample, bandwidths in B/s, latencies in ns.
result<void> db_window_writer::write_pcie(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_pcie_sample(prof_dir, warnings_, [&](const pcie_sample& p) -> result<void> {
    if (!t) t = &rows_of("PCIE");
    const auto* v = p.values.values;
    t->row(p.device_id, p.time_ns, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
           v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20]);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

result<std::optional<table>> pcie_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  using namespace sys_io_detail;
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::pcie) + ".data.", false);
  if (!r) return std::optional<table>();
  using P = codec::PcieSample;
  std::map<std::uint32_t, std::array<double, P::metric_count * 3>> shown;  // by device id
  std::uint64_t inverted = 0;
  for (const auto& d : r->devices()) {
    auto read = reads_pcie(*r, prof_dir, d, warnings);
    if (!read) return read.err();
    if (!*read) continue;
    if (d.info.get("platform_version").as_string_or("") == "5") {
      std::optional<P> latest;
      MSPROF_TRY(r->for_each_pcie(d.id, [&](const P& s, const codec::place&) {
        if (!latest || s.timestamp > latest->timestamp) latest = s;
      }));
      if (latest) std::copy(std::begin(latest->values), std::end(latest->values), shown[d.id].begin());
      continue;
    }
    // SQLite 3.40's AVG of integers: their sum in doubles, in file order, over the count.
    std::array<double, P::metric_count * 3> sum{};
    std::uint64_t n = 0;
    MSPROF_TRY(r->for_each_pcie(d.id, [&](const P& s, const codec::place&) {
      if (s.value(P::tx_p, P::max) < s.value(P::tx_p, P::min)) return void(++inverted);
      for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += s.values[k];
      ++n;
    }));
    if (n == 0) continue;  // the reference's query gives NULLs, and its summary fails
    auto& avg = shown[d.id];
    for (std::size_t k = 0; k < sum.size(); ++k) avg[k] = sql_round(sum[k] / static_cast<double>(n), 6);
  }
  detail::slice_warnings(*r, prof::layout::pcie, warnings);
  detail::left_out(warnings, prof_dir, inverted,
                   "pcie sample(s) whose Tx_p maximum is below its minimum (as the reference's summary off chip 5)");
  if (shown.empty()) return std::optional<table>();
  table t;
  t.name = "pcie";
  t.header = {"Device_id", "Mode", "Min", "Max", "Avg"};
  for (const auto& [dev, v] : shown)
    for (const auto& m : pcie_modes) {
      const double min = v[m.metric * 3 + P::min];
      t.rows.push_back({std::to_string(dev), m.name, pcie_cell(min == no_min ? 0 : min, m.latency),
                        pcie_cell(v[m.metric * 3 + P::max], m.latency), pcie_cell(v[m.metric * 3 + P::avg], m.latency)});
    }
  return std::optional<table>(std::move(t));
}

}  // namespace convert
MSPROF_END_NAMESPACE

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace sys_io_detail {

/// The summary nic or roce (`stem`): the two are made alike.
result<std::optional<table>> network_summary(const std::string& prof_dir, const char* stem, std::vector<std::string>& warnings) {
  using S = codec::NicSample;
  auto r = detail::open_for_slices(prof_dir, true, std::string(stem) + ".data.", false);
  if (!r) return std::optional<table>();
  table t;
  t.name = stem;
  t.header = {"Device_id", "Timestamp(us)", "Bandwidth(MB/s)", "Rx Bandwidth efficiency(%)", "rxPacket/s",
              "rxError rate(%)", "rxDropped rate(%)", "Tx Bandwidth efficiency(%)", "txPacket/s", "txError rate(%)",
              "txDropped rate(%)", "funcId"};
  struct port {  // one func id's samples, summed as they are read
    std::int64_t func = 0;
    S first;
    std::size_t n = 0;
    double tmin = 0, tmax = 0, sum[S::fields] = {}, hi[S::fields] = {}, lo[S::fields] = {};
  };
  for (const auto& d : r->devices()) {
    std::vector<port> ports;  // in order of first sample, as SELECT DISTINCT
    double rx_errors_all = 0;  // the rxError rate averages over every port (the reference's query has no funcId)
    std::size_t samples = 0;
    MSPROF_TRY(r->for_each_network(d.id, stem, [&](const S& s, const codec::place&) {
      ++samples;
      rx_errors_all += s.v[S::rx_errors];
      auto p = std::find_if(ports.begin(), ports.end(), [&](const port& q) { return q.func == s.func_id; });
      if (p == ports.end()) {
        p = ports.insert(ports.end(), port{s.func_id, s, 0, s.timestamp, s.timestamp, {}, {}, {}});
        std::copy(std::begin(s.v), std::end(s.v), p->hi);
        std::copy(std::begin(s.v), std::end(s.v), p->lo);
      }
      ++p->n;
      p->tmin = std::min(p->tmin, s.timestamp);
      p->tmax = std::max(p->tmax, s.timestamp);
      for (int k = 0; k < S::fields; ++k) {
        p->sum[k] += s.v[k];
        p->hi[k] = std::max(p->hi[k], s.v[k]);
        p->lo[k] = std::min(p->lo[k], s.v[k]);
      }
    }));
    if (samples == 0) continue;
    const auto offset = detail::device_local_offset_us(prof_dir, d, std::string(stem) + " rows", warnings);
    if (!offset) continue;
    const double offset_us = *offset;
    rx_errors_all /= static_cast<double>(samples);
    for (const port& p : ports) {
      const S& first = p.first;
      const std::int64_t func = p.func;
      const auto rate100 = [](double x, double packets) { return py_round_value(py_round_value(x / packets, 3) * 100, 3); };
      double duration = 0, rx_bw = 0, tx_bw = 0, rx_packet = 0, tx_packet = 0, rx_err = 0, rx_drop = 0, tx_err = 0, tx_drop = 0;
      if (p.n == 1) {  // the first sample's own counts
        rx_packet = first.v[S::rx_packet_s];
        tx_packet = first.v[S::tx_packet_s];
        if (first.v[S::rx_packets] != 0) {
          rx_err = py_round_value(first.v[S::rx_errors] / first.v[S::rx_packets], 3);
          rx_drop = py_round_value(first.v[S::rx_dropped] / first.v[S::rx_packets], 3);
        }
        if (first.v[S::tx_packets] != 0) {
          tx_err = py_round_value(first.v[S::tx_errors] / first.v[S::tx_packets], 3);
          tx_drop = py_round_value(first.v[S::tx_dropped] / first.v[S::tx_packets], 3);
        }
      } else {
        const double* sum = p.sum;
        duration = py_round_value(p.tmax - p.tmin, 3);
        const double n = static_cast<double>(p.n);
        double rx_sum = 0, tx_sum = 0;  // packets/s summed over the samples
        if (duration != 0) {
          if (first.bandwidth != 0) {
            const double per_s = duration * static_cast<double>(first.bandwidth) * 1024 * 1024;
            rx_bw = py_round_value((std::trunc(p.hi[S::rx_bytes]) - std::trunc(p.lo[S::rx_bytes])) * 8 / per_s, 3);
            tx_bw = py_round_value((std::trunc(p.hi[S::tx_bytes]) - std::trunc(p.lo[S::tx_bytes])) * 8 / per_s, 3);
          }
          rx_sum = sum[S::rx_packet_s];
          tx_sum = sum[S::tx_packet_s];
          rx_packet = py_round_value(rx_sum / duration, 3);
          tx_packet = py_round_value(tx_sum / duration, 3);
        }
        if (rx_sum != 0) {
          rx_err = rate100(rx_errors_all, rx_sum);
          rx_drop = rate100(sum[S::rx_dropped] / n, rx_sum);
        }
        if (tx_sum != 0) {
          tx_err = rate100(sum[S::tx_errors] / n, tx_sum);
          tx_drop = rate100(sum[S::tx_dropped], tx_sum);  // a sum, not an average, as the reference has it
        }
      }
      t.rows.push_back({std::to_string(d.id), nic_time_cell(duration, offset_us),
                        text_round3(static_cast<double>(first.bandwidth)), text_round3(rx_bw), text_round3(rx_packet),
                        text_round3(rx_err), text_round3(rx_drop), text_round3(tx_bw), text_round3(tx_packet),
                        text_round3(tx_err), text_round3(tx_drop), std::to_string(func)});
    }
  }
  detail::slice_warnings(*r, stem, warnings);
  if (t.rows.empty()) return std::optional<table>();
  return std::optional<table>(std::move(t));
}

}  // namespace sys_io_detail

result<void> for_each_network_sample(const std::string& prof_dir, const char* stem, std::vector<std::string>& warnings,
                                     const std::function<result<void>(const network_sample&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(stem) + ".data.", false);
  if (!r) return {};
  detail::local_times local(prof_dir, r->host());
  result<void> status;
  for (const auto& d : r->devices()) {
    network_sample s;
    s.device_id = d.id;
    MSPROF_TRY(r->for_each_network(d.id, stem, [&](const codec::NicSample& n, const codec::place&) {
      if (!status) return;
      const auto t = local(d, n.timestamp);
      if (!t) return;
      s.time_ns = *t;
      s.values = n;
      status = fn(s);
    }));
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, stem, warnings);
  local.warn(warnings, prof_dir, std::string(stem) + " sample(s)");
  return {};
}

result<void> for_each_network_rate(const std::string& prof_dir, const char* stem, std::vector<std::string>& warnings,
                                   const std::function<result<void>(const network_rate&)>& fn) {
  using S = codec::NicSample;
  auto r = detail::open_for_slices(prof_dir, true, std::string(stem) + ".data.", false);
  if (!r) return {};
  const bool roce = std::string(stem) == prof::layout::roce;
  detail::local_times local(prof_dir, r->host());
  std::uint64_t no_bandwidth = 0;
  // SQLite's REAL a / b (NULL for b = 0), then the models' "or 0".
  const auto ratio = [](double a, double b) { return b == 0 ? 0.0 : a / b; };
  // Ports in order of their first sample, as SELECT DISTINCT: a first pass
  // finds them, then one pass per port over a second reader (whose warnings
  // would repeat the first's) gives its points, holding no samples.
  auto again = detail::open_for_slices(prof_dir, true, std::string(stem) + ".data.", false);
  if (!again) return {};
  struct port {
    std::int64_t func = 0, first_bandwidth = 0, rows = 0;
    bool any_bandwidth = false;  ///< a sample with a non-zero bandwidth, so a point
  };
  for (const auto& d : r->devices()) {
    std::vector<port> ports;
    MSPROF_TRY(r->for_each_network(d.id, stem, [&](const S& s, const codec::place&) {
      auto p = std::find_if(ports.begin(), ports.end(), [&](const port& q) { return q.func == s.func_id; });
      if (p == ports.end()) p = ports.insert(ports.end(), port{s.func_id, s.bandwidth, 0, false});
      ++p->rows;
      p->any_bandwidth = p->any_bandwidth || (roce ? p->first_bandwidth : s.bandwidth) != 0;
    }));
    for (const port& p : ports) {
      if (!p.any_bandwidth) {
        no_bandwidth += static_cast<std::uint64_t>(p.rows);
        continue;
      }
      result<void> status;
      MSPROF_TRY(again->for_each_network(d.id, stem, [&](const S& s, const codec::place&) {
        const std::int64_t bandwidth = roce ? p.first_bandwidth : s.bandwidth;
        if (!status || s.func_id != p.func || bandwidth == 0) return;
        const auto t = local(d, s.timestamp);
        if (!t) return;
        const double per_s = static_cast<double>(bandwidth) * 1024 * 1024;
        network_rate n;
        n.device_id = d.id;
        n.time_ns = *t;
        n.func_id = static_cast<std::uint16_t>(static_cast<std::uint32_t>(p.func));  // sqlite3_column_int into uint16
        n.rx_efficiency = py_round_value(std::trunc(s.v[S::rx_byte_s]) * 8 / per_s, 3);
        n.tx_efficiency = py_round_value(std::trunc(s.v[S::tx_byte_s]) * 8 / per_s, 3);
        n.rx_packets = s.v[S::rx_packet_s];
        n.tx_packets = s.v[S::tx_packet_s];
        n.rx_error = ratio(s.v[S::rx_errors], s.v[S::rx_packets]);
        n.rx_dropped = ratio(s.v[S::rx_dropped], s.v[S::rx_packets]);
        n.tx_error = ratio(s.v[S::tx_errors], s.v[S::tx_packets]);
        n.tx_dropped = ratio(s.v[S::tx_dropped], s.v[S::tx_packets]);
        status = fn(n);
      }));
      MSPROF_TRY(status);
    }
  }
  detail::slice_warnings(*r, stem, warnings);
  local.warn(warnings, prof_dir, std::string(stem) + " timeline point(s)");
  detail::left_out(warnings, prof_dir, no_bandwidth,
                          std::string(stem) + " sample(s) of ports without a bandwidth (the reference's model fails on them)");
  return {};
}

namespace sys_io_detail {

/// A REAL column read into the reference's uint32 field: SQLite's
/// sqlite3_column_int64 (truncated, saturated), then cast (modulo 2^32).
std::uint32_t column_u32(double v) {
  std::int64_t i = 0;
  if (v >= 9.2233720368547758e18) i = std::numeric_limits<std::int64_t>::max();
  else if (v <= -9.2233720368547758e18) i = std::numeric_limits<std::int64_t>::min();
  else if (v == v) i = static_cast<std::int64_t>(v);
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(i));
}

}  // namespace sys_io_detail

/// NIC or ROCE (`table`) from the slices `stem`: the reference's
/// SaveSysIOData of its uint32/uint16/double fields, the bandwidth MB/s × 2^20.
result<void> db_window_writer::write_network(const std::string& prof_dir, const char* stem, const char* table) {
  using S = codec::NicSample;
  using sys_io_detail::column_u32;
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_network_sample(prof_dir, stem, warnings_, [&](const network_sample& n) -> result<void> {
    if (!t) t = &rows_of(table);
    const double* v = n.values.v;
    const std::uint64_t bandwidth = static_cast<std::uint32_t>(n.values.bandwidth) * std::uint64_t{1024 * 1024};
    const auto func = static_cast<std::uint16_t>(static_cast<std::uint32_t>(n.values.func_id));  // sqlite3_column_int
    t->row(n.device_id, n.time_ns, bandwidth, v[S::rx_packet_s], v[S::rx_byte_s], column_u32(v[S::rx_packets]),
           column_u32(v[S::rx_bytes]), column_u32(v[S::rx_errors]), column_u32(v[S::rx_dropped]), v[S::tx_packet_s],
           v[S::tx_byte_s], column_u32(v[S::tx_packets]), column_u32(v[S::tx_bytes]), column_u32(v[S::tx_errors]),
           column_u32(v[S::tx_dropped]), func);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

result<std::optional<table>> nic_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  return sys_io_detail::network_summary(prof_dir, prof::layout::nic, warnings);
}

result<std::optional<table>> roce_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  return sys_io_detail::network_summary(prof_dir, prof::layout::roce, warnings);
}

}  // namespace convert
MSPROF_END_NAMESPACE
