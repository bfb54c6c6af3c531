// SPDX-License-Identifier: MIT
// AI Core metric groups: which PMU events CANN programs for each group on
// Ascend910B, and the metrics Huawei's parser derives from them. One table for
// the simulated device (which counters to draw) and the converters (op_summary
// columns and values), so that neither has per-group code.
//
// Facts (docs/simulated-device.md, "AI Core metric groups"):
// - the event lists are CANN's for Ascend910B (collector PlatformAdapterCloudV2:
//   AI Core and AI Vector lists are the same except PipeUtilization, whose AI
//   Core side is written to sample.json as "PipeUtilizationExct");
// - a calculator is what the parser (msprof 9ba1ac7be, C++) computes for a
//   sample.json metrics name: its metrics in the parser's header order, each a
//   formula over one or more events.
#ifndef MSPROF_CODEC_AIC_METRICS_HPP
#define MSPROF_CODEC_AIC_METRICS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {
namespace aic_metrics {

/// How a metric is computed from its events (the parser's formula kinds).
enum class formula : std::uint8_t {
  ratio,        ///< sum(event) / total cycles
  time,         ///< task time (µs) * ratio
  miss_rate,    ///< (events[0] / cycles) / (events[1] / cycles); 0 when either is 0
  bandwidth,    ///< event * width * scale / (cycles / aic Hz) / 2^33 (GB/s)
  count,        ///< sum(event), a plain number
  fops,         ///< sum(event * weight); 0 without cycles
  data,         ///< sum(event * weight), also without cycles (a negative weight subtracts)
};

struct metric {
  std::string_view name;                ///< the parser's column stem ("mac_ratio_extra")
  formula kind;
  std::array<std::uint16_t, 5> events;  ///< the first n are used
  std::uint8_t n;
  std::array<double, 5> weight{};       ///< fops: per event; bandwidth: {width, scale}
};

/// What the parser computes for one sample.json metrics name.
struct calculator {
  std::string_view name;  ///< "PipeUtilization", "PipeUtilizationExct", ...
  const metric* metrics;
  std::size_t size;
};

/// What a counter measures: the simulated device draws it from the task's load
/// of that kind (docs/simulated-device.md).
enum class load : std::uint8_t {
  cube,         ///< cube unit busy / executing (AI Core only)
  vector,       ///< vector unit busy / executing (mostly AI Vector)
  scalar,       ///< scalar unit
  mte_in,       ///< moves from global memory (MTE2, GM reads)
  mte_out,      ///< moves to global memory (MTE3, fixpipe, GM writes)
  local,        ///< moves between on-core buffers (MTE1, L0/L1)
  conflict,     ///< stalls and conflicts
  icache_req,   ///< instruction cache requests
  icache_miss,  ///< instruction cache misses (<= requests)
};

struct event {
  std::uint16_t id;
  load kind;
  double share;  ///< part of that load the counter shows (shares of summed events add up to <= 1)
};

/// A user-facing metric group and the counters CANN programs for it.
struct group {
  std::string_view name;      ///< "PipeUtilization" (session / launcher / torch_npu name)
  std::string_view aic_calc;  ///< sample.json ai_core_metrics
  std::string_view aiv_calc;  ///< sample.json aiv_metrics
  std::string_view aic_events, aiv_events;  ///< sample.json *_profiling_events
};

namespace detail {
using f = formula;
inline constexpr metric pipe[] = {
    {"vec_time", f::time, {0x8}, 1},           {"vec_ratio", f::ratio, {0x8}, 1},
    {"mac_time", f::time, {0xa}, 1},           {"mac_ratio", f::ratio, {0xa}, 1},
    {"scalar_time", f::time, {0x9}, 1},        {"scalar_ratio", f::ratio, {0x9}, 1},
    {"mte1_time", f::time, {0xb}, 1},          {"mte1_ratio", f::ratio, {0xb}, 1},
    {"mte2_time", f::time, {0xc}, 1},          {"mte2_ratio", f::ratio, {0xc}, 1},
    {"mte3_time", f::time, {0xd}, 1},          {"mte3_ratio", f::ratio, {0xd}, 1},
    {"icache_miss_rate", f::miss_rate, {0x55, 0x54}, 2},
};
inline constexpr metric pipe_exct[] = {
    {"mac_time", f::time, {0x416, 0x417}, 2},  {"mac_ratio_extra", f::ratio, {0x416, 0x417}, 2},
    {"scalar_time", f::time, {0x9}, 1},        {"scalar_ratio", f::ratio, {0x9}, 1},
    {"mte1_time", f::time, {0x302}, 1},        {"mte1_ratio_extra", f::ratio, {0x302}, 1},
    {"mte2_time", f::time, {0xc}, 1},          {"mte2_ratio", f::ratio, {0xc}, 1},
    {"fixpipe_time", f::time, {0x303}, 1},     {"fixpipe_ratio", f::ratio, {0x303}, 1},
    {"icache_miss_rate", f::miss_rate, {0x55, 0x54}, 2},
};
inline constexpr metric arith[] = {
    {"mac_fp16_ratio", f::ratio, {0x49}, 1},
    {"mac_int8_ratio", f::ratio, {0x4a}, 1},
    {"vec_fp32_ratio", f::ratio, {0x4b}, 1},
    {"vec_fp16_ratio", f::ratio, {0x4c, 0x4d}, 2},
    {"vec_int32_ratio", f::ratio, {0x4e}, 1},
    {"vec_misc_ratio", f::ratio, {0x4f}, 1},
    {"cube_fops", f::fops, {0x49, 0x4a}, 2, {8192, 16384}},
    {"vector_fops", f::fops, {0x4c, 0x4d, 0x4b, 0x4e, 0x4f}, 5, {128, 64, 64, 64, 32}},
};
inline constexpr metric memory[] = {
    {"ub_read_bw", f::bandwidth, {0x15}, 1, {256, 4}},      {"ub_write_bw", f::bandwidth, {0x16}, 1, {256, 4}},
    {"l1_read_bw", f::bandwidth, {0x31}, 1, {256, 16}},     {"l1_write_bw", f::bandwidth, {0x32}, 1, {128, 8}},
    {"main_mem_read_bw", f::bandwidth, {0x12}, 1, {8, 8}},  {"main_mem_write_bw", f::bandwidth, {0x13}, 1, {8, 8}},
    {"l2_read_bw", f::bandwidth, {0xf}, 1, {256, 8}},       {"l2_write_bw", f::bandwidth, {0x10}, 1, {256, 8}},
};
inline constexpr metric memory_l0[] = {
    {"l0a_read_bw", f::bandwidth, {0x1b}, 1, {256, 16}},      {"l0a_write_bw", f::bandwidth, {0x1c}, 1, {256, 16}},
    {"l0b_read_bw", f::bandwidth, {0x21}, 1, {256, 16}},      {"l0b_write_bw", f::bandwidth, {0x22}, 1, {256, 8}},
    {"l0c_read_bw", f::bandwidth, {0x27}, 1, {256, 8}},       {"l0c_write_bw", f::bandwidth, {0x29}, 1, {256, 8}},
    {"l0c_read_bw_cube", f::bandwidth, {0x28}, 1, {256, 32}}, {"l0c_write_bw_cube", f::bandwidth, {0x2a}, 1, {256, 32}},
};
inline constexpr metric memory_ub[] = {
    {"ub_read_bw_vector", f::bandwidth, {0x43}, 1, {128, 2}},
    {"ub_write_bw_vector", f::bandwidth, {0x44}, 1, {128, 2}},
    {"ub_read_bw_scalar", f::bandwidth, {0x37}, 1, {128, 1}},
    {"ub_write_bw_scalar", f::bandwidth, {0x38}, 1, {128, 1}},
};
inline constexpr metric conflict[] = {
    {"vec_bankgroup_cflt_ratio", f::ratio, {0x64}, 1},
    {"vec_bank_cflt_ratio", f::ratio, {0x65}, 1},
    {"vec_resc_cflt_ratio", f::ratio, {0x66}, 1},
};
inline constexpr metric l2_cache[] = {
    {"write_cache_hit", f::count, {0x500}, 1},   {"write_cache_miss_allocate", f::count, {0x502}, 1},
    {"r0_read_cache_hit", f::count, {0x504}, 1}, {"r0_read_cache_miss_allocate", f::count, {0x506}, 1},
    {"r1_read_cache_hit", f::count, {0x508}, 1}, {"r1_read_cache_miss_allocate", f::count, {0x50a}, 1},
};
inline constexpr metric memory_access[] = {
    {"read_main_memory_datas", f::data, {0x50d, 0x50e}, 2, {0.125, 0.125}},
    {"write_main_memory_datas", f::data, {0x50c}, 1, {0.125}},
    {"GM_to_L1_datas", f::data, {0x32, 0x206}, 2, {0.25, -0.25}},
    {"L0C_to_L1_datas", f::data, {0x206}, 1, {0.125}},
    {"L0C_to_GM_datas", f::data, {0x20c, 0x206}, 2, {0.125, -0.125}},
    {"GM_to_UB_datas", f::data, {0x3e}, 1, {0.125}},
    {"UB_to_GM_datas", f::data, {0x3d}, 1, {0.125}},
};
template <std::size_t N>
constexpr calculator calc(std::string_view name, const metric (&m)[N]) {
  return {name, m, N};
}
}  // namespace detail

/// The parser's calculators for chip 5 (Ascend910B).
inline constexpr calculator calculators[] = {
    detail::calc("PipeUtilization", detail::pipe),
    detail::calc("PipeUtilizationExct", detail::pipe_exct),
    detail::calc("ArithmeticUtilization", detail::arith),
    detail::calc("Memory", detail::memory),
    detail::calc("MemoryL0", detail::memory_l0),
    detail::calc("MemoryUB", detail::memory_ub),
    detail::calc("ResourceConflictRatio", detail::conflict),
    detail::calc("L2Cache", detail::l2_cache),
    detail::calc("MemoryAccess", detail::memory_access),
};

/// CANN's groups on Ascend910B (AiCoreNone programs no counters), and MemoryAccess.
inline constexpr group groups[] = {
    {"PipeUtilization", "PipeUtilizationExct", "PipeUtilization", "0x416,0x417,0x9,0x302,0xc,0x303,0x54,0x55",
     "0x8,0xa,0x9,0xb,0xc,0xd,0x54,0x55"},
    {"ArithmeticUtilization", "ArithmeticUtilization", "ArithmeticUtilization", "0x49,0x4a,0x4b,0x4c,0x4d,0x4e,0x4f",
     "0x49,0x4a,0x4b,0x4c,0x4d,0x4e,0x4f"},
    {"Memory", "Memory", "Memory", "0x15,0x16,0x31,0x32,0xf,0x10,0x12,0x13", "0x15,0x16,0x31,0x32,0xf,0x10,0x12,0x13"},
    {"MemoryL0", "MemoryL0", "MemoryL0", "0x1b,0x1c,0x21,0x22,0x27,0x28,0x29,0x2a", "0x1b,0x1c,0x21,0x22,0x27,0x28,0x29,0x2a"},
    {"ResourceConflictRatio", "ResourceConflictRatio", "ResourceConflictRatio", "0x64,0x65,0x66", "0x64,0x65,0x66"},
    {"MemoryUB", "MemoryUB", "MemoryUB", "0x10,0x13,0x37,0x38,0x3d,0x3e,0x43,0x44", "0x10,0x13,0x37,0x38,0x3d,0x3e,0x43,0x44"},
    {"L2Cache", "L2Cache", "L2Cache", "0x500,0x502,0x504,0x506,0x508,0x50a", "0x500,0x502,0x504,0x506,0x508,0x50a"},
    {"AiCoreNone", "", "", "", ""},
    // Not in CANN's 910B table, but the parser computes it on this chip: the
    // events in the order its calculator names them (docs/simulated-device.md).
    {"MemoryAccess", "MemoryAccess", "MemoryAccess", "0x50d,0x50e,0x50c,0x32,0x206,0x20c,0x3e,0x3d",
     "0x50d,0x50e,0x50c,0x32,0x206,0x20c,0x3e,0x3d"},
};

/// Every event any group programs, with what the simulated device draws for it.
inline constexpr event events[] = {
    {0x8, load::vector, 1},       {0x9, load::scalar, 1},       {0xa, load::cube, 1},         {0xb, load::local, 1},
    {0xc, load::mte_in, 1},       {0xd, load::mte_out, 1},      {0xf, load::mte_in, 0.8},     {0x10, load::mte_out, 0.8},
    {0x12, load::mte_in, 0.6},    {0x13, load::mte_out, 0.6},   {0x15, load::vector, 0.5},    {0x16, load::vector, 0.4},
    {0x1b, load::local, 0.5},     {0x1c, load::local, 0.4},     {0x21, load::local, 0.5},     {0x22, load::local, 0.4},
    {0x27, load::vector, 0.2},    {0x28, load::cube, 0.5},      {0x29, load::vector, 0.2},    {0x2a, load::cube, 0.4},
    {0x31, load::local, 0.6},     {0x32, load::mte_in, 0.5},    {0x37, load::scalar, 0.3},    {0x38, load::scalar, 0.2},
    {0x3d, load::mte_out, 0.5},   {0x3e, load::mte_in, 0.5},    {0x43, load::vector, 0.5},    {0x44, load::vector, 0.4},
    {0x49, load::cube, 0.9},      {0x4a, load::cube, 0.1},      {0x4b, load::vector, 0.3},    {0x4c, load::vector, 0.3},
    {0x4d, load::vector, 0.2},    {0x4e, load::vector, 0.1},    {0x4f, load::vector, 0.1},    {0x54, load::icache_req, 1},
    {0x55, load::icache_miss, 1}, {0x64, load::conflict, 0.5},  {0x65, load::conflict, 0.3},  {0x66, load::conflict, 0.2},
    {0x302, load::local, 1},      {0x303, load::mte_out, 1},    {0x416, load::cube, 0.8},     {0x417, load::cube, 0.2},
    {0x500, load::mte_out, 0.5},  {0x502, load::mte_out, 0.1},  {0x504, load::mte_in, 0.6},   {0x506, load::mte_in, 0.1},
    {0x508, load::mte_in, 0.2},   {0x50a, load::mte_in, 0.05},  {0x50c, load::mte_out, 1},    {0x50d, load::mte_in, 0.5},
    {0x50e, load::mte_in, 0.5},   {0x206, load::mte_in, 0.1},   {0x20c, load::mte_out, 1},
};

/// A metric's name in the parser's outputs: without the "_extra" that tells
/// PipeUtilizationExct's metrics apart in its tables ("mac_ratio_extra" -> "mac_ratio").
constexpr std::string_view output_name(std::string_view name) noexcept {
  constexpr std::string_view extra = "_extra";
  if (name.size() >= extra.size() && name.substr(name.size() - extra.size()) == extra) name.remove_suffix(extra.size());
  return name;
}

inline const group* find_group(std::string_view name) noexcept {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

inline const calculator* find_calculator(std::string_view name) noexcept {
  for (const auto& c : calculators)
    if (c.name == name) return &c;
  return nullptr;
}

inline const event* find_event(std::uint32_t id) noexcept {
  for (const auto& e : events)
    if (e.id == id) return &e;
  return nullptr;
}

/// Calls f(id) for each event of a sample.json list ("0x8,0xa"); false when
/// one is not a hex number.
template <class F>
bool for_each_event(std::string_view list, F&& f) {
  while (!list.empty()) {
    const std::size_t c = list.find(',');
    std::string_view one = list.substr(0, c);
    list = c == std::string_view::npos ? std::string_view{} : list.substr(c + 1);
    if (one.size() > 2 && one[0] == '0' && (one[1] == 'x' || one[1] == 'X')) one.remove_prefix(2);
    if (one.empty() || one.size() > 8) return false;
    std::uint32_t v = 0;
    for (char ch : one) {
      const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    f(v);
  }
  return true;
}

}  // namespace aic_metrics
}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_AIC_METRICS_HPP
