// SPDX-License-Identifier: MIT
// Every file and directory msprof writes goes through here (the collector's
// prof/writer.hpp, the session's dynamic profiler, the launcher and the
// converters), so that no output lands outside the output directory:
//
//   auto d = outfile::dir::make("out");                  // result<outfile::dir>
//   auto f = outfile::atomic_file::create(*d, "a.json"); // a.json.<pid>.<16 hex>.msprof.tmp
//   f->write(text);  f->commit();                        // fsync, renameat over a.json
//
// The rules (docs/configuration.md, "Output safety"):
// - Names are resolved relative to a directory held open (openat, mkdirat,
//   renameat), never through a path again, and never through a symbolic link:
//   directories are opened O_DIRECTORY|O_NOFOLLOW, files created
//   O_CREAT|O_EXCL|O_NOFOLLOW. An output directory or output file that is a
//   link is refused with an error naming it.
// - Directories above the output directory that already exist are the user's
//   and may be links; the output directory itself and every directory msprof
//   creates may not.
// - Modes: directories 0750, files 0640, further restricted by the umask
//   (never chmod-ed looser than the umask allows).
// - Temporary names are unpredictable and recognisable; a temporary left by
//   an interrupted run (its process gone, older than this process) is removed
//   by the next writer of that directory (remove_stale_temps).
// Standard library and POSIX only.
#ifndef MSPROF_CORE_OUTPUT_FILE_HPP
#define MSPROF_CORE_OUTPUT_FILE_HPP

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abi.hpp"
#include "error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace outfile {

constexpr mode_t dir_mode = 0750;   ///< before the umask
constexpr mode_t file_mode = 0640;  ///< before the umask
/// Temporary names end in this: "<name>.<pid>.<16 hex>.msprof.tmp".
constexpr std::string_view temp_suffix = ".msprof.tmp";

namespace detail {

inline std::string sys_err(int e = errno) { return std::strerror(e); }

/// 64 random bits as 16 hex digits (the kernel's generator; a seeded one if it is unavailable).
inline std::string random_hex() {
  std::uint64_t v = 0;
  bool ok = false;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ok = ::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v);
    ::close(fd);
  }
  if (!ok) {
    std::random_device rd;
    v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Why `name` in `dirfd` cannot be opened as a directory (after openat failed with `e`).
inline std::string dir_problem(int dirfd, const char* name, int e) {
  struct stat st {};
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return "is a symbolic link (msprof does not write through links)";
    if (!S_ISDIR(st.st_mode)) return "exists and is not a directory";
  }
  return sys_err(e);
}

/// When this process started, in seconds since the epoch (0 when unknown).
inline std::time_t process_start() {
  static const std::time_t start = [] {
    unsigned long long ticks = 0, boot = 0;
    if (std::FILE* f = std::fopen("/proc/self/stat", "r")) {
      char buf[1024] = {};
      const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      buf[n] = '\0';
      // Field 22 (starttime) counts from after the ")" that ends field 2.
      const char* p = std::strrchr(buf, ')');
      for (int field = 2; p && field < 22; ++field) p = std::strchr(p + 1, ' ');
      if (p) ticks = std::strtoull(p + 1, nullptr, 10);
    }
    if (std::FILE* f = std::fopen("/proc/stat", "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "btime ", 6) == 0) boot = std::strtoull(line + 6, nullptr, 10);
      std::fclose(f);
    }
    const long hz = ::sysconf(_SC_CLK_TCK);
    if (boot == 0 || ticks == 0 || hz <= 0) return std::time(nullptr);  // no /proc: from the first use on
    return static_cast<std::time_t>(boot + ticks / static_cast<unsigned long long>(hz));
  }();
  return start;
}

/// The pid in a temporary name "<name>.<pid>.<16 hex>.msprof.tmp", or in the
/// "<name>.tmp<pid>" of msprof before this layer (left by killed runs of it);
/// 0 when it is neither.
inline long temp_pid(std::string_view n) {
  auto digits = [](std::string_view d) -> long {
    if (d.empty() || d.size() > 10) return 0;
    long pid = 0;
    for (char c : d) {
      if (c < '0' || c > '9') return 0;
      pid = pid * 10 + (c - '0');
    }
    return pid;
  };
  if (n.size() <= temp_suffix.size() || n.substr(n.size() - temp_suffix.size()) != temp_suffix) {
    const std::size_t tmp = n.rfind(".tmp");
    return tmp == std::string_view::npos || tmp == 0 ? 0 : digits(n.substr(tmp + 4));
  }
  n.remove_suffix(temp_suffix.size());
  if (n.size() < 17 || n[n.size() - 17] != '.') return 0;
  for (char c : n.substr(n.size() - 16))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
  n.remove_suffix(17);
  const std::size_t dot = n.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == n.size()) return 0;
  return digits(n.substr(dot + 1));
}

}  // namespace detail

/// An owned file descriptor.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives up ownership (the caller closes it).
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

/// A new file in `dir` named `prefix` and six random characters, unlinked at
/// once: unnamed, it goes with its descriptor, even after a crash. A scratch
/// file (sort runs, laid-out pages); none on failure, with errno set.
inline unique_fd unnamed_temp(const std::string& dir, const char* prefix) {
  std::string path = dir + "/" + prefix + "XXXXXX";
  unique_fd fd(::mkostemp(path.data(), O_CLOEXEC));
  if (fd) ::unlink(path.c_str());
  return fd;
}

/// Blocks allocated ahead of a file's appends, 8 MiB at a time past its end
/// (fallocate with FALLOC_FL_KEEP_SIZE), once it reaches a MiB: ext4 then
/// takes each page written without reserving and mapping it on its own (140 MB
/// in writes of a MiB: 22 -> 13 ms). Nothing is done where the file system
/// cannot. Blocks left past the end go when an unnamed file is closed, or by
/// truncating to the size.
class reserve_ahead {
 public:
  /// Before `n` bytes are written at `end`.
  void before_write(int fd, std::uint64_t end, std::size_t n) noexcept {
    if (off_ || end + n <= reserved_ || end + n < small) return;
#ifdef FALLOC_FL_KEEP_SIZE
    const std::uint64_t from = std::max(end, reserved_), to = std::max<std::uint64_t>(end + n, from + step);
    if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from), static_cast<off_t>(to - from)) == 0) {
      reserved_ = to;
      return;
    }
#else
    (void)fd;
#endif
    off_ = true;  // not supported, or no room: the writes say what is wrong
  }
  /// Gives back what was allocated past `size`, the file's final size
  /// (truncating to it frees them); false (errno set) when that fails.
  bool give_back(int fd, std::uint64_t size) noexcept {
    return reserved_ <= size || ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  }

 private:
  static constexpr std::uint64_t step = std::uint64_t{8} << 20;
  static constexpr std::uint64_t small = std::uint64_t{1} << 20;  // smaller files are written as they are
  std::uint64_t reserved_ = 0;  // blocks are allocated below this offset
  bool off_ = false;
};

/// Writes all of `p` to `fd` (`path` names it in the error; ENOSPC and EDQUOT are errc::limit).
inline result<void> write_all(int fd, const char* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return make_error(errno == ENOSPC || errno == EDQUOT ? errc::limit : errc::io,
                        path + ": write failed: " + detail::sys_err());
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return {};
}

/// A directory msprof writes into, held open: names below it are resolved
/// from it, not from its path.
class dir {
 public:
  dir() = default;

  /// The existing directory `path`. Its last component must be a real
  /// directory; with `allow_link` it may be a link to one (a directory the
  /// user names as input, such as `export -dir`).
  static result<dir> open(const std::string& path, bool allow_link = false) {
    const std::string p = path.empty() ? std::string(".") : path;
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (allow_link ? 0 : O_NOFOLLOW));
    if (fd < 0) {
      const int e = errno;
      return make_error(e == ENOENT ? errc::not_found : errc::io, p + ": " + detail::dir_problem(AT_FDCWD, p.c_str(), e));
    }
    return dir(unique_fd(fd), p);
  }

  /// The directory `path`, created (with its missing parents) when missing.
  /// Parents that exist are the user's and may be links; `path` itself and
  /// every directory created here may not.
  static result<dir> make(const std::string& path) {
    std::string p = path.empty() ? std::string(".") : path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    auto d = open(p);
    if (d || d.err().code != errc::not_found) return d;
    const std::size_t slash = p.rfind('/');
    const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
    auto up = open(parent, true);  // the user's directory, links allowed
    if (!up && up.err().code == errc::not_found) up = make(parent);
    if (!up) return up.err();
    return up->mkdir(p.substr(slash == std::string::npos ? 0 : slash + 1));
  }

  /// The subdirectory `name`, created when missing; with `must_be_new` it
  /// must not exist yet.
  result<dir> mkdir(const std::string& name, bool must_be_new = false) const {
    const std::string p = path_of(name);
    if (::mkdirat(fd_.get(), name.c_str(), dir_mode) != 0 && (errno != EEXIST || must_be_new)) {
      const int e = errno;
      return make_error(errc::io, p + ": cannot create directory: " +
                                      (e == EEXIST ? std::string("it already exists") : detail::dir_problem(fd_.get(), name.c_str(), e)));
    }
    return sub(name);
  }

  /// The existing subdirectory `name` (never a link).
  result<dir> sub(const std::string& name) const {
    const int fd = ::openat(fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      return make_error(e == ENOENT ? errc::not_found : errc::io,
                        path_of(name) + ": " + detail::dir_problem(fd_.get(), name.c_str(), e));
    }
    return dir(unique_fd(fd), path_of(name));
  }

  /// Creates the new file `name` (it must not exist), mode 0640 less the umask,
  /// write-only; `flags` adds e.g. O_APPEND, or O_RDWR (for a shared mapping).
  result<unique_fd> create(const std::string& name, int flags = 0) const {
    const int access = (flags & O_ACCMODE) == O_RDWR ? O_RDWR : O_WRONLY;
    const int fd = ::openat(fd_.get(), name.c_str(), access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (flags & ~O_ACCMODE),
                            file_mode);
    if (fd < 0) {
      const int e = errno;
      return make_error(errc::io, path_of(name) + ": cannot create: " + file_problem(name, e));
    }
    return unique_fd(fd);
  }

  /// Opens `name` for appending, created when missing (logs); never a link.
  result<unique_fd> append(const std::string& name) const {
    const int fd = ::openat(fd_.get(), name.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, file_mode);
    if (fd < 0) {
      const int e = errno;
      return make_error(errc::io, path_of(name) + ": cannot open: " + file_problem(name, e));
    }
    return unique_fd(fd);
  }

  /// The whole of the regular file `name` (one msprof updates), never through
  /// a link: errc::not_found when it is missing, errc::bad_size past `limit` bytes.
  result<std::string> read(const std::string& name, std::size_t limit) const {
    // O_NONBLOCK: a FIFO planted under the name fails the check below instead of blocking.
    unique_fd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd) {
      const int e = errno;
      return make_error(e == ENOENT ? errc::not_found : errc::io, path_of(name) + ": cannot open: " + file_problem(name, e));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return make_error(errc::io, path_of(name) + ": not a regular file");
    std::string text;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return make_error(errc::io, path_of(name) + ": read failed: " + detail::sys_err());
      if (n == 0) return text;
      if (text.size() + static_cast<std::size_t>(n) > limit)
        return make_error(errc::bad_size, path_of(name) + ": larger than " + std::to_string(limit) + " bytes");
      text.append(buf, static_cast<std::size_t>(n));
    }
  }

  /// Error when `name` exists as something an output file may not replace (a link, a directory).
  result<void> check_replaceable(const std::string& name) const {
    struct stat st {};
    if (::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
    if (S_ISLNK(st.st_mode))
      return make_error(errc::io, path_of(name) + ": is a symbolic link (msprof does not write through links)");
    if (!S_ISREG(st.st_mode)) return make_error(errc::io, path_of(name) + ": exists and is not a regular file");
    return {};
  }

  /// Removes the temporaries an interrupted run left here: our temporary
  /// names whose process is gone, last written before this process started.
  /// Returns a note for each.
  std::vector<std::string> remove_stale_temps() const {
    std::vector<std::string> notes;
    const int fd = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return notes;
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
      return notes;
    }
    const std::time_t start = detail::process_start();
    std::vector<std::string> stale;
    while (const dirent* e = ::readdir(d)) {
      const long pid = detail::temp_pid(e->d_name);
      if (pid <= 0) continue;
      struct stat st {};
      if (::fstatat(fd_.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
      if (st.st_mtime >= start) continue;  // maybe a writer running now
      if (pid != ::getpid() && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;
      stale.emplace_back(e->d_name);
    }
    ::closedir(d);
    for (const auto& n : stale)
      if (::unlinkat(fd_.get(), n.c_str(), 0) == 0)
        notes.push_back(path_of(n) + ": removed a temporary file left by an interrupted run");
    return notes;
  }

  int fd() const noexcept { return fd_.get(); }
  const std::string& path() const noexcept { return path_; }
  std::string path_of(const std::string& name) const { return path_ == "/" ? "/" + name : path_ + "/" + name; }
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }

 private:
  dir(unique_fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  std::string file_problem(const std::string& name, int e) const {
    struct stat st {};
    if ((e == ELOOP || e == EEXIST) && ::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
      return "is a symbolic link (msprof does not write through links)";
    if (e == EEXIST) return "it already exists";
    return detail::sys_err(e);
  }

  unique_fd fd_;
  std::string path_;
};

/// A file written under an unpredictable temporary name in its directory and
/// renamed over `name` by commit() (after fsync, unless told not to: the rename
/// alone keeps a killed process from leaving half a file, fsync also covers a
/// power loss); dropped uncommitted, the temporary is removed.
class atomic_file {
 public:
  atomic_file() = default;
  atomic_file(atomic_file&& o) noexcept
      : dir_(std::move(o.dir_)), fd_(std::move(o.fd_)), name_(std::move(o.name_)), temp_(std::move(o.temp_)), path_(std::move(o.path_)),
        temp_path_(std::move(o.temp_path_)), written_(o.written_), flushing_from_(o.flushing_from_), reserve_(o.reserve_) {
    o.temp_.clear();
  }
  atomic_file& operator=(atomic_file&& o) noexcept {
    if (this != &o) {
      discard();
      dir_ = std::move(o.dir_);
      fd_ = std::move(o.fd_);
      name_ = std::move(o.name_);
      temp_ = std::exchange(o.temp_, std::string());
      path_ = std::move(o.path_);
      temp_path_ = std::move(o.temp_path_);
      written_ = o.written_;
      flushing_from_ = o.flushing_from_;
      reserve_ = o.reserve_;
    }
    return *this;
  }
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file() { discard(); }

  /// Starts `name` in `d`: refused when `name` is a link or a directory.
  static result<atomic_file> create(const dir& d, const std::string& name) {
    MSPROF_TRY(d.check_replaceable(name));
    atomic_file f;
    f.dir_ = unique_fd(::fcntl(d.fd(), F_DUPFD_CLOEXEC, 0));
    if (!f.dir_) return make_error(errc::io, d.path() + ": " + detail::sys_err());
    f.name_ = name;
    f.path_ = d.path_of(name);
    for (int attempt = 0;; ++attempt) {
      std::string t = name + "." + std::to_string(::getpid()) + "." + detail::random_hex() + std::string(temp_suffix);
      auto fd = d.create(t);
      if (fd) {
        f.fd_ = std::move(*fd);
        f.temp_ = std::move(t);
        f.temp_path_ = d.path_of(f.temp_);
        return f;
      }
      if (attempt == 4) return fd.err();
    }
  }

  result<void> write(std::string_view s) {
    reserve_.before_write(fd_.get(), written_, s.size());
    MSPROF_TRY(write_all(fd_.get(), s.data(), s.size(), temp_path_));
    written_ += s.size();
#ifdef SYNC_FILE_RANGE_WRITE
    // The disk writes what is written while the rest is made: commit()'s
    // fsync then waits for the last few MiB, not the whole file. Only a start:
    // a failure here is fsync's to report.
    if (written_ - flushing_from_ >= writeback_step) {
      ::sync_file_range(fd_.get(), static_cast<off_t>(flushing_from_), static_cast<off_t>(written_ - flushing_from_),
                        SYNC_FILE_RANGE_WRITE);
      flushing_from_ = written_;
    }
#endif
    return {};
  }

  /// commit() under another final name in the same directory (a name known
  /// only once the file is written).
  result<void> commit_as(const std::string& name) {
    const std::size_t slash = path_.rfind('/');
    path_ = path_.substr(0, slash + 1) + name;
    name_ = name;
    return commit();
  }

  /// fsync (when `sync`), then renameat over the final name.
  result<void> commit(bool sync = true) {
    if (!reserve_.give_back(fd_.get(), written_)) {
      const auto e = make_error(errc::io, temp_path_ + ": cannot truncate: " + detail::sys_err());
      discard();
      return e;
    }
    if (sync && ::fsync(fd_.get()) != 0) {
      const auto e = make_error(errc::io, temp_path_ + ": cannot sync: " + detail::sys_err());
      discard();
      return e;
    }
    fd_.reset();
    // renameat replaces a link rather than following it; refusing one keeps the error clear.
    struct stat st {};
    if (::fstatat(dir_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      discard();
      return make_error(errc::io, path_ + ": is a symbolic link (msprof does not write through links)");
    }
    if (::renameat(dir_.get(), temp_.c_str(), dir_.get(), name_.c_str()) != 0) {
      const auto e = make_error(errc::io, path_ + ": cannot rename the temporary file: " + detail::sys_err());
      discard();
      return e;
    }
    temp_.clear();
    return {};
  }

  /// Removes the temporary (nothing once committed).
  void discard() noexcept {
    fd_.reset();
    if (!temp_.empty() && dir_) ::unlinkat(dir_.get(), temp_.c_str(), 0);
    temp_.clear();
  }

  int fd() const noexcept { return fd_.get(); }
  /// The final path, and the temporary's (for a writer that opens it by name, such as SQLite).
  const std::string& path() const noexcept { return path_; }
  const std::string& temp_path() const noexcept { return temp_path_; }

 private:
  static constexpr std::uint64_t writeback_step = std::uint64_t{8} << 20;
  unique_fd dir_, fd_;
  std::string name_, temp_, path_, temp_path_;
  std::uint64_t written_ = 0, flushing_from_ = 0;  // bytes written; those not yet handed to the disk start here
  reserve_ahead reserve_;
};

/// Writes `text` to `name` in `d` atomically (fsynced when `sync`).
inline result<void> write_atomic(const dir& d, const std::string& name, std::string_view text, bool sync = true) {
  auto f = atomic_file::create(d, name);
  if (!f) return f.err();
  MSPROF_TRY(f->write(text));
  return f->commit(sync);
}

/// Writes `text` to `path` atomically; the directory it is in must be a real one.
inline result<void> write_atomic(const std::string& path, std::string_view text, bool sync = true) {
  const std::size_t slash = path.rfind('/');
  auto d = dir::open(slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash));
  if (!d) return d.err();
  return write_atomic(*d, path.substr(slash == std::string::npos ? 0 : slash + 1), text, sync);
}

}  // namespace outfile
MSPROF_END_NAMESPACE

#endif  // MSPROF_CORE_OUTPUT_FILE_HPP
