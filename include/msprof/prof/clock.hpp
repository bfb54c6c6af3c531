// SPDX-License-Identifier: MIT
// The one clock model of a PROF_ directory, for host and device: raw
// timestamps are ticks of a counter read together with CLOCK_MONOTONIC_RAW
// once (host_start.log, dev_start.log.<id>: cntvct and clock_monotonic_raw),
// and convert to monotonic ns through the counter's frequency. The reader
// converts with it, the simulated device makes its timestamps with it.
#ifndef MSPROF_PROF_CLOCK_HPP
#define MSPROF_PROF_CLOCK_HPP

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// Checked time arithmetic in signed 64-bit nanoseconds. Clock values and record
/// timestamps come from files that may be damaged, and a signed overflow is
/// undefined behaviour, so every clock conversion of the reader and of
/// convert::load / convert::join goes through these helpers: a result that does
/// not fit is std::nullopt (or clamped, in the *_saturated forms), never wrapped.
namespace time_ns {
inline constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
/// Largest collectionTimeBegin/End (us) whose ns value fits (2262-04-11).
inline constexpr std::uint64_t max_us = static_cast<std::uint64_t>(max) / 1000;

/// An unsigned count of ns as int64 (nullopt above INT64_MAX).
inline std::optional<std::int64_t> from_u64(std::uint64_t ns) noexcept {
  if (ns > static_cast<std::uint64_t>(max)) return std::nullopt;
  return static_cast<std::int64_t>(ns);
}
/// us -> ns (nullopt above max_us).
inline std::optional<std::int64_t> from_us(std::uint64_t us) noexcept {
  if (us > max_us) return std::nullopt;
  return static_cast<std::int64_t>(us) * 1000;
}
inline std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// x rounded to the nearest integer, halves away from zero, for |x| < 9.2e18:
/// std::llround's value without its library call (the join converts every
/// record's time). x less its truncation is exact, and so is the comparison.
inline std::int64_t round_half_away(double x) noexcept {
  const auto whole = static_cast<std::int64_t>(x);
  const double part = x - static_cast<double>(whole);
  return part >= 0.5 ? whole + 1 : part <= -0.5 ? whole - 1 : whole;
}
/// base + round(delta): a clock's reference point plus a converted tick
/// difference (nullopt for base above INT64_MAX, a non-finite or huge delta, or
/// a sum that does not fit).
inline std::optional<std::int64_t> shift(std::uint64_t base, double delta) noexcept {
  const auto b = from_u64(base);
  if (!b || !(delta > -9.2e18 && delta < 9.2e18)) return std::nullopt;
  return add(*b, round_half_away(delta));
}
/// A monotonic time plus the session's wall-clock offset: Unix-epoch ns. A time
/// before 1970 is rejected as well, so the difference of two wall times (a
/// duration) always fits in int64.
inline std::optional<std::int64_t> to_wall(std::int64_t mono, std::int64_t offset) noexcept {
  const auto r = add(mono, offset);
  if (!r || *r < 0) return std::nullopt;
  return r;
}
/// to_wall() of a conversion that may already have failed (nullopt stays nullopt).
inline std::optional<std::int64_t> to_wall(std::optional<std::int64_t> mono, std::int64_t offset) noexcept {
  return mono ? to_wall(*mono, offset) : std::nullopt;
}
/// x rounded toward zero and clamped to the int64 range (NaN: 0).
inline std::int64_t saturate(double x) noexcept {
  if (std::isnan(x)) return 0;
  if (x >= 9.2e18) return max;
  if (x <= -9.2e18) return min;
  return static_cast<std::int64_t>(x);
}
/// shift(), clamped when it does not fit.
inline std::int64_t shift_saturated(std::uint64_t base, double delta) noexcept {
  if (const auto r = shift(base, delta)) return *r;
  return saturate(static_cast<double>(base) + delta);
}
}  // namespace time_ns

/// Ticks of `frequency_mhz` counted from `anchor_ticks`, which was read at
/// CLOCK_MONOTONIC_RAW `anchor_ns`. Frequency 0: the timestamps are
/// CLOCK_MONOTONIC_RAW ns already (CANN's host "ns mode").
struct tick_clock {
  double frequency_mhz = 0;
  std::uint64_t anchor_ticks = 0;
  std::uint64_t anchor_ns = 0;

  /// Ticks -> CLOCK_MONOTONIC_RAW ns; nullopt when a damaged timestamp gives a
  /// value outside int64.
  std::optional<std::int64_t> monotonic_ns(std::uint64_t ticks) const noexcept {
    if (frequency_mhz <= 0) return time_ns::from_u64(ticks);
    return time_ns::shift(anchor_ns, ns_since_anchor(ticks));
  }
  /// monotonic_ns(), clamped to the int64 range when it does not fit.
  std::int64_t to_monotonic_ns(std::uint64_t ticks) const noexcept {
    if (frequency_mhz <= 0) return time_ns::from_u64(ticks).value_or(time_ns::max);
    return time_ns::shift_saturated(anchor_ns, ns_since_anchor(ticks));
  }
  /// The inverse, for writers: the tick count at CLOCK_MONOTONIC_RAW `ns`
  /// (truncated to a whole tick).
  std::uint64_t ticks_at(std::uint64_t ns) const noexcept {
    if (frequency_mhz <= 0) return ns;
    const double ticks = (static_cast<double>(ns) - static_cast<double>(anchor_ns)) * frequency_mhz / 1e3;
    return static_cast<std::uint64_t>(static_cast<double>(anchor_ticks) + ticks);
  }

 private:
  double ns_since_anchor(std::uint64_t ticks) const noexcept {
    return (static_cast<double>(ticks) - static_cast<double>(anchor_ticks)) / frequency_mhz * 1e3;
  }
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_CLOCK_HPP
