// SPDX-License-Identifier: MIT
// Corpus replay: feeds every file of corpus/<target>/ to the same entry
// function the libFuzzer target fuzz_<target> uses. Built by any compiler (no
// libFuzzer needed), so crash inputs saved in the corpus are regression tests
// in ordinary g++ builds too.
//
//   fuzz_replay <corpus dir>            all targets (a subfolder per target)
//   fuzz_replay <corpus dir> <target>   one target
#include <algorithm>
#include <cstring>
#include <iostream>
#include <iterator>

#include "targets.hpp"

namespace {

struct entry {
  const char* name;
  int (*run)(const std::uint8_t*, std::size_t);
};

const entry kEntries[] = {
    {"decode", msprof_fuzz::decode_records},
    {"dictionary", msprof_fuzz::dictionaries},
    {"json", msprof_fuzz::json_parse},
    {"reader", msprof_fuzz::prof_reader},
    {"framework", msprof_fuzz::framework_decode},
    {"soc_decode", msprof_fuzz::soc_decode},
    {"staging", msprof_fuzz::staging_decode},
#ifdef MSPROF_FUZZ_WITH_CONVERT
    {"soc_job", msprof_fuzz::soc_job},
    {"convert_load", msprof_fuzz::convert_load},
    {"export", msprof_fuzz::export_writers},
#endif
};

}  // namespace

int main(int argc, char** argv) {
  namespace fs = msprof_fuzz::fs;
  if (argc < 2) {
    std::cerr << "usage: fuzz_replay <corpus dir> [target]\n";
    return 2;
  }
  const fs::path corpus = argv[1];
  int targets = 0;
  for (const auto& e : kEntries) {
    if (argc > 2 && std::strcmp(argv[2], e.name) != 0) continue;
    ++targets;
    std::vector<fs::path> files;
    if (fs::is_directory(corpus / e.name))
      for (const auto& f : fs::recursive_directory_iterator(corpus / e.name))
        if (f.is_regular_file()) files.push_back(f.path());
    std::sort(files.begin(), files.end());  // stable order: a failure names the same file every run
    for (const auto& f : files) {
      const std::string bytes = msprof_fuzz::slurp(f);
      std::cerr << "  " << e.name << ": " << f.filename().string() << "\n";
      e.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::cout << "replay " << e.name << ": " << files.size() << " input(s) ok\n";
  }
  std::error_code ec;
  fs::remove_all(msprof_fuzz::scratch_dir().parent_path(), ec);
  if (targets == 0) {
    std::cerr << "fuzz_replay: no target named " << argv[2] << "\n";
    return 2;
  }
  return 0;
}
