// SPDX-License-Identifier: MIT
// The host system's usage as the reference (9ba1ac7be) computes it from CANN's
// host slices: HostCpuUsagePresenter (host_cpu.data) and HostMemUsagePresenter
// (host_mem.data) with their Decimal arithmetic (exact here: integers in
// millionths, each usage quantized to 6 decimals, ties to even),
// HostDiskUsagePresenter (host_disk.data, Python floats) and
// HostNetworkUsagePresenter (host_network.data, Decimal at its 28 digits), the
// summaries of its Python path (get_host_prof_summary), and the points its C++
// path (host_usage_processor.cpp) reads back from those tables.
#include "msprof/convert/host_usage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "msprof/convert/db.hpp"
#include "msprof/convert/py_decimal.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace {

__extension__ typedef __int128 i128;

/// num / den as Decimal.quantize(10^-6) (ties to even) makes it, as a double.
double quantize6(i128 num, i128 den) {
  const bool neg = (num < 0) != (den < 0);
  if (num < 0) num = -num;
  if (den < 0) den = -den;
  i128 q = num * 1000000 / den;
  const i128 rem2 = (num * 1000000 % den) * 2;
  if (rem2 > den || (rem2 == den && (q & 1))) ++q;
  const double v = static_cast<double>(q) / 1e6;
  return neg ? -v : v;
}

struct thread_times {
  std::int64_t pid = 0, jiffies = 0, cpu = 0;  // jiffies: utime + stime
};

/// One sample of host_cpu.data: its time, its uptime in clock ticks times
/// 10^6 (none before its uptime line), its threads in file order (a pid once,
/// at its first place, as a Python dict's key; `at` finds it).
struct cpu_sample {
  std::uint64_t time = 0;
  std::optional<i128> jiffies_e6;
  std::vector<thread_times> threads;
  std::unordered_map<std::int64_t, std::size_t> at;
  const thread_times* find(std::int64_t pid) const {
    const auto it = at.find(pid);
    return it == at.end() ? nullptr : &threads[it->second];
  }
  void add(const thread_times& t) {
    const auto [it, fresh] = at.emplace(t.pid, threads.size());
    if (fresh) threads.push_back(t);
    else threads[it->second] = t;
  }
};

/// _process_per_usage: per CPU (in order of its first thread) the threads'
/// ticks over the interval's, then Avg over every CPU.
void interval_usages(const cpu_sample& last, const cpu_sample& curr, std::int64_t cpu_nums,
                     const std::function<void(const host_cpu_usage&)>& out) {
  if (!last.jiffies_e6 || !curr.jiffies_e6) return;
  const i128 delta = *curr.jiffies_e6 - *last.jiffies_e6;
  if (delta == 0) return;
  std::vector<std::pair<std::int64_t, i128>> per_cpu;
  i128 total = 0;
  for (const auto& t : curr.threads) {
    const thread_times* before = last.find(t.pid);
    if (!before) continue;
    i128 ticks = static_cast<i128>(t.jiffies - before->jiffies) * 1000000;
    if (ticks > delta) ticks = delta;
    auto at = std::find_if(per_cpu.begin(), per_cpu.end(), [&](const auto& c) { return c.first == t.cpu; });
    if (at == per_cpu.end()) per_cpu.emplace_back(t.cpu, ticks);
    else at->second += ticks;
    total += ticks;
  }
  for (const auto& [cpu, ticks] : per_cpu) {
    const double usage = quantize6(ticks * 100, delta);
    if (usage > 100) continue;  // a thread that moved between CPUs counted twice
    out({last.time, curr.time, std::to_string(cpu), usage});
  }
  out({last.time, curr.time, "Avg", cpu_nums == 0 ? 0.0 : quantize6(total * 100, delta * cpu_nums)});
}

/// A whole number of host/info.json, or nullopt (the reference's value is then unusable).
std::optional<std::int64_t> info_number(const prof::prof_reader& r, const char* key) {
  std::int64_t v = 0;
  if (r.host().info.get(key).to_int64(v)) return v;
  return std::nullopt;
}

std::string info_text(const prof::prof_reader& r, const char* key) {
  const auto v = info_number(r, key);
  return v ? std::to_string(*v) : std::string();
}

/// A reader of `prof_dir` when it has host slices `stem` (host_cpu, host_mem, ...).
std::optional<prof::prof_reader> open_host(const std::string& prof_dir, const char* stem) {
  return detail::open_for_slices(prof_dir, false, std::string(stem) + ".data", false);
}

/// The error a read of the slices `stem` of `r` ended with, then the reader's warnings about them.
void read_warnings(const prof::prof_reader& r, const result<void>& read, const char* stem, std::vector<std::string>& warnings) {
  if (!read) warnings.push_back(read.err().message);
  detail::slice_warnings(r, stem, warnings);
}

/// Utils.percentile(the values above 0, 0.98, math.ceil) / 0.8 of the sorted `v`
/// (recommend_value_for_data_list).
double recommended(const std::vector<double>& v) {
  std::vector<double> positive;
  for (double x : v)
    if (x > 0) positive.push_back(x);
  if (positive.empty()) return 0.0;
  return positive[static_cast<std::size_t>(std::ceil(static_cast<double>(positive.size() - 1) * 0.98))] / 0.8;
}

/// get_recommend_value's [peak, recommended] of `v` as Python prints them, N/A without values.
std::vector<std::string> peak_and_recommended(std::vector<double>& v) {
  if (v.empty()) return {"N/A", "N/A"};
  std::sort(v.begin(), v.end());
  return {py_float(v.back()), py_float(recommended(v))};
}

// ---- the network usage

/// info.json's netCard as HostNetworkUsagePresenter reads it: the entries with
/// a speed other than -1 (Mbit/s), in order.
struct net_cards {
  std::vector<std::pair<std::string, std::int64_t>> listed;
  std::unordered_map<std::string, std::int64_t> speed;  // by name, the last entry's
};

std::optional<net_cards> read_net_cards(const prof::prof_reader& r, const std::string& prof_dir, std::vector<std::string>& warnings) {
  const json::value& list = r.host().info.get("netCard");
  if (!list.is_array()) {
    warnings.push_back(prof_dir + "/host/info.json: no netCard list; the host network usage is not computed");
    return std::nullopt;
  }
  net_cards c;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json::value& card = list.at(i);
    std::int64_t speed = 0;
    if (!card.get("speed").is_number() || !card.get("speed").to_int64(speed) || !card.get("netCardName").is_string()) {
      warnings.push_back(prof_dir + "/host/info.json: netCard " + std::to_string(i) +
                         " has no netCardName or no whole speed; left out of the host network usage");
      continue;
    }
    if (speed == -1) continue;  // unknown
    c.listed.emplace_back(card.get("netCardName").text(), speed);
    c.speed[card.get("netCardName").text()] = speed;
  }
  return c;
}

/// One sample of host_network.data: its time in seconds (float(ns) / 1e9; none
/// before the slice's first time line) and its listed interfaces' counters,
/// each at its first place (a Python dict's key).
struct net_sample {
  struct stat {
    std::string name;
    std::int64_t rx = 0, tx = 0;
  };
  std::optional<double> time;
  std::vector<stat> data;
  std::unordered_map<std::string, std::size_t> at;
  const stat* find(const std::string& name) const {
    const auto it = at.find(name);
    return it == at.end() ? nullptr : &data[it->second];
  }
  void put(const codec::HostNetLine& l) {
    const auto [it, fresh] = at.emplace(l.name, data.size());
    if (fresh) data.push_back({l.name, l.rx_bytes, l.tx_bytes});
    else data[it->second] = {l.name, l.rx_bytes, l.tx_bytes};
  }
};

/// write_per_usage between `last` and `curr`; `problem` words why an interval
/// the reference fails on (no time between the samples, a speed of 0, a usage
/// past Decimal's digits) is left out.
void net_interval(const net_sample& last, const net_sample& curr, const net_cards& cards,
                  const std::function<void(const std::string&)>& problem,
                  const std::function<void(const host_network_usage&)>& out) {
  __extension__ typedef __int128 i128;
  i128 total = 0;
  int n = 0;
  for (const auto& s : curr.data) {
    const net_sample::stat* before = last.find(s.name);
    if (!before) continue;
    const i128 rx = static_cast<i128>(s.rx) - before->rx, tx = static_cast<i128>(s.tx) - before->tx;
    if (rx < 0 || tx < 0) continue;  // a counter that went back (a reset)
    total += rx + tx;
    ++n;
  }
  if (n == 0 || !last.time || !curr.time) return;
  const double dur = *curr.time - *last.time;
  // The divisor is the speed of the sample's last interface (Python's loop variable), counted or not.
  const std::int64_t mbits = cards.speed.at(curr.data.back().name);
  if (dur == 0 || mbits == 0) {
    problem(dur == 0 ? "two samples at the same time" : "interface '" + curr.data.back().name + "' has speed 0");
    return;
  }
  const py_decimal avg = divide_digits(decimal_digits_of(static_cast<py_decimal_coef>(total)), 0, static_cast<py_decimal_coef>(n), false);
  // Decimal(dur) is the double exactly: m * 2^k.
  int k = 0;
  std::uint64_t m = static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(dur), &k), 53));
  k -= 53;
  for (; (m & 1) == 0; m >>= 1) ++k;
  const py_decimal speed = k < 0 ? divide_digits(scaled_digits(avg.coef, -k, 0), avg.exp, m, dur < 0)
                                 : divide_digits(scaled_digits(avg.coef, 0, k), avg.exp - k, m, dur < 0);  // / 2^k = * 5^k / 10^k
  const i128 bytes_per_s = static_cast<i128>(mbits) * 125000;  // Mbit/s → B/s
  auto usage = quantize(divide_digits(decimal_digits_of(speed.coef), speed.exp + 2,
                                     static_cast<py_decimal_coef>(bytes_per_s < 0 ? -bytes_per_s : bytes_per_s),
                                     speed.neg != (bytes_per_s < 0)),
                       6);
  if (!usage) {
    problem("a usage past Decimal's 28 digits");
    return;
  }
  usage->neg = usage->neg && usage->coef != 0;  // -0.000000 read back as 0
  out({*last.time * 1e9, *curr.time * 1e9, to_double(*usage), to_double(speed) * n / 1024.0});
}

}  // namespace

bool for_each_host_cpu_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<void(const host_cpu_usage&)>& out) {
  auto r = open_host(prof_dir, prof::layout::host_cpu);
  if (!r) return false;
  const auto clk = info_number(*r, "sysClockFreq");
  const std::int64_t cpu_nums = info_number(*r, "cpuNums").value_or(0);
  if (!clk) {
    warnings.push_back(prof_dir + "/host/info.json: no numeric sysClockFreq; the host CPU usage is not computed");
    return true;
  }
  std::optional<cpu_sample> last;
  cpu_sample curr;
  bool any = false, uptime_next = false;
  auto res = r->for_each_host_cpu_line([&](const codec::HostCpuLine& l, const codec::place& at) {
    if (l.kind == codec::HostCpuLine::time) {
      if (last) interval_usages(*last, curr, cpu_nums, out);
      if (any) last = std::move(curr);
      curr = cpu_sample{};
      curr.time = l.timestamp;
      any = uptime_next = true;
      return;
    }
    if (uptime_next != (l.kind == codec::HostCpuLine::uptime) || !any) {
      warnings.push_back(at.str() + ": a host CPU " + (l.kind == codec::HostCpuLine::uptime ? "uptime" : "thread") +
                         " line out of place (a sample is 'time', uptime, then thread lines); line skipped");
      return;
    }
    uptime_next = false;
    if (l.kind == codec::HostCpuLine::uptime) {
      curr.jiffies_e6 = static_cast<i128>(l.uptime_us) * *clk;
      return;
    }
    curr.add({l.pid, l.utime + l.stime, l.cpu});
  });
  if (!res) warnings.push_back(res.err().message);
  if (last && !curr.threads.empty() && !last->threads.empty()) interval_usages(*last, curr, cpu_nums, out);
  detail::slice_warnings(*r, prof::layout::host_cpu, warnings);
  return true;
}

bool for_each_host_mem_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<void(const host_mem_usage&)>& out) {
  auto r = open_host(prof_dir, prof::layout::host_mem);
  if (!r) return false;
  const auto total = info_number(*r, "memoryTotal");
  if (!total || *total <= 0) {
    warnings.push_back(prof_dir + "/host/info.json: no positive memoryTotal; the host memory usage is not computed");
    return false;
  }
  std::optional<std::uint64_t> last;
  auto res = r->for_each_host_mem_line([&](const codec::HostMemLine& l, const codec::place&) {
    const double usage = quantize6(static_cast<i128>(l.resident) * 4 * 100, *total);  // 4 KiB pages
    if (last) out({*last, l.timestamp, usage});
    last = l.timestamp;
  });
  read_warnings(*r, res, prof::layout::host_mem, warnings);
  return true;
}

std::optional<table> host_cpu_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::unordered_map<std::string, double> peak;  // per CPU, Avg aside
  if (!for_each_host_cpu_usage(prof_dir, warnings, [&](const host_cpu_usage& u) {
        if (u.cpu == "Avg") return;
        const auto [at, fresh] = peak.emplace(u.cpu, u.usage);
        if (!fresh) at->second = std::max(at->second, u.usage);
      }))
    return std::nullopt;
  const auto used = std::count_if(peak.begin(), peak.end(), [](const auto& p) { return p.second > 0; });
  auto r = open_host(prof_dir, prof::layout::host_cpu);
  table t{"host_cpu_usage", {"Device_id", "Total Cpu Numbers", "Occupied Cpu Numbers", "Recommend Cpu Numbers"}, {}};
  t.rows.push_back({"host", r ? info_text(*r, "cpuNums") : std::string(), std::to_string(peak.size()), std::to_string(used)});
  return t;
}

std::optional<table> host_mem_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<double> v;  // a number per sample: the percentile needs them all
  for_each_host_mem_usage(prof_dir, warnings, [&](const host_mem_usage& u) { v.push_back(u.usage); });
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const double recommend = recommended(v);
  auto r = open_host(prof_dir, prof::layout::host_mem);
  const double total = static_cast<double>(r ? info_number(*r, "memoryTotal").value_or(0) : 0);
  table t{"host_mem_usage", {"Device_id", "Total Memory(KB)", "Peak Used Memory(KB)", "Recommend Memory(KB)"}, {}};
  t.rows.push_back({"host", r ? info_text(*r, "memoryTotal") : std::string(), py_round(v.back() * total / 100, 3),
                    py_round(recommend * total / 100, 3)});
  return t;
}

bool for_each_host_disk_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<void(const host_disk_usage&)>& out) {
  auto r = open_host(prof_dir, prof::layout::host_disk);
  if (!r) return false;
  double freq = 0;
  const json::value& f = r->host().sample.get("host_disk_freq");
  if (!f.is_number() || !f.to_double(freq) || !(freq > 0)) {
    warnings.push_back(prof_dir + "/host/sample.json: no positive host_disk_freq; the host disk usage is not computed");
    return true;
  }
  const double interval = 1 / freq * 1e9;
  // The reference reads a slice whole and starts its rows at the slice's last
  // start_time line (0 without one): a first pass, through a reader of its own
  // (its warnings are the second pass's).
  std::unordered_map<std::string, double> start_of;
  if (auto first = open_host(prof_dir, prof::layout::host_disk))
    (void)first->for_each_host_disk_line([&](const codec::HostDiskLine& l, const codec::place& at) {
      if (l.kind == codec::HostDiskLine::start_time) start_of[std::string(at.file)] = l.start_ns;
    });
  std::string file;
  double end = 0;
  auto res = r->for_each_host_disk_line([&](const codec::HostDiskLine& l, const codec::place& at) {
    if (l.kind != codec::HostDiskLine::sample) return;
    if (at.file != file) {
      file = std::string(at.file);
      const auto it = start_of.find(file);
      end = it == start_of.end() ? 0.0 : it->second;
      if (it == start_of.end()) r->line_warning(at, "the slice has no start_time line; its times start at 0, as the reference's do");
    }
    if (l.flags & (codec::HostDiskLine::bad_read | codec::HostDiskLine::bad_write))
      r->line_warning(at, "a host disk read or write rate is not a number; counted as 0");
    if (l.flags & codec::HostDiskLine::unknown_unit)
      r->line_warning(at, "a host disk rate's unit is not B/s, K/s, M/s or G/s; counted as K/s");
    const double start = end;
    end = start + interval;
    out({start, end, l.read_kbs, l.write_kbs, l.io_percent});
  });
  read_warnings(*r, res, prof::layout::host_disk, warnings);
  return true;
}

bool for_each_host_network_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<void(const host_network_usage&)>& out) {
  auto r = open_host(prof_dir, prof::layout::host_network);
  if (!r) return false;
  const auto cards = read_net_cards(*r, prof_dir, warnings);
  if (!cards) return false;
  net_sample last, curr;  // each slice on its own, as the reference parses each file
  std::string file;
  codec::place where;
  const auto interval = [&] {
    if (last.time)
      net_interval(
          last, curr, *cards, [&](const std::string& why) { r->line_warning(where, why + "; the interval before it is left out"); },
          out);
  };
  const auto slice_end = [&] {
    if (!curr.data.empty()) interval();
    last = curr = net_sample{};
  };
  auto res = r->for_each_host_net_line([&](const codec::HostNetLine& l, const codec::place& at) {
    if (at.file != file) {
      slice_end();
      file = std::string(at.file);
    }
    where = codec::place{file, at.offset};
    if (l.kind == codec::HostNetLine::time) {
      interval();
      last = std::move(curr);
      curr = net_sample{};
      curr.time = static_cast<double>(l.timestamp) / 1e9;
    } else if (l.kind != codec::HostNetLine::other && cards->speed.count(l.name) != 0) {
      if (l.kind == codec::HostNetLine::interface) curr.put(l);
      else r->line_warning(at, "host network interface '" + l.name + "': its counters are not integers; line skipped");
    }
  });
  slice_end();
  read_warnings(*r, res, prof::layout::host_network, warnings);
  return true;
}

std::optional<table> host_disk_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<double> read, write;
  if (!for_each_host_disk_usage(prof_dir, warnings, [&](const host_disk_usage& u) {
        read.push_back(u.read);
        write.push_back(u.write);
      }))
    return std::nullopt;
  table t{"host_disk_usage",
          {"Device_id", "Peak Disk Read(KB/s)", "Recommend Disk Read(KB/s)", "Peak Disk Write(KB/s)", "Recommend Disk Write(KB/s)"},
          {}};
  const auto r = peak_and_recommended(read), w = peak_and_recommended(write);
  t.rows.push_back({"host", r[0], r[1], w[0], w[1]});
  return t;
}

std::optional<table> host_network_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<double> speed;
  if (!for_each_host_network_usage(prof_dir, warnings, [&](const host_network_usage& u) { speed.push_back(u.speed); }))
    return std::nullopt;
  auto r = open_host(prof_dir, prof::layout::host_network);
  std::vector<std::string> ignored;
  const auto cards = r ? read_net_cards(*r, prof_dir, ignored) : std::nullopt;
  // compute_netcard_speed: Python's int 0, plus each listed speed * 125000 / 1024.0 (KB/s)
  std::string total = "0";
  if (cards && !cards->listed.empty()) {
    __extension__ typedef __int128 i128;
    double sum = 0;
    for (const auto& c : cards->listed) sum += static_cast<double>(static_cast<i128>(c.second) * 125000) / 1024.0;
    total = py_float(sum);
  }
  table t{"host_network_usage", {"Device_id", "Netcard Speed(KB/s)", "Peak Used Speed(KB/s)", "Recommend Speed(KB/s)"}, {}};
  const auto p = peak_and_recommended(speed);
  t.rows.push_back({"host", total, p[0], p[1]});
  return t;
}

result<void> for_each_host_usage(const std::string& prof_dir, host_usage_kind kind, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const host_usage_point&)>& fn) {
  auto r = prof::prof_reader::open(prof_dir, [] {
    prof::reader_options o;
    o.max_dictionary_bytes = 0;
    return o;
  }());
  if (!r) return {};
  const std::int64_t offset = r->host().wall_offset_ns();
  const std::int64_t start = offset + static_cast<std::int64_t>(r->host().start_monotonic_raw_ns);
  host_usage_point p;
  auto emit = [&](std::uint64_t local_ns) -> result<void> {
    if (local_ns > static_cast<std::uint64_t>(INT64_MAX) || __builtin_add_overflow(static_cast<std::int64_t>(local_ns), offset, &p.time_ns))
      return {};
    return p.time_ns >= start ? fn(p) : result<void>{};  // FilterDataByStartTime
  };
  // A start the Python path stored as a float in a NUMERIC column, read back
  // as an integer: its whole nanoseconds (SQLite's conversion; none past int64).
  auto emit_stored = [&](double start_ns) -> result<void> {
    if (!(start_ns > -1) || !(start_ns < 9223372036854775807.0)) return {};
    return emit(static_cast<std::uint64_t>(static_cast<std::int64_t>(start_ns)));
  };
  result<void> status;
  switch (kind) {
    case host_usage_kind::cpu:
      break;
    case host_usage_kind::memory:
      for_each_host_mem_usage(prof_dir, warnings, [&](const host_mem_usage& m) {
        p.usage = m.usage;
        if (status) status = emit(m.start);
      });
      return status;
    case host_usage_kind::disk:
      for_each_host_disk_usage(prof_dir, warnings, [&](const host_disk_usage& d) {
        p.usage = d.usage;
        p.read_rate = d.read;
        p.write_rate = d.write;
        if (status) status = emit_stored(d.start);
      });
      return status;
    case host_usage_kind::network:
      for_each_host_network_usage(prof_dir, warnings, [&](const host_network_usage& n) {
        p.usage = n.usage;
        p.speed = n.speed;
        if (status) status = emit_stored(n.start);
      });
      return status;
  }
  // ORDER BY CAST(cpu_no AS DECIMAL): Avg casts to 0; SQLite's sort keeps
  // equal keys in table order, as the sorter does (spilled past its budget).
  struct by_cpu {
    double cpu;
    bool operator<(const by_cpu& o) const { return cpu < o.cpu; }
  };
  spill_sorter<by_cpu> sorted(prof_dir);
  for_each_host_cpu_usage(prof_dir, warnings, [&](const host_cpu_usage& c) {
    sorted.push_with({std::strtod(c.cpu.c_str(), nullptr)}, [&](std::string& out) {
      put(out, c.start);
      put(out, c.usage);
      out.append(c.cpu);
    });
  });
  MSPROF_TRY(sorted.drain([&](const by_cpu&, std::string_view row) {
    payload_reader r{row};
    const auto local_ns = r.get<std::uint64_t>();
    p.usage = r.get<decltype(p.usage)>();
    p.cpu.assign(r.in);
    if (status) status = emit(local_ns);
  }));
  return status;
}

/// CPU_USAGE (SaveCpuUsageData: Avg left out, the CPU a number), HOST_MEM_USAGE,
/// HOST_DISK_USAGE and HOST_NETWORK_USAGE (SaveHostDiskUsageData,
/// SaveHostNetworkUsageData: the rates from KB/s to B/s, times 1024).
result<void> db_window_writer::write_host_usage(const std::string& prof_dir) {
  using k = host_usage_kind;
  for (const k kind : {k::cpu, k::memory, k::disk, k::network}) {
    detail::table_writer* t = nullptr;
    MSPROF_TRY(for_each_host_usage(prof_dir, kind, warnings_, [&](const host_usage_point& p) -> result<void> {
      if (kind == k::cpu && p.cpu == "Avg") return status_;
      if (!t)
        t = &rows_of(kind == k::cpu ? "CPU_USAGE" : kind == k::memory ? "HOST_MEM_USAGE" : kind == k::disk ? "HOST_DISK_USAGE" : "HOST_NETWORK_USAGE");
      switch (kind) {
        case k::cpu:
          t->row(p.time_ns, static_cast<std::uint64_t>(std::strtoull(p.cpu.c_str(), nullptr, 10)), p.usage);
          break;
        case k::memory:
          t->row(p.time_ns, p.usage);
          break;
        case k::disk:
          t->row(p.time_ns, p.read_rate * 1024, p.write_rate * 1024, p.usage);
          break;
        case k::network:
          t->row(p.time_ns, p.usage, p.speed * 1024);
          break;
      }
      return status_;
    }));
    if (t) lap(*t);
  }
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
