// SPDX-License-Identifier: MIT
// A small, bounded, std-only JSON reader and writer for the files collection
// writes and reads: PROF_ control files (info.json, sample.json, start_info,
// end_info) and configuration files (acl.json, profiler_config.json). It stays
// std-only because the collector and sessions are header-only without simdjson.
//
//   auto doc = msprof::json::parse(text, "host/info.json");   // result<value>
//   if (!doc) { puts(doc.err().what().c_str()); }
//   std::string f = doc->get("CPU").at(0).get("Frequency").as_string_or("");
//
// Objects keep their key order (people diff the files; a repeated key keeps its
// first place and its last value, as Python's json), numbers their source text
// ("1767268800000000" must not lose digits through a double), strings are UTF-8
// with \u escapes decoded, surrogate pairs too. Depth, size and element counts
// are limited, and every error names the source, the byte offset and the reason.
#ifndef MSPROF_CORE_JSON_HPP
#define MSPROF_CORE_JSON_HPP

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abi.hpp"
#include "error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace json {

enum class kind : unsigned char { null, boolean, number, string, array, object };

/// A parsed JSON value. Cheap to move; copies deep-copy.
class value {
 public:
  using member = std::pair<std::string, value>;

  value() = default;
  static value make_null() { return value(); }
  static value make_bool(bool b) { value v; v.kind_ = kind::boolean; v.bool_ = b; return v; }
  static value make_number(std::string text) { value v; v.kind_ = kind::number; v.text_ = std::move(text); return v; }
  static value make_string(std::string s) { value v; v.kind_ = kind::string; v.text_ = std::move(s); return v; }
  static value make_array() { value v; v.kind_ = kind::array; return v; }
  static value make_object() { value v; v.kind_ = kind::object; return v; }

  kind type() const noexcept { return kind_; }
  bool is_null() const noexcept { return kind_ == kind::null; }
  bool is_bool() const noexcept { return kind_ == kind::boolean; }
  bool is_number() const noexcept { return kind_ == kind::number; }
  bool is_string() const noexcept { return kind_ == kind::string; }
  bool is_array() const noexcept { return kind_ == kind::array; }
  bool is_object() const noexcept { return kind_ == kind::object; }

  bool as_bool() const noexcept { return bool_; }
  /// Number text as written ("1.50e3") or the decoded string.
  const std::string& text() const noexcept { return text_; }

  /// Array elements (empty for non-arrays).
  const std::vector<value>& items() const noexcept { return items_; }
  /// Object members in source order (empty for non-objects).
  const std::vector<member>& members() const noexcept { return members_; }
  std::size_t size() const noexcept { return kind_ == kind::array ? items_.size() : members_.size(); }

  /// Member lookup; nullptr when absent or not an object. A parsed object has
  /// one member per key (parse() keeps a repeated key's last value).
  const value* find(std::string_view key) const noexcept {
    for (const auto& m : members_)
      if (m.first == key) return &m.second;
    return nullptr;
  }
  /// Member or a shared null value, so lookups chain: v.get("a").get("b").
  const value& get(std::string_view key) const noexcept {
    const value* p = find(key);
    return p ? *p : null_ref();
  }
  /// Array element or null.
  const value& at(std::size_t i) const noexcept { return i < items_.size() ? items_[i] : null_ref(); }

  /// A string value, or `fallback` when the value is not a string.
  std::string as_string_or(std::string fallback) const {
    return kind_ == kind::string ? text_ : std::move(fallback);
  }

  /// Integer from a number, or from a string holding only a decimal integer
  /// (CANN writes many numbers as strings: "pid": "6060"). False otherwise or
  /// on overflow.
  bool to_int64(std::int64_t& out) const noexcept {
    if (kind_ != kind::number && kind_ != kind::string) return false;
    return parse_int(text_, out);
  }
  bool to_uint64(std::uint64_t& out) const noexcept {
    if (kind_ != kind::number && kind_ != kind::string) return false;
    const std::string& s = text_;
    if (s.empty() || s.size() > 20) return false;
    std::uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
      if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
      v = v * 10 + d;
    }
    out = v;
    return true;
  }
  /// Double from a number or numeric string; false if not a finite number.
  bool to_double(double& out) const noexcept {
    if (kind_ != kind::number && kind_ != kind::string) return false;
    if (text_.empty() || text_.size() > 64) return false;
    char buf[72];
    text_.copy(buf, text_.size());
    buf[text_.size()] = '\0';
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(buf, &end);
    if (end != buf + text_.size() || errno == ERANGE) return false;
    if (!(d == d) || d > std::numeric_limits<double>::max() || d < -std::numeric_limits<double>::max()) return false;
    out = d;
    return true;
  }
  std::int64_t int_or(std::int64_t fallback) const noexcept {
    std::int64_t v = 0;
    return to_int64(v) ? v : fallback;
  }
  std::uint64_t uint_or(std::uint64_t fallback) const noexcept {
    std::uint64_t v = 0;
    return to_uint64(v) ? v : fallback;
  }

  // Building (used by tests and by code that rewrites configs).
  value& push_back(value v) { items_.push_back(std::move(v)); return items_.back(); }
  value& set(std::string key, value v) {
    for (auto& m : members_)
      if (m.first == key) { m.second = std::move(v); return m.second; }
    members_.emplace_back(std::move(key), std::move(v));
    return members_.back().second;
  }

 private:
  friend class parser;
  static const value& null_ref() noexcept {
    static const value n;
    return n;
  }
  static bool parse_int(const std::string& s, std::int64_t& out) noexcept {
    if (s.empty() || s.size() > 20) return false;
    std::size_t i = 0;
    bool neg = false;
    if (s[0] == '-') { neg = true; i = 1; if (s.size() == 1) return false; }
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c < '0' || c > '9') return false;
      const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
      if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
      v = v * 10 + d;
    }
    const std::uint64_t lim = neg ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1
                                  : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (v > lim) return false;
    out = neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
    return true;
  }

  kind kind_ = kind::null;
  bool bool_ = false;
  std::string text_;
  std::vector<value> items_;
  std::vector<member> members_;
};

/// Limits that keep hostile input bounded.
struct limits {
  std::size_t max_bytes = 16u << 20;     ///< input size
  std::size_t max_depth = 64;            ///< nesting of arrays/objects
  std::size_t max_elements = 1u << 20;   ///< total values
  std::size_t max_string = 1u << 20;     ///< bytes in one string
};

inline bool utf8_repair(std::string& s);

class parser {
 public:
  parser(std::string_view text, std::string_view source, const limits& lim)
      : s_(text), source_(source), lim_(lim) {}

  result<value> run() {
    if (s_.size() > lim_.max_bytes)
      return fail(0, "input is " + std::to_string(s_.size()) + " bytes, limit " + std::to_string(lim_.max_bytes));
    // Skip a UTF-8 BOM some editors write into config files.
    if (s_.size() >= 3 && static_cast<unsigned char>(s_[0]) == 0xEF && static_cast<unsigned char>(s_[1]) == 0xBB &&
        static_cast<unsigned char>(s_[2]) == 0xBF)
      pos_ = 3;
    value root;
    if (!parse_value(root, 0)) return err_;
    skip_ws();
    if (pos_ != s_.size()) return fail(pos_, "unexpected text after the JSON value");
    return root;
  }

 private:
  error fail(std::size_t at, const std::string& why) {
    err_ = make_error(errc::parse, std::string(source_) + ": invalid JSON at byte offset " + std::to_string(at) + ": " + why);
    return err_;
  }
  bool failb(std::size_t at, const std::string& why) { fail(at, why); return false; }

  void skip_ws() noexcept {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool parse_value(value& out, std::size_t depth) {
    if (++elements_ > lim_.max_elements) return failb(pos_, "more than " + std::to_string(lim_.max_elements) + " values");
    skip_ws();
    if (pos_ >= s_.size()) return failb(pos_, "unexpected end of input, expected a value");
    const char c = s_[pos_];
    switch (c) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': out.kind_ = kind::string; return parse_string(out.text_);
      case 't': return literal("true", out, kind::boolean, true);
      case 'f': return literal("false", out, kind::boolean, false);
      case 'n': return literal("null", out, kind::null, false);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number(out);
        return failb(pos_, std::string("unexpected character '") + printable(c) + "'");
    }
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", u);
    return buf;
  }

  bool literal(std::string_view word, value& out, kind k, bool b) {
    if (s_.substr(pos_, word.size()) != word) return failb(pos_, "invalid literal, expected '" + std::string(word) + "'");
    pos_ += word.size();
    out.kind_ = k;
    out.bool_ = b;
    return true;
  }

  bool parse_number(value& out) {
    const std::size_t start = pos_;
    auto digit = [&] { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; };
    if (s_[pos_] == '-') ++pos_;
    if (!digit()) return failb(pos_, "invalid number: expected a digit");
    if (s_[pos_] == '0') {
      ++pos_;
      if (digit()) return failb(pos_, "invalid number: leading zero");
    } else {
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digit()) return failb(pos_, "invalid number: expected a digit after '.'");
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digit()) return failb(pos_, "invalid number: expected an exponent digit");
      while (digit()) ++pos_;
    }
    if (pos_ - start > 256) return failb(start, "number longer than 256 characters");
    out.kind_ = kind::number;
    out.text_.assign(s_.data() + start, pos_ - start);
    return true;
  }

  bool hex4(std::uint32_t& v) {
    if (s_.size() - pos_ < 4) return failb(pos_, "truncated \\u escape");
    v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else return failb(pos_ - 1, "invalid hex digit in \\u escape");
    }
    return true;
  }

  static void put_utf8(std::string& o, std::uint32_t cp) {
    if (cp < 0x80) {
      o += static_cast<char>(cp);
    } else if (cp < 0x800) {
      o += static_cast<char>(0xC0 | (cp >> 6));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      o += static_cast<char>(0xE0 | (cp >> 12));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      o += static_cast<char>(0xF0 | (cp >> 18));
      o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parse_string(std::string& out) {
    const std::size_t open = pos_;
    ++pos_;  // opening quote
    out.clear();
    for (;;) {
      if (pos_ >= s_.size()) return failb(open, "unterminated string");
      if (out.size() > lim_.max_string) return failb(open, "string longer than " + std::to_string(lim_.max_string) + " bytes");
      const char c = s_[pos_];
      if (c == '"') { ++pos_; return true; }
      if (static_cast<unsigned char>(c) < 0x20) return failb(pos_, "control character in string");
      if (c != '\\') { out += c; ++pos_; continue; }
      ++pos_;
      if (pos_ >= s_.size()) return failb(pos_, "truncated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const std::size_t at = pos_ - 2;
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.size() - pos_ < 2 || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
              return failb(at, "high surrogate without a following low surrogate");
            pos_ += 2;
            std::uint32_t lo = 0;
            if (!hex4(lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return failb(at, "high surrogate followed by a non-low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return failb(at, "lone low surrogate");
          }
          put_utf8(out, cp);
          break;
        }
        default: return failb(pos_ - 1, std::string("invalid escape '\\") + printable(e) + "'");
      }
    }
  }

  bool parse_array(value& out, std::size_t depth) {
    if (depth > lim_.max_depth) return failb(pos_, "nesting deeper than " + std::to_string(lim_.max_depth));
    out.kind_ = kind::array;
    ++pos_;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return true; }
    for (;;) {
      out.items_.emplace_back();
      if (!parse_value(out.items_.back(), depth)) return false;
      skip_ws();
      if (pos_ >= s_.size()) return failb(pos_, "unterminated array");
      if (s_[pos_] == ',') { ++pos_; continue; }
      if (s_[pos_] == ']') { ++pos_; return true; }
      return failb(pos_, "expected ',' or ']' in array");
    }
  }

  bool parse_object(value& out, std::size_t depth) {
    if (depth > lim_.max_depth) return failb(pos_, "nesting deeper than " + std::to_string(lim_.max_depth));
    out.kind_ = kind::object;
    ++pos_;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return true; }
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size()) return failb(pos_, "unterminated object");
      if (s_[pos_] != '"') return failb(pos_, "expected a string key in object");
      std::string key;
      if (!parse_string(key)) return false;
      // Keys that differ only in invalid bytes are one key once written (as
      // U+FFFD each), so they are one key here too: dump() then parses back the same.
      utf8_repair(key);
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') return failb(pos_, "expected ':' after object key");
      ++pos_;
      out.members_.emplace_back(std::move(key), value());
      if (!parse_value(out.members_.back().second, depth)) return false;
      skip_ws();
      if (pos_ >= s_.size()) return failb(pos_, "unterminated object");
      if (s_[pos_] == ',') { ++pos_; continue; }
      if (s_[pos_] == '}') {
        ++pos_;
        keep_last_of_repeated_keys(out.members_);
        return true;
      }
      return failb(pos_, "expected ',' or '}' in object");
    }
  }

  /// A key given twice keeps its first place and its last value, as Python's
  /// json module reads it (the reference tools read these files so). Sorted
  /// positions, not a scan per key: an object may have a million members.
  static void keep_last_of_repeated_keys(std::vector<value::member>& m) {
    if (m.size() < 2) return;
    std::vector<std::size_t> at(m.size());
    for (std::size_t k = 0; k < at.size(); ++k) at[k] = k;
    std::stable_sort(at.begin(), at.end(), [&](std::size_t a, std::size_t b) { return m[a].first < m[b].first; });
    std::vector<bool> repeat(m.size());
    bool any = false;
    for (std::size_t k = 1, first = 0; k < at.size(); ++k) {  // at[first]: the key's first place
      if (m[at[k]].first != m[at[first]].first) {
        first = k;
        continue;
      }
      m[at[first]].second = std::move(m[at[k]].second);
      repeat[at[k]] = any = true;
    }
    if (!any) return;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < m.size(); ++k) {
      if (repeat[k]) continue;
      if (kept != k) m[kept] = std::move(m[k]);
      ++kept;
    }
    m.resize(kept);
  }

  std::string_view s_;
  std::string_view source_;
  limits lim_;
  std::size_t pos_ = 0;
  std::size_t elements_ = 0;
  error err_;
};

/// Parses `text`; `source` (a file name) prefixes every error message.
inline result<value> parse(std::string_view text, std::string_view source = "<json>", const limits& lim = {}) {
  return parser(text, source, lim).run();
}

/// The one UTF-8 rule of every text output: the length (1..4) of the valid
/// UTF-8 sequence starting at s[i], or 0 when the byte there does not start one
/// (stray continuation byte, overlong form, surrogate, above U+10FFFF, cut short).
inline std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned c = p[i];
  if (c < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i + k] & 0x3F);
  }
  if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
  if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
  return len;
}

/// U+FFFD REPLACEMENT CHARACTER, what an invalid byte becomes.
inline constexpr std::string_view utf8_replacement = "\xEF\xBF\xBD";

/// Whether `s` is valid UTF-8 (utf8_length() at every character).
inline bool utf8_valid(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

/// Replaces every byte of `s` that utf8_length() rejects by U+FFFD; returns
/// whether anything was replaced.
inline bool utf8_repair(std::string& s) {
  if (utf8_valid(s)) return false;
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += utf8_replacement;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  s = std::move(out);
  return true;
}

/// Appends `s` escaped for the inside of a JSON string: `"` `\\` and control
/// characters (short forms where JSON has them, else \u00XX); valid UTF-8
/// passes through, each invalid byte becomes U+FFFD (so the output is always
/// JSON). Returns whether a byte was replaced. The one escaper of the control
/// files and the converters' text outputs.
inline bool append_escaped(std::string& out, std::string_view s) {
  std::size_t plain = 0;  // start of the run not appended yet
  bool replaced = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n != 0) {
        i += n - 1;
        continue;
      }
      out.append(s.data() + plain, i - plain);
      plain = i + 1;
      out += utf8_replacement;
      replaced = true;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      }
    }
  }
  out.append(s.data() + plain, s.size() - plain);
  return replaced;
}

/// Appends `s` as a JSON string literal (quotes, escapes; UTF-8 passes through).
inline void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  append_escaped(out, s);
  out += '"';
}

/// Serializes a value compactly with CANN's separators (", " and ": "), which
/// is how the control files look on disk.
inline void dump(const value& v, std::string& out) {
  switch (v.type()) {
    case kind::null: out += "null"; break;
    case kind::boolean: out += v.as_bool() ? "true" : "false"; break;
    case kind::number: out += v.text(); break;
    case kind::string: append_quoted(out, v.text()); break;
    case kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.items()) {
        if (!first) out += ", ";
        first = false;
        dump(e, out);
      }
      out += ']';
      break;
    }
    case kind::object: {
      out += '{';
      bool first = true;
      for (const auto& m : v.members()) {
        if (!first) out += ", ";
        first = false;
        append_quoted(out, m.first);
        out += ": ";
        dump(m.second, out);
      }
      out += '}';
      break;
    }
  }
}
inline std::string dump(const value& v) {
  std::string s;
  dump(v, s);
  return s;
}

/// Streaming writer for emitting JSON text without building a DOM:
///   json::writer w; w.begin_object(); w.key("a"); w.number(1); w.end_object();
/// Separators follow CANN's control files (", " and ": "). A writer given a
/// string appends to it: one value after another, the caller putting what
/// goes between them (a stream of events written with no copy).
class writer {
 public:
  writer() = default;
  explicit writer(std::string& out) : out_(&out) {}
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  void begin_object() { pre(); *out_ += '{'; first_.push_back(true); }
  void end_object() { *out_ += '}'; pop(); }
  void begin_array() { pre(); *out_ += '['; first_.push_back(true); }
  void end_array() { *out_ += ']'; pop(); }
  void key(std::string_view k) {
    sep();
    append_quoted(*out_, k);
    *out_ += ": ";
    after_key_ = true;
  }
  void string(std::string_view s) { pre(); append_quoted(*out_, s); }
  /// A string given as append_quoted()'s text (quotes and escapes done).
  void quoted(std::string_view text) { pre(); *out_ += text; }
  void number(std::int64_t v) { pre(); digits(v); }
  void number(std::uint64_t v) { pre(); digits(v); }
  void number(int v) { number(static_cast<std::int64_t>(v)); }
  void number(unsigned v) { number(static_cast<std::uint64_t>(v)); }
  /// A number given as text (must be a valid JSON number).
  void raw_number(std::string_view text) { pre(); *out_ += text; }
  void boolean(bool b) { pre(); *out_ += b ? "true" : "false"; }
  void null() { pre(); *out_ += "null"; }
  void value(const json::value& v) { pre(); dump(v, *out_); }
  /// key + string in one call, the common case for control files.
  void member(std::string_view k, std::string_view s) { key(k); string(s); }
  void member(std::string_view k, const char* s) { key(k); string(s); }
  void member(std::string_view k, std::int64_t v) { key(k); number(v); }
  void member(std::string_view k, int v) { key(k); number(v); }
  void member(std::string_view k, std::uint64_t v) { key(k); number(v); }
  void member(std::string_view k, unsigned v) { key(k); number(v); }

  const std::string& str() const noexcept { return *out_; }
  std::string take() { return std::move(*out_); }

 private:
  template <class Int>
  void digits(Int v) {
    char buf[24];
    *out_ += std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
  }
  void sep() {
    if (!first_.empty()) {
      if (!first_.back()) *out_ += ", ";
      first_.back() = false;
    }
  }
  void pre() {
    if (after_key_) { after_key_ = false; return; }
    sep();
  }
  void pop() {
    if (!first_.empty()) first_.pop_back();
  }
  std::string own_;
  std::string* out_ = &own_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace json
MSPROF_END_NAMESPACE

#endif  // MSPROF_CORE_JSON_HPP
