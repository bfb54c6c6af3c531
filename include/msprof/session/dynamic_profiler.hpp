// SPDX-License-Identifier: MIT
// Dynamic profiling, modelled on torch_npu.profiler.dynamic_profile: the
// training loop calls step(); a collection starts when someone edits
// <dir>/profiler_config.json while the program runs.
//
//   session::dynamic_profiler dp;
//   if (auto r = dp.init("./prof_cfg"); !r) puts(r.err().what().c_str());  // or dp.init_from_env()
//   for (;;) { train_one_step(); dp.step(); }
//
// init(dir) (or init_from_env(): the directory in PROF_CONFIG_PATH) writes the
// template (profiler_config_template()) when the file is missing and starts a
// thread that looks at the file every poll_interval (2 s). When its
// modification time, size or inode changes the file is parsed
// (parse_profiler_config, std-only); a valid file arms one collection, a bad
// one is logged and changes nothing. The file present at init() is the
// baseline: only later edits arm collections.
//
// start_step -1 or 0: the collection starts at the next step(); N >= 1: at
// the step() call that makes the step counter N (the counter is the number of
// step() calls; an N already passed is logged and dropped). It then runs
// warmup + active steps as a session::profiler with schedule{wait 0, active,
// warmup, repeat 1}: one PROF_ directory under prof_dir, handed to
// options.analyse when "analyse" is true (e.g. session::export_handler, which
// this std-only header does not include). A change loaded while a collection
// runs waits for the next step() after it ends.
//
// start(file) is torch_npu's dynamic_profile.start(config_path): one
// collection with that file's settings, beginning at once (no init() needed).
//
// Log: <dir>/log/dp_<host>_<pid>_rank_<RANK or -1>.log, torch_npu's line
// format, rotated to ".1" when it would pass 200 KB (one backup).
// One dynamic_profiler per process (the collector is process-wide).
#ifndef MSPROF_SESSION_DYNAMIC_PROFILER_HPP
#define MSPROF_SESSION_DYNAMIC_PROFILER_HPP

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/output_file.hpp"
#include "../prof/writer.hpp"
#include "config_files.hpp"
#include "output_path.hpp"
#include "schedule.hpp"
#include "session.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

struct dynamic_options {
  /// How often the config file is looked at (torch_npu: 2 s). Tests use a few ms.
  std::chrono::milliseconds poll_interval{2000};
  /// The log is rotated to ".1" before it would reach this size (torch_npu: 200 KB).
  std::uint64_t log_max_bytes = 200 * 1024;
  /// Exports a saved PROF_ directory when the config says "analyse": true;
  /// `async` is the config's async_mode. Unset: analyse is logged as not done.
  std::function<void(const std::string& prof_dir, bool async)> analyse;
  /// Also receives every log line (after it is written to the log file), on
  /// the poll thread or the thread calling step(); must not call back into
  /// the dynamic_profiler.
  std::function<void(const std::string& line)> on_log;
};

namespace detail {

// One log file rotated to "<path>.1" (Python's RotatingFileHandler with
// backupCount=1). Thread-safe.
class rotating_log {
 public:
  rotating_log() = default;
  rotating_log(const rotating_log&) = delete;
  rotating_log& operator=(const rotating_log&) = delete;
  ~rotating_log() { close(); }

  result<void> open(std::string path, std::uint64_t max_bytes) {
    std::lock_guard<std::mutex> lk(mu_);
    path_ = std::move(path);
    max_ = max_bytes;
    return reopen();
  }

  void close() {
    std::lock_guard<std::mutex> lk(mu_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  /// "2025-01-31 12:00:00,123 [INFO] [4242] dynamic_profiler.hpp: message"
  void write(std::string_view level, std::string_view message, const std::function<void(const std::string&)>& echo) {
    std::string line = timestamp() + " [" + std::string(level) + "] [" + std::to_string(::getpid()) +
                       "] dynamic_profiler.hpp: " + std::string(message) + "\n";
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (fd_ >= 0 && max_ > 0 && size_ > 0 && size_ + line.size() >= max_) {
        ::close(fd_);
        fd_ = -1;
        (void)::rename(path_.c_str(), (path_ + ".1").c_str());  // rename(2) replaces a link, never follows it
        (void)reopen();
      }
      if (fd_ >= 0 && prof::detail::write_all(fd_, line.data(), line.size(), path_)) size_ += line.size();
    }
    if (echo) {
      line.pop_back();
      echo(line);
    }
  }

  const std::string& path() const noexcept { return path_; }

 private:
  result<void> reopen() {
    const std::size_t slash = path_.rfind('/');
    auto d = outfile::dir::open(slash == std::string::npos ? "." : path_.substr(0, slash));
    if (!d) return d.err();
    auto fd = d->append(path_.substr(slash == std::string::npos ? 0 : slash + 1));
    if (!fd) return fd.err();
    fd_ = fd->release();
    struct stat st {};
    size_ = ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    return {};
  }

  static std::string timestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d,%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
  }

  std::mutex mu_;
  std::string path_;
  std::uint64_t max_ = 0;
  std::uint64_t size_ = 0;
  int fd_ = -1;
};

// What tells an edited file apart (nanosecond mtime, ctime, size, inode):
// torch_npu compares whole seconds, which misses two edits in one second.
struct file_signature {
  bool exists = false;
  long long mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0, size = 0;
  unsigned long long inode = 0;

  static file_signature of(const std::string& path) {
    file_signature s;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.mtime_s = static_cast<long long>(st.st_mtim.tv_sec);
    s.mtime_ns = static_cast<long long>(st.st_mtim.tv_nsec);
    s.ctime_s = static_cast<long long>(st.st_ctim.tv_sec);
    s.ctime_ns = static_cast<long long>(st.st_ctim.tv_nsec);
    s.size = static_cast<long long>(st.st_size);
    s.inode = static_cast<unsigned long long>(st.st_ino);
    return s;
  }
  bool operator==(const file_signature& o) const {
    return exists == o.exists && mtime_s == o.mtime_s && mtime_ns == o.mtime_ns && ctime_s == o.ctime_s &&
           ctime_ns == o.ctime_ns && size == o.size && inode == o.inode;
  }
  bool operator!=(const file_signature& o) const { return !(*this == o); }
};

// torch_npu's rank: the RANK environment variable, else -1.
inline std::int64_t rank_from_env() {
  const char* r = std::getenv("RANK");
  std::int64_t n = -1;
  if (r == nullptr || !json::value::make_number(r).to_int64(n)) return -1;
  return n;
}

inline std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  std::string h(buf);
  for (char& c : h)
    if (c == '/') c = '_';
  return h;
}

}  // namespace detail

class dynamic_profiler {
 public:
  dynamic_profiler() = default;
  dynamic_profiler(const dynamic_profiler&) = delete;
  dynamic_profiler& operator=(const dynamic_profiler&) = delete;
  ~dynamic_profiler() { shutdown(); }

  /// Starts watching <dir>/profiler_config.json (the directory is created,
  /// the template written when the file is missing).
  result<void> init(const std::string& dir, dynamic_options opt = {}) {
    std::lock_guard<std::mutex> lk(step_mu_);
    if (initialised_) return make_error(errc::invalid_argument, "dynamic_profiler: init() was already called");
    if (auto bad = check_output_path(dir); !bad.empty())
      return make_error(errc::invalid_argument, "dynamic_profiler: config directory: " + bad);
    if (opt.poll_interval.count() <= 0)
      return make_error(errc::invalid_argument, "dynamic_profiler: poll_interval must be at least 1 ms");
    opt_ = std::move(opt);
    dir_ = dir;
    config_path_ = dir + "/profiler_config.json";
    auto config_dir = outfile::dir::make(dir);
    if (!config_dir) return config_dir.err();
    if (auto log_dir = config_dir->mkdir("log"); !log_dir) return log_dir.err();
    rank_ = detail::rank_from_env();
    MSPROF_TRY(log_.open(dir + "/log/dp_" + detail::host_name() + "_" + std::to_string(::getpid()) + "_rank_" +
                             std::to_string(rank_) + ".log",
                         opt_.log_max_bytes));
    log("INFO", "Init dynamic profiler, config " + config_path_);
    for (const auto& note : config_dir->remove_stale_temps()) log("WARNING", note);  // a killed run's profiler_config.json write
    if (!detail::file_signature::of(config_path_).exists) {
      if (auto r = prof::detail::write_file(config_path_, profiler_config_template()); !r) {
        log("ERROR", r.err().what());
        return r;
      }
      log("INFO", "Create profiler_config.json default.");
    }
    last_ = detail::file_signature::of(config_path_);
    initialised_ = true;
    stop_ = false;
    poller_ = std::thread([this] { poll_loop(); });
    return {};
  }

  /// init() with the directory named by PROF_CONFIG_PATH.
  result<void> init_from_env(dynamic_options opt = {}) {
    const char* dir = std::getenv("PROF_CONFIG_PATH");
    if (dir == nullptr || *dir == '\0')
      return make_error(errc::not_found, "dynamic_profiler: PROF_CONFIG_PATH is not set (expected a directory)");
    return init(dir, std::move(opt));
  }

  /// torch_npu's dynamic_profile.start(config_path): one collection with the
  /// profiler_config.json at `config_file`, starting now (its start_step is
  /// not used) and running warmup + active step() calls. Works with or
  /// without init(); an error names the file and the key, or says that a
  /// collection is already running.
  result<void> start(const std::string& config_file) {
    std::lock_guard<std::mutex> lk(step_mu_);
    if (prof_) return make_error(errc::invalid_argument, "dynamic_profiler: start(" + config_file + "): a collection is already running");
    auto text = detail::read_text_file(config_file);
    if (!text) return text.err();
    auto cfg = parse_profiler_config(*text, config_file, [this](const std::string& w) { log("WARNING", w); });
    if (!cfg) return cfg.err();
    log("INFO", "Dynamic profiler start() with " + config_file);
    return begin(std::move(*cfg), step_.load(), config_file);
  }

  /// Ends one training step (torch_npu's dynamic_profile.step()). Never throws;
  /// problems are logged.
  void step() {
    std::lock_guard<std::mutex> lk(step_mu_);
    if (!initialised_ && !prof_) return;
    const std::uint64_t now = ++step_;
    std::optional<dynamic_config> cfg;
    {
      std::lock_guard<std::mutex> sl(state_mu_);
      if (!prof_ && pending_) {
        const std::int64_t s = pending_->start_step;
        if (s > 0 && static_cast<std::uint64_t>(s) < now) {
          log("WARNING", "Start step " + std::to_string(s) + " has already passed (now step " + std::to_string(now) +
                             "), the config is dropped.");
          pending_.reset();
        } else if (s <= 0 || static_cast<std::uint64_t>(s) == now) {
          cfg = std::move(pending_);
          pending_.reset();
        }
      }
    }
    if (prof_) {
      if (auto r = prof_->step(); !r) log("ERROR", r.err().what());
      if (--remaining_ == 0) finish("Stop Dynamic Profiler at " + std::to_string(now) + " step.");
    } else if (cfg) {
      (void)begin(std::move(*cfg), now, config_path_);
    }
  }

  /// Stops the poll thread and a running collection (saved as it is). Also
  /// done by the destructor.
  void shutdown() {
    {
      std::lock_guard<std::mutex> lk(state_mu_);
      stop_ = true;
    }
    wake_.notify_all();
    if (poller_.joinable()) poller_.join();
    std::lock_guard<std::mutex> lk(step_mu_);
    if (prof_) finish("Profiler stop when process exit, check cfg json active whether over all step!", "WARNING");
    if (initialised_) log("INFO", "Dynamic profiler shut down.");
    initialised_ = false;
    log_.close();
  }

  /// Number of step() calls so far.
  std::uint64_t step_num() const noexcept { return step_.load(); }
  /// True while a collection runs (between its first and last step()).
  bool collecting() const noexcept { return collecting_.load(); }
  /// Every PROF_ directory saved so far, oldest first.
  std::vector<std::string> saved_dirs() const {
    std::lock_guard<std::mutex> lk(state_mu_);
    return saved_;
  }
  /// The running collection's profiler (its device(), add_metadata, ...), or
  /// nullptr. Only for the thread that calls step(); valid until the next step().
  profiler* active_profiler() noexcept { return prof_.get(); }

  const std::string& config_path() const noexcept { return config_path_; }
  const std::string& log_path() const noexcept { return log_.path(); }

 private:
  void log(std::string_view level, const std::string& message) { log_.write(level, message, opt_.on_log); }

  void poll_loop() {
    std::unique_lock<std::mutex> lk(state_mu_);
    while (!stop_) {
      wake_.wait_for(lk, opt_.poll_interval, [this] { return stop_; });
      if (stop_) break;
      lk.unlock();
      poll_once();
      lk.lock();
    }
  }

  // Runs on the poll thread; the only writer of last_ and missing_.
  void poll_once() {
    const detail::file_signature sig = detail::file_signature::of(config_path_);
    if (!sig.exists) {
      if (!missing_) log("ERROR", "Dynamic profiler cfg json not exists: " + config_path_);
      missing_ = true;
      last_ = sig;
      return;
    }
    missing_ = false;
    if (sig == last_) return;
    last_ = sig;
    auto text = detail::read_text_file(config_path_);
    if (!text) {
      log("ERROR", "Dynamic profiler load json failed: " + text.err().what());
      return;
    }
    auto cfg = parse_profiler_config(*text, config_path_, [this](const std::string& w) { log("WARNING", w); });
    if (!cfg) {
      log("ERROR", "Dynamic profiler load json failed, the profiler keeps running: " + cfg.err().what());
      return;
    }
    if (cfg->is_rank) {
      const auto& ranks = cfg->rank_list;
      if (std::find(ranks.begin(), ranks.end(), rank_) == ranks.end()) {
        log("WARNING", "Rank " + std::to_string(rank_) + " not in valid rank_list, no collection.");
        return;
      }
      if (!cfg->async_mode && cfg->analyse) {
        cfg->analyse = false;
        log("INFO", "Rank " + std::to_string(rank_) +
                        " is in rank_list and async_mode is false, profiler data analyse will be closed!");
      }
    }
    const std::string loaded = "Dynamic profiler load json success: start_step " + std::to_string(cfg->start_step) +
                               ", active " + std::to_string(cfg->active) + ", warmup " + std::to_string(cfg->warmup) +
                               ", prof_dir " + cfg->session.output;
    {
      std::lock_guard<std::mutex> sl(state_mu_);
      pending_ = std::move(*cfg);  // before the log line: a step() after it sees the config
    }
    log("INFO", loaded);
  }

  // On the step() thread, step_mu_ held. Errors are logged and returned.
  result<void> begin(dynamic_config cfg, std::uint64_t now, const std::string& config_file) {
    const bool analyse = cfg.analyse, async = cfg.async_mode;
    auto on_ready = [this, analyse, async](const std::string& dir) {
      {
        std::lock_guard<std::mutex> sl(state_mu_);
        saved_.push_back(dir);
      }
      log("INFO", "Dynamic profiler saved " + dir);
      if (!analyse) return;
      if (!opt_.analyse) {
        log("WARNING", "analyse is true but init() was given no analyse handler: " + dir + " is not exported.");
        return;
      }
      try {
        opt_.analyse(dir, async);
        log("INFO", std::string(async ? "Started the export of " : "Exported ") + dir);
      } catch (const std::exception& e) {
        log("ERROR", "Export of " + dir + " failed: " + e.what());
      }
    };
    schedule sched;
    sched.wait = 0;
    sched.active = cfg.active;
    sched.warmup = cfg.warmup;
    sched.repeat = 1;
    auto p = std::make_unique<profiler>(cfg.session, sched, on_ready);
    p->on_warning([this](const std::string& w) { log("WARNING", w); });
    for (const auto& [key, text] : cfg.metadata)
      if (auto r = p->add_metadata_json(key, text); !r) log("WARNING", r.err().what());
    (void)p->add_metadata_json("dynamic_profile", "{\"config\":" + json_quoted(config_file) +
                                                      ",\"start_step\":" + std::to_string(now) + "}");
    if (auto r = p->start(); !r) {
      log("ERROR", "Dynamic profiler could not start: " + r.err().what());
      return r;
    }
    prof_ = std::move(p);
    remaining_ = cfg.active + cfg.warmup;
    collecting_ = true;
    log("INFO", "Start Dynamic Profiler at " + std::to_string(now) + " step.");
    return {};
  }

  void finish(const std::string& message, std::string_view level = "INFO") {
    if (auto r = prof_->stop(); !r) log("ERROR", r.err().what());
    prof_.reset();
    collecting_ = false;
    log(level, message);
  }

  static std::string json_quoted(std::string_view s) {
    std::string out;
    json::append_quoted(out, s);
    return out;
  }

  dynamic_options opt_;
  std::string dir_, config_path_;
  std::int64_t rank_ = -1;
  detail::rotating_log log_;

  std::mutex step_mu_;  // step() and shutdown(); guards prof_, remaining_
  std::unique_ptr<profiler> prof_;
  std::uint64_t remaining_ = 0;
  bool initialised_ = false;
  std::atomic<std::uint64_t> step_{0};
  std::atomic<bool> collecting_{false};

  mutable std::mutex state_mu_;  // guards pending_, saved_, stop_
  std::condition_variable wake_;
  bool stop_ = false;
  std::optional<dynamic_config> pending_;
  std::vector<std::string> saved_;
  std::thread poller_;

  detail::file_signature last_;  // poll thread only (set before it starts)
  bool missing_ = false;
};

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_DYNAMIC_PROFILER_HPP
