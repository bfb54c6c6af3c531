// SPDX-License-Identifier: MIT
// Fuzz entry points: one plain function per decoder of untrusted bytes. The
// libFuzzer mains (fuzz_main.cpp) and the corpus replay (replay.cpp, built by
// any compiler) call the same functions, so a crash input saved in corpus/
// stays a regression test everywhere.
//
// Contract of every entry: any bytes are accepted; decoders must return a
// value or an error, never crash, read out of bounds, hang or hit UB. A broken
// invariant (e.g. a JSON value that does not survive dump/parse) calls
// std::abort(), which libFuzzer reports as a crash.
#ifndef MSPROF_TESTS_FUZZ_TARGETS_HPP
#define MSPROF_TESTS_FUZZ_TARGETS_HPP

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <msprof/codec/decode.hpp>
#include <msprof/codec/dp.hpp>
#include <msprof/codec/qos.hpp>
#include <msprof/codec/acc_pmu.hpp>
#include <msprof/codec/dictionary.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/prof/staging.hpp>
#include <msprof/core/json.hpp>
#ifdef MSPROF_FUZZ_WITH_CONVERT
#include <msprof/convert/export.hpp>
#include <msprof/convert/hccl.hpp>
#include <msprof/convert/host_sys_usage.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/text.hpp>
#endif

namespace msprof_fuzz {

// FRAMEWORK files (codec/framework.hpp); defined in fuzz_framework.cpp.
int framework_decode(const std::uint8_t* data, std::size_t size);
// SoC JOB directories (codec/soc.hpp, convert/soc/); defined in fuzz_soc.cpp.
int soc_decode(const std::uint8_t* data, std::size_t size);
int soc_job(const std::uint8_t* data, std::size_t size);

namespace prof = msprof::prof;
namespace codec = msprof::codec;
namespace json = msprof::json;
namespace fs = std::filesystem;

// Fails loudly on a broken invariant (abort = crash for libFuzzer and replay).
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

// Reads every field of a decoded struct so ASan/UBSan see each load, and the
// compiler cannot drop the decode as dead code.
template <class T>
inline std::uint64_t touch(const T& v) {
  std::uint64_t sum = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  for (std::size_t i = 0; i < sizeof v; ++i) sum = sum * 31 + p[i];
  return sum;
}
inline volatile std::uint64_t sink = 0;

// ------------------------------------------------------------------ decode --
// Every fixed-size record decoder on the same bytes, at every record-aligned
// prefix length (short inputs exercise the truncation checks), then the typed
// payload decoders on whatever compact/additional record decoded.
inline int decode_records(const std::uint8_t* data, std::size_t size) {
  const codec::place at{"fuzz", 0};
  if (auto r = codec::decode_api(data, size, at)) sink = sink + (r->is_event ? touch(r->event) : touch(r->api));
  if (auto r = codec::decode_acsq(data, size, at)) sink = sink + touch(*r) + r->func_type();
  if (auto r = codec::decode_fixed<codec::ContextPmu>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::TsTrackStepTrace>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::NpuModuleMem>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::NpuMem>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::PcieSample>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::HbmSample>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::DdrSample>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::LlcSample>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_fixed<codec::LlcSampleV2>(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_qos(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_acc_pmu(data, size, at)) sink = sink + touch(*r);
  if (auto r = codec::decode_hccs_line(std::string_view(reinterpret_cast<const char*>(data), size), at))
    sink = sink + static_cast<std::uint64_t>(r->tx ^ r->rx) + static_cast<std::uint64_t>(r->timestamp > 0);
  if (auto r = codec::decode_fixed<codec::L2CacheTask>(data, size, at)) sink = sink + touch(*r);
  for (bool v6 : {false, true})
    if (auto r = codec::decode_soc_pmu(data, size, at, v6)) sink = sink + touch(*r);
  if (auto r = codec::decode_nic_line(std::string_view(reinterpret_cast<const char*>(data), size), at))
    sink = sink + static_cast<std::uint64_t>(r->bandwidth ^ r->func_id) + static_cast<std::uint64_t>(r->v[0] > 0);
  {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto r = codec::decode_host_cpu_line(text, at))
      sink = sink + r->timestamp + static_cast<std::uint64_t>(r->uptime_us ^ r->pid ^ r->tid ^ r->utime ^ r->stime ^ r->cpu);
    if (auto r = codec::decode_host_mem_line(text, at)) sink = sink + r->timestamp + static_cast<std::uint64_t>(r->resident);
    if (auto r = codec::decode_host_disk_line(text, at))
      sink = sink + static_cast<std::uint64_t>(r->kind + r->flags) + static_cast<std::uint64_t>(r->start_ns > 0) +
             static_cast<std::uint64_t>(r->read_kbs + r->write_kbs + r->io_percent > 0);
    if (auto r = codec::decode_host_net_line(text, at))
      sink = sink + r->timestamp + r->name.size() + static_cast<std::uint64_t>(r->rx_bytes ^ r->tx_bytes) + r->kind;
#ifdef MSPROF_FUZZ_WITH_CONVERT
    // --host-sys-usage's record texts, each kind: rows of the kind's width, warnings naming the file.
    for (auto kind : {msprof::convert::host_sys_file::sys_cpu, msprof::convert::host_sys_file::pid_cpu,
                      msprof::convert::host_sys_file::sys_mem, msprof::convert::host_sys_file::pid_mem}) {
      static constexpr std::size_t width[] = {10, 5, 9, 3};
      std::vector<std::string> warnings;
      std::string unit;
      for (const auto& row : msprof::convert::parse_host_sys_usage(kind, text, "fuzz", 1, warnings, &unit)) {
        require(row.v.size() == width[static_cast<int>(kind)], "a host_sys_usage row has its kind's columns");
        sink = sink + row.name.size() + static_cast<std::uint64_t>(row.pid.value_or(0));
      }
      // Past the reader's cap per file, one line counts the rest ("... and N more problems in fuzz").
      for (const auto& w : warnings)
        require(w.rfind("fuzz: byte offset ", 0) == 0 || (w.rfind("... and ", 0) == 0 && w.size() > 8 &&
                                                          w.compare(w.size() - 8, 8, " in fuzz") == 0),
                "a host_sys_usage warning names the file");
      sink = sink + unit.size();
    }
#endif
    codec::for_each_dp_piece(text, [&](std::string_view piece, std::size_t off) {
      require(off <= size, "a data preprocess piece starts inside its text");
      if (auto r = codec::decode_dp_line(piece, codec::place{at.file, off}))
        sink = sink + r->action.size() + r->source.size() + r->size.size() + static_cast<std::uint64_t>(r->text_timestamp > 0);
    });
  }
  if (auto r = codec::decode_dp_record(data, size, at))
    sink = sink + r->timestamp + r->action.size() + r->source.size() + r->size.size() + r->header_ok;
  if (auto r = codec::decode_compact(data, size, at)) {
    // The minimum lengths the reader uses (a RUNTIME node_basic_info has 28).
    if (auto p = codec::decode_payload<codec::MsprofNodeBasicInfo>(*r, at, 28)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofRuntimeTrack>(*r, at, 32)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofMemcpyInfo>(*r, at, 18)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofHcclOPInfo>(*r, at, 26)) sink = sink + touch(*p);
  }
  if (auto r = codec::decode_additional(data, size, at)) {
    if (auto p = codec::decode_payload<codec::MsprofAicpuNodeAdditionalData>(*r, at)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofTensorInfo>(*r, at, 12)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofContextIdInfo>(*r, at, 12)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofGraphIdInfo>(*r, at, 16)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MstxMemInfo>(*r, at, 48)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofMemoryInfo>(*r, at, 48)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofStaticOpMem>(*r, at, 52)) sink = sink + touch(*p);
    if (auto p = codec::decode_payload<codec::MsprofHcclInfo>(*r, at, 120)) sink = sink + touch(*p);
    const auto tx = codec::load<codec::MsprofTxInfo>(r->data);
    const std::string_view text = codec::tx_segment_text(tx);
    require(text.size() <= codec::tx_message_bytes, "tx_segment_text stays inside the message field");
    sink = sink + text.size();
  }
  return 0;
}

// -------------------------------------------------------------- dictionary --
// hash_dic and type_info_dic parsers on the same text, once with the default
// limits and once with tiny ones (first byte) so the limit paths run too.
inline int dictionaries(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> problems;
  codec::hash_map hashes;
  codec::type_map types;
  codec::parse_hash_dic(text, "hash_dic", hashes, problems);
  codec::parse_type_info_dic(text, "type_info_dic", types, problems);

  codec::dictionary_limits tiny;
  tiny.max_line = size ? 1 + data[0] % 64 : 1;
  tiny.max_entries = size ? 1 + data[0] % 4 : 1;
  codec::hash_map few_hashes;
  codec::type_map few_types;
  codec::parse_hash_dic(text, "hash_dic", few_hashes, problems, tiny);
  codec::parse_type_info_dic(text, "type_info_dic", few_types, problems, tiny);
  require(few_hashes.size() <= tiny.max_entries && few_types.size() <= tiny.max_entries, "dictionary entry limit");

  // A parsed entry written back with the formatter parses to the same entry,
  // except that '\r' at the end of a string are dropped: the format cannot hold
  // them, since the parser takes a last '\r' for a CRLF line end (F1 in
  // docs/fuzzing.md). Formatting the result again changes nothing.
  auto reread_as = [](std::string s) {
    while (!s.empty() && s.back() == '\r') s.pop_back();
    return s;
  };
  for (const auto& [h, s] : hashes) {
    codec::hash_map again;
    std::vector<std::string> none;
    codec::parse_hash_dic(codec::format_hash_line(h, s), "again", again, none);
    require(none.empty() && again.size() == 1 && again.begin()->second == reread_as(s), "hash_dic line round trip");
    require(codec::format_hash_line(h, again.begin()->second) == codec::format_hash_line(h, s), "hash_dic format is stable");
  }
  for (const auto& [k, s] : types) {
    codec::type_map again;
    std::vector<std::string> none;
    codec::parse_type_info_dic(codec::format_type_line(k.first, k.second, s), "again", again, none);
    require(none.empty() && again.size() == 1 && again.begin()->second == reread_as(s), "type_info_dic line round trip");
    require(codec::format_type_line(k.first, k.second, again.begin()->second) == codec::format_type_line(k.first, k.second, s),
            "type_info_dic format is stable");
  }
  return 0;
}

// -------------------------------------------------------------------- json --
// Walks a parsed value through every accessor the reader and converter use.
inline void walk(const json::value& v) {
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  sink = sink + v.to_int64(i) + v.to_uint64(u) + v.to_double(d) + v.as_string_or("").size() + v.size();
  sink = sink + v.get("pid").uint_or(0) + static_cast<std::uint64_t>(v.at(0).int_or(0));
  for (const auto& e : v.items()) walk(e);
  for (const auto& m : v.members()) {
    require(v.find(m.first) != nullptr, "find() sees every member");
    walk(m.second);
  }
}

// parse; then dump must be parsable again and stable (dump(parse(dump(v))) ==
// dump(v)): the config writer relies on it. Small limits (first byte) run the
// depth/element/string limit paths.
inline int json_parse(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto v = json::parse(text, "fuzz.json")) {
    walk(*v);
    const std::string once = json::dump(*v);
    auto again = json::parse(once, "dumped.json");
    require(bool(again), "dump() output parses again");
    require(json::dump(*again) == once, "dump/parse is stable");
  } else {
    require(!v.err().message.empty(), "a parse error has a message");
  }
  json::limits tight;
  tight.max_bytes = size ? 1 + data[0] * 4u : 1;
  tight.max_depth = size ? data[0] % 8 : 0;
  tight.max_elements = size ? 1 + data[0] % 16 : 1;
  tight.max_string = size ? data[0] % 32 : 0;
  if (auto v = json::parse(text, "tight.json", tight)) walk(*v);
  return 0;
}

// ----------------------------------------------------------- PROF_ directory --
// The input is a list of chunks [file index: 1 byte][length: 2 bytes LE][bytes]
// appended to the file kProfFiles[index % count]; files without a chunk do not
// exist. So libFuzzer mutates both the contents and which files are present,
// and whole golden directories are valid seeds (make_seeds.py packs them).
inline constexpr const char* kProfFiles[] = {
    "host/info.json",
    "host/sample.json",
    "host/start_info",
    "host/end_info",
    "host/host_start.log",
    "host/data/unaging.api_event.data.slice_0",
    "host/data/aging.api_event.data.slice_0",
    "host/data/unaging.api_event.data.slice_1",
    "host/data/unaging.compact.node_basic_info.slice_0",
    "host/data/aging.compact.node_basic_info.slice_0",
    "host/data/aging.compact.task_track.slice_0",
    "host/data/aging.compact.memcpy_info.slice_0",
    "host/data/aging.compact.hccl_op_info.slice_0",
    "host/data/aging.additional.tensor_info.slice_0",
    "host/data/aging.additional.context_id_info.slice_0",
    "host/data/aging.additional.graph_id_map.slice_0",
    "host/data/aging.additional.msproftx.slice_0",
    "host/data/aging.additional.msproftx.slice_1",
    "host/data/unaging.additional.hash_dic.slice_0",
    "host/data/unaging.additional.type_info_dic.slice_0",
    "device_0/info.json.0",
    "device_0/sample.json",
    "device_0/start_info.0",
    "device_0/end_info.0",
    "device_0/dev_start.log.0",
    "device_0/data/stars_soc.data.0.slice_0",
    "device_0/data/ffts_profile.data.0.slice_0",
    "device_0/data/ts_track.data.0.slice_0",
    "device_1/info.json.1",
    "device_1/dev_start.log.1",
    "device_1/data/stars_soc.data.1.slice_0",
    "host/data/unaging.additional.msprof_mstx_mem.slice_0",  // appended: older seeds keep their mapping
    "host/msprof_calls",
    "host/msprof_forks",
    "host/data/aging.additional.hccl_info.slice_0",
    "device_0/data/npu_module_mem.data.0.slice_0",
    "device_0/data/npu_mem.data.0.slice_0",
    "host/data/aging.additional.static_op_mem.slice_0",
    "device_0/data/aicpu.data.0.slice_0",  // appended; finding-F2's chunk index 110 (5 mod 35) was made 5
    "device_0/data/pcie.data.0.slice_0",
    "device_0/data/hccs.data.0.slice_0",
    "device_0/data/l2_cache.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "device_0/data/nic.data.0.slice_0",
    "device_0/data/roce.data.0.slice_0",
    "device_0/data/socpmu.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "device_0/data/hbm.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "device_0/data/ddr.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "host/data/host_cpu.data.slice_0",  // appended (no finding has a chunk index it remaps)
    "host/data/host_mem.data.slice_0",
    "device_0/data/llc.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "host/data/host_disk.data.slice_0",  // appended (no finding has a chunk index it remaps)
    "host/data/host_network.data.slice_0",
    "device_0/data/DATA_PREPROCESS.DP.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "device_1/data/DATA_PREPROCESS.dev.DP.1.slice_0",
    "host/data/host_sys_cpu.data.slice_0",  // appended (no finding has a chunk index it remaps)
    "host/data/host_sys_mem.data.slice_0",
    "host/data/4242-CpuUsage.data.slice_0",
    "host/data/4242-Memory.data.slice_0",
    "device_0/data/qos.data.0.slice_0",  // appended (no finding has a chunk index it remaps)
    "device_0/data/stars_soc.data.0.slice_1",  // appended (no finding has a chunk index it remaps)
};
inline constexpr std::size_t kProfFileCount = sizeof kProfFiles / sizeof kProfFiles[0];

// One scratch PROF_ directory per process, emptied for every input. The name
// holds the pid so parallel fuzzers (-jobs) do not share it.
inline const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path d = fs::path(tmp && *tmp ? tmp : "/tmp") /
                 ("msprof_fuzz_" + std::to_string(::getpid())) / "PROF_000001_20260101120000000_FUZZAAAAAAAAAAAA";
    return d;
  }();
  return dir;
}

// A whole file (replay inputs, outputs to check).
inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes the chunks of `data` under a fresh scratch_dir(); returns its path.
inline std::string write_prof_dir(const std::uint8_t* data, std::size_t size) {
  const fs::path& root = scratch_dir();
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root, ec);
  std::vector<std::string> contents(kProfFileCount);
  std::vector<bool> present(kProfFileCount, false);
  std::size_t pos = 0;
  while (pos < size) {
    const std::size_t index = data[pos] % kProfFileCount;
    std::size_t len = 0;
    if (pos + 3 <= size) len = data[pos + 1] | static_cast<std::size_t>(data[pos + 2]) << 8;
    pos += 3;
    if (pos > size) pos = size;
    len = std::min(len, size - pos);
    contents[index].append(reinterpret_cast<const char*>(data) + pos, len);
    present[index] = true;
    pos += len;
  }
  for (std::size_t i = 0; i < kProfFileCount; ++i) {
    if (!present[i]) continue;
    const fs::path file = root / kProfFiles[i];
    fs::create_directories(file.parent_path(), ec);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << contents[i];
  }
  return root.string();
}

// Runs every streaming pass of the reader over an opened directory.
inline void read_everything(prof::prof_reader& r) {
  std::uint64_t n = 0;
  (void)r.for_each_api([&](const prof::api_record& a) { n += a.begin + a.end + r.type_name(a.level, a.type).size(); });
  auto count = [&](const auto& rec) { n += touch(rec.payload) + rec.head.timeStamp; };
  (void)r.for_each_node_basic_info(count);
  (void)r.for_each_task_track(count);
  (void)r.for_each_memcpy_info(count);
  (void)r.for_each_hccl_op_info(count);
  (void)r.for_each_tensor_info(count);
  (void)r.for_each_context_id_info(count);
  (void)r.for_each_graph_id_map(count);
  (void)r.for_each_mstx_mem(count);
  (void)r.for_each_task_memory_info(count);
  (void)r.for_each_static_op_mem(count);
  (void)r.for_each_hccl_info(count);
  (void)r.for_each_mstx([&](const prof::mstx_record& e) { n += e.message.size() + r.lookup(e.stamp.domain).size(); });
  const auto& host = r.host();
  n += static_cast<std::uint64_t>(host.clock.to_monotonic_ns(n)) + static_cast<std::uint64_t>(host.wall_offset_ns());
  n += static_cast<std::uint64_t>(host.clock.monotonic_ns(n).value_or(0));
  for (const auto& d : r.devices()) {
    (void)r.for_each_acsq(d.id, [&](const codec::StarsAcsqLog& l, const codec::place&) {
      n += static_cast<std::uint64_t>(d.clock.to_monotonic_ns(l.timestamp)) +
           static_cast<std::uint64_t>(d.clock.monotonic_ns(l.timestamp).value_or(0));
    });
    (void)r.for_each_pmu(d.id, [&](const codec::ContextPmu& p, const codec::place&) { n += touch(p); });
    (void)r.for_each_ts_track(d.id, [&](const codec::TsTrackStepTrace& t, const codec::place&) { n += touch(t); });
    (void)r.for_each_npu_module_mem(d.id, [&](const codec::NpuModuleMem& m, const codec::place&) { n += touch(m); });
    (void)r.for_each_npu_mem(d.id, [&](const codec::NpuMem& m, const codec::place&) { n += touch(m); });
    (void)r.for_each_aicpu_node(d.id, [&](const codec::MsprofAicpuNodeAdditionalData& a, const codec::place&) { n += touch(a); });
    (void)r.for_each_pcie(d.id, [&](const codec::PcieSample& p, const codec::place&) { n += touch(p); });
    (void)r.for_each_hbm(d.id, [&](const codec::HbmSample& h, const codec::place&) { n += touch(h); });
    (void)r.for_each_ddr(d.id, [&](const codec::DdrSample& s, const codec::place&) { n += touch(s); });
    (void)r.for_each_llc<codec::LlcSample>(d.id, [&](const codec::LlcSample& s, const codec::place&) { n += touch(s); });
    (void)r.for_each_llc<codec::LlcSampleV2>(d.id, [&](const codec::LlcSampleV2& s, const codec::place&) { n += touch(s); });
    (void)r.for_each_hccs(d.id, [&](const codec::HccsSample& h, const codec::place&) { n += static_cast<std::size_t>(h.tx ^ h.rx); });
    (void)r.for_each_l2_cache(d.id, [&](const codec::L2CacheTask& t, const codec::place&) { n += touch(t); });
    for (bool v6 : {false, true})
      (void)r.for_each_soc_pmu(d.id, v6, [&](const codec::SocPmuTaskV6& t, const codec::place&) { n += touch(t); });
    for (const char* stem : {prof::layout::nic, prof::layout::roce})
      (void)r.for_each_network(d.id, stem, [&](const codec::NicSample& c, const codec::place&) { n += static_cast<std::size_t>(c.bandwidth ^ c.func_id); });
  }
  for (const auto& w : r.warnings()) n += w.text().size();
  sink = sink + n;
}

// prof::prof_reader::open + every for_each_*; lenient and strict options.
inline int prof_reader(const std::uint8_t* data, std::size_t size) {
  const std::string dir = write_prof_dir(data, size);
  for (const bool strict : {false, true}) {
    prof::reader_options opt;
    opt.strict = strict;
    opt.max_pending_events = 4;  // small, so the "too many unmatched" path runs
    auto r = prof::prof_reader::open(dir, opt);
    if (!r) {
      require(!r.err().message.empty(), "open() errors have a message");
      continue;
    }
    read_everything(*r);
  }
  return 0;
}

// ----------------------------------------------------------------- staging --
// The compact staging (prof/staging.hpp). Input: [flags: 1 byte][strings
// length: 2 bytes LE][strings bytes][tx bytes]. Flags bit 0 / bit 1 put the
// magic in front of the strings / tx bytes (so most inputs pass it). First the
// decoders on the bytes, then for_each_staged and recover_staging on the files
// in a scratch PROF_ directory: the records in chunk tx.0, or, with flags bit
// 2, split at their middle into tx.0 and tx.1 (the second with the magic when
// bit 1 is set). Every error names its file and an offset; no more events than
// the bytes hold; every event's strings are the file's.
inline int staging_decode(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::uint8_t flags = data[0];
  std::size_t n = data[1] | static_cast<std::size_t>(data[2]) << 8;
  n = std::min(n, size - 3);
  std::string strings(reinterpret_cast<const char*>(data) + 3, n);
  std::string tx(reinterpret_cast<const char*>(data) + 3 + n, size - 3 - n);
  if (flags & 1) strings.insert(0, prof::layout::staging_strings_magic, 8);
  if (flags & 2) tx.insert(0, prof::layout::staging_tx_magic, 8);

  std::vector<std::string> list;
  std::uint64_t cut = 0;
  if (auto r = prof::decode_staging_strings(strings, "strings", list, &cut); !r)
    require(r.err().message.rfind("strings: offset ", 0) == 0, "a strings error names the file and offset");
  std::uint64_t events = 0;
  auto used = prof::decode_staging_tx(tx, 8, list, "tx", [&](const prof::tx_event& e) {
    ++events;
    sink = sink + e.id + e.start_ns + e.end_ns + e.domain.size() + e.message.size() + e.calls();
  });
  if (!used)
    require(used.err().message.rfind("tx: offset ", 0) == 0, "a tx error names the file and offset");
  else
    require(*used <= tx.size() && events * prof::staging::mark_bytes <= *used, "no more events than bytes");

  const fs::path& root = scratch_dir();
  std::error_code ec;
  fs::remove_all(root, ec);
  const fs::path staging = root / "host" / prof::layout::staging_dir;
  fs::create_directories(staging, ec);
  fs::create_directories(root / "host" / "data", ec);
  std::ofstream(staging / "strings", std::ios::binary) << strings;
  if (flags & 4) {
    std::string second = tx.substr(tx.size() / 2);
    if (flags & 2) second.insert(0, prof::layout::staging_tx_magic, 8);
    std::ofstream(staging / "tx.0", std::ios::binary) << tx.substr(0, tx.size() / 2);
    std::ofstream(staging / "tx.1", std::ios::binary) << second;
  } else {
    std::ofstream(staging / "tx.0", std::ios::binary) << tx;
  }
  auto all = prof::for_each_staged(staging.string(), [&](const prof::tx_event& e) {
    require(std::find(list.begin(), list.end(), e.message) != list.end(), "a message is one of the strings");
  });
  if (!all) {
    require(all.err().message.find(": offset ") != std::string::npos, "a staging error names an offset");
  } else {
    require(all->events * prof::staging::mark_bytes <= tx.size(), "no more staged events than bytes");
    auto rec = prof::recover_staging(root.string());
    if (!rec) require(!rec.err().message.empty(), "recover_staging errors have a message");
    else require(rec->staged.events == all->events, "recovery takes every event for_each_staged reads");
  }
  return 0;
}

#ifdef MSPROF_FUZZ_WITH_CONVERT
// msprof::convert::load_model: reader (strict) + join into the converter model.
inline int convert_load(const std::uint8_t* data, std::size_t size) {
  const std::string dir = write_prof_dir(data, size);
  auto m = msprof::convert::load_model(dir);
  if (!m) require(!m.err().message.empty(), "load_model errors have a message");
  if (!m) return 0;
  // The HCCL linking over whatever loaded (convert/hccl.hpp).
  if (auto r = prof::prof_reader::open(dir)) {
    if (auto in = msprof::convert::hccl::read_inputs(*r, *m)) {
      const auto c = msprof::convert::hccl::link(*in);
      for (const auto& d : m->session.devices)
        sink = sink + msprof::convert::hccl::statistic_csv(c, d.id, m->session.start_ns).size();
      sink = sink + c.ops.size() + c.tasks.size();
    }
  }
  return 0;
}

// The cells of a CSV text (RFC 4180 quoting, as append_csv_cell writes it).
inline std::vector<std::string> csv_cells(std::string_view text) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') cells.back() += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') cells.back() += text[++i];
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',' || c == '\n') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// msprof::convert::export_all (timeline, summaries, db) on the scratch
// directory, writing into its mindstudio_profiler_output/ and msprof_<ts>.db.
// A small spill budget makes every writer spill sorted runs to disk; the
// input's size picks csv or json summaries. Checked on success: every file
// reported exists, every JSON output parses and is valid UTF-8, and no CSV
// cell is one a spreadsheet would run as a formula.
inline int export_writers(const std::uint8_t* data, std::size_t size) {
  const std::string dir = write_prof_dir(data, size);
  msprof::convert::export_options o;
  o.timestamp = "20260101120000";
  o.format = size % 2 ? "json" : "csv";
  o.spill_budget = 4096;
  auto r = msprof::convert::export_all(dir, o);
  if (!r) {
    require(!r.err().message.empty(), "export errors have a message");
    return 0;
  }
  json::limits big;
  big.max_bytes = big.max_elements = std::size_t(1) << 30;
  for (const auto& f : r->files) {
    require(fs::is_regular_file(f), "every reported output exists");
    const fs::path p(f);
    if (p.extension() == ".json") {
      const std::string text = slurp(p);
      require(json::utf8_valid(text), "JSON output is valid UTF-8");
      require(bool(json::parse(text, f, big)), "JSON output parses");
    } else if (p.extension() == ".csv") {
      for (const auto& cell : csv_cells(slurp(p)))
        require(!msprof::convert::csv_formula_like(cell), "no CSV cell runs as a formula");
    }
  }
  return 0;
}
#endif

}  // namespace msprof_fuzz

#endif  // MSPROF_TESTS_FUZZ_TARGETS_HPP
