// SPDX-License-Identifier: MIT
// What a profiler session collects (torch_npu's profile(...) arguments and
// experimental_config, MindSpore's Profiler options), and its validation.
// Names accept torch_npu's spellings: "Level0", "PipeUtilization",
// "ACL_AICORE_PIPE_UTILIZATION".
#ifndef MSPROF_SESSION_SESSION_CONFIG_HPP
#define MSPROF_SESSION_SESSION_CONFIG_HPP

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../collect/collector.hpp"
#include "buffer_options.hpp"
#include "output_path.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

enum class profiler_level : std::uint8_t { level_none, level0, level1, level2 };
enum class export_type : std::uint8_t { text, db };
/// What a window's directory looks like: CANN's PROF_ directory alone, or
/// torch_npu's `{worker}_{pid}_{ts}_ascend_pt/` (MindSpore's `_ascend_ms`)
/// holding it with FRAMEWORK/, profiler_info and profiler_metadata.json.
enum class output_layout : std::uint8_t { cann, ascend_pt, ascend_ms };

struct session_config {
  bool cpu = true;                       ///< activity CPU: host-side mstx, steps, API records
  bool npu = true;                       ///< activity NPU: the (simulated) device's tasks and metrics
  profiler_level level = profiler_level::level0;
  std::string aic_metrics = "PipeUtilization";  ///< canonical name (see aic_metrics_names)
  bool mstx = true;                      ///< collect mstx marks and ranges
  std::vector<std::string> mstx_domain_include, mstx_domain_exclude;
  bool record_shapes = false;            ///< tensor shapes of launched ops and record_function input shapes/dtypes
  bool with_stack = false;               ///< record_function call stacks (ascend_pt/ascend_ms layouts)
  bool profile_memory = false;           ///< allocator events, msprof::record_memory (ascend_pt/ascend_ms)
  /// experimental_config.host_sys, torch_npu's names (host_sys_names): "cpu",
  /// "mem", "disk" and "network" sample this process's /proc files (network:
  /// the machine's) while a window collects into its PROF_ directory's host
  /// usage slices (prof/host_sampler.hpp); "osrt" and "numa" are accepted and
  /// not collected (a warning at start).
  std::vector<std::string> host_sys;
  /// How often host_sys samples, in Hz: CANN's --host-sys-usage-freq (1..50,
  /// default 50: every 20 ms); torch_npu has no such setting. The period is
  /// 1000 / host_sys_usage_freq ms (prof::host_sampler::period_of).
  unsigned host_sys_usage_freq = 50;
  /// TensorFlow/GE training trace: steps become model executions on the device
  /// with FP start at op `fp_point` and BP end at op `bp_point` (empty: the
  /// step's first / last kernel); step_trace gets FP/BP and their bounds.
  bool training_trace = false;
  std::string fp_point, bp_point;
  output_layout layout = output_layout::cann;
  std::string worker_name;               ///< {worker} of an ascend_pt/ascend_ms directory; empty: the host name
  std::vector<export_type> export_types{export_type::text};
  bool data_simplification = true;       ///< exporters drop intermediate files
  std::string output = "./";             ///< parent of the PROF_ directories
  std::uint64_t storage_limit_mb = 0;    ///< 0 = unlimited
  std::chrono::milliseconds drain_interval{100};
  buffer_options buffers;                ///< per-thread size, total limit, what a full buffer does
  /// mstx marks and ranges staged compactly while collecting, turned into
  /// msproftx slices at stop (prof/staging.hpp; docs/configuration.md "Staging");
  /// false: written as msproftx records as the run goes.
  bool staging = true;
};

/// The AI Core metric groups, canonical name first, then torch_npu's constant.
inline constexpr std::array<std::array<std::string_view, 2>, 8> aic_metrics_names{{
    {"PipeUtilization", "ACL_AICORE_PIPE_UTILIZATION"},
    {"ArithmeticUtilization", "ACL_AICORE_ARITHMETIC_UTILIZATION"},
    {"Memory", "ACL_AICORE_MEMORY_BANDWIDTH"},
    {"MemoryL0", "ACL_AICORE_L0B_AND_WIDTH"},
    {"ResourceConflictRatio", "ACL_AICORE_RESOURCE_CONFLICT_RATIO"},
    {"MemoryUB", "ACL_AICORE_MEMORY_UB"},
    {"L2Cache", "ACL_AICORE_L2_CACHE"},
    {"AiCoreNone", "ACL_AICORE_NONE"},
}};

/// torch_npu's HostSystem values; msprof collects the first four (prof::host_sampler::parts).
inline constexpr std::array<std::string_view, 6> host_sys_names{"cpu", "mem", "disk", "network", "osrt", "numa"};

/// The warning for the host_sys entries that are accepted and not collected; empty when none.
inline std::string host_sys_not_collected(const session_config& c) {
  std::string names;
  for (const auto& n : c.host_sys)
    if (std::find(host_sys_names.begin(), host_sys_names.begin() + 4, n) == host_sys_names.begin() + 4 &&
        names.find(n) == std::string::npos)
      names += (names.empty() ? "" : ", ") + n;
  return names.empty() ? names
                       : "host_sys: " + names + " not collected (msprof samples this process's cpu, mem, disk and network)";
}

/// The canonical metric name for either spelling; empty when unknown.
inline std::string_view canonical_aic_metrics(std::string_view name) noexcept {
  for (const auto& n : aic_metrics_names)
    if (name == n[0] || name == n[1]) return n[0];
  return {};
}

inline std::optional<profiler_level> parse_profiler_level(std::string_view s) noexcept {
  if (s == "Level_none" || s == "LEVEL_NONE") return profiler_level::level_none;
  if (s == "Level0" || s == "LEVEL0") return profiler_level::level0;
  if (s == "Level1" || s == "LEVEL1") return profiler_level::level1;
  if (s == "Level2" || s == "LEVEL2") return profiler_level::level2;
  return std::nullopt;
}

constexpr std::string_view to_string(profiler_level l) noexcept {
  switch (l) {
    case profiler_level::level_none: return "Level_none";
    case profiler_level::level0: return "Level0";
    case profiler_level::level1: return "Level1";
    case profiler_level::level2: return "Level2";
  }
  return "?";
}

inline std::optional<output_layout> parse_output_layout(std::string_view s) noexcept {
  if (s == "cann" || s == "prof") return output_layout::cann;
  if (s == "ascend_pt") return output_layout::ascend_pt;
  if (s == "ascend_ms") return output_layout::ascend_ms;
  return std::nullopt;
}

constexpr std::string_view to_string(output_layout l) noexcept {
  switch (l) {
    case output_layout::cann: return "cann";
    case output_layout::ascend_pt: return "ascend_pt";
    case output_layout::ascend_ms: return "ascend_ms";
  }
  return "?";
}

/// Empty when `name` may be a directory's {worker} part (letters, digits, _ - .), else the reason.
inline std::string check_worker_name(std::string_view name) {
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
      return "worker_name '" + std::string(name) + "': character '" + std::string(1, c) +
             "' is not allowed (only letters, digits, _ - .)";
  if (name == "." || name == "..") return "worker_name '" + std::string(name) + "' is not a name";
  return {};
}

/// Checks a configuration; the message names the field and what it expects.
inline result<void> validate(const session_config& c) {
  if (!c.cpu && !c.npu) return make_error(errc::invalid_argument, "config: activities is empty (expected CPU and/or NPU)");
  if (canonical_aic_metrics(c.aic_metrics) != c.aic_metrics)
    return make_error(errc::invalid_argument, "config: aic_metrics '" + c.aic_metrics +
                                                  "' is not one of PipeUtilization, ArithmeticUtilization, Memory, "
                                                  "MemoryL0, ResourceConflictRatio, MemoryUB, L2Cache, AiCoreNone");
  if (c.export_types.empty()) return make_error(errc::invalid_argument, "config: export_type is empty (expected text and/or db)");
  if (auto bad = check_output_path(c.output); !bad.empty()) return make_error(errc::invalid_argument, "config: " + bad);
  if (auto bad = check_worker_name(c.worker_name); !bad.empty()) return make_error(errc::invalid_argument, "config: " + bad);
  for (const auto& n : c.host_sys)
    if (std::find(host_sys_names.begin(), host_sys_names.end(), n) == host_sys_names.end())
      return make_error(errc::invalid_argument,
                        "config: host_sys '" + n + "' is not one of cpu, mem, disk, network, osrt, numa");
  if (c.host_sys_usage_freq < 1 || c.host_sys_usage_freq > 50)
    return make_error(errc::invalid_argument,
                      "config: host_sys_usage_freq must be 1..50 (Hz), got " + std::to_string(c.host_sys_usage_freq));
  if (c.drain_interval.count() <= 0 || c.drain_interval.count() > 100000)
    return make_error(errc::invalid_argument, "config: drain interval must be 1..100000 ms");
  if ((c.buffers.ring_bytes != 0 && c.buffers.ring_bytes < min_buffer_bytes) ||
      (c.buffers.limit != 0 && c.buffers.limit < min_buffer_bytes))
    return make_error(errc::invalid_argument, "config: buffer sizes must be at least 4 KiB (0 = default)");
  if (auto bad = check_buffer_options(c.buffers); !bad.empty()) return make_error(errc::invalid_argument, "config: " + bad);
  return {};
}

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_SESSION_CONFIG_HPP
