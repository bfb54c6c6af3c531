// SPDX-License-Identifier: MIT
// The streaming export's promise: peak memory does not grow with the number of
// records. A generated directory of 5 M raw records is exported (timeline,
// summaries, db) in a child process, and so is one of 1 M; the child's peak
// RSS (wait4) must stay that of the small one. A 1 MiB spill budget makes both
// sizes spill, so both reach the bound the budget sets.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../support/child_peak_rss.hpp"
#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"

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
