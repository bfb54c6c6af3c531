// SPDX-License-Identifier: MIT
// convert/hccl on the hccl_allreduce golden case: the collectives and small
// tasks linked from the loaded model and the raw HCCL records equal the
// reference's (its Communication timeline process as a multiset of events,
// communication_statistic.csv byte for byte, the db's resolved COMMUNICATION_OP
// and COMMUNICATION_TASK_INFO rows).
#include <doctest/doctest.h>
#include <msprof/convert/hccl.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/timeline_json.hpp>
#include <msprof/prof/reader.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/hccl_prof.hpp"
#include "../../support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace cv = msprof::convert;
namespace hc = msprof::convert::hccl;

namespace {

fs::path prof_dir() { return hccl_prof::case_dir() / "input" / hccl_prof::name; }

// The top-level objects of a compact JSON array, as text.
std::vector<std::string> array_items(const std::string& json) {
  std::vector<std::string> out;
  int depth = 0;
  bool in_str = false, esc = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '{') {
      if (depth++ == 1 - 1) start = i;
    } else if (c == '}') {
      if (--depth == 0) out.push_back(json.substr(start, i - start + 1));
    }
  }
  return out;
}

struct loaded {
  cv::model m;
  hc::communication c;
};

loaded link_case() {
  loaded l;
  auto m = cv::load_model(prof_dir().string());
  REQUIRE(m);
  l.m = std::move(*m);
  auto r = msprof::prof::prof_reader::open(prof_dir().string());
  REQUIRE(r);
  auto in = hc::read_inputs(*r, l.m);
  REQUIRE(in);
  CHECK(in->infos.size() == 8);
  CHECK(in->op_infos.size() == 2);
  CHECK(in->group_names.size() == 1);
  l.c = hc::link(*in);
  return l;
}

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

}  // namespace

TEST_CASE("hccl: the golden case's collectives, tasks and bandwidths") {
  const auto l = link_case();
  CHECK(l.c.warnings.empty());
  REQUIRE(l.c.ops.size() == 2);
  REQUIRE(l.c.tasks.size() == 8);
  CHECK(l.c.ops[0].name == "hcom_allReduce__123_0_1_322_0_1");
  CHECK(l.c.ops[1].name == "hcom_allReduce__123_0_1_322_1_1");
  CHECK(l.c.ops[0].end_ns - l.c.ops[0].start_ns == 48500);
  CHECK(l.c.tasks[1].bandwidth == doctest::Approx(52.4288).epsilon(1e-15));
}

TEST_CASE("hccl: the Communication timeline process equals the reference's") {
  const auto l = link_case();
  std::vector<cv::trace_event> events;
  auto collect = [&](cv::trace_event&& e) { events.push_back(std::move(e)); };
  cv::detail::output_ref<decltype(collect)> out(collect);
  hc::emit_timeline(l.c, l.m.session.pid, 0, out);
  std::vector<std::string> got;
  for (const auto& e : events) {
    std::string s;
    cv::append_event_json(s, e);
    got.push_back(s);
  }
  std::vector<std::string> want;
  for (auto& e : array_items(read_text(hccl_prof::case_dir() / "expected" / "msprof.json")))
    if (e.find("\"pid\":1536,") != std::string::npos) want.push_back(e);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  REQUIRE(want.size() == 21);  // 3 process + 6 thread metadata, 2 collectives + 2 flow ends, 8 tasks
  CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    INFO(i);
    CHECK(got[i] == want[i]);
  }
}

TEST_CASE("hccl: communication_statistic equals the reference's") {
  const auto l = link_case();
  CHECK(hc::statistic_csv(l.c, 0, l.m.session.start_ns) ==
        read_text(hccl_prof::case_dir() / "expected" / "communication_statistic.csv"));
  CHECK(hc::statistic_csv(l.c, 1, l.m.session.start_ns).empty());
}

TEST_CASE("hccl: the db rows the reference writes, resolved") {
  const auto l = link_case();
  std::string got;
  for (const auto& op : l.c.ops)
    got += op.name + "|" + std::to_string(op.start_ns) + "|" + std::to_string(op.end_ns) + "|" +
           std::to_string(op.connection_id) + "|" + op.group + "|" + std::to_string(op.relay) + "|" +
           std::to_string(op.retry) + "|" + std::to_string(op.data_type) + "|" + op.alg_type + "|" +
           std::to_string(op.count) + "|" + op.op_type + "|" + std::to_string(op.device_id) + "|" +
           std::to_string(op.rank_size) + "\n";
  for (const auto& t : l.c.tasks) {
    const auto& i = t.info;
    got += t.op_name + "|" + std::to_string(t.stream_id) + "|" + std::to_string(t.task_id) + "|" + t.name + "|" +
           std::to_string(i.planeID) + "|" + std::to_string(i.notifyID) + "|" + std::to_string(i.rdmaType) + "|" +
           std::to_string(i.localRank) + "|" + std::to_string(i.remoteRank) + "|" + std::to_string(i.transportType) +
           "|" + std::to_string(i.dataSize) + "|" + std::to_string(i.dataType) + "|" + std::to_string(i.linkType) + "|" +
           t.op_name + "|" + (t.master ? "1" : "0") + "|" + g17(t.bandwidth * 1e9) + "\n";
  }
  CHECK(got == read_text(hccl_prof::case_dir() / "expected" / "communication_db.txt"));
}

TEST_CASE("hccl: no HCCL calls, nothing linked") {
  std::vector<cv::api_call> apis(1);
  apis[0].level = cv::level::node;
  apis[0].end_ns = 10;
  std::vector<cv::device_task> tasks(1);
  tasks[0].track_ns = 5;
  hc::inputs in;
  in.apis = &apis;
  in.tasks = &tasks;
  const auto c = hc::link(in);
  CHECK(c.ops.empty());
  CHECK(c.tasks.empty());
  CHECK(hc::statistic_csv(c, 0, 0).empty());
}

namespace {

cv::api_call call(std::uint16_t lv, const char* name, const char* item, std::int64_t b, std::int64_t e, std::uint64_t id) {
  cv::api_call a;
  a.level = lv;
  a.thread_id = 1;
  a.name = name;
  a.item = item;
  a.start_ns = b;
  a.end_ns = e;
  a.connection_id = id;
  return a;
}

}  // namespace

TEST_CASE("hccl: RDMA payload tasks share the bandwidth up to their closing task") {
  std::vector<cv::api_call> apis = {call(cv::level::node, "launch", "hcom_send_", 1, 1000, 1)};
  std::vector<cv::device_task> tasks;
  hc::inputs in;
  for (int k = 0; k < 4; ++k) {
    apis.push_back(call(cv::level::hccl, "master", "RDMASend", 10 + 20 * k, 20 + 20 * k, 2 + k));
    cv::device_task t;
    t.thread_id = 1;
    t.track_ns = 15 + 20 * k;
    t.stream_id = 4;
    t.task_id = static_cast<std::uint32_t>(k);
    t.start_ns = 100 + 100 * k;
    t.end_ns = t.start_ns + 50;
    tasks.push_back(t);
    hc::info_record i;
    i.thread_id = 1;
    i.ts_ns = 12 + 20 * k;
    i.name = "RDMASend";
    i.payload.ctxID = msprof::codec::context_id_none;
    i.payload.dataSize = 1000;
    i.payload.rdmaType = k < 2 ? 1 : 0;  // two payloads, then notifies
    in.infos.push_back(i);
  }
  in.apis = &apis;
  in.tasks = &tasks;
  const auto c = hc::link(in);
  CHECK(c.warnings.empty());
  REQUIRE(c.tasks.size() == 4);
  // A send closes 3 tasks on: the two payloads' 2000 bytes over 100 .. 450 ns.
  CHECK(c.tasks[0].bandwidth == doctest::Approx(2000.0 / 350.0));
  CHECK(c.tasks[1].bandwidth == doctest::Approx(2000.0 / 350.0));
  CHECK(c.tasks[2].bandwidth == doctest::Approx(20.0));
  CHECK(c.tasks[3].bandwidth == doctest::Approx(20.0));
  REQUIRE(c.ops.size() == 1);
  CHECK(c.ops[0].name == "hcom_send__0_0_1");  // group hash 0: its decimal text "0"
  CHECK(c.ops[0].start_ns == 100);
  CHECK(c.ops[0].end_ns == 450);
  CHECK_FALSE(c.ops[0].has_info);
}

TEST_CASE("hccl: what cannot be linked is left out with a warning") {
  std::vector<cv::api_call> apis = {call(cv::level::hccl, "master", "Memcpy", 10, 20, 1),   // in no node call
                                    call(cv::level::node, "launch", "hcom_x_", 100, 200, 2),
                                    call(cv::level::hccl, "master", "Memcpy", 110, 120, 3)};  // FFTS+ records only
  std::vector<cv::device_task> tasks(2);
  tasks[0].thread_id = tasks[1].thread_id = 1;
  tasks[0].track_ns = 15;
  tasks[1].track_ns = 115;
  hc::inputs in;
  hc::info_record i;
  i.thread_id = 1;
  i.ts_ns = 112;
  i.payload.ctxID = 3;
  in.infos.push_back(i);
  in.apis = &apis;
  in.tasks = &tasks;
  const auto c = hc::link(in);
  CHECK(c.tasks.empty());
  CHECK(c.ops.empty());
  REQUIRE(c.warnings.size() == 2);
  CHECK(c.warnings[0].find("outside any node-level call") != std::string::npos);
  CHECK(c.warnings[1].find("FFTS+") != std::string::npos);
}

TEST_CASE("hccl: overlap lanes merge the collectives and split a free gap around them") {
  hc::communication c;
  auto op = [](std::int64_t b, std::int64_t e, std::uint32_t dev) {
    hc::comm_op o;
    o.start_ns = b;
    o.end_ns = e;
    o.device_id = dev;
    return o;
  };
  c.ops = {op(100, 200, 0), op(150, 250, 0), op(400, 500, 0), op(0, 1000, 1)};
  const hc::overlap_lanes lanes(c, 0);
  using span = hc::overlap_lanes::span;
  CHECK(lanes.communication_spans() == std::vector<span>{{100, 250}, {400, 500}});  // device 1's is not there
  // A gap 50..450: communication not overlapped 100..250 and 400..450, free 50..100 and 250..400.
  const auto s = lanes.free_gap(50, 450);
  CHECK(s.not_overlapped == std::vector<span>{{100, 250}, {400, 450}});
  CHECK(s.free == std::vector<span>{{50, 100}, {250, 400}});
  // A gap inside a collective is all communication; one outside them all free.
  CHECK(lanes.free_gap(160, 170).free.empty());
  CHECK(lanes.free_gap(260, 300).free == std::vector<span>{{260, 300}});
  CHECK(lanes.free_gap(260, 300).not_overlapped.empty());
}

TEST_CASE("hccl: the collector fed tiny windows links what link() links on the whole model") {
  const auto whole = link_case();
  for (std::size_t per : {1u, 2u, 3u, 7u}) {
    CAPTURE(per);
    auto c = hc::collector::open(prof_dir().string());
    REQUIRE(c);
    CHECK(c->active());
    cv::load_options lo;
    lo.window_records = per;  // a task may come in a window before its HCCL call's
    auto final = cv::load_windows(prof_dir().string(), lo, [&](cv::model& w) { c->add(w); });
    REQUIRE(final);
    auto got = c->finish(*final);
    REQUIRE(got);
    CHECK(got->warnings.empty());
    REQUIRE(got->ops.size() == whole.c.ops.size());
    REQUIRE(got->tasks.size() == whole.c.tasks.size());
    for (std::size_t i = 0; i < got->ops.size(); ++i) {
      CHECK(got->ops[i].name == whole.c.ops[i].name);
      CHECK(got->ops[i].op_type == whole.c.ops[i].op_type);
      CHECK(got->ops[i].start_ns == whole.c.ops[i].start_ns);
      CHECK(got->ops[i].end_ns == whole.c.ops[i].end_ns);
      CHECK(got->ops[i].connection_id == whole.c.ops[i].connection_id);
    }
    for (std::size_t i = 0; i < got->tasks.size(); ++i) {
      CHECK(got->tasks[i].op_name == whole.c.tasks[i].op_name);
      CHECK(got->tasks[i].name == whole.c.tasks[i].name);
      CHECK(got->tasks[i].bandwidth == whole.c.tasks[i].bandwidth);
    }
  }
}

TEST_CASE("hccl: a collection without hccl_info gives an idle collector") {
  const auto dir = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "ops_pipeutil" / "input";
  fs::path prof;
  for (const auto& e : fs::directory_iterator(dir)) prof = e.path();
  auto c = hc::collector::open(prof.string());
  REQUIRE(c);
  CHECK_FALSE(c->active());
  auto m = cv::load_model(prof.string());
  REQUIRE(m);
  c->add(*m);
  auto got = c->finish(*m);
  REQUIRE(got);
  CHECK(got->ops.empty());
  CHECK(got->tasks.empty());
}
