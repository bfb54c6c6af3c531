// SPDX-License-Identifier: MIT
// The simulated device (include/msprof/device/simulated_device.hpp): host and
// device records it writes, decoded back with the codec reader; per-stream
// ordering, events, memcpy, determinism, PMU consistency, labelling, errors,
// the mstx marker path, and an end-to-end export through the converters.
#include <doctest/doctest.h>
#include <msprof/prof/reader.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/npu_memory.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/device/simulated_device.hpp>
#include <msprof/instrument/tool_core.hpp>
#include <msprof/prof/writer.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace codec = msprof::codec;
namespace prof = msprof::prof;
namespace device = msprof::device;
namespace cv = msprof::convert;

namespace {

/// A PROF_ directory with one simulated device 0. `fixed` pins every clock
/// (with simulated_options::virtual_host_step_ns the output is reproducible).
prof::prof_dir make_dir(const temp_dir& t, const std::string& name = "PROF_000001_20260101120000000_SIMULATEDDEVICEAA",
                          bool fixed = false, std::uint32_t ai_core_num = 24) {
  prof::prof_dir_options o;
  o.parent = t.path;
  o.name = name;
  o.pid = 4242;
  o.pid_name = "sim_app";
  if (fixed) {
    o.host_clock.anchor_ns = 1000000000000ull;
    o.wall_us = 1767268800000000ull;
  }
  prof::device_options d;
  d.id = 0;
  d.cntvct = 5000000000ull;
  d.ai_core_num = ai_core_num;
  o.devices.push_back(d);
  auto r = prof::prof_dir::create(o);
  REQUIRE(r);
  return std::move(*r);
}

device::op_desc op(const std::string& name, const std::string& type, std::uint32_t blocks = 8, double flops = 1e9,
                   double bytes = 1e6, std::uint32_t task_type = codec::ge_task::ai_core) {
  device::op_desc o;
  o.name = name;
  o.type = type;
  o.block_dim = blocks;
  o.flops = flops;
  o.bytes = bytes;
  o.task_type = task_type;
  o.inputs = {{{128, 256}, 1, 2}, {{256, 64}, 1, 2}};
  o.outputs = {{{128, 64}, 1, 29}};
  return o;
}

/// One device task as the ACSQ log shows it.
struct dev_task {
  int starts = 0, ends = 0;
  std::uint64_t start = 0, end = 0;  ///< device cycles
  std::uint16_t sqe = 0xFFFF;
};

/// Everything the directory holds, decoded.
struct dump {
  prof::prof_reader r;
  std::vector<prof::api_record> apis;
  std::vector<prof::host_record<codec::MsprofNodeBasicInfo>> nodes;
  std::vector<prof::host_record<codec::MsprofTensorInfo>> tensors;
  std::vector<prof::host_record<codec::MsprofRuntimeTrack>> tracks;
  std::vector<prof::host_record<codec::MsprofMemcpyInfo>> memcpys;
  std::vector<codec::StarsAcsqLog> acsq;
  std::vector<codec::ContextPmu> pmu;
  std::map<std::pair<std::uint16_t, std::uint16_t>, dev_task> tasks;  ///< (stream, task) after unpacking

  std::string api_name(const prof::api_record& a) const { return r.type_name(a.level, a.type); }
  std::vector<prof::api_record> apis_named(const std::string& n) const {
    std::vector<prof::api_record> v;
    for (const auto& a : apis)
      if (api_name(a) == n) v.push_back(a);
    return v;
  }
  std::string track_type(const codec::MsprofRuntimeTrack& t) const {
    return r.type_name(codec::level::runtime, static_cast<std::uint32_t>(t.taskType));
  }
  /// Tasks of one stream in task id order.
  std::vector<dev_task> stream_tasks(std::uint16_t s) const {
    std::vector<dev_task> v;
    for (const auto& [k, t] : tasks)
      if (k.first == s) v.push_back(t);
    return v;
  }
};

dump read_all(const std::string& path) {
  auto rr = prof::prof_reader::open(path);
  REQUIRE(rr);
  dump d{std::move(*rr), {}, {}, {}, {}, {}, {}, {}, {}};
  REQUIRE(d.r.for_each_api([&](const prof::api_record& a) { d.apis.push_back(a); }));
  REQUIRE(d.r.for_each_node_basic_info([&](const auto& n) { d.nodes.push_back(n); }));
  REQUIRE(d.r.for_each_tensor_info([&](const auto& n) { d.tensors.push_back(n); }));
  REQUIRE(d.r.for_each_task_track([&](const auto& n) { d.tracks.push_back(n); }));
  REQUIRE(d.r.for_each_memcpy_info([&](const auto& n) { d.memcpys.push_back(n); }));
  REQUIRE(d.r.for_each_acsq(0, [&](const codec::StarsAcsqLog& l, const codec::place&) { d.acsq.push_back(l); }));
  REQUIRE(d.r.for_each_pmu(0, [&](const codec::ContextPmu& p, const codec::place&) { d.pmu.push_back(p); }));
  for (const auto& l : d.acsq) {
    const auto st = codec::unpack_stream_task(l.streamId, l.taskId);
    auto& t = d.tasks[{st.stream_id, st.task_id}];
    if (l.func_type() == codec::acsq_func_start) {
      ++t.starts;
      t.start = l.timestamp;
    } else if (l.func_type() == codec::acsq_func_end) {
      ++t.ends;
      t.end = l.timestamp;
    }
    t.sqe = l.task_type();
  }
  for (const auto& w : d.r.warnings()) MESSAGE(w.text());
  CHECK(d.r.warnings().empty());
  return d;
}

/// Device cycles -> host monotonic ns through the directory's own clock files.
std::int64_t mono(const dump& d, std::uint64_t cycles) { return d.r.device(0)->clock.to_monotonic_ns(cycles); }

bool inside(const prof::api_record& a, std::uint64_t t) { return a.begin <= t && t <= a.end; }

}  // namespace

TEST_CASE("device: launches on several streams give host and device records with consistent ids") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  REQUIRE(dev.init_error() == nullptr);
  auto s0 = dev.create_stream();
  auto s1 = dev.create_stream();
  REQUIRE(s0);
  REQUIRE(s1);
  CHECK(*s0 != *s1);
  REQUIRE(dev.launch(*s0, op("MatMul_1", "MatMul", 20, 2e9)));
  REQUIRE(dev.launch(*s1, op("Add_1", "Add", 40, 1e7, 4e6, codec::ge_task::ai_vector_core)));
  REQUIRE(dev.launch(*s0, op("Relu_1", "Relu", 4)));
  REQUIRE(dev.launch(*s1, op("TopK_1", "TopK", 1, 0, 0, codec::ge_task::ai_cpu)));
  REQUIRE(dev.launch(*s0, op("MatMul_2", "MatMul", 20, 2e9)));
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == 5);
  REQUIRE(dir.close());

  auto d = read_all(dir.path());
  // Host: one node_basic_info, tensor_info, task_track per launch, in launch order.
  REQUIRE(d.nodes.size() == 5);
  REQUIRE(d.tracks.size() == 5);
  REQUIRE(d.tensors.size() == 5);
  const char* names[] = {"MatMul_1", "Add_1", "Relu_1", "TopK_1", "MatMul_2"};
  const char* types[] = {"MatMul", "Add", "Relu", "TopK", "MatMul"};
  const std::uint32_t blocks[] = {20, 40, 4, 1, 20};
  const std::uint32_t ge[] = {codec::ge_task::ai_core, codec::ge_task::ai_vector_core, codec::ge_task::ai_core,
                              codec::ge_task::ai_cpu, codec::ge_task::ai_core};
  const char* rt[] = {"KERNEL_AICORE", "KERNEL_AIVEC", "KERNEL_AICORE", "KERNEL_AICPU", "KERNEL_AICORE"};
  const std::uint16_t sqe[] = {codec::sqe::ai_core, codec::sqe::aiv, codec::sqe::ai_core, codec::sqe::ai_cpu,
                               codec::sqe::ai_core};
  const std::uint16_t stream[] = {static_cast<std::uint16_t>(*s0), static_cast<std::uint16_t>(*s1),
                                  static_cast<std::uint16_t>(*s0), static_cast<std::uint16_t>(*s1),
                                  static_cast<std::uint16_t>(*s0)};
  const std::uint16_t task[] = {0, 0, 1, 1, 2};  // per-stream task ids from 0
  const auto launches = d.apis_named("launch");
  const auto kernel_launches = d.apis_named("rtKernelLaunch");
  REQUIRE(launches.size() == 5);
  REQUIRE(kernel_launches.size() == 5);
  CHECK(d.apis_named("aclopExecuteV2").size() == 5);
  CHECK(d.apis_named("aclrtCreateStream").size() == 2);
  CHECK(d.apis_named("aclrtSynchronizeDevice").size() == 1);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    const auto& n = d.nodes[static_cast<std::size_t>(i)];
    CHECK(d.r.lookup(n.payload.opName) == names[i]);
    CHECK(d.r.lookup(n.payload.opType) == types[i]);
    CHECK(n.payload.blockNum == blocks[i]);
    CHECK(n.payload.taskType == ge[i]);
    // The op's records lie inside its Node@launch api (how the parser attaches them).
    CHECK(inside(launches[static_cast<std::size_t>(i)], n.head.timeStamp));
    CHECK(d.r.lookup(launches[static_cast<std::size_t>(i)].item_id) == names[i]);
    const auto& ti = d.tensors[static_cast<std::size_t>(i)];
    CHECK(ti.payload.opName == n.payload.opName);
    REQUIRE(ti.payload.tensorNum == 3);
    CHECK(ti.payload.tensorData[0].tensorType == 0);
    CHECK(ti.payload.tensorData[0].shape[0] == 128);
    CHECK(ti.payload.tensorData[0].shape[1] == 256);
    CHECK(ti.payload.tensorData[2].tensorType == 1);
    CHECK(ti.payload.tensorData[2].format == 29);

    const auto& tr = d.tracks[static_cast<std::size_t>(i)];
    CHECK(tr.payload.deviceId == 0);
    CHECK(tr.payload.streamId == stream[i]);
    CHECK((tr.payload.taskId & 0xFFFF) == task[i]);
    CHECK((tr.payload.taskId >> 16) == 0);  // batch id
    CHECK(d.track_type(tr.payload) == rt[i]);
    CHECK(d.r.lookup(tr.payload.kernelName) == std::string(names[i]) + "_kernel");
    CHECK(tr.payload.num_blocks() == blocks[i]);
    CHECK(inside(kernel_launches[static_cast<std::size_t>(i)], tr.head.timeStamp));
    CHECK(inside(launches[static_cast<std::size_t>(i)], tr.head.timeStamp));

    // Device: exactly one ACSQ start and end under the same (stream, task) id.
    CHECK(codec::packs_plainly(stream[i], task[i]));
    auto it = d.tasks.find({stream[i], task[i]});
    REQUIRE(it != d.tasks.end());
    CHECK(it->second.starts == 1);
    CHECK(it->second.ends == 1);
    CHECK(it->second.sqe == sqe[i]);
    CHECK(it->second.end > it->second.start);
    // Never before the host submitted it (+ launch latency, 5 µs by default).
    CHECK(mono(d, it->second.start) >= static_cast<std::int64_t>(tr.head.timeStamp) + 5000 - 20);
  }
  CHECK(d.acsq.size() == 10);
  CHECK(d.tasks.size() == 5);
  // ContextPmu: one per AI Core / AI Vector task (not the AI CPU one), same ids
  // and the same start/end cycles as the ACSQ log.
  REQUIRE(d.pmu.size() == 4);
  std::set<std::pair<std::uint16_t, std::uint16_t>> pmu_ids;
  for (const auto& p : d.pmu) {
    CHECK(p.func_type() == codec::context_pmu_func);
    const auto st = codec::unpack_stream_task(p.streamId, p.taskId);
    pmu_ids.insert({st.stream_id, st.task_id});
    auto it = d.tasks.find({st.stream_id, st.task_id});
    REQUIRE(it != d.tasks.end());
    CHECK(p.timeList[0] == it->second.start);
    CHECK(p.timeList[1] == it->second.end);
  }
  CHECK(pmu_ids.size() == 4);
  CHECK(pmu_ids.count({stream[3], task[3]}) == 0);  // AI CPU: no PMU
}

TEST_CASE("device: tasks on one stream never overlap and start in task order") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_options so;
  so.seed = 7;
  device::simulated_device dev(dir, so);
  std::vector<device::stream_id> ss;
  for (int i = 0; i < 3; ++i) {
    auto s = dev.create_stream();
    REQUIRE(s);
    ss.push_back(*s);
  }
  // Mixed sizes: later small tasks must still queue behind earlier big ones.
  for (int i = 0; i < 60; ++i) {
    const auto s = ss[static_cast<std::size_t>(i % 3)];
    const double flops = (i % 4 == 0) ? 5e10 : 1e6;
    if (i % 7 == 3) {
      REQUIRE(dev.memcpy_async(s, 1u << 20, device::memcpy_kind::host_to_device));
    } else {
      REQUIRE(dev.launch(s, op("Op_" + std::to_string(i), "Op", 1 + i % 30, flops)));
    }
  }
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == 60);
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  CHECK(d.tasks.size() == 60);
  bool concurrent = false;  // different streams do run side by side
  for (auto s : ss) {
    CAPTURE(s);
    const auto v = d.stream_tasks(static_cast<std::uint16_t>(s));
    REQUIRE(v.size() == 20);
    for (std::size_t i = 0; i < v.size(); ++i) {
      CAPTURE(i);
      CHECK(v[i].starts == 1);
      CHECK(v[i].ends == 1);
      CHECK(v[i].end > v[i].start);
      if (i) CHECK(v[i].start >= v[i - 1].end);
    }
  }
  const auto a = d.stream_tasks(static_cast<std::uint16_t>(ss[0])), b = d.stream_tasks(static_cast<std::uint16_t>(ss[1]));
  for (const auto& x : a)
    for (const auto& y : b) concurrent = concurrent || (x.start < y.end && y.start < x.end);
  CHECK(concurrent);
}

TEST_CASE("device: wait_event orders the waiting stream after the recorded task") {
  for (bool wait : {true, false}) {
    CAPTURE(wait);
    temp_dir t;
    auto dir = make_dir(t);
    device::simulated_device dev(dir);
    auto a = dev.create_stream();
    auto b = dev.create_stream();
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(dev.launch(*a, op("Big", "MatMul", 24, 4e11)));  // ~ 50 ms of simulated device time
    REQUIRE(dev.record_event(*a, 3));
    if (wait) REQUIRE(dev.wait_event(*b, 3));
    REQUIRE(dev.launch(*b, op("After", "Add", 1, 1e3)));
    REQUIRE(dev.synchronize());
    REQUIRE(dir.close());
    auto d = read_all(dir.path());
    const auto sa = static_cast<std::uint16_t>(*a), sb = static_cast<std::uint16_t>(*b);
    const auto big = d.tasks.at({sa, 0});
    const auto rec = d.tasks.at({sa, 1});
    CHECK(rec.sqe == codec::sqe::event_record);
    CHECK(rec.start >= big.end);
    REQUIRE(d.tracks.size() == (wait ? 4u : 3u));
    CHECK(d.track_type(d.tracks[1].payload) == "EVENT_RECORD");
    CHECK(d.apis_named("aclrtRecordEvent").size() == 1);
    if (wait) {
      const auto w = d.tasks.at({sb, 0});
      const auto after = d.tasks.at({sb, 1});
      CHECK(w.sqe == codec::sqe::event_wait);
      CHECK(d.track_type(d.tracks[2].payload) == "EVENT_WAIT");
      CHECK(d.apis_named("aclrtStreamWaitEvent").size() == 1);
      CHECK(w.end > rec.end);
      CHECK(after.start >= rec.end);
      CHECK(after.start >= big.end);
    } else {
      // Without the wait the small op runs beside the big one: the check above can fail.
      const auto after = d.tasks.at({sb, 0});
      CHECK(after.start < big.end);
    }
  }
}

TEST_CASE("device: sub-cycle tasks never overlap at a low hwts frequency") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  prof::device_options dv;
  dv.hwts_frequency_mhz = 1;  // 1 µs per device cycle: markers (20 ns) and events (0.5 µs) round up
  o.devices.push_back(dv);
  auto dir = prof::prof_dir::create(o);
  REQUIRE(dir);
  device::simulated_options so;
  so.virtual_host_step_ns = 1;  // submits 1 ns apart: the tasks queue back to back
  device::simulated_device dev(*dir, so);
  auto s = dev.create_stream();
  REQUIRE(s);
  for (int i = 0; i < 40; ++i) {
    if (i % 3 == 0) REQUIRE(dev.record_event(*s, static_cast<device::event_id>(i)));
    else REQUIRE(dev.mark(*s, static_cast<std::uint64_t>(i), i % 2 == 0));
  }
  REQUIRE(dev.synchronize());
  REQUIRE(dir->close());
  auto d = read_all(dir->path());
  const auto v = d.stream_tasks(static_cast<std::uint16_t>(*s));
  REQUIRE(v.size() == 40);
  for (std::size_t i = 1; i < v.size(); ++i) {
    CAPTURE(i);
    CHECK(v[i].end > v[i].start);
    CHECK(v[i].start >= v[i - 1].end);
  }
}

TEST_CASE("device: several host threads on one stream keep task id order on the device") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto s = dev.create_stream();
  REQUIRE(s);
  std::vector<std::thread> th;
  for (int i = 0; i < 4; ++i)
    th.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k) (void)dev.launch(*s, op("T" + std::to_string(i) + "_" + std::to_string(k), "Op", 2, 1e6 * (1 + k % 5)));
    });
  for (auto& x : th) x.join();
  REQUIRE(dev.synchronize());
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  const auto v = d.stream_tasks(static_cast<std::uint16_t>(*s));
  REQUIRE(v.size() == 80);
  for (std::size_t i = 1; i < v.size(); ++i) {
    CAPTURE(i);
    CHECK(v[i].start >= v[i - 1].end);
  }
}

TEST_CASE("device: wait on an event never recorded does not block") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto a = dev.create_stream();
  REQUIRE(a);
  REQUIRE(dev.wait_event(*a, 99));
  REQUIRE(dev.launch(*a, op("X", "Add", 1)));
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == 2);
}

TEST_CASE("device: memcpy_async writes memcpy_info, a MEMCPY_ASYNC task and an SDMA task without PMU") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto s = dev.create_stream();
  REQUIRE(s);
  REQUIRE(dev.memcpy_async(*s, 4096, device::memcpy_kind::host_to_device));
  REQUIRE(dev.memcpy_async(*s, 256u << 20, device::memcpy_kind::device_to_host));
  REQUIRE(dev.memcpy_async(*s, 1024, device::memcpy_kind::device_to_device));
  REQUIRE(dev.synchronize());
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  REQUIRE(d.memcpys.size() == 3);
  CHECK(d.memcpys[0].payload.dataSize == 4096);
  CHECK(d.memcpys[0].payload.memcpyDirection == 1);
  CHECK(d.memcpys[1].payload.dataSize == (256u << 20));
  CHECK(d.memcpys[1].payload.memcpyDirection == 2);
  CHECK(d.memcpys[2].payload.memcpyDirection == 3);
  REQUIRE(d.tracks.size() == 3);
  const auto mc = d.apis_named("aclrtMemcpyAsync");
  REQUIRE(mc.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(d.track_type(d.tracks[i].payload) == "MEMCPY_ASYNC");
    CHECK((d.tracks[i].payload.taskId & 0xFFFF) == i);
    CHECK(inside(mc[i], d.memcpys[i].head.timeStamp));
    CHECK(inside(mc[i], d.tracks[i].head.timeStamp));
    // Huawei's parser pairs a memcpy_info with its MEMCPY_ASYNC task_track by
    // (threadId, timeStamp): both must be the task_track's.
    CHECK(d.memcpys[i].head.timeStamp == d.tracks[i].head.timeStamp);
    CHECK(d.memcpys[i].head.threadId == d.tracks[i].head.threadId);
    const auto& task = d.tasks.at({static_cast<std::uint16_t>(*s), static_cast<std::uint16_t>(i)});
    CHECK(task.sqe == codec::sqe::sdma);
  }
  CHECK(d.apis_named("rtMemcpyAsync").size() == 3);
  CHECK(d.pmu.empty());
  // The cost grows with the bytes: 256 MiB takes far longer than 4 KiB.
  const auto small = d.tasks.at({static_cast<std::uint16_t>(*s), 0}), big = d.tasks.at({static_cast<std::uint16_t>(*s), 1});
  CHECK((big.end - big.start) > 100 * (small.end - small.start));
}

TEST_CASE("device: every stars_soc and ffts_profile record passes the checks of Huawei's parser") {
  // The parser (analysis/csrc StarsSocParser, FftsProfileParser, Chip4PmuParseItem)
  // drops a stars_soc record without the 0x6BD3 magic, warns when cnt does not
  // rise by 1 (mod 16) from record to record, drops device tasks whose SQE type
  // it cannot name, and files PMU counters under AI Core for fftsType 0 and
  // under AI Vector for the others (4 is FFTS+).
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_options so;
  so.asynchronous = false;
  {
    device::simulated_device dev(dir, so);
    auto a = dev.create_stream();
    auto b = dev.create_stream();
    REQUIRE(a);
    REQUIRE(b);
    for (int i = 0; i < 12; ++i) {  // more than 16 records each: cnt wraps
      const bool vec = i % 3 == 1;
      REQUIRE(dev.launch(i % 2 ? *a : *b, op("Op_" + std::to_string(i), vec ? "Add" : "MatMul", 8, 1e9, 1e6,
                                             vec ? codec::ge_task::ai_vector_core : codec::ge_task::ai_core)));
    }
    REQUIRE(dev.launch(*a, op("Cpu_1", "Cast", 1, 0, 0, codec::ge_task::ai_cpu)));
    REQUIRE(dev.memcpy_async(*b, 4096, device::memcpy_kind::host_to_device));
    REQUIRE(dev.record_event(*a, 1));
    REQUIRE(dev.wait_event(*b, 1));
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  REQUIRE(d.acsq.size() == 2 * 16);
  for (std::size_t i = 0; i < d.acsq.size(); ++i) {
    CAPTURE(i);
    const auto& l = d.acsq[i];
    CHECK(+l.magicNumber == 0x6BD3);
    CHECK((l.func_type() == codec::acsq_func_start || l.func_type() == codec::acsq_func_end));
    CHECK(l.task_type() <= codec::sqe::last_named);
    if (i > 0) CHECK(l.cnt() == (d.acsq[i - 1].cnt() + 1) % 16);
  }
  REQUIRE(d.pmu.size() == 12);
  std::size_t aiv = 0;
  for (std::size_t i = 0; i < d.pmu.size(); ++i) {
    CAPTURE(i);
    const auto& p = d.pmu[i];
    CHECK(p.func_type() == codec::context_pmu_func);
    if (i > 0) CHECK(p.cnt() == (d.pmu[i - 1].cnt() + 1) % 16);
    const auto st = codec::unpack_stream_task(p.streamId, p.taskId);
    const bool vec = d.tasks.at({st.stream_id, st.task_id}).sqe == codec::sqe::aiv;
    aiv += vec;
    CHECK(p.ffts_type() == (vec ? codec::ffts_type::aiv : codec::ffts_type::aic));
  }
  CHECK(aiv == 4);
}

namespace {

/// Runs a fixed workload with a virtual host clock; returns the device files' bytes.
std::pair<std::string, std::string> run_fixed(std::uint64_t seed, bool asynchronous, std::string* host_api = nullptr) {
  temp_dir t;
  auto dir = make_dir(t, "PROF_000001_20260101120000000_SIMULATEDDEVICEAA", true);
  device::simulated_options so;
  so.seed = seed;
  so.virtual_host_step_ns = 1000;
  so.asynchronous = asynchronous;
  {
    device::simulated_device dev(dir, so);
    auto a = dev.create_stream();
    auto b = dev.create_stream();
    REQUIRE(a);
    REQUIRE(b);
    for (int i = 0; i < 10; ++i) {
      REQUIRE(dev.launch(i % 2 ? *a : *b, op("Op_" + std::to_string(i), "Op", 1 + static_cast<std::uint32_t>(i), 1e9)));
      if (i == 4) {
        REQUIRE(dev.record_event(*a, 1));
        REQUIRE(dev.wait_event(*b, 1));
        REQUIRE(dev.memcpy_async(*b, 1 << 20, device::memcpy_kind::device_to_host));
      }
    }
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir.close());
  const std::string data = dir.path() + "/device_0/data/";
  if (host_api) *host_api = read_text(dir.path() + "/host/data/unaging.api_event.data.slice_0");
  return {read_text(data + "stars_soc.data.0.slice_0"), read_text(data + "ffts_profile.data.0.slice_0")};
}

}  // namespace

TEST_CASE("device: the same seed gives the same output, another seed other durations") {
  std::string api1, api2;
  const auto a = run_fixed(1, true, &api1);
  const auto b = run_fixed(1, true, &api2);
  const auto c = run_fixed(2, true);
  const auto sync = run_fixed(1, false);
  CHECK(a.first.size() == 13 * 2 * 64);  // 13 tasks, ACSQ start + end
  CHECK(a.second.size() == 10 * 128);
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(api1 == api2);
  CHECK(a.first == sync.first);  // the device thread changes nothing but who writes
  CHECK(a.second == sync.second);
  CHECK(a.first.size() == c.first.size());
  CHECK(a.first != c.first);
  CHECK(a.second != c.second);
}

TEST_CASE("device: every metric group's counters are consistent (ratios in [0,1], busy <= total)") {
  namespace am = codec::aic_metrics;
  for (const auto& g : am::groups) {
    CAPTURE(g.name);
    temp_dir t;
    prof::prof_dir_options o;
    o.parent = t.path;
    o.name = "PROF_000001_20260101120000000_SIMULATEDDEVICEAA";
    prof::device_options dv;
    dv.aic_metrics = std::string(g.name);
    o.devices.push_back(dv);
    auto dir = prof::prof_dir::create(o);
    REQUIRE(dir);
    device::simulated_device dev(*dir);
    REQUIRE(dev.init_error() == nullptr);
    auto s = dev.create_stream();
    REQUIRE(s);
    struct shape { std::uint32_t blocks; double flops, bytes; std::uint32_t ge; };
    const std::vector<shape> shapes = {{1, 1e6, 1e3, 0},    {8, 2e10, 1e6, 0},  {24, 1e11, 1e9, 0}, {48, 1e11, 1e7, 0},
                                       {25, 5e10, 1e8, 0},  {100, 1e9, 8e9, 0}, {1, 0, 0, 0},       {48, 1e9, 1e8, 2},
                                       {96, 1e10, 1e6, 2},  {7, 1e3, 5e9, 2}};
    for (std::size_t i = 0; i < shapes.size(); ++i)
      REQUIRE(dev.launch(*s, op("Op_" + std::to_string(i), "Op", shapes[i].blocks, shapes[i].flops, shapes[i].bytes, shapes[i].ge)));
    REQUIRE(dev.synchronize());
    REQUIRE(dir->close());
    auto d = read_all(dir->path());
    const auto* di = d.r.device(0);
    REQUIRE(di != nullptr);
    // sample.json names the parser's calculators and CANN's 910B events.
    CHECK(di->aic_metrics == g.aic_calc);
    CHECK(di->aiv_metrics == g.aiv_calc);
    CHECK(di->sample.get("ai_core_profiling_events").as_string_or("?") == g.aic_events);
    CHECK(di->sample.get("aiv_profiling_events").as_string_or("?") == g.aiv_events);
    if (g.aic_events.empty()) {  // AiCoreNone: counters off, no PMU records
      CHECK(d.pmu.empty());
      CHECK(di->sample.get("ai_core_profiling").as_string_or("") == "off");
      continue;
    }
    REQUIRE(d.pmu.size() == shapes.size());
    cv::session_info si;
    si.ai_core_metrics = di->aic_metrics;
    si.aiv_metrics = di->aiv_metrics;
    si.aic_events = di->events;
    si.aiv_events = di->aiv_events;
    const auto cols = cv::pmu_columns::of(si);
    REQUIRE_FALSE(cols.empty());
    for (std::size_t i = 0; i < d.pmu.size(); ++i) {
      CAPTURE(i);
      const auto& p = d.pmu[i];
      const auto& sh = shapes[p.taskId];
      CAPTURE(sh.blocks);
      REQUIRE(p.totalCycle > 0);
      for (auto c : p.pmuList) CHECK(c <= p.totalCycle);
      const bool vec = sh.ge == codec::ge_task::ai_vector_core;
      const std::uint32_t cores = vec ? di->aiv_num : di->ai_core_num;
      const auto& side = vec ? cols.aiv : cols.aic;
      cv::pmu_counters pc{p.totalCycle, {}};
      std::copy(std::begin(p.pmuList), std::end(p.pmuList), pc.events.begin());
      const auto m = cv::compute_pmu(side, pc, sh.blocks, di->aic_frequency_mhz, cores);
      // The converters' formulas: aicore_time <= task duration, every ratio
      // (and an events sum) in [0, 1], times <= duration, cube utilization <= 100 %,
      // also when block_dim > core count (waves).
      const double dur_us = static_cast<double>(p.timeList[1] - p.timeList[0]) / di->clock.frequency_mhz;
      CHECK(m.total_time_us <= dur_us * 1.001 + 0.01);
      CHECK(m.total_time_us >= dur_us * 0.5);
      for (std::size_t k = 0; k < m.size; ++k) {
        const auto& metric = side.calc->metrics[k];
        CAPTURE(metric.name);
        CHECK(m.metrics[k] >= 0.0);
        if (metric.kind == am::formula::ratio || metric.kind == am::formula::miss_rate) CHECK(m.metrics[k] <= 1.0);
        if (metric.kind == am::formula::time) CHECK(m.metrics[k] <= dur_us * 1.001 + 0.01);
        // Compute-bound cube ops show it in mac (cube) busy cycles; vector ops in vec.
        if (sh.flops >= 1e10 && sh.bytes <= 1e6 && (metric.name == (vec ? "vec_ratio" : "mac_ratio") ||
                                                    metric.name == "mac_ratio_extra"))
          CHECK(m.metrics[k] > 0.5);
        if (vec && metric.name == "mac_ratio") CHECK(m.metrics[k] == 0.0);  // AI Vector cores have no cube unit
      }
      const double util = static_cast<double>(p.totalCycle) / (di->aic_frequency_mhz * cores * dur_us);
      CHECK(util <= 1.0 + 1e-6);
    }
  }
}

TEST_CASE("device: info.json and sample.json say simulated") {
  temp_dir t;
  auto dir = make_dir(t);
  {
    device::simulated_device dev(dir);
    auto s = dev.create_stream();
    REQUIRE(s);
    REQUIRE(dev.launch(*s, op("A", "Add")));
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir.close());
  auto r = prof::prof_reader::open(dir.path());
  REQUIRE(r);
  CHECK(r->host().simulated);
  CHECK(r->host().info.get("simulated_device").as_string_or("") == "yes");
  REQUIRE(r->devices().size() == 1);
  CHECK(r->devices()[0].simulated);
  CHECK(r->devices()[0].info.get("DeviceInfo").at(0).get("simulated").as_string_or("") == "yes");
  CHECK(r->devices()[0].sample.get("simulated").as_string_or("") == "yes");
}

TEST_CASE("device: unknown aic_metrics and unknown devices are clear errors") {
  SUBCASE("metrics from the PROF directory's device options") {
    temp_dir t;
    prof::prof_dir_options o;
    o.parent = t.path;
    prof::device_options dv;
    dv.aic_metrics = "MemoryBandwidth";
    o.devices.push_back(dv);
    auto dir = prof::prof_dir::create(o);
    REQUIRE(dir);
    device::simulated_device dev(*dir);
    REQUIRE(dev.init_error() != nullptr);
    CHECK(dev.init_error()->code == msprof::errc::unsupported);
    CHECK(dev.init_error()->message.find("'MemoryBandwidth'") != std::string::npos);
    CHECK(dev.init_error()->message.find("PipeUtilization, ArithmeticUtilization") != std::string::npos);
    auto s = dev.create_stream();
    REQUIRE_FALSE(s);
    CHECK(s.err().code == msprof::errc::unsupported);
    auto l = dev.launch(0, op("A", "Add"));
    REQUIRE_FALSE(l);
    CHECK(l.err().code == msprof::errc::unsupported);
    CHECK_FALSE(dev.memcpy_async(0, 1, device::memcpy_kind::host_to_device));
    CHECK_FALSE(dev.record_event(0, 1));
    CHECK_FALSE(dev.wait_event(0, 1));
    CHECK_FALSE(dev.mark(0, 1, false));
    CHECK_FALSE(dev.synchronize());
    CHECK(dev.tasks_written() == 0);
  }
  SUBCASE("metrics from simulated_options when the directory leaves them empty") {
    temp_dir t;
    prof::prof_dir_options o;
    o.parent = t.path;
    prof::device_options dv;
    dv.aic_metrics = "";
    o.devices.push_back(dv);
    auto dir = prof::prof_dir::create(o);
    REQUIRE(dir);
    device::simulated_options so;
    so.aic_metrics = "Arithmetic";
    device::simulated_device dev(*dir, so);
    REQUIRE(dev.init_error() != nullptr);
    CHECK(dev.init_error()->message.find("'Arithmetic'") != std::string::npos);
  }
  SUBCASE("a device the directory does not have") {
    temp_dir t;
    auto dir = make_dir(t);
    device::simulated_options so;
    so.device_id = 3;
    device::simulated_device dev(dir, so);
    REQUIRE(dev.init_error() != nullptr);
    CHECK(dev.init_error()->code == msprof::errc::invalid_argument);
    CHECK(dev.init_error()->message.find("simulated device 3") != std::string::npos);
    CHECK_FALSE(dev.create_stream());
  }
}

TEST_CASE("device: cost model options out of range are init errors") {
  temp_dir t;
  auto dir = make_dir(t);
  auto bad = [&](auto set) {
    device::simulated_options so;
    set(so);
    device::simulated_device dev(dir, so);
    REQUIRE(dev.init_error() != nullptr);
    CHECK(dev.init_error()->code == msprof::errc::invalid_argument);
    CHECK_FALSE(dev.create_stream());
    return dev.init_error()->message;
  };
  CHECK(bad([](auto& o) { o.jitter = 1.5; }).find("jitter") != std::string::npos);  // would give negative durations
  CHECK(bad([](auto& o) { o.jitter = -0.1; }).find("jitter") != std::string::npos);
  CHECK(bad([](auto& o) { o.memory_bandwidth = 0; }).find("bandwidth") != std::string::npos);
  CHECK(bad([](auto& o) { o.cube_flops_per_core = -1; }).find("flops") != std::string::npos);
  CHECK(bad([](auto& o) { o.min_task_us = -2; }).find(">= 0") != std::string::npos);
  device::simulated_options fine;
  fine.jitter = 0;
  device::simulated_device dev(dir, fine);
  CHECK(dev.init_error() == nullptr);
}

TEST_CASE("device: at most 2048 streams per device") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_options so;
  so.virtual_host_step_ns = 1;  // no clock calls: keeps this fast
  device::simulated_device dev(dir, so);
  for (device::stream_id i = 0; i < 2048; ++i) {
    auto s = dev.create_stream();
    REQUIRE(s);
    REQUIRE(*s == i);
  }
  auto over = dev.create_stream();
  REQUIRE_FALSE(over);
  CHECK(over.err().code == msprof::errc::limit);
  CHECK(over.err().message.find("2048") != std::string::npos);
  REQUIRE(dev.launch(2047, op("Last", "Add")));  // the highest id still packs plainly
  REQUIRE(dev.synchronize());
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  REQUIRE(d.tasks.size() == 1);
  CHECK(d.tasks.begin()->first == std::make_pair<std::uint16_t, std::uint16_t>(2047, 0));
}

TEST_CASE("device: launch errors name the stream or the op") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto s = dev.create_stream();
  REQUIRE(s);
  auto r = dev.launch(7, op("A", "Add"));
  REQUIRE_FALSE(r);
  CHECK(r.err().code == msprof::errc::invalid_argument);
  CHECK(r.err().message.find("unknown stream 7") != std::string::npos);
  auto m = dev.memcpy_async(9, 16, device::memcpy_kind::host_to_device);
  REQUIRE_FALSE(m);
  CHECK(m.err().message.find("unknown stream 9") != std::string::npos);
  CHECK(dev.record_event(12, 1).err().message.find("unknown stream 12") != std::string::npos);
  CHECK(dev.memcpy_async(*s, 16, static_cast<device::memcpy_kind>(7)).err().message.find("memcpy kind 7") != std::string::npos);
  CHECK(dev.wait_event(13, 1).err().message.find("unknown stream 13") != std::string::npos);
  CHECK(dev.mark(14, 1, false).err().message.find("unknown stream 14") != std::string::npos);
  auto bad = op("Zero", "Add", 0);
  auto z = dev.launch(*s, bad);
  REQUIRE_FALSE(z);
  CHECK(z.err().message.find("'Zero'") != std::string::npos);
  CHECK(z.err().message.find("block_dim 0") != std::string::npos);
  auto neg = op("Neg", "Add", 1, -1);
  CHECK(dev.launch(*s, neg).err().message.find("'Neg'") != std::string::npos);
  auto unnamed = op("", "Add");
  CHECK_FALSE(dev.launch(*s, unnamed));
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == 0);
  REQUIRE(dir.close());
  // Rejected launches leave nothing behind: no task without a device task.
  auto d = read_all(dir.path());
  CHECK(d.tracks.empty());
  CHECK(d.nodes.empty());
  CHECK(d.tensors.empty());
  CHECK(d.memcpys.empty());
  CHECK(d.acsq.empty());
}

namespace {

struct quiet_recorder {
  static bool collecting() noexcept { return true; }
  static void mark(const msprof::instrument::event&) noexcept {}
  static void range_start(const msprof::instrument::event&) noexcept {}
  static void range_end(const msprof::instrument::event&) noexcept {}
  static void memory(const msprof::instrument::mem_event&) noexcept {}
  static void domain_registered(std::uint32_t, const char*) noexcept {}
};

}  // namespace

TEST_CASE("device: mstx markers with a stream become device marker tasks") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto s = dev.create_stream();
  REQUIRE(s);
  REQUIRE(dev.launch(*s, op("A", "Add")));
  // Directly through the instrument::stream_marker interface...
  msprof::instrument::stream_marker& be = dev;
  be.marker(device::simulated_device::stream_handle(*s), 41, false);
  be.marker(device::simulated_device::stream_handle(*s), 41, true);
  // ... and through the mstx tool core, as an instrumented program would.
  using core = msprof::instrument::tool_core<quiet_recorder>;
  core::set_stream_marker(&dev);
  core::mark(0, "on_stream", true, 9, device::simulated_device::stream_handle(*s));
  core::mark(0, "host_only", true, 9, nullptr);  // no stream: no device task
  core::set_stream_marker(nullptr);
  be.marker(nullptr, 1, false);  // a null stream is ignored, never a crash
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == 4);
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  REQUIRE(d.tracks.size() == 4);
  std::vector<std::string> kernels;
  for (std::size_t i = 1; i < 4; ++i) {
    CAPTURE(i);
    const auto& tr = d.tracks[i].payload;
    CHECK(d.track_type(tr) == "MSTX_MARKER");
    CHECK(tr.taskType == device::simulated_device::mstx_marker_task);
    CHECK(tr.streamId == *s);
    CHECK((tr.taskId & 0xFFFF) == i);
    kernels.push_back(d.r.lookup(tr.kernelName));
    const auto& task = d.tasks.at({static_cast<std::uint16_t>(*s), static_cast<std::uint16_t>(i)});
    CHECK(task.sqe == codec::sqe::place_holder);
    CHECK(task.end > task.start);
  }
  CHECK(kernels[0] == "mstx_marker_41");
  CHECK(kernels[1] == "mstx_marker_41_end");
  CHECK(kernels[2].rfind("mstx_marker_", 0) == 0);
  CHECK(d.pmu.size() == 1);  // markers have no PMU record
}

TEST_CASE("device: an mstx range with a stream puts a start and an end marker on the stream") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  auto s = dev.create_stream();
  REQUIRE(s);
  using core = msprof::instrument::tool_core<quiet_recorder>;
  core::set_stream_marker(&dev);
  const auto id = core::range_start(0, "step", true, 4, device::simulated_device::stream_handle(*s));
  std::uint32_t other = 0;
  REQUIRE(core::index_of(core::domain_create("device_test_other"), other));
  core::range_end(other, id);  // wrong domain: rejected later, must not take the end marker
  core::range_end(0, id);
  core::set_stream_marker(nullptr);
  CHECK(id != 0);
  REQUIRE(dev.synchronize());
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  std::vector<std::string> kernels;
  for (const auto& tr : d.tracks) kernels.push_back(d.r.lookup(tr.payload.kernelName));
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0] == "mstx_marker_" + std::to_string(id));
  CHECK(kernels[1] == "mstx_marker_" + std::to_string(id) + "_end");
}

TEST_CASE("device: launches from several host threads (device thread + writer under TSan)") {
  temp_dir t;
  auto dir = make_dir(t);
  device::simulated_device dev(dir);
  constexpr int threads = 4, per = 25;
  std::vector<device::stream_id> ss;
  for (int i = 0; i < threads; ++i) {
    auto s = dev.create_stream();
    REQUIRE(s);
    ss.push_back(*s);
  }
  std::vector<std::thread> th;
  std::vector<int> failures(threads, 0);
  for (int i = 0; i < threads; ++i)
    th.emplace_back([&, i] {
      for (int k = 0; k < per; ++k) {
        auto o = op("T" + std::to_string(i) + "_" + std::to_string(k), "Op", 4, 1e8);
        if (!dev.launch(ss[static_cast<std::size_t>(i)], o)) ++failures[static_cast<std::size_t>(i)];
        if (k % 10 == 0) (void)dev.tasks_written();
      }
    });
  for (auto& x : th) x.join();
  for (int f : failures) CHECK(f == 0);
  REQUIRE(dev.synchronize());
  CHECK(dev.tasks_written() == threads * per);
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  CHECK(d.tracks.size() == threads * per);
  for (auto s : ss) {
    const auto v = d.stream_tasks(static_cast<std::uint16_t>(s));
    REQUIRE(v.size() == per);
    for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i].start >= v[i - 1].end);
  }
}

TEST_CASE("device: destroying the device drains queued tasks") {
  temp_dir t;
  auto dir = make_dir(t);
  {
    device::simulated_device dev(dir);
    auto s = dev.create_stream();
    REQUIRE(s);
    for (int i = 0; i < 20; ++i) REQUIRE(dev.launch(*s, op("Op" + std::to_string(i), "Op")));
  }  // no synchronize()
  REQUIRE(dir.close());
  auto d = read_all(dir.path());
  CHECK(d.tracks.size() == 20);
  CHECK(d.tasks.size() == 20);
  CHECK(d.pmu.size() == 20);
}

namespace {

const std::vector<std::string> e2e_names = {"MatMul_1", "Add_1", "Conv2D_1", "MatMul_2"};

/// Simulated device -> PROF_ -> msprof export (timeline + summaries), stamp "T".
std::string run_e2e(const temp_dir& t) {
  auto dir = make_dir(t);
  {
    device::simulated_device dev(dir);
    auto a = dev.create_stream();
    auto b = dev.create_stream();
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(dev.memcpy_async(*a, 1 << 20, device::memcpy_kind::host_to_device));
    REQUIRE(dev.launch(*a, op(e2e_names[0], "MatMul", 20, 2e9)));
    REQUIRE(dev.launch(*b, op(e2e_names[1], "Add", 40, 1e7, 1e6, codec::ge_task::ai_vector_core)));
    REQUIRE(dev.record_event(*a, 1));
    REQUIRE(dev.wait_event(*b, 1));
    REQUIRE(dev.launch(*b, op(e2e_names[2], "Conv2D", 48, 5e9)));
    REQUIRE(dev.launch(*a, op(e2e_names[3], "MatMul", 20, 2e9)));
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir.close());
  cv::export_options eo;
  eo.timestamp = "T";
  auto sum = cv::export_summary(dir.path(), eo);
  REQUIRE(sum);
  for (const auto& w : sum->warnings) MESSAGE(w);
  CHECK(sum->warnings.empty());
  auto tl = cv::export_timeline(dir.path(), eo);
  REQUIRE(tl);
  return dir.path() + "/mindstudio_profiler_output/";
}

/// X slices of the "Ascend Hardware" process: name -> count.
std::multiset<std::string> hardware_slices(const std::string& out, std::set<std::int64_t>* streams = nullptr) {
  auto j = msprof::json::parse(read_text(out + "msprof_T.json"), "msprof_T.json");
  REQUIRE(j);
  REQUIRE(j->is_array());
  std::int64_t hw_pid = -1;
  for (const auto& e : j->items())
    if (e.get("ph").as_string_or("") == "M" && e.get("name").as_string_or("") == "process_name" &&
        e.get("args").get("name").as_string_or("") == "Ascend Hardware")
      hw_pid = e.get("pid").int_or(-2);
  REQUIRE(hw_pid >= 0);
  std::multiset<std::string> slices;
  for (const auto& e : j->items())
    if (e.get("ph").as_string_or("") == "X" && e.get("pid").int_or(-3) == hw_pid) {
      slices.insert(e.get("name").as_string_or(""));
      if (streams) streams->insert(e.get("tid").int_or(-1));
    }
  return slices;
}

}  // namespace

TEST_CASE("device: end to end, every simulated task is an Ascend Hardware slice in the exported timeline") {
  temp_dir t;
  const std::string out = run_e2e(t);
  std::set<std::int64_t> streams;
  const auto slices = hardware_slices(out, &streams);
  CHECK(slices.size() == e2e_names.size() + 3);  // + memcpy, event record, event wait
  CHECK(streams.size() == 2);
  // One task_time row per device task.
  const std::string tt = read_text(out + "task_time_T.csv");
  CHECK(std::count(tt.begin(), tt.end(), '\n') == static_cast<long>(1 + e2e_names.size() + 3));
}

TEST_CASE("device: end to end, op_summary rows and timeline slices carry the launched op names") {
  temp_dir t;
  const std::string out = run_e2e(t);
  const std::string csv = read_text(out + "op_summary_T.csv");
  CHECK(!csv.empty());
  std::vector<std::string> lines;
  {
    std::istringstream is(csv);
    for (std::string l; std::getline(is, l);) lines.push_back(l);
  }
  CHECK(lines.size() == 1 + e2e_names.size());
  if (!lines.empty()) CHECK(lines[0].find("aic_mac_ratio") != std::string::npos);
  const auto slices = hardware_slices(out);
  for (const auto& n : e2e_names) {
    CAPTURE(n);
    bool found = false;
    for (std::size_t k = 1; k < lines.size(); ++k) found = found || lines[k].find(n + ",") != std::string::npos;
    CHECK(found);
    CHECK(slices.count(n) == 1);
  }
}

TEST_CASE("device: end to end, a memcpy is an SDMA_SQE slice with size, bandwidth and operation, and a MEMCPY_INFO row") {
  temp_dir t;
  const std::string out = run_e2e(t);
  const std::string prof_dir = out.substr(0, out.size() - std::string("/mindstudio_profiler_output/").size());
  auto j = msprof::json::parse(read_text(out + "msprof_T.json"), "msprof_T.json");
  REQUIRE(j);
  int found = 0;
  for (const auto& e : j->items()) {
    if (e.get("ph").as_string_or("") != "X" || e.get("name").as_string_or("") != "MEMCPY_ASYNC") continue;
    ++found;
    const auto& args = e.get("args");
    CHECK(args.get("Task Type").as_string_or("") == "SDMA_SQE");
    CHECK(args.get("size(B)").uint_or(0) == (1u << 20));
    CHECK(args.get("operation").as_string_or("") == "host to device");
    // bytes per ns of the slice's own duration (µs in "dur")
    double dur_us = 0, bw = 0;
    REQUIRE(e.get("dur").to_double(dur_us));
    REQUIRE(args.get("bandwidth(GB/s)").to_double(bw));
    CHECK(bw == doctest::Approx((1u << 20) / (dur_us * 1000.0)).epsilon(1e-9));
  }
  CHECK(found == 1);

  cv::export_options eo;
  eo.timestamp = "T";
  auto db = cv::export_db(prof_dir, eo);
  REQUIRE(db);
  std::string path;
  for (const auto& f : db->files)
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".db") == 0) path = f;
  REQUIRE(!path.empty());
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::vector<std::string> rows;
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(h,
                             "SELECT m.size, m.memcpyOperation, s.value FROM MEMCPY_INFO m JOIN TASK t ON "
                             "t.globalTaskId = m.globalTaskId JOIN STRING_IDS s ON s.id = t.taskType",
                             -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    rows.push_back(std::to_string(sqlite3_column_int64(st, 0)) + "," + std::to_string(sqlite3_column_int64(st, 1)) + "," +
                   reinterpret_cast<const char*>(sqlite3_column_text(st, 2)));
  sqlite3_finalize(st);
  sqlite3_close(h);
  CHECK(rows == std::vector<std::string>{std::to_string(1u << 20) + ",1,MEMCPY_ASYNC"});
}

TEST_CASE("device: end to end, synchronize() writes memory samples: npu_module_mem RUNTIME and GE, npu_mem APP and Device") {
  temp_dir t;
  const std::string out = run_e2e(t);  // 1 MiB copied to the device, one synchronize()
  const auto lines = [&](const std::string& f) {
    std::vector<std::string> v;
    std::istringstream in(read_text(out + f));
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  };
  const auto mod = lines("npu_module_mem_T.csv");
  REQUIRE(mod.size() == 3);
  CHECK(mod[1].rfind("0,RUNTIME,", 0) == 0);
  CHECK(mod[1].find("\t,32768,NPU:0") != std::string::npos);
  CHECK(mod[2].rfind("0,GE,", 0) == 0);
  CHECK(mod[2].find("\t,66560,NPU:0") != std::string::npos);  // 64 MiB + the 1 MiB copied
  const auto mem = lines("npu_mem_T.csv");
  REQUIRE(mem.size() == 3);
  CHECK(mem[1].rfind("0,APP,0,66560,66560,", 0) == 0);
  CHECK(mem[2].rfind("0,Device,0,1115136,1115136,", 0) == 0);  // + the 1 GiB device reserve
  // Both samples at the synchronize(): the same time, after the last task's launch.
  CHECK(mem[1].substr(mem[1].rfind(',')) == mem[2].substr(mem[2].rfind(',')));
}

TEST_CASE("device: without memory_samples no memory slices are written, and a copy back lowers the APP memory") {
  temp_dir t;
  auto dir = make_dir(t, "PROF_000001_20260101120000000_SIMULATEDDEVICEAA", true);
  {
    device::simulated_options so;
    so.memory_samples = false;
    device::simulated_device dev(dir, so);
    auto s = dev.create_stream();
    REQUIRE(s);
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir.close());
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/device_0/data"))
    CHECK(e.path().filename().string().find("mem") == std::string::npos);

  temp_dir t2;
  auto dir2 = make_dir(t2, "PROF_000001_20260101120000000_SIMULATEDDEVICEAA", true);
  {
    device::simulated_options so;
    so.virtual_host_step_ns = 1000;
    device::simulated_device dev(dir2, so);
    auto s = dev.create_stream();
    REQUIRE(s);
    REQUIRE(dev.memcpy_async(*s, 4 << 20, device::memcpy_kind::host_to_device));
    REQUIRE(dev.synchronize());
    REQUIRE(dev.memcpy_async(*s, 1 << 20, device::memcpy_kind::device_to_host));
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir2.close());
  std::vector<std::uint64_t> app;
  std::vector<std::string> warnings;
  REQUIRE(cv::for_each_npu_mem(dir2.path(), warnings, [&](const cv::npu_mem_sample& m) -> msprof::result<void> {
    if (m.event == 0) app.push_back(m.hbm);
    return {};
  }));
  CHECK(warnings.empty());
  CHECK(app == std::vector<std::uint64_t>{(64u + 4u) << 20, (64u + 3u) << 20});
}
