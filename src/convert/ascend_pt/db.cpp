// SPDX-License-Identifier: MIT
// ascend_pytorch_profiler_{rank}.db and analysis.db (ascend_pt/db.hpp): the
// CANN tables by the msprof db writer, then torch_npu's framework tables
// (its DbParser, FwkApiDbParser, StepInfoDbParser, TraceStepTimeDbParser)
// added to the same file before it is renamed into place.
#include "msprof/convert/ascend_pt/db.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "msprof/convert/beside.hpp"
#include "msprof/convert/db.hpp"
#include "msprof/convert/export_files.hpp"
#include "msprof/convert/hccl.hpp"
#include "msprof/convert/hccl_analyze.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/timeline_event.hpp"
#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace {

namespace fs = std::filesystem;
using detail::db_value;
using rows = std::vector<std::vector<db_value>>;

constexpr std::int64_t first_string_id = std::int64_t{1} << 28;       // torch_npu START_STRING_ID_FWK_API
constexpr std::int64_t first_memory_string_id = std::int64_t{2} << 28;  // START_STRING_ID_MEMORY
constexpr std::int64_t first_fwk_connection = std::int64_t{5} << 28;  // START_CONNECTION_ID_FWK_API
constexpr std::int64_t invalid_string_id = 4294967295;                // DB_INVALID_VALUE: the id of ""
constexpr std::int64_t node_level = 10000;
enum api_type : std::int64_t { torch_op = 50001, task_queue = 50002, python_trace = 50003, mstx_op = 50004 };

std::int64_t global_tid(std::uint64_t pid, std::uint64_t tid) { return static_cast<std::int64_t>((pid << 32) | tid); }

/// A framework table's rows, never held whole: laid out as pages (given its
/// `columns`: created at its 4096th row or by finish(), when inserts of 4 Ki
/// rows created it, so the schema keeps its order; torch_npu writes no empty
/// framework table), or, for a table that exists already (`columns` nullptr),
/// inserted 4 Ki at a time. A value is stored as SQLite's affinity would
/// store it: an integer in a TEXT column as its decimal text. The first error
/// is kept for finish(). A table filled on another thread than the one SQLite
/// is used on is made `for_another_thread`: its pages are made at once, and
/// nothing reaches SQLite before finish() (back on SQLite's thread), its rows
/// for an existing table held until then.
class batched_table {
 public:
  enum use { this_thread, for_another_thread };
  batched_table(detail::paged_tables& out, std::string name, const char* columns, std::size_t ncols,
                use u = this_thread)
      : out_(out), name_(std::move(name)), columns_(columns), ncols_(ncols), deferred_(u == for_another_thread),
        cells_(ncols), texts_(ncols) {
    if (!columns_) return;
    // Each column's affinity from its declared type (https://sqlite.org/datatype3.html 3.1): TEXT or not.
    for (std::string_view c = columns_; !c.empty();) {
      const std::size_t comma = c.find(',');
      const std::string_view decl = c.substr(0, comma);
      text_.push_back(decl.find("TEXT") != std::string_view::npos || decl.find("CHAR") != std::string_view::npos ||
                      decl.find("CLOB") != std::string_view::npos);
      c = comma == std::string_view::npos ? std::string_view() : c.substr(comma + 1);
    }
    if (text_.size() != ncols_) status_ = make_error(errc::invalid_argument, name_ + ": " + std::to_string(text_.size()) +
                                                                                 " columns declared for rows of " + std::to_string(ncols_));
    if (deferred_ && status_) make_pages();
  }
  void add(std::vector<db_value>&& r) {
    if (!status_) return;
    if (!columns_) {
      batch_.push_back(std::move(r));
      if (!deferred_ && batch_.size() >= batch_rows) insert();
      return;
    }
    if (r.size() != ncols_) {
      status_ = make_error(errc::invalid_argument, name_ + ": a row of " + std::to_string(r.size()) + " values for " +
                                                       std::to_string(ncols_) + " columns");
      return;
    }
    if (!pages_ && !make_pages()) return;
    for (std::size_t k = 0; k < ncols_; ++k) set_cell(k, r[k]);
    put_row();
  }
  /// A row of `n` integers, NULL where bit k of `nulls` is set: the same
  /// cells as add()'s without a db_value each (most framework rows).
  void add_ints(const std::int64_t* v, std::size_t n, std::uint32_t nulls = 0) {
    if (!status_) return;
    if (!columns_ || n != ncols_) {
      status_ = make_error(errc::invalid_argument, name_ + ": a row of " + std::to_string(n) + " integers for " +
                                                       (columns_ ? std::to_string(ncols_) + " columns" : "its text"));
      return;
    }
    if (!pages_ && !make_pages()) return;
    for (std::size_t k = 0; k < n; ++k) {
      if (nulls & (1u << k))
        cells_[k] = detail::sqlite_cell::null_value();
      else
        set_int(k, v[k]);
    }
    put_row();
  }
  void add_ints(std::initializer_list<std::int64_t> v) { add_ints(v.begin(), v.size()); }
  result<void> finish() {
    if (!columns_) {
      insert();
    } else if (pages_ && pages_->rows() != 0 && status_) {
      if (!created_) create();
      if (status_) out_.add(name_, std::move(*pages_));
      pages_.reset();
    }
    return status_;
  }

 private:
  static constexpr std::size_t batch_rows = 1u << 12;
  void put_row() {
    if (!status_) return;
    pages_->row(cells_.data(), ncols_);
    if (!deferred_ && pages_->rows() == batch_rows) create();
  }
  bool make_pages() {
    auto p = out_.create();
    if (!p) {
      status_ = p.err();
      return false;
    }
    pages_.emplace(std::move(*p));
    return true;
  }
  void insert() {
    if (batch_.empty() || !status_) return;
    status_ = out_.db().insert(name_, ncols_, batch_);
    batch_.clear();
  }
  void create() {
    if (!created_ && status_) status_ = out_.db().exec("CREATE TABLE IF NOT EXISTS " + name_ + " (" + columns_ + ")");
    created_ = true;
  }
  void set_int(std::size_t k, std::int64_t i) {
    if (!text_[k]) {
      cells_[k] = detail::sqlite_cell::of(i);
      return;
    }
    std::string& t = texts_[k];  // its capacity is kept row to row
    t.resize(20);
    t.resize(static_cast<std::size_t>(std::to_chars(t.data(), t.data() + t.size(), i).ptr - t.data()));
    cells_[k] = detail::sqlite_cell::of(std::string_view(t));
  }
  /// cells_[k] for `v`, each branch storing it in place (a cell returned by
  /// value from several branches went through the stack: a stall per cell).
  void set_cell(std::size_t k, const db_value& v) {
    using c = detail::sqlite_cell;
    c& out = cells_[k];
    if (std::holds_alternative<std::monostate>(v)) {
      out = c::null_value();
    } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
      set_int(k, *i);
    } else if (const auto* d = std::get_if<double>(&v); d && !text_[k]) {
      out = c::of(*d);
    } else if (const auto* t = std::get_if<std::string>(&v); t && text_[k]) {
      out = c::of(std::string_view(*t));
    } else {
      // A real in a TEXT column, a text in a numeric one: SQLite's conversions, not made here (a writer's bug).
      status_ = make_error(errc::invalid_argument, name_ + ": column " + std::to_string(k + 1) + " gets a " +
                                                       (text_[k] ? "real for its TEXT affinity" : "text for its numeric affinity"));
      out = c::null_value();
    }
  }
  detail::paged_tables& out_;
  std::string name_;
  const char* columns_;
  std::size_t ncols_;
  bool deferred_;                        ///< made for_another_thread
  std::vector<bool> text_;               ///< each column's affinity: TEXT or numeric
  std::vector<detail::sqlite_cell> cells_;
  std::vector<std::string> texts_;       ///< integers of TEXT columns as text, for the row being added
  std::optional<detail::table_pages> pages_;
  rows batch_;
  bool created_ = false;
  result<void> status_;
};

/// torch_npu's string ids: from `first` in registration order ("" is never
/// registered: DB_INVALID_VALUE); their rows go to STRING_IDS.
struct string_ids {
  string_ids(batched_table& rows, std::int64_t first) : rows_(rows), first_(first) {}
  std::int64_t str(std::string_view s) {
    if (s.empty()) return invalid_string_id;
    const auto [it, fresh] = ids_.try_emplace(std::string(s), first_ + static_cast<std::int64_t>(ids_.size()));
    if (fresh) rows_.add({it->second, it->first});
    return it->second;
  }

 private:
  batched_table& rows_;
  std::int64_t first_;
  std::unordered_map<std::string, std::int64_t> ids_;
};

/// torch_npu's id managers of the framework tables: strings from 1 << 28,
/// connection-id lists and call chains numbered from 0; their rows go to
/// STRING_IDS, CONNECTION_IDS and PYTORCH_CALLCHAINS.
struct fwk_ids {
  fwk_ids(batched_table& s, batched_table& c, batched_table& cc)
      : strings(s, first_string_id), connection_rows(c), callchain_rows(cc) {}
  string_ids strings;
  batched_table& connection_rows;
  batched_table& callchain_rows;
  std::int64_t connections = 0, callchains = 0;

  std::int64_t str(std::string_view s) { return strings.str(s); }
  std::int64_t connection(const std::vector<std::int64_t>& ids) {
    for (auto c : ids) connection_rows.add_ints({connections, c});
    return connections++;
  }
  /// The id of op text `t` as a name, and as a ';'-separated list (NULL when
  /// empty) with one item a line (item_lines) as torch_npu shows them: each
  /// text made and hashed once.
  std::int64_t name(const text_table& texts, text_table::id t) {
    return memo(name_ids_, t, [&] { return str(texts[t]); });
  }
  std::optional<std::int64_t> list(const text_table& texts, text_table::id t) {
    if (texts[t].empty()) return std::nullopt;
    return memo(list_ids_, t, [&] { return str(item_lines(texts[t])); });
  }
  /// A task-queue span's name: "Dequeue@" or "Enqueue@" and the dequeue's op text `t`.
  std::int64_t dequeue_name(const text_table& texts, text_table::id t) {
    return memo(dequeue_ids_, t, [&] { return str("Dequeue@" + std::string(texts[t])); });
  }
  std::int64_t enqueue_name(const text_table& texts, text_table::id t) {
    return memo(enqueue_ids_, t, [&] { return str("Enqueue@" + std::string(texts[t])); });
  }
  /// A ';'-separated call stack (op text `t`, not empty), one row per frame
  /// (torch_npu splits the ";\r\n" it made of each ';').
  std::int64_t callchain(const text_table& texts, text_table::id t) {
    if (t >= stack_frames_.size()) stack_frames_.resize(std::size_t{t} + 1);
    auto& frames = stack_frames_[t];
    if (frames.empty())
      for (std::string_view stack = texts[t];;) {
        const std::size_t to = stack.find(';');
        frames.push_back(str(stack.substr(0, to)));
        if (to == std::string_view::npos) break;
        stack.remove_prefix(to + 1);
      }
    std::int64_t depth = 0;
    for (const auto f : frames) callchain_rows.add_ints({callchains, f, depth++});
    return callchains++;
  }

 private:
  template <class Make>
  static std::int64_t memo(std::vector<std::int64_t>& ids, text_table::id t, Make make) {
    if (t >= ids.size()) ids.resize(std::size_t{t} + 1, 0);  // 0: no string has that id
    if (ids[t] == 0) ids[t] = make();
    return ids[t];
  }
  std::vector<std::int64_t> name_ids_, list_ids_, dequeue_ids_, enqueue_ids_;
  std::vector<std::vector<std::int64_t>> stack_frames_;
};

}  // namespace

// Named (not anonymous): db_export::calls holds them.
namespace db_detail {
/// A CANN call a framework op can own: a node-level launch, or an mstx event.
struct cann_call {
  std::int64_t start = 0, end = 0, gtid = 0;
  std::int64_t connection = 0;
};
using span = std::pair<std::int64_t, std::int64_t>;
struct call_key {  ///< calls by start, then connection id
  std::int64_t start, connection;
  bool operator<(const call_key& b) const noexcept {
    return start != b.start ? start < b.start : connection < b.connection;
  }
};
struct connection_key {
  std::uint64_t connection;
  bool operator<(const connection_key& b) const noexcept { return connection < b.connection; }
};
struct device_key {  ///< op tasks by device, then start
  std::uint32_t device;
  std::int64_t start;
  bool operator<(const device_key& b) const noexcept { return device != b.device ? device < b.device : start < b.start; }
};
}  // namespace db_detail
using db_detail::call_key;
using db_detail::cann_call;
using db_detail::connection_key;
using db_detail::device_key;
using db_detail::span;

/// What the framework tables need of the CANN part, gathered window by window
/// (a row or two of numbers per launch and per task, in sorted runs; the CANN
/// tables themselves go into the file as the windows come).
struct db_export::calls {
  calls(const std::string& dir, std::size_t budget)
      : launches(dir, budget), mstx(dir, budget), node_calls(dir, budget), tasks(dir, budget), compute(dir, budget) {}
  spill_sorter<call_key> launches;         ///< node-level launch calls (cann_call)
  spill_sorter<call_key> mstx;             ///< mstx events (cann_call) by start (key connection 0: record order)
  spill_sorter<connection_key> node_calls;  ///< node-level calls (span: start, end)
  spill_sorter<connection_key> tasks;       ///< every task's span by its call's connection id
  spill_sorter<device_key> compute;         ///< op tasks' ends (std::int64_t)

  /// `links`: the framework's ops can link to calls (its CPU activity).
  void add(const model& w, bool links) {
    for (const auto& a : w.apis) {
      if (a.level != node_level) continue;
      const cann_call c{a.start_ns, a.end_ns, global_tid(w.session.pid, a.thread_id),
                        static_cast<std::int64_t>(a.connection_id)};
      node_calls.push({a.connection_id}, record_bytes(span{a.start_ns, a.end_ns}));
      if (links && a.name == "launch") launches.push({c.start, c.connection}, record_bytes(c));
    }
    if (links)
      for (const auto& e : w.mstx) {
        const cann_call c{e.start_ns, e.end_ns, global_tid(w.session.pid, e.tid),
                          static_cast<std::int64_t>(detail::mstx_connection_id(e))};
        mstx.push({c.start, 0}, record_bytes(c));
      }
    for (const auto& t : w.tasks) {
      tasks.push({t.connection_id}, record_bytes(span{t.start_ns, t.end_ns}));
      if (t.op) compute.push({t.device_id, t.start_ns}, record_bytes(t.end_ns));
    }
  }
};

namespace {

/// A PYTORCH_API row as numbers (startNs and endNs are TEXT columns: they go
/// in as decimal text); a column whose bit is set in `nulls` is NULL.
/// Trivially copyable: the rows wait in spilled lists for their place in the table.
struct api_row {
  enum col { start, end, gtid, connection, name, seq, fwd_tid, dtypes, shapes, callchain, type, count };
  std::int64_t v[count] = {};
  std::uint16_t nulls = 0;
  void set(col c, const std::optional<std::int64_t>& x) {
    if (x)
      v[c] = *x;
    else
      nulls = static_cast<std::uint16_t>(nulls | (1u << c));
  }
};

/// A span of the task queue as the binding reads it.
struct queue_times {
  std::int64_t start = 0, end = 0, gtid = 0;
};
/// The i-th dequeue and enqueue among those whose correlation id the other side has too.
struct queue_pair {
  queue_times deq, enq;
};

/// An op waiting for the CANN calls it owns: its row, the forward/backward id
/// (when it has one), then the calls' connection ids.
struct bound_op {
  api_row row;
  std::vector<std::int64_t> connections;
  std::int64_t start() const { return row.v[api_row::start]; }
  std::int64_t end() const { return row.v[api_row::end]; }
  std::int64_t gtid() const { return row.v[api_row::gtid]; }
};

/// What an op's sorted-run row holds (bound_op without the calls).
struct op_record {
  api_row row;
  std::int64_t pair = 0;
  bool has_pair = false;
};

struct no_key {
  bool operator<(const no_key&) const noexcept { return false; }  // push order
};
struct index_key {
  std::uint64_t i;
  bool operator<(const index_key& b) const noexcept { return i < b.i; }
};
struct start_key {
  std::int64_t start;
  bool operator<(const start_key& b) const noexcept { return start < b.start; }
};

/// Items of a run per thread (global tid): how many there are.
using thread_counts = std::unordered_map<std::int64_t, std::size_t>;

/// The items of a sorted run, numbered from 0 in its order, pulled as a
/// forward scan reaches them and let go (handed to `done`) once the scan's
/// cursor has passed them: torch_npu's list scans on the lists in memory,
/// holding only the part between the cursor and the farthest item looked at.
/// A scan that looks only for its thread's items stops past that thread's
/// last one (none_ahead), rather than read to the end of the run and hold it.
template <class T, class Key>
class run_window {
 public:
  run_window(spill_sorter<Key>& src, std::function<T(std::string_view)> decode, std::function<void(T&)> done,
             std::function<std::int64_t(const T&)> thread, const thread_counts& counts)
      : src_(src), decode_(std::move(decode)), done_(std::move(done)), thread_(std::move(thread)), counts_(counts) {}
  /// Item i (nullptr past the last); i must not be below the cursor.
  T* at(std::size_t i) {
    while (i >= base_ + buf_.size()) {
      Key k{};
      std::string_view p;
      if (!src_.next(k, p)) return nullptr;
      buf_.push_back(decode_(p));
      auto& s = pulled_[thread_(buf_.back())];
      ++s.n;
      s.last = base_ + buf_.size() - 1;
    }
    return &buf_[i - base_];
  }
  /// No item of thread `t` at or after i.
  bool none_ahead(std::int64_t t, std::size_t i) const {
    const auto c = counts_.find(t);
    if (c == counts_.end()) return true;
    const auto s = pulled_.find(t);
    return s != pulled_.end() && s->second.n == c->second && s->second.last < i;
  }
  /// Items before i are done.
  void done_before(std::size_t i) {
    for (; base_ < i && !buf_.empty(); ++base_) {
      done_(buf_.front());
      buf_.pop_front();
    }
  }
  /// Every item left is done; the first error reading the run, if any.
  result<void> finish() {
    while (at(base_)) done_before(base_ + 1);
    return src_.take_status();
  }

 private:
  spill_sorter<Key>& src_;
  std::function<T(std::string_view)> decode_;
  std::function<void(T&)> done_;
  std::function<std::int64_t(const T&)> thread_;
  const thread_counts& counts_;
  struct seen {
    std::size_t n = 0, last = 0;  ///< items pulled, the number of the last one
  };
  std::unordered_map<std::int64_t, seen> pulled_;
  std::deque<T> buf_;
  std::size_t base_ = 0;  ///< the number of buf_.front()
};

using op_window = run_window<bound_op, start_key>;
using pair_window = run_window<queue_pair, no_key>;

/// torch_npu get_torch_op_connection_ids_with_enqueue: the last op (start
/// order, from `from`) of the enqueue's thread that holds the enqueue gets the
/// id. Kept as torch_npu does it, including which index it appends to.
std::size_t bind_enqueue(op_window& ops, const queue_times& e, std::size_t from, std::int64_t id) {
  std::size_t last = from;
  bool found = false;
  for (std::size_t i = from;; ++i) {
    if (ops.none_ahead(e.gtid, i)) break;  // only other threads' ops: as at the end
    const bound_op* o = ops.at(i);
    if (!o) break;
    if (e.gtid != o->gtid() || e.start > o->end()) continue;
    if (e.start > o->start() && e.end < o->end()) {
      found = true;
      last = i;
    } else if (found) {
      break;
    }
    if (e.end < o->start()) {
      last = i;
      break;
    }
  }
  if (found) ops.at(last)->connections.push_back(id);
  return last;
}

/// torch_npu get_torch_op_connection_ids_with_task_queue: a CANN call inside a
/// dequeue (same thread, strictly inside) belongs to the op holding the
/// enqueue of the same position among the matched enqueues and dequeues.
result<void> bind_through_queue(pair_window& pairs, op_window& ops, spill_sorter<call_key>& calls) {
  std::size_t last_deq = 0, last_op = 0;
  return calls.drain([&](const call_key&, std::string_view call) {
    const auto c = record_from<cann_call>(call);
    for (std::size_t i = last_deq;; ++i) {
      if (pairs.none_ahead(c.gtid, i)) break;  // only other threads' dequeues: as at the end
      const queue_pair* p = pairs.at(i);
      if (!p) break;
      if (c.gtid != p->deq.gtid) continue;
      if (c.start > p->deq.start && c.end < p->deq.end) {
        last_deq = i;
        last_op = bind_enqueue(ops, p->enq, last_op, c.connection);
        break;
      }
      if (p->deq.start > c.end) {
        last_deq = i;
        break;
      }
    }
    pairs.done_before(last_deq);
    ops.done_before(last_op);
  });
}

/// torch_npu get_torch_op_connection_ids_without_task_queue: a launch belongs
/// to the innermost op of its thread holding it, found when the next op does not.
result<void> bind_direct(op_window& ops, spill_sorter<call_key>& calls) {
  bool found = false;
  std::size_t last = 0;
  return calls.drain([&](const call_key&, std::string_view call) {
    const auto c = record_from<cann_call>(call);
    for (std::size_t i = last;; ++i) {
      if (ops.none_ahead(c.gtid, i)) break;  // only other threads' ops: as at the end
      const bound_op* o = ops.at(i);
      if (!o) break;
      if (o->gtid() != c.gtid || c.start > o->end()) continue;
      if (c.start > o->start() && c.end < o->end()) {
        found = true;
        last = i;
      } else if (found) {
        ops.at(last)->connections.push_back(c.connection);
        found = false;
        break;
      }
      if (c.end < o->start()) {
        last = i;
        break;
      }
    }
    ops.done_before(last);
  });
}

/// Where fwk_apis' sorted runs go.
struct run_place {
  std::string dir;
  std::size_t budget;
};

/// The forward/backward connection id of each op that has one (torch_npu:
/// per sequence number, its last forward and last backward op, when both
/// exist, numbered from `first` in the order the sequence numbers first
/// appear), in a sorted run by the op's number in file order.
result<void> fwd_bwd_pairs(const pt_dir& d, std::int64_t first, spill_sorter<index_key>& out, const run_place& at) {
  struct seq_key {
    std::int64_t seq;
    std::uint64_t op;
    bool operator<(const seq_key& b) const noexcept { return seq != b.seq ? seq < b.seq : op < b.op; }
  };
  spill_sorter<seq_key> by_seq(at.dir, at.budget);
  std::uint64_t n = 0;
  MSPROF_TRY(d.ops.each([&](const fw_op& o) {
    const std::uint64_t i = n++;
    if (o.mstx || o.seq < 0) return;
    const bool fwd = o.fwd_tid == 0;
    by_seq.push({o.seq, i}, record_bytes(fwd));
  }));
  if (by_seq.size() == 0) return {};
  // The sequence numbers with both, by their first op: (forward op, backward op).
  struct both {
    std::uint64_t fwd, bwd;
  };
  spill_sorter<index_key> by_first(at.dir, at.budget);
  struct group {
    std::int64_t seq = 0;
    std::uint64_t first = 0;
    std::optional<std::uint64_t> fwd, bwd;
  } g;
  bool open = false;
  const auto close = [&] {
    if (open && g.fwd && g.bwd) by_first.push({g.first}, record_bytes(both{*g.fwd, *g.bwd}));
  };
  MSPROF_TRY(by_seq.drain([&](const seq_key& k, std::string_view p) {
    if (!open || k.seq != g.seq) {
      close();
      g = {k.seq, k.op, std::nullopt, std::nullopt};
      open = true;
    }
    (record_from<bool>(p) ? g.fwd : g.bwd) = k.op;
  }));
  close();
  std::int64_t next = first;
  return by_first.drain([&](const index_key&, std::string_view p) {
    const auto b = record_from<both>(p);
    out.push({b.fwd}, record_bytes(next));
    out.push({b.bwd}, record_bytes(next));
    ++next;
  });
}

/// PYTORCH_API rows into `apis`, the id tables' into `ids` (torch_npu
/// FwkFileParser.get_fwk_api, then FwkApiDbParser), in torch_npu's row order
/// (Python functions, enqueues, dequeues, ops, mstx ops) and with its ids,
/// none of them held: each list goes through sorted runs, and the binding of
/// CANN calls to ops holds only the ops and queue spans its scans are between.
result<void> fwk_apis(const pt_dir& d, db_export::calls& cann, fwk_ids& ids, batched_table& apis,
                      const run_place& at) {
  if (!d.info.cpu || (d.ops.empty() && d.enqueue.empty() && d.dequeue.empty())) return {};
  const std::uint64_t pid =
      !d.ops.empty() ? d.ops.front().pid : (!d.enqueue.empty() ? d.enqueue.front().pid : d.dequeue.front().pid);
  // The table's rows by section, each section's in the order they come.
  enum section : std::uint8_t { python_rows, enqueue_rows, dequeue_rows, op_rows, mstx_rows, sections };
  std::vector<spilled_list<api_row>> api_rows;
  for (int k = 0; k < sections; ++k) api_rows.emplace_back(at.dir, at.budget);
  const auto queue_row = [&](const queue_span& q, std::int64_t name) {
    api_row r;
    r.v[api_row::start] = q.ts;
    r.v[api_row::end] = q.ts + q.dur;
    r.v[api_row::gtid] = global_tid(pid, q.tid);
    r.v[api_row::connection] = ids.connection({static_cast<std::int64_t>(q.corr_id) + first_fwk_connection});
    r.v[api_row::name] = name;
    for (auto c : {api_row::seq, api_row::fwd_tid, api_row::dtypes, api_row::shapes, api_row::callchain})
      r.set(c, std::nullopt);
    r.v[api_row::type] = task_queue;
    return r;
  };

  // The task queue. Dequeues first (their strings and connection ids come
  // first); an enqueue is named after the last dequeue of its correlation id;
  // the matched ones (the other side has the id) pair up by position.
  struct corr_key {
    std::uint64_t corr;
    std::uint8_t enqueue;
    bool operator<(const corr_key& b) const noexcept { return corr != b.corr ? corr < b.corr : enqueue < b.enqueue; }
  };
  spill_sorter<corr_key> by_corr(at.dir, at.budget);  // a dequeue's number and text, an enqueue's number
  std::uint64_t n = 0;
  MSPROF_TRY(d.dequeue.each([&](const queue_span& q) {
    api_rows[dequeue_rows].push_back(queue_row(q, ids.dequeue_name(d.texts, q.name)));
    by_corr.push({q.corr_id, 0}, record_bytes(std::array<std::uint64_t, 2>{n++, q.name}));
  }));
  std::int64_t max_corr = -1;
  n = 0;
  MSPROF_TRY(d.enqueue.each([&](const queue_span& q) {
    by_corr.push({q.corr_id, 1}, record_bytes(n++));
    max_corr = std::max(max_corr, static_cast<std::int64_t>(q.corr_id));
  }));
  // By number: an enqueue's dequeue text (matched_deq), a dequeue's matched flag.
  struct matched_deq {
    std::uint32_t matched;  ///< a dequeue has its correlation id
    text_table::id name;    ///< the last such dequeue's text
  };
  spill_sorter<index_key> enq_info(at.dir, at.budget), deq_matched(at.dir, at.budget);
  {
    std::uint64_t corr = 0;
    bool any = false, has_enq = false;
    matched_deq deq{0, 0};            // of this correlation id so far
    std::vector<std::uint64_t> deqs;  // of this correlation id
    const auto close = [&] {
      for (const auto j : deqs) deq_matched.push({j}, record_bytes(has_enq));
      deqs.clear();
    };
    MSPROF_TRY(by_corr.drain([&](const corr_key& k, std::string_view p) {
      if (any && k.corr != corr) {
        close();
        deq = {0, 0};
        has_enq = false;
      }
      any = true;
      corr = k.corr;
      const auto j = record_from<std::uint64_t>(p);
      if (!k.enqueue) {
        deqs.push_back(j);
        deq = {1, static_cast<text_table::id>(record_from<std::array<std::uint64_t, 2>>(p)[1])};
        return;
      }
      has_enq = true;
      enq_info.push({j}, record_bytes(deq));
    }));
    close();
  }
  spill_sorter<no_key> matched_enq(at.dir, at.budget), pairs(at.dir, at.budget);
  thread_counts pair_threads;  // the pairs' dequeue threads
  {
    index_key k{};
    std::string_view p;
    MSPROF_TRY(d.enqueue.each([&](const queue_span& q) {
      if (!enq_info.next(k, p)) return;  // one per enqueue, in their order
      const auto deq = record_from<matched_deq>(p);
      api_rows[enqueue_rows].push_back(
          queue_row(q, deq.matched ? ids.enqueue_name(d.texts, deq.name) : ids.str("Enqueue")));
      if (deq.matched) matched_enq.push({}, record_bytes(queue_times{q.ts, q.ts + q.dur, global_tid(pid, q.tid)}));
    }));
    MSPROF_TRY(enq_info.take_status());
    no_key nk;
    std::string_view e;
    bool enqs_left = true;
    MSPROF_TRY(d.dequeue.each([&](const queue_span& q) {
      if (!deq_matched.next(k, p) || !p[0] || !enqs_left) return;
      if (!(enqs_left = matched_enq.next(nk, e))) return;
      pairs.push({}, record_bytes(queue_pair{{q.ts, q.ts + q.dur, global_tid(pid, q.tid)}, record_from<queue_times>(e)}));
      ++pair_threads[global_tid(pid, q.tid)];
    }));
    if (enqs_left)
      while (matched_enq.next(nk, e)) {
      }
    MSPROF_TRY(matched_enq.take_status());
    while (deq_matched.next(k, p)) {
    }
    MSPROF_TRY(deq_matched.take_status());
  }
  const bool queue = !d.enqueue.empty() && !d.dequeue.empty();

  // Ops in file order (their strings and call chains registered so), each to
  // its list: by start when its calls are bound (torch_npu sorts the list
  // then), else in file order. mstx_* ops apart (linked to MSTX_EVENTS, no
  // forward/backward pairs); forward/backward ids after the task queue's
  // correlation ids.
  spill_sorter<index_key> pair_of(at.dir, at.budget);
  MSPROF_TRY(fwd_bwd_pairs(d, max_corr + 1 + first_fwk_connection, pair_of, at));
  const bool bind_ops = cann.launches.size() > 0, bind_mstx = cann.mstx.size() > 0;
  spill_sorter<start_key> torch_ops(at.dir, at.budget), mstx_ops(at.dir, at.budget);
  thread_counts torch_threads, mstx_threads;
  {
    std::uint64_t i = 0;
    index_key pk{};
    std::string_view pp;
    bool pair_next = pair_of.next(pk, pp);
    MSPROF_TRY(d.ops.each([&](const fw_op& o) {
      op_record rec;
      api_row& a = rec.row;
      a.v[api_row::start] = o.start_ns;
      a.v[api_row::end] = o.end_ns;
      a.v[api_row::gtid] = global_tid(pid, o.tid);
      a.set(api_row::connection, std::nullopt);
      a.v[api_row::name] = ids.name(d.texts, o.name);
      a.v[api_row::seq] = o.seq;
      a.v[api_row::fwd_tid] = static_cast<std::int64_t>(o.fwd_tid);
      a.set(api_row::dtypes, ids.list(d.texts, o.input_dtypes));
      a.set(api_row::shapes, ids.list(d.texts, o.input_shapes));
      if (d.texts[o.call_stack].empty())
        a.set(api_row::callchain, std::nullopt);
      else
        a.v[api_row::callchain] = ids.callchain(d.texts, o.call_stack);
      a.v[api_row::type] = torch_op;
      if (pair_next && pk.i == i) {
        rec.pair = record_from<std::int64_t>(pp);
        rec.has_pair = true;
        pair_next = pair_of.next(pk, pp);
      }
      ++i;
      const bool sorted = o.mstx ? bind_mstx : bind_ops;
      (o.mstx ? mstx_ops : torch_ops).push({sorted ? o.start_ns : 0}, record_bytes(rec));
      ++(o.mstx ? mstx_threads : torch_threads)[a.v[api_row::gtid]];
    }));
    while (pair_next) pair_next = pair_of.next(pk, pp);
    MSPROF_TRY(pair_of.take_status());
  }
  MSPROF_TRY(python_functions(d, [&](const py_function& c) {
    api_row r;
    r.v[api_row::start] = c.ts;
    r.v[api_row::end] = c.end;
    r.v[api_row::gtid] = global_tid(c.pid, c.tid);
    r.v[api_row::name] = ids.str(c.name);
    for (auto col : {api_row::connection, api_row::seq, api_row::fwd_tid, api_row::dtypes, api_row::shapes,
                     api_row::callchain})
      r.set(col, std::nullopt);
    r.v[api_row::type] = python_trace;
    api_rows[python_rows].push_back(r);
  }));

  // The calls bound to the ops; each op's row goes out once no scan can reach it.
  const auto decode = [](std::string_view p) {
    const auto rec = record_from<op_record>(p);
    bound_op b{rec.row, {}};
    if (rec.has_pair) b.connections.push_back(rec.pair);
    return b;
  };
  const auto out = [&](std::uint8_t s) {
    return [&, s](bound_op& b) {
      if (!b.connections.empty()) {
        b.row.v[api_row::connection] = ids.connection(b.connections);
        b.row.nulls = static_cast<std::uint16_t>(b.row.nulls & ~(1u << api_row::connection));
      }
      api_rows[s].push_back(b.row);
    };
  };
  const auto op_thread = [](const bound_op& o) { return o.gtid(); };
  const auto pair_thread = [](const queue_pair& p) { return p.deq.gtid; };
  // The pairs go through twice when mstx ops are bound too.
  spill_sorter<no_key> pairs_again(at.dir, at.budget);
  const bool mstx_through_queue = queue && bind_mstx && mstx_ops.size() > 0;
  {
    op_window ops(torch_ops, decode, out(op_rows), op_thread, torch_threads);
    pair_window qp(
        pairs, [](std::string_view p) { return record_from<queue_pair>(p); },
        [&](queue_pair& p) {
          if (mstx_through_queue) pairs_again.push({}, record_bytes(p));
        },
        pair_thread, pair_threads);
    if (torch_ops.size() > 0 && bind_ops) {
      MSPROF_TRY(queue ? bind_through_queue(qp, ops, cann.launches) : bind_direct(ops, cann.launches));
    }
    MSPROF_TRY(ops.finish());
    MSPROF_TRY(qp.finish());
  }
  {
    op_window ops(mstx_ops, decode, out(mstx_rows), op_thread, mstx_threads);
    pair_window qp(
        pairs_again, [](std::string_view p) { return record_from<queue_pair>(p); }, [](queue_pair&) {}, pair_thread,
        pair_threads);
    if (mstx_through_queue) MSPROF_TRY(bind_through_queue(qp, ops, cann.mstx));
    MSPROF_TRY(ops.finish());
    MSPROF_TRY(qp.finish());
  }
  for (const auto& rows : api_rows)
    MSPROF_TRY(rows.each([&](const api_row& r) { apis.add_ints(r.v, api_row::count, r.nulls); }));
  return {};
}

/// The ProfilerStep ops at the top of the op tree (torch_npu is_profiler_step).
std::vector<const fw_op*> step_ops(const relation& rel) {
  std::vector<const fw_op*> out;
  for (const auto& s : rel.steps) out.push_back(&s.op);
  return out;
}

/// StepTraceTime rows (torch_npu StepInfoDbParser.get_step_range, then
/// TraceStepTimeDbParser) from the CANN data alone: each step's device range
/// spans the tasks of the node-level calls inside the step op (to at least the
/// op's end); computing, communication and free time come from the compute
/// tasks and the collectives starting in it. The calls meet their
/// tasks by connection id, then the steps by start; the compute tasks meet the
/// ranges by start: sorted runs, with only the steps and ranges in memory.
result<rows> step_trace_rows(const pt_dir& d, db_export::calls& cann, const relation& rel, const run_place& at,
                             const hccl::communication* comm) {
  constexpr std::int64_t forever = std::numeric_limits<std::int64_t>::max();
  const auto join = [](std::optional<span>& into, const span& s) {
    into = into ? span{std::min(into->first, s.first), std::max(into->second, s.second)} : s;
  };
  // Each node-level call with tasks: its span and its tasks' span, by the call's start.
  struct call_tasks {
    span call, tasks;
  };
  spill_sorter<start_key> calls(at.dir, at.budget);
  {
    connection_key tk{};
    std::string_view tp;
    bool more = cann.tasks.next(tk, tp);
    std::optional<std::uint64_t> of;  // the connection id `tasks` is of
    std::optional<span> tasks;
    MSPROF_TRY(cann.node_calls.drain([&](const connection_key& k, std::string_view p) {
      if (of != k.connection) {
        tasks.reset();
        for (; more && tk.connection <= k.connection; more = cann.tasks.next(tk, tp))
          if (tk.connection == k.connection) join(tasks, record_from<span>(tp));
        of = k.connection;
      }
      const auto c = record_from<span>(p);
      if (tasks) calls.push({c.first}, record_bytes(call_tasks{c, *tasks}));
    }));
    while (more) more = cann.tasks.next(tk, tp);
    MSPROF_TRY(cann.tasks.take_status());
  }
  // Tasks of the node-level calls in [step start, step end] (ending by then too).
  const auto& steps = rel.steps;  // by start
  std::vector<std::optional<span>> step_tasks(std::max<std::size_t>(steps.size(), 1));
  {
    std::size_t next = 0;
    std::vector<std::size_t> active;  // steps started, not ended
    MSPROF_TRY(calls.drain([&](const start_key&, std::string_view p) {
      const auto c = record_from<call_tasks>(p);
      if (steps.empty()) return join(step_tasks[0], c.tasks);
      for (; next < steps.size() && steps[next].op.start_ns <= c.call.first; ++next) active.push_back(next);
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](std::size_t i) { return steps[i].op.end_ns < c.call.first; }),
                   active.end());
      for (const auto i : active)
        if (c.call.second <= steps[i].op.end_ns) join(step_tasks[i], c.tasks);
    }));
  }
  struct range {
    db_value id;
    std::int64_t start = 0, end = 0, fwk_start = 0;
    bool has_step = false;
  };
  std::vector<range> ranges;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const fw_op& s = steps[i].op;
    const auto& t = step_tasks[i];
    ranges.push_back({step_id(rel, s), t ? t->first : s.start_ns, std::max(t ? t->second : -1, s.end_ns), s.start_ns, true});
  }
  if (steps.empty()) ranges.push_back({std::monostate{}, step_tasks[0] ? step_tasks[0]->first : 0, forever, 0, false});
  std::optional<std::int64_t> first_op;  // the first non-mstx op (torch_npu's torch op list)
  auto read = d.ops.each([&](const fw_op& o) {
    if (!o.mstx && (!first_op || o.start_ns < *first_op)) first_op = o.start_ns;
  });
  if (!read) return read.err();

  // Per device, each range's compute tasks (starting in [start, end)) merged
  // as they come by start, and laid with its collectives (starting in it,
  // merged) over one timeline as torch_npu's pipeline overlap does: each
  // interval by start (a collective before a compute interval of the same
  // start) against what is left of the previous one.
  struct lane {
    std::int64_t b, e;
    bool comm;
  };
  struct merged {
    std::vector<span> comm;  ///< the range's collectives on the device, merged
    std::size_t next_comm = 0;
    std::int64_t comm_total = 0, bubble = 0;
    bool any = false;
    std::int64_t from = 0, to = 0;  ///< the compute interval being merged
    std::int64_t first = 0, busy = 0;
    bool open = false;
    lane cur{};  ///< what is left of the last interval laid
    std::int64_t free = 0, pure = 0, lo = 0, hi = 0;
    void lay(lane t) {
      lo = open ? std::min(lo, t.b) : t.b;
      hi = open ? std::max(hi, t.e) : t.e;
      if (!open) {
        open = true;
        cur = t;
      } else if (cur.e < t.b) {
        free += t.b - cur.e;
        if (cur.comm) pure += cur.e - cur.b;
        cur = t;
      } else if (cur.e < t.e) {
        if (cur.comm) {
          pure += t.b - cur.b;
          cur = {cur.e, t.e, false};
        }
        if (t.comm) cur = {cur.e, t.e, true};
      } else {
        if (cur.comm) {
          pure += t.b - cur.b;
          cur = {t.e, cur.e, true};
        }
        if (t.comm) cur = {t.e, cur.e, false};
      }
    }
    void comm_until(std::int64_t at) {
      for (; next_comm < comm.size() && comm[next_comm].first <= at; ++next_comm)
        lay({comm[next_comm].first, comm[next_comm].second, true});
    }
    void close_compute() {
      comm_until(from);
      lay({from, to, false});
      busy += to - from;
    }
    void add(std::int64_t b, std::int64_t e) {
      if (any && b <= to) {
        to = std::max(to, e);
        return;
      }
      if (any)
        close_compute();
      else
        first = b;
      any = true;
      from = b;
      to = e;
    }
    void finish() {
      if (any) close_compute();
      comm_until(std::numeric_limits<std::int64_t>::max());
      if (open && cur.comm) pure += cur.e - cur.b;
    }
  };
  std::vector<std::size_t> by_start(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t a, std::size_t b) { return ranges[a].start < ranges[b].start; });
  const auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  // The collectives by device, then start.
  std::map<std::uint32_t, std::vector<const hccl::comm_op*>> comm_ops;
  if (comm)
    for (const auto& op : comm->ops) comm_ops[op.device_id].push_back(&op);
  for (auto& dev : comm_ops)
    std::stable_sort(dev.second.begin(), dev.second.end(),
                     [](const hccl::comm_op* a, const hccl::comm_op* b) { return a->start_ns < b->start_ns; });
  rows out;
  std::vector<merged> state(ranges.size());
  std::vector<std::size_t> active;
  std::size_t next = 0;
  std::optional<std::uint32_t> device;
  const auto open_device = [&](std::uint32_t d) {
    device = d;
    state.assign(ranges.size(), merged{});
    active.clear();
    next = 0;
    const auto ops = comm_ops.find(d);
    if (ops == comm_ops.end()) return;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      merged& m = state[i];
      for (const hccl::comm_op* op : ops->second) {
        if (op->start_ns < ranges[i].start || op->start_ns >= ranges[i].end) continue;
        if (op->name.rfind("hcom_receive", 0) == 0) m.bubble += op->end_ns - op->start_ns;
        if (!m.comm.empty() && op->start_ns <= m.comm.back().second)
          m.comm.back().second = std::max(m.comm.back().second, op->end_ns);
        else
          m.comm.emplace_back(op->start_ns, op->end_ns);
      }
      for (const auto& c : m.comm) m.comm_total += c.second - c.first;
    }
  };
  const auto device_rows = [&] {
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const range& r = ranges[i];
      merged& m = state[i];
      m.finish();
      const std::int64_t stage = (m.open ? m.hi - m.lo : 0) - m.bubble;
      // The first compute interval's start, or an earlier collective's.
      std::int64_t first = m.any ? m.first : 0;
      if (!m.comm.empty() && m.comm.front().first < first) first = m.comm.front().first;
      std::int64_t prepare = 0;
      if (first != 0) prepare = first - (r.has_step ? r.fwk_start : first_op.value_or(first));
      out.push_back({static_cast<std::int64_t>(*device), r.id, us(m.busy), us(m.pure), us(m.comm_total - m.pure),
                     us(m.comm_total), us(m.free), us(stage), us(m.bubble), us(std::max<std::int64_t>(m.pure - m.bubble, 0)),
                     us(prepare)});
    }
  };
  // Devices with collectives but no compute task get their rows too, in device order.
  auto comm_device = comm_ops.begin();
  const auto devices_before = [&](std::optional<std::uint32_t> d) {
    for (; comm_device != comm_ops.end() && (!d || comm_device->first < *d); ++comm_device) {
      if (device && comm_device->first <= *device) continue;
      open_device(comm_device->first);
      device_rows();
    }
  };
  MSPROF_TRY(cann.compute.drain([&](const device_key& k, std::string_view p) {
    if (device != k.device) {
      if (device) device_rows();
      devices_before(k.device);
      open_device(k.device);
    }
    for (; next < by_start.size() && ranges[by_start[next]].start <= k.start; ++next) active.push_back(by_start[next]);
    active.erase(std::remove_if(active.begin(), active.end(), [&](std::size_t i) { return ranges[i].end <= k.start; }),
                 active.end());
    const auto end = record_from<std::int64_t>(p);
    for (const auto i : active) state[i].add(k.start, end);
  }));
  if (device) device_rows();
  devices_before(std::nullopt);
  return out;
}

/// META_DATA rows torch_npu adds: the analysing process's environment
/// (its collect_env_vars list) and each profiler_metadata.json member, as json.dumps writes them.
rows meta_rows(const pt_dir& d, std::vector<std::string>& warnings) {
  static const char* const env_names[] = {"ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC",           "HCCL_RDMA_SL",
                                          "ACLNN_CACHE_LIMIT",       "HOST_CACHE_CAPACITY",    "ASCEND_ENHANCE_ENABLE",
                                          "PYTORCH_NPU_ALLOC_CONF",  "ASCEND_LAUNCH_BLOCKING", "HCCL_ALGO"};
  json::value env = json::value::make_object();
  for (const char* n : env_names) {
    const char* v = std::getenv(n);
    env.set(n, json::value::make_string(v ? v : ""));
  }
  std::string text;
  json::dump(env, text);
  rows out{{std::string("ENV_VARIABLES"), text}};
  const std::string file = (fs::path(d.dir) / "profiler_metadata.json").string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  auto body = read_file(file);
  if (!body) {
    warnings.push_back(body.err().message + "; its META_DATA rows are left out");
    return out;
  }
  auto doc = json::parse(*body, file);
  if (!doc || !doc->is_object()) {
    warnings.push_back((doc ? file + ": not a JSON object" : doc.err().message) + "; its META_DATA rows are left out");
    return out;
  }
  for (const auto& [key, value] : doc->members()) {
    text.clear();
    json::dump(value, text);
    out.push_back({key, text});
  }
  return out;
}

/// Writes one SQLite file into `out` under a temporary name, renamed when `fill` succeeded.
template <class F>
result<std::string> write_sqlite(const outfile::dir& out, const std::string& name, F fill) {
  auto f = outfile::atomic_file::create(out, name);
  if (!f) return f.err();
  MSPROF_TRY(fill(detail::sqlite_path(out, *f)));
  MSPROF_TRY(f->commit());
  return (fs::path(out.path()) / name).string();
}

result<void> create_and_fill(detail::sqlite_db& db, const std::string& table, const char* columns, std::size_t ncols,
                             const rows& r) {
  MSPROF_TRY(db.exec("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ")"));
  return db.insert(table, ncols, r);
}

/// An optional number as a db value (unset: NULL).
db_value or_null(const std::optional<std::int64_t>& v) { return v ? db_value(*v) : db_value(std::monostate{}); }

/// A row's cells built in place (an initializer list of variants copies
/// them, and GCC's -O3 then warns of an uninitialized string in the copies).
template <class... V>
std::vector<db_value> db_row(V&&... v) {
  std::vector<db_value> r;
  r.reserve(sizeof...(V));
  (r.emplace_back(std::forward<V>(v)), ...);
  return r;
}

/// A GE memory record of the db (torch_npu reads CANN's NPU_OP_MEM back):
/// local ns and bytes.
struct ge_db_record {
  std::int64_t time, allocated, reserved, device;
};
struct ge_db_key {
  std::int64_t time;
  std::uint64_t n;
  bool operator<(const ge_db_key& o) const noexcept { return time != o.time ? time < o.time : n < o.n; }
};

/// The CANN STRING_IDS id of each op name (NPU_OP_MEM's operatorName, which
/// torch_npu copies into OP_MEMORY as it is), looked up in the db's CANN part.
class cann_string_ids {
 public:
  explicit cann_string_ids(sqlite3* db) {
    sqlite3_prepare_v2(db, "SELECT id FROM STRING_IDS WHERE value = ?1 AND id < 268435456", -1, &st_, nullptr);
  }
  ~cann_string_ids() { sqlite3_finalize(st_); }
  cann_string_ids(const cann_string_ids&) = delete;
  cann_string_ids& operator=(const cann_string_ids&) = delete;
  /// The id; none when the CANN part lacks the string.
  std::optional<std::int64_t> id(const std::string& s) {
    auto it = cache_.find(s);
    if (it != cache_.end()) return it->second;
    std::optional<std::int64_t> v;
    if (st_) {
      sqlite3_reset(st_);
      sqlite3_bind_text(st_, 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      if (sqlite3_step(st_) == SQLITE_ROW) v = static_cast<std::int64_t>(sqlite3_column_int64(st_, 0));
    }
    cache_.emplace(s, v);
    return v;
  }

 private:
  sqlite3_stmt* st_ = nullptr;
  std::unordered_map<std::string, std::optional<std::int64_t>> cache_;  // one entry per distinct op name
};

/// OP_MEMORY's GE blocks (torch_npu's get_ge_op_mem_data on NPU_OP_MEM): the
/// events from the collection start on, paired as the CANN summary pairs them.
result<void> ge_op_memory(batched_table& ops, sqlite3* db, const pt_dir& d, const model& m) {
  cann_string_ids names(db);
  std::vector<std::string> reported;  // the CANN tables' writer reported these
  std::vector<std::uint32_t> devices;
  const auto i64 = [](std::uint64_t v) { return db_value(static_cast<std::int64_t>(v)); };
  return for_each_ge_op_memory(
      d.prof_dir, reported, devices,
      [&](const ge_memory_event& a, const ge_memory_event* r) -> result<void> {
        std::vector<db_value> row(15, db_value(std::monostate{}));
        row[0] = or_null(names.id(a.name));
        row[1] = a.size;
        row[2] = a.time_ns;
        row[7] = i64(a.allocated);
        row[8] = i64(a.reserved);
        row[14] = std::int64_t{a.device_id};
        if (r) {
          row[3] = r->time_ns;
          row[5] = r->time_ns - a.time_ns;
          row[10] = i64(r->allocated);
          row[11] = i64(r->reserved);
        }
        ops.add(std::move(row));
        return {};
      },
      m.session.start_ns);
}

/// torch_npu's MemoryDbParser: MEMORY_RECORD and OP_MEMORY, each only when it
/// has rows, from the rows the text tables show (bytes and ns instead of MB,
/// KB and us), with GE's memory from CANN's NPU_OP_MEM (the events from the
/// collection start on, local ns). Their strings (components, op names) take
/// ids from 2 << 28 in its order: "GE" when there are GE records, the records'
/// components as the records first show them, "WORKSPACE" (its merge asks for
/// it), "PTA+GE", then the PTA op names by row. MEMORY_RECORD: the PTA and GE
/// records merged by time as in the text export (each with its PTA+GE row,
/// summed with the last record of the other kind on its device); OP_MEMORY:
/// the PTA blocks, then GE's (op name as CANN's string id, release minus
/// allocation as the duration; NULLs for what GE lacks). Their strings come
/// after the other framework tables' in STRING_IDS, and nothing of them needs
/// those tables: made on SQLite's thread, they are filled (fill) beside them,
/// then finish() writes them there.
class memory_tables {
 public:
  explicit memory_tables(detail::paged_tables& tables)
      : strings_(tables, "STRING_IDS", nullptr, 2, batched_table::for_another_thread),
        records_(tables, "MEMORY_RECORD",
                 "component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER, "
                 "totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER",
                 7, batched_table::for_another_thread),
        ops_(tables, "OP_MEMORY",
             "name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER, "
             "activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, "
             "allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, "
             "allocationTotalActive INTEGER, releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, "
             "releaseTotalActive INTEGER, streamPtr INTEGER, deviceId INTEGER",
             15, batched_table::for_another_thread) {}
  /// The rows, on any thread; GE's blocks wait for finish() (their names are the CANN tables').
  result<void> fill(const pt_dir& d, const model& m, const spilled_list<op_memory_row>& op_rows);
  /// The tables, on SQLite's thread (`db` holds CANN's strings).
  result<void> finish(sqlite3* db, const pt_dir& d, const model& m) {
    MSPROF_TRY(records_.finish());
    if (has_ge_) MSPROF_TRY(ge_op_memory(ops_, db, d, m));
    return ops_.finish();
  }
  /// Their strings, on SQLite's thread after the other framework tables'.
  result<void> finish_strings() { return strings_.finish(); }

 private:
  batched_table strings_, records_, ops_;
  bool has_ge_ = false;
};

result<void> memory_tables::fill(const pt_dir& d, const model& m, const spilled_list<op_memory_row>& op_rows) {
  string_ids ids(strings_, first_memory_string_id);
  std::vector<std::string> reported;  // the CANN tables' writer reported these
  std::vector<std::uint32_t> devices;
  spill_sorter<ge_db_key> ge(d.spill_dir, d.spill_budget);
  {
    std::uint64_t n = 0;
    MSPROF_TRY(for_each_ge_memory(d.prof_dir, reported, devices, [&](const ge_memory_event& e) -> result<void> {
      if (e.time_ns < m.session.start_ns) return {};
      const ge_db_record r{e.time_ns, static_cast<std::int64_t>(e.allocated), static_cast<std::int64_t>(e.reserved),
                           std::int64_t{e.device_id}};
      ge.push({r.time, n++}, bytes_of(r));
      return {};
    }));
    MSPROF_TRY(ge.take_status());
  }
  has_ge_ = ge.size() != 0;
  std::int64_t ge_id = 0;
  if (has_ge_) ge_id = ids.str("GE");
  // The first PTA and WORKSPACE records (by time, then file order) give the components' order.
  {
    std::optional<std::pair<std::int64_t, std::uint64_t>> first[2];  // PTA, WORKSPACE: time, file order
    std::uint64_t n = 0;
    MSPROF_TRY(d.memory.each([&](const codec::framework::memory_usage& u) {
      const std::uint64_t at = n++;
      if (u.device_type != codec::framework::memory_usage::npu) return;
      auto& f = first[u.component_type == codec::framework::memory_usage::workspace ? 1 : 0];
      if (!f || u.time < f->first) f = std::make_pair(u.time, at);
    }));
    const bool pta_first = first[0] && (!first[1] || *first[0] < *first[1]);
    if (pta_first) ids.str("PTA");
    if (first[1]) ids.str("WORKSPACE");
    if (first[0]) ids.str("PTA");
    if (first[0] || first[1] || has_ge_) ids.str("WORKSPACE");
    if (first[0] || has_ge_) ids.str("PTA+GE");
  }
  const auto pta_ge_id = [&] { return ids.str("PTA+GE"); };  // registered above whenever a row needs it
  const auto ge_row = [&](const ge_db_record& g, const memory_record_row* p) -> result<void> {
    records_.add(db_row(ge_id, g.time, g.allocated, g.reserved, std::int64_t{0}, std::monostate{}, g.device));
    if (!p)
      records_.add(db_row(pta_ge_id(), g.time, g.allocated, g.reserved, std::int64_t{0}, std::monostate{}, g.device));
    else
      records_.add(db_row(pta_ge_id(), g.time, g.allocated + p->allocated, g.reserved + p->reserved, p->active,
                          p->stream, g.device));
    return {};
  };
  const auto pta_row = [&](const memory_record_row& x, const ge_db_record* g) -> result<void> {
    if (x.component == std::string_view("PTA+GE") && g)
      records_.add(db_row(pta_ge_id(), x.time, x.allocated + g->allocated, x.reserved + g->reserved, x.active,
                          or_null(x.stream ? std::optional<std::int64_t>(x.stream) : std::nullopt), x.device));
    else
      records_.add(db_row(ids.str(x.component), x.time, x.allocated, x.reserved, x.active, x.stream, x.device));
    return {};
  };
  MSPROF_TRY(merge_ge_memory<ge_db_record>(d, m, ge, ge_row, pta_row));
  return op_rows.each([&](const op_memory_row& x) {
    ops_.add(db_row(ids.str(x.name), x.size, x.allocation_time, or_null(x.release_time), or_null(x.active_release_time),
                    or_null(x.duration), or_null(x.active_duration), x.allocation_total[0], x.allocation_total[1],
                    x.allocation_total[2], or_null(x.release_total[0]), or_null(x.release_total[1]),
                    or_null(x.release_total[2]), x.stream, x.device));
  });
}

/// torch_npu's GCRecordDbParser: GC_RECORD, the torch.gc_record spans in file
/// order (startNs, endNs, globalTid of the process as its own thread).
result<void> gc_table(detail::paged_tables& tables, const pt_dir& d) {
  batched_table gcs(tables, "GC_RECORD", "startNs INTEGER, endNs INTEGER, globalTid INTEGER", 3);
  MSPROF_TRY(d.gcs.each([&](const gc_span& g) { gcs.add_ints({g.start_ns, g.end_ns, global_tid(g.pid, g.pid)}); }));
  return gcs.finish();
}

}  // namespace

std::string framework_db_name(const pt_dir& d) {
  const bool mindspore = framework_of(d.dir) == framework_kind::mindspore;
  const std::string stem = mindspore ? "ascend_mindspore_profiler" : "ascend_pytorch_profiler";
  return d.info.rank_id == -1 ? stem + ".db" : stem + "_" + std::to_string(d.info.rank_id) + ".db";
}

db_export::db_export(const outfile::dir& out, std::string spill_dir, std::size_t spill_budget)
    : out_(out), spill_dir_(std::move(spill_dir)), spill_budget_(spill_budget), cann_(std::make_unique<calls>(spill_dir_, spill_budget_ / 4)) {}

db_export::~db_export() = default;

void db_export::add(const model& w, const pt_dir& d) {
  if (!status_) return;
  if (!file_) {
    auto f = outfile::atomic_file::create(out_, framework_db_name(d));
    if (!f) {
      status_ = f.err();
      return;
    }
    file_.emplace(std::move(*f));
    writer_ = std::make_unique<db_window_writer>(detail::sqlite_path(out_, *file_), spill_dir_, spill_budget_);
  }
  status_ = writer_->add(w);
  cann_->add(w, d.info.cpu);
}

result<void> db_export::finish_cann(const pt_dir& d, const model& m, std::vector<std::string>& warnings) {
  if (!file_) add(m, d);  // no window: the CANN tables of the final model alone
  MSPROF_TRY(status_);
  if (!writer_) return {};  // done before
  if (comm_) writer_->set_communication(*comm_);
  MSPROF_TRY(writer_->finish(m));
  warnings.insert(warnings.end(), writer_->warnings().begin(), writer_->warnings().end());
  writer_.reset();
  return {};
}

result<std::vector<std::string>> db_export::finish(const pt_dir& d, const model& m, const relation& rel,
                                                   const spilled_list<op_memory_row>& op_memory,
                                                   std::vector<std::string>& warnings, bool threaded) {
  MSPROF_TRY(finish_cann(d, m, warnings));
  std::vector<std::string> files;
  // analysis.db needs none of the framework tables: it is written beside
  // them. torch_npu finds no step range at Level_none and writes none.
  std::optional<result<std::string>> analysis;
  const auto write_analysis = [&] {
    if (d.info.level == "Level_none") return;
    analysis = write_sqlite(out_, "analysis.db", [&](const std::string& path) -> result<void> {
      detail::sqlite_db db(path);
      MSPROF_TRY(db.open());
      auto step_rows = step_trace_rows(d, *cann_, rel, {spill_dir_, spill_budget_ / 4}, comm_);
      if (!step_rows) return step_rows.err();
      MSPROF_TRY(create_and_fill(db, "StepTraceTime",
                                 "deviceId INTEGER, step TEXT, computing NUMERIC, "
                                 "communication_not_overlapped NUMERIC, "
                                 "overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, "
                                 "bubble NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, "
                                 "preparing NUMERIC",
                                 11, std::move(*step_rows)));
      if (comm_) {  // torch_npu's CommAnalyzer tables, by step (hccl_analyze.hpp)
        const auto a = hccl::analyze_first_device(*comm_, m.session.start_ns);
        if (!a.ops.empty())
          for (const auto& t : hccl::pt_analyzer_tables(a, comm_steps(step_ranges(rel)))) {
            MSPROF_TRY(db.exec(t.create));
            if (!t.rows.empty()) MSPROF_TRY(db.insert(t.name, t.rows.front().size(), t.rows));
          }
      }
      return db.close();
    });
  };
  const auto fill = [&](const std::string& path) -> result<void> {
    detail::sqlite_db db(path);
    MSPROF_TRY(db.open());
    // The framework tables are only appended to: a small page cache does, and
    // the peak does not grow with them up to the default cache's 64 MiB.
    MSPROF_TRY(db.exec("PRAGMA cache_size=-4096"));
    // torch_npu's DbParser: the rank of profiler_info with the PROF_'s first device.
    if (d.info.rank_id != -1 && !m.session.devices.empty()) {
      MSPROF_TRY(db.exec("DELETE FROM RANK_DEVICE_MAP"));
      MSPROF_TRY(db.insert("RANK_DEVICE_MAP", 2, {{d.info.rank_id, std::int64_t{m.session.devices.front().id}}}));
    }
    MSPROF_TRY(db.insert("META_DATA", 2, meta_rows(d, warnings)));

    detail::paged_tables paged(db, spill_dir_);
    batched_table apis(paged, "PYTORCH_API",
                       "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                       "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, "
                       "inputShapes INTEGER, callchainId INTEGER, type INTEGER",
                       11);
    batched_table strings(paged, "STRING_IDS", nullptr, 2);
    batched_table connections(paged, "CONNECTION_IDS", "id INTEGER, connectionId INTEGER", 2);
    batched_table callchains(paged, "PYTORCH_CALLCHAINS", "id INTEGER, stack INTEGER, stackDepth INTEGER", 3);
    memory_tables memory(paged);
    result<void> apis_filled, memory_filled;
    beside(
        threaded,
        [&] {
          memory_filled = memory.fill(d, m, op_memory);
          write_analysis();
        },
        [&] {
          fwk_ids ids(strings, connections, callchains);
          apis_filled = fwk_apis(d, *cann_, ids, apis, {spill_dir_, spill_budget_ / 4});
        });
    MSPROF_TRY(apis_filled);
    MSPROF_TRY(apis.finish());
    MSPROF_TRY(memory_filled);
    MSPROF_TRY(memory.finish(db.handle(), d, m));
    MSPROF_TRY(gc_table(paged, d));
    MSPROF_TRY(strings.finish());
    MSPROF_TRY(memory.finish_strings());
    MSPROF_TRY(connections.finish());
    MSPROF_TRY(callchains.finish());
    MSPROF_TRY(db.insert("ENUM_API_TYPE", 2,
                         {{std::int64_t{torch_op}, std::string("op")},
                          {std::int64_t{task_queue}, std::string("queue")},
                          {std::int64_t{python_trace}, std::string("trace")},
                          {std::int64_t{mstx_op}, std::string("mstx")}}));
    rows steps;
    for (const fw_op* s : step_ops(rel)) steps.push_back({step_id(rel, *s), s->start_ns, s->end_ns});
    if (!steps.empty())
      MSPROF_TRY(create_and_fill(db, "STEP_TIME", "id INTEGER, startNs INTEGER, endNs INTEGER", 3, steps));
    return paged.close();
  };
  auto written = fill(detail::sqlite_path(out_, *file_));
  if (written) written = file_->commit();
  if (!written) {
    std::error_code ec;
    if (analysis && *analysis) fs::remove(**analysis, ec);  // written beside the tables, for nothing
    return written.err();
  }
  files.push_back((fs::path(out_.path()) / framework_db_name(d)).string());

  if (analysis) {
    if (!*analysis) return analysis->err();
    files.push_back(std::move(**analysis));
  }
  return files;
}

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
