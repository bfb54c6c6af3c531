// SPDX-License-Identifier: MIT
// The ACL flow of an SS928-class SoC program, on the SIMULATED SoC
// (device/simulated_soc.hpp), profiled as acl.json's "profiler" section says
// (docs/soc.md):
//
//   msprof::soc::acl_init("acl.json");                     // svp_acl_init
//   auto id = msprof::soc::load_model_from_mem(p, n, "yolov3.om");  // svp_acl_mdl_load_from_mem
//   for (...) msprof::soc::execute(*id);                   // svp_acl_mdl_execute
//   msprof::soc::unload_model(*id);                        // svp_acl_mdl_unload
//   msprof::soc::acl_finalize();                           // svp_acl_finalize
//
// With "switch":"on", acl_init creates one JOB directory under "output" and
// every call after it is an ACL API record there; each execute's tasks and
// counters are on disk when it returns. Without acl_finalize the run does not
// end normally (the JOB stays "running", C11), but what was written is
// readable. One profiled run per process at a time (C4).
#ifndef MSPROF_SOC_ACL_HPP
#define MSPROF_SOC_ACL_HPP

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include "../codec/soc.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../device/simulated_soc.hpp"
#include "../prof/job_writer.hpp"
#include "../session/config_files.hpp"

MSPROF_BEGIN_NAMESPACE
namespace soc {

struct init_options {
  std::uint32_t device_id = 0;
  std::uint64_t seed = 1;       ///< the simulated device's seed
  bool realtime = true;         ///< execute takes its simulated time (device::simulated_soc_options)
  double frequency_mhz = 1000;  ///< AA Core frequency
  session::warn_fn warn;        ///< notes (fallback directory, umask, keys): default stderr "[msprof] ..."
};

namespace detail {

struct acl_state {
  std::mutex mu;
  bool initialised = false;
  std::optional<device::simulated_soc> dev;  ///< set when profiling is on
  std::map<std::uint32_t, std::uint64_t> models;  ///< id -> size in bytes
  std::uint32_t next_model = 0;
  std::string job;
};

// Never destroyed: a program that skips acl_finalize leaves its JOB "running"
// (as on the board), not finished by a static destructor.
inline acl_state& state() {
  static acl_state* s = new acl_state;
  return *s;
}

inline std::uint32_t thread_id() { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

inline bool is_directory(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline std::string exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<std::size_t>(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
}

inline void note(const init_options& o, const std::string& w) { session::detail::emit_warning(o.warn, w); }

// Records one API call when profiling is on; it ends now, or at `end` if later
// (an execute on a device in virtual time ends with its last task).
inline void record(acl_state& s, const char* name, codec::soc::api_type t, std::uint64_t start, std::uint64_t end = 0) {
  const std::uint64_t now = device::simulated_soc::now_ns();
  if (s.dev) (void)s.dev->record_acl(name, t, start, end > now ? end : now, thread_id());
}

}  // namespace detail

/// The "profiler" output directory as the document resolves it: absolute, or
/// relative to the cwd; empty or missing: the executable's directory (said
/// through `warn` when a configured one does not exist).
inline std::string resolve_output(const std::string& output, const init_options& o = {}) {
  if (output.empty()) return detail::exe_dir();
  if (detail::is_directory(output)) return output;
  const std::string fallback = detail::exe_dir();
  detail::note(o, "acl.json: profiler.output: " + output + " does not exist; the JOB directory goes to the executable's directory " +
                      fallback + " (create the output directory in advance)");
  return fallback;
}

/// svp_acl_init: reads `acl_json` (empty: no profiling) and, with "switch":"on",
/// starts profiling into a new JOB directory.
inline result<void> acl_init(const std::string& acl_json = "", const init_options& o = {}) {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (s.initialised) return make_error(errc::invalid_argument, "svp_acl_init: already initialised (call svp_acl_finalize first)");
  std::optional<session::soc_profiler_config> cfg;
  if (!acl_json.empty()) {
    auto c = session::load_soc_acl_json(acl_json, o.warn);
    if (!c) return c.err();
    cfg = *c;
  }
  if (cfg) {
    if (auto w = prof::umask_warning()) detail::note(o, *w);
    device::simulated_soc_options d;
    d.job.parent = resolve_output(cfg->output, o);
    d.job.device_id = o.device_id;
    d.job.frequency_mhz = o.frequency_mhz;
    d.job.aac_metrics = cfg->aac_metrics;
    d.job.interval = cfg->interval;
    d.job.acl_api = cfg->acl_api;
    d.job.aacpu = cfg->aacpu;
    d.seed = o.seed;
    d.realtime = o.realtime;
    auto dev = device::simulated_soc::create(d);
    if (!dev) return dev.err();
    s.dev = std::move(*dev);
    s.job = s.dev->job_path();
  }
  s.initialised = true;
  detail::record(s, "svp_acl_init", codec::soc::api_type::runtime, start);
  return {};
}

/// svp_acl_mdl_load_from_mem: `data` stands for the .om model (the simulated
/// device derives its layers from the bytes); `file_name` names the model in
/// the outputs. Returns the model id.
inline result<std::uint32_t> load_model_from_mem(const void* data, std::size_t size, const std::string& file_name = "model.om") {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (!s.initialised) return make_error(errc::invalid_argument, "svp_acl_mdl_load_from_mem: call svp_acl_init first");
  if (data == nullptr || size == 0) return make_error(errc::invalid_argument, "svp_acl_mdl_load_from_mem: empty model");
  std::uint32_t id = ++s.next_model;
  if (s.dev) {
    auto r = s.dev->load_model(data, size, file_name);
    if (!r) return r.err();
    id = *r;
    s.next_model = id;
  }
  s.models[id] = size;
  detail::record(s, "svp_acl_mdl_load_from_mem", codec::soc::api_type::model, start);
  return id;
}

/// Reads a model file and loads it (the model is named by the file's base name).
inline result<std::uint32_t> load_model_from_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(errc::not_found, path + ": cannot open the model file");
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string bytes = ss.str();
  const auto slash = path.rfind('/');
  return load_model_from_mem(bytes.data(), bytes.size(), slash == std::string::npos ? path : path.substr(slash + 1));
}

/// svp_acl_mdl_query_size: the working memory the model needs (simulated: a
/// multiple of its size).
inline result<std::uint64_t> query_size(std::uint32_t model_id) {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  auto it = s.models.find(model_id);
  if (it == s.models.end()) return make_error(errc::invalid_argument, "svp_acl_mdl_query_size: model " + std::to_string(model_id) + " is not loaded");
  detail::record(s, "svp_acl_mdl_query_size", codec::soc::api_type::model, start);
  return it->second * 4 + 1024 * 1024;
}

/// svp_acl_mdl_execute: one inference of `pictures` pictures.
inline result<void> execute(std::uint32_t model_id, std::uint64_t pictures = 1) {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::unique_lock<std::mutex> lk(s.mu);
  if (s.models.find(model_id) == s.models.end())
    return make_error(errc::invalid_argument, "svp_acl_mdl_execute: model " + std::to_string(model_id) + " is not loaded");
  std::uint64_t end = 0;
  if (s.dev) {
    auto e = s.dev->execute(model_id, start, pictures);
    if (!e) return e.err();
    end = *e + 20000;  // the result's return to the host
  }
  detail::record(s, "svp_acl_mdl_execute", codec::soc::api_type::model, start, end);
  return {};
}

/// svp_acl_mdl_unload.
inline result<void> unload_model(std::uint32_t model_id) {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (s.models.erase(model_id) == 0)
    return make_error(errc::invalid_argument, "svp_acl_mdl_unload: model " + std::to_string(model_id) + " is not loaded");
  detail::record(s, "svp_acl_mdl_unload", codec::soc::api_type::model, start);
  return {};
}

/// svp_acl_finalize: ends profiling normally (.done files, JOB "finished").
inline result<void> acl_finalize() {
  const std::uint64_t start = device::simulated_soc::now_ns();
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  if (!s.initialised) return make_error(errc::invalid_argument, "svp_acl_finalize: svp_acl_init was not called");
  detail::record(s, "svp_acl_finalize", codec::soc::api_type::runtime, start);
  result<void> r;
  if (s.dev) r = s.dev->close();
  s.dev.reset();
  s.models.clear();
  s.initialised = false;
  return r;
}

/// The JOB directory of the current (or last) profiled run; empty when none.
inline std::string job_dir() {
  auto& s = detail::state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.job;
}

}  // namespace soc
MSPROF_END_NAMESPACE

#endif  // MSPROF_SOC_ACL_HPP
