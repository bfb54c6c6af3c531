// SPDX-License-Identifier: MIT
// The compact staging (prof/staging.hpp): the same calls give the same
// msproftx slices through the staging as written directly; a killed run's
// staging is recovered with exact accounting; damaged staging files give an
// error naming the file and the offset.
#include <msprof/convert/load.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/prof/staging.hpp>
#include <msprof/session/prof_record_sink.hpp>
#include <msprof/session/session.hpp>
#include <msprof/mstx.hpp>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../../support/temp_dir.hpp"
#include "killed_child.hpp"

namespace session = msprof::session;
namespace convert = msprof::convert;
namespace collect = msprof::collect;
namespace prof = msprof::prof;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Hands every record to two sinks: the same calls, two forms.
struct tee_sink : collect::record_sink {
  std::shared_ptr<session::prof_record_sink> a, b;
  void write_tx(const collect::tx_record& r) override { a->write_tx(r), b->write_tx(r); }
  void write_mem(const collect::mem_record& r) override { a->write_mem(r), b->write_mem(r); }
  void write_step(const collect::step_record& s) override { a->write_step(s), b->write_step(s); }
  void flush() override { a->flush(), b->flush(); }
  void update_losses(const collect::loss_counters& l) override { a->update_losses(l), b->update_losses(l); }
  collect::call_counter_block call_counters() override { return a->call_counters(); }
};

// host/data's slices, name -> bytes (.done files hold times and are left out).
std::map<std::string, std::string> host_slices(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(root + "/host/data")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".done") == 0) continue;
    out[name] = read_file(e.path().string());
  }
  return out;
}

prof::prof_dir make_dir(const std::string& parent, const std::string& name) {
  prof::prof_dir_options o;
  o.parent = parent;
  o.name = name;
  o.slice_bytes = 8192;  // 32 records: the slices roll over
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  return std::move(*d);
}

std::uint64_t loss(const convert::model& m, const std::string& key) {
  for (const auto& [k, n] : m.session.losses)
    if (k == key) return n;
  return 0;
}

std::string staging_of(const std::string& root) { return root + "/host/msprof_staging"; }

// Range `id` of the default domain (pid 1, tid 2): from 1000 * id, 10 ns long.
prof::tx_event range_event(std::string_view message, std::uint64_t id) {
  prof::tx_event e;
  e.event_type = 2;
  e.pid = 1;
  e.tid = 2;
  e.domain = "default";
  e.message = message;
  e.id = id;
  e.start_ns = 1000 * id;
  e.end_ns = e.start_ns + 10;
  return e;
}

}  // namespace

TEST_CASE("staging: a collection through the staging gives the same msproftx slices as written directly") {
  temp_dir t;
  prof::prof_dir direct = make_dir(t.path, "PROF_direct");
  prof::prof_dir staged = make_dir(t.path, "PROF_staged");
  const collect::clock_calibration cal = collect::calibrate(true);
  auto tee = std::make_shared<tee_sink>();
  tee->a = std::make_shared<session::prof_record_sink>(direct, session::collector_clock(cal));
  tee->b = std::make_shared<session::prof_record_sink>(staged, session::collector_clock(cal), true);
  REQUIRE(tee->b->staging_error().empty());
  REQUIRE(!tee->b->staging_path().empty());
  collect::options o;
  o.sink = tee;
  o.calibration = cal;
  o.drain_interval = std::chrono::milliseconds(5);
  REQUIRE(static_cast<bool>(collect::start(o)));
  mstxDomainHandle_t d = mstxDomainCreateA("staging domain");
  const std::string long_message(150, 'L');
  std::thread other([&] {
    for (int i = 0; i < 300; ++i) mstxDomainRangeEnd(d, mstxDomainRangeStartA(d, ("other " + std::to_string(i)).c_str(), nullptr));
  });
  for (int i = 0; i < 500; ++i) {
    mstxMarkA("static-like mark", nullptr);
    mstxRangeEnd(mstxRangeStartA(("dynamic " + std::to_string(i % 37)).c_str(), nullptr));
    if (i % 50 == 0) mstxDomainMarkA(d, long_message.c_str(), nullptr);
    if (i % 100 == 0) collect::step_begin(static_cast<std::uint64_t>(i)), collect::step_end(static_cast<std::uint64_t>(i));
  }
  other.join();
  collect::stop();
  const collect::loss_counters l = collect::losses();
  CHECK(l.total() == 0);
  CHECK(fs::exists(staging_of(staged.path()) + "/tx.0"));
  REQUIRE(tee->a->finish(l));
  REQUIRE(tee->b->finish(l));
  CHECK(!fs::exists(staging_of(staged.path())));  // turned into slices and removed
  const auto want = host_slices(direct.path());
  const auto got = host_slices(staged.path());
  std::size_t tx_slices = 0;
  for (const auto& [name, bytes] : want) tx_slices += name.find("msproftx") != std::string::npos;
  CHECK(tx_slices > 2);
  REQUIRE(want.size() == got.size());
  for (const auto& kv : want) {
    INFO(kv.first);
    auto it = got.find(kv.first);
    REQUIRE(it != got.end());
    CHECK(it->second == kv.second);
  }
  // The export reads both the same.
  auto m1 = convert::load_model(direct.path());
  auto m2 = convert::load_model(staged.path());
  REQUIRE(m1);
  REQUIRE(m2);
  CHECK(m1->mstx.size() == m2->mstx.size());
  CHECK(m1->mstx.size() == 500 + 500 + 10 + 300 + 5);
}

namespace {
constexpr const char* kill_env = "MSPROF_TEST_STAGING_KILL_DIR";
}

// Runs only as the child of the test below: a staged session records, then the
// process is killed mid-window.
TEST_CASE("staging: helper: a staged session killed while it records") {
  const char* out = std::getenv(kill_env);
  if (out == nullptr) return;
  session::session_config c;
  c.output = out;
  c.npu = false;
  c.staging = true;
  c.drain_interval = std::chrono::milliseconds(5);
  session::profiler p(c);
  if (!p.start()) ::_exit(3);
  for (int i = 0; i < 2000; ++i) mstxRangeEnd(mstxRangeStartA(("drained " + std::to_string(i % 10)).c_str(), nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // many drain intervals: on disk
  for (int i = 0; i < 1000; ++i) mstxMarkA("in memory at the kill", nullptr);
  ::kill(::getpid(), SIGKILL);
}

TEST_CASE("staging: a killed run's staging is recovered into slices, with every call accounted for") {
  temp_dir t;
  const std::string dir = run_killed_child("staging: helper: a staged session killed while it records", kill_env, t.path);
  REQUIRE(fs::exists(staging_of(dir) + "/tx.0"));
  auto rec = prof::recover_staging(dir);
  REQUIRE(rec);
  CHECK(rec->found);
  CHECK(rec->staged.calls >= 2 * 2000);
  CHECK(!rec->moved.empty());
  CHECK(!fs::exists(staging_of(dir)));
  auto again = prof::recover_staging(dir);  // nothing left to recover
  REQUIRE(again);
  CHECK(!again->found);

  auto r = prof::prof_reader::open(dir);
  REQUIRE(r);
  REQUIRE(r->host().calls_made.has_value());
  const std::uint64_t made = *r->host().calls_made;
  CHECK(made == 1 + 2 * 2000 + 1000);  // step 0 begun (one call), never ended
  auto m = convert::load_model(dir);
  REQUIRE(m);
  std::uint64_t written = 0, counted = 0;
  for (const auto& e : m->mstx) written += e.event_type == 2 ? 2 : 1;
  CHECK(written == rec->staged.calls);
  for (const char* k : {"dropped", "domain_mismatch", "unknown_range_ends", "unfinished_ranges", "sink_failed",
                        "storage_limit_dropped", "lost_at_kill"})
    counted += loss(*m, k);
  CHECK(made == written + counted);
}

TEST_CASE("staging: damaged staging files give an error naming the file and the offset") {
  temp_dir t;
  prof::prof_dir d = make_dir(t.path, "PROF_damaged");
  auto w = prof::staging_writer::create(d.path());
  REQUIRE(w);
  for (std::uint64_t i = 0; i < 10; ++i) {
    prof::tx_event e;
    e.id = i;
    e.event_type = i % 2 == 0 ? 0 : 2;
    e.pid = 1;
    e.tid = 2;
    e.start_ns = 1000 + i;
    e.end_ns = e.event_type == 0 ? e.start_ns : e.start_ns + 5;
    e.domain = "default";
    e.message = i % 3 == 0 ? "three" : "other";
    w->add(e);
  }
  const std::string path = w->path();
  w->close();
  const std::string tx = path + "/tx.0", strings = path + "/strings";
  const std::string tx_bytes = read_file(tx), strings_bytes = read_file(strings);
  auto count = [&]() { return prof::for_each_staged(path, [](const prof::tx_event&) {}); };
  auto restore = [&] {
    write_file(tx, tx_bytes);
    write_file(strings, strings_bytes);
  };
  auto ok = count();
  REQUIRE(ok);
  CHECK(ok->events == 10);
  CHECK(ok->calls == 15);
  CHECK(ok->warnings.empty());

  SUBCASE("a bad record tag") {
    std::string b = tx_bytes;
    b[8 + 36] = 'X';  // the second record (the first is a 36-byte mark)
    write_file(tx, b);
    auto r = count();
    REQUIRE(!r);
    CHECK(r.err().message.find(tx + ": offset 44: record tag") != std::string::npos);
  }
  SUBCASE("a bad magic") {
    std::string b = strings_bytes;
    b[0] = 'x';
    write_file(strings, b);
    auto r = count();
    REQUIRE(!r);
    CHECK(r.err().message.find(strings + ": offset 0: not a staging strings file") != std::string::npos);
  }
  SUBCASE("a string id that is not in the strings file") {
    std::string b = tx_bytes;
    b[8 + 16] = 99;  // the first record's message id
    write_file(tx, b);
    auto r = count();
    REQUIRE(!r);
    CHECK(r.err().message.find(tx + ": offset 8: message string id 99") != std::string::npos);
  }
  SUBCASE("an impossible string length") {
    std::string b = strings_bytes;
    b[8 + 3] = 0x7f;  // the first string's length: ~2 GB
    write_file(strings, b);
    auto r = count();
    REQUIRE(!r);
    CHECK(r.err().message.find(strings + ": offset 8: string of") != std::string::npos);
  }
  SUBCASE("a cut last record (a killed run) is a warning, and recovery keeps the whole ones") {
    write_file(tx, tx_bytes.substr(0, tx_bytes.size() - 3));
    auto r = count();
    REQUIRE(r);
    CHECK(r->events == 9);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].find(tx + ": offset") != std::string::npos);
    auto rec = prof::recover_staging(d.path());
    REQUIRE(rec);
    CHECK(rec->staged.events == 9);
  }
  SUBCASE("a chunk killed before its first write (empty) holds no records, and a cut magic is a warning") {
    write_file(path + "/tx.1", "");
    auto r = count();
    REQUIRE(r);
    CHECK(r->events == 10);
    CHECK(r->warnings.empty());
    write_file(path + "/tx.1", "MSP");
    r = count();
    REQUIRE(r);
    CHECK(r->events == 10);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].find(path + "/tx.1: offset 0: cut magic") != std::string::npos);
    fs::remove(path + "/tx.1");
  }
  SUBCASE("a staging killed before its first save (both files empty) holds no events, and a cut magic is a warning") {
    write_file(tx, "");
    write_file(strings, "");
    auto r = count();
    REQUIRE(r);
    CHECK(r->events == 0);
    CHECK(r->warnings.empty());
    write_file(strings, "MSPST");
    r = count();
    REQUIRE(r);
    CHECK(r->events == 0);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].find(strings + ": offset 0: cut magic (5 bytes)") != std::string::npos);
    write_file(tx, tx_bytes);  // records naming strings that were never saved
    r = count();
    REQUIRE(!r);
    CHECK(r.err().message.find(tx + ": offset 8: ") != std::string::npos);
  }
  SUBCASE("recovery refuses records without their strings file, and leaves them in place") {
    fs::remove(strings);
    auto rec = prof::recover_staging(d.path());
    REQUIRE(!rec);
    CHECK(rec.err().message.find(strings + ": missing (a staging without its strings)") != std::string::npos);
    CHECK(fs::exists(tx));
  }
  SUBCASE("recovery refuses a damaged staging and leaves it in place") {
    std::string b = tx_bytes;
    b[8 + 1] = 1;  // flags
    write_file(tx, b);
    auto rec = prof::recover_staging(d.path());
    REQUIRE(!rec);
    CHECK(rec.err().message.find(tx + ": offset 8: flags") != std::string::npos);
    CHECK(fs::exists(tx));
  }
  restore();
}

TEST_CASE("staging: a conversion at stop cut short is undone and done again by recovery, without duplicates") {
  temp_dir t;
  std::string root;
  {
    prof::prof_dir d = make_dir(t.path, "PROF_cut");
    root = d.path();
    auto w = prof::staging_writer::create(root);
    REQUIRE(w);
    for (std::uint64_t i = 1; i <= 20000; ++i)  // 3 slices of 2 MiB in the recovery's scratch directory
      w->add(range_event("range", i));
    w->close();
    // What a process killed inside the conversion leaves: the marker, some of the slices.
    std::ofstream(staging_of(root) + "/converting").put('\n');
    prof::msproftx_writer tx(d);
    for (std::uint64_t i = 1; i <= 40; ++i) REQUIRE(tx.write(range_event("range", i)));
    REQUIRE(d.close());
  }
  auto count = [&] {
    auto r = prof::prof_reader::open(root);
    REQUIRE(r);
    std::uint64_t n = 0;
    REQUIRE(r->for_each_mstx([&](const prof::mstx_record&) { ++n; }));
    return n;
  };
  REQUIRE(count() == 40);
  auto rec = prof::recover_staging(root);
  REQUIRE(rec);
  CHECK(rec->staged.events == 20000);
  CHECK(count() == 20000);  // the 40 of the cut conversion were removed first
  CHECK(rec->moved.size() >= 4);  // 3 msproftx slices and hash_dic, moved in their order:
  {
    auto r = prof::prof_reader::open(root);
    REQUIRE(r);
    std::uint64_t last = 0;
    bool ordered = true;
    REQUIRE(r->for_each_mstx([&](const prof::mstx_record& m) {
      ordered = ordered && m.stamp.markId == last + 1;
      last = m.stamp.markId;
    }));
    CHECK(ordered);
    CHECK(last == 20000);
  }
  CHECK(!fs::exists(staging_of(root)));

  // A conversion that finished but for removing the marker: only the marker goes.
  fs::create_directories(staging_of(root));
  std::ofstream(staging_of(root) + "/converting").put('\n');
  auto again = prof::recover_staging(root);
  REQUIRE(again);
  CHECK(again->found);
  CHECK(count() == 20000);
  CHECK(!fs::exists(staging_of(root)));

  // An empty staging (killed before its strings file existed): nothing to recover, it goes.
  fs::create_directories(staging_of(root));
  auto empty = prof::recover_staging(root);
  REQUIRE(empty);
  CHECK(empty->found);
  CHECK(empty->staged.events == 0);
  CHECK(empty->moved.empty());
  CHECK(count() == 20000);
  CHECK(!fs::exists(staging_of(root)));
}

namespace {
// `n` events through `sink` as the drain hands them over: ranges, a mark every
// tenth, messages from a small set, a flush every 500 (the drain interval).
void feed(session::prof_record_sink& sink, std::uint64_t n) {
  const std::string messages[] = {"a", "bb", "a message of some length", std::string(300, 'm')};
  for (std::uint64_t i = 1; i <= n; ++i) {
    collect::tx_record r;
    r.id = i;
    r.event_type = i % 10 == 0 ? 0 : 2;
    r.pid = 7;
    r.tid = r.end_tid = 8;
    r.start = 1000000 + 100 * i;
    r.end = r.event_type == 0 ? r.start : r.start + 50;
    r.domain = i % 3 == 0 ? "other" : "default";
    r.message = messages[i % 4];
    sink.write_tx(r);
    if (i % 500 == 0) sink.flush();
  }
}
std::uint64_t calls_of(std::uint64_t n) { return 2 * n - n / 10; }  // feed's events in calls
}  // namespace

TEST_CASE("staging: a sink that leaves its staging to the launcher closes it complete, and recovery makes the same slices") {
  temp_dir t;
  prof::prof_dir direct = make_dir(t.path, "PROF_direct");
  prof::prof_dir left = make_dir(t.path, "PROF_left");
  const prof::tick_clock ticks = session::collector_clock(collect::calibrate(true));
  session::prof_record_sink a(direct, ticks);
  session::prof_record_sink b(left, ticks, true, false);
  REQUIRE(!b.staging_path().empty());
  feed(a, 3000);
  feed(b, 3000);
  REQUIRE(a.finish({}));
  REQUIRE(b.finish({}));
  // The collection ended (end_info) with its staging closed, complete and unlocked.
  CHECK(fs::exists(left.path() + "/host/end_info"));
  CHECK(fs::exists(staging_of(left.path()) + "/complete"));
  std::size_t tx_in_left = 0;
  for (const auto& [name, bytes] : host_slices(left.path())) tx_in_left += name.find("msproftx") != std::string::npos;
  CHECK(tx_in_left == 0);
  auto rec = prof::recover_staging(left.path());
  REQUIRE(rec);
  CHECK(rec->found);
  CHECK(rec->complete);
  CHECK(rec->staged.events == 3000);
  CHECK(rec->staged.calls == calls_of(3000));
  CHECK(!fs::exists(staging_of(left.path())));
  // The same msproftx records (recovery makes slices of the default size; its
  // hash_dic repeats lines the collection wrote, which is harmless).
  auto joined = [](const std::string& root) {
    std::map<std::pair<std::string, unsigned long>, std::string> in_order;  // (kind, slice number)
    for (const auto& [name, bytes] : host_slices(root)) {
      const std::size_t at = name.find(".slice_");
      in_order[{name.substr(0, at), std::stoul(name.substr(at + 7))}] = bytes;
    }
    std::map<std::string, std::string> by_kind;
    for (const auto& [key, bytes] : in_order) by_kind[key.first] += bytes;
    return by_kind;
  };
  const auto want = joined(direct.path());
  const auto got = joined(left.path());
  const std::string tx = "aging.additional.msproftx";
  REQUIRE(want.count(tx) == 1);
  REQUIRE(got.count(tx) == 1);
  CHECK(want.at(tx).size() >= 3000 * 256);
  CHECK(want.at(tx) == got.at(tx));
}

TEST_CASE("staging: a fork()ed child neither holds the staging's lock nor writes into it") {
  temp_dir t;
  prof::prof_dir d = make_dir(t.path, "PROF_fork");
  auto w = prof::staging_writer::create(d.path());
  REQUIRE(w);
  for (std::uint64_t i = 1; i <= 10; ++i) w->add(range_event("parent", i));
  REQUIRE(w->flush());
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {  // lives on while the parent closes and recovers; its copy writes nothing
    ::close(ready[0]);
    ::close(done[1]);  // ends with the parent, whatever the parent's checks say
    w->add(range_event("child", 11));
    (void)w->flush();
    char c = 'r';
    if (::write(ready[1], &c, 1) != 1 || ::read(done[0], &c, 1) != 1) ::_exit(2);
    w->close();
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(done[0]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  auto busy = prof::recover_staging(d.path());  // the parent still writes it
  REQUIRE(!busy);
  CHECK(busy.err().message.find("a running collection still writes it") != std::string::npos);
  w->close();
  auto rec = prof::recover_staging(d.path());  // the child lives: it holds no lock
  CAPTURE((rec ? std::string() : rec.err().message));
  REQUIRE(rec);
  CHECK(rec->complete);
  CHECK(rec->staged.events == 10);
  std::uint64_t child_events = 0;
  auto r = prof::prof_reader::open(d.path());
  REQUIRE(r);
  REQUIRE(r->for_each_mstx([&](const prof::mstx_record& m) { child_events += std::string(m.message) == "child"; }));
  CHECK(child_events == 0);
  REQUIRE(::write(done[1], &c, 1) == 1);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  ::close(ready[0]);
  ::close(done[1]);
}

TEST_CASE("staging: the storage limit removes the oldest chunks, counted in calls, and the slices made from the rest fit in it") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  o.name = "PROF_limited";
  o.slice_bytes = 64 * 1024;
  o.storage_limit_bytes = 1u << 20;  // chunks of 256 KiB of msproftx records: 4 fit
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  session::prof_record_sink sink(*d, session::collector_clock(collect::calibrate(true)), true);
  REQUIRE(!sink.staging_path().empty());
  const std::uint64_t n = 20000;  // about 6 MB as msproftx records
  feed(sink, n);
  REQUIRE(sink.finish({}));
  CHECK(!fs::exists(staging_of(d->path())));
  std::uint64_t kept = 0, first = 0, last = 0, tx_bytes = 0;
  {
    auto r = prof::prof_reader::open(d->path());
    REQUIRE(r);
    REQUIRE(r->for_each_mstx([&](const prof::mstx_record& m) {
      kept += m.stamp.eventType == 0 ? 1 : 2;
      if (first == 0) first = m.stamp.markId;
      last = m.stamp.markId;
    }));
  }
  for (const auto& [name, bytes] : host_slices(d->path()))
    if (name.find("msproftx") != std::string::npos) tx_bytes += bytes.size();
  auto m = convert::load_model(d->path());
  REQUIRE(m);
  const std::uint64_t dropped = loss(*m, "storage_limit_dropped");
  CHECK(dropped > 0);
  CHECK(kept + dropped == calls_of(n));  // every call is a row or counted
  CHECK(last == n);                      // the newest are kept
  CHECK(first > 1);
  CHECK(tx_bytes <= o.storage_limit_bytes);
  CHECK(tx_bytes > o.storage_limit_bytes / 2);
}
