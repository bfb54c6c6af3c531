// SPDX-License-Identifier: MIT
// The chrome form streams: peak memory does not grow with the number of
// events. Generated directories of 1 M and 5 M raw records are exported as the
// chrome form (export timeline --timeline-format=chrome) and as the exact
// timeline, each in a child process (peak RSS from wait4). A 1 MiB spill budget
// and 16 MiB parts make both sizes spill and split, so both reach the bound the
// budget sets. The load shared by both forms grows a little with the records
// (about 16 MiB from 1 M to 5 M at this budget), so the chrome form is held to
// the exact form: no more memory at 5 M, and no more growth.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include "../../support/child_peak_rss.hpp"
#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

TEST_CASE("chrome: streaming: 5 M raw records need no more memory than 1 M") {
  MSPROF_TEST_SKIP_UNDER_SANITIZERS();
  temp_dir d("msprof_chrome_memory");
  child_run chrome_small, chrome_large, exact_small, exact_large;
  for (std::uint64_t records : {1000000u, 5000000u}) {
    const auto prof = d / ("PROF_000001_20260101000000000_CHROME" + std::to_string(records));
    generated_prof::generate(prof, records);
    auto run = [&](bool chrome) {
      return run_in_child([&] {
        cv::export_options o;
        o.timestamp = "T";
        o.chrome = chrome;
        o.chrome_options.max_part_bytes = std::uint64_t{16} << 20;
        o.spill_budget = 1u << 20;  // already reached by 1 M records: the bound shows at both sizes
        const auto e = cv::export_timeline(prof.string(), o);
        if (!e) std::fprintf(stderr, "%s\n", e.err().what().c_str());
        return static_cast<bool>(e);
      });
    };
    const child_run exact = run(false);
    REQUIRE(exact.ok);
    const child_run r = run(true);
    REQUIRE(r.ok);
    // Everything was written: parts under the size guard, listed in their note,
    // together about as large as the exact timeline.
    const auto out = prof / "mindstudio_profiler_output";
    std::uint64_t bytes = 0;
    std::size_t parts = 0;
    for (const auto& e : fs::directory_iterator(out)) {
      const auto name = e.path().filename().string();
      if (name.rfind("chrome_trace_T_part", 0) != 0) continue;
      ++parts;
      bytes += fs::file_size(e.path());
      CHECK(fs::file_size(e.path()) <= (std::uint64_t{16} << 20));
    }
    CHECK(parts >= 2);
    CHECK(fs::exists(out / "chrome_trace_T_parts.txt"));
    CHECK(bytes > fs::file_size(out / "msprof_T.json") / 2);
    MESSAGE(records << " raw records: " << parts << " parts, " << (bytes >> 20) << " MiB, peak RSS " << r.peak_mib
                    << " MiB (the exact form: " << exact.peak_mib << " MiB)");
    (records == 1000000u ? chrome_small : chrome_large) = r;
    (records == 1000000u ? exact_small : exact_large) = exact;
    fs::remove_all(prof);  // 5 M records and their outputs are a few GB
  }
  // Room for allocator noise, not for any per-event store (the whole-model
  // form took about 850 MiB per million events).
  CHECK(chrome_large.peak_mib < exact_large.peak_mib * 1.1 + 8);
  CHECK(chrome_large.peak_mib - chrome_small.peak_mib <
        exact_large.peak_mib - exact_small.peak_mib + chrome_small.peak_mib * 0.1 + 8);
}
