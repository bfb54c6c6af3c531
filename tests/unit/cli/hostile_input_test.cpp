// SPDX-License-Identifier: MIT
// Hostile input through the built msprof binary: links in a parent directory,
// and the mutation test.
//
// Mutation test (issue 25, docs/formats.md "Damaged input"): seeded random
// damage to copies of the golden PROF_ directories, exported by the built
// msprof binary (timeline, summary, db), each run under a timeout.
//
// Mutation s (s = MSPROF_MUTATION_SEED .. +MSPROF_MUTATION_COUNT-1, default
// 1 .. 1000) is made from seed s alone: one golden case, one file of it, one
// kind of damage (truncate, append, flip bytes, delete, replace with a FIFO,
// a directory or a symlink). BATCH of them go into one parent directory and
// one `msprof export <kind> -dir <parent>` exports them all.
//
// Asserted for every run:
//   - no crash (a signal), no hang (killed after the timeout), no sanitizer report;
//   - exit code 0 or 1, and 1 exactly when an `msprof: error:` line is printed;
//   - no temporary (`*.tmp*`) or empty output file is left behind;
//   - no silent loss: when the mutation changes what a data slice
//     (host/data/* or device_N/data/*, whose `.done` gives its size) holds in a
//     way the reader can see - shorter or longer than its .done (truncate,
//     append), gone (delete), or not a readable regular file (FIFO, directory,
//     symlink to a device or to nothing) - an `msprof: warning:` or
//     `msprof: error:` line names that PROF_ directory. Byte flips, symlinks to
//     a copy of the same bytes and damage to control or .done files are only
//     checked for the points above (a flipped timestamp cannot be seen).
// A failure prints the seed and the mutation; to replay one:
//   MSPROF_MUTATION_SEED=<s> MSPROF_MUTATION_COUNT=1 test_cli -tc='cli: mutated*'
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

#ifdef MSPROF_TEST_CLI

namespace {

using namespace msprof_cli_test;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end && *end == '\0' ? n : fallback;
}

const char* const kCases[] = {"host_api_only", "mstx_domains", "multi_thread_mixed", "ops_pipeutil", "truncated_tail"};

struct mutation {
  std::uint64_t seed = 0;
  fs::path dir;           ///< the mutated PROF_ copy
  std::string what;       ///< "seed 17: ops_pipeutil host/data/...: truncate 2304 -> 100"
  bool must_report = false;
};

bool is_data_slice(const fs::path& rel) {
  const std::string name = rel.filename().string();
  return rel.parent_path().filename() == "data" && name.find(".slice_") != std::string::npos &&
         name.size() > 5 && name.compare(name.size() - 5, 5, ".done") != 0;
}

/// Copies a golden case to `dir` and damages it as seed `s` says.
mutation make_mutation(std::uint64_t s, const fs::path& parent, const fs::path& spare) {
  std::mt19937_64 rng(s);
  auto pick = [&](std::uint64_t n) { return n ? rng() % n : 0; };
  mutation m;
  m.seed = s;
  const std::string c = kCases[pick(std::size(kCases))];
  fs::path golden;
  for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden" / c / "input")) golden = e.path();
  char name[48];
  std::snprintf(name, sizeof name, "PROF_%012llu_MUTATED", static_cast<unsigned long long>(s));
  m.dir = parent / name;
  fs::copy(golden, m.dir, fs::copy_options::recursive);

  std::vector<fs::path> all, slices;
  for (const auto& e : fs::recursive_directory_iterator(m.dir))
    if (e.is_regular_file()) all.push_back(fs::relative(e.path(), m.dir));
  std::sort(all.begin(), all.end());
  for (const auto& f : all)
    if (is_data_slice(f)) slices.push_back(f);
  // Mostly data slices (where records live), sometimes any file.
  const fs::path rel = pick(10) < 7 && !slices.empty() ? slices[pick(slices.size())] : all[pick(all.size())];
  const fs::path file = m.dir / rel;
  const bool checked_slice = is_data_slice(rel) && fs::exists(file.string() + ".done");
  const auto size = fs::file_size(file);
  m.what = "seed " + std::to_string(s) + ": " + c + " " + rel.string() + ": ";

  enum { truncate, append, flip, remove, fifo, directory, symlink, kinds };
  switch (pick(kinds)) {
    case truncate: {
      const auto to = pick(size);
      fs::resize_file(file, to);
      m.what += "truncate " + std::to_string(size) + " -> " + std::to_string(to);
      m.must_report = checked_slice && to < size;
      break;
    }
    case append: {
      const std::size_t n = 1 + pick(512);
      std::string bytes(n, '\0');
      if (pick(2))
        for (auto& b : bytes) b = static_cast<char>(rng());
      std::ofstream(file, std::ios::binary | std::ios::app) << bytes;
      m.what += "append " + std::to_string(n) + (bytes.find_first_not_of('\0') == std::string::npos ? " zero bytes" : " random bytes");
      m.must_report = checked_slice;
      break;
    }
    case flip: {
      std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
      const std::size_t n = 1 + pick(8);
      m.what += "flip";
      for (std::size_t i = 0; i < n && size > 0; ++i) {
        const auto at = pick(size);
        char b = 0;
        f.seekg(static_cast<std::streamoff>(at));
        f.get(b);
        const char x = static_cast<char>(1 + pick(255));
        f.seekp(static_cast<std::streamoff>(at));
        f.put(static_cast<char>(b ^ x));
        m.what += " @" + std::to_string(at);
      }
      break;
    }
    case remove:
      fs::remove(file);
      m.what += "delete";
      m.must_report = checked_slice;
      break;
    case fifo:
      fs::remove(file);
      REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
      m.what += "replace with a FIFO";
      m.must_report = checked_slice;
      break;
    case directory:
      fs::remove(file);
      fs::create_directory(file);
      m.what += "replace with a directory";
      m.must_report = checked_slice;
      break;
    default: {
      const auto to = pick(3);
      fs::path target = to == 0 ? fs::path("/dev/zero") : to == 1 ? m.dir / "no_such_file" : spare / name / rel;
      if (to == 2) {
        fs::create_directories(target.parent_path());
        fs::copy_file(file, target);
      }
      fs::remove(file);
      fs::create_symlink(target, file);
      m.what += "replace with a symlink to " + (to == 2 ? std::string("a copy of its bytes") : target.string());
      m.must_report = checked_slice && to != 2;
      break;
    }
  }
  return m;
}

bool names(const std::string& line, const mutation& m) {
  const std::string n = m.dir.filename().string();
  return line.find(n + "/") != std::string::npos || line.find(n + ":") != std::string::npos;
}

/// The problems of one `msprof export <kind>` over a batch (empty = fine).
std::vector<std::string> check_run(const std::string& kind, int rc, const std::string& err,
                                   const std::vector<mutation>& batch, unsigned timeout_s) {
  std::vector<std::string> bad;
  auto all = [&](const std::string& why) {
    for (const auto& m : batch) bad.push_back(m.what + ": export " + kind + ": " + why);
  };
  if (rc == 124 || rc == 128 + 9)
    all("hang: killed after " + std::to_string(timeout_s) + " s");
  else if (rc >= 128)
    all("crash: signal " + std::to_string(rc - 128));
  else if (rc != 0 && rc != 1)
    all("exit code " + std::to_string(rc));
  if (!bad.empty()) return bad;
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; at < err.size(); at = nl + 1) {
    nl = err.find('\n', at);
    if (nl == std::string::npos) nl = err.size();
    lines.push_back(err.substr(at, nl - at));
  }
  auto is_error = [](const std::string& l) { return l.rfind("msprof: error: ", 0) == 0; };
  auto is_report = [&](const std::string& l) { return is_error(l) || l.rfind("msprof: warning: ", 0) == 0; };
  // A sanitizer build's report (ASan exits 1, UBSan may go on): never fine.
  for (const auto& l : lines)
    if (l.find("Sanitizer") != std::string::npos || l.find("runtime error:") != std::string::npos) {
      all("sanitizer report: " + l);
      return bad;
    }
  const bool any_error = std::any_of(lines.begin(), lines.end(), is_error);
  if ((rc == 1) != any_error)
    all("exit code " + std::to_string(rc) + (any_error ? " with" : " without") + " an `msprof: error:` line");
  for (const auto& m : batch) {
    if (m.must_report && std::none_of(lines.begin(), lines.end(), [&](const std::string& l) { return is_report(l) && names(l, m); }))
      bad.push_back(m.what + ": export " + kind + " exit " + std::to_string(rc) +
                    " with no warning or error naming " + m.dir.filename().string() + " (silent loss)");
    for (const auto& f : outputs(m.dir)) {
      std::error_code ec;
      if (f.filename().string().find(".tmp") != std::string::npos)
        bad.push_back(m.what + ": export " + kind + " left a temporary file " + f.string());
      else if (fs::is_regular_file(f, ec) && fs::file_size(f, ec) == 0)
        bad.push_back(m.what + ": export " + kind + " left an empty file " + f.string());
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("cli: mutated PROF_ directories: no crash, no hang, no silent loss") {
  const std::uint64_t first = env_u64("MSPROF_MUTATION_SEED", 1);
  const std::uint64_t count = env_u64("MSPROF_MUTATION_COUNT", 1000);
  const std::uint64_t per_run = std::max<std::uint64_t>(1, env_u64("MSPROF_MUTATION_BATCH", 50));
  const unsigned timeout_s = 60;  // a batch takes well under a second; only a hang reaches this
  // In memory when there is a tmpfs: the exports fsync every file, and on a
  // busy disk that, not the export, is what takes the time (94 s against 10 s).
  const bool shm = ::access("/dev/shm", W_OK | X_OK) == 0;
  sandbox s(shm ? fs::path("/dev/shm") : fs::temp_directory_path());
  std::vector<std::string> failures;
  std::size_t reported = 0;
  for (std::uint64_t b = 0; b < count; b += per_run) {
    const fs::path parent = s.root / ("batch_" + std::to_string(b));
    const fs::path spare = s.root / ("spare_" + std::to_string(b));
    fs::create_directories(parent);
    std::vector<mutation> batch;
    for (std::uint64_t i = b; i < std::min(count, b + per_run); ++i) batch.push_back(make_mutation(first + i, parent, spare));
    for (const std::string kind : {"timeline", "summary", "db"}) {
      const auto out = s.root / "stdout.txt", err = s.root / "stderr.txt";
      const std::string cmd = "timeout -s KILL " + std::to_string(timeout_s) + " " + quote(MSPROF_TEST_CLI) + " export " +
                              kind + " -dir " + quote(parent.string()) + " >" + quote(out.string()) + " 2>" +
                              quote(err.string()) + " </dev/null";
      const int st = std::system(cmd.c_str());
      const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
      const std::string text = slurp(err);
      for (auto& f : check_run(kind, rc, text, batch, timeout_s)) failures.push_back(std::move(f));
    }
    for (const auto& m : batch) reported += m.must_report;
    std::error_code ec;
    fs::remove_all(parent, ec);
    fs::remove_all(spare, ec);
  }
  MESSAGE(count << " mutations (seeds " << first << ".." << first + count - 1 << "), " << reported
                << " of them a data slice change the reader must report");
  for (std::size_t i = 0; i < failures.size() && i < 30; ++i) FAIL_CHECK(failures[i]);
  if (!failures.empty())
    FAIL(failures.size() << " problem(s); replay one: MSPROF_MUTATION_SEED=<seed> MSPROF_MUTATION_COUNT=1 test_cli "
                            "-tc='cli: mutated*'");
}

TEST_CASE("cli: export -dir <parent> skips PROF_* links in it with a warning, and writes nothing through them") {
  sandbox s;
  const fs::path real = s.add("mstx_domains", "parent");
  const fs::path outside = s.add("host_api_only", "outside");
  fs::create_directory_symlink(outside, s.root / "parent" / "PROF_000002_LINKED");
  for (const char* kind : {"timeline", "summary", "db"}) {
    CAPTURE(kind);
    auto r = s.run({"export", kind, "-dir", (s.root / "parent").string()});
    CAPTURE(r.err);
    CHECK(r.rc == 0);
    CHECK(r.err.find("msprof: warning: " + (s.root / "parent" / "PROF_000002_LINKED").string() +
                     ": a symbolic link; skipped") != std::string::npos);
    CHECK_FALSE(outputs(real).empty());
    CHECK(outputs(outside).empty());
  }
  fs::remove_all(real);
  auto r = s.run({"export", "summary", "-dir", (s.root / "parent").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("no PROF_ directory found") != std::string::npos);
  CHECK(outputs(outside).empty());
  // The PROF_ directory itself may be a link the user gives.
  r = s.run({"export", "summary", "-dir", (s.root / "parent" / "PROF_000002_LINKED").string()});
  CHECK(r.rc == 0);
  CHECK_FALSE(outputs(outside).empty());
}

#endif  // MSPROF_TEST_CLI
