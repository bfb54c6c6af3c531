// SPDX-License-Identifier: MIT
// The text of msprof's progress line: bytes of input done of the total, rate
// and time left (the command draws it; docs/cli.md, "Progress").
#ifndef MSPROF_CONVERT_PROGRESS_HPP
#define MSPROF_CONVERT_PROGRESS_HPP

#include <cstddef>
#include <cstdint>
#include <string>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Where a run of several collections stands.
struct progress_state {
  std::uint64_t done = 0;   ///< bytes of data slices read (clamped to total)
  std::uint64_t total = 0;  ///< bytes of data slices of every collection
  double seconds = 0;       ///< since the work started
  std::size_t dirs_done = 0;
  std::size_t dirs = 0;
};

/// "[#####.....] 412/980 MB  61 MB/s  9s left  (1/3 dirs)": done and total in
/// the unit of the total (B, kB, MB, GB: powers of 1000), the rate and time
/// left once a byte is done (none when done == total), the directory count.
std::string progress_text(const progress_state& s, int width = 20);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_PROGRESS_HPP
