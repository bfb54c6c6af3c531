// SPDX-License-Identifier: MIT
// Host CPU, memory, disk and network usage of a set of processes (torch_npu's
// experimental_config.host_sys, CANN's --host-sys=cpu,mem,disk,network),
// sampled from /proc on a thread and written as CANN's host text slices
// host/data/host_cpu.data.slice_0, host_mem, host_disk and host_network; and
// CANN's --host-sys-usage=cpu,mem: the whole system's /proc/stat and
// /proc/meminfo (host_sys_cpu, host_sys_mem) and, for every process of the
// machine as CANN, its stat and statm (<pid>-CpuUsage, <pid>-Memory)
// (docs/formats.md, "Host system usage"):
//
//   host_sampler::parts what;
//   what.cpu = what.disk = true;
//   auto s = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, what);
//   ...                                  // the program runs
//   s->stop();
//   s->write_into(prof_dir_path);        // the slices, their .done files, sample.json's host_disk_freq
//
// The samples go to anonymous temporary files (disk, not memory, however long
// the run): the PROF_ directory they belong to may be made only later. The
// lines are CANN's: the converter reads them as it reads a CANN collection's.
#ifndef MSPROF_PROF_HOST_SAMPLER_HPP
#define MSPROF_PROF_HOST_SAMPLER_HPP

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
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
#include "../core/json.hpp"
#include "../core/output_file.hpp"
#include "layout.hpp"
#include "writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// One sampling thread; stop() (or the destructor) ends and joins it.
class host_sampler {
 public:
  /// What to sample: CANN's --host-sys names that msprof collects.
  struct parts {
    bool cpu = false;      ///< host_cpu: the processes' threads' /proc/<p>/task/<tid>/stat
    bool mem = false;      ///< host_mem: their /proc/<p>/statm summed
    bool disk = false;     ///< host_disk: their /proc/<p>/io and /proc/<p>/stat I/O, iotop's way
    bool network = false;  ///< host_network: the machine's /proc/net/dev
    /// --host-sys-usage=cpu: host_sys_cpu (/proc/stat's cpu lines) and per process <pid>-CpuUsage
    bool sys_cpu = false;
    /// --host-sys-usage=mem: host_sys_mem (/proc/meminfo) and per process <pid>-Memory
    bool sys_mem = false;
    /// Sets the part `name` names; false for a name that is no part (osrt, numa ...).
    bool set(std::string_view name) noexcept {
      bool* p = name == "cpu" ? &cpu : name == "mem" ? &mem : name == "disk" ? &disk : name == "network" ? &network : nullptr;
      if (p) *p = true;
      return p != nullptr;
    }
    /// Sets the --host-sys-usage part `name` names ("cpu", "mem"); false for another name.
    bool set_usage(std::string_view name) noexcept {
      bool* p = name == "cpu" ? &sys_cpu : name == "mem" ? &sys_mem : nullptr;
      if (p) *p = true;
      return p != nullptr;
    }
    bool any() const noexcept { return cpu || mem || disk || network || sys_cpu || sys_mem; }
  };
  /// The processes to sample; asked again every 100 ms (processes come and go).
  using process_list = std::function<std::vector<pid_t>()>;
  /// CANN's default period: --host-sys-usage-freq 50 Hz.
  static constexpr std::chrono::milliseconds default_period{20};
  /// The period of --host-sys-usage-freq `hz` (a session's host_sys_usage_freq): 1000 / hz ms,
  /// truncated; 0 is CANN's default 50 Hz.
  static constexpr std::chrono::milliseconds period_of(unsigned hz) noexcept {
    return std::chrono::milliseconds(1000 / (hz == 0 ? 50 : hz));
  }
  /// The processes that get <pid>-CpuUsage / <pid>-Memory files (a spooled file each): the sampled
  /// ones first, then the machine's others by pid, which leave the last 64 to the sampled ones
  /// (a program's processes that start late); more are not sampled.
  static constexpr std::size_t max_usage_processes = 256;
  static constexpr std::size_t max_other_usage_processes = max_usage_processes - 64;

  /// Samples `what` of `processes()` now, every `period` (at least 1 ms), and at stop().
  static result<std::unique_ptr<host_sampler>> start(process_list processes, parts what,
                                                     std::chrono::milliseconds period = default_period) {
    if (period.count() <= 0) return make_error(errc::invalid_argument, "host sampling: the period must be at least 1 ms");
    std::unique_ptr<host_sampler> s(new host_sampler(std::move(processes), period));
    const bool wanted[count] = {what.cpu, what.mem, what.disk, what.network, what.sys_cpu, what.sys_mem};
    for (int k = 0; k < count; ++k) {
      if (!wanted[k]) continue;
      std::FILE* f = std::tmpfile();
      if (!f) return make_error(errc::io, std::string("host sampling: no temporary file: ") + std::strerror(errno));
      s->spool_[k].reset(f);
    }
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

  /// The sampling frequency in Hz as sample.json's host_disk_freq gives it
  /// (the reader places the n-th host_disk line n periods after start_time).
  std::string frequency_text() const {
    char hz[32];
    std::snprintf(hz, sizeof hz, "%.9g", 1000.0 / static_cast<double>(period_.count()));
    return hz;
  }

  /// Writes the samples into `prof_dir`/host/data/ as slice_0 of host_cpu.data,
  /// host_mem.data, host_disk.data, host_network.data, host_sys_cpu.data,
  /// host_sys_mem.data and each process's <pid>-CpuUsage.data and
  /// <pid>-Memory.data with their .done files, and into host/sample.json
  /// host_disk's frequency and the --host-sys-usage sampling intervals (ms)
  /// (every file through outfile: never through a link). After stop().
  result<void> write_into(const std::string& prof_dir) const {
    auto prof = outfile::dir::open(prof_dir);
    if (!prof) return prof.err();
    auto host = prof->mkdir(layout::host_dir);
    if (!host) return host.err();
    auto data = host->mkdir(layout::data_dir);
    if (!data) return data.err();
    for (int k = 0; k < count; ++k)
      if (spool_[k]) MSPROF_TRY(copy_spool(*data, std::string(modules[k]) + ".data.slice_0", spool_[k].get()));
    for (const auto& [pid, files] : processes_spool_) {
      const std::string stem = std::to_string(pid);
      if (files.cpu) MSPROF_TRY(copy_spool(*data, stem + layout::pid_cpu_usage + ".data.slice_0", files.cpu.get()));
      if (files.mem) MSPROF_TRY(copy_spool(*data, stem + layout::pid_memory + ".data.slice_0", files.mem.get()));
    }
    std::vector<std::pair<const char*, std::string>> keys;
    if (spool_[disk]) keys.emplace_back("host_disk_freq", frequency_text());
    const std::string ms = std::to_string(period_.count());
    if (spool_[sys_cpu]) keys.emplace_back("host_cpu_profiling_sampling_interval", ms);
    if (spool_[sys_mem]) keys.emplace_back("host_mem_profiling_sampling_interval", ms);
    if (!keys.empty()) return add_sample_keys(*host, keys);
    return {};
  }

 private:
  struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  using file_ptr = std::unique_ptr<std::FILE, file_closer>;
  enum part : int { cpu, mem, disk, network, sys_cpu, sys_mem, count };
  static constexpr const char* modules[count] = {layout::host_cpu,     layout::host_mem,     layout::host_disk,
                                                 layout::host_network, layout::host_sys_cpu, layout::host_sys_mem};
  /// A process's --host-sys-usage records: its spooled files and their next Index.
  struct process_spool {
    file_ptr cpu, mem;
    std::uint64_t cpu_index = 0, mem_index = 0;
  };

  /// A process's disk counters: /proc/<p>/io read_bytes, write_bytes (bytes that
  /// reached the block layer) and /proc/<p>/stat's delayacct_blkio_ticks.
  struct io_counters {
    std::uint64_t read = 0, write = 0, blkio_ticks = 0;
  };

  host_sampler(process_list processes, std::chrono::milliseconds period)
      : processes_(std::move(processes)), period_(period) {}

  /// The spooled `file` as `name` in `data`, with its .done file.
  static result<void> copy_spool(const outfile::dir& data, const std::string& name, std::FILE* file) {
    if (std::ferror(file)) return make_error(errc::io, "host sampling: its temporary file could not be written (disk full?)");
    auto out = outfile::atomic_file::create(data, name);
    if (!out) return out.err();
    char buf[1 << 16];
    off_t at = 0;
    for (ssize_t n; (n = ::pread(::fileno(file), buf, sizeof buf, at)) != 0; at += n) {
      if (n < 0) return make_error(errc::io, std::string("host sampling: reading its temporary file: ") + std::strerror(errno));
      if (auto w = out->write(std::string_view(buf, static_cast<std::size_t>(n))); !w) return w;
    }
    if (auto c = out->commit(false); !c) return c;
    return outfile::write_atomic(data, name + layout::done_suffix, "filesize:" + std::to_string(at) + "\n", false);
  }

  /// host/sample.json with `keys` set as numbers (made when missing): the
  /// reader needs host_disk_freq to place the host_disk lines; the cluster's
  /// host usage parser the --host-sys-usage intervals.
  result<void> add_sample_keys(const outfile::dir& host, const std::vector<std::pair<const char*, std::string>>& keys) const {
    json::value sample = json::value::make_object();
    auto text = host.read(layout::sample_json, 1u << 20);
    if (text) {
      auto parsed = json::parse(*text, host.path_of(layout::sample_json));
      if (!parsed) return parsed.err();
      if (parsed->is_object()) sample = std::move(*parsed);
    } else if (text.err().code != errc::not_found) {
      return make_error(errc::io, text.err().message + " (" + keys.front().first + " not added)");
    }
    for (const auto& [key, number] : keys) sample.set(key, json::value::make_number(number));
    return outfile::write_atomic(host, layout::sample_json, json::dump(sample), false);
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
    do {  // the first sample even when stop() came first: with the last one, an interval
      lock.unlock();
      sample(false);
      lock.lock();
      next += period_;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // a slow sample skips the missed periods, no burst (host_disk fills them in)
      wake_.wait_until(lock, next, [this] { return stopping_; });
    } while (!stopping_);
    lock.unlock();
    sample(true);  // at stop too: a collection shorter than the period still gets an interval
    // Everything on disk for write_into().
    for (const auto& f : spool_)
      if (f) std::fflush(f.get());
    for (const auto& [pid, files] : processes_spool_) {
      if (files.cpu) std::fflush(files.cpu.get());
      if (files.mem) std::fflush(files.mem.get());
    }
  }

  /// One sample: a file read that fails (a process or thread gone) leaves that
  /// part out; a CPU sample without its uptime or any thread is left out whole.
  void sample(bool last) {
    const auto now = std::chrono::steady_clock::now();
    if (!scanned_ || now - *scanned_ >= std::chrono::milliseconds(100)) {
      pids_ = processes_();
      if (spool_[sys_cpu] || spool_[sys_mem]) list_usage_processes();
      scanned_ = now;
    }
    const std::uint64_t ns = detail::mono_ns();  // the collection's host clock
    if (spool_[cpu]) sample_cpu(ns);
    if (spool_[mem]) sample_mem(ns);
    if (spool_[disk]) sample_disk(ns, last);
    if (spool_[network]) sample_network(ns);
    if (spool_[sys_cpu]) sample_sys_cpu(ns);
    if (spool_[sys_mem]) sample_sys_mem(ns);
  }

  /// A --host-sys-usage record: "TimeStamp:<ns>", "Index:<n>", "DataLen:<body bytes>",
  /// the body (lines ending in '\n'), then a blank line.
  static void write_record(std::FILE* f, std::uint64_t ns, std::uint64_t& index, const std::string& body) {
    const std::string head =
        "TimeStamp:" + std::to_string(ns) + "\nIndex:" + std::to_string(index++) + "\nDataLen:" + std::to_string(body.size()) + "\n";
    std::fwrite(head.data(), 1, head.size(), f);
    std::fwrite(body.data(), 1, body.size(), f);
    std::fputc('\n', f);
  }

  /// The spooled files of process `p` (made at its first sample); null past
  /// max_usage_processes, or past max_other_usage_processes for one not sampled.
  process_spool* process_files(pid_t p) {
    auto it = processes_spool_.find(p);
    if (it != processes_spool_.end()) return &it->second;
    const bool sampled = std::find(pids_.begin(), pids_.end(), p) != pids_.end();
    if (processes_spool_.size() >= (sampled ? max_usage_processes : max_other_usage_processes)) return nullptr;
    process_spool s;
    if (spool_[sys_cpu] && !(s.cpu = file_ptr(std::tmpfile()))) return nullptr;
    if (spool_[sys_mem] && !(s.mem = file_ptr(std::tmpfile()))) return nullptr;
    return &processes_spool_.emplace(p, std::move(s)).first->second;
  }

  /// "ProcessName:<comm>\n" of process `p` ("?" when it cannot be read).
  std::string process_name_line(pid_t p) {
    std::string comm;
    if (!detail::read_proc("/proc/" + std::to_string(p) + "/comm", comm)) comm = "?";
    return "ProcessName:" + comm + "\n";
  }

  /// --host-sys-usage's processes, as CANN's: every process of the machine,
  /// the sampled ones first.
  void list_usage_processes() {
    std::vector<pid_t> others;
    if (DIR* d = ::opendir("/proc")) {
      while (const dirent* e = ::readdir(d)) {
        char* end = nullptr;
        const long p = std::strtol(e->d_name, &end, 10);
        if (*end == '\0' && p > 0 && std::find(pids_.begin(), pids_.end(), p) == pids_.end())
          others.push_back(static_cast<pid_t>(p));
      }
      ::closedir(d);
    }
    std::sort(others.begin(), others.end());
    usage_pids_ = pids_;
    usage_pids_.insert(usage_pids_.end(), others.begin(), others.end());
  }

  /// host_sys_cpu: /proc/stat's cpu lines (the total "cpu", then "cpu<n>");
  /// <pid>-CpuUsage: the process's /proc/<p>/stat, its name and the total line.
  void sample_sys_cpu(std::uint64_t ns) {
    if (!detail::read_proc("/proc/stat", line_)) return;
    std::string cpus, total;
    for (std::size_t at = 0; at < line_.size();) {
      std::size_t end = line_.find('\n', at);
      if (end == std::string::npos) end = line_.size();
      const std::string_view l(line_.data() + at, end - at);
      at = end + 1;
      if (l.substr(0, 3) != "cpu") continue;
      if (total.empty()) total.assign(l).append("\n");
      cpus.append(l).append("\n");
    }
    if (cpus.empty()) return;
    write_record(spool_[sys_cpu].get(), ns, sys_cpu_index_, cpus);
    for (const pid_t p : usage_pids_) {
      std::string stat;
      if (!detail::read_proc("/proc/" + std::to_string(p) + "/stat", stat)) continue;  // the process ended
      blank_free_comm(stat);
      process_spool* f = process_files(p);
      if (!f || !f->cpu) continue;
      write_record(f->cpu.get(), ns, f->cpu_index, stat + "\n" + process_name_line(p) + total);
    }
  }

  /// host_sys_mem: /proc/meminfo; <pid>-Memory: the process's /proc/<p>/statm and its name.
  void sample_sys_mem(std::uint64_t ns) {
    if (detail::read_proc("/proc/meminfo", line_)) write_record(spool_[sys_mem].get(), ns, sys_mem_index_, line_ + "\n");
    for (const pid_t p : usage_pids_) {
      std::string statm;
      if (!detail::read_proc("/proc/" + std::to_string(p) + "/statm", statm)) continue;
      process_spool* f = process_files(p);
      if (!f || !f->mem) continue;
      write_record(f->mem.get(), ns, f->mem_index, statm + "\n" + process_name_line(p));
    }
  }

  void sample_cpu(std::uint64_t ns) {
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
    if (text.size() > head) std::fwrite(text.data(), 1, text.size(), spool_[cpu].get());
  }

  void sample_mem(std::uint64_t ns) {  // the processes' statm summed: size resident shared text lib data dt (pages)
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
      std::fwrite(text.data(), 1, text.size(), spool_[mem].get());
    }
  }

  /// The disk counters of process `p`; nullopt when it is gone. A kernel
  /// without I/O accounting (no /proc/<p>/io) gives 0 bytes.
  std::optional<io_counters> read_io(pid_t p) {
    const std::string dir = "/proc/" + std::to_string(p);
    if (!detail::read_proc(dir + "/stat", line_)) return std::nullopt;
    io_counters c;
    // Field 42 (from 1), delayacct_blkio_ticks: counted from the ")" that ends
    // the name (field 2). 0 unless the kernel accounts delays (delayacct).
    if (const auto close = line_.rfind(')'); close != std::string::npos) {
      const char* at = line_.c_str() + close + 1;
      for (int field = 3; *at != '\0'; ++field) {
        while (*at == ' ') ++at;
        if (field == 42) {
          c.blkio_ticks = std::strtoull(at, nullptr, 10);
          break;
        }
        while (*at != '\0' && *at != ' ') ++at;
      }
    }
    if (detail::read_proc(dir + "/io", line_)) {
      for (const auto& [key, out] : {std::pair<const char*, std::uint64_t*>{"\nread_bytes: ", &c.read},
                                     std::pair<const char*, std::uint64_t*>{"\nwrite_bytes: ", &c.write}}) {
        const auto at = line_.find(key);
        if (at != std::string::npos) *out = std::strtoull(line_.c_str() + at + std::strlen(key), nullptr, 10);
      }
    }
    return c;
  }

  /// host_disk: one line per period of iotop's batch form with a time
  /// (`iotop -b -o -t -k -p <pid>`), the processes summed:
  ///   HH:MM:SS <pid> be/4 <user> <read> K/s <write> K/s <swapin> % <io> % <command>
  /// The reader gives the n-th line the n-th period after start_time, so a
  /// late sample writes the lines of every period it covers (each with the
  /// rates over its whole time) and an early one none; the last (at stop)
  /// closes the partial period.
  void sample_disk(std::uint64_t ns, bool last) {
    std::map<pid_t, io_counters> now;
    for (const pid_t p : pids_)
      if (auto c = read_io(p)) now.emplace(p, *c);
    if (!pids_.empty() && pids_.front() != disk_pid_) {  // the line's process: the first one's pid, user and name
      disk_pid_ = pids_.front();
      const std::string dir = "/proc/" + std::to_string(disk_pid_);
      // Its owner's uid, as iotop shows a user without a name: a name lookup
      // (NSS: files, LDAP ...) has no place on a thread inside the profiled program.
      struct stat st {};
      disk_user_ = ::stat(dir.c_str(), &st) == 0 ? std::to_string(st.st_uid) : "?";
      disk_command_ = detail::read_proc(dir + "/comm", line_) ? line_ : "?";
      for (auto& ch : disk_command_)
        if (std::isspace(static_cast<unsigned char>(ch))) ch = '_';
    }
    if (!disk_started_) {  // the first sample: the baseline
      disk_started_ = true;
      disk_start_ns_ = disk_last_ns_ = ns;
      disk_last_ = std::move(now);
      const std::string text = "start_time " + std::to_string(ns) + "\n";
      std::fwrite(text.data(), 1, text.size(), spool_[disk].get());
      return;
    }
    const std::uint64_t p = static_cast<std::uint64_t>(std::chrono::nanoseconds(period_).count());
    const std::uint64_t since = ns - disk_start_ns_;
    const std::uint64_t due = last ? (since + p - 1) / p : (since + p / 2) / p;  // periods ended by now
    if (due <= disk_lines_ || ns <= disk_last_ns_) return;  // early: the counts go to the next line
    io_counters sum;
    for (const auto& [pid, c] : now) {
      // A process first seen since the last line started during the collection: all its I/O counts.
      const auto before = disk_last_.find(pid);
      const io_counters b = before == disk_last_.end() ? io_counters{} : before->second;
      sum.read += c.read >= b.read ? c.read - b.read : c.read;  // smaller: the pid was reused
      sum.write += c.write >= b.write ? c.write - b.write : c.write;
      sum.blkio_ticks += c.blkio_ticks >= b.blkio_ticks ? c.blkio_ticks - b.blkio_ticks : c.blkio_ticks;
    }
    const double seconds = static_cast<double>(ns - disk_last_ns_) / 1e9;
    const long tck = ::sysconf(_SC_CLK_TCK);
    double io = static_cast<double>(sum.blkio_ticks) * 100.0 / (seconds * static_cast<double>(tck > 0 ? tck : 100));
    if (io > 100) io = 100;  // several processes' delays add up; a share of the time stays a share
    disk_last_ = std::move(now);
    disk_last_ns_ = ns;
    const std::time_t wall = std::time(nullptr);
    std::tm tm{};
    localtime_r(&wall, &tm);
    // Swap-in (iotop's SWAPIN %, the time waiting for pages swapped in) is not
    // in /proc (only the taskstats netlink interface has it): always 0.00.
    char text[512];
    const int len = std::snprintf(text, sizeof text, "%02d:%02d:%02d %d be/4 %.64s %.2f K/s %.2f K/s 0.00 %% %.2f %% %.64s\n",
                                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(disk_pid_), disk_user_.c_str(),
                                  static_cast<double>(sum.read) / 1024.0 / seconds,
                                  static_cast<double>(sum.write) / 1024.0 / seconds, io, disk_command_.c_str());
    for (; disk_lines_ < due; ++disk_lines_)
      std::fwrite(text, 1, static_cast<std::size_t>(len), spool_[disk].get());
  }

  /// host_network: `time <ns>`, then the interface lines of /proc/net/dev
  /// (its two header lines left out) as `<name>: <16 counters>`, single
  /// blanks: the kernel glues a large first counter to the colon.
  void sample_network(std::uint64_t ns) {
    if (!detail::read_proc("/proc/net/dev", line_)) return;
    std::string text = "time " + std::to_string(ns) + "\n";
    std::size_t at = 0;
    for (int row = 0; at < line_.size(); ++row) {
      std::size_t end = line_.find('\n', at);
      if (end == std::string::npos) end = line_.size();
      const std::string_view l(line_.data() + at, end - at);
      at = end + 1;
      const auto colon = l.find(':');
      if (row < 2 || colon == std::string_view::npos) continue;
      const auto name_at = l.find_first_not_of(' ');
      if (name_at >= colon) continue;
      text.append(l.substr(name_at, colon - name_at)).append(":");
      for (std::size_t k = colon + 1; k < l.size();) {
        const auto b = l.find_first_not_of(" \t", k);
        if (b == std::string_view::npos) break;
        auto e = l.find_first_of(" \t", b);
        if (e == std::string_view::npos) e = l.size();
        text.append(" ").append(l.substr(b, e - b));
        k = e;
      }
      text += '\n';
    }
    std::fwrite(text.data(), 1, text.size(), spool_[network].get());
  }

  // Only the sampling thread touches these between start() and stop().
  process_list processes_;
  std::chrono::milliseconds period_;
  file_ptr spool_[count];  // the spooled lines of each part; null when not asked for
  std::string line_;  // reused buffer for one /proc read
  std::vector<pid_t> pids_;
  std::vector<pid_t> usage_pids_;  // --host-sys-usage's: pids_, then the machine's others
  std::optional<std::chrono::steady_clock::time_point> scanned_;
  // host_disk: the counters and time at the last line (or the start), the lines written.
  std::map<pid_t, io_counters> disk_last_;
  bool disk_started_ = false;
  std::uint64_t disk_start_ns_ = 0, disk_last_ns_ = 0, disk_lines_ = 0;
  pid_t disk_pid_ = 0;
  std::string disk_user_ = "?", disk_command_ = "?";
  // --host-sys-usage: the records' Index per file, each process's files.
  std::uint64_t sys_cpu_index_ = 0, sys_mem_index_ = 0;
  std::map<pid_t, process_spool> processes_spool_;
  std::mutex m_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_HOST_SAMPLER_HPP
