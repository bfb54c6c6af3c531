// SPDX-License-Identifier: MIT
// The exporters write only into the output directory (docs/configuration.md,
// "Output safety"): no write through a link planted at a file name, modes the
// stricter of the umask and 0750/0640, temporaries of a killed export removed.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

cv::export_options at_t() {
  cv::export_options o;
  o.timestamp = "T";
  return o;
}

}  // namespace

TEST_CASE("export: a link planted at a temporary name is not followed, its target unchanged") {
  golden::temp_copy t("mstx_domains", "_plant");
  const auto out = t.prof / "mindstudio_profiler_output";
  fs::create_directory(out);
  std::ofstream(t.root / "victim") << "precious";
  // The names earlier versions wrote through: <file>.tmp<pid>.
  const std::string pid = std::to_string(::getpid());
  for (const char* f : {"msprof_T.json", "msprof_tx_T.json", "msprof_tx_T.csv", "op_summary_T.csv", "README.txt"})
    fs::create_symlink(t.root / "victim", out / (std::string(f) + ".tmp" + pid));
  fs::create_symlink(t.root / "victim", t.prof / ("msprof_T.db.tmp" + pid));
  auto r = cv::export_all(t.prof.string(), at_t());
  CAPTURE(r ? std::string() : r.err().what());
  REQUIRE(r);
  CHECK(golden::slurp(t.root / "victim") == "precious");
  CHECK(fs::is_regular_file(out / "msprof_tx_T.csv"));
  CHECK(fs::is_regular_file(out / "msprof_T.json"));
}

TEST_CASE("export: a link at an output file name is refused and not written through") {
  golden::temp_copy t("mstx_domains", "_linkout");
  const auto out = t.prof / "mindstudio_profiler_output";
  fs::create_directory(out);
  std::ofstream(t.root / "victim") << "precious";
  fs::create_symlink(t.root / "victim", out / "msprof_tx_T.csv");
  auto r = cv::export_summary(t.prof.string(), at_t());
  REQUIRE_FALSE(r);
  CHECK(r.err().message == (out / "msprof_tx_T.csv").string() + ": is a symbolic link (msprof does not write through links)");
  CHECK(golden::slurp(t.root / "victim") == "precious");
}

TEST_CASE("export: modes are the stricter of the umask and 0750/0640 (umask 000 and 077)") {
  for (const mode_t mask : {mode_t(0), mode_t(077)}) {
    CAPTURE(mask);
    golden::temp_copy t("ops_pipeutil", "_umask");
    const mode_t old = ::umask(mask);
    auto r = cv::export_all(t.prof.string(), at_t());
    ::umask(old);
    REQUIRE(r);
    const unsigned dm = 0750 & ~mask, fm = 0640 & ~mask;
    const auto out = t.prof / "mindstudio_profiler_output";
    CHECK(mode_of(out) == dm);
    int files = 0;
    for (const auto& e : fs::directory_iterator(out)) {
      CAPTURE(e.path().string());
      CHECK(mode_of(e.path()) == fm);
      ++files;
    }
    CHECK(files > 5);
    CHECK(mode_of(t.prof / "msprof_T.db") == fm);
  }
}

TEST_CASE("export: temporaries a killed export left are removed by the next export, with a warning") {
  golden::temp_copy t("mstx_domains", "_leftover");
  const auto out = t.prof / "mindstudio_profiler_output";
  fs::create_directory(out);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  int st = 0;
  REQUIRE(::waitpid(child, &st, 0) == child);  // the "killed" export's pid: gone
  const std::string tail = "." + std::to_string(child) + ".00112233445566ff.msprof.tmp";
  const fs::path left[] = {out / ("msprof_tx_X.csv" + tail), t.prof / ("msprof_X.db" + tail)};
  const timespec old[2] = {{1000000000, 0}, {1000000000, 0}};  // before this process started
  for (const auto& p : left) {
    std::ofstream(p) << std::string(4096, 'x');
    REQUIRE(::utimensat(AT_FDCWD, p.c_str(), old, 0) == 0);
  }
  auto r = cv::export_all(t.prof.string(), at_t());
  REQUIRE(r);
  int notes = 0;
  for (const auto& p : left) {
    CAPTURE(p.string());
    CHECK_FALSE(fs::exists(p));
    for (const auto& w : r->warnings)
      notes += w == p.string() + ": removed a temporary file left by an interrupted run";
  }
  CHECK(notes == 2);
}

TEST_CASE("export: links above the output directory are the user's: -dir through a link exports every part") {
  golden::temp_copy t("mstx_domains", "_userlink");
  fs::create_directory_symlink(t.root, t.root.string() + "_link");
  const auto via = fs::path(t.root.string() + "_link") / t.prof.filename();
  auto r = cv::export_all(via.string(), at_t());
  fs::remove(t.root.string() + "_link");
  CAPTURE(r ? std::string() : r.err().what());
  REQUIRE(r);
  CHECK(fs::is_regular_file(t.prof / "msprof_T.db"));
  CHECK(fs::is_regular_file(t.prof / "mindstudio_profiler_output" / "msprof_T.json"));
}

TEST_CASE("export --clear removes sqlite/ in real subdirectories only, never through a link") {
  golden::temp_copy t("mstx_domains", "_clear");
  fs::create_directories(t.root / "victim" / "sqlite");
  std::ofstream(t.root / "victim" / "sqlite" / "keep.db") << "precious";
  fs::create_directory_symlink(t.root / "victim", t.prof / "linked");
  fs::create_directories(t.prof / "host" / "sqlite");
  auto o = at_t();
  o.clear = true;
  auto r = cv::export_summary(t.prof.string(), o);
  CAPTURE(r ? std::string() : r.err().what());
  REQUIRE(r);
  CHECK_FALSE(fs::exists(t.prof / "host" / "sqlite"));
  CHECK(golden::slurp(t.root / "victim" / "sqlite" / "keep.db") == "precious");
}
