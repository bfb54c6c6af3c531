// SPDX-License-Identifier: MIT
// Step trace: ts_track step-trace records (written by the simulated device at
// step boundaries) become model::iterations, the step_trace summary, the
// step_trace_<ts>.json timeline and the Step Trace threads of msprof_<ts>.json;
// --model-id/--iteration-id/--iteration-count restrict the export to the
// chosen iterations' time range (and the timeline's device counters read from
// slices; the summaries read from slices stay whole, as the reference's).
#include <doctest/doctest.h>
#include <msprof/codec/encode.hpp>
#include <msprof/session/session.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/iterations.hpp>
#include <msprof/convert/join.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/text.hpp>
#include <msprof/convert/timeline.hpp>
#include <msprof/core/json.hpp>
#include <msprof/device/simulated_device.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/prof/writer.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../support/golden_memory.hpp"
#include "../../support/temp_dir.hpp"

namespace codec = msprof::codec;
namespace prof = msprof::prof;
namespace device = msprof::device;
namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string c; std::getline(ss, c, ',');) out.push_back(c);
  return out;
}

device::op_desc op(const std::string& name) {
  device::op_desc o;
  o.name = name;
  o.type = "MatMul";
  o.block_dim = 8;
  o.flops = 4e9;
  o.bytes = 1e6;
  return o;
}

/// A PROF_ dir with fixed clocks and a simulated device: `steps` steps, each
/// with ops "Op_<step>_a" and "Op_<step>_b" between its step markers.
std::string make_steps(const temp_dir& t, int steps, bool markers = true) {
  prof::prof_dir_options o;
  o.parent = t.path;
  o.name = "PROF_000001_20260101120000000_STEPTRACEAAAAAAA";
  o.pid = 4242;
  o.pid_name = "train";
  o.host_clock.anchor_ns = 1000000000000ull;
  o.wall_us = 1767268800000000ull;
  prof::device_options d;
  d.id = 0;
  d.cntvct = 5000000000ull;
  o.devices.push_back(d);
  auto dir = prof::prof_dir::create(o);
  REQUIRE(dir);
  {
    device::simulated_options so;
    so.virtual_host_step_ns = 1000;
    device::simulated_device dev(*dir, so);
    auto s = dev.create_stream();
    REQUIRE(s);
    for (int k = 1; k <= steps; ++k) {
      if (markers) REQUIRE(dev.step_marker(static_cast<std::uint64_t>(k), false));
      REQUIRE(dev.launch(*s, op("Op_" + std::to_string(k) + "_a")));
      REQUIRE(dev.launch(*s, op("Op_" + std::to_string(k) + "_b")));
      if (markers) REQUIRE(dev.step_marker(static_cast<std::uint64_t>(k), true));
    }
    REQUIRE(dev.synchronize());
  }
  REQUIRE(dir->close());
  // close() ends the collection at the real time, months after the fixed
  // start: end it a millisecond after the last API call or task instead.
  auto m = cv::load_model(dir->path());
  REQUIRE(m);
  std::int64_t last = m->session.start_ns;
  for (const auto& a : m->apis) last = std::max(last, a.end_ns);
  for (const auto& k : m->tasks) last = std::max(last, k.end_ns);
  const std::uint64_t end_us = static_cast<std::uint64_t>(last / 1000) + 1000;
  const std::uint64_t end_mono = o.host_clock.anchor_ns + (end_us - o.wall_us) * 1000;
  const std::string end_info = R"({"collectionDateBegin": "", "collectionDateEnd": ")" + prof::detail::date_text(end_us) +
                               R"(", "collectionTimeBegin": "", "collectionTimeEnd": ")" + std::to_string(end_us) +
                               R"(", "clockMonotonicRaw": ")" + std::to_string(end_mono) + "\"}";
  std::ofstream(dir->path() + "/host/end_info", std::ios::trunc) << end_info;
  std::ofstream(dir->path() + "/device_0/end_info.0", std::ios::trunc) << end_info;
  return dir->path();
}

cv::model load(const std::string& dir) {
  auto m = cv::load_model(dir);
  REQUIRE_MESSAGE(static_cast<bool>(m), (m ? std::string() : m.err().message));
  return std::move(*m);
}

std::string out_file(const std::string& prof, const std::string& name) {
  return prof + "/mindstudio_profiler_output/" + name;
}

/// Column `col` of the rows of CSV text `csv` (its header left out).
std::vector<std::string> column_of(const std::string& csv, std::size_t col) {
  std::vector<std::string> out;
  const auto ls = lines_of(csv);
  for (std::size_t i = 1; i < ls.size(); ++i) out.push_back(cells_of(ls[i]).at(col));
  return out;
}

/// Op names of op_summary_<ts>.csv.
std::set<std::string> op_names(const std::string& csv) {
  const auto names = column_of(csv, 4);
  return {names.begin(), names.end()};
}

}  // namespace

TEST_CASE("step trace: simulated step markers become iterations around their ops") {
  temp_dir t;
  const auto prof = make_steps(t, 3);
  const auto m = load(prof);
  CHECK(m.warnings.empty());
  REQUIRE(m.iterations.size() == 3);
  std::int64_t last_end = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& it = m.iterations[k];
    CAPTURE(k);
    CHECK(it.device_id == 0);
    CHECK(it.model_id == 4294967295u);
    CHECK(it.iteration_id == k + 1);
    CHECK(it.end_ns > it.start_ns);
    CHECK(it.start_ns > last_end);
    CHECK(it.fp_ns == 0);
    CHECK(it.bp_ns == 0);
    last_end = it.end_ns;
    // The step's ops run between its markers.
    int inside = 0;
    for (const auto& task : m.tasks) {
      if (!task.op || task.op->name.rfind("Op_" + std::to_string(k + 1) + "_", 0) != 0) continue;
      CHECK(task.start_ns >= it.start_ns);
      CHECK(task.end_ns <= it.end_ns);
      ++inside;
    }
    CHECK(inside == 2);
  }
}

TEST_CASE("step trace: step_trace summary (CSV and JSON) and timeline files") {
  temp_dir t;
  const auto prof = make_steps(t, 3);
  const auto m = load(prof);
  cv::export_options o;
  o.timestamp = "20260101120000";
  auto s = cv::export_summary(prof, o);
  REQUIRE_MESSAGE(static_cast<bool>(s), (s ? std::string() : s.err().message));
  const auto csv = slurp(out_file(prof, "step_trace_20260101120000.csv"));
  const auto ls = lines_of(csv);
  REQUIRE(ls.size() == 4);
  CHECK(ls[0] ==
        "Device_id,Iteration ID,FP Start(us),BP End(us),Iteration End(us),Iteration Time(us),FP to BP Time(us),"
        "Iteration Refresh(us),Data Aug Bound(us),Model ID");
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& it = m.iterations[k];
    const auto c = cells_of(ls[k + 1]);
    REQUIRE(c.size() == 10);
    CHECK(c[0] == "0");
    CHECK(c[1] == std::to_string(k + 1));
    CHECK(c[2] == "0.000\t");
    CHECK(c[3] == "0.000\t");
    CHECK(c[4] == cv::ts_us(it.end_ns) + "\t");
    CHECK(c[5] == cv::ts_us(it.end_ns - it.start_ns));
    CHECK(c[6] == "0.000");
    CHECK(c[7] == "0.000");
    CHECK(c[8] == "0.000");
    CHECK(c[9] == "4294967295");
  }
  const auto readme = slurp(out_file(prof, "README.txt"));
  CHECK(readme.find("step_trace_20260101120000.csv") != std::string::npos);

  // Timeline and JSON summary with the same timestamp: both are kept, the
  // summary as step_trace_summary_<ts>.json (docs/formats.md).
  cv::export_options tl;
  tl.timestamp = "20260101120002";
  auto r = cv::export_timeline(prof, tl);
  REQUIRE(r);
  cv::export_options j = tl;
  j.format = "json";
  REQUIRE(cv::export_summary(prof, j));
  const auto js = slurp(out_file(prof, "step_trace_summary_20260101120002.json"));
  CHECK(js.find("{\"Device_id\":\"0\",\"Iteration ID\":\"1\",\"FP Start(us)\":\"0.000\"") == 1);
  CHECK(js.find("\"Model ID\":\"4294967295\"") != std::string::npos);
  CHECK(js.find("\"ph\"") == std::string::npos);
  const auto st = slurp(out_file(prof, "step_trace_20260101120002.json"));
  const std::uint64_t pid = (4242ull << 10) | (14u << 5) | 0u;
  const auto& it1 = m.iterations[0];
  const std::string want1 = "{\"name\":\"Iteration 1\",\"pid\":" + std::to_string(pid) + ",\"tid\":69999,\"ts\":\"" +
                            cv::ts_us(it1.start_ns) + "\",\"dur\":" + cv::dur_us_json(it1.end_ns - it1.start_ns) +
                            ",\"ph\":\"X\",\"cat\":\"Iteration Time\",\"args\":{\"Iteration ID\":1,\"FP Start\":\"N/A\","
                            "\"BP End\":\"N/A\",\"Iteration End\":\"" +
                            cv::ts_us(it1.end_ns) + "\",\"Iteration Time(us)\":" +
                            cv::dur_us_json(it1.end_ns - it1.start_ns) + "}}";
  CHECK(st.rfind("[" + want1 + ",", 0) == 0);
  CHECK(st.find("\"Iteration 3\"") != std::string::npos);
  CHECK(st.find("{\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":69999,\"ph\":\"M\",\"args\":{\"name\":\"Step Trace(Model ID:4294967295)\"}}") !=
        std::string::npos);
  CHECK(st.find("{\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":69999,\"ph\":\"M\",\"args\":{\"sort_index\":69999}}") != std::string::npos);
  CHECK(st.find("MatMul") == std::string::npos);  // iterations only
  // msprof_<ts>.json carries the Step Trace thread too.
  const auto all = slurp(out_file(prof, "msprof_20260101120002.json"));
  CHECK(all.find(want1) != std::string::npos);
  CHECK(all.find("Op_1_a") != std::string::npos);
}

TEST_CASE("step trace: no step markers, no step_trace files") {
  temp_dir t;
  const auto prof = make_steps(t, 2, /*markers=*/false);
  CHECK(load(prof).iterations.empty());
  cv::export_options o;
  o.timestamp = "20260101120000";
  auto r = cv::export_all(prof, o);
  REQUIRE(r);
  for (const auto& f : r->files) CHECK(f.find("step_trace") == std::string::npos);
  CHECK_FALSE(fs::exists(out_file(prof, "step_trace_20260101120000.csv")));
  CHECK_FALSE(fs::exists(out_file(prof, "step_trace_20260101120000.json")));

  o.model_id = 4294967295u;
  o.iteration_id = 1;
  auto e = cv::export_summary(prof, o);
  REQUIRE_FALSE(e);
  CHECK(e.err().code == msprof::errc::not_found);
  CHECK(e.err().message.find("no step data") != std::string::npos);
}

TEST_CASE("step trace: --model-id/--iteration-id/--iteration-count restrict the export to those iterations") {
  temp_dir t;
  const auto prof = make_steps(t, 4);
  cv::export_options o;
  o.model_id = 4294967295u;

  SUBCASE("one iteration") {
    o.iteration_id = 2;
    o.timestamp = "20260101120010";
    auto r = cv::export_summary(prof, o);
    REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.err().message));
    // a selection's outputs have their own folder, never beside the full ones
    const std::string sel = "selection_model4294967295_iteration2/";
    CHECK_FALSE(fs::exists(out_file(prof, "op_summary_20260101120010.csv")));
    CHECK(op_names(slurp(out_file(prof, sel + "op_summary_20260101120010.csv"))) ==
          std::set<std::string>{"Op_2_a", "Op_2_b"});
    const auto st = lines_of(slurp(out_file(prof, sel + "step_trace_20260101120010.csv")));
    REQUIRE(st.size() == 2);
    CHECK(cells_of(st[1]).at(1) == "2");
    const auto tt = lines_of(slurp(out_file(prof, sel + "task_time_20260101120010.csv")));
    CHECK(tt.size() == 3);
    for (const auto& w : r->warnings) CHECK(w.find("select nothing") == std::string::npos);
    // its README says which selection it holds
    const auto readme = slurp(out_file(prof, sel + "README.txt"));
    CHECK(readme.find("[20260101120010] msprof") != std::string::npos);
    CHECK(readme.find("--model-id=4294967295 --iteration-id=2") != std::string::npos);
    CHECK(readme.find("  op_summary_20260101120010.csv") != std::string::npos);
  }
  SUBCASE("three iterations") {
    o.iteration_id = 2;
    o.iteration_count = 3;
    o.timestamp = "20260101120011";
    REQUIRE(cv::export_summary(prof, o));
    const std::string sel = "selection_model4294967295_iteration2-4/";
    CHECK(op_names(slurp(out_file(prof, sel + "op_summary_20260101120011.csv"))) ==
          std::set<std::string>{"Op_2_a", "Op_2_b", "Op_3_a", "Op_3_b", "Op_4_a", "Op_4_b"});
    CHECK(lines_of(slurp(out_file(prof, sel + "step_trace_20260101120011.csv"))).size() == 4);
  }
  SUBCASE("the timeline keeps the range's tasks and their launching calls") {
    o.iteration_id = 3;
    o.timestamp = "20260101120012";
    REQUIRE(cv::export_timeline(prof, o));
    const auto all = slurp(out_file(prof, "selection_model4294967295_iteration3/msprof_20260101120012.json"));
    CHECK(all.find("\"Op_3_a\"") != std::string::npos);
    CHECK(all.find("\"Op_2_b\"") == std::string::npos);
    CHECK(all.find("\"Op_4_a\"") == std::string::npos);
    CHECK(all.find("\"Iteration 3\"") != std::string::npos);
    CHECK(all.find("\"Iteration 2\"") == std::string::npos);
  }
  SUBCASE("an iteration that does not exist is an error listing the available ones") {
    o.iteration_id = 3;
    o.iteration_count = 3;  // 3, 4, 5: 5 is missing
    auto r = cv::export_summary(prof, o);
    REQUIRE_FALSE(r);
    CHECK(r.err().code == msprof::errc::not_found);
    CHECK(r.err().message.find("has no iteration 5") != std::string::npos);
    CHECK(r.err().message.find("model 4294967295: iterations 1-4") != std::string::npos);
  }
  SUBCASE("another model id is an error too") {
    o.model_id = 1;
    o.iteration_id = 1;
    auto r = cv::export_db(prof, o);
    REQUIRE_FALSE(r);
    CHECK(r.err().message.find("model 1 has no iteration 1") != std::string::npos);
  }
}

TEST_CASE("step trace: iteration selection window by window equals the selection on the whole model") {
  temp_dir t;
  const auto prof = make_steps(t, 4);
  auto everything_of = [](const cv::model& m) {
    std::string s = cv::timeline_json(cv::build_timeline(m));
    for (const auto& tab : cv::all_summaries(m)) s += cv::csv_text(tab);
    return s;
  };
  std::size_t all_flows = 0;
  for (const auto& [first, count] : {std::pair{1u, 1u}, {2u, 1u}, {2u, 3u}, {4u, 1u}}) {
    CAPTURE(first);
    CAPTURE(count);
    cv::export_options o;
    o.model_id = 4294967295u;
    o.iteration_id = first;
    o.iteration_count = count;
    auto whole = load(prof);
    REQUIRE(cv::detail::select_iterations(whole, o));
    REQUIRE_FALSE(whole.tasks.empty());

    cv::load_options lo;
    lo.window_records = 1;  // a call and its tasks land in different windows
    std::optional<cv::detail::iteration_filter> filter;
    cv::model streamed;
    auto final_model = cv::load_windows(prof, lo, [&](cv::model& w) {
      if (!filter) {
        auto f = cv::detail::iteration_filter::choose(w, o);
        REQUIRE(f);
        filter.emplace(std::move(*f));
      }
      filter->apply(w);
      CHECK(w.iterations.size() == count);
      cv::detail::append_window(streamed, w);
    });
    REQUIRE(final_model);
    cv::detail::order_by_ids(streamed);
    streamed.session = final_model->session;
    filter->apply(*final_model);
    streamed.iterations = final_model->iterations;
    streamed.warnings = final_model->warnings;
    CHECK(everything_of(streamed) == everything_of(whole));
    // A flow for each kept task whose launching call was kept too.
    std::set<std::uint64_t> calls;
    std::size_t flows = 0, launched = 0;
    for (const auto& a : streamed.apis) {
      calls.insert(a.connection_id);
      flows += a.has_device_task;
    }
    for (const auto& k : streamed.tasks) launched += calls.count(k.connection_id);
    CHECK(flows == launched);
    all_flows += flows;
  }
  CHECK(all_flows > 0);
}

TEST_CASE("step trace: model-mode tags (model start/end, FP/BP) and unpaired step tags") {
  std::vector<cv::raw::step_tag_record> tags;
  auto add = [&](std::uint64_t model, std::uint64_t index, std::uint16_t tag, std::int64_t ns) {
    tags.push_back({0, model, index, tag, ns});
  };
  // Model 7: two iterations via model start, FP, BP, iteration end, FP, BP, model end.
  add(7, 0, cv::step_tag::model_start, 5000);
  add(7, 0, cv::step_tag::fp_start, 5200);
  add(7, 0, cv::step_tag::bp_end, 6000);
  add(7, 0, cv::step_tag::iteration_end, 7000);
  add(7, 0, cv::step_tag::fp_start, 7400);
  add(7, 0, cv::step_tag::bp_end, 8600);
  add(7, 0, cv::step_tag::model_end, 9000);
  // Step mode: step 9 has only a start.
  add(4294967295u, 9, cv::step_tag::step_start, 25000);
  std::vector<std::string> warnings;
  const auto v = cv::build_iterations(tags, warnings);
  REQUIRE(v.size() == 2);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("step 9") != std::string::npos);
  CHECK(v[0].model_id == 7);
  CHECK(v[0].iteration_id == 1);
  CHECK(v[0].start_ns == 5000);
  CHECK(v[0].fp_ns == 5200);
  CHECK(v[0].bp_ns == 6000);
  CHECK(v[0].end_ns == 7000);
  CHECK(v[0].data_aug_ns == 0);
  CHECK(v[1].iteration_id == 2);
  CHECK(v[1].start_ns == 7000);
  CHECK(v[1].fp_ns == 7400);
  CHECK(v[1].end_ns == 9000);
  CHECK(v[1].data_aug_ns == 400);  // FP start - end of iteration 1

  cv::model m;
  m.session.pid = 1;
  m.iterations = v;
  const auto t = cv::step_trace(m);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1] == std::vector<std::string>{"0", "2", "7.400\t", "8.600\t", "9.000\t", "2.000", "1.200",
                                               "0.400", "0.400", "7"});
  std::vector<cv::trace_event> ev;
  auto push = [&](cv::trace_event&& e) { ev.push_back(std::move(e)); };
  cv::emit_step_trace(m, push);
  std::set<std::string> names;
  for (const auto& e : ev) names.insert(e.name);
  CHECK(names.count("FP_BP Time 2") == 1);
  CHECK(names.count("Iteration Refresh 2") == 1);
  CHECK(names.count("Data_aug Bound 1") == 1);
  const auto json = cv::timeline_json(ev);
  CHECK(json.find("{\"name\":\"Data_aug Bound 1\",\"pid\":") != std::string::npos);
  CHECK(json.find("\"ph\":\"t\",\"cat\":\"Data_aug Bound\",\"id\":\"Data_aug Bound 1472_70007\",\"ts\":\"7.400\","
                  "\"args\":{\"Iteration ID\":2}}") != std::string::npos);
  CHECK(json.find("Step Trace(Model ID:7)") != std::string::npos);
}

TEST_CASE("step trace: a profiler session's recorded steps are the PROF_ directory's iterations") {
  temp_dir t;
  msprof::session::session_config c;
  c.output = t.path;
  c.drain_interval = std::chrono::milliseconds(5);
  std::vector<std::string> ready;
  msprof::session::profiler prof(c, msprof::session::schedule{1, 3, 1, 1, 0},
                                 [&](const std::string& dir) { ready.push_back(dir); });
  REQUIRE(static_cast<bool>(prof.start()));
  auto stream = prof.device().create_stream();
  REQUIRE(static_cast<bool>(stream));
  for (int step = 0; step < 5; ++step) {
    REQUIRE(static_cast<bool>(prof.device().launch(*stream, op("Step" + std::to_string(step)))));
    if (step < 4) REQUIRE(static_cast<bool>(prof.step()));
  }
  REQUIRE(static_cast<bool>(prof.stop()));
  REQUIRE(ready.size() == 1);
  const auto m = load(ready[0]);
  CHECK(m.warnings.empty());
  std::vector<std::uint32_t> ids;
  for (const auto& it : m.iterations) {
    CHECK(it.model_id == 4294967295u);
    ids.push_back(it.iteration_id);
  }
  // The ProfilerStep#N ranges and the device iterations name the same steps.
  std::vector<std::uint32_t> steps;
  for (const auto& e : m.mstx)
    if (e.domain == "ProfilerStep") steps.push_back(static_cast<std::uint32_t>(std::stoul(e.message.substr(13))));
  CHECK(!ids.empty());
  CHECK(ids == steps);
}

TEST_CASE("step trace: a step tag whose time cannot be placed is skipped and counted, like device tasks") {
  temp_dir t;
  const auto prof = make_steps(t, 3);
  // The first step-trace record (step 1 start): a cycle count far past the
  // int64 ns range once converted (timestamp at byte 8 of the 40-byte record).
  const auto file = prof + "/device_0/data/ts_track.data.0.slice_0";
  std::string bytes = slurp(file);
  std::size_t at = 0;
  while (at + codec::ts_track_size <= bytes.size() &&
         static_cast<std::uint8_t>(bytes[at + 1]) != codec::ts_track_step_func)
    at += codec::ts_track_size;
  REQUIRE(at + codec::ts_track_size <= bytes.size());
  const std::uint64_t huge = 0xFFFFFFFFFFFFFFF0ull;
  std::memcpy(&bytes[at + 8], &huge, sizeof huge);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;

  const auto m = load(prof);
  REQUIRE(m.iterations.size() == 2);  // step 1 lost its start
  CHECK(m.iterations[0].iteration_id == 2);
  bool counted = false, dropped = false;
  for (const auto& w : m.warnings) {
    counted |= w.rfind("1 step-trace (ts_track) record(s) have a timestamp that cannot be placed", 0) == 0;
    dropped |= w.find("step 1 of model 4294967295 has 0 start and 1 end") != std::string::npos;
  }
  CHECK(counted);
  CHECK(dropped);
}

TEST_CASE("exports never mix: each export of a directory gets a stamp no earlier file carries") {
  temp_dir t;
  const auto prof = make_steps(t, 2);
  cv::export_options o;  // no timestamp: now, or the next free second
  REQUIRE(cv::export_summary(prof, o));
  REQUIRE(cv::export_timeline(prof, o));
  REQUIRE(cv::export_summary(prof, o));
  std::set<std::string> stamps;
  for (const auto& e : fs::directory_iterator(fs::path(prof) / "mindstudio_profiler_output")) {
    const std::string n = e.path().filename().string();
    if (n.rfind("op_summary_", 0) == 0 || n.rfind("msprof_2", 0) == 0) stamps.insert(n.substr(n.rfind('_') + 1, 14));
  }
  CHECK(stamps.size() == 3);  // two summaries and a timeline, in three stamps
  // README.txt keeps a section per export, each listing its own files
  const auto readme = slurp(out_file(prof, "README.txt"));
  for (const auto& s : stamps) CHECK(readme.find("[" + s + "] msprof") != std::string::npos);
}

namespace {

/// Device 0's NIC, RoCE, HCCS, PCIe, HBM, LLC and NPU MEM samples and data
/// preprocess lines at `local` times (ns) added to `prof`, and the host's CPU
/// and memory usage of the golden case host_usage.
void add_slices(const std::string& prof, const std::vector<std::int64_t>& local) {
  auto r = prof::prof_reader::open(prof);
  REQUIRE(r);
  const std::int64_t shift = static_cast<std::int64_t>(r->host().clock.anchor_ns) -
                             static_cast<std::int64_t>(r->devices().at(0).clock.anchor_ns) + r->host().wall_offset_ns();
  std::string nic = "timestamp bandwidth rxPacket/s rxByte/s rxPackets rxBytes rxErrors rxDropped "
                    "txPacket/s txByte/s txPackets txBytes txErrors txDropped funcId\n";
  std::string hccs = "timestamp(ns) txAmount(B) rxAmount(B)\n", pcie, dp;
  std::uint64_t k = 0;
  for (const std::int64_t at : local) {
    const std::string ns = std::to_string(at - shift);
    ++k;
    nic += ns + ": 100 10 1000 " + std::to_string(10 * k) + " " + std::to_string(1000 * k) + " 0 0 20 2000 " +
           std::to_string(20 * k) + " " + std::to_string(2000 * k) + " 0 0 0\n";
    hccs += ns + ": " + std::to_string(1000000 * k) + " " + std::to_string(500000 * k) + "\n";
    codec::PcieSample p;
    p.timestamp = static_cast<std::uint64_t>(at - shift);
    for (auto& v : p.values) v = static_cast<std::uint32_t>(k);
    golden_memory::append(pcie, codec::encode_device(p));
    dp += "[" + ns + "] Last queue dequeue, source:s, index:" + std::to_string(k) + ", size:" + std::to_string(k) + "\n";
    dp += '\0';
  }
  const fs::path P(prof);
  golden_memory::write_slice(P, prof::stream::nic(0), nic);
  golden_memory::write_slice(P, prof::stream::roce(0), nic);
  golden_memory::write_slice(P, prof::stream::hccs(0), hccs);
  golden_memory::write_slice(P, prof::stream::pcie(0), pcie);
  const fs::path data = P / "device_0" / "data";
  std::ofstream(data / "DATA_PREPROCESS.dev.DP.0.slice_0", std::ios::binary) << dp;
  std::ofstream(data / "DATA_PREPROCESS.dev.DP.0.slice_0.done") << "filesize:" << dp.size() << "\n";
  const fs::path usage = fs::path(MSPROF_TEST_DATA_DIR) / "golden/host_usage/input/PROF_000001_20260101120000000_GOLDENCASEAAAAAA/host/data";
  for (const char* f : {"host_cpu.data.slice_0", "host_cpu.data.slice_0.done", "host_mem.data.slice_0", "host_mem.data.slice_0.done"})
    fs::copy_file(usage / f, P / "host" / "data" / f);
  // Sampled in µs after the device's start: HBM (read and write of HBM 0), LLC (the 8 read events of LLC 0), NPU MEM.
  const std::int64_t start = static_cast<std::int64_t>(r->host().clock.anchor_ns) + r->host().wall_offset_ns();
  std::string hbm, llc, npu_mem;
  k = 0;
  for (const std::int64_t at : local) {
    const auto us = static_cast<std::uint64_t>((at - start) / 1000);
    ++k;
    for (std::uint32_t event : {0u, 1u}) {
      codec::HbmSample h;
      h.timestampUs = us;
      h.count = 1000 * k * k;
      h.eventId = event;
      h.hbmId = 0;
      golden_memory::append(hbm, codec::encode_device(h));
    }
    for (std::uint32_t event : {0x00u, 0x01u, 0x02u, 0x13u, 0x20u, 0x22u, 0x34u, 0x36u})
      golden_memory::append(llc, codec::encode_device(codec::LlcSample{us, 100 * k * k, event, 0}));
    codec::NpuMem n;
    n.sampleTimeUs = static_cast<std::uint32_t>(us);
    n.event = 0;
    n.ddr = 1024 * k;
    n.hbm = 2048 * k;
    golden_memory::append(npu_mem, codec::encode_device(n));
  }
  golden_memory::write_slice(P, prof::stream::hbm(0), hbm);
  golden_memory::write_slice(P, prof::stream::llc(0), llc);
  golden_memory::write_slice(P, prof::stream::npu_mem(0), npu_mem);
  golden_memory::add_sample_fields(P, "\"hbm_profiling\": \"on\", \"hbm_profiling_events\": \"read,write\"");
  golden_memory::replace_in(P / "device_0" / "sample.json", "\"llc_profiling\": \"\"", "\"llc_profiling\": \"read\"");
}

/// The three iterations of make_steps(t, 3) at `prof`, with add_slices'
/// samples in the middle of each and at the ends of the first two (iteration
/// 2's range is [end of 1, end of 2): a sample at each bound).
cv::model steps_with_slices(const std::string& prof) {
  auto m = load(prof);
  REQUIRE(m.iterations.size() == 3);
  const auto mid = [](const cv::iteration& i) { return (i.start_ns + i.end_ns) / 2; };
  add_slices(prof, {mid(m.iterations[0]), m.iterations[0].end_ns, mid(m.iterations[1]), m.iterations[1].end_ns,
                    mid(m.iterations[2])});
  return m;
}

/// The local times (ns) of the counters of process `sort` (device 0, or the host) in msprof JSON `text`.
std::multiset<std::int64_t> counter_times(const std::string& text, std::uint32_t sort, std::uint32_t dev = 0) {
  auto v = msprof::json::parse(text);
  REQUIRE(v);
  const std::uint64_t pid = cv::format_pid(4242, sort, dev);
  std::multiset<std::int64_t> out;
  for (const auto& e : v->items()) {
    if (e.get("ph").as_string_or("") != "C" || e.get("pid").text() != std::to_string(pid)) continue;
    std::string ts = e.get("ts").as_string_or("");
    ts.erase(ts.find('.'), 1);  // µs with 3 decimals: ns
    out.insert(std::stoll(ts));
  }
  return out;
}

/// Whether process `sort` of device 0 has its process_name metadata in `text`.
bool has_process(const std::string& text, std::uint32_t sort) {
  return text.find("{\"name\":\"process_name\",\"pid\":" + std::to_string(cv::format_pid(4242, sort, 0)) + ",") !=
         std::string::npos;
}

}  // namespace

TEST_CASE("iteration selection: the device counters of the timeline are those in the iterations' range, the host's all") {
  // The reference's timeline with a selection (its Python path) filters every
  // device event but metadata by the range, start <= ts < end
  // (MsprofTimeline.add_export_data, is_in_iteration); the host it exports
  // unselected (_start_view: ALL_EXPORT for the host path).
  temp_dir t;
  const auto prof = make_steps(t, 3);
  const auto m = steps_with_slices(prof);
  const auto& it1 = m.iterations[0];
  const auto& it2 = m.iterations[1];
  cv::export_options o;
  o.timestamp = "20260101120020";
  REQUIRE(cv::export_timeline(prof, o));
  const auto all = slurp(out_file(prof, "msprof_20260101120020.json"));
  o.model_id = 4294967295u;
  o.iteration_id = 2;
  o.timestamp = "20260101120021";
  REQUIRE(cv::export_timeline(prof, o));
  const auto sel = slurp(out_file(prof, "selection_model4294967295_iteration2/msprof_20260101120021.json"));
  using cv::sort_index::hbm, cv::sort_index::hccs, cv::sort_index::llc, cv::sort_index::nic, cv::sort_index::npu_mem,
      cv::sort_index::pcie, cv::sort_index::roce;
  for (const std::uint32_t sort : {npu_mem, hccs, nic, roce, pcie, hbm, llc}) {
    CAPTURE(sort);
    const auto full = counter_times(all, sort);
    REQUIRE_FALSE(full.empty());
    std::multiset<std::int64_t> inside;
    for (const auto ts : full)
      if (ts >= it1.end_ns && ts < it2.end_ns) inside.insert(ts);
    CHECK_FALSE(inside.empty());
    CHECK(inside.size() < full.size());
    CHECK(counter_times(sel, sort) == inside);
    CHECK(has_process(sel, sort));
  }
  // AI Core Freq's counters are narrowed the same way: at the collection's
  // start and end (each twice, as the reference writes them), both outside
  // the range; its process stays.
  REQUIRE(counter_times(all, cv::sort_index::ai_core_freq).size() == 4);
  CHECK(counter_times(sel, cv::sort_index::ai_core_freq).empty());
  CHECK(has_process(sel, cv::sort_index::ai_core_freq));
  // The PCIe sample at the range's start is kept (its 4 counters), the one at its end is not.
  CHECK(counter_times(sel, pcie).count(it1.end_ns) == 4);
  CHECK(counter_times(sel, pcie).count(it2.end_ns) == 0);
  for (const std::uint32_t sort : {cv::sort_index::cpu_usage, cv::sort_index::memory_usage}) {
    CAPTURE(sort);
    const auto host = counter_times(all, sort, cv::host_device_bits);
    REQUIRE_FALSE(host.empty());
    CHECK(counter_times(sel, sort, cv::host_device_bits) == host);
  }
}

TEST_CASE("iteration selection: the summaries read from the slices are the whole collection's, as the reference's") {
  // None of the reference's summary handlers of these kinds takes the
  // iteration (msprof_export_data.py: _get_nic_data, _get_roce_data,
  // _get_hccs_data, _get_pcie_data, _get_hbm_data, _get_llc_data,
  // _get_npu_mem_data, _get_npu_module_mem_data, _get_dp_data,
  // _get_l2_cache_data, _get_soc_pmu_data, _get_host_*_usage_data).
  temp_dir t;
  const auto prof = make_steps(t, 3);
  steps_with_slices(prof);
  // The slices of the golden cases l2_cache, soc_pmu (device 0) and host_io (host disk and network usage).
  const auto copy = [&](const char* c, const char* dir, std::initializer_list<const char*> names) {
    const fs::path from = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / c / "input" /
                          "PROF_000001_20260101120000000_GOLDENCASEAAAAAA" / dir / "data";
    for (const char* n : names)
      for (const std::string& f : {std::string(n), std::string(n) + ".done"})
        fs::copy_file(from / f, fs::path(prof) / dir / "data" / f);
  };
  copy("l2_cache", "device_0", {"l2_cache.data.0.slice_0", "l2_cache.data.0.slice_1"});
  copy("soc_pmu", "device_0", {"socpmu.data.0.slice_0", "socpmu.data.0.slice_1"});
  copy("host_io", "host", {"host_disk.data.slice_0", "host_disk.data.slice_1", "host_network.data.slice_0",
                           "host_network.data.slice_1"});
  golden_memory::add_sample_fields(fs::path(prof), "\"l2CacheTaskProfiling\": \"on\", \"l2CacheTaskProfilingEvents\": "
                                                   "\"0xfb, 0x9C,0xfc,0x90,0x91\", \"npuEvents\": \"SMMU: 0x8C,0x2 ,0x8a, 0x8d\"");
  cv::export_options o;
  o.timestamp = "20260101120030";
  REQUIRE(cv::export_summary(prof, o));
  o.model_id = 4294967295u;
  o.iteration_id = 2;
  REQUIRE(cv::export_summary(prof, o));
  for (const std::string name : {"nic", "roce", "hccs", "pcie", "hbm", "llc_read_write", "npu_mem", "npu_module_mem", "dp",
                                 "l2_cache", "soc_pmu", "host_cpu_usage", "host_mem_usage", "host_disk_usage",
                                 "host_network_usage"}) {
    CAPTURE(name);
    const std::string file = name + "_20260101120030.csv";
    const auto whole = slurp(out_file(prof, file));
    REQUIRE(lines_of(whole).size() > 1);
    CHECK(slurp(out_file(prof, "selection_model4294967295_iteration2/" + file)) == whole);
  }
  CHECK(lines_of(slurp(out_file(prof, "dp_20260101120030.csv"))).size() == 1 + 5);
  // page_fault is written by the reference's C++ path only, which it takes
  // for a whole export only (ExportSummaryScene): none with a selection.
  CHECK(lines_of(slurp(out_file(prof, "page_fault_20260101120030.csv"))).size() > 1);
  CHECK_FALSE(fs::exists(out_file(prof, "selection_model4294967295_iteration2/page_fault_20260101120030.csv")));
}

TEST_CASE("iteration selection: the chrome form's device counters are those in the range too") {
  temp_dir t;
  const auto prof = make_steps(t, 3);
  steps_with_slices(prof);
  const auto pcie_counters = [](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = text.find("\"PCIe_cpl\""); at != std::string::npos; at = text.find("\"PCIe_cpl\"", at + 1)) ++n;
    return n;
  };
  cv::export_options o;
  o.chrome = true;
  o.timestamp = "20260101120040";
  {
    auto r = cv::export_timeline(prof, o);
    REQUIRE_MESSAGE(r, (r ? std::string() : r.err().message));
  }
  CHECK(pcie_counters(slurp(out_file(prof, "chrome_trace_20260101120040.json"))) == 5);
  o.model_id = 4294967295u;
  o.iteration_id = 2;
  REQUIRE(cv::export_timeline(prof, o));
  // The samples at the end of iteration 1 and in the middle of iteration 2.
  const auto sel = slurp(out_file(prof, "selection_model4294967295_iteration2/chrome_trace_20260101120040.json"));
  CHECK(pcie_counters(sel) == 2);
  // AI Core Freq's counters (at the collection's start and end) are outside the range.
  CHECK(slurp(out_file(prof, "chrome_trace_20260101120040.json")).find("\"MHz\"") != std::string::npos);
  CHECK(sel.find("\"MHz\"") == std::string::npos);
}

TEST_CASE("iteration selection: the timeline's DDR counters are those in the range") {
  // DDR apart: its data is read on other chips only (platform_version 4 here).
  temp_dir t;
  const auto prof = make_steps(t, 3);
  const auto m = load(prof);
  REQUIRE(m.iterations.size() == 3);
  const auto& it1 = m.iterations[0];
  const auto& it2 = m.iterations[1];
  auto r = prof::prof_reader::open(prof);
  REQUIRE(r);
  const std::int64_t start = static_cast<std::int64_t>(r->host().clock.anchor_ns) + r->host().wall_offset_ns();
  std::string ddr;
  std::uint32_t k = 0;
  for (const auto& i : m.iterations)
    for (const std::int64_t at : {(i.start_ns + i.end_ns) / 2, i.end_ns + 1000}) {
      const auto us = static_cast<std::uint32_t>((at - start) / 1000);
      ++k;
      golden_memory::append(ddr, codec::encode_device(codec::DdrSample{us, 100 * k, 0, 0, 0xFFFFFFFFu}));
      golden_memory::append(ddr, codec::encode_device(codec::DdrSample{us, 50 * k, 1, 0, 0xFFFFFFFFu}));
    }
  const fs::path P(prof);
  golden_memory::write_slice(P, prof::stream::ddr(0), ddr);
  golden_memory::replace_in(P / "device_0" / "info.json.0", "\"platform_version\": \"5\"", "\"platform_version\": \"4\"");
  golden_memory::add_sample_fields(P, "\"ddr_profiling\": \"on\"");
  cv::export_options o;
  o.timestamp = "20260101120050";
  REQUIRE(cv::export_timeline(prof, o));
  const auto full = counter_times(slurp(out_file(prof, "msprof_20260101120050.json")), cv::sort_index::ddr);
  REQUIRE(full.size() == 2 * 6);  // DDR/Read and DDR/Write per time
  o.model_id = 4294967295u;
  o.iteration_id = 2;
  REQUIRE(cv::export_timeline(prof, o));
  std::multiset<std::int64_t> inside;
  for (const auto ts : full)
    if (ts >= it1.end_ns && ts < it2.end_ns) inside.insert(ts);
  CHECK(inside.size() == 2 * 2);  // after iteration 1's end, and the middle of iteration 2
  CHECK(counter_times(slurp(out_file(prof, "selection_model4294967295_iteration2/msprof_20260101120050.json")),
                      cv::sort_index::ddr) == inside);
}

namespace {

/// Writes device 0's AI CPU slice of `prof`: one kernel per [start, end] (local ns), task ids 1, 2, ...
void add_aicpu_kernels(const std::string& prof, const std::vector<std::pair<std::int64_t, std::int64_t>>& spans) {
  auto r = prof::prof_reader::open(prof);
  REQUIRE(r);
  const auto& d = r->devices().at(0);
  const std::int64_t offset = r->host().wall_offset_ns();
  std::string bytes;
  std::uint16_t task = 0;
  for (const auto& [b, e] : spans) {
    codec::MsprofAicpuNodeAdditionalData k;
    k.streamId = 2;
    k.taskId = ++task;
    k.runStartTick = d.clock.ticks_at(static_cast<std::uint64_t>(b - offset));
    k.runEndTick = d.clock.ticks_at(static_cast<std::uint64_t>(e - offset));
    k.submitTick = k.scheduleTick = k.tickBeforeRun = k.runStartTick;
    k.tickAfterRun = k.runEndTick;
    k.computeStartTime = 1000;
    k.memcpyStartTime = 1005;
    k.memcpyEndTime = 1006;
    const auto a = codec::encode_aicpu_node(7, k.runEndTick, k);
    bytes.append(reinterpret_cast<const char*>(a.data()), a.size());
  }
  const auto dir = fs::path(prof) / prof::layout::device_dir(0) / prof::layout::data_dir;
  const std::string name = prof::layout::slice_file(prof::stream::aicpu(0).base_name(), 0);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  std::ofstream(dir / (name + prof::layout::done_suffix)) << "filesize:" << bytes.size() << "\n";
}

/// The Task ID column of aicpu_<ts>.csv `file`.
std::vector<std::string> aicpu_tasks(const std::string& file) { return column_of(slurp(file), 9); }

}  // namespace

TEST_CASE("iteration selection: aicpu keeps the kernels that start and end inside the iterations, as the reference") {
  // ParseAiCpuData._get_aicpu_data: sys_start >= the iterations' first
  // step_start and sys_end <= their last step_end (MsprofIteration.get_iter_interval;
  // step_start 0 when the selection starts at iteration 1:
  // TsTrackModel.get_step_syscnt_range_by_iter_range).
  temp_dir t;
  const auto prof = make_steps(t, 3);
  const auto m = load(prof);
  REQUIRE(m.iterations.size() == 3);
  const auto& i1 = m.iterations[0];
  const auto& i2 = m.iterations[1];
  const auto& i3 = m.iterations[2];
  const auto mid = [](const cv::iteration& i) { return (i.start_ns + i.end_ns) / 2; };
  add_aicpu_kernels(prof, {
                              {i1.start_ns - 2000, mid(i1)},    // 1: starts before iteration 1
                              {mid(i1), i1.end_ns - 1000},      // 2: inside iteration 1
                              {i2.start_ns, i2.end_ns},         // 3: exactly iteration 2
                              {mid(i2), i3.start_ns + 1000},    // 4: ends in iteration 3
                              {i2.start_ns - 1000, mid(i2)},    // 5: starts before iteration 2
                              {mid(i3), i3.end_ns - 1000},      // 6: inside iteration 3
                          });
  cv::export_options o;
  o.timestamp = "20260101120030";
  REQUIRE(cv::export_summary(prof, o));
  CHECK(aicpu_tasks(out_file(prof, "aicpu_20260101120030.csv")).size() == 6);
  o.model_id = 4294967295u;
  o.iteration_id = 2;
  o.timestamp = "20260101120031";
  REQUIRE(cv::export_summary(prof, o));
  CHECK(aicpu_tasks(out_file(prof, "selection_model4294967295_iteration2/aicpu_20260101120031.csv")) ==
        std::vector<std::string>{"3"});
  o.iteration_count = 2;
  o.timestamp = "20260101120032";
  REQUIRE(cv::export_summary(prof, o));
  CHECK(aicpu_tasks(out_file(prof, "selection_model4294967295_iteration2-3/aicpu_20260101120032.csv")) ==
        std::vector<std::string>{"3", "4", "6"});
  // Iteration 1: from the device counter's zero, so the kernel before it is kept.
  o.iteration_id = 1;
  o.iteration_count = 1;
  o.timestamp = "20260101120033";
  REQUIRE(cv::export_summary(prof, o));
  CHECK(aicpu_tasks(out_file(prof, "selection_model4294967295_iteration1/aicpu_20260101120033.csv")) ==
        std::vector<std::string>{"1", "2"});
}
