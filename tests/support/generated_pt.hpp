// SPDX-License-Identifier: MIT
// A generated torch_npu `*_ascend_pt` directory of about `framework_ops` ops,
// for the analyse benchmark and the ascend_pt memory test: the PROF_ data of
// generated_prof.hpp (one Node@launch per op on thread 1001 every 10 us) and
// FRAMEWORK files as torch_npu writes them (codec/framework.hpp's encoders):
// per launch, on the Python thread, aten::linear > aten::matmul > aten::mm with
// shapes, dtypes and a call stack, then aten::add, a task-queue enqueue inside
// aten::mm and its dequeue on the launching thread around the launch; a
// ProfilerStep#n around every 1,000 launches. With `extras` (the default), per
// launch also two allocations for operator_memory to name (one on the Python
// thread inside aten::mm, malloc and free; one on the launching thread inside
// the dequeue, malloc, free and block free; 64 addresses each, reused as a
// caching allocator does) and the Python tracer's records of an nn.Module call
// around the ops with a C call inside aten::mm.
#ifndef MSPROF_TESTS_SUPPORT_GENERATED_PT_HPP
#define MSPROF_TESTS_SUPPORT_GENERATED_PT_HPP

#include <msprof/codec/framework.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "generated_prof.hpp"

namespace generated_pt {

namespace fs = std::filesystem;
namespace fw = msprof::codec::framework;

constexpr std::uint64_t pid = 1000, python_tid = 900, launch_tid = 1001;
constexpr std::int64_t start_ns = 1000000000000;  // generated_prof's first launch
constexpr std::int64_t launch_every_ns = 10000;
constexpr std::uint64_t launches_per_step = 1000;

/// Appends to `file` whenever `buf` passes 1 MiB.
struct appender {
  std::ofstream f;
  std::string buf;
  std::uint64_t bytes = 0;
  explicit appender(const fs::path& p) : f(p, std::ios::binary) {}
  void flush() {
    f.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    bytes += buf.size();
    buf.clear();
  }
  void maybe_flush() {
    if (buf.size() > (1u << 20)) flush();
  }
  ~appender() { flush(); }
};

/// FRAMEWORK files for `launches` launches; returns the framework ops written.
inline std::uint64_t write_framework(const fs::path& dir, std::uint64_t launches, bool extras = true) {
  fs::create_directories(dir);
  appender ops(dir / "torch.op_range"), marks(dir / "torch.op_mark");
  std::optional<appender> memory, python;
  if (extras) {
    memory.emplace(dir / "torch.memory_usage");
    python.emplace(dir / "torch.python_tracer_func");
    std::string hashes;
    for (const auto& [key, name] : {std::pair<std::uint64_t, const char*>{1, "Linear######1"}, {2, "<built-in method mm>"}}) {
      const std::size_t at = fw::detail::open_tlv(hashes, 4);
      fw::detail::put(hashes, key);
      fw::detail::put_field(hashes, 1, name);
      fw::detail::close_tlv(hashes, at);
    }
    std::ofstream(dir / "torch.python_tracer_hash", std::ios::binary) << hashes;
  }
  const auto alloc = [&](std::int64_t t, std::int64_t ptr, std::uint8_t type, std::uint64_t tid) {
    fw::memory_usage u;
    u.ptr = ptr;
    u.time = t;
    u.alloc_size = type == 0 ? 131072 : -131072;
    u.total_allocated = u.total_active = 1 << 20;
    u.total_reserved = 2 << 20;
    u.stream_ptr = 2748;
    u.device_type = 20;  // NPU, inner allocator
    u.data_type = type;  // malloc, free, block free
    u.tid = tid;
    u.pid = pid;
    fw::encode(u, memory->buf);
    memory->maybe_flush();
  };
  const auto call = [&](std::int64_t t, std::uint64_t key, std::uint8_t tag) {
    fw::detail::put(python->buf, static_cast<std::uint64_t>(t));
    fw::detail::put(python->buf, python_tid);
    fw::detail::put(python->buf, pid);
    fw::detail::put(python->buf, key);
    fw::detail::put(python->buf, tag);
    python->maybe_flush();
  };
  std::uint64_t n = 0;
  const auto op = [&](std::int64_t b, std::int64_t e, const char* name, bool shapes) {
    fw::op_range r;
    r.start = b;
    r.end = e;
    r.seq = -1;
    r.pid = pid;
    r.start_tid = r.end_tid = python_tid;
    r.name = name;
    if (shapes) {
      r.input_shapes = "[128, 256];[256, 512]";
      r.input_dtypes = "c10::Half;c10::Half";
      r.call_stack = "train.py(42): step;model.py(17): forward";
    }
    fw::encode(r, ops.buf);
    ops.maybe_flush();
    ++n;
  };
  const auto mark = [&](std::int64_t t, std::uint64_t category, std::uint64_t corr, std::uint64_t tid) {
    fw::op_mark m;
    m.time = t;
    m.category = category;
    m.corr_id = corr;
    m.tid = tid;
    m.pid = pid;
    m.name = "aten::mm";
    fw::encode(m, marks.buf);
    marks.maybe_flush();
  };
  for (std::uint64_t k = 0; k < launches; ++k) {
    const std::int64_t t0 = start_ns + static_cast<std::int64_t>(k) * launch_every_ns;
    if (k % launches_per_step == 0) {
      const std::int64_t end =
          start_ns + static_cast<std::int64_t>(std::min(k + launches_per_step, launches)) * launch_every_ns - 5000;
      op(t0 - 4000, end, ("ProfilerStep#" + std::to_string(k / launches_per_step + 1)).c_str(), false);
    }
    op(t0 - 3000, t0 + 2000, "aten::linear", true);
    op(t0 - 2800, t0 + 1800, "aten::matmul", true);
    op(t0 - 2600, t0 + 1600, "aten::mm", true);
    op(t0 + 2200, t0 + 2800, "aten::add", true);
    mark(t0 - 2500, fw::mark::enqueue_start, k + 1, python_tid);
    mark(t0 - 2400, fw::mark::enqueue_end, k + 1, python_tid);
    mark(t0 - 100, fw::mark::dequeue_start, k + 1, launch_tid);
    mark(t0 + 5100, fw::mark::dequeue_end, k + 1, launch_tid);
    if (!extras) continue;
    const auto slot = static_cast<std::int64_t>(k % 64) << 20;
    alloc(t0 - 2550, (std::int64_t{1} << 32) + slot, 0, python_tid);
    alloc(t0 + 100, (std::int64_t{2} << 32) + slot, 0, launch_tid);
    alloc(t0 + 2500, (std::int64_t{1} << 32) + slot, 1, python_tid);
    alloc(t0 + 4000, (std::int64_t{2} << 32) + slot, 1, launch_tid);
    alloc(t0 + 4100, (std::int64_t{2} << 32) + slot, 2, launch_tid);
    call(t0 - 3100, 1, 0);
    call(t0 - 2650, 2, 2);
    call(t0 - 2550, 2, 3);
    call(t0 + 2100, 1, 1);
  }
  return n;
}

inline void write_profiler_info(const fs::path& dir) {
  std::ofstream(dir / "profiler_info_0.json")
      << R"({"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"], )"
         R"("record_shapes": true}, "experimental_config": {"_profiler_level": "Level1", "_export_type": ["text"]}}, )"
         R"("start_info": {"syscnt_enable": false, "freq": 100.0, "start_cnt": 0, "start_monotonic": 0}, )"
         R"("end_info": {}, "torch_npu_version": "bench", "cann_version": "bench", "rank_id": 0})";
}

/// What generate() wrote.
struct written {
  fs::path dir;                 ///< the *_ascend_pt directory
  std::uint64_t ops = 0;        ///< framework ops (torch.op_range records)
  std::uint64_t marks = 0;      ///< task-queue marks
  std::uint64_t allocations = 0, python_records = 0;  ///< torch.memory_usage, torch.python_tracer_func records
  std::uint64_t cann_records = 0;
  std::uint64_t framework_bytes = 0, cann_bytes = 0;
};

/// Writes root/worker0_1000_20260101000000000_ascend_pt with about
/// `framework_ops` ops (4 per launch) and their CANN data (Level1, text).
inline written generate(const fs::path& root, std::uint64_t framework_ops) {
  written w;
  w.dir = root / "worker0_1000_20260101000000000_ascend_pt";
  fs::create_directories(w.dir);
  // 4 framework ops per launch; generated_prof writes 7 records per launch and an mstx range per 8.
  const std::uint64_t launches = (framework_ops + 3) / 4;
  w.cann_records = launches * 57 / 8;
  w.cann_bytes = generated_prof::generate(w.dir / "PROF_000001_20260101000000000_BENCHBENCHBENCHAA", w.cann_records);
  w.ops = write_framework(w.dir / "FRAMEWORK", launches);
  w.marks = launches * 4;
  w.allocations = launches * 5;
  w.python_records = launches * 4;
  write_profiler_info(w.dir);
  for (const auto& e : fs::directory_iterator(w.dir / "FRAMEWORK")) w.framework_bytes += fs::file_size(e.path());
  return w;
}

}  // namespace generated_pt

#endif  // MSPROF_TESTS_SUPPORT_GENERATED_PT_HPP
