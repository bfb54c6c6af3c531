// SPDX-License-Identifier: MIT
// Reading and tidying directories without <filesystem> (the collector and the
// session layer stay free of it): one listing for the readers of PROF_, JOB
// and staging directories. Writing goes through output_file.hpp.
#ifndef MSPROF_CORE_DIRECTORY_HPP
#define MSPROF_CORE_DIRECTORY_HPP

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "abi.hpp"
#include "error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace posix_dir {

/// The names in directory `path` (no "." or ".."), sorted; an error naming the
/// directory when it cannot be read.
inline result<std::vector<std::string>> list(const std::string& path) {
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) return make_error(errc::io, path + ": cannot list directory: " + std::strerror(errno));
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

/// Whether `path` exists, a link counting as itself (lstat).
inline bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

/// Whether `path` is a directory (a link to one counts).
inline bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// Removes `path` and what is under it, never following a link (for msprof's
/// own scratch directories).
inline void remove_tree(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    if (auto names = list(path))
      for (const auto& n : *names) remove_tree(path + "/" + n);
    (void)::rmdir(path.c_str());
  } else {
    (void)::unlink(path.c_str());
  }
}

}  // namespace posix_dir
MSPROF_END_NAMESPACE

#endif
