// SPDX-License-Identifier: MIT
// `msprof collect` on this machine with the SoC example program, then export,
// show and the errors of the SoC commands, end to end through the built msprof:
// the files --all leaves match docs/soc.md's file-name patterns, the acl.json
// options reach the program (switch, acl_api, aac_metrics), bad command lines
// and damaged JOB directories get one message naming the problem.
#include <doctest/doctest.h>
#include <simdjson.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../chrome/trace_testing.hpp"
#include "../cli/cli_helpers.hpp"

#if defined(MSPROF_TEST_CLI) && defined(MSPROF_TEST_SOC_PROGRAM)
using namespace msprof_cli_test;
namespace fs = std::filesystem;

namespace {

/// docs/soc.md's "File names" table: pattern cells -> regexes ({x} = one field).
std::vector<std::regex> doc_file_patterns() {
  const std::string doc = read_text(fs::path(MSPROF_TEST_SOURCE_DIR) / "docs" / "soc.md");
  auto at = doc.find("## File names");
  REQUIRE(at != std::string::npos);
  std::istringstream in(doc.substr(at));
  std::vector<std::regex> out;
  std::string line;
  std::getline(in, line);  // the heading
  bool table = false;  // the first table of the section
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '|') {
      if (table) break;
      continue;
    }
    table = true;
    const auto b = line.find('`'), e = line.find('`', b + 1);
    if (b == std::string::npos || e == std::string::npos) continue;
    const std::string pat = line.substr(b + 1, e - b - 1);
    std::string re;
    for (std::size_t i = 0; i < pat.size(); ++i) {
      if (pat[i] == '{') {
        const auto close = pat.find('}', i);
        const std::string field = pat.substr(i + 1, close - i - 1);
        re += field == "icache_miss_rate" ? "[0-9]+p[0-9][0-9]" : field == "model_file_name" ? "[A-Za-z0-9_-]+" : "[0-9]+";
        i = close;
      } else if (pat[i] == '.') {
        re += "\\.";
      } else {
        re += pat[i];
      }
    }
    out.emplace_back(re);
  }
  return out;
}

fs::path only_job(const fs::path& out) {
  std::vector<fs::path> jobs;
  for (const auto& e : fs::directory_iterator(out)) jobs.push_back(e.path());
  REQUIRE(jobs.size() == 1);  // the JOB directory, nothing of the run
  REQUIRE(jobs[0].filename().string().rfind("JOB", 0) == 0);
  return jobs[0];
}

std::set<std::string> files_under(const fs::path& d) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec)) out.insert(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("soc collect --all here: the JOB directory with sqlite/, two timelines and three summaries named as docs/soc.md") {
  sandbox s;
  const auto r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string(), "--all"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const fs::path job = only_job(s.root / "out");
  CHECK(fs::is_directory(job / "sqlite"));
  const auto timeline = files_under(job / "timeline"), summary = files_under(job / "summary");
  CHECK(timeline.size() == 2);
  CHECK(summary.size() == 3);
  const auto patterns = doc_file_patterns();
  REQUIRE(patterns.size() == 5);
  std::vector<int> matched(patterns.size(), 0);
  for (const auto& dir : {std::string("timeline"), std::string("summary")})
    for (const auto& f : files_under(job / dir))
      for (std::size_t k = 0; k < patterns.size(); ++k)
        if (std::regex_match(dir + "/" + f, patterns[k])) ++matched[k];
  for (std::size_t k = 0; k < patterns.size(); ++k) CHECK_MESSAGE(matched[k] == 1, "pattern " << k);
  CHECK(r.out.find(job.string()) != std::string::npos);

  // Export again as JSON, and show: the four views, timeline/ and log/show.log.
  const auto js = s.run({"export", "summary", "-dir", job.string(), "--format", "json"});
  CHECK(js.rc == 0);
  std::size_t json = 0;
  for (const auto& f : files_under(job / "summary")) json += fs::path(f).extension() == ".json";
  CHECK(json == 3);
  const auto sh = s.run({"show", "--collection-dir", job.string()});
  CHECK(sh.rc == 0);
  for (const char* view : {"AA core metric", "Op statistic", "Acl statistic", "Frequency"})
    CHECK_MESSAGE(sh.out.find(view) != std::string::npos, view);
  CHECK(fs::is_regular_file(job / "log" / "show.log"));
  // What show cannot write is a warning: the tables are still shown.
  fs::remove_all(job / "log");
  std::ofstream(job / "log") << "not a directory";
  const auto blocked = s.run({"show", "-dir", job.string()});
  CHECK(blocked.rc == 0);
  CHECK(blocked.out.find("Acl statistic") != std::string::npos);
  CHECK(blocked.err.find("log") != std::string::npos);
  CHECK(blocked.err.find("warning") != std::string::npos);
  // The parent of JOB directories works too.
  CHECK(s.run({"export", "timeline", "-dir", (s.root / "out").string()}).rc == 0);
  const auto imp = s.run({"import", "-dir", (s.root / "out").string()});
  CHECK(imp.rc == 0);
  CHECK(imp.out.find("sqlite") != std::string::npos);
}

TEST_CASE("soc timelines: the DevTools trace engine draws every span") {
  const std::string why = chrome_testing::engine_unavailable();
  if (!why.empty()) {
    if (std::getenv("MSPROF_REQUIRE_ENGINE")) FAIL("the DevTools trace engine is required but " << why);
    MESSAGE("skipped: " << why);
    return;
  }
  sandbox s;
  REQUIRE(s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string(), "--all"}).rc == 0);
  const fs::path job = only_job(s.root / "out");
  std::size_t checked = 0;
  for (const auto& f : files_under(job / "timeline")) {
    const auto r = chrome_testing::run_engine(job / "timeline" / f);
    INFO(f << ": " << r.raw.substr(0, 500));
    REQUIRE(r.ran);
    CHECK(r.fatal.empty());
    CHECK(r.x_written > 0);
    CHECK(r.slices_in_tracks == r.x_written);
    CHECK(r.dropped == 0);
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("soc collect --all: a program killed mid-inference still gives its JOB directory, imported and exported") {
  sandbox s;
  // The program collect runs: the example with many pictures, killed once its
  // JOB directory has data (collect runs it in the run directory, beside profiling/).
  const fs::path main = s.root / "killed_main";
  std::ofstream(main) << "#!/bin/sh\n\"" << MSPROF_TEST_SOC_PROGRAM << "\" \"$1\" 1000000 &\npid=$!\n"
                      << "i=0\nwhile [ $i -lt 300 ] && [ -z \"$(ls profiling/JOB*/data 2>/dev/null)\" ]; do\n"
                      << "  sleep 0.1\n  i=$((i + 1))\ndone\nsleep 0.5\nkill -9 $pid\nwait $pid\nexit 137\n";
  fs::permissions(main, fs::perms::owner_all);
  const auto r = s.run({"collect", "-m", main.string(), "--output", (s.root / "out").string(), "--all"});
  INFO(r.err);
  CHECK(r.rc == 1);  // the program's failure is reported
  CHECK(r.err.find("exited with status 137") != std::string::npos);
  const fs::path job = only_job(s.root / "out");
  const auto first = r.err.find("did not finish");
  CHECK(first != std::string::npos);
  CHECK(r.err.find("did not finish", first + 1) == std::string::npos);  // said once
  CHECK(fs::is_directory(job / "sqlite"));
  CHECK(files_under(job / "timeline").size() == 2);
  CHECK(files_under(job / "summary").size() == 3);
}

TEST_CASE("soc collect: the acl.json it writes holds each option as the document's key, given to the program three ways") {
  sandbox s;
  // The program: records what it was given, then runs the example with it.
  const fs::path main = s.root / "recording_main";
  const fs::path seen = s.root / "seen";
  std::ofstream(main) << "#!/bin/sh\ncp \"$1\" " << quote((seen / "acl.json").string()) << "\n"
                      << "printf '%s\\n%s\\n' \"$MSPROF_SOC_ACL_JSON\" \"$(pwd)\" > " << quote((seen / "where").string())
                      << "\nexec \"" << MSPROF_TEST_SOC_PROGRAM << "\" \"$1\"\n";
  fs::permissions(main, fs::perms::owner_all);
  fs::create_directories(seen);
  const auto r = s.run({"collect", "-m", main.string(), "--output", (s.root / "out").string(), "--interval", "3",
                        "--acl_api", "off", "--aacpu", "off", "--aac_metrics", "ArithmeticUtilization"});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.load((seen / "acl.json").string()).get(doc));
  const std::pair<const char*, const char*> expected[] = {{"switch", "on"},   {"aacpu", "off"},   {"acl_api", "off"},
                                                          {"interval", "3"}, {"aac_metrics", "ArithmeticUtilization"}};
  for (const auto& kv : expected) {
    std::string_view v;
    CHECK_MESSAGE(!doc["profiler"][kv.first].get_string().get(v), kv.first);  // strings, as in the document
    CHECK_MESSAGE(v == kv.second, kv.first);
  }
  std::string_view output;
  REQUIRE(!doc["profiler"]["output"].get_string().get(output));
  // The path is the first argument, MSPROF_SOC_ACL_JSON, and in the working directory.
  std::istringstream where(read_text(seen / "where"));
  std::string env, cwd;
  std::getline(where, env);
  std::getline(where, cwd);
  CHECK(fs::path(env).filename() == "acl.json");
  CHECK(fs::path(env).parent_path() == fs::path(cwd));
  CHECK(fs::path(std::string(output)) == fs::path(cwd) / "profiling");
  CHECK(fs::path(cwd).parent_path() == s.root / "out");  // the run directory, gone after the run
  CHECK(!fs::exists(cwd));
  const fs::path job = only_job(s.root / "out");
  CHECK(fs::is_directory(job / "data"));
}

TEST_CASE("soc collect: the acl.json options reach the program") {
  sandbox s;
  SUBCASE("--switch off: no JOB directory, said") {
    const auto r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string(), "--switch", "off"});
    CHECK(r.rc == 1);
    CHECK(r.err.find("left no JOB directory") != std::string::npos);
    CHECK(fs::is_empty(s.root / "out"));
  }
  SUBCASE("--acl_api off --aac_metrics other: no acl files, no op_summary, warnings say why") {
    const auto r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string(), "--acl_api",
                          "off", "--aac_metrics", "PipeUtilization", "--all"});
    INFO(r.err);
    CHECK(r.rc == 0);
    const fs::path job = only_job(s.root / "out");
    for (const auto& f : files_under(job / "timeline")) CHECK(f.rfind("task_time_", 0) == 0);
    CHECK(files_under(job / "summary").size() == 1);  // op_statistic only
    CHECK(r.err.find("only ArithmeticUtilization") != std::string::npos);
    CHECK(r.err.find("no op_summary file") != std::string::npos);
  }
  SUBCASE("--interval 4: fewer sampled pictures than a run of every one") {
    const auto r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string(), "--interval", "4",
                          "--all"});
    CHECK(r.rc == 0);
    const fs::path job = only_job(s.root / "out");
    std::string op_statistic;
    for (const auto& f : files_under(job / "summary"))
      if (f.rfind("op_statistic_", 0) == 0) op_statistic = f;
    // op_statistic_{device}_{model}_{current_pic_count}_{iter}: the example executes 16 pictures.
    CHECK(op_statistic.find("_16_") == std::string::npos);
  }
}

TEST_CASE("soc commands: help, bad command lines, damaged JOB directories") {
  sandbox s;
  const auto h = s.run({"collect", "-h"});
  CHECK(h.rc == 0);
  for (const char* o : {"--config", "--interval", "--acl_api", "--aacpu", "--switch", "--aac_metrics", "--output", "--all"})
    CHECK_MESSAGE(h.out.find(o) != std::string::npos, o);
  CHECK(s.run({"collect"}).rc == 2);
  CHECK(s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--acl_api", "maybe"}).rc == 2);
  CHECK(s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--interval", "-1"}).rc == 2);
  CHECK(s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--interval", "100000001"}).rc == 2);
  const auto missing = s.run({"collect", "-m", (s.root / "nothere").string()});
  CHECK(missing.rc == 1);
  CHECK(missing.err.find("nothere") != std::string::npos);

  fs::create_directories(s.root / "JOBBROKEN1" / "data");
  const auto broken = s.run({"export", "timeline", "-dir", (s.root / "JOBBROKEN1").string()});
  CHECK(broken.rc == 1);
  CHECK(broken.err.find("JOBBROKEN1") != std::string::npos);
  CHECK(broken.err.find("info.json") != std::string::npos);
  const auto broken_show = s.run({"show", "-dir", (s.root / "JOBBROKEN1").string()});
  CHECK(broken_show.rc == 1);
  const auto broken_import = s.run({"import", "-dir", (s.root / "JOBBROKEN1").string()});
  CHECK(broken_import.rc == 1);
  CHECK(broken_import.err.find("info.json") != std::string::npos);

  // A JOB directory takes the SoC options only.
  REQUIRE(s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--output", (s.root / "out").string()}).rc == 0);
  const fs::path job = only_job(s.root / "out");
  const auto jh = s.run({"export", "summary", "-dir", job.string(), "-h"});
  CHECK(jh.rc == 0);
  CHECK(jh.out.find("--format csv|json") != std::string::npos);
  for (const char* cmd : {"import", "show"}) {
    const auto ch = s.run({cmd, "-dir", job.string(), "--help"});
    CHECK(ch.rc == 0);
    CHECK(ch.out.find("SoC JOB directories") != std::string::npos);
  }
  CHECK(s.run({"export", "summary", "-dir", job.string(), "--format", "xml"}).rc == 2);
  CHECK(s.run({"export", "timeline", "-dir", job.string(), "--model-id", "1"}).rc == 2);
  const auto db = s.run({"export", "db", "-dir", job.string()});
  CHECK(db.rc == 2);
  CHECK(db.err.find("msprof import") != std::string::npos);
  // export on an unimported JOB imports it first.
  CHECK(!fs::exists(job / "sqlite"));
  CHECK(s.run({"export", "timeline", "-dir", job.string()}).rc == 0);
  CHECK(fs::is_directory(job / "sqlite"));
}

TEST_CASE("soc collect --config: the ini file is checked before any connection") {
  sandbox s;
  const fs::path ini = s.root / "board.ini";
  auto write_ini = [&](const std::string& text, fs::perms mode) {
    std::ofstream(ini) << text;
    fs::permissions(ini, mode);
  };
  const auto owner_rw = fs::perms::owner_read | fs::perms::owner_write;
  write_ini("[ssh_config]\nip = 127.0.0.1\nusername = u\npwd = p\nport = 22\n", owner_rw | fs::perms::others_read);
  auto r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("chmod 600") != std::string::npos);
  write_ini("[ssh_config]\nip = 127.0.0.1\nusername = u\nport = 22\n", owner_rw);
  r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("no pwd") != std::string::npos);
  write_ini("[ssh_config]\nip = 127.0.0.1\nusername = u\npwd = p\nport = 70000\n", owner_rw);
  r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("port") != std::string::npos);
  CHECK(r.err.find("board.ini") != std::string::npos);
  // Bytes that are no ini file: one message naming it, never a crash.
  std::string junk(4096, '\0');
  for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 131 + 7) % 251);
  write_ini(junk, owner_rw);
  r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("board.ini") != std::string::npos);
  write_ini("[ssh_config\nip = x\n", owner_rw);
  r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("board.ini:1") != std::string::npos);
  write_ini("[ssh_config]\nip = -oProxyCommand=touch\nusername = u\npwd = p\n", owner_rw);
  r = s.run({"collect", "-m", MSPROF_TEST_SOC_PROGRAM, "--config", ini.string(), "--output", (s.root / "out").string()});
  CHECK(r.rc == 1);  // an ip ssh would read as an option
  CHECK(r.err.find("ssh does not take") != std::string::npos);
  // Nothing of the attempts is left in --output.
  CHECK((!fs::exists(s.root / "out") || fs::is_empty(s.root / "out")));
}
#endif
