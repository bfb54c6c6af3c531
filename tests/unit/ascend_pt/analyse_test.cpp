// SPDX-License-Identifier: MIT
// ascend_pt: profiler_info parsing, the framework clock, and bad input (no
// PROF_, damaged FRAMEWORK files) giving clear errors or warnings that name
// the file and the byte offset; the db export's file names and safe writing.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/convert/ascend_pt/cann_part.hpp>
#include <msprof/convert/load.hpp>
#include <string>

#include "../../support/generated_pt.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

TEST_CASE("ascend_pt: profiler_info gives level, export type and the counter clock") {
  auto pi = pt::parse_profiler_info(
      R"({"config":{"common_config":{"activities":["ProfilerActivity.NPU"]},
          "experimental_config":{"_profiler_level":"Level2","_export_type":["db","text"]}},
          "start_info":{"syscnt_enable":true,"freq":50,"start_cnt":1000,"start_monotonic":7000},"rank_id":3})",
      "profiler_info_3.json");
  REQUIRE(pi.has_value());
  CHECK(pi->level == "Level2");
  CHECK(pi->export_type == std::vector<std::string>{"db", "text"});
  CHECK_FALSE(pi->cpu);
  CHECK(pi->npu);
  CHECK(pi->rank_id == 3);
  // 50 MHz: 20 ns a tick, counted from start_cnt, on start_monotonic.
  CHECK(pt::framework_ns(*pi, 1100) == 7000 + 100 * 20);
  pi->syscnt_enable = false;
  CHECK(pt::framework_ns(*pi, 1100) == 1100);

  auto defaults = pt::parse_profiler_info("{}", "p.json");
  REQUIRE(defaults.has_value());
  CHECK(defaults->level == "Level0");  // torch_npu's default
  CHECK(defaults->export_type == std::vector<std::string>{"text"});

  auto bad = pt::parse_profiler_info(R"({"config":{"experimental_config":{"_profiler_level":"Level9"}}})", "p.json");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().message.find("p.json") != std::string::npos);
  CHECK(bad.err().message.find("Level9") != std::string::npos);
  CHECK_FALSE(pt::parse_profiler_info("[1,", "p.json").has_value());
}

TEST_CASE("ascend_pt: memory records by time: straight when in time order, else sorted, equal times in file order") {
  using usage = msprof::codec::framework::memory_usage;
  temp_dir t("pt_memory_order");
  const auto fill = [&](pt::pt_dir& d, std::initializer_list<std::int64_t> times) {
    d.spill_dir = t.path;
    d.memory = pt::spilled_list<usage>(d.spill_dir, 64);  // spilled at once
    std::int64_t n = 0;
    for (const auto time : times) {
      usage u;
      u.time = time;
      u.ptr = n++;  // file order
      u.device_type = u.ptr == 2 ? std::int8_t{0} : usage::npu;  // the third is not wanted
      d.memory.push_back(u);
    }
  };
  const auto order = [&](const pt::pt_dir& d) {
    std::vector<std::int64_t> ptrs;
    const auto npu = [](const usage& u) { return u.device_type == usage::npu; };
    REQUIRE(pt::memory_by_time(d, 64, npu, [&](const usage& u) { ptrs.push_back(u.ptr); }));
    return ptrs;
  };
  pt::pt_dir sorted;
  fill(sorted, {10, 10, 20, 30, 30});
  CHECK(order(sorted) == std::vector<std::int64_t>{0, 1, 3, 4});
  pt::pt_dir unsorted;
  fill(unsorted, {30, 10, 5, 20, 10, 30});
  unsorted.memory_in_time_order = false;
  CHECK(order(unsorted) == std::vector<std::int64_t>{1, 4, 3, 0, 5});
}

TEST_CASE("ascend_pt: a directory with FRAMEWORK but no PROF_ is an error naming it") {
  temp_dir tmp("pt_noprof");
  const fs::path dir = copy_case(tmp, "pt_level0");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) fs::remove_all(e.path());
  auto r = pt::analyse(dir.string());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.err().message.find(dir.string()) != std::string::npos);
  CHECK(r.err().message.find("no PROF_") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "ASCEND_PROFILER_OUTPUT"));
}

TEST_CASE("ascend_pt: a truncated FRAMEWORK file is a warning with file and offset, whole records still count") {
  temp_dir tmp("pt_trunc");
  const fs::path dir = copy_case(tmp, "pt_level0");
  const fs::path ops = dir / "FRAMEWORK" / "torch.op_range";
  const auto size = fs::file_size(ops);
  // Append half a record header and an unknown record type to torch.op_mark too.
  {
    std::ofstream f(ops, std::ios::binary | std::ios::app);
    f.write("\x01\x00\x10", 3);
  }
  const fs::path marks = dir / "FRAMEWORK" / "torch.op_mark";
  const auto marks_size = fs::file_size(marks);
  {
    std::string odd("\x63\x00\x02\x00\x00\x00zz", 8);  // type 99, 2 bytes
    std::ofstream f(marks, std::ios::binary | std::ios::app);
    f << odd;
  }
  auto r = pt::analyse(dir.string());
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  bool ops_warned = false, marks_warned = false;
  for (const auto& w : r->warnings) {
    MESSAGE(w);
    if (w.find(ops.string() + ": record at byte offset " + std::to_string(size)) == 0) ops_warned = true;
    if (w.find(marks.string() + ": record at byte offset " + std::to_string(marks_size)) == 0 &&
        w.find("unknown record type") != std::string::npos)
      marks_warned = true;
  }
  CHECK(ops_warned);
  CHECK(marks_warned);
  // The damage was at the tails: the kernel view still equals torch_npu's.
  CHECK(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv") ==
        read_text(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_level0" / "expected" / "kernel_details.csv"));
}

namespace {

/// Lines of a text file (a CSV cell with a line break counts its lines).
std::size_t line_count(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

/// A torch.op_range record of `pid` around `at` (raw framework time), without shapes or stack.
std::string op_record(std::uint64_t pid, std::int64_t at, const std::string& name) {
  msprof::codec::framework::op_range r;
  r.start = at;
  r.end = at + 100;
  r.seq = -1;
  r.pid = pid;
  r.start_tid = r.end_tid = 1;
  r.name = name;
  std::string out;
  msprof::codec::framework::encode(r, out);
  return out;
}

/// The first op's raw start time and pid in a torch.op_range file.
std::pair<std::int64_t, std::uint64_t> first_op(const fs::path& file) {
  msprof::codec::framework::records rec;
  std::vector<std::string> warnings;
  const std::string bytes = read_text(file);
  msprof::codec::framework::decode(msprof::codec::framework::file_kind::op_range,
                                   reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), file.string(),
                                   rec, warnings);
  REQUIRE_FALSE(rec.ops.empty());
  return {rec.ops.front().start, rec.ops.front().pid};
}

}  // namespace

TEST_CASE("ascend_pt: a FRAMEWORK file longer than a read piece loses no record, a cut tail is named at its offset") {
  temp_dir tmp("pt_pieces");
  const fs::path dir = copy_case(tmp, "pt_level0");
  const fs::path ops = dir / "FRAMEWORK" / "torch.op_range";
  const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_level0" / "expected";
  const auto [at, pid] = first_op(ops);
  // ~7 MB of extra ops: the file is decoded in 4 MiB pieces, records cut across pieces.
  constexpr std::size_t extra = 60000;
  std::string more;
  for (std::size_t k = 0; k < extra; ++k)
    more += op_record(pid, at + static_cast<std::int64_t>(k % 7), "extra_op_" + std::string(k % 50, 'x'));
  more += std::string("\x01\x00\x40\x00\x00\x00" "abc", 9);  // a record cut 3 bytes into its 64
  const auto old_size = fs::file_size(ops);
  {
    std::ofstream f(ops, std::ios::binary | std::ios::app);
    f << more;
  }
  REQUIRE(fs::file_size(ops) > (std::size_t{4} << 20) + 1000);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  std::size_t cut = 0;
  const std::string tail_at = ops.string() + ": record at byte offset " + std::to_string(old_size + more.size() - 9);
  for (const auto& w : r->warnings) {
    MESSAGE(w);
    if (w.find(tail_at) == 0 && w.find("runs past the end of the file") != std::string::npos) ++cut;
  }
  CHECK(cut == 1);
  // Every op has its operator_details row (the added ones are one line each).
  CHECK(line_count(dir / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv") ==
        line_count(expected / "operator_details.csv") + extra);
}

TEST_CASE("ascend_pt: FRAMEWORK records of another process are a warning naming the file, offset and pids") {
  temp_dir tmp("pt_pids");
  const fs::path dir = copy_case(tmp, "pt_level0");
  const fs::path ops = dir / "FRAMEWORK" / "torch.op_range";
  const auto [at, pid] = first_op(ops);
  const auto size = fs::file_size(ops);
  {
    std::ofstream f(ops, std::ios::binary | std::ios::app);
    f << op_record(pid + 1, at, "stray_a") << op_record(pid + 1, at + 10, "stray_b");
  }
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  std::size_t said = 0;
  for (const auto& w : r->warnings) {
    MESSAGE(w);
    if (w.find(ops.string() + ": record at byte offset " + std::to_string(size) + ": pid " + std::to_string(pid + 1)) ==
            0 &&
        w.find("process " + std::to_string(pid)) != std::string::npos && w.find("2 record(s)") != std::string::npos)
      ++said;
  }
  CHECK(said == 1);
  // Analysed as they are: the rows are there.
  const std::string details = read_text(dir / "ASCEND_PROFILER_OUTPUT" / "operator_details.csv");
  CHECK(details.find("stray_a") != std::string::npos);
  CHECK(details.find("stray_b") != std::string::npos);
}

TEST_CASE("ascend_pt: data simplification deletes the CANN intermediate data only, as profiler_info asks") {
  temp_dir tmp("pt_simplify");
  const fs::path dir = copy_case(tmp, "pt_level0");  // its profiler_info: _data_simplification false
  fs::path prof;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof = e.path();
  REQUIRE(!prof.empty());
  const auto put = [](const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
  };
  const std::vector<fs::path> intermediate = {prof / "mindstudio_profiler_output", prof / "mindstudio_profiler_log",
                                              prof / "device_0" / "summary", prof / "device_0" / "timeline",
                                              prof / "device_0" / "sqlite", prof / "host" / "sqlite"};
  for (const auto& p : intermediate) put(p / "old.csv");
  put(dir / "logs" / "run.log");
  const fs::path outside = tmp / "outside";
  put(outside / "keep.txt");
  fs::create_directory_symlink(outside, prof / "analyze");  // a link is removed, its target kept

  auto off = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(off.has_value(), off.err().what());
  CHECK(off->removed.empty());
  for (const auto& p : intermediate) CHECK(fs::exists(p / "old.csv"));

  pt::analyse_options on;
  on.export_type = "text";
  on.data_simplification = true;
  auto r = pt::analyse(dir.string(), on);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK(r->removed.size() == intermediate.size() + 1);
  for (const auto& p : intermediate) CHECK_FALSE(fs::exists(p));
  CHECK_FALSE(fs::exists(fs::symlink_status(prof / "analyze")));
  CHECK(fs::exists(outside / "keep.txt"));
  // Kept: the raw data, the control files, FRAMEWORK, logs, profiler_info, the outputs.
  CHECK(fs::is_directory(prof / "device_0" / "data"));
  CHECK(fs::is_directory(prof / "host" / "data"));
  CHECK(fs::exists(dir / "FRAMEWORK" / "torch.op_range"));
  CHECK(fs::exists(dir / "logs" / "run.log"));
  CHECK(fs::exists(dir / "profiler_info_0.json"));
  CHECK(fs::exists(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  // The profiler_info switch alone does it too.
  put(prof / "mindstudio_profiler_output" / "again.csv");
  std::string info = read_text(dir / "profiler_info_0.json");
  const std::string from = "\"_data_simplification\": false";
  REQUIRE(info.find(from) != std::string::npos);
  info.replace(info.find(from), from.size(), "\"_data_simplification\": true");
  std::ofstream(dir / "profiler_info_0.json", std::ios::trunc) << info;
  auto by_info = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(by_info.has_value(), by_info.err().what());
  CHECK(by_info->removed == std::vector<std::string>{(prof / "mindstudio_profiler_output").string()});
  CHECK(pt::parse_profiler_info(info, "p.json")->data_simplification);
}

TEST_CASE("ascend_pt: the db export names its file after the rank, without one as torch_npu does") {
  temp_dir tmp("pt_db");
  const fs::path dir = copy_case(tmp, "pt_level0");
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  CHECK(fs::exists(out / "ascend_pytorch_profiler_0.db"));
  CHECK(fs::exists(out / "analysis.db"));
  CHECK_FALSE(fs::exists(out / "kernel_details.csv"));  // db only: no text files

  // profiler_info without a rank: ascend_pytorch_profiler.db.
  const fs::path info = dir / "profiler_info_0.json";
  std::string text = read_text(info);
  const auto at = text.find("\"rank_id\": 0");
  REQUIRE(at != std::string::npos);
  text.replace(at, 12, "\"rank_id\": -1");
  std::ofstream(info, std::ios::binary | std::ios::trunc) << text;
  fs::remove_all(out);
  r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK(fs::exists(out / "ascend_pytorch_profiler.db"));
  CHECK_FALSE(fs::exists(out / "ascend_pytorch_profiler_0.db"));
}

TEST_CASE("ascend_pt: a MindSpore *_ascend_ms directory is found and its db is ascend_mindspore_profiler_{rank}.db") {
  temp_dir tmp("ms_db");
  const fs::path pt_dir = copy_case(tmp, "pt_level0");
  std::string name = pt_dir.filename().string();
  name.replace(name.size() - 3, 3, "_ms");
  const fs::path dir = tmp / name;
  fs::rename(pt_dir, dir);
  REQUIRE(pt::find_pt_dirs(tmp.path) == std::vector<std::string>{dir.string()});
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  CHECK(fs::exists(out / "ascend_mindspore_profiler_0.db"));
  CHECK_FALSE(fs::exists(out / "ascend_pytorch_profiler_0.db"));
  CHECK(fs::exists(out / "analysis.db"));
}

TEST_CASE("ascend_pt: a link planted at a db name is refused, its target untouched") {
  temp_dir tmp("pt_db_link");
  const fs::path dir = copy_case(tmp, "pt_level0");
  const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(out);
  const fs::path victim = tmp / "victim.txt";
  std::ofstream(victim) << "keep";
  for (const char* name : {"ascend_pytorch_profiler_0.db", "analysis.db"}) fs::create_symlink(victim, out / name);
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.err().message.find("is a symbolic link") != std::string::npos);
  CHECK(read_text(victim) == "keep");
  CHECK(fs::is_symlink(out / "ascend_pytorch_profiler_0.db"));
  CHECK_FALSE(fs::exists(out / "analyse.done"));
  for (const auto& e : fs::directory_iterator(out)) CHECK(fs::is_symlink(e.path()));  // no temporary left behind
}

TEST_CASE("ascend_pt: step ranges come from the ProfilerStep ops and the kernels their enqueues reach") {
  temp_dir tmp("pt_steps");
  const fs::path dir = copy_case(tmp, "pt_text_steps");
  auto d = pt::read_pt_dir(dir.string());
  REQUIRE(d.has_value());
  auto m = msprof::convert::load_model(d->prof_dir);
  REQUIRE(m.has_value());
  pt::place_framework(*d, m->session.wall_offset_ns);
  CHECK(d->ops.size() == 12);
  CHECK(d->enqueue.size() == 5);
  CHECK(d->dequeue.size() == 5);
  pt::cann_part cann(tmp.path, true, false);
  cann.add_ops(*m);  // the whole model as one window (not text: add_tasks keeps nothing)
  cann.finish(*m);
  auto rel = pt::link(*d, cann.take_acl());
  const auto steps = pt::step_ranges(rel);
  REQUIRE(steps.size() == 2);
  const std::int64_t t0 = 1767268800000000000;  // the collection start, ns
  // Step 1: kernels 1-3 (launched at 100/140/170 µs, run 200..330.5 µs); the op ends at 168 µs.
  CHECK(steps[0].id == "1");
  CHECK(steps[0].start_ns == t0 + 200000);
  CHECK(steps[0].end_ns == t0 + 330500);
  CHECK(steps[0].fwk_start_ns == t0 + 60000);
  // Step 2: kernels 4-5 run 340..460 µs; the op ends at 1250 µs, later.
  CHECK(steps[1].id == "2");
  CHECK(steps[1].start_ns == t0 + 340000);
  CHECK(steps[1].end_ns == t0 + 1250000);
}

TEST_CASE("ascend_pt: without a task queue each launch belongs to the step running at its start") {
  temp_dir tmp("pt_noqueue");
  const fs::path dir = copy_case(tmp, "pt_level0");
  fs::remove(dir / "FRAMEWORK" / "torch.op_mark");
  auto r = pt::analyse(dir.string());
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  // Launches at 100/140 µs fall in ProfilerStep#1 [60, 168], those at 170/200/220 µs in #2 [170, 1250].
  const std::string k = read_text(dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv");
  std::vector<std::string> step_ids;
  for (std::size_t at = k.find("\r\n") + 2; at < k.size(); at = k.find("\r\n", at) + 2)
    step_ids.push_back(k.substr(at, k.find(',', at) - at));
  CHECK(step_ids == std::vector<std::string>{"1", "1", "2", "2", "2"});
}

TEST_CASE("ascend_pt: step_trace_time has one row per step, with device time before, between and after the steps") {
  temp_dir tmp("pt_step_rows");
  // 3,000 launches: three ProfilerSteps, and device time outside them (the
  // no-step sums come first, so each step's sums are found by the step).
  const generated_pt::written w = generated_pt::generate(fs::path(tmp.path) / "d", 4 * 3000);
  auto r = pt::analyse(w.dir.string());
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const std::string t = read_text(w.dir / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv");
  std::vector<std::string> steps;  // "device,step" of each row
  for (std::size_t at = t.find("\r\n") + 2; at < t.size(); at = t.find("\r\n", at) + 2)
    steps.push_back(t.substr(at, t.find(',', t.find(',', at) + 1) - at));
  CHECK(steps == std::vector<std::string>{"0,1", "0,2", "0,3"});
}

TEST_CASE("ascend_pt: the counter clock comes from the PROF_ host files when they have it, as torch_npu takes it") {
  temp_dir tmp("pt_syscnt");
  const fs::path dir = copy_case(tmp, "pt_level0");
  const fs::path info = dir / "profiler_info_0.json";
  std::string text = read_text(info);
  const auto set = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  set("\"syscnt_enable\": false", "\"syscnt_enable\": true");
  set("\"freq\": 100", "\"freq\": 50");
  set("\"start_cnt\": 1000000000000", "\"start_cnt\": 7");
  std::ofstream(info, std::ios::binary | std::ios::trunc) << text;
  fs::path prof;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) prof = e.path();

  // host/host_start.log has cntvct and clock_monotonic_raw (both 1e12); host/info.json
  // has an empty CPU Frequency, so torch_npu uses 100 MHz, not profiler_info's 50.
  auto d = pt::read_pt_dir(dir.string());
  REQUIRE(d.has_value());
  CHECK(d->info.syscnt_enable);
  CHECK(d->info.freq == 100.0);
  CHECK(d->info.start_cnt == 1000000000000);
  CHECK(d->info.start_monotonic == 1000000000000);
  CHECK(pt::framework_ns(d->info, 1000000000000 + 5) == 1000000000000 + 50);

  // Without those files profiler_info's values hold.
  fs::remove(prof / "host" / "host_start.log");
  fs::remove(prof / "host" / "info.json");
  d = pt::read_pt_dir(dir.string());
  REQUIRE(d.has_value());
  CHECK(d->info.freq == 50.0);
  CHECK(d->info.start_cnt == 7);
}

TEST_CASE("ascend_pt: a text table gives each distinct text one id, \"\" id 0, and its copies share the texts") {
  pt::text_table t;
  CHECK(t[0].empty());
  CHECK(t.of(std::string()) == 0);
  const std::string shapes = "128,256;256,512";
  const auto a = t.of(std::string("aten::mm"));
  const auto b = t.of(shapes);
  CHECK(a != 0);
  CHECK(b != 0);
  CHECK(a != b);
  CHECK(t.of(std::string("aten::mm")) == a);  // again: the same id, nothing added
  CHECK(t.of(shapes) == b);
  CHECK(t[a] == "aten::mm");
  CHECK(t[b] == shapes);
  const std::string_view view = t[b];
  pt::text_table copy = t;
  const auto c = copy.of(std::string("aten::add"));  // added through the copy: the original has it too
  CHECK(t[c] == "aten::add");
  t = pt::text_table();  // the original goes; the copy keeps the texts, the view stays valid
  CHECK(copy[b] == shapes);
  CHECK(view == shapes);
  CHECK(view.data() == copy[b].data());
}
