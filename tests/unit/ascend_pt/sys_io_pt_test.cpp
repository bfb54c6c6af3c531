// SPDX-License-Identifier: MIT
// pcie.csv, hccs.csv and nic.csv in `msprof analyse`: the pt_memory case with
// the golden cases pcie's, hccs's and nic's slices added to its PROF_ part (the
// same CANN data, ops_pipeutil's). Expected files: tests/golden/{pcie,hccs,nic}/expected_pt,
// made from the reference's summaries by torch_npu's rules (IntegrateParser
// with PcieBean / HccsBean / NicBean: csv.DictReader cells written by csv.writer, CRLF;
// its code read, not run; tests/golden/README.md).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>

#include "../../support/golden_sysio.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

/// pt_memory with the PCIe, HCCS and NIC slices, experimental_config's `flag`
/// (none: nullptr) set to true.
fs::path sys_io_case(const temp_dir& tmp, const char* flag) {
  const fs::path dir = copy_case(tmp, "pt_memory");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("PROF_", 0) == 0) {
      golden_sysio::add_pcie(e.path());
      golden_sysio::add_hccs(e.path());
      golden_sysio::add_nic(e.path());
      golden_sysio::add_roce(e.path());
    }
    if (name.rfind("profiler_info", 0) == 0 && flag) {
      std::string text = read_text(e.path());
      const std::string from = "\"" + std::string(flag) + "\": false";
      const auto at = text.find(from);
      REQUIRE(at != std::string::npos);
      text.replace(at, from.size(), "\"" + std::string(flag) + "\": true");
      std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << text;
    }
  }
  return dir;
}

void check_copied(const fs::path& dir, const std::string& kind) {
  CAPTURE(kind);
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT" / (kind + ".csv");
  REQUIRE(fs::exists(out));
  const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / kind / "expected_pt" / (kind + ".csv");
  CHECK(read_text(out) == read_text(expected));
}

}  // namespace

TEST_CASE("ascend_pt sys_interconnection: CANN's pcie and hccs summaries copied into pcie.csv and hccs.csv as torch_npu does") {
  temp_dir tmp("pt_pcie");
  const fs::path dir = sys_io_case(tmp, "_sys_interconnection");
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  for (const std::string kind : {"pcie", "hccs"}) check_copied(dir, kind);
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "nic.csv"));
}

TEST_CASE("ascend_pt sys_io: CANN's nic and roce summaries copied into nic.csv and roce.csv as torch_npu does") {
  temp_dir tmp("pt_nic");
  const fs::path dir = sys_io_case(tmp, "_sys_io");
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  check_copied(dir, "nic");
  check_copied(dir, "roce");
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "pcie.csv"));
}

TEST_CASE("ascend_pt sys_interconnection, sys_io: no pcie.csv, hccs.csv, nic.csv or roce.csv without them") {
  temp_dir tmp("pt_pcie_off");
  const fs::path dir = sys_io_case(tmp, nullptr);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "pcie.csv"));
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "hccs.csv"));
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "nic.csv"));
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "roce.csv"));
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "task_time.csv"));
}

TEST_CASE("ascend_pt sys_interconnection: trace_view.json holds the CANN timeline's PCIe, HCCS, NIC and RoCE processes") {
  // torch_npu copies the CANN timeline whole (Level0 prunes none of these
  // names): the three kept PCIe samples' four counters, the process metadata,
  // and HCCS's, NIC's and RoCE's counters (sys_io_test.cpp has their values).
  temp_dir tmp("pt_pcie_trace");
  const fs::path dir = sys_io_case(tmp, "_sys_interconnection");
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const std::string trace = read_text(dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json");
  const auto count = [&](const std::string& s) { return count_of(trace, s); };
  for (const char* name : {"\"PCIe_cpl\"", "\"PCIe_nonpost\"", "\"PCIe_nonpost_latency\"", "\"PCIe_post\""}) {
    CAPTURE(name);
    CHECK(count(std::string("{\"name\": ") + name) == 3);
  }
  CHECK(count("\"args\": {\"Rx\": 0.0, \"Tx\": 3.457}") == 1);
  CHECK(count("\"args\": {\"name\": \"PCIe\"}") == 1);
  CHECK(count("\"args\": {\"name\": \"HCCS\"}") == 1);
  CHECK(count("\"args\": {\"name\": \"NIC\"}") == 1);
  CHECK(count("\"args\": {\"name\": \"RoCE\"}") == 1);
  CHECK(count("{\"name\": \"Port 1/Tx\"") == 2);  // one sample of port 1 in each of nic and roce
  CHECK(count("\"args\": {\"Tx(MB/s)\": 66757.202}") == 1);
}
