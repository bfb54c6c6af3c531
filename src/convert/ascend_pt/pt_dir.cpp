// SPDX-License-Identifier: MIT
// Reading a `*_ascend_pt` directory: profiler_info_{rank}.json, the FRAMEWORK
// files (codec/framework.hpp), the PROF_ directory's place, and the framework
// clock (torch_npu ProfilerConfig: counter ticks -> ns -> local time).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "msprof/codec/decode.hpp"
#include "msprof/codec/framework.hpp"
#include "msprof/convert/ascend_pt/analyse.hpp"
#include "msprof/convert/load.hpp"
#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

namespace fs = std::filesystem;
namespace fw = codec::framework;

record_list::record_list(std::size_t record_size, std::string dir, std::size_t budget) : size_(record_size) {
  if (dir.empty()) {
    std::error_code ec;
    dir = fs::temp_directory_path(ec).string();
    if (dir.empty()) dir = "/tmp";
  }
  // Read back whole and in order, a list gains nothing from more than a MiB
  // in memory but a file avoided, and a directory has several of them, filled
  // beside the PROF_ part's load (analyse.cpp).
  constexpr std::size_t most_held = std::size_t{1} << 20;
  s_ = std::make_shared<state>(std::move(dir), std::min(budget, most_held));
}

void record_list::push_back(const void* record) {
  ++s_->count;
  // The buffer is the budget, reserved once (a doubling string would take up
  // to twice it; pages not yet written to cost no memory).
  if (s_->held.capacity() < s_->file.budget()) s_->held.reserve(s_->file.budget());
  s_->held.append(static_cast<const char*>(record), size_);
  if (s_->held.size() + size_ <= s_->file.budget()) return;
  if (s_->file.ready()) s_->file.write(s_->held.data(), s_->held.size());
  if (!s_->file.ok() && s_->error.empty()) s_->error = s_->file.take_status().err().message;
  s_->held.clear();  // on a failure too: memory stays bounded, each() reports it
}

result<void> record_list::each(const std::function<void(const char*)>& fn) const {
  state& st = *s_;
  if (!st.error.empty()) return make_error(errc::io, st.error + " (the framework records)");
  const auto from = [&](const char* p, std::size_t n) {
    for (std::size_t at = 0; at + size_ <= n; at += size_) fn(p + at);
  };
  if (st.file.fd() >= 0) {
    // Whole records a chunk at a time.
    const std::size_t chunk = std::max<std::size_t>(1, (std::size_t{1} << 20) / size_) * size_;
    std::string buf(chunk, '\0');
    for (std::uint64_t pos = 0; pos < st.file.written();) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, st.file.written() - pos));
      const auto n = ::pread(st.file.fd(), buf.data(), want, static_cast<off_t>(pos));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || static_cast<std::size_t>(n) % size_ != 0)
        return make_error(errc::io, "the framework records' temporary file: cannot read back byte " +
                                        std::to_string(pos) + ": " + (n < 0 ? std::strerror(errno) : "file truncated"));
      from(buf.data(), static_cast<std::size_t>(n));
      pos += static_cast<std::uint64_t>(n);
    }
  }
  from(st.held.data(), st.held.size());
  return {};
}

result<std::string> read_file(const std::string& path) {
  std::uint64_t size = 0;
  auto opened = codec::open_regular(path, size);
  if (!opened) return opened.err();
  std::FILE* f = *opened;
  std::string s;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return make_error(errc::io, path + ": read failed");
  return s;
}

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

/// A whole number, as Python's int() reads a config value.
bool whole_number(std::string v, std::int64_t& out) {
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r' || v.back() == '\t')) v.pop_back();
  return json::value::make_number(v).to_int64(out);
}

/// The counter clock as torch_npu's ProfilerConfig takes it: the frequency from
/// the PROF_'s host/info.json (CPU[0].Frequency; when that file exists but has
/// no number there, 100 MHz, not profiler_info's), and the counter and
/// monotonic time of the start from host/host_start.log ([Host] cntvct,
/// clock_monotonic_raw) when both are numbers; profiler_info's otherwise.
void counter_clock_from_prof(pt_dir& d) {
  const fs::path host = fs::path(d.prof_dir) / "host";
  std::error_code ec;
  if (fs::is_regular_file(host / "info.json", ec)) {
    d.info.freq = 100.0;
    if (auto text = read_file((host / "info.json").string())) {
      if (auto doc = json::parse(*text, (host / "info.json").string())) {
        double f = 0;
        if (doc->get("CPU").at(0).get("Frequency").to_double(f)) d.info.freq = f;
      }
    }
  }
  if (fs::is_regular_file(host / "host_start.log", ec)) {
    auto text = read_file((host / "host_start.log").string());
    if (!text) return;
    std::string section;
    std::int64_t mono = 0, cnt = 0;
    bool has_mono = false, has_cnt = false;
    std::size_t at = 0;
    while (at < text->size()) {
      std::size_t end = text->find('\n', at);
      if (end == std::string::npos) end = text->size();
      std::string line = text->substr(at, end - at);
      at = end + 1;
      if (!line.empty() && line.front() == '[') {
        section = line.substr(1, line.find(']') == std::string::npos ? 0 : line.find(']') - 1);
        continue;
      }
      const std::size_t sep = line.find_first_of(":=");
      if (section != "Host" || sep == std::string::npos) continue;
      std::string key = line.substr(0, sep), value = line.substr(sep + 1);
      while (!key.empty() && key.back() == ' ') key.pop_back();
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      if (key == "clock_monotonic_raw") has_mono = whole_number(value, mono);
      if (key == "cntvct") has_cnt = whole_number(value, cnt);
    }
    if (has_mono && has_cnt) {
      d.info.start_monotonic = mono;
      d.info.start_cnt = cnt;
    }
  }
}

}  // namespace

result<profiler_info> parse_profiler_info(const std::string& text, const std::string& file) {
  auto doc = json::parse(text, file);
  if (!doc) return doc.err();
  if (!doc->is_object()) return make_error(errc::parse, file + ": top level is not a JSON object");
  profiler_info pi;
  const auto& common = doc->get("config").get("common_config");
  const auto& exp = doc->get("config").get("experimental_config");
  if (const auto* acts = common.find("activities"); acts && acts->is_array()) {
    pi.cpu = pi.npu = false;
    for (const auto& a : acts->items()) {
      if (a.as_string_or("") == "ProfilerActivity.CPU") pi.cpu = true;
      if (a.as_string_or("") == "ProfilerActivity.NPU") pi.npu = true;
    }
  }
  pi.level = exp.get("_profiler_level").as_string_or(pi.level);
  if (pi.level != "Level0" && pi.level != "Level1" && pi.level != "Level2" && pi.level != "Level_none")
    return make_error(errc::bad_value, file + ": experimental_config._profiler_level '" + pi.level +
                                           "' is not Level_none, Level0, Level1 or Level2");
  if (const auto* et = exp.find("_export_type")) {
    std::vector<std::string> types;
    if (et->is_string()) types.push_back(et->text());
    for (const auto& t : et->items()) types.push_back(t.as_string_or(""));
    if (!types.empty()) pi.export_type = types;
  }
  if (exp.get("_data_simplification").is_bool()) pi.data_simplification = exp.get("_data_simplification").as_bool();
  if (exp.get("_sys_interconnection").is_bool()) pi.sys_interconnection = exp.get("_sys_interconnection").as_bool();
  if (exp.get("_l2_cache").is_bool()) pi.l2_cache = exp.get("_l2_cache").as_bool();
  if (exp.get("_sys_io").is_bool()) pi.sys_io = exp.get("_sys_io").as_bool();
  const auto& si = doc->get("start_info");
  if (si.get("syscnt_enable").is_bool()) pi.syscnt_enable = si.get("syscnt_enable").as_bool();
  double freq = 0;
  if (si.get("freq").to_double(freq)) pi.freq = freq;
  si.get("start_cnt").to_int64(pi.start_cnt);
  si.get("start_monotonic").to_int64(pi.start_monotonic);
  doc->get("rank_id").to_int64(pi.rank_id);
  if (pi.syscnt_enable && !(std::fabs(pi.freq) > 1e-15))
    return make_error(errc::bad_value,
                      file + ": start_info.freq is 0 with syscnt_enable on; framework times cannot be placed");
  return pi;
}

std::int64_t framework_ns(const profiler_info& info, std::int64_t raw) noexcept {
  if (!info.syscnt_enable) return raw;
  // torch_npu: int((cnt - start_cnt) * (1000 / freq)) + start_monotonic, in doubles.
  const double ratio = 1000.0 / info.freq;
  return static_cast<std::int64_t>(static_cast<double>(raw - info.start_cnt) * ratio) + info.start_monotonic;
}

result<pt_dir> read_pt_dir(const std::string& dir) {
  pt_dir d;
  d.dir = dir;
  std::error_code ec;
  std::vector<std::string> infos, profs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (starts_with(name, "profiler_info") && name.size() > 5 && name.substr(name.size() - 5) == ".json" &&
        it->is_regular_file(ec))
      infos.push_back(it->path().string());
    if (starts_with(name, "PROF_") && it->is_directory(ec)) profs.push_back(it->path().string());
  }
  if (ec) return make_error(errc::io, dir + ": cannot list: " + ec.message());
  std::sort(infos.begin(), infos.end());
  std::sort(profs.begin(), profs.end());
  if (infos.empty())
    return make_error(errc::not_found, dir + ": no profiler_info_{rank}.json (not a torch_npu *_ascend_pt directory)");
  if (profs.empty())
    return make_error(errc::not_found,
                      dir + ": no PROF_* directory (the CANN part of the collection); nothing to analyse");
  if (profs.size() > 1)
    d.warnings.push_back(dir + ": " + std::to_string(profs.size()) + " PROF_* directories; only " + profs.front() +
                         " is analysed");
  d.prof_dir = profs.front();
  d.info_file = infos.front();
  auto text = read_file(d.info_file);
  if (!text) return text.err();
  auto info = parse_profiler_info(*text, d.info_file);
  if (!info) return info.err();
  d.info = std::move(*info);
  counter_clock_from_prof(d);
  return d;
}

namespace {

/// Reads a FRAMEWORK file a MiB at a time into `buf` (the files share it):
/// whole records only, a cut record waits for the next read; what is left at
/// the end is the file's damaged tail. decode(bytes, n, base) is called for
/// each piece (base: the file offset of bytes[0]). A piece's records are held
/// decoded, beside the PROF_ part's load (analyse.cpp): larger pieces only
/// take more memory.
template <class Decode>
result<void> decode_file(fw::file_kind kind, const std::string& path, std::atomic<std::uint64_t>* bytes_read,
                         std::vector<unsigned char>& buf, Decode decode) {
  constexpr std::size_t chunk = std::size_t{1} << 20;
  std::uint64_t size = 0;
  auto opened = codec::open_regular(path, size);
  if (!opened) return make_error(opened.err().code, opened.err().message + "; file skipped");
  std::FILE* f = *opened;
  // Room for a read and a cut record's start, made once: grown (a resize
  // zero-fills fresh pages) only when a record is longer than that.
  if (buf.size() < 2 * chunk) buf.resize(2 * chunk);
  std::size_t used = 0;    // bytes of buf read and not yet decoded
  std::uint64_t base = 0;  // file offset of buf[0]
  bool bad = false;
  for (;;) {
    if (buf.size() < used + chunk) buf.resize(used + chunk);
    const std::size_t n = std::fread(buf.data() + used, 1, chunk, f);
    used += n;
    if (n == 0 && std::ferror(f)) bad = true;
    const bool end = n == 0;
    const std::size_t whole = end ? used : fw::whole_records(kind, buf.data(), used);
    if (whole) {
      decode(buf.data(), whole, base);
      std::memmove(buf.data(), buf.data() + whole, used - whole);
      used -= whole;
      base += whole;
    }
    if (bytes_read) bytes_read->fetch_add(n, std::memory_order_relaxed);
    if (end) break;
  }
  std::fclose(f);
  if (bad)
    return make_error(errc::io, path + ": read failed after byte " + std::to_string(base + used) +
                                    "; the rest of the file is skipped");
  return {};
}

}  // namespace

void place_framework(pt_dir& d, std::int64_t wall_offset_ns, std::atomic<std::uint64_t>* bytes_read,
                     const std::string& spill_dir, std::size_t spill_budget) {
  const fs::path fwk = fs::path(d.dir) / "FRAMEWORK";
  std::error_code ec;
  if (!fs::is_directory(fwk, ec)) return;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(fwk, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  fw::records rec;
  const auto local = [&](std::int64_t raw) { return framework_ns(d.info, raw) + wall_offset_ns; };
  // One torch_npu process writes a directory: records of another pid than the
  // first op's (the one the db export files them under) are said, per file.
  std::optional<std::uint64_t> first_pid;
  struct other_pids {
    std::size_t n = 0;
    std::uint64_t offset = 0, pid = 0;
    void see(std::uint64_t p, std::uint64_t off, std::uint64_t expected) {
      if (p == expected) return;
      if (n++ == 0) {
        offset = off;
        pid = p;
      }
    }
  } op_pids, mark_pids, memory_pids;
  std::set<std::uint64_t> pids_with_ops;
  // Ops are taken as they are decoded, their texts straight from the file's
  // bytes into the text table (the file is never held whole, nor its ops twice).
  const auto take_op = [&](const fw::op_range_view& o) {
    if (!first_pid) first_pid = o.pid;
    op_pids.see(o.pid, o.offset, *first_pid);
    pids_with_ops.insert(o.pid);
    fw_op op;
    op.start_ns = local(o.start);
    op.end_ns = local(o.end);
    op.pid = o.pid;
    op.tid = o.start_tid;
    op.step = o.name.find("ProfilerStep#") != std::string_view::npos;
    op.mstx = o.name.substr(0, 5) == "mstx_";
    op.name = d.texts.of(o.name);
    op.input_shapes = d.texts.of(o.input_shapes);
    op.call_stack = d.texts.of(o.call_stack);
    op.seq = o.seq;
    op.fwd_tid = o.fwd_tid;
    op.input_dtypes = d.texts.of(o.input_dtypes);
    op.module_hierarchy = d.texts.of(o.module_hierarchy);
    op.flops = d.texts.of(o.flops);
    op.has_shapes = o.has_shapes;
    op.has_dtypes = o.has_dtypes;
    op.has_stack = o.has_stack;
    op.has_module = o.has_module;
    op.has_flops = o.has_flops;
    d.earliest_op_ns = d.ops.empty() ? op.start_ns : std::min(d.earliest_op_ns, op.start_ns);
    d.ops.push_back(op);
  };
  // Task-queue marks leave `rec` piece by piece too, into a sorted run by
  // local time (equal times keep file order, as a stable sort would): only a
  // budget of them is in memory. Their pids are checked once the directory's
  // process is known (torch.op_mark is read before torch.op_range): per pid,
  // its count and its first mark in file order.
  struct mark_key {
    std::int64_t ts;
    bool operator<(const mark_key& o) const noexcept { return ts < o.ts; }
  };
  struct mark_head {
    std::uint64_t category, corr_id, tid, pid;
  };
  std::string run_dir = spill_dir;
  if (run_dir.empty()) run_dir = fs::temp_directory_path(ec).string();
  if (run_dir.empty()) run_dir = "/tmp";
  // A quarter of the budget: this runs beside the PROF_ part's load (analyse.cpp).
  spill_sorter<mark_key> marks(run_dir, spill_budget / 4);
  d.spill_dir = run_dir;
  d.spill_budget = spill_budget;
  if (d.ops.empty()) d.ops = spilled_list<fw_op>(run_dir, spill_budget);
  if (d.enqueue.empty()) d.enqueue = spilled_list<queue_span>(run_dir, spill_budget);
  if (d.dequeue.empty()) d.dequeue = spilled_list<queue_span>(run_dir, spill_budget);
  if (d.memory.empty()) d.memory = spilled_list<fw::memory_usage>(run_dir, spill_budget);
  if (d.python_calls.empty()) d.python_calls = spilled_list<py_call>(run_dir, spill_budget);
  if (d.gcs.empty()) d.gcs = spilled_list<gc_span>(run_dir, spill_budget);
  // Per pid: its count and its first record in file order.
  struct pid_seen {
    std::size_t n = 0, first = 0;
    std::uint64_t offset = 0;
    void see(std::size_t index, std::uint64_t off) {
      if (n++ == 0) {
        first = index;
        offset = off;
      }
    }
  };
  std::map<std::uint64_t, pid_seen> mark_pid_counts, memory_pid_counts;
  std::size_t mark_count = 0, memory_count = 0;
  std::optional<std::uint64_t> first_mark_pid, first_memory_pid;
  // Per pid: its earliest inner-allocator NPU record (time, then file order), for memory_pid.
  struct earliest_record {
    std::int64_t time;
    std::size_t index;
  };
  std::map<std::uint64_t, earliest_record> memory_first;
  std::int64_t last_memory_time = 0;
  const auto take_memory = [&] {
    for (auto u : rec.memory) {
      if (!first_memory_pid) first_memory_pid = u.pid;
      memory_pid_counts[u.pid].see(memory_count, u.offset);
      u.time = local(u.time);
      if (u.device_type == fw::memory_usage::npu && u.allocator_type == fw::memory_usage::inner_allocator) {
        auto [it, fresh] = memory_first.try_emplace(u.pid, earliest_record{u.time, memory_count});
        if (!fresh && u.time < it->second.time) it->second = {u.time, memory_count};
      }
      ++memory_count;
      if (!d.memory.empty() && u.time < last_memory_time) d.memory_in_time_order = false;
      last_memory_time = u.time;
      d.memory.push_back(u);
    }
    rec.memory.clear();
  };
  // Python tracer records and garbage collections leave `rec` piece by piece too.
  const auto take_python = [&] {
    for (const auto& f : rec.python_funcs) {
      auto t = std::find_if(d.python_threads.begin(), d.python_threads.end(),
                            [&](const pt_dir::py_thread& p) { return p.tid == f.tid; });
      if (t == d.python_threads.end()) t = d.python_threads.insert(t, {f.tid, false});
      if (f.trace_tag == 0 || f.trace_tag == 2) t->calls = true;
      d.python_calls.push_back({local(static_cast<std::int64_t>(f.start)), f.tid, f.pid, f.hash_key, f.trace_tag});
    }
    rec.python_funcs.clear();
    for (const auto& g : rec.gcs)
      d.gcs.push_back({local(static_cast<std::int64_t>(g.start)), local(static_cast<std::int64_t>(g.end)), g.pid});
    rec.gcs.clear();
  };
  std::string payload;
  const auto take_marks = [&] {
    for (const auto& m : rec.marks) {
      if (!first_mark_pid) first_mark_pid = m.pid;
      mark_pid_counts[m.pid].see(mark_count++, m.offset);
      const mark_head h{m.category, m.corr_id, m.tid, m.pid};
      payload.assign(bytes_of(h));
      payload += m.name;
      marks.push({local(m.time)}, payload);
    }
    rec.marks.clear();
  };
  const auto take_pieces = [&] {
    take_marks();
    take_memory();
    take_python();
  };
  // torch_npu reads the first file of each kind; later ones (its own names
  // never repeat a kind) are read too rather than dropped silently.
  std::vector<unsigned char> buf;
  for (const auto& p : files) {
    const auto kind = fw::kind_of(p.filename().string());
    if (kind == fw::file_kind::unknown) continue;
    if (kind == fw::file_kind::op_mark) d.has_task_queue = true;
    const std::string path = p.string();
    const auto piece = [&](const unsigned char* b, std::size_t n, std::uint64_t base) {
      if (kind == fw::file_kind::op_range) {
        fw::warn_invalid_text(path, fw::decode_op_ranges(b, n, path, d.warnings, base, take_op), d.warnings);
        return;
      }
      fw::decode(kind, b, n, path, rec, d.warnings, base);
      take_pieces();
    };
    auto read = decode_file(kind, path, bytes_read, buf, piece);
    if (!read) d.warnings.push_back(read.err().message);
    // A piece's records are taken out, but their vectors keep their size: let
    // it go, so that one file's piece is in memory at a time, not one of each kind.
    // (`v = {}` would keep the capacity.)
    rec.marks = decltype(rec.marks)();
    rec.memory = decltype(rec.memory)();
    rec.python_funcs = decltype(rec.python_funcs)();
    rec.gcs = decltype(rec.gcs)();
  }
  if (!first_pid) first_pid = first_mark_pid;
  if (!first_pid) first_pid = first_memory_pid;
  // Records of other pids than the first: their count and the earliest of them in file order.
  const auto others = [&](const std::map<std::uint64_t, pid_seen>& counts, other_pids& o) {
    const pid_seen* earliest = nullptr;
    for (const auto& [pid, seen] : counts) {
      if (pid == *first_pid) continue;
      o.n += seen.n;
      if (!earliest || seen.first < earliest->first) {
        earliest = &seen;
        o.offset = seen.offset;
        o.pid = pid;
      }
    }
  };
  others(mark_pid_counts, mark_pids);
  others(memory_pid_counts, memory_pids);
  {
    const earliest_record* best = nullptr;
    for (const auto& [pid, first] : memory_first) {
      if (!pids_with_ops.count(pid)) continue;  // torch_npu: "Lack of torch ops to connect memory record"
      if (!best || first.time < best->time || (first.time == best->time && first.index < best->index)) {
        best = &first;
        d.memory_pid = pid;
      }
    }
  }
  for (const auto& [name, o] : {std::pair<const char*, const other_pids&>{"torch.op_range", op_pids},
                                {"torch.op_mark", mark_pids},
                                {"torch.memory_usage", memory_pids}})
    if (o.n)
      d.warnings.push_back(codec::place{(fwk / name).string(), o.offset}.str() + ": pid " + std::to_string(o.pid) +
                           ", not the directory's process " + std::to_string(*first_pid) + " (its first op's); " +
                           std::to_string(o.n) + " record(s) of other processes, analysed as they are");
  for (auto& h : rec.python_hashes) d.python_names[h.key] = std::move(h.value);  // a later duplicate wins

  // Task queue: marks in time order; an end pairs with the latest open start
  // of the same thread and name (torch_npu get_task_queue_data).
  std::map<std::pair<std::uint64_t, std::string>, std::vector<std::int64_t>> open_enq, open_deq;
  std::size_t unmatched = 0;
  std::string name;
  auto drained = marks.drain([&](const mark_key& k, std::string_view p) {
    auto m = from_bytes<mark_head>(p);
    name.assign(p.substr(sizeof m));
    const bool enq = m.category == fw::mark::enqueue_start || m.category == fw::mark::enqueue_end;
    auto& open = enq ? open_enq : open_deq;
    if (m.category == fw::mark::enqueue_start || m.category == fw::mark::dequeue_start) {
      open[{m.tid, name}].push_back(k.ts);
      return;
    }
    if (m.category != fw::mark::enqueue_end && m.category != fw::mark::dequeue_end) return;
    auto it = open.find({m.tid, name});
    if (it == open.end() || it->second.empty()) {
      ++unmatched;
      return;
    }
    const std::int64_t start = it->second.back();
    it->second.clear();
    const queue_span q{start, k.ts - start, m.corr_id, m.tid, m.pid, d.texts.of(name)};
    (enq ? d.enqueue : d.dequeue).push_back(q);
  });
  if (!drained)
    d.warnings.push_back((fwk / "torch.op_mark").string() + ": the task-queue marks could not be sorted: " +
                         drained.err().what() + "; the task queue is incomplete");
  if (unmatched)
    d.warnings.push_back((fwk / "torch.op_mark").string() + ": " + std::to_string(unmatched) +
                         " enqueue/dequeue end mark(s) without a start; ignored");
}

std::vector<std::string> simplify_data(const std::string& dir, std::vector<std::string>& warnings) {
  std::vector<std::string> removed;
  std::error_code ec;
  const auto remove = [&](const fs::path& p) {
    std::error_code e;
    const auto st = fs::symlink_status(p, e);
    if (e || !fs::exists(st)) return;
    // remove_all neither follows a link at p nor links inside: only what is under dir goes.
    if (fs::remove_all(p, e) == static_cast<std::uintmax_t>(-1) || e) {
      warnings.push_back(p.string() + ": data simplification could not remove it: " + e.message());
      return;
    }
    removed.push_back(p.string());
  };
  std::vector<fs::path> profs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (starts_with(it->path().filename().string(), "PROF_") && !it->is_symlink(ec) && it->is_directory(ec))
      profs.push_back(it->path());
  std::sort(profs.begin(), profs.end());
  for (const auto& prof : profs) {
    for (const char* sub : {"mindstudio_profiler_output", "mindstudio_profiler_log", "analyze"}) remove(prof / sub);
    std::vector<fs::path> parts;
    for (fs::directory_iterator it(prof, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if ((name == "host" || starts_with(name, "device_")) && !it->is_symlink(ec) && it->is_directory(ec))
        parts.push_back(it->path());
    }
    std::sort(parts.begin(), parts.end());
    for (const auto& part : parts)
      for (const char* sub : {"sqlite", "summary", "timeline"}) remove(part / sub);
  }
  return removed;
}

framework_kind framework_of(const std::string& dir) {
  fs::path p(dir);
  while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "x/" -> "x"
  const std::string n = p.filename().string();
  if (n.size() <= 10) return framework_kind::none;
  const std::string suffix = n.substr(n.size() - 10);
  return suffix == "_ascend_pt"   ? framework_kind::torch_npu
         : suffix == "_ascend_ms" ? framework_kind::mindspore
                                  : framework_kind::none;
}

std::uint64_t input_bytes(const std::string& dir) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (starts_with(name, "PROF_") && it->is_directory(ec) && !it->is_symlink(ec)) n += data_bytes(it->path().string());
  }
  for (fs::directory_iterator it(fs::path(dir) / "FRAMEWORK", ec), end; !ec && it != end; it.increment(ec))
    if (fw::kind_of(it->path().filename().string()) != fw::file_kind::unknown && it->is_regular_file(ec))
      n += it->file_size(ec);
  return n;
}

std::vector<std::string> find_pt_dirs(const std::string& dir) {
  const auto is_pt = [](const fs::path& p) { return framework_of(p.string()) != framework_kind::none; };
  std::error_code ec;
  if (is_pt(dir)) return {dir};
  std::vector<std::string> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_pt(it->path()) && it->is_directory(ec)) out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint64_t> python_function_threads(const pt_dir& d) {
  std::vector<std::uint64_t> out;
  if (d.python_calls.empty() || d.python_names.empty()) return out;  // torch_npu needs both files
  for (const auto& t : d.python_threads)
    if (t.calls) out.push_back(t.tid);
  return out;
}

result<void> python_functions(const pt_dir& d, const std::function<void(const py_function&)>& fn) {
  if (d.python_calls.empty() || d.python_names.empty()) return {};  // torch_npu needs both files
  // Records by thread (first-seen order), then time; equal times keep file order.
  struct call_key {
    std::uint64_t thread;
    std::int64_t ts;
    bool operator<(const call_key& b) const noexcept { return thread != b.thread ? thread < b.thread : ts < b.ts; }
  };
  std::map<std::uint64_t, std::uint64_t> thread_of;
  for (const auto& t : d.python_threads) thread_of.emplace(t.tid, thread_of.size());
  spill_sorter<call_key> calls(d.spill_dir, d.spill_budget);
  MSPROF_TRY(d.python_calls.each([&](const py_call& c) {
    calls.push({thread_of[c.tid], c.ts}, record_bytes(c));
  }));
  constexpr std::string_view delimiter = "######";
  std::vector<py_function> stack;
  std::map<std::string, std::size_t> module_count;
  std::map<std::string, std::size_t> module_number;  // uid -> number
  std::int64_t last = 0;
  std::size_t i = 0;  // the record's index in its thread's
  std::optional<std::uint64_t> thread;
  const auto end_thread = [&] {
    for (; !stack.empty(); stack.pop_back()) {
      stack.back().end = last;
      fn(stack.back());
    }
    module_count.clear();
    module_number.clear();
    last = 0;
    i = 0;
  };
  py_call c;
  MSPROF_TRY(calls.drain([&](const call_key& k, std::string_view p) {
    if (thread != k.thread) end_thread();
    thread = k.thread;
    std::memcpy(static_cast<void*>(&c), p.data(), sizeof c);
    if (c.tag == 0 || c.tag == 2) {
      py_function f;
      f.ts = c.ts;
      f.tid = c.tid;
      f.pid = c.pid;
      f.id = i;
      f.parent = stack.empty() ? 0 : stack.back().id;
      const auto name = d.python_names.find(c.hash_key);
      f.name = name == d.python_names.end() ? std::to_string(c.hash_key) : name->second;
      const auto at = f.name.find(delimiter);
      if (c.tag == 0 && at != std::string::npos) {
        const std::string module = f.name.substr(0, at), uid = f.name.substr(at + delimiter.size());
        auto [it, fresh] = module_number.try_emplace(uid, 0);
        if (fresh) it->second = module_count[module]++;
        f.module_id = it->second;
        f.name = "nn.Module: " + module + "_" + std::to_string(it->second);
      }
      stack.push_back(std::move(f));
    } else if ((c.tag == 1 || c.tag == 3) && !stack.empty()) {
      stack.back().end = c.ts;
      fn(stack.back());
      stack.pop_back();
    }
    last = std::max(last, c.ts);
    ++i;
  }));
  end_thread();
  return {};
}


}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE
