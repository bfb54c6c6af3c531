// SPDX-License-Identifier: MIT
// The reader against every golden input: record counts equal the generator's
// (checks.json "generator_counts"), values match the scenario in
// tests/golden/README.md, and truncated_tail keeps every whole record.
#include <doctest/doctest.h>
#include <msprof/prof/reader.hpp>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace prof = msprof::prof;
namespace codec = msprof::codec;
namespace json = msprof::json;

namespace {

std::string golden_prof(const std::string& name) {
  const std::string in = std::string(MSPROF_TEST_DATA_DIR) + "/golden/" + name + "/input";
  DIR* d = opendir(in.c_str());
  REQUIRE(d != nullptr);
  std::string found;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind("PROF_", 0) == 0) found = in + "/" + e->d_name;
  closedir(d);
  REQUIRE(!found.empty());
  return found;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct counts {
  std::map<std::string, std::uint64_t> n;
  std::vector<prof::api_record> apis;
  std::vector<prof::mstx_record> mstx;
  std::vector<codec::StarsAcsqLog> acsq;
  std::vector<prof::host_record<codec::MsprofNodeBasicInfo>> nodes;
};

counts decode_all(prof::prof_reader& r) {
  counts c;
  for (const char* k : {"api", "node_basic_info", "tensor_info", "task_track", "mstx", "mstx_records", "acsq", "pmu"}) c.n[k] = 0;
  REQUIRE(r.for_each_api([&](const prof::api_record& a) { ++c.n["api"]; c.apis.push_back(a); }));
  REQUIRE(r.for_each_node_basic_info([&](const auto& x) { ++c.n["node_basic_info"]; c.nodes.push_back(x); }));
  REQUIRE(r.for_each_tensor_info([&](const auto&) { ++c.n["tensor_info"]; }));
  REQUIRE(r.for_each_task_track([&](const auto&) { ++c.n["task_track"]; }));
  REQUIRE(r.for_each_mstx([&](const prof::mstx_record& e) {
    ++c.n["mstx"];
    c.n["mstx_records"] += e.segments;
    c.mstx.push_back(e);
  }));
  for (const auto& d : r.devices()) {
    REQUIRE(r.for_each_acsq(d.id, [&](const codec::StarsAcsqLog& l, const codec::place&) { ++c.n["acsq"]; c.acsq.push_back(l); }));
    REQUIRE(r.for_each_pmu(d.id, [&](const codec::ContextPmu&, const codec::place&) { ++c.n["pmu"]; }));
  }
  return c;
}

}  // namespace

TEST_CASE("golden: record counts equal the generator's for every case") {
  for (const char* name : {"host_api_only", "mstx_domains", "ops_pipeutil", "multi_thread_mixed"}) {
    CAPTURE(name);
    auto r = prof::prof_reader::open(golden_prof(name));
    REQUIRE(r);
    auto c = decode_all(*r);
    auto checks = json::parse(slurp(std::string(MSPROF_TEST_DATA_DIR) + "/golden/" + name + "/checks.json"), "checks.json");
    REQUIRE(checks);
    const auto& gen = checks->get("generator_counts");
    REQUIRE(gen.is_object());
    for (const auto& m : gen.members()) {
      CAPTURE(m.first);
      CHECK(c.n[m.first] == m.second.uint_or(999999));
    }
    CHECK(r->warnings().empty());
  }
}

TEST_CASE("golden: control files and clocks (README common input facts)") {
  auto r = prof::prof_reader::open(golden_prof("ops_pipeutil"));
  REQUIRE(r);
  const auto& h = r->host();
  CHECK(h.clock.frequency_mhz == 0);  // "Frequency": "" -> ns mode
  CHECK(h.collection_time_begin_us == 1767268800000000ull);
  CHECK(h.start_monotonic_raw_ns == 1000000000000ull);
  CHECK(h.clock.to_monotonic_ns(1000000200000ull) == 1000000200000ll);
  CHECK(h.wall_offset_ns() + 1000000000000ll == 1767268800000000000ll);
  CHECK(h.platform_version == "5");
  REQUIRE(r->devices().size() == 1);
  const auto& d = r->devices()[0];
  CHECK(d.clock.frequency_mhz == 50);
  CHECK(d.aic_frequency_mhz == 1800);
  CHECK(d.ai_core_num == 24);
  CHECK(d.aiv_num == 48);
  CHECK(d.clock.anchor_ticks == 7000000000ull);
  CHECK(d.aic_metrics == "PipeUtilization");
  CHECK(d.events == std::vector<std::uint32_t>{0x8, 0xa, 0x9, 0xb, 0xc, 0xd, 0x54, 0x55});
  // Device time = 1e12 + (cnt - 7e9)/50*1000 ns.
  CHECK(d.clock.to_monotonic_ns(7000000050ull) == 1000000001000ll);
  CHECK(r->type_name(10000, 5) == "launch");
  CHECK(r->type_name(5000, 0) == "KERNEL_AICORE");
}

TEST_CASE("golden: ops_pipeutil values") {
  auto r = prof::prof_reader::open(golden_prof("ops_pipeutil"));
  REQUIRE(r);
  auto c = decode_all(*r);
  std::map<std::string, prof::host_record<codec::MsprofNodeBasicInfo>> by_name;
  for (const auto& n : c.nodes) by_name[r->lookup(n.payload.opName)] = n;
  REQUIRE(by_name.count("MatMul_1"));
  CHECK(by_name["MatMul_1"].payload.blockNum == 20);
  CHECK(by_name["MatMul_1"].payload.taskType == codec::ge_task::ai_core);
  CHECK(r->lookup(by_name["MatMul_1"].payload.opType) == "MatMul");
  CHECK_FALSE(by_name["MatMul_1"].aging);
  CHECK(by_name["MatMul_3"].aging);  // dynamic op: aging.compact.node_basic_info
  CHECK(by_name["Add_2"].payload.taskType == codec::ge_task::ai_vector_core);
  CHECK(by_name["Cast_5"].payload.taskType == codec::ge_task::ai_cpu);
  // Device durations 40/10/60.5/5/100 µs from ACSQ start/end pairs.
  std::map<std::uint32_t, std::uint64_t> start;
  std::vector<double> durs;
  for (const auto& l : c.acsq) {
    const auto key = (static_cast<std::uint32_t>(l.streamId) << 16) | l.taskId;
    if (l.func_type() == codec::acsq_func_start) start[key] = l.timestamp;
    else durs.push_back(static_cast<double>(r->devices()[0].clock.to_monotonic_ns(l.timestamp) -
                                            r->devices()[0].clock.to_monotonic_ns(start.at(key))) / 1000.0);
  }
  std::sort(durs.begin(), durs.end());
  CHECK(durs == std::vector<double>{5, 10, 40, 60.5, 100});
}

TEST_CASE("golden: mstx_domains joins the 2-segment message and keeps UTF-8") {
  auto r = prof::prof_reader::open(golden_prof("mstx_domains"));
  REQUIRE(r);
  auto c = decode_all(*r);
  bool long_found = false, utf8 = false;
  for (const auto& e : c.mstx) {
    if (e.segments == 2) {
      long_found = true;
      CHECK(e.message.size() == 233);
      CHECK(e.message.rfind("long message", 0) == 0);
      CHECK(e.message.find("end-of-long-message") != std::string::npos);
    }
    if (e.message.find("梯度同步") != std::string::npos) utf8 = true;
    CHECK((r->lookup(e.stamp.domain) == "default" || r->lookup(e.stamp.domain) == "dataloader" ||
           r->lookup(e.stamp.domain) == "comm"));
  }
  CHECK(long_found);
  CHECK(utf8);
}

TEST_CASE("golden: truncated_tail keeps every whole record and reports both cut tails") {
  auto r = prof::prof_reader::open(golden_prof("truncated_tail"));
  REQUIRE(r);
  auto c = decode_all(*r);
  CHECK(c.n["api"] == 3);
  CHECK(c.n["mstx"] == 2);
  REQUIRE(r->warnings().size() == 2);
  bool api_tail = false, tx_tail = false;
  for (const auto& w : r->warnings()) {
    if (w.file.find("unaging.api_event.data.slice_1") != std::string::npos) {
      api_tail = true;
      CHECK(w.offset == 0);
      CHECK(w.bytes == 23);  // 17 of 40 bytes cut off
    }
    if (w.file.find("msproftx.slice_0") != std::string::npos) {
      tx_tail = true;
      CHECK(w.offset == 512);
      CHECK(w.bytes == 156);  // 100 of 256 bytes cut off
      CHECK(w.message.find("byte offset 512") != std::string::npos);
    }
  }
  CHECK(api_tail);
  CHECK(tx_tail);
}
