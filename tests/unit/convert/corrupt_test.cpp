// SPDX-License-Identifier: MIT
// Seeded corruption of every golden input (byte flips, cuts, garbage appended,
// emptied files): the loader and all exporters must return a value or an error
// naming a file - never crash, hang or write a half file. Run under ASan/UBSan
// in CI's sanitizer step.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/prof/reader.hpp>
#include <sys/stat.h>

#include <random>

#include "golden_util.hpp"
#include "../../support/temp_dir.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> files_of(const fs::path& root) {
  std::vector<fs::path> v;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

void mutate(const fs::path& p, std::mt19937_64& rng) {
  std::string b = golden::slurp(p);
  switch (rng() % 4) {
    case 0:  // flip a few bytes
      for (int i = 0; i < 8 && !b.empty(); ++i) b[rng() % b.size()] = static_cast<char>(rng());
      break;
    case 1:  // cut
      b.resize(b.empty() ? 0 : rng() % b.size());
      break;
    case 2:  // garbage tail
      for (int i = 0; i < 37; ++i) b += static_cast<char>(rng());
      break;
    default:
      b.clear();
  }
  std::ofstream(p, std::ios::binary | std::ios::trunc) << b;
}

}  // namespace

TEST_CASE("corrupt inputs never crash the converters") {
  std::mt19937_64 rng(20260101);
  int ok = 0, failed = 0;
  for (int round = 0; round < 12; ++round) {
    for (const char* c : golden::cases) {
      CAPTURE(c);
      CAPTURE(round);
      golden::temp_copy t(c, "_corrupt");
      const auto files = files_of(t.prof);
      for (int k = 0; k < 3; ++k) mutate(files[rng() % files.size()], rng);
      cv::export_options o;
      o.timestamp = "T";
      auto r = cv::export_all(t.prof.string(), o);
      if (r) {
        ++ok;
        for (const auto& f : r->files) CHECK(fs::file_size(f) > 0);
      } else {
        ++failed;
        CHECK(!r.err().message.empty());
        CHECK(r.err().message.find('/') != std::string::npos);  // names a path
      }
      for (const auto& e : fs::recursive_directory_iterator(t.prof))
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
    }
  }
  MESSAGE("exports ok: " << ok << ", clear errors: " << failed);
  CHECK(ok + failed == 60);
}

// Hand-made damage of one kind each (issue 25): what the reader and the loader
// report, and that none of it is silent, unbounded or blocking.
namespace {

const char* const tx_slice = "host/data/aging.additional.msproftx.slice_0";

// Damage that loses records: the export goes on with a warning, and --strict
// refuses it with an error that says `why`.
void exported_with_warning_then_refused_strict(const fs::path& prof, const std::string& why) {
  cv::export_options o;
  o.timestamp = "T";
  auto lenient = cv::export_summary(prof.string(), o);
  REQUIRE(lenient);
  CHECK_FALSE(lenient->warnings.empty());
  o.strict = true;
  auto strict = cv::export_summary(prof.string(), o);
  REQUIRE_FALSE(strict);
  CHECK(strict.err().message.find(why) != std::string::npos);
}

std::string all_warnings(const msprof::prof::prof_reader& r) {
  std::string s;
  for (const auto& w : r.warnings()) s += w.message + "\n";
  return s;
}

}  // namespace

TEST_CASE("corrupt: a FIFO named like a slice is refused with its name, never opened for a blocking read") {
  golden::temp_copy t("mstx_domains", "_fifo");
  const auto fifo = t.prof / "host/data/aging.additional.msproftx.slice_1";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = msprof::prof::prof_reader::open(t.prof.string());
  REQUIRE(r);
  auto done = r->for_each_mstx([](const msprof::prof::mstx_record&) {});
  REQUIRE_FALSE(done);
  CHECK(done.err().message.find(fifo.string() + ": not a regular file (a FIFO)") != std::string::npos);
}

TEST_CASE("corrupt: a large zero-filled slice gives a bounded number of warnings") {
  golden::temp_copy t("mstx_domains", "_zero");
  const auto zero = t.prof / "host/data/aging.additional.msproftx.slice_1";
  std::ofstream{zero};  // create
  fs::resize_file(zero, 8u << 20);  // 32768 bad records
  auto r = msprof::prof::prof_reader::open(t.prof.string());
  REQUIRE(r);
  std::size_t events = 0;
  REQUIRE(r->for_each_mstx([&](const msprof::prof::mstx_record&) { ++events; }));
  CHECK(events == 8);  // the good slice's events are kept
  std::size_t of_zero = 0;
  for (const auto& w : r->warnings()) of_zero += w.file == zero.string();
  CHECK(of_zero == 21);  // 20 problems, then one count
  CHECK(r->warnings().back().message == "... and 32748 more problems in " + zero.string());
}

TEST_CASE("corrupt: a slice shorter than its .done says is reported, and an error under --strict") {
  for (const std::uint64_t size : {1024u, 0u}) {  // cut at a record boundary; emptied
    CAPTURE(size);
    golden::temp_copy t("mstx_domains", "_short");
    fs::resize_file(t.prof / tx_slice, size);
    auto r = msprof::prof::prof_reader::open(t.prof.string());
    REQUIRE(r);
    CHECK(all_warnings(*r).find((t.prof / tx_slice).string() + ": " + std::to_string(size) +
                                " bytes, but its .done says filesize:2304; " + std::to_string(2304 - size) +
                                " bytes (records) missing") != std::string::npos);
    exported_with_warning_then_refused_strict(t.prof, ".done says filesize:2304");
  }
}

TEST_CASE("corrupt: a slice deleted while its .done remains is reported, and an error under --strict") {
  golden::temp_copy t("multi_thread_mixed", "_deleted");
  const fs::path slice = t.prof / "host/data/aging.additional.tensor_info.slice_0";
  REQUIRE(fs::exists(slice.string() + ".done"));
  fs::remove(slice);
  auto r = msprof::prof::prof_reader::open(t.prof.string());
  REQUIRE(r);
  CHECK(all_warnings(*r).find(slice.string() + ": missing, but its .done says it was written; its records are lost") !=
        std::string::npos);
  exported_with_warning_then_refused_strict(t.prof, "its records are lost");
}

TEST_CASE("corrupt: a record whose type id is not its slice's kind is reported and skipped") {
  golden::temp_copy t("mstx_domains", "_type");
  {
    std::fstream io(t.prof / tx_slice, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(256 + 4);  // record 1: record_header.type
    const unsigned char dead[4] = {0xAD, 0xDE, 0, 0};
    io.write(reinterpret_cast<const char*>(dead), 4);
  }
  auto r = msprof::prof::prof_reader::open(t.prof.string());
  REQUIRE(r);
  std::size_t events = 0;
  REQUIRE(r->for_each_mstx([&](const msprof::prof::mstx_record&) { ++events; }));
  CHECK(events == 7);
  CHECK(all_warnings(*r).find("record at byte offset 256: type id 0xDEAD, but a msproftx slice holds type 0; record skipped") !=
        std::string::npos);
}

TEST_CASE("corrupt: names whose hash is not in hash_dic are a visible marker and a warning") {
  golden::temp_copy t("mstx_domains", "_nohash");
  for (const auto& e : fs::directory_iterator(t.prof / "host/data"))
    if (e.path().filename().string().find("hash_dic") != std::string::npos) fs::remove(e.path());
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m);
  std::size_t marked = 0;
  for (const auto& e : m->mstx) {
    CAPTURE(e.domain);
    CHECK((e.domain == "default" || e.domain.rfind("<unknown hash 0x", 0) == 0));
    marked += e.domain != "default";
  }
  CHECK(marked > 0);
  std::string w;
  for (const auto& s : m->warnings) w += s + "\n";
  CHECK(w.find(std::to_string(marked) + " mstx domain reference(s) to hashes not in host/data/*hash_dic*") !=
        std::string::npos);
}

TEST_CASE("corrupt: invalid UTF-8 in an mstx message becomes U+FFFD, reported once") {
  golden::temp_copy t("mstx_domains", "_utf8");
  replace_bytes(t.prof / tx_slice, "batch 0 load", "bad \xff\xfe ok");
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m);
  bool found = false;
  for (const auto& e : m->mstx) found = found || e.message == "bad \xEF\xBF\xBD\xEF\xBF\xBD ok";
  CHECK(found);
  std::size_t reports = 0;
  for (const auto& s : m->warnings) reports += s.find("1 msproftx message(s) are not valid UTF-8") != std::string::npos;
  CHECK(reports == 1);
}
