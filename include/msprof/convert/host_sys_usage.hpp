// SPDX-License-Identifier: MIT
// The whole host's usage as CANN samples it with --host-sys-usage=cpu,mem,
// read straight from the host's text slices host_sys_cpu.data,
// host_sys_mem.data, <pid>-CpuUsage.data and <pid>-Memory.data (not part of
// the joined model): the CANN summaries cpu_usage, process_cpu_usage, sys_mem
// and process_mem (docs/formats.md, "Host system usage"). The reference makes
// no timeline process and no db table of them.
#ifndef MSPROF_CONVERT_HOST_SYS_USAGE_HPP
#define MSPROF_CONVERT_HOST_SYS_USAGE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "summary.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Which of the --host-sys-usage files a text is.
enum class host_sys_file : std::uint8_t { sys_cpu, pid_cpu, sys_mem, pid_mem };

/// A row of the reference's tables (ParsingCpuUsageData, ParsingMemoryData),
/// as its line matching makes them; a value it leaves NULL is nullopt.
struct host_sys_row {
  std::optional<std::int64_t> pid;       ///< the process (pid_cpu: its stat line; pid_mem: the file name)
  std::string name;                      ///< cpu: "cpu", "cpu0", ...; a process: ProcessName less its ':'
  std::vector<std::optional<double>> v;  ///< the values in the table's column order (below)
};

/// The rows of one slice `text` of kind `kind` (`file` names it in warnings),
/// in file order. The columns of `v`: sys_cpu user, nice, sys, idle, iowait,
/// irq, soft, steal, guest, gnice; pid_cpu utime, stime, cutime, cstime and
/// the system's CPU ticks (the sum of its "cpu" line); sys_mem MemTotal,
/// MemFree, Buffers, Cached, Shmem, CommitLimit, Committed_AS,
/// HugePages_Total, HugePages_Free; pid_mem size, resident, shared (pages).
/// `unit` gets sys_mem's first MemTotal unit ("kB"). A line that cannot be
/// read is a warning naming the file and its byte offset; where the reference
/// gives up on the rest of the file, so does this (a warning says so).
std::vector<host_sys_row> parse_host_sys_usage(host_sys_file kind, std::string_view text, const std::string& file,
                                               std::int64_t file_pid, std::vector<std::string>& warnings,
                                               std::string* unit = nullptr);

/// The CANN summaries of `prof_dir`'s --host-sys-usage slices, in the
/// reference's order: cpu_usage ("Device_id,Cpu Type,User(%),...", one row per
/// CPU type: "host"), process_cpu_usage (per process its CPU ticks' share of
/// the system's, averaged over its samples, busiest first), sys_mem (the
/// averages of /proc/meminfo's fields, whole numbers) and process_mem (per
/// process its averaged statm pages). Each only when its slices give rows.
std::vector<table> host_sys_usage_summaries(const std::string& prof_dir, std::vector<std::string>& warnings);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_HOST_SYS_USAGE_HPP
