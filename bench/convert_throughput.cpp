// SPDX-License-Identifier: MIT
// Converter throughput on a generated PROF_ directory.
//
//   convert_throughput [records=1000000] [dir=/tmp/msprof_bench_prof]
//
// Generates a collection (per op: Node@launch API, node_basic_info,
// tensor_info, task_track, ACSQ start + end, ContextPmu; one mstx range per 8
// ops), then times load+join, timeline, summaries and db separately and prints
// records/s, MB/s (input bytes) and peak RSS in one table. The generator writes
// raw bytes directly (bench-only); layouts as in docs/formats.md / the codec.
#include <msprof/convert/export.hpp>

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

template <class T>
void put(std::vector<unsigned char>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

struct slice_writer {
  slice_writer(fs::path d, std::string s, std::size_t r) : dir(std::move(d)), stem(std::move(s)), rec(r) {}
  fs::path dir;
  std::string stem;
  std::size_t rec;
  int n = 0;
  std::size_t in_file = 0;
  std::ofstream f;
  std::uint64_t total = 0;
  void write(const std::vector<unsigned char>& r) {
    if (!f.is_open() || in_file + rec > (2u << 20)) {
      if (f.is_open()) f.close();
      f.open(dir / (stem + ".slice_" + std::to_string(n++)), std::ios::binary);
      in_file = 0;
    }
    f.write(reinterpret_cast<const char*>(r.data()), static_cast<std::streamsize>(rec));
    in_file += rec;
    total += rec;
  }
};

std::vector<unsigned char> header(std::size_t size, std::uint16_t level, std::uint32_t type, std::uint32_t tid,
                                  std::uint64_t ts) {
  std::vector<unsigned char> b(size, 0);
  put<std::uint16_t>(b, 0, 0x5A5A);
  put<std::uint16_t>(b, 2, level);
  put<std::uint32_t>(b, 4, type);
  put<std::uint32_t>(b, 8, tid);
  put<std::uint64_t>(b, 16, ts);
  if (size != 40) put<std::uint32_t>(b, 12, static_cast<std::uint32_t>(size - 24));  // dataLen (not MsprofApi)
  return b;
}

std::uint64_t generate(const fs::path& prof, std::uint64_t target_records) {
  fs::remove_all(prof);
  const auto host = prof / "host", hdata = host / "data", dev = prof / "device_0", ddata = dev / "data";
  fs::create_directories(hdata);
  fs::create_directories(ddata);
  std::ofstream(host / "info.json")
      << R"({"pid": "1000", "pid_name": "bench", "hostname": "bench", "hostUid": "0", "platform_version": "5", "rank_id": -1, "CPU": [{"Frequency": ""}]})";
  std::ofstream(host / "start_info") << R"({"collectionTimeBegin": "1767268800000000", "clockMonotonicRaw": "1000000000000"})";
  std::ofstream(host / "end_info") << R"({"collectionTimeEnd": "1767268900000000"})";
  std::ofstream(dev / "info.json.0")
      << R"({"platform_version": "5", "DeviceInfo": [{"id": 0, "ai_core_num": 24, "aiv_num": 48, "hwts_frequency": "50", "aic_frequency": "1800"}]})";
  std::ofstream(dev / "dev_start.log.0") << "clock_monotonic_raw: 1000000000000\ncntvct: 7000000000\n";
  std::ofstream(dev / "sample.json") << R"({"ai_core_metrics": "PipeUtilization"})";
  std::ofstream(hdata / "unaging.additional.type_info_dic.slice_0")
      << "10000_5:launch\n5000_0:KERNEL_AICORE\n";
  std::ofstream(hdata / "unaging.additional.hash_dic.slice_0") << "1:MatMul\n2:MatMul_kernel\n3:default\n";

  slice_writer api{hdata, "unaging.api_event.data", 40}, node{hdata, "unaging.compact.node_basic_info", 64},
      tensor{hdata, "unaging.additional.tensor_info", 256}, track{hdata, "unaging.compact.task_track", 64},
      tx{hdata, "aging.additional.msproftx", 256}, acsq{ddata, "stars_soc.data.0", 64},
      pmu{ddata, "ffts_profile.data.0", 128};
  std::uint64_t records = 0, op = 0;
  const std::uint32_t tid = 1001;
  while (records < target_records) {
    const std::uint64_t t0 = 1000000000000ull + op * 10000;  // host ns
    const std::uint16_t stream = static_cast<std::uint16_t>(op % 4);
    const std::uint16_t task = static_cast<std::uint16_t>(op / 4);
    auto a = header(40, 10000, 5, tid, t0);
    put<std::uint64_t>(a, 24, t0 + 5000);
    put<std::uint64_t>(a, 32, 1);
    api.write(a);
    auto n = header(64, 10000, 0, tid, t0 + 100);
    put<std::uint64_t>(n, 24, 1);
    put<std::uint32_t>(n, 32, 0);
    put<std::uint64_t>(n, 36, 1);
    put<std::uint32_t>(n, 44, 24);
    node.write(n);
    auto te = header(256, 10000, 1, tid, t0 + 100);
    put<std::uint64_t>(te, 24, 1);
    put<std::uint32_t>(te, 32, 2);
    for (int k = 0; k < 2; ++k) {
      put<std::uint32_t>(te, 36 + 44 * k, static_cast<std::uint32_t>(k));
      put<std::uint32_t>(te, 36 + 44 * k + 4, 2);
      put<std::uint32_t>(te, 36 + 44 * k + 8, 1);
      put<std::uint32_t>(te, 36 + 44 * k + 12, 128);
      put<std::uint32_t>(te, 36 + 44 * k + 16, 256);
    }
    tensor.write(te);
    auto tr = header(64, 5000, 0, tid, t0 + 4000);
    put<std::uint16_t>(tr, 26, stream);
    put<std::uint32_t>(tr, 28, task);
    put<std::uint64_t>(tr, 40, 2);
    track.write(tr);
    const std::uint64_t cyc = 7000000000ull + op * 500 + 1000;
    for (int e = 0; e < 2; ++e) {
      std::vector<unsigned char> s(64, 0);
      put<std::uint16_t>(s, 0, static_cast<std::uint16_t>(e));
      put<std::uint16_t>(s, 4, stream);
      put<std::uint16_t>(s, 6, task);
      put<std::uint64_t>(s, 8, cyc + static_cast<std::uint64_t>(e) * 400);
      acsq.write(s);
    }
    std::vector<unsigned char> p(128, 0);
    put<std::uint16_t>(p, 0, 0x28);
    put<std::uint16_t>(p, 4, stream);
    put<std::uint16_t>(p, 6, task);
    put<std::uint64_t>(p, 32, 1440000);
    for (int k = 0; k < 8; ++k) put<std::uint64_t>(p, 48 + 8 * k, 1000u * static_cast<unsigned>(k + 1));
    pmu.write(p);
    records += 7;
    if (op % 8 == 0) {
      auto m = header(256, 20500, 0, tid, t0 + 6000);
      put<std::uint16_t>(m, 24, 1);
      put<std::uint32_t>(m, 36, 1000);
      put<std::uint32_t>(m, 40, tid);
      put<std::uint32_t>(m, 48, 2);
      put<std::uint64_t>(m, 64, t0);
      put<std::uint64_t>(m, 72, t0 + 6000);
      put<std::uint64_t>(m, 80, op / 8 + 1);
      put<std::uint64_t>(m, 88, 3);
      std::memcpy(m.data() + 100, "bench range", 11);
      tx.write(m);
      ++records;
    }
    ++op;
  }
  return api.total + node.total + tensor.total + track.total + tx.total + acsq.total + pmu.total;
}

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
  const std::uint64_t bytes = generate(prof, target);
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); };

  // Decoding alone (every stream through the reader, nothing kept): the floor
  // under load+join.
  auto t = clk::now();
  std::uint64_t decoded = 0;
  {
    auto rd = msprof::codec::prof_reader::open(prof.string());
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
  // What the launcher and `msprof export` without a type do: load once, then
  // the db beside timeline and summaries.
  o.timestamp = "bench_all";
  t = clk::now();
  auto r4 = cv::export_all(prof.string(), o);
  const double t_all = secs(t);
  if (!r1 || !r2 || !r3 || !r4) {
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
  row("timeline incl. load", t_load + t_tl);
  row("all three incl. load", t_all);
  std::printf("timeline output: %.1f MB, %.0f MB/s written; writing as many bytes with fwrite alone: %.3f s, %.0f MB/s\n",
              static_cast<double>(tl_bytes) / 1e6, static_cast<double>(tl_bytes) / 1e6 / t_tl, t_floor,
              static_cast<double>(tl_bytes) / 1e6 / t_floor);
  std::printf("decoded %llu records in the decode-only pass\n", static_cast<unsigned long long>(decoded));
  std::printf("peak RSS: %.1f MiB after load, %.1f MiB at the end\n", rss_load, peak_rss_mib());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
