// SPDX-License-Identifier: MIT
// Minimal PROF_ directory output for libmsprof_mstx.so: the mstx records as
// CANN writes them (MsprofTxInfo inside a 256-byte MsprofAdditionalInfo,
// level 20500, host/data/aging.additional.msproftx.slice_N with 2 MiB slices
// and .done files), the hash_dic / type_info_dic dictionaries and the host
// control files (info.json, host_start.log, start_info, end_info, sample.json).
// Interim: to be replaced by the codec encoders + writer::prof_dir once they land.
#ifndef MSPROF_TOOLS_INJECTION_PROF_OUTPUT_HPP
#define MSPROF_TOOLS_INJECTION_PROF_OUTPUT_HPP

#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <set>
#include <string>

#include <msprof/collect/collector.hpp>

namespace msprof_injection {

namespace collect = msprof::collect;

inline std::uint64_t double_hash(std::string_view s) {
  std::uint32_t h0 = 0, h1 = 0;
  for (char ch : s) {
    auto c = static_cast<std::uint32_t>(static_cast<std::int32_t>(ch));  // sign-extended like CANN
    h0 = h0 * 29u + c;
    h1 = h1 * 131u + c;
  }
  return (static_cast<std::uint64_t>(h0) << 32) | h1;
}

template <class T>
inline void put(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof v);  // little-endian hosts only (x86_64, aarch64)
}

class prof_output : public collect::record_sink {
 public:
  // Creates <output>/PROF_.../host/data; returns false with `error` set.
  bool open(const std::string& output, std::uint64_t storage_limit_bytes, const std::string& aic_metrics,
            std::string& error) {
    limit_ = storage_limit_bytes;
    if (output.empty()) {
      error = "MSPROF_OUTPUT is not set";
      return false;
    }
    for (char c : output) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/' || c == '.')) {
        error = "MSPROF_OUTPUT '" + output + "': only letters, digits, _ - . / are allowed";
        return false;
      }
    }
    if (!mkdirs(output)) {
      error = "cannot create MSPROF_OUTPUT directory '" + output + "': " + std::strerror(errno);
      return false;
    }
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::tm tm{};
    time_t secs = tv.tv_sec;
    ::localtime_r(&secs, &tm);
    char stamp[96];
    std::snprintf(stamp, sizeof stamp, "%04d%02d%02d%02d%02d%02d%03d", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(tv.tv_usec / 1000));
    std::random_device rd;
    std::string suffix;
    for (int i = 0; i < 16; ++i) suffix += static_cast<char>('A' + rd() % 26);
    char name[192];
    std::snprintf(name, sizeof name, "PROF_%06u_%s_%s", static_cast<unsigned>(::getpid()) % 1000000u, stamp,
                  suffix.c_str());
    dir_ = output + "/" + name;
    host_ = dir_ + "/host";
    data_ = host_ + "/data";
    if (!mkdirs(data_)) {
      error = "cannot create '" + data_ + "': " + std::strerror(errno);
      return false;
    }
    begin_us_ = static_cast<std::uint64_t>(tv.tv_sec) * 1000000u + static_cast<std::uint64_t>(tv.tv_usec);
    begin_raw_ = collect::monotonic_raw_ns();
    write_file(host_ + "/start_info", time_info(true, begin_us_, begin_raw_));
    write_file(host_ + "/sample.json", "{\"msproftx\": \"on\", \"ai_core_metrics\": \"" + aic_metrics +
                                           "\", \"result_dir\": \"" + output + "\"}\n");
    write_file(data_ + "/unaging.additional.type_info_dic.slice_0", "20500_0:msproftx\n");
    return true;
  }

  const std::string& dir() const { return dir_; }

  void write_tx(const collect::tx_record& r) override {
    std::string domain(r.domain.empty() ? std::string_view("default") : r.domain);
    std::uint64_t dh = r.domain_hash != 0 ? r.domain_hash : double_hash(domain);
    if (hashed_.insert(dh).second) hash_lines_ += std::to_string(dh) + ":" + domain + "\n";
    unsigned char rec[256] = {};
    put<std::uint16_t>(rec + 0, 0x5A5A);
    put<std::uint16_t>(rec + 2, 20500);
    put<std::uint32_t>(rec + 4, 0);
    put<std::uint32_t>(rec + 8, r.tid);
    put<std::uint32_t>(rec + 12, 232);
    put<std::uint64_t>(rec + 16, r.start);
    unsigned char* tx = rec + 24;
    put<std::uint16_t>(tx + 0, 1);  // infoType 1: mstx
    unsigned char* st = tx + 8;     // MsprofStampInfo
    put<std::uint16_t>(st + 0, 0x5A5A);
    put<std::uint16_t>(st + 2, 120);  // MSPROFTX data tag
    put<std::uint32_t>(st + 4, r.pid);
    put<std::uint32_t>(st + 8, r.tid);
    put<std::uint32_t>(st + 16, r.event_type);
    put<std::uint64_t>(st + 32, r.start);
    put<std::uint64_t>(st + 40, r.end);
    put<std::uint64_t>(st + 48, r.id);
    put<std::uint64_t>(st + 56, dh);
    std::size_t n = std::min<std::size_t>(r.message.size(), 155);
    std::memcpy(st + 68, r.message.data(), n);
    append(rec, sizeof rec, r.start);
  }

  void flush() override {
    if (slice_ != nullptr) std::fflush(slice_);
  }

  // Closes the slice, writes dictionaries and end-of-run control files.
  void finish(const collect::clock_calibration& cal, const collect::loss_counters& losses) {
    close_slice();
    write_file(data_ + "/unaging.additional.hash_dic.slice_0", hash_lines_);
    done(data_ + "/unaging.additional.hash_dic.slice_0", hash_lines_.size(), false);
    done(data_ + "/unaging.additional.type_info_dic.slice_0", 17, false);
    timeval tv{};
    ::gettimeofday(&tv, nullptr);
    std::uint64_t end_us = static_cast<std::uint64_t>(tv.tv_sec) * 1000000u + static_cast<std::uint64_t>(tv.tv_usec);
    write_file(host_ + "/end_info", time_info(false, end_us, collect::monotonic_raw_ns()));
    char buf[256];
    std::snprintf(buf, sizeof buf, "[Host]\nclock_monotonic_raw: %llu\ncntvct: %llu\ncntvct_diff: 0\n",
                  static_cast<unsigned long long>(cal.monotonic_raw_ns),
                  static_cast<unsigned long long>(cal.counter_ticks));
    write_file(host_ + "/host_start.log", buf);
    char host[256] = "localhost";
    ::gethostname(host, sizeof host - 1);
    char freq[64] = "";
    if (cal.counter) std::snprintf(freq, sizeof freq, "%.6f", cal.frequency_mhz);
    long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    std::string info = std::string("{\"jobInfo\": \"NA\", \"version\": \"1.0\", \"OS\": \"Linux\", \"cpuCores\": ") +
                       std::to_string(cores) + ", \"hostname\": \"" + host + "\", \"hwtype\": \"" + arch() +
                       "\", \"devices\": \"\", \"platform_version\": \"\", \"pid\": \"" +
                       std::to_string(::getpid()) + "\", \"pid_name\": \"" + process_name() +
                       "\", \"rank_id\": -1, \"CPU\": [{\"Id\": 0, \"Name\": \"host\", \"Frequency\": \"" + freq +
                       "\", \"Logical_CPU_Count\": " + std::to_string(cores) +
                       ", \"Type\": \"host\"}], \"DeviceInfo\": [], \"msprof_losses\": {\"dropped\": " +
                       std::to_string(losses.dropped) + ", \"rejected\": " + std::to_string(losses.rejected) +
                       ", \"unfinished_ranges\": " + std::to_string(losses.unfinished) +
                       ", \"unknown_range_ends\": " + std::to_string(losses.unknown_end) +
                       ", \"storage_limit_dropped\": " + std::to_string(storage_dropped_) + "}}\n";
    write_file(host_ + "/info.json", info);
  }

  std::uint64_t storage_dropped() const { return storage_dropped_; }

 private:
  static bool mkdirs(const std::string& path) {
    std::string cur;
    for (std::size_t i = 0; i <= path.size(); ++i) {
      if (i == path.size() || path[i] == '/') {
        if (!cur.empty() && ::mkdir(cur.c_str(), 0750) != 0 && errno != EEXIST) return false;
      }
      if (i < path.size()) cur += path[i];
    }
    return true;
  }
  static std::string arch() {
#if defined(__aarch64__)
    return "aarch64";
#else
    return "x86_64";
#endif
  }
  static std::string process_name() {
    char buf[256] = {};
    FILE* f = std::fopen("/proc/self/comm", "r");
    if (f == nullptr) return "app";
    if (std::fgets(buf, sizeof buf, f) == nullptr) buf[0] = '\0';
    std::fclose(f);
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == '"' || s.back() == '\\')) s.pop_back();
    return s;
  }
  static std::string time_info(bool begin, std::uint64_t us, std::uint64_t raw) {
    time_t secs = static_cast<time_t>(us / 1000000u);
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    char date[128];
    std::snprintf(date, sizeof date, "%04d-%02d-%02d %02d:%02d:%02d.%06u", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned>(us % 1000000u));
    std::string d = date, t = std::to_string(us);
    return std::string("{\"collectionDateBegin\": \"") + (begin ? d : "") + "\", \"collectionDateEnd\": \"" +
           (begin ? "" : d) + "\", \"collectionTimeBegin\": \"" + (begin ? t : "") +
           "\", \"collectionTimeEnd\": \"" + (begin ? "" : t) + "\", \"clockMonotonicRaw\": \"" +
           std::to_string(raw) + "\"}\n";
  }
  static void write_file(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    ::chmod(tmp.c_str(), 0640);
    std::rename(tmp.c_str(), path.c_str());
  }
  void done(const std::string& file, std::size_t size, bool times) {
    std::string t = "filesize:" + std::to_string(size) + "\n";
    if (times) t += "starttime:" + std::to_string(first_ts_) + "\nendtime  :" + std::to_string(last_ts_) + "\n";
    write_file(file + ".done", t);
  }
  void append(const unsigned char* rec, std::size_t n, std::uint64_t ts) {
    if (limit_ != 0 && total_ + n > limit_) {
      ++storage_dropped_;  // counted, reported in info.json msprof_losses
      return;
    }
    if (slice_ != nullptr && slice_bytes_ + n > 2048u * 1024u) close_slice();
    if (slice_ == nullptr) {
      slice_path_ = data_ + "/aging.additional.msproftx.slice_" + std::to_string(slice_no_++);
      slice_ = std::fopen(slice_path_.c_str(), "wb");
      if (slice_ == nullptr) {
        ++storage_dropped_;
        return;
      }
      ::chmod(slice_path_.c_str(), 0640);
      slice_bytes_ = 0;
      first_ts_ = ts;
    }
    if (std::fwrite(rec, 1, n, slice_) != n) {
      ++storage_dropped_;
      return;
    }
    slice_bytes_ += n;
    total_ += n;
    last_ts_ = std::max(last_ts_, ts);
    first_ts_ = std::min(first_ts_, ts);
  }
  void close_slice() {
    if (slice_ == nullptr) return;
    std::fclose(slice_);
    slice_ = nullptr;
    done(slice_path_, slice_bytes_, true);
  }

  std::string dir_, host_, data_, slice_path_, hash_lines_;
  std::set<std::uint64_t> hashed_;
  FILE* slice_ = nullptr;
  std::size_t slice_bytes_ = 0, total_ = 0;
  std::uint64_t limit_ = 0, storage_dropped_ = 0, first_ts_ = 0, last_ts_ = 0, begin_us_ = 0, begin_raw_ = 0;
  int slice_no_ = 0;
};

}  // namespace msprof_injection

#endif  // MSPROF_TOOLS_INJECTION_PROF_OUTPUT_HPP
