// SPDX-License-Identifier: MIT
// The simulated Ascend device: the only device-side data source on machines
// without an NPU. It implements device::backend (what a real backend would
// implement) and instrument::stream_marker (mstx markers with a stream).
//
//   prof::prof_dir_options o; o.devices.push_back({});      // simulated = true
//   auto dir = prof::prof_dir::create(o);
//   device::simulated_device dev(*dir, {});                   // seed, metrics, ...
//   auto s = dev.create_stream();                              // result<stream_id>
//   device::op_desc op;  op.name = "MatMul_1";  op.type = "MatMul";
//   op.block_dim = 20;  op.flops = 2e9;  op.bytes = 8e6;
//   dev.launch(*s, op);             // host records now, device records async
//   dev.synchronize();              // device thread drained
//
// Each launch writes what CANN writes: an ACL api (aclopExecuteV2), the
// Node@launch api around node_basic_info + tensor_info + task_track, and a
// runtime api (rtKernelLaunch). The device thread then writes STARS ACSQ
// start/end logs and a ContextPmu record per AI Core / AI Vector task, queued
// behind earlier work on the same stream. Every field Huawei's parser checks
// or reads is set as CANN sets it (STARS magic, cnt, fftsType, memcpy_info
// keyed by its task_track's thread and timestamp), so it reads what we read. Durations come from a roofline cost
// model (flops, bytes, block dim) with seeded jitter; PMU counters are the
// events CANN programs for the AI Core metric group (codec/aic_metrics.hpp),
// drawn from the task's compute and memory load so that the metrics the
// parser derives are consistent (ratios in [0,1], busy cycles <= task cycles,
// icache misses <= requests); AiCoreNone writes no PMU records.
// Every output says it is simulated (info.json "simulated").
// Details, cost model and PMU derivation: docs/simulated-device.md.
#ifndef MSPROF_DEVICE_SIMULATED_DEVICE_HPP
#define MSPROF_DEVICE_SIMULATED_DEVICE_HPP

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../codec/aic_metrics.hpp"
#include "../codec/encode.hpp"
#include "../codec/format.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../instrument/event.hpp"
#include "../prof/clock.hpp"
#include "../prof/writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace device {

using stream_id = std::uint32_t;
using event_id = std::uint32_t;

struct tensor_desc {
  std::vector<std::uint32_t> shape;  ///< up to 8 dims are recorded
  std::uint32_t dtype = 1;           ///< GE data type (0 FLOAT, 1 FLOAT16, 27 BF16, ...)
  std::uint32_t format = 2;          ///< GE format (2 ND, 29 FRACTAL_NZ, ...)
};

struct op_desc {
  std::string name;                  ///< op instance name ("MatMul_1")
  std::string type;                  ///< op type ("MatMul")
  std::uint32_t task_type = codec::ge_task::ai_core;  ///< ai_core, ai_vector_core, ai_cpu
  std::uint32_t block_dim = 1;
  std::vector<tensor_desc> inputs, outputs;
  double flops = 0;                  ///< cost model input: floating-point operations
  double bytes = 0;                  ///< cost model input: bytes moved to/from global memory
  bool dynamic = false;              ///< dynamic-shape op (aging node_basic_info, "OP State" dynamic)
  std::string kernel_name;           ///< default: name + "_kernel"
};

enum class memcpy_kind : std::uint16_t { host_to_device = 1, device_to_host = 2, device_to_device = 3 };

/// What a device backend offers; a real backend would implement the same.
class backend {
 public:
  virtual ~backend() = default;
  virtual result<stream_id> create_stream() = 0;
  virtual result<void> launch(stream_id s, const op_desc& op) = 0;
  virtual result<void> memcpy_async(stream_id s, std::uint64_t bytes, memcpy_kind kind) = 0;
  virtual result<void> record_event(stream_id s, event_id e) = 0;
  virtual result<void> wait_event(stream_id s, event_id e) = 0;
  /// Waits until every queued device task is written.
  virtual result<void> synchronize() = 0;
  /// mstx marker on a stream: a zero-length device task carrying `id`.
  virtual result<void> mark(stream_id s, std::uint64_t id, bool end) = 0;
};

struct simulated_options {
  std::uint32_t device_id = 0;         ///< must be in the prof_dir's devices
  std::uint64_t seed = 1;
  std::string aic_metrics = "PipeUtilization";  ///< a group of codec/aic_metrics.hpp
  double aic_frequency_mhz = 1800;
  double hwts_frequency_mhz = 50;
  std::uint32_t ai_core_num = 24;
  std::uint32_t aiv_num = 48;
  double cube_flops_per_core = 8.0e12 / 24;   ///< fp16 peak per AI Core, flop/s
  double vector_flops_per_core = 0.5e12 / 48; ///< per AI Vector core
  double memory_bandwidth = 1.6e12;           ///< bytes/s global memory
  double min_task_us = 2.0;                   ///< fixed per-task overhead
  double aicpu_task_us = 50.0;                ///< AI CPU ops
  double launch_latency_us = 5.0;             ///< host submit -> earliest device start
  double jitter = 0.05;                       ///< ± relative, seeded
  /// Deterministic host clock: when non-zero every host timestamp comes from a
  /// virtual clock advancing by this many ns per record (tests, reproducible
  /// traces); 0 = CLOCK_MONOTONIC_RAW.
  std::uint64_t virtual_host_step_ns = 0;
  bool asynchronous = true;                   ///< device records written by a device thread
  bool record_shapes = true;                  ///< tensor_info (op shapes) for each launch
  /// TensorFlow/GE training trace (profiling_options training_trace): steps are
  /// recorded as executions of model `training_model_id` (step-trace tags 0
  /// model start and 1 model end) with FP start (tag 2) at the start of the
  /// first task of op `fp_point` and BP end (tag 3) at the end of each task of
  /// op `bp_point`; an empty point means the step's first (last) kernel.
  bool training_trace = false;
  std::string fp_point, bp_point;
  std::uint32_t training_model_id = 1;
  /// Device memory samples at each synchronize(): npu_module_mem (RUNTIME,
  /// GE) and npu_mem (APP, Device). The application holds `app_base_bytes`
  /// plus the bytes copied to the device and not back; the device that plus
  /// `device_reserved_bytes`; RUNTIME `runtime_bytes`.
  bool memory_samples = true;
  std::uint64_t app_base_bytes = 64ull << 20;
  std::uint64_t device_reserved_bytes = 1ull << 30;
  std::uint64_t runtime_bytes = 32ull << 20;
};

class simulated_device final : public backend, public instrument::stream_marker {
 public:
  /// Registers type names and starts the device thread. `out` must outlive
  /// the device and have device `opt.device_id` (created with it in options).
  simulated_device(prof::prof_dir& out, simulated_options opt = {}) : out_(out), opt_(std::move(opt)), rng_(opt_.seed) {
    bool found = false;
    for (const auto& d : out_.options().devices) {
      if (d.id == opt_.device_id) {
        found = true;
        dev_cntvct_ = d.cntvct;
        opt_.hwts_frequency_mhz = d.hwts_frequency_mhz;
        opt_.aic_frequency_mhz = d.aic_frequency_mhz;
        opt_.ai_core_num = d.ai_core_num;
        opt_.aiv_num = d.aiv_num;
        if (!d.aic_metrics.empty()) opt_.aic_metrics = d.aic_metrics;
      }
    }
    if (!found) init_error_ = make_error(errc::invalid_argument, out_.path() + ": simulated device " + std::to_string(opt_.device_id) +
                                                                     " is not among the PROF directory's devices");
    else if (!(opt_.hwts_frequency_mhz > 0) || !(opt_.aic_frequency_mhz > 0))
      init_error_ = make_error(errc::invalid_argument, "simulated device " + std::to_string(opt_.device_id) +
                                                           ": hwts and aic frequencies must be > 0 MHz");
    else if (!(opt_.jitter >= 0 && opt_.jitter < 1))
      init_error_ = make_error(errc::invalid_argument, "simulated device: jitter must be in [0, 1) (a relative ± spread), got " +
                                                           std::to_string(opt_.jitter));
    else if (!(opt_.cube_flops_per_core > 0) || !(opt_.vector_flops_per_core > 0) || !(opt_.memory_bandwidth > 0) ||
             !(opt_.min_task_us >= 0) || !(opt_.aicpu_task_us >= 0) || !(opt_.launch_latency_us >= 0))
      init_error_ = make_error(errc::invalid_argument,
                               "simulated device: flops per core and memory bandwidth must be > 0, task times and latency >= 0");
    else if (!set_metrics())
      init_error_ = make_error(errc::unsupported, "simulated device: aic_metrics '" + opt_.aic_metrics +
                                                      "' is not an AI Core metric group (" + group_names() + ")");
    base_mono_ = out_.options().host_clock.anchor_ns;
    virtual_now_ = base_mono_;
    register_types();
    if (opt_.asynchronous) worker_ = std::thread([this] { run(); });
  }
  simulated_device(const simulated_device&) = delete;
  simulated_device& operator=(const simulated_device&) = delete;
  ~simulated_device() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  /// Construction problems (unknown device id, unsupported metrics group).
  const error* init_error() const noexcept { return init_error_.code == errc::ok ? nullptr : &init_error_; }

  result<stream_id> create_stream() override {
    if (init_error()) return init_error_;
    const std::uint64_t t0 = host_now();
    stream_id id;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (next_stream_ >= 2048) return make_error(errc::limit, "simulated device: more than 2048 streams (ids 0..2047)");
      id = next_stream_++;
      streams_[id];
    }
    MSPROF_TRY(acl_api(0x30002, "aclrtCreateStream", t0, host_now()));
    return id;
  }

  result<void> launch(stream_id s, const op_desc& op) override {
    if (init_error()) return init_error_;
    if (op.name.empty() || op.type.empty()) return make_error(errc::invalid_argument, "simulated device: op needs a name and a type");
    if (op.block_dim == 0) return make_error(errc::invalid_argument, "simulated device: op '" + op.name + "' has block_dim 0");
    if (!(op.flops >= 0) || !(op.bytes >= 0)) return make_error(errc::invalid_argument, "simulated device: op '" + op.name + "' has a negative cost");
    MSPROF_TRY(check_stream(s));  // before any host record: a rejected launch leaves nothing behind
    const std::uint32_t tid = thread_id();
    const std::uint64_t acl_begin = host_now();
    const std::uint64_t launch_begin = host_now();
    const std::uint64_t op_name = out_.hash(op.name);
    const std::uint64_t op_type = out_.hash(op.type);
    const std::uint64_t kernel = out_.hash(op.kernel_name.empty() ? op.name + "_kernel" : op.kernel_name);
    const std::uint64_t ts = host_now();

    codec::MsprofNodeBasicInfo nb;
    nb.opName = op_name;
    nb.taskType = op.task_type;
    nb.opType = op_type;
    nb.blockNum = op.block_dim;
    nb.opState = op.dynamic ? 1 : 0;
    auto nbb = codec::encode_node_basic_info(tid, ts, nb);
    MSPROF_TRY(out_.append(prof::stream::node_basic_info(op.dynamic), nbb.data(), nbb.size()));

    std::vector<codec::MsprofTensorData> tensors;
    auto add = [&](const std::vector<tensor_desc>& v, std::uint32_t kind) {
      for (const auto& t : v) {
        codec::MsprofTensorData d;
        d.tensorType = kind;
        d.format = t.format;
        d.dataType = t.dtype;
        for (std::size_t i = 0; i < t.shape.size() && i < 8; ++i) d.shape[i] = t.shape[i];
        tensors.push_back(d);
      }
    };
    add(op.inputs, 0);
    add(op.outputs, 1);
    if (opt_.record_shapes)
      for (const auto& r : codec::encode_tensor_infos(tid, ts, op_name, tensors))
        MSPROF_TRY(out_.append(prof::stream::tensor_info(true), r.data(), r.size()));

    const std::uint32_t rt_type = op.task_type == codec::ge_task::ai_cpu ? codec::runtime_task::kernel_aicpu
                                  : op.task_type == codec::ge_task::ai_vector_core ? codec::runtime_task::kernel_aivec
                                                                                   : codec::runtime_task::kernel_aicore;
    const std::uint16_t sqe_type = op.task_type == codec::ge_task::ai_cpu ? codec::sqe::ai_cpu
                                   : op.task_type == codec::ge_task::ai_vector_core ? codec::sqe::aiv
                                                                                    : codec::sqe::ai_core;
    task t;
    t.kind = task_kind::kernel;
    t.sqe_type = sqe_type;
    t.ge_task_type = op.task_type;
    t.block_dim = op.block_dim;
    t.flops = op.flops;
    t.bytes = op.bytes;
    t.fp_point = op.name == opt_.fp_point;
    t.bp_point = op.name == opt_.bp_point;
    MSPROF_TRY(submit(s, t, tid, rt_type, kernel, static_cast<std::uint16_t>(std::min<std::uint32_t>(op.block_dim, 0xFFFF)), 0x10001,
                      "rtKernelLaunch"));
    const std::uint64_t launch_end = host_now();
    MSPROF_TRY(api(codec::level::node, codec::node_type::launch, tid, launch_begin, launch_end, op_name));
    MSPROF_TRY(acl_api(codec::acl_group::type(codec::acl_group::op, 2), "aclopExecuteV2", acl_begin, host_now()));
    return {};
  }

  result<void> memcpy_async(stream_id s, std::uint64_t bytes, memcpy_kind kind) override {
    if (init_error()) return init_error_;
    if (kind != memcpy_kind::host_to_device && kind != memcpy_kind::device_to_host && kind != memcpy_kind::device_to_device)
      return make_error(errc::invalid_argument, "simulated device: memcpy kind " + std::to_string(static_cast<unsigned>(kind)) +
                                                    " is not host_to_device, device_to_host or device_to_device");
    MSPROF_TRY(check_stream(s));  // before any host record
    const std::uint32_t tid = thread_id();
    const std::uint64_t b = host_now();
    // One SDMA task copies it all (maxSize = dataSize); the parser splits a
    // larger copy over the tasks sharing its memcpy_info.
    codec::MsprofMemcpyInfo m;
    m.dataSize = bytes;
    m.maxSize = bytes;
    m.memcpyDirection = static_cast<std::uint16_t>(kind);
    task t;
    t.kind = task_kind::memcpy;
    t.sqe_type = codec::sqe::sdma;
    t.bytes = static_cast<double>(bytes);
    if (kind == memcpy_kind::host_to_device) to_device_ += bytes;
    if (kind == memcpy_kind::device_to_host) to_host_ += bytes;
    MSPROF_TRY(submit(s, t, tid, codec::runtime_task::memcpy_async, out_.hash("MEMCPY_ASYNC"), 0, 0x10002, "rtMemcpyAsync",
                      &m));
    return acl_api(0x30005, "aclrtMemcpyAsync", b, host_now());
  }

  result<void> record_event(stream_id s, event_id e) override {
    if (init_error()) return init_error_;
    const std::uint32_t tid = thread_id();
    const std::uint64_t b = host_now();
    task t;
    t.kind = task_kind::event_record;
    t.sqe_type = codec::sqe::event_record;
    t.event = e;
    MSPROF_TRY(submit(s, t, tid, codec::runtime_task::event_record, 0, 0, 0x10003, "rtEventRecord"));
    return acl_api(0x30006, "aclrtRecordEvent", b, host_now());
  }

  result<void> wait_event(stream_id s, event_id e) override {
    if (init_error()) return init_error_;
    const std::uint32_t tid = thread_id();
    const std::uint64_t b = host_now();
    task t;
    t.kind = task_kind::event_wait;
    t.sqe_type = codec::sqe::event_wait;
    t.event = e;
    MSPROF_TRY(submit(s, t, tid, codec::runtime_task::event_wait, 0, 0, 0x10004, "rtStreamWaitEvent"));
    return acl_api(0x30007, "aclrtStreamWaitEvent", b, host_now());
  }

  result<void> mark(stream_id s, std::uint64_t id, bool end) override {
    if (init_error()) return init_error_;
    task t;
    t.kind = task_kind::marker;
    t.sqe_type = codec::sqe::place_holder;
    return submit(s, t, thread_id(), mstx_marker_task, out_.hash("mstx_marker_" + std::to_string(id) + (end ? "_end" : "")), 0, 0, nullptr);
  }

  result<void> synchronize() override {
    if (init_error()) return init_error_;
    const std::uint64_t b = host_now();
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (opt_.asynchronous) done_cv_.wait(lk, [&] { return queue_.empty() && busy_ == 0; });
      if (write_error_.code != errc::ok) return write_error_;
    }
    if (opt_.memory_samples) MSPROF_TRY(write_memory_samples(host_now()));
    MSPROF_TRY(out_.flush());
    return acl_api(0x30004, "aclrtSynchronizeDevice", b, host_now());
  }

  /// instrument::stream_marker: a stream argument of an mstx call. The
  /// stream pointer is the stream id + 1 cast to a pointer (stream_handle()).
  void marker(void* stream, std::uint64_t id, bool end) noexcept override {
    if (stream == nullptr) return;
    const auto s = static_cast<stream_id>(reinterpret_cast<std::uintptr_t>(stream) - 1);
    try {
      (void)mark(s, id, end);
    } catch (...) {  // std::bad_alloc: an mstx call must never terminate the program
    }
  }
  /// The aclrtStream-like handle of a stream for mstx calls (never null).
  static void* stream_handle(stream_id s) noexcept { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(s) + 1); }

  /// A step boundary as the device records it (torch_npu step mode): a ts_track
  /// step-trace record (funcType 10) with model_id 4294967295, indexId = `step`
  /// and tag 60000 (begin) or 60001 (end); with training_trace, model mode
  /// (simulated_options::training_trace). It is queued behind the work already
  /// submitted and stamped when every stream has finished that work (or at
  /// submit time + launch latency when idle), so a step's tasks lie between
  /// its begin and end. It occupies no stream. Errors: the device's init error.
  result<void> step_marker(std::uint64_t step, bool end) {
    if (init_error()) return init_error_;
    if (opt_.training_trace) MSPROF_TRY(model_execute(step, end));
    task t;
    t.kind = task_kind::step_tag;
    t.step = step;
    t.step_end = end;
    {
      std::lock_guard<std::mutex> lk(mu_);
      t.submit_ns = host_ns(host_now());
      if (opt_.asynchronous) queue_.push_back(t);
      else return execute(t);
    }
    cv_.notify_one();
    return {};
  }

  /// Step-trace tag ids and the step-mode model id of step_marker().
  static constexpr std::uint16_t step_begin_tag = 60000, step_end_tag = 60001;
  /// Model-mode tag ids (training_trace).
  static constexpr std::uint16_t model_start_tag = 0, model_end_tag = 1, fp_start_tag = 2, bp_end_tag = 3;
  static constexpr std::uint64_t step_model_id = 4294967295u;

  /// Device tasks written so far.
  std::uint64_t tasks_written() const {
    std::lock_guard<std::mutex> lk(mu_);
    return tasks_written_;
  }

  /// runtime task type id registered for mstx marker tasks ("MSTX_MARKER").
  static constexpr std::uint32_t mstx_marker_task = 100;

 private:
  // The host side of a training step: GE's ModelExecute API (model level,
  // itemId = model id, reserve = the step's index) around the step's launches;
  // the parser takes the model id of the launches inside it from it.
  result<void> model_execute(std::uint64_t step, bool end) {
    const std::uint64_t now = host_now();
    if (!end) {
      model_execute_begin_ = now;
      return {};
    }
    codec::MsprofApi a;
    a.level = codec::level::model;
    a.type = codec::model_type::execute;
    a.threadId = thread_id();
    a.reserve = static_cast<std::uint32_t>(step);
    a.beginTime = model_execute_begin_;
    a.endTime = now;
    a.itemId = opt_.training_model_id;
    auto bytes = codec::encode(a);
    return out_.append(prof::stream::api_event(false), bytes.data(), bytes.size());
  }

  enum class task_kind { kernel, memcpy, event_record, event_wait, marker, step_tag };
  struct task {
    task_kind kind = task_kind::kernel;
    stream_id stream = 0;
    std::uint16_t task_id = 0;
    std::uint16_t sqe_type = 0;
    std::uint32_t ge_task_type = 0;
    std::uint32_t block_dim = 1;
    double flops = 0, bytes = 0;
    event_id event = 0;
    std::uint64_t submit_ns = 0;  ///< host monotonic ns
    std::uint64_t step = 0;       ///< step_tag: the step number (indexId)
    bool step_end = false;        ///< step_tag: end (60001) rather than begin (60000)
    bool fp_point = false, bp_point = false;  ///< kernel of the training trace's FP / BP op
  };
  struct stream_state {
    std::uint32_t next_task = 0;
    double ready_ns = 0;  ///< device time (monotonic ns) the stream is free
  };

  void register_types() {
    (void)out_.register_type(codec::level::node, codec::node_type::node_basic_info, "node_basic_info");
    (void)out_.register_type(codec::level::node, codec::node_type::tensor_info, "tensor_info");
    (void)out_.register_type(codec::level::node, codec::node_type::launch, "launch");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::kernel_aicore, "KERNEL_AICORE");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::kernel_aicpu, "KERNEL_AICPU");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::kernel_aivec, "KERNEL_AIVEC");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::event_record, "EVENT_RECORD");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::event_wait, "EVENT_WAIT");
    (void)out_.register_type(codec::level::runtime, codec::runtime_task::memcpy_async, "MEMCPY_ASYNC");
    (void)out_.register_type(codec::level::runtime, mstx_marker_task, "MSTX_MARKER");
    if (opt_.training_trace) (void)out_.register_type(codec::level::model, codec::model_type::execute, "ModelExecute");
  }

  // Host record timestamps in the PROF_ directory's host clock: CPU counter
  // ticks when info.json gives a frequency (the collector's mstx records use
  // them too), else CLOCK_MONOTONIC_RAW ns.
  std::uint64_t host_now() {
    std::uint64_t ns;
    if (opt_.virtual_host_step_ns) {
      std::lock_guard<std::mutex> lk(clock_mu_);
      virtual_now_ += opt_.virtual_host_step_ns;
      ns = virtual_now_;
    } else {
      ns = prof::detail::mono_ns();
    }
    return host_clock().ticks_at(ns);
  }
  // The inverse, for device scheduling (which runs in ns).
  std::uint64_t host_ns(std::uint64_t host_ts) const {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, host_clock().to_monotonic_ns(host_ts)));
  }
  // The host clock the directory's host_start.log describes.
  const prof::tick_clock& host_clock() const { return out_.options().host_clock; }
  std::uint32_t thread_id() const {
    if (opt_.virtual_host_step_ns) return 1;  // deterministic traces
    return static_cast<std::uint32_t>(::syscall(SYS_gettid));
  }

  result<void> api(std::uint16_t level, std::uint32_t type, std::uint32_t tid, std::uint64_t b, std::uint64_t e, std::uint64_t item) {
    codec::MsprofApi a;
    a.level = level;
    a.type = type;
    a.threadId = tid;
    a.beginTime = b;
    a.endTime = e;
    a.itemId = item;
    auto bytes = codec::encode(a);
    return out_.append(prof::stream::api_event(false), bytes.data(), bytes.size());
  }
  result<void> acl_api(std::uint32_t type, const char* name, std::uint64_t b, std::uint64_t e) {
    MSPROF_TRY(out_.register_type(codec::level::acl, type, name));
    return api(codec::level::acl, type, thread_id(), b, e, 0);
  }

  // Host side of every device task: task_track inside a runtime api, then queue.
  // A memcpy's memcpy_info gets the task_track's thread and timestamp: the
  // parser pairs the two by exactly that (MEMCPY_INFO, the memcpy args).
  result<void> submit(stream_id s, task t, std::uint32_t tid, std::uint32_t rt_type, std::uint64_t kernel,
                      std::uint16_t blocks, std::uint32_t rt_api, const char* rt_name,
                      const codec::MsprofMemcpyInfo* memcpy = nullptr) {
    const std::uint64_t rb = host_now();
    std::uint64_t track_ts = 0;
    {
      // Task id, submit time and queue position are taken together, so tasks
      // of one stream reach the device in task id order even when several
      // host threads launch on it.
      std::lock_guard<std::mutex> lk(mu_);
      auto it = streams_.find(s);
      if (it == streams_.end()) return unknown_stream(s);
      t.stream = s;
      t.task_id = static_cast<std::uint16_t>(it->second.next_task++ & 0xFFFF);
      track_ts = host_now();
      t.submit_ns = host_ns(track_ts);
      if (opt_.asynchronous) queue_.push_back(t);
    }
    if (opt_.asynchronous) cv_.notify_one();
    codec::MsprofRuntimeTrack tr;
    tr.deviceId = static_cast<std::uint16_t>(opt_.device_id);
    tr.streamId = static_cast<std::uint16_t>(s);
    tr.taskId = codec::pack_track_task(t.task_id, 0);
    tr.taskType = rt_type;
    tr.kernelName = kernel;
    tr.set_num_blocks(blocks);
    auto tb = codec::encode_task_track(tid, track_ts, tr);
    MSPROF_TRY(out_.append(prof::stream::task_track(true), tb.data(), tb.size()));
    if (memcpy) {
      auto mb = codec::encode_memcpy_info(tid, track_ts, *memcpy);
      MSPROF_TRY(out_.append(prof::stream::memcpy_info(true), mb.data(), mb.size()));
    }
    if (rt_name) {
      MSPROF_TRY(out_.register_type(codec::level::runtime, rt_api, rt_name));
      MSPROF_TRY(api(codec::level::runtime, rt_api, tid, rb, host_now(), 0));
    }
    if (!opt_.asynchronous) {
      std::lock_guard<std::mutex> lk(mu_);
      return execute(t);
    }
    return {};
  }

  static error unknown_stream(stream_id s) {
    return make_error(errc::invalid_argument, "simulated device: unknown stream " + std::to_string(s));
  }
  result<void> check_stream(stream_id s) const {
    std::lock_guard<std::mutex> lk(mu_);
    if (streams_.find(s) == streams_.end()) return unknown_stream(s);
    return {};
  }

  void run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return quit_ || !queue_.empty(); });
      if (queue_.empty()) {
        if (quit_) return;
        continue;
      }
      task t = queue_.front();
      queue_.pop_front();
      ++busy_;
      auto r = execute(t);
      if (!r && write_error_.code == errc::ok) write_error_ = r.err();
      --busy_;
      if (queue_.empty()) done_cv_.notify_all();
    }
  }

  double jitter() {
    std::uniform_real_distribution<double> u(-opt_.jitter, opt_.jitter);
    return 1.0 + u(rng_);
  }

  double from_cycles(std::uint64_t c) const {
    return static_cast<double>(base_mono_) + static_cast<double>(c - dev_cntvct_) * 1e3 / opt_.hwts_frequency_mhz;
  }
  std::uint64_t to_cycles(double mono_ns) const {
    const double d = (mono_ns - static_cast<double>(base_mono_)) * opt_.hwts_frequency_mhz / 1e3;
    return dev_cntvct_ + static_cast<std::uint64_t>(std::llround(d < 0 ? 0 : d));
  }

  // Device side (called with mu_ held; the rng and stream clocks are only
  // touched here, in submission order, so output is deterministic per seed).
  result<void> execute(const task& t) {
    if (t.kind == task_kind::step_tag) return write_step_tag(t);
    stream_state& st = streams_[t.stream];
    double start = std::max({st.ready_ns, step_floor_ns_, static_cast<double>(t.submit_ns) + opt_.launch_latency_us * 1e3});
    if (t.kind == task_kind::event_wait) {
      auto it = events_.find(t.event);
      if (it != events_.end()) start = std::max(start, it->second);
    }
    double dur_us = 0;
    double compute_us = 0, memory_us = 0;
    switch (t.kind) {
      case task_kind::kernel: {
        if (t.ge_task_type == codec::ge_task::ai_cpu) {
          dur_us = opt_.aicpu_task_us * jitter();
          break;
        }
        const bool vec = t.ge_task_type == codec::ge_task::ai_vector_core;
        const double cores = std::max<std::uint32_t>(1, vec ? opt_.aiv_num : opt_.ai_core_num);
        const double used = std::min<double>(t.block_dim, cores);
        const double per_core = vec ? opt_.vector_flops_per_core : opt_.cube_flops_per_core;
        const double waves = std::ceil(static_cast<double>(t.block_dim) / cores);
        compute_us = t.flops / (per_core * used) * 1e6 * waves / std::max(1.0, static_cast<double>(t.block_dim) / used / waves * waves);
        memory_us = t.bytes / opt_.memory_bandwidth * 1e6;
        dur_us = (std::max(compute_us, memory_us) + opt_.min_task_us) * jitter();
        break;
      }
      case task_kind::memcpy: dur_us = (t.bytes / (opt_.memory_bandwidth / 8) * 1e6 + 1.0) * jitter(); break;
      case task_kind::event_record:
      case task_kind::event_wait: dur_us = 0.5; break;
      case task_kind::marker: dur_us = 0.02; break;
      case task_kind::step_tag: break;  // handled above
    }
    const std::uint64_t c0 = to_cycles(start), c1 = std::max(to_cycles(start + dur_us * 1e3), c0 + 1);
    // The stream (and the event) is free when the recorded end says so: the
    // end may be rounded up to a whole device cycle, and the next task must
    // not start inside it (low hwts frequencies, sub-cycle tasks).
    const double end = std::max(start + dur_us * 1e3, from_cycles(c1));
    st.ready_ns = end;
    if (t.kind == task_kind::event_record) events_[t.event] = end;

    // The STARS magic is the struct's default; cnt counts the file's records.
    codec::StarsAcsqLog l;
    l.streamId = static_cast<std::uint16_t>(t.stream);
    l.taskId = t.task_id;
    l.set_word0(codec::acsq_func_start, acsq_cnt_++, t.sqe_type);
    l.timestamp = c0;
    auto b0 = codec::encode_device(l);
    l.set_word0(codec::acsq_func_end, acsq_cnt_++, t.sqe_type);
    l.timestamp = c1;
    auto b1 = codec::encode_device(l);
    unsigned char both[128];
    std::copy(b0.begin(), b0.end(), both);
    std::copy(b1.begin(), b1.end(), both + 64);
    MSPROF_TRY(out_.append(prof::stream::stars_soc(opt_.device_id), both, sizeof both));

    if (t.kind == task_kind::kernel && t.ge_task_type != codec::ge_task::ai_cpu && !aic_events_.empty()) {
      auto pmu = counters(t, c0, c1, compute_us, memory_us);
      auto pb = codec::encode_device(pmu);
      MSPROF_TRY(out_.append(prof::stream::ffts_profile(opt_.device_id), pb.data(), pb.size()));
    }
    if (t.kind == task_kind::kernel) MSPROF_TRY(training_tags(t, c0, c1));
    ++tasks_written_;
    return {};
  }

  // The memory samples of a synchronize() at host time `ts` (simulated_options::memory_samples).
  result<void> write_memory_samples(std::uint64_t ts) {
    const std::uint64_t in = to_device_, back = to_host_;
    const std::uint64_t app = opt_.app_base_bytes + (in > back ? in - back : 0);
    codec::NpuModuleMem m;
    m.cpuCycleCount = ts;
    for (const auto& [module, bytes] : {std::pair<std::uint32_t, std::uint64_t>{7, opt_.runtime_bytes}, {45, app}}) {  // RUNTIME, GE
      m.moduleId = module;
      m.totalSize = bytes;
      auto b = codec::encode_device(m);
      MSPROF_TRY(out_.append(prof::stream::npu_module_mem(opt_.device_id), b.data(), b.size()));
    }
    // npu_mem (collection version 1.0) stamps µs after host_start.log's clock in 32 bits: none past that.
    const std::int64_t us = (host_clock().to_monotonic_ns(ts) - static_cast<std::int64_t>(host_clock().anchor_ns)) / 1000;
    if (us < 0 || us > std::int64_t{0xFFFFFFFF}) return {};
    codec::NpuMem n;
    n.sampleTimeUs = static_cast<std::uint32_t>(us);
    for (const auto& [event, bytes] : {std::pair<std::uint32_t, std::uint64_t>{0, app}, {1, app + opt_.device_reserved_bytes}}) {
      n.event = event;
      n.hbm = bytes;
      auto b = codec::encode_device(n);
      MSPROF_TRY(out_.append(prof::stream::npu_mem(opt_.device_id), b.data(), b.size()));
    }
    return {};
  }

  // FP start / BP end of the open training step around a kernel's span.
  result<void> training_tags(const task& t, std::uint64_t c0, std::uint64_t c1) {
    if (!opt_.training_trace || !training_.open) return {};
    training_.last_kernel_end = std::max(training_.last_kernel_end, c1);
    if (!training_.fp_written && (opt_.fp_point.empty() || t.fp_point)) {
      training_.fp_written = true;
      MSPROF_TRY(write_tag(fp_start_tag, opt_.training_model_id, training_.step, c0));
    }
    if (t.bp_point) {
      training_.bp_written = true;
      MSPROF_TRY(write_tag(bp_end_tag, opt_.training_model_id, training_.step, c1));
    }
    return {};
  }

  result<void> write_tag(std::uint16_t tag, std::uint64_t model, std::uint64_t index, std::uint64_t cycles) {
    codec::TsTrackStepTrace r;
    r.funcType = codec::ts_track_step_func;
    r.timestamp = cycles;
    r.indexId = index;
    r.modelId = model;
    r.tagId = tag;
    auto b = codec::encode_device(r);
    return out_.append(prof::stream::ts_track(opt_.device_id), b.data(), b.size());
  }

  // A step-trace record: stamped when all earlier work on every stream is done.
  result<void> write_step_tag(const task& t) {
    double at = static_cast<double>(t.submit_ns) + opt_.launch_latency_us * 1e3;
    for (const auto& [id, st] : streams_) at = std::max(at, st.ready_ns);
    // One cycle after that work (the trace task runs behind it), and strictly
    // after the previous tag: a step begins after the last one ended.
    const std::uint64_t cycles = std::max(to_cycles(at) + 1, last_step_tag_ + 1);
    last_step_tag_ = cycles;
    // Work submitted later starts after the tag on every stream.
    step_floor_ns_ = std::max(step_floor_ns_, from_cycles(cycles));
    if (!opt_.training_trace) return write_tag(t.step_end ? step_end_tag : step_begin_tag, step_model_id, t.step, cycles);
    if (!t.step_end) {
      training_ = training_state{};
      training_.open = true;
      training_.step = t.step;
      return write_tag(model_start_tag, opt_.training_model_id, t.step, cycles);
    }
    // No bp_point op ran (or none was named): BP ends with the step's last kernel.
    if (training_.open && !training_.bp_written && training_.last_kernel_end != 0)
      MSPROF_TRY(write_tag(bp_end_tag, opt_.training_model_id, t.step, training_.last_kernel_end));
    training_.open = false;
    return write_tag(model_end_tag, opt_.training_model_id, t.step, cycles);
  }

  // The group's event lists (AiCoreNone: none, no PMU records).
  bool set_metrics() {
    const auto* g = codec::aic_metrics::find_group(opt_.aic_metrics);
    if (!g) return false;
    auto add = [](std::vector<const codec::aic_metrics::event*>& v) {
      return [&v](std::uint32_t id) { v.push_back(codec::aic_metrics::find_event(id)); };
    };
    codec::aic_metrics::for_each_event(g->aic_events, add(aic_events_));
    codec::aic_metrics::for_each_event(g->aiv_events, add(aiv_events_));
    return true;
  }
  static std::string group_names() {
    std::string s;
    for (const auto& g : codec::aic_metrics::groups) s += (s.empty() ? "" : ", ") + std::string(g.name);
    return s;
  }

  // One ContextPmu record: the group's counters in sample.json event order.
  // totalCycle = cycles summed over blocks = duration / waves * aic_freq *
  // block_num (each block runs for one wave, waves = ceil(block_num / cores)),
  // so the converters' time = totalCycle / freq / block_num * waves is the
  // task duration. Each counter is its load's share of totalCycle (busy cycles,
  // executions, requests: at most one a cycle), so every ratio is in [0, 1] and
  // events summed by one metric stay <= totalCycle; icache misses <= requests.
  codec::ContextPmu counters(const task& t, std::uint64_t c0, std::uint64_t c1, double compute_us, double memory_us) {
    using codec::aic_metrics::load;
    const bool vec = t.ge_task_type == codec::ge_task::ai_vector_core;
    codec::ContextPmu p;
    p.set_word0(codec::context_pmu_func, pmu_cnt_++);
    p.streamId = static_cast<std::uint16_t>(t.stream);
    p.taskId = t.task_id;
    p.subTaskId = 0xFFFF;
    // The parser files the counters under AI Core or AI Vector by this field.
    p.set_ffts_type(vec ? codec::ffts_type::aiv : codec::ffts_type::aic);
    const double dur_us = static_cast<double>(c1 - c0) / opt_.hwts_frequency_mhz;
    const double cores = std::max<std::uint32_t>(1, vec ? opt_.aiv_num : opt_.ai_core_num);
    const double waves = std::ceil(static_cast<double>(t.block_dim) / cores);
    const double total = dur_us * opt_.aic_frequency_mhz * t.block_dim / waves;
    p.totalCycle = static_cast<std::uint64_t>(std::llround(total));
    auto clamp01 = [](double x) { return x < 0 ? 0.0 : (x > 1 ? 1.0 : x); };
    std::uniform_real_distribution<double> small(0.01, 0.08), miss(0.0, 0.2);
    const double compute_ratio = clamp01(compute_us / dur_us);
    const double mem_ratio = clamp01(memory_us / dur_us);
    double loads[9] = {};
    loads[static_cast<int>(load::cube)] = vec ? 0.0 : compute_ratio;  // AI Vector cores have no cube unit
    loads[static_cast<int>(load::vector)] = vec ? compute_ratio : small(rng_);
    loads[static_cast<int>(load::scalar)] = clamp01(0.05 + small(rng_));
    loads[static_cast<int>(load::mte_in)] = mem_ratio;
    loads[static_cast<int>(load::mte_out)] = clamp01(mem_ratio * 0.3);
    loads[static_cast<int>(load::local)] = vec ? 0.0 : clamp01(mem_ratio * 0.5);
    loads[static_cast<int>(load::conflict)] = small(rng_) * 0.5;
    const std::uint64_t req = static_cast<std::uint64_t>(std::floor(total * 0.02)) + 1;
    const double miss_rate = miss(rng_);
    const auto& events = vec ? aiv_events_ : aic_events_;
    for (std::size_t i = 0; i < events.size() && i < 8; ++i) {
      const auto* e = events[i];
      if (!e) continue;  // not in the table: reads 0
      if (e->kind == load::icache_req) p.pmuList[i] = req;
      else if (e->kind == load::icache_miss) p.pmuList[i] = static_cast<std::uint64_t>(std::floor(static_cast<double>(req) * miss_rate));
      else p.pmuList[i] = static_cast<std::uint64_t>(std::floor(loads[static_cast<int>(e->kind)] * e->share * total));
    }
    p.timeList[0] = c0;
    p.timeList[1] = c1;
    return p;
  }

  prof::prof_dir& out_;
  simulated_options opt_;
  std::mt19937_64 rng_;
  error init_error_;
  std::uint64_t dev_cntvct_ = 0;
  std::uint64_t base_mono_ = 0;
  std::uint64_t virtual_now_ = 0;
  std::mutex clock_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::deque<task> queue_;
  int busy_ = 0;
  bool quit_ = false;
  error write_error_;
  std::map<stream_id, stream_state> streams_;
  std::unordered_map<event_id, double> events_;
  stream_id next_stream_ = 0;
  std::uint64_t tasks_written_ = 0;
  std::atomic<std::uint64_t> to_device_{0}, to_host_{0};  ///< memcpy bytes host to device, device to host
  std::uint16_t acsq_cnt_ = 0;       ///< cnt of the next stars_soc record (the parser checks it rises by 1 mod 16)
  std::uint16_t pmu_cnt_ = 0;        ///< cnt of the next ffts_profile record
  std::vector<const codec::aic_metrics::event*> aic_events_, aiv_events_;  ///< the group's counters (sample.json order)
  std::uint64_t model_execute_begin_ = 0;  ///< host ts of the open training step's ModelExecute
  std::uint64_t last_step_tag_ = 0;  ///< device cycles of the last step begin/end record
  struct training_state {
    bool open = false, fp_written = false, bp_written = false;
    std::uint64_t step = 0;
    std::uint64_t last_kernel_end = 0;  ///< device cycles
  } training_;  ///< the open step of the training trace
  double step_floor_ns_ = 0;         ///< device time of the last step-trace record: later tasks start after it
  std::thread worker_;
};

}  // namespace device
MSPROF_END_NAMESPACE

#endif  // MSPROF_DEVICE_SIMULATED_DEVICE_HPP
