// SPDX-License-Identifier: MIT
// The SoC flow's acl.json "profiler" section (session/config_files.hpp), the
// msprof::soc ACL API (soc/acl.hpp) profiling through it, the umask note, and
// `msprof import` of finished and killed runs (convert/soc/import.hpp).
#include <doctest/doctest.h>
#include <msprof/convert/soc/import.hpp>
#include <msprof/convert/soc/job.hpp>
#include <msprof/session/config_files.hpp>
#include <msprof/soc/acl.hpp>

#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace session = msprof::session;
namespace soc = msprof::soc;
namespace cs = msprof::convert::soc;
namespace fs = std::filesystem;

namespace {

// The document's example, exactly as it prints it.
const char* const kDocExample =
    R"({ "profiler":{ "output":"/root/AscendProjects/MyAppTest/profiling", "aacpu":"on", "aac_metrics":"ArithmeticUtilization", "interval":"0", "acl_api":"on", "switch":"on" } })";

struct warnings {
  std::vector<std::string> list;
  session::warn_fn fn() {
    return [this](const std::string& w) { list.push_back(w); };
  }
  bool has(const std::string& part) const {
    for (const auto& w : list)
      if (w.find(part) != std::string::npos) return true;
    return false;
  }
};

std::string write_acl(const temp_dir& t, const std::string& profiler) {
  const std::string p = t.path + "/acl.json";
  std::ofstream(p) << "{\"profiler\": {" << profiler << "}}";
  return p;
}

std::int64_t count_rows(const std::string& db, const std::string& table) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::int64_t n = -1;
  if (sqlite3_prepare_v2(h, ("SELECT COUNT(*) FROM " + table).c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

soc::init_options quiet(warnings& w) {
  soc::init_options o;
  o.realtime = false;
  o.warn = w.fn();
  return o;
}

}  // namespace

TEST_CASE("soc acl.json: the document's example is accepted as written") {
  warnings w;
  auto c = session::parse_soc_acl_json(kDocExample, "acl.json", w.fn());
  REQUIRE_MESSAGE(c, (c ? "" : c.err().message));
  REQUIRE(*c);
  CHECK((*c)->output == "/root/AscendProjects/MyAppTest/profiling");
  CHECK((*c)->aacpu);
  CHECK((*c)->acl_api);
  CHECK((*c)->interval == 0);
  CHECK((*c)->aac_metrics == "ArithmeticUtilization");
  CHECK(w.list.empty());
  // The Ascend 910B parser no longer rejects it: the SoC keys select the SoC flow.
  warnings w910;
  auto old = session::parse_acl_json(kDocExample, "acl.json", w910.fn());
  REQUIRE_MESSAGE(old, (old ? "" : old.err().message));
  CHECK(!*old);
  CHECK(w910.has("SoC profiling section"));
  // ... and still reads its own sections, numeric interval included.
  auto b = session::parse_acl_json(R"({"profiler": {"switch": "on", "output": "prof", "interval": 50}})");
  REQUIRE(b);
  REQUIRE(*b);
  CHECK((*b)->drain_interval == std::chrono::milliseconds(50));
}

TEST_CASE("soc acl.json: switch, defaults and bad values") {
  warnings w;
  auto off = session::parse_soc_acl_json(R"({"profiler": {"aacpu": "on"}})", "acl.json", w.fn());
  REQUIRE(off);
  CHECK(!*off);  // a missing switch is off
  off = session::parse_soc_acl_json(R"({"profiler": {"switch": "yes"}})", "acl.json", w.fn());
  REQUIRE(off);
  CHECK(!*off);  // anything but "on" is off
  CHECK(w.has("profiler.switch: \"yes\" is not \"on\""));
  auto d = session::parse_soc_acl_json(R"({"profiler": {"switch": "on"}})");
  REQUIRE(d);
  REQUIRE(*d);
  CHECK((*d)->output.empty());
  CHECK((*d)->aacpu);
  CHECK((*d)->acl_api);
  CHECK((*d)->interval == 0);
  CHECK((*d)->aac_metrics == "ArithmeticUtilization");
  auto iv = session::parse_soc_acl_json(R"({"profiler": {"switch": "on", "interval": "25", "aacpu": "off", "acl_api": "off"}})");
  REQUIRE(iv);
  CHECK((*iv)->interval == 25);
  CHECK(!(*iv)->aacpu);
  CHECK(!(*iv)->acl_api);
  warnings m;
  auto other = session::parse_soc_acl_json(R"({"profiler": {"switch": "on", "aac_metrics": "Memory"}})", "acl.json", m.fn());
  REQUIRE(other);
  CHECK((*other)->aac_metrics == "Memory");
  CHECK(m.has("no AA Core data is collected"));

  auto err = [](const char* text) {
    auto r = session::parse_soc_acl_json(text, "conf/acl.json", [](const std::string&) {});
    return r ? std::string() : r.err().message;
  };
  CHECK(err(R"({"profiler": {"switch": "on", "interval": "-1"}})").find("conf/acl.json: profiler.interval: expected") == 0);
  CHECK(err(R"({"profiler": {"switch": "on", "interval": "two"}})").find("profiler.interval") != std::string::npos);
  CHECK(err(R"({"profiler": {"switch": "on", "aacpu": "yes"}})").find("profiler.aacpu: expected \"on\" or \"off\"") !=
        std::string::npos);
  CHECK(err(R"({"profiler": {"switch": 1}})").find("profiler.switch") != std::string::npos);
  // C5: letters, digits, '_', '/', '-', '.' only.
  const std::string space = err(R"({"profiler": {"switch": "on", "output": "/tmp/my prof"}})");
  CHECK(space.find("conf/acl.json: profiler.output:") == 0);
  CHECK(space.find("byte 0x20 at position 7") != std::string::npos);
  CHECK(err(R"({"profiler": {"switch": "on", "output": "/tmp/a$b"}})").find("'$' at position 6") != std::string::npos);
  CHECK(err(R"({"profiler": {"switch": "on", "output": "../x86_64-linux/prof_1.d"}})").empty());
}

TEST_CASE("soc acl: acl_init .. acl_finalize profile into a JOB directory that imports") {
  temp_dir t("soc_api");
  warnings w;
  const std::string acl = write_acl(t, "\"switch\": \"on\", \"output\": \"" + t.path + "\", \"interval\": \"0\"");
  REQUIRE(soc::acl_init(acl, quiet(w)));
  CHECK(!soc::acl_init(acl, quiet(w)));  // one profiled run at a time
  const std::string om = "model bytes";
  auto id = soc::load_model_from_mem(om.data(), om.size(), "net.om");
  REQUIRE(id);
  REQUIRE(soc::query_size(*id));
  for (int k = 0; k < 3; ++k) REQUIRE(soc::execute(*id, 2));
  CHECK(!soc::execute(*id + 1));
  REQUIRE(soc::unload_model(*id));
  REQUIRE(soc::acl_finalize());
  const std::string job = soc::job_dir();
  CHECK(fs::path(job).parent_path() == fs::path(t.path));

  auto j = cs::load_job(job);
  REQUIRE(j);
  CHECK(j->finished);
  std::vector<std::string> names;
  for (const auto& c : j->acl) names.push_back(c.name + "/" + c.type);
  CHECK(names == std::vector<std::string>{"svp_acl_init/runtime", "svp_acl_mdl_load_from_mem/model",
                                          "svp_acl_mdl_query_size/model", "svp_acl_mdl_execute/model",
                                          "svp_acl_mdl_execute/model", "svp_acl_mdl_execute/model",
                                          "svp_acl_mdl_unload/model", "svp_acl_finalize/runtime"});
  for (const auto& c : j->acl) CHECK(c.pid == static_cast<std::uint32_t>(::getpid()));
  // an execute's ACL span holds its tasks
  const auto& m = j->models.at(0);
  CHECK(m.model_file_name == "net.om");
  CHECK(m.input_pic_num == 6);
  CHECK(j->acl[3].start_ns < m.tasks.front().start_ns);
  CHECK(j->acl[3].end_ns >= m.tasks.front().end_ns);

  auto imp = cs::import_job(job);
  REQUIRE_MESSAGE(imp, (imp ? "" : imp.err().message));
  CHECK(imp->files.size() == 3);
  CHECK(count_rows(job + "/sqlite/acl_module.db", "AclApi") == 8);
  CHECK(count_rows(job + "/sqlite/task_scheduler.db", "Task") == static_cast<std::int64_t>(m.tasks.size()));
  CHECK(count_rows(job + "/sqlite/task_scheduler.db", "ModelRun") == 1);
  std::int64_t with_pmu = 0;
  for (const auto& task : m.tasks) with_pmu += task.pmu ? 1 : 0;
  CHECK(count_rows(job + "/sqlite/aa_core.db", "ArithmeticUtilization") == with_pmu);
  // regenerated even if present: a damaged database is replaced
  std::ofstream(job + "/sqlite/aa_core.db", std::ios::trunc) << "not a database";
  REQUIRE(cs::import_job(job));
  CHECK(count_rows(job + "/sqlite/aa_core.db", "ArithmeticUtilization") == with_pmu);
}

TEST_CASE("soc acl: switch off profiles nothing, and a missing output falls back to the executable directory") {
  temp_dir t("soc_off");
  warnings w;
  REQUIRE(soc::acl_init(write_acl(t, "\"switch\": \"off\", \"output\": \"" + t.path + "\""), quiet(w)));
  const std::string om = "m";
  auto id = soc::load_model_from_mem(om.data(), om.size());
  REQUIRE(id);
  REQUIRE(soc::execute(*id));
  REQUIRE(soc::acl_finalize());
  CHECK(std::distance(fs::directory_iterator(t.path), fs::directory_iterator()) == 1);  // acl.json only

  soc::init_options o = quiet(w);
  const std::string missing = t.path + "/not_there";
  REQUIRE(soc::acl_init(write_acl(t, "\"switch\": \"on\", \"output\": \"" + missing + "\""), o));
  REQUIRE(soc::acl_finalize());
  const std::string job = soc::job_dir();
  CHECK(w.has("profiler.output: " + missing + " does not exist"));
  CHECK(fs::path(job).parent_path() == fs::canonical("/proc/self/exe").parent_path());
  CHECK(cs::is_job_dir(job));
  fs::remove_all(job);
}

TEST_CASE("soc acl: a umask looser than 0027 is reported, files stay 0750/0640") {
  const mode_t old = ::umask(022);
  CHECK(msprof::prof::umask_warning().has_value());
  CHECK(msprof::prof::umask_warning()->find("umask 0022 is looser than 0027") == 0);
  temp_dir t("soc_umask");
  warnings w;
  REQUIRE(soc::acl_init(write_acl(t, "\"switch\": \"on\", \"output\": \"" + t.path + "\""), quiet(w)));
  REQUIRE(soc::acl_finalize());
  CHECK(w.has("looser than 0027"));
  struct stat st {};
  REQUIRE(::stat(soc::job_dir().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0750);
  REQUIRE(::stat((soc::job_dir() + "/info.json.0").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  ::umask(027);
  CHECK(!msprof::prof::umask_warning());
  ::umask(077);
  CHECK(!msprof::prof::umask_warning());
  ::umask(old);
}

TEST_CASE("soc acl: a run killed mid-inference still imports") {
  temp_dir t("soc_kill");
  const std::string acl = write_acl(t, "\"switch\": \"on\", \"output\": \"" + t.path + "\", \"interval\": \"0\"");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the profiled program: inferences until killed, never finalized
    soc::init_options o;  // realtime: each execute takes its simulated milliseconds
    o.warn = [](const std::string&) {};
    if (!soc::acl_init(acl, o)) ::_exit(3);
    const std::string om = "killed model";
    auto id = soc::load_model_from_mem(om.data(), om.size(), "k.om");
    if (!id) ::_exit(4);
    for (;;)
      if (!soc::execute(*id)) ::_exit(5);
  }
  // Wait for a few inferences on disk, then kill it in the middle of one.
  std::string job;
  for (int i = 0; i < 500 && job.empty(); ++i) {
    for (const auto& e : fs::directory_iterator(t.path))
      if (e.is_directory() && fs::exists(e.path() / "data" / "TaskScheduler.data.0.slice_0") &&
          fs::file_size(e.path() / "data" / "TaskScheduler.data.0.slice_0") > 48 * 60)
        job = e.path().string();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(!job.empty());

  auto j = cs::load_job(job);
  REQUIRE(j);
  CHECK(!j->finished);
  bool said = false;
  for (const auto& w : j->warnings) said = said || w.find("did not finish") != std::string::npos;
  CHECK(said);
  REQUIRE(j->models.size() == 1);
  CHECK(j->models[0].batch_num >= 2);
  CHECK(!j->models[0].tasks.empty());
  CHECK(!j->acl.empty());
  CHECK(j->acl.front().name == "svp_acl_init");
  auto imp = cs::import_job(job);
  REQUIRE_MESSAGE(imp, (imp ? "" : imp.err().message));
  CHECK(count_rows(job + "/sqlite/task_scheduler.db", "Task") == static_cast<std::int64_t>(j->models[0].tasks.size()));
#ifdef MSPROF_TEST_CLI
  const std::string cmd = std::string(MSPROF_TEST_CLI) + " import -dir " + job + " > " + t.path + "/out.txt 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  const std::string out = read_text(t.path + "/out.txt");
  CHECK(out.find("sqlite/task_scheduler.db") != std::string::npos);
  CHECK(out.find("did not finish") != std::string::npos);
#endif
}

TEST_CASE("soc import: Memory Bound is max(Dstr, DLD, WLD) / max(Mac Busy, Vec Ppen)") {
  cs::aa_metrics m;
  m.dstr = 0.2;
  m.dld = 0.5;
  m.wld = 0.1;
  m.mac_busy = 0.25;
  m.vec_ppen = 0.1;
  CHECK(cs::memory_bound(m) == doctest::Approx(2.0));
  m.vec_ppen = 0.8;  // Vec Ppen is the larger denominator
  CHECK(cs::memory_bound(m) == doctest::Approx(0.625));
  m.mac_busy = m.vec_ppen = 0;
  CHECK(cs::memory_bound(m) < 0);  // no value: N/A
}
