// SPDX-License-Identifier: MIT
// Runs a piece of work in a forked child so that its peak RSS is its own (the
// streaming-memory test and the conversion benchmark).
#ifndef MSPROF_TESTS_SUPPORT_CHILD_PEAK_RSS_HPP
#define MSPROF_TESTS_SUPPORT_CHILD_PEAK_RSS_HPP

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

/// A memory test's first statement: ASan's and TSan's allocators keep freed
/// memory, so under them peak RSS says nothing and the test returns (doctest's MESSAGE says why).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MSPROF_TEST_SKIP_UNDER_SANITIZERS()                                                             \
  do {                                                                                                  \
    MESSAGE("skipped under sanitizers: their allocators keep freed memory, so peak RSS says nothing"); \
    return;                                                                                             \
  } while (0)
#else
#define MSPROF_TEST_SKIP_UNDER_SANITIZERS() \
  do {                                      \
  } while (0)
#endif

struct child_run {
  bool ok = false;      ///< the child ran and work() returned true
  double peak_mib = 0;  ///< the child's peak RSS
  double cpu_s = 0;     ///< the child's user + system CPU time (all its threads)
};

/// Calls work() (returning bool) in a child process and waits for it.
template <class Work>
child_run run_in_child(Work&& work) {
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) ::_exit(work() ? 0 : 1);
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid) return {};
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return {WIFEXITED(status) && WEXITSTATUS(status) == 0, static_cast<double>(usage.ru_maxrss) / 1024.0,
          secs(usage.ru_utime) + secs(usage.ru_stime)};
}

#endif  // MSPROF_TESTS_SUPPORT_CHILD_PEAK_RSS_HPP
