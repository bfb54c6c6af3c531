// SPDX-License-Identifier: MIT
// The SoC exports of a soc::job built here: every file name, column list and
// timeline field against docs/soc.md's tables (which copy the SoC tool's
// manual), Memory Bound by its formula, the "-" total row, N/A cells, and the
// JSON forms parse and carry numeric ts.
#include <doctest/doctest.h>
#include <msprof/convert/soc/export.hpp>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace cv = msprof::convert;
namespace soc = msprof::convert::soc;
namespace fs = std::filesystem;

namespace {

/// The backticked first cells of the table after `<!-- marker -->` in docs/soc.md.
std::vector<std::string> doc_table(const std::string& marker) {
  const std::string doc = read_text(fs::path(MSPROF_TEST_SOURCE_DIR) / "docs" / "soc.md");
  auto at = doc.find("<!-- " + marker + " -->");
  REQUIRE_MESSAGE(at != std::string::npos, marker);
  std::istringstream in(doc.substr(at));
  std::string line;
  std::getline(in, line);  // the marker
  std::vector<std::string> cells;
  while (std::getline(in, line) && !line.empty() && line[0] == '|') {
    const auto b = line.find('`'), e = line.find('`', b + 1);
    if (b != std::string::npos && e != std::string::npos && b < line.find('|', 1)) cells.push_back(line.substr(b + 1, e - b - 1));
  }
  return cells;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  out.push_back(cell);
  return out;
}

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::istringstream in(read_text(p));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(split_csv_line(line));
  return rows;
}

soc::layer_task task(std::uint32_t id, std::uint32_t layer, const std::string& name, const std::string& type,
                     std::int64_t start, std::int64_t end, std::uint64_t iteration, bool pmu) {
  soc::layer_task t;
  t.task_id = id;
  t.layer_id = layer;
  t.layer_name = name;
  t.ori_layer_name = name + "_ori";
  t.layer_type = "Convolution";
  t.task_type = type;
  t.iteration = iteration;
  t.start_ns = start;
  t.end_ns = end;
  if (pmu) {
    soc::aa_metrics m;
    m.mac_busy = 0.5, m.mac_ppen = 0.4, m.vec_busy = 0.2, m.vec_ppen = 0.1;
    m.dstr = 0.3, m.dtrans = 0.05, m.dld = 0.6, m.wld = 0.25;
    m.ddr_read_bytes = 1000, m.ddr_write_bytes = 24;
    t.pmu = m;
  }
  return t;
}

soc::job sample_job(const std::string& dir) {
  soc::job j;
  j.dir = dir;
  j.device_id = 2;
  j.pid = 4321;
  j.frequency_mhz = 1000.2;
  j.aac_metrics = "ArithmeticUtilization";
  j.finished = true;
  j.acl.push_back({4321, 77, "svp_acl_init", "runtime", 1000, 5000});
  j.acl.push_back({4321, 77, "svp_acl_mdl_load_from_mem", "model", 6000, 106000});
  j.acl.push_back({4321, 77, "svp_acl_mdl_execute", "model", 200000, 230000});
  j.acl.push_back({4321, 77, "svp_acl_mdl_execute", "model", 300000, 310000});
  soc::job_model_run m;
  m.model_id = 1;
  m.model_file_name = "/models/resnet.50.om";
  m.batch_num = 2;
  m.input_pic_num = 8;
  m.current_pic_count = 2;
  m.icache_miss_rate = 0.0125;
  m.tasks.push_back(task(0, 0, "conv1", "AA CORE", 200000, 210000, 1, true));
  m.tasks.push_back(task(1, 1, "pool1", "AA Vector Core", 210000, 215000, 1, true));
  m.tasks.push_back(task(2, 2, "argmax", "AA CPU", 215000, 225000, 1, false));
  m.tasks.push_back(task(3, 0, "conv1", "AA CORE", 300000, 306000, 2, true));
  m.tasks.push_back(task(4, 1, "pool1", "AA Vector Core", 306000, 307000, 2, true));
  m.tasks.push_back(task(5, 2, "argmax", "AA CPU", 307000, 309000, 2, false));
  j.models.push_back(m);
  return j;
}

std::set<std::string> names_in(const fs::path& d) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec)) out.insert(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("soc export summary: file names and columns as docs/soc.md gives them") {
  temp_dir t("soc_export");
  const auto j = sample_job(t.path);
  auto r = soc::export_summary(j);
  REQUIRE_MESSAGE(r, r.err().what());
  CHECK(r->files.size() == 3);
  // {model_file_name}: no directory, no .om, '.' -> '_'; icache 1.25 % -> 1p25; frequency 1000 MHz; iter_id 2.
  const std::set<std::string> expected = {"op_summary_2.resnet_50.1.2.8.2.1p25.1000.csv", "acl_statistic_2_1_2.csv",
                                          "op_statistic_2_1_2_2.csv"};
  CHECK(names_in(t / "summary") == expected);

  const auto ops = read_csv(t / "summary" / "op_summary_2.resnet_50.1.2.8.2.1p25.1000.csv");
  REQUIRE(ops.size() == 5);  // header, 3 layers, total
  CHECK(ops[0] == doc_table("columns op_summary"));
  CHECK(ops[0] == soc::op_summary_columns());
  // conv1: two tasks of 10 us and 6 us.
  CHECK(ops[1][0] == "0");
  CHECK(ops[1][1] == "conv1_ori");
  CHECK(ops[1][2] == "conv1");
  CHECK(ops[1][4] == "16.000");
  CHECK(ops[1][6] == "50.00");  // Mac Busy Ratio, %
  // Memory Bound = max(30, 60, 25) / max(50, 10) = 1.2
  CHECK(ops[1][14] == "1.200");
  CHECK(ops[1][15] == "2000");
  CHECK(ops[1][16] == "48");
  CHECK(ops[1][17] == "2048");
  // the AA CPU layer has no counters
  CHECK(ops[3][2] == "argmax");
  CHECK(ops[3][6] == "N/A");
  CHECK(ops[3][14] == "N/A");
  CHECK(ops[3][17] == "N/A");
  // the total row: 16 + 6 + 12 us; shares add up
  CHECK(ops[4][0] == "-");
  CHECK(ops[4][4] == "34.000");
  CHECK(ops[4][5] == "100.00");
  CHECK(ops[1][5] == "47.06");
  CHECK(ops[4][17] == "4096");

  const auto acl = read_csv(t / "summary" / "acl_statistic_2_1_2.csv");
  CHECK(acl[0] == doc_table("columns acl_statistic"));
  REQUIRE(acl.size() == 4);
  CHECK(acl[1][3] == "svp_acl_mdl_load_from_mem");  // longest first
  CHECK(acl[2][3] == "svp_acl_mdl_execute");
  CHECK(acl[2][2] == "model");
  CHECK(acl[2][6] == "2");
  CHECK(acl[2][5] == "40.000");
  CHECK(acl[2][7] == "20.000");
  CHECK(acl[2][8] == "30.000");
  CHECK(acl[2][9] == "10.000");

  const auto st = read_csv(t / "summary" / "op_statistic_2_1_2_2.csv");
  CHECK(st[0] == doc_table("columns op_statistic"));
  REQUIRE(st.size() == 4);
  CHECK(st[1][3] == "AA_CORE");
  CHECK(st[2][3] == "AA_VECTOR_CORE");
  CHECK(st[3][3] == "AA_CPU");
  CHECK(st[3][0] == "2");
  CHECK(st[1][6] == "2");
}

TEST_CASE("soc export summary --format json: the same rows, numbers as numbers") {
  temp_dir t("soc_export");
  const auto j = sample_job(t.path);
  auto r = soc::export_summary(j, "json");
  REQUIRE_MESSAGE(r, r.err().what());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.load((t / "summary" / "op_summary_2.resnet_50.1.2.8.2.1p25.1000.json").string()).get(doc));
  simdjson::dom::array rows;
  REQUIRE(!doc.get_array().get(rows));
  CHECK(rows.size() == 4);
  double mb = 0;
  CHECK(!rows.at(0)["Memory Bound"].get_double().get(mb));
  CHECK(mb == doctest::Approx(1.2));
  std::string_view na;
  CHECK(!rows.at(2)["Mac Busy Ratio"].get_string().get(na));
  CHECK(na == "N/A");
  std::string_view total;
  CHECK(!rows.at(3)["Layer Id"].get_string().get(total));
  CHECK(total == "-");
  CHECK(!soc::export_summary(j, "xml"));
}

TEST_CASE("soc export timeline: task_time and acl files with the documented fields") {
  temp_dir t("soc_export");
  const auto j = sample_job(t.path);
  auto r = soc::export_timeline(j);
  REQUIRE_MESSAGE(r, r.err().what());
  const std::set<std::string> expected = {"task_time_2.resnet_50.1.2.json", "acl_2.resnet_50.1.2.json"};
  CHECK(names_in(t / "timeline") == expected);

  const auto task_fields = doc_table("fields task_time");
  const auto acl_fields = doc_table("fields acl");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(!parser.load((t / "timeline" / "task_time_2.resnet_50.1.2.json").string()).get(doc));
  std::size_t spans = 0, meta = 0;
  std::set<std::string> types;
  for (auto ev : doc.get_array()) {
    std::string_view ph;
    REQUIRE(!ev["ph"].get_string().get(ph));
    if (ph == "M") {
      ++meta;
      continue;
    }
    REQUIRE(ph == "X");
    ++spans;
    for (const auto& f : task_fields) CHECK_MESSAGE(!ev[f].error(), f);
    double ts = 0, dur = 0;
    CHECK(!ev["ts"].get_double().get(ts));  // a number, as viewers need
    CHECK(!ev["dur"].get_double().get(dur));
    CHECK(dur > 0);
    std::string_view type;
    CHECK(!ev["args"]["Task Type"].get_string().get(type));
    types.emplace(type);
    int64_t stream = -1, id = -1;
    CHECK(!ev["args"]["Stream Id"].get_int64().get(stream));
    CHECK(!ev["args"]["Task Id"].get_int64().get(id));
  }
  CHECK(spans == 6);
  CHECK(meta == 4);  // the process and its three units
  CHECK(types == std::set<std::string>{"AA CORE", "AA Vector Core", "AA CPU"});
  // ts in µs: the first task starts at 200000 ns
  double first_ts = 0;
  for (auto ev : doc.get_array())
    if (ev["ph"].get_string().value() == "X") {
      first_ts = ev["ts"].get_double().value();
      break;
    }
  CHECK(first_ts == doctest::Approx(200.0));

  REQUIRE(!parser.load((t / "timeline" / "acl_2.resnet_50.1.2.json").string()).get(doc));
  spans = 0;
  for (auto ev : doc.get_array()) {
    if (ev["ph"].get_string().value() != "X") continue;
    ++spans;
    for (const auto& f : acl_fields) CHECK_MESSAGE(!ev[f].error(), f);
    for (const char* a : {"Mode", "Process_Id", "Thread_Id"}) CHECK_MESSAGE(!ev["args"][a].error(), a);
  }
  CHECK(spans == 4);
}

TEST_CASE("soc export: a file is written only when its data exists") {
  temp_dir t("soc_export");
  auto j = sample_job(t.path);
  j.acl.clear();
  for (auto& task : j.models[0].tasks) task.pmu.reset();
  auto r = soc::export_summary(j);
  REQUIRE(r);
  CHECK(names_in(t / "summary") == std::set<std::string>{"op_statistic_2_1_2_2.csv"});
  CHECK(r->warnings.size() == 2);
  auto tl = soc::export_timeline(j);
  REQUIRE(tl);
  CHECK(names_in(t / "timeline") == std::set<std::string>{"task_time_2.resnet_50.1.2.json"});
}

TEST_CASE("soc export: ACL calls without a model run go under model 0") {
  temp_dir t("soc_export");
  auto j = sample_job(t.path);
  j.models.clear();
  auto r = soc::export_summary(j);
  REQUIRE(r);
  CHECK(names_in(t / "summary") == std::set<std::string>{"acl_statistic_2_0_0.csv"});
  auto tl = soc::export_timeline(j);
  REQUIRE(tl);
  CHECK(names_in(t / "timeline") == std::set<std::string>{"acl_2.unknown.0.0.json"});
}

TEST_CASE("soc export: an output directory that is a link is refused, naming it") {
  temp_dir t("soc_export");
  const auto j = sample_job(t.path);
  fs::create_directory(t / "elsewhere");
  fs::create_directory_symlink(t / "elsewhere", t / "summary");
  auto r = soc::export_summary(j);
  REQUIRE(!r);
  CHECK(r.err().message.find("summary") != std::string::npos);
  CHECK(fs::is_empty(t / "elsewhere"));
}

TEST_CASE("soc show: the four views") {
  temp_dir t("soc_export");
  const auto j = sample_job(t.path);
  const std::string text = soc::show_text(j, false);
  for (const char* view : {"AA core metric", "Op statistic", "Acl statistic", "Frequency"})
    CHECK_MESSAGE(text.find(view) != std::string::npos, view);
  CHECK(text.find("svp_acl_mdl_execute") != std::string::npos);
  CHECK(text.find("conv1") != std::string::npos);
  CHECK(text.find("1.25") != std::string::npos);  // icache miss rate, %
}
