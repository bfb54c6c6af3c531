// SPDX-License-Identifier: MIT
// `msprof --host-sys=cpu,mem`: the launched program's CPU and memory usage,
// sampled from /proc while it runs and written as CANN's host text slices
// host/data/host_cpu.data.slice_0 and host_mem.data.slice_0 (docs/formats.md,
// "Host system usage").
#ifndef MSPROF_CLI_HOST_SAMPLER_HPP
#define MSPROF_CLI_HOST_SAMPLER_HPP

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <msprof/core/error.hpp>

namespace msprof_cli {

/// One sampling thread for one process. The samples go to anonymous temporary
/// files (disk, not memory, however long the program runs): the PROF_
/// directories they belong to exist only once the program has collected.
class host_sampler {
 public:
  /// Samples `pid` and its descendants (the shell msprof runs the program
  /// with stays its parent): their threads' /proc/<p>/task/<tid>/stat for
  /// `cpu`, the sum of their /proc/<p>/statm for `mem`, every `period`, from
  /// now until stop(). The descendants are looked up every 100 ms.
  static msprof::result<std::unique_ptr<host_sampler>> start(pid_t pid, bool cpu, bool mem, std::chrono::milliseconds period);
  host_sampler(const host_sampler&) = delete;
  host_sampler& operator=(const host_sampler&) = delete;
  ~host_sampler();
  /// Ends the thread (at once: it waits on a condition, never sleeps blindly). Idempotent.
  void stop();
  /// Writes the samples into `prof_dir`/host/data/ as slice_0 of host_cpu.data
  /// and host_mem.data with their .done files (created through outfile: never
  /// through a link). After stop().
  msprof::result<void> write_into(const std::string& prof_dir) const;

 private:
  struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  using file_ptr = std::unique_ptr<std::FILE, file_closer>;
  host_sampler(pid_t pid, std::chrono::milliseconds period, file_ptr cpu, file_ptr mem);
  void run();
  void sample();
  std::vector<pid_t> process_tree();

  pid_t pid_;
  std::chrono::milliseconds period_;
  file_ptr cpu_, mem_;  // the spooled lines; null when not asked for
  std::string line_;  // reused buffer for one /proc read
  std::vector<pid_t> tree_;  // the program's processes: the one msprof started and its descendants
  std::chrono::steady_clock::time_point scanned_;
  std::mutex m_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace msprof_cli

#endif  // MSPROF_CLI_HOST_SAMPLER_HPP
