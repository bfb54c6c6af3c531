// SPDX-License-Identifier: MIT
// Writes a CANN-compatible PROF_ directory (ascend-formats.md §3):
//
//   prof::prof_dir_options o;  o.parent = "out"; o.devices.push_back({});
//   auto d = prof::prof_dir::create(o);            // result<prof_dir>
//   d->append(prof::stream::api_event(false), rec, 40);   // whole records
//   d->hash("MatMul_1");                                 // hash_dic entry once
//   d->flush();                                          // on disk now
//   d->close();                                          // .done files, end_info
//
// Layout: the names in layout.hpp; a new slice when the next record would pass
// slice_bytes (2 MiB, like CANN's sliceFileMaxKbyte); every finished slice gets
// "<file>.done" = "filesize:N\nstarttime:<ns>\nendtime  :<ns>\n".
//
// Durability: appends go to a per-file buffer that holds whole records only;
// flush() hands every buffer to the kernel with write(2) (and fdatasync when
// asked), so a process killed at any time leaves whole records up to the last
// flush (plus possibly whole records written since). A failed write (ENOSPC)
// is cut back to the last whole record, collection stops, the loss is counted.
//
// Storage limit: before data would pass storage_limit_bytes, the oldest
// finished aging slices are deleted (unaging and never-aged files are kept); if
// that is not enough, collection stops cleanly with a counted loss. Losses are
// counted in events (stats().lost_events): append() says how many events its
// records are (default one per record), the events of a deleted slice and of
// a refused append are lost; one event's records never straddle two slices.
//
// fork(): a prof_dir belongs to the process that created it. In a fork()ed
// child every call is a no-op (append/flush/close fail with errc::unsupported)
// and never takes the mutex a parent thread may have held at fork().
//
// Thread-safe: one mutex (the drain thread and the simulated device both append).
#ifndef MSPROF_PROF_WRITER_HPP
#define MSPROF_PROF_WRITER_HPP

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../codec/aic_metrics.hpp"
#include "../codec/dictionary.hpp"
#include "../codec/format.hpp"
#include "../codec/hash.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../core/output_file.hpp"
#include "clock.hpp"
#include "layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

constexpr std::uint64_t default_slice_bytes = 2048u * 1024u;  ///< CANN sliceFileMaxKbyte = 2048

/// What a device directory says about the device (info.json.<id>, sample.json).
struct device_options {
  std::uint32_t id = 0;
  bool simulated = true;                         ///< written as "simulated": "yes"
  /// AI Core metric group (codec/aic_metrics.hpp): sample.json gets the metrics
  /// names and events CANN writes for it on Ascend910B; unknown names are
  /// written as they are, with no events.
  std::string aic_metrics = "PipeUtilization";
  std::uint32_t hwts_frequency_mhz = 50;
  std::uint32_t aic_frequency_mhz = 1800;
  std::uint32_t ai_core_num = 24;
  std::uint32_t aiv_num = 48;
  std::uint64_t cntvct = 0;                      ///< device counter at host_clock.anchor_ns (dev_start.log)
};

struct prof_dir_options {
  std::string parent = ".";                      ///< PROF_ directory is created inside (made if missing)
  std::string name;                              ///< exact directory name (tests); empty = generated
  std::uint64_t slice_bytes = default_slice_bytes;
  std::uint64_t storage_limit_bytes = 0;         ///< 0 = no limit
  std::size_t buffer_bytes = 1024 * 1024;        ///< per-file buffer; written when full (fewer, larger writes)
  bool sync_on_flush = false;                    ///< fdatasync in flush() (power loss, not just kill)
  std::uint32_t pid = 0;                         ///< 0 = getpid()
  std::string pid_name;                          ///< info.json pid_name; empty = /proc/self/comm
  /// host_start.log: frequency 0 = host records hold CLOCK_MONOTONIC_RAW ns;
  /// anchor_ns 0 = now, as a whole µs (also start_info's clockMonotonicRaw and
  /// every dev_start.log's anchor; give a whole µs here too, see create()).
  tick_clock host_clock;
  std::uint64_t wall_us = 0;                     ///< 0 = now (gettimeofday µs)
  std::vector<device_options> devices;
  std::map<std::string, std::string> host_sample; ///< extra host sample.json keys
};

struct writer_stats {
  std::uint64_t records = 0;       ///< records written (appended and not lost)
  std::uint64_t bytes = 0;         ///< data bytes currently counted against the limit
  std::uint64_t lost_records = 0;  ///< records dropped after a stop
  std::uint64_t lost_events = 0;   ///< events in deleted aging slices and in refused appends
  std::uint64_t removed_slices = 0;///< aging slices deleted by the storage limit
  bool stopped = false;
  std::string stop_reason;         ///< clear message when stopped
};

namespace detail {

inline std::uint64_t mono_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}
inline std::uint64_t wall_us() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}
inline std::string process_name() {
  char buf[64] = {};
  if (FILE* f = std::fopen("/proc/self/comm", "r")) {
    if (std::fgets(buf, sizeof buf, f) == nullptr) buf[0] = '\0';
    std::fclose(f);
  }
  std::string s(buf);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

/// The whole (small) /proc or /sys file `path` into `out`, trailing blanks
/// cut; false when it is gone or unreadable.
inline bool read_proc(const std::string& path, std::string& out) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return n == 0 && !out.empty();
}

/// The machine's network interfaces (/sys/class/net) by name, each with its
/// speed in Mbit/s, -1 when the kernel knows none (down, virtual, loopback):
/// info.json's netCard, as CANN writes it whatever is collected. The host
/// network usage is a share of these speeds.
inline std::vector<std::pair<std::string, std::int64_t>> net_cards() {
  std::vector<std::pair<std::string, std::int64_t>> cards;
  DIR* d = ::opendir("/sys/class/net");
  if (!d) return cards;
  std::string text;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::int64_t mbps = -1;
    if (read_proc(std::string("/sys/class/net/") + e->d_name + "/speed", text)) {
      char* end = nullptr;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (end != text.c_str() && *end == '\0' && v > 0) mbps = v;
    }
    cards.emplace_back(e->d_name, mbps);
  }
  ::closedir(d);
  std::sort(cards.begin(), cards.end());
  return cards;
}

/// Incremented in every fork()ed child (pthread_atfork, registered by the first
/// prof_dir::create): a prof_dir made in another generation is the parent's.
inline std::atomic<unsigned>& fork_generation() noexcept {
  static std::atomic<unsigned> g{0};
  return g;
}

/// "YYYY-MM-DD HH:MM:SS.ffffff" in UTC from µs since the epoch.
inline std::string date_text(std::uint64_t us) {
  const std::time_t s = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%06u", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned>(us % 1000000));
  return buf;
}

// Files and directories are created through core/output_file.hpp: never
// through a link, modes 0750/0640 less the umask.
using outfile::write_all;

/// The directory `p`, created when missing.
inline result<void> make_dir(const std::string& p) {
  auto d = outfile::dir::make(p);
  if (!d) return d.err();
  return {};
}

/// Writes a whole small file atomically (temporary + rename; fsync when `sync`).
inline result<void> write_file(const std::string& path, std::string_view text, bool sync = true) {
  return outfile::write_atomic(path, text, sync);
}

/// Files the storage limit never deletes (CANN file_ageing.cpp noAgeingFile_).
inline bool never_aged(std::string_view name) {
  static const char* const keep[] = {layout::unaging, layout::tag::hash_dic, layout::info_json, layout::start_info,
                                     layout::end_info, "host_start", "dev_start", layout::sample_json, layout::ts_track,
                                     "model_load_info", "task_desc_info",
                                     "id_map_info", "fusion_op_info", "tensor_data_info", "training_trace"};
  for (const char* k : keep)
    if (name.find(k) != std::string_view::npos) return true;
  return false;
}

struct open_slice {
  int fd = -1;
  std::string dir;            ///< host/data or device_N/data
  std::string base;           ///< file name without .slice_N
  std::size_t record_size = 0;
  unsigned index = 0;
  std::uint64_t size = 0;     ///< bytes handed to the kernel
  std::uint64_t start_ns = 0;
  std::uint64_t events = 0;   ///< events whose first record is in this slice (incl. buf)
  std::uint64_t buf_events = 0;  ///< of `events`: those in buf
  std::string buf;            ///< whole records not yet written
  std::string path() const { return dir + "/" + layout::slice_file(base, index); }
};

}  // namespace detail

class prof_dir {
 public:
  prof_dir() = default;  ///< an empty handle (result<prof_dir> needs it); use create()
  prof_dir(prof_dir&&) noexcept = default;
  prof_dir& operator=(prof_dir&&) noexcept = default;
  ~prof_dir() {
    if (s_) (void)close();
  }

  /// Creates the directory tree and the start-time control files.
  static result<prof_dir> create(const prof_dir_options& opt) {
    static const bool atfork = [] {
      return ::pthread_atfork(nullptr, nullptr,
                              [] { detail::fork_generation().fetch_add(1, std::memory_order_relaxed); }) == 0;
    }();
    (void)atfork;
    prof_dir d;
    d.s_ = std::make_unique<state>();
    state& s = *d.s_;
    s.opt = opt;
    s.generation = detail::fork_generation().load(std::memory_order_relaxed);
    if (s.opt.slice_bytes == 0) return make_error(errc::invalid_argument, "prof_dir: slice_bytes must be > 0");
    if (s.opt.pid == 0) s.opt.pid = static_cast<std::uint32_t>(::getpid());
    // "Now" as a whole µs: Huawei's msprof_tx.csv exporter computes the wall
    // offset collectionTimeBegin - clockMonotonicRaw / 1000 in float64, which
    // keeps no sub-µs part at today's epoch (docs/formats.md, "Host clock").
    if (s.opt.host_clock.anchor_ns == 0) s.opt.host_clock.anchor_ns = detail::mono_ns() / 1000 * 1000;
    if (s.opt.wall_us == 0) s.opt.wall_us = detail::wall_us();
    if (s.opt.pid_name.empty()) s.opt.pid_name = detail::process_name();
    if (s.opt.host_clock.frequency_mhz <= 0 && s.opt.host_clock.anchor_ticks == 0) s.opt.host_clock.anchor_ticks = s.opt.host_clock.anchor_ns;
    auto parent = outfile::dir::make(opt.parent.empty() ? std::string(".") : opt.parent);
    if (!parent) return parent.err();
    std::string name = opt.name.empty() ? generate_name(s.opt) : opt.name;
    auto root = parent->mkdir(name, true);
    if (!root) return root.err();
    s.root = root->path();
    auto host = root->mkdir(layout::host_dir);
    if (!host) return host.err();
    if (auto r = host->mkdir(layout::data_dir); !r) return r.err();
    for (const auto& dev : s.opt.devices) {
      auto dd = root->mkdir(layout::device_dir(dev.id));
      if (!dd) return dd.err();
      if (auto r = dd->mkdir(layout::data_dir); !r) return r.err();
    }
    MSPROF_TRY(d.write_start_files());
    return d;
  }

  explicit operator bool() const noexcept { return s_ != nullptr; }
  /// The PROF_ directory path.
  const std::string& path() const noexcept { return s_->root; }
  const prof_dir_options& options() const noexcept { return s_->opt; }

  /// Appends whole records (n must be a multiple of st.record_size when that
  /// is non-zero). After a stop the records are counted as lost and the
  /// error says why (errc::limit).
  /// `events`: how many events the records are (all of them start here; the
  /// records of one event are kept in one slice when they fit); default: one
  /// per record, none for text.
  result<void> append(const stream& st, const void* data, std::size_t n, std::uint64_t events = per_record) {
    MSPROF_TRY(check_owner());
    std::lock_guard<std::mutex> lk(s_->mu);
    return append_locked(st, static_cast<const char*>(data), n, events);
  }

  /// The DoubleHash of `s`, adding "<hash>:<s>" to hash_dic the first time.
  std::uint64_t hash(std::string_view str) {
    const std::uint64_t h = codec::double_hash(str);
    if (!check_owner()) return h;
    std::lock_guard<std::mutex> lk(s_->mu);
    if (s_->hashes.insert(h).second) {
      const std::string line = codec::format_hash_line(h, str);
      (void)append_locked(hash_stream(), line.data(), line.size());
    }
    return h;
  }

  /// Registers "<level>_<type>:<name>" in type_info_dic (once per key).
  result<void> register_type(std::uint16_t level, std::uint32_t type, std::string_view name) {
    MSPROF_TRY(check_owner());
    std::lock_guard<std::mutex> lk(s_->mu);
    const std::uint64_t key = (static_cast<std::uint64_t>(level) << 32) | type;
    if (!s_->types.insert(key).second) return {};
    const std::string line = codec::format_type_line(level, type, name);
    return append_locked(type_stream(), line.data(), line.size());
  }

  /// Hands every buffered record to the kernel (and syncs if asked).
  result<void> flush() {
    MSPROF_TRY(check_owner());
    std::lock_guard<std::mutex> lk(s_->mu);
    return flush_locked();
  }

  /// Records the collector's loss counters (name -> count) in host/info.json
  /// "msprof_losses", where the converters report them; the storage limit's
  /// own losses (events) are added as "storage_limit_dropped". Rewrites
  /// info.json atomically (tmp + rename): the collector calls it during the
  /// run whenever a counter changed, so a killed run keeps its last counters.
  result<void> record_losses(const std::vector<std::pair<std::string, std::uint64_t>>& losses) {
    MSPROF_TRY(check_owner());
    std::lock_guard<std::mutex> lk(s_->mu);
    s_->losses = losses;
    return detail::write_file(s_->root + "/" + layout::host_dir + "/" + layout::info_json, info_json(nullptr),
                              s_->opt.sync_on_flush);
  }

  /// Counts `events` the storage limit removed outside this writer (the
  /// staging's oldest chunks, prof/staging.hpp): in stats().lost_events and
  /// info.json "storage_limit_dropped" with the writer's own.
  void count_lost_events(std::uint64_t events) {
    if (events == 0 || !check_owner()) return;
    std::lock_guard<std::mutex> lk(s_->mu);
    s_->stats.lost_events += events;
  }

  /// host/msprof_calls (layout.hpp) with `slots` zeroed counters, mapped
  /// shared: the collector counts each thread's calls in it as they happen. The
  /// mapping is never unmapped (a thread may still be counting after close());
  /// its pages are the kernel's, so a killed process leaves the counts on disk.
  result<std::atomic<std::uint64_t>*> map_call_counts(std::size_t slots) {
    return map_counters(layout::call_counts, layout::call_counts_magic, slots);
  }
  /// host/msprof_forks (layout.hpp): the fork()ed children's uncollected calls.
  result<std::atomic<std::uint64_t>*> map_fork_counts() {
    return map_counters(layout::fork_counts, layout::fork_counts_magic, layout::fork_count_slots);
  }

  /// Flushes, finishes every open slice with its .done and writes end_info.
  /// Idempotent; the destructor calls it.
  result<void> close() {
    if (!s_) return {};
    MSPROF_TRY(check_owner());
    std::lock_guard<std::mutex> lk(s_->mu);
    if (s_->closed) return {};
    result<void> first = flush_locked();
    for (auto& kv : s_->open) {
      auto r = finish_slice(kv.second);
      if (first && !r) first = r;
    }
    s_->open.clear();
    s_->last_open = nullptr;
    auto r = write_end_files();
    if (first && !r) first = r;
    s_->closed = true;
    return first;
  }

  writer_stats stats() const {
    std::lock_guard<std::mutex> lk(s_->mu);
    return s_->stats;
  }

 private:
  // A counter file (magic, u64 slot count, the slots) mapped shared, never unmapped:
  // writes reach the file even when the process is killed.
  result<std::atomic<std::uint64_t>*> map_counters(const char* name, const char (&magic)[8], std::size_t slots) {
    MSPROF_TRY(check_owner());
    auto d = outfile::dir::open(s_->root + "/" + layout::host_dir);
    if (!d) return d.err();
    auto fd = d->create(name, O_RDWR);
    if (!fd) return fd.err();
    const std::size_t bytes = layout::call_counts_header + slots * sizeof(std::uint64_t);
    const std::string path = d->path_of(name);
    if (::ftruncate(fd->get(), static_cast<off_t>(bytes)) != 0)
      return make_error(errc::io, path + ": cannot size: " + std::strerror(errno));
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd->get(), 0);
    if (p == MAP_FAILED) return make_error(errc::io, path + ": cannot map: " + std::strerror(errno));
    auto* b = static_cast<unsigned char*>(p);
    const std::uint64_t n = slots;
    std::memcpy(b, magic, sizeof magic);
    std::memcpy(b + sizeof magic, &n, sizeof n);
    static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t), "counters are plain u64 on disk");
    return reinterpret_cast<std::atomic<std::uint64_t>*>(b + layout::call_counts_header);
  }

  struct finished_slice {
    std::string path;
    std::uint64_t events = 0;
    std::uint64_t bytes = 0;
  };
  struct state {
    prof_dir_options opt;
    std::string root;
    mutable std::mutex mu;
    std::map<stream, detail::open_slice> open;
    std::deque<finished_slice> aging_done;  ///< finished aging slices, oldest first
    stream last_stream;                      ///< append's cache: the stream of last_open
    detail::open_slice* last_open = nullptr;
    std::unordered_set<std::uint64_t> hashes;
    std::unordered_set<std::uint64_t> types;
    writer_stats stats;
    std::vector<std::pair<std::string, std::uint64_t>> losses;  ///< set by record_losses()
    bool closed = false;
    unsigned generation = 0;  ///< detail::fork_generation() at create
  };

  static constexpr std::uint64_t per_record = ~std::uint64_t{0};

  /// errc::unsupported in a fork()ed child: the directory is the parent's.
  result<void> check_owner() const {
    if (s_->generation == detail::fork_generation().load(std::memory_order_relaxed)) return {};
    return make_error(errc::unsupported, s_->root + ": belongs to the process that created it, not to a fork()ed child");
  }

  static stream hash_stream() { return stream::dictionary(layout::tag::hash_dic); }
  static stream type_stream() { return stream::dictionary(layout::tag::type_info_dic); }

  static std::string generate_name(const prof_dir_options& o) {
    const std::uint64_t us = o.wall_us;
    const std::time_t secs = static_cast<std::time_t>(us / 1000000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char stamp[96];
    std::snprintf(stamp, sizeof stamp, "%04d%02d%02d%02d%02d%02d%03u", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned>((us / 1000) % 1000));
    std::random_device rd;
    std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ detail::mono_ns() ^ o.pid);
    std::string letters(16, 'A');
    for (auto& c : letters) c = static_cast<char>('A' + rng() % 26);
    char head[32];
    std::snprintf(head, sizeof head, "PROF_%06u_", static_cast<unsigned>(o.pid % 1000000));
    return head + std::string(stamp) + "_" + letters;
  }

  result<void> stop(const std::string& why) {
    if (!s_->stats.stopped) {
      s_->stats.stopped = true;
      s_->stats.stop_reason = why;
    }
    return make_error(errc::limit, s_->stats.stop_reason);
  }

  result<void> append_locked(const stream& st, const char* p, std::size_t n, std::uint64_t events = per_record) {
    const std::size_t rs = st.record_size;
    const bool group = events != per_record;  // the caller's events: all start in the first record
    auto lose = [&](std::size_t bytes) {  // the rest, from p, is not written
      s_->stats.lost_records += rs ? bytes / rs : 1;
      s_->stats.lost_events += group ? events : rs ? bytes / rs : 0;
    };
    if (s_->closed) {
      lose(n);
      return make_error(errc::invalid_argument, s_->root + ": append after close");
    }
    if (rs && n % rs != 0)
      return make_error(errc::invalid_argument, st.base_name() + ": append of " + std::to_string(n) +
                                                    " bytes is not a whole number of " + std::to_string(rs) + "-byte records");
    if (s_->stats.stopped) {
      lose(n);
      return make_error(errc::limit, s_->stats.stop_reason);
    }
    // Split into chunks that never straddle a slice boundary.
    while (n > 0) {
      if (s_->last_open == nullptr || !(s_->last_stream == st)) {
        auto it = s_->open.find(st);
        if (it == s_->open.end()) {
          auto r = open_slice(st, 0);
          if (!r) { lose(n); return r; }
          it = s_->open.find(st);
        }
        s_->last_stream = st;
        s_->last_open = &it->second;
      }
      detail::open_slice& sl = *s_->last_open;
      const std::uint64_t used = sl.size + sl.buf.size();
      std::size_t room = used >= s_->opt.slice_bytes ? 0 : static_cast<std::size_t>(s_->opt.slice_bytes - used);
      if (rs) room -= room % rs;
      std::size_t take = n < room ? n : room;
      if (rs == 0) take = (n <= room || used == 0) ? n : 0;  // text: never split a line
      if (group && take < n && used > 0 && n <= s_->opt.slice_bytes) take = 0;  // one event, one slice
      if (take == 0 && used == 0) take = rs ? rs : n;       // record larger than a slice: one per slice
      if (take == 0) {
        auto r = roll(st);
        if (!r) { lose(n); return r; }
        continue;
      }
      auto lim = make_room(take);
      if (!lim) { lose(n); return lim; }
      const std::uint64_t ev = group ? events : rs ? take / rs : 0;
      sl.buf.append(p, take);
      sl.events += ev;
      sl.buf_events += ev;
      if (group) events = 0;  // counted with the chunk that holds the first record
      s_->stats.bytes += take;
      s_->stats.records += rs ? take / rs : 1;
      if (sl.buf.size() >= s_->opt.buffer_bytes) {
        auto r = write_buffer(sl);
        if (!r) return r;
      }
      p += take;
      n -= take;
    }
    return {};
  }

  // Storage limit: delete the oldest finished aging slices until `more` fits.
  result<void> make_room(std::uint64_t more) {
    const std::uint64_t lim = s_->opt.storage_limit_bytes;
    if (lim == 0) return {};
    while (s_->stats.bytes + more > lim && !s_->aging_done.empty()) {
      const finished_slice f = std::move(s_->aging_done.front());
      s_->aging_done.pop_front();
      const std::string& victim = f.path;
      const std::uint64_t victim_events = f.events, sz = f.bytes;
      if (::unlink(victim.c_str()) == 0 || errno == ENOENT) {
        ::unlink((victim + layout::done_suffix).c_str());
        s_->stats.bytes -= sz < s_->stats.bytes ? sz : s_->stats.bytes;
        ++s_->stats.removed_slices;
        s_->stats.lost_events += victim_events;
      }
    }
    if (s_->stats.bytes + more > lim)
      return stop(s_->root + ": storage limit of " + std::to_string(lim) +
                  " bytes reached and no aging slice left to delete; collection stopped, later records are lost");
    return {};
  }

  result<void> open_slice(const stream& st, unsigned index) {
    detail::open_slice sl;
    sl.dir = s_->root + "/" + (st.device ? layout::device_dir(st.device_id) : layout::host_dir) + "/" + layout::data_dir;
    sl.base = st.base_name();
    sl.record_size = st.record_size;
    sl.index = index;
    sl.start_ns = detail::mono_ns();
    if (st.device) {
      struct stat sb{};
      if (::stat(sl.dir.c_str(), &sb) != 0) {
        MSPROF_TRY(detail::make_dir(s_->root + "/device_" + std::to_string(st.device_id)));
        MSPROF_TRY(detail::make_dir(sl.dir));
      }
    }
    auto d = outfile::dir::open(sl.dir);
    if (!d) return stop(d.err().message + "; collection stopped");
    auto fd = d->create(layout::slice_file(sl.base, sl.index), O_APPEND);
    if (!fd) return stop(fd.err().message + "; collection stopped");
    sl.fd = fd->release();
    s_->open[st] = std::move(sl);
    return {};
  }

  result<void> roll(const stream& st) {
    auto it = s_->open.find(st);
    const unsigned next = it->second.index + 1;
    auto r = finish_slice(it->second);
    s_->open.erase(it);
    s_->last_open = nullptr;
    if (!r) return r;
    return open_slice(st, next);
  }

  result<void> write_buffer(detail::open_slice& sl) {
    if (sl.buf.empty() || sl.fd < 0) return {};
    auto r = detail::write_all(sl.fd, sl.buf.data(), sl.buf.size(), sl.path());
    if (!r) {
      // Never leave a partial record: cut the file back to what was whole.
      if (::ftruncate(sl.fd, static_cast<off_t>(sl.size)) != 0) { /* keep the first error */ }
      const std::uint64_t lost = sl.record_size ? sl.buf.size() / sl.record_size : 1;
      s_->stats.records -= lost < s_->stats.records ? lost : s_->stats.records;
      s_->stats.lost_records += lost;
      s_->stats.lost_events += sl.buf_events;
      sl.events -= sl.buf_events;
      sl.buf_events = 0;
      sl.buf.clear();
      return stop(r.err().message + " (" + std::to_string(lost) + " records lost; collection stopped)");
    }
    sl.size += sl.buf.size();
    sl.buf.clear();
    sl.buf_events = 0;
    return {};
  }

  result<void> finish_slice(detail::open_slice& sl) {
    auto r = write_buffer(sl);
    if (sl.fd >= 0) {
      if (s_->opt.sync_on_flush) ::fdatasync(sl.fd);
      ::close(sl.fd);
      sl.fd = -1;
    }
    const std::string p = sl.path();
    std::string done = "filesize:" + std::to_string(sl.size) + "\n";
    if (sl.record_size) done += "starttime:" + std::to_string(sl.start_ns) + "\nendtime  :" + std::to_string(detail::mono_ns()) + "\n";
    auto d = detail::write_file(p + layout::done_suffix, done, s_->opt.sync_on_flush);
    if (!detail::never_aged(sl.base)) s_->aging_done.push_back({p, sl.events, sl.size});
    if (!r) return r;
    return d;
  }

  result<void> flush_locked() {
    result<void> first;
    for (auto& kv : s_->open) {
      auto r = write_buffer(kv.second);
      if (first && !r) first = r;
      if (s_->opt.sync_on_flush && kv.second.fd >= 0) ::fdatasync(kv.second.fd);
    }
    return first;
  }

  // ------------------------------------------------------------ control files
  std::string info_json(const device_options* dev) const {
    const auto& o = s_->opt;
    json::writer w;
    w.begin_object();
    w.member("jobInfo", "NA");
    w.member("version", "1.0");
    w.member("mac", "00:00:00:00:00:00");
    w.member("OS", "Linux");
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    w.member("cpuCores", static_cast<std::int64_t>(cores > 0 ? cores : 1));
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
    w.member("hostname", host);
#if defined(__aarch64__)
    w.member("hwtype", "aarch64");
#else
    w.member("hwtype", "x86_64");
#endif
    std::string devs;
    for (const auto& d : o.devices) devs += (devs.empty() ? "" : ",") + std::to_string(d.id);
    w.member("devices", dev ? std::to_string(dev->id) : devs);
    w.member("platform", "");
    w.member("platform_version", "5");  // Ascend910B: the parser's C++ path
    w.member("pid", std::to_string(o.pid));
    const long pages = ::sysconf(_SC_PHYS_PAGES), psz = ::sysconf(_SC_PAGESIZE);
    // The machine's, as the host usage (--host-sys=cpu,mem) needs them: KiB, CPUs, clock ticks per second.
    w.member("memoryTotal", static_cast<std::int64_t>(pages > 0 && psz > 0 ? pages * (psz / 1024) : 0));
    w.member("cpuNums", static_cast<std::int64_t>(cores > 0 ? cores : 1));
    const long ticks = ::sysconf(_SC_CLK_TCK);
    w.member("sysClockFreq", static_cast<std::int64_t>(ticks > 0 ? ticks : 100));
    w.member("upTime", "1");
    const auto cards = detail::net_cards();
    w.member("netCardNums", static_cast<std::uint64_t>(cards.size()));
    w.member("rank_id", -1);
    w.member("pid_name", o.pid_name);
    w.member("drvVersion", 467473);
    w.member("hostUid", "0");
    w.key("CPU");
    w.begin_array();
    w.begin_object();
    w.member("Id", 0);
    w.member("Name", "msprof");
    char freq[32] = "";
    if (o.host_clock.frequency_mhz > 0) std::snprintf(freq, sizeof freq, "%.6f", o.host_clock.frequency_mhz);  // µs-exact over hours
    w.member("Frequency", freq);
    w.member("Logical_CPU_Count", static_cast<std::int64_t>(cores > 0 ? cores : 1));
    w.member("Type", "host");
    w.end_object();
    w.end_array();
    w.key("DeviceInfo");
    w.begin_array();
    for (const auto& d : o.devices) {
      if (dev && d.id != dev->id) continue;
      w.begin_object();
      w.member("id", d.id);
      w.member("env_type", 3);
      w.member("ctrl_cpu_id", "ARMv8_Cortex_A55");
      w.member("ctrl_cpu_core_num", 1);
      w.member("ctrl_cpu_endian_little", 1);
      w.member("ts_cpu_core_num", 1);
      w.member("ai_cpu_core_num", 6);
      w.member("ai_core_num", d.ai_core_num);
      w.member("ai_cpu_core_id", 2);
      w.member("ai_core_id", 0);
      w.member("aicpu_occupy_bitmap", 252);
      w.member("ctrl_cpu", "0,1");
      w.member("ai_cpu", "2,3,4,5,6,7");
      w.member("aiv_num", d.aiv_num);
      w.member("hwts_frequency", std::to_string(d.hwts_frequency_mhz));
      w.member("aic_frequency", std::to_string(d.aic_frequency_mhz));
      w.member("aiv_frequency", std::to_string(d.aic_frequency_mhz));
      w.member("simulated", d.simulated ? "yes" : "no");
      w.end_object();
    }
    w.end_array();
    w.key("netCard");
    w.begin_array();
    for (const auto& [name, mbps] : cards) {
      w.begin_object();
      w.member("netCardName", name);
      w.member("speed", mbps);
      w.end_object();
    }
    w.end_array();
    bool sim = false;
    for (const auto& d : o.devices) sim = sim || d.simulated;
    // Never pass simulated data off as hardware: say so at the top level too.
    w.member("simulated_device", sim ? "yes" : "no");
    w.member("producer", "msprof (header-only toolkit)");
    if (!dev && !s_->losses.empty()) {
      w.key("msprof_losses");
      w.begin_object();
      for (const auto& [name, n] : s_->losses) w.member(name, n);
      w.member("storage_limit_dropped", s_->stats.lost_events);
      w.end_object();
    }
    w.end_object();
    return w.take();
  }

  std::string start_end(bool start, std::uint64_t wall, std::uint64_t mono) const {
    json::writer w;
    w.begin_object();
    w.member("collectionDateBegin", start ? detail::date_text(wall) : "");
    w.member("collectionDateEnd", start ? "" : detail::date_text(wall));
    w.member("collectionTimeBegin", start ? std::to_string(wall) : "");
    w.member("collectionTimeEnd", start ? "" : std::to_string(wall));
    w.member("clockMonotonicRaw", std::to_string(mono));
    w.end_object();
    return w.take();
  }

  std::string host_start(const char* header) const {
    return std::string(header) + "\nclock_monotonic_raw: " + std::to_string(s_->opt.host_clock.anchor_ns) +
           "\ncntvct: " + std::to_string(s_->opt.host_clock.anchor_ticks) + "\ncntvct_diff: 0\n";
  }

  result<void> write_start_files() {
    const auto& o = s_->opt;
    const std::string h = s_->root + "/" + layout::host_dir + "/";
    MSPROF_TRY(detail::write_file(h + layout::info_json, info_json(nullptr)));
    {
      json::writer w;
      w.begin_object();
      // A host_sample key replaces the default of the same name: each key once.
      const auto fixed = [&](const char* k, std::string_view v) {
        if (o.host_sample.count(k) == 0) w.member(k, v);
      };
      fixed("devices", "64");
      fixed("acl", "on");
      fixed("msproftx", "on");
      fixed("ai_core_profiling_mode", "task-based");
      fixed("aiv_profiling_mode", "task-based");
      fixed("prof_level", "l1");
      fixed("profLevel", "l1");
      fixed("llc_profiling", "");
      fixed("hostProfiling", "off");
      fixed("taskTime", "l1");
      fixed("result_dir", o.parent);
      fixed("runtimeApi", "on");
      for (const auto& kv : o.host_sample) w.member(kv.first, kv.second);
      w.end_object();
      MSPROF_TRY(detail::write_file(h + layout::sample_json, w.str()));
    }
    MSPROF_TRY(detail::write_file(h + layout::start_info, start_end(true, o.wall_us, o.host_clock.anchor_ns)));
    MSPROF_TRY(detail::write_file(h + layout::host_start_log, host_start("[Host]")));
    for (const auto& d : o.devices) {
      const std::string dd = s_->root + "/" + layout::device_dir(d.id) + "/";
      const std::string n = std::to_string(d.id);
      MSPROF_TRY(detail::write_file(dd + layout::for_device(layout::info_json, d.id), info_json(&d)));
      json::writer w;
      w.begin_object();
      w.member("devices", n);
      const auto* g = codec::aic_metrics::find_group(d.aic_metrics);
      const bool pmu = !g || !g->aic_events.empty();  // AiCoreNone: counters off
      w.member("ai_core_profiling", pmu ? "on" : "off");
      w.member("ai_core_metrics", g ? g->aic_calc : std::string_view(d.aic_metrics));
      w.member("ai_core_profiling_events", g ? g->aic_events : "");
      w.member("ai_core_profiling_mode", "task-based");
      w.member("aicore_sampling_interval", 10);
      w.member("aiv_profiling", pmu ? "on" : "off");
      w.member("aiv_metrics", g ? g->aiv_calc : std::string_view(d.aic_metrics));
      w.member("aiv_profiling_events", g ? g->aiv_events : "");
      w.member("aiv_profiling_mode", "task-based");
      w.member("aiv_sampling_interval", 10);
      w.member("llc_profiling", "");
      w.member("hwts_log", "on");
      w.member("stars_acsq_task", "on");
      w.member("taskTime", "l1");
      w.member("prof_level", "l1");
      w.member("profLevel", "l1");
      w.member("acl", "on");
      w.member("msproftx", "on");
      w.member("result_dir", o.parent);
      w.member("simulated", d.simulated ? "yes" : "no");
      w.end_object();
      MSPROF_TRY(detail::write_file(dd + layout::sample_json, w.str()));
      MSPROF_TRY(detail::write_file(dd + layout::for_device(layout::start_info, d.id), start_end(true, o.wall_us, o.host_clock.anchor_ns)));
      MSPROF_TRY(detail::write_file(dd + layout::for_device(layout::host_start_log, d.id), host_start(("[Device" + n + "]").c_str())));
      MSPROF_TRY(detail::write_file(dd + layout::for_device(layout::dev_start_log, d.id), "clock_monotonic_raw: " + std::to_string(o.host_clock.anchor_ns) +
                                                                   "\ncntvct: " + std::to_string(d.cntvct) + "\n"));
    }
    return {};
  }

  result<void> write_end_files() {
    const std::uint64_t wall = detail::wall_us(), mono = detail::mono_ns();
    const std::string text = start_end(false, wall, mono);
    MSPROF_TRY(detail::write_file(s_->root + "/" + layout::host_dir + "/" + layout::end_info, text));
    for (const auto& d : s_->opt.devices)
      MSPROF_TRY(detail::write_file(s_->root + "/" + layout::device_dir(d.id) + "/" + layout::for_device(layout::end_info, d.id), text));
    return {};
  }

  std::unique_ptr<state> s_;
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_WRITER_HPP
