// SPDX-License-Identifier: MIT
// The names of a SoC JOB directory (docs/formats.md, "JOB directories"), in one
// place: the writer (job_writer.hpp) builds them, the reader
// (src/convert/soc/job.cpp) parses them with the same table.
//
//   <output>/JOB<8 of A-Z 0-9>/      one per device
//     info.json.<device>             device, pid, frequency, switches, status
//     data/<family>.data.<device>.slice_<N>   + <file>.done when finished
//     sqlite/ timeline/ summary/ log/        written by import, export, show
#ifndef MSPROF_PROF_JOB_LAYOUT_HPP
#define MSPROF_PROF_JOB_LAYOUT_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../codec/soc.hpp"
#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {
namespace job_layout {

inline constexpr char prefix[] = "JOB";
inline constexpr std::size_t id_chars = 8;  ///< A-Z and 0-9 after "JOB"
inline constexpr char data_dir[] = "data";
inline constexpr char info_json[] = "info.json";  ///< + ".<device>"
inline std::string info_file(std::uint32_t device) { return std::string(info_json) + "." + std::to_string(device); }
inline constexpr char sqlite_dir[] = "sqlite";
inline constexpr char timeline_dir[] = "timeline";
inline constexpr char summary_dir[] = "summary";
inline constexpr char log_dir[] = "log";
inline constexpr char done_suffix[] = ".done";

/// "JOB" followed by id_chars of A-Z, 0-9.
inline bool is_job_name(std::string_view n) {
  if (n.size() != sizeof prefix - 1 + id_chars || n.substr(0, sizeof prefix - 1) != prefix) return false;
  for (char c : n.substr(sizeof prefix - 1))
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

/// The slice families of data/, and the size of their records (0: variable).
enum class family { acl, task, aacore, desc };
struct family_info {
  family f;
  const char* name;
  std::size_t record_size;
};
inline constexpr family_info families[] = {
    {family::acl, "AclModule", sizeof(codec::soc::soc_acl_record)},
    {family::task, "TaskScheduler", sizeof(codec::soc::soc_task_record)},
    {family::aacore, "AAcore", sizeof(codec::soc::soc_aacore_record)},
    {family::desc, "ModelDesc", 0},
};
inline const family_info& info(family f) { return families[static_cast<int>(f)]; }

/// "<family>.data.<device>.slice_<index>"
inline std::string slice_file(family f, std::uint32_t device, std::uint32_t index) {
  return std::string(info(f).name) + ".data." + std::to_string(device) + ".slice_" + std::to_string(index);
}

struct slice_name {
  family f = family::acl;
  std::uint32_t device = 0;
  std::uint32_t index = 0;
};

/// The inverse of slice_file; nullopt for any other name (.done files included).
inline std::optional<slice_name> parse_slice(std::string_view n) {
  auto number = [](std::string_view s, std::uint32_t& out) {
    if (s.empty() || s.size() > 9) return false;
    std::uint32_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<std::uint32_t>(c - '0');
    }
    out = v;
    return true;
  };
  for (const auto& fi : families) {
    const std::string head = std::string(fi.name) + ".data.";
    if (n.substr(0, head.size()) != head) continue;
    std::string_view rest = n.substr(head.size());
    const std::size_t dot = rest.find(".slice_");
    if (dot == std::string_view::npos) return std::nullopt;
    slice_name s;
    s.f = fi.f;
    if (!number(rest.substr(0, dot), s.device) || !number(rest.substr(dot + 7), s.index)) return std::nullopt;
    return s;
  }
  return std::nullopt;
}

}  // namespace job_layout
}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_JOB_LAYOUT_HPP
