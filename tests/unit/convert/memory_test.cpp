// SPDX-License-Identifier: MIT
// The streaming export's promise: peak memory does not grow with the number of
// records. A generated directory of 5 M raw records is exported (timeline,
// summaries, db) in a child process, and so is one of 1 M; the child's peak
// RSS (wait4) must stay that of the small one. A 1 MiB spill budget makes both
// sizes spill, so both reach the bound the budget sets.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/sys_io.hpp>
#include <msprof/convert/sys_mem.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../support/child_peak_rss.hpp"
#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;

namespace {

/// Ops (one device task each) the generator writes for `records` raw records.
std::size_t ops_for(std::uint64_t records) {
  std::uint64_t written = 0, ops = 0;
  for (; written < records; ++ops) written += ops % 8 == 0 ? 8 : 7;
  return static_cast<std::size_t>(ops);
}

std::size_t lines_of(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("streaming export: 5 M raw records need no more memory than 1 M") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  MESSAGE("skipped under sanitizers: their allocators keep freed memory, so RSS says nothing about the exporter");
  return;
#endif
  temp_dir d("msprof_memory");
  child_run small, large;
  for (std::uint64_t records : {1000000u, 5000000u}) {
    const auto prof = d / ("PROF_000001_20260101000000000_MEMORY" + std::to_string(records));
    generated_prof::generate(prof, records);
    const child_run r = run_in_child([&] {
      cv::export_options o;
      o.timestamp = "T";
      o.spill_budget = 1u << 20;  // already reached by 1 M records: the bound shows at both sizes
      const auto e = cv::export_all(prof.string(), o);
      if (!e) std::fprintf(stderr, "%s\n", e.err().what().c_str());
      return static_cast<bool>(e);
    });
    REQUIRE(r.ok);
    // Everything was exported: one task_time row per op, the timeline closed.
    const auto out = prof / "mindstudio_profiler_output";
    CHECK(lines_of(out / "task_time_T.csv") == ops_for(records) + 1);
    CHECK(lines_of(out / "op_summary_T.csv") == ops_for(records) + 1);
    CHECK(std::filesystem::file_size(out / "msprof_T.json") > records * 50);
    CHECK(std::filesystem::file_size(prof / "msprof_T.db") > records * 20);
    MESSAGE(records << " raw records: peak RSS " << r.peak_mib << " MiB");
    (records == 1000000u ? small : large) = r;
    std::filesystem::remove_all(prof);  // 5 M records and their outputs are a few GB
  }
  // Five times the records, the same memory: room for allocator noise, not for
  // any per-record store (the whole model took about 120 MiB per million records).
  CHECK(large.peak_mib < small.peak_mib * 1.1 + 8);
}

TEST_CASE("streaming: HBM and HCCS samples put in time order need no more memory for 5 x the samples") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  MESSAGE("skipped under sanitizers: their allocators keep freed memory, so RSS says nothing about the exporter");
  return;
#endif
  // Both kinds are read in file order and exported in time order: samples
  // written newest first make every one move. 400 k samples already pass the
  // sorters' 16 MiB budget (a sample held in memory, as before, took 48 B).
  child_run small, large;
  for (std::size_t n : {400000u, 2000000u}) {
    golden::temp_copy hbm("hbm"), hccs("hccs");
    const auto hbm_slice = hbm.prof / "device_0" / "data" / "hbm.data.0.slice_0";
    std::vector<std::filesystem::path> slices{hbm_slice};
    {
      std::ofstream f(hbm_slice, std::ios::binary | std::ios::trunc);
      for (std::size_t i = n; i-- > 0;) {
        const std::uint64_t us_count[2] = {100 + i / 4, i};  // 4 samples a time: read/write x 2 channels
        const std::uint32_t event_id[2] = {static_cast<std::uint32_t>(i / 2 % 2), static_cast<std::uint32_t>(i % 2)};
        f.write(reinterpret_cast<const char*>(us_count), sizeof us_count).write(reinterpret_cast<const char*>(event_id), sizeof event_id);
      }
    }
    // HCCS text slices are read whole (64 MiB at most each): 200 k samples a slice, as a long collection has several.
    std::ofstream f;
    for (std::size_t i = n, k = 0; i-- > 0; ++k) {
      if (k % 200000 == 0) {
        slices.push_back(hccs.prof / "device_0" / "data" / ("hccs.data.0.slice_" + std::to_string(k / 200000)));
        f = std::ofstream(slices.back(), std::ios::binary | std::ios::trunc);
        f << "timestamp(ns) txAmount(B) rxAmount(B)\n";
      }
      f << 1000000100000 + i * 10 << ": " << i * 1000 << " " << i * 500 << "\n";
    }
    f.close();
    for (const auto& slice : slices)
      std::ofstream(slice.string() + ".done", std::ios::trunc) << "filesize:" << std::filesystem::file_size(slice) << "\n";
    std::size_t bandwidths = 0, throughputs = 0;
    const child_run r = run_in_child([&] {
      std::vector<std::string> warnings;
      auto b = cv::for_each_hbm_bandwidth(hbm.prof.string(), false, warnings, [&](const cv::hbm_bandwidth&) -> msprof::result<void> {
        ++bandwidths;
        return {};
      });
      auto t = cv::for_each_hccs_throughput(hccs.prof.string(), warnings, [&](const cv::hccs_throughput&) -> msprof::result<void> {
        ++throughputs;
        return {};
      });
      const auto s = cv::hccs_summary(hccs.prof.string(), warnings);
      // A bandwidth per sample; a throughput per pair of neighbours but the last.
      const bool ok = b && t && s && *s && bandwidths == n && throughputs == n - 2 && warnings.empty();
      if (!ok)
        std::fprintf(stderr, "%zu bandwidths, %zu throughputs, %zu warnings: %s\n", bandwidths, throughputs, warnings.size(),
                     warnings.empty() ? "" : warnings[0].c_str());
      return ok;
    });
    REQUIRE(r.ok);
    MESSAGE(n << " HBM and HCCS samples each: peak RSS " << r.peak_mib << " MiB");
    (n == 400000u ? small : large) = r;
  }
  CHECK(large.peak_mib < small.peak_mib * 1.1 + 8);
}
