// SPDX-License-Identifier: MIT
// acl.json, TensorFlow profiling_options and profiler_config.json: every key
// maps to its session_config field; a bad file is one error naming file, key
// and expected type; unknown keys and keys without effect are warnings.
#include <msprof/session/config_files.hpp>
#include <msprof/prof/host_sampler.hpp>

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace session = msprof::session;
namespace prof = msprof::prof;
namespace fs = std::filesystem;

namespace {

struct warnings {
  std::vector<std::string> list;
  session::warn_fn fn() {
    return [this](const std::string& w) { list.push_back(w); };
  }
  bool any_contains(const std::string& s) const {
    for (const auto& w : list)
      if (w.find(s) != std::string::npos) return true;
    return false;
  }
};

template <class T>
std::string error_of(const msprof::result<T>& r) {
  return r ? std::string("(no error)") : r.err().message;
}

}  // namespace

TEST_CASE("config files: acl.json profiler section maps onto session_config") {
  warnings w;
  auto r = session::parse_acl_json(R"({
    "dump": {"dump_path": "/tmp/dump"},
    "profiler": {
      "switch": "on",
      "output": "prof_out",
      "aicpu": "off",
      "aic_metrics": "ACL_AICORE_MEMORY_BANDWIDTH",
      "acl_api": "on",
      "interval": 20,
      "task_time": "off",
      "msproftx": "on",
      "storage_limit": "500MB"
    }
  })",
                                   "acl.json", w.fn());
  REQUIRE_MESSAGE(static_cast<bool>(r), error_of(r));
  REQUIRE(r->has_value());
  const session::session_config& c = **r;
  CHECK(c.output == "prof_out");
  CHECK(c.aic_metrics == "Memory");
  CHECK(c.drain_interval == std::chrono::milliseconds(20));
  CHECK_FALSE(c.npu);
  CHECK(c.cpu);
  CHECK(c.mstx);
  CHECK(c.storage_limit_mb == 500);
  CHECK(w.list.empty());  // defaults of no-effect keys and other sections are silent

  // Keys without effect warn when set away from their default; unknown keys warn.
  w.list.clear();
  r = session::parse_acl_json(
      R"({"profiler": {"switch": "on", "aicpu": "on", "fp_point": "conv1", "acl_api": "off", "hbm_freq": 10}})",
      "acl.json", w.fn());
  REQUIRE(static_cast<bool>(r));
  REQUIRE(w.list.size() == 3);
  CHECK(w.any_contains("acl.json: profiler.aicpu: \"on\" has no effect"));
  CHECK((*r)->fp_point == "conv1");  // the training trace's FP point (its own test: session_test)
  CHECK(w.any_contains("profiler.acl_api: \"off\" has no effect"));
  CHECK(w.any_contains("acl.json: profiler.hbm_freq: unknown key"));

  // Off, or no profiler section: no session.
  r = session::parse_acl_json(R"({"profiler": {"switch": "off", "output": "x"}})");
  REQUIRE(static_cast<bool>(r));
  CHECK_FALSE(r->has_value());
  r = session::parse_acl_json(R"({"err_msg_mode": "1"})");
  REQUIRE(static_cast<bool>(r));
  CHECK_FALSE(r->has_value());
  w.list.clear();
  r = session::parse_acl_json(R"({"profiler": {"output": "x"}})", "acl.json", w.fn());
  REQUIRE(static_cast<bool>(r));
  CHECK_FALSE(r->has_value());
  CHECK(w.list == std::vector<std::string>{"acl.json: profiler.switch is missing: profiling is off (expected \"on\")"});
}

TEST_CASE("config files: acl.json errors name the file and the key and the expected type") {
  auto err = [](const char* text) { return error_of(session::parse_acl_json(text, "acl.json", [](const std::string&) {})); };
  CHECK(err(R"({"profiler": {"switch": "on", "aic_metrics": 3}})") ==
        "acl.json: profiler.aic_metrics: expected a string, got 3");
  CHECK(err(R"({"profiler": {"switch": "yes"}})") == "acl.json: profiler.switch: expected \"on\" or \"off\", got \"yes\"");
  CHECK(err(R"({"profiler": {"switch": "on", "aic_metrics": "PipeUtilisation"}})")
            .find("acl.json: profiler.aic_metrics: expected one of PipeUtilization,") == 0);
  CHECK(err(R"({"profiler": {"switch": "on", "interval": 0}})") ==
        "acl.json: profiler.interval: expected an integer from 1 to 100000, got 0");
  // A string interval is the SoC flow's sampling interval (docs/soc.md): no
  // 910B session, no error (parse_soc_acl_json reads that section).
  CHECK(err(R"({"profiler": {"switch": "on", "interval": "20"}})") == "(no error)");
  CHECK(err(R"({"profiler": {"switch": "on", "storage_limit": "100MB"}})") ==
        "acl.json: profiler.storage_limit: expected \"<n>MB\" with n from 200 to 4294967295, got \"100MB\"");
  CHECK(err(R"({"profiler": {"switch": "on", "task_time": "l2"}})") ==
        "acl.json: profiler.task_time: expected \"on\", \"off\", \"l0\" or \"l1\", got \"l2\"");
  CHECK(err(R"({"profiler": ["switch"]})") == "acl.json: profiler: expected an object, got [\"switch\"]");
  CHECK(err(R"([1, 2])") == "acl.json: expected a JSON object at the top level, got [1, 2]");
  CHECK(err(R"({"profiler": {"switch": "on", "output": "a b"}})").find("acl.json: config: output path 'a b'") == 0);
  // Long values are shortened in the message.
  const std::string long_value = err(R"({"profiler": {"switch": "on", "output": [1111111111, 2222222222, 3333333333,
                                   4444444444, 5555555555, 6666666666, 7777777777]}})");
  CHECK(long_value.find("...") != std::string::npos);
  CHECK(long_value.size() < 140);
  // JSON syntax errors name the file and the offset.
  const auto syntax = session::parse_acl_json(R"({"profiler": {"switch": "on",}})", "conf/acl.json");
  REQUIRE_FALSE(static_cast<bool>(syntax));
  CHECK(syntax.err().code == msprof::errc::parse);
  CHECK(syntax.err().message.find("conf/acl.json") != std::string::npos);
}

TEST_CASE("config files: load_acl_json reads the file and names its path") {
  const fs::path dir = fs::temp_directory_path() / ("msprof_acl_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "acl.json").string();
  {
    std::ofstream f(path);
    f << R"({"profiler": {"switch": "on", "output": "out", "aic_metrics": 7}})";
  }
  auto bad = session::load_acl_json(path);
  REQUIRE_FALSE(static_cast<bool>(bad));
  CHECK(bad.err().message == path + ": profiler.aic_metrics: expected a string, got 7");
  {
    std::ofstream f(path);
    f << R"({"profiler": {"switch": "on", "output": "out"}})";
  }
  auto good = session::load_acl_json(path);
  REQUIRE(static_cast<bool>(good));
  REQUIRE(good->has_value());
  CHECK((*good)->output == "out");
  auto missing = session::load_acl_json((dir / "none.json").string());
  REQUIRE_FALSE(static_cast<bool>(missing));
  CHECK(missing.err().code == msprof::errc::not_found);
  CHECK(missing.err().message.find("none.json") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("config files: TensorFlow profiling_options") {
  warnings w;
  auto r = session::parse_profiling_options(
      R"({"output": "/tmp/tf_prof", "training_trace": "on", "task_trace": "on", "aic_metrics": "ArithmeticUtilization",
          "fp_point": "resnet_model/conv2d/Conv2Dresnet_model/batch_normalization/FusedBatchNormV3_Reduce",
          "bp_point": "gradients/AddN_70", "msproftx": "off", "storage_limit": "300MB"})",
      "profiling_options", w.fn());
  REQUIRE_MESSAGE(static_cast<bool>(r), error_of(r));
  CHECK(r->output == "/tmp/tf_prof");
  CHECK(r->npu);
  CHECK(r->aic_metrics == "ArithmeticUtilization");
  CHECK_FALSE(r->mstx);
  CHECK(r->storage_limit_mb == 300);
  CHECK(r->training_trace);
  CHECK(r->fp_point == "resnet_model/conv2d/Conv2Dresnet_model/batch_normalization/FusedBatchNormV3_Reduce");
  CHECK(r->bp_point == "gradients/AddN_70");
  CHECK(w.list.empty());

  r = session::parse_profiling_options(R"({"task_trace": "off", "hccl": "off", "job_id": "7"})", "profiling_options",
                                       w.fn());
  REQUIRE(static_cast<bool>(r));
  CHECK_FALSE(r->npu);
  CHECK(w.any_contains("profiling_options: job_id: unknown key, ignored"));

  CHECK(error_of(session::parse_profiling_options(R"({"task_trace": true})")) ==
        "profiling_options: task_trace: expected \"on\" or \"off\", got true");
  CHECK(error_of(session::parse_profiling_options(R"({"output": null})")) ==
        "profiling_options: output: expected a string, got null");
  CHECK(error_of(session::parse_profiling_options(R"({"fp_point": 1})")) ==
        "profiling_options: fp_point: expected a string, got 1");
  CHECK(error_of(session::parse_profiling_options("output=/tmp")).find("profiling_options") != std::string::npos);
}

TEST_CASE("config files: the profiler_config.json template parses to torch_npu's defaults without warnings") {
  warnings w;
  auto r = session::parse_profiler_config(session::profiler_config_template(), "profiler_config.json", w.fn());
  REQUIRE_MESSAGE(static_cast<bool>(r), error_of(r));
  CHECK(w.list.empty());
  CHECK(r->start_step == 0);
  CHECK(r->active == 1);
  CHECK(r->warmup == 0);
  CHECK_FALSE(r->analyse);
  CHECK_FALSE(r->async_mode);
  CHECK_FALSE(r->is_rank);
  CHECK(r->session.cpu);
  CHECK(r->session.npu);
  CHECK(r->session.output == "./");
  CHECK(r->session.aic_metrics == "AiCoreNone");
  CHECK(r->session.level == session::profiler_level::level0);
  CHECK_FALSE(r->session.mstx);
  CHECK(r->session.data_simplification);
  CHECK(r->session.export_types == std::vector<session::export_type>{session::export_type::text});
  // An empty object is the same configuration.
  auto empty = session::parse_profiler_config("{}");
  REQUIRE(static_cast<bool>(empty));
  CHECK(empty->session.aic_metrics == "AiCoreNone");
  CHECK(empty->active == 1);
}

TEST_CASE("config files: profiler_config.json keys") {
  warnings w;
  auto r = session::parse_profiler_config(R"({
    "activities": ["CPU"],
    "prof_dir": "./dyn_out",
    "analyse": true,
    "async_mode": true,
    "record_shapes": true,
    "with_stack": true,
    "active": 3,
    "warmup": 2,
    "start_step": 10,
    "is_rank": true,
    "rank_list": [0, 3],
    "experimental_config": {
      "profiler_level": "Level1",
      "aic_metrics": "ACL_AICORE_L2_CACHE",
      "export_type": ["text", "db"],
      "data_simplification": false,
      "mstx": true,
      "mstx_domain_include": ["compute"],
      "mstx_domain_exclude": ["io"],
      "gc_detect_threshold": null,
      "l2_cache": false,
      "host_sys": ["cpu", "mem"],
      "sys_io": true
    },
    "metadata": {"model": "resnet", "dp": {"size": 8}},
    "future_key": 1
  })",
                                          "cfg/profiler_config.json", w.fn());
  REQUIRE_MESSAGE(static_cast<bool>(r), error_of(r));
  CHECK(r->session.cpu);
  CHECK_FALSE(r->session.npu);
  CHECK(r->session.output == "./dyn_out");
  CHECK(r->analyse);
  CHECK(r->async_mode);
  CHECK(r->session.record_shapes);
  CHECK(r->active == 3);
  CHECK(r->warmup == 2);
  CHECK(r->start_step == 10);
  CHECK(r->is_rank);
  CHECK(r->rank_list == std::vector<std::int64_t>{0, 3});
  CHECK(r->session.level == session::profiler_level::level1);
  CHECK(r->session.aic_metrics == "L2Cache");
  CHECK(r->session.export_types == std::vector<session::export_type>{session::export_type::text, session::export_type::db});
  CHECK_FALSE(r->session.data_simplification);
  CHECK(r->session.mstx);
  CHECK(r->session.mstx_domain_include == std::vector<std::string>{"compute"});
  CHECK(r->session.mstx_domain_exclude.empty());  // include wins, as in torch_npu
  CHECK(r->session.host_sys == std::vector<std::string>{"cpu", "mem"});  // collected: no "no effect" warning
  CHECK(r->session.host_sys_usage_freq == 50);  // not in the file: CANN's default
  REQUIRE(r->metadata.size() == 2);
  CHECK(r->metadata[0] == std::make_pair(std::string("model"), std::string("\"resnet\"")));
  CHECK(r->metadata[1] == std::make_pair(std::string("dp"), std::string("{\"size\": 8}")));
  CHECK(w.list.size() == 4);
  CHECK(w.any_contains("cfg/profiler_config.json: with_stack: true has no effect"));
  CHECK(w.any_contains("cfg/profiler_config.json: experimental_config.sys_io: true has no effect"));
  CHECK(w.any_contains("experimental_config.mstx_domain_include and mstx_domain_exclude are both set"));
  CHECK(w.any_contains("cfg/profiler_config.json: future_key: unknown key, ignored"));

  // msprof_tx alone also enables mstx; export_type may be one string.
  r = session::parse_profiler_config(R"({"experimental_config": {"msprof_tx": true, "export_type": "db"}})");
  REQUIRE(static_cast<bool>(r));
  CHECK(r->session.mstx);
  CHECK(r->session.export_types == std::vector<session::export_type>{session::export_type::db});
  r = session::parse_profiler_config(R"({"start_step": -1, "activities": []})");
  REQUIRE(static_cast<bool>(r));
  CHECK(r->start_step == -1);
  CHECK((r->session.cpu && r->session.npu));
}

TEST_CASE("config files: profiler_config.json errors name the file and the key and the expected type") {
  auto err = [](const char* text) {
    return error_of(session::parse_profiler_config(text, "profiler_config.json", [](const std::string&) {}));
  };
  CHECK(err(R"({"active": 0})") == "profiler_config.json: active: expected an integer from 1 to 1000000, got 0");
  CHECK(err(R"({"active": 1.5})") == "profiler_config.json: active: expected an integer from 1 to 1000000, got 1.5");
  CHECK(err(R"({"start_step": -2})").find("profiler_config.json: start_step: expected an integer from -1 to ") == 0);
  CHECK(err(R"({"warmup": "1"})") == "profiler_config.json: warmup: expected an integer from 0 to 1000000, got \"1\"");
  CHECK(err(R"({"analyse": "true"})") ==
        "profiler_config.json: analyse: expected a boolean (true or false), got \"true\"");
  CHECK(err(R"({"activities": ["CPU", "GPU"]})") ==
        "profiler_config.json: activities: expected an array of \"CPU\" and/or \"NPU\", got [\"CPU\", \"GPU\"]");
  CHECK(err(R"({"activities": "CPU"})") ==
        "profiler_config.json: activities: expected an array of strings, got \"CPU\"");
  CHECK(err(R"({"rank_list": [0, -1]})") ==
        "profiler_config.json: rank_list: expected an array of integers >= 0, got [0, -1]");
  CHECK(err(R"({"experimental_config": {"aic_metrics": 3}})") ==
        "profiler_config.json: experimental_config.aic_metrics: expected a string, got 3");
  CHECK(err(R"({"experimental_config": {"profiler_level": "Level3"}})") ==
        "profiler_config.json: experimental_config.profiler_level: expected one of Level_none, Level0, Level1, "
        "Level2, got \"Level3\"");
  CHECK(err(R"({"experimental_config": {"export_type": ["csv"]}})") ==
        "profiler_config.json: experimental_config.export_type: expected \"text\", \"db\" or a list of them, got "
        "[\"csv\"]");
  CHECK(err(R"({"experimental_config": {"mstx_domain_include": "a,b"}})") ==
        "profiler_config.json: experimental_config.mstx_domain_include: expected an array of strings, got \"a,b\"");
  CHECK(err(R"({"experimental_config": {"gc_detect_threshold": "x"}})") ==
        "profiler_config.json: experimental_config.gc_detect_threshold: expected null or a number >= 0, got \"x\"");
  CHECK(err(R"({"experimental_config": {"host_sys": ["cpu", "gpu"]}})") ==
        "profiler_config.json: config: host_sys 'gpu' is not one of cpu, mem, disk, network, osrt, numa");
  CHECK(err(R"({"experimental_config": {"host_sys_usage_freq": 51}})") ==
        "profiler_config.json: experimental_config.host_sys_usage_freq: expected an integer from 1 to 50, got 51");
  CHECK(err(R"({"experimental_config": 1})") == "profiler_config.json: experimental_config: expected an object, got 1");
  CHECK(err(R"({"metadata": []})") == "profiler_config.json: metadata: expected an object, got []");
  CHECK(err(R"({"prof_dir": "my prof"})").find("profiler_config.json: config: output path 'my prof'") == 0);
}

TEST_CASE("config files: experimental_config.host_sys_usage_freq sets the host sampling period (CANN's name)") {
  std::vector<std::string> warnings;
  auto r = session::parse_profiler_config(R"({"experimental_config": {"host_sys": ["cpu"], "host_sys_usage_freq": 10}})",
                                          "profiler_config.json", [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(r.has_value());
  CHECK(warnings.empty());
  CHECK(r->session.host_sys_usage_freq == 10);
  CHECK(prof::host_sampler::period_of(r->session.host_sys_usage_freq) == std::chrono::milliseconds(100));
  session::session_config c;
  CHECK(prof::host_sampler::period_of(c.host_sys_usage_freq) == std::chrono::milliseconds(20));
  c.host_sys_usage_freq = 0;
  CHECK_FALSE(session::validate(c).has_value());
}
