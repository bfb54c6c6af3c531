// SPDX-License-Identifier: MIT
// msprof's rules for output directories, shared by the session, the config
// files and the injection library: letters, digits, '_', '-', '/' and '.'
// only (msprof allows no spaces or shell characters; '.' is accepted so that
// relative paths such as ./out work), and the output directory itself must not
// be a symbolic link (profiling data must not be redirected). Directories above
// it that exist are the user's and may be links; the ones missing are created
// by core/output_file.hpp (outfile::dir::make), which applies the same rule,
// as real directories, 0750 less the umask. The launcher (--output) and the
// collector (MSPROF_OUTPUT) both check with this function.
#ifndef MSPROF_SESSION_OUTPUT_PATH_HPP
#define MSPROF_SESSION_OUTPUT_PATH_HPP

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

/// Empty when `path` may be used as an output directory, else the reason.
inline std::string check_output_path(std::string_view path) {
  if (path.empty()) return "output path is empty";
  if (path.size() > 4096) return "output path is longer than 4096 characters";
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '/' || c == '.';
    if (!ok)
      return "output path '" + std::string(path) + "': character '" + std::string(1, c) +
             "' is not allowed (only letters, digits, _ - . /)";
  }
  // Existing prefixes must be directories (links to one allowed above the last
  // component); the output directory itself must not be a link.
  std::string_view full = path;
  while (full.size() > 1 && full.back() == '/') full.remove_suffix(1);
  for (std::size_t end = 1; end <= full.size(); ++end) {
    if (end != full.size() && full[end] != '/') continue;
    const std::string prefix(full.substr(0, end));
    struct stat st {};
    if (::lstat(prefix.c_str(), &st) != 0) break;  // the rest will be created
    if (S_ISLNK(st.st_mode) && end == full.size())
      return "output path '" + std::string(path) + "': '" + prefix + "' is a symbolic link";
    if (::stat(prefix.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return "output path '" + std::string(path) + "': '" + prefix + "' is not a directory";
  }
  return {};
}

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_OUTPUT_PATH_HPP
