// SPDX-License-Identifier: MIT
// Every loss counted in events and kept on disk: the storage limit's deleted
// slices, and the counters of a run that never reaches finish() (kill -9).
#include <doctest/doctest.h>
#include <msprof/convert/load.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/session/prof_record_sink.hpp>

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "../../support/temp_dir.hpp"

namespace collect = msprof::collect;
namespace convert = msprof::convert;
namespace prof = msprof::prof;
namespace session = msprof::session;

namespace {

collect::tx_record mark(std::uint64_t id, const std::string& message) {
  collect::tx_record r;
  r.id = id;
  r.pid = 1;
  r.tid = r.end_tid = 7;
  r.start = r.end = 1000 + id;
  r.domain = "default";
  r.message = message;
  return r;
}

std::uint64_t info_loss(const std::string& dir, const char* key) {
  auto r = prof::prof_reader::open(dir);
  REQUIRE(r);
  return r->host().info.get("msprof_losses").get(key).uint_or(~std::uint64_t{0});
}

}  // namespace

TEST_CASE("storage limit: storage_limit_dropped counts the events of the deleted slices") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  o.slice_bytes = 4096;             // 16 records of 256 B
  o.storage_limit_bytes = 5 * 4096;  // a few slices survive
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  session::prof_record_sink sink(*d, {});  // the records hold ns already
  const std::uint64_t events = 600;
  for (std::uint64_t i = 1; i <= events; ++i)  // every third event is 2 records (message > 155 bytes)
    sink.write_tx(mark(i, i % 3 == 0 ? std::string(200, 'x') + std::to_string(i) : "m" + std::to_string(i)));
  REQUIRE(d->stats().removed_slices > 0);
  REQUIRE(sink.finish({}));
  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  std::uint64_t kept = 0;
  REQUIRE(r->for_each_mstx([&](const prof::mstx_record& m) {
    ++kept;
    CHECK(m.message.size() == (m.stamp.markId % 3 == 0 ? 200 + std::to_string(m.stamp.markId).size() : 1 + std::to_string(m.stamp.markId).size()));
  }));
  CHECK(kept < events);
  CHECK(info_loss(d->path(), "storage_limit_dropped") == events - kept);
}

TEST_CASE("storage limit: a deleted range counts as two events, the start and the end call") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  o.slice_bytes = 4096;
  o.storage_limit_bytes = 3 * 4096;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  session::prof_record_sink sink(*d, {});
  const std::uint64_t ranges = 300;
  for (std::uint64_t i = 1; i <= ranges; ++i) {
    const std::string message = "r" + std::to_string(i);  // the record holds a view of it
    collect::tx_record r = mark(i, message);
    r.event_type = 2;  // start/stop
    r.end = r.start + 5;
    sink.write_tx(r);
  }
  REQUIRE(sink.finish({}));
  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  std::uint64_t kept = 0;
  REQUIRE(r->for_each_mstx([&](const prof::mstx_record&) { ++kept; }));
  CHECK(kept < ranges);
  CHECK(info_loss(d->path(), "storage_limit_dropped") == 2 * (ranges - kept));
}

TEST_CASE("killed run: the counters are in info.json before finish(), and the export says the run did not finish") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  session::prof_record_sink sink(*d, {});  // the records hold ns already
  sink.write_tx(mark(1, "before the kill"));
  collect::loss_counters l;
  l.rejected = 3;
  l.unfinished = 2;  // ranges open at the last drain pass
  sink.update_losses(l);
  sink.flush();
  // The process is killed here: no finish(), no close(), no end_info.
  struct stat st{};
  CHECK(::stat((d->path() + "/host/end_info").c_str(), &st) != 0);
  CHECK(info_loss(d->path(), "rejected") == 3);
  CHECK(info_loss(d->path(), "unfinished_ranges") == 2);
  CHECK(info_loss(d->path(), "storage_limit_dropped") == 0);

  auto m = convert::load_model(d->path());
  REQUIRE(m);
  CHECK(m->session.unfinished);
  bool said = false;
  for (const auto& w : m->warnings)
    said = said || (w.find("the collection did not finish") != std::string::npos &&
                    w.find("count 5 event(s) lost") != std::string::npos);
  CHECK(said);
  const auto table = convert::msprof_losses(*m);
  REQUIRE(table.rows.size() == 3);
  CHECK(table.rows[0][0] == "rejected");
  CHECK(table.rows[1][0] == "unfinished_ranges");
  CHECK(table.rows[2][0] == "collection_unfinished");
  // The same counters again: info.json is not rewritten (the drain calls this every pass).
  ::rename((d->path() + "/host/info.json").c_str(), (d->path() + "/host/info.json.kept").c_str());
  sink.update_losses(l);
  CHECK(::stat((d->path() + "/host/info.json").c_str(), &st) != 0);
  ::rename((d->path() + "/host/info.json.kept").c_str(), (d->path() + "/host/info.json").c_str());
  // A normal end replaces them with the final counters and writes end_info.
  l.unfinished = 0;
  REQUIRE(sink.finish(l));
  CHECK(info_loss(d->path(), "unfinished_ranges") == 0);
  auto done = convert::load_model(d->path());
  REQUIRE(done);
  CHECK_FALSE(done->session.unfinished);
}
