// SPDX-License-Identifier: MIT
// The launcher's host sampler (host_sampler.hpp). The lines are CANN's
// (docs/formats.md, "Host system usage"): the converter reads them as it reads
// a CANN collection's.
#include "host_sampler.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <msprof/core/output_file.hpp>
#include <msprof/prof/layout.hpp>
#include <msprof/prof/writer.hpp>

namespace msprof_cli {

namespace {

/// The whole (small) /proc file `path` into `out`; false when it is gone or unreadable.
bool read_proc(const std::string& path, std::string& out) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return n == 0 && !out.empty();
}

/// A stat line with the blanks inside "(comm)" made '_': the readers split
/// the line at blanks and count fields (CANN's names have none).
void blank_free_comm(std::string& stat) {
  const auto open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return;
  for (auto k = open + 1; k < close; ++k)
    if (std::isspace(static_cast<unsigned char>(stat[k]))) stat[k] = '_';
}

/// A fresh anonymous temporary file (removed when closed), or null.
msprof::result<std::FILE*> spool(bool wanted) {
  if (!wanted) return static_cast<std::FILE*>(nullptr);
  std::FILE* f = std::tmpfile();
  if (!f) return msprof::make_error(msprof::errc::io, std::string("host sampling: no temporary file: ") + std::strerror(errno));
  return f;
}

}  // namespace

msprof::result<std::unique_ptr<host_sampler>> host_sampler::start(pid_t pid, bool cpu, bool mem, std::chrono::milliseconds period) {
  auto c = spool(cpu);
  if (!c) return c.err();
  file_ptr cpu_file(*c);
  auto m = spool(mem);
  if (!m) return m.err();
  std::unique_ptr<host_sampler> s(new host_sampler(pid, period, std::move(cpu_file), file_ptr(*m)));
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  return s;
}

host_sampler::host_sampler(pid_t pid, std::chrono::milliseconds period, file_ptr cpu, file_ptr mem)
    : pid_(pid), period_(period), cpu_(std::move(cpu)), mem_(std::move(mem)) {}

host_sampler::~host_sampler() { stop(); }

void host_sampler::stop() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void host_sampler::run() {
  auto next = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(m_);
  while (!stopping_) {
    lock.unlock();
    sample();
    lock.lock();
    next += period_;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow sample skips the missed periods, no burst
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
  // Everything on disk for write_into().
  if (cpu_) std::fflush(cpu_.get());
  if (mem_) std::fflush(mem_.get());
}

/// `root` and its descendants: /proc scanned for each process's parent (field
/// 3 of its stat, after the name in parentheses).
std::vector<pid_t> host_sampler::process_tree() {
  std::vector<std::pair<pid_t, pid_t>> parent_of;  // (ppid, pid)
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      if (!read_proc(std::string("/proc/") + e->d_name + "/stat", line_)) continue;
      const auto close = line_.rfind(')');
      if (close == std::string::npos || close + 4 >= line_.size()) continue;
      parent_of.emplace_back(static_cast<pid_t>(std::atol(line_.c_str() + close + 4)), static_cast<pid_t>(std::atol(e->d_name)));
    }
    ::closedir(d);
  }
  std::vector<pid_t> tree{pid_};
  for (std::size_t k = 0; k < tree.size(); ++k)
    for (const auto& [ppid, pid] : parent_of)
      if (ppid == tree[k]) tree.push_back(pid);
  return tree;
}

/// One sample: a file read that fails (a process or thread gone) leaves that
/// part out; a CPU sample without its uptime or any thread is left out whole.
void host_sampler::sample() {
  const auto now = std::chrono::steady_clock::now();
  if (tree_.empty() || now - scanned_ >= std::chrono::milliseconds(100)) {  // a scan reads every process's stat
    tree_ = process_tree();
    scanned_ = now;
  }
  const std::uint64_t ns = msprof::prof::detail::mono_ns();  // the collection's host clock
  if (cpu_) {
    std::string text;
    if (read_proc("/proc/uptime", line_)) text = "time " + std::to_string(ns) + "\n" + line_ + "\n";
    const std::size_t head = text.size();
    for (std::size_t k = 0; head > 0 && k < tree_.size(); ++k) {
      const std::string task = "/proc/" + std::to_string(tree_[k]) + "/task";
      DIR* d = ::opendir(task.c_str());
      while (d) {
        const dirent* e = ::readdir(d);
        if (!e) break;
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        if (!read_proc(task + "/" + e->d_name + "/stat", line_)) continue;  // the thread ended
        blank_free_comm(line_);
        text += line_;
        text += '\n';
      }
      if (d) ::closedir(d);
    }
    if (text.size() > head) std::fwrite(text.data(), 1, text.size(), cpu_.get());
  }
  if (mem_) {  // the processes' statm summed: size resident shared text lib data dt (pages)
    std::uint64_t sum[7] = {};
    bool any = false;
    for (const pid_t p : tree_) {
      if (!read_proc("/proc/" + std::to_string(p) + "/statm", line_)) continue;
      const char* at = line_.c_str();
      for (auto& v : sum) {
        char* end = nullptr;
        v += std::strtoull(at, &end, 10);
        at = end;
      }
      any = true;
    }
    if (any) {
      std::string text = std::to_string(ns);
      for (const auto v : sum) text += " " + std::to_string(v);
      text += '\n';
      std::fwrite(text.data(), 1, text.size(), mem_.get());
    }
  }
}

msprof::result<void> host_sampler::write_into(const std::string& prof_dir) const {
  namespace of = msprof::outfile;
  namespace layout = msprof::prof::layout;
  auto prof = of::dir::open(prof_dir);
  if (!prof) return prof.err();
  auto host = prof->mkdir(layout::host_dir);
  if (!host) return host.err();
  auto data = host->mkdir(layout::data_dir);
  if (!data) return data.err();
  for (const auto& [file, module] : {std::pair{cpu_.get(), layout::host_cpu}, std::pair{mem_.get(), layout::host_mem}}) {
    if (!file) continue;
    if (std::ferror(file)) return msprof::make_error(msprof::errc::io, "host sampling: its temporary file could not be written (disk full?)");
    const std::string name = std::string(module) + ".data.slice_0";
    auto out = of::atomic_file::create(*data, name);
    if (!out) return out.err();
    char buf[1 << 16];
    off_t at = 0;
    for (ssize_t n; (n = ::pread(::fileno(file), buf, sizeof buf, at)) != 0; at += n) {
      if (n < 0) return msprof::make_error(msprof::errc::io, std::string("host sampling: reading its temporary file: ") + std::strerror(errno));
      if (auto w = out->write(std::string_view(buf, static_cast<std::size_t>(n))); !w) return w;
    }
    if (auto c = out->commit(false); !c) return c;
    if (auto d = of::write_atomic(*data, name + layout::done_suffix, "filesize:" + std::to_string(at) + "\n", false); !d) return d;
  }
  return {};
}

}  // namespace msprof_cli
