// SPDX-License-Identifier: MIT
// Rendering the chrome form (include/msprof/convert/chrome/render.hpp): the
// trace_builder, and chrome::render(), the form in memory.
#include "msprof/convert/chrome/render.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "msprof/convert/chrome/chrome_trace.hpp"
#include "msprof/convert/chrome/encode.hpp"
#include "msprof/convert/chrome/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {
using namespace std::string_view_literals;
// The builder's keys and helpers (named: trace_builder::impl holds its sorters).
namespace build {

// ------------------------------------------------------------------- keys

/// A slice or counter in write order: time, slices before counters, then per
/// thread the nesting order (longer first, input order); counters in input order.
struct wkey {
  std::int64_t ts = 0;
  std::uint64_t cls = 0;  // 0 slice, 1 counter
  std::uint64_t pid = 0, tid = 0;
  std::int64_t neg_dur = 0;
  std::uint64_t hi = 0, lo = 0;
  auto tie() const noexcept { return std::tie(ts, cls, pid, tid, neg_dur, hi, lo); }
  bool operator<(const wkey& o) const noexcept { return tie() < o.tie(); }
  bool operator==(const wkey& o) const noexcept { return tie() == o.tie(); }
};

/// A slice in nesting order: by time over all threads, per thread longer
/// first, then input order. Its (pid, tid) by index (threads in
/// trace_builder::impl; the index order is arbitrary, only per-thread order matters).
struct nkey {
  std::uint32_t thread = 0;
  std::int64_t ts = 0, neg_dur = 0;
  std::uint64_t hi = 0, lo = 0;
  bool operator<(const nkey& o) const noexcept {
    return std::tie(ts, thread, neg_dur, hi, lo) < std::tie(o.ts, o.thread, o.neg_dur, o.hi, o.lo);
  }
};

/// An s or f event: its id as a number (0 if it is none) and the hash of its
/// (cat, name, id), then input order. Ids grow with time in msprof's own
/// flows, so the runs come nearly sorted and so do the queries made from them.
struct fkey {
  std::uint64_t id = 0, hash = 0, hi = 0, lo = 0;
  bool same_group(const fkey& o) const noexcept { return id == o.id && hash == o.hash; }
  bool operator<(const fkey& o) const noexcept {
    return std::tie(id, hash, hi, lo) < std::tie(o.id, o.hash, o.hi, o.lo);
  }
};

/// A flow end to bind, in nkey's order: its time and thread; the pair (its f's input place) and which end.
struct qkey {
  std::uint32_t thread = 0, end = 0;
  std::int64_t ts = 0;
  std::uint64_t hi = 0, lo = 0;
  bool operator<(const qkey& o) const noexcept {
    return std::tie(ts, thread, hi, lo, end) < std::tie(o.ts, o.thread, o.hi, o.lo, o.end);
  }
};

/// A pair in pair order (the input order of its f), and which end.
struct pkey {
  std::uint64_t hi = 0, lo = 0, end = 0;
  bool operator<(const pkey& o) const noexcept { return std::tie(hi, lo, end) < std::tie(o.hi, o.lo, o.end); }
};

/// A flow at its later end in write order, then in pair order.
struct mkey {
  wkey at;
  std::uint64_t hi = 0, lo = 0;
  bool operator<(const mkey& o) const noexcept { return std::tie(at, hi, lo) < std::tie(o.at, o.hi, o.lo); }
};

/// A written flow in its part, in pair order.
struct part_key {
  std::uint64_t part = 0, hi = 0, lo = 0;
  bool operator<(const part_key& o) const noexcept { return std::tie(part, hi, lo) < std::tie(o.part, o.hi, o.lo); }
};

// --------------------------------------------------------------- payloads

/// Bytes written in order and read back by offset: in memory until 1 MiB, then
/// in an unnamed temporary file (spill.hpp's).
class scratch {
 public:
  explicit scratch(const std::string& dir) : file_(dir, 0) {}
  std::uint64_t size() const noexcept { return on_disk_ + buf_.size(); }
  void append(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= (1u << 20)) flush();
  }
  void flush() {
    if (buf_.empty() || !file_.ready()) return;
    file_.write(buf_.data(), buf_.size());
    on_disk_ += buf_.size();
    buf_.clear();
  }
  /// Appends bytes [off, off + n) to `out`; false on a read error.
  bool read(std::uint64_t off, std::size_t n, std::string& out) {
    while (n > 0 && off < on_disk_) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, on_disk_ - off));
      const std::size_t at = out.size();
      out.resize(at + want);
      const auto got = ::pread(file_.fd(), out.data() + at, want, static_cast<off_t>(off));
      if (got < 0 && errno == EINTR) {
        out.resize(at);
        continue;
      }
      if (got <= 0) {
        out.resize(at);
        return false;
      }
      out.resize(at + static_cast<std::size_t>(got));
      off += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
    if (n > 0) out.append(buf_, static_cast<std::size_t>(off - on_disk_), n);
    return true;
  }
  result<void> status() { return file_.take_status(); }

 private:
  convert::detail::spill_file file_;
  std::string buf_;
  std::uint64_t on_disk_ = 0;
};

/// Reads back records appended to a scratch as [u32 size][bytes], in order, a MiB at a time.
class scratch_reader {
 public:
  explicit scratch_reader(scratch& s) : s_(s) {}
  /// The next record (valid until the next call); false at the end, or on a
  /// read error or a cut record (then `error` is set).
  bool next(std::string_view& rec, bool& error) {
    if (!fill(4, error)) {
      error = error || at_ < buf_.size();
      return false;
    }
    std::uint32_t n = 0;
    std::memcpy(&n, buf_.data() + at_, sizeof n);
    if (!fill(4 + std::size_t{n}, error)) {
      error = true;
      return false;
    }
    rec = std::string_view(buf_).substr(at_ + 4, n);
    at_ += 4 + std::size_t{n};
    return true;
  }

 private:
  // Makes `n` unread bytes available at at_.
  bool fill(std::size_t n, bool& error) {
    if (buf_.size() - at_ >= n) return true;
    buf_.erase(0, at_);
    at_ = 0;
    while (buf_.size() < n && off_ < s_.size()) {
      const auto want = static_cast<std::size_t>(
          std::min<std::uint64_t>(std::max<std::size_t>(n - buf_.size(), 1u << 20), s_.size() - off_));
      if (!s_.read(off_, want, buf_)) {
        error = true;
        return false;
      }
      off_ += want;
    }
    return buf_.size() >= n;
  }
  scratch& s_;
  std::uint64_t off_ = 0;
  std::string buf_;
  std::size_t at_ = 0;
};

/// The size index: one fixed-size record per event in write order.
struct size_rec {
  std::uint64_t offset = 0;  // of the event (with its leading ",\n") in the scratch file
  std::uint64_t cost = 0;    // its bytes and those of the flows that close at it
  std::int64_t ts = 0, end = 0;
  std::uint64_t boundary = 0;  // first event of a step
  wkey key;
};

std::uint64_t parse_u64(std::string_view s) noexcept {
  std::uint64_t v = 0;
  if (s.empty()) return 0;
  for (char c : s) {
    if (c < '0' || c > '9' || v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return 0;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

std::uint64_t flow_hash(std::string_view cat, std::string_view name, std::string_view id) noexcept {
  const std::hash<std::string_view> h;
  std::uint64_t seed = h(id);
  for (std::uint64_t v : {h(name), h(cat)}) seed ^= v + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
  return seed;
}

std::size_t decimal_digits(std::uint64_t v) noexcept {
  std::size_t n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

/// Characters of append_us3(ns) for ns >= 0.
std::size_t us3_size(std::int64_t ns) noexcept { return decimal_digits(static_cast<std::uint64_t>(ns) / 1000u) + 4; }

/// An event's ph member as written.
std::string_view phase_text(char ph) noexcept {
  return ph == 'X' ? ",\"ph\":\"X\"" : ph == 'C' ? ",\"ph\":\"C\"" : ",\"ph\":\"I\",\"s\":\"t\"";
}

bool is_slice_phase(char ph) noexcept { return ph == 'X' || ph == 'I' || ph == 'i'; }

/// Appends pieces to a string in room made for them in advance: no capacity
/// check per piece (an event is some fifteen pieces). Same bytes as
/// append_int / append_us3 (json.hpp).
class piece_writer {
 public:
  /// Room for at most `max` bytes at the end of `out`, until done().
  piece_writer(std::string& out, std::size_t max) : out_(out) {
    const std::size_t at = out.size();
    out.resize(at + max);
    p_ = out.data() + at;
  }
  void sv(std::string_view v) {
    if (v.empty()) return;  // an empty view may have no data pointer
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }
  void ch(char c) { *p_++ = c; }
  void u64(std::uint64_t v) {
    const fmt::format_int f(v);
    sv({f.data(), f.size()});
  }
  void us3(std::int64_t ns) {
    const auto u = static_cast<std::uint64_t>(ns);
    u64(u / 1000u);
    const auto frac = static_cast<unsigned>(u % 1000u);
    p_[0] = '.';
    p_[1] = static_cast<char>('0' + frac / 100);
    p_[2] = static_cast<char>('0' + frac / 10 % 10);
    p_[3] = static_cast<char>('0' + frac % 10);
    p_ += 4;
  }
  /// Cuts `out` to what was written.
  void done() { out_.resize(static_cast<std::size_t>(p_ - out_.data())); }

 private:
  std::string& out_;
  char* p_;
};

/// Room for a number (u64 digits) or a time (append_us3) in a piece_writer.
constexpr std::size_t number_room = 24;

/// A flow's name, category and id, escaped (the same in its two events).
struct flow_strings {
  std::string_view name, cat, id;
};

constexpr std::string_view flow_piece[] = {"{\"name\":"sv, ",\"cat\":"sv, ",\"id\":"sv, ",\"pid\":"sv,
                                           ",\"tid\":"sv, ",\"ts\":"sv};
constexpr std::string_view flow_phase[] = {",\"ph\":\"s\""sv, ",\"ph\":\"f\",\"bp\":\"e\""sv};

/// Appends a flow's two events (s at its host end, f at its device end, ",\n" between).
void append_flow(std::string& out, const flow_strings& f, const wkey& host, const wkey& dev, std::int64_t origin) {
  piece_writer w(out, 2 * (128 + f.name.size() + f.cat.size() + f.id.size() + 3 * number_room));
  for (int end = 0; end < 2; ++end) {
    const wkey& sl = end == 0 ? host : dev;
    if (end == 1) w.sv(",\n"sv);
    w.sv(flow_piece[0]);
    w.sv(f.name);
    w.sv(flow_piece[1]);
    w.sv(f.cat);
    w.sv(flow_phase[end]);
    w.sv(flow_piece[2]);
    w.sv(f.id);
    w.sv(flow_piece[3]);
    w.u64(sl.pid);
    w.sv(flow_piece[4]);
    w.u64(sl.tid);
    w.sv(flow_piece[5]);
    w.us3(sl.ts - origin);
    w.ch('}');
  }
  w.done();
}

/// The bytes append_flow() appends.
std::size_t flow_size(const flow_strings& f, const wkey& host, const wkey& dev, std::int64_t origin) {
  std::size_t n = 2 + flow_phase[0].size() + flow_phase[1].size();
  for (const wkey* sl : {&host, &dev}) {
    for (auto piece : flow_piece) n += piece.size();
    n += f.name.size() + f.cat.size() + f.id.size() + decimal_digits(sl->pid) + decimal_digits(sl->tid) +
         us3_size(sl->ts - origin) + 1;
  }
  return n;
}

}  // namespace build
using namespace build;

// ---------------------------------------------------------------- builder

struct trace_builder::impl {
  impl(const options& o, const std::string& dir, std::size_t budget)
      : opt(o),
        dir(dir.empty() ? "." : dir),
        quarter(std::max<std::size_t>(budget / 4, 64u << 10)),
        slices(this->dir, quarter),
        written(this->dir, quarter),
        durations(this->dir, quarter),
        meta(this->dir, quarter),
        starts(this->dir, quarter),
        finishes(this->dir, quarter) {
    std::string json;
    std::size_t ignore = 0;
    append_string(json, opt.default_cat, ignore);
    default_cat_bytes = json.size();
  }

  options opt;
  std::string dir;
  std::size_t quarter;
  stats st;
  spill_sorter<nkey> slices;    // X and I events in nesting order
  spill_sorter<wkey> written;   // slices and counters in write order: their text
  spill_sorter<wkey> durations; // clamped slices in write order: their final duration
  spill_sorter<pkey> meta;      // M events, encoded, in input order
  spill_sorter<fkey> starts;    // s events
  spill_sorter<fkey> finishes;  // f events
  std::size_t meta_count = 0;
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_slice = none, min_counter = none;
  std::int64_t max_ts = std::numeric_limits<std::int64_t>::min();
  bool finished = false;
  std::string buf_payload;  // add()'s, reused
  // The bound on the output's size, summed where each piece is known: add()
  // the events' bytes but their ts, dur and category (the default one counted),
  // nest() the slices' ts and dur, the claims longer categories and the flows.
  std::uint64_t one_part_bytes = 0;
  std::size_t default_cat_bytes = 0;  // of the default category as a JSON string
  std::size_t counters_added = 0;  // their ts are bounded by the latest time

  // The slice between begin_slice() and end_slice().
  struct open_slice {
    wkey key;
    char ph = 'X';
    std::uint64_t conn = 0;
    std::uint64_t bytes = 0;  // its bytes in the one-part bound but args, ts, dur and category
    std::size_t args_at = 0;  // where its args start in buf_payload
    arg_writer args;
  };
  open_slice adding{{}, 'X', 0, 0, 0, arg_writer(buf_payload, st)};

  // Each thread's (pid, tid) by its index in the nesting and query keys.
  struct thread_hash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& t) const noexcept {
      return static_cast<std::size_t>(t.first * 0x9e3779b97f4a7c15ull ^ t.second);
    }
  };
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t, thread_hash> thread_index;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> threads;
  std::uint32_t last_thread = 0;  // of the last thread_of(), checked first
  std::uint32_t thread_of(std::uint64_t pid, std::uint64_t tid) {
    if (last_thread < threads.size() && threads[last_thread] == std::make_pair(pid, tid)) return last_thread;
    const auto [it, added] = thread_index.try_emplace({pid, tid}, static_cast<std::uint32_t>(threads.size()));
    if (added) threads.emplace_back(pid, tid);
    last_thread = it->second;
    return it->second;
  }

  void add(const trace_event& e, seq at);
  arg_writer& begin_slice(const slice_fields& e, seq at);
  void end_slice();
  void add_flow(const flow_fields& e, seq at);
  result<output> finish(std::int64_t session_start_ns, std::string_view stem, const chunk_output& emit_chunk);

  // finish()'s stages.
  // The flow-end queries: s ends and f ends apart (each comes nearly sorted).
  struct query_runs {
    spill_sorter<qkey> s, f;
  };
  void pair_flows(query_runs& queries, std::set<std::string>& cats);
  result<void> nest(std::int64_t origin, query_runs& queries, spill_sorter<pkey>& bound);
};

arg_writer& trace_builder::impl::begin_slice(const slice_fields& e, seq at) {
  std::string& payload = buf_payload;
  payload.clear();
  std::int64_t d = e.ph == 'X' ? e.dur_ns : 0;
  if (d < 0) {
    ++st.negative_dur;
    d = 0;
  }
  max_ts = std::max(max_ts, e.ts_ns + d);
  wkey& k = adding.key;
  k = wkey{};
  k.ts = e.ts_ns;
  k.hi = at.hi;
  k.lo = at.lo;
  if (e.ph == 'C') {
    min_counter = std::min(min_counter, e.ts_ns);
    k.cls = 1;
  } else {
    min_slice = std::min(min_slice, e.ts_ns);
    k.pid = e.pid;
    k.tid = e.tid;
    k.neg_dur = -d;
  }
  adding.ph = e.ph;
  adding.conn = e.ph == 'X' ? e.connection_id : 0;
  // The text goes straight into write order; the nesting pass sees only the
  // numbers. Name and args are encoded once, in place (as put_str's layout).
  // A slice's pid and tid are in its key; a counter's only here.
  put(payload, e.ph);
  if (e.ph == 'C') {
    put(payload, e.pid);
    put(payload, e.tid);
  }
  const std::size_t name_at = payload.size();
  put(payload, std::uint32_t{0});
  append_name(payload, e.name, st);
  const auto name_size = static_cast<std::uint32_t>(payload.size() - name_at - sizeof(std::uint32_t));
  std::memcpy(payload.data() + name_at, &name_size, sizeof name_size);
  // ",\n{"name":" name [","cat":" cat] ph ","pid":" pid ","tid":" tid ","ts":" ts [","dur":" dur] args "}"
  adding.bytes = 10 + name_size + 7 + decimal_digits(e.pid) + 7 + decimal_digits(e.tid) + 6 + 1;
  adding.args_at = payload.size();
  adding.args = arg_writer(payload, st);
  return adding.args;
}

void trace_builder::impl::end_slice() {
  std::string& payload = buf_payload;
  adding.args.close(adding.ph == 'C');
  const wkey& k = adding.key;
  written.push(k, payload);
  one_part_bytes += adding.bytes + (payload.size() - adding.args_at);
  if (adding.ph == 'C') {
    one_part_bytes += phase_text('C').size();
    ++counters_added;
    return;
  }
  one_part_bytes += 7 + default_cat_bytes + phase_text(adding.ph).size() + (adding.ph == 'X' ? 7 : 0);
  payload.clear();
  put(payload, adding.ph);
  put(payload, static_cast<std::uint8_t>(adding.conn != 0));
  put(payload, adding.conn);
  slices.push({thread_of(k.pid, k.tid), k.ts, k.neg_dur, k.hi, k.lo}, payload);
}

void trace_builder::impl::add_flow(const flow_fields& e, seq at) {
  std::string& payload = buf_payload;
  payload.clear();
  put(payload, e.pid);
  put(payload, e.tid);
  put(payload, e.ts_ns);
  put_text(payload, e.cat);
  put_text(payload, e.name);
  put_text(payload, e.id);
  (e.ph == 's' ? starts : finishes).push({parse_u64(e.id), flow_hash(e.cat, e.name, e.id), at.hi, at.lo}, payload);
}

void trace_builder::impl::add(const trace_event& e, seq at) {
  if (is_slice_phase(e.ph) || e.ph == 'C') {
    slice_fields f;
    f.ph = e.ph;
    f.pid = e.pid;
    f.tid = e.tid;
    f.ts_ns = e.ts_ns;
    f.dur_ns = e.dur_ns;
    f.name = e.name;
    for (const auto& a : e.args) {  // the flow ends' binding key
      if (a.key == "connection_id" && a.k == trace_arg::kind::integer && a.i != 0) {
        f.connection_id = static_cast<std::uint64_t>(a.i);
        break;
      }
    }
    arg_writer& w = begin_slice(f, at);
    for (const auto& a : e.args) {
      switch (a.k) {
        case trace_arg::kind::integer: w.num(a.key, a.i); break;
        case trace_arg::kind::real: w.real(a.key, a.d); break;
        case trace_arg::kind::string: w.str(a.key, a.s); break;
      }
    }
    end_slice();
  } else if (e.ph == 'M') {
    std::string& payload = buf_payload;
    payload = "{\"name\":";
    append_string(payload, e.name, st.invalid_utf8);
    payload += ",\"ph\":\"M\",\"pid\":"sv;
    append_int(payload, e.pid);
    payload += ",\"tid\":"sv;
    append_int(payload, e.tid);
    append_args(payload, e.args, st, true);
    payload += '}';
    meta.push({at.hi, at.lo, 0}, payload);
    ++meta_count;
  } else if (e.ph == 's' || e.ph == 'f') {
    add_flow({e.ph, e.pid, e.tid, e.ts_ns, e.cat, e.name, e.id}, at);
  } else {
    ++st.unsupported;
  }
}

namespace {

/// An s or f event read back.
struct flow_event {
  std::uint64_t hi, lo, pid, tid;
  std::int64_t ts;
  std::string cat, name, id;
  /// Reads k and p into this event (reusing its strings' storage).
  void read(const fkey& k, std::string_view p) {
    payload_reader r{p};
    hi = k.hi;
    lo = k.lo;
    pid = r.get<std::uint64_t>();
    tid = r.get<std::uint64_t>();
    ts = r.get<std::int64_t>();
    cat.assign(r.text());
    name.assign(r.text());
    id.assign(r.text());
  }
  bool same_flow(const flow_event& o) const { return cat == o.cat && name == o.name && id == o.id; }
};

}  // namespace

/// Pairs s with f by (cat, name, id) in input order, as DevTools does: the k-th
/// f of a key takes its k-th s. Each pair becomes two flow-end queries
/// (`queries`: the connection id, whether it is the pair's first end in the
/// nesting order; the s end also the s's category, name and id).
void trace_builder::impl::pair_flows(query_runs& queries, std::set<std::string>& cats) {
  fkey sk, fk;
  std::string_view sp, fp;
  bool have_s = starts.next(sk, sp), have_f = finishes.next(fk, fp);
  // The events of one (id, hash); only the first n_s and n_f are current (the
  // rest keep their strings' storage for the next group).
  std::vector<flow_event> ss, ff;
  std::vector<bool> s_used;
  std::string payload;
  while (have_s || have_f) {
    fkey g = !have_f || (have_s && std::tie(sk.id, sk.hash) < std::tie(fk.id, fk.hash)) ? sk : fk;
    std::size_t n_s = 0, n_f = 0;
    for (; have_s && sk.same_group(g); have_s = starts.next(sk, sp)) {
      if (ss.size() == n_s) ss.emplace_back();
      ss[n_s++].read(sk, sp);
    }
    for (; have_f && fk.same_group(g); have_f = finishes.next(fk, fp)) {
      if (ff.size() == n_f) ff.emplace_back();
      ff[n_f++].read(fk, fp);
    }
    // One group may hold several keys: pair each key's events among themselves.
    s_used.assign(n_s, false);
    for (std::size_t i = 0; i < n_f; ++i) {
      const auto& f = ff[i];
      std::size_t j = 0;
      while (j < n_s && (s_used[j] || !ss[j].same_flow(f))) ++j;
      if (j == n_s) {
        ++st.flows_unpaired;
        continue;
      }
      s_used[j] = true;
      const auto& s = ss[j];
      const std::uint64_t id = parse_u64(s.id);
      const std::uint64_t conn = s.cat == "HostToDevice" ? id >> 32 : id;
      // Which end the nesting pass meets first (queries go in qkey order): it
      // holds that end's binding until it meets the other one.
      const qkey qs{thread_of(s.pid, s.tid), 0, s.ts, f.hi, f.lo};
      const qkey qf{thread_of(f.pid, f.tid), 1, f.ts, f.hi, f.lo};
      const bool s_first = qs < qf;
      payload.clear();
      put(payload, conn);
      put(payload, static_cast<std::uint8_t>(!s_first));
      queries.f.push(qf, payload);
      payload.clear();
      put(payload, conn);
      put(payload, static_cast<std::uint8_t>(s_first));
      put_text(payload, s.cat);  // the flow's strings travel with its s end
      put_text(payload, s.name);
      put_text(payload, s.id);
      queries.s.push(qs, payload);
      if (cats.size() < 2) cats.insert(s.cat);
    }
    for (bool used : s_used)
      if (!used) ++st.flows_unpaired;
  }
}

namespace {

/// A slice on its way through the nesting stack.
struct node {
  wkey key;
  char ph = 'X';
  bool has_conn = false;
  std::uint64_t conn = 0;
  std::int64_t end_int = 0;  // end after the overlap clamp (what the first integer pass gives)
  std::int64_t end = 0;      // end now
  std::uint8_t flags = 0;
  std::size_t index = 0;     // position in its thread's nesting order
  std::vector<std::size_t> held;  // closed children whose end can still follow this one's
};

/// A slice of a thread's latest start time.
struct group_entry {
  wkey key;
  char ph;
  bool has_conn;
  std::uint64_t conn;
};

/// One thread's state in the nesting pass.
struct lane {
  std::vector<std::size_t> stack;  // open slices (pool ids), outermost first
  std::size_t count = 0;           // slices met so far
  std::size_t group_start = 0;     // count at the first slice of `group`
  std::int64_t group_ts = 0;
  std::vector<group_entry> group;  // the slices starting at group_ts
};

/// A pair's input place, as a hash key.
struct pair_id {
  std::uint64_t hi = 0, lo = 0;
  bool operator==(const pair_id& o) const noexcept { return hi == o.hi && lo == o.lo; }
};
struct pair_id_hash {
  std::size_t operator()(const pair_id& p) const noexcept {
    return static_cast<std::size_t>((p.hi * 0x9e3779b97f4a7c15ull) ^ (p.lo * 0xc2b2ae3d27d4eb4full));
  }
};

/// A flow end bound before its pair's other end: waits for it.
struct held_end {
  std::uint32_t end = 0;
  bool ok = false;
  wkey at;
  std::string strings;  // the s end's category, name and id (put_str each)
};

}  // namespace

/// The nesting pass (see render.hpp) with the flow-end binding: the slices and
/// the flow ends of all threads in time order, one stack per thread. A pair's
/// first end is held until its second one is bound; then the pair goes to
/// `bound` as one row (pair order): [mask 3][ok, write key of the s end][ok,
/// write key of the f end][category, name, id]. Past the memory budget the
/// held ends go to `bound` alone (mask 1 or 2, keyed by their end), and so
/// does the other end when it comes.
result<void> trace_builder::impl::nest(std::int64_t origin, query_runs& queries, spill_sorter<pkey>& bound) {
  enum : std::uint8_t { overlap = 1, rounding = 2 };
  std::vector<node> pool;
  std::vector<std::size_t> free_ids;
  std::vector<lane> lanes(threads.size());
  auto js_end = [&](const node& n) { return js_us(n.key.ts - origin) + js_us(n.end - n.key.ts); };
  std::string payload;
  auto finalize = [&](std::size_t id, auto& self) -> void {
    node& n = pool[id];
    if (n.flags & overlap) ++st.clamped_overlap;
    if (n.flags & rounding) ++st.clamped_rounding;
    one_part_bytes += us3_size(n.key.ts - origin) + (n.ph == 'X' ? us3_size(n.end - n.key.ts) : 0);
    if (n.end != n.key.ts - n.key.neg_dur) {  // only a clamped slice: most keep their duration
      payload.clear();
      put(payload, n.end - n.key.ts);
      durations.push(n.key, payload);
    }
    const auto held = std::move(n.held);
    n.held.clear();
    free_ids.push_back(id);
    for (auto c : held) self(c, self);
  };
  // A trim of `id` reaches the children it holds: clamp to it, trim where the
  // engine's double end would pass it.
  auto cascade = [&](std::size_t id, auto& self) -> void {
    for (auto c : pool[id].held) {
      node& n = pool[c];
      const node& t = pool[id];
      if (n.key.ts >= t.end) continue;  // no longer inside: the engine makes it a sibling
      if (n.end > t.end) {
        n.end = t.end;
        n.flags |= rounding;
      }
      if (n.end == t.end && js_end(n) > js_end(t)) {
        --n.end;
        n.flags |= rounding;
      }
      self(c, self);
    }
  };
  // A slice leaves its thread's stack: held by its parent while its end may
  // still follow the parent's (each level can move an end by a few ns), else final.
  auto close = [&](lane& ln, std::size_t id) {
    if (!ln.stack.empty()) {
      const node& p = pool[ln.stack.back()];
      const auto reach = static_cast<std::int64_t>(2 * ln.stack.size() + 4);
      if (pool[id].end >= p.end - reach) {
        pool[ln.stack.back()].held.push_back(id);
        return;
      }
    }
    finalize(id, finalize);
  };
  // Binds a flow end as DevTools does: a slice starting at ts on its thread
  // (the one with the flow's connection_id, else the innermost), else the
  // innermost slice enclosing ts among the 256 last starts before ts.
  auto resolve = [&](const qkey& q, std::uint64_t conn, wkey& at) {
    const lane& ln = lanes[q.thread];
    const group_entry* found = nullptr;
    const bool at_ts = !ln.group.empty() && ln.group_ts == q.ts;
    if (at_ts) {
      for (const auto& g : ln.group) {
        if (g.ph != 'X') continue;
        if (conn != 0 && g.has_conn && g.conn == conn) {
          found = &g;
          break;
        }
        found = &g;  // later = nested deeper
      }
    }
    if (found) {
      at = found->key;
      return true;
    }
    const std::size_t first = at_ts ? ln.group_start : ln.count;
    for (std::size_t k = ln.stack.size(); k-- > 0;) {
      const node& n = pool[ln.stack[k]];
      if (n.key.ts >= q.ts) continue;
      if (n.index + 256 < first) break;
      if (n.ph == 'X' && n.end > q.ts) {
        at = n.key;
        return true;
      }
    }
    at = wkey{};
    return false;
  };
  // The pairs whose first end is bound, until their second one is.
  std::unordered_map<pair_id, held_end, pair_id_hash> held;
  std::size_t held_bytes = 0;
  // One end alone to `bound`.
  auto put_end = [&](const pkey& k, std::uint32_t end, bool ok, const wkey& at, std::string_view strings) {
    payload.clear();
    put(payload, static_cast<std::uint8_t>(1u << end));
    put(payload, static_cast<std::uint8_t>(ok));
    put(payload, at);
    payload += strings;
    bound.push(k, payload);
  };
  auto bind = [&](const qkey& q, std::string_view qp) {
    payload_reader r{qp};
    const auto conn = r.get<std::uint64_t>();
    const bool first = r.get<std::uint8_t>() != 0;
    wkey at;
    const bool ok = resolve(q, conn, at);
    const pair_id id{q.hi, q.lo};
    if (first) {
      held_end& h = held[id];
      h.end = q.end;
      h.ok = ok;
      h.at = at;
      h.strings.assign(r.in);
      held_bytes += sizeof(held_end) + h.strings.size() + 64;
      if (held_bytes > quarter) {  // too many flows in flight: their first ends go alone
        for (const auto& [hid, he] : held) put_end({hid.hi, hid.lo, he.end}, he.end, he.ok, he.at, he.strings);
        held.clear();
        held_bytes = 0;
      }
      return;
    }
    const auto it = held.find(id);
    if (it == held.end()) {  // its first end went alone
      put_end({q.hi, q.lo, q.end}, q.end, ok, at, r.in);
      return;
    }
    const held_end& h = it->second;
    payload.clear();
    put(payload, std::uint8_t{3});
    put(payload, static_cast<std::uint8_t>(h.end == 0 ? h.ok : ok));
    put(payload, h.end == 0 ? h.at : at);
    put(payload, static_cast<std::uint8_t>(h.end == 0 ? ok : h.ok));
    put(payload, h.end == 0 ? at : h.at);
    if (h.end == 0)
      payload += h.strings;
    else
      payload += r.in;
    bound.push({q.hi, q.lo, 0}, payload);
    held_bytes -= sizeof(held_end) + h.strings.size() + 64;
    held.erase(it);
  };

  nkey xk;
  qkey sk, fk;
  std::string_view xp, sp, fp;
  bool have_x = slices.next(xk, xp), have_s = queries.s.next(sk, sp), have_f = queries.f.next(fk, fp);
  while (have_x || have_s || have_f) {
    // The next query in qkey order, if it comes before the next slice.
    const bool s_next = have_s && (!have_f || sk < fk);
    if (s_next || have_f) {
      const qkey& qk = s_next ? sk : fk;
      if (!have_x || std::tie(qk.ts, qk.thread) < std::tie(xk.ts, xk.thread)) {
        if (s_next) {
          bind(sk, sp);
          have_s = queries.s.next(sk, sp);
        } else {
          bind(fk, fp);
          have_f = queries.f.next(fk, fp);
        }
        continue;
      }
    }
    lane& ln = lanes[xk.thread];
    wkey k;  // the slice's write key
    k.ts = xk.ts;
    k.pid = threads[xk.thread].first;
    k.tid = threads[xk.thread].second;
    k.neg_dur = xk.neg_dur;
    k.hi = xk.hi;
    k.lo = xk.lo;
    std::size_t id;
    if (free_ids.empty()) {
      id = pool.size();
      pool.emplace_back();
    } else {
      id = free_ids.back();
      free_ids.pop_back();
    }
    {
      node& n = pool[id];
      payload_reader r{xp};
      n.key = k;
      n.ph = r.get<char>();
      n.has_conn = r.get<std::uint8_t>() != 0;
      n.conn = r.get<std::uint64_t>();
      n.end = k.ts - k.neg_dur;
      n.flags = 0;
      n.index = ln.count;
      n.held.clear();
    }
    // Slices that ended by this start leave the stack; where the engine's
    // double end would still reach past this start, they lose a ns.
    const double b = js_us(k.ts - origin);
    while (!ln.stack.empty() && pool[ln.stack.back()].end <= k.ts) {
      const auto t = ln.stack.back();
      ln.stack.pop_back();
      if (b < js_end(pool[t])) {
        --pool[t].end;
        pool[t].flags |= rounding;
        cascade(t, cascade);
      }
      close(ln, t);
    }
    node& n = pool[id];
    if (!ln.stack.empty()) {
      const node& p = pool[ln.stack.back()];
      // Below 2^50 ns the rounding error of ts + dur is under 0.4 ns, so the
      // engine agrees that this slice starts inside its parent; anything else is a bug.
      if (b >= js_end(p))
        return make_error(errc::unsupported,
                          fmt::format("chrome trace: nesting on pid {} tid {} did not settle", k.pid, k.tid));
      if (n.end > p.end_int) {
        n.end = p.end_int;
        n.flags |= overlap;
      }
      n.end_int = n.end;
      if (n.end > p.end) {
        n.end = p.end;
        n.flags |= rounding;
      }
      if (n.end == p.end && js_end(n) > js_end(p)) {
        --n.end;
        n.flags |= rounding;
      }
    } else {
      n.end_int = n.end;
    }
    ln.stack.push_back(id);
    if (ln.group.empty() || ln.group_ts != k.ts) {
      ln.group.clear();
      ln.group_ts = k.ts;
      ln.group_start = ln.count;
    }
    ln.group.push_back({k, n.ph, n.has_conn, n.conn});
    ++ln.count;
    have_x = slices.next(xk, xp);
  }
  for (auto& ln : lanes) {
    while (!ln.stack.empty()) {
      const auto id = ln.stack.back();
      ln.stack.pop_back();
      close(ln, id);
    }
  }
  if (!held.empty()) return make_error(errc::unsupported, "chrome trace: a flow end was not bound");
  MSPROF_TRY(slices.take_status());
  MSPROF_TRY(queries.s.take_status());
  return queries.f.take_status();
}

result<output> trace_builder::impl::finish(std::int64_t session_start_ns, std::string_view stem,
                                           const chunk_output& emit_chunk) {
  if (finished) return make_error(errc::unsupported, "chrome trace: finish() called twice");
  finished = true;
  // Time origin: the session start, unless a slice starts at or before it
  // (DevTools leaves ts == 0 out of the trace bounds, so no slice sits at 0) or
  // a counter before it (nothing is negative).
  std::int64_t origin = session_start_ns;
  if ((min_slice != none && min_slice <= session_start_ns) || (min_counter != none && min_counter < session_start_ns)) {
    origin = std::min(min_slice == none ? none : min_slice - 1000, min_counter);
    origin -= ((origin % 1000) + 1000) % 1000;  // a whole µs, for readable numbers
  }
  // Relative times must stay far below the precision of a double: under
  // 2^50 ns (13 days) ts + dur is off by less than 0.4 ns, which keeps the
  // engine's comparisons exact for anything 1 ns apart.
  if (max_ts != std::numeric_limits<std::int64_t>::min() && max_ts - origin >= (std::int64_t{1} << 50))
    return make_error(errc::limit, fmt::format("chrome trace: events span {} ns after the time origin; the chrome form "
                                               "holds at most 2^50 ns (13 days)",
                                               max_ts - origin));

  // 1. Flows paired; 2. slices nested and flow ends bound.
  query_runs queries{spill_sorter<qkey>(dir, quarter), spill_sorter<qkey>(dir, quarter)};
  spill_sorter<pkey> bound(dir, quarter);
  std::set<std::string> pair_cats;
  pair_flows(queries, pair_cats);
  MSPROF_TRY(starts.take_status());
  MSPROF_TRY(finishes.take_status());
  MSPROF_TRY(nest(origin, queries, bound));

  // 3. Each pair with both ends bound claims its slices for its category,
  // unless one already carries another (a slice has one category). The s
  // ends' and f ends' claims apart: each comes nearly in write order.
  spill_sorter<wkey> claims[2]{spill_sorter<wkey>(dir, quarter), spill_sorter<wkey>(dir, quarter)};
  // The flows in pair order (the order they are written in), made here where
  // both ends are known: [pair][host end][device end][renamed][invalid
  // UTF-8][name, category, id escaped] per flow (the string counts are added
  // only for flows kept); their text is made as they are read back.
  scratch flow_text(dir);
  {
    const bool one_cat = pair_cats.size() < 2;  // then no claim can conflict
    std::map<wkey, std::string> claimed;        // several categories only
    pkey pk;
    std::string_view bp;
    std::string payload, fcat, fname, name_json, cat_json, id_json, strings;
    while (bound.next(pk, bp)) {
      // A pair: one row with both ends, or (held past the budget) one row per end.
      wkey ends[2];
      bool ok[2] = {false, false};
      std::uint8_t mask = 0;
      std::string_view strs;  // the s end's category, name and id
      for (;;) {
        payload_reader b{bp};
        const auto m = b.get<std::uint8_t>();
        for (int e = 0; e < 2; ++e) {
          if (!(m & (1u << e))) continue;
          ok[e] = b.get<std::uint8_t>() != 0;
          ends[e] = b.get<wkey>();
        }
        if (m == 3) {
          strs = b.in;
        } else if (m & 1u) {  // the s end alone comes first; bp is valid only until the next row
          strings.assign(b.in);
          strs = strings;
        }
        mask |= m;
        if (mask == 3) break;
        pkey next;
        if (!bound.next(next, bp) || next.hi != pk.hi || next.lo != pk.lo)
          return make_error(errc::unsupported, "chrome trace: a flow end was not bound");
      }
      payload_reader r{strs};
      const auto cat = r.text();
      if (!ok[0] || !ok[1] || ends[0] == ends[1]) {
        ++st.flows_unresolved;
        continue;
      }
      bool fits = cat != opt.default_cat;
      if (fits && !one_cat) {
        for (const auto& w : ends) {
          auto it = claimed.find(w);
          if (it != claimed.end() && it->second != cat) fits = false;
        }
        if (fits)
          for (const auto& w : ends) claimed.emplace(w, std::string(cat));
      }
      if (!fits) {
        ++st.flows_unbindable;
        continue;
      }
      payload.clear();
      put_text(payload, cat);
      claims[0].push(ends[0], payload);
      claims[1].push(ends[1], payload);
      // The flow's two events. Their strings are counted (renamed, invalid
      // UTF-8) only if the write pass keeps the flow.
      fcat.assign(cat);
      fname.assign(r.text());
      const auto fid = r.text();
      // Name, category and id are the same in both events: escaped once, counted twice.
      stats fst;
      name_json.clear();
      append_name(name_json, fname, fst);
      cat_json.clear();
      append_string(cat_json, fcat, fst.invalid_utf8);
      id_json.clear();
      append_string(id_json, fid, fst.invalid_utf8);
      fst.renamed *= 2;
      fst.invalid_utf8 *= 2;
      const std::size_t cat_bytes = cat_json.size();
      // For the one-part bound: the flow, and its category on both slices
      // where longer than the default one (a slice claimed twice counts twice).
      one_part_bytes += flow_size({name_json, cat_json, id_json}, ends[0], ends[1], origin) + 2 +
                        2 * (cat_bytes > default_cat_bytes ? cat_bytes - default_cat_bytes : 0);
      payload.clear();
      put(payload, std::uint32_t{0});
      put(payload, pk.hi);
      put(payload, pk.lo);
      put(payload, ends[0]);
      put(payload, ends[1]);
      put(payload, static_cast<std::uint64_t>(fst.renamed));
      put(payload, static_cast<std::uint64_t>(fst.invalid_utf8));
      put_text(payload, name_json);
      put_text(payload, cat_json);
      put_text(payload, id_json);
      const auto size = static_cast<std::uint32_t>(payload.size() - sizeof(std::uint32_t));
      std::memcpy(payload.data(), &size, sizeof size);
      flow_text.append(payload);
    }
    flow_text.flush();
    MSPROF_TRY(flow_text.status());
    MSPROF_TRY(bound.take_status());
  }

  // 4. Sizing: every event encoded once, in write order, into the scratch
  // file; the size index records where each one is and what it costs.
  std::string meta_text;  // ",\n"-led metadata events
  {
    pkey k;
    std::string_view p;
    while (meta.next(k, p)) {
      meta_text += ",\n"sv;
      meta_text += p;
    }
    MSPROF_TRY(meta.take_status());
  }
  const std::uint64_t meta_bytes = meta_text.size();
  const std::uint64_t fixed = head.size() + tail_open.size() + tail_close.size() + meta_bytes;
  scratch body(dir), index(dir);
  // A trace that surely fits one part (a bound on every event's and flow's
  // bytes, with room for otherData) goes straight into it: no scratch copy, no
  // size index. The bound is exact but for counters' ts (bounded by the
  // latest time), categories claimed twice and flows the write pass drops.
  std::uint64_t size_bound = one_part_bytes;
  if (counters_added > 0) size_bound += counters_added * us3_size(max_ts - origin);
  const bool direct = fixed + size_bound + 4096 <= opt.max_part_bytes;
  std::string direct_buf;
  std::uint64_t direct_bytes = 0;
  bool direct_first = meta_text.empty();
  auto direct_emit = [&]() -> bool {
    direct_bytes += direct_buf.size();
    const bool ok = emit_chunk(0, std::string_view(direct_buf));
    direct_buf.clear();
    return ok;
  };
  auto direct_failed = [&] { return make_error(errc::io, fmt::format("{}.json: write failed", stem)); };
  if (direct) {
    direct_buf.assign(head);
    if (!meta_text.empty()) direct_buf.append(meta_text, 2, std::string::npos);
  }
  // The flows read back one record at a time: fn(pair, host end, device end,
  // renamed, invalid UTF-8, text); false from fn stops.
  auto each_text = [&](auto&& fn) -> result<void> {
    scratch_reader in(flow_text);
    std::string_view rec;
    std::string text;
    bool error = false;
    while (in.next(rec, error)) {
      payload_reader r{rec};
      const pkey pk{r.get<std::uint64_t>(), r.get<std::uint64_t>(), 0};
      const auto host = r.get<wkey>();
      const auto dev = r.get<wkey>();
      const auto renamed = r.get<std::uint64_t>();
      const auto invalid = r.get<std::uint64_t>();
      flow_strings f;
      f.name = r.text();
      f.cat = r.text();
      f.id = r.text();
      text.clear();
      append_flow(text, f, host, dev, origin);
      if (!fn(pk, host, dev, renamed, invalid, std::string_view(text)))
        return make_error(errc::io, fmt::format("{}.json: write failed", stem));
    }
    if (error) return make_error(errc::io, dir + ": cannot read back the chrome trace's flows");
    return {};
  };
  // Parts to cut: each flow at its later end in write order, whose cost goes
  // to that event and whose drops the write pass decides. One part needs
  // neither: its flows are written (and checked) after all events.
  spill_sorter<mkey> flows(dir, quarter);  // each flow at its later end: its ends, size and string counts
  if (!direct) {
    std::string payload;
    MSPROF_TRY(each_text([&](const pkey& pk, const wkey& host, const wkey& dev, std::uint64_t renamed,
                             std::uint64_t invalid, std::string_view text) {
      payload.clear();
      put(payload, host);
      put(payload, dev);
      put(payload, static_cast<std::uint64_t>(text.size()));
      put(payload, renamed);
      put(payload, invalid);
      flows.push({std::max(host, dev), pk.hi, pk.lo}, payload);
      return true;
    }));
  }
  spill_sorter<pkey> dropped(dir, quarter);  // flows the write pass leaves out, in pair order
  std::vector<std::int64_t> steps = opt.step_starts_ns;
  std::sort(steps.begin(), steps.end());
  std::size_t step_at = 0;
  std::uint64_t total = 0, positions = 0;
  std::int64_t first_ts = 0, last_end = 0;  // of all events
  std::size_t n_slices = 0, n_instants = 0, n_counters = 0;
  std::set<wkey> shadowed;  // flow ends DevTools binds to an earlier slice
  {
    // Per thread the ends of the open slices, with the final durations: the depth DevTools draws.
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::int64_t>> open;
    std::pair<std::uint64_t, std::uint64_t> open_thread;
    std::vector<std::int64_t>* open_ends = nullptr;  // open[open_thread]
    std::vector<std::string> group_cats;
    wkey group{};
    bool have_group = false;
    wkey ck[2];
    mkey fk;
    wkey k;
    std::string_view cp[2], fp, p;
    bool have_c[2] = {claims[0].next(ck[0], cp[0]), claims[1].next(ck[1], cp[1])};
    bool have_f = flows.next(fk, fp);
    std::string text, claim_cat, ev;
    std::string default_cat_json, last_claim_cat, last_claim_json;
    std::size_t default_cat_invalid = 0, last_claim_invalid = 0;
    bool have_last_claim = false;
    append_string(default_cat_json, opt.default_cat, default_cat_invalid);
    wkey dk;
    std::string_view dp;
    bool have_d = durations.next(dk, dp);
    while (written.next(k, p)) {
      payload_reader r{p};
      const char ph = r.get<char>();
      std::int64_t dur = 0;
      if (ph != 'C') {
        if (have_d && dk < k) return make_error(errc::unsupported, "chrome trace: a clamped slice was not written");
        dur = -k.neg_dur;
        if (have_d && dk == k) {
          dur = from_bytes<std::int64_t>(dp);
          have_d = durations.next(dk, dp);
        }
      }
      const auto epid = ph == 'C' ? r.get<std::uint64_t>() : k.pid;
      const auto etid = ph == 'C' ? r.get<std::uint64_t>() : k.tid;
      const auto name = r.text();
      const auto args = r.in;
      bool is_end = false;
      for (int e = 0; e < 2; ++e) {
        for (; have_c[e] && ck[e] == k; have_c[e] = claims[e].next(ck[e], cp[e])) {
          claim_cat.assign(payload_reader{cp[e]}.text());  // cp is only valid until the next call
          is_end = true;
        }
      }
      const std::string_view cat = is_end ? std::string_view(claim_cat) : std::string_view(opt.default_cat);
      // DevTools binds a flow end to the first event in the file with the
      // same (ts, pid, tid, cat): two flow ends of one category starting
      // together on one thread lose the later one's flows.
      if (!have_group || group.ts != k.ts || group.pid != k.pid || group.tid != k.tid || group.cls != k.cls) {
        group = k;
        have_group = true;
        group_cats.clear();
      }
      if (is_end) {
        if (std::find(group_cats.begin(), group_cats.end(), cat) != group_cats.end())
          shadowed.insert(k);
        else
          group_cats.emplace_back(cat);
      }
      if (positions == 0) first_ts = last_end = k.ts;
      first_ts = std::min(first_ts, k.ts);
      last_end = std::max(last_end, k.ts + dur);
      size_rec rec;
      rec.offset = body.size();
      rec.key = k;
      rec.ts = k.ts;
      rec.end = k.ts + dur;
      // The event, straight into the part when there is one, else into the scratch file.
      std::string& out = direct ? direct_buf : ev;
      if (!direct) ev.clear();
      const std::size_t at = out.size();
      std::string_view cat_json;
      if (ph != 'C') {
        if (!is_end) {
          cat_json = default_cat_json;
          st.invalid_utf8 += default_cat_invalid;
        } else {
          if (!have_last_claim || claim_cat != last_claim_cat) {  // most flows share a category: escaped once
            have_last_claim = true;
            last_claim_cat = claim_cat;
            last_claim_json.clear();
            last_claim_invalid = 0;
            append_string(last_claim_json, claim_cat, last_claim_invalid);
          }
          cat_json = last_claim_json;
          st.invalid_utf8 += last_claim_invalid;
        }
      }
      {
        piece_writer w(out, 128 + name.size() + cat_json.size() + args.size() + 4 * number_room);
        w.sv(",\n{\"name\":"sv);
        w.sv(name);
        if (ph != 'C') {
          w.sv(",\"cat\":"sv);
          w.sv(cat_json);
        }
        w.sv(phase_text(ph));
        w.sv(",\"pid\":"sv);
        w.u64(epid);
        w.sv(",\"tid\":"sv);
        w.u64(etid);
        w.sv(",\"ts\":"sv);
        w.us3(k.ts - origin);
        if (ph == 'X') {
          w.sv(",\"dur\":"sv);
          w.us3(dur);
        }
        w.sv(args);
        w.ch('}');
        w.done();
      }
      rec.cost = out.size() - at;
      if (!direct) {
        body.append(ev);
      } else {
        if (direct_first) out.erase(at, 2);  // the first item has no ",\n"
        direct_first = false;
        if (direct_buf.size() >= (1u << 20) && !direct_emit()) return direct_failed();
      }
      if (ph != 'C') {
        if (!open_ends || open_thread != std::make_pair(k.pid, k.tid)) {  // a lookup only when the thread changes
          open_thread = {k.pid, k.tid};
          open_ends = &open[open_thread];
        }
        auto& ends = *open_ends;
        while (!ends.empty() && ends.back() <= k.ts) ends.pop_back();
        ends.push_back(k.ts + dur);
        st.max_depth = std::max(st.max_depth, ends.size());
      }
      if (ph == 'X') ++n_slices;
      else if (ph == 'C') ++n_counters;
      else ++n_instants;
      // The flows whose later end this is.
      for (; have_f && fk.at == k; have_f = flows.next(fk, fp)) {
        payload_reader fr{fp};
        const auto host = fr.get<wkey>();
        const auto dev = fr.get<wkey>();
        if (shadowed.count(host) || shadowed.count(dev)) {
          ++st.flows_unbindable;
          dropped.push({fk.hi, fk.lo, 0}, {});
          continue;
        }
        rec.cost += fr.get<std::uint64_t>() + 2;
        st.renamed += static_cast<std::size_t>(fr.get<std::uint64_t>());
        st.invalid_utf8 += static_cast<std::size_t>(fr.get<std::uint64_t>());
      }
      bool crossed = false;
      while (step_at < steps.size() && steps[step_at] <= k.ts) {
        ++step_at;
        crossed = true;
      }
      rec.boundary = crossed;
      total += rec.cost;
      if (!direct) index.append(bytes_of(rec));
      ++positions;
    }
    MSPROF_TRY(written.take_status());
    if (have_d) return make_error(errc::unsupported, "chrome trace: a clamped slice was not written");
    MSPROF_TRY(durations.take_status());
    MSPROF_TRY(claims[0].take_status());
    MSPROF_TRY(claims[1].take_status());
    MSPROF_TRY(flows.take_status());
  }
  // The flows kept by the write pass (parts), in pair order: fn(pair, host end, device end, text).
  auto each_flow = [&](auto&& fn) -> result<void> {
    pkey dk;
    std::string_view dp;
    bool have_drop = dropped.next(dk, dp);
    MSPROF_TRY(each_text([&](const pkey& pk, const wkey& host, const wkey& dev, std::uint64_t, std::uint64_t,
                             std::string_view text) {
      if (have_drop && !(pk < dk) && !(dk < pk)) {
        have_drop = dropped.next(dk, dp);
        return true;
      }
      return fn(pk, host, dev, text);
    }));
    if (have_drop) return make_error(errc::unsupported, "chrome trace: a dropped flow was not found");
    return dropped.take_status();
  };
  if (direct) {
    // The one part: the flows in pair order (DevTools binds an end shadowed by
    // an earlier flow end of its category to that one: such flows are
    // dropped), then otherData.
    stats final_st = st;
    final_st.slices = n_slices;
    final_st.instants = n_instants;
    final_st.counters = n_counters;
    final_st.metadata = meta_count;
    std::size_t events = meta_count + static_cast<std::size_t>(positions);
    MSPROF_TRY(each_text([&](const pkey&, const wkey& host, const wkey& dev, std::uint64_t renamed,
                             std::uint64_t invalid, std::string_view text) {
      if (!shadowed.empty() && (shadowed.count(host) || shadowed.count(dev))) {
        ++final_st.flows_unbindable;
        return true;
      }
      final_st.renamed += static_cast<std::size_t>(renamed);
      final_st.invalid_utf8 += static_cast<std::size_t>(invalid);
      if (!direct_first) direct_buf += ",\n"sv;
      direct_first = false;
      direct_buf += text;
      events += 2;
      ++final_st.flows_written;
      return direct_buf.size() < (1u << 20) || direct_emit();
    }));
    const std::vector<std::string> names{std::string(stem) + ".json"};
    direct_buf += tail_open;
    direct_buf += other_data(origin, final_st, session_start_ns, 0, names);
    direct_buf += tail_close;
    if (!direct_emit()) return direct_failed();
    if (direct_bytes > opt.max_part_bytes)  // the bound above is wrong: a bug
      return make_error(errc::unsupported, fmt::format("chrome trace: the one part took {} bytes, more than the {} allowed",
                                                       direct_bytes, opt.max_part_bytes));
    output out;
    out.origin_ns = origin;
    out.totals = final_st;
    part pt;
    pt.file_name = names[0];
    pt.bytes = direct_bytes;
    pt.events = events;
    if (positions > 0) {
      pt.first_ns = first_ts;
      pt.last_ns = last_end;
    }
    out.parts.push_back(std::move(pt));
    return out;
  }
  body.flush();
  index.flush();
  MSPROF_TRY(body.status());
  MSPROF_TRY(index.status());
  // The size index is read in order, 8192 records at a time.
  std::string chunk;
  std::uint64_t chunk_first = 0, chunk_n = 0;
  auto read_rec = [&](std::uint64_t pos, size_rec& rec) -> result<void> {
    if (pos < chunk_first || pos >= chunk_first + chunk_n) {
      chunk.clear();
      const std::uint64_t n = std::min<std::uint64_t>(8192, positions - pos);
      if (!index.read(pos * sizeof(size_rec), static_cast<std::size_t>(n * sizeof(size_rec)), chunk) ||
          chunk.size() != n * sizeof(size_rec))
        return make_error(errc::io, dir + ": cannot read back the chrome trace's size index");
      chunk_first = pos;
      chunk_n = n;
    }
    std::memcpy(&rec, chunk.data() + (pos - chunk_first) * sizeof rec, sizeof rec);
    return {};
  };
  const stats counted = st;  // the write pass must not count strings again

  // Parts: cut from the size index; grow the reserve for otherData until every part fits.
  struct cut {
    std::uint64_t begin, end;
  };
  std::vector<cut> cuts;
  std::vector<std::string> names;
  std::uint64_t reserve = 1024;
  std::size_t steps_split = 0;
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t whole = fixed + total + reserve;
    if (whole <= opt.max_part_bytes) {
      cuts = {{0, positions}};
    } else {
      if (opt.max_part_bytes <= fixed + reserve)
        return make_error(errc::limit, fmt::format("chrome trace: a part of at most {} bytes cannot hold the {} bytes "
                                                   "of metadata every part needs",
                                                   opt.max_part_bytes, fixed + reserve));
      const std::uint64_t budget = opt.max_part_bytes - fixed - reserve;
      steps_split = 0;
      cuts.clear();
      // prefix sums: acc since `begin` = sum(k) - sum(begin)
      std::uint64_t begin = 0, last_boundary = 0, sum = 0, sum_begin = 0, sum_boundary = 0;
      size_rec rec;
      for (std::uint64_t k = 0; k < positions; ++k) {
        MSPROF_TRY(read_rec(k, rec));
        if (rec.boundary) {
          last_boundary = k;
          sum_boundary = sum;
        }
        if (sum - sum_begin + rec.cost > budget && k > begin) {
          std::uint64_t at = k, sum_at = sum;
          if (!steps.empty()) {
            if (last_boundary > begin) {
              at = last_boundary;
              sum_at = sum_boundary;
            } else {
              ++steps_split;
            }
          }
          cuts.push_back({begin, at});
          begin = at;
          sum_begin = sum_at;
        }
        sum += rec.cost;
      }
      cuts.push_back({begin, positions});
    }
    names.clear();
    if (cuts.size() == 1) {
      names.push_back(std::string(stem) + ".json");
    } else {
      for (std::size_t k = 0; k < cuts.size(); ++k) names.push_back(fmt::format("{}_part{}.json", stem, k + 1));
    }
    std::uint64_t need = 0;
    stats probe = counted;
    probe.steps_split = steps_split;
    for (std::size_t k = 0; k < cuts.size(); ++k)
      need = std::max<std::uint64_t>(need, other_data(origin, probe, session_start_ns, k, names).size() + 64);
    if (need <= reserve || attempt == 8) break;
    reserve = need;
  }

  // Which part each flow end lands in (by the key of each part's first event):
  // flows need both ends in one part.
  std::vector<wkey> part_starts;
  for (std::size_t k = 1; k < cuts.size(); ++k) {
    size_rec rec;
    MSPROF_TRY(read_rec(cuts[k].begin, rec));
    part_starts.push_back(rec.key);
  }
  auto part_of = [&](const wkey& w) {
    return static_cast<std::uint64_t>(std::upper_bound(part_starts.begin(), part_starts.end(), w) - part_starts.begin());
  };
  stats final_st = counted;
  final_st.steps_split = steps_split;
  spill_sorter<part_key> part_flows(dir, quarter);
  std::vector<std::size_t> flows_in(cuts.size(), 0);
  {
    MSPROF_TRY(each_flow([&](const pkey& k, const wkey& host, const wkey& dev, std::string_view text) {
      const auto a = part_of(host), b = part_of(dev);
      if (a != b) {
        ++final_st.flows_cut;
        return true;
      }
      ++final_st.flows_written;
      ++flows_in[a];
      part_flows.push({a, k.hi, k.lo}, text);
      return true;
    }));
  }
  final_st.slices = n_slices;
  final_st.instants = n_instants;
  final_st.counters = n_counters;
  final_st.metadata = meta_count;

  // 5. Writing.
  output out;
  out.origin_ns = origin;
  out.totals = final_st;
  part_key fk;
  std::string_view fp;
  bool have_f = part_flows.next(fk, fp);
  std::string buf;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    part pt;
    pt.file_name = names[k];
    std::uint64_t bytes = 0;
    auto emit = [&]() -> bool {
      bytes += buf.size();
      const bool ok = emit_chunk(k, std::string_view(buf));
      buf.clear();
      return ok;
    };
    auto failed = [&] { return make_error(errc::io, fmt::format("{}: write failed", names[k])); };
    buf.assign(head);
    bool first = true;
    if (!meta_text.empty()) {
      buf.append(meta_text, 2, std::string::npos);
      first = false;
    }
    std::size_t events = meta_count;
    // The events: a range of the scratch file.
    std::uint64_t from = 0, to = 0;
    if (cuts[k].end > cuts[k].begin) {
      size_rec rec;
      MSPROF_TRY(read_rec(cuts[k].begin, rec));
      from = rec.offset;
      if (cuts[k].end < positions) {
        MSPROF_TRY(read_rec(cuts[k].end, rec));
        to = rec.offset;
      } else {
        to = body.size();
      }
      events += static_cast<std::size_t>(cuts[k].end - cuts[k].begin);
    }
    if (first && to > from) from += 2;  // no metadata before it: no leading ",\n"
    if (to > from) first = false;
    for (std::uint64_t at = from; at < to;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, 1u << 20));
      if (!body.read(at, n, buf)) return make_error(errc::io, dir + ": cannot read back the chrome trace's events");
      at += n;
      if (buf.size() >= (1u << 20) && !emit()) return failed();
    }
    for (; have_f && fk.part == k; have_f = part_flows.next(fk, fp)) {
      if (!first) buf += ",\n"sv;
      first = false;
      events += 2;
      buf += fp;
      if (buf.size() >= (1u << 20) && !emit()) return failed();
    }
    buf += tail_open;
    buf += other_data(origin, final_st, session_start_ns, k, names);
    buf += tail_close;
    if (!emit()) return failed();
    // The part's time range: of everything for one part, else from the size index.
    bool have_range = cuts.size() == 1 && positions > 0;
    if (have_range) {
      pt.first_ns = first_ts;
      pt.last_ns = last_end;
    }
    for (std::uint64_t j = cuts[k].begin; j < cuts[k].end && cuts.size() > 1; ++j) {
      size_rec rec;
      MSPROF_TRY(read_rec(j, rec));
      if (!have_range) {
        pt.first_ns = rec.ts;
        pt.last_ns = rec.end;
        have_range = true;
      }
      pt.first_ns = std::min(pt.first_ns, rec.ts);
      pt.last_ns = std::max(pt.last_ns, rec.end);
    }
    pt.bytes = bytes;
    pt.events = events;
    out.parts.push_back(std::move(pt));
  }
  MSPROF_TRY(part_flows.take_status());
  if (out.parts.size() > 1) {
    out.note_file = std::string(stem) + "_parts.txt";
    out.note = fmt::format(
        "The chrome trace is larger than {} bytes, so it was written as {} parts.\n"
        "Each part is a complete trace with all process and thread names; open them one at a time.\n"
        "Times are µs after ts_origin_ns = {} (otherData). Flows cut by a part boundary: {}.\n\n",
        opt.max_part_bytes, out.parts.size(), origin, final_st.flows_cut);
    for (const auto& pt : out.parts)
      out.note += fmt::format("{}\t{} bytes\t{} events\tts {:.3f} .. {:.3f} us\n", pt.file_name, pt.bytes, pt.events,
                              js_us(pt.first_ns - origin), js_us(pt.last_ns - origin));
  }
  return out;
}

trace_builder::trace_builder(const options& opt, const std::string& spill_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(opt, spill_dir, spill_budget)) {}

trace_builder::~trace_builder() = default;

void trace_builder::add(const trace_event& e, seq at) { p_->add(e, at); }

arg_writer& trace_builder::begin_slice(const slice_fields& s, seq at) { return p_->begin_slice(s, at); }

void trace_builder::end_slice() { p_->end_slice(); }

void trace_builder::add_flow(const flow_fields& f, seq at) { p_->add_flow(f, at); }

result<output> trace_builder::finish(std::int64_t session_start_ns, std::string_view stem,
                                     const chunk_output& emit_chunk) {
  return p_->finish(session_start_ns, stem, emit_chunk);
}

result<output> render_to(const std::vector<trace_event>& ev, std::int64_t session_start_ns, std::string_view stem,
                         const options& opt, const std::string& spill_dir, const chunk_output& emit_chunk) {
  trace_builder b(opt, spill_dir);
  for (std::size_t k = 0; k < ev.size(); ++k) b.add(ev[k], {0, k});
  return b.finish(session_start_ns, stem, emit_chunk);
}

}  // namespace detail

result<output> render(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                      std::string_view stem, const options& opt) {
  std::error_code ec;
  std::string tmp = std::filesystem::temp_directory_path(ec).string();
  if (ec) tmp = "/tmp";
  std::vector<std::string> texts;
  auto r = detail::render_to(events, session_start_ns, stem, opt, tmp, [&](std::size_t k, std::string_view chunk) {
    if (texts.size() <= k) texts.resize(k + 1);
    texts[k].append(chunk.data(), chunk.size());
    return true;
  });
  if (!r) return r;
  for (std::size_t k = 0; k < r->parts.size() && k < texts.size(); ++k) r->parts[k].text = std::move(texts[k]);
  return r;
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
