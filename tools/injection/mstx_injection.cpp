// SPDX-License-Identifier: MIT
// libmsprof_mstx.so: msprof's collector as an mstx injection library. Programs
// built with CANN's header (or ours) load it through MSTX_INJECTION_PATH and
// call InitInjectionMstx(getModuleFuncTable). Configuration comes from the
// launcher's environment (BRIEF interface 5): MSPROF_OUTPUT,
// MSPROF_MSTX_DOMAIN_INCLUDE / _EXCLUDE (comma lists), MSPROF_AIC_METRICS,
// MSPROF_STORAGE_LIMIT (<n>MB), MSPROF_BUFFER_SIZE / _LIMIT / _FULL
// (session/buffer_options.hpp), MSPROF_STAGING (on, the default: compact
// staging of mstx events while collecting, prof/staging.hpp; off: msproftx
// records as the run goes), MSPROF_STAGING_CONVERT (exit, the default: the
// staging becomes msproftx slices when a collection ends; launcher: it is only
// closed, and the launcher converts it after the program's exit, so the exit
// does not wait), MSPROF_CANN_OPTIONS (recorded only),
// MSPROF_LAYOUT (cann, the default; ascend_pt or ascend_ms: torch_npu's
// directory around the PROF_ one, with FRAMEWORK/ files of the program's
// msprof::record_function ops, queue marks and memory events), MSPROF_DELAY /
// MSPROF_DURATION (seconds: the collection window, from MSPROF_LAUNCH_NS, the
// launcher's start on the steady clock, or else from this library's start;
// calls outside it are not recorded or counted, as with a filtered domain),
// MSPROF_DYNAMIC_CONTROL (`msprof --dynamic=on`: the launcher's control file,
// dynamic_control.hpp; each start..stop is its own PROF_ directory, and calls
// between windows are not recorded or counted either), PROFILING_MODE=dynamic
// (CANN's attach mode: without the launcher, this process makes its control file
// $HOME/msprof_dynamic_<pid> for `msprof --dynamic=on --pid`, which says where
// to collect; MSPROF_OUTPUT is not needed).
// Collection stops and is flushed at exit; the loss counters are in info.json from the
// first drain pass on (a killed run keeps them). A fork()ed child is not
// recorded (collector.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <msprof/session/buffer_options.hpp>
#include <msprof/session/framework_dir.hpp>
#include <msprof/session/output_path.hpp>
#include <msprof/session/prof_record_sink.hpp>

#include "dynamic_control.hpp"

namespace {

namespace session = msprof::session;
namespace collect = msprof::collect;

std::vector<std::string> split_list(const char* v, char sep = ',') {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  std::string cur;
  for (const char* p = v;; ++p) {
    if (*p == sep || *p == '\0') {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      std::size_t b = cur.find_first_not_of(' ');
      if (b != std::string::npos) out.push_back(cur.substr(b));
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return out;
}

// "<n>MB" (or plain <n>, in MB) -> bytes; 0 = unlimited; false on a bad value.
bool parse_storage_limit(const char* v, std::uint64_t& bytes) {
  bytes = 0;
  if (v == nullptr || *v == '\0') return true;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v) return false;
  std::string unit(end);
  if (!unit.empty() && unit != "MB" && unit != "mb") return false;
  bytes = static_cast<std::uint64_t>(n) << 20;
  return true;
}

void log(const std::string& msg) { std::fprintf(stderr, "[msprof mstx] %s\n", msg.c_str()); }

using steady = std::chrono::steady_clock;

// Whole seconds 0..4294967295 (CANN's --delay / --duration range; 0 = not set).
bool parse_seconds(const char* v, std::uint64_t& s) {
  s = 0;
  if (v == nullptr || *v == '\0') return true;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*v == '-' || *end != '\0' || n > 4294967295ull) return false;
  s = n;
  return true;
}

// The collection window of MSPROF_DELAY / MSPROF_DURATION; nullopt: the whole run.
struct window {
  steady::time_point start, end;  // end == time_point::max(): until exit
};
std::optional<window> collection_window(std::string& bad) {
  std::uint64_t delay = 0, duration = 0;
  if (!parse_seconds(std::getenv("MSPROF_DELAY"), delay)) bad = "MSPROF_DELAY must be whole seconds (0..4294967295)";
  if (!parse_seconds(std::getenv("MSPROF_DURATION"), duration))
    bad = "MSPROF_DURATION must be whole seconds (0..4294967295)";
  if (!bad.empty() || (delay == 0 && duration == 0)) return std::nullopt;
  steady::time_point from = steady::now();
  if (const char* launch = std::getenv("MSPROF_LAUNCH_NS"); launch != nullptr && *launch != '\0')
    from = steady::time_point(std::chrono::nanoseconds(std::strtoll(launch, nullptr, 10)));
  window w{from + std::chrono::seconds(delay), steady::time_point::max()};
  if (duration != 0) w.end = w.start + std::chrono::seconds(duration);
  return w;
}

// MSPROF_CANN_OPTIONS (name=value;...): the CANN collection options the launcher
// accepted without collecting their data, recorded in host/sample.json so that
// the collection says what was asked for. A malformed entry is left out.
void record_cann_options(std::map<std::string, std::string>& sample) {
  for (const auto& item : split_list(std::getenv("MSPROF_CANN_OPTIONS"), ';')) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq == std::string::npos || name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
      log("MSPROF_CANN_OPTIONS: '" + item + "' is not <option>=<value>; not recorded");
      continue;
    }
    sample[name] = item.substr(eq + 1);
  }
}

// One PROF_ directory of this process (one per --dynamic window) and its sinks.
struct collection {
  std::unique_ptr<session::framework_dir> fw;  // MSPROF_LAYOUT ascend_pt / ascend_ms: holds dir
  msprof::prof::prof_dir dir;
  std::shared_ptr<session::prof_record_sink> sink;
  std::shared_ptr<session::framework_sink> fw_sink;  // forwards to sink
};

class control_thread;

// This process's collection settings and output; lives until exit.
struct output {
  session::session_config cfg;  // what profiler_info says
  bool convert_staging = true;  // MSPROF_STAGING_CONVERT=exit
  msprof::prof::prof_dir_options po;
  collect::clock_calibration cal;
  collect::options o;  // without a sink: each collection gives its own
  std::unique_ptr<collection> cur;  // the open (or, before --delay ends, the waiting) collection
  // Closed collections. Kept until exit: a thread may still hold a slot of their
  // call counters (a mapping of host/msprof_calls) while it sees collection stop.
  std::vector<std::unique_ptr<collection>> closed;
  std::unique_ptr<control_thread> control;  // MSPROF_DELAY / _DURATION or MSPROF_DYNAMIC_CONTROL
  void* attach = nullptr;   // PROFILING_MODE=dynamic: this process's control file (writable), mapped
  std::string attach_path;  // and its path, removed at exit
};

std::unique_ptr<output>& current() {
  static auto* p = new std::unique_ptr<output>();  // outlives static destructors
  return *p;
}

// A new PROF_ directory (inside torch_npu's directory with MSPROF_LAYOUT) and its sinks.
msprof::result<std::unique_ptr<collection>> make_collection(const output& out, const std::string& parent) {
  auto c = std::make_unique<collection>();
  msprof::prof::prof_dir_options po = out.po;
  po.parent = parent;
  if (out.cfg.layout != session::output_layout::cann) {
    auto made = session::framework_dir::create(po.parent, out.cfg.layout, "", static_cast<std::uint32_t>(::getpid()),
                                               msprof::prof::detail::wall_us());
    if (!made) return made.err();
    c->fw = std::make_unique<session::framework_dir>(std::move(*made));
    po.parent = c->fw->root();
  }
  auto created = msprof::prof::prof_dir::create(po);
  if (!created) return created.err();
  c->dir = std::move(*created);
  c->sink = std::make_shared<session::prof_record_sink>(c->dir, session::collector_clock(out.cal), out.cfg.staging,
                                                      out.convert_staging);
  if (!c->sink->staging_error().empty()) log(c->sink->staging_error() + "; events written directly as msproftx records");
  if (c->fw)
    c->fw_sink = std::make_shared<session::framework_sink>(
        c->sink, *c->fw, session::collector_clock(out.cal),
        session::framework_filter{out.cfg.record_shapes, out.cfg.with_stack, out.cfg.profile_memory});
  return c;
}

// Starts the collector into out.cur; false (said) on failure.
bool start_collecting(output& out, const std::string& what) {
  collect::options o = out.o;
  o.sink = out.cur->fw_sink ? std::shared_ptr<collect::record_sink>(out.cur->fw_sink) : out.cur->sink;
  if (auto r = collect::start(o); !r) {
    log(r.err().message + "; nothing collected in " + what);
    return false;
  }
  return true;
}

// Stops the collector and closes out.cur: loss counters, profiler_info, .done files.
void close_collection(output& out) {
  if (!out.cur) return;
  collect::stop();
  const collect::loss_counters l = collect::losses();
  collection& c = *out.cur;
  if (c.fw) {
    if (auto r = c.fw->write_profiler_info(out.cfg, std::nullopt, c.dir, session::rank_from_env()); !r)
      log(r.err().message);
    if (auto r = session::write_profiler_metadata(c.fw->root(), {}); !r) log(r.err().message);
    if (c.fw->lost() != 0)
      log(std::to_string(c.fw->lost()) + " framework record(s) are not in FRAMEWORK/: " + c.fw->stop_reason());
  }
  if (auto r = c.fw_sink ? c.fw_sink->finish(l) : c.sink->finish(l); !r) log(r.err().message);
  const std::uint64_t storage = c.dir.stats().lost_events;
  if (l.dropped + storage + l.unfinished + l.unknown_end != 0)
    log("losses: dropped " + std::to_string(l.dropped) + ", storage limit " + std::to_string(storage) +
        ", unfinished ranges " + std::to_string(l.unfinished) + ", unmatched ends " + std::to_string(l.unknown_end));
  out.closed.push_back(std::move(out.cur));
}

// A --dynamic window: a new PROF_ directory, collected into until the next change.
void open_window(output& out) {
  std::string parent = out.po.parent;
  if (out.attach != nullptr) {  // attach mode: where the attached msprof collects
    const char* p = static_cast<const char*>(out.attach) + msprof_dynamic::output_offset;
    parent.assign(p, ::strnlen(p, msprof_dynamic::output_max));
    if (auto bad = session::check_output_path(parent); !bad.empty()) {
      log(bad + "; nothing collected in this --dynamic window");
      return;
    }
  }
  auto made = make_collection(out, parent);
  if (!made) {
    log(made.err().message + "; nothing collected in this --dynamic window");
    return;
  }
  out.cur = std::move(*made);
  if (!start_collecting(out, "this --dynamic window")) close_collection(out);
}

// The thread that switches collection: at the --delay/--duration window's
// edges, or as the launcher's --dynamic control file says (polled every 5 ms).
// cancel() (at exit) wakes and joins it; the caller then closes what is open.
class control_thread {
 public:
  control_thread(output& out, window w) : thread_([this, &out, w] { run_window(out, w); }) {}
  control_thread(output& out, const std::atomic<std::uint64_t>* gen, std::uint64_t seen)
      : thread_([this, &out, gen, seen] { run_dynamic(out, gen, seen); }) {}
  control_thread(const control_thread&) = delete;
  control_thread& operator=(const control_thread&) = delete;
  ~control_thread() { cancel(); }
  void cancel() {
    {
      std::lock_guard<std::mutex> lk(m_);
      quit_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run_window(output& out, window w) {
    std::unique_lock<std::mutex> lk(m_);
    if (cv_.wait_until(lk, w.start, [this] { return quit_; })) return;
    if (!start_collecting(out, "the --delay/--duration window")) return;
    if (w.end == steady::time_point::max()) return;
    if (cv_.wait_until(lk, w.end, [this] { return quit_; })) return;
    close_collection(out);
  }
  void run_dynamic(output& out, const std::atomic<std::uint64_t>* gen, std::uint64_t seen) {
    std::unique_lock<std::mutex> lk(m_);
    while (!cv_.wait_for(lk, std::chrono::milliseconds(5), [this] { return quit_; })) {
      const std::uint64_t g = gen->load(std::memory_order_acquire);
      if (g == seen) continue;
      seen = g;
      close_collection(out);
      if (g % 2 == 1) open_window(out);
      if (out.attach != nullptr) msprof_dynamic::acted(out.attach)->store(g, std::memory_order_release);
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  bool quit_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

void stop_at_exit() {
  auto& out = current();
  if (!out) return;
  // A fork()ed child exiting: the collector and the PROF_ directory are the
  // parent's (its first mstx call said it is not recorded); leave them alone.
  if (collect::default_collector::forked_child()) return;
  if (out->control) out->control->cancel();
  close_collection(*out);
  if (out->attach != nullptr) {
    ::unlink(out->attach_path.c_str());
    // Tell an attached msprof that nothing is open any more.
    msprof_dynamic::acted(out->attach)->store(msprof_dynamic::generation(out->attach)->load(), std::memory_order_release);
  }
  out.reset();
}

// MSPROF_DYNAMIC_CONTROL: the launcher's control file, mapped read-only for the
// life of the process; nullptr (said) when it cannot be used.
const std::atomic<std::uint64_t>* map_control(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    log(std::string(msprof_dynamic::env_var) + " " + path + ": cannot open: " + std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  void* p = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= static_cast<off_t>(msprof_dynamic::file_bytes)
                ? msprof_dynamic::map(fd, false)
                : nullptr;
  ::close(fd);
  if (p == nullptr || !msprof_dynamic::valid(p)) {
    if (p != nullptr) ::munmap(p, msprof_dynamic::file_bytes);
    log(std::string(msprof_dynamic::env_var) + " " + path + ": not msprof's control file");
    return nullptr;
  }
  return msprof_dynamic::generation(p);
}

// PROFILING_MODE=dynamic without the launcher: $HOME/msprof_dynamic_<pid>, for
// `msprof --dynamic=on --pid=<pid>` to find; nullptr (said) when it cannot be made.
void* make_attach_control(std::string& path) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    log("PROFILING_MODE=dynamic: HOME is not set, so msprof --dynamic=on --pid cannot find this process");
    return nullptr;
  }
  auto d = msprof::outfile::dir::open(home, true);  // the user's own directory: links allowed
  if (!d) {
    log(d.err().message);
    return nullptr;
  }
  const std::string name = msprof_dynamic::attach_name(static_cast<long>(::getpid()));
  path = d->path() + "/" + name;
  ::unlinkat(d->fd(), name.c_str(), 0);  // a file left by a killed process of the same pid
  auto fd = d->create(name, O_RDWR);
  if (!fd) {
    log(fd.err().message);
    return nullptr;
  }
  void* p = nullptr;
  if (::ftruncate(fd->get(), static_cast<off_t>(msprof_dynamic::file_bytes)) != 0 ||
      (p = msprof_dynamic::map(fd->get(), true)) == nullptr) {
    log(path + ": cannot make the dynamic-profiling control file: " + std::strerror(errno));
    ::unlink(path.c_str());
    return nullptr;
  }
  std::memcpy(p, msprof_dynamic::magic, sizeof msprof_dynamic::magic);
  return p;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitInjectionMstx(mstxGetModuleFuncTableFunc get) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  if (current()) return collect::default_collector::api::init(get);  // a second module of the same process
  std::string bad_window;
  const std::optional<window> within = collection_window(bad_window);
  if (!bad_window.empty()) {
    log(bad_window + "; collection disabled");
    return MSTX_FAIL;
  }
  // --dynamic: the launcher's control file, or (PROFILING_MODE=dynamic, CANN's
  // attach mode) one this process makes for `msprof --dynamic=on --pid`.
  const char* ctl = std::getenv(msprof_dynamic::env_var);
  const char* mode = std::getenv("PROFILING_MODE");
  const bool launched = ctl != nullptr && *ctl != '\0';
  const bool attachable = !launched && mode != nullptr && std::string(mode) == "dynamic";
  if ((launched || attachable) && within) {
    log(std::string(launched ? "MSPROF_DYNAMIC_CONTROL" : "PROFILING_MODE=dynamic") +
        " cannot be used with MSPROF_DELAY / MSPROF_DURATION; collection disabled");
    return MSTX_FAIL;
  }
  const std::atomic<std::uint64_t>* dynamic = nullptr;
  if (launched && (dynamic = map_control(ctl)) == nullptr) {
    log("collection disabled");
    return MSTX_FAIL;
  }
  std::uint64_t limit = 0;
  if (!parse_storage_limit(std::getenv("MSPROF_STORAGE_LIMIT"), limit)) {
    log("MSPROF_STORAGE_LIMIT must look like <n>MB; collection disabled");
    return MSTX_FAIL;
  }
  session::buffer_options buffers;
  for (const auto& [which, var] : {std::pair<const char*, const char*>{"size", "MSPROF_BUFFER_SIZE"},
                                   {"limit", "MSPROF_BUFFER_LIMIT"},
                                   {"full", "MSPROF_BUFFER_FULL"}}) {
    const char* v = std::getenv(var);
    std::string bad = session::parse_buffer_setting(buffers, which, v != nullptr ? v : "", var);
    if (bad.empty()) bad = session::check_buffer_options(buffers);
    if (!bad.empty()) {
      log(bad + "; collection disabled");
      return MSTX_FAIL;
    }
  }
  const char* dir = std::getenv("MSPROF_OUTPUT");
  if (attachable) dir = "";  // the attached msprof says where
  if (!attachable && (dir == nullptr || *dir == '\0')) {
    log("MSPROF_OUTPUT is not set; collection disabled");
    return MSTX_FAIL;
  }
  if (auto bad = attachable ? std::string() : msprof::session::check_output_path(dir); !bad.empty()) {
    log(bad + "; collection disabled");
    return MSTX_FAIL;
  }
  auto out = std::make_unique<output>();
  session::session_config& cfg = out->cfg;
  cfg.npu = false;  // no device in a launched program's collection
  if (const char* layout = std::getenv("MSPROF_LAYOUT"); layout != nullptr && *layout != '\0') {
    const auto l = session::parse_output_layout(layout);
    if (!l) {
      log(std::string("MSPROF_LAYOUT '") + layout + "' is not cann, ascend_pt or ascend_ms; collection disabled");
      return MSTX_FAIL;
    }
    cfg.layout = *l;
  }
  // The program chose what it records; the launcher's --record-shapes, --with-stack, --profile-memory=off drop it.
  for (const auto& [env, on] : {std::pair{"MSPROF_RECORD_SHAPES", &cfg.record_shapes},
                                std::pair{"MSPROF_WITH_STACK", &cfg.with_stack},
                                std::pair{"MSPROF_PROFILE_MEMORY", &cfg.profile_memory}}) {
    const char* s = std::getenv(env);
    const std::string v = s == nullptr ? "on" : s;
    if (v != "on" && v != "off") {
      log(std::string(env) + " must be on or off; collection disabled");
      return MSTX_FAIL;
    }
    *on = v == "on";
  }
  if (const char* s = std::getenv("MSPROF_STAGING"); s != nullptr && *s != '\0') {
    const std::string v = s;
    if (v != "on" && v != "off") {
      log("MSPROF_STAGING must be on or off; collection disabled");
      return MSTX_FAIL;
    }
    cfg.staging = v == "on";
  }
  if (const char* s = std::getenv("MSPROF_STAGING_CONVERT"); s != nullptr && *s != '\0') {
    const std::string v = s;
    if (v != "exit" && v != "launcher") {
      log("MSPROF_STAGING_CONVERT must be exit or launcher; collection disabled");
      return MSTX_FAIL;
    }
    out->convert_staging = v == "exit";
  }
  cfg.mstx_domain_include = split_list(std::getenv("MSPROF_MSTX_DOMAIN_INCLUDE"));
  cfg.mstx_domain_exclude = split_list(std::getenv("MSPROF_MSTX_DOMAIN_EXCLUDE"));
  out->cal = collect::calibrate(true);
  out->po = session::prof_dir_options_for(out->cal);
  out->po.parent = dir;
  out->po.storage_limit_bytes = limit;
  if (const char* metrics = std::getenv("MSPROF_AIC_METRICS")) out->po.host_sample["ai_core_metrics"] = metrics;
  record_cann_options(out->po.host_sample);
  collect::options& o = out->o;
  o.domain_include = cfg.mstx_domain_include;
  o.domain_exclude = cfg.mstx_domain_exclude;
  session::apply(buffers, o);
  o.calibration = out->cal;
  o.warn = [](const std::string& w) { log(w); };
  o.attach_in_process = false;  // the table to fill is the caller's
  if (attachable) {
    out->attach = make_attach_control(out->attach_path);
    if (out->attach == nullptr) {
      log("collection disabled");
      return MSTX_FAIL;
    }
    dynamic = msprof_dynamic::generation(out->attach);
  } else if (dynamic == nullptr) {  // the whole run, or the --delay/--duration window: one PROF_ directory, made now
    auto made = make_collection(*out, out->po.parent);
    if (!made) {
      log(made.err().message + "; collection disabled");
      return MSTX_FAIL;
    }
    out->cur = std::move(*made);
  }
  if (collect::default_collector::api::init(get) != MSTX_SUCCESS) {
    log("getModuleFuncTable refused the core module; collection disabled");
    if (out->attach != nullptr) ::unlink(out->attach_path.c_str());
    return MSTX_FAIL;
  }
  // Until a window opens (and after it closes) calls cost one load and one branch.
  if (dynamic != nullptr) {
    // A process started while the launcher collects joins the open window now.
    const std::uint64_t g = dynamic->load(std::memory_order_acquire);
    if (g % 2 == 1) open_window(*out);
    out->control = std::make_unique<control_thread>(*out, dynamic, g);
  } else if (within) {
    out->control = std::make_unique<control_thread>(*out, *within);
  } else if (!start_collecting(*out, "this run")) {
    return MSTX_FAIL;
  }
  current() = std::move(out);
  std::atexit(stop_at_exit);
  return MSTX_SUCCESS;
}
