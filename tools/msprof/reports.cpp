// SPDX-License-Identifier: MIT
#include "reports.hpp"

#include <simdjson.h>

#include <array>
#include <string_view>

namespace msprof_cli {
namespace {

using msprof::errc;
using msprof::make_error;

/// The keys of CANN's "json_process" with the part of msprof_<ts>.json each
/// switches (nullptr: a process of data msprof does not collect here).
struct json_process_key {
  std::string_view name;
  bool msprof::convert::timeline_parts::*part;
};
constexpr std::array<json_process_key, 32> json_process_keys{{
    {"ascend", &msprof::convert::timeline_parts::hardware},
    {"cann", &msprof::convert::timeline_parts::cann},
    {"msproftx", &msprof::convert::timeline_parts::mstx},
    {"overlap_analyse", &msprof::convert::timeline_parts::overlap},
    {"step_trace", &msprof::convert::timeline_parts::step_trace},
    {"freq", &msprof::convert::timeline_parts::freq},
    {"acc_pmu", &msprof::convert::timeline_parts::acc_pmu}, {"ddr", &msprof::convert::timeline_parts::ddr}, {"stars_chip_trans", nullptr}, {"hbm", &msprof::convert::timeline_parts::hbm},
    {"communication", nullptr}, {"ccu", nullptr}, {"hccs", &msprof::convert::timeline_parts::hccs},
    {"os_runtime_api", nullptr}, {"network_usage", &msprof::convert::timeline_parts::network_usage},
    {"disk_usage", &msprof::convert::timeline_parts::disk_usage}, {"memory_usage", &msprof::convert::timeline_parts::memory_usage},
    {"cpu_usage", &msprof::convert::timeline_parts::cpu_usage}, {"npu_mem", &msprof::convert::timeline_parts::npu_mem},
    {"pcie", &msprof::convert::timeline_parts::pcie}, {"sio", nullptr}, {"stars_soc", nullptr}, {"llc", &msprof::convert::timeline_parts::llc},
    {"nic", &msprof::convert::timeline_parts::nic}, {"roce", &msprof::convert::timeline_parts::roce}, {"qos", &msprof::convert::timeline_parts::qos},
    {"device_tx", nullptr}, {"biu_perf", nullptr}, {"ub", nullptr}, {"block_detail", nullptr},
    {"dpu", nullptr}, {"fusion_task", nullptr},
}};

msprof::result<void> read_json_process(const std::string& path, simdjson::dom::object obj,
                                       msprof::convert::timeline_parts& parts) {
  msprof::convert::timeline_parts chosen;
  chosen.cann = chosen.hardware = chosen.freq = chosen.npu_mem = chosen.hccs = chosen.nic = chosen.roce = chosen.pcie = chosen.hbm = chosen.llc = chosen.qos = chosen.acc_pmu =
      chosen.ddr = chosen.overlap = chosen.mstx = chosen.step_trace = chosen.cpu_usage = chosen.memory_usage =
      chosen.disk_usage = chosen.network_usage = false;
  for (auto field : obj) {
    const std::string_view key = field.key;
    const json_process_key* k = nullptr;
    for (const auto& c : json_process_keys)
      if (c.name == key) k = &c;
    if (k == nullptr) return make_error(errc::parse, path + ": json_process." + std::string(key) + ": unknown process");
    bool on = false;
    if (field.value.get_bool().get(on))
      return make_error(errc::parse, path + ": json_process." + std::string(key) + ": expected true or false");
    if (k->part != nullptr) chosen.*(k->part) = on;
  }
  parts = chosen;
  return {};
}

msprof::result<void> read_stems(const std::string& path, simdjson::dom::array arr, std::set<std::string>& out) {
  for (auto v : arr) {
    std::string_view s;
    if (v.get_string().get(s)) return make_error(errc::parse, path + ": report names must be strings");
    out.emplace(s);
  }
  return {};
}

}  // namespace

msprof::result<void> read_reports(const std::string& path, msprof::convert::export_options& o) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.load(path).get(doc)) return make_error(errc::parse, path + ": " + simdjson::error_message(err));
  simdjson::dom::array arr;
  if (!doc.get_array().get(arr)) return read_stems(path, arr, o.reports);
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) return make_error(errc::parse, path + ": expected an object or an array");
  for (auto field : obj) {
    if (field.key == "json_process") {
      simdjson::dom::object procs;
      if (field.value.get_object().get(procs))
        return make_error(errc::parse, path + ": json_process: expected an object of true/false switches");
      MSPROF_TRY(read_json_process(path, procs, o.json_process));
    } else if (field.key == "reports") {
      if (field.value.get_array().get(arr)) return make_error(errc::parse, path + ": reports: expected an array");
      MSPROF_TRY(read_stems(path, arr, o.reports));
    } else {
      return make_error(errc::parse, path + ": " + std::string(field.key) +
                                         ": unknown key (expected \"json_process\" or \"reports\")");
    }
  }
  return {};
}

}  // namespace msprof_cli
