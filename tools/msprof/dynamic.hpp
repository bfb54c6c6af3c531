// SPDX-License-Identifier: MIT
// `msprof --dynamic=on`: CANN's interactive start / stop / quit while the
// launched program runs (docs/cli.md, "Dynamic profiling").
#ifndef MSPROF_CLI_DYNAMIC_HPP
#define MSPROF_CLI_DYNAMIC_HPP

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <msprof/core/error.hpp>
#include <msprof/core/output_file.hpp>

namespace msprof_cli {

/// The launcher's side of the control file (tools/injection/dynamic_control.hpp):
/// created in the output directory before the program starts, removed at the end.
class dynamic_control {
 public:
  static msprof::result<dynamic_control> create(const msprof::outfile::dir& output);
  dynamic_control() = default;  // none (for result<>)
  dynamic_control(dynamic_control&& o) noexcept;
  dynamic_control(const dynamic_control&) = delete;
  dynamic_control& operator=(const dynamic_control&) = delete;
  dynamic_control& operator=(dynamic_control&&) = delete;
  ~dynamic_control();
  /// In the program's process, before exec: names the file in MSPROF_DYNAMIC_CONTROL
  /// and gives the program /dev/null as stdin (the commands on stdin are msprof's).
  void in_child() const;
  bool collecting() const noexcept { return generation_->load(std::memory_order_relaxed) % 2 == 1; }
  /// Start or stop collecting in every process of the run.
  void toggle() noexcept { generation_->fetch_add(1, std::memory_order_release); }

 private:
  std::string path_;
  void* mapping_ = nullptr;
  std::atomic<std::uint64_t>* generation_ = nullptr;
};

/// CANN's interactive mode: reads start / stop / quit (help) from stdin, one a
/// line, until quit, end of input, 30 minutes without a start, or the end of
/// `child`. Returns the child's wait status when it ended (it was reaped here),
/// else nullopt (the caller waits for it). `windows` counts the starts.
std::optional<int> interactive(pid_t child, dynamic_control& control, int& windows,
                               std::chrono::seconds idle_limit = std::chrono::minutes(30));

}  // namespace msprof_cli

#endif  // MSPROF_CLI_DYNAMIC_HPP
