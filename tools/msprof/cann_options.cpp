// SPDX-License-Identifier: MIT
// CANN msprof's collection options (tools/msprof/cann_options.hpp).
#include "cann_options.hpp"

#include <algorithm>
#include <vector>

#include "args.hpp"

namespace msprof_cli {
namespace {

/// What CANN's msprof collects and msprof cannot here, said once per option.
constexpr const char* no_hardware = "not collected: no such hardware here";
constexpr const char* no_runtime = "not collected: no CANN runtime here (msprof records the program's mstx calls)";
constexpr const char* host_sys_part = "osrt is not collected (msprof samples the program's cpu, mem, disk and network)";

// Names, values and ranges: CANN's msprof --help and its input parser
// (docs/cli.md, "CANN's collection options", lists the sources).
constexpr cann_option cann_options[] = {
    // Reported by the CANN runtime, GE and HCCL inside the program.
    {"ascendcl", "on|off", no_runtime},
    {"runtime-api", "on|off", no_runtime},
    {"ge-api", "off|l0|l1", no_runtime},
    {"model-execution", "on|off", no_runtime},
    {"task-time", "on|off|l0|l1|l2|l3", no_runtime},
    {"task-trace", "on|off|l0|l1|l2|l3", no_runtime},
    {"task-memory", "on|off", no_runtime},
    {"aicore-shape", "on|off", no_runtime},
    {"hccl", "on|off", no_runtime},
    {"aicpu", "on|off", no_runtime},
    // Counted or sampled by the NPU.
    {"ai-core", "on|off", no_hardware},
    {"aic-mode", "task-based|sample-based", nullptr},
    {"aic-freq", "1..100", nullptr},
    {"ai-vector-core", "on|off", no_hardware},
    {"aiv-mode", "task-based|sample-based", nullptr},
    {"aiv-freq", "1..100", nullptr},
    {"aiv-metrics", "ArithmeticUtilization|PipeUtilization|Memory|MemoryL0|MemoryUB|ResourceConflictRatio", nullptr},
    {"task-tsfw", "on|off", no_hardware},
    {"task-block", "on|off|all", no_hardware},
    {"l2", "on|off", no_hardware},
    {"npu-events", "hex", nullptr},
    {"instr-profiling", "on|off", no_hardware},
    {"instr-profiling-freq", "300..30000", nullptr},
    {"sys-hardware-mem", "on|off", no_hardware},
    {"sys-hardware-mem-freq", "1..10000", nullptr},
    {"llc-profiling", "read|write|capacity|bandwidth", nullptr},
    {"sys-mem-serviceflow", "text", nullptr},
    {"sys-cpu-profiling", "on|off", no_hardware},
    {"sys-cpu-freq", "1..50", nullptr},
    {"sys-profiling", "on|off", no_hardware},
    {"sys-sampling-freq", "1..10", nullptr},
    {"sys-pid-profiling", "on|off", no_hardware},
    {"sys-pid-sampling-freq", "1..10", nullptr},
    {"sys-io-profiling", "on|off", no_hardware},
    {"sys-io-sampling-freq", "1..100", nullptr},
    {"sys-interconnection-profiling", "on|off", no_hardware},
    {"sys-interconnection-freq", "1..50", nullptr},
    {"dvpp-profiling", "on|off", no_hardware},
    {"dvpp-freq", "1..100", nullptr},
    {"sys-lp", "on|off", no_hardware},
    {"sys-lp-freq", "1..100", nullptr},
    {"sys-period", "1..2592000", nullptr},
    {"sys-devices", "devices", nullptr},
    {"optype", "text", nullptr},
    // The host system. cpu, mem, disk: the launched program's /proc files; network:
    // the machine's /proc/net/dev (msprof/prof/host_sampler.hpp). CANN samples osrt with perf and ltrace.
    {"host-sys", "list:cpu|mem|disk|network|osrt", host_sys_part, "cpu|mem|disk|network"},
    {"host-sys-pid", "pid", nullptr},  // CANN: without effect when it runs the program, as here
    {"host-sys-usage", "list:cpu|mem", nullptr},  // applied: the system's and the program's processes' usage
    {"host-sys-usage-freq", "1..50", nullptr},    // applied: the period of --host-sys and --host-sys-usage
    // Collection windows.
    {"dynamic", "on|off", nullptr},          // applied: start / stop / quit on stdin (dynamic.cpp)
    {"delay", "1..4294967295", nullptr},     // applied: MSPROF_DELAY
    {"duration", "1..4294967295", nullptr},  // applied: MSPROF_DURATION
};


}  // namespace

const cann_option* find_cann_option(const std::string& name) {
  for (const auto& o : cann_options)
    if (name == o.name) return &o;
  return nullptr;
}
const char* cann_note(const cann_option& o, const std::string& v) {
  if (o.note == nullptr || v == "off") return nullptr;
  if (o.collected == nullptr) return o.note;
  const auto collected = split(o.collected, '|');
  for (const auto& w : split(v, ','))
    if (std::find(collected.begin(), collected.end(), w) == collected.end()) return o.note;
  return nullptr;
}

/// "" when `v` is a value the spec of cann_option::values allows, else what it allows.
std::string cann_value_error(const std::string& spec, const std::string& v) {
  if (const auto dots = spec.find(".."); dots != std::string::npos) {
    const std::string lo = spec.substr(0, dots), hi = spec.substr(dots + 2);
    const auto n = parse_u32(v);
    if (n && *n >= *parse_u32(lo) && *n <= *parse_u32(hi)) return "";
    return "a number from " + lo + " to " + hi;
  }
  if (spec == "pid") return parse_u32(v) ? "" : "a process id";
  if (spec == "text")  // ';' separates the options in MSPROF_CANN_OPTIONS
    return !v.empty() && v.find(';') == std::string::npos ? "" : "a value without ';'";
  if (spec == "devices") {
    if (v == "all") return "";
    for (const auto& id : split(v, ','))
      if (!parse_u32(id) || *parse_u32(id) > 63) return "all or a comma list of device ids (0 to 63)";
    return "";
  }
  if (spec == "hex") {
    for (const auto& e : split(v, ','))
      if (e.size() < 3 || e.size() > 18 || e.compare(0, 2, "0x") != 0 ||
          e.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
        return "a comma list of hexadecimal event ids (0x...)";
    return "";
  }
  const bool list = spec.rfind("list:", 0) == 0;
  const auto allowed = split(list ? spec.substr(5) : spec, '|');
  for (const auto& w : list ? split(v, ',') : std::vector<std::string>{v})
    if (std::find(allowed.begin(), allowed.end(), w) == allowed.end())
      return (list ? "a comma list of " : "") + or_list(allowed);
  return "";
}

std::string cann_usage_lines() {
  std::string text;
  std::string line = "     ";
  for (const auto& o : cann_options) {
    std::string values = o.values;
    if (values.rfind("list:", 0) == 0) values = values.substr(5) + "[,...]";
    if (values == "devices") values = "all|<id>[,...]";
    if (values == "hex") values = "0x<event>[,...]";
    if (values == "pid" || values == "text") values = "<" + values + ">";
    const std::string item = std::string(" --") + o.name + "=" + values;
    if (line.size() + item.size() > 110) {
      text += line + "\n";
      line = "     ";
    }
    line += item;
  }
  return text + line + "\n";
  return text + line + "\n";
}

}  // namespace msprof_cli
