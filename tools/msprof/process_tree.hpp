// SPDX-License-Identifier: MIT
// The processes `msprof --host-sys=cpu,mem` samples: the shell msprof runs the
// program with (it stays the program's parent) and its descendants.
#ifndef MSPROF_CLI_PROCESS_TREE_HPP
#define MSPROF_CLI_PROCESS_TREE_HPP

#include <sys/types.h>

#include <vector>

namespace msprof_cli {

/// `root` and its descendants, `root` first: /proc scanned for each process's parent.
std::vector<pid_t> process_tree(pid_t root);

}  // namespace msprof_cli

#endif  // MSPROF_CLI_PROCESS_TREE_HPP
