// SPDX-License-Identifier: MIT
// Directory search: the PROF_ directories a path names (msprof export/show of
// a parent directory).
#ifndef MSPROF_CONVERT_EXPORT_DIRS_HPP
#define MSPROF_CONVERT_EXPORT_DIRS_HPP

#include <string>
#include <vector>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// PROF_ directories named by `dir`: itself if it is one (a link given by the
/// user is followed), else its PROF_* children. A child that is a symbolic
/// link is skipped, with a note in `skipped` when given: exporting it would
/// write into whatever tree the link points to.
std::vector<std::string> find_prof_dirs(const std::string& dir, std::vector<std::string>* skipped = nullptr);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_DIRS_HPP
