// SPDX-License-Identifier: MIT
// The PROF_ directories of the `hccl_allreduce` and `hccl_groups` golden cases
// (tests/golden/README.md). hccl_allreduce: one host thread launches ordinary
// kernels and two hcom_allReduce_ collectives;
// each collective is a Node@launch with node_basic_info and hccl_op_info, holding
// four HCCL-level (5500, "master") APIs, one small task each (hccl_info +
// task_track), on two planes / streams; the device runs every task (ACSQ) and
// writes a PMU record for each kernel.
// Written through the project's encoders and prof writer, so the case's input
// is reproducible: tests/unit/hccl compares a fresh one with the stored copy.
#ifndef MSPROF_TESTS_SUPPORT_HCCL_PROF_HPP
#define MSPROF_TESTS_SUPPORT_HCCL_PROF_HPP

#include <msprof/codec/encode.hpp>
#include <msprof/prof/writer.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hccl_prof {

namespace codec = msprof::codec;
namespace prof = msprof::prof;

inline constexpr std::uint64_t anchor_ns = 1000000000000ull;      // host CLOCK_MONOTONIC_RAW at the start
inline constexpr std::uint64_t wall_us = 1767268800000000ull;     // 2026-01-01 12:00:00 UTC
inline constexpr std::uint64_t cntvct = 7000000000ull;            // device counter at anchor_ns (50 MHz)
inline constexpr std::uint32_t tid = 2001;
inline constexpr char name[] = "PROF_000001_20260101120000000_GOLDENHCCLAAAAAA";

/// The golden case's folder (input/, expected/) in the source tree.
inline std::filesystem::path case_dir() { return std::filesystem::path(MSPROF_TEST_DATA_DIR) / "golden" / "hccl_allreduce"; }

// Runtime task type ids are registered by name; the parser only reads the name.
namespace rt {
inline constexpr std::uint32_t kernel_aicore = 0, kernel_aivec = 66, memcpy_async = 9, notify_record = 14,
                               notify_wait = 15;
}

inline std::uint64_t us(double t) { return anchor_ns + static_cast<std::uint64_t>(t * 1000.0); }
inline std::uint64_t cycles(double t) { return cntvct + static_cast<std::uint64_t>(t * 50.0); }  // 50 cycles per µs

struct writer {
  prof::prof_dir& d;
  std::map<std::uint16_t, std::vector<codec::StarsAcsqLog>> acsq;  // per device, in write order (cnt counts them)
  std::vector<codec::ContextPmu> pmu;                                // device 0's
  std::uint16_t device = 0;                                          // where the next tasks run
  bool failed = false;                    // an append failed (reported by write())

  template <class Bytes>
  void put(const prof::stream& st, const Bytes& b) {
    if (!d.append(st, b.data(), b.size())) failed = true;
  }

  void api(std::uint16_t level, std::uint32_t type, double b, double e, std::uint64_t item) {
    codec::MsprofApi a;
    a.level = level;
    a.type = type;
    a.threadId = tid;
    a.beginTime = us(b);
    a.endTime = us(e);
    a.itemId = item;
    const auto bytes = codec::encode(a);
    put(prof::stream::api_event(false), bytes);
  }
  void track(double t, std::uint16_t stream, std::uint16_t task, std::uint32_t type, std::uint64_t kernel,
             std::uint16_t blocks) {
    codec::MsprofRuntimeTrack r;
    r.streamId = stream;
    r.taskId = task;
    r.taskType = type;
    r.kernelName = kernel;
    r.set_num_blocks(blocks);
    r.deviceId = device;
    const auto bytes = codec::encode_task_track(tid, us(t), r);
    put(prof::stream::task_track(true), bytes);
  }
  void device_task(std::uint16_t stream, std::uint16_t task, std::uint16_t sqe, double start, double end) {
    auto& logs = acsq[device];
    for (int e = 0; e < 2; ++e) {
      codec::StarsAcsqLog l;
      l.set_word0(e == 0 ? codec::acsq_func_start : codec::acsq_func_end, static_cast<std::uint16_t>(logs.size() % 16),
                  sqe);
      l.streamId = stream;
      l.taskId = task;
      l.timestamp = cycles(e == 0 ? start : end);
      logs.push_back(l);
    }
  }
  void node(double t, const char* op, std::uint32_t ge_type, const char* op_type, std::uint32_t blocks) {
    codec::MsprofNodeBasicInfo n;
    n.opName = d.hash(op);
    n.taskType = ge_type;
    n.opType = d.hash(op_type);
    n.blockNum = blocks;
    const auto bytes = codec::encode_node_basic_info(tid, us(t), n);
    put(prof::stream::node_basic_info(false), bytes);
  }
  // An ordinary kernel: Node@launch, node_basic_info, tensor_info (one input, one
  // output), task_track, its device task and its PMU record.
  void kernel(double t, const char* op, std::uint32_t ge_type, const char* op_type, std::uint16_t task,
              std::uint32_t rt_type, double dev_start, double dev_dur) {
    api(codec::level::node, codec::node_type::launch, t, t + 10, d.hash(op));
    node(t + 1, op, ge_type, op_type, 8);
    std::vector<codec::MsprofTensorData> tensors(2);
    for (std::uint32_t k = 0; k < 2; ++k) {
      tensors[k].tensorType = k;
      tensors[k].format = 2;    // ND
      tensors[k].dataType = 1;  // FLOAT16
      tensors[k].shape[0] = 128;
      tensors[k].shape[1] = 256;
    }
    for (const auto& r : codec::encode_tensor_infos(tid, us(t + 1), d.hash(op), tensors))
      put(prof::stream::tensor_info(true), r);
    track(t + 8, 2, task, rt_type, d.hash(std::string(op_type) + "_kernel"), 8);
    const bool aic = ge_type == codec::ge_task::ai_core;
    device_task(2, task, aic ? codec::sqe::ai_core : codec::sqe::aiv, dev_start, dev_start + dev_dur);
    codec::ContextPmu p;
    p.set_word0(codec::context_pmu_func, static_cast<std::uint16_t>(pmu.size() % 16));
    p.streamId = 2;
    p.taskId = task;
    p.set_ffts_type(aic ? codec::ffts_type::aic : codec::ffts_type::aiv);
    p.totalCycle = static_cast<std::uint64_t>(dev_dur * 1800);  // 1800 MHz
    for (std::uint64_t k = 0; k < 8; ++k) p.pmuList[k] = 1000 * (k + 1);
    p.timeList[0] = cycles(dev_start);
    p.timeList[1] = cycles(dev_start + dev_dur);
    pmu.push_back(p);
  }
  // One small HCCL task inside a collective: its HCCL-level API, hccl_info and task_track.
  struct small {
    const char* name;
    std::uint32_t plane;
    std::uint16_t stream;
    std::uint32_t rt_type;
    std::uint16_t sqe;
    std::uint64_t bytes;
    std::uint32_t remote;
    std::uint32_t link;
    std::uint32_t transport;
    double dev_dur;
  };
  // A collective: its Node@launch (100 µs) with node_basic_info and hccl_op_info, and four small tasks on planes
  // first_plane and first_plane + 1.
  void collective(double t, const char* op, std::uint64_t group, std::uint16_t first_task, double dev_start,
                  const char* op_type = "HcomAllReduce", std::uint32_t first_plane = 0) {
    api(codec::level::node, codec::node_type::launch, t, t + 100, d.hash(op));
    node(t + 1, op, codec::ge_task::communication, op_type, 0);
    codec::MsprofHcclOPInfo info;
    info.flags = 0;
    info.dataType = 4;  // FP32
    info.algType = d.hash("MESH-RING-NA-NA");
    info.count = 262144;
    info.groupName = group;
    const auto ib = codec::encode_hccl_op_info(tid, us(t + 2), info);
    put(prof::stream::hccl_op_info(true), ib);
    const small tasks[] = {
        {"Notify_Record", 0, 8, rt::notify_record, codec::sqe::notify_record, 4, 1, 1, 0, 2},
        {"Memcpy", 0, 8, rt::memcpy_async, codec::sqe::sdma, 1048576, 1, 1, 0, 20},
        {"Notify_Wait", 1, 9, rt::notify_wait, codec::sqe::notify_wait, 4, 2, 1, 0, 5},
        {"Memcpy", 1, 9, rt::memcpy_async, codec::sqe::sdma, 524288, 2, 1, 0, 12.5},
    };
    double h = t + 10, dev = dev_start;
    std::uint16_t task = first_task;
    for (const auto& s : tasks) {
      api(codec::level::hccl_node, codec::hccl_type::master, h, h + 10, d.hash(s.name));
      codec::MsprofHcclInfo hi;
      hi.itemId = d.hash(s.name);
      hi.groupName = group;
      hi.localRank = 0;
      hi.remoteRank = s.remote;
      hi.rankSize = 8;
      hi.planeID = first_plane + s.plane;
      hi.ctxID = codec::context_id_none;
      hi.notifyID = 100 + task;
      hi.role = 1;
      hi.durationEstimated = s.dev_dur;
      hi.dataSize = s.bytes;
      hi.dataType = 4;
      hi.linkType = s.link;
      hi.transportType = s.transport;
      hi.rdmaType = 255;  // not RDMA
      const auto hb = codec::encode_hccl_info(tid, us(h + 1), hi);
      put(prof::stream::hccl_info(true), hb);
      track(h + 5, s.stream, task, s.rt_type, 0, 0);
      device_task(s.stream, task, s.sqe, dev, dev + s.dev_dur);
      dev += s.dev_dur + 3;
      h += 15;
      ++task;
    }
  }
};

/// Writes a PROF_ directory of the case's layout, named `dir_name`, with
/// `devices` devices, inside `parent` (replacing one there) with the launches
/// `body` makes (the group's hash given); returns its path or an error.
template <class Body>
msprof::result<std::string> write_with(const std::string& parent, Body body, const char* dir_name = name,
                                       std::uint16_t devices = 1) {
  prof::prof_dir_options o;
  o.parent = parent;
  o.name = dir_name;
  o.pid = 1;
  o.pid_name = "hccl_case";
  o.host_clock.anchor_ns = anchor_ns;
  o.wall_us = wall_us;
  o.host_sample["hccl"] = "on";
  for (std::uint16_t id = 0; id < devices; ++id) {
    prof::device_options dev;
    dev.id = id;
    dev.cntvct = cntvct;
    o.devices.push_back(dev);
  }
  auto d = prof::prof_dir::create(o);
  if (!d) return d.err();
  MSPROF_TRY(d->register_type(codec::level::node, codec::node_type::launch, "launch"));
  MSPROF_TRY(d->register_type(codec::level::hccl_node, codec::hccl_type::master, "master"));
  MSPROF_TRY(d->register_type(codec::level::hccl_node, codec::hccl_type::slave, "slave"));
  MSPROF_TRY(d->register_type(codec::level::runtime, rt::kernel_aicore, "KERNEL_AICORE"));
  MSPROF_TRY(d->register_type(codec::level::runtime, rt::kernel_aivec, "KERNEL_AIVEC"));
  MSPROF_TRY(d->register_type(codec::level::runtime, rt::memcpy_async, "MEMCPY_ASYNC"));
  MSPROF_TRY(d->register_type(codec::level::runtime, rt::notify_record, "NOTIFY_RECORD"));
  MSPROF_TRY(d->register_type(codec::level::runtime, rt::notify_wait, "NOTIFY_WAIT"));
  writer w{*d, {}, {}};
  const std::uint64_t group = d->hash("10.0.0.1%enp_60000_0_1767268800000");
  body(w, group);
  for (const auto& [id, logs] : w.acsq)
    for (const auto& l : logs) {
      unsigned char b[codec::acsq_size];
      codec::store(b, l);
      MSPROF_TRY(d->append(prof::stream::stars_soc(id), b, sizeof b));
    }
  for (const auto& p : w.pmu) {
    unsigned char b[codec::context_pmu_size];
    codec::store(b, p);
    MSPROF_TRY(d->append(prof::stream::ffts_profile(0), b, sizeof b));
  }
  if (w.failed) return msprof::make_error(msprof::errc::io, "hccl_prof: a record could not be appended");
  MSPROF_TRY(d->close());
  return d->path();
}

/// Writes the case's PROF_ directory inside `parent` (replacing one there); returns its path or an error.
inline msprof::result<std::string> write(const std::string& parent) {
  return write_with(parent, [](writer& w, std::uint64_t group) {
    w.kernel(100, "MatMul_1", codec::ge_task::ai_core, "MatMul", 1, rt::kernel_aicore, 200, 40);
    w.collective(200, "hcom_allReduce__123_0_1", group, 1, 300);
    w.kernel(320, "Add_2", codec::ge_task::ai_vector_core, "Add", 2, rt::kernel_aivec, 400, 10);
    w.collective(400, "hcom_allReduce__123_0_1", group, 5, 500);
    w.kernel(520, "MatMul_3", codec::ge_task::ai_core, "MatMul", 3, rt::kernel_aicore, 600, 30);
  });
}

/// The `hccl_groups` golden case: one thread's collectives in four groups
/// (three named in hash_dic, one only a number), launched interleaved, the
/// last two on device 1; one group's tasks on planes 1 and 2, another's of
/// type HcomBroadcast.
inline constexpr char groups_name[] = "PROF_000001_20260101120000000_GOLDENHCCLGROUPS";
inline std::filesystem::path groups_case_dir() {
  return std::filesystem::path(MSPROF_TEST_DATA_DIR) / "golden" / "hccl_groups";
}

inline msprof::result<std::string> write_groups(const std::string& parent) {
  return write_with(
      parent,
      [](writer& w, std::uint64_t a) {
        const std::uint64_t b = w.d.hash("10.0.0.1%enp_60001_0_1767268800000");
        const std::uint64_t c = 9876543210123ull;  // in no dictionary: shown as its number
        const std::uint64_t d = w.d.hash("10.0.0.2%enp_60002_1_1767268800000");
        w.kernel(100, "MatMul_1", codec::ge_task::ai_core, "MatMul", 1, rt::kernel_aicore, 200, 40);
        w.collective(200, "hcom_allReduce__123_0_1", a, 2, 300);
        w.collective(400, "hcom_broadcast__456_0_1", b, 6, 500, "HcomBroadcast");
        w.collective(600, "hcom_allReduce__789_0_1", c, 10, 700);
        w.collective(800, "hcom_allReduce__123_0_1", a, 14, 900);
        w.device = 1;
        w.collective(1000, "hcom_allReduce__321_0_1", d, 18, 1100, "HcomAllReduce", 1);
        w.collective(1200, "hcom_broadcast__456_0_1", b, 22, 1300, "HcomBroadcast");
        w.device = 0;
        w.kernel(1400, "Add_2", codec::ge_task::ai_vector_core, "Add", 2, rt::kernel_aivec, 1500, 10);
      },
      groups_name, 2);
}

}  // namespace hccl_prof

#endif  // MSPROF_TESTS_SUPPORT_HCCL_PROF_HPP
