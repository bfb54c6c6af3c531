// SPDX-License-Identifier: MIT
// The profiler session end to end: schedule windows become PROF_ directories
// holding exactly the recorded steps' marks, steps and device work; metadata;
// configuration errors; the export handler.
#include <msprof/prof/reader.hpp>
#include <msprof/session/config_files.hpp>
#include <msprof/session/session.hpp>
#include <msprof/session/export_handler.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/show.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/timeline.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/model_testing.hpp"
#include "../../support/temp_dir.hpp"

namespace session = msprof::session;
namespace convert = msprof::convert;
namespace fs = std::filesystem;

namespace {

msprof::device::op_desc op_named(std::string name, std::string type) {
  msprof::device::op_desc op;
  op.name = std::move(name);
  op.type = std::move(type);
  return op;
}

session::session_config config_in(const temp_dir& t) {
  session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  return c;
}

}  // namespace

TEST_CASE("session: each active window of the schedule is one PROF_ directory with exactly its steps") {
  temp_dir t;
  std::vector<std::string> ready;
  session::profiler prof(config_in(t), session::schedule{1, 2, 1, 2, 1},
                         [&](const std::string& dir) { ready.push_back(dir); });
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(static_cast<bool>(prof.start()));
  auto stream = prof.device().create_stream();
  REQUIRE(static_cast<bool>(stream));
  for (int step = 0; step < 10; ++step) {
    const std::string text = "work of step " + std::to_string(step);
    mstxMarkA(text.c_str(), nullptr);
    msprof::device::op_desc op = op_named("MatMul_" + std::to_string(step), "MatMul");
    op.flops = 1e9;
    REQUIRE(static_cast<bool>(prof.device().launch(*stream, op)));
    if (step < 9) REQUIRE(static_cast<bool>(prof.step()));
  }
  REQUIRE(static_cast<bool>(prof.stop()));
  CHECK(warnings.empty());

  REQUIRE(ready.size() == 2);
  CHECK(prof.saved_dirs() == ready);
  const std::vector<std::vector<int>> window_steps{{3, 4}, {7, 8}};
  for (std::size_t w = 0; w < 2; ++w) {
    CAPTURE(ready[w]);
    CHECK(fs::path(ready[w]).parent_path() == t.path);
    const convert::model m = load(ready[w]);
    std::multiset<std::string> want_marks, want_steps;
    std::set<std::string> want_ops;
    for (int s : window_steps[w]) {
      want_marks.insert("work of step " + std::to_string(s));
      want_steps.insert("ProfilerStep#" + std::to_string(s));
      want_ops.insert("MatMul_" + std::to_string(s));
    }
    CHECK(messages(m, "default") == want_marks);
    CHECK(messages(m, "ProfilerStep") == want_steps);
    std::set<std::string> ops;
    for (const auto& task : m.tasks)
      if (task.op) ops.insert(task.op->name);
    CHECK(ops == want_ops);
    CHECK(m.has_device());
    CHECK(m.warnings.empty());
    // Steps are ranges in order, each inside the window's session time.
    std::int64_t last_end = 0;
    for (const auto& e : m.mstx) {
      if (e.domain != "ProfilerStep") continue;
      CHECK(e.end_ns > e.start_ns);
      CHECK(e.start_ns >= last_end);
      last_end = e.end_ns;
    }
  }
}

TEST_CASE("session: without a schedule every step is recorded into one directory handed over at stop()") {
  temp_dir t;
  int calls = 0;
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  session::profiler prof(cfg, std::nullopt, [&](const std::string&) { ++calls; });
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(static_cast<bool>(prof.start()));
  for (int step = 0; step < 3; ++step) {
    msprof::scoped_range r{"step body"};
    REQUIRE(static_cast<bool>(prof.step()));
  }
  CHECK(calls == 0);
  REQUIRE(static_cast<bool>(prof.stop()));
  CHECK(calls == 1);
  REQUIRE(prof.saved_dirs().size() == 1);
  const convert::model m = load(prof.saved_dirs()[0]);
  CHECK_FALSE(m.has_device());
  CHECK(messages(m, "ProfilerStep") ==
        std::multiset<std::string>{"ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"});
  CHECK(messages(m, "default").count("step body") == 3);
  CHECK(warnings.empty());  // without a schedule, stop() is the normal end of the window
  // A second stop() does nothing; the profiler can start again.
  CHECK(static_cast<bool>(prof.stop()));
  CHECK(calls == 1);
}

TEST_CASE("session: stop() in the middle of a window saves it and warns, as torch_npu does") {
  temp_dir t;
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  int ready = 0;
  session::profiler prof(cfg, session::schedule{0, 3}, [&](const std::string&) { ++ready; });
  std::vector<std::string> warnings;
  prof.on_warning([&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(static_cast<bool>(prof.start()));
  REQUIRE(static_cast<bool>(prof.step()));
  CHECK(prof.current_action() == session::profiler_action::record);
  REQUIRE(static_cast<bool>(prof.stop()));
  CHECK(ready == 1);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "stop() while the schedule's action is RECORD: the window is saved incomplete");
  const convert::model m = load(prof.saved_dirs().at(0));
  CHECK(messages(m, "ProfilerStep") == std::multiset<std::string>{"ProfilerStep#0", "ProfilerStep#1"});
}

TEST_CASE("session: record_shapes decides whether op shapes are recorded / import says simulated, no losses") {
  for (const bool shapes : {false, true}) {
    CAPTURE(shapes);
    temp_dir t;
    session::session_config cfg = config_in(t);
    cfg.record_shapes = shapes;
    session::profiler prof(cfg);
    REQUIRE(static_cast<bool>(prof.start()));
    auto stream = prof.device().create_stream();
    REQUIRE(static_cast<bool>(stream));
    msprof::device::op_desc op = op_named("Add_0", "Add");
    msprof::device::tensor_desc x;
    x.shape = {8, 16};
    op.inputs = {x, x};
    op.outputs = {x};
    REQUIRE(static_cast<bool>(prof.device().launch(*stream, op)));
    REQUIRE(static_cast<bool>(prof.stop()));
    REQUIRE(prof.saved_dirs().size() == 1);
    const convert::model m = load(prof.saved_dirs()[0]);
    REQUIRE(m.tasks.size() == 1);
    REQUIRE(m.tasks[0].op);
    CHECK(m.tasks[0].op->tensors.size() == (shapes ? 3u : 0u));
    const std::string summary = convert::collection_summary(m);
    CHECK(summary.find("1 device tasks") != std::string::npos);
    CHECK(summary.find("; no losses") != std::string::npos);
    CHECK(summary.find("SIMULATED device") != std::string::npos);
  }
}

TEST_CASE("session: profiler_metadata.json holds metadata and the recorded environment variables") {
  temp_dir t;
  ::setenv("HCCL_RDMA_TC", "132", 1);
  ::unsetenv("HCCL_RDMA_SL");
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  session::profiler prof(cfg);
  prof.add_metadata("model", "resnet50");
  REQUIRE(static_cast<bool>(prof.add_metadata_json("parallel", R"({"dp": 8, "tp": [1, 2]})")));
  auto bad = prof.add_metadata_json("broken", "{\"dp\": ");
  REQUIRE_FALSE(static_cast<bool>(bad));
  CHECK(bad.err().message.find("add_metadata_json(broken)") != std::string::npos);
  REQUIRE(static_cast<bool>(prof.start()));
  REQUIRE(static_cast<bool>(prof.stop()));
  ::unsetenv("HCCL_RDMA_TC");
  REQUIRE(prof.saved_dirs().size() == 1);
  const std::string text = read_text(fs::path(prof.saved_dirs()[0]) / "profiler_metadata.json");
  auto v = msprof::json::parse(text);
  REQUIRE(static_cast<bool>(v));
  CHECK(v->get("model").as_string_or("") == "resnet50");
  CHECK(v->get("parallel").get("dp").uint_or(0) == 8);
  CHECK(v->get("parallel").get("tp").size() == 2);
  CHECK(v->find("broken") == nullptr);
  CHECK(v->get("ENV_VARIABLES").get("HCCL_RDMA_TC").as_string_or("") == "132");
  CHECK(v->get("ENV_VARIABLES").find("HCCL_RDMA_SL") == nullptr);
}

TEST_CASE("session: configuration errors name the field / path rules") {
  temp_dir t;
  auto start_error = [&](session::session_config c) {
    session::profiler prof(c);
    auto r = prof.start();
    return r ? std::string() : r.err().message;
  };
  session::session_config c = config_in(t);
  c.aic_metrics = "PipeUtilisation";
  CHECK(start_error(c).find("aic_metrics 'PipeUtilisation'") != std::string::npos);
  c = config_in(t);
  c.cpu = c.npu = false;
  CHECK(start_error(c).find("activities") != std::string::npos);
  c = config_in(t);
  c.output = t.path + "/bad dir";
  CHECK(start_error(c).find("character ' ' is not allowed") != std::string::npos);
  c = config_in(t);
  fs::create_directory_symlink(t.path, t / "link");
  c.output = (t / "link").string();  // the output directory itself: never a link
  CHECK(start_error(c).find("'" + c.output + "' is a symbolic link") != std::string::npos);
  // Above it the path is the user's (links allowed), as for the launcher's --output.
  CHECK(session::check_output_path((t / "link" / "out").string()).empty());
  CHECK(session::check_output_path((t / "link" / "out").string() + "/").empty());
  CHECK(session::canonical_aic_metrics("ACL_AICORE_PIPE_UTILIZATION") == "PipeUtilization");
  CHECK(session::canonical_aic_metrics("nonsense").empty());
  CHECK(session::parse_profiler_level("Level1") == session::profiler_level::level1);
  CHECK_FALSE(session::parse_profiler_level("Level3").has_value());
}

TEST_CASE("session: umask 077 is kept: directories 0700, files 0600 (never loosened to 0750/0640)") {
  temp_dir t;
  const mode_t old = ::umask(077);
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  {
    session::profiler prof(cfg);
    REQUIRE(static_cast<bool>(prof.start()));
    mstxMarkA("umask", nullptr);
    REQUIRE(static_cast<bool>(prof.stop()));
  }
  ::umask(old);
  int checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(t.path)) {
    const auto perms = e.status().permissions() & fs::perms::all;
    CAPTURE(e.path().string());
    if (e.is_directory()) CHECK(perms == fs::perms::owner_all);
    else CHECK(perms == (fs::perms::owner_read | fs::perms::owner_write));
    ++checked;
  }
  CHECK(checked > 5);
}

TEST_CASE("session: the export handler exports each window (sync and async)") {
  for (auto mode : {session::export_mode::sync, session::export_mode::async}) {
    temp_dir t;
    session::export_handler handler({}, mode);
    session::session_config cfg = config_in(t);
    session::profiler prof(cfg, session::schedule{0, 1, 0, 2}, handler);
    REQUIRE(static_cast<bool>(prof.start()));
    auto s = prof.device().create_stream();
    REQUIRE(static_cast<bool>(s));
    for (int step = 0; step < 3; ++step) {
      REQUIRE(static_cast<bool>(prof.device().launch(*s, op_named("Add_" + std::to_string(step), "Add"))));
      mstxMarkA("exported mark", session::profiler::stream_handle(*s));
      REQUIRE(static_cast<bool>(prof.step()));
    }
    REQUIRE(static_cast<bool>(prof.stop()));
    CHECK(handler.wait().empty());
    const auto dirs = prof.saved_dirs();
    REQUIRE(dirs.size() == 2);
    CHECK(handler.exported().size() == 2);
    for (const auto& d : dirs) {
      CAPTURE(d);
      int timelines = 0, chrome_traces = 0, op_summaries = 0, dbs = 0;
      for (const auto& e : fs::directory_iterator(fs::path(d) / "mindstudio_profiler_output")) {
        const std::string n = e.path().filename().string();
        timelines += n.rfind("msprof_", 0) == 0 && e.path().extension() == ".json" && n.rfind("msprof_tx", 0) != 0;
        chrome_traces += n.rfind("chrome_trace_", 0) == 0;
        op_summaries += n.rfind("op_summary_", 0) == 0;
      }
      for (const auto& e : fs::directory_iterator(d)) dbs += e.path().extension() == ".db";
      CHECK(timelines == 1);
      CHECK(chrome_traces == 1);  // something a viewer draws, by default
      CHECK(op_summaries == 1);
      CHECK(dbs == 1);
    }
  }
}

TEST_CASE("session: export_type and data_simplification choose what the export handler writes") {
  using session::export_type;
  const std::vector<std::vector<export_type>> choices{{export_type::text}, {export_type::db},
                                                      {export_type::text, export_type::db}};
  for (const auto& types : choices) {
    temp_dir t;
    session::session_config cfg = config_in(t);
    cfg.npu = false;
    cfg.export_types = types;
    const convert::export_options o = session::export_options_for(cfg);
    CHECK(o.clear == cfg.data_simplification);
    session::export_handler handler(o);
    session::profiler prof(cfg, std::nullopt, handler);
    REQUIRE(static_cast<bool>(prof.start()));
    mstxMarkA("a mark", nullptr);
    REQUIRE(static_cast<bool>(prof.stop()));
    REQUIRE(handler.exported().size() == 1);
    const fs::path d = handler.exported()[0];
    const bool text = std::find(types.begin(), types.end(), export_type::text) != types.end();
    const bool db = std::find(types.begin(), types.end(), export_type::db) != types.end();
    int dbs = 0;
    for (const auto& e : fs::directory_iterator(d)) dbs += e.path().extension() == ".db";
    CHECK(dbs == (db ? 1 : 0));
    CHECK(fs::exists(d / "mindstudio_profiler_output") == text);
  }
}

TEST_CASE("session: mstx memory registrations are written to the PROF_ directory and read back") {
  temp_dir t;
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  session::profiler prof(cfg, std::nullopt, nullptr);
  REQUIRE(static_cast<bool>(prof.start()));
  static char pool[8192];
  mstxDomainHandle_t domain = mstxDomainCreateA("allocator");
  mstxMemVirtualRangeDesc_t range{2, pool, sizeof pool};
  mstxMemHeapDesc_t desc{MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &range};
  mstxMemHeapHandle_t heap = mstxMemHeapRegister(domain, &desc);
  REQUIRE(heap != nullptr);
  mstxMemVirtualRangeDesc_t region{2, pool + 256, 512};
  mstxMemRegionHandle_t handle = nullptr;
  mstxMemRegionsRegisterBatch_t batch{heap, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, 1, &region, &handle};
  mstxMemRegionsRegister(domain, &batch);
  REQUIRE(handle != nullptr);
  mstxMemRegionRef_t ref;
  ref.refType = MSTX_MEM_REGION_REF_TYPE_HANDLE;
  ref.handle = handle;
  mstxMemRegionsUnregisterBatch_t unreg{1, &ref};
  mstxMemRegionsUnregister(domain, &unreg);
  mstxMemHeapUnregister(domain, heap);
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(prof.saved_dirs().size() == 1);

  auto r = msprof::prof::prof_reader::open(prof.saved_dirs()[0]);
  REQUIRE(static_cast<bool>(r));
  struct seen {
    int op;
    std::uint64_t address, size, heap;
    std::uint32_t device;
    std::string domain;
  };
  std::vector<seen> got;
  std::uint64_t last_time = 0;
  REQUIRE(static_cast<bool>(r->for_each_mstx_mem([&](const auto& rec) {
    const msprof::codec::MstxMemInfo& m = rec.payload;
    got.push_back({m.op, m.address, m.size, m.heap, m.deviceId, r->lookup(m.domain)});
    CHECK(rec.head.timeStamp >= last_time);
    last_time = rec.head.timeStamp;
  })));
  const auto base = reinterpret_cast<std::uintptr_t>(pool);
  REQUIRE(got.size() == 4);
  CHECK(got[0].op == 0);  // heap register
  CHECK(got[0].address == base);
  CHECK(got[0].size == sizeof pool);
  CHECK(got[1].op == 2);  // region register, inside heap got[0]
  CHECK(got[1].address == base + 256);
  CHECK(got[1].size == 512);
  CHECK(got[1].heap != 0);
  CHECK(got[2].op == 3);
  CHECK(got[3].op == 1);
  for (const auto& g : got) {
    CHECK(g.device == 2);
    CHECK(g.domain == "allocator");
  }

  // The converter loads them (wall-clock times inside the collection) and
  // writes the mstx_mem summary.
  const convert::model m = load(prof.saved_dirs()[0]);
  REQUIRE(m.mstx_mem.size() == 4);
  for (const auto& e : m.mstx_mem) {
    CHECK(e.ts_ns >= m.session.start_ns);
    CHECK(e.ts_ns <= m.session.end_ns);
  }
  const convert::table* mem = nullptr;
  const auto tables = convert::all_summaries(m);
  for (const auto& t : tables)
    if (t.name == "mstx_mem") mem = &t;
  REQUIRE(mem != nullptr);
  REQUIRE(mem->rows.size() == 4);
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(base + 256));
  const std::vector<std::string>& row = mem->rows[1];
  CHECK(row[2] == "allocator");
  CHECK(row[3] == "region_register");
  CHECK(row[6] == hex);
  CHECK(row[7] == "512");
  CHECK(row[8] == "2");
  CHECK(mem->rows[3][3] == "heap_unregister");
}

TEST_CASE("session: counted losses are visible in the timeline as a slice over the whole collection") {
  temp_dir t;
  session::session_config cfg = config_in(t);
  cfg.npu = false;
  session::profiler prof(cfg, std::nullopt, nullptr);
  REQUIRE(static_cast<bool>(prof.start()));
  mstxMarkA("kept", nullptr);
  mstxMarkA("=rejected: CSV-injection guard", nullptr);
  mstxMarkA("", nullptr);
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(prof.saved_dirs().size() == 1);
  const convert::model m = load(prof.saved_dirs()[0]);
  std::uint64_t rejected = 0;
  for (const auto& [what, n] : m.session.losses)
    if (what == "rejected") rejected = n;
  CHECK(rejected == 2);
  const auto events = convert::build_timeline(m);
  const convert::trace_event* note = nullptr;
  for (const auto& e : events)
    if (e.ph == 'X' && e.name.rfind("msprof: ", 0) == 0) note = &e;
  REQUIRE(note != nullptr);
  CHECK(note->name == "msprof: 2 events lost, the timeline is incomplete");
  CHECK(note->ts_ns == m.session.start_ns);
  CHECK(note->ts_ns + note->dur_ns == m.session.end_ns);
  REQUIRE(note->args.size() == 1);
  CHECK(note->args[0].key == "rejected");
  CHECK(note->args[0].i == 2);
  // The summaries carry them too: msprof_losses, one row per nonzero counter.
  const auto tables = convert::all_summaries(m);
  const convert::table* losses = nullptr;
  for (const auto& t : tables)
    if (t.name == "msprof_losses") losses = &t;
  REQUIRE(losses != nullptr);
  REQUIRE(losses->rows.size() == 1);
  CHECK(losses->rows[0][0] == "rejected");
  CHECK(losses->rows[0][1] == "2");
  // Without losses there is no note (the golden comparisons rely on it too).
  convert::model clean = m;
  clean.session.losses.clear();
  for (const auto& e : convert::build_timeline(clean)) CHECK(e.name.rfind("msprof: ", 0) != 0);
  for (const auto& t : convert::all_summaries(clean)) CHECK(t.name != "msprof_losses");
}

TEST_CASE("session: TensorFlow's training trace puts FP/BP of each step into step_trace") {
  struct points {
    std::string fp, bp;           // profiling_options fp_point / bp_point
    std::string fp_op, bp_op;     // the ops whose task start / end they must be
  };
  // Named points, then empty ones (the step's first and last kernel).
  for (const points& p : {points{"conv1", "AddN_70", "conv1", "AddN_70"}, points{"", "", "data_0", "ApplyMomentum_0"}}) {
    CAPTURE(p.fp);
    temp_dir t;
    const std::string options = R"({"training_trace": "on", "fp_point": ")" + p.fp + R"(", "bp_point": ")" + p.bp + "\"}";
    auto parsed = session::parse_profiling_options(options);
    REQUIRE(static_cast<bool>(parsed));
    session::session_config cfg = *parsed;
    cfg.output = t.path;
    cfg.drain_interval = std::chrono::milliseconds(5);
    session::profiler prof(cfg);
    REQUIRE(static_cast<bool>(prof.start()));
    auto stream = prof.device().create_stream();
    REQUIRE(static_cast<bool>(stream));
    const int steps = 3;
    for (int step = 0; step < steps; ++step) {
      for (const char* name : {"data_0", "conv1", "relu1", "AddN_70", "ApplyMomentum_0"}) {
        msprof::device::op_desc op = op_named(name, "Op");
        op.flops = 1e8;
        REQUIRE(static_cast<bool>(prof.device().launch(*stream, op)));
      }
      if (step + 1 < steps) REQUIRE(static_cast<bool>(prof.step()));
    }
    REQUIRE(static_cast<bool>(prof.stop()));
    REQUIRE(prof.saved_dirs().size() == 1);
    const convert::model m = load(prof.saved_dirs()[0]);
    CHECK(m.warnings.empty());
    REQUIRE(m.iterations.size() == steps);
    // The tasks of each op in time order: step k's task is the k-th.
    auto spans = [&](const std::string& name) {
      std::vector<std::pair<std::int64_t, std::int64_t>> v;
      for (const auto& task : m.tasks)
        if (task.op && task.op->name == name) v.emplace_back(task.start_ns, task.end_ns);
      std::sort(v.begin(), v.end());
      return v;
    };
    // Each task runs inside its step's ModelExecute call: model 1.
    for (const auto& task : m.tasks) CHECK(task.model_id == 1);
    const auto fp = spans(p.fp_op), bp = spans(p.bp_op);
    REQUIRE(fp.size() == steps);
    REQUIRE(bp.size() == steps);
    for (std::size_t k = 0; k < m.iterations.size(); ++k) {
      const auto& it = m.iterations[k];
      CAPTURE(k);
      CHECK(it.model_id == 1);
      CHECK(it.iteration_id == k + 1);
      CHECK(it.fp_ns == fp[k].first);
      CHECK(it.bp_ns == bp[k].second);
      CHECK(it.start_ns <= it.fp_ns);
      CHECK(it.bp_ns <= it.end_ns);
      if (k > 0) CHECK(it.data_aug_ns == it.fp_ns - m.iterations[k - 1].end_ns);
    }
    // step_trace's CSV has the FP/BP figures, not N/A.
    convert::export_options eo;
    eo.timestamp = "20260101000000";
    auto r = convert::export_summary(prof.saved_dirs()[0], eo);
    REQUIRE_MESSAGE(static_cast<bool>(r), (r ? "" : r.err().message));
    const auto csv = fs::path(prof.saved_dirs()[0]) / "mindstudio_profiler_output" / "step_trace_20260101000000.csv";
    std::ifstream in(csv);
    REQUIRE(in.good());
    auto cells = [&in] {
      std::string line;
      std::getline(in, line);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::vector<std::string> v;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) v.push_back(c);
      return v;
    };
    const auto header = cells();
    for (int k = 0; k < steps; ++k) {
      const auto row = cells();
      REQUIRE(row.size() == header.size());
      for (std::size_t c = 0; c < header.size(); ++c) {
        CAPTURE(header[c]);
        if (header[c] == "Model ID") CHECK(row[c] == "1");
        if (header[c] == "FP to BP Time(us)") CHECK(std::stod(row[c]) > 0);
        if (header[c] != "Data Aug Bound(us)" || k > 0) CHECK(row[c] != "N/A");  // no iteration before the first
      }
    }
  }
}
