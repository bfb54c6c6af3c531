// SPDX-License-Identifier: MIT
#include "dynamic.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <utility>

#include "../injection/dynamic_control.hpp"
#include "console.hpp"

namespace msprof_cli {

msprof::result<dynamic_control> dynamic_control::create(const msprof::outfile::dir& output) {
  const std::string name = ".msprof_dynamic_" + std::to_string(::getpid());
  auto fd = output.create(name, O_RDWR);
  if (!fd) return fd.err();
  dynamic_control c;
  c.path_ = output.path() + "/" + name;
  c.owned_ = true;
  if (::ftruncate(fd->get(), static_cast<off_t>(msprof_dynamic::file_bytes)) != 0 ||
      (c.mapping_ = msprof_dynamic::map(fd->get(), true)) == nullptr)
    return msprof::make_error(msprof::errc::io, c.path_ + ": cannot make the --dynamic control file: " +
                                                    std::strerror(errno));
  c.generation_ = msprof_dynamic::generation(c.mapping_);
  c.generation_->store(0, std::memory_order_relaxed);
  std::memcpy(c.mapping_, msprof_dynamic::magic, sizeof msprof_dynamic::magic);
  return c;
}

void dynamic_control::in_child() const {
  ::setenv(msprof_dynamic::env_var, path_.c_str(), 1);
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, STDIN_FILENO);
}

msprof::result<dynamic_control> dynamic_control::attach(pid_t pid, const std::string& output) {
  const char* home = std::getenv("HOME");
  const std::string pid_s = std::to_string(pid);
  if (home == nullptr || *home == '\0')
    return msprof::make_error(msprof::errc::invalid_argument, "--pid=" + pid_s + ": HOME is not set: it holds the "
                                                              "control file of a program started with PROFILING_MODE=dynamic");
  dynamic_control c;
  c.path_ = std::string(home) + "/" + msprof_dynamic::attach_name(pid);
  const auto problem = [&](const std::string& what) {
    return msprof::make_error(msprof::errc::invalid_argument, "--pid=" + pid_s + ": " + c.path_ + ": " + what);
  };
  if (::kill(pid, 0) != 0 && errno == ESRCH) return problem("no process " + pid_s + " runs");
  c.fd_ = ::open(c.path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (c.fd_ < 0)
    return problem(std::string(std::strerror(errno)) +
                   ": the program was not started for dynamic profiling (MSTX_INJECTION_PATH=<libmsprof_mstx.so> "
                   "PROFILING_MODE=dynamic), or made no mstx call yet");
  struct stat st {};
  if (::fstat(c.fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_size < static_cast<off_t>(msprof_dynamic::file_bytes) ||
      (c.mapping_ = msprof_dynamic::map(c.fd_, true)) == nullptr || !msprof_dynamic::valid(c.mapping_))
    return problem("not a dynamic-profiling control file of yours");
  if (::flock(c.fd_, LOCK_EX | LOCK_NB) != 0)
    return problem("another msprof is attached to it (one at a time, as in CANN)");
  if (output.size() > msprof_dynamic::output_max) return problem("the --output path is too long");
  c.generation_ = msprof_dynamic::generation(c.mapping_);
  if (c.collecting()) c.toggle();  // left collecting by an msprof that was killed: that collection ends
  char* dst = static_cast<char*>(c.mapping_) + msprof_dynamic::output_offset;
  std::memcpy(dst, output.c_str(), output.size() + 1);  // read by the process after the next start
  return c;
}

bool dynamic_control::wait_acted(pid_t pid, std::chrono::seconds limit) const {
  const auto until = std::chrono::steady_clock::now() + limit;
  const std::atomic<std::uint64_t>* acted = msprof_dynamic::acted(mapping_);
  while (acted->load(std::memory_order_acquire) != generation_->load(std::memory_order_relaxed)) {
    if (!process_alive(pid)) return true;  // ended: what it wrote is on disk
    if (std::chrono::steady_clock::now() >= until) return false;
    ::usleep(5000);
  }
  return true;
}

dynamic_control::dynamic_control(dynamic_control&& o) noexcept
    : path_(std::move(o.path_)), owned_(o.owned_), fd_(o.fd_), mapping_(o.mapping_), generation_(o.generation_) {
  o.mapping_ = nullptr;
  o.generation_ = nullptr;
  o.fd_ = -1;
  o.owned_ = false;
}

dynamic_control::~dynamic_control() {
  if (mapping_ != nullptr) ::munmap(mapping_, msprof_dynamic::file_bytes);
  if (owned_) ::unlink(path_.c_str());
  if (fd_ >= 0) ::close(fd_);  // and its lock
}

bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: kill() said it is there
  const auto paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

namespace {

void say(const std::string& text) { console::get().say(std::cerr, "msprof: " + text); }

constexpr std::size_t max_line = 1024;
constexpr const char* commands = "start (begin collecting), stop (end this collection), quit (stop and leave)";

}  // namespace

std::optional<int> interactive(const std::function<std::optional<int>()>& ended, dynamic_control& control,
                               int& windows, const std::string& on_leave, std::chrono::seconds idle_limit) {
  using clock = std::chrono::steady_clock;
  const bool tty = ::isatty(STDIN_FILENO) != 0;
  const auto prompt = [tty] {
    if (tty) std::cerr << "> " << std::flush;
  };
  say("dynamic profiling: the application runs without collecting; commands: " + std::string(commands) +
      ", help. Each start..stop is its own PROF_ directory");
  prompt();
  const auto stop = [&] {
    control.toggle();
    say("collection " + std::to_string(windows) + " stopped");
  };
  const auto leave = [&](const std::string& why) {
    if (control.collecting()) stop();
    say(why + ": leaving the interactive mode; " + on_leave);
  };
  const clock::time_point entered = clock::now();
  std::string pending;  // input read, not yet a whole line
  bool eof = false, skipping = false;  // skipping: the rest of a line too long to be a command
  for (;;) {
    if (const auto status = ended()) {
      say(std::string("the application ended") +
          (control.collecting() ? " while collecting: collection " + std::to_string(windows) + " ends with it" : ""));
      if (control.collecting()) control.toggle();
      return status;
    }
    // A line at a time; the last one may come without a newline before the end of input.
    std::size_t nl = pending.find('\n');
    if (nl == std::string::npos && eof && !pending.empty()) nl = pending.size();
    const bool too_long = (nl == std::string::npos ? pending.size() : nl) > max_line;
    if (too_long && !skipping) say("a line of more than " + std::to_string(max_line) + " bytes is no command: ignored");
    if (too_long && nl == std::string::npos) {  // bounded memory, whatever comes in
      skipping = true;
      pending.clear();
    }
    if (nl != std::string::npos) {
      std::string cmd = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (std::exchange(skipping, false) || too_long) continue;
      const auto b = cmd.find_first_not_of(" \t\r"), e = cmd.find_last_not_of(" \t\r");
      cmd = b == std::string::npos ? "" : cmd.substr(b, e - b + 1);
      if (cmd == "start") {
        if (control.collecting()) {
          say("already collecting (collection " + std::to_string(windows) + "): stop it first");
        } else {
          control.toggle();
          say("collection " + std::to_string(++windows) + " started");
        }
      } else if (cmd == "stop") {
        if (control.collecting())
          stop();
        else
          say("not collecting: start begins a collection");
      } else if (cmd == "quit") {
        leave("quit");
        return std::nullopt;
      } else if (cmd == "help") {
        say("commands: " + std::string(commands));
      } else if (!cmd.empty()) {
        for (char& c : cmd)
          if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';  // no control characters to the terminal
        say("unknown command '" + cmd + "'; commands: " + commands + ", help");
      }
      prompt();
      continue;
    }
    if (eof) {
      leave("end of input");
      return std::nullopt;
    }
    if (windows == 0 && clock::now() - entered >= idle_limit) {
      leave("no start in " + std::to_string(idle_limit.count() / 60) + " minutes");
      return std::nullopt;
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);  // also looks at the application every 100 ms
    if (ready < 0 && errno != EINTR) {
      say(std::string("stdin: ") + std::strerror(errno));
      eof = true;
    } else if (ready > 0) {
      char buf[512];
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0)
        pending.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        eof = true;
    }
  }
}

}  // namespace msprof_cli
