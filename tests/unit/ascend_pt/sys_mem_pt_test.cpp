// SPDX-License-Identifier: MIT
// HBM and DDR in `msprof analyse`: the pt_memory case with the golden case
// hbm's (or ddr's) slice and switches added to its PROF_ part. torch_npu
// writes no HBM or DDR summary of its own; its trace_view.json copies the CANN
// timeline's HBM and DDR processes and its db the CANN db's HBM and DDR tables
// (sys_mem_test.cpp has their values).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../../support/golden_sysmem.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;

namespace {

/// How often `s` stands in `text`.
std::size_t count(const std::string& text, const std::string& s) {
  std::size_t n = 0;
  for (auto at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("ascend_pt hbm: trace_view.json holds the CANN timeline's HBM process, the db its HBM table") {
  temp_dir tmp("pt_hbm");
  const fs::path out = analysed(tmp, &golden_sysmem::add_hbm);
  CHECK(!fs::exists(out / "hbm.csv"));
  const std::string trace = read_text(out / "trace_view.json");
  CHECK(count(trace, "\"args\": {\"name\": \"HBM\"}") == 1);
  for (const char* name : {"\"HBM 0/Read\"", "\"HBM 0/Write\"", "\"HBM 1/Read\"", "\"HBM 1/Write\""}) {
    CAPTURE(name);
    CHECK(count(trace, std::string("{\"name\": ") + name) == 4);
  }
  CHECK(count(trace, "\"args\": {\"Read(MB/s)\": 43602519.90913386}") == 1);
  const auto rows = db_rows(out / "ascend_pytorch_profiler_0.db",
                          "SELECT m.deviceId, m.timestampNs, m.bandwidth, m.hbmId, s.value FROM HBM m JOIN STRING_IDS s "
                          "ON s.id = m.type WHERE m.bandwidth > 0 ORDER BY m.rowid");
  const std::vector<std::string> want = {
      "0|1767268800000600064|448028|0|read",          "0|1767268800000600064|21334677419|0|write",
      "0|1767268800000600064|790173963133|1|write",   "0|1767268800000999936|45720555916239|0|read",
      "0|1767268800000999936|1920263|0|write",        "0|1767268800000999936|45720|1|write"};
  CHECK(rows == want);
  CHECK(db_rows(out / "ascend_pytorch_profiler_0.db", "SELECT COUNT(*) FROM HBM") == std::vector<std::string>{"16"});
}

TEST_CASE("ascend_pt ddr: trace_view.json holds the CANN timeline's DDR process, the db its DDR table") {
  temp_dir tmp("pt_ddr");
  const fs::path out = analysed(tmp, &golden_sysmem::add_ddr);
  CHECK(!fs::exists(out / "ddr.csv"));
  const std::string trace = read_text(out / "trace_view.json");
  CHECK(count(trace, "\"args\": {\"name\": \"DDR\"}") == 1);
  CHECK(count(trace, "{\"name\": \"DDR/Read\"") == 3);
  CHECK(count(trace, "{\"name\": \"DDR/Write\"") == 3);
  CHECK(db_rows(out / "ascend_pytorch_profiler_0.db", "SELECT * FROM DDR ORDER BY rowid") ==
        std::vector<std::string>{"0|1767268800000100000|39508160000|209385280000",
                                 "0|1767268800000250000|641066666|213333333",
                                 "0|1767268800000600000|91428480000|7111131428"});
}
