// SPDX-License-Identifier: MIT
// A generated PROF_ directory of about `target_records` raw records, for the
// conversion benchmark and the streaming-memory test: per op a Node@launch API,
// node_basic_info, tensor_info, task_track, ACSQ start + end and a ContextPmu
// record; one mstx range per 8 ops. Raw bytes are written directly; layouts as
// in docs/formats.md / the codec, with every field Huawei's parser checks or
// reads (STARS magic, cnt, PMU timeList, task_track numBlocks), so both tools
// export the same from it.
#ifndef MSPROF_TESTS_SUPPORT_GENERATED_PROF_HPP
#define MSPROF_TESTS_SUPPORT_GENERATED_PROF_HPP

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace generated_prof {

namespace fs = std::filesystem;

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

inline std::vector<unsigned char> header(std::size_t size, std::uint16_t level, std::uint32_t type, std::uint32_t tid,
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

/// Writes the directory (replacing `prof`); returns the raw bytes written.
inline std::uint64_t generate(const fs::path& prof, std::uint64_t target_records) {
  fs::remove_all(prof);
  const auto host = prof / "host", hdata = host / "data", dev = prof / "device_0", ddata = dev / "data";
  fs::create_directories(hdata);
  fs::create_directories(ddata);
  // Control files as a CANN collection has them (the golden cases' forms with this data's
  // clock), so Huawei's parser reads a clean copy too (docs/formats.md, compatibility).
  const std::string info =
      R"({"jobInfo": "NA", "version": "1.0", "mac": "00:00:00:00:00:00", "OS": "Linux", "cpuCores": 2, )"
      R"("hostname": "bench", "hwtype": "x86_64", "devices": "0", "platform": "", "platform_version": "5", )"
      R"("pid": "1000", "memoryTotal": 1048576, "cpuNums": 1, "sysClockFreq": 100, "upTime": "1", "netCardNums": 0, )"
      R"("rank_id": -1, "pid_name": "bench", "drvVersion": 467473, "hostUid": "0", "CPU": [{"Id": 0, )"
      R"("Name": "GenuineIntel", "Frequency": "", "Logical_CPU_Count": 2, "Type": "bench"}], "DeviceInfo": [{"id": 0, )"
      R"("env_type": 3, "ctrl_cpu_id": "ARMv8_Cortex_A55", "ctrl_cpu_core_num": 1, "ctrl_cpu_endian_little": 1, )"
      R"("ts_cpu_core_num": 1, "ai_cpu_core_num": 6, "ai_core_num": 24, "ai_cpu_core_id": 2, "ai_core_id": 0, )"
      R"("aicpu_occupy_bitmap": 252, "ctrl_cpu": "0,1", "ai_cpu": "2,3,4,5,6,7", "aiv_num": 48, "hwts_frequency": "50", )"
      R"("aic_frequency": "1800", "aiv_frequency": "1800"}], "netCard": []})";
  const std::string start =
      R"({"collectionDateBegin": "2026-01-01 12:00:00.000000", "collectionDateEnd": "", )"
      R"("collectionTimeBegin": "1767268800000000", "collectionTimeEnd": "", "clockMonotonicRaw": "1000000000000"})";
  const std::string end =
      R"({"collectionDateBegin": "", "collectionDateEnd": "2026-01-01 12:01:40.000000", "collectionTimeBegin": "", )"
      R"("collectionTimeEnd": "1767268900000000", "clockMonotonicRaw": "1100000000000"})";
  const std::string host_start = "clock_monotonic_raw: 1000000000000\ncntvct: 1000000000000\ncntvct_diff: 0\n";
  std::ofstream(host / "info.json") << info;
  std::ofstream(host / "start_info") << start;
  std::ofstream(host / "end_info") << end;
  std::ofstream(host / "host_start.log") << "[Host]\n" << host_start;
  std::ofstream(host / "sample.json")
      << R"({"devices": "64", "acl": "on", "msproftx": "on", "ai_core_profiling_mode": "task-based", )"
         R"("aiv_profiling_mode": "task-based", "prof_level": "l1", "profLevel": "l1", "llc_profiling": "", )"
         R"("hostProfiling": "off", "taskTime": "l1", "result_dir": "", "runtimeApi": "on"})";
  std::ofstream(dev / "info.json.0") << info;
  std::ofstream(dev / "start_info.0") << start;
  std::ofstream(dev / "end_info.0") << end;
  std::ofstream(dev / "host_start.log.0") << "[Device0]\n" << host_start;
  std::ofstream(dev / "dev_start.log.0") << "clock_monotonic_raw: 1000000000000\ncntvct: 7000000000\n";
  std::ofstream(dev / "sample.json")
      << R"({"devices": "0", "ai_core_profiling": "on", "ai_core_metrics": "PipeUtilization", )"
         R"("ai_core_profiling_events": "0x8,0xa,0x9,0xb,0xc,0xd,0x54,0x55", "ai_core_profiling_mode": "task-based", )"
         R"("aicore_sampling_interval": 10, "aiv_profiling": "on", "aiv_metrics": "PipeUtilization", )"
         R"("aiv_profiling_events": "0x8,0xa,0x9,0xb,0xc,0xd,0x54,0x55", "aiv_profiling_mode": "task-based", )"
         R"("aiv_sampling_interval": 10, "llc_profiling": "", "hwts_log": "on", "stars_acsq_task": "on", )"
         R"("taskTime": "l1", "prof_level": "l1", "profLevel": "l1", "acl": "on", "msproftx": "on", "result_dir": ""})";
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
    put<std::uint16_t>(tr, 48, 24);  // extInfo numBlocks (Block Num)
    track.write(tr);
    const std::uint64_t cyc = 7000000000ull + op * 500 + 1000;
    for (int e = 0; e < 2; ++e) {
      std::vector<unsigned char> s(64, 0);
      put<std::uint16_t>(s, 0, static_cast<std::uint16_t>(e | ((op * 2 + static_cast<std::uint64_t>(e)) % 16) << 6));  // funcType, cnt
      put<std::uint16_t>(s, 2, 0x6BD3);  // STARS magic
      put<std::uint16_t>(s, 4, stream);
      put<std::uint16_t>(s, 6, task);
      put<std::uint64_t>(s, 8, cyc + static_cast<std::uint64_t>(e) * 400);
      acsq.write(s);
    }
    std::vector<unsigned char> p(128, 0);
    put<std::uint16_t>(p, 0, static_cast<std::uint16_t>(0x28 | (op % 16) << 6));  // funcType, cnt
    put<std::uint16_t>(p, 4, stream);
    put<std::uint16_t>(p, 6, task);
    put<std::uint64_t>(p, 32, 1440000);
    for (int k = 0; k < 8; ++k) put<std::uint64_t>(p, 48 + 8 * k, 1000u * static_cast<unsigned>(k + 1));
    put<std::uint64_t>(p, 112, cyc);  // timeList: the task's start and end
    put<std::uint64_t>(p, 120, cyc + 400);
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

}  // namespace generated_prof

#endif  // MSPROF_TESTS_SUPPORT_GENERATED_PROF_HPP
