// SPDX-License-Identifier: MIT
// What the CLI tests (cli_test.cpp, hostile_input_test.cpp) share: a sandbox with
// copies of the golden inputs, running the built msprof binary, its outputs.
#ifndef MSPROF_TESTS_CLI_HELPERS_HPP
#define MSPROF_TESTS_CLI_HELPERS_HPP

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

#ifdef MSPROF_TEST_CLI
namespace msprof_cli_test {

namespace fs = std::filesystem;

struct run_result {
  int rc = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) { return read_text(p); }

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct sandbox {
  fs::path root;
  /// A fresh directory under `base` (default: the temporary directory).
  explicit sandbox(const fs::path& base = fs::temp_directory_path()) {
    static int n = 0;
    root = base / ("msprof_cli_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~sandbox() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  /// Copies golden/<c>/input/PROF_* to root/<sub>/ and returns the PROF_ path.
  fs::path add(const std::string& c, const std::string& sub = "") {
    const fs::path dst = root / sub;
    fs::create_directories(dst);
    fs::path prof;
    for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden" / c / "input")) {
      fs::path to = dst / e.path().filename();
      if (fs::exists(to)) to = dst / (e.path().filename().string() + "_" + c);
      fs::copy(e.path(), to, fs::copy_options::recursive);
      prof = to;
    }
    return prof;
  }
  run_result run(const std::vector<std::string>& args) const { return run_fed("", args); }
  /// With stdin from the shell commands `feed` (e.g. "echo start; sleep 1; echo stop"); "": /dev/null.
  /// `env`: shell assignments for msprof's environment ("HOME=/x").
  run_result run_fed(const std::string& feed, const std::vector<std::string>& args, const std::string& env = "") const {
    std::string cmd = (env.empty() ? "" : env + " ") + quote(MSPROF_TEST_CLI);
    for (const auto& a : args) cmd += " " + quote(a);
    const auto out = root / "stdout.txt", err = root / "stderr.txt";
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string());
    cmd = feed.empty() ? cmd + " </dev/null" : "(" + feed + ") | " + cmd;
    const int st = std::system(cmd.c_str());
    run_result r;
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
};

/// Copies golden-pt/<c>/input/* (a *_ascend_pt directory) into the sandbox; returns its path.
inline fs::path add_pt_case(const sandbox& s, const std::string& c) {
  fs::path dir;
  for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / c / "input")) {
    dir = s.root / e.path().filename();
    fs::copy(e.path(), dir, fs::copy_options::recursive);
  }
  return dir;
}

// The PROF_ directory the launcher made under `out` (empty when there is none).
inline fs::path prof_dir_in(const fs::path& out) {
  fs::path prof;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof = e.path();
  return prof;
}

inline std::vector<fs::path> outputs(const fs::path& prof) {
  std::vector<fs::path> v;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(prof, ec)) {
    const auto n = e.path().filename().string();
    if (e.path().parent_path().filename() == "mindstudio_profiler_output" ||
        (n.rfind("msprof_", 0) == 0 && e.path().extension() == ".db"))
      v.push_back(e.path());
  }
  return v;
}

}  // namespace msprof_cli_test
#endif  // MSPROF_TEST_CLI

#endif  // MSPROF_TESTS_CLI_HELPERS_HPP
