// SPDX-License-Identifier: MIT
// CANN's memory data (npu_module_mem samples, GE's task_memory_info events)
// against the golden case `npu_memory`: its input is what
// tests/support/golden_memory.hpp writes, its expected files the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/npu_memory.hpp>

#include <fstream>

#include "../../support/golden_memory.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kCase = "npu_memory";

cv::export_options fixed_ts() {
  cv::export_options o;
  o.timestamp = "T";
  return o;
}

/// The canonical dump's lines of one table (its CREATE and INSERTs).
std::vector<std::string> table_lines(const std::vector<std::string>& dump, const std::string& table) {
  std::vector<std::string> v;
  for (const auto& l : dump)
    if (l.rfind("CREATE TABLE " + table + " ", 0) == 0 || l.rfind("INSERT INTO " + table + " ", 0) == 0)
      v.push_back(l);
  return v;
}

}  // namespace

TEST_CASE("npu_memory: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_memory::add_records(base.prof);
  golden::temp_copy ours(kCase);
  std::size_t files = 0;
  for (const auto& e : golden::fs::recursive_directory_iterator(ours.prof)) {
    if (!e.is_regular_file()) continue;
    const auto rel = golden::fs::relative(e.path(), ours.prof);
    CAPTURE(rel.string());
    REQUIRE(golden::fs::exists(base.prof / rel));
    CHECK(golden::slurp(base.prof / rel) == golden::slurp(e.path()));
    ++files;
  }
  std::size_t generated = 0;
  for (const auto& e : golden::fs::recursive_directory_iterator(base.prof)) generated += e.is_regular_file();
  CHECK(files == generated);
}

TEST_CASE("npu_memory: npu_module_mem summary and NPU_MODULE_MEM equal the reference") {
  golden::temp_copy t(kCase);
  const auto o = fixed_ts();
  auto s = cv::export_summary(t.prof.string(), o);
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  auto d = cv::export_db(t.prof.string(), o);
  REQUIRE_MESSAGE(d.has_value(), d.err().what());
  const auto exp_dir = golden::case_dir(kCase) / "expected";
  // The CANN summaries of the ops are the ones of ops_pipeutil; npu_module_mem is new.
  for (const char* stem : {"npu_module_mem", "op_summary", "op_statistic", "api_statistic", "task_time"}) {
    CAPTURE(stem);
    const auto ours = golden::output(t.prof, stem, "csv");
    REQUIRE(!ours.empty());
    CHECK(golden::slurp(ours) == golden::slurp(exp_dir / (std::string(stem) + ".csv")));
  }
  // 9 samples in the slice, one before the collection start.
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv"))).size() == 1 + 8);
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  const auto exp = golden::lines(golden::slurp(exp_dir / "db.canonical.sql"));
  CHECK(table_lines(got, "NPU_MODULE_MEM") == table_lines(exp, "NPU_MODULE_MEM"));
  CHECK(table_lines(got, "NPU_MODULE_MEM").size() == 1 + 8);
  CHECK(table_lines(got, "ENUM_MODULE") == table_lines(exp, "ENUM_MODULE"));
}

TEST_CASE("npu_memory: a cut npu_module_mem sample is a warning naming the file; the whole ones are kept") {
  golden::temp_copy t(kCase);
  const auto slice = t.prof / "device_0" / "data" / "npu_module_mem.data.0.slice_0";
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << std::string(10, '\x01');
  auto s = cv::export_summary(t.prof.string(), fixed_ts());
  REQUIRE(s.has_value());
  bool named = false;
  for (const auto& w : s->warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 216") != std::string::npos;
  CHECK(named);
  CHECK(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv")) ==
        golden::slurp(golden::case_dir(kCase) / "expected" / "npu_module_mem.csv"));
}

TEST_CASE("npu_memory: module names are the db's ENUM_MODULE, Unknown otherwise") {
  CHECK(std::string(cv::module_name(45)) == "GE");
  CHECK(std::string(cv::module_name(77)) == "CUSTOM");
  CHECK(std::string(cv::module_name(46)) == "Unknown");
  CHECK(cv::module_names().size() == 65);
}
