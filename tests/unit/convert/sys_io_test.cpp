// SPDX-License-Identifier: MIT
// The device's PCIe samples (device slices pcie.data.<id>) and the CANN
// summary pcie, against the golden case `pcie`: its input is what
// tests/support/golden_sysio.hpp writes, its expected file the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/sys_io.hpp>

#include <fstream>

#include "../../support/golden_sysio.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kCase = "pcie";

path pcie_slice(const path& prof) { return prof / "device_0" / "data" / "pcie.data.0.slice_0"; }

}  // namespace

TEST_CASE("pcie: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_sysio::add_pcie(base.prof);
  golden::temp_copy ours(kCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("pcie: the pcie summary equals the reference") {
  golden::temp_copy t(kCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kCase) == 1);
  CHECK(s->warnings.empty());
  // The latest sample (the file's second) is shown, its 0xFFFFF minimum as 0.
  const auto rows = golden::lines(golden::slurp(golden::output(t.prof, "pcie", "csv")));
  REQUIRE(rows.size() == 1 + 7);
  CHECK(rows[2] == "0,Tx_np_avg(MB/s),0.0,476.837,238.419");
  CHECK(rows[4] == "0,Tx_latency_avg(us),1.5,2.5,3.457");
}

TEST_CASE("pcie: a collection without PCIe samples has no pcie summary") {
  golden::temp_copy t("ops_pipeutil");
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  CHECK_FALSE(p->has_value());
  CHECK(warnings.empty());
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::output(t.prof, "pcie", "csv").empty());
}

TEST_CASE("pcie: a cut sample is a warning naming the file and offset; the whole ones are kept") {
  golden::temp_copy t(kCase);
  const auto slice = pcie_slice(t.prof);
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << std::string(50, '\x01');
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  bool named = false;
  for (const auto& w : warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 384") != std::string::npos;
  CHECK(named);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  CHECK(golden::slurp(golden::output(t.prof, "pcie", "csv")) ==
        golden::slurp(golden::case_dir(kCase) / "expected" / "pcie.csv"));
}

TEST_CASE("pcie: of samples with equal timestamps the first in the file is shown") {
  golden::temp_copy t(kCase);
  const auto slice = pcie_slice(t.prof);
  std::string bytes = golden::slurp(slice);
  REQUIRE(bytes.size() == 4 * 96);
  bytes.replace(3 * 96, 8, bytes.substr(96, 8));  // the last sample gets the latest time too
  std::ofstream(slice, std::ios::binary | std::ios::trunc) << bytes;
  std::vector<std::string> warnings;
  auto p = cv::pcie_summary(t.prof.string(), warnings);
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  CHECK((*p)->rows[0] == std::vector<std::string>{"0", "Tx_p_avg(MB/s)", "95.367", "999999.046", "317.574"});
}
