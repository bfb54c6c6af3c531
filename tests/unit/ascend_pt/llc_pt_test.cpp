// SPDX-License-Identifier: MIT
// LLC in `msprof analyse`: the pt_memory case with the golden case llc's
// slice and llc_profiling added to its PROF_ part. torch_npu writes no LLC
// summary of its own; its trace_view.json copies the CANN timeline's LLC
// process and its db the CANN db's LLC table (llc_test.cpp has their values).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../../support/golden_llc.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;

TEST_CASE("ascend_pt llc: trace_view.json holds the CANN timeline's LLC process, the db its LLC table") {
  temp_dir tmp("pt_llc");
  const fs::path out = analysed(tmp, &golden_llc::add_llc);
  CHECK(!fs::exists(out / "llc_read_write.csv"));
  const std::string trace = read_text(out / "trace_view.json");
  CHECK(count_of(trace, "\"args\": {\"name\": \"LLC\"}") == 1);
  for (const char* name : {"\"LLC 0 Read/Hit Rate\"", "\"LLC 0 Read/Throughput\"", "\"LLC 1 Read/Hit Rate\"",
                           "\"LLC 1 Read/Throughput\""}) {
    CAPTURE(name);
    CHECK(count_of(trace, std::string("{\"name\": ") + name) == 3);
  }
  CHECK(count_of(trace, "\"args\": {\"Throughput(MB/s)\": 15195819.694}") == 1);
  const auto rows = db_rows(out / "ascend_pytorch_profiler_0.db",
                            "SELECT m.deviceId, m.llcId, m.timestampNs, m.throughput, s.value FROM LLC m JOIN STRING_IDS s "
                            "ON s.id = m.mode WHERE m.throughput > 0 ORDER BY m.rowid");
  const std::vector<std::string> want = {
      "0|0|1767268800000300032|15933971831455|read", "0|0|1767268800000699904|10243277848576|read",
      "0|1|1767268800000300032|15918053720|read",    "0|1|1767268800000699904|87938539978|read"};
  CHECK(rows == want);
  CHECK(db_rows(out / "ascend_pytorch_profiler_0.db", "SELECT COUNT(*) FROM LLC") == std::vector<std::string>{"6"});
}
