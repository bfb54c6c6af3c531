// SPDX-License-Identifier: MIT
// convert/hccl_analyze: communication.json and communication_matrix.json of
// the hccl_allreduce golden case equal the reference's as JSON values, and
// write_analysis() writes them and communication_analyzer.db there; the
// wait / synchronization split and RDMA payload runs on made-up tasks.
#include <doctest/doctest.h>
#include <msprof/convert/db.hpp>
#include <msprof/convert/hccl_analyze.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/core/json.hpp>
#include <msprof/prof/reader.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/hccl_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "../convert/golden_util.hpp"

namespace fs = std::filesystem;
namespace cv = msprof::convert;
namespace hc = msprof::convert::hccl;
namespace js = msprof::json;

namespace {


// Equal as values: the same members in the same order, numbers equal as doubles.
void check_same(const js::value& got, const js::value& want, const std::string& at) {
  INFO(at);
  REQUIRE(got.type() == want.type());
  switch (want.type()) {
    case js::kind::number: {
      double g = 0, w = 0;
      REQUIRE(got.to_double(g));
      REQUIRE(want.to_double(w));
      CHECK(g == w);
      break;
    }
    case js::kind::string:
      CHECK(got.text() == want.text());
      break;
    case js::kind::array:
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) check_same(got.at(i), want.at(i), at + "[" + std::to_string(i) + "]");
      break;
    case js::kind::object:
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(got.members()[i].first == want.members()[i].first);
        check_same(got.members()[i].second, want.members()[i].second, at + "/" + want.members()[i].first);
      }
      break;
    default:
      break;
  }
}

hc::analysis golden_analysis() {
  const fs::path prof = hccl_prof::case_dir() / "input" / hccl_prof::name;
  auto m = cv::load_model(prof.string());
  REQUIRE(m);
  auto r = msprof::prof::prof_reader::open(prof.string());
  REQUIRE(r);
  auto in = hc::read_inputs(*r, *m);
  REQUIRE(in);
  const auto c = hc::link(*in);
  return hc::analyze(c, 0, m->session.start_ns);
}

hc::comm_task task(std::string name, std::int64_t b, std::int64_t e, std::uint32_t plane = 0) {
  hc::comm_task t;
  t.op_name = "hcom_send__1_0_1";
  t.group = "g";
  t.group_hash = 7;
  t.name = std::move(name);
  t.start_ns = b;
  t.end_ns = e;
  t.has_info = true;
  t.info.planeID = plane;
  t.info.localRank = 0;
  t.info.remoteRank = 1;
  t.info.linkType = 3;       // ROCE
  t.info.transportType = 1;  // RDMA
  return t;
}

}  // namespace

TEST_CASE("hccl analyze: communication.json and communication_matrix.json equal the reference's") {
  const auto a = golden_analysis();
  REQUIRE(a.ops.size() == 3);  // two collectives and the total
  for (const char* f : {"communication.json", "communication_matrix.json"}) {
    const std::string name = f;
    const std::string text = name == "communication.json" ? hc::communication_json(a) : hc::communication_matrix_json(a);
    auto got = js::parse(text, name);
    REQUIRE_MESSAGE(got, text);
    const std::string want_text = read_text(hccl_prof::case_dir() / "expected" / "analyze" / f);
    auto want = js::parse(want_text, name);
    REQUIRE(want);
    check_same(*got, *want, name);
    CHECK(text == want_text);  // and the same bytes: ints stay "0", floats print as Python's repr
  }
}

TEST_CASE("hccl analyze: waits before the first transfer are synchronization, RDMA payload runs are one transfer") {
  hc::communication c;
  // A master plane: a wait, a payload run of two closed by a send's third task, a wait.
  c.tasks.push_back(task("Notify_Wait", 0, 1000));
  for (int k = 0; k < 2; ++k) {
    auto t = task("RDMASend", 1000 + k * 1000, 1500 + k * 1000);
    t.info.rdmaType = 1;  // RDMA_SEND_PAYLOAD
    t.info.dataSize = 1000000;
    c.tasks.push_back(t);
  }
  c.tasks.push_back(task("RDMASend", 3000, 3500));
  c.tasks.push_back(task("Notify_Wait", 3500, 5000));
  c.tasks.push_back(task("Notify_Wait", 5000, 6000));
  for (auto& t : c.tasks) t.master = true;
  // Before the collection: not counted.
  c.tasks.insert(c.tasks.begin(), task("Notify_Wait", -100, -50));
  const auto a = hc::analyze(c, 0, 0);
  REQUIRE(a.ops.size() == 2);
  const auto& o = a.ops[0];
  CHECK(o.name == "hcom_send__1_0_1");
  CHECK(o.sync_ms.v == doctest::Approx(0.001));
  CHECK(o.wait_ms.v == doctest::Approx(0.002));  // the first wait and the last; the closing one is inside the run
  CHECK(o.transit_ms.v == doctest::Approx(0.004));  // 1000 .. 5000: a send's run closes 3 tasks on
  CHECK(o.elapse_ms.v == doctest::Approx(0.006));
  const auto& rdma = o.bandwidth[0];
  CHECK(rdma.size_mb.v == doctest::Approx(2.0));
  CHECK(rdma.bandwidth.v == doctest::Approx(500.0));  // 2 MB in 4 us
  CHECK(rdma.large_packet_ratio.v == 1.0);  // 2 MB > 0.5 MB
  REQUIRE(a.matrix.size() == 2);
  REQUIRE(a.matrix[0].links.size() == 1);
  CHECK(a.matrix[0].links[0].key == "0-1");
  CHECK(std::string(hc::matrix_transport_name(a.matrix[0].links[0].transport)) == "RDMA");
  const std::string j = hc::communication_json(a);
  CHECK(j.find("\"hcom_send__1_0_1@7\"") != std::string::npos);
  CHECK(j.find("\"Total HCCL Operators\"") != std::string::npos);
}

TEST_CASE("hccl analyze: nothing on the device, no files") {
  hc::communication c;
  c.tasks.push_back(task("Memcpy", 0, 10));
  const auto a = hc::analyze(c, 1, 0);
  CHECK(a.ops.empty());
  CHECK(hc::communication_json(a).empty());
  CHECK(hc::communication_matrix_json(a).empty());
}

namespace {

/// The golden case's input, copied into `tmp` (the analysis writes into it):
/// the PROF_ directory `name` there.
fs::path copy_input(const temp_dir& tmp, const fs::path& case_dir, const char* name) {
  fs::copy(case_dir / "input", tmp.path, fs::copy_options::recursive);
  return tmp / name;
}

/// The lines of the case's expected communication_analyzer db, canonical.
std::vector<std::string> expected_analyzer_db(const fs::path& case_dir) {
  return golden::lines(read_text(case_dir / "expected" / "analyze" / "communication_analyzer.canonical.sql"));
}

/// `prof`'s analyze/ files equal the case's expected ones.
void check_analyze_dir(const fs::path& prof, const fs::path& case_dir) {
  const fs::path want = case_dir / "expected" / "analyze";
  for (const char* f : {"communication.json", "communication_matrix.json"})
    CHECK(read_text(prof / "analyze" / f) == read_text(want / f));
  CHECK(golden::canonical_db(prof / "analyze" / "communication_analyzer.db") == expected_analyzer_db(case_dir));
}

}  // namespace

TEST_CASE("hccl analyze: write_analysis writes the reference's analyze directory") {
  const temp_dir tmp("msprof_hccl_analyze");
  const fs::path prof = copy_input(tmp, hccl_prof::case_dir(), hccl_prof::name);
  auto w = hc::write_analysis(prof.string());
  REQUIRE_MESSAGE(w, (w ? "" : w.err().message));
  CHECK(w->warnings.empty());
  REQUIRE(w->files.size() == 3);
  check_analyze_dir(prof, hccl_prof::case_dir());
  // Again over its own output with the matrix rule and --type=db: the db replaced, holding the matrix only.
  hc::analyze_options o;
  o.text = false;
  o.communication = false;
  auto again = hc::write_analysis(prof.string(), o);
  REQUIRE(again);
  CHECK(again->files.size() == 1);
  std::vector<std::string> matrix_only;
  for (const auto& l : expected_analyzer_db(hccl_prof::case_dir()))
    if (l.find("CommAnalyzerMatrix") != std::string::npos) matrix_only.push_back(l);
  CHECK(golden::canonical_db(prof / "analyze" / "communication_analyzer.db") == matrix_only);
}

TEST_CASE("hccl analyze: several groups' collectives as the reference analyses them (hccl_groups)") {
  const temp_dir tmp("msprof_hccl_groups");
  const fs::path prof = copy_input(tmp, hccl_prof::groups_case_dir(), hccl_prof::groups_name);
  // Both devices: device 0 is analysed, and device 1 is said to be left out.
  auto both = hc::write_analysis(prof.string());
  REQUIRE_MESSAGE(both, (both ? "" : both.err().message));
  REQUIRE(both->warnings.size() == 1);
  CHECK(both->warnings[0].find("device 1 left out") != std::string::npos);
  // Device 0 alone (the reference's files were made so: it merges two devices'
  // collectives of the same name into one).
  fs::remove_all(prof / "device_1");
  auto w = hc::write_analysis(prof.string());
  REQUIRE_MESSAGE(w, (w ? "" : w.err().message));
  CHECK(w->warnings.empty());
  check_analyze_dir(prof, hccl_prof::groups_case_dir());
}

TEST_CASE("hccl analyze: a collection without HCCL data writes nothing and says so") {
  const auto dir = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "ops_pipeutil" / "input";
  fs::path prof;
  for (const auto& e : fs::directory_iterator(dir)) prof = e.path();
  auto w = hc::write_analysis(prof.string());
  REQUIRE(w);
  CHECK(w->files.empty());
  REQUIRE(w->warnings.size() == 1);
  CHECK(w->warnings[0].find("no HCCL data") != std::string::npos);
  CHECK_FALSE(fs::exists(prof / "analyze"));
}

TEST_CASE("hccl analyze: a missing directory is an error naming it") {
  auto w = hc::write_analysis("/nonexistent/PROF_x");
  REQUIRE_FALSE(w);
  CHECK(w.err().message.find("/nonexistent/PROF_x") != std::string::npos);
}

TEST_CASE("hccl analyze: torch_npu's communication.json and communication_matrix.json by step") {
  const auto a = golden_analysis();
  const fs::path want = hccl_prof::case_dir() / "expected" / "pt_communication";
  struct variant_case {
    const char* dir;
    std::vector<hc::pt_step> steps;
  };
  // Two steps: the first collective (start ...300 us) in step 1, the second (...500 us) in step 2.
  const variant_case cases[] = {
      {"no_steps", {}},
      {"two_steps",
       {hc::pt_step{"1", 1767268800000000000, 1767268800000400000},
        hc::pt_step{"2", 1767268800000400001, 1767268800001000000}}}};
  for (const auto& c : cases) {
    const std::string dir = c.dir;
    CAPTURE(dir);
    const auto f = hc::pt_communication_json(a, c.steps);
    for (const char* name : {"communication.json", "communication_matrix.json"}) {
      const std::string file = name;
      CAPTURE(file);
      const std::string got = file == "communication.json" ? f.communication : f.matrix;
      const std::string expected = read_text(want / dir / file);
      auto g = js::parse(got, file);
      REQUIRE_MESSAGE(g, got);
      auto w = js::parse(expected, file);
      REQUIRE(w);
      check_same(*g, *w, dir + "/" + file);
      CHECK(got == expected);
    }
  }
  // A step holding no collective has empty parts; one holding only the total (its start is 0) gets an empty
  // matrix entry after the others (the matrix goes by collective, the total last).
  const auto f = hc::pt_communication_json(
      a, {hc::pt_step{"9", 0, 1}, hc::pt_step{"1", 1767268800000000000, 1767268800001000000}});
  CHECK(f.communication.rfind("{\"step9\": {\"p2p\": {}, \"collective\": {}}, \"step1\": ", 0) == 0);
  const std::string tail = ", \"step9\": {\"p2p\": {}, \"collective\": {}}}";
  CHECK(f.matrix.compare(f.matrix.size() - tail.size(), tail.size(), tail) == 0);
  const auto g = hc::pt_communication_json(
      a, {hc::pt_step{"9", 5, 6}, hc::pt_step{"1", 1767268800000000000, 1767268800001000000}});
  CHECK(g.matrix.find("step9") == std::string::npos);
  CHECK(hc::pt_communication_json(hc::analysis{}, {}).communication.empty());
}

TEST_CASE("hccl analyze: torch_npu's analysis.db CommAnalyzer tables by step") {
  const auto a = golden_analysis();
  const fs::path want = hccl_prof::case_dir() / "expected" / "pt_communication";
  const std::vector<hc::pt_step> two = {hc::pt_step{"1", 1767268800000000000, 1767268800000400000},
                                        hc::pt_step{"2", 1767268800000400001, 1767268800001000000}};
  for (const char* dir : {"no_steps", "two_steps"}) {
    const std::string d = dir;
    CAPTURE(d);
    const auto tables = hc::pt_analyzer_tables(a, d == "two_steps" ? two : std::vector<hc::pt_step>{});
    const fs::path db = fs::temp_directory_path() / ("msprof_pt_comm_" + std::to_string(::getpid()) + ".db");
    fs::remove(db);
    {
      msprof::convert::detail::sqlite_db w(db.string());
      REQUIRE(w.open());
      for (const auto& t : tables) {
        REQUIRE(w.exec(t.create));
        if (!t.rows.empty()) REQUIRE(w.insert(t.name, t.rows.front().size(), t.rows));
      }
      REQUIRE(w.close());
    }
    CHECK(golden::canonical_db(db) == golden::lines(read_text(want / d / "analysis.canonical.sql")));
    fs::remove(db);
  }
}

TEST_CASE("hccl analyze: write_pt_communication writes torch_npu's two files from the linked collectives") {
  const fs::path prof = hccl_prof::case_dir() / "input" / hccl_prof::name;
  auto m = cv::load_model(prof.string());
  REQUIRE(m);
  auto r = msprof::prof::prof_reader::open(prof.string());
  REQUIRE(r);
  auto in = hc::read_inputs(*r, *m);
  REQUIRE(in);
  const auto c = hc::link(*in);
  const fs::path out = fs::temp_directory_path() / ("msprof_pt_comm_out_" + std::to_string(::getpid()));
  fs::remove_all(out);
  fs::create_directories(out);
  auto w = hc::write_pt_communication(out.string(), c, m->session.start_ns, {});
  REQUIRE_MESSAGE(w, (w ? "" : w.err().message));
  CHECK(w->size() == 2);
  const fs::path want = hccl_prof::case_dir() / "expected" / "pt_communication" / "no_steps";
  for (const char* f : {"communication.json", "communication_matrix.json"}) CHECK(read_text(out / f) == read_text(want / f));
  // Nothing linked: nothing written.
  auto none = hc::write_pt_communication((out / "missing").string(), hc::communication{}, 0, {});
  REQUIRE(none);
  CHECK(none->empty());
  // A missing output directory is an error naming it.
  auto bad = hc::write_pt_communication((out / "missing").string(), c, m->session.start_ns, {});
  REQUIRE_FALSE(bad);
  CHECK(bad.err().message.find("missing") != std::string::npos);
  fs::remove_all(out);
}
