// SPDX-License-Identifier: MIT
// HCCL communication in `msprof analyse`: a *_ascend_pt directory whose PROF_
// part is the hccl_allreduce golden input (tests/support/hccl_prof.hpp) and
// whose FRAMEWORK part has two ProfilerStep ops on the launching thread.
// torch_npu copies the CANN timeline into trace_view.json (so its CANN events,
// the Communication process and the Overlap Analysis lanes among them, equal
// the reference's msprof.json), counts step_trace_time from those lanes, and
// its db starts as the CANN db (COMMUNICATION_OP, COMMUNICATION_TASK_INFO).
#include <doctest/doctest.h>
#include <msprof/codec/framework.hpp>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/core/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../support/generated_pt.hpp"
#include "../../support/hccl_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "../convert/golden_util.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;
namespace json = msprof::json;
namespace fw = msprof::codec::framework;

namespace {

fs::path golden_expected() { return fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "hccl_allreduce" / "expected"; }

/// The case: launches at 100, 200 (allReduce), 320, 400 (allReduce) and 520 us
/// after the PROF_ anchor on thread 2001; ProfilerStep#1 over [90, 350] us
/// (the first three), ProfilerStep#2 over [390, 700] us (the other two).
fs::path make_case(const temp_dir& tmp, bool with_steps = true) {
  const fs::path dir = tmp / "worker0_1_20260101120000000_ascend_pt";
  fs::create_directories(dir / "FRAMEWORK");
  // The stored input (what hccl_prof::write makes, with the stored run's end time).
  const fs::path in = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "hccl_allreduce" / "input" / hccl_prof::name;
  fs::copy(in, dir / hccl_prof::name, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dir / hccl_prof::name))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  generated_pt::write_profiler_info(dir);
  std::string ops;
  const auto op = [&](double b, double e, const std::string& name) {
    fw::op_range r;
    r.start = static_cast<std::int64_t>(hccl_prof::us(b));
    r.end = static_cast<std::int64_t>(hccl_prof::us(e));
    r.seq = -1;
    r.pid = 1;  // the PROF_ part's process
    r.start_tid = r.end_tid = hccl_prof::tid;
    r.name = name;
    fw::encode(r, ops);
  };
  if (with_steps) op(90, 350, "ProfilerStep#1");
  op(95, 110, "aten::mm");
  op(195, 215, "HcclAllreduce");
  if (with_steps) op(390, 700, "ProfilerStep#2");
  op(395, 410, "HcclAllreduce");
  std::ofstream(dir / "FRAMEWORK" / "torch.op_range", std::ios::binary) << ops;
  return dir;
}

/// A case whose collective overlaps compute: kernels launched at 100, 310 and
/// 320 us run on the device over [250, 310], [320, 330] and [340, 400] us,
/// the allReduce launched at 200 over [300, 348.5] (its tasks as in the golden
/// case); ProfilerStep#1 over [90, 450] us.
fs::path make_overlap_case(const temp_dir& tmp, const char* collective = "hcom_allReduce__123_0_1") {
  namespace codec = msprof::codec;
  const fs::path dir = tmp / "worker0_1_20260101120000000_ascend_pt";
  fs::create_directories(dir / "FRAMEWORK");
  auto prof = hccl_prof::write_with(dir.string(), [&](hccl_prof::writer& w, std::uint64_t group) {
    w.kernel(100, "MatMul_1", codec::ge_task::ai_core, "MatMul", 1, hccl_prof::rt::kernel_aicore, 250, 60);
    w.collective(200, collective, group, 1, 300);
    w.kernel(310, "Add_2", codec::ge_task::ai_vector_core, "Add", 2, hccl_prof::rt::kernel_aivec, 320, 10);
    w.kernel(320, "MatMul_3", codec::ge_task::ai_core, "MatMul", 3, hccl_prof::rt::kernel_aicore, 340, 60);
  });
  REQUIRE_MESSAGE(prof.has_value(), prof.err().what());
  generated_pt::write_profiler_info(dir);
  fw::op_range r;
  r.start = static_cast<std::int64_t>(hccl_prof::us(90));
  r.end = static_cast<std::int64_t>(hccl_prof::us(450));
  r.seq = -1;
  r.pid = 1;
  r.start_tid = r.end_tid = hccl_prof::tid;
  r.name = "ProfilerStep#1";
  std::string ops;
  fw::encode(r, ops);
  std::ofstream(dir / "FRAMEWORK" / "torch.op_range", std::ios::binary) << ops;
  return dir;
}

/// The events of a timeline JSON file, each dumped compactly, that `keep` wants,
/// sorted (our msprof.json orders some events otherwise than the reference's:
/// tests/unit/convert/golden_test.cpp compares them as multisets too).
template <class Keep>
std::vector<std::string> events(const fs::path& file, Keep keep) {
  const std::string text = read_text(file);
  auto doc = json::parse(text, file.string());
  REQUIRE_MESSAGE(doc.has_value(), doc.err().what());
  std::vector<std::string> out;
  for (const auto& e : doc->items())
    if (keep(e)) out.push_back(json::dump(e));
  std::sort(out.begin(), out.end());
  return out;
}

/// The pids named `process` by process_name metadata.
std::vector<std::string> pids_named(const fs::path& file, const std::string& process) {
  std::vector<std::string> out;
  for (const auto& e : events(file, [&](const json::value& v) {
         return v.get("name").as_string_or("") == "process_name" &&
                v.get("args").get("name").as_string_or("") == process;
       }))
    out.push_back(json::dump(json::parse(e)->get("pid")));
  return out;
}

std::vector<std::string> process_events(const fs::path& file, const std::string& process) {
  const auto pids = pids_named(file, process);
  REQUIRE(pids.size() == 1);
  return events(file, [&](const json::value& v) { return json::dump(v.get("pid")) == pids[0]; });
}

/// Rows of a query, cells joined by '|', a line each.
std::string query_lines(const fs::path& db, const std::string& sql) {
  std::string out;
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE_MESSAGE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK, sqlite3_errmsg(h));
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i) out += '|';
      const auto* t = sqlite3_column_text(st, i);
      out += t ? reinterpret_cast<const char*>(t) : "NULL";
    }
    out += '\n';
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

}  // namespace

TEST_CASE("ascend_pt hccl: trace_view.json holds the CANN timeline's Communication process and overlap lanes") {
  temp_dir tmp("pt_hccl_trace");
  const fs::path dir = make_case(tmp);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path trace = dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json";
  const fs::path want = golden_expected() / "msprof.json";
  // The Communication process: 3 process and 6 thread metadata events, 2
  // collectives with their HostToDevice flow ends, 8 small tasks.
  const auto comm = process_events(trace, "Communication");
  CHECK(comm.size() == 21);
  CHECK(comm == process_events(want, "Communication"));
  // Overlap Analysis with its Communication and Communication(Not Overlapped) lanes.
  const auto overlap = process_events(trace, "Overlap Analysis");
  CHECK(overlap == process_events(want, "Overlap Analysis"));
  CHECK(std::count_if(overlap.begin(), overlap.end(), [](const std::string& e) {
          const auto v = json::parse(e);
          return v->get("ph").as_string_or("") == "X" &&
                 v->get("name").as_string_or("") == "Communication(Not Overlapped)";
        }) == 2);
  // Every CANN event (torch_npu copies the whole timeline at Level1): the HCCL
  // calls and the hardware tasks named as the export names them. Only the
  // framework process (pid 1) and the torch_to_npu flows are torch_npu's own.
  const auto cann = [](const json::value& v) {
    return json::dump(v.get("pid")) != "1" && v.get("cat").as_string_or("") != "async_npu";
  };
  CHECK(events(trace, cann) == events(want, [](const json::value&) { return true; }));
}

TEST_CASE("ascend_pt hccl: step_trace_time counts the communication lanes in the step each starts in") {
  temp_dir tmp("pt_hccl_steps");
  const fs::path dir = make_case(tmp);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  // Device ranges (us after the anchor): step 1 from its first launch's
  // kernel (200) to the end of its last launch's (410); step 2 from 505 (the
  // first allReduce task the second collective's launch flows to) to its
  // op's end (700). Lanes: Computing 200+40, 400+10, 600+30; Communication and
  // Not Overlapped 300+48.5, 500+48.5 (before step 2's range: in no step);
  // Free 240+60, 348.5+51.5, 410+90 (no step), 548.5+51.5.
  CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv") ==
        "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
        "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
        "0,1,50.0,48.5,0.0,48.5,111.5,210.0,0,48.5,110.0\r\n"
        "0,2,30.0,0,0,0,51.5,81.5,0,0,210.0\r\n");
}

TEST_CASE("ascend_pt hccl: without steps one row holds every lane") {
  temp_dir tmp("pt_hccl_nosteps");
  const fs::path dir = make_case(tmp, false);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  // Computing 80, both collectives 97 (none overlapped), Free 60+51.5+90+51.5;
  // end to end 200..630; preparing from the first op (95) to the first task (200).
  CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv") ==
        "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
        "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
        "0,,80.0,97.0,0.0,97.0,253.0,430.0,0,97.0,105.0\r\n");
}

TEST_CASE("ascend_pt hccl: the db export has the CANN db's communication tables") {
  temp_dir tmp("pt_hccl_db");
  const fs::path dir = make_case(tmp);
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path db = dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  // Resolved as tests/unit/convert/golden_test.cpp resolves msprof_<ts>.db's.
  const std::string got =
      query_lines(db,
                  "SELECT n.value, o.startNs, o.endNs, o.connectionId, g.value, o.relay, o.retry, o.dataType, a.value, "
                  "o.count, ty.value, o.deviceId, o.rankSize FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = "
                  "o.opName JOIN STRING_IDS g ON g.id = o.groupName JOIN STRING_IDS a ON a.id = o.algType JOIN "
                  "STRING_IDS ty ON ty.id = o.opType ORDER BY o.startNs") +
      query_lines(db,
                  "SELECT n.value, k.streamId, k.taskId, ty.value, c.planeId, c.notifyId, c.rdmaType, c.srcRank, "
                  "c.dstRank, c.transportType, c.size, c.dataType, c.linkType, opn.value, c.isMaster, c.bandwidth "
                  "FROM COMMUNICATION_TASK_INFO c JOIN TASK k ON k.globalTaskId = c.globalTaskId JOIN STRING_IDS n "
                  "ON n.id = c.name JOIN STRING_IDS ty ON ty.id = c.taskType JOIN COMMUNICATION_OP o ON o.opId = "
                  "c.opId JOIN STRING_IDS opn ON opn.id = o.opName ORDER BY k.startNs");
  CHECK(got == read_text(golden_expected() / "communication_db.txt"));
  // analysis.db's StepTraceTime: its device ranges span all tasks of the
  // launches in the step (step 2 from 500: the second collective is in it);
  // each collective laid over the step's compute intervals (200+40, 400+10;
  // 600+30): not overlapped, with the gaps between them free.
  CHECK(query_lines(dir / "ASCEND_PROFILER_OUTPUT" / "analysis.db", "SELECT * FROM StepTraceTime ORDER BY step") ==
        "0|1|50|48.5|0|48.5|111.5|210|0|48.5|110\n"
        "0|2|30|48.5|0|48.5|51.5|130|0|48.5|110\n");
}

TEST_CASE("ascend_pt hccl: a collective overlapping compute counts only its uncovered parts as not overlapped") {
  temp_dir tmp("pt_hccl_overlap");
  const fs::path dir = make_overlap_case(tmp);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  // Computing 60+10+60; of the collective's 48.5 only [310, 320] and [330,
  // 340] are not covered; no free time; end to end 250..400; preparing from
  // the step op (90) to the first task (250).
  CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv") ==
        "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
        "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
        "0,1,130.0,20.0,28.5,48.5,0,150.0,0,20.0,160.0\r\n");
  // The db flavour lays the collective over the step's compute intervals:
  // the same sums.
  temp_dir tmp2("pt_hccl_overlap_db");
  const fs::path dir2 = make_overlap_case(tmp2);
  auto d = pt::analyse(dir2.string(), {"db"});
  REQUIRE_MESSAGE(d.has_value(), d.err().what());
  CHECK(query_lines(dir2 / "ASCEND_PROFILER_OUTPUT" / "analysis.db", "SELECT * FROM StepTraceTime") ==
        "0|1|130|20|28.5|48.5|0|150|0|20|160\n");
}

TEST_CASE("ascend_pt hccl: an hcom_receive collective is a bubble, taken from the stage") {
  for (const char* type : {"text", "db"}) {
    CAPTURE(type);
    temp_dir tmp("pt_hccl_bubble");
    const fs::path dir = make_overlap_case(tmp, "hcom_receive__123_0_1");
    auto r = pt::analyse(dir.string(), {type});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    // The overlap case's numbers with Bubble 48.5: Stage 150 - 48.5, and the
    // not-overlapped time less the bubble below 0, so 0.
    if (std::string(type) == "text")
      CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv") ==
            "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
            "0,1,130.0,20.0,28.5,48.5,0,101.5,48.5,0,160.0\r\n");
    else
      CHECK(query_lines(dir / "ASCEND_PROFILER_OUTPUT" / "analysis.db", "SELECT * FROM StepTraceTime") ==
            "0|1|130|20|28.5|48.5|0|101.5|48.5|0|160\n");
  }
}

TEST_CASE("ascend_pt hccl: communication.json, communication_matrix.json and analysis.db's CommAnalyzer tables as torch_npu's") {
  temp_dir tmp("pt_hccl_comm_files");
  const fs::path dir = make_case(tmp, false);  // no steps: the collectives all in torch_npu's one step
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  const fs::path want = golden_expected() / "pt_communication" / "no_steps";  // torch_npu's parsers' files
  for (const char* f : {"communication.json", "communication_matrix.json"}) {
    CAPTURE(f);
    CHECK(read_text(out / f) == read_text(want / f));
    CHECK(std::find(r->files.begin(), r->files.end(), (out / f).string()) != r->files.end());
  }
  auto d = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(d.has_value(), d.err().what());
  std::vector<std::string> comm_lines;
  for (auto& line : golden::canonical_db(out / "analysis.db"))
    if (line.find("CommAnalyzer") != std::string::npos) comm_lines.push_back(line);
  CHECK(comm_lines.size() > 3);
  CHECK(comm_lines == golden::lines(read_text(want / "analysis.canonical.sql")));
}
