// SPDX-License-Identifier: MIT
// The built msprof binary on copies of the golden inputs (never on
// tests/golden itself): usage, exit codes, one clear message per failure,
// partial exports that say so, and no half-written or empty files.
#include <doctest/doctest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"
#include "../chrome/trace_testing.hpp"
#include "cli_helpers.hpp"

namespace fs = std::filesystem;

#ifdef MSPROF_TEST_CLI

namespace {

using namespace msprof_cli_test;

void check_no_junk(const fs::path& prof) {
  for (const auto& p : outputs(prof)) {
    CAPTURE(p.string());
    CHECK(p.string().find(".tmp") == std::string::npos);
    CHECK(fs::file_size(p) > 0);
  }
}

}  // namespace

TEST_CASE("cli: usage, help and version") {
  sandbox s;
  auto r = s.run({});
  CHECK(r.rc == 2);
  CHECK(r.err.find("usage:") != std::string::npos);
  r = s.run({"--help"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("msprof export timeline|summary|db") != std::string::npos);
  r = s.run({"--version"});
  CHECK(r.rc == 0);
  std::string ver = slurp(fs::path(MSPROF_TEST_SOURCE_DIR) / "VERSION");
  while (!ver.empty() && (ver.back() == '\n' || ver.back() == '\r')) ver.pop_back();
  CHECK(r.out == "msprof " + ver + "\n");
  r = s.run({"export", "timeline", "-dir", s.root.string(), "--bogus"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("unknown option '--bogus'") != std::string::npos);
  r = s.run({"export", "pictures", "-dir", "x"});
  CHECK(r.rc == 2);
  r = s.run({"export", "summary", "-dir", "x", "--format=xml"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--format must be csv or json") != std::string::npos);
  r = s.run({"export", "summary", "-dir", "x", "--iteration-count=9"});
  CHECK(r.rc == 2);
  r = s.run({"export", "summary"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("-dir") != std::string::npos);
  // an option error is one line and a pointer to --help, not the whole usage
  r = s.run({"export", "summary", "-dir", s.root.string(), "--iteration-id=2"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--model-id and --iteration-id go together") != std::string::npos);
  CHECK(r.err.find("usage:") == std::string::npos);
  CHECK(r.err.find("msprof --help") != std::string::npos);
  r = s.run({"export", "timeline", "-h"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("usage:") != std::string::npos);
  r = s.run({"frobnicate"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(r.err.find("usage:") != std::string::npos);
}

TEST_CASE("cli: export, import and show word a wrong -dir the same way, and name the collection a subfolder is in") {
  sandbox s;
  const fs::path prof = s.add("host_api_only");
  const std::string missing = (s.root / "nowhere").string();
  for (const char* cmd : {"export", "import", "show"}) {
    CAPTURE(cmd);
    std::vector<std::string> args{cmd};
    if (std::string(cmd) == "export") args.push_back("summary");
    auto with = [&](const std::string& dir) {
      auto a = args;
      a.push_back("-dir");
      a.push_back(dir);
      return s.run(a);
    };
    auto r = with(missing);
    CHECK(r.rc == 1);
    CHECK(r.err == "msprof: error: " + missing + ": no such directory\n");
    r = with((prof / "host").string());
    CHECK(r.rc == 1);
    CHECK(r.err.find("no PROF_ directory found") != std::string::npos);
    CHECK(r.err.find("give -dir " + fs::absolute(prof).lexically_normal().string()) != std::string::npos);
    const fs::path empty = s.root / (std::string("empty_") + cmd);
    fs::create_directories(empty);
    r = with(empty.string());
    CHECK(r.rc == 1);
    CHECK(r.err.find(empty.string() + ": no PROF_ directory found (expected PROF_* with host/ or device_N/)") !=
          std::string::npos);
  }
}

TEST_CASE("cli: export of every golden case writes complete files") {
  for (const char* c : {"host_api_only", "mstx_domains", "ops_pipeutil", "multi_thread_mixed", "truncated_tail"}) {
    CAPTURE(c);
    sandbox s;
    const auto prof = s.add(c);
    for (const char* k : {"timeline", "summary", "db"}) {
      auto r = s.run({"export", k, "-dir", prof.string()});
      CAPTURE(r.err);
      CHECK(r.rc == 0);
      CHECK(!r.out.empty());
    }
    check_no_junk(prof);
    const auto files = outputs(prof);
    bool json = false, db = false, readme = false;
    for (const auto& f : files) {
      const auto n = f.filename().string();
      json |= n.rfind("msprof_2", 0) == 0 && f.extension() == ".json";
      db |= f.extension() == ".db";
      readme |= n == "README.txt";
    }
    CHECK(json);
    CHECK(db);
    CHECK(readme);
  }
}

TEST_CASE("cli: export of several kinds in one call (one pass) writes what the separate exports write") {
  sandbox s;
  const auto one = s.add("ops_pipeutil", "one");
  const auto three = s.add("ops_pipeutil", "three");
  auto r = s.run({"export", "timeline,summary,db", "-dir", one.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  for (const char* k : {"timeline", "summary", "db"}) {
    r = s.run({"export", k, "-dir", three.string()});
    REQUIRE(r.rc == 0);
  }
  check_no_junk(one);
  // Same files (the stamp aside) with the same bytes, README.txt (stamps, one section per export) and the db aside.
  auto by_name = [](const fs::path& prof) {
    std::map<std::string, std::string> m;
    for (const auto& f : outputs(prof)) {
      std::string n = f.filename().string();
      if (n == "README.txt" || f.extension() == ".db") {
        m[n.substr(0, 7)] = "";
        continue;
      }
      const auto us = n.find_last_of('_');
      m[n.substr(0, us)] = slurp(f);
    }
    return m;
  };
  const auto a = by_name(one), b = by_name(three);
  CHECK(a.size() >= 6);
  CHECK(a == b);
  r = s.run({"export", "timeline,sumary", "-dir", one.string()});
  CHECK(r.rc == 2);
  CHECK(r.err.find("unknown export type 'sumary'") != std::string::npos);
}

TEST_CASE("cli: export timeline and summary also write the db with their stamp, as CANN's do, and --db=off leaves it out") {
  sandbox s;
  auto dbs_in = [](const fs::path& prof) {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(prof))
      if (e.path().extension() == ".db") v.push_back(e.path().filename().string());
    return v;
  };
  for (const char* kind : {"timeline", "summary"}) {
    CAPTURE(kind);
    const auto p = s.add("ops_pipeutil", kind);
    auto r = s.run({"export", kind, "-dir", p.string()});
    CAPTURE(r.err);
    REQUIRE(r.rc == 0);
    const auto dbs = dbs_in(p);
    REQUIRE(dbs.size() == 1);
    CHECK(r.out.find(dbs[0]) != std::string::npos);
    // The same stamp as the text files of this export.
    const std::string stamp = dbs[0].substr(7, 14);  // msprof_<ts>.db
    bool same = false;
    for (const auto& f : outputs(p))
      same = same || (f.extension() != ".db" && f.filename().string().find(stamp) != std::string::npos);
    CHECK(same);
  }
  const auto off = s.add("ops_pipeutil", "off");
  auto r = s.run({"export", "timeline,summary", "-dir", off.string(), "--db=off"});
  CHECK(r.rc == 0);
  CHECK(dbs_in(off).empty());
  r = s.run({"export", "timeline", "-dir", off.string(), "--db=maybe"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--db must be on or off, got 'maybe'") != std::string::npos);
}

TEST_CASE("cli: a parent of several PROF_ dirs exports each / json summaries") {
  sandbox s;
  const auto a = s.add("ops_pipeutil", "runs");
  const auto b = s.add("mstx_domains", "runs");
  REQUIRE(a != b);
  auto r = s.run({"export", "summary", "-dir", (s.root / "runs").string(), "--format=json"});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find(a.string()) != std::string::npos);
  CHECK(r.out.find(b.string()) != std::string::npos);
  bool op_json = false;
  for (const auto& f : outputs(a))
    if (f.filename().string().rfind("op_summary_", 0) == 0 && f.extension() == ".json") {
      op_json = true;
      const auto t = slurp(f);
      CHECK(t.front() == '[');
      CHECK(t.find("\"Op Name\":\"MatMul_1\"") != std::string::npos);
    }
  CHECK(op_json);
}

TEST_CASE("cli: export timeline then summary --format=json keeps both msprof_tx files") {
  // Same second, same <ts>: the JSON summary must not replace the timeline.
  sandbox s;
  const auto prof = s.add("mstx_domains");
  for (const char* k : {"timeline", "summary"}) {
    auto r = s.run({"export", k, "-dir", prof.string(), "--format=json"});
    CAPTURE(r.err);
    REQUIRE(r.rc == 0);
  }
  check_no_junk(prof);
  int timelines = 0, summaries = 0;
  for (const auto& f : outputs(prof)) {
    const auto n = f.filename().string();
    if (n.rfind("msprof_tx_", 0) != 0 || f.extension() != ".json") continue;
    CAPTURE(n);
    const auto t = slurp(f);
    if (n.rfind("msprof_tx_summary_", 0) == 0) {
      ++summaries;  // rows keyed by the CSV header
      CHECK(t.rfind("[{\"Device_id\":", 0) == 0);
      CHECK(t.find("\"ph\":") == std::string::npos);
    } else {
      ++timelines;  // trace events
      CHECK(t.find("\"ph\":") != std::string::npos);
      CHECK(t.find("\"Device_id\":") == std::string::npos);
    }
  }
  CHECK(timelines == 1);
  CHECK(summaries == 1);
}

TEST_CASE("cli: -reports selects outputs") {
  sandbox s;
  const auto prof = s.add("ops_pipeutil");
  const auto cfg = s.root / "reports.json";
  std::ofstream(cfg) << R"({"reports": ["op_summary"]})";
  auto r = s.run({"export", "summary", "-dir", prof.string(), "-reports", cfg.string()});
  CHECK(r.rc == 0);
  int csv = 0;
  for (const auto& f : outputs(prof)) csv += f.extension() == ".csv";
  CHECK(csv == 1);
  std::ofstream(cfg) << "{not json";
  r = s.run({"export", "summary", "-dir", prof.string(), "-reports", cfg.string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("reports.json") != std::string::npos);
}

TEST_CASE("cli: -reports with CANN's reports_sample_config.json chooses the processes of msprof.json") {
  sandbox s;
  const auto cfg = s.root / "reports_sample_config.json";
  // The process names in msprof_<ts>.json's metadata (the mstx process is named after the program).
  auto processes = [&](const fs::path& prof) {
    std::set<std::string> names;
    for (const auto& f : outputs(prof)) {
      if (f.filename().string().rfind("msprof_2", 0) != 0) continue;
      const std::string text = slurp(f);
      const std::string key = R"("name":"process_name","pid":)";
      for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
        const auto name = text.find(R"("args":{"name":")", at) + 16;
        names.insert(text.substr(name, text.find('"', name) - name));
      }
    }
    return names;
  };
  const auto all = s.add("multi_thread_mixed");
  REQUIRE(s.run({"export", "timeline", "-dir", all.string()}).rc == 0);
  CHECK(processes(all) == std::set<std::string>{"Ascend Hardware", "CANN", "AI Core Freq", "Overlap Analysis", "mixed_app"});

  const auto some = s.add("multi_thread_mixed", "second");
  std::ofstream(cfg) << R"({"json_process": {"cann": true, "msproftx": true, "ascend": false, "hbm": true}})";
  auto r = s.run({"export", "timeline", "-dir", some.string(), "-reports", cfg.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(processes(some) == std::set<std::string>{"CANN", "mixed_app"});
  // The host's usage processes: each switched by its own key.
  const auto host = s.add("host_usage", "host");
  REQUIRE(s.run({"export", "timeline", "-dir", host.string()}).rc == 0);
  CHECK(processes(host) == std::set<std::string>{"CANN", "CPU Usage", "Memory Usage"});
  const auto host_cpu = s.add("host_usage", "host_cpu");
  std::ofstream(cfg) << R"({"json_process": {"cpu_usage": true, "memory_usage": false, "cann": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", host_cpu.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(host_cpu) == std::set<std::string>{"CANN", "CPU Usage"});
  const auto host_io = s.add("host_io", "host_io");
  REQUIRE(s.run({"export", "timeline", "-dir", host_io.string()}).rc == 0);
  CHECK(processes(host_io) == std::set<std::string>{"CANN", "Disk Usage", "Network Usage"});
  const auto host_disk = s.add("host_io", "host_disk");
  std::ofstream(cfg) << R"({"json_process": {"disk_usage": true, "network_usage": false, "cann": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", host_disk.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(host_disk) == std::set<std::string>{"CANN", "Disk Usage"});
  // LLC: its own key too.
  const auto llc = s.add("llc", "llc");
  std::ofstream(cfg) << R"({"json_process": {"llc": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", llc.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(llc) == std::set<std::string>{"LLC"});
  const auto no_llc = s.add("llc", "no_llc");
  std::ofstream(cfg) << R"({"json_process": {"llc": false, "ascend": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", no_llc.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(no_llc).count("LLC") == 0);
  // QoS: its own key too (the reports reader once took "qos" for a key of no data).
  const auto qos = s.add("qos", "qos");
  std::ofstream(cfg) << R"({"json_process": {"qos": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", qos.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(qos) == std::set<std::string>{"QoS"});
  const auto no_qos = s.add("qos", "no_qos");
  std::ofstream(cfg) << R"({"json_process": {"qos": false, "ascend": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", no_qos.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(no_qos).count("QoS") == 0);
  // Acc PMU: its own key (the reports reader once took "acc_pmu" for a key of no data).
  const auto acc = s.add("acc_pmu", "acc_pmu");
  std::ofstream(cfg) << R"({"json_process": {"acc_pmu": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", acc.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(acc) == std::set<std::string>{"Acc PMU"});
  const auto no_acc = s.add("acc_pmu", "no_acc_pmu");
  std::ofstream(cfg) << R"({"json_process": {"acc_pmu": false, "ascend": true}})";
  REQUIRE(s.run({"export", "timeline", "-dir", no_acc.string(), "-reports", cfg.string()}).rc == 0);
  CHECK(processes(no_acc).count("Acc PMU") == 0);

  std::ofstream(cfg) << R"({"json_process": {"cann": "yes"}})";
  r = s.run({"export", "timeline", "-dir", some.string(), "-reports", cfg.string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("reports_sample_config.json: json_process.cann: expected true or false") != std::string::npos);
  std::ofstream(cfg) << R"({"json_process": {"gpu": true}})";
  r = s.run({"export", "timeline", "-dir", some.string(), "-reports", cfg.string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("json_process.gpu: unknown process") != std::string::npos);
}

TEST_CASE("cli: bad input gives one clear error naming the file, and no output") {
  SUBCASE("missing directory") {
    sandbox s;
    auto r = s.run({"export", "timeline", "-dir", (s.root / "nope").string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("nope: no such directory") != std::string::npos);
  }
  SUBCASE("empty directory") {
    sandbox s;
    fs::create_directories(s.root / "empty");
    auto r = s.run({"export", "timeline", "-dir", (s.root / "empty").string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("no PROF_ directory found") != std::string::npos);
  }
  SUBCASE("empty PROF_ directory") {
    sandbox s;
    fs::create_directories(s.root / "PROF_000001_x");
    auto r = s.run({"export", "timeline", "-dir", (s.root / "PROF_000001_x").string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("not a PROF_ directory (no host/ and no device_<id>/); a collection leaves one so when it "
                     "did not finish") != std::string::npos);
  }
  SUBCASE("missing control file") {
    sandbox s;
    const auto prof = s.add("ops_pipeutil");
    fs::remove(prof / "host" / "start_info");
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("host/start_info: missing") != std::string::npos);
    CHECK(r.err.find("did not finish") == std::string::npos);  // its end_info says it did
    CHECK(outputs(prof).empty());
  }
  SUBCASE("killed before writing its start files: no start_info and no end_info") {
    sandbox s;
    const auto prof = s.add("ops_pipeutil");
    fs::remove(prof / "host" / "start_info");
    fs::remove(prof / "host" / "end_info");
    fs::remove(prof / "device_0" / "end_info.0");
    auto r = s.run({"export", "summary", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("host/start_info: missing (the collection did not finish: its program was killed or crashed "
                     "before writing its start files)") != std::string::npos);
    CHECK(outputs(prof).empty());
  }
  SUBCASE("corrupt control file") {
    sandbox s;
    const auto prof = s.add("host_api_only");
    std::ofstream(prof / "host" / "info.json") << "{\"pid\": ";
    auto r = s.run({"export", "db", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("host/info.json: invalid JSON") != std::string::npos);
    CHECK(outputs(prof).empty());
  }
  SUBCASE("unreadable data file") {
    sandbox s;
    const auto prof = s.add("host_api_only");
    const auto f = prof / "host" / "data" / "unaging.api_event.data.slice_0";
    fs::remove(f);
    fs::create_directory(f);  // a directory where a slice should be: unreadable even as root
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("unaging.api_event.data.slice_0") != std::string::npos);
    CHECK(outputs(prof).empty());
  }
}

TEST_CASE("cli: damaged or partial collections are exported and the damage reported") {
  SUBCASE("truncated slices: warnings, exit 0; --strict: exit 1") {
    sandbox s;
    const auto prof = s.add("truncated_tail");
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(r.err.find("warning:") != std::string::npos);
    CHECK(r.err.find("23 of 40 bytes") != std::string::npos);    // 17 bytes cut off
    CHECK(r.err.find("156 of 256 bytes") != std::string::npos);  // 100 bytes cut off
    r = s.run({"export", "db", "-dir", prof.string(), "--strict"});
    CHECK(r.rc == 1);
    CHECK(r.err.find("strict") != std::string::npos);
  }
  SUBCASE("corrupt records: bad magic is skipped with a warning") {
    sandbox s;
    const auto prof = s.add("host_api_only");
    const auto f = prof / "host" / "data" / "unaging.api_event.data.slice_0";
    {
      std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
      io.seekp(40);
      io.write("\xff\xff", 2);
    }
    auto r = s.run({"export", "summary", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(r.err.find("record at byte offset 40: api_event magic is not 0x5A5A") != std::string::npos);
  }
  SUBCASE("device only") {
    sandbox s;
    const auto prof = s.add("ops_pipeutil");
    fs::remove_all(prof / "host");
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CAPTURE(r.err);
    CHECK(r.rc == 0);
    CHECK(r.err.find("no host/ directory") != std::string::npos);
    CHECK(r.err.find("5 device task(s) have no task_track") != std::string::npos);
    check_no_junk(prof);
  }
  SUBCASE("host only with task_track but no device") {
    sandbox s;
    const auto prof = s.add("ops_pipeutil");
    fs::remove_all(prof / "device_0");
    auto r = s.run({"export", "summary", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(r.err.find("no device_<id>/ directory") != std::string::npos);
  }
  SUBCASE("collector loss counters become warnings") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    auto info = slurp(prof / "host" / "info.json");
    info.insert(info.rfind('}'), ", \"msprof_losses\": {\"dropped\": 7, \"rejected\": 0}");
    std::ofstream(prof / "host" / "info.json", std::ios::trunc) << info;
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(r.err.find("reports 7 dropped event(s)") != std::string::npos);
    CHECK(r.err.find("rejected") == std::string::npos);
  }
  SUBCASE("nothing to export is an error, not an empty file") {
    sandbox s;
    const auto prof = s.add("host_api_only");
    fs::remove(prof / "host" / "data" / "unaging.api_event.data.slice_0");
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find("nothing to export") != std::string::npos);
    CHECK(outputs(prof).empty());
  }
}

namespace {

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cli: damaged input is never blocking, unbounded or silent (issue 25)") {
  SUBCASE("a FIFO named like a slice: a clear error naming it, no hang") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    const auto fifo = prof / "host" / "data" / "aging.additional.msproftx.slice_1";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    CHECK(r.rc == 1);
    CHECK(r.err.find(fifo.string() + ": not a regular file (a FIFO)") != std::string::npos);
    CHECK(outputs(prof).empty());
  }
  SUBCASE("a zero-filled slice: a bounded number of warning lines") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    const auto zero = prof / "host" / "data" / "aging.additional.msproftx.slice_1";
    std::ofstream{zero};
    fs::resize_file(zero, 8u << 20);
    auto r = s.run({"export", "summary", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(count_of(r.err, "warning:") <= 22);
    CHECK(r.err.find("... and 32748 more problems in " + zero.string()) != std::string::npos);
  }
  SUBCASE("a slice cut at a record boundary or emptied: warning; --strict: error") {
    for (const std::uintmax_t size : {1024u, 0u}) {
      sandbox s;
      const auto prof = s.add("mstx_domains");
      fs::resize_file(prof / "host" / "data" / "aging.additional.msproftx.slice_0", size);
      auto r = s.run({"export", "timeline", "-dir", prof.string()});
      CHECK(r.rc == 0);
      CHECK(r.err.find("but its .done says filesize:2304") != std::string::npos);
      r = s.run({"export", "db", "-dir", prof.string(), "--strict"});
      CHECK(r.rc == 1);
      CHECK(r.err.find("but its .done says filesize:2304") != std::string::npos);
    }
  }
  SUBCASE("every slice empty: timeline, summary and db agree (exit 1, nothing to export)") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    for (const auto& e : fs::directory_iterator(prof / "host" / "data"))
      if (e.path().extension() != ".done") fs::resize_file(e.path(), 0);
    for (const std::string k : {"timeline", "summary", "db"}) {
      CAPTURE(k);
      auto r = s.run({"export", k, "-dir", prof.string()});
      CHECK(r.rc == 1);
      CHECK(r.err.find("nothing to export") != std::string::npos);
      CHECK(outputs(prof).empty());
    }
  }
  SUBCASE("hash_dic missing: a visible marker where domain names belong, and a warning") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    for (const auto& e : fs::directory_iterator(prof / "host" / "data"))
      if (e.path().filename().string().find("hash_dic") != std::string::npos) fs::remove(e.path());
    auto r = s.run({"export", "summary", "-dir", prof.string()});
    CHECK(r.rc == 0);
    CHECK(r.err.find("mstx domain reference(s) to hashes not in host/data/*hash_dic*") != std::string::npos);
    bool marked = false;
    for (const auto& f : outputs(prof))
      if (f.filename().string().rfind("msprof_tx_", 0) == 0) marked = slurp(f).find(",<unknown hash 0x") != std::string::npos;
    CHECK(marked);
  }
  SUBCASE("invalid UTF-8 in a message: every JSON output parses and holds U+FFFD") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    replace_bytes(prof / "host" / "data" / "aging.additional.msproftx.slice_0", "batch 0 load", "bad \xff\xfe ok");
    auto r = s.run({"export", "timeline", "-dir", prof.string()});
    REQUIRE(r.rc == 0);
    CHECK(count_of(r.err, "not valid UTF-8") == 1);
    REQUIRE(s.run({"export", "summary", "-dir", prof.string(), "--format=json"}).rc == 0);
    const auto chrome_out = s.root / "chrome";
    fs::create_directories(chrome_out);
    fs::copy(prof, chrome_out / prof.filename(), fs::copy_options::recursive);
    REQUIRE(s.run({"export", "timeline", "-dir", (chrome_out / prof.filename()).string(), "--timeline-format=chrome"}).rc == 0);
    std::vector<fs::path> jsons;
    for (const auto& dir : {prof, chrome_out / prof.filename()})
      for (const auto& f : outputs(dir))
        if (f.extension() == ".json") jsons.push_back(f);
    CHECK(jsons.size() >= 4);  // msprof, msprof_tx (timeline and summary), chrome
    for (const auto& f : jsons) {
      CAPTURE(f.string());
      const std::string py = "python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding=\"utf-8\"))' " + quote(f.string());
      CHECK(std::system(py.c_str()) == 0);
      if (f.filename().string().rfind("api_statistic", 0) != 0)  // the one JSON output without messages
        CHECK(slurp(f).find("bad \xEF\xBF\xBD\xEF\xBF\xBD ok") != std::string::npos);
    }
  }
  SUBCASE("messages a spreadsheet would run: the CSV cell starts with a single quote") {
    sandbox s;
    const auto prof = s.add("mstx_domains");
    const auto slice = prof / "host" / "data" / "aging.additional.msproftx.slice_0";
    replace_bytes(slice, "start of epoch", "=HYPERLINK(1)");
    replace_bytes(slice, "forward", "\t=1+1");
    REQUIRE(s.run({"export", "summary", "-dir", prof.string()}).rc == 0);
    std::string csv;
    for (const auto& f : outputs(prof))
      if (f.filename().string().rfind("msprof_tx_", 0) == 0 && f.extension() == ".csv") csv = slurp(f);
    CHECK(csv.find(",N/A,'=HYPERLINK(1),default,") != std::string::npos);
    CHECK(csv.find(",N/A,'\t=1+1,default,") != std::string::npos);
  }
}

TEST_CASE("cli: import and show") {
  sandbox s;
  const auto prof = s.add("multi_thread_mixed");
  auto r = s.run({"import", "-dir", prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("9 API calls, 5 device tasks, 3 mstx events, 1 device(s)") != std::string::npos);
  r = s.run({"show", "-dir", prof.string(), "--top=2"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("Op statistic") != std::string::npos);
  CHECK(r.out.find("Conv2D") != std::string::npos);
  CHECK(r.out.find("API statistic") != std::string::npos);
  CHECK(r.out.find("2 more rows") != std::string::npos);
  CHECK(r.out.find("1800") != std::string::npos);
}

TEST_CASE("cli: launcher argument checks") {
  sandbox s;
  auto r = s.run({"--output=" + s.root.string()});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--application") != std::string::npos);
  r = s.run({"--output=" + s.root.string(), "--application=true", "--mstx-domain-include=a",
             "--mstx-domain-exclude=b"});
  CHECK(r.rc == 2);
  r = s.run({"--output=" + s.root.string(), "--application=true", "--aic-metrics=Nonsense"});
  CHECK(r.rc == 2);
  r = s.run({"--output=" + s.root.string(), "--application=true", "--storage-limit=5MB"});
  CHECK(r.rc == 2);
  r = s.run({"--output=" + s.root.string(), "--application=true", "--export=maybe"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--export") != std::string::npos);
}

TEST_CASE("cli: output safety: a link or a file at mindstudio_profiler_output: one error, one exit code, all exports") {
  for (const bool link : {true, false}) {
    CAPTURE(link);
    sandbox s;
    const auto prof = s.add("mstx_domains");
    const auto out = prof / "mindstudio_profiler_output";
    fs::create_directory(s.root / "victim");
    if (link)
      fs::create_directory_symlink(s.root / "victim", out);
    else
      std::ofstream(out) << "not a directory";
    const std::string why = link ? ": is a symbolic link (msprof does not write through links)"
                                 : ": exists and is not a directory";
    for (const char* k : {"timeline", "summary", "db"}) {
      CAPTURE(k);
      auto r = s.run({"export", k, "-dir", prof.string()});
      CHECK(r.rc == 1);
      CHECK(r.err.find("msprof: error: [msprof.io] " + out.string() + why + "\n") != std::string::npos);
      CHECK(r.out.empty());
    }
    CHECK(fs::is_empty(s.root / "victim"));
    for (const auto& e : fs::directory_iterator(prof)) CHECK(e.path().extension() != ".db");
  }
}

TEST_CASE("cli: output safety: launcher --output that is a symbolic link is refused like MSPROF_OUTPUT") {
  sandbox s;
  fs::create_directory(s.root / "victim");
  const auto out = s.root / "out";
  fs::create_directory_symlink(s.root / "victim", out);
  auto r = s.run({"--output=" + out.string(), "--application=true"});
  CHECK(r.rc == 1);
  // The collector's words for MSPROF_OUTPUT (session/output_path.hpp).
  CHECK(r.err == "msprof: error: output path '" + out.string() + "': '" + out.string() + "' is a symbolic link\n");
  CHECK(fs::is_empty(s.root / "victim"));
  // A link above --output is the user's own path: followed, for the collector too.
  r = s.run({"--output=" + (out / "sub").string(), "--application=true"});
  CHECK(r.err.find("symbolic link") == std::string::npos);
  CHECK(fs::is_directory(s.root / "victim" / "sub"));
}

#ifdef MSPROF_TEST_INJECTION_LIB
TEST_CASE("cli: launcher runs the application with the injection environment") {
  sandbox s;
  // The child prints the variables the injection library reads.
  const auto out = s.root / "env.txt";
  auto r = s.run({"--output=" + (s.root / "out").string(), "--mstx-domain-include=a,b",
                  "--application=env > " + out.string()});
  const auto env = slurp(out);
  CHECK(env.find("MSTX_INJECTION_PATH=") != std::string::npos);
  CHECK(env.find("libmsprof_mstx.so") != std::string::npos);
  CHECK(env.find("MSPROF_OUTPUT=" + (s.root / "out").string()) != std::string::npos);
  CHECK(env.find("MSPROF_MSTX_DOMAIN_INCLUDE=a,b") != std::string::npos);
  // `env` makes no mstx call, so no PROF_ dir: a clear error, not success.
  CHECK(r.rc == 1);
  CHECK(r.err.find("no PROF_ directory") != std::string::npos);
}
#endif

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cli: launcher end to end: mstx program -> PROF_ dir -> timeline, summaries, db") {
  sandbox s;
  const auto out = s.root / "out";
  // detect_leaks=0 for the application only: LeakSanitizer's tracer (gcc 12,
  // glibc 2.36) crashes on the dynamic TLS of a dlopen'ed library such as the
  // injection library. ASan and UBSan stay on. No effect without sanitizers.
  auto r = s.run({"--output=" + out.string(),
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  const fs::path prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  std::string tx_csv, timeline;
  bool db = false;
  for (const auto& f : outputs(prof)) {
    const auto n = f.filename().string();
    if (n.rfind("msprof_tx_", 0) == 0 && f.extension() == ".csv") tx_csv = slurp(f);
    if (n.rfind("msprof_2", 0) == 0 && f.extension() == ".json") timeline = slurp(f);
    db |= f.extension() == ".db";
  }
  CHECK(db);
  CHECK(timeline.find("\"hello launcher\"") != std::string::npos);
  CHECK(tx_csv.find(",work,default,") != std::string::npos);
  CHECK(tx_csv.find(",net mark,net,") != std::string::npos);

  // Domain filtering is applied by the injection library from the launcher's flags.
  const auto out2 = s.root / "out2";
  r = s.run({"--output=" + out2.string(), "--mstx-domain-exclude=net",
            std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP});
  REQUIRE(r.rc == 0);
  for (const auto& e : fs::directory_iterator(out2))
    for (const auto& f : outputs(e.path()))
      if (f.filename().string().rfind("msprof_tx_", 0) == 0 && f.extension() == ".csv") {
        CHECK(slurp(f).find("net mark") == std::string::npos);
        CHECK(slurp(f).find("hello launcher") != std::string::npos);
      }
}
#endif

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cli: launcher: every process of the application that collects gets its PROF_ dir, and each is exported") {
  sandbox s;
  const std::string app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP;
  for (const bool on : {true, false}) {
    CAPTURE(on);
    const auto out = s.root / (on ? "on" : "off");
    auto r = s.run({"--output=" + out.string(), std::string("--export=") + (on ? "on" : "off"),
                    "--application=" + app + " && " + app});
    CAPTURE(r.err);
    REQUIRE(r.rc == 0);
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(out)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    REQUIRE(dirs.size() == 2);
    CHECK(r.err.find("2 processes of the application collected: 2 directories in " + out.string()) != std::string::npos);
    for (const auto& d : dirs) {
      CAPTURE(d);
      CHECK(d.filename().string().rfind("PROF_", 0) == 0);
      std::string tx_csv;
      for (const auto& f : outputs(d))
        if (f.filename().string().rfind("msprof_tx_", 0) == 0 && f.extension() == ".csv") tx_csv = slurp(f);
      CHECK((tx_csv.find(",work,default,") != std::string::npos) == on);
    }
    if (!on) CHECK(r.out == dirs[0].string() + "\n" + dirs[1].string() + "\n");
  }
}

namespace {
// The "tick <k>" marks in the msprof_tx CSV of `prof`, in order.
std::vector<int> ticks_in(const fs::path& prof) {
  std::vector<int> ticks;
  for (const auto& f : outputs(prof)) {
    if (f.filename().string().rfind("msprof_tx_", 0) != 0 || f.extension() != ".csv") continue;
    const std::string csv = slurp(f);
    for (auto at = csv.find(",tick "); at != std::string::npos; at = csv.find(",tick ", at + 1))
      ticks.push_back(std::atoi(csv.c_str() + at + 6));
  }
  std::sort(ticks.begin(), ticks.end());
  return ticks;
}
}  // namespace

TEST_CASE("cli: launcher --delay and --duration: only the calls inside the window are collected, and nothing is lost") {
  sandbox s;
  const auto out = s.root / "out";
  // 30 marks 100 ms apart; the window is the second second after launch.
  auto r = s.run({"--output=" + out.string(), "--delay=1", "--duration=1",
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " ticks 30"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("not applied") == std::string::npos);
  CHECK(r.err.find("not (completely) in the trace") == std::string::npos);  // the accounting holds
  const fs::path prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  const std::vector<int> ticks = ticks_in(prof);
  CAPTURE(ticks.size());
  // About ten marks (a busy machine moves the edges), consecutive, neither the
  // first marks (the delay) nor the last (the duration).
  REQUIRE(ticks.size() >= 5);
  CHECK(ticks.size() <= 13);
  CHECK(ticks.front() >= 3);
  CHECK(ticks.back() <= 26);
  CHECK(ticks.back() - ticks.front() + 1 == static_cast<int>(ticks.size()));
  const std::string sample = slurp(prof / "host" / "sample.json");
  CHECK(sample.find("\"delay\"") != std::string::npos);  // recorded as asked
}

TEST_CASE("cli: launcher --export=off collects the PROF_ dir without exporting it, --export=on exports") {
  sandbox s;
  const std::string app = std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP;
  for (const bool on : {false, true}) {
    CAPTURE(on);
    const auto out = s.root / (on ? "on" : "off");
    auto r = s.run({"--output=" + out.string(), std::string("--export=") + (on ? "on" : "off"), app});
    CAPTURE(r.err);
    REQUIRE(r.rc == 0);
    const fs::path prof = prof_dir_in(out);
    REQUIRE(!prof.empty());
    CHECK(fs::is_directory(prof / "mindstudio_profiler_output") == on);
    CHECK(outputs(prof).empty() == !on);
    if (!on) CHECK(r.out == prof.string() + "\n");  // the collected directory, for a later `msprof export`
    check_no_junk(prof);
  }
}
#endif

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_FIRST_PROGRAM)
TEST_CASE("cli: a new user's path: README's first program through the launcher, then show's mstx tables") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(),
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_FIRST_PROGRAM});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(!prof_dir_in(out).empty());
  const std::string launch_err = r.err;
  r = s.run({"show", "-dir", out.string()});
  CAPTURE(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("0 API calls, 0 device tasks, 9 mstx events") != std::string::npos);
  // Three ranges in each group, three marks; the columns before Count are times.
  auto row_of = [&](const std::string& tail) {
    const auto at = r.out.find(tail + "\n");
    return at == std::string::npos ? std::string() : r.out.substr(r.out.rfind('\n', at) + 1, at - r.out.rfind('\n', at) - 1 + tail.size());
  };
  const std::string load = row_of("io       load_batch"), decode = row_of("default  decode");
  CHECK(load.find("  3  ") != std::string::npos);
  CHECK(decode.find("  3  ") != std::string::npos);
  for (const char* mark : {"batch 0", "batch 1", "batch 2"}) CHECK(row_of(std::string("1      default  ") + mark) != "");
  CHECK(r.out.find("Ranges  Marks") != std::string::npos);

  // Something to look at: the launcher wrote the viewer-safe trace, said where
  // to open it, and the DevTools engine draws every slice of it (CI's chrome
  // step runs this case with the engine required).
  std::vector<fs::path> traces;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.path().filename().string().rfind("chrome_trace_", 0) == 0) traces.push_back(e.path());
  REQUIRE(traces.size() == 1);
  CHECK(launch_err.find("open " + traces[0].string()) != std::string::npos);
  const auto trace = chrome_testing::parse_trace(read_text(traces[0]), chrome_testing::form::chrome);
  for (const auto& p : trace.problems) FAIL_CHECK(p);
  std::size_t slices = 0;
  for (const auto& e : trace.events) slices += e.ph == 'X';
  CHECK(slices == 9);  // six ranges and three marks (zero-length slices)
  if (!chrome_testing::engine_skipped())
    for (const auto& f : chrome_testing::engine_findings(chrome_testing::run_engine(traces[0]), trace)) FAIL_CHECK(f);
}

TEST_CASE("cli: --chrome-trace=off leaves the viewer-safe trace out, and takes only on or off") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(), "--chrome-trace=off",
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_FIRST_PROGRAM});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  std::size_t traces = 0, timelines = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    const std::string n = e.path().filename().string();
    traces += n.rfind("chrome_trace_", 0) == 0;
    timelines += n.rfind("msprof_", 0) == 0 && e.path().extension() == ".json";
  }
  CHECK(traces == 0);
  CHECK(timelines > 0);
  CHECK(r.err.find("Perfetto") == std::string::npos);
  r = s.run({"--output=" + out.string(), "--chrome-trace=maybe", MSPROF_TEST_FIRST_PROGRAM});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--chrome-trace must be on or off, got 'maybe'") != std::string::npos);
}
#endif

#if defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
TEST_CASE("cli: fork() while another thread initialises mstx: no child hangs, the launcher returns") {
  sandbox s;
  // The application's own watchdog ends a hung child and exits with 3. A fork()
  // before the first call claims the initialisation leaves a child that
  // initialises its own collection, as any process does, and starts its drain
  // thread: ThreadSanitizer refuses that in a child of a threaded process unless
  // told die_after_fork=0 (ignored by the other builds).
  auto r = s.run({"--output=" + (s.root / "out").string(), "--export=off",
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 "
                              "TSAN_OPTIONS=\"${TSAN_OPTIONS:-} die_after_fork=0\" ") +
                      MSPROF_TEST_APP + " fork-init"});
  CAPTURE(r.err);
  MESSAGE(r.out);
  CHECK(r.rc == 0);
  CHECK(r.err.find("hung") == std::string::npos);
}

TEST_CASE("cli: fork() after initialisation: the child is not recorded and says so, its calls are counted in the parent's directory, the parent's run is whole") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(),
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " fork-after"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("its mstx calls are not recorded") != std::string::npos);
  const fs::path prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  CHECK(fs::exists(prof / "host" / "end_info"));
  r = s.run({"export", "summary", "-dir", prof.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  // The export says what the child called (host/msprof_forks); the parent's own
  // accounting is exact: nothing lost, nothing unfinished.
  CHECK(r.err.find("1 process(es) fork()ed from the profiled one made 2 mstx call(s) that are not collected") !=
        std::string::npos);
  CHECK(r.err.find("mstx calls but") == std::string::npos);
  CHECK(r.err.find("lost") == std::string::npos);
  std::string tx;
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("msprof_tx_", 0) == 0 && f.extension() == ".csv") tx = slurp(f);
  CHECK(tx.find("parent before fork") != std::string::npos);
  CHECK(tx.find("parent after fork") != std::string::npos);
  CHECK(tx.find("child mark") == std::string::npos);
}

namespace {
// The test app in `mode`, collecting into `out` through the injection library
// (as the launcher runs it), for a test that kills it.
pid_t start_collecting(const fs::path& out, const char* mode) {
  fs::create_directories(out);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("MSTX_INJECTION_PATH", MSPROF_TEST_INJECTION_LIB, 1);
    ::setenv("MSPROF_OUTPUT", out.c_str(), 1);
    ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    ::execl(MSPROF_TEST_APP, MSPROF_TEST_APP, mode, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}
// The PROF_ directory a program collecting into `out` made, once `ready`
// holds for it (a watchdog of 20 s instead of a sleep); empty if it never did.
fs::path wait_for_prof(const fs::path& out, const std::function<bool(const fs::path&)>& ready) {
  for (int i = 0; i < 2000; ++i) {
    const fs::path prof = prof_dir_in(out);
    if (!prof.empty() && ready(prof)) return prof;
    ::usleep(10000);
  }
  return {};
}
// The size of the staging's first chunk (8 bytes of magic before its records).
std::uintmax_t staged_bytes(const fs::path& prof) {
  std::error_code ec;
  const auto n = fs::file_size(prof / "host" / "msprof_staging" / "tx.0", ec);
  return ec ? 0 : n;
}
}  // namespace

TEST_CASE("cli: kill -9 of a collecting program: export, import and show report the saved losses and the unfinished run") {
  sandbox s;
  const auto out = s.root / "out";
  const pid_t pid = start_collecting(out, "kill-me");
  REQUIRE(pid >= 0);
  // Kill it once the collector has saved a loss (the refused calls) and some
  // marks during the run (with no event at all there would be nothing to
  // export).
  auto has_marks = [](const fs::path& prof) {  // in the staging (the default) or in msproftx slices (--staging=off)
    if (staged_bytes(prof) > 8) return true;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(prof / "host" / "data", ec))
      if (e.path().filename().string().find("msproftx.slice_") != std::string::npos && e.file_size(ec) > 0) return true;
    return false;
  };
  const fs::path prof = wait_for_prof(out, [&](const fs::path& p) {
    const std::string info = slurp(p / "host" / "info.json");
    const std::string key = "\"rejected\": ";
    const auto at = info.find(key);
    return at != std::string::npos && at + key.size() < info.size() && info[at + key.size()] >= '1' &&
           info[at + key.size()] <= '9' && has_marks(p);
  });
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  REQUIRE(!prof.empty());
  CHECK_FALSE(fs::exists(prof / "host" / "end_info"));

  auto r = s.run({"export", "summary", "-dir", prof.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("the collection did not finish") != std::string::npos);
  CHECK(r.err.find("rejected") != std::string::npos);
  std::string losses;
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("msprof_losses_", 0) == 0) losses = slurp(f);
  CHECK(losses.find("rejected,") != std::string::npos);
  // "never ends" was open at the kill: its start is among the calls lost then.
  const auto at = losses.find("lost_at_kill,");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoull(losses.substr(at + 13)) >= 1);
  CHECK(losses.find("collection_unfinished,0,") != std::string::npos);  // every call accounted for
  r = s.run({"export", "timeline", "-dir", prof.string()});
  REQUIRE(r.rc == 0);
  bool note = false;
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("msprof_2", 0) == 0 && f.extension() == ".json")
      note = note || slurp(f).find("collection unfinished (program killed or crashed)") != std::string::npos;
  CHECK(note);
  r = s.run({"import", "-dir", prof.string()});
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("UNFINISHED collection") != std::string::npos);
  CHECK(r.out.find("LOSSES: rejected") != std::string::npos);
  r = s.run({"export", "summary", "-dir", prof.string(), "--strict"});
  CHECK(r.rc != 0);  // --strict: the warnings of a killed run are errors
}

namespace {
// Events in the PROF_ directory's mstx slices: the records of the `burst` ranges
// (one 256-byte record each, two calls) and the loss counters of info.json.
struct tx_accounting {
  std::uint64_t ranges = 0, dropped = 0, unfinished = 0, unknown = 0, storage = 0;
  std::uint64_t calls() const { return 2 * ranges + dropped + unfinished + unknown + storage; }
};
std::uint64_t info_count(const std::string& info, const std::string& key) {
  const auto at = info.find("\"" + key + "\": ");
  return at == std::string::npos ? 0 : std::stoull(info.substr(at + key.size() + 4));
}
// The export's lost_at_kill (msprof_losses_*.csv), 0 when it has none.
std::uint64_t lost_at_kill(const fs::path& prof) {
  for (const auto& f : outputs(prof))
    if (f.filename().string().rfind("msprof_losses_", 0) == 0) {
      const std::string l = slurp(f);
      const auto at = l.find("lost_at_kill,");
      if (at != std::string::npos) return std::stoull(l.substr(at + 13));
    }
  return 0;
}
// The sum of host/msprof_calls' counters (slot 0, threads without a slot, must be 0).
std::uint64_t calls_made(const fs::path& prof) {
  const std::string b = slurp(prof / "host" / "msprof_calls");
  REQUIRE(b.size() >= 16);
  REQUIRE(b.compare(0, 8, "MSPCALL1") == 0);
  std::uint64_t sum = 0, v = 0;
  std::memcpy(&v, b.data() + 16, 8);
  CHECK(v == 0);
  for (std::size_t off = 24; off + 8 <= b.size(); off += 8) {
    std::memcpy(&v, b.data() + off, 8);
    sum += v;
  }
  return sum;
}
tx_accounting account(const fs::path& prof) {
  tx_accounting a;
  for (const auto& e : fs::directory_iterator(prof / "host" / "data"))
    if (e.path().filename().string().find("msproftx.slice_") != std::string::npos && e.path().extension() != ".done")
      a.ranges += e.file_size() / 256;
  const std::string info = slurp(prof / "host" / "info.json");
  a.dropped = info_count(info, "dropped");
  a.unfinished = info_count(info, "unfinished_ranges");
  a.unknown = info_count(info, "unknown_range_ends");
  a.storage = info_count(info, "storage_limit_dropped");
  return a;
}
}  // namespace

TEST_CASE("cli: buffers: by default a tight loop loses nothing, --buffer-full=drop with a small buffer counts every drop") {
  sandbox s;
  const std::string app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " burst 200000";
  auto r = s.run({"--output=" + (s.root / "default").string(), "--export=off", "--application=" + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("emitted 800000") != std::string::npos);
  tx_accounting a = account(prof_dir_in(s.root / "default"));
  CHECK(a.dropped == 0);
  CHECK(a.ranges == 400000);
  CHECK(a.calls() == 800000);
  CHECK(calls_made(prof_dir_in(s.root / "default")) == 800000);

  r = s.run({"--output=" + (s.root / "drop").string(), "--export=off", "--buffer-full=drop", "--buffer-size=4KB",
             "--application=" + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  a = account(prof_dir_in(s.root / "drop"));
  CHECK(a.dropped > 0);  // 4 KiB rings cannot hold a tight loop
  CHECK(a.calls() == 800000);
  CHECK(calls_made(prof_dir_in(s.root / "drop")) == 800000);

  r = s.run({"--output=" + (s.root / "block").string(), "--export=off", "--buffer-full=block", "--buffer-size=4KB",
             "--application=" + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  a = account(prof_dir_in(s.root / "block"));
  CHECK(a.dropped == 0);
  CHECK(a.ranges == 400000);
}

TEST_CASE("cli: buffers: bad sizes and policies are refused by the launcher and by the library") {
  sandbox s;
  const std::string app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP;
  for (const auto& [flag_, word] : std::vector<std::pair<std::string, std::string>>{
           {"--buffer-size=12", "--buffer-size must be a size"},
           {"--buffer-size=1KB", "at least 4KB"},
           {"--buffer-limit=lots", "--buffer-limit must be a size"},
           {"--buffer-full=wait", "--buffer-full must be grow, block or drop"},
           {"--buffer-limit=1MB", "below one thread's buffer size"}}) {
    const std::string& flag = flag_;  // CAPTURE takes it into a lambda: not a structured binding (C++17)
    std::vector<std::string> args{"--output=" + (s.root / "out").string(), flag, "--application=" + app};
    if (flag == "--buffer-limit=1MB") args.insert(args.begin() + 1, "--buffer-size=2MB");
    const auto r = s.run(args);
    CAPTURE(flag);
    CAPTURE(r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find(word) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(s.root / "out"));
  // The library itself (a program started without the launcher): collection off, the program runs.
  const std::string cmd = "MSTX_INJECTION_PATH=" + quote(MSPROF_TEST_INJECTION_LIB) + " MSPROF_OUTPUT=" +
                          quote((s.root / "lib").string()) + " MSPROF_BUFFER_FULL=sometimes ASAN_OPTIONS=detect_leaks=0 " +
                          quote(MSPROF_TEST_APP) + " 2>" + quote((s.root / "lib.err").string());
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(slurp(s.root / "lib.err").find("MSPROF_BUFFER_FULL must be grow, block or drop, got 'sometimes'; collection disabled") !=
        std::string::npos);
  CHECK((!fs::exists(s.root / "lib") || prof_dir_in(s.root / "lib").empty()));
}

TEST_CASE("cli: staging: --staging=on keeps every call of a tight loop, and leaves CANN's slices and no staging") {
  sandbox s;
  const std::string app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " burst 200000";
  auto r = s.run({"--output=" + (s.root / "staged").string(), "--export=off", "--staging=on", "--application=" + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("emitted 800000") != std::string::npos);
  const fs::path prof = prof_dir_in(s.root / "staged");
  CHECK_FALSE(fs::exists(prof / "host" / "msprof_staging"));
  const tx_accounting a = account(prof);
  CHECK(a.dropped == 0);
  CHECK(a.ranges == 400000);
  CHECK(calls_made(prof) == 800000);
  r = s.run({"export", "summary", "-dir", prof.string()});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(r.err.find("recovered") == std::string::npos);  // nothing left to recover
  r = s.run({"--output=" + (s.root / "bad").string(), "--staging=maybe", "--application=" + app});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--staging must be on or off") != std::string::npos);
}

TEST_CASE("cli: staging: a killed staged run is recovered by export, with every call accounted for") {
  sandbox s;
  const auto out = s.root / "out";
  fs::create_directories(out);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("MSTX_INJECTION_PATH", MSPROF_TEST_INJECTION_LIB, 1);
    ::setenv("MSPROF_OUTPUT", out.c_str(), 1);
    ::setenv("MSPROF_STAGING", "on", 1);
    ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    ::execl(MSPROF_TEST_APP, MSPROF_TEST_APP, "ranges", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill it once the staging holds records.
  const fs::path prof = wait_for_prof(out, [](const fs::path& p) { return staged_bytes(p) > 4096; });
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  REQUIRE(!prof.empty());
  auto r = s.run({"export", "summary", "-dir", prof.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("recovered from the staging a stopped collection left") != std::string::npos);
  CHECK(r.err.find("the collection did not finish") != std::string::npos);
  CHECK_FALSE(fs::exists(prof / "host" / "msprof_staging"));
  const tx_accounting a = account(prof);
  CHECK(a.ranges > 0);
  CHECK(a.calls() + lost_at_kill(prof) == calls_made(prof));
}

TEST_CASE("cli: fork: a child that outlives the program holds no staging lock: the launcher makes the slices at once") {
  sandbox s;
  const auto out = s.root / "out";
  const auto pid_file = s.root / "child.pid";
  auto r = s.run({"--output=" + out.string(), "--export=off", "--staging=on",
                  std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " fork-outlive " +
                      pid_file.string()});
  CAPTURE(r.err);
  const pid_t child = static_cast<pid_t>(std::atol(slurp(pid_file).c_str()));
  REQUIRE(child > 0);
  const bool alive = ::kill(child, 0) == 0;  // it was alive while the launcher converted
  ::kill(child, SIGKILL);
  CHECK(alive);
  REQUIRE(r.rc == 0);
  const fs::path prof = prof_dir_in(out);
  REQUIRE(!prof.empty());
  CHECK_FALSE(fs::exists(prof / "host" / "msprof_staging"));
  CHECK(account(prof).ranges == 2);  // records: the two marks of the parent
}

TEST_CASE("cli: storage limit: the staging's oldest chunks go, and every call is a row or counted in storage_limit_dropped") {
  sandbox s;
  const std::string app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " burst 200000";
  // 3 MB (the launcher's --storage-limit takes 200MB at least; the library any size).
  auto r = s.run({"--output=" + (s.root / "out").string(), "--export=off", "--environment=MSPROF_STORAGE_LIMIT=3MB",
                  "--application=" + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("emitted 800000") != std::string::npos);  // about 100 MB as msproftx records
  const fs::path prof = prof_dir_in(s.root / "out");
  CHECK_FALSE(fs::exists(prof / "host" / "msprof_staging"));
  const tx_accounting a = account(prof);
  CHECK(a.ranges > 0);
  CHECK(a.ranges * 256 <= 3u << 20);
  CHECK(a.storage > 0);
  CHECK(a.dropped == 0);
  CHECK(a.calls() == 800000);
  CHECK(calls_made(prof) == 800000);
}

TEST_CASE("cli: kill -9 at 20 random moments: every export runs and says the run did not finish") {
  std::mt19937 rng(20261125);
  int exported = 0;
  for (int run = 0; run < 20; ++run) {
    sandbox s;
    const auto out = s.root / "out";
    const pid_t pid = start_collecting(out, "ranges");
    REQUIRE(pid >= 0);
    // The moment counts from the first call's directory, not from exec: under
    // TSan and load the start alone can take longer than the longest delay.
    const fs::path prof = wait_for_prof(out, [](const fs::path&) { return true; });
    const int delay_ms = std::uniform_int_distribution<int>(0, 500)(rng);
    CAPTURE(delay_ms);
    ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(!prof.empty());
    const auto r = s.run({"export", "summary", "-dir", prof.string()});
    CAPTURE(r.err);
    // Exported with a warning, or nothing saved yet: never a crash or a silent success.
    CHECK((r.rc == 0 || r.rc == 1));
    if (r.rc == 0) {
      ++exported;
      CHECK(r.err.find("the collection did not finish") != std::string::npos);
      // Every call is accounted for: in the trace, counted lost during the run, or lost at the kill.
      const tx_accounting a = account(prof);
      CHECK(a.calls() + lost_at_kill(prof) == calls_made(prof));
    } else {  // killed before its first save: an error naming the directory and the unfinished run
      CHECK(r.err.find("msprof: error: ") != std::string::npos);
      CHECK(r.err.find(prof.string()) != std::string::npos);
      CHECK(r.err.find("the collection did not finish") != std::string::npos);
    }
  }
  MESSAGE(exported << " of 20 killed runs had saved data to export");
  CHECK(exported > 0);
}

TEST_CASE("cli: kill -9 before the first save: the export's error counts the calls lost in memory") {
  sandbox s;
  const auto out = s.root / "out";
  const pid_t pid = start_collecting(out, "ranges");
  REQUIRE(pid >= 0);
  // Killed once the drain has saved some records (so the calls were counted);
  // the staging is then emptied back to what it is before that first save:
  // its files created, nothing written; or only its directory made.
  const fs::path prof = wait_for_prof(out, [](const fs::path& p) { return staged_bytes(p) > 8; });
  const fs::path staging = prof / "host" / "msprof_staging";
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  REQUIRE(!prof.empty());
  SUBCASE("files empty") {
    for (const auto& e : fs::directory_iterator(staging)) fs::resize_file(e.path(), 0);
  }
  SUBCASE("no files yet") {
    for (const auto& e : fs::directory_iterator(staging)) fs::remove(e.path());
  }
  const std::uint64_t made = calls_made(prof);
  REQUIRE(made > 0);

  const auto r = s.run({"export", "summary", "-dir", prof.string()});
  CAPTURE(r.err);
  CHECK(r.rc == 1);
  CHECK(r.err.find("msprof: error: [msprof.not_found] " + prof.string() + ": nothing to export") != std::string::npos);
  CHECK(r.err.find("the collection did not finish") != std::string::npos);
  const std::string counted = " mstx call(s) were lost in its memory (lost_at_kill)";
  const auto at = r.err.find(counted);
  REQUIRE(at != std::string::npos);
  const auto from = r.err.rfind("; ", at) + 2;
  const std::uint64_t lost = std::stoull(r.err.substr(from, at - from));
  const std::string info = slurp(prof / "host" / "info.json");
  std::uint64_t counted_lost = 0;  // during the run: in info.json
  for (const char* k : {"dropped", "domain_mismatch", "unknown_range_ends", "unfinished_ranges", "sink_failed",
                        "storage_limit_dropped"})
    counted_lost += info_count(info, k);
  CHECK(lost + counted_lost == made);
  CHECK_FALSE(fs::exists(staging));  // recovered: nothing in it
}

namespace {
// The PROF_ directories in `out`, in the order they were made (PROF_<pid>_<time>_...: by the time).
std::vector<fs::path> prof_dirs_in(const fs::path& out) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string().substr(12) < b.filename().string().substr(12);
  });
  return dirs;
}
// A window's marks: some, consecutive, each one call counted in host/msprof_calls, nothing lost.
void check_window(const fs::path& prof, const std::vector<int>& ticks) {
  CAPTURE(prof);
  CAPTURE(ticks.size());
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks.back() - ticks.front() + 1 == static_cast<int>(ticks.size()));
  CHECK(calls_made(prof) == ticks.size());
  const tx_accounting a = account(prof);
  CHECK(a.dropped + a.unfinished + a.unknown + a.storage == 0);
}
const std::string ticking_app = std::string("env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " ticks";
}  // namespace

TEST_CASE("cli: launcher --dynamic=on: each start..stop is its own PROF_ dir with exactly the marks inside it") {
  sandbox s;
  const auto out = s.root / "out";
  // 60 marks 50 ms apart; two windows of 0.7 s with a bad command and a stop too many between them.
  auto r = s.run_fed("sleep 0.4; echo start; sleep 0.7; echo stop; sleep 0.3; echo ' stop '; echo bogus; echo start;"
                     " sleep 0.7; echo quit",
                     {"--output=" + out.string(), "--dynamic=on", "--application=" + ticking_app + " 60 50"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("collection 1 started") != std::string::npos);
  CHECK(r.err.find("collection 2 stopped") != std::string::npos);
  CHECK(r.err.find("not collecting: start begins a collection") != std::string::npos);
  CHECK(r.err.find("unknown command 'bogus'; commands: start") != std::string::npos);
  CHECK(r.err.find("quit: leaving the interactive mode") != std::string::npos);
  CHECK(r.err.find("2 collections (start..stop") != std::string::npos);
  CHECK(r.err.find("not (completely) in the trace") == std::string::npos);  // the accounting holds
  CHECK(r.err.find("the collector counted") == std::string::npos);
  CHECK(r.err.find("warning") == std::string::npos);
  const auto dirs = prof_dirs_in(out);
  REQUIRE(dirs.size() == 2);  // and the control file is gone
  CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 2);
  const auto first = ticks_in(dirs[0]), second = ticks_in(dirs[1]);
  check_window(dirs[0], first);
  check_window(dirs[1], second);
  REQUIRE((!first.empty() && !second.empty()));
  CHECK(first.front() > 0);              // not before the first start
  CHECK(second.front() > first.back() + 1);  // nothing between stop and start
  CHECK(second.back() < 59);             // nor after quit
}

TEST_CASE("cli: launcher --dynamic=on: end of input quits, a second start is refused, help lists the commands") {
  sandbox s;
  const auto out = s.root / "out";
  // A 5000-byte line and a control character are no commands either.
  auto r = s.run_fed("echo help; head -c 5000 /dev/zero | tr '\\0' x; echo; printf 'bo\\033gus\\n'; sleep 0.3;"
                     " printf 'start\\nstart\\n'; sleep 0.5; printf stop",  // no newline at the end
                     {"--output=" + out.string(), "--dynamic=on", "--export=off", "--application=" + ticking_app + " 30 50"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("commands: start (begin collecting), stop (end this collection), quit") != std::string::npos);
  CHECK(r.err.find("already collecting (collection 1): stop it first") != std::string::npos);
  CHECK(r.err.find("a line of more than 1024 bytes is no command: ignored") != std::string::npos);
  CHECK(r.err.find("unknown command 'bo?gus'") != std::string::npos);
  CHECK(r.err.find("xxxx") == std::string::npos);
  CHECK(r.err.find("collection 1 stopped") != std::string::npos);
  CHECK(r.err.find("end of input: leaving the interactive mode") != std::string::npos);
  const auto dirs = prof_dirs_in(out);
  REQUIRE(dirs.size() == 1);
  CHECK(r.out == dirs[0].string() + "\n");

  // End of input before any start: nothing collected, said, rc 1.
  r = s.run({"--output=" + (s.root / "none").string(), "--dynamic=on", "--application=" + ticking_app + " 3 10"});
  CHECK(r.rc == 1);
  CHECK(r.err.find("end of input: leaving the interactive mode") != std::string::npos);
  CHECK(r.err.find("no collection was started (--dynamic=on: type start, later stop), nothing collected") !=
        std::string::npos);
  CHECK(prof_dirs_in(s.root / "none").empty());
}

TEST_CASE("cli: launcher --dynamic=on: a process started while collecting joins, and the program ending closes the window") {
  sandbox s;
  const auto out = s.root / "out";
  // start at once; two programs one after the other, 0.6 s each; stdin stays open past their end.
  const std::string app = ticking_app + " 12 50";
  auto r = s.run_fed("echo start; sleep 4", {"--output=" + out.string(), "--dynamic=on", "--application=" + app + " && " + app});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("the application ended while collecting: collection 1 ends with it") != std::string::npos);
  CHECK(r.err.find("the collector counted") == std::string::npos);
  const auto dirs = prof_dirs_in(out);
  REQUIRE(dirs.size() == 2);
  const auto first = ticks_in(dirs[0]), second = ticks_in(dirs[1]);
  check_window(dirs[0], first);
  check_window(dirs[1], second);
  REQUIRE(!second.empty());
  CHECK(second.front() == 0);  // from its first call
  CHECK(second.back() == 11);  // to its last
}

namespace {
// The test app in `args` started as CANN's attach mode wants it: the injection
// library, PROFILING_MODE=dynamic, no launcher; $HOME is `home`.
pid_t start_attachable(const fs::path& home, const std::vector<std::string>& args) {
  fs::create_directories(home);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("MSTX_INJECTION_PATH", MSPROF_TEST_INJECTION_LIB, 1);
    ::setenv("PROFILING_MODE", "dynamic", 1);
    ::setenv("HOME", home.c_str(), 1);
    ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    std::vector<char*> argv{const_cast<char*>(MSPROF_TEST_APP)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(MSPROF_TEST_APP, argv.data());
    ::_exit(127);
  }
  return pid;
}
// msprof with $HOME = `home` and stdin from `feed`.
run_result run_attached(const sandbox& s, const fs::path& home, const std::string& feed,
                        const std::vector<std::string>& args) {
  return s.run_fed(feed, args, "HOME=" + quote(home.string()));
}
}  // namespace

TEST_CASE("cli: launcher --dynamic=on --pid: attached to a program started with PROFILING_MODE=dynamic, it collects each start..stop") {
  sandbox s;
  const auto home = s.root / "home", out = s.root / "out";
  // It ticks until the test says it is done (at most 60 s): a slow machine never ends it before the windows.
  const auto done = s.root / "done";
  const pid_t pid = start_attachable(home, {"ticks", "1200", "50", done.string()});
  REQUIRE(pid > 0);
  const fs::path control = home / ("msprof_dynamic_" + std::to_string(pid));
  for (int k = 0; k < 200 && !fs::exists(control); ++k) ::usleep(10000);  // made at its first mstx call
  REQUIRE(fs::exists(control));
  const std::string pid_flag = "--pid=" + std::to_string(pid);
  {  // While another msprof holds it (its lock, as an attached msprof does): refused, one at a time as in CANN.
    const int fd = ::open(control.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    const auto busy = run_attached(s, home, "echo start", {"--dynamic=on", pid_flag, "--output=" + out.string()});
    ::close(fd);
    CHECK(busy.rc == 1);
    CHECK(busy.err.find("another msprof is attached to it") != std::string::npos);
  }
  auto r = run_attached(s, home, "sleep 0.2; echo start; sleep 0.6; echo stop; sleep 0.3; echo start; sleep 0.6; echo quit",
                        {"--dynamic=on", pid_flag, "--output=" + out.string(), "--msproftx=on"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("quit: leaving the interactive mode; the program runs on") != std::string::npos);
  CHECK(r.err.find("the collector counted") == std::string::npos);
  CHECK(r.err.find("warning") == std::string::npos);
  const auto dirs = prof_dirs_in(out);
  REQUIRE(dirs.size() == 2);
  const auto first = ticks_in(dirs[0]), later = ticks_in(dirs[1]);
  check_window(dirs[0], first);
  check_window(dirs[1], later);
  REQUIRE((!first.empty() && !later.empty()));
  CHECK(later.front() > first.back() + 1);
  // The program runs on; another msprof attaches again, into another directory.
  const auto again = s.root / "again";
  r = run_attached(s, home, "sleep 0.1; echo start; sleep 0.4; echo quit",
                   {"--dynamic=on", pid_flag, "--output=" + again.string()});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  const auto third = prof_dirs_in(again);
  REQUIRE(third.size() == 1);
  const auto last = ticks_in(third[0]);
  check_window(third[0], last);
  REQUIRE(!last.empty());
  CHECK(last.front() > later.back() + 1);
  // The program runs on to its end and removes its control file.
  std::ofstream(done).put('\n');
  int status = -1;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK_FALSE(fs::exists(control));
}

TEST_CASE("cli: launcher --pid: refused without --dynamic=on, with a program, with the program's settings, and for a program not started for it") {
  sandbox s;
  const auto out = (s.root / "out").string();
  for (const auto& c : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--pid=1", "--output=" + out}, "--pid attaches dynamic profiling to a running program: it needs --dynamic=on"},
           {{"--dynamic=on", "--pid=1", "--application=true"}, "--pid attaches to a running program: give no program"},
           {{"--dynamic=on", "--pid=1", "--mstx-domain-include=a"},
            "--mstx-domain-include: with --pid the program's own environment sets up its collection"},
           {{"--dynamic=on", "--pid=1", "--msproftx=off"}, "with --pid the program records its mstx calls"},
           {{"--dynamic=on", "--pid=1,2"}, "--pid must be one process id"}}) {
    CAPTURE(c.second);
    const auto r = s.run(c.first);
    CHECK(r.rc == 2);
    CHECK(r.err.find(c.second) != std::string::npos);
  }
  // A running program that has no control file: said, with how to start it.
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sleep", "sleep", "3", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  REQUIRE(pid > 0);
  const auto r = run_attached(s, s.root / "home", "echo start", {"--dynamic=on", "--pid=" + std::to_string(pid), "--output=" + out});
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  CHECK(r.rc == 1);
  CHECK(r.err.find("the program was not started for dynamic profiling (MSTX_INJECTION_PATH=") != std::string::npos);
  CHECK(r.err.find("msprof_dynamic_" + std::to_string(pid)) != std::string::npos);
}

TEST_CASE("cli: launcher: PROFILING_MODE=dynamic given to a launched program does not make it wait for --pid") {
  sandbox s;
  const auto out = s.root / "out", home = s.root / "home";
  fs::create_directories(home);
  auto r = s.run({"--output=" + out.string(), "--export=off", "--environment=PROFILING_MODE=dynamic;HOME=" + home.string(),
                  "--application=" + ticking_app + " 5 10"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  const auto dirs = prof_dirs_in(out);
  REQUIRE(dirs.size() == 1);
  CHECK(calls_made(dirs[0]) == 5);  // the whole run
  CHECK(fs::is_empty(home));      // no control file for an attach
}

#endif

// msprof analyse (docs/torch_npu.md) on copies of tests/golden-pt inputs (add_pt_case).

TEST_CASE("cli: analyse writes ASCEND_PROFILER_OUTPUT for a parent of *_ascend_pt directories") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_text_steps");
  const fs::path other = add_pt_case(s, "pt_mstx");  // a second rank's directory: analysed alongside
  auto r = s.run({"analyse", "-dir", s.root.string(), "--export-type", "text"});
  CHECK(r.err.empty());
  REQUIRE(r.rc == 0);
  CHECK(slurp(other / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv") ==
        slurp(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_mstx" / "expected" / "operator_details.csv"));
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  for (const char* f : {"kernel_details.csv", "operator_details.csv", "op_statistic.csv", "api_statistic.csv",
                        "task_time.csv", "step_trace_time.csv", "analyse.done"}) {
    CAPTURE(f);
    CHECK(fs::exists(out / f));
    CHECK(r.out.find((out / f).string()) != std::string::npos);
  }
  CHECK(slurp(out / "kernel_details.csv") ==
        slurp(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_text_steps" / "expected" / "kernel_details.csv"));
}

TEST_CASE("cli: show of *_ascend_pt directories prints each one's framework operators and steps, then its CANN part") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_text_steps");
  auto r = s.run({"show", "-dir", s.root.string()});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  CAPTURE(r.out);
  const auto framework = r.out.find("Framework operators (top 10 by host total time)");
  const auto steps = r.out.find("Steps (us)");
  const auto cann = r.out.find("Op summary (top 10 by duration)");
  REQUIRE(framework != std::string::npos);
  REQUIRE(steps != std::string::npos);
  REQUIRE(cann != std::string::npos);
  CHECK(framework < steps);
  CHECK(steps < cann);
  CHECK(r.out.find("12 framework ops, 5 task-queue enqueues, 2 steps (Level1)") != std::string::npos);
  // aten::matmul: two calls of 20 and 21 us host time, their kernels 40 + 60.5 us on the device
  CHECK(r.out.find("aten::matmul                              2      41.000          8.000          100.500") !=
        std::string::npos);
  CHECK(r.out.find("  1     110.5      20.0  130.5  140.0") != std::string::npos);  // step_trace_time.csv's step 1
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT"));  // show writes nothing
}

TEST_CASE("cli: analyse of a directory with FRAMEWORK but no PROF_ fails with one clear message") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_level0");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) fs::remove_all(e.path());
  auto r = s.run({"analyse", "-dir", dir.string()});
  CHECK(r.rc == 1);
  CHECK(r.err.rfind("msprof: error: ", 0) == 0);
  CHECK(r.err.find(dir.string() + ": no PROF_* directory") != std::string::npos);
  CHECK(r.err.find("no PROF_* directory", r.err.find('\n')) == std::string::npos);  // said once
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT"));
}

TEST_CASE("cli: analyse --export-type db writes the dbs, an unknown type is rc 2, no *_ascend_pt is rc 1") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_level0");
  auto r = s.run({"analyse", "-dir", dir.string(), "--export-type", "db"});
  CHECK(r.err.empty());
  REQUIRE(r.rc == 0);
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  for (const char* f : {"ascend_pytorch_profiler_0.db", "analysis.db", "analyse.done"}) {
    CAPTURE(f);
    CHECK(fs::exists(out / f));
    CHECK(r.out.find((out / f).string()) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out / "kernel_details.csv"));
  // pt_db's profiler_info asks for db: no option needed (its own sandbox: the same directory name).
  sandbox s2;
  const fs::path db_case = add_pt_case(s2, "pt_db");
  r = s2.run({"analyse", "-dir", db_case.string()});
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(db_case / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db"));
  CHECK_FALSE(fs::exists(db_case / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  r = s.run({"analyse", "-dir", dir.string(), "--export-type", "json"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--export-type must be text or db") != std::string::npos);
  fs::create_directories(s.root / "empty");
  r = s.run({"analyse", "-dir", (s.root / "empty").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("no *_ascend_pt directory found") != std::string::npos);
  r = s.run({"analyse"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("analyse needs -dir") != std::string::npos);
}

TEST_CASE("cli: analyse --data-simplification on deletes the CANN intermediate data, off keeps it, others are rc 2") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_level0");  // its profiler_info: _data_simplification false
  fs::path intermediate;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) intermediate = e.path() / "mindstudio_profiler_output";
  REQUIRE(!intermediate.empty());
  fs::create_directories(intermediate);
  std::ofstream(intermediate / "op_summary_1.csv") << "x";
  auto r = s.run({"analyse", "-dir", dir.string(), "--export-type", "text"});
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(intermediate / "op_summary_1.csv"));  // profiler_info says off
  r = s.run({"analyse", "-dir", dir.string(), "--data-simplification", "off"});
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(intermediate / "op_summary_1.csv"));
  r = s.run({"analyse", "-dir", dir.string(), "--data-simplification=on"});
  CHECK(r.err.empty());
  REQUIRE(r.rc == 0);
  CHECK_FALSE(fs::exists(intermediate));
  CHECK(fs::exists(dir / "FRAMEWORK" / "torch.op_range"));
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  r = s.run({"analyse", "-dir", dir.string(), "--data-simplification", "yes"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--data-simplification must be on or off") != std::string::npos);
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Bytes of the data slices of a PROF_ directory (host/data, device_N/data; not .done).
std::uintmax_t slice_bytes(const fs::path& prof) {
  std::uintmax_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(prof)) {
    const auto name = e.path().filename().string();
    if (e.is_regular_file() && e.path().parent_path().filename() == "data" &&
        name.find(".done") == std::string::npos && name.find(".complete") == std::string::npos)
      n += e.file_size();
  }
  return n;
}

}  // namespace

TEST_CASE("cli: --progress on a pipe: plain lines of bytes done of the total, warnings on lines of their own (issue 20)") {
  sandbox s;
  const auto a = s.add("truncated_tail", "two");  // warnings: truncated slices
  const auto b = s.add("ops_pipeutil", "two");
  const std::string total = std::to_string(slice_bytes(a) + slice_bytes(b));
  REQUIRE(std::stoul(total) < 10000);  // shown in bytes
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"export", "timeline", "-dir", (s.root / "two").string(), "--progress"},
        std::vector<std::string>{"import", "-dir", (s.root / "two").string(), "--progress"},
        std::vector<std::string>{"show", "--progress", "-dir", (s.root / "two").string()}}) {
    CAPTURE(cmd[0]);
    const auto r = s.run(cmd);
    CAPTURE(r.err);
    CHECK(r.rc == 0);
    std::vector<std::string> progress;
    std::size_t warnings = 0;
    for (const auto& l : lines_of(r.err)) {
      CHECK(l.find('\r') == std::string::npos);  // not a terminal: no redraws
      if (l.rfind("msprof: progress ", 0) == 0) {
        progress.push_back(l);
        CHECK(l.find("/" + total + " B") != std::string::npos);
        CHECK(l.find("warning") == std::string::npos);
      } else {
        // Anything else is a whole warning line, never glued to a progress line.
        CHECK(l.rfind("msprof: warning: ", 0) == 0);
        CHECK(l.find("progress") == std::string::npos);
        ++warnings;
      }
    }
    CHECK(warnings > 0);
    REQUIRE_FALSE(progress.empty());
    CHECK(progress.back().find("] " + total + "/" + total + " B") != std::string::npos);
    CHECK(progress.back().find("(2/2 dirs)") != std::string::npos);
    // stdout is what it is without --progress.
    if (cmd[0] != "export") {
      auto plain = cmd;
      plain.erase(std::find(plain.begin(), plain.end(), "--progress"));
      CHECK(s.run(plain).out == r.out);
    }
  }
}

TEST_CASE("cli: analyse --progress counts the FRAMEWORK files and the PROF_ data slices it reads") {
  sandbox s;
  const fs::path dir = add_pt_case(s, "pt_memory");
  std::uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir / "FRAMEWORK")) total += fs::file_size(e.path());
  const std::uint64_t framework = total;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) total += slice_bytes(e.path());
  REQUIRE(framework > 0);
  REQUIRE(total > framework);
  const auto r = s.run({"analyse", "-dir", dir.string(), "--progress"});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  std::string last;
  for (const auto& l : lines_of(r.err))
    if (l.rfind("msprof: progress ", 0) == 0) last = l;
  const std::string t = std::to_string(total);
  CHECK(last.find("] " + t + "/" + t + " B") != std::string::npos);
  CHECK(last.find("(1/1 dirs)") != std::string::npos);
}

TEST_CASE("cli: in a pipe or with -q/--quiet, stderr has only warnings and errors (issue 20)") {
  sandbox s;
  const auto prof = s.add("truncated_tail");
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"export", "summary", "-dir", prof.string()},
        std::vector<std::string>{"export", "db", "-dir", prof.string(), "-q"},
        std::vector<std::string>{"export", "timeline", "-dir", prof.string(), "--quiet", "--progress"},
        std::vector<std::string>{"import", "-q", "-dir", prof.string()},
        std::vector<std::string>{"show", "--quiet", "-dir", prof.string()}}) {
    const auto r = s.run(cmd);
    CAPTURE(r.err);
    CHECK(r.rc == 0);
    CHECK_FALSE(r.out.empty());
    CHECK_FALSE(r.err.empty());
    for (const auto& l : lines_of(r.err)) CHECK(l.rfind("msprof: warning: ", 0) == 0);
  }
  // analyse takes the flags too.
  const auto r = s.run({"analyse", "-q", "-dir", (s.root / "none").string()});
  CHECK(r.rc == 1);
  CHECK(r.err.find("no such directory") != std::string::npos);
}

#else
TEST_CASE("cli: binary not built") { MESSAGE("MSPROF_TEST_CLI not defined; CLI tests skipped"); }
#endif
