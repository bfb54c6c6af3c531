// SPDX-License-Identifier: MIT
// libmsprof_mstx.so driven by the raw loader protocol (loader_app), with the
// launcher's environment; checks the PROF_ directory it leaves behind.
#include <doctest/doctest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;
namespace fs = std::filesystem;

namespace {
int run_loader(const std::vector<std::string>& env_extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "MSPROF_", 7) != 0 && std::strncmp(*e, "MSTX_", 5) != 0 && std::strncmp(*e, "ASAN_OPTIONS=", 13) != 0)
      env.emplace_back(*e);
  env.insert(env.end(), env_extra.begin(), env_extra.end());
  // LeakSanitizer's tracer (gcc 12, glibc 2.36) crashes on the dynamic TLS of a
  // dlopen'ed library; ASan and UBSan stay on. No effect without sanitizers.
  env.emplace_back("ASAN_OPTIONS=detect_leaks=0");
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string app = MSPROF_LOADER_APP, lib = MSPROF_TEST_INJECTION_LIB;
  char* argv[] = {app.data(), lib.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, app.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

struct tx {
  std::uint32_t tid;
  std::uint32_t event_type;
  std::uint64_t start, end, id, domain;
  std::string message;
};

std::vector<tx> read_tx(const fs::path& data) {
  std::vector<tx> out;
  for (auto& e : fs::directory_iterator(data)) {
    auto name = e.path().filename().string();
    if (name.rfind("aging.additional.msproftx.slice_", 0) != 0 || name.find(".done") != std::string::npos) continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() % 256 == 0);
    for (std::size_t off = 0; off < bytes.size(); off += 256) {
      const char* p = bytes.data() + off;
      std::uint16_t magic, level, info_type;
      std::memcpy(&magic, p, 2);
      std::memcpy(&level, p + 2, 2);
      std::memcpy(&info_type, p + 24, 2);
      CHECK(magic == 0x5A5A);
      CHECK(level == 20500);
      CHECK(info_type == 1);
      const char* st = p + 32;
      tx t;
      std::memcpy(&t.tid, st + 8, 4);
      std::memcpy(&t.event_type, st + 16, 4);
      std::memcpy(&t.start, st + 32, 8);
      std::memcpy(&t.end, st + 40, 8);
      std::memcpy(&t.id, st + 48, 8);
      std::memcpy(&t.domain, st + 56, 8);
      t.message = std::string(st + 68, strnlen(st + 68, 156));
      out.push_back(t);
    }
  }
  return out;
}

fs::path only_prof_dir(const fs::path& out) {
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) dirs.push_back(e.path());
  REQUIRE(dirs.size() == 1);
  return dirs[0];
}
}  // namespace

TEST_CASE("libmsprof_mstx.so records what a raw loader sends it") {
  fs::path out = fs::path(MSPROF_TEST_BINARY_DIR) / "loader_out_all";
  fs::remove_all(out);
  REQUIRE(run_loader({"MSPROF_OUTPUT=" + out.string()}) == 0);
  fs::path prof = only_prof_dir(out);
  CHECK(fs::exists(prof / "host" / "info.json"));
  CHECK(fs::exists(prof / "host" / "host_start.log"));
  CHECK(fs::exists(prof / "host" / "start_info"));
  CHECK(fs::exists(prof / "host" / "end_info"));
  auto recs = read_tx(prof / "host" / "data");
  REQUIRE(recs.size() == 4);
  std::vector<std::string> msgs;
  for (auto& r : recs) msgs.push_back(r.message);
  auto find = [&](const std::string& m) -> const tx* {
    for (auto& r : recs)
      if (r.message == m) return &r;
    return nullptr;
  };
  REQUIRE(find("loader mark") != nullptr);
  CHECK(find("loader mark")->event_type == 0);
  CHECK(find("loader mark")->id == 1);
  REQUIRE(find("loader range") != nullptr);
  CHECK(find("loader range")->event_type == 2);
  CHECK(find("loader range")->end >= find("loader range")->start);
  REQUIRE(find("domain mark") != nullptr);
  REQUIRE(find("domain range") != nullptr);
  CHECK(find("domain mark")->domain != find("loader mark")->domain);
  std::ifstream hd(prof / "host" / "data" / "unaging.additional.hash_dic.slice_0");
  std::stringstream ss;
  ss << hd.rdbuf();
  CHECK(ss.str().find(std::to_string(find("domain mark")->domain) + ":loaderdom\n") != std::string::npos);
  CHECK(ss.str().find(std::to_string(find("loader mark")->domain) + ":default\n") != std::string::npos);
}

TEST_CASE("libmsprof_mstx.so applies MSPROF_MSTX_DOMAIN_INCLUDE") {
  fs::path out = fs::path(MSPROF_TEST_BINARY_DIR) / "loader_out_include";
  fs::remove_all(out);
  REQUIRE(run_loader({"MSPROF_OUTPUT=" + out.string(), "MSPROF_MSTX_DOMAIN_INCLUDE=loaderdom"}) == 0);
  auto recs = read_tx(only_prof_dir(out) / "host" / "data");
  REQUIRE(recs.size() == 2);
  for (auto& r : recs) CHECK(r.message.rfind("domain ", 0) == 0);
}

TEST_CASE("libmsprof_mstx.so refuses a bad configuration without breaking the program") {
  fs::path out = fs::path(MSPROF_TEST_BINARY_DIR) / "loader_out_bad";
  fs::remove_all(out);
  CHECK(run_loader({"MSPROF_OUTPUT=" + out.string(), "MSPROF_STORAGE_LIMIT=lots"}) == 5);  // init fails
  CHECK(run_loader({}) == 5);  // no MSPROF_OUTPUT
}
