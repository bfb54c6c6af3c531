// SPDX-License-Identifier: MIT
// ACC_PMU as the reference (9ba1ac7be) exports it on chip 5: its C++ device
// parser (StarsSocParser, stars_soc_parser.cpp; AccPmuParserItem,
// acc_pmu_parser_item.cpp) takes the records of funcType 0b011010 with the
// STARS magic from the device's stars_soc slices, AccPmuPersistence
// (acc_pmu_persistence.cpp, CHIP_V4_1_0 only) stamps them with
// GetTimeFromSyscnt as doubles into acc_pmu.db, AccPmuProcessor
// (acc_pmu_processor.cpp) reads them ORDER BY timestamp, acc_id, makes the
// times local and drops those before the collection start; acc_pmu_assembler.cpp
// draws the counters and SaveAccPmuData (db_assembler.cpp) writes the rows.
#include "msprof/convert/acc_pmu.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>
#include <tuple>

#include "msprof/codec/acc_pmu.hpp"
#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/spill.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// AccPmuProcessor's order: the stored time (a double), then the accelerator id.
struct acc_key {
  double time;
  std::uint64_t acc_id;
  bool operator<(const acc_key& o) const { return std::tie(time, acc_id) < std::tie(o.time, o.acc_id); }
};

/// What a sample keeps besides its key (no padding bytes go to the spill file).
struct acc_levels {
  std::int64_t time_ns;
  std::uint32_t level[4];  // read bw, write bw, read ost, write ost
};

/// The time of a sample as the reference's C++ path makes it: GetTimeFromSyscnt
/// (|ticks - cntvct| as a double / hwts MHz, in ns, added to or taken from the
/// device's host_start.log clock), kept as a double in acc_pmu.db, then
/// GetLocalTime's sum with start_info's collectionTimeBegin minus its
/// clockMonotonicRaw, truncated. The clock files are the device's own.
class syscnt_clock {
 public:
  syscnt_clock(const detail::device_clock& c, const prof::device_info& d)
      : host_mono_(c.host_mono_ns),
        cnt_(d.clock.anchor_ticks),
        mhz_(d.clock.frequency_mhz),
        wall_(c.start_ns() - static_cast<std::int64_t>(c.raw_ns)) {}
  bool usable() const { return mhz_ > 0; }
  /// The stored double (device ns).
  double stored(std::uint64_t ticks) const {
    const bool after = ticks >= cnt_;
    const long double ns = static_cast<long double>(static_cast<double>(after ? ticks - cnt_ : cnt_ - ticks) / mhz_) * 1000;
    return static_cast<double>(after ? host_mono_ + ns : host_mono_ - ns);
  }
  /// The local time of a stored double; nullopt outside the clock's range.
  std::optional<std::int64_t> local(double stored) const {
    if (!(stored >= 0 && stored < 9.2e18)) return std::nullopt;
    return prof::time_ns::add(static_cast<std::int64_t>(stored), wall_);
  }

 private:
  long double host_mono_;
  std::uint64_t cnt_;
  double mhz_;
  std::int64_t wall_;
};

}  // namespace

result<void> for_each_acc_pmu_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                     const std::function<result<void>(const acc_pmu_sample&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::stars_soc) + ".data.", false);
  if (!r) return {};
  const auto& host = r->host();
  std::uint64_t bad_time = 0, early = 0, no_magic = 0;
  for (const auto& d : r->devices()) {
    const std::string chip = d.info.get("platform_version").as_string_or("");
    if (chip == "15" || chip == "16") continue;  // 32-byte STARS logs (V6): no ACC_PMU records in this layout
    std::vector<const prof::data_file*> files;
    for (const auto& f : r->files())
      if (f.device && f.device_id == d.id && f.module == prof::layout::stars_soc) files.push_back(&f);
    if (files.empty()) continue;
    const auto own = detail::own_clock(prof_dir, host, d, warnings);
    const syscnt_clock clock(own, d);
    spill_sorter<acc_key> sorted(prof_dir);
    std::uint64_t found = 0;
    for (const auto* f : files) {
      const std::string_view path = f->path;
      auto rep = codec::scan_file(f->path, codec::acc_pmu_size, [&](const unsigned char* p, std::uint64_t off) {
        auto s = codec::decode_acc_pmu(p, codec::acc_pmu_size, codec::place{path, off});
        if (!s || s->func_type() != codec::acc_pmu_func) return;
        if (s->magic != codec::stars_magic) return void(++no_magic);
        ++found;
        if (chip != "5" || !clock.usable()) return;
        const double stored = clock.stored(s->syscnt);
        const auto t = clock.local(stored);
        if (!t) return void(++bad_time);
        acc_levels v{*t,
                     {static_cast<std::uint32_t>(s->bandwidth[0]), static_cast<std::uint32_t>(s->bandwidth[1]),
                      static_cast<std::uint32_t>(s->ost[0]), static_cast<std::uint32_t>(s->ost[1])}};
        sorted.push(acc_key{stored, s->acc_id}, bytes_of(v));
      });
      // A file that cannot be read, and a cut tail, are the ACSQ reader's warnings (the same slices).
      if (!rep && rep.err().code == errc::io) return rep.err();
    }
    if (found == 0) continue;
    const std::string info = prof_dir + "/" + prof::layout::device_dir(d.id) + "/" +
                             prof::layout::for_device(prof::layout::info_json, d.id);
    const std::string none = "; no ACC_PMU samples for device " + std::to_string(d.id);
    if (chip != "5") {
      warnings.push_back(info + ": chip \"" + chip + "\" (platform_version) is not one whose ACC_PMU samples the "
                                "reference's C++ parser reads (5)" + none);
      continue;
    }
    if (!clock.usable()) {
      warnings.push_back(info + ": no positive hwts_frequency to time the ACC_PMU samples" + none);
      continue;
    }
    const std::int64_t start = own.start_ns();
    acc_pmu_sample a;
    a.device_id = d.id;
    acc_key k{};
    std::string_view payload;
    while (sorted.next(k, payload)) {
      auto v = from_bytes<acc_levels>(payload);
      if (v.time_ns < start) {
        ++early;
        continue;
      }
      a.acc_id = static_cast<std::uint32_t>(k.acc_id);
      a.time_ns = v.time_ns;
      a.read_bw = v.level[0];
      a.write_bw = v.level[1];
      a.read_ost = v.level[2];
      a.write_ost = v.level[3];
      MSPROF_TRY(fn(a));
    }
    MSPROF_TRY(sorted.take_status());
  }
  detail::left_out(warnings, prof_dir, no_magic, "ACC_PMU record(s) without the STARS magic 0x6BD3");
  detail::left_out(warnings, prof_dir, bad_time, "ACC_PMU sample(s) with a time outside the clock's range");
  detail::left_out(warnings, prof_dir, early, "ACC_PMU sample(s) from before the collection start (as the reference)");
  return {};
}

result<void> db_window_writer::write_acc_pmu(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_acc_pmu_sample(prof_dir, warnings_, [&](const acc_pmu_sample& a) -> result<void> {
    if (!t) t = &rows_of("ACC_PMU");
    // SaveAccPmuData: accId, readBwLevel, writeBwLevel, readOstLevel, writeOstLevel, timestampNs, deviceId.
    t->row(a.acc_id, a.read_bw, a.write_bw, a.read_ost, a.write_ost, a.time_ns, a.device_id);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
