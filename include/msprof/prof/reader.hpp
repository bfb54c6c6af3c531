// SPDX-License-Identifier: MIT
// Reads a whole PROF_ directory: control files, clocks, dictionaries, and every
// record stream through streaming callbacks (memory does not grow with the
// number of records; only the dictionaries are held).
//
//   auto r = prof::prof_reader::open("PROF_000001_...");      // result<prof_reader>
//   r->for_each_api([&](const prof::api_record& a) { ... });     // result<void>
//   r->for_each_acsq(0, [&](const codec::StarsAcsqLog& l, const codec::place&) { ... });
//   for (auto& w : r->warnings()) puts(w.text().c_str());       // truncated tails etc.
//
// Slices are read in slice order, both aging. and unaging. prefixes (aging
// first). Damage inside a file (truncated last record, bad magic, impossible
// dataLen) is a warning naming file, byte offset and bytes; the good records of
// that file and of every other file are kept; a file gives at most
// reader_options::max_warnings_per_file such lines plus one count. A slice whose
// size differs from its <name>.done, a <name>.done whose slice is missing, and
// a compact/additional record whose type id is not its slice's kind (skipped),
// are warnings too. Only regular files
// are read (opened O_NONBLOCK, checked with fstat: a FIFO never blocks); any
// other file is an error naming it. Control files (info.json, clocks, counter
// files) are read by control_files.hpp, with its own rules for damage.
#ifndef MSPROF_PROF_READER_HPP
#define MSPROF_PROF_READER_HPP

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/directory.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../codec/decode.hpp"
#include "../codec/dictionary.hpp"
#include "../codec/format.hpp"
#include "clock.hpp"
#include "control_files.hpp"
#include "layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

/// One data file found in the directory.
struct data_file {
  std::string path;          ///< full path
  std::string name;          ///< file name
  bool device = false;
  std::uint32_t device_id = 0;
  bool aging = false;        ///< host only
  std::string module;        ///< host: api_event/compact/additional/variable; device: name stem (stars_soc, ...)
  std::string tag;           ///< host: data/node_basic_info/...; device: ""
  std::uint32_t slice = 0;
  std::uint64_t size = 0;
  std::optional<std::uint64_t> done_size;  ///< "filesize:" of <name>.done, when present
};


/// One API call (an MsprofApi, or two paired MsprofEvent halves).
struct api_record {
  std::uint16_t level = 0;
  std::uint32_t type = 0;
  std::uint32_t thread_id = 0;
  std::uint32_t reserve = 0;   ///< MsprofApi.reserve / the events' requestId
  std::uint64_t begin = 0;     ///< raw host timestamp
  std::uint64_t end = 0;
  std::uint64_t item_id = 0;
  bool from_events = false;
  bool aging = false;
};

/// A host compact/additional record with its decoded payload.
template <class T>
struct host_record {
  codec::record_header head;
  T payload;
  bool aging = false;
};

/// One mstx event (segments joined).
struct mstx_record {
  std::uint16_t info_type = 0;
  std::uint32_t thread_id = 0;  ///< header threadId
  codec::MsprofStampInfo stamp;        ///< message field: first segment only; use `message`
  std::string message;          ///< all segments joined
  std::uint16_t segments = 1;
  bool aging = false;
};

class prof_reader {
 public:
  prof_reader() = default;

  static result<prof_reader> open(const std::string& dir, const reader_options& opt = {}) {
    prof_reader r;
    r.root_ = dir;
    r.opt_ = opt;
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0) return make_error(errc::not_found, dir + ": no such directory");
    if (!S_ISDIR(st.st_mode)) return make_error(errc::invalid_argument, dir + ": not a directory");
    const bool has_host = posix_dir::is_dir(dir + "/" + layout::host_dir);
    auto entries = posix_dir::list(dir);
    if (!entries) return entries.err();
    std::vector<std::uint32_t> devs;
    for (const auto& e : *entries) {
      std::uint64_t id = 0;
      const std::size_t pl = std::string_view(layout::device_dir_prefix).size();
      if (e.rfind(layout::device_dir_prefix, 0) == 0 && codec::detail::parse_u64(e.substr(pl), id) && id < 0x10000 && posix_dir::is_dir(dir + "/" + e))
        devs.push_back(static_cast<std::uint32_t>(id));
    }
    std::sort(devs.begin(), devs.end());
    if (!has_host && devs.empty())
      return make_error(errc::not_found, dir + ": not a PROF_ directory (no host/ and no device_<id>/); a collection "
                                             "leaves one so when it did not finish: its program was killed as it started");
    control_reader control(r.opt_, r.warnings_);
    bool ended = posix_dir::exists(dir + "/" + layout::host_dir + "/" + layout::end_info);
    for (auto id : devs)
      ended = ended || posix_dir::exists(dir + "/" + layout::device_dir(id) + "/" + layout::for_device(layout::end_info, id));
    control.set_unfinished(!ended);
    if (has_host) {
      MSPROF_TRY(control.read_host(dir, r.host_));
      MSPROF_TRY(r.index_data(r.host_data_dir(), false, 0));
    }
    for (auto id : devs) {
      MSPROF_TRY(control.read_device(dir, id, r.devices_.emplace_back()));
      MSPROF_TRY(r.index_data(dir + "/" + layout::device_dir(id) + "/" + layout::data_dir, true, id));
    }
    std::sort(r.files_.begin(), r.files_.end(), [](const data_file& a, const data_file& b) {
      return std::tie(a.device, a.device_id, a.module, a.tag, b.aging, a.slice) <
             std::tie(b.device, b.device_id, b.module, b.tag, a.aging, b.slice);
    });
    MSPROF_TRY(r.load_dictionaries());
    return r;
  }

  const std::string& path() const noexcept { return root_; }
  const host_info& host() const noexcept { return host_; }
  const std::vector<device_info>& devices() const noexcept { return devices_; }
  const device_info* device(std::uint32_t id) const noexcept {
    for (const auto& d : devices_)
      if (d.id == id) return &d;
    return nullptr;
  }
  const std::vector<data_file>& files() const noexcept { return files_; }
  const codec::hash_map& hashes() const noexcept { return hashes_; }
  const codec::type_map& types() const noexcept { return types_; }
  /// hash -> string, or codec::unknown_hash_text(h) when hash_dic lacks it ("" for 0).
  std::string lookup(std::uint64_t h) const {
    if (h == 0) return {};
    auto it = hashes_.find(h);
    return it == hashes_.end() ? codec::unknown_hash_text(h) : it->second;
  }
  std::string type_name(std::uint16_t lv, std::uint32_t ty) const {
    auto it = types_.find({lv, ty});
    return it == types_.end() ? std::to_string(ty) : it->second;
  }
  /// Warnings so far (open() and every for_each_* call add to them).
  const std::vector<warning>& warnings() const noexcept { return warnings_; }
  /// A problem a for_each_*_line callback finds in the line at `at`: a
  /// warning like the reader's own, under the same cap while its slice is read.
  void line_warning(const codec::place& at, const std::string& what) {
    if (scanning_ && scanning_->path == at.file)
      return warn(*scanning_, at.offset, 0, warn_shown(*scanning_) ? at.str() + ": " + what : std::string());
    warnings_.push_back({std::string(at.file), at.offset, 0, at.str() + ": " + what});
  }

  /// Every API call in host api_event slices. MsprofEvent halves are paired by
  /// (level, type, thread, requestId, itemId); an unmatched half is a warning.
  template <class F>
  result<void> for_each_api(F&& on_api) {
    std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t>, std::pair<std::uint64_t, bool>> open_events;
    for (const auto& f : files_) {
      if (f.device || f.module != "api_event") continue;
      MSPROF_TRY(scan(f, codec::api_size, [&](const unsigned char* p, const codec::place& at) {
        auto d = decode_api(p, codec::api_size, at);
        if (!d) return warn(f, at.offset, codec::api_size, d.err().message + "; record skipped");
        if (!d->is_event) {
          const auto& a = d->api;
          if (a.beginTime == 0) return;  // CANN drops these too
          on_api(api_record{a.level, a.type, a.threadId, a.reserve, a.beginTime, a.endTime, a.itemId, false, f.aging});
          return;
        }
        const auto& e = d->event;
        auto key = std::make_tuple(e.level, e.type, e.threadId, e.requestId, e.itemId);
        auto it = open_events.find(key);
        if (it == open_events.end()) {
          if (open_events.size() >= opt_.max_pending_events)
            return warn(f, at.offset, codec::api_size, "too many unmatched MsprofEvent halves; event skipped");
          open_events.emplace(key, std::make_pair(e.timeStamp, f.aging));
          return;
        }
        const std::uint64_t b = it->second.first;
        open_events.erase(it);
        if (b == 0) return;
        on_api(api_record{e.level, e.type, e.threadId, e.requestId, b, e.timeStamp, e.itemId, true, f.aging});
      }));
    }
    if (!open_events.empty())
      warnings_.push_back({host_data_dir(), 0, 0,
                           root_ + "/host/data: " + std::to_string(open_events.size()) +
                               " MsprofEvent begin half(s) without a matching end were skipped"});
    return {};
  }

  /// Raw compact records of one tag (e.g. "node_basic_info").
  template <class F>
  result<void> for_each_compact(std::string_view tag, F&& on_rec) {
    for (const auto& f : files_) {
      if (f.device || f.module != "compact" || f.tag != tag) continue;
      MSPROF_TRY(scan(f, codec::compact_size, [&](const unsigned char* p, const codec::place& at) {
        auto d = decode_compact(p, codec::compact_size, at);
        if (!d) return warn(f, at.offset, codec::compact_size, d.err().message + "; record skipped");
        if (!type_matches(f, d->head, at, codec::compact_size)) return;
        on_rec(*d, f, at);
      }));
    }
    return {};
  }
  /// Raw additional records of one tag (e.g. "tensor_info").
  template <class F>
  result<void> for_each_additional(std::string_view tag, F&& on_rec) {
    for (const auto& f : files_) {
      if (f.device || f.module != "additional" || f.tag != tag) continue;
      MSPROF_TRY(scan(f, codec::additional_size, [&](const unsigned char* p, const codec::place& at) {
        auto d = decode_additional(p, codec::additional_size, at);
        if (!d) return warn(f, at.offset, codec::additional_size, d.err().message + "; record skipped");
        if (!type_matches(f, d->head, at, codec::additional_size)) return;
        on_rec(*d, f, at);
      }));
    }
    return {};
  }

  template <class F> result<void> for_each_node_basic_info(F&& cb) {
    // RUNTIME copies of the struct lack opState: accept dataLen >= 28.
    return typed_compact<codec::MsprofNodeBasicInfo>("node_basic_info", 28, cb);
  }
  template <class F> result<void> for_each_task_track(F&& cb) { return typed_compact<codec::MsprofRuntimeTrack>("task_track", 32, cb); }
  template <class F> result<void> for_each_memcpy_info(F&& cb) { return typed_compact<codec::MsprofMemcpyInfo>("memcpy_info", 18, cb); }
  template <class F> result<void> for_each_hccl_op_info(F&& cb) { return typed_compact<codec::MsprofHcclOPInfo>("hccl_op_info", 26, cb); }
  template <class F> result<void> for_each_hccl_info(F&& cb) { return typed_additional<codec::MsprofHcclInfo>("hccl_info", 120, cb); }
  template <class F> result<void> for_each_tensor_info(F&& cb) { return typed_additional<codec::MsprofTensorInfo>("tensor_info", 12, cb); }
  template <class F> result<void> for_each_context_id_info(F&& cb) { return typed_additional<codec::MsprofContextIdInfo>("context_id_info", 12, cb); }
  template <class F> result<void> for_each_graph_id_map(F&& cb) { return typed_additional<codec::MsprofGraphIdInfo>("graph_id_map", 16, cb); }
  template <class F> result<void> for_each_mstx_mem(F&& cb) { return typed_additional<codec::MstxMemInfo>("msprof_mstx_mem", 48, cb); }
  template <class F> result<void> for_each_task_memory_info(F&& cb) { return typed_additional<codec::MsprofMemoryInfo>(layout::tag::task_memory_info, 48, cb); }
  template <class F> result<void> for_each_static_op_mem(F&& cb) { return typed_additional<codec::MsprofStaticOpMem>(layout::tag::static_op_mem, 52, cb); }

  /// mstx events; a message split over several records (res0 = 0, 1, ...,
  /// same markId and thread, consecutive) is joined back together.
  template <class F>
  result<void> for_each_mstx(F&& on_event) {
    mstx_record pending;
    bool have = false;
    std::size_t invalid_utf8 = 0;
    auto emit = [&] {
      // Checked once joined: a character may be split over two segments.
      if (have && json::utf8_repair(pending.message)) ++invalid_utf8;
      if (have) on_event(static_cast<const mstx_record&>(pending));
      have = false;
    };
    for (const auto& f : files_) {
      if (f.device || f.module != "additional" || f.tag != "msproftx") continue;
      MSPROF_TRY(scan(f, codec::additional_size, [&](const unsigned char* p, const codec::place& at) {
        auto d = decode_additional(p, codec::additional_size, at);
        if (!d) return warn(f, at.offset, codec::additional_size, d.err().message + "; record skipped");
        if (!type_matches(f, d->head, at, codec::additional_size)) return;
        const auto tx = codec::load<codec::MsprofTxInfo>(d->data);
        const std::string_view text = tx_segment_text(tx);
        if (tx.res0 != 0 && have && pending.stamp.markId == tx.stampInfo.markId && pending.thread_id == d->head.threadId &&
            tx.res0 == pending.segments) {
          if (pending.message.size() + text.size() <= 64 * 1024) pending.message.append(text.data(), text.size());
          ++pending.segments;
          return;
        }
        if (tx.res0 != 0)
          warn(f, at.offset, codec::additional_size, "msproftx segment " + std::to_string(tx.res0) + " of markId " +
                                                  std::to_string(tx.stampInfo.markId) + " without its previous segment; kept alone");
        emit();
        pending = mstx_record{};
        pending.info_type = tx.infoType;
        pending.thread_id = d->head.threadId;
        pending.stamp = tx.stampInfo;
        pending.message.assign(text.data(), text.size());
        pending.segments = 1;
        pending.aging = f.aging;
        have = true;
      }));
    }
    emit();
    if (invalid_utf8)
      warnings_.push_back({host_data_dir(), 0, 0,
                           root_ + "/host/data: " + std::to_string(invalid_utf8) +
                               " msproftx message(s) are not valid UTF-8; each invalid byte is shown as U+FFFD"});
    return {};
  }

  /// STARS ACSQ task logs of device `dev` (stars_soc). The ACC_PMU samples
  /// in the same slices are passed over (convert/acc_pmu.hpp reads them).
  template <class F>
  result<void> for_each_acsq(std::uint32_t dev, F&& cb) {
    return device_stream(dev, layout::stars_soc, codec::acsq_size, [&](const unsigned char* p, const data_file& f, const codec::place& at) {
      if ((codec::detail::load_le<std::uint16_t>(p) & 0x3F) == codec::acc_pmu_func) return;
      auto d = decode_acsq(p, codec::acsq_size, at);
      if (!d) return warn(f, at.offset, codec::acsq_size, d.err().message + "; record skipped");
      cb(static_cast<const codec::StarsAcsqLog&>(*d), at);
    });
  }
  /// Per-task PMU records (ffts_profile codec::ContextPmu).
  template <class F>
  result<void> for_each_pmu(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::ContextPmu>(dev, layout::ffts_profile, cb);
  }
  /// ts_track step-trace records.
  template <class F>
  result<void> for_each_ts_track(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::TsTrackStepTrace>(dev, layout::ts_track, cb);
  }

  /// npu_module_mem samples of device `dev`.
  template <class F>
  result<void> for_each_npu_module_mem(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::NpuModuleMem>(dev, layout::npu_module_mem, cb);
  }

  /// npu_mem samples (APP and device memory) of device `dev`.
  template <class F>
  result<void> for_each_npu_mem(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::NpuMem>(dev, layout::npu_mem, cb);
  }

  /// PCIe samples of device `dev`.
  template <class F>
  result<void> for_each_pcie(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::PcieSample>(dev, layout::pcie, cb);
  }

  /// HBM samples of device `dev`.
  template <class F>
  result<void> for_each_hbm(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::HbmSample>(dev, layout::hbm, cb);
  }

  /// DDR samples of device `dev`.
  template <class F>
  result<void> for_each_ddr(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::DdrSample>(dev, layout::ddr, cb);
  }

  /// LLC samples of device `dev` in the layout `Sample` (LlcSample or LlcSampleV2).
  template <class Sample, class F>
  result<void> for_each_llc(std::uint32_t dev, F&& cb) {
    static_assert(sizeof(Sample) == codec::llc_size, "an LLC layout");
    return for_each_fixed<Sample>(dev, layout::llc, cb);
  }

  /// HCCS samples of device `dev`, slice by slice, each slice's first line
  /// (its header) passed over; a line that is not a sample is a warning with
  /// its byte offset and is skipped.
  template <class F>
  result<void> for_each_hccs(std::uint32_t dev, F&& cb) {
    return text_lines(true, dev, layout::hccs, "HCCS", [](std::string_view) { return true; }, codec::decode_hccs_line, cb);
  }

  /// NIC or RoCE samples (`stem` layout::nic or layout::roce: one format) of
  /// device `dev`, slice by slice, a first line holding the word "rxPacket/s"
  /// (a header) passed over; a line that is not a sample is a warning with its
  /// byte offset and is skipped.
  template <class F>
  result<void> for_each_network(std::uint32_t dev, std::string_view stem, F&& cb) {
    const auto header = [](std::string_view first) {
      std::vector<std::string> f;
      codec::detail::split_fields(first, std::string_view::npos, f);
      return std::find(f.begin(), f.end(), "rxPacket/s") != f.end();
    };
    return text_lines(true, dev, stem, stem == layout::roce ? "RoCE" : "NIC", header, codec::decode_nic_line, cb);
  }

  /// The lines of the host's CPU usage slices (HostCpuLine), slice by slice;
  /// a line that is not one is a warning with its byte offset and is skipped.
  template <class F>
  result<void> for_each_host_cpu_line(F&& cb) {
    return text_lines(false, 0, layout::host_cpu, "host CPU", [](std::string_view) { return false; }, codec::decode_host_cpu_line, cb);
  }

  /// The lines of the host's memory usage slices (HostMemLine), as for_each_host_cpu_line.
  template <class F>
  result<void> for_each_host_mem_line(F&& cb) {
    return text_lines(false, 0, layout::host_mem, "host memory", [](std::string_view) { return false; }, codec::decode_host_mem_line, cb);
  }

  /// The lines of the host's disk usage slices (HostDiskLine), as for_each_host_cpu_line.
  template <class F>
  result<void> for_each_host_disk_line(F&& cb) {
    return text_lines(false, 0, layout::host_disk, "host disk", [](std::string_view) { return false; }, codec::decode_host_disk_line, cb);
  }

  /// The lines of the host's network usage slices (HostNetLine), as for_each_host_cpu_line.
  template <class F>
  result<void> for_each_host_net_line(F&& cb) {
    return text_lines(false, 0, layout::host_network, "host network", [](std::string_view) { return false; }, codec::decode_host_net_line, cb);
  }

  /// L2 cache counters of device `dev`, one record per task.
  template <class F>
  result<void> for_each_l2_cache(std::uint32_t dev, F&& cb) {
    return for_each_fixed<codec::L2CacheTask>(dev, layout::l2_cache, cb);
  }

  /// SoC PMU records of device `dev` (every data type), read in the layout of
  /// chips 15 and 16 when `v6` and given in it either way (decode_soc_pmu).
  template <class F>
  result<void> for_each_soc_pmu(std::uint32_t dev, bool v6, F&& cb) {
    return device_stream(dev, layout::soc_pmu, codec::soc_pmu_size, [&](const unsigned char* p, const data_file& f, const codec::place& at) {
      auto d = decode_soc_pmu(p, codec::soc_pmu_size, at, v6);
      if (!d) return warn(f, at.offset, codec::soc_pmu_size, d.err().message + "; record skipped");
      cb(static_cast<const codec::SocPmuTaskV6&>(*d), at);
    });
  }

  /// AI CPU kernel reports (additional AICPU/node) of device `dev`; records of
  /// the other AICPU types in the same slices are passed over.
  template <class F>
  result<void> for_each_aicpu_node(std::uint32_t dev, F&& cb) {
    return device_stream(dev, layout::aicpu, codec::additional_size, [&](const unsigned char* p, const data_file& f, const codec::place& at) {
      auto a = decode_additional(p, codec::additional_size, at);
      if (!a) return warn(f, at.offset, codec::additional_size, a.err().message + "; record skipped");
      if (a->head.level != codec::level::aicpu || a->head.type != codec::aicpu_type::node) return;
      auto d = codec::decode_payload<codec::MsprofAicpuNodeAdditionalData>(*a, at);
      if (!d) return warn(f, at.offset, codec::additional_size, d.err().message + "; record skipped");
      cb(static_cast<const codec::MsprofAicpuNodeAdditionalData&>(*d), at);
    });
  }

 private:
  /// The lines of device `dev`'s (the host's when not `device`) text slices `stem`, each decoded by `decode`
  /// (line, place) and passed to `cb`; a slice's first line is passed over
  /// when `header(line)` says it is one.
  template <class H, class D, class F>
  result<void> text_lines(bool device, std::uint32_t dev, std::string_view stem, const char* what, H&& header, D&& decode,
                          F&& cb) {
    constexpr std::size_t max_slice = 64u << 20;
    for (const auto& f : files_) {
      if (f.device != device || f.device_id != dev || f.module != stem) continue;
      bool found = false;
      auto text = read_small_file(f.path, found, max_slice);
      if (!text) {
        if (text.err().code == errc::io) return text.err();  // as scan(): not damage in the data
        warn(f, 0, f.size, text.err().message + "; " + what + " slice skipped");
        continue;
      }
      scanning_ = &f;
      scan_problems_ = 0;
      const std::string& t = *text;
      std::size_t pos = 0, first_end = t.find('\n');
      if (first_end == std::string::npos) first_end = t.size();
      if (header(std::string_view(t).substr(0, first_end))) pos = first_end + 1;
      while (pos < t.size()) {
        std::size_t end = t.find('\n', pos);
        if (end == std::string::npos) end = t.size();
        const codec::place at{f.path, pos};
        auto s = decode(std::string_view(t).substr(pos, end - pos), at);
        if (s) cb(*s, at);
        else warn(f, pos, end - pos, s.err().message + "; line skipped");
        pos = end + 1;
      }
      scanning_ = nullptr;
      if (scan_problems_ > opt_.max_warnings_per_file)
        warnings_.push_back({f.path, 0, f.size,
                             "... and " + std::to_string(scan_problems_ - opt_.max_warnings_per_file) + " more problems in " + f.path});
    }
    return {};
  }

  // Per-record problems of the file being scanned are capped: a damaged file
  // of any size gives at most max_warnings_per_file lines plus one count, so
  // memory and output stay flat in the amount of damage.
  void warn(const data_file& f, std::uint64_t off, std::uint64_t bytes, std::string msg) {
    if (scanning_ == &f && ++scan_problems_ > opt_.max_warnings_per_file) return;
    warnings_.push_back({f.path, off, bytes, std::move(msg)});
  }
  // Whether a new problem of file `f` would still be printed (saves building
  // its message when it would not).
  bool warn_shown(const data_file& f) const noexcept {
    return scanning_ != &f || scan_problems_ < opt_.max_warnings_per_file;
  }

  template <class F>
  result<void> scan(const data_file& f, std::size_t rs, F&& on) {
    std::string_view file = f.path;
    scanning_ = &f;
    scan_problems_ = 0;
    auto rep = codec::scan_file(f.path, rs, [&](const unsigned char* p, std::uint64_t off) { on(p, codec::place{file, off}); },
                                  1024, opt_.bytes_read);
    scanning_ = nullptr;
    if (scan_problems_ > opt_.max_warnings_per_file)
      warnings_.push_back({f.path, 0, f.size,
                           "... and " + std::to_string(scan_problems_ - opt_.max_warnings_per_file) + " more problems in " + f.path});
    if (!rep) {
      // A file that cannot be read at all is an environment problem, not damage
      // inside the data: exporting without it would lose records silently.
      if (rep.err().code == errc::io) return rep.err();
      warn(f, 0, f.size, rep.err().message + "; file skipped");
      return {};
    }
    if (rep->tail_bytes) {
      const std::uint64_t off = rep->records * rs;
      warn(f, off, rep->tail_bytes,
           f.path + ": truncated record at byte offset " + std::to_string(off) + ": " + std::to_string(rep->tail_bytes) +
               " of " + std::to_string(rs) + " bytes present; the " + std::to_string(rep->records) +
               " whole record(s) before it are kept, the tail is skipped");
    }
    return {};
  }

  template <class T, class F>
  result<void> typed_compact(std::string_view tag, std::size_t min_len, F& cb) {
    return for_each_compact(tag, [&](const codec::compact_record& r, const data_file& f, const codec::place& at) {
      auto p = codec::decode_payload<T>(r, at, min_len);
      if (!p) return warn(f, at.offset, codec::compact_size, p.err().message + "; record skipped");
      cb(host_record<T>{r.head, *p, f.aging});
    });
  }
  template <class T, class F>
  result<void> typed_additional(std::string_view tag, std::size_t min_len, F& cb) {
    return for_each_additional(tag, [&](const codec::additional_record& r, const data_file& f, const codec::place& at) {
      auto p = codec::decode_payload<T>(r, at, min_len);
      if (!p) return warn(f, at.offset, codec::additional_size, p.err().message + "; record skipped");
      cb(host_record<T>{r.head, *p, f.aging});
    });
  }
  /// Device `dev`'s records in slices `stem` of a kind in which any bytes are
  /// a valid record (codec::decode_fixed); a cut record is a warning.
  template <class T, class F>
  result<void> for_each_fixed(std::uint32_t dev, std::string_view stem, F&& cb) {
    return device_stream(dev, stem, sizeof(T), [&](const unsigned char* p, const data_file& f, const codec::place& at) {
      auto d = codec::decode_fixed<T>(p, sizeof(T), at);
      if (!d) return warn(f, at.offset, sizeof(T), d.err().message + "; record skipped");
      cb(static_cast<const T&>(*d), at);
    });
  }

  template <class F>
  result<void> device_stream(std::uint32_t dev, std::string_view stem, std::size_t rs, F&& on) {
    for (const auto& f : files_) {
      if (!f.device || f.device_id != dev || f.module != stem) continue;
      MSPROF_TRY(scan(f, rs, [&](const unsigned char* p, const codec::place& at) { on(p, f, at); }));
    }
    return {};
  }

  result<void> index_data(const std::string& data_dir, bool device, std::uint32_t dev) {
    if (!posix_dir::is_dir(data_dir)) {
      warnings_.push_back({data_dir, 0, 0, data_dir + ": missing data directory; no records from here"});
      return {};
    }
    auto listed = posix_dir::list(data_dir);
    if (!listed) return listed.err();
    const std::vector<std::string>& names = *listed;
    for (const auto& n : names) {
      // A slice's .done without the slice: the slice was deleted after the
      // collection wrote it, and its records are lost (names are sorted).
      const std::string_view done = layout::done_suffix;
      if (ends_with(n, done) && n.find(layout::slice_infix) != std::string::npos &&
          !std::binary_search(names.begin(), names.end(), n.substr(0, n.size() - done.size()))) {
        const std::string slice = data_dir + "/" + n.substr(0, n.size() - done.size());
        warnings_.push_back({slice, 0, 0, slice + ": missing, but its .done says it was written; its records are lost"});
      }
      if (ends_with(n, done) || ends_with(n, ".complete") || ends_with(n, ".zip") || ends_with(n, ".tmp")) continue;
      data_file f;
      f.path = data_dir + "/" + n;
      f.name = n;
      f.device = device;
      f.device_id = dev;
      const auto parsed = stream::parse(n, device, dev);
      if (parsed.problem) {
        warnings_.push_back({f.path, 0, 0, f.path + ": " + parsed.problem + "; ignored"});
        continue;
      }
      f.slice = parsed.slice;
      f.aging = parsed.s.aging;
      f.module = parsed.s.module;
      f.tag = parsed.s.tag;
      struct stat st{};
      if (::stat(f.path.c_str(), &st) == 0) f.size = static_cast<std::uint64_t>(st.st_size);
      check_done(f);
      files_.push_back(std::move(f));
    }
    return {};
  }

  // The record type id a host compact/additional slice holds, by its tag
  // (format doc: one type per file); nullopt for tags the reader does not decode.
  static std::optional<std::uint32_t> expected_type(const data_file& f) {
    if (f.device) return std::nullopt;
    return layout::record_type(f.module, f.tag);
  }

  // A record whose type id is not the one its slice name implies would be
  // decoded as the wrong struct: reported and skipped.
  bool type_matches(const data_file& f, const codec::record_header& h, const codec::place& at, std::size_t rs) {
    const auto want = expected_type(f);
    if (!want || h.type == *want) return true;
    if (warn_shown(f)) {
      char got[16];
      std::snprintf(got, sizeof got, "0x%X", static_cast<unsigned>(h.type));
      warn(f, at.offset, rs, at.str() + ": type id " + got + ", but a " + f.tag + " slice holds type " +
                                 std::to_string(*want) + "; record skipped");
    } else {
      warn(f, at.offset, rs, {});
    }
    return false;
  }

  // A slice's <name>.done records the size the collector wrote ("filesize:N").
  // A slice shorter or longer than that lost or gained bytes after collection
  // (cut at a record boundary, emptied, appended to): a warning, since whole
  // records may be missing without any damage visible in the slice itself.
  // No .done (a collection still running) is not a problem.
  void check_done(data_file& f) {
    const std::string done = f.path + layout::done_suffix;
    bool found = false;
    auto t = read_small_file(done, found, 4096);
    if (!found) return;
    std::uint64_t n = 0;
    bool got = false;
    if (t)
      codec::detail::for_each_line(*t, [&](std::string_view line, std::size_t, std::size_t) {
        if (!got && line.rfind("filesize:", 0) == 0) got = codec::detail::parse_u64(line.substr(9), n);
      });
    if (!got) {
      warnings_.push_back({done, 0, 0, (t ? done + ": no numeric 'filesize:' line" : t.err().message) +
                                            "; the size of " + f.path + " is not checked"});
      return;
    }
    f.done_size = n;
    if (f.size == n) return;
    const bool shorter = f.size < n;
    const std::uint64_t diff = shorter ? n - f.size : f.size - n;
    warnings_.push_back({f.path, std::min(f.size, n), diff,
                         f.path + ": " + std::to_string(f.size) + " bytes, but its .done says filesize:" + std::to_string(n) +
                             (shorter ? "; " + std::to_string(diff) + " bytes (records) missing"
                                      : "; " + std::to_string(diff) + " bytes more than collected")});
  }

  static bool ends_with(std::string_view s, std::string_view suf) {
    return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
  }

  result<void> load_dictionaries() {
    std::size_t total = 0;
    std::vector<std::string> problems;
    for (const auto& f : files_) {
      if (f.device || f.module != layout::additional || (f.tag != layout::tag::hash_dic && f.tag != layout::tag::type_info_dic)) continue;
      if (total + f.size > opt_.max_dictionary_bytes) {
        warn(f, 0, f.size, f.path + ": dictionaries larger than " + std::to_string(opt_.max_dictionary_bytes) + " bytes in total; file skipped");
        continue;
      }
      bool found = false;
      auto t = read_small_file(f.path, found, opt_.max_dictionary_bytes - total);
      if (!t) { warn(f, 0, f.size, t.err().message + "; file skipped"); continue; }
      total += t->size();
      if (f.tag == "hash_dic") codec::parse_hash_dic(*t, f.path, hashes_, problems);
      else codec::parse_type_info_dic(*t, f.path, types_, problems);
    }
    for (auto& p : problems) warnings_.push_back({"", 0, 0, std::move(p)});
    std::size_t invalid_utf8 = 0;
    for (auto& kv : hashes_) invalid_utf8 += json::utf8_repair(kv.second);
    for (auto& kv : types_) invalid_utf8 += json::utf8_repair(kv.second);
    if (invalid_utf8)
      warnings_.push_back({host_data_dir(), 0, 0,
                           root_ + "/host/data: " + std::to_string(invalid_utf8) +
                               " hash_dic/type_info_dic string(s) are not valid UTF-8; each invalid byte is shown as U+FFFD"});
    return {};
  }

  std::string root_;
  std::string host_data_dir() const { return root_ + "/" + layout::host_dir + "/" + layout::data_dir; }
  reader_options opt_;
  host_info host_;
  std::vector<device_info> devices_;
  std::vector<data_file> files_;
  codec::hash_map hashes_;
  codec::type_map types_;
  std::vector<warning> warnings_;
  const data_file* scanning_ = nullptr;  ///< the file scan() is reading (for the warning cap)
  std::uint64_t scan_problems_ = 0;
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_READER_HPP
