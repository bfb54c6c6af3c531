// SPDX-License-Identifier: MIT
// The configuration files CANN, TensorFlow and torch_npu users already have,
// read into a session_config with msprof's std-only JSON parser (core/json.hpp):
//
//   auto acl = session::load_acl_json("acl.json");            // the "profiler" section
//   if (!acl) { puts(acl.err().what().c_str()); }             // file, key, expected type
//   else if (*acl) session::profiler prof(**acl);             // nullopt: "switch" is off
//
//   auto tf = session::parse_profiling_options(R"({"output":"out","task_trace":"on"})");
//   auto dyn = session::parse_profiler_config(text, "cfg/profiler_config.json", warn);
//
// One bad value is one error naming the file, the key and what it expects
// ("acl.json: profiler.aic_metrics: expected a string, got 3"). Unknown keys
// and keys msprof cannot honour (set to anything but their default) go to the
// warning callback (default: stderr, "[msprof] ..."); they never fail the file.
// docs/configuration.md lists every key, its type, default and effect.
#ifndef MSPROF_SESSION_CONFIG_FILES_HPP
#define MSPROF_SESSION_CONFIG_FILES_HPP

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "session_config.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

/// Receives one warning (an unknown key, a key without effect).
using warn_fn = std::function<void(const std::string&)>;

/// profiler_config.json of torch_npu's dynamic_profile, parsed.
struct dynamic_config {
  session_config session;        ///< activities, prof_dir, record_shapes, experimental_config
  std::int64_t start_step = 0;   ///< -1 or 0: the next step(); N >= 1: the step() that makes the counter N
  std::uint64_t active = 1;      ///< recorded steps (>= 1)
  std::uint64_t warmup = 0;      ///< warm-up steps before them
  bool analyse = false;          ///< export each saved PROF_ directory
  bool async_mode = false;       ///< export in a child process (with analyse)
  bool is_rank = false;          ///< collect only on the ranks of rank_list
  std::vector<std::int64_t> rank_list;
  std::vector<std::pair<std::string, std::string>> metadata;  ///< key, JSON text (profiler_metadata.json)
};

namespace detail {

inline void emit_warning(const warn_fn& warn, const std::string& w) {
  if (warn) warn(w);
  else std::fprintf(stderr, "[msprof] %s\n", w.c_str());
}

// The value as JSON text for messages, shortened.
inline std::string got_text(const json::value& v) {
  std::string s = json::dump(v);
  if (s.size() > 64) s = s.substr(0, 61) + "...";
  return s;
}

// Reads the members of one JSON object; every message names file and key.
class config_reader {
 public:
  config_reader(std::string_view file, std::string prefix, warn_fn warn)
      : file_(file), prefix_(std::move(prefix)), warn_(std::move(warn)) {}

  std::string key_path(std::string_view key) const { return prefix_ + std::string(key); }

  error expected(std::string_view key, std::string_view what, const json::value& got) const {
    return make_error(errc::bad_value,
                      file_ + ": " + key_path(key) + ": expected " + std::string(what) + ", got " + got_text(got));
  }

  void warn(const std::string& w) const { emit_warning(warn_, file_ + ": " + w); }
  void unknown(std::string_view key) const { warn(key_path(key) + ": unknown key, ignored"); }
  void no_effect(std::string_view key, const json::value& v) const {
    warn(key_path(key) + ": " + got_text(v) + " has no effect in msprof (accepted for compatibility)");
  }

  result<std::string> string(std::string_view key, const json::value& v) const {
    if (!v.is_string()) return expected(key, "a string", v);
    return v.text();
  }
  result<bool> boolean(std::string_view key, const json::value& v) const {
    if (!v.is_bool()) return expected(key, "a boolean (true or false)", v);
    return v.as_bool();
  }
  result<bool> on_off(std::string_view key, const json::value& v) const {
    if (v.is_string() && v.text() == "on") return true;
    if (v.is_string() && v.text() == "off") return false;
    return expected(key, "\"on\" or \"off\"", v);
  }
  result<std::int64_t> integer(std::string_view key, const json::value& v, std::int64_t lo, std::int64_t hi) const {
    std::int64_t n = 0;
    if (!v.is_number() || !v.to_int64(n) || n < lo || n > hi)
      return expected(key, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi), v);
    return n;
  }
  // An array of strings; `allow_single` also takes one string.
  result<std::vector<std::string>> strings(std::string_view key, const json::value& v, bool allow_single = false) const {
    std::vector<std::string> out;
    if (allow_single && v.is_string()) {
      out.push_back(v.text());
      return out;
    }
    if (!v.is_array()) return expected(key, allow_single ? "a string or an array of strings" : "an array of strings", v);
    for (const auto& item : v.items()) {
      if (!item.is_string()) return expected(key, "an array of strings", v);
      out.push_back(item.text());
    }
    return out;
  }
  result<std::string> aic_metrics(std::string_view key, const json::value& v) const {
    MSPROF_TRY(string(key, v));
    const std::string_view c = canonical_aic_metrics(v.text());
    if (c.empty())
      return expected(key,
                      "one of PipeUtilization, ArithmeticUtilization, Memory, MemoryL0, ResourceConflictRatio, "
                      "MemoryUB, L2Cache, AiCoreNone",
                      v);
    return std::string(c);
  }
  // CANN's storage_limit: "<n>MB", n from 200 to 4294967295.
  result<std::uint64_t> storage_limit(std::string_view key, const json::value& v) const {
    const char* what = "\"<n>MB\" with n from 200 to 4294967295";
    if (!v.is_string()) return expected(key, what, v);
    const std::string& s = v.text();
    if (s.size() < 3 || s.compare(s.size() - 2, 2, "MB") != 0) return expected(key, what, v);
    const json::value digits = json::value::make_string(s.substr(0, s.size() - 2));
    std::uint64_t n = 0;
    if (!digits.to_uint64(n) || n < 200 || n > 4294967295ULL) return expected(key, what, v);
    return n;
  }

 private:
  std::string file_;
  std::string prefix_;
  warn_fn warn_;
};

inline result<json::value> parse_object(std::string_view text, std::string_view file) {
  auto doc = json::parse(text, file);
  if (!doc) return doc.err();
  if (!doc->is_object())
    return make_error(errc::bad_value, std::string(file) + ": expected a JSON object at the top level, got " +
                                           got_text(*doc));
  return doc;
}

inline result<std::string> read_text_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(errc::not_found, path + ": cannot open the file");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return make_error(errc::io, path + ": read failed");
  return ss.str();
}

// The training trace's keys, the same in acl.json and TF's profiling_options:
// nullopt when `key` is none of them, else whether its value was taken.
inline std::optional<result<void>> training_trace_key(const config_reader& r, std::string_view key,
                                                      const json::value& v, session_config& c) {
  auto take = [](auto got, auto& into) -> result<void> {
    if (!got) return got.err();
    into = std::move(*got);
    return {};
  };
  if (key == "training_trace") return take(r.on_off(key, v), c.training_trace);
  if (key == "fp_point") return take(r.string(key, v), c.fp_point);
  if (key == "bp_point") return take(r.string(key, v), c.bp_point);
  return std::nullopt;
}

// Accepts a key without msprof equivalent: type-checked, warned when not at its default.
#define MSPROF_DETAIL_NO_EFFECT(reader, key, value, check, default_value) \
  do {                                                                    \
    auto msprof_detail_v_ = (reader).check((key), (value));               \
    if (!msprof_detail_v_) return msprof_detail_v_.err();                 \
    if (*msprof_detail_v_ != (default_value)) (reader).no_effect((key), (value)); \
  } while (0)

}  // namespace detail

/// True when an acl.json "profiler" object is the SoC flow's (SS928-class
/// boards, docs/soc.md): it has `aacpu` or `aac_metrics`, or a string
/// `interval` (the SoC's sampling interval; msprof's drain interval is a number).
inline bool is_soc_profiler(const json::value& profiler) {
  if (!profiler.is_object()) return false;
  const json::value* iv = profiler.find("interval");
  return profiler.find("aacpu") != nullptr || profiler.find("aac_metrics") != nullptr || (iv && iv->is_string());
}

/// The "profiler" section of CANN's acl.json (aclInit's configuration file).
/// nullopt: no "profiler" section, or "switch" is not "on", or the section is
/// the SoC flow's (is_soc_profiler: read by parse_soc_acl_json). Other top-level
/// sections (dump, err_msg_mode, ...) belong to other CANN features and are
/// ignored. Absent keys keep the session_config defaults.
inline result<std::optional<session_config>> parse_acl_json(std::string_view text, std::string_view file_name = "acl.json",
                                                            const warn_fn& warn = {}) {
  auto doc = detail::parse_object(text, file_name);
  if (!doc) return doc.err();
  const json::value* prof = doc->find("profiler");
  if (prof == nullptr) return std::optional<session_config>{};
  detail::config_reader r(file_name, "profiler.", warn);
  if (!prof->is_object()) return detail::config_reader(file_name, "", warn).expected("profiler", "an object", *prof);
  if (is_soc_profiler(*prof)) {
    r.warn("profiler: a SoC profiling section (aacpu, aac_metrics or a string interval): read by msprof::soc::acl_init "
           "for SS928-class boards (docs/soc.md); no Ascend 910B session is started from it");
    return std::optional<session_config>{};
  }
  session_config c;
  bool on = false;
  for (const auto& [key, v] : prof->members()) {
    if (key == "switch") {
      MSPROF_TRY_ASSIGN(on, r.on_off(key, v));
    } else if (key == "output") {
      MSPROF_TRY_ASSIGN(c.output, r.string(key, v));
    } else if (key == "aic_metrics") {
      MSPROF_TRY_ASSIGN(c.aic_metrics, r.aic_metrics(key, v));
    } else if (key == "task_time") {  // on / off / l0 / l1: device task data
      if (v.is_string() && (v.text() == "on" || v.text() == "l0" || v.text() == "l1")) c.npu = true;
      else if (v.is_string() && v.text() == "off") c.npu = false;
      else return r.expected(key, "\"on\", \"off\", \"l0\" or \"l1\"", v);
    } else if (key == "msproftx") {
      MSPROF_TRY_ASSIGN(c.mstx, r.on_off(key, v));
    } else if (key == "storage_limit") {
      MSPROF_TRY_ASSIGN(c.storage_limit_mb, r.storage_limit(key, v));
    } else if (key == "interval") {  // msprof: the collector's drain interval in ms
      auto n = r.integer(key, v, 1, 100000);
      if (!n) return n.err();
      c.drain_interval = std::chrono::milliseconds(*n);
    } else if (key == "acl_api" || key == "ascendcl" || key == "runtime_api") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, on_off, true);
    } else if (key == "aicpu" || key == "l2" || key == "hccl") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, on_off, false);
    } else if (auto taken = detail::training_trace_key(r, key, v, c)) {
      MSPROF_TRY(*taken);
    } else {
      r.unknown(key);
    }
  }
  if (prof->find("switch") == nullptr) r.warn("profiler.switch is missing: profiling is off (expected \"on\")");
  if (!on) return std::optional<session_config>{};
  if (auto bad = validate(c); !bad) return make_error(errc::bad_value, std::string(file_name) + ": " + bad.err().message);
  return std::optional<session_config>{std::move(c)};
}

/// Reads and parses an acl.json file; errors name `path`.
inline result<std::optional<session_config>> load_acl_json(const std::string& path, const warn_fn& warn = {}) {
  auto text = detail::read_text_file(path);
  if (!text) return text.err();
  return parse_acl_json(*text, path, warn);
}

/// The "profiler" section of an SS928-class SoC's acl.json (docs/soc.md), the
/// document's keys with its defaults; every value is a string.
struct soc_profiler_config {
  std::string output;                   ///< as written; empty: the executable's directory
  bool aacpu = true;                    ///< collect AA CPU tasks
  bool acl_api = true;                  ///< collect ACL API calls
  std::uint32_t interval = 0;           ///< sample every N inferences; 0: every one
  std::string aac_metrics = "ArithmeticUtilization";  ///< any other value: no AA Core data
};

/// C5 of the SoC document: a profiling path holds only letters, digits and
/// `_`, plus `/`, `-` and `.` (the document's own paths use them). The error
/// names the file, the key and the first other character.
inline result<void> check_soc_path(std::string_view path, std::string_view file, std::string_view key) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '-' ||
        c == '.')
      continue;
    char ch[16];
    if (c >= 0x21 && c < 0x7F) std::snprintf(ch, sizeof ch, "'%c'", c);
    else std::snprintf(ch, sizeof ch, "byte 0x%02X", c);
    return make_error(errc::bad_value, std::string(file) + ": " + std::string(key) + ": \"" + std::string(path) +
                                           "\" has " + ch + " at position " + std::to_string(i) +
                                           "; a profiling path may hold only letters, digits, '_', '/', '-' and '.'");
  }
  return {};
}

/// The SoC flow's acl.json "profiler" section. nullopt: no section, or
/// "switch" is missing or anything but "on" (the document: off). The
/// document's example is accepted as written:
///   { "profiler":{ "output":"/root/AscendProjects/MyAppTest/profiling", "aacpu":"on",
///     "aac_metrics":"ArithmeticUtilization", "interval":"0", "acl_api":"on", "switch":"on" } }
inline result<std::optional<soc_profiler_config>> parse_soc_acl_json(std::string_view text,
                                                                     std::string_view file_name = "acl.json",
                                                                     const warn_fn& warn = {}) {
  auto doc = detail::parse_object(text, file_name);
  if (!doc) return doc.err();
  const json::value* prof = doc->find("profiler");
  if (prof == nullptr) return std::optional<soc_profiler_config>{};
  if (!prof->is_object()) return detail::config_reader(file_name, "", warn).expected("profiler", "an object", *prof);
  detail::config_reader r(file_name, "profiler.", warn);
  soc_profiler_config c;
  bool on = false;
  for (const auto& [key, v] : prof->members()) {
    if (key == "switch") {
      if (!v.is_string()) return r.expected(key, "a string (\"on\" or \"off\")", v);
      on = v.text() == "on";
      if (!on && v.text() != "off") r.warn(r.key_path(key) + ": " + detail::got_text(v) + " is not \"on\": profiling is off");
    } else if (key == "output") {
      MSPROF_TRY_ASSIGN(c.output, r.string(key, v));
      MSPROF_TRY(check_soc_path(c.output, file_name, r.key_path(key)));
    } else if (key == "aacpu") {
      MSPROF_TRY_ASSIGN(c.aacpu, r.on_off(key, v));
    } else if (key == "acl_api") {
      MSPROF_TRY_ASSIGN(c.acl_api, r.on_off(key, v));
    } else if (key == "interval") {
      std::uint64_t n = 0;
      if (!(v.is_string() || v.is_number()) || !v.to_uint64(n) || n > 100000000)
        return r.expected(key, "a string holding an integer from 0 to 100000000 (\"0\": every inference)", v);
      c.interval = static_cast<std::uint32_t>(n);
    } else if (key == "aac_metrics") {
      MSPROF_TRY_ASSIGN(c.aac_metrics, r.string(key, v));
      if (c.aac_metrics != "ArithmeticUtilization")
        r.warn(r.key_path(key) + ": " + detail::got_text(v) +
               " is not ArithmeticUtilization: no AA Core data is collected (task times still are)");
    } else {
      r.unknown(key);
    }
  }
  if (!on) return std::optional<soc_profiler_config>{};
  return std::optional<soc_profiler_config>{std::move(c)};
}

/// Reads and parses a SoC acl.json file; errors name `path`.
inline result<std::optional<soc_profiler_config>> load_soc_acl_json(const std::string& path, const warn_fn& warn = {}) {
  auto text = detail::read_text_file(path);
  if (!text) return text.err();
  return parse_soc_acl_json(*text, path, warn);
}

/// TensorFlow (npu_bridge / GE) profiling_options: a JSON object in a string,
/// e.g. '{"output":"/tmp/prof","training_trace":"on","fp_point":"...","bp_point":"..."}'.
/// Absent keys keep the session_config defaults.
inline result<session_config> parse_profiling_options(std::string_view text,
                                                      std::string_view source = "profiling_options",
                                                      const warn_fn& warn = {}) {
  auto doc = detail::parse_object(text, source);
  if (!doc) return doc.err();
  detail::config_reader r(source, "", warn);
  session_config c;
  for (const auto& [key, v] : doc->members()) {
    if (key == "output") {
      MSPROF_TRY_ASSIGN(c.output, r.string(key, v));
    } else if (key == "task_trace") {
      MSPROF_TRY_ASSIGN(c.npu, r.on_off(key, v));
    } else if (key == "aic_metrics") {
      MSPROF_TRY_ASSIGN(c.aic_metrics, r.aic_metrics(key, v));
    } else if (key == "msproftx") {
      MSPROF_TRY_ASSIGN(c.mstx, r.on_off(key, v));
    } else if (key == "storage_limit") {
      MSPROF_TRY_ASSIGN(c.storage_limit_mb, r.storage_limit(key, v));
    } else if (key == "aicpu" || key == "hccl" || key == "l2") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, on_off, false);
    } else if (key == "runtime_api") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, on_off, true);
    } else if (auto taken = detail::training_trace_key(r, key, v, c)) {
      MSPROF_TRY(*taken);
    } else {
      r.unknown(key);
    }
  }
  if (auto bad = validate(c); !bad) return make_error(errc::bad_value, std::string(source) + ": " + bad.err().message);
  return c;
}

/// The profiler_config.json template written by dynamic_profiler::init: the
/// keys torch_npu's dynamic_profile reads, with its defaults.
inline const char* profiler_config_template() noexcept {
  return R"({
    "activities": ["CPU", "NPU"],
    "prof_dir": "./",
    "analyse": false,
    "async_mode": false,
    "record_shapes": false,
    "profile_memory": false,
    "with_stack": false,
    "with_flops": false,
    "with_modules": false,
    "active": 1,
    "warmup": 0,
    "start_step": 0,
    "is_rank": false,
    "rank_list": [],
    "experimental_config": {
        "profiler_level": "Level0",
        "aic_metrics": "AiCoreNone",
        "l2_cache": false,
        "op_attr": false,
        "gc_detect_threshold": null,
        "data_simplification": true,
        "record_op_args": false,
        "export_type": ["text"],
        "msprof_tx": false,
        "mstx": false,
        "mstx_domain_include": [],
        "mstx_domain_exclude": [],
        "host_sys": [],
        "sys_io": false,
        "sys_interconnection": false
    },
    "metadata": {}
}
)";
}

namespace detail {

inline result<void> parse_experimental_config(const json::value& exp, const config_reader& r, session_config& c) {
  bool msprof_tx = false, mstx = false;
  for (const auto& [key, v] : exp.members()) {
    if (key == "profiler_level") {
      auto s = r.string(key, v);
      if (!s) return s.err();
      auto level = parse_profiler_level(*s);
      if (!level) return r.expected(key, "one of Level_none, Level0, Level1, Level2", v);
      c.level = *level;
    } else if (key == "aic_metrics") {
      MSPROF_TRY_ASSIGN(c.aic_metrics, r.aic_metrics(key, v));
    } else if (key == "data_simplification") {
      MSPROF_TRY_ASSIGN(c.data_simplification, r.boolean(key, v));
    } else if (key == "export_type") {
      auto list = r.strings(key, v, true);
      if (!list) return list.err();
      std::vector<export_type> types;
      for (const auto& t : *list) {
        if (t == "text") types.push_back(export_type::text);
        else if (t == "db") types.push_back(export_type::db);
        else return r.expected(key, "\"text\", \"db\" or a list of them", v);
      }
      if (types.empty()) return r.expected(key, "\"text\", \"db\" or a non-empty list of them", v);
      c.export_types = std::move(types);
    } else if (key == "msprof_tx" || key == "mstx") {
      auto b = r.boolean(key, v);
      if (!b) return b.err();
      (key == "mstx" ? mstx : msprof_tx) = *b;
    } else if (key == "mstx_domain_include" || key == "mstx_domain_exclude") {
      auto list = r.strings(key, v);
      if (!list) return list.err();
      (key == "mstx_domain_include" ? c.mstx_domain_include : c.mstx_domain_exclude) = std::move(*list);
    } else if (key == "l2_cache" || key == "op_attr" || key == "record_op_args" || key == "sys_io" ||
               key == "sys_interconnection") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, boolean, false);
    } else if (key == "host_sys") {
      auto list = r.strings(key, v);
      if (!list) return list.err();
      c.host_sys = std::move(*list);  // the names are checked by validate()
    } else if (key == "host_sys_usage_freq") {  // CANN's --host-sys-usage-freq (torch_npu has none)
      auto n = r.integer(key, v, 1, 50);
      if (!n) return n.err();
      c.host_sys_usage_freq = static_cast<unsigned>(*n);
    } else if (key == "gc_detect_threshold") {
      double d = 0;
      if (!v.is_null() && (!v.is_number() || !v.to_double(d) || d < 0))
        return r.expected(key, "null or a number >= 0", v);
      if (!v.is_null()) r.no_effect(key, v);
    } else {
      r.unknown(key);
    }
  }
  c.mstx = mstx || msprof_tx;
  if (!c.mstx_domain_include.empty() && !c.mstx_domain_exclude.empty()) {
    r.warn(r.key_path("mstx_domain_include") + " and mstx_domain_exclude are both set: include wins, exclude is cleared");
    c.mstx_domain_exclude.clear();
  }
  return {};
}

}  // namespace detail

/// torch_npu's dynamic_profile profiler_config.json. Absent keys take
/// torch_npu's defaults (those of profiler_config_template()).
inline result<dynamic_config> parse_profiler_config(std::string_view text,
                                                    std::string_view file_name = "profiler_config.json",
                                                    const warn_fn& warn = {}) {
  auto doc = detail::parse_object(text, file_name);
  if (!doc) return doc.err();
  detail::config_reader r(file_name, "", warn);
  dynamic_config d;
  session_config& c = d.session;
  c.aic_metrics = "AiCoreNone";  // torch_npu's defaults where they differ from session_config's
  c.mstx = false;
  for (const auto& [key, v] : doc->members()) {
    if (key == "activities") {
      auto list = r.strings(key, v);
      if (!list) return list.err();
      if (!list->empty()) {  // empty: both, like profile(activities=None)
        c.cpu = c.npu = false;
        for (const auto& a : *list) {
          if (a == "CPU" || a == "cpu") c.cpu = true;
          else if (a == "NPU" || a == "npu") c.npu = true;
          else return r.expected(key, "an array of \"CPU\" and/or \"NPU\"", v);
        }
      }
    } else if (key == "prof_dir") {
      MSPROF_TRY_ASSIGN(c.output, r.string(key, v));
    } else if (key == "analyse" || key == "async_mode" || key == "record_shapes" || key == "is_rank") {
      auto b = r.boolean(key, v);
      if (!b) return b.err();
      if (key == "analyse") d.analyse = *b;
      else if (key == "async_mode") d.async_mode = *b;
      else if (key == "record_shapes") c.record_shapes = *b;
      else d.is_rank = *b;
    } else if (key == "active") {
      auto n = r.integer(key, v, 1, 1000000);
      if (!n) return n.err();
      d.active = static_cast<std::uint64_t>(*n);
    } else if (key == "warmup") {
      auto n = r.integer(key, v, 0, 1000000);
      if (!n) return n.err();
      d.warmup = static_cast<std::uint64_t>(*n);
    } else if (key == "start_step") {
      MSPROF_TRY_ASSIGN(d.start_step, r.integer(key, v, -1, std::numeric_limits<std::int64_t>::max()));
    } else if (key == "rank_list") {
      if (!v.is_array()) return r.expected(key, "an array of integers >= 0", v);
      d.rank_list.clear();
      for (const auto& item : v.items()) {
        std::int64_t n = 0;
        if (!item.is_number() || !item.to_int64(n) || n < 0) return r.expected(key, "an array of integers >= 0", v);
        d.rank_list.push_back(n);
      }
    } else if (key == "experimental_config") {
      if (v.is_null()) continue;  // torch_npu: no experimental_config, defaults
      if (!v.is_object()) return r.expected(key, "an object", v);
      detail::config_reader er(file_name, "experimental_config.", warn);
      MSPROF_TRY(detail::parse_experimental_config(v, er, c));
    } else if (key == "metadata") {
      if (!v.is_object()) return r.expected(key, "an object", v);
      d.metadata.clear();
      for (const auto& [mk, mv] : v.members()) d.metadata.emplace_back(mk, json::dump(mv));
    } else if (key == "profile_memory" || key == "with_stack" || key == "with_flops" || key == "with_modules") {
      MSPROF_DETAIL_NO_EFFECT(r, key, v, boolean, false);
    } else {
      r.unknown(key);
    }
  }
  if (auto bad = validate(c); !bad) return make_error(errc::bad_value, std::string(file_name) + ": " + bad.err().message);
  return d;
}

#undef MSPROF_DETAIL_NO_EFFECT

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_CONFIG_FILES_HPP
