// SPDX-License-Identifier: MIT
// Regression tests for fuzz findings F2 and F3 (docs/fuzzing.md): clock values
// and record timestamps that do not fit in signed 64-bit nanoseconds. An
// absurd start_info/end_info/dev_start.log value is an error naming the file;
// a record whose timestamp cannot be placed on the wall clock is skipped and
// counted in a warning. Neither may wrap (signed overflow is UB: this file runs
// under UBSan in CI's sanitizer step).
#include <doctest/doctest.h>
#include <msprof/convert/join.hpp>
#include <msprof/convert/load.hpp>

#include <cstring>
#include <limits>

#include "../../fuzz/targets.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kWall = 1767268800000000000ll - 1000000000000ll;  // golden wall offset

// A fuzz corpus input (chunk format, tests/fuzz/targets.hpp) unpacked into a
// scratch PROF_ directory that is removed again at scope exit.
struct reproducer {
  std::string dir;
  explicit reproducer(const std::string& target, const std::string& name) {
    const std::string bytes = golden::slurp(fs::path(MSPROF_TEST_SOURCE_DIR) / "tests/fuzz/corpus" / target / name);
    REQUIRE(!bytes.empty());
    dir = msprof_fuzz::write_prof_dir(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  ~reproducer() {
    std::error_code ec;
    fs::remove_all(msprof_fuzz::scratch_dir().parent_path(), ec);
  }
};

bool has_warning(const cv::model& m, const std::string& part) {
  for (const auto& w : m.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// Replaces `"key": "<old>"` in a JSON control file by `value`.
void set_json_string(const fs::path& p, const std::string& key, const std::string& value) {
  std::string s = golden::slurp(p);
  const std::string k = "\"" + key + "\": \"";
  const auto at = s.find(k);
  REQUIRE(at != std::string::npos);
  const auto end = s.find('"', at + k.size());
  s.replace(at + k.size(), end - at - k.size(), value);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

// Overwrites 8 bytes at `offset` of a binary file.
void poke_u64(const fs::path& p, std::size_t offset, std::uint64_t v) {
  std::string s = golden::slurp(p);
  REQUIRE(offset + 8 <= s.size());
  std::memcpy(&s[offset], &v, 8);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

}  // namespace

TEST_CASE("F3: the fuzz reproducer's collectionTimeBegin out of range is an error naming host/start_info") {
  reproducer r("convert_load", "finding-F3-collection-time-begin-overflow");
  auto m = cv::load_model(r.dir);
  REQUIRE_FALSE(m);
  CHECK(m.err().message.find(r.dir + "/host/start_info: collectionTimeBegin out of range") != std::string::npos);
  CHECK(m.err().message.find("18446744073709551 us") != std::string::npos);
}

TEST_CASE("F3: start_info/end_info values that do not fit in int64 ns are errors naming the file") {
  struct bad {
    const char* file;
    const char* key;
    const char* value;
    const char* message;
  };
  const bad cases[] = {
      {"host/start_info", "collectionTimeBegin", "9223372036854776", "/host/start_info: collectionTimeBegin out of range"},
      {"host/start_info", "clockMonotonicRaw", "9223372036854775808", "/host/start_info: clockMonotonicRaw out of range"},
      {"host/end_info", "collectionTimeEnd", "18446744073709551615", "/host/end_info: collectionTimeEnd out of range"},
      {"host/end_info", "clockMonotonicRaw", "18446744073709551615", "/host/end_info: clockMonotonicRaw out of range"},
  };
  for (const auto& b : cases) {
    CAPTURE(b.file);
    CAPTURE(b.key);
    golden::temp_copy t("host_api_only", "_f3");
    set_json_string(t.prof / b.file, b.key, b.value);
    auto m = cv::load_model(t.prof.string());
    REQUIRE_FALSE(m);
    CHECK(m.err().message.find(t.prof.string() + b.message) != std::string::npos);
  }
  // The largest value that fits still loads (2262-04-11).
  golden::temp_copy t("host_api_only", "_f3max");
  set_json_string(t.prof / "host/start_info", "collectionTimeBegin", "9223372036854775");
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m);
  CHECK(m->session.start_ns == 9223372036854775000ll);
}

TEST_CASE("F3: device-only sessions check the device start_info and dev_start.log") {
  {
    golden::temp_copy t("multi_thread_mixed", "_f3dev");
    fs::remove_all(t.prof / "host");
    set_json_string(t.prof / "device_0/start_info.0", "collectionTimeBegin", "18446744073709551");
    auto m = cv::load_model(t.prof.string());
    REQUIRE_FALSE(m);
    CHECK(m.err().message.find(t.prof.string() + "/device_0/start_info.0: collectionTimeBegin out of range") !=
          std::string::npos);
  }
  {
    golden::temp_copy t("multi_thread_mixed", "_f3devlog");
    std::ofstream(t.prof / "device_0/dev_start.log.0", std::ios::trunc)
        << "clock_monotonic_raw: 18446744073709551615\ncntvct: 1\n";
    auto m = cv::load_model(t.prof.string());
    REQUIRE_FALSE(m);
    CHECK(m.err().message.find(t.prof.string() + "/device_0/dev_start.log.0: clock_monotonic_raw out of range") !=
          std::string::npos);
  }
}

TEST_CASE("F2: the fuzz reproducer's api_event timestamp beyond the wall clock is skipped with a warning") {
  reproducer r("convert_load", "finding-F2-timestamp-plus-wall-offset-overflow");
  auto m = cv::load_model(r.dir);
  REQUIRE(m);
  CHECK(has_warning(*m, "1 api_event record(s) have a timestamp that cannot be placed on the wall clock"));
  CHECK(m->apis.size() == 4);  // the four whole records before the damage
  for (const auto& a : m->apis) {
    CHECK(a.start_ns >= 0);
    CHECK(a.end_ns >= 0);
  }
}

TEST_CASE("F2: api_event timestamps that overflow are counted and skipped, the other calls stay") {
  golden::temp_copy base("host_api_only", "_f2base");
  auto good = cv::load_model(base.prof.string());
  REQUIRE(good);
  const auto api_file = base.prof / "host/data/unaging.api_event.data.slice_0";
  REQUIRE(fs::file_size(api_file) >= 3 * 40);

  golden::temp_copy t("host_api_only", "_f2");
  const auto f = t.prof / "host/data/unaging.api_event.data.slice_0";
  poke_u64(f, 0 * 40 + 16, 0xFFFFFFFFFFFFFFF0ull);                          // beginTime above INT64_MAX
  poke_u64(f, 1 * 40 + 24, static_cast<std::uint64_t>(INT64_MAX) - 1000);  // endTime + wall offset overflows
  poke_u64(f, 2 * 40 + 16, 0x6F6F6F6F6F6F6F6Full);                          // the fuzzer's value
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m);
  CHECK(m->apis.size() + 3 == good->apis.size());
  CHECK(has_warning(*m, "3 api_event record(s) have a timestamp that cannot be placed on the wall clock"));
  CHECK(m->session.end_ns == good->session.end_ns);
}

TEST_CASE("F2: join() skips and counts every kind of record whose time does not fit") {
  namespace raw = cv::raw;
  raw::collection c;
  c.session.wall_offset_ns = kWall;
  c.session.start_ns = 1767268800000000000ll;
  c.session.end_ns = c.session.start_ns + 1000000000;
  c.clocks.emplace_back();  // device 0: 50 MHz, cycle 0 at monotonic 1000 s
  c.clocks.back().clock.anchor_ns = 1000000000000ull;
  const std::uint64_t t0 = 1000000000000ull, huge = 0x6F6F6F6F6F6F6F6Full, top = 0xFFFFFFFFFFFFFFFFull;
  // One good API call on thread 1, two bad ones.
  c.apis.push_back({cv::level::acl, 1, 1, t0 + 100, t0 + 900, 0});
  c.apis.push_back({cv::level::acl, 2, 1, huge, huge + 10, 0});
  c.apis.push_back({cv::level::acl, 3, 1, t0, top, 0});
  // Ops: one good, one with a bad timestamp.
  c.nodes.push_back({t0 + 200, 1, 11, 0, 12, 1, false});
  c.nodes.push_back({huge, 1, 13, 0, 14, 1, false});
  // Tensors: one attached by its node key, one with a bad timestamp and no node.
  c.tensors.push_back({t0 + 200, 1, 11, {}});
  c.tensors.push_back({top, 1, 99, {}});
  // Device: task (0, 1, 7) good; task (0, 1, 8) has a bad end cycle count.
  c.acsqs.push_back({0, true, 1, 7, 100});
  c.acsqs.push_back({0, false, 1, 7, 200});
  c.acsqs.push_back({0, true, 1, 8, 300});
  c.acsqs.push_back({0, false, 1, 8, top});
  // task_track: a good one for task 7; a bad one for a task 9 that has a device span.
  c.acsqs.push_back({0, true, 1, 9, 400});
  c.acsqs.push_back({0, false, 1, 9, 500});
  c.tracks.push_back({t0 + 300, 1, 0, 1, 7, 0, 0});
  c.tracks.push_back({huge, 1, 0, 1, 9, 0, 0});
  // mstx: one good, two bad.
  auto mstx = [](std::uint64_t start, std::uint64_t end, std::uint64_t mark_id, const char* message) {
    msprof::prof::mstx_record r;
    r.stamp.processId = 1;
    r.stamp.threadId = 1;
    r.stamp.startTime = start;
    r.stamp.endTime = end;
    r.stamp.markId = mark_id;
    r.message = message;
    return r;
  };
  c.mstxs.push_back(mstx(t0 + 10, t0 + 20, 1, "ok"));
  c.mstxs.push_back(mstx(huge, huge, 2, "bad"));
  c.mstxs.push_back(mstx(static_cast<std::uint64_t>(INT64_MAX), t0, 3, "bad"));

  const cv::model m = cv::join(std::move(c));
  CHECK(m.apis.size() == 1);
  CHECK(m.apis[0].start_ns == t0 + 100 + kWall);
  REQUIRE(m.tasks.size() == 2);
  CHECK(m.tasks[0].task_id == 7);
  CHECK(m.tasks[0].connection_id == m.apis[0].connection_id);
  CHECK(m.tasks[0].op != nullptr);
  CHECK(m.tasks[1].task_id == 9);  // its task_track was skipped: exported without a launch
  CHECK(m.tasks[1].task_type == "UNKNOWN");
  REQUIRE(m.mstx.size() == 1);
  CHECK(m.mstx[0].message == "ok");
  for (const char* w : {"2 api_event record(s)", "1 node_basic_info record(s)", "1 tensor_info record(s)",
                        "1 device ACSQ (stars_soc) record(s)", "1 task_track record(s)", "2 msproftx record(s)"}) {
    CAPTURE(w);
    CHECK(has_warning(m, std::string(w) + " have a timestamp that cannot be placed on the wall clock"));
  }
  // The ACSQ start of task 8 lost its end: reported like any unmatched start.
  CHECK(has_warning(m, "1 device task start record(s) without an end"));
}

TEST_CASE("F2: a wall time before 1970 is rejected too, so every duration fits") {
  namespace raw = cv::raw;
  raw::collection c;
  c.session.wall_offset_ns = -1000;  // start_info: collectionTimeBegin 0 us at monotonic 1000 ns
  c.apis.push_back({cv::level::acl, 1, 1, 500, 2000, 0});   // starts at -500 ns
  c.apis.push_back({cv::level::acl, 1, 1, 1000, 2000, 0});  // starts at 0
  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.apis.size() == 1);
  CHECK(m.apis[0].start_ns == 0);
  CHECK(has_warning(m, "1 api_event record(s)"));
}
