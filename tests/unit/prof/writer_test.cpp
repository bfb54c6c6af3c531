// SPDX-License-Identifier: MIT
// The PROF_ writer: layout and names, control files the reader (and Huawei's
// parser) need, slice rollover with .done, modes, storage limit, corruption
// found by the reader, and a SIGKILLed writer child.
#include <doctest/doctest.h>
#include <msprof/codec/encode.hpp>
#include <msprof/prof/reader.hpp>
#include <msprof/prof/writer.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace codec = msprof::codec;
namespace prof = msprof::prof;

namespace {

std::vector<std::string> list(const std::string& d) {
  std::vector<std::string> out;
  if (DIR* p = opendir(d.c_str())) {
    while (dirent* e = readdir(p))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

unsigned mode_of(const std::string& p) {
  struct stat st{};
  REQUIRE(stat(p.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

codec::api_bytes api(std::uint64_t i) {
  codec::MsprofApi a;
  a.level = codec::level::acl;
  a.type = codec::acl_group::type(codec::acl_group::rts, 1);
  a.threadId = 1;
  a.beginTime = 1000 + i;
  a.endTime = 2000 + i;
  a.itemId = i;
  return codec::encode(a);
}

std::uint64_t count_apis(const std::string& dir, std::vector<prof::warning>* w = nullptr, std::uint64_t* last = nullptr) {
  auto r = prof::prof_reader::open(dir);
  REQUIRE(r);
  std::uint64_t n = 0;
  REQUIRE(r->for_each_api([&](const prof::api_record& a) {
    CHECK(a.item_id == n);  // every record, in order, no gaps
    ++n;
    if (last) *last = a.item_id;
  }));
  if (w) *w = r->warnings();
  return n;
}

}  // namespace

TEST_CASE("prof_dir: name, layout, modes, control files the reader understands") {
  temp_dir t;
  const mode_t old = umask(0);  // modes must not depend on the umask
  prof::prof_dir_options o;
  o.parent = t.path + "/out";
  o.pid = 4242;
  o.pid_name = "app";
  o.host_clock.anchor_ns = 1000000000000ull;
  o.wall_us = 1767268800000000ull;
  prof::device_options dev;
  dev.id = 0;
  dev.cntvct = 7000000000ull;
  o.devices.push_back(dev);
  auto d = prof::prof_dir::create(o);
  umask(old);
  REQUIRE(d);
  const std::string name = d->path().substr(d->path().rfind('/') + 1);
  CHECK(std::regex_match(name, std::regex("PROF_004242_[0-9]{17}_[A-Z]{16}")));
  CHECK(mode_of(d->path()) == 0750);
  CHECK(mode_of(d->path() + "/host/data") == 0750);
  CHECK(mode_of(d->path() + "/device_0/data") == 0750);
  CHECK(mode_of(d->path() + "/host/info.json") == 0640);
  REQUIRE(d->append(prof::stream::api_event(false), api(0).data(), 40));
  d->hash("MatMul_1");
  d->hash("MatMul_1");
  REQUIRE(d->register_type(codec::level::node, codec::node_type::launch, "launch"));
  REQUIRE(d->close());
  CHECK(mode_of(d->path() + "/host/data/unaging.api_event.data.slice_0") == 0640);
  CHECK(slurp(d->path() + "/host/data/unaging.additional.hash_dic.slice_0") == "4727051265323026290:MatMul_1\n");
  CHECK(slurp(d->path() + "/host/data/unaging.additional.type_info_dic.slice_0") == "10000_5:launch\n");
  const std::string done = slurp(d->path() + "/host/data/unaging.api_event.data.slice_0.done");
  CHECK(std::regex_match(done, std::regex("filesize:40\nstarttime:[0-9]+\nendtime  :[0-9]+\n")));
  for (const char* f : {"host/info.json", "host/sample.json", "host/start_info", "host/end_info", "host/host_start.log",
                        "device_0/info.json.0", "device_0/sample.json", "device_0/start_info.0", "device_0/end_info.0",
                        "device_0/host_start.log.0", "device_0/dev_start.log.0"}) {
    CAPTURE(f);
    CHECK(mode_of(d->path() + "/" + f) == 0640);
  }
  // Every key of the golden info.json is present (Huawei's parser needs them).
  auto golden = msprof::json::parse(slurp(std::string(MSPROF_TEST_DATA_DIR) +
                                          "/golden/ops_pipeutil/input/PROF_000001_20260101120000000_GOLDENCASEAAAAAA/host/info.json"), "g");
  auto ours = msprof::json::parse(slurp(d->path() + "/host/info.json"), "o");
  REQUIRE(golden);
  REQUIRE(ours);
  for (const auto& m : golden->members()) { CAPTURE(m.first); CHECK(ours->find(m.first) != nullptr); }
  for (const auto& m : golden->get("DeviceInfo").at(0).members()) { CAPTURE(m.first); CHECK(ours->get("DeviceInfo").at(0).find(m.first) != nullptr); }
  // netCard: /sys/class/net's interfaces with their speeds (Mbit/s, -1 unknown), netCardNums their count.
  std::set<std::string> interfaces, cards;
  if (DIR* p = opendir("/sys/class/net")) {
    while (const dirent* e = readdir(p))
      if (e->d_name[0] != '.') interfaces.insert(e->d_name);
    closedir(p);
  }
  CHECK(ours->get("netCardNums").int_or(-2) == static_cast<std::int64_t>(ours->get("netCard").size()));
  for (const auto& c : ours->get("netCard").items()) {
    const std::string name = c.get("netCardName").as_string_or("");
    CAPTURE(name);
    cards.insert(name);
    REQUIRE(c.get("speed").is_number());
    std::string sys;
    const bool known = prof::detail::read_proc("/sys/class/net/" + name + "/speed", sys) && std::atoll(sys.c_str()) > 0;
    CHECK(c.get("speed").int_or(0) == (known ? std::atoll(sys.c_str()) : -1));
  }
  CHECK(cards == interfaces);
  auto gs = msprof::json::parse(slurp(std::string(MSPROF_TEST_DATA_DIR) +
                                      "/golden/ops_pipeutil/input/PROF_000001_20260101120000000_GOLDENCASEAAAAAA/device_0/sample.json"), "g");
  auto os = msprof::json::parse(slurp(d->path() + "/device_0/sample.json"), "o");
  REQUIRE(gs);
  REQUIRE(os);
  for (const auto& m : gs->members()) { CAPTURE(m.first); CHECK(os->find(m.first) != nullptr); }

  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  CHECK(r->warnings().empty());
  CHECK(r->host().simulated);
  CHECK(r->host().collection_time_begin_us == 1767268800000000ull);
  CHECK(r->host().pid == 4242);
  REQUIRE(r->devices().size() == 1);
  CHECK(r->devices()[0].simulated);
  CHECK(r->devices()[0].clock.anchor_ticks == 7000000000ull);
  CHECK(r->lookup(codec::double_hash("MatMul_1")) == "MatMul_1");
  CHECK(r->type_name(10000, 5) == "launch");
  CHECK(count_apis(d->path()) == 1);
}

TEST_CASE("prof_dir: a umask stricter than 0750/0640 is kept (umask 077: 0700/0600), never loosened") {
  temp_dir t;
  const mode_t old = umask(077);
  prof::prof_dir_options o;
  o.parent = t.path + "/out";
  o.devices.push_back({});
  auto d = prof::prof_dir::create(o);
  bool closed = false;
  if (d) {
    (void)d->append(prof::stream::api_event(false), api(0).data(), 40);
    (void)d->append(prof::stream::ts_track(0), std::string(codec::ts_track_size, '\0').data(), codec::ts_track_size);
    closed = static_cast<bool>(d->close());
  }
  umask(old);
  REQUIRE(d);
  REQUIRE(closed);
  int checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(t.path + "/out")) {
    CAPTURE(e.path().string());
    CHECK(mode_of(e.path().string()) == (e.is_directory() ? 0700u : 0600u));
    ++checked;
  }
  CHECK(checked > 15);
}

TEST_CASE("prof_dir: slice rollover at the slice size, whole records per slice, .done for each") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  o.name = "PROF_000001_20260101120000000_AAAAAAAAAAAAAAAA";
  o.slice_bytes = 1000;  // 25 records of 40 B per slice
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  for (std::uint64_t i = 0; i < 60; ++i) REQUIRE(d->append(prof::stream::api_event(false), api(i).data(), 40));
  REQUIRE(d->close());
  const std::string data = d->path() + "/host/data/";
  CHECK(slurp(data + "unaging.api_event.data.slice_0").size() == 1000);
  CHECK(slurp(data + "unaging.api_event.data.slice_1").size() == 1000);
  CHECK(slurp(data + "unaging.api_event.data.slice_2").size() == 400);
  for (int s = 0; s < 3; ++s) CHECK(slurp(data + "unaging.api_event.data.slice_" + std::to_string(s) + ".done").rfind("filesize:", 0) == 0);
  CHECK(slurp(data + "unaging.api_event.data.slice_2.done").rfind("filesize:400\n", 0) == 0);
  // 998-byte slices: only whole 40-byte records go in (960 B each).
  std::vector<prof::warning> w;
  CHECK(count_apis(d->path(), &w) == 60);
  CHECK(w.empty());
}

TEST_CASE("prof_dir: default slice size is 2 MiB") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  CHECK(o.slice_bytes == 2u * 1024 * 1024);
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  std::vector<unsigned char> batch;
  const std::uint64_t n = (2u * 1024 * 1024) / 40 + 10;  // just past one slice
  for (std::uint64_t i = 0; i < n; ++i) { auto b = api(i); batch.insert(batch.end(), b.begin(), b.end()); }
  REQUIRE(d->append(prof::stream::api_event(true), batch.data(), batch.size()));
  REQUIRE(d->close());
  const std::string data = d->path() + "/host/data/";
  CHECK(slurp(data + "aging.api_event.data.slice_0").size() == (2u * 1024 * 1024) / 40 * 40);
  CHECK(slurp(data + "aging.api_event.data.slice_1").size() == ((2u * 1024 * 1024) % 40 / 40 + 10) * 40 + 0);
  CHECK(count_apis(d->path()) == n);
}

TEST_CASE("prof_dir: rejects partial records and appends after close") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  auto r = d->append(prof::stream::api_event(false), api(0).data(), 39);
  REQUIRE_FALSE(r);
  CHECK(r.err().code == msprof::errc::invalid_argument);
  REQUIRE(d->close());
  CHECK_FALSE(d->append(prof::stream::api_event(false), api(0).data(), 40));
  CHECK(d->stats().lost_records == 1);
}

TEST_CASE("prof_dir: storage limit deletes oldest aging slices, keeps unaging, then stops with a counted loss") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  o.slice_bytes = 400;            // 10 records
  o.storage_limit_bytes = 2000;   // 50 records
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  // 20 unaging records stay; aging ones rotate.
  for (std::uint64_t i = 0; i < 20; ++i) REQUIRE(d->append(prof::stream::api_event(false), api(i).data(), 40));
  for (std::uint64_t i = 0; i < 100; ++i) REQUIRE(d->append(prof::stream::msproftx(true), std::string(256, '\0').data(), 256) );
  auto st = d->stats();
  CHECK(st.removed_slices > 0);
  CHECK_FALSE(st.stopped);
  const auto files = list(d->path() + "/host/data");
  CHECK(std::find(files.begin(), files.end(), "unaging.api_event.data.slice_0") != files.end());
  CHECK(std::find(files.begin(), files.end(), "aging.additional.msproftx.slice_0") == files.end());
  // Fill with unaging data until nothing can be deleted: clean stop.
  msprof::result<void> last;
  int appended = 0;
  for (std::uint64_t i = 0; i < 100 && last; ++i, ++appended) last = d->append(prof::stream::api_event(false), api(20 + i).data(), 40);
  REQUIRE_FALSE(last);
  CHECK(last.err().code == msprof::errc::limit);
  CHECK(last.err().message.find("storage limit") != std::string::npos);
  st = d->stats();
  CHECK(st.stopped);
  CHECK(st.lost_records >= 1);
  CHECK(st.bytes <= 2000);
  REQUIRE(d->close());
  std::vector<prof::warning> w;
  auto n = count_apis(d->path(), &w);
  CHECK(n == 20 + static_cast<std::uint64_t>(appended - 1));
}

TEST_CASE("reader: corrupted slices give warnings naming file and offset, good records kept") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  for (std::uint64_t i = 0; i < 5; ++i) REQUIRE(d->append(prof::stream::api_event(false), api(i).data(), 40));
  REQUIRE(d->close());
  const std::string f = d->path() + "/host/data/unaging.api_event.data.slice_0";
  {
    std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
    s.seekp(80);  // record 2: bad magic
    s.put('\x00');
    s.seekp(0, std::ios::end);
    s.write("garbage", 7);  // partial tail
  }
  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  std::vector<std::uint64_t> items;
  REQUIRE(r->for_each_api([&](const prof::api_record& a) { items.push_back(a.item_id); }));
  CHECK(items == std::vector<std::uint64_t>{0, 1, 3, 4});
  REQUIRE(r->warnings().size() == 3);
  // The 7 bytes appended: the slice no longer has the size its .done gives.
  CHECK(r->warnings()[0].message.find("but its .done says filesize:200; 7 bytes more") != std::string::npos);
  CHECK(r->warnings()[1].offset == 80);
  CHECK(r->warnings()[1].message.find("magic") != std::string::npos);
  CHECK(r->warnings()[1].file == f);
  CHECK(r->warnings()[2].offset == 200);
  CHECK(r->warnings()[2].bytes == 7);
  // Missing info.json: warning (defaults), error when strict.
  REQUIRE(std::remove((d->path() + "/host/info.json").c_str()) == 0);
  auto r2 = prof::prof_reader::open(d->path());
  REQUIRE(r2);
  CHECK_FALSE(r2->warnings().empty());
  prof::reader_options strict;
  strict.strict = true;
  auto r3 = prof::prof_reader::open(d->path(), strict);
  REQUIRE_FALSE(r3);
  CHECK(r3.err().message.find("info.json") != std::string::npos);
  CHECK_FALSE(prof::prof_reader::open(t.path + "/nope"));
}

TEST_CASE("prof_dir: a SIGKILLed writer leaves every flushed record readable") {
  temp_dir t;
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(pipefd[0]);
    prof::prof_dir_options o;
    o.parent = t.path;
    o.name = "PROF_000001_20260101120000000_KILLEDAAAAAAAAAA";
    o.slice_bytes = 4000;
    auto d = prof::prof_dir::create(o);
    if (!d) _exit(3);
    for (std::uint64_t i = 0;; ++i) {
      if (!d->append(prof::stream::api_event(false), api(i).data(), 40)) _exit(4);
      if (i % 7 == 6) {
        if (!d->flush()) _exit(5);
        const std::uint64_t flushed = i + 1;
        if (write(pipefd[1], &flushed, sizeof flushed) != sizeof flushed) _exit(6);
      }
    }
  }
  close(pipefd[1]);
  std::uint64_t flushed = 0, v = 0;
  while (flushed < 3000 && read(pipefd[0], &v, sizeof v) == sizeof v) flushed = v;
  REQUIRE(kill(child, SIGKILL) == 0);
  while (read(pipefd[0], &v, sizeof v) == sizeof v) flushed = v;  // drain what it reported before dying
  close(pipefd[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  const std::string dir = t.path + "/PROF_000001_20260101120000000_KILLEDAAAAAAAAAA";
  std::vector<prof::warning> w;
  const auto n = count_apis(dir, &w);
  CHECK(n >= flushed);          // every flushed record, in order (checked inside)
  CHECK(n < flushed + 100000);  // sanity
  CHECK(w.empty());             // records are only written whole
}

TEST_CASE("call counts: counted through the mapping, summed by the reader, damage is a warning") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  auto slots = d->map_call_counts(4);
  REQUIRE(slots);
  (*slots)[1].store(5);
  (*slots)[3].store(7);
  REQUIRE(d->close());
  CHECK_FALSE(d->map_call_counts(4));  // the file exists already: never replaced
  const std::string file = d->path() + "/host/msprof_calls";
  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  REQUIRE(r->host().calls_made);
  CHECK(*r->host().calls_made == 12);
  CHECK(r->warnings().empty());

  const std::string good = read_text(file);
  auto damaged = [&](std::string bytes, const char* why) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    auto rr = prof::prof_reader::open(d->path());
    REQUIRE(rr);
    CHECK_FALSE(rr->host().calls_made);
    REQUIRE(rr->warnings().size() == 1);
    CHECK(rr->warnings()[0].text().find(why) != std::string::npos);
    CHECK(rr->warnings()[0].text().find("msprof_calls") != std::string::npos);
  };
  damaged(good.substr(0, good.size() - 3), "not the header and the 4 counters");
  damaged("XSPCALL1" + good.substr(8), "not a call count file");
  damaged(good.substr(0, 10), "not a call count file");
  std::string no_slot = good;
  no_slot[16] = 2;  // two threads had no slot: their calls are not in the file
  damaged(no_slot, "2 thread(s) had no slot");
}

TEST_CASE("fork counts: the children's calls read back, damage is a warning") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  auto forks = d->map_fork_counts();
  REQUIRE(forks);
  (*forks)[0].store(3);   // children that made mstx calls
  (*forks)[1].store(41);  // their calls
  REQUIRE(d->close());
  auto r = prof::prof_reader::open(d->path());
  REQUIRE(r);
  CHECK(r->host().forked_children == 3);
  CHECK(r->host().forked_calls == 41);
  CHECK(r->warnings().empty());

  const std::string file = d->path() + "/host/msprof_forks";
  const std::string good = read_text(file);
  auto damaged = [&](std::string bytes, const char* why) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    auto rr = prof::prof_reader::open(d->path());
    REQUIRE(rr);
    CHECK(rr->host().forked_calls == 0);
    REQUIRE(rr->warnings().size() == 1);
    CHECK(rr->warnings()[0].text().find(why) != std::string::npos);
    CHECK(rr->warnings()[0].text().find("msprof_forks") != std::string::npos);
  };
  damaged(good.substr(0, good.size() - 3), "not the header and the 2 counters");
  damaged("MSPCALL1" + good.substr(8), "not a fork count file");
  std::string three = good + std::string(8, '\0');
  three[8] = 3;  // announces (and holds) three counters
  damaged(three, "holds 3 counters, not 2");
}

TEST_CASE("prof_dir in a fork()ed child: the parent's directory is left alone") {
  temp_dir t;
  prof::prof_dir_options o;
  o.parent = t.path;
  auto d = prof::prof_dir::create(o);
  REQUIRE(d);
  REQUIRE(d->append(prof::stream::api_event(false), api(0).data(), 40));
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::alarm(20);  // a watchdog: a child that hangs fails the test, never the suite
    int code = 0;
    if (d->append(prof::stream::api_event(false), api(2).data(), 40)) code |= 1;
    if (d->flush() || d->close()) code |= 2;
    { prof::prof_dir gone = std::move(*d); }  // its destructor closes: not in the child
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  struct stat st{};
  CHECK(::stat((d->path() + "/host/end_info").c_str(), &st) != 0);  // the child did not close it
  REQUIRE(d->close());
  CHECK(count_apis(d->path(), nullptr) == 1);
}
