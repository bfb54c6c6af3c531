// SPDX-License-Identifier: MIT
// Directory search: the PROF_ directories a path names.
#include "msprof/convert/export_dirs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

MSPROF_BEGIN_NAMESPACE
namespace convert {

std::vector<std::string> find_prof_dirs(const std::string& dir, std::vector<std::string>* skipped) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path p(dir);
  auto is_prof = [](const fs::path& x) {
    std::error_code e;
    return fs::is_directory(x / "host", e) || fs::exists(x / "device_0", e) ||
           x.filename().string().rfind("PROF_", 0) == 0;
  };
  if (p.filename().string().rfind("PROF_", 0) == 0 || fs::is_directory(p / "host", ec)) {
    out.push_back(dir);
    return out;
  }
  for (const auto& e : fs::directory_iterator(p, ec)) {
    if (e.path().filename().string().rfind("PROF_", 0) != 0) continue;
    if (e.is_symlink(ec)) {
      if (skipped) skipped->push_back(e.path().string() + ": a symbolic link; skipped (not followed inside " + dir + ")");
      continue;
    }
    if (e.is_directory(ec) && is_prof(e.path())) out.push_back(e.path().string());
  }
  if (skipped) std::sort(skipped->begin(), skipped->end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE
