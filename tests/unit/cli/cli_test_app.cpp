// SPDX-License-Identifier: MIT
// A program with mstx calls and nothing msprof-specific, for the launcher test.
// With an argument it plays one of the collection's hard cases:
//   fork-init   a thread makes the first mstx call while main fork()s again and
//               again; every child makes an mstx call and must exit (exit code 3
//               when one did not within 20 s: it hung)
//   fork-after  fork() after initialisation; the child marks and exit()s
//   kill-me     open a range, then refused calls and marks until killed
//   burst N     N ranges on each of 2 threads as fast as they go; prints
//               "emitted E" (E mstx calls, a range being two)
//   ranges      ranges on 2 threads in bursts with short pauses, until killed
#include <msprof/mstx.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

// Waits for `pid`, at most 20 s (a watchdog, not a timing assumption): a hung
// child is killed and reported, so the test fails instead of hanging.
bool child_exited(pid_t pid) {
  for (int i = 0; i < 2000; ++i) {
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) && WEXITSTATUS(st) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return false;
}

int fork_init() {
  std::atomic<bool> entering{false}, first_done{false}, stop{false};
  std::thread t([&] {
    entering.store(true);
    mstxMarkA("first call", nullptr);  // runs the injection's initialisation
    first_done.store(true);
    while (!stop.load()) mstxMarkA("spin", nullptr);
  });
  int forks = 0, during_init = 0;
  while (!entering.load()) std::this_thread::yield();  // fork while the first call runs
  for (; forks < 400; ++forks) {
    const bool in_init = !first_done.load();
    const pid_t pid = ::fork();
    if (pid < 0) break;
    if (pid == 0) {
      mstxMarkA("child", nullptr);
      _exit(0);
    }
    during_init += in_init ? 1 : 0;
    if (!child_exited(pid)) {
      std::fprintf(stderr, "fork-init: child %d hung in its first mstx call\n", static_cast<int>(pid));
      stop.store(true);
      t.join();
      return 3;
    }
    if (first_done.load() && forks >= 20) break;
  }
  stop.store(true);
  t.join();
  std::printf("fork-init: %d forks, %d while the first call was initialising\n", forks + 1, during_init);
  return 0;
}

int fork_after() {
  mstxMarkA("parent before fork", nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    mstxMarkA("child mark", nullptr);
    mstxMarkA("child mark 2", nullptr);
    std::exit(0);  // runs the atexit handlers inherited from the parent
  }
  if (pid < 0 || !child_exited(pid)) return 3;
  mstxMarkA("parent after fork", nullptr);
  return 0;
}

void on_two_threads(void (*body)(long), long n) {
  std::thread a(body, n), b(body, n);
  a.join();
  b.join();
}

int burst(long n) {
  on_two_threads(
      [](long k) {
        for (long i = 0; i < k; ++i) mstxRangeEnd(mstxRangeStartA("burst", nullptr));
      },
      n);
  std::printf("emitted %ld\n", 2 * 2 * n);
  return 0;
}

int ranges_until_killed() {
  on_two_threads(
      [](long) {
        for (;;) {
          for (int i = 0; i < 200; ++i) mstxRangeEnd(mstxRangeStartA("until killed", nullptr));
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      },
      0);
  return 0;
}

int kill_me() {
  (void)mstxRangeStartA("never ends", nullptr);
  for (;;) {
    mstxMarkA(nullptr, nullptr);  // refused: counted as rejected
    mstxMarkA("tick", nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fork-init") return fork_init();
  if (mode == "fork-after") return fork_after();
  if (mode == "kill-me") return kill_me();
  if (mode == "burst" && argc > 2) return burst(std::atol(argv[2]));
  if (mode == "ranges") return ranges_until_killed();
  mstxMarkA("hello launcher", nullptr);
  const mstxRangeId r = mstxRangeStartA("work", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  mstxRangeEnd(r);
  mstxDomainHandle_t net = mstxDomainCreateA("net");
  mstxDomainMarkA(net, "net mark", nullptr);
  return 0;
}
