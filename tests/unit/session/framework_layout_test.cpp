// SPDX-License-Identifier: MIT
// The session's ascend_pt / ascend_ms layouts: msprof::record_function ops,
// task-queue marks and allocator events land in FRAMEWORK/ as torch_npu's
// records (decoded back with codec/framework.hpp) on the threads that made
// them, next to the PROF_ directory, profiler_info and profiler_metadata.json;
// `msprof analyse` (convert::ascend_pt::analyse) turns the directory into
// operator_details.csv and step_trace_time.csv with those ops and steps.
#include <msprof/codec/framework.hpp>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/core/json.hpp>
#include <msprof/framework.hpp>
#include <msprof/mstx.hpp>
#include <msprof/session/export_handler.hpp>
#include <msprof/session/session.hpp>

#include <doctest/doctest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace session = msprof::session;
namespace fw = msprof::codec::framework;
namespace fs = std::filesystem;

namespace {

std::uint64_t this_tid() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fw::records decode_framework(const fs::path& dir, std::vector<std::string>& warnings) {
  fw::records rec;
  for (const char* f : {"torch.op_range", "torch.op_mark", "torch.memory_usage"}) {
    const std::string b = slurp(dir / "FRAMEWORK" / f);
    fw::decode(fw::kind_of(f), reinterpret_cast<const unsigned char*>(b.data()), b.size(), f, rec, warnings);
  }
  return rec;
}

/// CSV rows: cells split at commas outside quotes, rows at line ends outside
/// quotes (torch_npu writes one call-stack frame a line inside a cell).
std::vector<std::vector<std::string>> csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (char c : slurp(p)) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) cells.emplace_back();
    else if (c == '\n' && !quoted) rows.push_back(std::exchange(cells, std::vector<std::string>(1)));
    else if (c != '\r' || quoted) cells.back() += c;
  }
  return rows;
}

// One training step: an op with attributes whose inner op hands a kernel to a
// worker thread through the task queue, a backward op on that thread, and an
// allocation freed again.
void train_step(session::profiler& prof, msprof::device::stream_id stream, std::uint64_t step) {
  const std::uint64_t main_tid = this_tid();
  msprof::op_attributes a;
  a.input_dtypes = "float;float";
  a.input_shapes = "2,3;3,4";
  a.call_stack = "train.cpp(10): main;model.cpp(20): forward";
  a.sequence_nr = static_cast<std::int64_t>(10 + step);
  msprof::record_function matmul("aten::matmul", a);
  {
    msprof::record_function mm("aten::mm");
    const std::uint64_t corr = step + 1;
    { msprof::scoped_enqueue q("aten::mm", corr); }
    std::thread worker([&] {
      msprof::scoped_dequeue d("aten::mm", corr);
      msprof::op_attributes b;
      b.sequence_nr = a.sequence_nr;
      b.fwd_thread_id = main_tid;
      msprof::record_function backward("MmBackward0", b);
      msprof::device::op_desc op;
      op.name = "MatMul_" + std::to_string(step);
      op.type = "MatMul";
      op.flops = 1e9;
      CHECK(static_cast<bool>(prof.device().launch(stream, op)));
    });
    worker.join();
  }
  msprof::memory_event m;
  m.ptr = 4096;
  m.alloc_size = 1 << 20;
  m.total_allocated = m.total_active = 1 << 20;
  m.total_reserved = 2 << 20;
  msprof::record_memory(m);
  m.data_type = 1;  // the free
  m.alloc_size = -(1 << 20);
  m.total_allocated = 0;
  msprof::record_memory(m);
  m.data_type = 2;  // the block free
  m.total_active = 0;
  msprof::record_memory(m);
}

}  // namespace

TEST_CASE("framework layout: record_function, queue marks and memory events become an analysable ascend_pt directory") {
  temp_dir t;
  session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  c.layout = session::output_layout::ascend_pt;
  c.worker_name = "worker0";
  c.record_shapes = c.with_stack = c.profile_memory = true;
  c.host_sys = {"mem", "cpu"};
  std::vector<std::string> ready;
  session::profiler prof(c, std::nullopt, [&](const std::string& d) { ready.push_back(d); });
  prof.add_metadata("note", "framework layout test");
  REQUIRE(static_cast<bool>(prof.start()));
  auto stream = prof.device().create_stream();
  REQUIRE(static_cast<bool>(stream));
  const std::uint64_t main_tid = this_tid();
  for (std::uint64_t step = 0; step < 2; ++step) {
    train_step(prof, *stream, step);
    REQUIRE(static_cast<bool>(prof.step()));
  }
  REQUIRE(static_cast<bool>(prof.stop()));
  { msprof::record_function after("not_recorded"); CHECK_FALSE(after.active()); }

  REQUIRE(ready.size() == 1);
  const fs::path dir = ready[0];
  CHECK(dir.parent_path() == fs::path(t.path));
  const std::string name = dir.filename().string();
  CHECK(std::regex_match(name, std::regex("worker0_" + std::to_string(::getpid()) + "_[0-9]{17}_ascend_pt")));
  std::vector<fs::path> profs, infos;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("PROF_", 0) == 0) profs.push_back(e.path());
    if (n.rfind("profiler_info", 0) == 0) infos.push_back(e.path());
  }
  REQUIRE(profs.size() == 1);
  REQUIRE(infos.size() == 1);
  CHECK(fs::exists(dir / "profiler_metadata.json"));
  CHECK(slurp(dir / "profiler_metadata.json").find("framework layout test") != std::string::npos);
  const std::string info = slurp(infos[0]);
  CHECK(info.find("\"_profiler_level\": \"Level0\"") != std::string::npos);
  CHECK(info.find("\"syscnt_enable\": false") != std::string::npos);
  CHECK(info.find("\"profile_memory\": true") != std::string::npos);
  CHECK(info.find("\"_host_sys\": [\"mem\", \"cpu\"]") != std::string::npos);

  std::vector<std::string> warnings;
  const fw::records rec = decode_framework(dir, warnings);
  CHECK(warnings.empty());
  std::map<std::string, std::vector<const fw::op_range*>> ops;
  for (const auto& o : rec.ops) ops[o.name].push_back(&o);
  REQUIRE(ops["aten::matmul"].size() == 2);
  REQUIRE(ops["aten::mm"].size() == 2);
  REQUIRE(ops["MmBackward0"].size() == 2);
  REQUIRE(ops["ProfilerStep#0"].size() == 1);
  REQUIRE(ops["ProfilerStep#1"].size() == 1);
  const fw::op_range& matmul = *ops["aten::matmul"][0];
  CHECK(matmul.start_tid == main_tid);
  CHECK(matmul.end_tid == main_tid);
  CHECK(matmul.pid == static_cast<std::uint64_t>(::getpid()));
  CHECK(matmul.seq == 10);
  CHECK(ops["aten::matmul"][1]->seq == 11);
  CHECK(matmul.input_dtypes == "float;float");
  CHECK(matmul.input_shapes == "2,3;3,4");
  CHECK(matmul.call_stack == "train.cpp(10): main;model.cpp(20): forward");
  CHECK(ops["aten::mm"][0]->seq == -1);
  CHECK_FALSE(ops["aten::mm"][0]->has_shapes);  // not given: no field, as torch_npu writes it
  const fw::op_range& backward = *ops["MmBackward0"][0];
  CHECK(backward.start_tid != main_tid);
  CHECK(backward.fwd_tid == main_tid);
  CHECK(ops["ProfilerStep#0"][0]->start_tid == main_tid);
  for (const auto& o : rec.ops) CHECK(o.start <= o.end);
  // Nesting survives on the clock: the step holds its ops, the op its inner op.
  CHECK(ops["ProfilerStep#0"][0]->start <= matmul.start);
  CHECK(ops["aten::mm"][0]->start >= matmul.start);
  CHECK(ops["aten::mm"][0]->end <= matmul.end);

  REQUIRE(rec.marks.size() == 8);
  const std::set<std::uint64_t> workers{ops["MmBackward0"][0]->start_tid, ops["MmBackward0"][1]->start_tid};
  for (const auto& m : rec.marks) {
    CHECK(m.name == "aten::mm");
    CHECK((m.corr_id == 1 || m.corr_id == 2));
    if (m.category < 2) CHECK(m.tid == main_tid);  // enqueue on the op's thread
    else CHECK(workers.count(m.tid) == 1);         // dequeue on the launching thread
  }
  REQUIRE(rec.memory.size() == 6);
  CHECK(rec.memory[0].alloc_size == (1 << 20));
  CHECK(rec.memory[1].alloc_size == -(1 << 20));
  CHECK(rec.memory[0].tid == main_tid);
  CHECK(rec.memory[0].device_type == 20);

  auto r = msprof::convert::ascend_pt::analyse(dir.string());
  REQUIRE_MESSAGE(r.has_value(), r.err().message);
  CHECK(r->warnings.empty());
  for (const auto& w : r->warnings) MESSAGE(w);
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  const auto details = csv(out / "operator_details.csv");
  REQUIRE(details.size() == 1 + 6);  // header + matmul, mm, backward per step (no ProfilerStep rows)
  CHECK(details[0][0] == "Name");
  std::multiset<std::string> names;
  for (std::size_t i = 1; i < details.size(); ++i) names.insert(details[i][0]);
  CHECK(names == std::multiset<std::string>{"aten::matmul", "aten::matmul", "aten::mm", "aten::mm", "MmBackward0",
                                            "MmBackward0"});
  // The kernel launched under the dequeue counts for the op that enqueued it and its parent.
  for (std::size_t i = 1; i < details.size(); ++i) {
    CAPTURE(details[i][0]);
    const double device_total = std::stod(details[i][6]);
    if (details[i][0] == "aten::mm" || details[i][0] == "aten::matmul") CHECK(device_total > 0);
  }
  const auto steps = csv(out / "step_trace_time.csv");
  REQUIRE(steps.size() == 1 + 2);
  CHECK(steps[1][1] == "0");
  CHECK(steps[2][1] == "1");
  CHECK(csv(out / "kernel_details.csv").size() == 1 + 2);
  const auto memory = csv(out / "operator_memory.csv");
  REQUIRE(memory.size() == 1 + 2);
  CHECK(memory[1][0] == "aten::matmul");  // the op running on the allocating thread

  // trace_view.json: each op a cpu_op slice on its own thread, the steps on the
  // thread that called step(), and per step one flow from the enqueue to its
  // dequeue, one from aten::mm to the kernel its dequeue launched, and one from
  // the forward op to its backward op.
  auto trace = msprof::json::parse(slurp(out / "trace_view.json"), "trace_view.json");
  REQUIRE_MESSAGE(trace.has_value(), trace.err().message);
  std::map<std::string, std::set<std::uint64_t>> op_threads;
  std::map<std::string, std::size_t> flow_ends;  // "<name> <ph>"
  std::set<std::string> processes;
  for (const auto& e : trace->items()) {
    const std::string ph = e.get("ph").as_string_or(""), name = e.get("name").as_string_or("");
    if (name == "process_name") processes.insert(e.get("args").get("name").as_string_or(""));
    std::uint64_t tid = 0;
    e.get("tid").to_uint64(tid);
    if (ph == "X" && e.get("cat").as_string_or("") == "cpu_op") op_threads[name].insert(tid);
    if (ph == "s" || ph == "f") ++flow_ends[name + " " + ph];
  }
  CHECK(op_threads["aten::matmul"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["aten::mm"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["ProfilerStep#0"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["ProfilerStep#1"] == std::set<std::uint64_t>{main_tid});
  CHECK(op_threads["MmBackward0"] == workers);
  // host_sys: the PROF_ part's host usage, as torch_npu copies it (CPU usage needs
  // more than the 10 ms /proc/uptime resolution; this window may be shorter).
  CHECK(processes.count("Memory Usage") == 1);
  for (const char* flow : {"enqueue_to_dequeue", "torch_to_npu", "fwdbwd"}) {
    CAPTURE(flow);
    CHECK(flow_ends[std::string(flow) + " s"] == 2);
    CHECK(flow_ends[std::string(flow) + " f"] == 2);
  }
}

TEST_CASE("framework layout: ascend_ms names the directory as MindSpore, and the export handler analyses it") {
  temp_dir t;
  session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  c.layout = session::output_layout::ascend_ms;
  c.worker_name = "node-1";
  session::export_handler exporter(session::export_options_for(c));
  session::profiler prof(c, std::nullopt, exporter);
  REQUIRE(static_cast<bool>(prof.start()));
  { msprof::record_function f("Conv2D"); }
  REQUIRE(static_cast<bool>(prof.stop()));
  CHECK(exporter.wait().empty());
  REQUIRE(prof.saved_dirs().size() == 1);
  const fs::path dir = prof.saved_dirs()[0];
  CHECK(std::regex_match(dir.filename().string(), std::regex("node-1_[0-9]+_[0-9]{17}_ascend_ms")));
  REQUIRE(exporter.exported().size() == 1);
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv"));
  // No memory events asked for, none given: no memory file.
  CHECK_FALSE(fs::exists(dir / "FRAMEWORK" / "torch.memory_usage"));
}

TEST_CASE("framework layout: mstx calls are also the framework ops torch_npu records around them") {
  temp_dir t;
  session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  c.layout = session::output_layout::ascend_pt;
  c.npu = false;
  std::vector<std::string> ready;
  session::profiler prof(c, std::nullopt, [&](const std::string& d) { ready.push_back(d); });
  REQUIRE(static_cast<bool>(prof.start()));
  const std::uint64_t main_tid = this_tid();
  mstxMarkA("a mark", nullptr);
  const mstxRangeId id = mstxRangeStartA("a range", nullptr);
  std::uint64_t end_tid = 0;
  std::thread([&] {
    end_tid = this_tid();
    mstxRangeEnd(id);  // a range may end on another thread
  }).join();
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(ready.size() == 1);
  std::vector<std::string> warnings;
  const fw::records rec = decode_framework(ready[0], warnings);
  CHECK(warnings.empty());
  std::map<std::string, std::vector<const fw::op_range*>> ops;
  for (const auto& o : rec.ops) ops[o.name].push_back(&o);
  REQUIRE(ops["mstx_mark_op"].size() == 1);
  REQUIRE(ops["mstx_range_start_op"].size() == 1);
  REQUIRE(ops["mstx_range_end_op"].size() == 1);
  CHECK(ops["mstx_mark_op"][0]->start_tid == main_tid);
  CHECK(ops["mstx_range_start_op"][0]->start_tid == main_tid);
  CHECK(ops["mstx_range_end_op"][0]->start_tid == end_tid);
  for (const char* name : {"mstx_mark_op", "mstx_range_start_op", "mstx_range_end_op"})
    CHECK(ops[name][0]->start == ops[name][0]->end);  // at the call's time
  CHECK(ops["mstx_mark_op"][0]->start <= ops["mstx_range_start_op"][0]->start);
  CHECK(ops["mstx_range_start_op"][0]->start <= ops["mstx_range_end_op"][0]->start);
  // The PROF_ part keeps the mstx events themselves.
  auto r = msprof::convert::ascend_pt::analyse(ready[0]);
  REQUIRE_MESSAGE(r.has_value(), r.err().message);
  const std::string details = slurp(fs::path(ready[0]) / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv");
  for (const char* name : {"mstx_mark_op,", "mstx_range_start_op,", "mstx_range_end_op,"}) CHECK(details.find(name) != std::string::npos);
}

TEST_CASE("framework layout: with mstx off the ops are still recorded and the mstx calls are not") {
  temp_dir t;
  session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  c.layout = session::output_layout::ascend_pt;
  c.npu = false;
  c.mstx = false;  // torch_npu's default: its ops are recorded all the same
  std::vector<std::string> ready;
  session::profiler prof(c, std::nullopt, [&](const std::string& d) { ready.push_back(d); });
  REQUIRE(static_cast<bool>(prof.start()));
  { msprof::record_function f("aten::mm"); }
  mstxMarkA("a mark", nullptr);
  mstxRangeEnd(mstxRangeStartA("a range", nullptr));
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(ready.size() == 1);
  std::vector<std::string> warnings;
  const fw::records rec = decode_framework(ready[0], warnings);
  CHECK(warnings.empty());
  std::set<std::string> names;
  for (const auto& o : rec.ops) names.insert(o.name);
  CHECK(names == std::set<std::string>{"ProfilerStep#0", "aten::mm"});  // the session's step, the op
  auto r = msprof::convert::ascend_pt::analyse(ready[0]);
  REQUIRE_MESSAGE(r.has_value(), r.err().message);
  const std::string details = slurp(fs::path(ready[0]) / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv");
  CHECK(details.find("aten::mm,") != std::string::npos);
  CHECK(details.find("mstx") == std::string::npos);
}

TEST_CASE("framework layout: a bad worker name and an unknown layout name are refused") {
  session::session_config c;
  c.worker_name = "a b";
  auto v = session::validate(c);
  REQUIRE_FALSE(v.has_value());
  CHECK(v.err().message.find("worker_name") != std::string::npos);
  CHECK(session::parse_output_layout("ascend_pt") == session::output_layout::ascend_pt);
  CHECK(session::parse_output_layout("ascend_ms") == session::output_layout::ascend_ms);
  CHECK_FALSE(session::parse_output_layout("pt").has_value());
}
