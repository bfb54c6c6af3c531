// SPDX-License-Identifier: MIT
// The hccl_allreduce and hccl_groups golden cases' inputs are what
// tests/support/hccl_prof.hpp writes: a fresh directory's data files equal the stored ones byte for byte,
// and the reader finds every HCCL record in them. With MSPROF_WRITE_GOLDEN=1
// the case writes the stored input instead (how it was made; see
// tests/golden/README.md).
#include <doctest/doctest.h>
#include <msprof/prof/reader.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "../../support/hccl_prof.hpp"

namespace fs = std::filesystem;

namespace {

struct golden_case {
  const char* dir;   // tests/golden/<dir>
  const char* name;  // its PROF_ directory
  msprof::result<std::string> (*write)(const std::string& parent);
  int infos, planes, ops;  // HCCL records the reader finds
};

fs::path stored_input(const golden_case& c) { return fs::path(MSPROF_TEST_DATA_DIR) / "golden" / c.dir / "input"; }

std::map<std::string, std::string> data_files(const fs::path& prof) {
  std::map<std::string, std::string> out;
  for (const char* sub : {"host/data", "device_0/data", "device_1/data"}) {
    if (!fs::is_directory(prof / sub)) continue;
    for (const auto& e : fs::directory_iterator(prof / sub)) {
      std::ifstream f(e.path(), std::ios::binary);
      std::ostringstream s;
      s << f.rdbuf();
      std::string text = s.str();
      // A .done file holds the wall-clock times of its slice: only its size line is compared.
      const std::string file = e.path().filename().string();
      if (file.size() > 5 && file.compare(file.size() - 5, 5, ".done") == 0) text = text.substr(0, text.find('\n'));
      out[std::string(sub) + "/" + file] = text;
    }
  }
  return out;
}

/// With MSPROF_WRITE_GOLDEN=1: writes the case's stored input (how it was made).
void write_stored(const golden_case& c) {
  fs::remove_all(stored_input(c));
  fs::create_directories(stored_input(c));
  auto p = c.write(stored_input(c).string());
  REQUIRE_MESSAGE(p, (p ? "" : p.err().message));
  auto& end = *p;
  // end_info as a collection one second long: the writer's own is the wall clock now.
  const char* one_second =
      R"({"collectionDateBegin": "", "collectionDateEnd": "2026-01-01 12:00:01.000000", "collectionTimeBegin": "", )"
      R"("collectionTimeEnd": "1767268801000000", "clockMonotonicRaw": "1001000000000"})";
  std::ofstream(fs::path(end) / "host" / "end_info") << one_second;
  for (const std::string device : {"0", "1"})
    if (fs::is_directory(fs::path(end) / ("device_" + device)))
      std::ofstream(fs::path(end) / ("device_" + device) / ("end_info." + device)) << one_second;
  // result_dir names where it was written: blanked, as the path is this machine's.
  for (const char* f : {"host/sample.json", "device_0/sample.json", "device_1/sample.json"}) {
    if (!fs::exists(fs::path(end) / f)) continue;
    std::ifstream in(fs::path(end) / f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "\"result_dir\": \"" + stored_input(c).string() + "\"";
    if (auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), "\"result_dir\": \"\"");
    std::ofstream(fs::path(end) / f, std::ios::trunc) << text;
  }
}

void check_generator(const golden_case& c) {
  const char* write_golden = std::getenv("MSPROF_WRITE_GOLDEN");
  if (write_golden && std::string(write_golden) == "1") write_stored(c);
  const fs::path tmp = fs::temp_directory_path() / ("msprof_hccl_gen_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  auto fresh = c.write(tmp.string());
  REQUIRE_MESSAGE(fresh, (fresh ? "" : fresh.err().message));
  const auto want = data_files(stored_input(c) / c.name);
  const auto got = data_files(*fresh);
  REQUIRE(!want.empty());
  CHECK(got.size() == want.size());
  for (const auto& w : want) {
    const std::string file = w.first;  // INFO captures it: not a structured binding (clang)
    INFO(file);
    auto it = got.find(file);
    REQUIRE(it != got.end());
    CHECK(it->second == w.second);
  }

  auto r = msprof::prof::prof_reader::open(*fresh);
  REQUIRE(r);
  int infos = 0, planes = 0, ops = 0;
  REQUIRE(r->for_each_hccl_info([&](const auto& rec) {
    ++infos;
    planes += static_cast<int>(rec.payload.planeID);
    CHECK(rec.head.level == msprof::codec::level::hccl_node);
    CHECK(r->lookup(rec.payload.itemId).size() > 0);
  }));
  REQUIRE(r->for_each_hccl_op_info([&](const auto& rec) {
    ++ops;
    CHECK(+rec.payload.count == 262144);
  }));
  CHECK(infos == c.infos);
  CHECK(planes == c.planes);
  CHECK(ops == c.ops);
  CHECK(r->warnings().empty());
  fs::remove_all(tmp);
}

}  // namespace

TEST_CASE("hccl golden: the generator writes the stored input (hccl_allreduce)") {
  // Two collectives; two of the four tasks of each on plane 1.
  check_generator({"hccl_allreduce", hccl_prof::name, hccl_prof::write, 8, 4, 2});
}

TEST_CASE("hccl golden: the generator writes the stored input (hccl_groups)") {
  // Six collectives; one of them on planes 1 and 2 (two tasks each), the others on 0 and 1.
  check_generator({"hccl_groups", hccl_prof::groups_name, hccl_prof::write_groups, 24, 5 * 2 + 2 * 1 + 2 * 2, 6});
}
