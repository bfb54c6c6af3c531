// SPDX-License-Identifier: MIT
// The dynamic profiler with a 20 ms poll interval: the template on init, an
// edit of profiler_config.json arms one collection of warmup + active steps
// (start_step -1, 0 and N), bad files are logged and change nothing, the
// log is rotated, analyse hands the directory to the export handler.
#include <msprof/session/dynamic_profiler.hpp>
#include <msprof/session/export_handler.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/device/simulated_device.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../../support/model_testing.hpp"
#include "../../support/temp_dir.hpp"

namespace session = msprof::session;
namespace convert = msprof::convert;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Replaces the file the way editors that save atomically do (new inode).
void write_config(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".edit";
  {
    std::ofstream f(tmp);
    f << text;
  }
  fs::rename(tmp, path);
}

// Every log line, for waiting on the poll thread.
struct log_lines {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> fn() {
    return [this](const std::string& l) {
      std::lock_guard<std::mutex> lk(mu);
      lines.push_back(l);
    };
  }
  std::size_t count(const std::string& s) {
    std::lock_guard<std::mutex> lk(mu);
    std::size_t n = 0;
    for (const auto& l : lines) n += l.find(s) != std::string::npos;
    return n;
  }
  bool wait_for(const std::string& s, std::size_t n = 1) {
    for (int i = 0; i < 500; ++i) {
      if (count(s) >= n) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
};

session::dynamic_options fast(log_lines& log) {
  session::dynamic_options o;
  o.poll_interval = 20ms;
  o.on_log = log.fn();
  return o;
}

std::string config_text(const fs::path& out, const std::string& extra) {
  return R"({"activities": ["CPU"], "prof_dir": ")" + out.string() +
         R"(", "experimental_config": {"mstx": true}, )" + extra + "}";
}

// Steps (with one mark each, named after the step() call that follows it)
// until the profiler has saved `dirs` directories and stopped.
void step_until_saved(session::dynamic_profiler& dp, std::size_t dirs) {
  for (int i = 0; i < 1000; ++i) {
    if (dp.saved_dirs().size() >= dirs && !dp.collecting()) return;
    const std::string text = "before call " + std::to_string(dp.step_num() + 1);
    mstxMarkA(text.c_str(), nullptr);
    dp.step();
    std::this_thread::sleep_for(5ms);
  }
  FAIL("no collection finished within 5 s");
}

std::uint64_t started_at(const std::string& prof_dir) {
  auto v = msprof::json::parse(read_text(fs::path(prof_dir) / "profiler_metadata.json"));
  REQUIRE(static_cast<bool>(v));
  return v->get("dynamic_profile").get("start_step").uint_or(0);
}

fs::path find_log(const fs::path& cfg_dir) {
  for (const auto& e : fs::directory_iterator(cfg_dir / "log"))
    if (e.path().extension() == ".log") return e.path();
  return {};
}

}  // namespace

TEST_CASE("dynamic profiler: init removes the temporary a killed run left in the config directory, and logs it") {
  temp_dir t;
  const fs::path cfg_dir = t / "cfg";
  fs::create_directories(cfg_dir);
  // pid 999999999 is above any pid_max: that process is gone.
  const std::string left = "profiler_config.json.999999999.0123456789abcdef.msprof.tmp";
  std::ofstream(cfg_dir / left) << "{";
  const timespec old[2] = {{1000000000, 0}, {1000000000, 0}};  // before this process started
  REQUIRE(::utimensat(AT_FDCWD, (cfg_dir / left).c_str(), old, 0) == 0);
  log_lines log;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init(cfg_dir.string(), fast(log))));
  CHECK_FALSE(fs::exists(cfg_dir / left));
  CHECK(read_text(find_log(cfg_dir)).find((cfg_dir / left).string() +
                                          ": removed a temporary file left by an interrupted run") != std::string::npos);
}

TEST_CASE("dynamic profiler: init writes the template and the log and an edit arms one collection of warmup + active steps") {
  temp_dir t;
  const fs::path cfg_dir = t / "cfg";
  log_lines log;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init(cfg_dir.string(), fast(log))));
  CHECK(dp.config_path() == (cfg_dir / "profiler_config.json").string());
  // The template is torch_npu's, and parses without warnings.
  const std::string tmpl = read_text(dp.config_path());
  CHECK(tmpl == session::profiler_config_template());
  CHECK((fs::status(dp.config_path()).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  // Log name: dp_<host>_<pid>_rank_<rank>.log
  const fs::path log_file = find_log(cfg_dir);
  REQUIRE_FALSE(log_file.empty());
  CHECK(log_file.filename().string().rfind("dp_", 0) == 0);
  CHECK(log_file.filename().string().find("_" + std::to_string(::getpid()) + "_rank_") != std::string::npos);
  CHECK(log.count("Create profiler_config.json default.") == 1);

  // Steps with the untouched template: nothing is collected.
  for (int i = 0; i < 5; ++i) dp.step();
  std::this_thread::sleep_for(60ms);
  CHECK_FALSE(dp.collecting());
  CHECK(dp.saved_dirs().empty());

  const fs::path out = t / "out";
  write_config(dp.config_path(), config_text(out, R"("start_step": -1, "warmup": 1, "active": 2)"));
  REQUIRE(log.wait_for("load json success"));
  step_until_saved(dp, 1);
  const auto dirs = dp.saved_dirs();
  REQUIRE(dirs.size() == 1);
  CHECK(fs::path(dirs[0]).parent_path() == out);
  CHECK(fs::path(dirs[0]).filename().string().rfind("PROF_", 0) == 0);
  // Collection began at step() call S: S is warm-up, S+1 and S+2 are recorded.
  const std::uint64_t s = started_at(dirs[0]);
  CHECK(s >= 6);
  const convert::model m = load(dirs[0]);
  CHECK(messages(m, "ProfilerStep") == std::multiset<std::string>{"ProfilerStep#1", "ProfilerStep#2"});
  CHECK(messages(m, "default") == std::multiset<std::string>{"before call " + std::to_string(s + 2),
                                                             "before call " + std::to_string(s + 3)});
  CHECK(log.count("Start Dynamic Profiler at " + std::to_string(s) + " step.") == 1);
  CHECK(log.count("Stop Dynamic Profiler at " + std::to_string(s + 3) + " step.") == 1);
  CHECK(log.count("saved " + dirs[0]) == 1);

  // No further edit: no further collection.
  for (int i = 0; i < 5; ++i) dp.step();
  std::this_thread::sleep_for(60ms);
  CHECK(dp.saved_dirs().size() == 1);
  dp.shutdown();
  const std::string text = read_text(log_file);
  CHECK(text.find("[INFO] [" + std::to_string(::getpid()) + "] dynamic_profiler.hpp: Start Dynamic Profiler at") !=
        std::string::npos);
  CHECK(text.find("Dynamic profiler shut down.") != std::string::npos);
}

TEST_CASE("dynamic profiler: start_step N starts at the step() that makes the counter N and a passed N is dropped") {
  temp_dir t;
  log_lines log;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init((t / "cfg").string(), fast(log))));
  for (int i = 0; i < 3; ++i) dp.step();
  const fs::path out = t / "out";
  // Already passed: logged, dropped.
  write_config(dp.config_path(), config_text(out, R"("start_step": 2)"));
  REQUIRE(log.wait_for("load json success"));
  dp.step();
  CHECK(log.count("Start step 2 has already passed (now step 4), the config is dropped.") == 1);
  CHECK_FALSE(dp.collecting());

  // N in the future: nothing until the counter reaches N, then exactly there.
  write_config(dp.config_path(), config_text(out, R"("start_step": 8, "active": 1)"));
  REQUIRE(log.wait_for("load json success", 2));
  while (dp.step_num() < 7) {
    dp.step();
    CHECK_FALSE(dp.collecting());
  }
  dp.step();
  CHECK(dp.collecting());
  CHECK(log.count("Start Dynamic Profiler at 8 step.") == 1);
  dp.step();
  CHECK_FALSE(dp.collecting());
  REQUIRE(dp.saved_dirs().size() == 1);
  CHECK(started_at(dp.saved_dirs()[0]) == 8);

  // 0 (torch_npu's default): the next step().
  write_config(dp.config_path(), config_text(out, R"("start_step": 0, "active": 1)"));
  REQUIRE(log.wait_for("load json success", 3));
  dp.step();
  CHECK(dp.collecting());
  dp.step();
  REQUIRE(dp.saved_dirs().size() == 2);
  CHECK(started_at(dp.saved_dirs()[1]) == 10);
}

TEST_CASE("dynamic profiler: a bad file is logged with file and key and type and the profiler keeps running") {
  temp_dir t;
  log_lines log;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init((t / "cfg").string(), fast(log))));
  const std::string path = dp.config_path();
  // Broken JSON, written in place (not atomically).
  {
    std::ofstream f(path);
    f << R"({"active": 2, "prof_dir": )";
  }
  REQUIRE(log.wait_for("Dynamic profiler load json failed, the profiler keeps running: [msprof.parse] " + path));
  // A wrong type.
  write_config(path, R"({"active": "2", "start_step": -1})");
  REQUIRE(log.wait_for("[ERROR] [" + std::to_string(::getpid()) + "] dynamic_profiler.hpp: Dynamic profiler load json "
                       "failed, the profiler keeps running: [msprof.bad_value] " + path +
                       ": active: expected an integer from 1 to 1000000, got \"2\""));
  CHECK(log.count("load json success") == 0);
  dp.step();
  CHECK_FALSE(dp.collecting());
  // An unknown key is a warning only.
  write_config(path, config_text(t / "out", R"("start_step": -1, "activ": 3)"));
  REQUIRE(log.wait_for("load json success"));
  CHECK(log.count("[WARNING] [" + std::to_string(::getpid()) + "] dynamic_profiler.hpp: " + path +
                  ": activ: unknown key, ignored") == 1);
  for (int i = 0; i < 4; ++i) dp.step();
  CHECK(dp.saved_dirs().size() == 1);
  // The file disappears: logged once, nothing else happens.
  fs::remove(path);
  REQUIRE(log.wait_for("cfg json not exists"));
  std::this_thread::sleep_for(60ms);
  CHECK(log.count("cfg json not exists") == 1);
  dp.step();
  CHECK(dp.saved_dirs().size() == 1);
}

TEST_CASE("dynamic profiler: the log is rotated to .1 when it would pass the limit") {
  temp_dir t;
  const fs::path cfg_dir = t / "cfg";
  log_lines log;
  session::dynamic_options o = fast(log);
  o.log_max_bytes = 700;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init(cfg_dir.string(), o)));
  for (int i = 0; i < 6; ++i) {
    write_config(dp.config_path(), R"({"active": )" + std::to_string(i + 1) + R"(, "start_step": 100000})");
    REQUIRE(log.wait_for("load json success", static_cast<std::size_t>(i + 1)));
  }
  dp.shutdown();
  const fs::path log_file = find_log(cfg_dir);
  REQUIRE_FALSE(log_file.empty());
  const fs::path backup = log_file.string() + ".1";
  REQUIRE(fs::exists(backup));
  CHECK_FALSE(fs::exists(log_file.string() + ".2"));
  CHECK(fs::file_size(log_file) < 700);
  CHECK(fs::file_size(backup) < 700);
  CHECK(fs::file_size(backup) > 300);
  // The newest lines are in the current file, lines are never split.
  const std::string current = read_text(log_file);
  CHECK(current.find("Dynamic profiler shut down.") != std::string::npos);
  CHECK(current.back() == '\n');
  const std::string old_lines = read_text(backup);
  CHECK(old_lines.find("] dynamic_profiler.hpp: ") != std::string::npos);
  CHECK(old_lines.back() == '\n');
  CHECK(old_lines.find("Dynamic profiler shut down.") == std::string::npos);
}

TEST_CASE("dynamic profiler: analyse hands the directory to the export handler and shutdown saves a running collection") {
  temp_dir t;
  log_lines log;
  session::dynamic_options o = fast(log);
  session::export_handler sync_export;
  std::vector<std::pair<std::string, bool>> calls;
  o.analyse = [&](const std::string& dir, bool async) {
    calls.emplace_back(dir, async);
    sync_export(dir);
  };
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init((t / "cfg").string(), o)));
  write_config(dp.config_path(), config_text(t / "out", R"("start_step": -1, "analyse": true,
                                                                 "metadata": {"model": "toy"})"));
  REQUIRE(log.wait_for("load json success"));
  step_until_saved(dp, 1);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].first == dp.saved_dirs()[0]);
  CHECK_FALSE(calls[0].second);
  CHECK(sync_export.exported() == dp.saved_dirs());
  CHECK(fs::is_directory(fs::path(dp.saved_dirs()[0]) / "mindstudio_profiler_output"));
  auto meta = msprof::json::parse(read_text(fs::path(dp.saved_dirs()[0]) / "profiler_metadata.json"));
  REQUIRE(static_cast<bool>(meta));
  CHECK(meta->get("model").as_string_or("") == "toy");
  CHECK(meta->get("dynamic_profile").get("config").as_string_or("") == dp.config_path());

  // A long collection still running at shutdown() is saved, with a warning.
  write_config(dp.config_path(), config_text(t / "out", R"("start_step": -1, "active": 1000)"));
  REQUIRE(log.wait_for("load json success", 2));
  dp.step();
  REQUIRE(dp.collecting());
  REQUIRE(dp.active_profiler() != nullptr);
  dp.step();
  dp.shutdown();
  CHECK_FALSE(dp.collecting());
  CHECK(dp.saved_dirs().size() == 2);
  CHECK(log.count("[WARNING]") >= 1);
  CHECK(log.count("Profiler stop when process exit") == 1);
  CHECK(calls.size() == 1);  // the second config did not ask for analyse
}

TEST_CASE("dynamic profiler: PROF_CONFIG_PATH and init errors") {
  temp_dir t;
  ::unsetenv("PROF_CONFIG_PATH");
  {
    session::dynamic_profiler dp;
    auto r = dp.init_from_env();
    REQUIRE_FALSE(static_cast<bool>(r));
    CHECK(r.err().message.find("PROF_CONFIG_PATH is not set") != std::string::npos);
  }
  {
    const std::string dir = (t / "env_cfg").string();
    ::setenv("PROF_CONFIG_PATH", dir.c_str(), 1);
    session::dynamic_profiler dp;
    REQUIRE(static_cast<bool>(dp.init_from_env()));
    ::unsetenv("PROF_CONFIG_PATH");
    CHECK(fs::exists(fs::path(dir) / "profiler_config.json"));
    CHECK(dp.config_path() == dir + "/profiler_config.json");
    auto again = dp.init(dir);
    REQUIRE_FALSE(static_cast<bool>(again));
    CHECK(again.err().message.find("already called") != std::string::npos);
  }
  {
    session::dynamic_profiler dp;
    auto r = dp.init((t / "a b").string());
    REQUIRE_FALSE(static_cast<bool>(r));
    CHECK(r.err().message.find("character ' ' is not allowed") != std::string::npos);
    session::dynamic_options o;
    o.poll_interval = 0ms;
    r = dp.init((t / "ok").string(), o);
    REQUIRE_FALSE(static_cast<bool>(r));
    CHECK(r.err().message.find("poll_interval") != std::string::npos);
    dp.step();  // not initialised: nothing happens
    CHECK(dp.step_num() == 0);
  }
  {
    // An existing file is kept as it is (and is the baseline, not a change).
    const fs::path dir = t / "kept";
    fs::create_directories(dir);
    write_config((dir / "profiler_config.json").string(), R"({"start_step": -1, "active": 1})");
    log_lines log;
    session::dynamic_profiler dp;
    REQUIRE(static_cast<bool>(dp.init(dir.string(), fast(log))));
    CHECK(read_text(dir / "profiler_config.json") == R"({"start_step": -1, "active": 1})");
    std::this_thread::sleep_for(80ms);
    dp.step();
    CHECK_FALSE(dp.collecting());
    CHECK(log.count("Create profiler_config.json default.") == 0);
  }
}

TEST_CASE("dynamic profiler: start(config_file) collects from now for warmup + active steps, with or without init") {
  temp_dir t;
  const fs::path out = t / "out";
  const fs::path cfg = t / "start_config.json";
  write_config(cfg.string(), config_text(out, R"("start_step": 7, "warmup": 0, "active": 2)"));
  session::dynamic_profiler dp;  // no init(): torch_npu allows start() alone
  REQUIRE(static_cast<bool>(dp.start(cfg.string())));
  CHECK(dp.collecting());
  auto again = dp.start(cfg.string());
  REQUIRE_FALSE(static_cast<bool>(again));
  CHECK(again.err().what().find("already running") != std::string::npos);
  mstxMarkA("first step body", nullptr);
  dp.step();
  CHECK(dp.collecting());
  mstxMarkA("second step body", nullptr);
  dp.step();
  CHECK_FALSE(dp.collecting());  // start_step 7 is not used: 2 active steps from start()
  mstxMarkA("after the collection", nullptr);
  dp.step();
  const auto dirs = dp.saved_dirs();
  REQUIRE(dirs.size() == 1);
  CHECK(fs::path(dirs[0]).parent_path() == out);
  const convert::model m = load(dirs[0]);
  CHECK(messages(m, "default") == std::multiset<std::string>{"first step body", "second step body"});

  SUBCASE("a missing or bad file is an error naming it, and nothing starts") {
    auto missing = dp.start((t / "nope.json").string());
    REQUIRE_FALSE(static_cast<bool>(missing));
    CHECK(missing.err().what().find("nope.json") != std::string::npos);
    write_config(cfg.string(), R"({"active": "two"})");
    auto bad = dp.start(cfg.string());
    REQUIRE_FALSE(static_cast<bool>(bad));
    CHECK(bad.err().what().find("start_config.json") != std::string::npos);
    CHECK(bad.err().what().find("active") != std::string::npos);
    CHECK_FALSE(dp.collecting());
  }
}

TEST_CASE("dynamic profiler: torch_npu's template (NPU, AiCoreNone) collects without an error and keeps the step trace") {
  temp_dir t;
  const fs::path cfg_dir = t / "cfg";
  const fs::path out = t / "out";
  log_lines log;
  session::dynamic_profiler dp;
  REQUIRE(static_cast<bool>(dp.init(cfg_dir.string(), fast(log))));
  // The template as a user arms it: an output directory and when to start.
  std::string text = session::profiler_config_template();
  auto set = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  set(R"("prof_dir": "./")", R"("prof_dir": ")" + out.string() + "\"");
  set(R"("start_step": 0)", R"("start_step": -1)");
  set(R"("active": 1)", R"("active": 2)");
  REQUIRE(text.find(R"("aic_metrics": "AiCoreNone")") != std::string::npos);
  write_config(dp.config_path(), text);
  REQUIRE(log.wait_for("load json success"));
  for (int i = 0; i < 1000 && (dp.saved_dirs().empty() || dp.collecting()); ++i) {
    if (auto* p = dp.active_profiler()) {  // some device work in each step
      auto s = p->device().create_stream();
      REQUIRE(s);
      msprof::device::op_desc op;
      op.name = "MatMul_" + std::to_string(i);
      op.type = "MatMul";
      op.block_dim = 8;
      op.flops = 1e9;
      REQUIRE(static_cast<bool>(p->device().launch(*s, op)));
    }
    dp.step();
    std::this_thread::sleep_for(5ms);
  }
  const auto dirs = dp.saved_dirs();
  REQUIRE(dirs.size() == 1);
  CHECK(log.count("ERROR") == 0);
  const convert::model m = load(dirs[0]);
  CHECK(m.has_device());
  CHECK_FALSE(m.iterations.empty());  // the device step trace
  bool any_op = false;
  for (const auto& task : m.tasks) {
    any_op |= task.op != nullptr;
    CHECK_FALSE(task.pmu.has_value());  // counters off
  }
  CHECK(any_op);
  const auto cols = convert::pmu_columns::of(m.session);
  CHECK(cols.empty());  // op_summary without PMU columns
  dp.shutdown();
}
