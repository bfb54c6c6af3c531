// SPDX-License-Identifier: MIT
// trace_view.json as torch_npu 9e73e708a writes it. TracePreParser writes the
// framework part (FwkFileParser.get_fwk_trace_data) without its closing "]";
// TraceViewParser appends "," and the CANN part (the msprof timeline JSON,
// pruned by level) and the torch_to_npu flows without the opening "[". Both
// are json.dumps text: ", " and ": " separators, UTF-8 as is. The CANN events
// come from the timeline collector (the same events as msprof_<ts>.json, kept
// in sorted runs while the PROF_ directory loads), each respaced; nothing is
// kept in memory but the framework-side indexes.
#include "msprof/convert/ascend_pt/trace_view.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "msprof/convert/export_files.hpp"
#include "msprof/core/json.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/convert/timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

/// The top-level array, streamed: ", " between events, flushed every MiB.
class event_list {
 public:
  event_list(std::string& buf, std::function<void()> flush) : buf_(buf), flush_(std::move(flush)) {}
  /// Where the next event goes.
  std::string& next() {
    if (buf_.size() >= (1u << 20)) flush_();
    if (count_++) buf_ += bare_comma_ ? "," : ", ";
    bare_comma_ = false;
    return buf_;
  }
  /// TraceViewParser appends its part after the framework part with a bare ",".
  void second_part() { bare_comma_ = true; }
  std::size_t count() const noexcept { return count_; }

 private:
  std::string& buf_;
  std::function<void()> flush_;
  std::size_t count_ = 0;
  bool bare_comma_ = false;
};

/// An object's members written as text with json.dumps' separators, for keys
/// that need no escaping: the writer's key per member was a fifth of the
/// file's time. close() ends the object.
class members {
 public:
  explicit members(std::string& out) : out_(out) { out_ += '{'; }
  /// `"k": `, after ", " but for the first member: the value follows.
  std::string& key(std::string_view k) {
    char text[72];  // the keys are short literals: one append
    if (k.size() > sizeof text - 6) {
      if (n_++) out_ += ", ";
      return ((out_ += '"') += k) += "\": ";
    }
    char* p = text;
    if (n_++) p = std::copy_n(", ", 2, p);
    *p++ = '"';
    p = std::copy_n(k.data(), k.size(), p);
    p = std::copy_n("\": ", 3, p);
    return out_.append(text, p);
  }
  void string(std::string_view k, std::string_view v) { append_json_string(key(k), v); }
  template <class Int>
  void number(std::string_view k, Int v) {
    char num[24];
    key(k).append(num, std::to_chars(num, num + sizeof num, v).ptr);
  }
  void close() { out_ += '}'; }

 private:
  std::string& out_;
  std::size_t n_ = 0;
};

/// `, "pid": P, "tid": T, "ts": "TS"` written at `p` (90 bytes at most); returns its end.
/// TS is torch_npu's convert_ns2us_str: the ns integer with a dot before its last 3 digits.
/// The events written most (X events and flows) put their numbers into one
/// buffer and append it once.
template <class Pid>
char* put_pid_tid_ts(char* p, Pid pid, std::uint64_t tid, std::int64_t ts) {
  const auto put = [&p](std::string_view s) { p = std::copy(s.begin(), s.end(), p); };
  put(", \"pid\": ");
  p = std::to_chars(p, p + 24, pid).ptr;
  put(", \"tid\": ");
  p = std::to_chars(p, p + 24, tid).ptr;
  put(", \"ts\": \"");
  p = put_ts_us(p, ts);
  *p++ = '"';
  return p;
}

/// TraceEventManager.create_x_event: ph, name, pid, tid, ts, dur, cat, args
/// (`args(members&)` writes the members of args). `pid` is signed: GC's may be -1.
/// `cat` is a literal that needs no escaping. `dur` is torch_npu's
/// convert_ns2us_float: float(ns / 1000).
template <class Args>
void x_event(event_list& ev, std::string_view name, std::int64_t pid, std::uint64_t tid, std::int64_t ts,
             std::int64_t dur, std::string_view cat, Args args) {
  std::string& out = ev.next();
  append_json_string(out += "{\"ph\": \"X\", \"name\": ", name);
  char nums[160];  // put_pid_tid_ts's, then the duration's
  char* p = std::copy_n(", \"dur\": ", 9, put_pid_tid_ts(nums, pid, tid, ts));
  if (char* end = put_dur_us(p, dur))
    out.append(nums, end);
  else
    out.append(nums, p) += dur_us_json(dur);
  ((out += ", \"cat\": \"") += cat) += "\", \"args\": ";
  members a(out);
  args(a);
  a.close();
  out += '}';
}

/// A flow end (torch_to_npu, enqueue_to_dequeue, fwdbwd): ph, bp, name, id, pid, tid, ts, cat. `ph`, `name`
/// and `cat` are literals that need no escaping.
void flow(event_list& ev, const char* ph, std::string_view name, std::int64_t id, std::uint64_t pid, std::uint64_t tid,
          std::int64_t ts, std::string_view cat) {
  std::string& out = ev.next();
  ((((out += "{\"ph\": \"") += ph) += "\", \"bp\": \"e\", \"name\": \"") += name) += "\", \"id\": ";
  char nums[160];  // the id, then put_pid_tid_ts's
  char* p = put_pid_tid_ts(std::to_chars(nums, nums + 24, id).ptr, pid, tid, ts);
  ((out.append(nums, p) += ", \"cat\": \"") += cat) += "\"}";
}

/// A metadata event: ph, name, pid, tid, args {key: value}.
template <class Value>
void meta(event_list& ev, std::string_view name, std::int64_t pid, std::uint64_t tid, std::string_view key,
          const Value& v) {
  members e(ev.next());
  e.string("ph", "M");
  e.string("name", name);
  e.number("pid", pid);
  e.number("tid", tid);
  members a(e.key("args"));
  if constexpr (std::is_convertible_v<Value, std::string_view>)
    a.string(key, std::string_view(v));
  else
    a.number(key, static_cast<std::int64_t>(v));
  a.close();
  e.close();
}

/// The process metadata torch_npu gives its own processes (labels "CPU").
void process_meta(event_list& ev, std::int64_t pid, std::string_view name, std::int64_t sort) {
  meta(ev, "process_name", pid, 0, "name", name);
  meta(ev, "process_labels", pid, 0, "labels", "CPU");
  meta(ev, "process_sort_index", pid, 0, "sort_index", sort);
}

/// Threads of the Python process in first-seen order; true: a dequeue thread
/// (a later enqueue or op on it makes it false again, as torch_npu's dict).
using thread_list = std::vector<std::pair<std::uint64_t, bool>>;
void see_thread(thread_list& t, std::uint64_t tid, bool dequeue, bool overwrite = true) {
  auto it = std::find_if(t.begin(), t.end(), [&](const auto& p) { return p.first == tid; });
  if (it == t.end())
    t.emplace_back(tid, dequeue);
  else if (overwrite)
    it->second = dequeue;
}

/// The framework part (FwkFileParser.get_fwk_trace_data): every op as cpu_op,
/// dequeue and enqueue spans with their enqueue_to_dequeue flow ends, the
/// Python process and thread metadata, fwdbwd flows, the Python tracer's
/// functions, garbage collections.
result<void> framework_events(event_list& ev, const pt_dir& d, const model& m) {
  if (!d.info.cpu) return {};
  std::uint64_t pid = 0;
  if (!d.ops.empty())
    pid = d.ops.front().pid;
  else if (!d.enqueue.empty())
    pid = d.enqueue.front().pid;
  else if (!d.dequeue.empty())
    pid = d.dequeue.front().pid;
  else
    return {};  // torch_npu: "framework data is empty"
  thread_list threads;
  // The latest-starting forward (fwd tid 0) and backward op of each sequence number.
  struct fwd_end {
    bool set = false;
    std::uint64_t pid = 0, tid = 0;
    std::int64_t ts = 0;
  };
  std::vector<std::pair<std::int64_t, std::array<fwd_end, 2>>> fwd;  // first-seen order
  std::unordered_map<std::int64_t, std::size_t> fwd_at;                // its index by sequence number
  item_lines_memo quoted(d.texts, true);
  auto ops = d.ops.each([&](const fw_op& o) {
    if (o.seq >= 0) {
      const auto [at, fresh] = fwd_at.try_emplace(o.seq, fwd.size());
      if (fresh) fwd.push_back({o.seq, {}});
      fwd_end& e = fwd[at->second].second[o.fwd_tid == 0 ? 0 : 1];
      if (!e.set || e.ts < o.start_ns) e = {true, o.pid, o.tid, o.start_ns};
    }
    see_thread(threads, o.tid, false);
    x_event(ev, d.texts[o.name], static_cast<std::int64_t>(o.pid), o.tid, o.start_ns, o.end_ns - o.start_ns, "cpu_op",
            [&](members& a) {
              a.number("Sequence number", o.seq);
              a.number("Fwd thread id", o.fwd_tid);
              // Only the fields the record carried (TorchOpBean.args).
              const auto lines = [&](const char* key, text_table::id text) { a.key(key) += quoted(text); };
              if (o.has_shapes) lines("Input Dims", o.input_shapes);
              if (o.has_dtypes) lines("Input type", o.input_dtypes);
              if (o.has_stack) lines("Call stack", o.call_stack);
              if (o.has_module) a.string("Module Hierarchy", d.texts[o.module_hierarchy]);
              if (o.has_flops) a.string("flops", d.texts[o.flops]);
            });
  });
  if (!ops) return ops;
  const auto queue_event = [&](const queue_span& q, std::string_view name, const char* cat, const char* ph) {
    x_event(ev, name, static_cast<std::int64_t>(q.pid), q.tid, q.ts, q.dur, cat,
            [&](members& a) { a.number("correlation_id", q.corr_id); });
    flow(ev, ph, "enqueue_to_dequeue", static_cast<std::int64_t>(q.corr_id), q.pid, q.tid, q.ts, "async_task_queue");
  };
  // An enqueue is named after the (last) dequeue of its correlation id: both
  // meet in a sorted run by id (dequeues first), and the dequeue's text goes
  // back to the enqueues' order through a second one. Each name is made once
  // per text.
  // By text id ("": not made yet); a vector, not a hash map: a lookup per
  // event. Its size is the highest dequeue text's id, below the texts held.
  std::vector<std::string> dequeue_names, enqueue_names;
  const auto named = [&](std::vector<std::string>& names, const char* prefix, text_table::id t) -> const std::string& {
    if (t >= names.size()) names.resize(std::size_t{t} + 1);
    if (names[t].empty()) names[t] = prefix + std::string(d.texts[t]);
    return names[t];
  };
  struct corr_key {
    std::uint64_t corr;
    std::uint8_t enqueue;
    bool operator<(const corr_key& b) const noexcept { return corr != b.corr ? corr < b.corr : enqueue < b.enqueue; }
  };
  spill_sorter<corr_key> by_corr(d.spill_dir, d.spill_budget);
  spill_sorter<std::uint64_t> names(d.spill_dir, d.spill_budget);  // enqueue number -> its dequeue's text, if any
  MSPROF_TRY(d.dequeue.each([&](const queue_span& q) {
    see_thread(threads, q.tid, true);
    queue_event(q, named(dequeue_names, "Dequeue@", q.name), "dequeue", "f");
    by_corr.push({q.corr_id, 0}, record_bytes(q.name));
  }));
  std::uint64_t n = 0;
  MSPROF_TRY(d.enqueue.each([&](const queue_span& q) { by_corr.push({q.corr_id, 1}, record_bytes(n++)); }));
  std::uint64_t corr = 0;
  std::optional<text_table::id> dequeue_text;  // of this correlation id
  MSPROF_TRY(by_corr.drain([&](const corr_key& k, std::string_view p) {
    if (k.corr != corr) dequeue_text.reset();
    corr = k.corr;
    if (!k.enqueue) {
      dequeue_text = from_bytes<text_table::id>(p);
      return;
    }
    names.push(from_bytes<std::uint64_t>(p), dequeue_text ? record_bytes(*dequeue_text) : std::string_view());
  }));
  std::uint64_t key = 0;
  std::string_view text;
  MSPROF_TRY(d.enqueue.each([&](const queue_span& q) {
    see_thread(threads, q.tid, false);
    names.next(key, text);  // one per enqueue, in their order
    if (text.empty())
      queue_event(q, "Enqueue", "enqueue", "s");
    else
      queue_event(q, named(enqueue_names, "Enqueue@", from_bytes<text_table::id>(text)), "enqueue", "s");
  }));
  MSPROF_TRY(names.take_status());
  for (const auto tid : python_function_threads(d)) see_thread(threads, tid, false, false);

  const auto spid = static_cast<std::int64_t>(pid);
  process_meta(ev, spid, "Python", 0);
  std::uint64_t max_tid = 0;
  for (const auto& t : threads) max_tid = std::max(max_tid, t.first);
  for (const auto& [tid, dequeue] : threads) {
    meta(ev, "thread_name", spid, tid, "name", "Thread " + std::to_string(tid));
    // Dequeue threads sort after every other thread.
    meta(ev, "thread_sort_index", spid, tid, "sort_index", dequeue ? max_tid + 1 : tid);
  }
  for (const auto& [seq, ends] : fwd) {
    if (!ends[0].set || !ends[1].set || ends[0].tid == ends[1].tid) continue;
    flow(ev, "s", "fwdbwd", seq, ends[0].pid, ends[0].tid, ends[0].ts, "fwdbwd");
    flow(ev, "f", "fwdbwd", seq, ends[1].pid, ends[1].tid, ends[1].ts, "fwdbwd");
  }
  MSPROF_TRY(python_functions(d, [&](const py_function& f) {
    x_event(ev, f.name, static_cast<std::int64_t>(f.pid), f.tid, f.ts, f.end - f.ts, "python_function",
            [&](members& a) {
              a.number("Python id", f.id);
              a.number("Python parent id", f.parent);
              if (f.module_id) a.number("Python module id", *f.module_id);
            });
  }));
  if (!d.gcs.empty()) {
    // pid formatted like CANN's with sort index 1 and the first device (-1
    // without one: Python's `|` with -1 gives -1); tid the raw pid.
    constexpr std::uint32_t gc_sort_index = 1;
    const auto gc_pid = [&](std::uint64_t raw) -> std::int64_t {
      if (m.session.devices.empty()) return -1;
      return static_cast<std::int64_t>((raw << 10) | (gc_sort_index << 5) | m.session.devices.front().id);
    };
    MSPROF_TRY(d.gcs.each([&](const gc_span& g) {
      x_event(ev, "GC", gc_pid(g.pid), g.pid, g.start_ns, g.end_ns - g.start_ns, "GC", [](members&) {});
    }));
    const std::int64_t gpid = gc_pid(d.gcs.front().pid);
    const std::uint64_t gtid = d.gcs.front().pid;
    process_meta(ev, gpid, "Python GC", gc_sort_index);
    meta(ev, "thread_name", gpid, gtid, "name", "Python GC");
    meta(ev, "thread_sort_index", gpid, gtid, "sort_index", gtid);
  }
  return {};
}

/// JSON's strings, byte after byte: whether a byte is outside them (their
/// quotes are in). The state carries over from one piece of text to the next.
struct string_tracker {
  bool in_string = false, escaped = false;  // escaped: the next byte follows a backslash in a string
  bool outside(char c) noexcept {
    if (escaped) {
      escaped = false;
    } else if (in_string) {
      escaped = c == '\\';
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else {
      return true;
    }
    return false;
  }
};

/// Walks compact JSON, skipping strings: at(i) for each character outside them.
template <class At>
void outside_strings(std::string_view json, At&& at) {
  string_tracker t;
  for (std::size_t i = 0; i < json.size(); ++i)
    if (t.outside(json[i])) at(i);
}

/// Event names and args.name values torch_npu drops from the CANN part at
/// Level0 (ProfilerConfig.LEVEL_TRACE_PRUNE_CONFIG): a name starting with one,
/// or an args.name equal to one.
constexpr std::array<std::string_view, 9> level0_prune = {"CANN", "AscendCL",   "Runtime",       "GE", "Node", "Model",
                                                          "Hccl", "acl_to_npu", "Communication@"};

/// Whether torch_npu drops this CANN event (msprof JSON) at Level0. Only an
/// event holding one of the keys after a quote can be, and only those are parsed.
bool pruned(std::string_view event) {
  bool maybe = false;
  for (const auto key : level0_prune) {
    for (auto at = event.find(key); at != std::string_view::npos && !maybe; at = event.find(key, at + 1))
      maybe = at > 0 && event[at - 1] == '"';
  }
  if (!maybe) return false;
  const auto v = json::parse(event, "trace event");
  if (!v) return false;
  const std::string name = v->get("name").as_string_or("");
  const json::value* args_name = v->get("args").find("name");
  for (const auto key : level0_prune) {
    if (std::string_view(name).substr(0, key.size()) == key) return true;
    if (args_name && args_name->is_string() && args_name->text() == key) return true;
  }
  return false;
}

/// The CANN events, as the timeline collector writes them (msprof JSON, comma
/// separated) into `buf`: json_output's flush, called between whole events,
/// hands them on respaced; at Level0 one by one, each unless pruned.
struct cann_events {
  event_list& ev;
  bool prune;
  std::string buf;
  void operator()() {
    std::string_view all = buf;
    if (!prune) {  // all the events at once: their commas get json.dumps' space as ev's do
      if (!all.empty() && all.back() == ',') all.remove_suffix(1);  // the one before the next chunk
      if (!all.empty()) append_spaced(ev.next(), all);
      buf.clear();
      return;
    }
    std::size_t start = 0;
    int depth = 0;
    outside_strings(all, [&](std::size_t i) {
      const char c = all[i];
      if (c == '{' || c == '[') {
        if (depth++ == 0) start = i;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        const std::string_view e = all.substr(start, i + 1 - start);
        if (!pruned(e)) append_spaced(ev.next(), e);
      }
    });
    buf.clear();
  }
};

}  // namespace

// Sixteen bytes at a time where the machine has SSE2: which bytes are in
// strings follows from the quotes (a prefix xor), so only the separators are
// visited one by one; a block with a backslash, and the last 16 to 31 bytes,
// go byte by byte. Each piece is copied by a 16-byte move into room made once
// (twice the text, and 16 bytes more). Byte by byte it took a sixth of
// trace_view.json's thread at 100 k ops.
void append_spaced(std::string& out, std::string_view json) {
  const std::size_t at = out.size();
  out.resize(at + 2 * json.size() + 16);
  char* o = out.data() + at;
  const char* in = json.data();
  const char* const end = in + json.size();
  string_tracker t;
  const auto byte = [&](char c) {
    *o++ = c;
    if (t.outside(c) && (c == ',' || c == ':')) *o++ = ' ';
  };
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), comma = _mm_set1_epi8(','),
                colon = _mm_set1_epi8(':');
  const auto mask = [](__m128i eq) { return static_cast<unsigned>(_mm_movemask_epi8(eq)); };
  // 32 bytes left at least: a piece's 16-byte move stays within the text.
  for (; end - in >= 32; in += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    if (t.escaped || mask(_mm_cmpeq_epi8(v, backslash)) != 0) {
      for (int i = 0; i < 16; ++i) byte(in[i]);
      continue;
    }
    // Bit i set: byte i is in a string (its opening quote included, its closing one not).
    unsigned strings = mask(_mm_cmpeq_epi8(v, quote));
    strings ^= strings << 1;
    strings ^= strings << 2;
    strings ^= strings << 4;
    strings ^= strings << 8;
    if (t.in_string) strings = ~strings;
    strings &= 0xFFFFu;
    t.in_string = (strings >> 15) != 0;
    unsigned separators = mask(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, colon))) & ~strings;
    unsigned from = 0;  // the block's first byte not yet copied
    for (; separators != 0; separators &= separators - 1) {
      const auto k = static_cast<unsigned>(__builtin_ctz(separators));
      std::memcpy(o, in + from, 16);
      o += k + 1 - from;
      *o++ = ' ';
      from = k + 1;
    }
    std::memcpy(o, in + from, 16);
    o += 16 - from;
  }
#endif
  for (; in < end; ++in) byte(*in);
  out.resize(static_cast<std::size_t>(o - out.data()));
}

result<void> write_trace_view(const outfile::dir& out, const pt_dir& d, const model& m, timeline_collector& cann,
                              relation& r) {
  return detail::write_stream_atomic(out, "trace_view.json", [&](std::string& buf, auto& flush) -> result<void> {
    buf += '[';
    event_list ev(buf, [&] { flush(); });
    MSPROF_TRY(framework_events(ev, d, m));
    if (ev.count()) ev.second_part();
    cann_events c{ev, d.info.level == "Level0", {}};
    detail::json_output<cann_events> dest{c.buf, c};
    MSPROF_TRY(cann.write_timeline(m, dest));
    c();
    // torch_to_npu: from each op to the kernels of the launches its own enqueues
    // (or, without a task queue, its own launches) bound; id = the kernel's ts.
    if (r.flows) {
      MSPROF_TRY(r.flows->drain([&](std::uint64_t, std::string_view p) {
        auto o = from_bytes<relation::flow_source>(p);
        for (std::size_t at = sizeof o; at + sizeof(relation::flow_target) <= p.size();
             at += sizeof(relation::flow_target)) {
          const auto k = from_bytes<relation::flow_target>(p.substr(at));
          flow(ev, "s", "torch_to_npu", k.ts, o.pid, o.tid, o.ts, "async_npu");
          flow(ev, "f", "torch_to_npu", k.ts, k.pid, k.tid, k.ts, "async_npu");
        }
      }));
    }
    buf += ']';
    return {};
  });
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
