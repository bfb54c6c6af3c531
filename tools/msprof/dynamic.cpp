// SPDX-License-Identifier: MIT
#include "dynamic.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "../injection/dynamic_control.hpp"
#include "console.hpp"

namespace msprof_cli {

msprof::result<dynamic_control> dynamic_control::create(const msprof::outfile::dir& output) {
  const std::string name = ".msprof_dynamic_" + std::to_string(::getpid());
  auto fd = output.create(name, O_RDWR);
  if (!fd) return fd.err();
  dynamic_control c;
  c.path_ = output.path() + "/" + name;
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

dynamic_control::dynamic_control(dynamic_control&& o) noexcept
    : path_(std::move(o.path_)), mapping_(o.mapping_), generation_(o.generation_) {
  o.mapping_ = nullptr;
  o.generation_ = nullptr;
  o.path_.clear();
}

dynamic_control::~dynamic_control() {
  if (mapping_ != nullptr) ::munmap(mapping_, msprof_dynamic::file_bytes);
  if (!path_.empty()) ::unlink(path_.c_str());
}

namespace {

void say(const std::string& text) { console::get().say(std::cerr, "msprof: " + text); }

constexpr const char* commands = "start (begin collecting), stop (end this collection), quit (stop and leave)";

}  // namespace

std::optional<int> interactive(pid_t child, dynamic_control& control, int& windows, std::chrono::seconds idle_limit) {
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
    say(why + ": leaving the interactive mode; the application runs on, msprof waits for it to end");
  };
  const clock::time_point entered = clock::now();
  std::string pending;  // input read, not yet a whole line
  bool eof = false;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      say(std::string("the application ended") +
          (control.collecting() ? " while collecting: collection " + std::to_string(windows) + " ends with it" : ""));
      if (control.collecting()) control.toggle();
      return status;
    }
    // A line at a time; the last one may come without a newline before the end of input.
    std::size_t nl = pending.find('\n');
    if (nl == std::string::npos && eof && !pending.empty()) nl = pending.size();
    if (nl != std::string::npos) {
      std::string cmd = pending.substr(0, nl);
      pending.erase(0, nl + 1);
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
