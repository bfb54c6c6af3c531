// SPDX-License-Identifier: MIT
// Overlap Analysis: per device, the op tasks' compute intervals merged and the
// free gaps between them (the timeline's "Overlap Analysis" process, OVERLAP_ANALYSIS).
#ifndef MSPROF_CONVERT_OVERLAP_HPP
#define MSPROF_CONVERT_OVERLAP_HPP

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "model.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Compute intervals (ops) merged, and the free gaps between the first task
/// start and the last task end, per device.
struct overlap_interval {
  std::uint32_t device_id = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool compute = true;
};

/// One device's overlap analysis, fed its compute intervals sorted by (start,
/// end): each merged interval goes to `compute(start, end)` once complete, each
/// gap between the first task start `lo` and the last task end `hi` that no
/// interval covers goes to `free(start, end)`; both in time order. Streams, so
/// the timeline exporter can merge intervals it reads back from disk.
class overlap_merger {
 public:
  overlap_merger(std::int64_t lo, std::int64_t hi) : cur_(lo), hi_(hi) {}

  template <class Compute, class Free>
  void add(std::int64_t start, std::int64_t end, Compute&& compute, Free&& free) {
    if (open_ && start <= end_) {
      end_ = std::max(end_, end);
      return;
    }
    close(compute, free);
    open_ = true;
    start_ = start;
    end_ = end;
  }
  /// After the last interval: the rest of the free time (all of it when no
  /// interval came: a device of communication or other tasks only).
  template <class Compute, class Free>
  void finish(Compute&& compute, Free&& free) {
    close(compute, free);
    if (hi_ > cur_) free(cur_, hi_);
  }

 private:
  template <class Compute, class Free>
  void close(Compute& compute, Free& free) {
    if (!open_) return;
    compute(start_, end_);
    if (start_ > cur_) free(cur_, start_);
    cur_ = std::max(cur_, end_);
    open_ = false;
  }

  std::int64_t cur_, hi_;  ///< end of the covered time so far; last task end
  std::int64_t start_ = 0, end_ = 0;  ///< the merged interval still growing
  bool open_ = false;
};

/// Overlap Analysis of a model handed over in windows: add() every task, then
/// drain() once. It keeps each device's task span and spills the op tasks'
/// intervals into sorted runs (the budget's worth in memory).
class overlap_windows {
 public:
  overlap_windows(const std::string& spill_dir, std::size_t budget) : compute_(spill_dir, budget) {}

  void add(const device_task& t) {
    auto span = spans_.try_emplace(t.device_id, task_span{t.start_ns, t.end_ns}).first;
    span->second.lo = std::min(span->second.lo, t.start_ns);
    span->second.hi = std::max(span->second.hi, t.end_ns);
    if (t.op) compute_.push({t.device_id, t.start_ns, t.end_ns}, {});
  }

  /// Per device in id order: open(device), then its merged compute intervals
  /// and free gaps in time order (overlap_merger), then close(device).
  template <class Open, class Compute, class Free, class Close>
  result<void> drain(Open&& open, Compute&& compute, Free&& free, Close&& close) {
    auto next = spans_.begin();
    std::optional<overlap_merger> merge;
    std::uint32_t dev = 0;
    auto done = [&] {
      if (!merge) return;
      merge->finish(compute, free);
      merge.reset();
      close(dev);
    };
    // Opens the devices up to `last` (all when null) in turn, closing each before the next.
    auto open_until = [&](const std::uint32_t* last) {
      for (; next != spans_.end() && (!last || next->first <= *last); ++next) {
        done();
        dev = next->first;
        open(dev);
        merge.emplace(next->second.lo, next->second.hi);
      }
    };
    auto r = compute_.drain([&](const interval_key& k, std::string_view) {
      if (!merge || k.device != dev) open_until(&k.device);
      merge->add(k.start, k.end, compute, free);
    });
    open_until(nullptr);
    done();
    return r;
  }

 private:
  struct interval_key {
    std::uint32_t device;
    std::int64_t start, end;
    bool operator<(const interval_key& o) const noexcept {
      if (device != o.device) return device < o.device;
      return start != o.start ? start < o.start : end < o.end;
    }
  };
  struct task_span {
    std::int64_t lo, hi;  ///< first task start, last task end
  };
  spill_sorter<interval_key> compute_;        ///< op tasks' intervals
  std::map<std::uint32_t, task_span> spans_;  ///< device -> its tasks' time span
};

/// Per device (ascending): its compute intervals merged, then its free gaps.
std::vector<overlap_interval> overlap_analysis(const model& m);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_OVERLAP_HPP
