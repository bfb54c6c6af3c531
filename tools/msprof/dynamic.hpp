// SPDX-License-Identifier: MIT
// `msprof --dynamic=on`: CANN's interactive start / stop / quit while the
// launched program runs (docs/cli.md, "Dynamic profiling").
#ifndef MSPROF_CLI_DYNAMIC_HPP
#define MSPROF_CLI_DYNAMIC_HPP

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <msprof/core/error.hpp>
#include <msprof/core/output_file.hpp>

namespace msprof_cli {

/// msprof's side of the control file (tools/injection/dynamic_control.hpp).
class dynamic_control {
 public:
  /// Launch mode: made in the output directory before the program starts, removed at the end.
  static msprof::result<dynamic_control> create(const msprof::outfile::dir& output);
  /// Attach mode: the file of process `pid` (started with PROFILING_MODE=dynamic),
  /// held locked (one msprof at a time), told to collect into `output`.
  static msprof::result<dynamic_control> attach(pid_t pid, const std::string& output);
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
  /// Attach mode: waits until the process has acted on the last command (its last
  /// collection closed) or has ended; false after `limit`.
  bool wait_acted(pid_t pid, std::chrono::seconds limit) const;

 private:
  std::string path_;
  bool owned_ = false;  // launch mode: ours to remove
  int fd_ = -1;         // attach mode: held for its lock
  void* mapping_ = nullptr;
  std::atomic<std::uint64_t>* generation_ = nullptr;
};

/// CANN's interactive mode: reads start / stop / quit (help) from stdin, one a
/// line, until quit, end of input, 30 minutes without a start, or the end of the
/// program, which `ended` says (looked at every 100 ms: its wait status, or
/// nullopt while it runs). Returns what `ended` returned, or nullopt when the
/// program still runs (`on_leave` says what happens next). `windows` counts the starts.
std::optional<int> interactive(const std::function<std::optional<int>()>& ended, dynamic_control& control,
                               int& windows, const std::string& on_leave,
                               std::chrono::seconds idle_limit = std::chrono::minutes(30));

/// True while process `pid` runs (a zombie has ended).
bool process_alive(pid_t pid);

}  // namespace msprof_cli

#endif  // MSPROF_CLI_DYNAMIC_HPP
