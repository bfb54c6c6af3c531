// SPDX-License-Identifier: MIT
// The host system's usage as the reference (9ba1ac7be) computes it from CANN's
// host slices: HostCpuUsagePresenter (host_cpu.data) and HostMemUsagePresenter
// (host_mem.data) with their Decimal arithmetic (exact here: integers in
// millionths, each usage quantized to 6 decimals, ties to even), the summaries
// of its Python path (get_host_prof_summary), and the points its C++ path
// (host_usage_processor.cpp) reads back from those tables.
#include "msprof/convert/host_usage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "msprof/convert/db.hpp"
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

}  // namespace

bool for_each_host_cpu_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<void(const host_cpu_usage&)>& out) {
  auto r = detail::open_for_slices(prof_dir, false, std::string(prof::layout::host_cpu) + ".data", false);
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
  auto r = detail::open_for_slices(prof_dir, false, std::string(prof::layout::host_mem) + ".data", false);
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
  if (!res) warnings.push_back(res.err().message);
  detail::slice_warnings(*r, prof::layout::host_mem, warnings);
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
  auto r = detail::open_for_slices(prof_dir, false, std::string(prof::layout::host_cpu) + ".data", false);
  table t{"host_cpu_usage", {"Device_id", "Total Cpu Numbers", "Occupied Cpu Numbers", "Recommend Cpu Numbers"}, {}};
  t.rows.push_back({"host", r ? info_text(*r, "cpuNums") : std::string(), std::to_string(peak.size()), std::to_string(used)});
  return t;
}

std::optional<table> host_mem_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<double> v, positive;  // a number per sample: the percentile needs them all
  for_each_host_mem_usage(prof_dir, warnings, [&](const host_mem_usage& u) { v.push_back(u.usage); });
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  for (double x : v)
    if (x > 0) positive.push_back(x);
  // Utils.percentile(data, 0.98, math.ceil) / 0.8
  const double recommend =
      positive.empty() ? 0.0 : positive[static_cast<std::size_t>(std::ceil(static_cast<double>(positive.size() - 1) * 0.98))] / 0.8;
  auto r = detail::open_for_slices(prof_dir, false, std::string(prof::layout::host_mem) + ".data", false);
  const double total = static_cast<double>(r ? info_number(*r, "memoryTotal").value_or(0) : 0);
  table t{"host_mem_usage", {"Device_id", "Total Memory(KB)", "Peak Used Memory(KB)", "Recommend Memory(KB)"}, {}};
  t.rows.push_back({"host", r ? info_text(*r, "memoryTotal") : std::string(), py_round(v.back() * total / 100, 3),
                    py_round(recommend * total / 100, 3)});
  return t;
}

result<void> for_each_host_usage(const std::string& prof_dir, bool memory, std::vector<std::string>& warnings,
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
    p.time_ns = static_cast<std::int64_t>(local_ns) + offset;
    return p.time_ns >= start ? fn(p) : result<void>{};  // FilterDataByStartTime
  };
  result<void> status;
  if (memory) {
    for_each_host_mem_usage(prof_dir, warnings, [&](const host_mem_usage& m) {
      p.usage = m.usage;
      if (status) status = emit(m.start);
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
      out.append(reinterpret_cast<const char*>(&c.start), sizeof c.start);
      out.append(reinterpret_cast<const char*>(&c.usage), sizeof c.usage);
      out.append(c.cpu);
    });
  });
  MSPROF_TRY(sorted.drain([&](const by_cpu&, std::string_view row) {
    std::uint64_t local_ns = 0;
    std::memcpy(&local_ns, row.data(), sizeof local_ns);
    std::memcpy(&p.usage, row.data() + sizeof local_ns, sizeof p.usage);
    p.cpu.assign(row.substr(sizeof local_ns + sizeof p.usage));
    if (status) status = emit(local_ns);
  }));
  return status;
}

/// CPU_USAGE (SaveCpuUsageData: Avg left out, the CPU a number) and HOST_MEM_USAGE.
result<void> db_window_writer::write_host_usage(const std::string& prof_dir) {
  for (const bool memory : {false, true}) {
    detail::table_writer* t = nullptr;
    MSPROF_TRY(for_each_host_usage(prof_dir, memory, warnings_, [&](const host_usage_point& p) -> result<void> {
      if (!memory && p.cpu == "Avg") return status_;
      if (!t) t = &rows_of(memory ? "HOST_MEM_USAGE" : "CPU_USAGE");
      if (memory) t->row(p.time_ns, p.usage);
      else t->row(p.time_ns, static_cast<std::uint64_t>(std::strtoull(p.cpu.c_str(), nullptr, 10)), p.usage);
      return status_;
    }));
    if (t) lap(*t);
  }
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
