// SPDX-License-Identifier: MIT
// The streaming join of decoded raw records into the converter model
// (convert/join.hpp): stream_join's two passes, and join() for collections in memory.
#include "msprof/convert/join.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {
namespace {

std::uint64_t task_key(std::uint32_t dev, std::uint32_t stream, std::uint32_t task) noexcept {
  return (static_cast<std::uint64_t>(dev & 0xFFFFu) << 32) | (static_cast<std::uint64_t>(stream & 0xFFFFu) << 16) |
         (task & 0xFFFFu);
}

}  // namespace

void warn_bad_time(std::vector<std::string>& warnings, std::size_t n, const std::string& what) {
  if (n)
    warnings.push_back(std::to_string(n) + " " + what +
                       " record(s) have a timestamp that cannot be placed on the wall clock (outside 1970..2262 "
                       "as signed 64-bit ns: damaged data); skipped");
}

std::optional<mstx_event> place_mstx(const prof::mstx_record& r, const prof::tick_clock& clock, std::int64_t wall,
                                     const std::string& domain) {
  const auto start_mono = clock.monotonic_ns(r.stamp.startTime), end_mono = clock.monotonic_ns(r.stamp.endTime);
  const auto start = prof::time_ns::to_wall(start_mono, wall), end = prof::time_ns::to_wall(end_mono, wall);
  if (!start || !end) return std::nullopt;
  mstx_event e;
  e.pid = r.stamp.processId;
  e.tid = r.stamp.threadId;
  e.event_type = r.stamp.eventType;
  e.start_mono_ns = *start_mono;
  e.end_mono_ns = *end_mono;
  e.start_ns = *start;
  e.end_ns = *end;
  e.mark_id = r.stamp.markId;
  e.message = r.message;
  e.domain = domain;
  return e;
}

bool draws_host_flow(std::string_view task_type, const api_call& launcher) {
  const bool kernel = task_type.substr(0, 6) == "KERNEL" || task_type == "STARS_COMMON" || task_type == "FFTS_PLUS";
  const bool event =
      launcher.level == level::acl && (launcher.name == "aclrtRecordEvent" || launcher.name == "aclrtStreamWaitEvent");
  return kernel || event || task_type == "MEMCPY_ASYNC";
}

void append_window(model& all, model& w) {
  std::move(w.apis.begin(), w.apis.end(), std::back_inserter(all.apis));
  std::move(w.tasks.begin(), w.tasks.end(), std::back_inserter(all.tasks));
  std::move(w.mstx.begin(), w.mstx.end(), std::back_inserter(all.mstx));
  std::move(w.mstx_mem.begin(), w.mstx_mem.end(), std::back_inserter(all.mstx_mem));
}

void order_by_ids(model& m) {
  std::sort(m.apis.begin(), m.apis.end(),
            [](const api_call& a, const api_call& b) { return a.connection_id < b.connection_id; });
  std::sort(m.tasks.begin(), m.tasks.end(),
            [](const device_task& a, const device_task& b) { return a.global_task_id < b.global_task_id; });
}

bool read_back(spill_file& f, std::uint64_t offset, void* out, std::size_t n) {
  auto* p = static_cast<char*>(out);
  for (std::size_t done = 0; done < n;) {
    const auto got = ::pread(f.fd(), p + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) errno = EIO;
      f.fail("cannot read back spooled records (file truncated?)");
      return false;
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace detail

// stream_join::waiting ---------------------------------------------------------

template <class T>
void stream_join::waiting<T>::push(std::uint64_t key, const T& v) {
  auto [it, fresh] = q_.try_emplace(key);
  if (fresh)
    it->second.front = v;
  else
    it->second.rest.push_back(v);
}
template <class T>
bool stream_join::waiting<T>::empty(std::uint64_t key) const {
  return q_.find(key) == q_.end();
}
template <class T>
T stream_join::waiting<T>::pop(std::uint64_t key) {  // !empty(key)
  auto it = q_.find(key);
  queue& q = it->second;
  const T v = q.front;
  if (q.next == q.rest.size()) {
    q_.erase(it);
    return v;
  }
  q.front = q.rest[q.next++];
  if (q.next == q.rest.size()) {  // all moved forward: the vector is reused
    q.rest.clear();
    q.next = 0;
  }
  return v;
}
template <class T>
std::size_t stream_join::waiting<T>::total() const {
  std::size_t n = 0;
  for (const auto& kv : q_) n += 1 + kv.second.rest.size() - kv.second.next;
  return n;
}

// stream_join --------------------------------------------------------------------

stream_join::stream_join(session_info session, prof::tick_clock host_clock, std::vector<prof::device_info> clocks,
                         std::unordered_map<std::uint64_t, std::string> hashes,
                         std::map<std::pair<std::uint16_t, std::uint32_t>, std::string> types, options o)
    : session_(std::move(session)),
      host_clock_(host_clock),
      clocks_(std::move(clocks)),
      hashes_(std::move(hashes)),
      types_(types.size()),
      opt_(std::move(o)),
      apis_(opt_.spill_dir, opt_.spill_budget),
      ops_(opt_.spill_dir, opt_.spill_budget),
      launches_(opt_.spill_dir, opt_.spill_budget) {
  for (auto& [k, name] : types) types_.emplace(type_key(k.first, k.second), std::move(name));
}

// Pass 1 ---------------------------------------------------------------

void stream_join::add(const raw::api& a) {
  const auto start = host_local(a.begin), end = host_local(a.end);
  if (!start || !end) {
    ++bad_time_.api;
    return;
  }
  apis_.push({*start, 0}, bytes_of(placed_api{*end, a.level, a.type, a.thread_id, a.item_id}));
  ++api_count_;
}
void stream_join::add(const raw::node_basic& n) {
  if (const auto at = host_local(n.timestamp))
    ops_.push({*at, kind_node}, bytes_of(n));
  else
    ++bad_time_.node;
}
void stream_join::add(const raw::tensor_info& t) {
  const auto at = host_local(t.timestamp);
  if (!at) {
    ++bad_time_.tensor;
    return;
  }
  // The thread and the tensors' count, then per tensor its kind, format, data
  // type, rank and dimensions (a tensor_desc holds room for 8).
  ops_.push_with({*at, kind_tensor}, [&](std::string& out) {
    put(out, t.thread_id);
    put(out, static_cast<std::uint32_t>(t.tensors.size()));
    for (const auto& d : t.tensors) {
      put(out, d.kind);
      put(out, d.format);
      put(out, d.data_type);
      put(out, static_cast<std::uint8_t>(d.shape.size()));
      for (const std::uint32_t dim : d.shape) put(out, dim);
    }
  });
}
void stream_join::add(const raw::task_track& t) {
  if (const auto at = host_local(t.timestamp)) {
    launches_.push({*at, kind_track}, bytes_of(t));
    ++counts_[detail::task_key(t.device_id, t.stream_id, t.task_id)].launches;
  } else {
    ++bad_time_.track;
  }
}
void stream_join::add(const raw::memcpy_info& m) {
  any_memcpy_info_ = true;
  if (const auto at = host_local(m.timestamp))
    launches_.push({*at, kind_memcpy}, bytes_of(m));
  else
    ++bad_time_.memcpy;
}
void stream_join::add(const raw::acsq& a) {
  const auto at = device_local(a.device_id, a.timestamp);
  if (!at) {
    ++bad_time_.acsq;
    return;
  }
  // A start waits for its key's next end (first in, first out); the span they
  // make is spooled in the order of the ends, the order run() takes them in.
  const auto key = detail::task_key(a.device_id, a.stream_id, a.task_id);
  if (a.start) {
    starts_.push(key, span{*at, 0, a.sqe_type});
  } else if (starts_.empty(key)) {
    ++spans_without_start_;
  } else {
    span sp = starts_.pop(key);
    sp.end = *at;
    spools_of(a.device_id).spans.push(keyed_span{key, sp});
    ++device_counts_[key].spans;
  }
}
void stream_join::add(const raw::pmu& p) {
  const auto key = detail::task_key(p.device_id, p.stream_id, p.task_id);
  spools_of(p.device_id).pmu.push(pmu_record{key, p.counters});
  ++device_counts_[key].pmus;
}

void stream_join::merge_counts() {
  device_counts_.each([&](std::uint64_t key, const key_counts& d) {
    if (d.spans == 0 && d.pmus == 0) return;
    auto& c = counts_[key];
    c.spans = d.spans;
    c.pmus = d.pmus;
  });
  device_counts_ = {};
}

// Pass 2 ---------------------------------------------------------------

result<model> stream_join::run_windows(const window_fn& on_window) {
  merge_counts();
  window_.session = session_;
  placed_api_key akey{};
  std::string_view api;
  bool have_api = apis_.next(akey, api);
  // The host's records in time order: the two sorted streams merged.
  host_event_key okey{}, lkey{};
  std::string_view op, launch;
  bool have_op = ops_.next(okey, op), have_launch = launches_.next(lkey, launch);
  while (have_api || have_op || have_launch) {
    const bool launch_next = have_launch && (!have_op || lkey < okey);
    const host_event_key* next = launch_next ? &lkey : have_op ? &okey : nullptr;
    // A call contains what comes after its start: an event at that time goes first.
    if (have_api && (!next || akey.start < next->at)) {
      close_before(akey.start, on_window);
      open(akey.start, from_bytes<placed_api>(api));
      have_api = apis_.next(akey, api);
      continue;
    }
    close_before(next->at, on_window);
    switch (next->kind) {
      case kind_node: on_node(next->at, from_bytes<raw::node_basic>(op)); break;
      case kind_tensor: on_tensor(next->at, op); break;
      case kind_memcpy: on_memcpy(next->at, from_bytes<raw::memcpy_info>(launch)); break;
      default: on_track(next->at, from_bytes<raw::task_track>(launch)); break;
    }
    if (window_.apis.size() + window_.tasks.size() >= opt_.window_records) flush_window(on_window);
    if (launch_next)
      have_launch = launches_.next(lkey, launch);
    else
      have_op = ops_.next(okey, op);
  }
  close_before(INT64_MAX, on_window);
  for (std::uint32_t dev : devices_in_order()) flush_device(dev);
  emit_orphans(on_window);
  flush_window(on_window);
  MSPROF_TRY(apis_.take_status());
  MSPROF_TRY(ops_.take_status());
  MSPROF_TRY(launches_.take_status());
  for (auto& [dev, sp] : spools_) {
    MSPROF_TRY(sp.spans.take_status());
    MSPROF_TRY(sp.pmu.take_status());
  }
  return finish();
}

std::optional<std::int64_t> stream_join::host_local(std::uint64_t v) const {
  return prof::time_ns::to_wall(host_clock_.monotonic_ns(v), session_.wall_offset_ns);
}
std::optional<std::int64_t> stream_join::device_local(std::uint32_t dev, std::uint64_t cyc) const {
  auto k = std::find_if(clocks_.begin(), clocks_.end(), [&](const prof::device_info& d) { return d.id == dev; });
  return prof::time_ns::to_wall(k == clocks_.end() ? prof::time_ns::from_u64(cyc) : k->clock.monotonic_ns(cyc),
                                 session_.wall_offset_ns);
}
stream_join::device_spools& stream_join::spools_of(std::uint32_t dev) {
  auto it = spools_.find(dev);
  if (it == spools_.end()) it = spools_.try_emplace(dev, opt_.spill_dir, opt_.spill_budget).first;
  return it->second;
}
std::vector<std::uint32_t> stream_join::devices_in_order() const {
  std::vector<std::uint32_t> v;
  for (const auto& kv : spools_) v.push_back(kv.first);
  return v;
}
std::string stream_join::hash_name(std::uint64_t h) const {
  if (h == 0) return {};
  auto it = hashes_.find(h);
  return it == hashes_.end() ? std::to_string(h) : it->second;
}
std::string stream_join::name_of(std::uint64_t h, const char* kind) {
  if (h == 0) return {};
  auto it = hashes_.find(h);
  if (it != hashes_.end()) return it->second;
  ++unknown_hashes_[kind];
  return codec::unknown_hash_text(h);
}
std::string stream_join::type_name(std::uint16_t lv, std::uint32_t type) const {
  auto it = types_.find(type_key(lv, type));
  return it == types_.end() ? std::to_string(type) : it->second;
}

// API calls ----------------------------------------------------------------

void stream_join::open(std::int64_t start, const placed_api& a) {
  api_call x;
  x.level = a.level;
  x.type = a.type;
  x.thread_id = a.thread_id;
  x.start_ns = start;
  x.end_ns = a.end;
  x.name = type_name(a.level, a.type);
  x.item = hash_name(a.item_id);
  x.connection_id = next_connection_++;
  last_api_end_ = std::max(last_api_end_, a.end);
  closing_.push({a.end, x.connection_id, a.thread_id});
  by_thread_[a.thread_id].push_back(open_api{std::move(x), nullptr, a.item_id});
}
void stream_join::close_before(std::int64_t t, const window_fn& on_window) {
  while (!closing_.empty() && std::get<0>(closing_.top()) < t) {
    const auto [end, conn, tid] = closing_.top();
    closing_.pop();
    auto& on_thread = by_thread_[tid];
    // Mostly the innermost call (the last) ends first.
    auto it = std::find_if(on_thread.rbegin(), on_thread.rend(),
                           [conn = conn](const open_api& a) { return a.call.connection_id == conn; });
    window_.apis.push_back(std::move(it->call));
    on_thread.erase(std::next(it).base());
    if (window_.apis.size() + window_.tasks.size() >= opt_.window_records) flush_window(on_window);
  }
}
template <class Visit>
void stream_join::enclosing(std::uint32_t tid, Visit&& visit) {
  auto it = by_thread_.find(tid);
  if (it == by_thread_.end()) return;
  for (auto c = it->second.rbegin(); c != it->second.rend(); ++c)
    if (!visit(*c)) return;
}
stream_join::open_api* stream_join::innermost(std::uint32_t tid) {
  open_api* found = nullptr;
  enclosing(tid, [&](open_api& a) {
    found = &a;
    return false;
  });
  return found;
}
std::uint64_t stream_join::thread_root(std::uint32_t tid) {
  const std::uint64_t next = api_count_ + thread_roots_.size() + 1;
  return thread_roots_.try_emplace(tid, next).first->second;
}

// Host events ----------------------------------------------------------------

void stream_join::on_node(std::int64_t, const raw::node_basic& n) {
  open_api* api = innermost(n.thread_id);
  if (!api) {
    if (++ops_outside_calls_ <= opt_.max_warnings_per_kind)
      warnings_.push_back("node_basic_info of op " + hash_name(n.op_name) + " (thread " + std::to_string(n.thread_id) +
                          ") lies outside every API call; op ignored");
    return;
  }
  auto op = std::make_shared<op_info>();
  op->name = name_of(n.op_name, "op name");
  op->type = name_of(n.op_type, "op type");
  op->ge_task_type = n.task_type;
  op->block_num = n.block_num;
  op->dynamic = n.dynamic;
  api->op = std::move(op);  // the last node of a call wins
}
void stream_join::on_tensor(std::int64_t, std::string_view b) {
  payload_reader in{b};
  open_api* api = innermost(in.get<std::uint32_t>());
  if (!api || !api->op) return;
  // Ops with more than 5 tensors send several records; they concatenate.
  // Tasks already launched keep the op as it was (as with a node_basic_info
  // after the launch): what they show does not depend on the window.
  if (api->op.use_count() > 1) api->op = std::make_shared<op_info>(*api->op);
  auto& tensors = api->op->tensors;
  const auto n = in.get<std::uint32_t>();
  tensors.reserve(tensors.size() + n);
  for (std::uint32_t i = 0; i < n; ++i) {
    tensor_desc d;
    d.kind = in.get<std::uint32_t>();
    d.format = in.get<std::uint32_t>();
    d.data_type = in.get<std::uint32_t>();
    for (auto rank = in.get<std::uint8_t>(); rank > 0; --rank) d.shape.push_back(in.get<std::uint32_t>());
    tensors.push_back(d);
  }
}
void stream_join::on_memcpy(std::int64_t at, const raw::memcpy_info& m) {
  // Earlier ones can match no task_track any more: the sweep is past their time.
  memcpys_.erase(memcpys_.begin(), memcpys_.lower_bound({at, 0, 0}));
  memcpys_[{at, m.thread_id, m.timestamp}] = {m.data_size, m.max_size, m.direction};
}
memcpy_copy stream_join::take_memcpy(std::int64_t at, const raw::task_track& tr) {
  memcpy_copy c;  // none found: 0 bytes, operation "other", as the reference
  auto it = memcpys_.find({at, tr.thread_id, tr.timestamp});
  if (it == memcpys_.end() || it->second.remain == 0) {
    ++memcpy_unmatched_;
    return c;
  }
  memcpy_left& m = it->second;
  c.size = m.remain <= m.max_size ? m.remain : m.max_size;
  m.remain -= c.size;
  if (m.direction <= 7) c.operation = m.direction;
  return c;
}
void stream_join::on_track(std::int64_t at, const raw::task_track& tr) {
  const std::uint32_t task_id = tr.task_id & 0xFFFFu;
  const auto key = detail::task_key(tr.device_id, tr.stream_id, task_id);
  auto& c = counts_[key];
  const std::uint32_t index = c.launched++;
  std::string task_type = type_name(level::runtime, static_cast<std::uint32_t>(tr.task_type));
  // Every MEMCPY_ASYNC launch takes its part of the copy, with a device task or without.
  std::optional<memcpy_copy> copy;
  if (any_memcpy_info_ && task_type == "MEMCPY_ASYNC") copy = take_memcpy(at, tr);
  if (index >= c.spans) {  // its key has fewer device spans than launches
    ++unmatched_launches_;
    return;
  }
  device_task t;
  t.device_id = tr.device_id;
  t.stream_id = tr.stream_id;
  t.task_id = task_id;
  const span sp = take_span(tr.device_id, key);
  t.start_ns = sp.start;
  t.end_ns = sp.end;
  t.sqe_type = sp.sqe_type;
  t.memcpy = copy;
  t.track_ns = at;
  t.thread_id = tr.thread_id;
  t.task_type = std::move(task_type);
  t.kernel_name = name_of(tr.kernel_name, "kernel name");
  // The op belongs to the node-level call, which usually encloses the runtime
  // call that launched the task (aclnnAdd > rtKernelLaunch): the innermost
  // enclosing call that reported one. The task's connection (its HostToDevice
  // flow) is the reference's too: the innermost enclosing call above the
  // runtime level (Node@launch for a kernel, aclrtMemcpyAsync for a copy), else
  // its thread's id, which names no call (file comment).
  // A model-level call further out gives the task its model id. A task inside
  // an HCCL-level call is a collective's small task: neither that call nor the
  // collective's op is its own (convert/hccl.hpp links it).
  open_api* launcher = nullptr;
  bool in_hccl = false;
  enclosing(tr.thread_id, [&](open_api& a) {
    in_hccl = in_hccl || a.call.level == level::hccl;
    if (!launcher && a.call.level != level::runtime && a.call.level != level::hccl) launcher = &a;
    if (!t.op && a.op && !in_hccl) t.op = a.op;
    if (a.call.level == level::model) {
      t.model_id = static_cast<std::uint32_t>(a.item_id);
      return false;
    }
    return true;
  });
  if (launcher) {
    t.connection_id = launcher->call.connection_id;
    t.host_flow = detail::draws_host_flow(t.task_type, launcher->call);
    launcher->call.has_device_task = launcher->call.has_device_task || t.host_flow;
  } else {
    t.connection_id = thread_root(tr.thread_id);
  }
  if (index < c.pmus) t.pmu = take_pmu(tr.device_id, key);
  t.global_task_id = next_task_++;
  window_.tasks.push_back(std::move(t));
}

// Device spools ----------------------------------------------------------------

bool stream_join::pull_span(std::uint32_t dev, std::uint64_t want, std::optional<span>& got) {
  keyed_span e;
  if (!spools_of(dev).spans.next(e)) return false;
  auto& c = counts_[e.key];
  const std::uint32_t index = c.spans_formed++;
  if (index >= c.launches)
    orphans_.push({e.s.start, e.key, index}, bytes_of(e.s));
  else if (e.key == want && !got)  // nothing of its key waits (take_span): it need not queue
    got = e.s;
  else
    ready_.push(e.key, e.s);
  return true;
}
stream_join::span stream_join::take_span(std::uint32_t dev, std::uint64_t key) {
  if (!ready_.empty(key)) return ready_.pop(key);
  std::optional<span> got;
  while (!got && pull_span(dev, key, got)) {
  }
  return got ? *got : span{};  // none: unreachable, pass 1 counted it
}
pmu_counters stream_join::take_pmu(std::uint32_t dev, std::uint64_t key) {
  if (!pmu_.empty(key)) return pmu_.pop(key);
  pmu_record r;
  while (spools_of(dev).pmu.next(r)) {
    if (r.key == key) return r.counters;  // nothing of its key waits: it need not queue
    pmu_.push(r.key, r.counters);
  }
  return {};  // unreachable: pass 1 counted it
}
void stream_join::flush_device(std::uint32_t dev) {
  std::optional<span> none;
  while (pull_span(dev, no_key, none)) {
  }
  pmu_record r;
  while (spools_of(dev).pmu.next(r)) {
  }
}

// Output ----------------------------------------------------------------

void stream_join::emit_orphans(const window_fn& on_window) {
  std::size_t n = 0;
  orphans_status_ = orphans_.drain([&](const orphan_key& k, std::string_view b) {
    device_task t;
    t.device_id = static_cast<std::uint32_t>(k.key >> 32);
    t.stream_id = static_cast<std::uint32_t>((k.key >> 16) & 0xFFFFu);
    t.task_id = static_cast<std::uint32_t>(k.key & 0xFFFFu);
    const auto s = from_bytes<span>(b);
    t.start_ns = s.start;
    t.end_ns = s.end;
    t.sqe_type = s.sqe_type;
    t.task_type = "UNKNOWN";
    t.global_task_id = next_task_++;
    window_.tasks.push_back(std::move(t));
    ++n;
    if (window_.tasks.size() >= opt_.window_records) flush_window(on_window);
  });
  orphan_count_ = n;
}
void stream_join::flush_window(const window_fn& on_window) {
  if (window_.apis.empty() && window_.tasks.empty()) return;
  // The calls come in the order they end: a nested call before the one around
  // it, a few places early. Insertion moves only those; a window further out
  // of order is sorted.
  auto& apis = window_.apis;
  auto before = [](const api_call& a, const api_call& b) { return a.connection_id < b.connection_id; };
  std::size_t moves = 0;
  const std::size_t most = 8 * apis.size();
  for (std::size_t i = 1; i < apis.size() && moves <= most; ++i) {
    if (!before(apis[i], apis[i - 1])) continue;
    api_call late = std::move(apis[i]);
    std::size_t j = i;
    for (; j > 0 && before(late, apis[j - 1]); --j, ++moves) apis[j] = std::move(apis[j - 1]);
    apis[j] = std::move(late);
  }
  if (moves > most) std::sort(apis.begin(), apis.end(), before);
  on_window(window_);
  window_.apis.clear();
  window_.tasks.clear();
}
result<model> stream_join::finish() {
  MSPROF_TRY(orphans_status_);
  model m;
  m.session = session_;
  m.warnings = std::move(warnings_);
  for (const auto& [kind, n] : unknown_hashes_)
    m.warnings.push_back(session_.prof_dir + ": " + std::to_string(n) + " " + kind +
                         " reference(s) to hashes not in host/data/*hash_dic*; shown as \"<unknown hash 0x...>\"");
  if (ops_outside_calls_ > opt_.max_warnings_per_kind)
    m.warnings.push_back("... and " + std::to_string(ops_outside_calls_ - opt_.max_warnings_per_kind) +
                         " more node_basic_info record(s) outside every API call; ops ignored");
  const std::size_t no_end = starts_.total();
  if (spans_without_start_)
    m.warnings.push_back(std::to_string(spans_without_start_) + " device task end record(s) without a start; ignored");
  if (no_end) m.warnings.push_back(std::to_string(no_end) + " device task start record(s) without an end; ignored");
  if (unmatched_launches_)
    m.warnings.push_back(std::to_string(unmatched_launches_) +
                         " task_track record(s) have no device task (no ACSQ start/end)");
  if (orphan_count_)
    m.warnings.push_back(std::to_string(orphan_count_) +
                         " device task(s) have no task_track record (no launching API); exported as UNKNOWN");
  if (memcpy_unmatched_)
    m.warnings.push_back(std::to_string(memcpy_unmatched_) +
                         " MEMCPY_ASYNC task(s) have no memcpy_info record with their task_track's thread and "
                         "timestamp (or it was used up); exported with size 0 and operation \"other\"");
  auto report = [&](std::size_t n, const char* what) { detail::warn_bad_time(m.warnings, n, what); };
  report(bad_time_.api, "api_event");
  report(bad_time_.node, "node_basic_info");
  report(bad_time_.tensor, "tensor_info");
  report(bad_time_.acsq, "device ACSQ (stars_soc)");
  report(bad_time_.track, "task_track");
  report(bad_time_.memcpy, "memcpy_info");
  return m;
}

// In-memory collections -----------------------------------------------------------

stream_join::options in_memory() {
  stream_join::options o;
  o.spill_budget = SIZE_MAX;
  o.window_records = SIZE_MAX;
  return o;
}

model join(raw::collection&& c, const stream_join::options& o) {
  const std::int64_t wall = c.session.wall_offset_ns;
  stream_join j(c.session, c.host_clock, std::move(c.clocks), c.hashes, std::move(c.types), o);
  for (const auto& a : c.apis) j.add(a);
  for (const auto& n : c.nodes) j.add(n);
  for (const auto& t : c.tensors) j.add(t);
  for (const auto& t : c.tracks) j.add(t);
  for (const auto& m : c.memcpys) j.add(m);
  for (const auto& a : c.acsqs) j.add(a);
  for (const auto& p : c.pmus) j.add(p);
  model m;
  auto joined = j.run([&](model& w) { detail::append_window(m, w); });
  detail::order_by_ids(m);
  if (!joined) {  // a spill failure: kept visible
    m.warnings.push_back(joined.err().message);
    return m;
  }
  m.session = std::move(joined->session);
  m.warnings = std::move(c.warnings);
  m.warnings.insert(m.warnings.end(), joined->warnings.begin(), joined->warnings.end());
  std::size_t bad_mstx = 0;
  for (const auto& r : c.mstxs) {
    auto it = c.hashes.find(r.stamp.domain);
    const std::string domain =
        r.stamp.domain == 0 ? "default" : it == c.hashes.end() ? std::to_string(r.stamp.domain) : it->second;
    if (auto e = detail::place_mstx(r, c.host_clock, wall, domain))
      m.mstx.push_back(std::move(*e));
    else
      ++bad_mstx;
  }
  detail::warn_bad_time(m.warnings, bad_mstx, "msproftx");
  return m;
}

}  // namespace convert
MSPROF_END_NAMESPACE
