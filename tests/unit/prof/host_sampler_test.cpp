// SPDX-License-Identifier: MIT
// The host sampler's disk and network files as the reference parser reads them
// (host_disk_usage_presenter.py, host_network_usage_presenter.py): host_disk's
// start_time and exactly one iotop line per period, host_network's time and
// interface lines, and sample.json's host_disk_freq (info.json's netCard:
// writer_test.cpp).
#include <doctest/doctest.h>
#include <msprof/core/json.hpp>
#include <msprof/prof/host_sampler.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace prof = msprof::prof;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

bool digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

/// A number with exactly 2 decimals, as iotop prints them.
bool two_decimals(const std::string& s) {
  const auto dot = s.find('.');
  return dot != std::string::npos && dot > 0 && s.size() - dot == 3 && digits(s.substr(0, dot)) && digits(s.substr(dot + 1));
}

/// This process's /proc/self/io write_bytes.
std::uint64_t written_bytes() {
  std::string io;
  REQUIRE(prof::detail::read_proc("/proc/self/io", io));
  const auto at = io.find("\nwrite_bytes: ");
  REQUIRE(at != std::string::npos);
  return std::strtoull(io.c_str() + at + 14, nullptr, 10);
}

/// 8 MiB written to `path` in 1 MiB steps, each fsync()ed, 20 ms apart: plain I/O, no O_DIRECT.
void write_and_sync(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  const std::string block(1u << 20, 'w');
  for (int k = 0; k < 8; ++k) {
    REQUIRE(::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size()));
    REQUIRE(::fsync(fd) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(fd);
  ::unlink(path.c_str());
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  REQUIRE(f.good());
}

prof::host_sampler::parts disk_and_network() {
  prof::host_sampler::parts what;
  what.disk = what.network = true;
  return what;
}

}  // namespace

TEST_CASE("host sampler: period_of is 1000 / hz whole ms, the launcher's and a session's period alike") {
  CHECK(prof::host_sampler::period_of(50) == std::chrono::milliseconds(20));
  CHECK(prof::host_sampler::period_of(7) == std::chrono::milliseconds(142));  // truncated
  CHECK(prof::host_sampler::period_of(1) == std::chrono::milliseconds(1000));
  CHECK(prof::host_sampler::period_of(0) == prof::host_sampler::default_period);  // unset: CANN's 50 Hz
  static_assert(prof::host_sampler::period_of(25) == std::chrono::milliseconds(40));
}

TEST_CASE("host sampler: host_disk has start_time, then exactly one iotop line per period, with the bytes written") {
  temp_dir t;
  const std::uint64_t period_ns = 20'000'000;
  std::atomic<int> asked{0};
  // The second look-up of the processes (after 100 ms) takes 70 ms: that sample
  // comes late and must write the lines of the periods it missed.
  auto me = [&asked] {
    if (asked.fetch_add(1) == 1) std::this_thread::sleep_for(std::chrono::milliseconds(70));
    return std::vector<pid_t>{::getpid()};
  };
  const std::uint64_t before_start = prof::detail::mono_ns();
  const std::uint64_t written_before = written_bytes();
  auto s = prof::host_sampler::start(me, disk_and_network());
  REQUIRE(s);
  write_and_sync(t.path + "/data.bin");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::uint64_t written = written_bytes() - written_before;
  const std::uint64_t before_stop = prof::detail::mono_ns();
  (*s)->stop();
  const std::uint64_t after_stop = prof::detail::mono_ns();
  CHECK(asked.load() >= 2);
  REQUIRE((*s)->write_into(t.path));

  const std::string data = t.path + "/host/data/";
  const auto text = read_text(data + "host_disk.data.slice_0");
  CHECK(read_text(data + "host_disk.data.slice_0.done") == "filesize:" + std::to_string(text.size()) + "\n");
  const auto lines = split_lines(text);
  REQUIRE(lines.size() >= 2);
  const auto head = fields_of(lines[0]);
  REQUIRE(head.size() == 2);
  CHECK(head[0] == "start_time");
  REQUIRE(digits(head[1]));
  const std::uint64_t start = std::stoull(head[1]);
  CHECK(start >= before_start);
  // The last line is written at stop (between before_stop and after_stop) and
  // closes the period it falls in: the lines are the periods up to then.
  const auto periods = [&](std::uint64_t at) { return (at - start + period_ns - 1) / period_ns; };
  const std::size_t n = lines.size() - 1;
  CHECK(n >= periods(before_stop));
  CHECK(n <= periods(after_stop));
  double kib = 0;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    CAPTURE(lines[k]);
    const auto f = fields_of(lines[k]);
    REQUIRE(f.size() >= 11);  // the reader's fields: 1 pid, 4..7 read/unit/write/unit, 8 swapin, 10 io
    CHECK(f[0].size() == 8);  // HH:MM:SS
    CHECK(f[1] == std::to_string(::getpid()));
    CHECK(f[2] == "be/4");
    CHECK(two_decimals(f[4]));
    CHECK(f[5] == "K/s");
    CHECK(two_decimals(f[6]));
    CHECK(f[7] == "K/s");
    CHECK(f[8] == "0.00");
    CHECK(f[9] == "%");
    CHECK(two_decimals(f[10]));
    CHECK(std::stod(f[10]) <= 100.0);
    CHECK(f[11] == "%");
    kib += std::stod(f[6]) * static_cast<double>(period_ns) / 1e9;
  }
  // Rates × periods give back what was written, when the file system counts
  // block writes (tmpfs counts none).
  CAPTURE(written);
  if (written >= (4u << 20)) {
    CHECK(kib * 1024 >= 0.7 * static_cast<double>(written));
    CHECK(kib * 1024 <= 1.3 * static_cast<double>(written));
  }
  // host_disk_freq for the reader, in a sample.json made when missing.
  auto sample = msprof::json::parse(read_text(t.path + "/host/sample.json"));
  REQUIRE(sample);
  CHECK(sample->get("host_disk_freq").is_number());
  CHECK(sample->get("host_disk_freq").text() == "50");
}

TEST_CASE("host sampler: host_network has time lines, each followed by /proc/net/dev's interfaces, name and colon one field") {
  temp_dir t;
  auto s = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, disk_and_network(),
                                     std::chrono::milliseconds(10));
  REQUIRE(s);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  (*s)->stop();
  REQUIRE((*s)->write_into(t.path));
  const std::string path = t.path + "/host/data/host_network.data.slice_0";
  CHECK(read_text(path + ".done") == "filesize:" + std::to_string(read_text(path).size()) + "\n");
  std::set<std::string> interfaces;
  std::string dev;
  REQUIRE(prof::detail::read_proc("/proc/net/dev", dev));
  for (const auto& l : split_lines(dev))
    if (const auto colon = l.find(':'); colon != std::string::npos)
      interfaces.insert(fields_of(l.substr(0, colon)).at(0));
  int samples = 0;
  std::uint64_t last = 0;
  std::set<std::string> seen;
  for (const auto& l : split_lines(read_text(path))) {
    CAPTURE(l);
    const auto f = fields_of(l);
    if (f.at(0) == "time") {
      REQUIRE(f.size() == 2);
      REQUIRE(digits(f[1]));
      CHECK(std::stoull(f[1]) > last);
      last = std::stoull(f[1]);
      if (samples++ > 0) CHECK(seen == interfaces);
      seen.clear();
      continue;
    }
    REQUIRE(samples > 0);  // no interface line before the first time line
    REQUIRE(f.size() == 17);  // the name, rx bytes packets errs ..., tx bytes packets errs ...
    REQUIRE(f[0].size() >= 2);
    CHECK(f[0].back() == ':');
    CHECK(f[0].find(':') == f[0].size() - 1);
    for (std::size_t k = 1; k < f.size(); ++k) CHECK(digits(f[k]));
    seen.insert(f[0].substr(0, f[0].size() - 1));
  }
  CHECK(seen == interfaces);
  CHECK(samples >= 3);
}

TEST_CASE("host sampler: only the parts asked for, host_disk_freq joins an existing sample.json, never through a link") {
  temp_dir t;
  prof::host_sampler::parts cpu;
  CHECK(cpu.set("cpu"));
  CHECK_FALSE(cpu.set("osrt"));
  CHECK(cpu.any());
  auto only_cpu = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, cpu);
  REQUIRE(only_cpu);
  (*only_cpu)->stop();
  fs::create_directories(t / "a" / "host");
  write_text(t / "a" / "host" / "sample.json", R"({"acl": "on"})");
  REQUIRE((*only_cpu)->write_into((t / "a").string()));
  CHECK(fs::exists(t / "a" / "host" / "data" / "host_cpu.data.slice_0"));
  for (const char* f : {"host_mem", "host_disk", "host_network"}) {
    CAPTURE(f);
    CHECK_FALSE(fs::exists(t / "a" / "host" / "data" / (std::string(f) + ".data.slice_0")));
  }
  CHECK(read_text(t / "a" / "host" / "sample.json") == R"({"acl": "on"})");  // no disk: untouched

  prof::host_sampler::parts disk;
  disk.set("disk");
  auto d = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, disk, std::chrono::milliseconds(40));
  REQUIRE(d);
  (*d)->stop();
  REQUIRE((*d)->write_into((t / "a").string()));
  auto sample = msprof::json::parse(read_text(t / "a" / "host" / "sample.json"));
  REQUIRE(sample);
  CHECK(sample->get("acl").as_string_or("") == "on");
  CHECK(sample->get("host_disk_freq").text() == "25");
  CHECK_FALSE(fs::exists(t / "a" / "host" / "data" / "host_network.data.slice_0"));
  // A stop right after the start still closes one period.
  CHECK(split_lines(read_text(t / "a" / "host" / "data" / "host_disk.data.slice_0")).size() == 2);

  // sample.json planted as a link: an error, and the link's target is left alone.
  fs::create_directories(t / "b" / "host");
  write_text(t / "target.json", "{}");
  fs::create_symlink(t / "target.json", t / "b" / "host" / "sample.json");
  const auto linked = (*d)->write_into((t / "b").string());
  REQUIRE_FALSE(linked);
  CHECK(linked.err().message == (t / "b" / "host" / "sample.json").string() +
                                    ": cannot open: is a symbolic link (msprof does not write through links) (host_disk_freq not added)");
  CHECK(read_text(t / "target.json") == "{}");
}

TEST_CASE("host sampler: --host-sys-usage's records: host_sys_cpu, host_sys_mem, <pid>-CpuUsage, <pid>-Memory") {
  temp_dir t;
  prof::host_sampler::parts what;
  CHECK(what.set_usage("cpu"));
  CHECK(what.set_usage("mem"));
  CHECK_FALSE(what.set_usage("disk"));
  REQUIRE(what.any());
  const std::uint64_t before = prof::detail::mono_ns();
  auto s = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, what, std::chrono::milliseconds(25));
  REQUIRE(s);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  (*s)->stop();
  const std::uint64_t after = prof::detail::mono_ns();
  REQUIRE((*s)->write_into(t.path));
  const std::string data = t.path + "/host/data/";
  const std::string pid = std::to_string(::getpid());
  for (const std::string& f : std::vector<std::string>{"host_sys_cpu", "host_sys_mem", pid + "-CpuUsage", pid + "-Memory"}) {
    CAPTURE(f);
    const std::string text = read_text(data + f + ".data.slice_0");
    CHECK(read_text(data + f + ".data.slice_0.done") == "filesize:" + std::to_string(text.size()) + "\n");
    // Records: TimeStamp (the host clock), Index from 0, DataLen = the body's bytes, the body, a blank line.
    std::size_t at = 0, records = 0;
    while (at < text.size()) {
      CAPTURE(records);
      REQUIRE(text.compare(at, 10, "TimeStamp:") == 0);
      const std::uint64_t ts = std::strtoull(text.c_str() + at + 10, nullptr, 10);
      CHECK(ts >= before);
      CHECK(ts <= after);
      at = text.find('\n', at) + 1;
      REQUIRE(text.compare(at, 6, "Index:") == 0);
      CHECK(std::strtoull(text.c_str() + at + 6, nullptr, 10) == records);
      at = text.find('\n', at) + 1;
      REQUIRE(text.compare(at, 8, "DataLen:") == 0);
      const std::size_t len = std::strtoull(text.c_str() + at + 8, nullptr, 10);
      at = text.find('\n', at) + 1;
      const std::string body = text.substr(at, len);
      REQUIRE(body.size() == len);
      CHECK(body.back() == '\n');
      CHECK(body.find("\n\n") == std::string::npos);
      if (f == "host_sys_cpu") CHECK(body.rfind("cpu ", 0) == 0);
      if (f == "host_sys_mem") CHECK(body.rfind("MemTotal:", 0) == 0);
      if (f == pid + "-CpuUsage") {
        const auto lines = fields_of(body.substr(0, body.find('\n')));
        CHECK(lines.size() >= 17);
        CHECK(lines[0] == pid);
        CHECK(body.find("\nProcessName:") != std::string::npos);
        CHECK(body.find("\ncpu ") != std::string::npos);
      }
      if (f == pid + "-Memory") {
        const auto statm = fields_of(body.substr(0, body.find('\n')));
        CHECK(statm.size() == 7);
        CHECK(body.find("\nProcessName:") != std::string::npos);
      }
      at += len;
      REQUIRE(text.compare(at, 1, "\n") == 0);
      ++at;
      ++records;
    }
    CHECK(records >= 3);  // at once, every 25 ms, at stop
  }
  const std::string sample = read_text(t.path + "/host/sample.json");
  CHECK(sample.find("\"host_cpu_profiling_sampling_interval\": 25") != std::string::npos);
  CHECK(sample.find("\"host_mem_profiling_sampling_interval\": 25") != std::string::npos);
  CHECK(sample.find("host_disk_freq") == std::string::npos);
  CHECK_FALSE(fs::exists(data + "host_cpu.data.slice_0"));  // --host-sys's parts: not asked for
  // Every process of the machine, as CANN, not only the sampled one: the parent too, its stat line first.
  const std::string parent = std::to_string(::getppid());
  const std::string theirs = read_text(data + parent + "-CpuUsage.data.slice_0");
  const auto body = theirs.find("DataLen:");
  REQUIRE(body != std::string::npos);
  CHECK(theirs.compare(theirs.find('\n', body) + 1, parent.size() + 2, parent + " (") == 0);
  CHECK(fs::exists(data + parent + "-Memory.data.slice_0.done"));
}
