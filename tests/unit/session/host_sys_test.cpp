// SPDX-License-Identifier: MIT
// experimental_config.host_sys: a session samples its own process's CPU and
// memory while a window collects; the slices are in the PROF_ directory before
// on_trace_ready exports it.
#include <msprof/session/export_handler.hpp>
#include <msprof/session/session.hpp>

#include <doctest/doctest.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace session = msprof::session;
namespace fs = std::filesystem;

namespace {

/// Two threads busy for `d`.
void burn(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  auto spin = [until] {
    std::atomic<std::uint64_t> n{0};
    while (std::chrono::steady_clock::now() < until) n.fetch_add(1, std::memory_order_relaxed);
  };
  std::thread a(spin), b(spin);
  a.join();
  b.join();
}

/// The file of `dir` whose name starts with `prefix` and ends with `ext`; empty when none.
fs::path output_file(const fs::path& dir, const std::string& prefix, const std::string& ext) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0 && e.path().extension() == ext) return e.path();
  return {};
}

}  // namespace

TEST_CASE("session: host_sys cpu and mem sample the process while the window collects: host usage in the export") {
  temp_dir t;
  session::session_config cfg;
  cfg.output = t.path;
  cfg.npu = false;
  cfg.host_sys = {"cpu", "mem", "disk", "network", "osrt"};
  session::export_handler handler;
  session::profiler prof(cfg, std::nullopt, handler);
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(static_cast<bool>(prof.start()));
  burn(std::chrono::milliseconds(300));
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "host_sys: osrt not collected (msprof samples this process's cpu, mem, disk and network)");
  REQUIRE(handler.exported().size() == 1);
  const fs::path prof_dir = handler.exported()[0];
  for (const char* f : {"host_cpu.data.slice_0", "host_mem.data.slice_0", "host_disk.data.slice_0", "host_network.data.slice_0"}) {
    CAPTURE(f);
    REQUIRE(fs::exists(prof_dir / "host" / "data" / f));
    CHECK(fs::file_size(prof_dir / "host" / "data" / f) > 0);
    CHECK(fs::exists(prof_dir / "host" / "data" / (std::string(f) + ".done")));
  }
  CHECK(read_text(prof_dir / "host" / "data" / "host_disk.data.slice_0").rfind("start_time ", 0) == 0);
  CHECK(read_text(prof_dir / "host" / "data" / "host_network.data.slice_0").rfind("time ", 0) == 0);
  CHECK(read_text(prof_dir / "host" / "sample.json").find("\"host_disk_freq\": 50") != std::string::npos);
  const fs::path out = prof_dir / "mindstudio_profiler_output";
  // host_cpu_usage: Device_id,Total Cpu Numbers,Occupied Cpu Numbers,Recommend Cpu Numbers
  const std::string summary = read_text(output_file(out, "host_cpu_usage_", ".csv"));
  const auto row = summary.substr(summary.find('\n') + 1);
  CAPTURE(summary);
  CHECK(row.rfind("host,", 0) == 0);
  CHECK(std::atoi(row.c_str() + row.rfind(',') + 1) >= 1);  // a CPU with usage > 0
  CHECK(fs::exists(output_file(out, "host_mem_usage_", ".csv")));
  // The timeline's "CPU Usage" process: its "CPU Avg" counter above 0 while the threads ran.
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  REQUIRE(!parser.load(output_file(out, "msprof_2", ".json").string()).get(events));
  bool cpu_process = false, memory_process = false;
  double avg = 0;
  for (simdjson::dom::element e : events) {
    std::string_view name, process;
    if (e["name"].get(name)) continue;
    if (name == "process_name" && !e["args"]["name"].get(process)) {
      cpu_process |= process == "CPU Usage";
      memory_process |= process == "Memory Usage";
    }
    double usage = 0;
    if (name == "CPU Avg" && !e["args"]["Usage(%)"].get(usage) && usage > avg) avg = usage;
  }
  CHECK(cpu_process);
  CHECK(memory_process);
  CHECK(avg > 0);
}

TEST_CASE("session: host_sys without disk and network writes no disk or network usage, and says nothing") {
  temp_dir t;
  session::session_config cfg;
  cfg.output = t.path;
  cfg.npu = false;
  cfg.host_sys = {"mem"};
  session::profiler prof(cfg);
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(static_cast<bool>(prof.start()));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(static_cast<bool>(prof.stop()));
  CHECK(warnings.empty());
  fs::path prof_dir;
  for (const auto& e : fs::recursive_directory_iterator(t.path))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof_dir = e.path();
  REQUIRE(!prof_dir.empty());
  CHECK(fs::exists(prof_dir / "host" / "data" / "host_mem.data.slice_0"));
  for (const char* f : {"host_cpu", "host_disk", "host_network"}) {
    CAPTURE(f);
    CHECK_FALSE(fs::exists(prof_dir / "host" / "data" / (std::string(f) + ".data.slice_0")));
  }
  CHECK(read_text(prof_dir / "host" / "sample.json").find("host_disk_freq") == std::string::npos);
}

TEST_CASE("session: host_sys_usage_freq sets the sampling period: sample.json's host_disk_freq and the samples' spacing") {
  temp_dir t;
  session::session_config cfg;
  cfg.output = t.path;
  cfg.npu = false;
  cfg.host_sys = {"mem", "disk"};
  cfg.host_sys_usage_freq = 10;  // every 100 ms
  session::profiler prof(cfg);
  REQUIRE(static_cast<bool>(prof.start()));
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  REQUIRE(static_cast<bool>(prof.stop()));
  fs::path prof_dir;
  for (const auto& e : fs::recursive_directory_iterator(t.path))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof_dir = e.path();
  REQUIRE(!prof_dir.empty());
  CHECK(read_text(prof_dir / "host" / "sample.json").find("\"host_disk_freq\": 10") != std::string::npos);
  // host_mem: a "<ns> <statm>" line per sample: the first at once, one per 100 ms, one at stop (20 ms: about 24).
  const std::string mem = read_text(prof_dir / "host" / "data" / "host_mem.data.slice_0");
  std::vector<std::uint64_t> times;
  for (std::size_t at = 0; at < mem.size(); at = mem.find('\n', at) + 1) {
    times.push_back(std::strtoull(mem.c_str() + at, nullptr, 10));
    if (mem.find('\n', at) == std::string::npos) break;
  }
  CAPTURE(mem);
  CHECK(times.size() >= 3);
  CHECK(times.size() <= 7);
  // Sample k is due k periods after the first (a late one does not move the
  // grid, so one gap alone may be short under load); the last is stop()'s.
  for (std::size_t k = 1; k + 1 < times.size(); ++k) CHECK(times[k] - times[0] >= k * 90000000u);
}
