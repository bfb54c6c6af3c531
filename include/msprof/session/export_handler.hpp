// SPDX-License-Identifier: MIT
// An on_trace_ready handler that exports each finished PROF_ directory, like
// torch_npu's tensorboard_trace_handler and MindSpore's analyse(mode=...):
//
//   session::profiler prof(cfg, sched, session::export_handler());              // sync
//   session::profiler prof(cfg, sched, session::export_handler({}, export_mode::async));
//
// Each export also writes chrome_trace_<ts>.json (the form viewers draw), in
// the same pass over the data, for collections up to
// export_options::chrome_too_max_bytes; the third argument false turns that off.
//
// sync exports in the calling thread (inside profiler::step()/stop());
// async exports in a child process so the training loop keeps going; the
// handler's wait() (also run by the last copy's destructor) reaps the children
// and reports failures. Errors name the directory and never throw.
#ifndef MSPROF_SESSION_EXPORT_HANDLER_HPP
#define MSPROF_SESSION_EXPORT_HANDLER_HPP

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "session_config.hpp"
#include "../convert/ascend_pt/analyse.hpp"
#include "../convert/export.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

enum class export_mode { sync, async };

/// What a session config asks the export to write: export_type text (timeline
/// and summaries) and/or db; data_simplification deletes intermediate data.
inline convert::export_options export_options_for(const session::session_config& c, convert::export_options o = {}) {
  o.text = o.db = false;
  for (auto t : c.export_types) {
    if (t == session::export_type::text) o.text = true;
    if (t == session::export_type::db) o.db = true;
  }
  o.clear = c.data_simplification;
  return o;
}

class export_handler {
 public:
  /// `chrome_trace`: also the viewer-safe trace beside the timeline
  /// (export_options::chrome_too), so every trace gets a file Chrome DevTools
  /// and the Perfetto UI draw.
  explicit export_handler(convert::export_options opt = {}, export_mode mode = export_mode::sync,
                          bool chrome_trace = true)
      : s_(std::make_shared<state>()) {
    s_->opt = std::move(opt);
    s_->opt.chrome_too = chrome_trace;
    s_->mode = mode;
  }

  /// on_trace_ready: exports `prof_dir` (timeline, summaries, db); a
  /// `*_ascend_pt` / `*_ascend_ms` directory (the framework layouts) is
  /// analysed into its ASCEND_PROFILER_OUTPUT/ instead (`msprof analyse`).
  void operator()(const std::string& prof_dir) const {
    if (s_->mode == export_mode::sync) {
      auto r = run(prof_dir, s_->opt);
      std::lock_guard<std::mutex> lk(s_->mu);
      if (r) s_->exported.push_back(prof_dir);
      else s_->failures.push_back(r.err().message);
      return;
    }
    std::fflush(nullptr);  // the child must not flush the parent's buffered output again
    const pid_t pid = ::fork();
    if (pid == 0) {
      auto r = run(prof_dir, s_->opt);
      if (!r) std::fprintf(stderr, "[msprof] export of %s failed: %s\n", prof_dir.c_str(), r.err().message.c_str());
      std::fflush(stderr);
      ::_exit(r ? 0 : 1);
    }
    std::lock_guard<std::mutex> lk(s_->mu);
    if (pid < 0) s_->failures.push_back(prof_dir + ": cannot start the export process");
    else s_->children.push_back({pid, prof_dir});
  }

  /// Waits for every async export; the messages of those that failed.
  std::vector<std::string> wait() const { return s_->wait(); }

  /// Directories exported successfully so far (sync, or async after wait()).
  std::vector<std::string> exported() const {
    std::lock_guard<std::mutex> lk(s_->mu);
    return s_->exported;
  }

 private:
  static result<void> run(const std::string& dir, const convert::export_options& o) {
    if (convert::ascend_pt::framework_of(dir) == convert::ascend_pt::framework_kind::none) {
      auto r = export_all(dir, o);
      if (!r) return r.err();
      return {};
    }
    auto r = convert::ascend_pt::analyse(dir);  // text and/or db, as its profiler_info says
    if (!r) return r.err();
    return {};
  }

  struct child {
    pid_t pid;
    std::string dir;
  };
  struct state {
    convert::export_options opt;
    export_mode mode = export_mode::sync;
    std::mutex mu;
    std::vector<child> children;
    std::vector<std::string> exported, failures;

    std::vector<std::string> wait() {
      std::lock_guard<std::mutex> lk(mu);
      for (const auto& c : children) {
        int status = 0;
        const bool ok = ::waitpid(c.pid, &status, 0) == c.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (ok) exported.push_back(c.dir);
        else failures.push_back(c.dir + ": export process failed (see its message above)");
      }
      children.clear();
      return failures;
    }
    ~state() { (void)wait(); }
  };
  std::shared_ptr<state> s_;
};

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_EXPORT_HANDLER_HPP
