// SPDX-License-Identifier: MIT
// core/output_file.hpp: no write through a link, modes the stricter of the
// umask and 0750/0640, unpredictable temporaries, leftovers of a killed run
// removed.
#include <msprof/core/output_file.hpp>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../../support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace msprof;

namespace {

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

/// The umask for one scope (umask is per process; tests run in separate processes or one after another).
struct scoped_umask {
  mode_t old;
  explicit scoped_umask(mode_t m) : old(::umask(m)) {}
  ~scoped_umask() { ::umask(old); }
};

}  // namespace

TEST_CASE("outfile: a link at the output file or directory is refused, its target unchanged") {
  temp_dir t;
  write_text(t / "victim", "precious");
  fs::create_directory(t / "out");
  fs::create_symlink(t / "victim", t / "out" / "a.json");
  auto d = outfile::dir::open((t / "out").string());
  REQUIRE(d);
  auto f = outfile::atomic_file::create(*d, "a.json");
  REQUIRE_FALSE(f);
  CHECK(f.err().message == (t / "out" / "a.json").string() + ": is a symbolic link (msprof does not write through links)");
  CHECK(read_text(t / "victim") == "precious");

  fs::create_directory(t / "elsewhere");
  fs::create_directory_symlink(t / "elsewhere", t / "linked");
  auto l = outfile::dir::open((t / "linked").string());
  REQUIRE_FALSE(l);
  CHECK(l.err().message.find("linked: is a symbolic link") != std::string::npos);
  auto m = outfile::dir::make((t / "linked").string());
  REQUIRE_FALSE(m);
  CHECK(m.err().message.find("linked: is a symbolic link") != std::string::npos);
  REQUIRE(d->mkdir("sub"));
  fs::create_directory_symlink(t / "elsewhere", t / "out" / "sublink");
  CHECK_FALSE(d->mkdir("sublink"));
  CHECK(fs::is_empty(t / "elsewhere"));
  // Directories above the output directory are the user's: a link there is followed.
  auto below = outfile::dir::make((t / "linked" / "a" / "b").string());
  REQUIRE(below);
  CHECK(fs::is_directory(t / "elsewhere" / "a" / "b"));
  write_text(t / "file", "x");
  auto nd = outfile::dir::make((t / "file").string());
  REQUIRE_FALSE(nd);
  CHECK(nd.err().message == (t / "file").string() + ": exists and is not a directory");
}

TEST_CASE("outfile: a file read back whole, never through a link, a FIFO refused without waiting") {
  temp_dir t;
  fs::create_directory(t / "out");
  const std::string big(10000, 'x');  // more than one read
  write_text(t / "out" / "a.json", big);
  write_text(t / "victim", "precious");
  fs::create_symlink(t / "victim", t / "out" / "link.json");
  REQUIRE(::mkfifo((t / "out" / "fifo").c_str(), 0600) == 0);
  auto d = outfile::dir::open((t / "out").string());
  REQUIRE(d);
  auto a = d->read("a.json", big.size());
  REQUIRE(a);
  CHECK(*a == big);
  auto over = d->read("a.json", big.size() - 1);
  REQUIRE_FALSE(over);
  CHECK(over.err().code == errc::bad_size);
  auto missing = d->read("b.json", 100);
  REQUIRE_FALSE(missing);
  CHECK(missing.err().code == errc::not_found);
  auto link = d->read("link.json", 100);
  REQUIRE_FALSE(link);
  CHECK(link.err().message ==
        (t / "out" / "link.json").string() + ": cannot open: is a symbolic link (msprof does not write through links)");
  auto fifo = d->read("fifo", 100);  // no writer: a blocking open would hang here
  REQUIRE_FALSE(fifo);
  CHECK(fifo.err().message == (t / "out" / "fifo").string() + ": not a regular file");
}

TEST_CASE("outfile: atomic files: unpredictable temporaries, nothing left, replaced whole") {
  temp_dir t;
  auto d = outfile::dir::make((t / "out").string());
  REQUIRE(d);
  auto a = outfile::atomic_file::create(*d, "x.csv");
  auto b = outfile::atomic_file::create(*d, "x.csv");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->temp_path() != b->temp_path());
  CHECK(outfile::detail::temp_pid(fs::path(a->temp_path()).filename().string()) == ::getpid());
  REQUIRE(a->write("one"));
  REQUIRE(a->commit());
  b->discard();
  CHECK(read_text(t / "out" / "x.csv") == "one");
  REQUIRE(outfile::write_atomic((t / "out" / "x.csv").string(), "two"));
  CHECK(read_text(t / "out" / "x.csv") == "two");
  {
    auto c = outfile::atomic_file::create(*d, "y.csv");
    REQUIRE(c);
    REQUIRE(c->write("dropped"));
  }
  int n = 0;
  for (const auto& e : fs::directory_iterator(t / "out")) {
    CAPTURE(e.path().string());
    CHECK(e.path().filename() == "x.csv");
    ++n;
  }
  CHECK(n == 1);
}

TEST_CASE("outfile: an atomic file gets blocks allocated ahead only past a MiB, and keeps none past its end once committed") {
  temp_dir t;
  auto d = outfile::dir::make((t / "out").string());
  REQUIRE(d);
  auto f = outfile::atomic_file::create(*d, "big.json");
  REQUIRE(f);
  const std::string mib(std::size_t{1} << 20, 'x');
  struct stat st {};
  REQUIRE(f->write(mib.substr(0, 100000)));  // a small file: nothing allocated ahead
  REQUIRE(::fstat(f->fd(), &st) == 0);
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < (std::uint64_t{1} << 20));
  REQUIRE(f->write(mib.substr(100000)));
  for (int i = 1; i < 9; ++i) REQUIRE(f->write(mib));  // the second 8 MiB step is allocated at the ninth
  REQUIRE(f->write("end"));
  REQUIRE(f->commit(false));
  REQUIRE(::stat((t / "out" / "big.json").c_str(), &st) == 0);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  CHECK(size == 9 * mib.size() + 3);
  // Allocated: the size in whole blocks (7 MiB more when the 16 MiB ahead were kept).
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < size + (std::uint64_t{1} << 20));
  const std::string text = read_text(t / "out" / "big.json");
  CHECK(text.size() == size);
  CHECK(text.compare(text.size() - 4, 4, "xend") == 0);
}

TEST_CASE("outfile: modes are the stricter of the umask and 0750/0640") {
  for (const mode_t mask : {mode_t(0), mode_t(022), mode_t(077)}) {
    CAPTURE(mask);
    temp_dir t;
    {
      scoped_umask u(mask);
      auto d = outfile::dir::make((t / "a" / "b").string());
      REQUIRE(d);
      REQUIRE(outfile::write_atomic(*d, "f", "x"));
      REQUIRE(d->create("g"));
      REQUIRE(d->append("h"));
    }
    const unsigned dm = 0750 & ~mask, fm = 0640 & ~mask;
    CHECK(mode_of(t / "a") == dm);
    CHECK(mode_of(t / "a" / "b") == dm);
    for (const char* f : {"f", "g", "h"}) {
      CAPTURE(f);
      CHECK(mode_of(t / "a" / "b" / f) == fm);
    }
  }
}

TEST_CASE("outfile: temporaries of a killed run are removed, a running writer's are kept") {
  temp_dir t;
  auto d = outfile::dir::make((t / "out").string());
  REQUIRE(d);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  int st = 0;
  REQUIRE(::waitpid(child, &st, 0) == child);  // a pid whose process is gone
  const std::string dead = "a.json." + std::to_string(child) + ".0123456789abcdef.msprof.tmp";
  const std::string live = "b.json." + std::to_string(::getpid()) + ".0123456789abcdef.msprof.tmp";
  const std::string young = "c.json." + std::to_string(child) + ".0123456789abcdef.msprof.tmp";
  const std::string old_form = "e.csv.tmp" + std::to_string(child);  // msprof before the output layer
  const std::string old_young = "f.csv.tmp" + std::to_string(child);
  for (const auto& n : {dead, live, young, old_form, old_young, std::string("user.tmp"), std::string("user.tmpx1"),
                        std::string("d.json.12.nothex.msprof.tmp")})
    write_text(t / "out" / n, "x");
  // Written before this process started: the killed run and (same pid, earlier process) ours.
  const timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
  for (const auto& n : {dead, live, old_form, std::string("user.tmp"), std::string("user.tmpx1"),
                        std::string("d.json.12.nothex.msprof.tmp")})
    REQUIRE(::utimensat(AT_FDCWD, (t / "out" / n).c_str(), old, 0) == 0);
  const auto notes = d->remove_stale_temps();
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].find("removed a temporary file left by an interrupted run") != std::string::npos);
  CHECK_FALSE(fs::exists(t / "out" / dead));
  CHECK_FALSE(fs::exists(t / "out" / live));  // same pid, but older than this process: an earlier one
  CHECK(fs::exists(t / "out" / young));       // written after this process started: maybe running
  CHECK_FALSE(fs::exists(t / "out" / old_form));
  CHECK(fs::exists(t / "out" / old_young));
  CHECK(fs::exists(t / "out" / "user.tmp"));
  CHECK(fs::exists(t / "out" / "user.tmpx1"));
  CHECK(fs::exists(t / "out" / "d.json.12.nothex.msprof.tmp"));
}
