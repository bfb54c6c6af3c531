// SPDX-License-Identifier: MIT
// The launcher's --layout: a program using msprof::record_function run with
// --layout=ascend_pt leaves torch_npu's {worker}_{pid}_{ts}_ascend_pt directory
// (PROF_, FRAMEWORK/, profiler_info), analysed into ASCEND_PROFILER_OUTPUT/
// with its ops and steps on the threads that ran them; ascend_ms names it as
// MindSpore does; an unknown layout is refused before anything runs.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <msprof/codec/framework.hpp>
#include <msprof/core/json.hpp>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;
namespace fw = msprof::codec::framework;

#if defined(MSPROF_TEST_CLI) && defined(MSPROF_TEST_INJECTION_LIB) && defined(MSPROF_TEST_APP)
namespace {

using namespace msprof_cli_test;

fs::path only_dir_in(const fs::path& out) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(out)) v.push_back(e.path());
  REQUIRE(v.size() == 1);
  return v[0];
}

// As in cli_test.cpp: no LeakSanitizer in the application (its tracer crashes
// on the injection library's dynamic TLS); no effect without sanitizers.
std::string app(const std::string& args) {
  return std::string("--application=env ASAN_OPTIONS=detect_leaks=0 ") + MSPROF_TEST_APP + " " + args;
}

}  // namespace

TEST_CASE("cli: --layout=ascend_pt: record_function ops become an ascend_pt directory analysed into ASCEND_PROFILER_OUTPUT") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(), "--layout=ascend_pt", app("framework")});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  const fs::path dir = only_dir_in(out);
  CHECK(std::regex_match(dir.filename().string(), std::regex(".+_[0-9]+_[0-9]{17}_ascend_pt")));
  CHECK(!prof_dir_in(dir).empty());
  CHECK(fs::exists(dir / "profiler_info.json"));
  CHECK(fs::exists(dir / "profiler_metadata.json"));
  CHECK(r.out.find("operator_details.csv") != std::string::npos);

  fw::records rec;
  std::vector<std::string> warnings;
  for (const char* f : {"torch.op_range", "torch.op_mark", "torch.memory_usage"}) {
    const std::string b = slurp(dir / "FRAMEWORK" / f);
    REQUIRE(!b.empty());
    fw::decode(fw::kind_of(f), reinterpret_cast<const unsigned char*>(b.data()), b.size(), f, rec, warnings);
  }
  CHECK(warnings.empty());
  std::map<std::string, std::vector<const fw::op_range*>> ops;
  for (const auto& o : rec.ops) ops[o.name].push_back(&o);
  REQUIRE(ops["aten::mm"].size() == 2);
  REQUIRE(ops["MmBackward0"].size() == 2);
  REQUIRE(ops["ProfilerStep#1"].size() == 1);
  const std::uint64_t main_tid = ops["aten::mm"][0]->start_tid;
  CHECK(ops["ProfilerStep#1"][0]->start_tid == main_tid);
  CHECK(ops["aten::mm"][0]->input_shapes == "8,16;16,32");
  for (const auto* b : ops["MmBackward0"]) {
    CHECK(b->start_tid != main_tid);
    CHECK(b->fwd_tid == main_tid);
  }
  CHECK(rec.marks.size() == 8);
  CHECK(rec.memory.size() == 6);

  const auto details = slurp(dir / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv");
  CHECK(details.find("aten::mm,\"8,16;\r\n16,32\"") != std::string::npos);
  CHECK(details.find("MmBackward0,") != std::string::npos);
  CHECK(details.find("ProfilerStep#") == std::string::npos);  // steps are not operators
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "analyse.done"));
  CHECK(r.err.find("warning") == std::string::npos);  // every call accounted for

  // trace_view.json: the steps and ops as cpu_op slices on the threads that ran
  // them, a flow from each enqueue to its dequeue and from each forward op to
  // its backward op (the launched program has no device: no kernels, no
  // torch_to_npu flows).
  auto trace = msprof::json::parse(slurp(dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"), "trace_view.json");
  REQUIRE_MESSAGE(trace.has_value(), trace.err().message);
  std::map<std::string, std::set<std::uint64_t>> op_threads;
  std::map<std::string, std::size_t> flow_ends;  // "<name> <ph>"
  for (const auto& e : trace->items()) {
    const std::string ph = e.get("ph").as_string_or(""), name = e.get("name").as_string_or("");
    std::uint64_t tid = 0;
    e.get("tid").to_uint64(tid);
    if (ph == "X" && e.get("cat").as_string_or("") == "cpu_op") op_threads[name].insert(tid);
    if (ph == "s" || ph == "f") ++flow_ends[name + " " + ph];
  }
  CHECK(op_threads["ProfilerStep#1"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["ProfilerStep#2"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["aten::mm"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["MmBackward0"] ==
        std::set<std::uint64_t>{ops["MmBackward0"][0]->start_tid, ops["MmBackward0"][1]->start_tid});
  for (const char* flow : {"enqueue_to_dequeue", "fwdbwd"}) {
    CAPTURE(flow);
    CHECK(flow_ends[std::string(flow) + " s"] == 2);
    CHECK(flow_ends[std::string(flow) + " f"] == 2);
  }
}

TEST_CASE("cli: --record-shapes, --with-stack and --profile-memory=off drop what torch_npu's switches drop") {
  sandbox s;
  const auto out = s.root / "out";
  for (const std::string state : {"on", "off"}) {
    CAPTURE(state);
    const auto dir_out = out / state;
    auto r = s.run({"--output=" + dir_out.string(), "--layout=ascend_pt", "--record-shapes=" + state, "--with-stack=" + state,
                    "--profile-memory=" + state, app("framework")});
    CAPTURE(r.err);
    REQUIRE(r.rc == 0);
    const fs::path dir = only_dir_in(dir_out);
    fw::records rec;
    std::vector<std::string> warnings;
    for (const char* f : {"torch.op_range", "torch.memory_usage"}) {
      const std::string b = fs::exists(dir / "FRAMEWORK" / f) ? slurp(dir / "FRAMEWORK" / f) : std::string();
      fw::decode(fw::kind_of(f), reinterpret_cast<const unsigned char*>(b.data()), b.size(), f, rec, warnings);
    }
    CHECK(warnings.empty());
    const bool on = state == "on";
    bool mm = false;
    for (const auto& o : rec.ops) {
      if (o.name != "aten::mm") continue;
      mm = true;
      CHECK(o.input_shapes == (on ? "8,16;16,32" : ""));
      CHECK(o.call_stack == (on ? "app.cpp(1): main" : ""));
    }
    CHECK(mm);
    CHECK(rec.memory.size() == (on ? 6u : 0u));
    auto info = msprof::json::parse(slurp(dir / "profiler_info.json"), "profiler_info.json");
    REQUIRE(info.has_value());
    const auto& common = info->get("config").get("common_config");
    for (const char* key : {"record_shapes", "with_stack", "profile_memory"}) {
      CAPTURE(key);
      CHECK(common.get(key).is_bool());
      CHECK(common.get(key).as_bool() == on);
    }
  }
  // Not on or off: refused before anything runs.
  auto r = s.run({"--output=" + out.string(), "--layout=ascend_pt", "--with-stack=yes", app("framework")});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--with-stack") != std::string::npos);
}

TEST_CASE("cli: --layout=ascend_ms names the directory as MindSpore does, --export=off leaves it unanalysed") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(), "--layout=ascend_ms", "--export=off", app("framework")});
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  const fs::path dir = only_dir_in(out);
  CHECK(std::regex_match(dir.filename().string(), std::regex(".+_[0-9]+_[0-9]{17}_ascend_ms")));
  CHECK(r.out.find(dir.string()) != std::string::npos);
  CHECK(fs::exists(dir / "FRAMEWORK" / "torch.op_range"));
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT"));
}

TEST_CASE("cli: --layout with an unknown name is a usage error and runs nothing") {
  sandbox s;
  const auto out = s.root / "out";
  auto r = s.run({"--output=" + out.string(), "--layout=ascend", app("framework")});
  CHECK(r.rc == 2);
  CHECK(r.err.find("--layout") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
#endif
