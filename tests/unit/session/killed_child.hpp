// SPDX-License-Identifier: MIT
// Tests of killed collections: the test binary runs itself with one helper
// case selected, that case records and kills itself with SIGKILL, and the
// test reads the PROF_ directory it left.
#ifndef MSPROF_TEST_SESSION_KILLED_CHILD_HPP
#define MSPROF_TEST_SESSION_KILLED_CHILD_HPP

#include <doctest/doctest.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

/// Runs test case `helper_case` in a child with `env` set to `out`; requires
/// that SIGKILL ended it, and returns the PROF_ directory it left in `out`.
inline std::string run_killed_child(const char* helper_case, const char* env, const std::string& out) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv(env, out.c_str(), 1);
    const std::string select = std::string("-tc=") + helper_case;
    ::execl("/proc/self/exe", "/proc/self/exe", select.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  std::string dir;
  for (const auto& e : std::filesystem::directory_iterator(out))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) dir = e.path().string();
  REQUIRE(!dir.empty());
  return dir;
}

#endif  // MSPROF_TEST_SESSION_KILLED_CHILD_HPP
