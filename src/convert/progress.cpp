// SPDX-License-Identifier: MIT
// progress_text(): the arithmetic and wording of the progress line.
#include "msprof/convert/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

MSPROF_BEGIN_NAMESPACE
namespace convert {

std::string progress_text(const progress_state& s, int width) {
  const std::uint64_t done = std::min(s.done, s.total);
  // The unit of the total, so that done and total compare at a glance.
  static constexpr const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  std::size_t u = 0;
  std::uint64_t scale = 1;
  while (u + 1 < std::size(units) && s.total / scale >= 10000) {
    scale *= 1000;
    ++u;
  }
  // No byte total (nothing to count): the directories done fill the bar.
  const double part = s.total ? static_cast<double>(done) / static_cast<double>(s.total)
                              : s.dirs ? static_cast<double>(s.dirs_done) / static_cast<double>(s.dirs) : 0.0;
  const int fill = std::min(width, static_cast<int>(static_cast<double>(width) * part));
  std::string out = "[" + std::string(static_cast<std::size_t>(fill), '#') +
                    std::string(static_cast<std::size_t>(width - fill), '.') + "] ";
  char buf[128];
  if (s.total == 0) {
    std::snprintf(buf, sizeof buf, "(%zu/%zu dirs)", s.dirs_done, s.dirs);
    return out + buf;
  }
  const std::uint64_t total_shown = (s.total + scale / 2) / scale;
  // Rounded down until the end, so that "980/980 MB" means finished.
  const std::uint64_t done_shown =
      done == s.total ? total_shown : std::min(done / scale, total_shown > 0 ? total_shown - 1 : 0);
  std::snprintf(buf, sizeof buf, "%llu/%llu %s", static_cast<unsigned long long>(done_shown),
                static_cast<unsigned long long>(total_shown), units[u]);
  out += buf;
  if (done > 0 && s.seconds > 0) {
    const double rate = static_cast<double>(done) / s.seconds;  // bytes per second
    std::snprintf(buf, sizeof buf, rate < 10e6 ? "  %.1f MB/s" : "  %.0f MB/s", rate / 1e6);
    out += buf;
    if (done < s.total) {
      const auto left = static_cast<unsigned long long>(static_cast<double>(s.total - done) / rate + 0.5);
      if (left < 60)
        std::snprintf(buf, sizeof buf, "  %llus left", left);
      else
        std::snprintf(buf, sizeof buf, "  %llum%02llus left", left / 60, left % 60);
      out += buf;
    }
  }
  std::snprintf(buf, sizeof buf, "  (%zu/%zu dirs)", s.dirs_done, s.dirs);
  return out + buf;
}

}  // namespace convert
MSPROF_END_NAMESPACE
