// SPDX-License-Identifier: MIT
// CANN's memory data (npu_module_mem samples, GE's task_memory_info events)
// against the golden case `npu_memory`: its input is what
// tests/support/golden_memory.hpp writes, its expected files the reference's.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/npu_memory.hpp>

#include <algorithm>
#include <fstream>

#include "../../support/golden_memory.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

const char* const kNpuMemoryCase = "npu_memory";

/// The canonical dump's lines of one table (its CREATE and INSERTs).
std::vector<std::string> table_lines(const std::vector<std::string>& dump, const std::string& table) {
  std::vector<std::string> v;
  for (const auto& l : dump)
    if (l.rfind("CREATE TABLE " + table + " ", 0) == 0 || l.rfind("INSERT INTO " + table + " ", 0) == 0)
      v.push_back(l);
  return v;
}

/// `file` with its one `from` replaced by `to`.
void replace_in(const path& file, const std::string& from, const std::string& to) {
  std::string text = golden::slurp(file);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  std::ofstream(file, std::ios::trunc | std::ios::binary) << text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("npu_memory: the golden input is what the generator writes") {
  golden::temp_copy base("ops_pipeutil");
  golden_memory::add_records(base.prof);
  golden::temp_copy ours(kNpuMemoryCase);
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("npu_memory: every summary, the db and the timeline equal the reference") {
  golden::temp_copy t(kNpuMemoryCase);
  golden::export_everything(t);
  CHECK(golden::check_csvs(t, kNpuMemoryCase) == 7);
  const auto exp_dir = golden::case_dir(kNpuMemoryCase) / "expected";
  // Row counts: 9 samples, one before the start; 10 GE events, all kept by the
  // summaries; 6 operator_memory blocks (4 released, 2 not).
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv"))).size() == 1 + 8);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "memory_record", "csv"))).size() == 1 + 10);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "operator_memory", "csv"))).size() == 1 + 6);
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  const auto exp = golden::lines(golden::slurp(exp_dir / "db.canonical.sql"));
  CHECK(got == exp);
  CHECK(table_lines(got, "NPU_MODULE_MEM").size() == 1 + 8);
  CHECK(table_lines(got, "NPU_OP_MEM").size() == 1 + 9);  // the event before the start left out
  std::string e1, e2;
  const auto a = golden::canonical_timeline(golden::slurp(exp_dir / "msprof.json"), e1);
  const auto b = golden::canonical_timeline(golden::slurp(golden::output(t.prof, "msprof", "json")), e2);
  REQUIRE(e1.empty());
  REQUIRE_MESSAGE(e2.empty(), e2);
  CHECK(a == b);
}

TEST_CASE("npu_memory: a cut npu_module_mem sample is a warning naming the file, and the whole ones are kept") {
  golden::temp_copy t(kNpuMemoryCase);
  const auto slice = t.prof / "device_0" / "data" / "npu_module_mem.data.0.slice_0";
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << std::string(10, '\x01');
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  bool named = false;
  for (const auto& w : s->warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 216") != std::string::npos;
  CHECK(named);
  CHECK(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv")) ==
        golden::slurp(golden::case_dir(kNpuMemoryCase) / "expected" / "npu_module_mem.csv"));
}

TEST_CASE("npu_memory: module names are the db's ENUM_MODULE, Unknown otherwise") {
  CHECK(std::string(cv::module_name(45)) == "GE");
  CHECK(std::string(cv::module_name(77)) == "CUSTOM");
  CHECK(std::string(cv::module_name(46)) == "Unknown");
  CHECK(cv::module_names().size() == 65);
}

TEST_CASE("npu_memory: with two devices the summaries hold GE's rows once per device directory, as the reference") {
  golden::temp_copy base("ops_pipeutil", "_2dev_gen");
  golden_memory::add_records(base.prof);
  golden_memory::add_second_device(base.prof);
  golden::temp_copy t("npu_memory_2dev");
  for (const auto& e : golden::fs::recursive_directory_iterator(t.prof)) {  // the input is the generator's
    if (!e.is_regular_file()) continue;
    const auto rel = golden::fs::relative(e.path(), t.prof);
    CAPTURE(rel.string());
    CHECK(golden::slurp(base.prof / rel) == golden::slurp(e.path()));
  }
  const auto o = golden::fixed_ts();
  auto s = cv::export_summary(t.prof.string(), o);
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  auto d = cv::export_db(t.prof.string(), o);
  REQUIRE_MESSAGE(d.has_value(), d.err().what());
  CHECK(golden::check_csvs(t, "npu_memory_2dev") == 7);
  const auto exp_dir = golden::case_dir("npu_memory_2dev") / "expected";
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "memory_record", "csv"))).size() == 1 + 2 * 10);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "operator_memory", "csv"))).size() == 1 + 2 * 6);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv"))).size() == 1 + 2 * 8);
  // The db: every table but the two whose connection ids the reference's run numbered from 6 (its quirk).
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  const auto exp = golden::lines(golden::slurp(exp_dir / "db.canonical.sql"));
  const auto without_ids = [](std::vector<std::string> v) {
    v.erase(std::remove_if(v.begin(), v.end(),
                           [](const std::string& l) {
                             return l.rfind("INSERT INTO CANN_API ", 0) == 0 || l.rfind("INSERT INTO TASK ", 0) == 0;
                           }),
            v.end());
    return v;
  };
  CHECK(without_ids(got) == without_ids(exp));
  CHECK(table_lines(got, "NPU_MODULE_MEM").size() == 1 + 2 * 8);
  CHECK(table_lines(got, "NPU_OP_MEM").size() == 1 + 9);
}

TEST_CASE("npu_mem: the golden input is npu_memory's plus the generator's npu_mem samples") {
  golden::temp_copy base("npu_memory", "_npu_mem_gen");
  golden_memory::add_app_samples(base.prof);
  golden::temp_copy ours("npu_mem");
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("npu_mem: the npu_mem summary, every other summary and the db equal the reference") {
  golden::temp_copy t("npu_mem");
  golden::export_everything(t);
  CHECK(golden::check_csvs(t, "npu_mem") == 8);
  // 9 samples from the collection start on; the reference's float sum rounds
  // the times to 256 ns (50 µs -> 49.920).
  const auto csv = golden::lines(golden::slurp(golden::output(t.prof, "npu_mem", "csv")));
  REQUIRE(csv.size() == 1 + 9);
  CHECK(csv[3] == "0,APP,0,2048,2049,1767268800000049.920\t");
  const auto got = golden::canonical_db(t.prof / "msprof_T.db");
  CHECK(got == golden::lines(golden::slurp(golden::case_dir("npu_mem") / "expected" / "db.canonical.sql")));
  CHECK(table_lines(got, "NPU_MEM").size() == 1 + 9);
  // The NPU MEM process: its metadata and three counters per sample, as a multiset.
  std::string e1, e2;
  const auto a = golden::canonical_timeline(golden::slurp(golden::case_dir("npu_mem") / "expected" / "msprof.json"), e1);
  const auto b = golden::canonical_timeline(golden::slurp(golden::output(t.prof, "msprof", "json")), e2);
  REQUIRE(e1.empty());
  REQUIRE_MESSAGE(e2.empty(), e2);
  CHECK(a == b);
  CHECK(std::count_if(b.begin(), b.end(), [](const std::string& l) { return l.find("\"APP/HBM\"") != std::string::npos; }) == 5);
}

TEST_CASE("npu_mem: a device's samples are placed by its own host_start.log, dev_start.log and start_info") {
  // The reference's Python parsers load the device directory's files
  // (InfoConfReader.load_info(device_<id>)). Device 0's host_start.log.0 is
  // 5 µs later than the host's, its dev_start.log.0 1 µs (samples are stamped
  // after it: no move) and its start_info.0's clockMonotonicRaw 2 µs: 3 µs
  // later, rounded as its doubles round. The times are a run of the reference
  // on this collection; the host's files are unchanged.
  golden::temp_copy t("npu_mem");
  const path dev = t.prof / "device_0";
  const std::string raw = "clock_monotonic_raw: 1000000000000";
  replace_in(dev / "host_start.log.0", raw, "clock_monotonic_raw: 1000000005000");
  replace_in(dev / "dev_start.log.0", raw, "clock_monotonic_raw: 1000000001000");
  replace_in(dev / "start_info.0", R"("clockMonotonicRaw": "1000000000000")", R"("clockMonotonicRaw": "1000000002000")");
  std::vector<std::string> warnings;
  std::vector<std::int64_t> times;
  REQUIRE(cv::for_each_npu_mem(t.prof.string(), warnings, [&](const cv::npu_mem_sample& m) -> msprof::result<void> {
            if (std::find(times.begin(), times.end(), m.time_ns) == times.end()) times.push_back(m.time_ns);
            return {};
          }).has_value());
  CHECK(warnings.empty());
  std::sort(times.begin(), times.end());
  CHECK(times == std::vector<std::int64_t>{1767268800000003072, 1767268800000052992, 1767268800000125952,
                                           1767268800000203008, 1767268800001001984});
}

TEST_CASE("npu_mem: an event other than APP and Device is Unknown in the summary and its number in the db") {
  golden::temp_copy t("npu_mem");
  const auto slice = t.prof / "device_0" / "data" / "npu_mem.data.0.slice_0";
  {
    std::fstream f(slice, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4);  // the first sample's event
    const char seven[4] = {7, 0, 0, 0};
    f.write(seven, 4);
  }
  golden::export_everything(t);
  const auto csv = golden::lines(golden::slurp(golden::output(t.prof, "npu_mem", "csv")));
  REQUIRE(csv.size() == 1 + 9);
  CHECK(csv[1] == "0,Unknown,0,1024,1024,1767268800000000.000\t");
  const auto rows = table_lines(golden::canonical_db(t.prof / "msprof_T.db"), "NPU_MEM");
  CHECK(std::count_if(rows.begin(), rows.end(), [](const std::string& l) {
          return l.rfind("INSERT INTO NPU_MEM VALUES(7,0,1048676,", 0) == 0;
        }) == 1);
}

TEST_CASE("npu_mem: a cut sample is a warning naming the file, and the whole ones are kept") {
  golden::temp_copy t("npu_mem");
  const auto slice = t.prof / "device_0" / "data" / "npu_mem.data.0.slice_0";
  golden::fs::remove(slice.string() + ".done");
  std::ofstream(slice, std::ios::app | std::ios::binary) << std::string(10, '\x01');
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(s.has_value());
  bool named = false;
  for (const auto& w : s->warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 288") != std::string::npos;
  CHECK(named);
  CHECK(golden::slurp(golden::output(t.prof, "npu_mem", "csv")) ==
        golden::slurp(golden::case_dir("npu_mem") / "expected" / "npu_mem.csv"));
  auto tl = cv::export_timeline(t.prof.string(), golden::fixed_ts());  // the NPU MEM counters read the same slice
  REQUIRE(tl.has_value());
  named = false;
  for (const auto& w : tl->warnings) named = named || w.find(slice.string() + ": truncated record at byte offset 288") != std::string::npos;
  CHECK(named);
}

TEST_CASE("static_op_mem: the golden input is npu_memory's plus the generator's static_op_mem records") {
  golden::temp_copy base("npu_memory", "_static_gen");
  golden_memory::add_static_op_mem(base.prof);
  golden::temp_copy ours("static_op_mem");
  golden::check_same_files(base.prof, ours.prof);
}

TEST_CASE("static_op_mem: the summary, every other summary and the db equal the reference") {
  golden::temp_copy t("static_op_mem");
  golden::export_everything(t);
  CHECK(golden::check_csvs(t, "static_op_mem") == 8);
  // 6 records, once ("host"): names through hash_dic, opName 0 TOTAL, the end index 4294967294 printed 4294967295.
  const auto csv = golden::lines(golden::slurp(golden::output(t.prof, "static_op_mem", "csv")));
  REQUIRE(csv.size() == 1 + 6);
  CHECK(csv[2] == "host,Add_2,0,1,1,4294967295,1.5");
  // The reference's db has no table for it: the db is npu_memory's.
  CHECK(golden::canonical_db(t.prof / "msprof_T.db") ==
        golden::lines(golden::slurp(golden::case_dir("static_op_mem") / "expected" / "db.canonical.sql")));
}

TEST_CASE("static_op_mem: sizes in KB as the reference prints them") {
  CHECK(cv::static_op_mem_kb(4096) == "4");
  CHECK(cv::static_op_mem_kb(1536) == "1.5");
  CHECK(cv::static_op_mem_kb(100) == "0.09765625");
  CHECK(cv::static_op_mem_kb(0) == "0");
  CHECK(cv::static_op_mem_kb(-2048) == "-2");
}

TEST_CASE("npu_module_mem: a device's samples are placed by its own start_info and host_start.log, in the summary and the db") {
  // The reference converts the host counter of device <id>'s samples with that
  // directory's files (NpuModuleMemProcessor: GetSyscntConversionParams and
  // GetProfTimeRecordInfo by device id; its Python time_from_host_syscnt(is_host=False)
  // after load_info(device_<id>)). Device 0's start_info.0 clockMonotonicRaw 5 µs
  // later: every time 5 µs earlier. The rows are a run of the reference
  // (9ba1ac7be, summary and db) on this collection; the host's files are unchanged.
  golden::temp_copy t(kNpuMemoryCase);
  replace_in(t.prof / "device_0" / "start_info.0", R"("clockMonotonicRaw": "1000000000000")",
             R"("clockMonotonicRaw": "1000000005000")");
  golden::export_everything(t);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "npu_module_mem", "csv"))) ==
        std::vector<std::string>{"Device_id,Component,Timestamp(us),Total Reserved(KB),Device",
                                 "0,HCCL,1767268800000095.500\t,0,NPU:0",
                                 "0,HCCL,1767268800000455.001\t,64,NPU:0",
                                 "0,RUNTIME,1767268800000045.000\t,1024,NPU:0",
                                 "0,RUNTIME,1767268800000118.456\t,2048,NPU:0",
                                 "0,RUNTIME,1767268800000445.000\t,3072,NPU:0",
                                 "0,GE,1767268800000055.000\t,512,NPU:0",
                                 "0,GE,1767268800000295.000\t,1,NPU:0",
                                 "0,Unknown,1767268800000195.000\t,4,NPU:0"});
  std::vector<std::int64_t> times;
  std::vector<std::string> warnings;
  REQUIRE(cv::for_each_module_mem(t.prof.string(), warnings, [&](const cv::module_mem_sample& m) -> msprof::result<void> {
            times.push_back(m.time_ns);
            return {};
          }).has_value());
  CHECK(warnings.empty());
  std::sort(times.begin(), times.end());
  // The reference's db, NPU_MODULE_MEM.timestampNs ORDER BY timestampNs.
  CHECK(times == std::vector<std::int64_t>{1767268800000045000, 1767268800000055000, 1767268800000095500,
                                           1767268800000118456, 1767268800000195000, 1767268800000295000,
                                           1767268800000445000, 1767268800000455001});
}

TEST_CASE("npu_mem: a device's host_start.log cntvct_diff moves its samples as the reference's host_mon") {
  // TimerBean.host_mon (and the C++ Context's hostMonotonic): clock_monotonic_raw
  // + cntvct_diff host ticks; with CPU Frequency "" (the default 1000 MHz) 4000
  // ticks are 4000 ns. The rows are a run of the reference (9ba1ac7be, summary)
  // on this collection with `cntvct_diff: 4000` in device_0/host_start.log.0.
  golden::temp_copy t("npu_mem");
  replace_in(t.prof / "device_0" / "host_start.log.0", "cntvct_diff: 0", "cntvct_diff: 4000");
  golden::export_everything(t);
  CHECK(golden::lines(golden::slurp(golden::output(t.prof, "npu_mem", "csv"))) ==
        std::vector<std::string>{"Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)",
                                 "0,APP,0,1024,1024,1767268800000004.096\t",
                                 "0,Device,2,32768,32770,1767268800000004.096\t",
                                 "0,APP,0,2048,2049,1767268800000054.016\t",
                                 "0,Device,2,40960,40962,1767268800000054.016\t",
                                 "0,APP,0,3073,3073,1767268800000126.976\t",
                                 "0,Device,4,49152,49156,1767268800000126.976\t",
                                 "0,APP,0,0,0,1767268800000204.032\t",
                                 "0,APP,0,0,0,1767268800001003.008\t",
                                 "0,Device,4,57344,57348,1767268800001003.008\t"});
}

TEST_CASE("npu_mem: a missing device host_start.log is the host's, with one warning naming it") {
  // The reference's C++ Context fails to load the device there (LoadLogData);
  // msprof goes on with host/host_start.log, and says so once per export.
  golden::temp_copy t("npu_mem");
  const path missing = t.prof / "device_0" / "host_start.log.0";
  golden::fs::remove(missing);
  std::vector<std::string> warnings;
  std::size_t n = 0;
  REQUIRE(cv::for_each_npu_mem(t.prof.string(), warnings, [&](const cv::npu_mem_sample&) -> msprof::result<void> {
            ++n;
            return {};
          }).has_value());
  CHECK(n == 9);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(missing.string() + ": missing") != std::string::npos);
  CHECK(warnings[0].find("host's host_start.log") != std::string::npos);
  auto r = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE(r.has_value());
  CHECK(std::count_if(r->warnings.begin(), r->warnings.end(), [&](const std::string& w) {
          return w.find(missing.string()) != std::string::npos;
        }) == 1);
  // The rows are the unchanged collection's (the host's file holds the same clock).
  CHECK(golden::slurp(golden::output(t.prof, "npu_mem", "csv")) ==
        golden::slurp(golden::case_dir("npu_mem") / "expected" / "npu_mem.csv"));
}
