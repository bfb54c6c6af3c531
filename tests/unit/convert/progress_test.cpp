// SPDX-License-Identifier: MIT
// progress_text(): the bytes done of the total in the total's unit, the rate,
// the time left and the directories, as msprof's progress display shows them.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/progress.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "golden_util.hpp"

using msprof::convert::progress_state;
using msprof::convert::progress_text;

TEST_CASE("progress: bytes of the total, rate and time left") {
  progress_state s;
  s.done = 412000000;
  s.total = 980000000;
  s.seconds = 412.0 / 61.0;  // 61 MB/s
  s.dirs_done = 1;
  s.dirs = 3;
  CHECK(progress_text(s) == "[########............] 412/980 MB  61 MB/s  9s left  (1/3 dirs)");
  s = {100000000, 1000000000, 10.0, 0, 1};  // 10 MB/s, 900 MB left: 90 s
  CHECK(progress_text(s) == "[##..................] 100/1000 MB  10 MB/s  1m30s left  (0/1 dirs)");
  s = {5000000, 20000000, 2.0, 0, 1};  // slow: one decimal
  CHECK(progress_text(s) == "[#####...............] 5/20 MB  2.5 MB/s  6s left  (0/1 dirs)");
}

TEST_CASE("progress: the start, the end, rounding and no byte total") {
  // Nothing read yet: no rate, no guess at the time left.
  CHECK(progress_text({0, 5083, 3.0, 0, 2}) == "[....................] 0/5083 B  (0/2 dirs)");
  // Done: the total twice, no time left.
  CHECK(progress_text({5083, 5083, 1.0, 2, 2}) == "[####################] 5083/5083 B  0.0 MB/s  (2/2 dirs)");
  // More read than counted (a file that grew): clamped to the total.
  CHECK(progress_text({9000, 5083, 1.0, 2, 2}) == progress_text({5083, 5083, 1.0, 2, 2}));
  // Not finished never reads as finished, even when the unit rounds it up.
  CHECK(progress_text({980100000, 980400000, 10.0, 0, 1}).find("979/980 MB") != std::string::npos);
  // Larger totals change the unit at 10,000 of the smaller one.
  CHECK(progress_text({0, 9999, 1.0, 0, 1}).find("0/9999 B") != std::string::npos);
  CHECK(progress_text({0, 10000, 1.0, 0, 1}).find("0/10 kB") != std::string::npos);
  CHECK(progress_text({0, 12345678901ull, 1.0, 0, 1}).find("0/12 GB") != std::string::npos);
  // No bytes to count (analyse): the directories fill the bar.
  CHECK(progress_text({0, 0, 1.0, 1, 2}) == "[##########..........] (1/2 dirs)");
  CHECK(progress_text({0, 0, 1.0, 0, 0}) == "[....................] (0/0 dirs)");
}

TEST_CASE("progress: the loader and the exports count every data slice byte they read, data_bytes() is the total") {
  namespace fs = std::filesystem;
  for (const char* name : golden::cases) {
    CAPTURE(name);
    golden::temp_copy t(name);
    // Every slice in host/data and device_N/data; the dictionaries are read when the
    // collection is opened, the record slices by the loader.
    std::uint64_t all = 0, records = 0;
    for (const auto& e : fs::recursive_directory_iterator(t.prof)) {
      const auto n = e.path().filename().string();
      if (!e.is_regular_file() || e.path().parent_path().filename() != "data" || n.find(".done") != std::string::npos)
        continue;
      all += e.file_size();
      if (n.find("_dic.") == std::string::npos) records += e.file_size();
    }
    CHECK(msprof::convert::data_bytes(t.prof.string()) == all);
    std::atomic<std::uint64_t> read{0};
    msprof::convert::load_options lo;
    lo.bytes_read = &read;
    REQUIRE(msprof::convert::load_windows(t.prof.string(), lo, [](msprof::convert::model&) {}));
    CHECK(read.load() == records);
    std::atomic<std::uint64_t> exported{0};
    msprof::convert::export_options eo;
    eo.bytes_read = &exported;
    REQUIRE(msprof::convert::export_timeline(t.prof.string(), eo));
    CHECK(exported.load() == records);
  }
  CHECK(msprof::convert::data_bytes("/nonexistent/PROF_x") == 0);
}
