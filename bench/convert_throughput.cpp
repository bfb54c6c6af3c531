// SPDX-License-Identifier: MIT
// Converter throughput on a generated PROF_ directory.
//
//   convert_throughput [records=1000000] [dir=/tmp/msprof_bench_prof]
//
// Generates a collection (tests/support/generated_prof.hpp), then times the
// streaming export of all three outputs (in a child, for its own peak RSS),
// and load+join, timeline, summaries and db separately from the whole model in
// memory; prints records/s, MB/s (input bytes) and peak RSS in one table.
#include <msprof/prof/reader.hpp>
#include <msprof/convert/export.hpp>

#include "../tests/support/child_peak_rss.hpp"
#include "../tests/support/generated_prof.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace cv = msprof::convert;

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t target = argc > 1 ? std::stoull(argv[1]) : 1000000;
  const fs::path dir = argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "msprof_bench_prof";
  const fs::path prof = dir / "PROF_000001_20260101000000000_BENCHBENCHBENCHAA";
  const std::uint64_t bytes = generated_prof::generate(prof, target);
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); };

  // Decoding alone (every stream through the reader, nothing kept): the floor
  // under load+join.
  auto t = clk::now();
  std::uint64_t decoded = 0;
  {
    auto rd = msprof::prof::prof_reader::open(prof.string());
    if (!rd) {
      std::fprintf(stderr, "%s\n", rd.err().what().c_str());
      return 1;
    }
    auto count = [&](const auto&...) { ++decoded; };
    bool ok = rd->for_each_api(count) && rd->for_each_node_basic_info(count) && rd->for_each_tensor_info(count) &&
              rd->for_each_task_track(count) && rd->for_each_mstx(count) && rd->for_each_acsq(0, count) &&
              rd->for_each_pmu(0, count);
    if (!ok) {
      std::fprintf(stderr, "decode failed\n");
      return 1;
    }
  }
  const double t_decode = secs(t);

  // What the launcher and `msprof export` without a type do: the streaming
  // export of all three (the db beside timeline and summaries), in a child so
  // its peak RSS is its own.
  t = clk::now();
  const child_run all = run_in_child([&] {
    cv::export_options o;
    o.timestamp = "bench_all";
    return static_cast<bool>(cv::export_all(prof.string(), o));
  });
  const double t_all = secs(t);

  // `msprof export timeline`: streaming, load included.
  t = clk::now();
  cv::export_options streamed;
  streamed.timestamp = "bench_timeline";
  const bool timeline_ok = static_cast<bool>(cv::export_timeline(prof.string(), streamed));
  const double t_timeline_streamed = secs(t);

  // `msprof export timeline --timeline-format=chrome`: streaming, load
  // included, in a child for its peak RSS.
  t = clk::now();
  const child_run chrome = run_in_child([&] {
    cv::export_options o;
    o.timestamp = "bench_chrome";
    o.chrome = true;
    return static_cast<bool>(cv::export_timeline(prof.string(), o));
  });
  const double t_chrome = secs(t);

  t = clk::now();
  auto m = cv::load_model(prof.string());
  if (!m) {
    std::fprintf(stderr, "%s\n", m.err().what().c_str());
    return 1;
  }
  const double t_load = secs(t);
  // A generator slip (e.g. a wrong dataLen) makes the reader skip records with
  // a warning each: the numbers would then time a different conversion.
  if (!m->warnings.empty()) {
    std::fprintf(stderr, "generated data gave %zu warning(s), first: %s\n", m->warnings.size(), m->warnings[0].c_str());
    return 1;
  }
  const double rss_load = peak_rss_mib();
  const double recs = static_cast<double>(m->apis.size() + m->tasks.size() * 6 + m->mstx.size());
  cv::export_options o;
  o.timestamp = "bench";
  t = clk::now();
  auto r1 = cv::export_timeline(*m, o);
  const double t_tl = secs(t);
  std::uint64_t tl_bytes = 0;
  if (r1)
    for (const auto& f : r1->files) tl_bytes += fs::file_size(f);
  // The same number of bytes written by one fwrite per 1 MiB: the timeline
  // cannot be faster than this on this disk.
  t = clk::now();
  {
    const fs::path floor_file = dir / "write_floor.bin";
    std::vector<char> block(1u << 20, 'x');
    std::FILE* f = std::fopen(floor_file.c_str(), "wb");
    for (std::uint64_t left = tl_bytes; f && left > 0;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
      std::fwrite(block.data(), 1, n, f);
      left -= n;
    }
    if (f) std::fclose(f);
    fs::remove(floor_file);
  }
  const double t_floor = secs(t);
  t = clk::now();
  auto r2 = cv::export_summary(*m, o);
  const double t_sum = secs(t);
  t = clk::now();
  auto r3 = cv::export_db(*m, o);
  const double t_db = secs(t);
  if (!r1 || !r2 || !r3 || !all.ok || !timeline_ok || !chrome.ok) {
    std::fprintf(stderr, "export failed\n");
    return 1;
  }
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("records: %.0f raw (%.1f MB input), %zu APIs, %zu tasks, %zu mstx\n", recs, mb, m->apis.size(),
              m->tasks.size(), m->mstx.size());
  std::printf("%-22s %10s %14s %10s\n", "stage", "seconds", "records/s", "MB/s");
  auto row = [&](const char* name, double s) { std::printf("%-22s %10.3f %14.0f %10.1f\n", name, s, recs / s, mb / s); };
  row("decode only", t_decode);
  row("load+join", t_load);
  row("timeline (after load)", t_tl);
  row("summaries (after load)", t_sum);
  row("db (after load)", t_db);
  row("timeline incl. load", t_timeline_streamed);
  row("all three incl. load", t_all);
  row("chrome incl. load", t_chrome);
  std::printf("(the stages \"after load\" give the exporters the loaded model as one window; the \"incl. load\" ones are the streaming exports from the directory)\n");
  std::printf("timeline output: %.1f MB, %.0f MB/s written; writing as many bytes with fwrite alone: %.3f s, %.0f MB/s\n",
              static_cast<double>(tl_bytes) / 1e6, static_cast<double>(tl_bytes) / 1e6 / t_tl, t_floor,
              static_cast<double>(tl_bytes) / 1e6 / t_floor);
  std::printf("decoded %llu records in the decode-only pass\n", static_cast<unsigned long long>(decoded));
  std::printf("peak RSS: streaming export of all three %.1f MiB; chrome form %.1f MiB; whole model %.1f MiB after load, "
              "%.1f MiB at the end\n",
              all.peak_mib, chrome.peak_mib, rss_load, peak_rss_mib());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
