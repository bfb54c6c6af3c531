// SPDX-License-Identifier: MIT
// The collector's output side: encodes what the drain hands over as CANN's
// host records and appends them to a prof::prof_dir.
//
//   mstx mark / range  -> MsprofTxInfo in MsprofAdditionalInfo (level 20500,
//                         aging.additional.msproftx), domain names in hash_dic;
//                         with `stage`, the compact staging while collecting
//                         (prof/staging.hpp), turned into those slices at finish()
//                         or, with `convert_at_finish` false, closed there for
//                         the launcher to convert after the program's exit
//   step begin/end     -> a range "ProfilerStep#<n>" in domain "ProfilerStep"
//                         (markId = step number), like torch_npu's step slices
//   memory records     -> MstxMemInfo (level 20500 type 1, msprof's own record:
//                         CANN keeps none) in unaging.additional.msprof_mstx_mem,
//                         unaging so a storage limit never drops them
//
// Append errors (storage limit, full disk) are counted by the writer in events
// (mstx calls: a mark is one, a range two; its MsprofTxInfo records are kept
// in one slice), which stops cleanly and keeps every finished slice. The loss
// counters go to info.json when one changed, at most every drain interval
// (update_losses, so a killed run keeps them), and at the end (finish()).
#ifndef MSPROF_SESSION_PROF_RECORD_SINK_HPP
#define MSPROF_SESSION_PROF_RECORD_SINK_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../codec/encode.hpp"
#include "../core/abi.hpp"
#include "../prof/staging.hpp"
#include "../prof/writer.hpp"
#include "../collect/clock.hpp"
#include "../collect/collector.hpp"
#include "../collect/record_sink.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

/// The prof_dir options for a collector whose clock `cal` describes. Host
/// records hold CLOCK_MONOTONIC_RAW ns (info.json CPU Frequency "", CANN's
/// "ns mode"): the sink converts the collector's counter ticks (collector_clock)
/// when it writes them. With ticks in the files Huawei's parser would convert
/// them itself, truncating to the ns in its C++ exporter and rounding in its
/// Python msprof_tx.csv, and both would differ from ours by 1 ns for a tick
/// that falls between two ns; ns leave nothing to convert. The anchor (0: the
/// writer takes "now" as a whole µs, so clockMonotonicRaw has no sub-µs part
/// for the parser's float64 offset to lose) is docs/formats.md's "Host clock".
inline prof::prof_dir_options prof_dir_options_for(const collect::clock_calibration&) {
  return prof::prof_dir_options{};
}

/// The collector's timestamps (ticks of the clock `cal` describes) as a
/// prof::tick_clock: the sink's conversion to ns.
inline prof::tick_clock collector_clock(const collect::clock_calibration& cal) {
  prof::tick_clock c;
  if (cal.counter) {
    c.frequency_mhz = cal.frequency_mhz;
    c.anchor_ticks = cal.counter_ticks;
    c.anchor_ns = cal.monotonic_raw_ns;
  }
  return c;
}

/// A collector timestamp as CLOCK_MONOTONIC_RAW ns (a tick before the epoch of
/// CLOCK_MONOTONIC_RAW, impossible, clamps to 0).
inline std::uint64_t monotonic_ns(const prof::tick_clock& ticks, std::uint64_t tick) noexcept {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, ticks.to_monotonic_ns(tick)));
}

class prof_record_sink final : public collect::record_sink {
 public:
  /// `ticks`: the collector's clock (collector_clock); its timestamps are
  /// written as CLOCK_MONOTONIC_RAW ns, as prof_dir_options_for() declares.
  /// `stage`: marks and ranges go to the compact staging (prof/staging.hpp)
  /// while collecting and become msproftx slices at finish(), or, without
  /// `convert_at_finish`, are left there closed and complete for whoever runs
  /// prof::recover_staging (the launcher, after the program's exit: the exit
  /// does not wait for the slices). When the staging cannot be made they are
  /// written directly (staging_error() says why). The directory's storage
  /// limit bounds the staging too (staging_options).
  prof_record_sink(prof::prof_dir& dir, prof::tick_clock ticks, bool stage = false, bool convert_at_finish = true)
      : dir_(dir), ticks_(ticks), tx_(dir), convert_at_finish_(convert_at_finish) {
    (void)dir_.register_type(codec::level::tx, codec::tx_type::msproftx, "msproftx");
    (void)dir_.register_type(codec::level::tx, codec::tx_type::mstx_mem, "msprof_mstx_mem");
    if (stage) {
      prof::staging_options so;
      so.storage_limit = dir_.options().storage_limit_bytes;
      if (auto w = prof::staging_writer::create(dir_.path(), so))
        staging_ = std::move(*w);
      else
        staging_error_ = w.err().message;
    }
  }

  void write_tx(const collect::tx_record& r) override {
    prof::tx_event e;
    e.id = r.id;
    e.event_type = r.event_type;
    e.pid = r.pid;
    e.tid = r.tid;
    e.start_ns = ns(r.start);
    e.end_ns = ns(r.end);
    e.domain = r.domain;
    e.message = r.message;
    if (staging_) {
      // The domain's hash_dic line now, as the direct form writes it: the
      // dictionary is the same whichever form the events take.
      (void)tx_.domain_hash(e.domain);
      staging_.add(e);
      return;
    }
    // One append per event: its records are counted as one event, in one slice.
    // A refused append is counted by the writer (stats().lost_events) and
    // reported in info.json "storage_limit_dropped", in mstx calls, as the
    // collector counts its losses; nothing to add here.
    (void)tx_.write(e);
  }

  void write_mem(const collect::mem_record& r) override {
    codec::MstxMemInfo m;
    m.op = r.op;
    m.deviceId = r.device_id;
    m.handle = r.handle;
    m.heap = r.heap;
    m.address = r.address;
    m.size = r.size;
    m.domain = tx_.domain_hash(r.domain);
    const auto rec = codec::encode_mstx_mem(r.tid, ns(r.timestamp), m);
    (void)dir_.append(mem_stream_, rec.data(), rec.size(), 1);
  }

  void write_step(const collect::step_record& s) override {
    const std::string message = "ProfilerStep#" + std::to_string(s.step);
    collect::tx_record r;
    r.id = s.step;
    r.event_type = 2;  // start/stop
    r.pid = static_cast<std::uint32_t>(dir_.options().pid);
    r.tid = r.end_tid = s.tid;
    r.start = s.start;
    r.end = s.end;
    r.domain = "ProfilerStep";
    r.message = message;
    write_tx(r);
    steps_.push_back(s);
  }

  // The directory first: the hash_dic lines the staged events name are on disk before them.
  // The staging's chunks removed by the storage limit are counted with the directory's losses.
  void flush() override {
    (void)dir_.flush();
    if (staging_) {
      (void)staging_.flush(dir_.stats().bytes);
      dir_.count_lost_events(staging_.take_aged_calls());
    }
  }

  /// The staging's directory while collecting into it (empty: direct form),
  /// and why a staging asked for could not be made.
  std::string staging_path() const { return staging_ ? staging_.path() : std::string(); }
  const std::string& staging_error() const noexcept { return staging_error_; }
  /// Bytes the staging wrote so far.
  std::uint64_t staging_bytes() const noexcept { return staging_.bytes_written(); }

  /// host/msprof_calls: 65,536 slots (a sparse 512 KiB file). Without it the
  /// export of a killed run cannot say how many calls were lost in memory.
  /// host/msprof_forks: what fork()ed children (not collected) called.
  collect::call_counter_block call_counters() override {
    constexpr std::size_t slots = 65536;
    auto m = dir_.map_call_counts(slots);
    if (!m) return {};
    auto f = dir_.map_fork_counts();
    return {*m, slots, f ? *f : nullptr};
  }

  /// The steps seen so far (the session reports them per window).
  const std::vector<collect::step_record>& steps() const noexcept { return steps_; }

  /// The losses so far (drain thread): info.json is rewritten when a counter
  /// (or the writer's storage_limit_dropped) changed since the last write.
  void update_losses(const collect::loss_counters& l) override {
    auto list = loss_list(l);
    const std::uint64_t storage = dir_.stats().lost_events;
    if (written_ && list == last_ && storage == last_storage_) return;
    if (dir_.record_losses(list)) {
      written_ = true;
      last_ = std::move(list);
      last_storage_ = storage;
    }
  }

  /// Writes the final loss counters into info.json and closes the directory.
  /// With a staging: turns it into msproftx slices first (prof::unstage).
  result<void> finish(const collect::loss_counters& l) {
    result<void> staged;
    if (staging_) {
      const std::string path = staging_.path();
      const bool mine = staging_.mine();  // not a fork()ed child's copy
      staging_.close();
      dir_.count_lost_events(staging_.take_aged_calls());
      if (mine && convert_at_finish_)
        if (auto u = prof::unstage(dir_, path); !u) staged = u.err();
    }
    MSPROF_TRY(dir_.record_losses(loss_list(l)));
    MSPROF_TRY(dir_.close());
    return staged;
  }

 private:
  std::uint64_t ns(std::uint64_t tick) const { return monotonic_ns(ticks_, tick); }
  using loss_list_t = std::vector<std::pair<std::string, std::uint64_t>>;
  loss_list_t loss_list(const collect::loss_counters& l) const {
    return {{"dropped", l.dropped},
            {"rejected", l.rejected},
            {"domain_mismatch", l.domain_mismatch},
            {"unknown_range_ends", l.unknown_end},
            {"unfinished_ranges", l.unfinished},
            {"lost_threads", l.lost_threads},
            {"sink_failed", l.sink_failed + staging_.lost_calls()}};  // staged events a write error lost
  }

  prof::prof_dir& dir_;
  prof::tick_clock ticks_;    // the collector's clock
  prof::msproftx_writer tx_;  // CANN's form (and the domains' hash_dic lines)
  prof::staging_writer staging_;  // the compact form, when asked for
  bool convert_at_finish_ = true;
  std::string staging_error_;
  const prof::stream mem_stream_ = prof::stream::mstx_mem(false);
  std::vector<collect::step_record> steps_;
  loss_list_t last_;          // the counters info.json holds
  std::uint64_t last_storage_ = 0;
  bool written_ = false;
};

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_PROF_RECORD_SINK_HPP
