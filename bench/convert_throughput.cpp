// SPDX-License-Identifier: MIT
// Converter throughput on a generated PROF_ directory.
//
//   convert_throughput [records=1000000] [dir=/tmp/msprof_bench_prof] [runs=5]
//
// Generates a collection (tests/support/generated_prof.hpp), then times, each
// `runs` times in a child process (its own peak RSS) and reports the median:
// decoding alone, load+join alone, and the streaming exports `msprof export`
// runs (timeline, summary, db, and all three in one pass). Each export's floor
// is decoding alone plus its output bytes written at the disk rate measured in
// the same run (one fwrite per MiB of the same number of bytes); the ratio says
// how far the export is from it. The CPU time of each child is printed too: on
// a shared machine it moves less than the wall time. The db also gets its rows/s per table (one run
// of db_window_writer on the loaded model).
#include <msprof/convert/db.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/prof/reader.hpp>

#include "../tests/support/child_peak_rss.hpp"
#include "../tests/support/generated_prof.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace cv = msprof::convert;

namespace {

using clk = std::chrono::steady_clock;

double secs_since(clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Bytes of what the exports wrote (mindstudio_profiler_output/ and msprof_*.db), removed afterwards.
std::uint64_t take_outputs(const fs::path& prof) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(prof, ec)) {
    const auto rel = e.path().lexically_relative(prof).string();
    const bool out = rel.rfind("mindstudio_profiler_output", 0) == 0 ||
                     (rel.rfind("msprof_", 0) == 0 && e.path().extension() == ".db");
    if (out && e.is_regular_file(ec)) n += e.file_size(ec);
  }
  fs::remove_all(prof / "mindstudio_profiler_output", ec);
  for (const auto& e : fs::directory_iterator(prof, ec))
    if (e.path().filename().string().rfind("msprof_", 0) == 0 && e.path().extension() == ".db") fs::remove(e.path(), ec);
  return n;
}

/// `bytes` written to `dir` with one fwrite per MiB, then closed: the disk rate (bytes/s) as the exports see it.
double disk_rate(const fs::path& dir, std::uint64_t bytes) {
  const fs::path file = dir / "write_floor.bin";
  std::vector<char> block(1u << 20, 'x');
  const auto t = clk::now();
  std::FILE* f = std::fopen(file.c_str(), "wb");
  for (std::uint64_t left = bytes; f && left > 0;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
    std::fwrite(block.data(), 1, n, f);
    left -= n;
  }
  if (f) std::fclose(f);
  const double s = secs_since(t);
  fs::remove(file);
  return static_cast<double>(bytes) / s;
}

struct stage {
  std::string name;
  std::vector<double> secs, rss, cpu;
  std::uint64_t out_bytes = 0;
  bool ok = true;
};

/// Runs work() `runs` times, each in a child; the output it leaves is measured and removed.
template <class Work>
stage timed(const char* name, int runs, const fs::path& prof, Work work) {
  stage s{name, {}, {}, {}, 0, true};
  for (int i = 0; i < runs; ++i) {
    const auto t = clk::now();
    const child_run c = run_in_child(work);
    s.secs.push_back(secs_since(t));
    s.rss.push_back(c.peak_mib);
    s.cpu.push_back(c.cpu_s);
    s.ok = s.ok && c.ok;
    s.out_bytes = take_outputs(prof);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t target = argc > 1 ? std::stoull(argv[1]) : 1000000;
  const fs::path dir = argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "msprof_bench_prof";
  const int runs = argc > 3 ? std::max(1, std::stoi(argv[3])) : 5;
  const fs::path prof = dir / "PROF_000001_20260101000000000_BENCHBENCHBENCHAA";
  const std::uint64_t in_bytes = generated_prof::generate(prof, target);

  // Decoding alone (every stream through the reader, nothing kept).
  const stage decode = timed("decode only", runs, prof, [&] {
    auto rd = msprof::prof::prof_reader::open(prof.string());
    if (!rd) return false;
    std::uint64_t n = 0;
    auto count = [&](const auto&...) { ++n; };
    return rd->for_each_api(count) && rd->for_each_node_basic_info(count) && rd->for_each_tensor_info(count) &&
           rd->for_each_task_track(count) && rd->for_each_mstx(count) && rd->for_each_acsq(0, count) &&
           rd->for_each_pmu(0, count) && n > 0;
  });
  const stage load = timed("load+join", runs, prof, [&] {
    return static_cast<bool>(cv::load_windows(prof.string(), {}, [](cv::model&) {}));
  });
  auto exporting = [&](cv::export_parts p) {
    return [&prof, p] {
      cv::export_options o;
      o.timestamp = "bench";
      return static_cast<bool>(cv::export_parts_of(prof.string(), o, p));
    };
  };
  std::vector<stage> exports;
  exports.push_back(timed("timeline", runs, prof, exporting({true, false, false})));
  exports.push_back(timed("summary", runs, prof, exporting({false, true, false})));
  exports.push_back(timed("db", runs, prof, exporting({false, false, true})));
  exports.push_back(timed("all three", runs, prof, exporting({true, true, true})));
  // `msprof export timeline --timeline-format=chrome`: the viewer-safe form, streamed.
  exports.push_back(timed("chrome", runs, prof, [&prof] {
    cv::export_options o;
    o.timestamp = "bench_chrome";
    o.chrome = true;
    return static_cast<bool>(cv::export_timeline(prof.string(), o));
  }));

  // The record count, and the generator's check (after the timed children, so
  // that what this process allocates here is not in their peak RSS): a slip (e.g. a wrong dataLen)
  // makes the reader skip records with a warning each, and the numbers would
  // time a different conversion.
  double recs = 0;
  std::size_t apis = 0, tasks = 0, mstx = 0;
  {
    auto m = cv::load_windows(prof.string(), {}, [&](cv::model& w) {
      apis += w.apis.size();
      tasks += w.tasks.size();
      mstx += w.mstx.size();
    });
    if (!m) {
      std::fprintf(stderr, "%s\n", m.err().what().c_str());
      return 1;
    }
    if (!m->warnings.empty()) {
      std::fprintf(stderr, "generated data gave %zu warning(s), first: %s\n", m->warnings.size(),
                   m->warnings[0].c_str());
      return 1;
    }
    recs = static_cast<double>(apis + tasks * 6 + mstx);
  }

  // The disk rate, measured now with as many bytes as the largest export wrote.
  std::uint64_t most = 0;
  for (const auto& s : exports) most = std::max(most, s.out_bytes);
  std::vector<double> rates;
  for (int i = 0; i < runs; ++i) rates.push_back(disk_rate(dir, most));
  const double rate = median(rates);

  const double t_decode = median(decode.secs);
  std::printf("records: %.0f raw (%.1f MB input), %zu APIs, %zu tasks, %zu mstx; median of %d runs, each in a child\n",
              recs, static_cast<double>(in_bytes) / 1e6, apis, tasks, mstx, runs);
  std::printf("disk rate: %.0f MB/s (fwrite of %.1f MB, 1 MiB blocks)\n", rate / 1e6, static_cast<double>(most) / 1e6);
  std::printf("%-12s %8s %9s %11s %8s %9s %13s %8s %7s %11s %6s\n", "stage", "s", "s/1M rec", "records/s", "out MB",
              "peak MiB", "(min..max)", "floor s", "÷floor", "s min..max", "cpu s");
  auto row = [&](const stage& s, bool with_floor) {
    const double t = median(s.secs);
    const double floor = t_decode + static_cast<double>(s.out_bytes) / rate;
    char secs[32], rss[32], out[16] = "-", fl[16] = "-", ratio[16] = "-";
    std::snprintf(secs, sizeof secs, "%.2f..%.2f", *std::min_element(s.secs.begin(), s.secs.end()),
                  *std::max_element(s.secs.begin(), s.secs.end()));
    std::snprintf(rss, sizeof rss, "(%.1f..%.1f)", *std::min_element(s.rss.begin(), s.rss.end()),
                  *std::max_element(s.rss.begin(), s.rss.end()));
    if (with_floor) {
      std::snprintf(out, sizeof out, "%.1f", static_cast<double>(s.out_bytes) / 1e6);
      std::snprintf(fl, sizeof fl, "%.3f", floor);
      std::snprintf(ratio, sizeof ratio, "%.2f", t / floor);
    }
    std::printf("%-12s %8.3f %9.3f %11.0f %8s %9.1f %13s %8s %7s %11s %6.2f%s\n", s.name.c_str(), t, t / recs * 1e6,
                recs / t, out, median(s.rss), rss, fl, ratio, secs, median(s.cpu), s.ok ? "" : "  FAILED");
  };
  row(decode, false);
  row(load, false);
  bool ok = decode.ok && load.ok;
  for (const auto& s : exports) {
    row(s, true);
    ok = ok && s.ok;
  }
  std::printf("(floor: decode only + output bytes ÷ disk rate; \"all three\" is one load feeding the three writers;\n"
              " cpu s: user + system time of all the child's threads, what the load of other processes does not change)\n");

  // The db per table: the seconds finish() spends on each (draining its
  // sorted rows and writing them, as pages or through SQLite).
  {
    const child_run c = run_in_child([&] {
      auto m = cv::load_model(prof.string());
      if (!m) return false;
      cv::db_window_writer w((dir / "bench_tables.db").string(), dir.string());
      if (!w.add(*m)) return false;
      const auto t = clk::now();
      if (!w.finish(*m)) return false;
      const double total = secs_since(t);
      for (const auto& s : w.table_stats())
        std::printf("  db table %-20s %10llu rows %8.3f s %12.0f rows/s\n", s.table.c_str(),
                    static_cast<unsigned long long>(s.rows), s.seconds, s.seconds > 0 ? s.rows / s.seconds : 0.0);
      std::printf("  db finish (ordered tables, strings, index) %.3f s\n", total);
      std::fflush(stdout);  // the child leaves through _exit
      return true;
    });
    std::error_code ec;
    fs::remove(dir / "bench_tables.db", ec);
    ok = ok && c.ok;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!ok) {
    std::fprintf(stderr, "an export failed\n");
    return 1;
  }
  return 0;
}
