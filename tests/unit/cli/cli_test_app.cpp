// SPDX-License-Identifier: MIT
// A program with mstx calls and nothing msprof-specific, for the launcher test.
// With an argument it plays one of the collection's hard cases:
//   fork-init   a thread makes the first mstx call while main fork()s again and
//               again; every child makes an mstx call and must exit (exit code 3
//               when one did not within 20 s: it hung)
//   fork-after  fork() after initialisation; the child marks and exit()s
//   fork-outlive F  fork() after initialisation; the child writes its pid to F,
//               leaves stdin/out/err and lives on for 20 s after the program exits
//   kill-me     open a range, then refused calls and marks until killed
//   burst N     N ranges on each of 2 threads as fast as they go; prints
//               "emitted E" (E mstx calls, a range being two)
//   ranges      ranges on 2 threads in bursts with short pauses, until killed
//   ticks N [P] [F] marks "tick <k>" every P ms (default 100), k = 0 .. N-1
//               (--delay/--duration, --dynamic); ends early once file F exists
//   framework   two "ProfilerStep#N" steps of msprof::record_function ops: an
//               op with shapes enqueues to a worker thread, which dequeues and
//               runs a backward op; an allocation and its frees (--layout tests)
//   host-burn   a mark, 64 MiB touched, then 2 threads busy for 0.3 s while they stay resident
//               (--host-sys=cpu,mem)
//   disk-write F  a mark, then 8 MiB written to file F in 1 MiB steps, each
//               fsync()ed, 20 ms apart; F removed (--host-sys=disk)
#include <msprof/framework.hpp>
#include <msprof/mstx.h>
#include <sys/syscall.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <fstream>
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

int fork_outlive(const char* pid_file) {
  mstxMarkA("parent before fork", nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (FILE* f = std::fopen(pid_file, "w")) {
      std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
      std::fclose(f);
    }
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);  // the launcher's pipes are not held
    std::this_thread::sleep_for(std::chrono::seconds(20));
    ::_exit(0);
  }
  if (pid < 0) return 3;
  while (!std::ifstream(pid_file)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

int framework() {
  const auto main_tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  for (std::uint64_t step = 1; step <= 2; ++step) {
    const std::string step_name = "ProfilerStep#" + std::to_string(step);
    msprof::record_function s(step_name);
    msprof::op_attributes a;
    a.input_dtypes = "float;float";
    a.input_shapes = "8,16;16,32";
    a.call_stack = "app.cpp(1): main";
    a.sequence_nr = static_cast<std::int64_t>(step);
    msprof::record_function mm("aten::mm", a);
    { msprof::scoped_enqueue q("aten::mm", step); }
    std::thread worker([&] {
      msprof::scoped_dequeue d("aten::mm", step);
      msprof::op_attributes b;
      b.sequence_nr = a.sequence_nr;
      b.fwd_thread_id = main_tid;
      msprof::record_function backward("MmBackward0", b);
      mstxMarkA("launch", nullptr);
    });
    worker.join();
    msprof::memory_event m;
    m.ptr = 4096;
    m.alloc_size = 1024;
    m.total_allocated = m.total_active = 1024;
    m.total_reserved = 4096;
    msprof::record_memory(m);
    m.data_type = 1;  // free
    m.alloc_size = -1024;
    m.total_allocated = 0;
    msprof::record_memory(m);
    m.data_type = 2;  // block free
    m.total_active = 0;
    msprof::record_memory(m);
  }
  return 0;
}

int ticks(long n, long period_ms, const char* end_file) {
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < n && !(end_file && ::access(end_file, F_OK) == 0); ++k) {
    mstxMarkA(("tick " + std::to_string(k)).c_str(), nullptr);
    std::this_thread::sleep_until(start + std::chrono::milliseconds(period_ms * (k + 1)));
  }
  return 0;
}

int host_burn() {
  mstxMarkA("burn", nullptr);  // the collection starts before the samples that count
  // Written before the clock starts: under load the writing alone can outlast
  // the 0.3 s, and the samples must see the whole block resident.
  std::string block(64u << 20, 'x');
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  auto spin = [until] {
    volatile std::uint64_t n = 0;
    while (std::chrono::steady_clock::now() < until) n = n + 1;
  };
  std::thread a(spin), b(spin);
  a.join();
  b.join();
  return block[block.size() / 2] == 'x' ? 0 : 1;
}

int disk_write(const char* path) {
  mstxMarkA("disk", nullptr);
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return 1;
  const std::string block(1u << 20, 'd');
  bool ok = true;
  for (int k = 0; k < 8 && ok; ++k) {
    ok = ::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size()) && ::fsync(fd) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(fd);
  ::unlink(path);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fork-init") return fork_init();
  if (mode == "fork-after") return fork_after();
  if (mode == "fork-outlive" && argc > 2) return fork_outlive(argv[2]);
  if (mode == "kill-me") return kill_me();
  if (mode == "burst" && argc > 2) return burst(std::atol(argv[2]));
  if (mode == "ranges") return ranges_until_killed();
  if (mode == "framework") return framework();
  if (mode == "host-burn") return host_burn();
  if (mode == "disk-write" && argc > 2) return disk_write(argv[2]);
  if (mode == "ticks" && argc > 2) return ticks(std::atol(argv[2]), argc > 3 ? std::atol(argv[3]) : 100, argc > 4 ? argv[4] : nullptr);
  mstxMarkA("hello launcher", nullptr);
  const mstxRangeId r = mstxRangeStartA("work", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  mstxRangeEnd(r);
  mstxDomainHandle_t net = mstxDomainCreateA("net");
  mstxDomainMarkA(net, "net mark", nullptr);
  return 0;
}
