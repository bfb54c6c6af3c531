// SPDX-License-Identifier: MIT
// The collector's host clock data (docs/formats.md, "Host clock"): whatever
// counter the collector reads, the files hold CLOCK_MONOTONIC_RAW ns and a
// whole-µs clockMonotonicRaw, so Huawei's parser (its C++ exporter truncating
// counter ticks to the ns, its Python msprof_tx.csv computing the wall offset
// in float64) and our converter place every host record at the same ns.
#include <doctest/doctest.h>
#include <msprof/convert/load.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/session/prof_record_sink.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace collect = msprof::collect;
namespace convert = msprof::convert;
namespace prof = msprof::prof;
namespace session = msprof::session;

namespace {

/// The host time (monotonic ns) Huawei's C++ exporter gives a host record
/// (GetTimeFromHostCnt: counter ticks / MHz, shifted by 10^3, truncated).
std::uint64_t reference_cpp_ns(const prof::host_info& h, std::uint64_t raw) {
  if (h.clock.frequency_mhz <= 0) return raw;  // "Frequency": "": ns already
  const double diff = static_cast<double>(raw - h.clock.anchor_ticks) / h.clock.frequency_mhz;
  return h.clock.anchor_ns + static_cast<std::uint64_t>(std::floor(diff * 1000.0));
}

}  // namespace

TEST_CASE("host clock: counter ticks are written as ns with a whole-µs anchor, and both parsers' arithmetic agree with ours") {
  // A counter clock whose ticks fall between ns (2999.999 MHz) and whose
  // calibration pair is not a whole µs: the data that made Huawei's parser and
  // ours differ by 1 ns (and its msprof_tx.csv by the sub-µs part).
  collect::clock_calibration cal;
  cal.counter = true;
  cal.frequency_mhz = 2999.999;
  cal.monotonic_raw_ns = 5'000'000'000'123ull;
  cal.counter_ticks = 70'000'000'007ull;
  temp_dir t;
  prof::prof_dir_options o = session::prof_dir_options_for(cal);
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  session::prof_record_sink sink(*d, session::collector_clock(cal));
  std::vector<std::uint64_t> ticks;
  for (std::uint64_t k = 1; k <= 40; ++k) ticks.push_back(cal.counter_ticks + k * 1000 + k);  // 1/3, 2/3 ns parts
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    collect::tx_record r;
    r.id = i + 1;
    r.pid = 1;
    r.tid = r.end_tid = 7;
    r.start = ticks[i];
    r.end = ticks[i] + 2;
    r.domain = "default";
    const std::string message = "m" + std::to_string(i);  // a view: valid during write_tx only
    r.message = message;
    sink.write_tx(r);
  }
  REQUIRE(sink.finish({}));

  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  const prof::host_info& h = r->host();
  // The files: ns mode, and clockMonotonicRaw with no sub-µs part.
  CHECK(h.info.get("CPU").at(0).get("Frequency").as_string_or("x").empty());
  CHECK(h.clock.frequency_mhz == 0);
  CHECK(h.start_monotonic_raw_ns % 1000 == 0);
  CHECK(h.clock.anchor_ns == h.start_monotonic_raw_ns);
  // Huawei's Python msprof_tx.csv: offset_us = float(begin) - float(mono) / 1000
  // in float64, exact only when it is a whole number of µs.
  const double offset_us = static_cast<double>(h.collection_time_begin_us) -
                           static_cast<double>(h.start_monotonic_raw_ns) / 1000.0;
  const std::int64_t offset_ns = h.wall_offset_ns();
  CHECK(offset_ns % 1000 == 0);
  CHECK(offset_us == static_cast<double>(offset_ns / 1000));

  std::vector<std::uint64_t> written;
  REQUIRE(r->for_each_mstx([&](const prof::mstx_record& m) { written.push_back(+m.stamp.startTime); }));
  REQUIRE(written.size() == ticks.size());
  auto m = convert::load_model(d->path());
  REQUIRE(m);
  REQUIRE(m->mstx.size() == ticks.size());
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    CAPTURE(i);
    // The record holds the collector's conversion of its ticks, to the nearest ns.
    const double exact = static_cast<double>(cal.monotonic_raw_ns) +
                         static_cast<double>(ticks[i] - cal.counter_ticks) * 1000.0 / cal.frequency_mhz;
    CHECK(written[i] == static_cast<std::uint64_t>(std::llround(exact)));
    // Ours, the reference's C++ exporter and its Python path: the same ns.
    const std::int64_t ref_wall = static_cast<std::int64_t>(reference_cpp_ns(h, written[i])) + offset_ns;
    CHECK(m->mstx[i].start_ns == ref_wall);
    CHECK(m->mstx[i].start_mono_ns == static_cast<std::int64_t>(written[i]));
  }
}

TEST_CASE("host clock: a directory's own 'now' anchor is a whole µs") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  for (int i = 0; i < 3; ++i) {
    auto d = prof::prof_dir::create(o);
    REQUIRE(d);
    CHECK(d->options().host_clock.anchor_ns % 1000 == 0);
    CHECK(d->options().host_clock.anchor_ns > 0);
  }
}
