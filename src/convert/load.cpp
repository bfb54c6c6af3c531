// SPDX-License-Identifier: MIT
// load_windows() and load_model(): a PROF_ directory read through the codec's
// streaming reader and joined (join.hpp) into the converter model, the host's
// and the devices' records read on one thread or two, the windows handed on
// here or on a second thread.
#include "msprof/convert/load.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "msprof/prof/reader.hpp"
#include "msprof/core/json.hpp"
#include "msprof/convert/beside.hpp"
#include "msprof/convert/iterations.hpp"
#include "msprof/convert/join.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// Hands the loader's windows to the writers, each on a thread of its own, one
/// window at a time, so they work on one window while the next one loads
/// (load_options::threaded). Memory does not depend on the threads' timing
/// (docs/performance.md, "Conversion", sessions 17, 18 and 25): put() swaps
/// the window's records with the slot's, whose vectors keep their capacity,
/// and the used records it gets back are destroyed right there, on the loading
/// thread that allocated them. So at each handoff exactly two windows' records
/// exist, whichever thread is ahead. Without threads (one could not be
/// started) put() hands the window to the writers itself, in order.
class window_pipe {
 public:
  explicit window_pipe(std::vector<std::function<void(model&)>> writers) : write_(std::move(writers)) {
    try {
      for (std::size_t i = 0; i < write_.size(); ++i) threads_.emplace_back([this, i] { run(i); });
    } catch (const std::system_error&) {
      close();  // the ones started stop; put() writes on the loading thread
    }
  }
  window_pipe(const window_pipe&) = delete;
  window_pipe& operator=(const window_pipe&) = delete;
  ~window_pipe() {
    try {
      close();
    } catch (...) {  // unwinding already, or an early return: a writer's exception is dropped
    }
  }

  void put(model& w) {
    if (threads_.empty()) {
      for (auto& write : write_) write(w);
      return;
    }
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return writing_ == 0; });
    slot_.session = w.session;
    slot_.iterations = w.iterations;
    slot_.apis.swap(w.apis);
    slot_.tasks.swap(w.tasks);
    slot_.mstx.swap(w.mstx);
    slot_.mstx_mem.swap(w.mstx_mem);
    writing_ = threads_.size();
    ++window_;
    lk.unlock();
    cv_.notify_all();
    w.apis.clear();
    w.tasks.clear();
    w.mstx.clear();
    w.mstx_mem.clear();
  }

  /// Waits until the window handed over last is written.
  void drain() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return writing_ == 0; });
  }

  /// Waits until the last window is written.
  void close() {
    if (threads_.empty()) return;
    {
      std::lock_guard<std::mutex> lk(mu_);
      closed_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
  }

 private:
  void run(std::size_t i) {
    std::uint64_t done = 0;  // the windows this writer has had
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return window_ != done || closed_; });
      if (window_ == done) return;
      done = window_;
      const bool skip = failed_ != nullptr;
      lk.unlock();
      std::exception_ptr failed;
      try {
        if (!skip) write_[i](slot_);  // the loader waits for writing_ to drop before touching the slot
      } catch (...) {  // e.g. std::bad_alloc: thrown again on the loading thread, as without the threads
        failed = std::current_exception();
      }
      lk.lock();
      if (failed && !failed_) failed_ = failed;
      if (--writing_ == 0) cv_.notify_all();
    }
  }

  std::vector<std::function<void(model&)>> write_;
  std::mutex mu_;
  std::condition_variable cv_;
  model slot_;
  std::size_t writing_ = 0;  // writers still on the slot's window
  std::uint64_t window_ = 0;  // windows handed over
  bool closed_ = false;
  std::exception_ptr failed_;  // a writer's exception, thrown again by close()
  std::vector<std::thread> threads_;  // last: started once the rest is built
};

std::string json_text_of(const json::value& v) {
  if (v.is_string() || v.is_number()) return v.text();
  return {};
}

/// The mstx calls the collector counted (host/msprof_calls: `made`) against the
/// calls whose records are on disk (`written`) and the losses counted in calls.
/// A killed run (`why` says so): the rest were lost in memory, added to the
/// losses as lost_at_kill. A finished run: any difference is said. Returns the
/// warning ("" for none).
std::string account_calls(session_info& s, std::optional<std::uint64_t> made, std::uint64_t written,
                          const std::string& why) {
  std::uint64_t counted = 0, known = 0;
  for (const auto& [k, n] : s.losses) {
    known += n;
    // Calls that reached the collector and are in no record (rejected ones never did).
    if (k == "dropped" || k == "domain_mismatch" || k == "unknown_range_ends" || k == "unfinished_ranges" ||
        k == "sink_failed" || k == "storage_limit_dropped")
      counted += n;
  }
  const std::uint64_t accounted = written + counted;
  const std::string sums = " (" + std::to_string(written) + " in the trace, " + std::to_string(counted) +
                           " counted lost)";
  if (!s.unfinished) {
    if (!made || *made == accounted) return {};
    return s.prof_dir + ": the collector counted " + std::to_string(*made) + " mstx calls but " +
           std::to_string(accounted) + " are recorded or counted lost" + sums +
           (*made > accounted ? ": the difference was made while the collection stopped and is in no output" : "");
  }
  if (!made)
    return why + (s.losses.empty() ? "no loss counters were saved, the losses are unknown"
                                   : "the loss counters saved during the run count " + std::to_string(known) +
                                         " event(s) lost; calls still in memory at the end are missing and not counted");
  if (*made < accounted)
    return why + std::to_string(*made) + " mstx calls were made, fewer than the " + std::to_string(accounted) +
           " recorded or counted lost" + sums + ": the counters do not add up";
  const std::uint64_t lost = *made - accounted;
  s.losses.emplace_back("lost_at_kill", lost);
  return why + std::to_string(*made) + " mstx calls were made: " + std::to_string(written) + " are in the trace, " +
         std::to_string(counted) + " were counted lost during the run and " + std::to_string(lost) +
         " were lost at the end (lost_at_kill: still in the collector's memory, or dropped after the last save)";
}

/// load_windows() on this thread; `after_windows` is called once the last
/// window is handed out, while the join still holds its memory.
result<model> load_here(const std::string& prof_dir, const load_options& lo,
                        const std::function<void(model&)>& on_window, const std::function<void()>& after_windows) {
  prof::reader_options ro;
  ro.strict = true;  // control files: an error, not silently defaulted clocks
  ro.bytes_read = lo.bytes_read;
  auto rd = prof::prof_reader::open(prof_dir, ro);
  if (!rd) return rd.err();
  auto& r = *rd;

  session_info s;
  std::vector<std::string> warnings;
  s.prof_dir = prof_dir;
  const auto& h = r.host();
  const bool has_host = !h.info.is_null();
  // Without host/, the first device's control files describe the session.
  const json::value& info = has_host ? h.info : r.devices().front().info;
  const json::value& start = has_host ? h.start_info : r.devices().front().start_info;
  const json::value& end = has_host ? h.end_info : r.devices().front().end_info;
  std::uint64_t pid = 0;
  if (info.get("pid").to_uint64(pid)) s.pid = static_cast<std::uint32_t>(pid);
  s.pid_name = info.get("pid_name").as_string_or("");
  s.hostname = info.get("hostname").as_string_or("");
  s.host_uid = json_text_of(info.get("hostUid"));
  if (s.host_uid.empty()) s.host_uid = "0";
  s.platform_version = json_text_of(info.get("platform_version"));
  std::int64_t rank = -1;
  if (info.get("rank_id").to_int64(rank)) s.rank_id = rank;
  const std::string info_path = has_host ? prof_dir + "/host/info.json"
                                         : prof_dir + "/device_" + std::to_string(r.devices().front().id) + "/info.json." +
                                               std::to_string(r.devices().front().id);
  s.simulated_device = h.simulated;
  for (const auto& d : r.devices()) s.simulated_device = s.simulated_device || d.simulated;
  // Loss counters written by msprof's collector: never let a lossy trace look complete.
  for (const auto& [k, v] : info.get("msprof_losses").members()) {
    std::uint64_t n = 0;
    if (v.to_uint64(n)) s.losses.emplace_back(k, n);
    if (n > 0)
      warnings.push_back(info_path + ": the collector reports " + std::to_string(n) + " " + k +
                           " event(s); the trace is incomplete");
  }
  const std::uint64_t begin_us = start.get("collectionTimeBegin").uint_or(0);
  const std::uint64_t mono_ns = start.get("clockMonotonicRaw").uint_or(0);
  const std::uint64_t end_us = end.get("collectionTimeEnd").uint_or(0);
  const std::string ctl = has_host ? prof_dir + "/host/" : prof_dir + "/device_" + std::to_string(r.devices().front().id) + "/";
  const std::string sfx = has_host ? "" : "." + std::to_string(r.devices().front().id);
  const std::string start_path = ctl + "start_info" + sfx;
  if (begin_us == 0 || mono_ns == 0)
    return make_error(errc::parse, start_path + ": collectionTimeBegin/clockMonotonicRaw missing or not a number");
  // The reader has checked host/ already; device-only sessions are checked here.
  const auto begin_ns = prof::time_ns::from_us(begin_us);
  const auto start_mono = prof::time_ns::from_u64(mono_ns);
  const auto end_ns = prof::time_ns::from_us(end_us);
  if (!begin_ns)
    return make_error(errc::parse, start_path + ": collectionTimeBegin out of range (" + std::to_string(begin_us) +
                                       " us does not fit in signed 64-bit nanoseconds)");
  if (!start_mono)
    return make_error(errc::parse, start_path + ": clockMonotonicRaw out of range (" + std::to_string(mono_ns) +
                                       " ns does not fit in signed 64-bit nanoseconds)");
  if (!end_ns)
    return make_error(errc::parse, ctl + "end_info" + sfx + ": collectionTimeEnd out of range (" + std::to_string(end_us) +
                                       " us does not fit in signed 64-bit nanoseconds)");
  s.wall_offset_ns = *begin_ns - *start_mono;  // both in [0, INT64_MAX]: cannot overflow
  s.start_ns = *begin_ns;
  s.end_ns = end_us ? *end_ns : s.start_ns;
  // A collection that never stopped: said once the calls written are counted (account_calls).
  s.unfinished = end_us == 0;
  const std::string unfinished_why = prof_dir + ": the collection did not finish (no collectionTimeEnd in " + ctl +
                                     "end_info" + sfx + ": the program was killed or crashed); session end = last record; ";

  for (const auto& d : r.devices()) {
    device_spec di;
    di.id = d.id;
    di.aic_frequency_mhz = d.aic_frequency_mhz;
    di.ai_core_num = d.ai_core_num ? d.ai_core_num : 1;
    di.aiv_num = d.aiv_num ? d.aiv_num : 1;
    s.devices.push_back(di);
    if (s.ai_core_metrics.empty() && s.aiv_metrics.empty()) {
      s.ai_core_metrics = d.aic_metrics;
      s.aiv_metrics = d.aiv_metrics;
      s.aic_events = d.events;
      s.aiv_events = d.aiv_events;
    }
    if (s.platform_version.empty()) s.platform_version = json_text_of(d.info.get("platform_version"));
  }
  if (lo.on_session) lo.on_session(s);
  stream_join::options jo;
  jo.spill_dir = lo.spill_dir.empty() ? prof_dir : lo.spill_dir;
  jo.spill_budget = lo.spill_budget;
  jo.window_records = lo.window_records;
  stream_join j(s, h.clock, r.devices(), {r.hashes().begin(), r.hashes().end()}, {r.types().begin(), r.types().end()}, jo);

  bool any_track = false;
  auto load_ops = [&]() -> result<void> {
    if (!has_host) return {};
    MSPROF_TRY(r.for_each_node_basic_info([&](const prof::host_record<codec::MsprofNodeBasicInfo>& n) {
      // OP State comes from the file, as in the reference: aging. = dynamic.
      j.add(raw::node_basic{n.head.timeStamp, n.head.threadId, n.payload.opName, n.payload.taskType,
                            n.payload.opType, n.payload.blockNum, n.aging});
    }));
    raw::tensor_info ti;  // one for every record: its vector is reused
    MSPROF_TRY(r.for_each_tensor_info([&](const prof::host_record<codec::MsprofTensorInfo>& t) {
      ti.timestamp = t.head.timeStamp;
      ti.thread_id = t.head.threadId;
      ti.op_name = t.payload.opName;
      ti.tensors.clear();
      const std::uint32_t n = std::min<std::uint32_t>(t.payload.tensorNum, 5);
      for (std::uint32_t i = 0; i < n; ++i) {
        const auto& d = t.payload.tensorData[i];
        tensor_desc td;
        td.kind = d.tensorType;
        td.format = d.format;
        td.data_type = d.dataType;
        for (std::uint32_t dim : d.shape) {
          if (dim == 0) break;
          td.shape.push_back(dim);
        }
        ti.tensors.push_back(std::move(td));
      }
      j.add(ti);
    }));
    return {};
  };
  std::vector<raw::step_tag_record> step_tags;  // ts_track step trace -> model::iterations
  std::size_t step_bad_time = 0;                 // step tags that cannot be placed: skipped, like tasks
  // The devices' records, the host's API calls and its launches (task_track,
  // memcpy_info) go to the join beside the ops' records (join.hpp: they share
  // nothing), each read through a reader of its own so that each reader's
  // warnings stay in its files' order; they are reported as the files are
  // listed: API calls, the other host records, then the devices'.
  prof::prof_reader ar = r, lr = r, dr = r;
  const std::size_t opened = r.warnings().size();  // the warnings of opening the directory, in every copy
  auto load_apis = [&]() -> result<void> {
    if (!has_host) return {};
    return ar.for_each_api([&](const prof::api_record& a) {
      j.add(raw::api{a.level, a.type, a.thread_id, a.begin, a.end, a.item_id});
    });
  };
  auto load_launches = [&]() -> result<void> {
    if (!has_host) return {};
    MSPROF_TRY(lr.for_each_task_track([&](const prof::host_record<codec::MsprofRuntimeTrack>& t) {
      any_track = true;
      j.add(raw::task_track{t.head.timeStamp, t.head.threadId, t.payload.deviceId, t.payload.streamId,
                            t.payload.taskId, t.payload.taskType, t.payload.kernelName});
    }));
    return lr.for_each_memcpy_info([&](const prof::host_record<codec::MsprofMemcpyInfo>& m) {
      j.add(raw::memcpy_info{m.head.timeStamp, m.head.threadId, m.payload.dataSize, m.payload.maxSize,
                             m.payload.memcpyDirection});
    });
  };
  auto load_devices = [&]() -> result<void> {
    for (const auto& d : dr.devices()) {
      MSPROF_TRY(dr.for_each_acsq(d.id, [&](const codec::StarsAcsqLog& l, const codec::place&) {
        const auto f = l.func_type();
        if (f > 1) return;  // only ACSQ task start (0) / end (1)
        j.add(raw::acsq{d.id, f == 0, l.streamId, l.taskId, l.timestamp, l.task_type()});
      }));
      MSPROF_TRY(dr.for_each_pmu(d.id, [&](const codec::ContextPmu& p, const codec::place&) {
        raw::pmu pm{d.id, p.streamId, p.taskId, {}};
        pm.counters.total_cycles = p.totalCycle;
        for (std::size_t k = 0; k < 8; ++k) pm.counters.events[k] = p.pmuList[k];
        j.add(pm);
      }));
      MSPROF_TRY(dr.for_each_ts_track(d.id, [&](const codec::TsTrackStepTrace& t, const codec::place&) {
        if (t.funcType != codec::ts_track_step_func) return;
        if (const auto at = prof::time_ns::to_wall(d.clock.monotonic_ns(t.timestamp), s.wall_offset_ns))
          step_tags.push_back({d.id, t.modelId, t.indexId, t.tagId, *at});
        else
          ++step_bad_time;
      }));
    }
    return {};
  };
  result<void> apis_read, ops_read, launches_read, devices_read;
  beside(
      lo.threaded,
      [&] {
        devices_read = load_devices();
        launches_read = load_launches();
        j.merge_counts();
      },
      [&] {
        ops_read = load_ops();
        apis_read = load_apis();
      });
  MSPROF_TRY(apis_read);
  MSPROF_TRY(ops_read);
  MSPROF_TRY(launches_read);
  MSPROF_TRY(devices_read);
  const std::size_t host_warned = r.warnings().size();  // the mstx records' warnings come after the launches'
  // Iterations come from the device's step tags alone: every window has them.
  std::vector<std::string> step_warnings;
  const std::vector<iteration> iterations = build_iterations(std::move(step_tags), step_warnings);
  auto handle = [&](model& w) {
    w.iterations = iterations;
    on_window(w);
  };
  auto joined = j.run(handle);
  if (!joined) return joined.err();
  model m = std::move(*joined);
  if (end_us == 0) m.session.end_ns = std::max(m.session.end_ns, j.last_api_end());
  std::size_t mstx_bad_time = 0, mem_bad_time = 0, unknown_domains = 0;
  std::uint64_t calls_written = 0;  // mstx calls whose records are on disk: a range is two, a mark one
  // A domain hash that hash_dic lacks shows as a visible marker (counted once).
  auto domain_name = [&](std::uint64_t d) -> std::string {
    if (d == 0) return "default";
    if (r.hashes().count(d) == 0) ++unknown_domains;
    return r.lookup(d);
  };
  if (has_host) {
    // mstx and mstx_mem need no join: their own windows, in record order.
    model w;
    w.session = m.session;
    auto flush = [&] {
      if (!w.mstx.empty() || !w.mstx_mem.empty()) handle(w);
      w.mstx.clear();
      w.mstx_mem.clear();
    };
    MSPROF_TRY(r.for_each_mstx([&](const prof::mstx_record& e) {
      calls_written += e.stamp.eventType == 2 ? 2 : 1;
      auto placed =
          detail::place_mstx(e, h.clock, s.wall_offset_ns, domain_name(e.stamp.domain));
      if (!placed) {
        ++mstx_bad_time;
        return;
      }
      w.mstx.push_back(std::move(*placed));
      if (w.mstx.size() >= lo.window_records) flush();
    }));
    flush();
    MSPROF_TRY(r.for_each_mstx_mem([&](const prof::host_record<codec::MstxMemInfo>& rec) {
      ++calls_written;
      const codec::MstxMemInfo& p = rec.payload;
      const auto at = prof::time_ns::to_wall(h.clock.monotonic_ns(rec.head.timeStamp), s.wall_offset_ns);
      if (!at) {
        ++mem_bad_time;
        return;
      }
      w.mstx_mem.push_back({rec.head.threadId, *at, p.op, p.deviceId, p.handle, p.heap, p.address, p.size,
                            domain_name(p.domain)});
      if (w.mstx_mem.size() >= lo.window_records) flush();
    }));
    flush();
  }
  if (after_windows) after_windows();
  if (auto w = account_calls(m.session, h.calls_made, calls_written, unfinished_why); !w.empty())
    warnings.push_back(std::move(w));
  if (h.forked_calls != 0)  // not in msprof_calls either: the children's own, outside the equation
    warnings.push_back(prof_dir + ": " + std::to_string(h.forked_children) +
                       " process(es) fork()ed from the profiled one made " + std::to_string(h.forked_calls) +
                       " mstx call(s) that are not collected (a fork()ed child is not profiled; only pid " +
                       std::to_string(h.pid) + " is)");
  // The session's own warnings, then the reader's (every file is read by now), then the join's.
  for (std::size_t i = 0; i < opened; ++i) warnings.push_back(r.warnings()[i].message);
  for (std::size_t i = opened; i < ar.warnings().size(); ++i) warnings.push_back(ar.warnings()[i].message);
  for (std::size_t i = opened; i < host_warned; ++i) warnings.push_back(r.warnings()[i].message);
  for (std::size_t i = opened; i < lr.warnings().size(); ++i) warnings.push_back(lr.warnings()[i].message);
  for (std::size_t i = host_warned; i < r.warnings().size(); ++i) warnings.push_back(r.warnings()[i].message);
  for (std::size_t i = opened; i < dr.warnings().size(); ++i) warnings.push_back(dr.warnings()[i].message);
  if (!has_host) warnings.push_back(prof_dir + ": no host/ directory: device tasks have no launching API");
  if (has_host && r.devices().empty() && any_track)
    warnings.push_back(prof_dir + ": task_track records but no device_<id>/ directory: no device tasks exported");
  if (unknown_domains)
    warnings.push_back(prof_dir + ": " + std::to_string(unknown_domains) +
                       " mstx domain reference(s) to hashes not in host/data/*hash_dic*; shown as \"<unknown hash 0x...>\"");
  m.warnings.insert(m.warnings.begin(), warnings.begin(), warnings.end());
  detail::warn_bad_time(m.warnings, mstx_bad_time, "msproftx");
  detail::warn_bad_time(m.warnings, step_bad_time, "step-trace (ts_track)");
  detail::warn_bad_time(m.warnings, mem_bad_time, "msprof_mstx_mem");
  m.warnings.insert(m.warnings.end(), step_warnings.begin(), step_warnings.end());
  m.iterations = iterations;
  return result<model>(std::move(m));
}

}  // namespace

result<model> load_windows(const std::string& prof_dir, const load_options& lo,
                           const std::function<void(model&)>& on_window) {
  return load_windows(prof_dir, lo, {}, {on_window});
}

result<model> load_windows(const std::string& prof_dir, const load_options& lo,
                           const std::function<bool(model&)>& prepare,
                           std::vector<std::function<void(model&)>> writers) {
  if (!lo.threaded)
    return load_here(
        prof_dir, lo,
        [&](model& w) {
          if (!prepare || prepare(w))
            for (auto& write : writers) write(w);
        },
        {});
  load_options half = lo;
  half.window_records = std::max<std::size_t>(1, lo.window_records / 2);
  window_pipe pipe(std::move(writers));
  // The loader waits for the last window before the join's memory goes, so the
  // two always meet: the same peak whatever the threads' timing.
  auto m = load_here(
      prof_dir, half,
      [&](model& w) {
        if (!prepare || prepare(w)) pipe.put(w);
      },
      [&] { pipe.drain(); });
  pipe.close();  // every window handed on: the writers' state is final
  return m;
}

std::uint64_t data_bytes(const std::string& prof_dir) {
  auto rd = prof::prof_reader::open(prof_dir);
  std::uint64_t n = 0;
  if (rd)
    for (const auto& f : rd->files()) n += f.size;
  return n;
}

result<model> load_model(const std::string& prof_dir, const load_options& lo) {
  model all;
  auto m = load_windows(prof_dir, lo, [&](model& w) { detail::append_window(all, w); });
  if (!m) return m.err();
  detail::order_by_ids(all);
  all.session = std::move(m->session);
  all.iterations = std::move(m->iterations);
  all.warnings = std::move(m->warnings);
  return result<model>(std::move(all));
}

}  // namespace convert
MSPROF_END_NAMESPACE
