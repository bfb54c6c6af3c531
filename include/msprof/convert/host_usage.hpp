// SPDX-License-Identifier: MIT
// The host system's usage as CANN samples it (msprof --host-sys=cpu,mem),
// read straight from the host's text slices host_cpu.data and host_mem.data
// (not part of the joined model): the CANN summaries host_cpu_usage and
// host_mem_usage, and the samples the timeline's processes "CPU Usage" and
// "Memory Usage" and the unified db's tables CPU_USAGE and HOST_MEM_USAGE
// show (docs/formats.md, "Host system usage").
#ifndef MSPROF_CONVERT_HOST_USAGE_HPP
#define MSPROF_CONVERT_HOST_USAGE_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "summary.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One CPU usage value as the reference computes it (HostCpuUsagePresenter)
/// between two neighbouring samples: `cpu` "Avg" (the application's threads
/// over every CPU of info.json's cpuNums) or a CPU number (the threads that
/// last ran on it); percent with 6 decimals. A CPU above 100% (a thread moved
/// between CPUs) is left out, as the reference does.
struct host_cpu_usage {
  std::uint64_t start = 0, end = 0;  ///< the two samples' host clock, ns
  std::string cpu;
  double usage = 0;
};

/// One memory usage value (HostMemUsagePresenter): the later sample's
/// resident pages times 4 KiB over info.json's memoryTotal (KiB), percent with
/// 6 decimals, from the earlier sample's time.
struct host_mem_usage {
  std::uint64_t start = 0, end = 0;
  double usage = 0;
};

/// Calls `fn` with the CPU usages of `prof_dir` in the reference's order (per
/// interval: the CPUs in order of their first thread, then Avg), as the
/// samples are read; false without host_cpu slices. Bad lines are added to
/// `warnings`, naming the file and offset.
bool for_each_host_cpu_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<void(const host_cpu_usage&)>& fn);

/// The same for the memory usages; false without host_mem slices or without
/// a memoryTotal (a warning).
bool for_each_host_mem_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                             const std::function<void(const host_mem_usage&)>& fn);

/// The CANN summary host_cpu_usage: one row "host", cpuNums, the CPUs with a
/// usage, the CPUs with a usage above 0. nullopt without host_cpu slices.
std::optional<table> host_cpu_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// The CANN summary host_mem_usage: one row "host", memoryTotal, the peak and
/// the recommended (the 98th percentile of the usages above 0, over 0.8) used
/// KiB, each Python's round(x, 3). nullopt without usages.
std::optional<table> host_mem_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// A usage as the reference's C++ path hands it to the timeline and the db
/// (HostCpuUsageProcessor, HostMemUsageProcessor): the interval's start on
/// the local clock (ns), those before the collection start left out; `cpu`
/// empty for memory. CPU usages come by CPU (Avg as 0), as its query orders them.
struct host_usage_point {
  std::int64_t time_ns = 0;
  std::string cpu;
  double usage = 0;
};

/// The CPU (`memory` false) or memory usages of `prof_dir` as host_usage_point.
result<void> for_each_host_usage(const std::string& prof_dir, bool memory, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const host_usage_point&)>& fn);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_HOST_USAGE_HPP
