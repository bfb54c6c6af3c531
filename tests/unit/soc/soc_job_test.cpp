// SPDX-License-Identifier: MIT
// The SoC JOB directory: what the simulated SS928-class device writes
// (device/simulated_soc.hpp, prof/job_writer.hpp) read back by load_job
// (src/convert/soc/job.cpp): a round trip, sampling by interval, the
// switches, slices rolling, and damaged or cut data as warnings.
#include <doctest/doctest.h>
#include <msprof/convert/soc/job.hpp>
#include <msprof/device/simulated_soc.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace codec = msprof::codec;
namespace prof = msprof::prof;
namespace device = msprof::device;
namespace conv_soc = msprof::convert::soc;  // (soc is msprof::soc in soc_acl_test, its unity neighbour)
namespace fs = std::filesystem;

namespace {

device::simulated_soc make_soc(const temp_dir& t, std::uint32_t interval = 0, std::uint64_t seed = 7) {
  device::simulated_soc_options o;
  o.job.parent = t.path;
  o.job.interval = interval;
  o.seed = seed;
  o.realtime = false;
  auto d = device::simulated_soc::create(o);
  REQUIRE_MESSAGE(d, (d ? "" : d.err().message));
  return std::move(*d);
}

const std::string kModel = "simulated model bytes: resnet-like";

bool has_warning(const conv_soc::job& j, const std::string& part) {
  for (const auto& w : j.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("soc job: load_job reads back what the simulated device wrote") {
  temp_dir t("soc_rt");
  auto dev = make_soc(t);
  std::uint64_t now = 1000000;
  auto id = dev.load_model(kModel.data(), kModel.size(), "resnet.om");
  REQUIRE(id);
  REQUIRE(dev.record_acl("svp_acl_mdl_load_from_mem", codec::soc::api_type::model, now, now + 5000, 11));
  std::vector<std::uint64_t> ends;
  for (int k = 0; k < 3; ++k) {
    auto e = dev.execute(*id, now + 10000 + static_cast<std::uint64_t>(k) * 100000000ull, 2);
    REQUIRE(e);
    ends.push_back(*e);
    REQUIRE(dev.record_acl("svp_acl_mdl_execute", codec::soc::api_type::model, now, *e, 11));
  }
  const std::string path = dev.job_path();
  CHECK(prof::job_layout::is_job_name(fs::path(path).filename().string()));
  REQUIRE(dev.close());

  CHECK(conv_soc::is_job_dir(path));
  auto j = conv_soc::load_job(path);
  REQUIRE_MESSAGE(j, (j ? "" : j.err().message));
  CHECK(j->finished);
  CHECK(j->warnings.empty());
  CHECK(j->device_id == 0);
  CHECK(j->pid == static_cast<std::uint32_t>(::getpid()));
  CHECK(j->aac_metrics == "ArithmeticUtilization");
  CHECK(j->frequency_mhz == doctest::Approx(1000));
  REQUIRE(j->acl.size() == 4);
  CHECK(j->acl[0].name == "svp_acl_mdl_load_from_mem");
  CHECK(j->acl[0].type == "model");
  CHECK(j->acl[0].tid == 11);
  CHECK(j->acl[0].end_ns - j->acl[0].start_ns == 5000);
  REQUIRE(j->models.size() == 1);
  const auto& m = j->models[0];
  CHECK(m.model_id == *id);
  CHECK(m.model_file_name == "resnet.om");
  CHECK(m.batch_num == 3);
  CHECK(m.input_pic_num == 6);
  CHECK(m.current_pic_count == 6);
  CHECK(m.icache_miss_rate > 0.005);
  CHECK(m.icache_miss_rate < 0.06);
  const auto* layers = dev.layers(*id);
  REQUIRE(layers);
  REQUIRE(m.tasks.size() == 3 * layers->size());
  std::set<std::string> units;
  for (std::size_t i = 0; i < m.tasks.size(); ++i) {
    const auto& task = m.tasks[i];
    const auto& l = (*layers)[i % layers->size()];
    CHECK(task.iteration == i / layers->size() + 1);
    CHECK(task.task_id == i % layers->size());
    CHECK(task.layer_id == l.id);
    CHECK(task.layer_name == l.name);
    CHECK(task.ori_layer_name == l.ori_name);
    CHECK(task.layer_type == l.type);
    CHECK(task.end_ns > task.start_ns);
    if (i % layers->size()) CHECK(task.start_ns > m.tasks[i - 1].end_ns);  // one task at a time
    units.insert(task.task_type);
    if (task.task_type == "AA CPU") {
      CHECK(!task.pmu);
    } else {
      REQUIRE(task.pmu);
      const auto& p = *task.pmu;
      for (double r : {p.mac_busy, p.mac_ppen, p.vec_busy, p.vec_ppen, p.dstr, p.dtrans, p.dld, p.wld}) {
        CHECK(r >= 0);
        CHECK(r <= 1);
      }
      CHECK(p.mac_ppen <= p.mac_busy);
      CHECK(p.vec_ppen <= p.vec_busy);
      CHECK(p.ddr_read_bytes > 0);
      if (task.task_type == "AA CORE") CHECK(p.mac_busy > 0.1);
      if (task.task_type == "AA Vector Core") CHECK(p.mac_busy == 0);
    }
  }
  CHECK(units == std::set<std::string>{"AA CORE", "AA Vector Core", "AA CPU"});
  CHECK(static_cast<std::uint64_t>(m.tasks.back().end_ns) <= ends.back());
}

TEST_CASE("soc job: the same seed and model give the same layers and durations") {
  temp_dir t("soc_det");
  std::vector<std::int64_t> durs[2];
  for (int run = 0; run < 2; ++run) {
    auto dev = make_soc(t);
    auto id = dev.load_model(kModel.data(), kModel.size(), "m.om");
    REQUIRE(id);
    REQUIRE(dev.execute(*id, 5000000));
    const std::string path = dev.job_path();
    REQUIRE(dev.close());
    auto j = conv_soc::load_job(path);
    REQUIRE(j);
    for (const auto& task : j->models.at(0).tasks) durs[run].push_back(task.end_ns - task.start_ns);
  }
  CHECK(durs[0] == durs[1]);
  auto other = make_soc(t, 0, 8);  // another seed: another network or other costs
  auto id = other.load_model(kModel.data(), kModel.size(), "m.om");
  REQUIRE(other.execute(*id, 5000000));
  const std::string path = other.job_path();
  REQUIRE(other.close());
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  std::vector<std::int64_t> d;
  for (const auto& task : j->models.at(0).tasks) d.push_back(task.end_ns - task.start_ns);
  CHECK(d != durs[0]);
}

TEST_CASE("soc job: interval N samples the 1st, (N+1)th ... inference, and 0 samples every one") {
  for (std::uint32_t interval : {0u, 1u, 2u, 3u}) {
    CAPTURE(interval);
    temp_dir t("soc_iv");
    auto dev = make_soc(t, interval);
    auto id = dev.load_model(kModel.data(), kModel.size(), "m.om");
    for (int k = 0; k < 7; ++k) REQUIRE(dev.execute(*id, 1000, 1));
    const std::string path = dev.job_path();
    REQUIRE(dev.close());
    auto j = conv_soc::load_job(path);
    REQUIRE(j);
    CHECK(j->interval == interval);
    const auto& m = j->models.at(0);
    std::set<std::uint64_t> iters;
    for (const auto& task : m.tasks) iters.insert(task.iteration);
    std::set<std::uint64_t> want;
    for (std::uint64_t n = 1; n <= 7; ++n)
      if (interval == 0 || (n - 1) % interval == 0) want.insert(n);
    CHECK(iters == want);
    CHECK(m.batch_num == 7);
    CHECK(m.input_pic_num == 7);
    CHECK(m.current_pic_count == want.size());
  }
}

TEST_CASE("soc job: aacpu, acl_api and aac_metrics switches") {
  temp_dir t("soc_sw");
  device::simulated_soc_options o;
  o.job.parent = t.path;
  o.job.aacpu = false;
  o.job.acl_api = false;
  o.job.aac_metrics = "PipeUtilization";  // any other value: no AA Core data
  o.realtime = false;
  auto dev = device::simulated_soc::create(o);
  REQUIRE(dev);
  auto id = dev->load_model(kModel.data(), kModel.size(), "m.om");
  REQUIRE(dev->execute(*id, 1000));
  REQUIRE(dev->record_acl("svp_acl_mdl_execute", codec::soc::api_type::model, 1, 2, 1));
  const std::string path = dev->job_path();
  REQUIRE(dev->close());
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  CHECK(j->acl.empty());
  CHECK(j->aac_metrics == "PipeUtilization");
  REQUIRE(!j->models.at(0).tasks.empty());
  for (const auto& task : j->models.at(0).tasks) {
    CHECK(task.task_type != "AA CPU");
    CHECK(!task.pmu);
  }
  CHECK(!fs::exists(fs::path(path) / "data" / "AAcore.data.0.slice_0"));
  CHECK(!fs::exists(fs::path(path) / "data" / "AclModule.data.0.slice_0"));
}

TEST_CASE("soc job: slices roll at slice_bytes, each finished one with its .done") {
  temp_dir t("soc_roll");
  device::simulated_soc_options o;
  o.job.parent = t.path;
  o.job.slice_bytes = 1024;
  o.realtime = false;
  auto dev = device::simulated_soc::create(o);
  REQUIRE(dev);
  auto id = dev->load_model(kModel.data(), kModel.size(), "m.om");
  for (int k = 0; k < 10; ++k) REQUIRE(dev->execute(*id, 1000));
  const std::string path = dev->job_path();
  REQUIRE(dev->close());
  std::size_t slices = 0;
  for (const auto& e : fs::directory_iterator(fs::path(path) / "data")) {
    const std::string n = e.path().filename().string();
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".done") == 0) continue;
    ++slices;
    CHECK(fs::exists(e.path().string() + ".done"));
    CHECK(fs::file_size(e.path()) <= 1024 + sizeof(codec::soc::soc_aacore_record));
  }
  CHECK(slices > 4);
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  CHECK(j->warnings.empty());
  CHECK(j->models.at(0).batch_num == 10);
  CHECK(j->models.at(0).tasks.size() == 10 * dev->layers(*id)->size());
}

TEST_CASE("soc job: damaged and cut slices are warnings naming the file and offset") {
  temp_dir t("soc_bad");
  auto dev = make_soc(t);
  auto id = dev.load_model(kModel.data(), kModel.size(), "m.om");
  REQUIRE(dev.execute(*id, 1000));
  REQUIRE(dev.record_acl("svp_acl_mdl_execute", codec::soc::api_type::model, 1, 2, 1));
  const std::string path = dev.job_path();
  REQUIRE(dev.close());
  const fs::path task = fs::path(path) / "data" / "TaskScheduler.data.0.slice_0";
  {  // the second task record's magic broken, and half a record appended
    std::fstream f(task, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(48);
    f.put('\0');
    f.seekp(0, std::ios::end);
    f.write("abcdefgh", 8);
  }
  const fs::path acl = fs::path(path) / "data" / "AclModule.data.0.slice_0";
  fs::resize_file(acl, 10);
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  CHECK(has_warning(*j, task.string() + ": record at byte offset 48"));
  CHECK(has_warning(*j, task.string() + ": 8 bytes at byte offset"));
  CHECK(has_warning(*j, acl.string() + ": 10 bytes, its .done file says 64"));
  CHECK(j->acl.empty());
  CHECK(j->models.at(0).tasks.size() == dev.layers(*id)->size() - 1);
}

TEST_CASE("soc job: not a JOB directory is an error naming it") {
  temp_dir t("soc_not");
  CHECK(!conv_soc::is_job_dir(t.path));
  auto j = conv_soc::load_job(t.path);
  REQUIRE(!j);
  CHECK(j.err().message.find(t.path) != std::string::npos);
  CHECK(!conv_soc::load_job(t.path + "/missing"));
}

TEST_CASE("soc job: a model loaded but never executed leaves no model data") {
  temp_dir t("soc_noexec");
  auto dev = make_soc(t);
  auto idle = dev.load_model("idle", 4, "idle.om");
  auto used = dev.load_model(kModel.data(), kModel.size(), "used.om");
  REQUIRE(idle);
  REQUIRE(used);
  REQUIRE(dev.execute(*used, 1000));
  const std::string path = dev.job_path();
  REQUIRE(dev.close());
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  REQUIRE(j->models.size() == 1);
  CHECK(j->models[0].model_id == *used);
  CHECK(j->models[0].model_file_name == "used.om");
}

TEST_CASE("soc job: a slice far larger than the writer makes is skipped with a warning") {
  temp_dir t("soc_big");
  auto dev = make_soc(t);
  auto id = dev.load_model(kModel.data(), kModel.size(), "m.om");
  REQUIRE(dev.execute(*id, 1000));
  const std::string path = dev.job_path();
  REQUIRE(dev.close());
  const fs::path big = fs::path(path) / "data" / "AclModule.data.0.slice_1";
  { std::ofstream(big, std::ios::binary) << "x"; }
  fs::resize_file(big, (256ull << 20) + 1);  // sparse: no disk used
  auto j = conv_soc::load_job(path);
  REQUIRE(j);
  CHECK(has_warning(*j, big.string() + ": 268435457 bytes, more than a slice can be"));
  CHECK(j->models.at(0).tasks.size() == dev.layers(*id)->size());
}

TEST_CASE("soc job: times past 2^63 - 1 ns are damage, not negative durations") {
  codec::soc::soc_task_record t;
  t.start_ns = 5;
  t.end_ns = 0x8000000000000000ull;
  const codec::place at{"TaskScheduler.data.0.slice_0", 96};
  auto r = codec::soc::decode_task(reinterpret_cast<const unsigned char*>(&t), sizeof t, at);
  REQUIRE(!r);
  CHECK(r.err().message == "TaskScheduler.data.0.slice_0: record at byte offset 96: TaskScheduler time past 2^63 - 1 ns");
  auto a = codec::soc::make_acl("svp_acl_mdl_execute", codec::soc::api_type::model, 1, 1, 0x8000000000000001ull,
                                0x8000000000000002ull);
  CHECK(!codec::soc::decode_acl(reinterpret_cast<const unsigned char*>(&a), sizeof a, at));
  t.end_ns = 0x7FFFFFFFFFFFFFFFull;
  CHECK(codec::soc::decode_task(reinterpret_cast<const unsigned char*>(&t), sizeof t, at));
  t.end_ns = 4;  // before its start
  CHECK(!codec::soc::decode_task(reinterpret_cast<const unsigned char*>(&t), sizeof t, at));
}
