// SPDX-License-Identifier: MIT
// CANN's memory data in `msprof analyse`: the pt_memory case with the golden
// case npu_memory's memory slices added to its PROF_ part (the same CANN data,
// ops_pipeutil's). Expected files: tests/golden/npu_memory/expected_pt, made
// from the reference's CANN files by torch_npu's rules (its code read, not run;
// tests/golden/README.md).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>
#include <vector>

#include "../../support/golden_memory.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

fs::path with_memory(const temp_dir& tmp) {
  const fs::path dir = copy_case(tmp, "pt_memory");
  fs::path prof;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof = e.path();
  REQUIRE(!prof.empty());
  golden_memory::add_records(prof);
  return dir;
}

fs::path expected(const std::string& name) {
  return fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "npu_memory" / "expected_pt" / name;
}

}  // namespace

TEST_CASE("ascend_pt cann memory: npu_module_mem.csv, and GE's rows in memory_record.csv and operator_memory.csv, as torch_npu makes them") {
  temp_dir tmp("pt_module_mem");
  const fs::path dir = with_memory(tmp);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  REQUIRE(fs::exists(out / "npu_module_mem.csv"));
  CHECK(read_text(out / "npu_module_mem.csv") == read_text(expected("npu_module_mem.csv")));
  // GE's records merged with the PTA ones (memory_record: 10 GE and 10 PTA+GE
  // rows first, their times being CANN's raw clock), GE's blocks after the PTA
  // ones (operator_memory: 6).
  CHECK(read_text(out / "memory_record.csv") == read_text(expected("memory_record.csv")));
  CHECK(read_text(out / "operator_memory.csv") == read_text(expected("operator_memory.csv")));
  // The files the memory data does not feed are pt_memory's, unchanged.
  const fs::path pt_expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_memory" / "expected";
  for (const char* f : {"kernel_details.csv", "operator_details.csv", "op_statistic.csv", "api_statistic.csv",
                        "task_time.csv", "step_trace_time.csv"}) {
    CAPTURE(f);
    CHECK(read_text(out / f) == read_text(pt_expected / f));
  }
}

TEST_CASE("ascend_pt cann memory: npu_module_mem.csv at Level0, none at Level_none or without samples") {
  for (const char* level : {"Level0", "Level_none"}) {
    CAPTURE(level);
    temp_dir tmp("pt_module_mem_level");
    const fs::path dir = with_memory(tmp);
    const fs::path info = dir / "profiler_info_0.json";
    std::string text = read_text(info);
    const auto at = text.find("\"Level1\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 8, std::string("\"") + level + "\"");
    std::ofstream(info, std::ios::trunc) << text;
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "npu_module_mem.csv") == (std::string(level) == "Level0"));
  }
  temp_dir tmp("pt_module_mem_none");
  const fs::path dir = copy_case(tmp, "pt_memory");
  REQUIRE(pt::analyse(dir.string(), {"text"}).has_value());
  CHECK(!fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "npu_module_mem.csv"));
}

TEST_CASE("ascend_pt cann memory: the db keeps CANN's NPU_MODULE_MEM rows") {
  temp_dir tmp("pt_module_mem_db");
  const fs::path dir = with_memory(tmp);
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const auto rows = db_rows(dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db",
                          "SELECT moduleId, timestampNs, totalReserved, deviceId FROM NPU_MODULE_MEM ORDER BY 1, 2");
  // The reference's CANN db rows (tests/golden/npu_memory/expected/db.canonical.sql).
  const std::vector<std::string> want = {
      "3|1767268800000100500|0|0",       "3|1767268800000460001|65536|0",   "7|1767268800000050000|1048576|0",
      "7|1767268800000123456|2097664|0", "7|1767268800000450000|3145728|0", "45|1767268800000060000|524288|0",
      "45|1767268800000300000|1536|0",   "99|1767268800000200000|4096|0"};
  CHECK(rows == want);
}

TEST_CASE("ascend_pt cann memory: the db's MEMORY_RECORD and OP_MEMORY hold GE's records as torch_npu merges them") {
  temp_dir tmp("pt_ge_mem_db");
  const fs::path dir = with_memory(tmp);
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path db = dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  // Expected: torch_npu's MemoryDbParser rules on pt_memory's PTA rows and the reference's NPU_OP_MEM.
  std::vector<std::string> want_records, want_ops;
  {
    std::istringstream in(read_text(expected("memory_db.txt")));
    std::vector<std::string>* into = nullptr;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("# MEMORY_RECORD", 0) == 0) into = &want_records;
      else if (line.rfind("# OP_MEMORY", 0) == 0) into = &want_ops;
      else if (into && !line.empty()) into->push_back(line);
    }
  }
  const auto records = db_rows(db,
                             "SELECT s.value, timestamp, totalAllocated, totalReserved, totalActive, streamPtr, deviceId "
                             "FROM MEMORY_RECORD m JOIN STRING_IDS s ON s.id = m.component ORDER BY m.rowid");
  CHECK(records == want_records);
  CHECK(records.size() == 32);  // 10 GE and 6 PTA records, each with its PTA+GE row
  const auto ops = db_rows(db,
                         "SELECT s.value, size, allocationTime, releaseTime, activeReleaseTime, duration, activeDuration, "
                         "allocationTotalAllocated, allocationTotalReserved, allocationTotalActive, releaseTotalAllocated, "
                         "releaseTotalReserved, releaseTotalActive, streamPtr, deviceId "
                         "FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = o.name WHERE o.name < 268435456 ORDER BY o.rowid");
  CHECK(ops == want_ops);
  // The GE blocks come after torch_npu's own 7.
  CHECK(db_rows(db, "SELECT count(*) FROM OP_MEMORY").front() == "12");
  CHECK(db_rows(db, "SELECT min(rowid) FROM OP_MEMORY WHERE name < 268435456").front() == "8");
  // "GE" is the first memory string: torch_npu reads NPU_OP_MEM before its own records.
  CHECK(db_rows(db, "SELECT value FROM STRING_IDS WHERE id = 536870912").front() == "GE");
}

TEST_CASE("ascend_pt cann memory: memory_record.csv starts with CANN's APP rows, and the db keeps CANN's NPU_MEM rows") {
  temp_dir tmp("pt_npu_mem");
  const fs::path dir = with_memory(tmp);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) golden_memory::add_app_samples(e.path());
  for (const char* type : {"text", "db"}) {
    auto r = pt::analyse(dir.string(), {type});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
  }
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  // 5 APP rows (the Device ones left out), then npu_memory's GE and PTA rows unchanged.
  CHECK(read_text(out / "memory_record.csv") ==
        read_text(fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "npu_mem" / "expected_pt" / "memory_record.csv"));
  // trace_view.json keeps the CANN timeline's NPU MEM process, as torch_npu copies msprof.json's events.
  const std::string trace = read_text(out / "trace_view.json");
  const auto count = [&](const std::string& s) { return count_of(trace, s); };
  CHECK(count("\"args\": {\"name\": \"NPU MEM\"}") == 1);
  CHECK(count("\"name\": \"APP/Memory\"") == 5);
  CHECK(count("\"name\": \"Device/HBM\"") == 4);
  const auto rows = db_rows(out / "ascend_pytorch_profiler_0.db",
                          "SELECT s.value, m.ddr, m.hbm, m.timestampNs, m.deviceId FROM NPU_MEM m JOIN STRING_IDS s "
                          "ON s.id = m.type ORDER BY m.rowid");
  // The reference's CANN db rows (tests/golden/npu_mem/expected/db.canonical.sql), in file order.
  const std::vector<std::string> want = {
      "app|0|1048676|1767268800000000000|0",      "device|2048|33554432|1767268800000000000|0",
      "app|512|2098152|1767268800000049920|0",    "device|3000|41943040|1767268800000049920|0",
      "app|1023|3146752|1767268800000122880|0",   "device|4096|50331648|1767268800000122880|0",
      "app|1|1|1767268800000199936|0",            "app|0|0|1767268800000998912|0",
      "device|5000|58720256|1767268800000998912|0"};
  CHECK(rows == want);
}
