// SPDX-License-Identifier: MIT
// The AI CPU's data-preprocess (DP) slices, device_<id>/data/
// DATA_PREPROCESS.DP.<id>.slice_<n> (or DATA_PREPROCESS.dev.DP.<id>...): either
// 128-byte binary records or text lines "[<ns>] Last queue dequeue, source:<s>,
// index:<i>, size:<n>" ended by "\n\0" or NUL padding. The text is read as the
// reference's ParseDpData reads it (docs/formats.md, "AI CPU data preprocess"):
// through Python's str() of the bytes, so its escapes are part of the cells.
#ifndef MSPROF_CODEC_DP_HPP
#define MSPROF_CODEC_DP_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "decode.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

inline constexpr std::size_t dp_record_size = 128;
inline constexpr std::uint16_t dp_tag = 100;  ///< the binary records' tag, after the magic 0x5A5A

/// One binary DP record ("=HHIQ16s64sQQ2Q", little-endian).
struct DpRecord {
  std::uint16_t magic;
  std::uint16_t tag;
  std::uint32_t reserve;
  std::uint64_t timestamp;  ///< device ns (CLOCK_MONOTONIC_RAW)
  char action[16];
  char source[64];
  std::uint64_t index;
  std::uint64_t size;  ///< the cached buffer size
  std::uint64_t reserved[2];
};
static_assert(sizeof(DpRecord) == dp_record_size, "DpRecord is 128 bytes");

/// A record or line as the summary shows it: the time still raw, the cells as text.
struct DpEntry {
  bool binary = false;
  bool header_ok = true;           ///< binary: magic 0x5A5A and tag 100
  std::uint64_t timestamp = 0;     ///< binary: ns
  double text_timestamp = 0;       ///< text: Python's float() of the bracketed value
  std::string action, source, size;
};

namespace detail {
/// Python's bytes.decode('utf-8', 'ignore'): the well-formed sequences kept,
/// every other byte dropped (overlongs, surrogates, past U+10FFFF included).
inline std::string utf8_ignore(std::string_view b) {
  std::string out;
  const auto cont = [&](std::size_t i, unsigned lo, unsigned hi) {
    if (i >= b.size()) return false;
    const unsigned c = static_cast<unsigned char>(b[i]);
    return c >= lo && c <= hi;
  };
  for (std::size_t i = 0; i < b.size();) {
    const unsigned c = static_cast<unsigned char>(b[i]);
    std::size_t n = 0;
    if (c < 0x80) n = 1;
    else if (c >= 0xC2 && c <= 0xDF) n = cont(i + 1, 0x80, 0xBF) ? 2 : 0;
    else if (c >= 0xE0 && c <= 0xEF) {
      const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
      n = cont(i + 1, lo, hi) && cont(i + 2, 0x80, 0xBF) ? 3 : 0;
    } else if (c >= 0xF0 && c <= 0xF4) {
      const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
      n = cont(i + 1, lo, hi) && cont(i + 2, 0x80, 0xBF) && cont(i + 3, 0x80, 0xBF) ? 4 : 0;
    }
    if (n) out.append(b.substr(i, n));
    i += n ? n : 1;  // a byte of a bad sequence goes; the next is looked at again
  }
  return out;
}

/// A fixed string field up to its first NUL, decoded as above.
inline std::string dp_field(const char* p, std::size_t n) {
  const void* nul = std::memchr(p, 0, n);
  return utf8_ignore(std::string_view(p, nul ? static_cast<std::size_t>(static_cast<const char*>(nul) - p) : n));
}

inline std::string_view strip_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
}  // namespace detail

/// A binary record; only a short input is an error. A record whose magic or
/// tag is not 0x5A5A / 100 is decoded all the same (header_ok false): the
/// reference reads every record of a file it took as binary.
inline result<DpEntry> decode_dp_record(const unsigned char* p, std::size_t n, const place& at) {
  if (n < dp_record_size) return detail::short_input(at, dp_record_size, n);
  DpRecord r;
  std::memcpy(&r, p, sizeof r);
  DpEntry e;
  e.binary = true;
  e.header_ok = r.magic == magic && r.tag == dp_tag;
  e.timestamp = r.timestamp;
  e.action = detail::dp_field(r.action, sizeof r.action);
  e.source = detail::dp_field(r.source, sizeof r.source);
  e.size = std::to_string(r.size);
  return e;
}

/// Whether 4 bytes are a binary record's start (magic 0x5A5A, tag 100).
inline bool dp_binary_header(const unsigned char* p) {
  std::uint16_t m = 0, t = 0;
  std::memcpy(&m, p, 2);
  std::memcpy(&t, p + 2, 2);
  return m == magic && t == dp_tag;
}

/// Calls seg(text, offset) with the pieces of a text slice as the reference
/// cuts them: "\n\0" and then each other NUL become " ___ ", the bytes are
/// written as Python's str() of bytes writes them (\\, \t, \n, \r, \xNN for
/// the rest outside printable ASCII, the quote it chose escaped), and that
/// text is split at " ___ ". `offset` is the file offset of a piece's first byte.
template <class F>
inline void for_each_dp_piece(std::string_view bytes, F&& seg) {
  // str() quotes with ' unless the bytes hold a ' and no ".
  const bool sq = bytes.find('\'') != std::string_view::npos, dq = bytes.find('"') != std::string_view::npos;
  const char quote = sq && !dq ? '"' : '\'';
  static constexpr std::string_view sep = " ___ ";
  std::string cur;
  std::size_t start = 0;
  bool fresh = true;  // cur has no byte yet: its offset is the next byte's
  const auto put = [&](std::string_view text, std::size_t from) {
    for (char c : text) {
      if (fresh) start = from, fresh = false;
      cur += c;
      if (cur.size() >= sep.size() && std::string_view(cur).substr(cur.size() - sep.size()) == sep) {
        cur.resize(cur.size() - sep.size());
        seg(std::string_view(cur), start);
        cur.clear();
        fresh = true;
      }
    }
  };
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == '\n' && i + 1 < bytes.size() && bytes[i + 1] == '\0') {
      put(sep, i);
      ++i;
    } else if (c == '\0') {
      put(sep, i);
    } else if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      const char e[2] = {'\\', static_cast<char>(c)};
      put(std::string_view(e, 2), i);
    } else if (c == '\t') {
      put("\\t", i);
    } else if (c == '\n') {
      put("\\n", i);
    } else if (c == '\r') {
      put("\\r", i);
    } else if (c < 0x20 || c >= 0x7F) {
      char e[5];
      std::snprintf(e, sizeof e, "\\x%02x", c);
      put(std::string_view(e, 4), i);
    } else {
      const char e = static_cast<char>(c);
      put(std::string_view(&e, 1), i);
    }
  }
  seg(std::string_view(cur), fresh ? bytes.size() : start);
}

/// The words that make a piece a DP line.
inline constexpr std::string_view dp_mark = "Last queue dequeue";

/// A piece holding dp_mark, as the reference splits it at commas: over 3
/// parts, "[<time>] <action>" first, the source after the last ':' of the
/// third part from the end, the size after the last ':' of the last part
/// (both as written). An error for fewer parts (the reference passes over the
/// piece) and for a time that is not a decimal number (there it raises).
inline result<DpEntry> decode_dp_line(std::string_view piece, const place& at) {
  std::vector<std::string_view> part;
  for (std::size_t from = 0;;) {
    const std::size_t comma = piece.find(',', from);
    part.push_back(piece.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  if (part.size() <= 3)
    return make_error(errc::bad_value, at.str() + ": a data preprocess line of " + std::to_string(part.size()) +
                                           " comma-separated parts, not at least 4");
  const std::string_view head = part[0];
  std::string_view time = head.substr(0, head.find(']'));
  while (!time.empty() && time.front() == '[') time.remove_prefix(1);
  while (!time.empty() && time.back() == '[') time.remove_suffix(1);
  DpEntry e;
  const std::string t(detail::strip_spaces(time));
  if (!detail::parse_py_float(t, e.text_timestamp))
    return make_error(errc::bad_value, at.str() + ": data preprocess time '" + t + "' is not a decimal number");
  const std::size_t close = head.rfind(']');
  e.action = std::string(detail::strip_spaces(close == std::string_view::npos ? head : head.substr(close + 1)));
  const auto after_colon = [](std::string_view s) {
    const std::size_t c = s.rfind(':');
    return std::string(c == std::string_view::npos ? s : s.substr(c + 1));
  };
  e.source = after_colon(part[part.size() - 3]);
  e.size = after_colon(part.back());
  return e;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_DP_HPP
