// SPDX-License-Identifier: MIT
// The range pairer (drain thread only): pairs range starts with their ends
// (possibly from another thread), checking that an end names the domain the
// range started in. The drain loop that feeds it is in collector.hpp.
#ifndef MSPROF_COLLECT_RANGE_PAIRER_HPP
#define MSPROF_COLLECT_RANGE_PAIRER_HPP

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core/abi.hpp"
#include "record_sink.hpp"

MSPROF_BEGIN_NAMESPACE
namespace collect {

struct pairing_counters {
  std::uint64_t domain_mismatch = 0;   // end named another domain: rejected, range stays open
  std::uint64_t unknown_end = 0;       // end without a start (never started, or start dropped)
  std::uint64_t unfinished = 0;        // ranges still open at stop()
};

class range_pairer {
 public:
  struct start_info {
    std::uint64_t ts = 0;
    std::uint32_t tid = 0;
    std::uint16_t domain = 0;
    bool stream = false;
    std::string message;
  };
  struct end_info {
    std::uint64_t ts = 0;
    std::uint32_t tid = 0;
    std::uint16_t domain = 0;
  };

  // A finished range is passed to emit(id, start_info, end_info).
  void start(std::uint64_t id, start_info s) { open_[id] = std::move(s); }

  template <class Emit>
  void end(std::uint64_t id, const end_info& e, Emit&& emit) {
    auto it = open_.find(id);
    if (it == open_.end()) {
      pending_.push_back({id, e});  // its start may come later in this pass
      return;
    }
    if (it->second.domain != e.domain) {
      ++counters_.domain_mismatch;
      return;
    }
    emit(id, it->second, e);
    open_.erase(it);
  }

  // End of a drain pass: every start committed before an end has been seen
  // by now (the end's thread got the id from the start), so leftovers are unknown.
  template <class Emit>
  void end_pass(Emit&& emit) {
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& p : pending) {
      auto it = open_.find(p.first);
      if (it == open_.end()) {
        ++counters_.unknown_end;
      } else if (it->second.domain != p.second.domain) {
        ++counters_.domain_mismatch;
      } else {
        emit(p.first, it->second, p.second);
        open_.erase(it);
      }
    }
  }

  void finish() {
    counters_.unfinished += open_.size();
    open_.clear();
  }
  const pairing_counters& counters() const noexcept { return counters_; }
  /// Ranges started and not (yet) ended.
  std::uint64_t open_ranges() const noexcept { return open_.size(); }
  void reset() {
    open_.clear();
    pending_.clear();
    counters_ = {};
  }

 private:
  std::unordered_map<std::uint64_t, start_info> open_;
  std::vector<std::pair<std::uint64_t, end_info>> pending_;
  pairing_counters counters_;
};

}  // namespace collect
MSPROF_END_NAMESPACE

#endif  // MSPROF_COLLECT_RANGE_PAIRER_HPP
