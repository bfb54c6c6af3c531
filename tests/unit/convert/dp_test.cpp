// SPDX-License-Identifier: MIT
// The AI CPU's data-preprocess slices (device_<id>/data/DATA_PREPROCESS.DP...):
// the CANN summary dp against the golden case `dp` (a binary device 0 and a
// text device 1, from one run of the reference), and damage: a cut record, a
// bad last header, a line whose time is no number, empty and several slices.
#include <doctest/doctest.h>
#include <msprof/codec/dp.hpp>
#include <msprof/convert/aicpu.hpp>
#include <msprof/convert/export.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace codec = msprof::codec;
using golden::fs::path;

namespace {

const char* const kDpCase = "dp";

path data(const path& prof, int dev) { return prof / ("device_" + std::to_string(dev)) / "data"; }

/// A slice rewritten (its .done removed: the size changed on purpose).
void write(const path& p, const std::string& bytes) {
  golden::fs::remove(p.string() + ".done");
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t nl = text.find('\n', from);
    v.push_back(text.substr(from, nl - from));
    from = nl + 1;
  }
  return v;
}

/// The expected rows of the case (header first).
std::vector<std::string> expected() { return lines(golden::slurp(golden::case_dir(kDpCase) / "expected" / "dp.csv")); }

std::vector<std::string> export_rows(const golden::temp_copy& t, std::vector<std::string>& warnings) {
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  warnings = s->warnings;
  const auto f = golden::output(t.prof, "dp", "csv");
  return f.empty() ? std::vector<std::string>{} : lines(golden::slurp(f));
}

using golden::has_warning;

// The case's own warnings: the two empty slices, device 0's records 3 and 4
// (a bad magic, a bad tag: kept, as the reference keeps them) and device 1's
// line of 2 parts (passed over, as the reference passes over it).
void check_case_warnings(const std::vector<std::string>& w) {
  CHECK(w.size() == 4);
  CHECK(has_warning(w, "DATA_PREPROCESS.DP.0.slice_1: record at byte offset 0", "empty data preprocess slice"));
  CHECK(has_warning(w, "DATA_PREPROCESS.DP.1.slice_2: record at byte offset 0", "empty data preprocess slice"));
  CHECK(has_warning(w, "DATA_PREPROCESS.DP.0.slice_0: record at byte offset 384", "2 data preprocess record(s) whose magic or tag"));
  CHECK(has_warning(w, "DATA_PREPROCESS.dev.DP.1.slice_0: record at byte offset 297", "2 comma-separated parts"));
}

}  // namespace

TEST_CASE("dp: the summary equals the reference's (binary and text slices, both file names)") {
  golden::temp_copy t(kDpCase);
  auto s = cv::export_summary(t.prof.string(), golden::fixed_ts());
  REQUIRE_MESSAGE(s.has_value(), s.err().what());
  CHECK(golden::check_csvs(t, kDpCase) == 1);
  check_case_warnings(s->warnings);
}

/// Device 0's binary slice changed by `edit`: the case's rows all the same,
/// and a warning holding `where` and `what`.
template <class Edit>
void check_binary_damage(Edit&& edit, const std::string& where, const std::string& what) {
  golden::temp_copy t(kDpCase);
  const path p = data(t.prof, 0) / "DATA_PREPROCESS.DP.0.slice_0";
  std::string b = golden::slurp(p);
  edit(b);
  write(p, b);
  std::vector<std::string> w;
  CHECK(export_rows(t, w) == expected());
  CHECK(has_warning(w, "DATA_PREPROCESS.DP.0.slice_0: record at byte offset " + where, what));
}

TEST_CASE("dp: a cut binary record is a warning with its offset, the whole records are kept") {
  // The reference's struct.unpack fails on the whole file: no dp file at all.
  check_binary_damage([](std::string& b) { b += std::string(50, 'x'); }, "1280",
                      "truncated data preprocess record: 50 of 128 bytes");
}

TEST_CASE("dp: a bad header on the last record still reads the slice as binary, by its first record") {
  // The reference looks at the last record only and would read the bytes as
  // text (no row); the first record's header says binary.
  check_binary_damage([](std::string& b) { b[b.size() - 128] = 0; }, "384",
                      "3 data preprocess record(s) whose magic or tag");
}

TEST_CASE("dp: binary records of several slices, newest slice first") {
  // The reference keeps only the oldest slice's records (each slice's rows
  // replace the last); every record is kept here, in its reading order.
  golden::temp_copy t(kDpCase);
  const path p0 = data(t.prof, 0) / "DATA_PREPROCESS.DP.0.slice_0";
  const std::string b = golden::slurp(p0);
  write(p0, b.substr(0, 6 * 128));
  write(data(t.prof, 0) / "DATA_PREPROCESS.DP.0.slice_1", b.substr(6 * 128));
  std::vector<std::string> w;
  const auto got = export_rows(t, w);
  auto want = expected();
  std::rotate(want.begin() + 1, want.begin() + 7, want.begin() + 11);  // rows 7-10 (slice_1) before 1-6
  CHECK(got == want);
}

TEST_CASE("dp: a text line whose time is not a number is a warning with its offset, the others are kept") {
  // The reference's float() raises there, and the whole dp file is lost.
  golden::temp_copy t(kDpCase);
  const path p = data(t.prof, 1) / "DATA_PREPROCESS.dev.DP.1.slice_0";
  const std::string b = golden::slurp(p);
  write(p, b + "[12x] Last queue dequeue, source:s, index:1, size:1\n" + std::string(1, '\0'));
  std::vector<std::string> w;
  CHECK(export_rows(t, w) == expected());
  CHECK(has_warning(w, "DATA_PREPROCESS.dev.DP.1.slice_0: record at byte offset " + std::to_string(b.size()),
            "data preprocess time '12x' is not a decimal number; line skipped"));
}

TEST_CASE("dp: a slice's problems are capped as the reader caps a file's: 20, then one count") {
  golden::temp_copy t(kDpCase);
  const path p = data(t.prof, 1) / "DATA_PREPROCESS.dev.DP.1.slice_0";
  const std::string b = golden::slurp(p);
  std::string bad;
  for (int i = 0; i < 25; ++i) bad += "[" + std::to_string(i) + "x] Last queue dequeue, source:s, index:1, size:1\n" + std::string(1, '\0');
  write(p, b + bad);
  std::vector<std::string> w;
  CHECK(export_rows(t, w) == expected());
  const auto slice_problems = std::count_if(w.begin(), w.end(), [](const std::string& s) {
    return s.find("DATA_PREPROCESS.dev.DP.1.slice_0: record at byte offset") != std::string::npos;
  });
  CHECK(slice_problems == 20);
  // The slice's own line of 2 parts and the 25 bad times: 26 problems.
  CHECK(has_warning(w, "... and 6 more problems in ", "DATA_PREPROCESS.dev.DP.1.slice_0"));
}

TEST_CASE("dp: only empty slices, no dp file and a warning for each") {
  golden::temp_copy t(kDpCase);
  for (int dev : {0, 1})
    for (const auto& e : golden::fs::directory_iterator(data(t.prof, dev)))
      if (e.path().filename().string().rfind("DATA_PREPROCESS", 0) == 0 && e.path().extension() != ".done") write(e.path(), "");
  std::vector<std::string> w;
  CHECK(export_rows(t, w).empty());
  CHECK(std::count_if(w.begin(), w.end(), [](const std::string& s) {
          return s.find("empty data preprocess slice") != std::string::npos;
        }) == 5);
}

TEST_CASE("dp: the text pieces as the reference cuts them (str() of the bytes, split at ' ___ ')") {
  std::vector<std::pair<std::string, std::size_t>> got;
  const std::string bytes = std::string("a'b\n") + '\0' + "c\\d\te" + '\0' + '\0' + "\xc3\xa9\"" + "x ___ y";
  codec::for_each_dp_piece(bytes, [&](std::string_view s, std::size_t off) { got.emplace_back(std::string(s), off); });
  // Both quotes: str() uses ' and escapes it; "\n\0" and NUL are separators.
  const std::vector<std::pair<std::string, std::size_t>> want = {
      {"a\\'b", 0}, {"c\\\\d\\te", 5}, {"", 11}, {"\\xc3\\xa9\"x", 12}, {"y", 21}};
  CHECK(got == want);
  CHECK(codec::detail::utf8_ignore("a\xff\xe2\x82" "b\xed\xa0\x80\xf0\x9f\x98\x80") == "ab\xf0\x9f\x98\x80");
  const codec::place at{"f", 7};
  auto e = codec::decode_dp_line("[ 12.5 ] Last queue dequeue , x, source:ns:it, index:1, size:9 B", at);
  REQUIRE(e.has_value());
  CHECK(e->text_timestamp == 12.5);
  CHECK(e->action == "Last queue dequeue");
  CHECK(e->source == "it");
  CHECK(e->size == "9 B");
  CHECK_FALSE(codec::decode_dp_line("[1] Last queue dequeue, a, b", at).has_value());
}

namespace {

/// Device `dev`'s start_info rewritten as `json`.
void start_info(const golden::temp_copy& t, int dev, const std::string& json) {
  const std::string d = std::to_string(dev);
  std::ofstream(t.prof / ("device_" + d) / ("start_info." + d), std::ios::trunc) << json;
}

const std::string kDate = R"("collectionDateBegin": "2026-01-01 12:00:00.000000", )";

}  // namespace

TEST_CASE("dp: a device start_info without collectionTimeBegin or clockMonotonicRaw leaves its rows out, with a warning") {
  // The reference's InfoConfReader raises for a value Python finds false
  // (absent, "", a JSON 0), and its whole export stops (checked on runs of
  // this case). Device 1's rows are kept here.
  const char* const starts[] = {
      R"("collectionTimeBegin": "1767268800000000"})",                              // no clockMonotonicRaw
      R"("collectionTimeBegin": "", "clockMonotonicRaw": "1000000000000"})",        // empty
      R"("collectionTimeBegin": 0, "clockMonotonicRaw": "1000000000000"})",         // a JSON 0
      R"("collectionTimeBegin": "17672688x", "clockMonotonicRaw": "1000000000000"})",  // no number
  };
  for (const char* s : starts) {
    CAPTURE(s);
    golden::temp_copy t(kDpCase);
    start_info(t, 0, "{" + kDate + s);
    std::vector<std::string> w;
    const auto got = export_rows(t, w);
    auto want = expected();
    want.erase(std::remove_if(want.begin() + 1, want.end(), [](const std::string& r) { return r.rfind("0,", 0) == 0; }),
               want.end());
    REQUIRE(want.size() > 1);
    CHECK(got == want);
    CHECK(has_warning(w, (t.prof / "device_0" / "start_info.0").string() + ": collectionTimeBegin or clockMonotonicRaw missing",
                      "device 0's dp rows were left out"));
  }
}

TEST_CASE("dp: a start_info's values are read as Python's float() reads them: a JSON number, a \"0\" string") {
  // Both as runs of the reference give them: a number is a number, and the
  // string "0" is true to Python (the offset is then collectionTimeBegin).
  golden::temp_copy t(kDpCase);
  std::vector<std::string> w;
  SUBCASE("a JSON number") {
    start_info(t, 0, "{" + kDate + R"("collectionTimeBegin": "1767268800000000", "clockMonotonicRaw": 1000000000000})");
    CHECK(export_rows(t, w) == expected());
  }
  SUBCASE("the string 0") {
    start_info(t, 0, "{" + kDate + R"("collectionTimeBegin": "1767268800000000", "clockMonotonicRaw": "0"})");
    const auto got = export_rows(t, w);
    REQUIRE(got.size() == expected().size());
    CHECK(got[1] == "0,1767269800000100.0,dequeue,iterator_default,131");  // 10^9 µs later
    CHECK(got.back() == expected().back());                                 // device 1 unchanged
  }
  CHECK(std::none_of(w.begin(), w.end(), [](const std::string& s) { return s.find("start_info") != std::string::npos; }));
}
