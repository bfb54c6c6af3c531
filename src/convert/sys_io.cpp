// SPDX-License-Identifier: MIT
// The CANN summary pcie as the reference (9ba1ac7be) exports it on chip "5"
// (ParsingPcieData, InterConnectionView.get_pcie_summary_data): the sample
// with the latest timestamp (the first of equal ones), its min, max and
// average of each metric; a bandwidth in bytes/µs times 10^6 / 2^20 (MB/s), the
// latency in ns / 1000 (µs), each Python's round(x, 3); a minimum of 0xFFFFF
// (the counter's "no value") shown as 0.
#include "msprof/convert/sys_io.hpp"

#include <cstdint>
#include <map>

#include "msprof/convert/npu_memory.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace sys_io_detail {

constexpr std::uint32_t no_min = 0xFFFFF;
constexpr double mb_per_s = 1e6 / (1024.0 * 1024.0);  // of 1 byte/µs

struct pcie_mode {
  codec::PcieSample::metric metric;
  const char* name;
  bool latency;
};
constexpr pcie_mode pcie_modes[] = {
    {codec::PcieSample::tx_p, "Tx_p_avg(MB/s)", false},       {codec::PcieSample::tx_np, "Tx_np_avg(MB/s)", false},
    {codec::PcieSample::tx_cpl, "Tx_cpl_avg(MB/s)", false},   {codec::PcieSample::tx_np_latency, "Tx_latency_avg(us)", true},
    {codec::PcieSample::rx_p, "Rx_p_avg(MB/s)", false},       {codec::PcieSample::rx_np, "Rx_np_avg(MB/s)", false},
    {codec::PcieSample::rx_cpl, "Rx_cpl_avg(MB/s)", false},
};

std::string pcie_cell(std::uint32_t v, bool latency) {
  return py_round3(latency ? static_cast<double>(v) / 1000 : static_cast<double>(v) * mb_per_s);
}

}  // namespace sys_io_detail

result<std::optional<table>> pcie_summary(const std::string& prof_dir, std::vector<std::string>& warnings) {
  using namespace sys_io_detail;
  if (!npu_slices::any_slice(prof_dir, true, std::string(prof::layout::pcie) + ".data.")) return std::optional<table>();
  prof::reader_options ro;
  ro.max_dictionary_bytes = 0;  // the samples need no dictionary
  auto r = prof::prof_reader::open(prof_dir, ro);
  if (!r) return std::optional<table>();  // the model loader says what is wrong with the directory
  std::map<std::uint32_t, codec::PcieSample> latest;  // by device id
  for (const auto& d : r->devices()) {
    MSPROF_TRY(r->for_each_pcie(d.id, [&](const codec::PcieSample& s, const codec::place&) {
      auto [it, first] = latest.emplace(d.id, s);
      if (!first && s.timestamp > it->second.timestamp) it->second = s;
    }));
  }
  npu_slices::slice_warnings(*r, prof::layout::pcie, warnings);
  if (latest.empty()) return std::optional<table>();
  table t;
  t.name = "pcie";
  t.header = {"Device_id", "Mode", "Min", "Max", "Avg"};
  for (const auto& [dev, s] : latest)
    for (const auto& m : pcie_modes) {
      const std::uint32_t min = s.value(m.metric, codec::PcieSample::min);
      t.rows.push_back({std::to_string(dev), m.name, pcie_cell(min == no_min ? 0 : min, m.latency),
                        pcie_cell(s.value(m.metric, codec::PcieSample::max), m.latency),
                        pcie_cell(s.value(m.metric, codec::PcieSample::avg), m.latency)});
    }
  return std::optional<table>(std::move(t));
}

}  // namespace convert
MSPROF_END_NAMESPACE
