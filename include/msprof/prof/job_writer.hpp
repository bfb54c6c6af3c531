// SPDX-License-Identifier: MIT
// Writes a SoC JOB directory incrementally (names: job_layout.hpp, records:
// codec/soc.hpp, docs/formats.md "JOB directories"):
//
//   prof::job_options o;  o.parent = "profiling";  o.device_id = 0;
//   auto j = prof::job_dir::create(o);                // JOB<id>/, data/, info.json.0
//   j->append(prof::job_layout::family::acl, bytes);  // whole records
//   j->flush();                                       // on disk now (write(2))
//   j->close();                                       // .done files, info.json.0 "finished"
//
// Like prof/writer.hpp: a slice never holds part of a record, a finished slice
// gets "<file>.done" ("filesize:N\n"), and whatever was flushed survives a
// kill; a killed run has no .done on its last slices and status "running".
// Files and directories go through core/output_file.hpp (no links, 0750/0640).
// Thread-safe: one mutex.
#ifndef MSPROF_PROF_JOB_WRITER_HPP
#define MSPROF_PROF_JOB_WRITER_HPP

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../core/output_file.hpp"
#include "job_layout.hpp"
#include "writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// What info.json.<device> says of the run.
struct job_options {
  std::string parent = ".";            ///< the JOB directory is created inside (made if missing)
  std::string name;                    ///< exact JOB name (tests); empty = "JOB" + 8 random A-Z 0-9
  std::uint32_t device_id = 0;
  std::uint32_t pid = 0;               ///< 0 = getpid()
  double frequency_mhz = 1000;         ///< AA Core frequency
  std::string aac_metrics = "ArithmeticUtilization";
  std::uint32_t interval = 0;          ///< sample every N inferences (0: every one)
  bool acl_api = true, aacpu = true;
  bool simulated = true;               ///< written as "simulated": "yes"
  std::string soc = "SS928 V100 (simulated)";
  std::uint64_t slice_bytes = default_slice_bytes;
};

/// The SoC flow's clock: CLOCK_MONOTONIC in ns ("system monotonic time", the
/// clock of every time in a JOB directory).
inline std::uint64_t job_clock_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

/// C1 of the SoC document: profiling data wants a umask at least as strict as
/// 0027. msprof's own modes (0750/0640) already meet it, so a looser umask is
/// only reported: the warning text, or nullopt when the umask is strict enough.
inline std::optional<std::string> umask_warning() {
  const mode_t m = ::umask(0);
  ::umask(m);
  if ((m & 0027) == 0027) return std::nullopt;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "umask %04o is looser than 0027; profiling files are still created 0750/0640 (set `umask 0027`)",
                static_cast<unsigned>(m));
  return std::string(buf);
}

class job_dir {
 public:
  job_dir() = default;
  job_dir(job_dir&&) noexcept = default;
  job_dir& operator=(job_dir&&) noexcept = default;
  ~job_dir() {
    if (s_) (void)close();
  }

  /// Creates JOB<id>/, data/ and info.json.<device> (status "running").
  static result<job_dir> create(const job_options& opt) {
    job_dir j;
    j.s_ = std::make_unique<state>();
    state& s = *j.s_;
    s.opt = opt;
    if (s.opt.slice_bytes == 0) return make_error(errc::invalid_argument, "job_dir: slice_bytes must be > 0");
    if (s.opt.pid == 0) s.opt.pid = static_cast<std::uint32_t>(::getpid());
    s.start_ns = job_clock_ns();
    s.start_wall_us = detail::wall_us();
    auto parent = outfile::dir::make(opt.parent.empty() ? std::string(".") : opt.parent);
    if (!parent) return parent.err();
    result<outfile::dir> root = make_error(errc::io, "");
    if (!opt.name.empty()) {
      root = parent->mkdir(opt.name, true);
    } else {
      std::random_device rd;
      std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ s.start_ns ^ s.opt.pid);
      for (int attempt = 0; attempt < 16; ++attempt) {  // a clash with an existing JOB: another name
        std::string n = job_layout::prefix;
        for (std::size_t i = 0; i < job_layout::id_chars; ++i) n += "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rng() % 36];
        root = parent->mkdir(n, true);
        if (root) break;
      }
    }
    if (!root) return root.err();
    s.root = root->path();
    auto data = root->mkdir(job_layout::data_dir);
    if (!data) return data.err();
    s.data = std::move(*data);
    MSPROF_TRY(j.write_info(false));
    return j;
  }

  explicit operator bool() const noexcept { return s_ != nullptr; }
  const std::string& path() const noexcept { return s_->root; }
  const job_options& options() const noexcept { return s_->opt; }
  std::uint64_t start_ns() const noexcept { return s_->start_ns; }

  /// Buffers whole records of family `f` (their size a multiple of its record
  /// size). ModelDesc bytes are kept in one slice: append one record at a time.
  /// A record never straddles slices.
  result<void> append(job_layout::family f, std::string_view bytes) {
    std::lock_guard<std::mutex> lk(s_->mu);
    if (s_->closed) return make_error(errc::invalid_argument, s_->root + ": append after close");
    const std::size_t rs = job_layout::info(f).record_size;
    if (rs && bytes.size() % rs != 0)
      return make_error(errc::invalid_argument, std::string(job_layout::info(f).name) + ": " +
                                                    std::to_string(bytes.size()) + " bytes are not whole records");
    slice& sl = s_->open[f];
    if (sl.fd < 0) MSPROF_TRY(open_slice(f, sl, 0));
    while (!bytes.empty()) {
      const std::uint64_t used = sl.size + sl.buf.size();
      std::size_t room = used >= s_->opt.slice_bytes ? 0 : static_cast<std::size_t>(s_->opt.slice_bytes - used);
      std::size_t take = rs ? std::min(bytes.size(), room - room % rs) : (bytes.size() <= room ? bytes.size() : 0);
      if (take == 0 && used == 0) take = rs ? rs : bytes.size();  // larger than a slice: alone in one
      if (take == 0) {
        MSPROF_TRY(finish(f, sl));
        MSPROF_TRY(open_slice(f, sl, sl.index + 1));
        continue;
      }
      sl.buf.append(bytes.data(), take);
      bytes.remove_prefix(take);
    }
    return {};
  }

  /// Hands every buffered record to the kernel: a kill after this loses nothing.
  result<void> flush() {
    std::lock_guard<std::mutex> lk(s_->mu);
    result<void> first;
    for (auto& kv : s_->open) {
      auto r = write_buffer(kv.second);
      if (first && !r) first = r;
    }
    return first;
  }

  /// Flushes, writes every slice's .done and info.json with status "finished". Idempotent.
  result<void> close() {
    if (!s_) return {};
    std::lock_guard<std::mutex> lk(s_->mu);
    if (s_->closed) return {};
    s_->closed = true;
    result<void> first;
    for (auto& kv : s_->open) {
      auto r = finish(kv.first, kv.second);
      if (first && !r) first = r;
    }
    auto r = write_info(true);
    if (first && !r) first = r;
    return first;
  }

 private:
  struct slice {
    int fd = -1;
    std::uint32_t index = 0;
    std::uint64_t size = 0;  ///< bytes written
    std::string buf;
  };
  struct state {
    job_options opt;
    std::string root;
    outfile::dir data;
    std::uint64_t start_ns = 0, start_wall_us = 0;
    std::mutex mu;
    std::map<job_layout::family, slice> open;
    bool closed = false;
  };

  std::string slice_path(job_layout::family f, const slice& sl) const {
    return s_->data.path_of(job_layout::slice_file(f, s_->opt.device_id, sl.index));
  }

  result<void> open_slice(job_layout::family f, slice& sl, std::uint32_t index) {
    sl = slice{};
    sl.index = index;
    auto fd = s_->data.create(job_layout::slice_file(f, s_->opt.device_id, index), O_APPEND);
    if (!fd) return fd.err();
    sl.fd = fd->release();
    return {};
  }

  result<void> write_buffer(slice& sl) {
    if (sl.buf.empty() || sl.fd < 0) return {};
    auto r = outfile::write_all(sl.fd, sl.buf.data(), sl.buf.size(), "JOB slice");
    if (!r) {
      if (::ftruncate(sl.fd, static_cast<off_t>(sl.size)) != 0) { /* keep the first error */ }
      sl.buf.clear();
      return r;
    }
    sl.size += sl.buf.size();
    sl.buf.clear();
    return {};
  }

  result<void> finish(job_layout::family f, slice& sl) {
    if (sl.fd < 0) return {};
    auto r = write_buffer(sl);
    ::close(sl.fd);
    sl.fd = -1;
    auto d = detail::write_file(slice_path(f, sl) + job_layout::done_suffix,
                                "filesize:" + std::to_string(sl.size) + "\n", false);
    if (!r) return r;
    return d;
  }

  result<void> write_info(bool finished) {
    const auto& o = s_->opt;
    json::writer w;
    w.begin_object();
    w.member("device_id", o.device_id);
    w.member("pid", o.pid);
    w.member("pid_name", detail::process_name());
    w.member("soc", o.soc);
    w.member("simulated", o.simulated ? "yes" : "no");
    char freq[32];
    std::snprintf(freq, sizeof freq, "%.6g", o.frequency_mhz);
    w.key("frequency");  // MHz
    w.raw_number(freq);
    w.member("aac_metrics", o.aac_metrics);
    w.member("interval", o.interval);
    w.member("acl_api", o.acl_api ? "on" : "off");
    w.member("aacpu", o.aacpu ? "on" : "off");
    w.member("start_time_ns", static_cast<std::uint64_t>(s_->start_ns));
    w.member("start_wall_us", static_cast<std::uint64_t>(s_->start_wall_us));
    w.member("status", finished ? "finished" : "running");
    if (finished) w.member("end_time_ns", job_clock_ns());
    w.member("producer", "msprof (header-only toolkit)");
    w.end_object();
    return detail::write_file(s_->root + "/" + job_layout::info_file(o.device_id), w.take(), false);
  }

  std::unique_ptr<state> s_;
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_JOB_WRITER_HPP
