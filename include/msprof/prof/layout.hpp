// SPDX-License-Identifier: MIT
// The names of a PROF_ directory (ascend-formats.md §3), in one place: the
// writer (writer.hpp) builds them and the reader (reader.hpp) parses them with
// the same table, so the two halves of the contract cannot drift apart.
//
//   PROF_<6 digits>_<yyyymmddHHMMSSmmm>_<16 A-Z>/
//     host/      info.json sample.json start_info end_info host_start.log
//       data/    (aging|unaging).<module>.<tag>.slice_<N>   + <file>.done
//     device_<id>/  info.json.<id> sample.json start_info.<id> end_info.<id> dev_start.log.<id>
//       data/    <module>.data.<id>.slice_<N>               + <file>.done
#ifndef MSPROF_PROF_LAYOUT_HPP
#define MSPROF_PROF_LAYOUT_HPP

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "../codec/dictionary.hpp"
#include "../codec/format.hpp"
#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {
namespace layout {

// Folders.
inline constexpr char host_dir[] = "host";
inline constexpr char data_dir[] = "data";
inline constexpr char device_dir_prefix[] = "device_";
inline std::string device_dir(std::uint32_t id) { return device_dir_prefix + std::to_string(id); }

// Control files. A device folder's names carry ".<id>" (for_device), except sample.json.
inline constexpr char info_json[] = "info.json";
inline constexpr char sample_json[] = "sample.json";
inline constexpr char start_info[] = "start_info";
inline constexpr char end_info[] = "end_info";
inline constexpr char host_start_log[] = "host_start.log";
inline constexpr char dev_start_log[] = "dev_start.log";
inline std::string for_device(const char* name, std::uint32_t id) {
  return name + ("." + std::to_string(id));
}

// host/msprof_calls, msprof's own (CANN has none): the mstx calls the collector
// took from each thread (recorded or dropped), counted as they happen through a
// shared mapping, so a killed run still says how many calls were made. Layout:
// the 8-byte magic, u64 slot count N, N little-endian u64 counters. Slot 0
// counts the threads that found no free slot (their calls are not counted).
inline constexpr char call_counts[] = "msprof_calls";
inline constexpr char call_counts_magic[8] = {'M', 'S', 'P', 'C', 'A', 'L', 'L', '1'};
inline constexpr std::size_t call_counts_header = 16;
// host/msprof_forks, msprof's own: processes fork()ed from the profiled one are
// not collected; their mstx calls are counted here instead (the mapping is
// shared with every child). Same layout as msprof_calls with N = 2: slot 0 the
// children that made mstx calls, slot 1 their calls.
inline constexpr char fork_counts[] = "msprof_forks";
inline constexpr char fork_counts_magic[8] = {'M', 'S', 'P', 'F', 'O', 'R', 'K', '1'};
inline constexpr std::size_t fork_count_slots = 2;

// host/msprof_staging/: the compact staging of mstx events while collecting
// (prof/staging.hpp, docs/formats.md "Staging"): records in numbered chunks
// (tx.0, tx.1, ...) and interned strings, turned into msproftx slices at stop,
// by the launcher after the program's exit, or by `msprof import/export`.
inline constexpr char staging_dir[] = "msprof_staging";
inline constexpr char staging_tx[] = "tx";  ///< the chunks' names: "tx.<n>"
inline constexpr char staging_strings[] = "strings";
inline constexpr char staging_converting[] = "converting";  ///< the conversion at stop has begun
inline constexpr char staging_complete[] = "complete";      ///< the collection closed its staging (not killed)
inline constexpr char staging_tx_magic[8] = {'M', 'S', 'P', 'S', 'T', 'G', 'T', '1'};
inline constexpr char staging_strings_magic[8] = {'M', 'S', 'P', 'S', 'T', 'G', 'S', '1'};

// Slices and their completion files.
inline constexpr char slice_infix[] = ".slice_";
inline constexpr char done_suffix[] = ".done";
inline std::string slice_file(std::string_view base, std::uint32_t index) {
  return std::string(base) + slice_infix + std::to_string(index);
}

// Host slice name parts: (aging|unaging).<module>.<tag>.
inline constexpr char aging[] = "aging";
inline constexpr char unaging[] = "unaging";
inline constexpr char api_event[] = "api_event";    ///< module (its tag is "data")
inline constexpr char compact[] = "compact";        ///< module
inline constexpr char additional[] = "additional";  ///< module
namespace tag {  // compact and additional tags
inline constexpr char node_basic_info[] = "node_basic_info";
inline constexpr char task_track[] = "task_track";
inline constexpr char memcpy_info[] = "memcpy_info";
inline constexpr char hccl_op_info[] = "hccl_op_info";
inline constexpr char hccl_info[] = "hccl_info";  ///< not in tag_records: CANN names no type id for it
inline constexpr char tensor_info[] = "tensor_info";
inline constexpr char context_id_info[] = "context_id_info";
inline constexpr char graph_id_map[] = "graph_id_map";
inline constexpr char msproftx[] = "msproftx";
inline constexpr char mstx_mem[] = "msprof_mstx_mem";
inline constexpr char task_memory_info[] = "task_memory_info";
inline constexpr char static_op_mem[] = "static_op_mem";
inline constexpr char hash_dic[] = "hash_dic";            ///< text
inline constexpr char type_info_dic[] = "type_info_dic";  ///< text
}  // namespace tag

/// The record type every host compact/additional slice of a tag holds (one type a file).
struct tag_record {
  std::string_view module;
  std::string_view tag;
  std::uint32_t type;
};
inline constexpr tag_record tag_records[] = {
    {compact, tag::node_basic_info, codec::node_type::node_basic_info},
    {compact, tag::task_track, codec::runtime_task_track_type},
    {compact, tag::memcpy_info, codec::runtime_memcpy_info_type},
    {compact, tag::hccl_op_info, codec::node_type::hccl_op_info},
    {additional, tag::tensor_info, codec::node_type::tensor_info},
    {additional, tag::context_id_info, codec::node_type::context_id_info},
    {additional, tag::graph_id_map, codec::model_type::graph_id_map},
    {additional, tag::msproftx, codec::tx_type::msproftx},
    {additional, tag::mstx_mem, codec::tx_type::mstx_mem},
    {additional, tag::task_memory_info, codec::node_type::task_memory_info},
    {additional, tag::static_op_mem, codec::node_type::static_op_mem},
};
/// The record type of a host slice family; nullopt for families of other records or text.
inline std::optional<std::uint32_t> record_type(std::string_view module, std::string_view tag) {
  for (const auto& r : tag_records)
    if (r.module == module && r.tag == tag) return r.type;
  return std::nullopt;
}

// Device slice name stems: <module>.data.<id>.
inline constexpr char stars_soc[] = "stars_soc";
inline constexpr char ffts_profile[] = "ffts_profile";
inline constexpr char ts_track[] = "ts_track";
inline constexpr char npu_module_mem[] = "npu_module_mem";
inline constexpr char npu_mem[] = "npu_mem";
inline constexpr char l2_cache[] = "l2_cache";
inline constexpr char soc_pmu[] = "socpmu";
inline constexpr char aicpu[] = "aicpu";  ///< MsprofAdditionalInfo records of level AICPU
inline constexpr char pcie[] = "pcie";
inline constexpr char hccs[] = "hccs";  ///< text: a header line, then one sample a line
inline constexpr char nic[] = "nic";    ///< text: maybe a header line, then one sample a line
inline constexpr char roce[] = "roce";  ///< as nic
inline constexpr char hbm[] = "hbm";
inline constexpr char ddr[] = "ddr";
inline constexpr char llc[] = "llc";  ///< either LLC layout (info.json's `version`)
// The AI CPU's data-preprocess slices, named apart from the others:
// DATA_PREPROCESS.DP.<id>.slice_<n> or DATA_PREPROCESS.dev.DP.<id>.slice_<n>
// (both the reference's patterns), one module whichever (codec/dp.hpp).
inline constexpr char data_preprocess[] = "DATA_PREPROCESS.DP";
// Host text slices "<module>.data.slice_<n>" (no aging prefix, no tag): the
// host system's usage as CANN samples it.
inline constexpr char host_cpu[] = "host_cpu";  ///< text: time, uptime and thread stat lines
inline constexpr char host_mem[] = "host_mem";  ///< text: "<ns> <statm>" lines
inline constexpr char host_disk[] = "host_disk";        ///< text: "start_time <ns>", then iotop's lines
inline constexpr char host_network[] = "host_network";  ///< text: "time <ns>" and /proc/net/dev lines
// --host-sys-usage=cpu,mem: the whole system's /proc/stat and /proc/meminfo,
// and per process "<pid>-CpuUsage" and "<pid>-Memory" (text records
// "TimeStamp:<ns>", "Index:<n>", "DataLen:<bytes>", the body, a blank line).
inline constexpr char host_sys_cpu[] = "host_sys_cpu";
inline constexpr char host_sys_mem[] = "host_sys_mem";
inline constexpr char pid_cpu_usage[] = "-CpuUsage";  ///< the module "<pid>-CpuUsage"
inline constexpr char pid_memory[] = "-Memory";       ///< the module "<pid>-Memory"
/// The pid of a module "<pid><suffix>" (digits, then `suffix`), or an empty view.
inline std::string_view pid_module(std::string_view m, std::string_view suffix) {
  if (m.size() <= suffix.size() || m.substr(m.size() - suffix.size()) != suffix) return {};
  const std::string_view pid = m.substr(0, m.size() - suffix.size());
  for (char c : pid)
    if (c < '0' || c > '9') return {};
  return pid;
}
inline bool host_text_module(std::string_view m) {
  return m == host_cpu || m == host_mem || m == host_disk || m == host_network || m == host_sys_cpu ||
         m == host_sys_mem || !pid_module(m, pid_cpu_usage).empty() || !pid_module(m, pid_memory).empty();
}

}  // namespace layout

/// One output stream = one family of slice files.
struct stream {
  bool device = false;
  std::uint32_t device_id = 0;
  bool aging = false;          ///< host: "aging." (may be deleted by the storage limit) or "unaging."
  std::string module;          ///< host: api_event | compact | additional ; device: file name stem
  std::string tag;             ///< host: data | node_basic_info | task_track | msproftx | ...
  std::size_t record_size = 0; ///< appends are split only at multiples of this; 0 = text

  /// File name without ".slice_<N>".
  std::string base_name() const {
    if (device) return module + ".data." + std::to_string(device_id);
    if (tag.empty()) return module + ".data";  // a host text slice
    return (aging ? layout::aging : layout::unaging) + ("." + module) + "." + tag;
  }
  bool operator<(const stream& o) const { return std::tie(device, device_id, aging, module, tag) < std::tie(o.device, o.device_id, o.aging, o.module, o.tag); }
  bool operator==(const stream& o) const { return std::tie(device, device_id, aging, module, tag) == std::tie(o.device, o.device_id, o.aging, o.module, o.tag); }

  // The streams CANN and the parser use.
  static stream api_event(bool aging) { return {false, 0, aging, layout::api_event, "data", codec::api_size}; }
  static stream compact(bool aging, std::string_view tag) { return {false, 0, aging, layout::compact, std::string(tag), codec::compact_size}; }
  static stream additional(bool aging, std::string_view tag) { return {false, 0, aging, layout::additional, std::string(tag), codec::additional_size}; }
  static stream node_basic_info(bool aging) { return compact(aging, layout::tag::node_basic_info); }
  static stream task_track(bool aging) { return compact(aging, layout::tag::task_track); }
  static stream memcpy_info(bool aging) { return compact(aging, layout::tag::memcpy_info); }
  static stream hccl_op_info(bool aging) { return compact(aging, layout::tag::hccl_op_info); }
  static stream hccl_info(bool aging) { return additional(aging, layout::tag::hccl_info); }
  static stream tensor_info(bool aging) { return additional(aging, layout::tag::tensor_info); }
  static stream context_id_info(bool aging) { return additional(aging, layout::tag::context_id_info); }
  static stream graph_id_map(bool aging) { return additional(aging, layout::tag::graph_id_map); }
  static stream msproftx(bool aging) { return additional(aging, layout::tag::msproftx); }
  static stream mstx_mem(bool aging) { return additional(aging, layout::tag::mstx_mem); }
  static stream task_memory_info(bool aging) { return additional(aging, layout::tag::task_memory_info); }
  static stream static_op_mem(bool aging) { return additional(aging, layout::tag::static_op_mem); }
  /// hash_dic / type_info_dic: text, never aged.
  static stream dictionary(std::string_view tag) { return {false, 0, false, layout::additional, std::string(tag), 0}; }
  static stream stars_soc(std::uint32_t dev) { return device_stream(dev, layout::stars_soc, codec::acsq_size); }
  static stream ffts_profile(std::uint32_t dev) { return device_stream(dev, layout::ffts_profile, codec::context_pmu_size); }
  static stream ts_track(std::uint32_t dev) { return device_stream(dev, layout::ts_track, codec::ts_track_size); }
  static stream npu_module_mem(std::uint32_t dev) { return device_stream(dev, layout::npu_module_mem, codec::npu_module_mem_size); }
  static stream npu_mem(std::uint32_t dev) { return device_stream(dev, layout::npu_mem, codec::npu_mem_size); }
  static stream l2_cache(std::uint32_t dev) { return device_stream(dev, layout::l2_cache, codec::l2_cache_size); }
  static stream soc_pmu(std::uint32_t dev) { return device_stream(dev, layout::soc_pmu, codec::soc_pmu_size); }
  static stream aicpu(std::uint32_t dev) { return device_stream(dev, layout::aicpu, codec::additional_size); }
  static stream pcie(std::uint32_t dev) { return device_stream(dev, layout::pcie, codec::pcie_size); }
  static stream hccs(std::uint32_t dev) { return device_stream(dev, layout::hccs, 0); }
  static stream nic(std::uint32_t dev) { return device_stream(dev, layout::nic, 0); }
  static stream roce(std::uint32_t dev) { return device_stream(dev, layout::roce, 0); }
  static stream hbm(std::uint32_t dev) { return device_stream(dev, layout::hbm, codec::hbm_size); }
  static stream ddr(std::uint32_t dev) { return device_stream(dev, layout::ddr, codec::ddr_size); }
  static stream llc(std::uint32_t dev) { return device_stream(dev, layout::llc, codec::llc_size); }

  /// The inverse of base_name() plus the slice index: the stream a data file
  /// `name` (in host/data, or in device_<dev>/data when `device`) belongs to.
  /// An error names what is wrong with the name.
  struct parsed;
  static parsed parse(std::string_view name, bool device, std::uint32_t dev);

 private:
  static stream device_stream(std::uint32_t dev, std::string_view module, std::size_t size) {
    return {true, dev, false, std::string(module), "", size};
  }
};

struct stream::parsed {
  stream s;
  std::uint32_t slice = 0;
  const char* problem = nullptr;  ///< why the name is not a slice name; nullptr when it is
};

inline stream::parsed stream::parse(std::string_view name, bool device, std::uint32_t dev) {
  parsed p;
  p.s.device = device;
  p.s.device_id = dev;
  const std::string_view infix = layout::slice_infix;
  const std::size_t s = name.rfind(infix);
  std::uint64_t slice = 0;
  if (s == std::string_view::npos || !codec::detail::parse_u64(name.substr(s + infix.size()), slice) ||
      slice > 0xFFFFFFFFu) {
    p.problem = "not a slice file name (<name>.slice_<N>)";
    return p;
  }
  p.slice = static_cast<std::uint32_t>(slice);
  const std::string_view stem = name.substr(0, s);
  if (device) {
    const std::string id = "." + std::to_string(dev);
    for (std::string_view dp : {"DATA_PREPROCESS.DP", "DATA_PREPROCESS.dev.DP"})
      if (stem.size() == dp.size() + id.size() && stem.substr(0, dp.size()) == dp && stem.substr(dp.size()) == id) {
        p.s.module = layout::data_preprocess;
        return p;
      }
    const std::string mid = ".data." + std::to_string(dev);
    if (stem.size() < mid.size() || stem.substr(stem.size() - mid.size()) != mid) {
      p.problem = "device file name is not <name>.data.<device id>.slice_<N>";
      return p;
    }
    p.s.module = std::string(stem.substr(0, stem.size() - mid.size()));
    return p;
  }
  const std::size_t d1 = stem.find('.');
  const std::size_t d2 = d1 == std::string_view::npos ? d1 : stem.find('.', d1 + 1);
  if (d1 != std::string_view::npos && d2 == std::string_view::npos && stem.substr(d1) == ".data" &&
      layout::host_text_module(stem.substr(0, d1))) {
    p.s.module = std::string(stem.substr(0, d1));
    return p;
  }
  if (d2 == std::string_view::npos) {
    p.problem = "host file name is not (aging|unaging).<module>.<tag>.slice_<N>";
    return p;
  }
  const std::string_view prefix = stem.substr(0, d1);
  if (prefix != layout::aging && prefix != layout::unaging) {
    p.problem = "host file name does not start with aging. or unaging.";
    return p;
  }
  p.s.aging = prefix == layout::aging;
  p.s.module = std::string(stem.substr(d1 + 1, d2 - d1 - 1));
  p.s.tag = std::string(stem.substr(d2 + 1));
  return p;
}

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_LAYOUT_HPP
