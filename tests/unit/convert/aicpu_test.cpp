// SPDX-License-Identifier: MIT
// The AI CPU's kernel reports (device slices aicpu.data.<id>) and the CANN
// summary aicpu, against the golden case `aicpu`: its input is what
// tests/support/golden_aicpu.hpp writes, its expected files the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/aicpu.hpp>
#include <msprof/convert/export.hpp>

#include <fstream>

#include "../../support/golden_aicpu.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kAicpuCase = "aicpu";

path aicpu_slice(const path& prof) { return prof / "device_0" / "data" / "aicpu.data.0.slice_0"; }

std::vector<cv::aicpu_kernel> kernels(const path& prof, std::vector<std::string>& warnings) {
  auto k = cv::aicpu_kernels(prof.string(), warnings);
  REQUIRE_MESSAGE(k.has_value(), k.err().what());
  return *k;
}

}  // namespace

TEST_CASE("aicpu: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_aicpu::add_records(base.prof);
  golden::temp_copy ours(kAicpuCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("aicpu: every summary equals the reference") {
  golden::temp_copy t(kAicpuCase);
  golden::export_everything(t);
  CHECK(golden::check_csvs(t, kAicpuCase) == 5);
  // 4 reports, one started before the collection; Cast_5 named through its AI_CPU task.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "aicpu", "csv")));
  REQUIRE(rows.size() == 1 + 3);
  CHECK(rows[1].find(",Cast_5,") != std::string::npos);
  CHECK(rows[2].find(",N/A,") != std::string::npos);
}

TEST_CASE("aicpu: a collection without AI CPU reports has no aicpu summary") {
  golden::temp_copy t("ops_pipeutil");
  golden::export_everything(t);
  CHECK(golden::output(t.prof, "aicpu", "csv").empty());
  std::vector<std::string> warnings;
  CHECK(kernels(t.prof, warnings).empty());
  CHECK(warnings.empty());
}

TEST_CASE("aicpu: damaged reports are named and skipped, the others kept") {
  golden::temp_copy t(kAicpuCase);
  std::string bytes = golden::slurp(aicpu_slice(t.prof));
  REQUIRE(bytes.size() == 4 * 256);
  bytes[256] = 0;  // the second report's magic
  // A report of another AICPU type (DP's) is passed over without a word.
  std::string other(256, '\0');
  const msprof::codec::record_header h{msprof::codec::magic, msprof::codec::level::aicpu, 1, 0, 100, 0};
  msprof::codec::store(reinterpret_cast<unsigned char*>(other.data()), h);
  bytes += other;
  bytes += std::string(100, '\x5a');  // a cut record at the end
  std::ofstream(aicpu_slice(t.prof), std::ios::binary | std::ios::trunc) << bytes;
  std::ofstream(aicpu_slice(t.prof).string() + ".done", std::ios::trunc) << "filesize:" << bytes.size() << "\n";
  std::vector<std::string> warnings;
  const auto ks = kernels(t.prof, warnings);
  REQUIRE(ks.size() == 2);
  CHECK(ks[0].task_id == 14);
  CHECK(ks[0].compute_us == "80.0");
  CHECK(ks[0].total_us == "100.02");
  CHECK(ks[1].stream_id == 3);
  for (const auto& w : warnings) MESSAGE(w);
  REQUIRE(warnings.size() == 2);
  for (const auto& w : warnings) CHECK(w.find("aicpu.data.0.slice_0") != std::string::npos);
  CHECK(warnings[0].find("256") != std::string::npos);  // the offset of the bad magic
}
