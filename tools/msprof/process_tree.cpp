// SPDX-License-Identifier: MIT
#include "process_tree.hpp"

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <utility>

#include <msprof/prof/host_sampler.hpp>

namespace msprof_cli {

std::vector<pid_t> process_tree(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parent_of;  // (ppid, pid)
  std::string line;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      if (!msprof::prof::detail::read_proc(std::string("/proc/") + e->d_name + "/stat", line)) continue;
      // field 3 of stat, after the name in parentheses (which may hold blanks and ')')
      const auto close = line.rfind(')');
      if (close == std::string::npos || close + 4 >= line.size()) continue;
      parent_of.emplace_back(static_cast<pid_t>(std::atol(line.c_str() + close + 4)), static_cast<pid_t>(std::atol(e->d_name)));
    }
    ::closedir(d);
  }
  std::vector<pid_t> tree{root};
  for (std::size_t k = 0; k < tree.size(); ++k)
    for (const auto& [ppid, pid] : parent_of)
      if (ppid == tree[k]) tree.push_back(pid);
  return tree;
}

}  // namespace msprof_cli
