// SPDX-License-Identifier: MIT
// The compact staging of mstx events (docs/formats.md, "Staging"): while a
// collection runs, each finished mark or range is 36 or 44 bytes in
// host/msprof_staging/tx.<n> (numbered chunks) and its domain and message are
// interned once in host/msprof_staging/strings, instead of CANN's 256-byte
// MsprofTxInfo records (one per 232 message bytes). At stop the staging is
// turned into CANN's msproftx slices (unstage), byte for byte what writing
// them directly gives, and removed; a staging left behind (the launcher's
// program, which only closes it at exit, or a killed run) is turned into
// slices by recover_staging (the launcher, `msprof import` / `export`).
// A storage limit removes the oldest chunks, counted in calls.
//
//   msproftx_writer  CANN's form: one event -> MsprofTxInfo records in a prof_dir
//   staging_writer   the staging form (drain thread; buffered, flushed with the sink)
//   decode_staging_strings / decode_staging_tx   bounds-checked decoders (untrusted bytes)
//   unstage          staging -> msproftx slices of an open prof_dir, then removed
//   recover_staging  the same for a PROF_ directory whose collection has ended
#ifndef MSPROF_PROF_STAGING_HPP
#define MSPROF_PROF_STAGING_HPP

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../codec/encode.hpp"
#include "../core/abi.hpp"
#include "../core/directory.hpp"
#include "../core/error.hpp"
#include "../core/output_file.hpp"
#include "layout.hpp"
#include "writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// One finished mstx mark or range, times in CLOCK_MONOTONIC_RAW ns: what
/// both forms hold of it.
struct tx_event {
  std::uint64_t id = 0;          ///< markId
  std::uint16_t event_type = 0;  ///< 0 mark, 2 start/stop
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;      ///< == start_ns for marks
  std::string_view domain;       ///< "default" for the default domain
  std::string_view message;
  /// The mstx calls it stands for (a mark one, a range two): the unit of losses.
  std::uint64_t calls() const noexcept { return event_type == 0 ? 1 : 2; }
};

/// CANN's form: an event's MsprofTxInfo records (level 20500,
/// aging.additional.msproftx), appended as one event, its domain in hash_dic.
class msproftx_writer {
 public:
  explicit msproftx_writer(prof_dir& dir) : dir_(dir) {}

  /// A refused append is counted by the writer (stats().lost_events, in calls).
  result<void> write(const tx_event& e) {
    codec::MsprofStampInfo st;
    st.dataTag = 120;  // MSPROFTX
    st.processId = e.pid;
    st.threadId = e.tid;
    st.eventType = e.event_type;
    st.startTime = e.start_ns;
    st.endTime = e.end_ns;
    st.markId = e.id;
    st.domain = domain_hash(e.domain);
    scratch_.clear();
    codec::encode_tx_to(e.tid, st, e.message, [this](const codec::additional_bytes& rec) {
      scratch_.append(reinterpret_cast<const char*>(rec.data()), rec.size());
    });
    return dir_.append(stream_, scratch_.data(), scratch_.size(), e.calls());
  }

  /// The domain's hash, and its hash_dic line (once). Events of one domain come
  /// in runs: the last one is kept, the rest go to prof_dir::hash.
  std::uint64_t domain_hash(std::string_view domain) {
    if (domain.empty()) domain = "default";
    if (domain != last_domain_) {
      last_hash_ = dir_.hash(domain);
      last_domain_.assign(domain);
    }
    return last_hash_;
  }

 private:
  prof_dir& dir_;
  const stream stream_ = stream::msproftx(true);
  std::string last_domain_ = std::string(1, '\0');  // no domain name is "\0"
  std::uint64_t last_hash_ = 0;
  std::string scratch_;  // one event's records
};

// ------------------------------------------------------------- the format
namespace staging {
inline constexpr std::size_t magic_bytes = 8;
inline constexpr unsigned char mark_tag = 'M';   ///< a point event: 36 bytes
inline constexpr unsigned char range_tag = 'R';  ///< a range: 44 bytes
inline constexpr std::size_t mark_bytes = 36;
inline constexpr std::size_t range_bytes = 44;
inline constexpr std::uint32_t max_string = 1u << 20;  ///< an mstx message is far shorter
/// Distinct strings the writer deduplicates; later new strings are appended
/// each time they occur (the writer's memory stays bounded).
inline constexpr std::size_t intern_limit = 1u << 20;

inline void put32(std::string& b, std::uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
inline std::uint32_t get32(const unsigned char* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
inline std::uint64_t get64(const unsigned char* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
/// The n-th chunk of records: "tx.<n>".
inline std::string chunk_name(std::uint64_t n) { return std::string(layout::staging_tx) + "." + std::to_string(n); }
/// The chunk number of a file name, or false when it is not a chunk's.
inline bool chunk_number(const std::string& name, std::uint64_t& n) {
  const std::size_t head = std::strlen(layout::staging_tx) + 1;
  if (name.size() <= head || name.size() > head + 19 || name.compare(0, head, std::string(layout::staging_tx) + ".") != 0 ||
      name.find_first_not_of("0123456789", head) != std::string::npos)
    return false;
  n = std::strtoull(name.c_str() + head, nullptr, 10);
  return true;
}
/// The bytes an event with a message of `n` bytes takes as msproftx records
/// (256 per record, one record per 232 message bytes, at least one): what the
/// storage limit charges a staged event, so the slices made from the staging
/// fit in it.
inline std::uint64_t cann_bytes(std::size_t n) {
  constexpr std::size_t per = codec::tx_message_bytes;
  std::uint64_t records = n == 0 ? 1 : (n + per - 1) / per;
  if (records > 65536) records = 65536;  // encode_tx_to's segment counter
  return records * sizeof(codec::additional_bytes);
}

// fork(): a child shares the parent's open file descriptions, so it would hold
// the staging's lock (flock) while it lives and recovery would refuse. The
// descriptors holding a lock are registered here (fd + 1; 0 = free slot); a
// fork()ed child points each at /dev/null (same number, so the writer's later
// close() closes only its own), which drops its share of the lock.
inline constexpr std::size_t lock_slots = 64;
inline std::atomic<int>* locked_fds() {
  static std::atomic<int> fds[lock_slots];
  return fds;
}
inline void release_locks_in_child() noexcept {
  std::atomic<int>* fds = locked_fds();
  for (std::size_t i = 0; i < lock_slots; ++i) {
    const int v = fds[i].exchange(0, std::memory_order_relaxed);
    if (v <= 0) continue;
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) continue;
    (void)::dup3(null, v - 1, O_CLOEXEC);
    ::close(null);
  }
}
inline void register_lock(int fd) {
  static const bool atfork = ::pthread_atfork(nullptr, nullptr, release_locks_in_child) == 0;
  (void)atfork;
  std::atomic<int>* fds = locked_fds();
  for (std::size_t i = 0; i < lock_slots; ++i) {
    int free = 0;
    if (fds[i].compare_exchange_strong(free, fd + 1, std::memory_order_relaxed)) return;
  }
}
inline void unregister_lock(int fd) {
  std::atomic<int>* fds = locked_fds();
  for (std::size_t i = 0; i < lock_slots; ++i) {
    int mine = fd + 1;
    if (fds[i].compare_exchange_strong(mine, 0, std::memory_order_relaxed)) return;
  }
}

}  // namespace staging

/// The strings file: magic, then entries [u32 length][bytes]; entry i is
/// string id i. Appends to `out`. A cut last entry (a killed run) is not an
/// error: `*cut` says at which offset it starts (0: none).
inline result<void> decode_staging_strings(std::string_view bytes, const std::string& file,
                                           std::vector<std::string>& out, std::uint64_t* cut = nullptr) {
  if (cut) *cut = 0;
  if (bytes.size() < staging::magic_bytes ||
      std::memcmp(bytes.data(), layout::staging_strings_magic, staging::magic_bytes) != 0)
    return make_error(errc::bad_magic, file + ": offset 0: not a staging strings file (magic MSPSTGS1 expected)");
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t at = staging::magic_bytes;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) {
      if (cut) *cut = at;
      break;
    }
    const std::uint32_t n = staging::get32(p + at);
    if (n > staging::max_string)
      return make_error(errc::bad_size, file + ": offset " + std::to_string(at) + ": string of " + std::to_string(n) +
                                         " bytes (at most " + std::to_string(staging::max_string) + ")");
    if (bytes.size() - at - 4 < n) {
      if (cut) *cut = at;
      break;
    }
    out.emplace_back(bytes.substr(at + 4, n));
    at += 4 + n;
  }
  return {};
}

/// Decodes the whole records of `bytes`, a piece of the tx file that starts at
/// `offset` in it (past the magic), calling fn(const tx_event&) for each.
/// Returns the bytes decoded (a cut record at the end is left for the next
/// piece); a bad tag or flags, or a string id not in `strings`, is an error
/// naming the file and the record's offset.
template <class Fn>
result<std::size_t> decode_staging_tx(std::string_view bytes, std::uint64_t offset,
                                      const std::vector<std::string>& strings, const std::string& file, Fn&& fn) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t at = 0;
  auto bad = [&](const std::string& what) {
    return make_error(errc::bad_value, file + ": offset " + std::to_string(offset + at) + ": " + what);
  };
  auto str = [&](std::uint32_t id, std::string_view& s) {
    if (id >= strings.size()) return false;
    s = strings[id];
    return true;
  };
  while (at < bytes.size()) {
    const unsigned char tag = p[at];
    if (tag != staging::mark_tag && tag != staging::range_tag)
      return bad("record tag " + std::to_string(tag) + " is neither 'M' nor 'R'");
    const std::size_t size = tag == staging::mark_tag ? staging::mark_bytes : staging::range_bytes;
    if (bytes.size() - at < size) break;
    const unsigned char* r = p + at;
    if (r[1] != 0) return bad("flags " + std::to_string(r[1]) + " (none are defined)");
    tx_event e;
    std::memcpy(&e.event_type, r + 2, 2);
    e.pid = staging::get32(r + 4);
    e.tid = staging::get32(r + 8);
    const std::uint32_t domain = staging::get32(r + 12), message = staging::get32(r + 16);
    e.id = staging::get64(r + 20);
    e.start_ns = staging::get64(r + 28);
    e.end_ns = tag == staging::range_tag ? staging::get64(r + 36) : e.start_ns;
    if ((tag == staging::range_tag) != (e.event_type != 0))
      return bad("event type " + std::to_string(e.event_type) + " in a '" + std::string(1, static_cast<char>(tag)) +
                 "' record");
    if (!str(domain, e.domain)) return bad("domain string id " + std::to_string(domain) + " is not in the strings file");
    if (!str(message, e.message))
      return bad("message string id " + std::to_string(message) + " is not in the strings file");
    fn(e);
    at += size;
  }
  return at;
}

/// How a staging_writer sizes its chunks and keeps within a storage limit.
struct staging_options {
  /// The PROF_ directory's storage limit in bytes (0: none). The staging is
  /// charged what its events will take as msproftx records (cann_bytes), so
  /// the slices made from it fit; when the directory's own bytes plus that
  /// charge pass the limit, the oldest chunks are removed, their calls
  /// counted (aged_calls()).
  std::uint64_t storage_limit = 0;
  /// A chunk is closed once its events' charge reaches this (0: 64 MiB, or a
  /// sixteenth of the storage limit, at least 256 KiB, when that is less).
  std::uint64_t chunk_charge = 0;
};

/// Writes the staging of one collection (drain thread). Strings reach the disk
/// before the records that name them, so a killed run leaves a decodable
/// staging; a write error (full disk) stops it, and every later event is
/// counted lost (lost_calls()). In a fork()ed child it writes nothing.
class staging_writer {
 public:
  staging_writer() = default;
  staging_writer(staging_writer&&) noexcept = default;
  staging_writer& operator=(staging_writer&&) noexcept = default;
  ~staging_writer() { unlock(); }

  /// host/msprof_staging/ of the PROF_ directory `root`, with a new strings
  /// file and the first chunk. The strings file stays locked (flock) until
  /// close(), so a recovery of a running collection refuses.
  static result<staging_writer> create(const std::string& root, staging_options opt = {}) {
    auto host = outfile::dir::open(root + "/" + layout::host_dir);
    if (!host) return host.err();
    auto d = host->mkdir(layout::staging_dir, true);
    if (!d) return d.err();
    staging_writer w;
    w.path_ = d->path();
    w.dir_ = std::move(*d);
    w.limit_ = opt.storage_limit;
    w.chunk_charge_ = opt.chunk_charge;
    if (w.chunk_charge_ == 0) {
      w.chunk_charge_ = 64u << 20;
      if (w.limit_ != 0) w.chunk_charge_ = std::min<std::uint64_t>(w.chunk_charge_, std::max<std::uint64_t>(w.limit_ / 16, 256u << 10));
    }
    auto st = w.dir_.create(layout::staging_strings, O_APPEND);
    if (!st) return st.err();
    if (::flock(st->get(), LOCK_EX | LOCK_NB) != 0)
      return make_error(errc::io, w.path_ + "/" + layout::staging_strings + ": cannot lock: " + std::strerror(errno));
    w.strings_fd_ = std::move(*st);
    staging::register_lock(w.strings_fd_.get());
    w.pid_ = ::getpid();
    w.strings_.assign(layout::staging_strings_magic, staging::magic_bytes);
    MSPROF_TRY(w.open_chunk());
    return w;
  }

  explicit operator bool() const noexcept { return static_cast<bool>(strings_fd_); }
  const std::string& path() const noexcept { return path_; }

  void add(const tx_event& e) {
    if (failed_) {
      lost_calls_ += e.calls();
      return;
    }
    const std::uint32_t domain = intern(e.domain.empty() ? std::string_view("default") : e.domain, last_domain_);
    const std::uint32_t message = intern(e.message, last_message_);
    const bool range = e.event_type != 0;
    unsigned char r[staging::range_bytes];  // one append per event
    r[0] = range ? staging::range_tag : staging::mark_tag;
    r[1] = 0;
    std::memcpy(r + 2, &e.event_type, 2);
    std::memcpy(r + 4, &e.pid, 4);
    std::memcpy(r + 8, &e.tid, 4);
    std::memcpy(r + 12, &domain, 4);
    std::memcpy(r + 16, &message, 4);
    std::memcpy(r + 20, &e.id, 8);
    std::memcpy(r + 28, &e.start_ns, 8);
    std::memcpy(r + 36, &e.end_ns, 8);
    tx_.append(reinterpret_cast<const char*>(r), range ? staging::range_bytes : staging::mark_bytes);
    buffered_calls_ += e.calls();
    buffered_charge_ += e.message.size() == last_size_ ? last_charge_ : charge(e.message.size());
    // Written when the buffer is full or the chunk is: chunks stay as small as
    // the storage limit needs them (a buffer holds about 6 MiB of charge).
    if (tx_.size() >= buffer_bytes || cur_.charge + buffered_charge_ >= chunk_charge_) (void)flush(others_);
  }

  /// Hands the buffers to the kernel (strings first), closes the chunk when
  /// it is full, and keeps within the storage limit: `others` is what the
  /// rest of the PROF_ directory counts against it.
  result<void> flush(std::uint64_t others = 0) {
    others_ = others;
    if (failed_ || !strings_fd_ || !mine()) return {};
    auto r = outfile::write_all(strings_fd_.get(), strings_.data(), strings_.size(), path_ + "/" + layout::staging_strings);
    if (r) r = outfile::write_all(tx_fd_.get(), tx_.data(), tx_.size(), path_ + "/" + staging::chunk_name(chunk_));
    if (!r) {
      failed_ = true;
      error_ = r.err().message;
      lost_calls_ += buffered_calls_;
    } else {
      bytes_ += strings_.size() + tx_.size();
      cur_.calls += buffered_calls_;
      cur_.charge += buffered_charge_;
      charged_ += buffered_charge_;
    }
    strings_.clear();
    tx_.clear();
    buffered_calls_ = buffered_charge_ = 0;
    if (r && cur_.charge >= chunk_charge_) r = next_chunk();
    if (r) r = keep_within_limit();
    return r;
  }

  /// Calls whose events could not be written (the staging stopped at an error).
  std::uint64_t lost_calls() const noexcept { return lost_calls_; }
  /// Calls in the chunks the storage limit removed, since the last call (the
  /// caller adds them to its own count).
  std::uint64_t take_aged_calls() noexcept { return std::exchange(aged_calls_, 0); }
  const std::string& error() const noexcept { return error_; }
  /// Bytes written to the files so far.
  std::uint64_t bytes_written() const noexcept { return bytes_; }
  /// False in a fork()ed child: the staging is the parent's.
  bool mine() const noexcept { return pid_ == ::getpid(); }

  /// Flushes, marks the staging complete (the collection ended; what is left
  /// to do is the conversion) and closes the files, the lock with them.
  void close() {
    if (!strings_fd_) return;
    if (mine()) {
      (void)flush(others_);
      if (!failed_) (void)dir_.create(layout::staging_complete);
    }
    tx_fd_.reset();
    unlock();
  }

 private:
  static constexpr std::size_t buffer_bytes = 1u << 20;

  struct chunk {
    std::uint64_t number = 0;
    std::uint64_t calls = 0;
    std::uint64_t charge = 0;  // cann_bytes of its events
  };

  void unlock() {
    if (!strings_fd_) return;
    staging::unregister_lock(strings_fd_.get());
    strings_fd_.reset();
  }

  std::uint64_t charge(std::size_t n) {
    last_size_ = n;
    return last_charge_ = staging::cann_bytes(n);
  }

  result<void> open_chunk() {
    auto fd = dir_.create(staging::chunk_name(chunk_), O_APPEND);
    if (!fd) return fd.err();
    tx_fd_ = std::move(*fd);
    cur_ = chunk{chunk_, 0, 0};
    tx_.assign(layout::staging_tx_magic, staging::magic_bytes);
    return {};
  }

  // The full chunk joins the closed ones; the next one starts.
  result<void> next_chunk() {
    auto r = outfile::write_all(tx_fd_.get(), tx_.data(), tx_.size(), path_ + "/" + staging::chunk_name(chunk_));
    if (r) bytes_ += tx_.size();
    tx_.clear();
    closed_.push_back(cur_);
    ++chunk_;
    if (r) r = open_chunk();
    if (!r) {
      failed_ = true;
      error_ = r.err().message;
    }
    return r;
  }

  // The oldest chunks go while the directory and the staging's charge pass
  // the limit; the newest one too when it alone does.
  result<void> keep_within_limit() {
    if (limit_ == 0) return {};
    if (closed_.empty() && others_ + charged_ > limit_ && cur_.charge != 0) MSPROF_TRY(next_chunk());
    while (!closed_.empty() && others_ + charged_ > limit_) {
      const chunk c = closed_.front();
      const std::string name = staging::chunk_name(c.number);
      if (::unlinkat(dir_.fd(), name.c_str(), 0) != 0 && errno != ENOENT)
        return make_error(errc::io, path_ + "/" + name + ": cannot remove: " + std::strerror(errno));
      closed_.pop_front();
      charged_ -= c.charge;
      aged_calls_ += c.calls;
    }
    return {};
  }

  // The last string of a field and its id: events come in runs of the same
  // domain and message, and a compare is cheaper than a lookup.
  struct last_string {
    std::string text;
    std::uint32_t id = ~0u;
  };
  std::uint32_t intern(std::string_view s, last_string& last) {
    if (last.id != ~0u && s == last.text) return last.id;
    std::uint32_t id;
    if (auto it = ids_.find(s); it != ids_.end()) {
      id = it->second;
    } else {
      id = next_id_++;
      const auto n = static_cast<std::uint32_t>(s.size() < staging::max_string ? s.size() : staging::max_string);
      staging::put32(strings_, n);
      strings_.append(s.data(), n);
      if (ids_.size() < staging::intern_limit) ids_.emplace(owned_.emplace_back(s), id);
    }
    last.text.assign(s);
    last.id = id;
    return id;
  }

  std::string path_;
  outfile::dir dir_;
  outfile::unique_fd tx_fd_, strings_fd_;
  pid_t pid_ = 0;
  std::string tx_, strings_;  // not yet written
  std::deque<std::string> owned_;  // the interned strings (ids_ keys view them)
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  last_string last_domain_, last_message_;
  std::uint32_t next_id_ = 0;
  std::uint64_t limit_ = 0, chunk_charge_ = 0, others_ = 0;
  std::uint64_t chunk_ = 0;        // the open chunk's number
  chunk cur_;                      // its calls and charge, as written
  std::deque<chunk> closed_;       // the closed chunks still on disk, oldest first
  std::uint64_t charged_ = 0;      // the charge of the chunks on disk
  std::size_t last_size_ = ~std::size_t{0};
  std::uint64_t last_charge_ = 0;
  std::uint64_t buffered_calls_ = 0, buffered_charge_ = 0, lost_calls_ = 0, aged_calls_ = 0, bytes_ = 0;
  bool failed_ = false;
  std::string error_;
};

/// What a staging held.
struct staging_summary {
  std::uint64_t events = 0;
  std::uint64_t calls = 0;           ///< a mark one, a range two
  std::uint64_t bytes = 0;           ///< of both files
  std::vector<std::string> warnings; ///< a cut last record or string (a killed run)
};

/// The chunk numbers in the staging directory `path`, in order.
inline result<std::vector<std::uint64_t>> staged_chunks(const std::string& path) {
  auto names = posix_dir::list(path);
  if (!names) return names.err();
  std::vector<std::uint64_t> chunks;
  for (const auto& n : *names) {
    std::uint64_t k = 0;
    if (staging::chunk_number(n, k)) chunks.push_back(k);
  }
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

/// Reads the staging directory `path` (host/msprof_staging), calling
/// fn(const tx_event&) for each event in order: the chunks by number (the
/// storage limit may have removed the first ones). The strings are read
/// whole, the records in pieces of 1 MiB.
template <class Fn>
result<staging_summary> for_each_staged(const std::string& path, Fn&& fn) {
  staging_summary sum;
  auto read_file = [](const std::string& file, std::string& out) -> result<void> {
    outfile::unique_fd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return make_error(errc::io, file + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return make_error(errc::io, file + ": cannot read: " + std::strerror(errno));
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return {};
  };
  const std::string strings_file = path + "/" + layout::staging_strings;
  std::string bytes;
  MSPROF_TRY(read_file(strings_file, bytes));
  sum.bytes += bytes.size();
  std::vector<std::string> strings;
  std::uint64_t cut = 0;
  if (bytes.size() < staging::magic_bytes &&
      std::memcmp(bytes.data(), layout::staging_strings_magic, bytes.size()) == 0) {
    // Killed before the first flush: no strings, so no chunk can hold a record.
    if (!bytes.empty())
      sum.warnings.push_back(strings_file + ": offset 0: cut magic (" + std::to_string(bytes.size()) + " bytes) ignored");
  } else {
    MSPROF_TRY(decode_staging_strings(bytes, strings_file, strings, &cut));
  }
  if (cut != 0) sum.warnings.push_back(strings_file + ": offset " + std::to_string(cut) + ": cut last string ignored");
  bytes.clear();
  bytes.shrink_to_fit();

  auto chunks = staged_chunks(path);
  if (!chunks) return chunks.err();
  std::string buf;
  for (const std::uint64_t k : *chunks) {
    const std::string tx_file = path + "/" + staging::chunk_name(k);
    outfile::unique_fd fd(::open(tx_file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return make_error(errc::io, tx_file + ": cannot open: " + std::strerror(errno));
    buf.clear();
    std::uint64_t offset = 0;  // of buf's first byte in the file
    bool magic_seen = false;
    for (;;) {
      const std::size_t keep = buf.size();
      buf.resize(keep + (1u << 20));
      ssize_t n;
      do n = ::read(fd.get(), buf.data() + keep, buf.size() - keep); while (n < 0 && errno == EINTR);
      if (n < 0) return make_error(errc::io, tx_file + ": read failed: " + std::strerror(errno));
      buf.resize(keep + static_cast<std::size_t>(n));
      sum.bytes += static_cast<std::uint64_t>(n);
      if (!magic_seen) {
        if (buf.size() < staging::magic_bytes && n != 0) continue;
        if (buf.size() < staging::magic_bytes) {  // a chunk killed before its first write: no records
          if (!buf.empty())
            sum.warnings.push_back(tx_file + ": offset 0: cut magic (" + std::to_string(buf.size()) + " bytes) ignored");
          buf.clear();
          break;
        }
        if (std::memcmp(buf.data(), layout::staging_tx_magic, staging::magic_bytes) != 0)
          return make_error(errc::bad_magic, tx_file + ": offset 0: not a staging record file (magic MSPSTGT1 expected)");
        buf.erase(0, staging::magic_bytes);
        offset = staging::magic_bytes;
        magic_seen = true;
      }
      auto used = decode_staging_tx(buf, offset, strings, tx_file, [&](const tx_event& e) {
        ++sum.events;
        sum.calls += e.calls();
        fn(e);
      });
      if (!used) return used.err();
      buf.erase(0, *used);
      offset += *used;
      if (n == 0) break;
    }
    if (!buf.empty())
      sum.warnings.push_back(tx_file + ": offset " + std::to_string(offset) + ": cut last record (" +
                             std::to_string(buf.size()) + " bytes) ignored");
  }
  return sum;
}

/// Removes a staging directory's files (the records first, then the strings
/// and the markers), then the directory.
inline result<void> remove_staging_files(const std::string& path) {
  auto chunks = staged_chunks(path);
  if (!chunks) return chunks.err();
  std::vector<std::string> files;
  for (const std::uint64_t k : *chunks) files.push_back(staging::chunk_name(k));
  for (const char* name : {layout::staging_strings, layout::staging_complete, layout::staging_converting})
    files.emplace_back(name);
  for (const auto& name : files) {
    const std::string f = path + "/" + name;
    if (::unlink(f.c_str()) != 0 && errno != ENOENT)
      return make_error(errc::io, f + ": cannot remove: " + std::strerror(errno));
  }
  return {};
}
inline result<void> remove_staging(const std::string& path) {
  MSPROF_TRY(remove_staging_files(path));
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT)
    return make_error(errc::io, path + ": cannot remove: " + std::strerror(errno));
  return {};
}

/// Turns the staging `path` into msproftx slices of `dir` (through
/// msproftx_writer, as the direct form writes them) and removes it. The
/// marker file `converting` says it has begun: a process killed during it
/// leaves msproftx slices that recover_staging removes before it writes them
/// all again; the records are removed only after the slices are flushed.
inline result<staging_summary> unstage(prof_dir& dir, const std::string& path) {
  {
    auto d = outfile::dir::open(path);
    if (!d) return d.err();
    auto marker = d->create(layout::staging_converting);
    if (!marker) return marker.err();
  }
  msproftx_writer w(dir);
  auto sum = for_each_staged(path, [&](const tx_event& e) { (void)w.write(e); });
  if (!sum) return sum;
  MSPROF_TRY(dir.flush());
  MSPROF_TRY(remove_staging(path));
  return sum;
}

/// The msproftx slices (and their .done files) in host/data of `root`: those a
/// conversion at stop that did not finish wrote.
inline result<void> remove_msproftx_slices(const std::string& root) {
  const std::string data = root + "/" + layout::host_dir + "/" + layout::data_dir;
  const std::string infix = std::string(".") + layout::tag::msproftx + layout::slice_infix;
  auto names = posix_dir::list(data);
  if (!names) return names.err();
  for (const auto& n : *names) {
    if (n.find(infix) == std::string::npos) continue;
    const std::string f = data + "/" + n;
    if (::unlink(f.c_str()) != 0 && errno != ENOENT)
      return make_error(errc::io, f + ": cannot remove: " + std::strerror(errno));
  }
  return {};
}

/// What recover_staging did.
struct recovery {
  bool found = false;    ///< the directory had a staging
  bool complete = false; ///< its collection closed it (not killed): the launcher's normal case
  bool resumed = false;  ///< an interrupted recovery finished (its counts are not known again)
  staging_summary staged;
  std::vector<std::string> moved;  ///< slice files added to host/data
};

/// The staging a collection left (host/msprof_staging of the PROF_ directory
/// `root`: closed at the program's exit under the launcher, or a killed run's)
/// turned into slices. A conversion at stop that did not finish (`converting`
/// beside the records) is undone first: its msproftx slices are removed (in a
/// staged collection every msproftx record comes from the staging); one that
/// finished but for removing the staging only has it removed. Then three
/// steps, each safe to interrupt: the events are
/// written into a scratch PROF_ directory inside the staging (complete once its
/// end_info exists); the staging's files are removed; the scratch directory's
/// host slices (msproftx, and hash_dic lines the killed run may not have
/// flushed; a repeated line is harmless) are moved into host/data under free
/// slice numbers. A recovery interrupted after the first step goes on from the
/// scratch directory. An empty staging (a run killed before its strings file
/// existed) is only removed. Refuses while a collection still writes the
/// staging (its lock).
inline result<recovery> recover_staging(const std::string& root) {
  recovery rec;
  const std::string path = root + "/" + layout::host_dir + "/" + layout::staging_dir;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return rec;
  if (!S_ISDIR(st.st_mode)) return make_error(errc::bad_value, path + ": not a directory");
  rec.found = true;
  const std::string scratch = path + "/unstaged";
  const std::string strings_file = path + "/" + layout::staging_strings;
  const std::string marker = path + "/" + layout::staging_converting;
  const bool converting = posix_dir::exists(marker);
  const bool have_strings = posix_dir::exists(strings_file);
  rec.complete = posix_dir::exists(path + "/" + layout::staging_complete);
  if (converting && !have_strings) {  // the conversion at stop finished: its slices are in place
    MSPROF_TRY(remove_staging(path));
    return rec;
  }
  if (have_strings) {
    {
      outfile::unique_fd fd(::open(strings_file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      if (!fd) return make_error(errc::io, strings_file + ": cannot open: " + std::strerror(errno));
      if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
        return make_error(errc::unsupported, path + ": a running collection still writes it; export after it stops");
    }
    if (converting) MSPROF_TRY(remove_msproftx_slices(root));
    posix_dir::remove_tree(scratch);  // an interrupted first step's
    prof_dir_options o;
    o.parent = path;
    o.name = "unstaged";
    auto d = prof_dir::create(o);
    if (!d) return d.err();
    msproftx_writer w(*d);
    auto sum = for_each_staged(path, [&](const tx_event& e) { (void)w.write(e); });
    if (!sum) return sum.err();
    rec.staged = std::move(*sum);
    MSPROF_TRY(d->close());
    MSPROF_TRY(remove_staging_files(path));
  } else if (posix_dir::exists(scratch + "/" + layout::host_dir + "/" + layout::end_info)) {
    rec.resumed = true;
  } else {
    auto names = posix_dir::list(path);
    if (!names) return names.err();
    if (!names->empty()) return make_error(errc::not_found, strings_file + ": missing (a staging without its strings)");
    // Killed between making the directory and its strings file: nothing was staged.
    MSPROF_TRY(remove_staging(path));
    return rec;
  }
  const std::string from = scratch + "/" + layout::host_dir + "/" + layout::data_dir;
  const std::string to = root + "/" + layout::host_dir + "/" + layout::data_dir;
  auto names = posix_dir::list(from);
  if (!names) return names.err();
  // In slice order (slice_2 before slice_10): each takes the next free number in host/data.
  auto key = [](const std::string& n) {
    const std::size_t at = n.find(layout::slice_infix);
    if (at == std::string::npos) return std::make_pair(n, 0ul);
    return std::make_pair(n.substr(0, at), std::strtoul(n.c_str() + at + std::strlen(layout::slice_infix), nullptr, 10));
  };
  std::sort(names->begin(), names->end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  for (const auto& name : *names) {
    const std::string source = from + "/" + name;
    const std::size_t at = name.find(layout::slice_infix);
    if (at == std::string::npos || name.find(layout::done_suffix) != std::string::npos) continue;
    const std::string base = name.substr(0, at);
    std::uint32_t index = 0;
    while (posix_dir::exists(to + "/" + layout::slice_file(base, index))) ++index;
    const std::string target = layout::slice_file(base, index);
    // The .done first: a slice in host/data without one reads as one still written.
    const std::string done = source + layout::done_suffix;
    if (posix_dir::exists(done)) (void)::rename(done.c_str(), (to + "/" + target + layout::done_suffix).c_str());
    if (::rename(source.c_str(), (to + "/" + target).c_str()) != 0)
      return make_error(errc::io, to + "/" + target + ": cannot move the recovered slice there: " + std::strerror(errno));
    rec.moved.push_back(target);
  }
  posix_dir::remove_tree(scratch);
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT)
    return make_error(errc::io, path + ": cannot remove: " + std::strerror(errno));
  return rec;
}

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_STAGING_HPP
