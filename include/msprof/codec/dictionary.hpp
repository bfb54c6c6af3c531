// SPDX-License-Identifier: MIT
// The two text dictionaries of a PROF_ directory (ascend-formats.md §2.5):
//   hash_dic       "<decimal hash>:<string>\n"  (split at the first ':')
//   type_info_dic  "<level>_<typeId>:<name>\n"
// Parsing is bounded (line length, entry count) and every problem names the
// file, the line and the byte offset. Malformed lines are reported, not fatal:
// the caller gets every good entry plus the list of problems.
//
// Line ends: '\n', or "\r\n" (one '\r' before the '\n' is dropped, so a file
// written with CRLF reads the same). The format has no escapes, so a string
// cannot contain '\n' or end in '\r'; the formatters cut it at the first '\n'
// and then drop any '\r' at its end. What they write always reads back as
// exactly the string they wrote.
#ifndef MSPROF_CODEC_DICTIONARY_HPP
#define MSPROF_CODEC_DICTIONARY_HPP

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

struct dictionary_limits {
  std::size_t max_line = 64 * 1024;     ///< bytes in one line
  std::size_t max_entries = 4u << 20;   ///< entries kept per dictionary
};

using hash_map = std::unordered_map<std::uint64_t, std::string>;
using type_map = std::map<std::pair<std::uint16_t, std::uint32_t>, std::string>;

/// What a name shows when its hash is not in hash_dic: a visible marker, never
/// a bare number that could pass for a name ("<unknown hash 0x1F2E>").
inline std::string unknown_hash_text(std::uint64_t h) {
  static const char digits[] = "0123456789ABCDEF";
  std::string hex;
  do {
    hex.insert(hex.begin(), digits[h & 0xF]);
    h >>= 4;
  } while (h);
  return "<unknown hash 0x" + hex + ">";
}

namespace detail {
inline bool parse_u64(std::string_view s, std::uint64_t& out) noexcept {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

// Calls on_line(line, offset, line_no) for each '\n'-terminated line; a last
// line without '\n' is passed too (CANN always ends lines, but a cut file may not).
template <class F>
inline void for_each_line(std::string_view text, F&& on_line) {
  std::size_t pos = 0, no = 1;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line(line, pos, no);
    pos = nl + 1;
    ++no;
  }
}

inline std::string line_place(std::string_view file, std::size_t offset, std::size_t line) {
  return std::string(file) + ": line " + std::to_string(line) + " (byte offset " + std::to_string(offset) + ")";
}
}  // namespace detail

/// Adds every "<hash>:<string>" line of `text` to `out`; malformed lines become
/// messages in `problems`. A later line with the same hash overwrites (CANN
/// only logs collisions).
inline void parse_hash_dic(std::string_view text, std::string_view file, hash_map& out,
                           std::vector<std::string>& problems, const dictionary_limits& lim = {}) {
  detail::for_each_line(text, [&](std::string_view line, std::size_t off, std::size_t no) {
    if (line.empty()) return;
    if (line.size() > lim.max_line) {
      problems.push_back(detail::line_place(file, off, no) + ": line longer than " + std::to_string(lim.max_line) + " bytes, skipped");
      return;
    }
    const std::size_t colon = line.find(':');
    std::uint64_t h = 0;
    if (colon == std::string_view::npos || !detail::parse_u64(line.substr(0, colon), h)) {
      problems.push_back(detail::line_place(file, off, no) + ": expected '<decimal hash>:<string>', skipped");
      return;
    }
    if (out.size() >= lim.max_entries && out.find(h) == out.end()) {
      problems.push_back(detail::line_place(file, off, no) + ": more than " + std::to_string(lim.max_entries) + " entries, rest ignored");
      return;
    }
    out[h] = std::string(line.substr(colon + 1));
  });
}

/// Adds every "<level>_<type>:<name>" line of `text` to `out`.
inline void parse_type_info_dic(std::string_view text, std::string_view file, type_map& out,
                                std::vector<std::string>& problems, const dictionary_limits& lim = {}) {
  detail::for_each_line(text, [&](std::string_view line, std::size_t off, std::size_t no) {
    if (line.empty()) return;
    if (line.size() > lim.max_line) {
      problems.push_back(detail::line_place(file, off, no) + ": line longer than " + std::to_string(lim.max_line) + " bytes, skipped");
      return;
    }
    const std::size_t colon = line.find(':');
    const std::size_t us = line.find('_');
    std::uint64_t lv = 0, ty = 0;
    if (colon == std::string_view::npos || us == std::string_view::npos || us > colon ||
        !detail::parse_u64(line.substr(0, us), lv) || !detail::parse_u64(line.substr(us + 1, colon - us - 1), ty) ||
        lv > 0xFFFF || ty > 0xFFFFFFFFu) {
      problems.push_back(detail::line_place(file, off, no) + ": expected '<level>_<type>:<name>', skipped");
      return;
    }
    if (out.size() >= lim.max_entries) {
      problems.push_back(detail::line_place(file, off, no) + ": more than " + std::to_string(lim.max_entries) + " entries, rest ignored");
      return;
    }
    out[{static_cast<std::uint16_t>(lv), static_cast<std::uint32_t>(ty)}] = std::string(line.substr(colon + 1));
  });
}

namespace detail {
// The part of `s` a dictionary line can hold: up to the first '\n', without
// trailing '\r' (a reader would take the last one for a CRLF line end).
inline std::string_view dictionary_value(std::string_view s) noexcept {
  const std::size_t nl = s.find('\n');
  if (nl != std::string_view::npos) s = s.substr(0, nl);
  while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}
}  // namespace detail

/// One hash_dic line. Strings containing '\n' or ending in '\r' cannot be
/// represented (the format has no escape): the string is cut at the first
/// '\n' and trailing '\r' are dropped (detail::dictionary_value).
inline std::string format_hash_line(std::uint64_t hash, std::string_view s) {
  s = detail::dictionary_value(s);
  std::string out = std::to_string(hash);
  out += ':';
  out.append(s.data(), s.size());
  out += '\n';
  return out;
}

/// One type_info_dic line; `name` is cut like format_hash_line's string.
inline std::string format_type_line(std::uint16_t level, std::uint32_t type, std::string_view name) {
  name = detail::dictionary_value(name);
  std::string out = std::to_string(level) + "_" + std::to_string(type) + ":";
  out.append(name.data(), name.size());
  out += '\n';
  return out;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_DICTIONARY_HPP
