// SPDX-License-Identifier: MIT
// HBM in `msprof analyse`: the pt_memory case with the golden case hbm's
// slice and sample.json switch added to its PROF_ part. torch_npu writes no
// HBM summary of its own; its trace_view.json copies the CANN timeline's HBM
// process and its db the CANN db's HBM table (sys_mem_test.cpp has their values).
#include <doctest/doctest.h>

#include <filesystem>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>
#include <vector>

#include "../../support/golden_sysmem.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

TEST_CASE("ascend_pt hbm: trace_view.json holds the CANN timeline's HBM process, the db its HBM table") {
  temp_dir tmp("pt_hbm");
  const fs::path dir = copy_case(tmp, "pt_memory");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) golden_sysmem::add_hbm(e.path());
  for (const char* type : {"text", "db"}) {
    auto r = pt::analyse(dir.string(), {type});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
  }
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  CHECK(!fs::exists(out / "hbm.csv"));
  const std::string trace = read_text(out / "trace_view.json");
  const auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (auto at = trace.find(s); at != std::string::npos; at = trace.find(s, at + 1)) ++n;
    return n;
  };
  CHECK(count("\"args\": {\"name\": \"HBM\"}") == 1);
  for (const char* name : {"\"HBM 0/Read\"", "\"HBM 0/Write\"", "\"HBM 1/Read\"", "\"HBM 1/Write\""}) {
    CAPTURE(name);
    CHECK(count(std::string("{\"name\": ") + name) == 4);
  }
  CHECK(count("\"args\": {\"Read(MB/s)\": 43602519.90913386}") == 1);
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
