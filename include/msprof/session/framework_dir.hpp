// SPDX-License-Identifier: MIT
// torch_npu's directory layout written from msprof's collector (the ascend_pt
// and ascend_ms layouts of session_config and of `msprof --layout`):
//
//   {worker}_{pid}_{YYYYmmddHHMMSSmmm}_ascend_pt/      (_ascend_ms for MindSpore's name)
//     PROF_.../                    the CANN collection (prof::prof_dir)
//     FRAMEWORK/torch.op_range     msprof::record_function ops and the ProfilerStep#N steps
//     FRAMEWORK/torch.op_mark      task-queue marks (msprof::scoped_enqueue / scoped_dequeue)
//     FRAMEWORK/torch.memory_usage allocator events (msprof::record_memory, with profile_memory)
//     profiler_info_{rank}.json    the config and the clock facts (profiler_info.json without a rank)
//     profiler_metadata.json       written by the session
//
// FRAMEWORK files hold torch_npu's bytes (codec/framework.hpp encodes them);
// times are CLOCK_MONOTONIC_RAW ns (start_info.syscnt_enable false), which
// `msprof analyse` and torch_npu place on the PROF_ directory's wall clock.
// Files are created as the first record of their kind comes, through
// core/output_file.hpp (never through a link), and appended to; a failed
// write stops that directory's FRAMEWORK output and counts what it lost.
#ifndef MSPROF_SESSION_FRAMEWORK_DIR_HPP
#define MSPROF_SESSION_FRAMEWORK_DIR_HPP

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../codec/framework.hpp"
#include "../collect/record_sink.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../core/output_file.hpp"
#include "../prof/writer.hpp"
#include "prof_record_sink.hpp"
#include "schedule.hpp"
#include "session_config.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

/// The host name with every character a directory name may not hold made '_'
/// (torch_npu's default worker name is the host name).
inline std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  std::string s(host);
  for (char& c : s)
    if (!check_worker_name(std::string_view(&c, 1)).empty()) c = '_';
  return s;
}

/// `{worker}_{pid}_{YYYYmmddHHMMSSmmm}_ascend_pt` (or `_ascend_ms`), local time as torch_npu names it.
inline std::string framework_dir_name(output_layout layout, std::string_view worker, std::uint32_t pid,
                                      std::uint64_t wall_us) {
  const std::time_t secs = static_cast<std::time_t>(wall_us / 1000000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d%02d%02d%02d%02d%02d%03u", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned>((wall_us / 1000) % 1000));
  return std::string(worker) + "_" + std::to_string(pid) + "_" + stamp +
         (layout == output_layout::ascend_ms ? "_ascend_ms" : "_ascend_pt");
}

/// The rank torch_npu would name profiler_info after: RANK_ID, else RANK, else -1.
inline std::int64_t rank_from_env() {
  for (const char* var : {"RANK_ID", "RANK"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const long long r = std::strtoll(v, &end, 10);
    if (*end == '\0' && r >= 0) return r;
  }
  return -1;
}

/// profiler_metadata.json in `dir`: the `entries` (add_metadata), then the
/// environment variables torch_npu copies there, under ENV_VARIABLES.
inline result<void> write_profiler_metadata(const std::string& dir, const std::map<std::string, json::value>& entries) {
  static constexpr const char* env_vars[] = {"ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC", "HCCL_RDMA_SL",
                                             "ACLNN_CACHE_LIMIT"};
  json::writer w;
  w.begin_object();
  for (const auto& [k, v] : entries) {
    w.key(k);
    w.value(v);
  }
  bool any_env = false;
  for (const char* name : env_vars) {
    const char* v = std::getenv(name);
    if (v == nullptr) continue;
    if (!any_env) {
      w.key("ENV_VARIABLES");
      w.begin_object();
      any_env = true;
    }
    w.member(name, v);
  }
  if (any_env) w.end_object();
  w.end_object();
  return prof::detail::write_file(dir + "/profiler_metadata.json", w.str());
}

/// One `*_ascend_pt` directory being written: its root and FRAMEWORK/ files.
class framework_dir {
 public:
  using kind = codec::framework::file_kind;

  /// Creates the directory (it must be new) under `parent` (made when missing) and its FRAMEWORK/.
  static result<framework_dir> create(const std::string& parent, output_layout layout, const std::string& worker,
                                      std::uint32_t pid, std::uint64_t wall_us) {
    auto up = outfile::dir::make(parent.empty() ? std::string(".") : parent);
    if (!up) return up.err();
    auto root = up->mkdir(framework_dir_name(layout, worker.empty() ? default_worker_name() : worker, pid, wall_us), true);
    if (!root) return root.err();
    auto fwk = root->mkdir("FRAMEWORK");
    if (!fwk) return fwk.err();
    framework_dir d;
    d.root_ = std::move(*root);
    d.fwk_ = std::move(*fwk);
    return d;
  }

  /// The directory's path (the PROF_ directory's parent).
  const std::string& root() const noexcept { return root_.path(); }

  /// Buffers `bytes` (whole records) for the file of `k` (op_range, op_mark or memory_usage).
  void append(kind k, std::string_view bytes) {
    file& f = files_[index(k)];
    if (stopped_) {
      ++lost_;
      return;
    }
    if (!f.fd) {
      auto fd = fwk_.create(name(k), O_APPEND);
      if (!fd) return stop(fd.err().message);
      f.fd = std::move(*fd);
    }
    f.buf.append(bytes.data(), bytes.size());
    ++f.records;
    if (f.buf.size() >= (std::size_t{1} << 20)) (void)write(f, k);
  }

  /// Hands every buffered record to the kernel.
  result<void> flush() {
    result<void> first;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      auto r = write(files_[i], kinds[i]);
      if (first && !r) first = std::move(r);
    }
    return first;
  }

  /// Records not written (a file that could not be created or written, and every record after it).
  std::uint64_t lost() const noexcept { return lost_; }
  const std::string& stop_reason() const noexcept { return stop_reason_; }

  /// profiler_info_{rank}.json (profiler_info.json for rank -1), as torch_npu's
  /// _dump_profiler_info writes it: the config, start_info, end_info (now), rank_id.
  result<void> write_profiler_info(const session_config& cfg, const std::optional<schedule>& sched,
                                   const prof::prof_dir& prof, std::int64_t rank) const {
    json::writer w;
    w.begin_object();
    w.key("config");
    w.begin_object();
    w.key("common_config");
    w.begin_object();
    w.key("activities");
    w.begin_array();
    if (cfg.cpu) w.string("ProfilerActivity.CPU");
    if (cfg.npu) w.string("ProfilerActivity.NPU");
    w.end_array();
    w.key("schedule");
    if (sched) {
      w.begin_object();
      w.member("wait", sched->wait);
      w.member("active", sched->active);
      w.member("warmup", sched->warmup);
      w.member("repeat", sched->repeat);
      w.member("skip_first", sched->skip_first);
      w.end_object();
    } else {
      w.null();
    }
    bool_member(w, "record_shapes", cfg.record_shapes);
    bool_member(w, "profile_memory", cfg.profile_memory);
    bool_member(w, "with_stack", cfg.with_stack);
    bool_member(w, "with_flops", false);
    bool_member(w, "with_modules", false);
    w.end_object();
    w.key("experimental_config");
    w.begin_object();
    w.member("_profiler_level", to_string(cfg.level));
    std::string_view metrics = cfg.aic_metrics;
    for (const auto& n : aic_metrics_names)
      if (n[0] == cfg.aic_metrics) metrics = n[1];  // torch_npu's constant
    w.member("_aic_metrics", metrics);
    bool_member(w, "_l2_cache", false);
    bool_member(w, "_msprof_tx", false);
    bool_member(w, "_mstx", cfg.mstx);
    bool_member(w, "_data_simplification", cfg.data_simplification);
    bool_member(w, "record_op_args", false);
    w.key("_export_type");
    w.begin_array();
    for (export_type t : cfg.export_types) w.string(t == export_type::db ? "db" : "text");
    w.end_array();
    string_list(w, "_host_sys", cfg.host_sys);
    bool_member(w, "_op_attr", false);
    w.key("_gc_detect_threshold");
    w.null();
    string_list(w, "_mstx_domain_include", cfg.mstx_domain_include);
    string_list(w, "_mstx_domain_exclude", cfg.mstx_domain_exclude);
    bool_member(w, "_sys_io", false);
    bool_member(w, "_sys_interconnection", false);
    w.end_object();
    w.end_object();
    const auto& clock = prof.options().host_clock;
    w.key("start_info");
    w.begin_object();
    bool_member(w, "syscnt_enable", false);  // FRAMEWORK times are ns, not counter ticks
    w.member("freq", 100);
    w.member("start_cnt", clock.anchor_ns);
    w.member("start_monotonic", clock.anchor_ns);
    w.end_object();
    w.key("end_info");
    w.begin_object();
    w.member("collectionTimeEnd", prof::detail::wall_us() * 1000);
    w.member("MonotonicTimeEnd", prof::detail::mono_ns());
    w.end_object();
    w.member("torch_npu_version", "");
    w.member("cann_version", "");
    w.member("producer", "msprof (header-only toolkit)");
    w.member("rank_id", rank);
    w.end_object();
    const std::string name = rank < 0 ? "profiler_info.json" : "profiler_info_" + std::to_string(rank) + ".json";
    return outfile::write_atomic(root_, name, w.str());
  }

 private:
  struct file {
    outfile::unique_fd fd;
    std::string buf;
    std::uint64_t records = 0;  // buffered
  };
  static constexpr std::array<kind, 3> kinds{kind::op_range, kind::op_mark, kind::memory_usage};

  static std::size_t index(kind k) noexcept { return k == kind::op_range ? 0 : k == kind::op_mark ? 1 : 2; }
  static const char* name(kind k) noexcept {
    return k == kind::op_range ? "torch.op_range" : k == kind::op_mark ? "torch.op_mark" : "torch.memory_usage";
  }
  static void bool_member(json::writer& w, std::string_view k, bool v) {
    w.key(k);
    w.boolean(v);
  }
  static void string_list(json::writer& w, std::string_view k, const std::vector<std::string>& v) {
    w.key(k);
    w.begin_array();
    for (const auto& s : v) w.string(s);
    w.end_array();
  }

  result<void> write(file& f, kind k) {
    if (f.buf.empty() || !f.fd) return {};
    auto r = outfile::write_all(f.fd.get(), f.buf.data(), f.buf.size(), fwk_.path_of(name(k)));
    if (!r) {
      lost_ += f.records;
      stop(r.err().message);
    }
    f.buf.clear();
    f.records = 0;
    return r;
  }
  void stop(const std::string& why) {
    if (!stopped_) stop_reason_ = why + "; FRAMEWORK output stopped";
    stopped_ = true;
    ++lost_;
  }

  outfile::dir root_, fwk_;
  std::array<file, 3> files_{};
  std::uint64_t lost_ = 0;
  bool stopped_ = false;
  std::string stop_reason_;
};

/// What a framework_sink keeps of the records (the session's record_shapes,
/// with_stack and profile_memory, as torch_npu gates them).
struct framework_filter {
  bool shapes = true;
  bool stack = true;
  bool memory = true;
};

/// The collector's sink for a framework layout: CANN's records go to the
/// PROF_ directory's sink, framework records (and each step, as the
/// "ProfilerStep#<n>" op torch_npu records) to FRAMEWORK/. An mstx call also
/// becomes the op torch_npu records around its own mstx calls, at the call's
/// time on the calling thread: "mstx_mark_op", "mstx_range_start_op" and
/// "mstx_range_end_op".
class framework_sink final : public collect::record_sink {
 public:
  framework_sink(std::shared_ptr<prof_record_sink> prof, framework_dir& dir, prof::tick_clock ticks,
                 framework_filter filter)
      : prof_(std::move(prof)), dir_(dir), ticks_(ticks), filter_(filter) {}

  void write_tx(const collect::tx_record& r) override {
    prof_->write_tx(r);
    const auto call = [&](const char* name, std::uint64_t at, std::uint32_t tid) {
      collect::fw_op_record op;
      op.start = op.end = at;
      op.pid = r.pid;
      op.tid = tid;
      op.name = name;
      write_fw_op(op);
    };
    if (r.event_type == 0) {
      call("mstx_mark_op", r.start, r.tid);
    } else {
      call("mstx_range_start_op", r.start, r.tid);
      call("mstx_range_end_op", r.end, r.end_tid);
    }
  }
  void write_mem(const collect::mem_record& r) override { prof_->write_mem(r); }
  void write_step(const collect::step_record& s) override {
    prof_->write_step(s);
    collect::fw_op_record op;
    op.start = s.start;
    op.end = s.end;
    op.pid = static_cast<std::uint32_t>(::getpid());
    op.tid = s.tid;
    const std::string name = "ProfilerStep#" + std::to_string(s.step);
    op.name = name;
    write_fw_op(op);
  }
  void write_fw_op(const collect::fw_op_record& r) override {
    codec::framework::op_range o;
    o.start = static_cast<std::int64_t>(monotonic_ns(ticks_, r.start));
    o.end = static_cast<std::int64_t>(monotonic_ns(ticks_, r.end));
    o.seq = r.seq;
    o.pid = r.pid;
    o.start_tid = o.end_tid = r.tid;
    o.fwd_tid = r.fwd_tid;
    o.scope = r.scope;
    o.is_async = r.is_async;
    o.name.assign(r.name);
    if (filter_.shapes) {
      o.input_dtypes.assign(r.dtypes);
      o.input_shapes.assign(r.shapes);
    }
    if (filter_.stack) o.call_stack.assign(r.stack);
    append(o);
  }
  void write_fw_mark(const collect::fw_mark_record& r) override {
    codec::framework::op_mark m;
    m.time = static_cast<std::int64_t>(monotonic_ns(ticks_, r.time));
    m.category = r.category;
    m.corr_id = r.corr_id;
    m.tid = r.tid;
    m.pid = r.pid;
    m.name.assign(r.name);
    append(m);
  }
  void write_fw_memory(const collect::fw_memory_record& r) override {
    if (!filter_.memory) return;
    codec::framework::memory_usage m;
    m.ptr = r.ptr;
    m.time = static_cast<std::int64_t>(monotonic_ns(ticks_, r.time));
    m.alloc_size = r.alloc_size;
    m.total_allocated = r.total_allocated;
    m.total_reserved = r.total_reserved;
    m.total_active = r.total_active;
    m.stream_ptr = r.stream_ptr;
    m.device_type = r.device_type;
    m.device_index = r.device_index;
    m.component_type = r.component_type;
    m.data_type = r.data_type;
    m.allocator_type = r.allocator_type;
    m.tid = r.tid;
    m.pid = r.pid;
    append(m);
  }
  void flush() override {
    prof_->flush();
    (void)dir_.flush();
  }
  void update_losses(const collect::loss_counters& l) override { prof_->update_losses(l); }
  collect::call_counter_block call_counters() override { return prof_->call_counters(); }

  /// Writes the FRAMEWORK buffers and finishes the PROF_ directory (prof_record_sink::finish).
  result<void> finish(const collect::loss_counters& l) {
    auto f = dir_.flush();
    auto p = prof_->finish(l);
    return f ? p : f;
  }

 private:
  template <class Record>
  void append(const Record& r) {
    scratch_.clear();
    codec::framework::encode(r, scratch_);
    dir_.append(kind_of(r), scratch_);
  }
  static framework_dir::kind kind_of(const codec::framework::op_range&) { return framework_dir::kind::op_range; }
  static framework_dir::kind kind_of(const codec::framework::op_mark&) { return framework_dir::kind::op_mark; }
  static framework_dir::kind kind_of(const codec::framework::memory_usage&) { return framework_dir::kind::memory_usage; }

  std::shared_ptr<prof_record_sink> prof_;
  framework_dir& dir_;
  prof::tick_clock ticks_;
  framework_filter filter_;
  std::string scratch_;
};

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_FRAMEWORK_DIR_HPP
