// SPDX-License-Identifier: MIT
// The host system's usage as CANN samples it (msprof
// --host-sys=cpu,mem,disk,network), read straight from the host's text slices
// host_cpu.data, host_mem.data, host_disk.data and host_network.data (not
// part of the joined model): the CANN summaries host_cpu_usage,
// host_mem_usage, host_disk_usage and host_network_usage, and the samples the
// timeline's processes "CPU Usage", "Memory Usage", "Disk Usage" and "Network
// Usage" and the unified db's tables CPU_USAGE, HOST_MEM_USAGE,
// HOST_DISK_USAGE and HOST_NETWORK_USAGE show (docs/formats.md, "Host system usage").
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

/// One disk usage row as the reference's HostDiskUsagePresenter stores it:
/// per line of iotop's, an interval of 1 / sample.json's host_disk_freq
/// seconds from its slice's start_time (Python floats: the next interval starts
/// at the sum), the read and write rates (KB/s) and the IO percentage.
struct host_disk_usage {
  double start = 0, end = 0;  ///< the host clock, ns
  double read = 0, write = 0, usage = 0;
};

/// One network usage row (HostNetworkUsagePresenter) between two neighbouring
/// samples of a slice: the bytes received and sent of the interfaces
/// info.json's netCard lists with a speed (not -1) that are in both samples
/// and whose counters did not go back, averaged over them, per second
/// (Decimal, 28 digits), percent of the speed of the later sample's last listed
/// interface (quantized to 6 decimals), and that rate times the interfaces in KB/s.
struct host_network_usage {
  double start = 0, end = 0;  ///< the host clock, ns (the seconds as floats, times 10^9)
  double usage = 0, speed = 0;
};

/// Calls `fn` with the disk usages of `prof_dir`, slice by slice; false
/// without host_disk slices. Without a positive host_disk_freq a warning and
/// no usages; bad lines are warnings naming the file and offset.
bool for_each_host_disk_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<void(const host_disk_usage&)>& fn);

/// The same for the network usages; false without host_network slices or
/// without a netCard list in info.json (a warning).
bool for_each_host_network_usage(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<void(const host_network_usage&)>& fn);

/// The CANN summary host_disk_usage: one row "host", the peak and recommended
/// (the 98th percentile of the values above 0, over 0.8) read and write rates
/// (KB/s) as Python prints floats, "N/A" without usages. nullopt without host_disk slices.
std::optional<table> host_disk_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// The CANN summary host_network_usage: one row "host", the listed
/// interfaces' speeds summed (KB/s), the peak and recommended rate (KB/s).
/// nullopt without host_network slices or netCard.
std::optional<table> host_network_usage_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// Which of the host's usages.
enum class host_usage_kind : std::uint8_t { cpu, memory, disk, network };

/// A usage as the reference's C++ path hands it to the timeline and the db
/// (HostCpuUsageProcessor, HostMemUsageProcessor, HostDiskUsageProcessor,
/// HostNetworkUsageProcessor): the interval's start on the local clock (ns,
/// the stored start's whole nanoseconds), those before the collection start left
/// out; `cpu` empty but for CPU usages, which come by CPU (Avg as 0), as its
/// query orders them; the rates of disk (KB/s) and network (`speed`, KB/s).
struct host_usage_point {
  std::int64_t time_ns = 0;
  std::string cpu;
  double usage = 0;
  double read_rate = 0, write_rate = 0, speed = 0;
};

/// The usages of `kind` of `prof_dir` as host_usage_point.
result<void> for_each_host_usage(const std::string& prof_dir, host_usage_kind kind, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const host_usage_point&)>& fn);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_HOST_USAGE_HPP
