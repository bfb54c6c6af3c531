// SPDX-License-Identifier: MIT
// Host CPU and memory usage of a set of processes (torch_npu's
// experimental_config.host_sys, CANN's --host-sys=cpu,mem), sampled from /proc
// on a thread and written as CANN's host text slices
// host/data/host_cpu.data.slice_0 and host_mem.data.slice_0 (docs/formats.md,
// "Host system usage"):
//
//   auto s = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, true, true);
//   ...                                  // the program runs
//   s->stop();
//   s->write_into(prof_dir_path);        // the slices and their .done files
//
// The samples go to anonymous temporary files (disk, not memory, however long
// the run): the PROF_ directory they belong to may be made only later. The
// lines are CANN's: the converter reads them as it reads a CANN collection's.
#ifndef MSPROF_PROF_HOST_SAMPLER_HPP
#define MSPROF_PROF_HOST_SAMPLER_HPP

#include <dirent.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/output_file.hpp"
#include "layout.hpp"
#include "writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// One sampling thread; stop() (or the destructor) ends and joins it.
class host_sampler {
 public:
  /// The processes to sample; asked again every 100 ms (processes come and go).
  using process_list = std::function<std::vector<pid_t>()>;
  /// CANN's default period: --host-sys-usage-freq 50 Hz.
  static constexpr std::chrono::milliseconds default_period{20};

  /// Samples the threads of `processes()` (their /proc/<p>/task/<tid>/stat)
  /// for `cpu` and the sum of their /proc/<p>/statm for `mem`, now, every
  /// `period`, and at stop().
  static result<std::unique_ptr<host_sampler>> start(process_list processes, bool cpu, bool mem,
                                                     std::chrono::milliseconds period = default_period) {
    auto c = spool(cpu);
    if (!c) return c.err();
    file_ptr cpu_file(*c);
    auto m = spool(mem);
    if (!m) return m.err();
    std::unique_ptr<host_sampler> s(new host_sampler(std::move(processes), period, std::move(cpu_file), file_ptr(*m)));
    s->thread_ = std::thread([p = s.get()] { p->run(); });
    return s;
  }
  host_sampler(const host_sampler&) = delete;
  host_sampler& operator=(const host_sampler&) = delete;
  ~host_sampler() { stop(); }

  /// Ends the thread (at once: it waits on a condition, never sleeps blindly). Idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  /// Writes the samples into `prof_dir`/host/data/ as slice_0 of host_cpu.data
  /// and host_mem.data with their .done files (created through outfile: never
  /// through a link). After stop().
  result<void> write_into(const std::string& prof_dir) const {
    auto prof = outfile::dir::open(prof_dir);
    if (!prof) return prof.err();
    auto host = prof->mkdir(layout::host_dir);
    if (!host) return host.err();
    auto data = host->mkdir(layout::data_dir);
    if (!data) return data.err();
    for (const auto& [file, module] : {std::pair{cpu_.get(), layout::host_cpu}, std::pair{mem_.get(), layout::host_mem}}) {
      if (!file) continue;
      if (std::ferror(file)) return make_error(errc::io, "host sampling: its temporary file could not be written (disk full?)");
      const std::string name = std::string(module) + ".data.slice_0";
      auto out = outfile::atomic_file::create(*data, name);
      if (!out) return out.err();
      char buf[1 << 16];
      off_t at = 0;
      for (ssize_t n; (n = ::pread(::fileno(file), buf, sizeof buf, at)) != 0; at += n) {
        if (n < 0) return make_error(errc::io, std::string("host sampling: reading its temporary file: ") + std::strerror(errno));
        if (auto w = out->write(std::string_view(buf, static_cast<std::size_t>(n))); !w) return w;
      }
      if (auto c = out->commit(false); !c) return c;
      if (auto d = outfile::write_atomic(*data, name + layout::done_suffix, "filesize:" + std::to_string(at) + "\n", false); !d)
        return d;
    }
    return {};
  }

 private:
  struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  using file_ptr = std::unique_ptr<std::FILE, file_closer>;

  host_sampler(process_list processes, std::chrono::milliseconds period, file_ptr cpu, file_ptr mem)
      : processes_(std::move(processes)), period_(period), cpu_(std::move(cpu)), mem_(std::move(mem)) {}

  /// A fresh anonymous temporary file (removed when closed), or null when not `wanted`.
  static result<std::FILE*> spool(bool wanted) {
    if (!wanted) return static_cast<std::FILE*>(nullptr);
    std::FILE* f = std::tmpfile();
    if (!f) return make_error(errc::io, std::string("host sampling: no temporary file: ") + std::strerror(errno));
    return f;
  }

  /// A stat line with the blanks inside "(comm)" made '_': the readers split
  /// the line at blanks and count fields (CANN's names have none).
  static void blank_free_comm(std::string& stat) {
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return;
    for (auto k = open + 1; k < close; ++k)
      if (std::isspace(static_cast<unsigned char>(stat[k]))) stat[k] = '_';
  }

  void run() {
    auto next = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(m_);
    while (!stopping_) {
      lock.unlock();
      sample();
      lock.lock();
      next += period_;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // a slow sample skips the missed periods, no burst
      wake_.wait_until(lock, next, [this] { return stopping_; });
    }
    lock.unlock();
    sample();  // at stop too: a collection shorter than the period still gets an interval
    // Everything on disk for write_into().
    if (cpu_) std::fflush(cpu_.get());
    if (mem_) std::fflush(mem_.get());
  }

  /// One sample: a file read that fails (a process or thread gone) leaves that
  /// part out; a CPU sample without its uptime or any thread is left out whole.
  void sample() {
    const auto now = std::chrono::steady_clock::now();
    if (!scanned_ || now - *scanned_ >= std::chrono::milliseconds(100)) {
      pids_ = processes_();
      scanned_ = now;
    }
    const std::uint64_t ns = detail::mono_ns();  // the collection's host clock
    if (cpu_) {
      std::string text;
      if (detail::read_proc("/proc/uptime", line_)) text = "time " + std::to_string(ns) + "\n" + line_ + "\n";
      const std::size_t head = text.size();
      for (std::size_t k = 0; head > 0 && k < pids_.size(); ++k) {
        const std::string task = "/proc/" + std::to_string(pids_[k]) + "/task";
        DIR* d = ::opendir(task.c_str());
        while (d) {
          const dirent* e = ::readdir(d);
          if (!e) break;
          if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
          if (!detail::read_proc(task + "/" + e->d_name + "/stat", line_)) continue;  // the thread ended
          blank_free_comm(line_);
          text += line_;
          text += '\n';
        }
        if (d) ::closedir(d);
      }
      if (text.size() > head) std::fwrite(text.data(), 1, text.size(), cpu_.get());
    }
    if (mem_) {  // the processes' statm summed: size resident shared text lib data dt (pages)
      std::uint64_t sum[7] = {};
      bool any = false;
      for (const pid_t p : pids_) {
        if (!detail::read_proc("/proc/" + std::to_string(p) + "/statm", line_)) continue;
        const char* at = line_.c_str();
        for (auto& v : sum) {
          char* end = nullptr;
          v += std::strtoull(at, &end, 10);
          at = end;
        }
        any = true;
      }
      if (any) {
        std::string text = std::to_string(ns);
        for (const auto v : sum) text += " " + std::to_string(v);
        text += '\n';
        std::fwrite(text.data(), 1, text.size(), mem_.get());
      }
    }
  }

  // Only the sampling thread touches these between start() and stop().
  process_list processes_;
  std::chrono::milliseconds period_;
  file_ptr cpu_, mem_;  // the spooled lines; null when not asked for
  std::string line_;  // reused buffer for one /proc read
  std::vector<pid_t> pids_;
  std::optional<std::chrono::steady_clock::time_point> scanned_;
  std::mutex m_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_HOST_SAMPLER_HPP
