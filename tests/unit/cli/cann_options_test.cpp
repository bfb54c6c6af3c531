// SPDX-License-Identifier: MIT
// CANN's msprof command line as a CANN user writes it (issue 22): every
// collection option with CANN's spelling and values, the long forms of the
// short flags, and -h on every command.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;

#ifdef MSPROF_TEST_CLI

namespace {

using namespace msprof_cli_test;

/// The app of cli_test_app.cpp (mstx marks and ranges) as the launcher runs it.
/// detect_leaks=0: see cli_test.cpp, "launcher end to end".
std::string test_app() {
#ifdef MSPROF_TEST_APP
  return std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP;
#else
  return "true";
#endif
}

/// How often `what` occurs in `text`.
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto k = text.find(what); k != std::string::npos; k = text.find(what, k + what.size())) ++n;
  return n;
}

constexpr const char* no_runtime = "not collected: no CANN runtime here";
constexpr const char* no_hardware = "not collected: no such hardware here";
constexpr const char* host_part = "osrt is not collected (msprof samples the program's cpu, mem, disk and network)";

/// CANN's collection options whose data msprof does not collect (names, values
/// and ranges from CANN's msprof --help and input parser; docs/cli.md).
struct cann_case {
  const char* option;
  const char* good;  ///< a value CANN accepts
  const char* bad;   ///< one it refuses
  const char* note;  ///< what msprof says about `good` (nullptr: a setting, nothing to say)
  bool switch_off;   ///< also takes "off", which asks for nothing
};

const std::vector<cann_case> cann_cases = {
    {"ascendcl", "on", "yes", no_runtime, true},
    {"runtime-api", "on", "1", no_runtime, true},
    {"ge-api", "l1", "l2", no_runtime, true},
    {"model-execution", "on", "true", no_runtime, true},
    {"task-time", "l0", "l4", no_runtime, true},
    {"task-trace", "l2", "full", no_runtime, true},
    {"task-memory", "on", "ON", no_runtime, true},
    {"aicore-shape", "on", "x", no_runtime, true},
    {"hccl", "on", "enable", no_runtime, true},
    {"aicpu", "on", "of", no_runtime, true},
    {"ai-core", "on", "1", no_hardware, true},
    {"aic-mode", "sample-based", "sampled", nullptr, false},
    {"aic-freq", "50", "101", nullptr, false},
    {"ai-vector-core", "on", "y", no_hardware, true},
    {"aiv-mode", "task-based", "task", nullptr, false},
    {"aiv-freq", "100", "0", nullptr, false},
    {"aiv-metrics", "MemoryUB", "L2Cache", nullptr, false},
    {"task-tsfw", "on", "no", no_hardware, true},
    {"task-block", "all", "some", no_hardware, true},
    {"l2", "on", "l2", no_hardware, true},
    {"npu-events", "0x1,0x2a", "12", nullptr, false},
    {"instr-profiling", "on", "true", no_hardware, true},
    {"instr-profiling-freq", "300", "299", nullptr, false},
    {"sys-hardware-mem", "on", "yes", no_hardware, true},
    {"sys-hardware-mem-freq", "10000", "10001", nullptr, false},
    {"llc-profiling", "write", "both", nullptr, false},
    {"sys-mem-serviceflow", "flow1", "a;b", nullptr, false},
    {"sys-cpu-profiling", "on", "1", no_hardware, true},
    {"sys-cpu-freq", "50", "51", nullptr, false},
    {"sys-profiling", "on", "1", no_hardware, true},
    {"sys-sampling-freq", "10", "11", nullptr, false},
    {"sys-pid-profiling", "on", "1", no_hardware, true},
    {"sys-pid-sampling-freq", "1", "0", nullptr, false},
    {"sys-io-profiling", "on", "1", no_hardware, true},
    {"sys-io-sampling-freq", "100", "101", nullptr, false},
    {"sys-interconnection-profiling", "on", "1", no_hardware, true},
    {"sys-interconnection-freq", "50", "51", nullptr, false},
    {"dvpp-profiling", "on", "1", no_hardware, true},
    {"dvpp-freq", "1", "101", nullptr, false},
    {"sys-lp", "on", "1", no_hardware, true},
    {"sys-lp-freq", "100", "101", nullptr, false},
    {"sys-period", "2592000", "2592001", nullptr, false},
    {"sys-devices", "0,1", "0,x", nullptr, false},
    {"optype", "Conv2D,MatMul", "a;b", nullptr, false},
    {"host-sys", "cpu,mem,disk,network,osrt", "cpu,gpu", host_part, false},
    {"host-sys-pid", "1", "-1", nullptr, false},
    {"host-sys-usage", "cpu,mem", "disk", nullptr, false},  // applied: the system's usage (a test below)
    {"host-sys-usage-freq", "50", "51", nullptr, false},
    {"dynamic", "on", "yes", nullptr, true},  // applied: start / stop on stdin (cli_test)
    {"delay", "5", "0", nullptr, false},  // applied: the collection window (cli_test)
    {"duration", "4294967295", "4294967296", nullptr, false},
};

std::string flag(const cann_case& c, const std::string& v) { return std::string("--") + c.option + "=" + v; }

}  // namespace

TEST_CASE("cann options: a bad value is one usage line naming the option and what it takes, and nothing runs") {
  sandbox s;
  const auto out = s.root / "out";
  for (const auto& c : cann_cases) {
    CAPTURE(c.option);
    const auto r =
        s.run({"--output=" + out.string(), flag(c, c.bad), "--application=touch " + (s.root / "ran").string()});
    CHECK(r.rc == 2);
    CHECK(r.err.rfind(std::string("msprof: --") + c.option + " must be ", 0) == 0);
    CHECK(r.err.find(std::string(", got '") + c.bad + "'\n") != std::string::npos);
    CHECK(count(r.err, "\n") == 2);  // the line and the pointer to --help
    CHECK_FALSE(fs::exists(s.root / "ran"));
  }
  // A switch without a value is a usage error too.
  const auto r = s.run({"--output=" + out.string(), "--application=true", "--sys-hardware-mem"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("option '--sys-hardware-mem' needs a value") != std::string::npos);
}

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cann options: each alone is accepted (exit 0), said once when it asks for data, recorded in sample.json") {
  sandbox s;
  int run = 0;
  for (const auto& c : cann_cases) {
    for (const std::string& v : {std::string(c.good), std::string(c.switch_off ? "off" : "")}) {
      if (v.empty() || (std::string(c.option) == "dynamic" && v == "on")) continue;  // its own test: cli_test
      CAPTURE(c.option);
      CAPTURE(v);
      const auto out = s.root / std::to_string(run++);
      // Both of CANN's spellings: --name=value and --name value.
      std::vector<std::string> args = {"--output=" + out.string(), "--export=off", "--application=" + test_app()};
      if (run % 2)
        args.push_back(flag(c, v));
      else
        args.insert(args.end(), {std::string("--") + c.option, v});
      const auto r = s.run(args);
      CHECK(r.rc == 0);
      const bool said = c.note != nullptr && v != "off";
      CHECK(count(r.err, flag(c, v) + ": ") == (said ? 1u : 0u));
      if (said) CHECK(r.err.find(flag(c, v) + ": " + c.note) != std::string::npos);
      // The mstx data is collected as always.
      const auto prof = prof_dir_in(out);
      REQUIRE(!prof.empty());
      CHECK(r.out == prof.string() + "\n");
      CHECK(slurp(prof / "host" / "sample.json").find("\"" + std::string(c.option) + "\": \"" + v + "\"") !=
            std::string::npos);
    }
  }
}

TEST_CASE("cann options: a CANN script's collection switches all at once: exit 0, each said once, all recorded") {
  sandbox s;
  const auto out = s.root / "out";
  std::vector<std::string> args = {"--output=" + out.string()};
  // Not --delay/--duration: the short program would end before the window opens;
  // not --dynamic=on: it waits for start on stdin (their own tests are in cli_test).
  std::vector<cann_case> cases;
  for (const auto& c : cann_cases)
    if (std::string(c.option) != "delay" && std::string(c.option) != "duration" && std::string(c.option) != "dynamic")
      cases.push_back(c);
  for (const auto& c : cases) args.push_back(flag(c, c.good));
  args.push_back("--application=" + test_app());
  const auto r = s.run(args);
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  std::size_t notes = 0;
  for (const auto& c : cases) {
    CAPTURE(c.option);
    CHECK(count(r.err, flag(c, c.good) + ": ") == (c.note != nullptr ? 1u : 0u));
    notes += c.note != nullptr ? 1 : 0;
  }
  // nothing else on stderr but where to open the viewer-safe trace
  CHECK(count(r.err, "\n") == notes + 1);
  CHECK(count(r.err, "msprof: to look at it, open ") == 1);
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  const std::string sample = slurp(prof / "host" / "sample.json");
  for (const auto& c : cases) CHECK(count(sample, "\"" + std::string(c.option) + "\": ") == 1);
  // and exported as usual
  CHECK(fs::is_directory(prof / "mindstudio_profiler_output"));
}

TEST_CASE("cann options: MSPROF_CANN_OPTIONS by hand: a malformed entry is said and left out, a key is written once") {
  sandbox s;
  const auto out = s.root / "out";
  const std::string cmd = "env ASAN_OPTIONS=detect_leaks=0 MSTX_INJECTION_PATH=" + quote(MSPROF_TEST_INJECTION_LIB) +
                          " MSPROF_OUTPUT=" + quote(out.string()) +
                          " MSPROF_CANN_OPTIONS='l2=on;bogus;Bad=1;acl=off' " + quote(MSPROF_TEST_APP) + " 2>" +
                          quote((s.root / "err.txt").string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string err = slurp(s.root / "err.txt");
  CHECK(err.find("MSPROF_CANN_OPTIONS: 'bogus' is not <option>=<value>; not recorded") != std::string::npos);
  CHECK(err.find("MSPROF_CANN_OPTIONS: 'Bad=1' is not <option>=<value>; not recorded") != std::string::npos);
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  const std::string sample = slurp(prof / "host" / "sample.json");
  CHECK(sample.find("\"l2\": \"on\"") != std::string::npos);
  CHECK(count(sample, "\"acl\": ") == 1);  // replaces the default "on": one key, valid JSON
  CHECK(sample.find("\"acl\": \"off\"") != std::string::npos);
  CHECK(sample.find("bogus") == std::string::npos);
}
#endif

TEST_CASE("cann options: -h and --help on every command, and the help lists every CANN option") {
  sandbox s;
  const std::vector<std::vector<std::string>> commands = {
      {"export", "timeline", "-h"}, {"export", "summary", "--help"},  {"export", "db", "-dir", "x", "-h"},
      {"import", "-h"},             {"show", "--help"},               {"analyse", "-h"},
      {"--help"},                   {"--output=x", "-h"},             {"--output=x", "--task-time=on", "--help"}};
  for (const auto& args : commands) {
    CAPTURE(args.back());
    CAPTURE(args.front());
    const auto r = s.run(args);
    CHECK(r.rc == 0);
    CHECK(r.out.find("usage:") != std::string::npos);
    CHECK(r.err.empty());
  }
  CHECK_FALSE(fs::exists(s.root / "x"));  // help runs nothing
  const auto help = s.run({"--help"}).out;
  for (const auto& c : cann_cases) CHECK(help.find(std::string("--") + c.option + "=") != std::string::npos);
  for (const char* o : {"--msproftx=", "--collection-dir=", "--environment="})
    CHECK(help.find(o) != std::string::npos);
}

TEST_CASE("cann options: --pid attaches only to a running process, --environment needs KEY=VALUE") {
  sandbox s;
  // Above any pid_max: no such process (attach mode itself: cli_test).
  auto r = s.run({"--output=" + s.root.string(), "--dynamic=on", "--pid=2147483647"});
  CHECK(r.rc == 1);
  CHECK(r.err.find("--pid=2147483647: ") != std::string::npos);
  CHECK(r.err.find(": no process 2147483647 runs") != std::string::npos);
  r = s.run({"--output=" + s.root.string(), "--dynamic=on", "--pid=4294967295"});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("msprof: --pid must be one process id", 0) == 0);
  // CANN's dynamic profiling does not go with a fixed window either.
  for (const char* w : {"--delay=1", "--duration=1"}) {
    r = s.run({"--output=" + s.root.string(), "--dynamic=on", w, "--application=touch " + (s.root / "ran").string()});
    CHECK(r.rc == 2);
    CHECK(r.err.rfind("msprof: --dynamic=on cannot be used with --delay or --duration", 0) == 0);
    CHECK_FALSE(fs::exists(s.root / "ran"));
  }
  r = s.run({"--output=" + s.root.string(), "--environment=A=1;B", "--application=true"});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("msprof: --environment must be KEY=VALUE[;KEY=VALUE...], got 'A=1;B'", 0) == 0);
  r = s.run({"--output=" + s.root.string(), "--application=true", "true"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("the program is given twice") != std::string::npos);
  r = s.run({"--output=" + s.root.string(), "--msproftx=yes", "true"});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("msprof: --msproftx must be on or off, got 'yes'", 0) == 0);
}

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cann options: the program after the options, with its arguments as given (CANN's recommended form)") {
  sandbox s;
  const auto out = s.root / "out";
  const auto args_file = s.root / "args.txt";
  // The program's own options (-h, --output) are its, not msprof's.
  const auto r = s.run({"--output=" + out.string(), "--export=off", "sh", "-c",
                        "printf '%s|' \"$@\" > " + quote(args_file.string()) + "; exec " + test_app(), "sh", "a b",
                        "it's", "-h", "--output=elsewhere"});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(slurp(args_file) == "a b|it's|-h|--output=elsewhere|");
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  CHECK(r.out == prof.string() + "\n");
  CHECK_FALSE(fs::exists(s.root / "elsewhere"));
}

TEST_CASE("cann options: --msproftx is CANN's name of --mstx, --environment sets the program's variables") {
  sandbox s;
  auto r = s.run({"--output=" + (s.root / "on").string(), "--export=off", "--msproftx=on",
                  "--application=" + test_app()});
  CHECK(r.rc == 0);
  CHECK_FALSE(prof_dir_in(s.root / "on").empty());
  // off: the program runs without the collector, so there is nothing to export (as --mstx=off)
  r = s.run({"--output=" + (s.root / "off").string(), "--msproftx=off", "--application=" + test_app()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("no PROF_ directory") != std::string::npos);
  CHECK(prof_dir_in(s.root / "off").empty());
  const auto env_file = s.root / "env.txt";
  r = s.run({"--output=" + (s.root / "env").string(), "--environment=MY_A=1;MY_B=two words;MSPROF_OUTPUT=/nowhere",
             "--application=env > " + quote(env_file.string())});
  const auto env = slurp(env_file);
  CHECK(env.find("\nMY_A=1\n") != std::string::npos);
  CHECK(env.find("\nMY_B=two words\n") != std::string::npos);
  // msprof's own variables are not replaced
  CHECK(env.find("MSPROF_OUTPUT=" + (s.root / "env").string()) != std::string::npos);
  CHECK(env.find("/nowhere") == std::string::npos);
}
#endif

/// The file names msprof wrote in a PROF_ directory (mindstudio_profiler_output/ and the db).
std::vector<std::string> written(const fs::path& prof) {
  std::vector<std::string> names;
  for (const auto& f : outputs(prof)) names.push_back(f.filename().string());
  return names;
}

bool has(const std::vector<std::string>& names, const std::string& prefix, const std::string& ext) {
  for (const auto& n : names)
    if (n.rfind(prefix, 0) == 0 && fs::path(n).extension() == ext) return true;
  return false;
}

TEST_CASE("cann options: --type, --summary-format, --export and the rest as CANN has them: bad values and mixes") {
  sandbox s;
  const std::string out = "--output=" + s.root.string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{out, "--type=csv", "true"}, "msprof: --type must be text or db, got 'csv'"},
      {{out, "--summary-format=xml", "true"}, "msprof: --summary-format must be csv or json, got 'xml'"},
      {{out, "--export=yes", "true"}, "msprof: --export must be on or off, got 'yes'"},
      {{out, "--clear=1", "true"}, "msprof: --clear must be on or off, got '1'"},
      {{out, "--parse=true"}, "msprof: --parse must be on or off, got 'true'"},
      {{out, "--query=x"}, "msprof: --query must be on or off, got 'x'"},
      {{out, "--analyze=x"}, "msprof: --analyze must be on or off, got 'x'"},
      {{out, "--analyze=on", "--rule=hccl"}, "msprof: --rule must be a comma list of communication or"},
      {{out, "--model-id=x", "--iteration-id=1", "true"}, "msprof: --model-id must be a number, got 'x'"},
      {{out, "--model-id=1", "true"}, "msprof: --model-id and --iteration-id go together"},
      {{out, "--export=on", "--parse=on"}, "msprof: --export=on, --parse, --query and --analyze go one at a time"},
      {{out, "--export=on", "--ai-core=on"}, "msprof: --ai-core is an option of a collection: give the program"},
      {{out, "--query=on", "--msproftx=on"}, "msprof: --msproftx is an option of a collection"},
      {{"--export=on"}, "msprof: give the collection as --output=<PROF_ dir or its parent>"},
      {{out, "--parse=on", "true"}, "msprof: --parse, --query and --analyze work on collected data"},
      {{out, "--export=off"}, "msprof: --application=\"cmd args\" (or the program after the options) is required"},
  };
  for (const auto& [args, message] : bad) {
    CAPTURE(message);
    const auto r = s.run(args);
    CHECK(r.rc == 2);
    CHECK(r.err.rfind(message, 0) == 0);
  }
}

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cann options: --type=db writes the db only, text writes timeline, summaries and db, --summary-format=json") {
  sandbox s;
  auto r = s.run({"--output=" + (s.root / "db").string(), "--type=db", "--application=" + test_app()});
  REQUIRE(r.rc == 0);
  auto names = written(prof_dir_in(s.root / "db"));
  CHECK(names.size() == 1);
  CHECK(has(names, "msprof_", ".db"));
  r = s.run({"--output=" + (s.root / "text").string(), "--type=text", "--summary-format=json",
             "--application=" + test_app()});
  REQUIRE(r.rc == 0);
  names = written(prof_dir_in(s.root / "text"));
  CHECK(has(names, "msprof_", ".db"));
  CHECK(has(names, "msprof_tx_", ".json"));
  CHECK(has(names, "msprof_tx_summary_", ".json"));  // the JSON summary beside the timeline of the same name
  CHECK_FALSE(has(names, "msprof_tx_", ".csv"));
  // --reports as msprof export's -reports
  const auto reports = s.root / "reports.json";
  std::ofstream(reports) << R"({"reports": ["msprof_tx"]})";
  r = s.run({"--output=" + (s.root / "rep").string(), "--reports=" + reports.string(), "--application=" + test_app()});
  REQUIRE(r.rc == 0);
  names = written(prof_dir_in(s.root / "rep"));
  CHECK(has(names, "msprof_tx_", ".csv"));
  CHECK_FALSE(has(names, "msprof_2", ".json"));
}

TEST_CASE("cann options: --export=on, --parse=on, --query=on and --analyze=on --output=DIR work on collected data") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(), "--export=off", "--application=" + test_app()});
  REQUIRE(r.rc == 0);
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  REQUIRE(written(prof).empty());
  // CANN: msprof --export=on --output=<dir> [--type=db]; the parent or the PROF_ directory
  r = s.run({"--export=on", "--output=" + out.string(), "--type=db"});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  auto names = written(prof);
  REQUIRE(names.size() == 1);
  CHECK(has(names, "msprof_", ".db"));
  CHECK(r.out == (prof / names[0]).string() + "\n");
  r = s.run({"--export=on", "--output=" + prof.string(), "--summary-format=json"});
  CHECK(r.rc == 0);
  CHECK(has(written(prof), "msprof_tx_summary_", ".json"));
  for (const char* mode : {"--parse=on", "--query=on"}) {
    CAPTURE(mode);
    r = s.run({mode, "--output=" + out.string()});
    CHECK(r.rc == 0);
    CHECK(r.out == prof.string() + ": 0 API calls, 0 device tasks, 3 mstx events, 0 device(s); no losses\n");
  }
  r = s.run({"--analyze=on", "--rule=communication,communication_matrix", "--output=" + out.string()});
  CHECK(r.rc == 0);
  CHECK(r.err == "msprof: warning: " + prof.string() + ": no HCCL data (hccl_info) to analyse\n");
  CHECK_FALSE(fs::exists(prof / "analyze"));
  // nothing collected there: the message every command gives
  fs::create_directories(s.root / "empty");
  for (const char* mode : {"--export=on", "--parse=on", "--query=on", "--analyze=on"}) {
    CAPTURE(mode);
    r = s.run({mode, "--output=" + (s.root / "empty").string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("no PROF_ directory found") != std::string::npos);
  }
}
#endif

TEST_CASE("cann options: every name of CANN's msprof command line is known and in docs/cli.md's table") {
  // CANN's LONG_OPTIONS (msprofbin input_parser.h) with a value it accepts.
  const std::vector<std::pair<std::string, std::string>> all = {
      {"output", "o"}, {"storage-limit", "200MB"}, {"application", "true"}, {"environment", "A=1"},
      {"dynamic", "off"}, {"pid", "1"}, {"delay", "1"}, {"duration", "1"}, {"aic-mode", "task-based"},
      {"aic-metrics", "PipeUtilization"}, {"aiv-mode", "task-based"}, {"aiv-metrics", "Memory"},
      {"npu-events", "0x1"}, {"sys-devices", "all"}, {"llc-profiling", "read"}, {"python-path", "/usr/bin/python3"},
      {"summary-format", "csv"}, {"type", "text"}, {"reports", "r.json"}, {"sys-mem-serviceflow", "x"},
      {"optype", "Conv2D"}, {"rule", "communication"}, {"ascendcl", "on"}, {"ai-core", "on"},
      {"ai-vector-core", "on"}, {"model-execution", "on"}, {"runtime-api", "on"}, {"task-tsfw", "on"},
      {"task-time", "on"}, {"aicore-shape", "on"}, {"ge-api", "l0"}, {"task-trace", "on"}, {"task-memory", "on"},
      {"aicpu", "on"}, {"msproftx", "on"}, {"mstx-domain-include", "a"}, {"mstx-domain-exclude", "b"},
      {"sys-cpu-profiling", "on"}, {"sys-profiling", "on"}, {"sys-pid-profiling", "on"}, {"sys-hardware-mem", "on"},
      {"sys-io-profiling", "on"}, {"sys-interconnection-profiling", "on"}, {"dvpp-profiling", "on"},
      {"task-block", "on"}, {"sys-lp", "on"}, {"hccl", "on"}, {"instr-profiling", "on"}, {"l2", "on"},
      {"parse", "on"}, {"query", "on"}, {"export", "on"}, {"clear", "on"}, {"analyze", "on"}, {"aic-freq", "100"},
      {"aiv-freq", "100"}, {"instr-profiling-freq", "1000"}, {"sys-period", "1"}, {"sys-sampling-freq", "10"},
      {"sys-pid-sampling-freq", "10"}, {"sys-hardware-mem-freq", "50"}, {"sys-io-sampling-freq", "100"},
      {"dvpp-freq", "50"}, {"sys-cpu-freq", "50"}, {"sys-interconnection-freq", "50"},
      {"host-sys-usage-freq", "50"}, {"sys-lp-freq", "100"}, {"iteration-id", "1"}, {"model-id", "1"},
      {"host-sys", "cpu"}, {"host-sys-pid", "1"}, {"host-sys-usage", "cpu"}};
  const std::string cli_md = slurp(fs::path(MSPROF_TEST_SOURCE_DIR) / "docs" / "cli.md");
  const auto section = cli_md.find("\n## CANN's collection options\n");
  REQUIRE(section != std::string::npos);
  const std::string doc = cli_md.substr(section, cli_md.find("\n#", section + 1) - section);
  sandbox s;
  for (const auto& [name, value] : all) {
    CAPTURE(name);
    const auto r = s.run({"--output=" + (s.root / "out").string(), "--" + name + "=" + value});
    CHECK(r.err.find("unknown option") == std::string::npos);
    // its row: | `--name` ... | values | here |
    const auto row = doc.find("\n| `--" + name + "`");
    REQUIRE(row != std::string::npos);
    const std::string line = doc.substr(row + 1, doc.find('\n', row + 1) - row - 1);
    CHECK((line.find("| collected") != std::string::npos || line.find("| applied") != std::string::npos ||
           line.find("| accepted, not collected here") != std::string::npos ||
           line.find("| refused") != std::string::npos));
  }
  CHECK(doc.find("\n| `--help` |") != std::string::npos);
}

TEST_CASE("cann options: --collection-dir is -dir for export, import, show and analyse") {
  sandbox s;
  const auto prof = s.add("multi_thread_mixed");
  auto r = s.run({"export", "summary", "--collection-dir=" + prof.string()});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("op_summary_") != std::string::npos);
  r = s.run({"export", "timeline", "--collection-dir", prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("msprof_") != std::string::npos);
  r = s.run({"import", "--collection-dir=" + prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("9 API calls") != std::string::npos);
  r = s.run({"show", "--collection-dir=" + prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("Op statistic") != std::string::npos);
  const auto pt = add_pt_case(s, "pt_text_steps");
  r = s.run({"analyse", "--collection-dir=" + pt.string()});
  CHECK(r.rc == 0);
  CHECK(fs::exists(pt / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  r = s.run({"import", "--collection-dir"});  // no value: a usage error naming the option
  CHECK(r.rc == 2);
  CHECK(r.err.find("'--collection-dir' needs a value") != std::string::npos);
}

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
namespace {

/// The "Usage(%)" values of the timeline's events whose JSON starts with "`name`.
std::vector<double> counter_values(const std::string& timeline, const std::string& name) {
  std::vector<double> v;
  for (auto k = timeline.find("\"" + name); k != std::string::npos; k = timeline.find("\"" + name, k + 1)) {
    const auto at = timeline.find("\"Usage(%)\"", k);
    if (at == std::string::npos) break;
    const auto colon = timeline.find(':', at);
    v.push_back(std::strtod(timeline.c_str() + colon + 1, nullptr));
  }
  return v;
}

/// The second line of a one-row summary, split at commas.
std::vector<std::string> summary_row(const fs::path& prof, const std::string& name) {
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind(name + "_", 0) == 0 && f.extension() == ".csv") {
      const std::string text = slurp(f);
      const auto nl = text.find('\n');
      std::vector<std::string> cells;
      std::string cell;
      for (std::size_t k = nl + 1; k < text.size() && text[k] != '\n' && text[k] != '\r'; ++k) {
        if (text[k] == ',') cells.push_back(cell), cell.clear();
        else cell += text[k];
      }
      cells.push_back(cell);
      return cells;
    }
  return {};
}

}  // namespace

TEST_CASE("cann options: --host-sys=cpu,mem samples the program: host usage summaries, CPU and Memory Usage in the timeline") {
  sandbox s;
  const auto out = s.root / "host";
  const auto r = s.run({"--output=" + out.string(), "--host-sys=cpu,mem", "--application=" + test_app() + " host-burn"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("--host-sys") == std::string::npos);  // cpu and mem: nothing to say
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  CHECK(fs::exists(prof / "host" / "data" / "host_cpu.data.slice_0.done"));
  CHECK_FALSE(fs::exists(prof / "host" / "data" / "host_disk.data.slice_0"));  // not asked for
  CHECK_FALSE(fs::exists(prof / "host" / "data" / "host_network.data.slice_0"));
  CHECK(slurp(prof / "host" / "sample.json").find("host_disk_freq") == std::string::npos);
  // The machine's CPUs and clock in info.json, not placeholders.
  const std::string info = slurp(prof / "host" / "info.json");
  CHECK(info.find("\"sysClockFreq\": " + std::to_string(::sysconf(_SC_CLK_TCK))) != std::string::npos);
  CHECK(info.find("\"cpuNums\": " + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN))) != std::string::npos);
  // host_cpu_usage: host, cpuNums, the CPUs the threads ran on, those busy (> 0).
  const auto cpu = summary_row(prof, "host_cpu_usage");
  REQUIRE(cpu.size() == 4);
  CHECK(cpu[0] == "host");
  CHECK(std::atoi(cpu[2].c_str()) >= 1);
  CHECK(std::atoi(cpu[3].c_str()) >= 1);
  // host_mem_usage: the peak holds the 64 MiB the program wrote (KiB).
  const auto mem = summary_row(prof, "host_mem_usage");
  REQUIRE(mem.size() == 4);
  CHECK(std::strtod(mem[2].c_str(), nullptr) > 65536);
  std::string timeline;
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("msprof_2", 0) == 0 && f.extension() == ".json") timeline = slurp(f);
  CHECK(timeline.find("\"CPU Usage\"") != std::string::npos);
  CHECK(timeline.find("\"Memory Usage\"") != std::string::npos);
  const auto avg = counter_values(timeline, "CPU Avg\"");
  REQUIRE(!avg.empty());
  CHECK(*std::max_element(avg.begin(), avg.end()) > 0);
  const auto used = counter_values(timeline, "Memory Usage\",\"pid\"");  // the counters, not the process's name
  REQUIRE(!used.empty());
  CHECK(*std::max_element(used.begin(), used.end()) > 0);
}

TEST_CASE("cann options: --host-sys=disk,network samples the program's disk I/O and the machine's interfaces") {
  sandbox s;
  const auto out = s.root / "disk";
  const auto r = s.run({"--output=" + out.string(), "--host-sys=disk,network", "--host-sys-usage-freq=25", "--export=off",
                        "--application=" + test_app() + " disk-write " + (s.root / "written").string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("--host-sys") == std::string::npos);  // disk and network: nothing to say
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  const auto data = prof / "host" / "data";
  CHECK_FALSE(fs::exists(data / "host_cpu.data.slice_0"));
  CHECK_FALSE(fs::exists(data / "host_mem.data.slice_0"));
  CHECK(fs::exists(data / "host_disk.data.slice_0.done"));
  CHECK(fs::exists(data / "host_network.data.slice_0.done"));
  // 25 Hz: the reader's period of the host_disk lines, at least 160 ms of writing.
  CHECK(slurp(prof / "host" / "sample.json").find("\"host_disk_freq\": 25") != std::string::npos);
  const std::string disk = slurp(data / "host_disk.data.slice_0");
  CAPTURE(disk);
  CHECK(disk.rfind("start_time ", 0) == 0);
  CHECK(count(disk, "\n") >= 1 + 4);
  CHECK(count(disk, " K/s ") == 2 * (count(disk, "\n") - 1));
  CHECK(slurp(data / "host_network.data.slice_0").rfind("time ", 0) == 0);
}

TEST_CASE("cann options: --host-sys-usage=cpu,mem samples the system and every process, CANN's files") {
  sandbox s;
  const auto out = s.root / "sys";
  const auto r = s.run({"--output=" + out.string(), "--host-sys-usage=cpu,mem", "--host-sys-usage-freq=25",
                        "--application=" + test_app() + " host-burn"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("--host-sys-usage") == std::string::npos);  // collected: nothing to say
  const auto prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  const auto data = prof / "host" / "data";
  CHECK_FALSE(fs::exists(data / "host_cpu.data.slice_0"));  // --host-sys's files: not asked for
  CHECK(fs::exists(data / "host_sys_cpu.data.slice_0.done"));
  CHECK(fs::exists(data / "host_sys_mem.data.slice_0.done"));
  // Records: TimeStamp, Index, DataLen (the body's bytes), the body, a blank line.
  const std::string sys_cpu = slurp(data / "host_sys_cpu.data.slice_0");
  REQUIRE(sys_cpu.rfind("TimeStamp:", 0) == 0);
  const auto body = sys_cpu.find("\ncpu ");
  REQUIRE(body != std::string::npos);
  const auto len_at = sys_cpu.find("DataLen:");
  REQUIRE(len_at != std::string::npos);
  const std::size_t len = std::strtoul(sys_cpu.c_str() + len_at + 8, nullptr, 10);
  CHECK(sys_cpu.substr(body + 1 + len, 1) == "\n");  // the blank line right after the body
  CHECK(count(sys_cpu, "Index:") >= 4);          // 25 Hz, at least 160 ms of work
  CHECK(slurp(data / "host_sys_mem.data.slice_0").find("\nMemTotal:") != std::string::npos);
  // Every process of the machine, as CANN: the program's (the shell msprof starts it with, the
  // program) and the others, such as pid 1.
  CHECK(fs::exists(data / "1-CpuUsage.data.slice_0.done"));
  CHECK(fs::exists(data / "1-Memory.data.slice_0.done"));
  std::size_t cpu_files = 0, mem_files = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    const std::string n = e.path().filename().string();
    if (n.find("-CpuUsage.data.slice_0") != std::string::npos && n.find(".done") == std::string::npos) {
      ++cpu_files;
      const std::string t = slurp(e.path());
      CHECK(t.find("\nProcessName:") != std::string::npos);
      CHECK(t.find("\ncpu ") != std::string::npos);
    }
    mem_files += n.find("-Memory.data.slice_0.done") != std::string::npos;
  }
  CHECK(cpu_files >= 2);
  CHECK(mem_files == cpu_files);
  const std::string sample = slurp(prof / "host" / "sample.json");
  CHECK(sample.find("\"host_cpu_profiling_sampling_interval\": 40") != std::string::npos);
  CHECK(sample.find("\"host_mem_profiling_sampling_interval\": 40") != std::string::npos);
  // The export's summaries: the system's CPU shares add up to 100, the program's process is busy.
  const auto sys = summary_row(prof, "cpu_usage");
  REQUIRE(sys.size() == 8);
  CHECK(sys[1] == "host");
  double sum = 0;
  for (std::size_t k = 2; k < 8; ++k) sum += std::strtod(sys[k].c_str(), nullptr);
  CHECK(sum > 0);  // nice, steal and guest are not among the columns (niced builds share this machine)
  CHECK(sum < 100.1);
  // The busiest process first; CANN's share is of the system's ticks since boot (about 0 for a short run).
  const auto proc = summary_row(prof, "process_cpu_usage");
  REQUIRE(proc.size() == 4);
  CHECK(std::strtol(proc[1].c_str(), nullptr, 10) >= 1);
  CHECK(std::strtod(proc[3].c_str(), nullptr) >= 0);
  // The shell and the program (its name cut to 15 chars) among the rows, and pid 1.
  std::string rows;
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("process_cpu_usage_", 0) == 0) rows = slurp(f);
  CHECK(rows.find(",sh,") != std::string::npos);
  CHECK(rows.find(",msprof_cli_test,") != std::string::npos);
  CHECK(rows.find("\nhost,1,") != std::string::npos);
  const auto mem = summary_row(prof, "sys_mem");
  REQUIRE(mem.size() == 10);
  CHECK(std::strtoll(mem[1].c_str(), nullptr, 10) > 0);
  CHECK(summary_row(prof, "process_mem").size() == 6);
}
#endif

#endif  // MSPROF_TEST_CLI
