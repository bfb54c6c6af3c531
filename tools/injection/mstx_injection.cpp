// SPDX-License-Identifier: MIT
// libmsprof_mstx.so: msprof's collector as an mstx injection library. Programs
// built with CANN's header (or ours) load it through MSTX_INJECTION_PATH and
// call InitInjectionMstx(getModuleFuncTable). Configuration comes from the
// launcher's environment (BRIEF interface 5): MSPROF_OUTPUT,
// MSPROF_MSTX_DOMAIN_INCLUDE / _EXCLUDE (comma lists), MSPROF_AIC_METRICS,
// MSPROF_STORAGE_LIMIT (<n>MB). Collection stops and is flushed at exit.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "prof_output.hpp"

namespace {

namespace collect = msprof::collect;

std::vector<std::string> split_list(const char* v) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  std::string cur;
  for (const char* p = v;; ++p) {
    if (*p == ',' || *p == '\0') {
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

std::shared_ptr<msprof_injection::prof_output>& output() {
  static auto* p = new std::shared_ptr<msprof_injection::prof_output>();  // outlives static destructors
  return *p;
}

void stop_at_exit() {
  auto out = output();
  if (!out) return;
  collect::stop();
  out->finish(collect::calibration(), collect::losses());
  auto l = collect::losses();
  if (l.dropped + out->storage_dropped() + l.unfinished + l.unknown_end != 0)
    log("losses: dropped " + std::to_string(l.dropped) + ", storage limit " + std::to_string(out->storage_dropped()) +
        ", unfinished ranges " + std::to_string(l.unfinished) + ", unmatched ends " + std::to_string(l.unknown_end));
  output().reset();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitInjectionMstx(mstxGetModuleFuncTableFunc get) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  if (output()) return collect::default_collector::api::init(get);  // a second module of the same process
  std::uint64_t limit = 0;
  if (!parse_storage_limit(std::getenv("MSPROF_STORAGE_LIMIT"), limit)) {
    log("MSPROF_STORAGE_LIMIT must look like <n>MB; collection disabled");
    return MSTX_FAIL;
  }
  const char* metrics = std::getenv("MSPROF_AIC_METRICS");
  auto out = std::make_shared<msprof_injection::prof_output>();
  std::string error;
  const char* dir = std::getenv("MSPROF_OUTPUT");
  if (!out->open(dir != nullptr ? dir : "", limit, metrics != nullptr ? metrics : "PipeUtilization", error)) {
    log(error + "; collection disabled");
    return MSTX_FAIL;
  }
  collect::options o;
  o.domain_include = split_list(std::getenv("MSPROF_MSTX_DOMAIN_INCLUDE"));
  o.domain_exclude = split_list(std::getenv("MSPROF_MSTX_DOMAIN_EXCLUDE"));
  o.sink = out;
  o.warn = [](const std::string& w) { log(w); };
  o.attach_in_process = false;  // the table to fill is the caller's
  if (collect::default_collector::api::init(get) != MSTX_SUCCESS) {
    log("getModuleFuncTable refused the core module; collection disabled");
    return MSTX_FAIL;
  }
  auto r = collect::start(o);
  if (!r) {
    log(r.err().message + "; collection disabled");
    return MSTX_FAIL;
  }
  output() = out;
  std::atexit(stop_at_exit);
  return MSTX_SUCCESS;
}
