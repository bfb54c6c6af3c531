// SPDX-License-Identifier: MIT
// The raw input of the golden case `npu_memory` (tests/golden/README.md): the
// `ops_pipeutil` collection plus CANN's memory data, written here through the
// project's own encoders: npu_module_mem samples of device 0 (modules RUNTIME,
// GE, HCCL and one id with no name; one sample before the collection start)
// and GE's task_memory_info events for the ops (allocations, releases, one
// allocation never released, one op whose name is not in hash_dic, one event
// before the start). golden_test.cpp checks that the checked-in input is what
// this writes, so the generator cannot drift from the data.
#ifndef MSPROF_TESTS_SUPPORT_GOLDEN_MEMORY_HPP
#define MSPROF_TESTS_SUPPORT_GOLDEN_MEMORY_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/layout.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

namespace golden_memory {

namespace fs = std::filesystem;
namespace codec = msprof::codec;

/// Host monotonic ns of `us` µs after the collection start (start_info's 1e12 ns; host_start.log: ns mode).
inline std::uint64_t at_us(double us) { return 1000000000000ull + static_cast<std::uint64_t>(us * 1000.0 + 0.5); }

inline void write_slice(const fs::path& prof, const msprof::prof::stream& s, const std::string& bytes, std::uint32_t n = 0) {
  namespace layout = msprof::prof::layout;
  const fs::path dir = (s.device ? prof / layout::device_dir(s.device_id) : prof / layout::host_dir) / layout::data_dir;
  fs::create_directories(dir);
  const std::string name = layout::slice_file(s.base_name(), n);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  std::ofstream(dir / (name + layout::done_suffix)) << "filesize:" << bytes.size() << "\n";
}

/// The file `p` with its first `from` replaced by `to`; throws when `p` lacks `from`.
inline void replace_in(const fs::path& p, const std::string& from, const std::string& to) {
  std::ifstream in(p, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  in.close();
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error(p.string() + " lacks " + from);
  text.replace(at, from.size(), to);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

/// device_0/sample.json with `fields` (`"key": "value", ...`) added at its end.
inline void add_sample_fields(const fs::path& prof, const std::string& fields) {
  const fs::path sample = prof / msprof::prof::layout::device_dir(0) / msprof::prof::layout::sample_json;
  std::ifstream in(sample, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  in.close();
  text = text.substr(0, text.rfind('}')) + ", " + fields + "}";
  std::ofstream(sample, std::ios::binary | std::ios::trunc) << text;
}

template <class Bytes>
void append(std::string& out, const Bytes& b) {
  out.append(reinterpret_cast<const char*>(b.data()), b.size());
}

/// The npu_module_mem samples of one device, as bytes.
inline std::string module_samples() {
  struct sample {
    std::uint32_t module;
    double us;
    std::uint64_t bytes;
  };
  const std::vector<sample> samples = {
      {7, -1, 1048576},       // before the start: dropped
      {7, 50, 1048576},       {45, 60, 524288},   {3, 100.5, 0},      {7, 123.456, 2097664},
      {99, 200, 4096},        {45, 300, 1536},    {7, 450, 3145728},  {3, 460.001, 65536},
  };
  std::string dev;
  for (const auto& s : samples) {
    codec::NpuModuleMem m;
    m.moduleId = s.module;
    m.cpuCycleCount = s.us < 0 ? at_us(0) - 1000 : at_us(s.us);
    m.totalSize = s.bytes;
    append(dev, codec::encode_device(m));
  }
  return dev;
}

/// device_<id>/data's npu_module_mem slice with module_samples().
inline void write_module_samples(const fs::path& prof, std::uint32_t id) {
  write_slice(prof, msprof::prof::stream::npu_module_mem(id), module_samples());
}

/// Adds the memory slices to the PROF_ directory `prof` (ops_pipeutil's input).
inline void add_records(const fs::path& prof) {
  write_module_samples(prof, 0);

  // nodeId hashes of tests/golden/ops_pipeutil's hash_dic; 12345 is in no dictionary.
  const std::uint64_t matmul1 = 4727051265323026290ull, add2 = 208301921725578096ull,
                      matmul3 = 4727051273912960884ull, relu4 = 7542326851773966877ull, unnamed = 12345;
  struct event {
    double us;
    std::uint64_t node, addr;
    std::int64_t size;
    std::uint64_t allocated, reserved;
  };
  const std::vector<event> events = {
      {-2, matmul1, 0x10000, 256, 256, 2097152},  // before the start
      {110, matmul1, 0x20000, 4096, 4352, 2097152},
      {120, add2, 0x30000, 1024, 5376, 2097152},
      {245, matmul1, 0x20000, -4096, 1280, 2097152},
      {262.5, matmul3, 0x40000, 8192, 9472, 4194304},
      {330, add2, 0x30000, -1024, 8448, 4194304},
      {335, relu4, 0x50000, 512, 8960, 4194304},
      {340.25, matmul3, 0x40000, -8192, 768, 4194304},
      {350, unnamed, 0x60000, 2048, 2816, 4194304},
      {355, unnamed, 0x60000, -2048, 768, 4194304},
  };
  std::string host;
  for (const auto& e : events) {
    codec::MsprofMemoryInfo m;
    m.addr = e.addr;
    m.size = e.size;
    m.nodeId = e.node;
    m.totalAllocateMemory = e.allocated;
    m.totalReserveMemory = e.reserved;
    m.deviceId = 0;
    const std::uint64_t ts = e.us < 0 ? at_us(0) - 2000 : at_us(e.us);
    append(host, codec::encode_task_memory_info(2001, ts, m));
  }
  write_slice(prof, msprof::prof::stream::task_memory_info(true), host);
}

/// The case `npu_mem`: after add_records(), device 0's npu_mem samples (APP
/// and Device memory; sizes not multiples of 1 KB; times that the reference's
/// float sum rounds; the version-2.0 time field set to a value that is not the
/// sample's time). No event other than 0 and 1: the reference's timeline stops
/// with an error at one.
inline void add_app_samples(const fs::path& prof) {
  struct sample {
    std::uint32_t us, event;
    std::uint64_t ddr, hbm;
  };
  const std::vector<sample> samples = {
      {0, 0, 0, 1048676},         {0, 1, 2048, 33554432},     {50, 0, 512, 2098152},
      {50, 1, 3000, 41943040},    {123, 0, 1023, 3146752},    {123, 1, 4096, 50331648},
      {200, 0, 1, 1},             {999, 0, 0, 0},             {999, 1, 5000, 58720256},
  };
  std::string dev;
  for (const auto& s : samples) {
    codec::NpuMem m;
    m.sampleTimeUs = s.us;
    m.event = s.event;
    m.timestamp = 777;
    m.ddr = s.ddr;
    m.hbm = s.hbm;
    append(dev, codec::encode_device(m));
  }
  write_slice(prof, msprof::prof::stream::npu_mem(0), dev);
}

/// The case `static_op_mem`: after add_records(), GE's static graph memory
/// records (host aging slice): ops named in hash_dic and one not, the graph's
/// total (opName 0), a model name from hash_dic and none (0), an end index of
/// 4294967294 (printed 4294967295), sizes whole and not whole KB.
inline void add_static_op_mem(const fs::path& prof) {
  const std::uint64_t matmul1 = 4727051265323026290ull, add2 = 208301921725578096ull, relu4 = 7542326851773966877ull;
  struct rec {
    std::uint64_t op, model;
    std::uint32_t graph;
    std::uint64_t start, end;
    std::int64_t size;
  };
  const std::vector<rec> recs = {
      {matmul1, 0, 1, 0, 3, 4096},          {add2, 0, 1, 1, 4294967294ull, 1536},
      {relu4, matmul1, 2, 2, 5, 100},       {12345, 0, 2, 4, 4, 1048576},
      {0, 0, 1, 0, 0, 5632},                {0, matmul1, 2, 0, 0, 1048676},
  };
  std::string host;
  for (const auto& x : recs) {
    codec::MsprofStaticOpMem m;
    m.opMemSize = x.size;
    m.opName = x.op;
    m.lifeStart = x.start;
    m.lifeEnd = x.end;
    m.totalAllocMem = 2 * 1048576;
    m.dynOpName = x.model;
    m.graphId = x.graph;
    append(host, codec::encode_static_op_mem(2001, at_us(5), m));
  }
  write_slice(prof, msprof::prof::stream::static_op_mem(true), host);
}

/// The two-device case `npu_memory_2dev`: after add_records(), a device_1
/// with device_0's control files (its id made 1) and the same npu_module_mem
/// samples, and no task data.
inline void add_second_device(const fs::path& prof) {
  const fs::path d0 = prof / "device_0", d1 = prof / "device_1";
  fs::create_directories(d1 / "data");
  const auto copy = [&](const std::string& from, const std::string& to) {
    std::ifstream in(d0 / from, std::ios::binary);
    std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& [a, b] : {std::pair<std::string, std::string>{"\"devices\": \"0\"", "\"devices\": \"1\""},
                               {"\"DeviceInfo\": [{\"id\": 0", "\"DeviceInfo\": [{\"id\": 1"},
                               {"[Device0]", "[Device1]"}})
      if (const auto at = t.find(a); at != std::string::npos) t.replace(at, a.size(), b);
    std::ofstream(d1 / to, std::ios::binary) << t;
  };
  for (const char* f : {"info.json", "start_info", "end_info", "host_start.log", "dev_start.log"})
    copy(std::string(f) + ".0", std::string(f) + ".1");
  copy("sample.json", "sample.json");
  write_module_samples(prof, 1);
}

}  // namespace golden_memory

#endif  // MSPROF_TESTS_SUPPORT_GOLDEN_MEMORY_HPP
