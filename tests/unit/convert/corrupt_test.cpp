// SPDX-License-Identifier: MIT
// Seeded corruption of every golden input (byte flips, cuts, garbage appended,
// emptied files): the loader and all exporters must return a value or an error
// naming a file - never crash, hang or write a half file. Run under ASan/UBSan
// in CI's sanitizer step.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>

#include <random>

#include "golden_util.hpp"

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
