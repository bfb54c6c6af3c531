// SPDX-License-Identifier: MIT
// The msprof command's argument parsing: CANN's flag spellings, numbers,
// comma lists, and the progress flags every reading command takes.
#ifndef MSPROF_CLI_ARGS_HPP
#define MSPROF_CLI_ARGS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msprof_cli {

/// "--name=value", "-name=value", "--name value", "-name value".
struct arg_parser {
  std::vector<std::string> args;
  std::size_t i = 0;

  bool done() const { return i >= args.size(); }
  /// If args[i] is the flag `name` (with one or two dashes), returns its value.
  std::optional<std::string> take(const std::string& name, bool has_value, bool& error) {
    const std::string& a = args[i];
    std::string body;
    if (a.rfind("--", 0) == 0)
      body = a.substr(2);
    else if (a.rfind("-", 0) == 0)
      body = a.substr(1);
    else
      return std::nullopt;
    const auto eq = body.find('=');
    const std::string key = body.substr(0, eq);
    if (key != name) return std::nullopt;
    ++i;
    if (!has_value) return eq == std::string::npos ? std::string("on") : body.substr(eq + 1);
    if (eq != std::string::npos) return body.substr(eq + 1);
    if (i >= args.size()) {
      error = true;
      return std::string();
    }
    return args[i++];
  }
  /// The option at args[i] (which starts with '-') as {name, value}: "--name=value",
  /// "-name value", ... Every launcher option takes a value, as CANN's do.
  /// `error`: no value follows.
  std::pair<std::string, std::string> take_any(bool& error) {
    const std::string& a = args[i++];
    const std::string body = a.substr(a.rfind("--", 0) == 0 ? 2 : 1);
    const auto eq = body.find('=');
    if (eq != std::string::npos) return {body.substr(0, eq), body.substr(eq + 1)};
    if (i >= args.size()) {
      error = true;
      return {body, ""};
    }
    return {body, args[i++]};
  }
  /// -dir, or CANN's long form --collection-dir.
  std::optional<std::string> take_dir(bool& error) {
    auto v = take("dir", true, error);
    return v ? v : take("collection-dir", true, error);
  }
};

inline std::optional<std::uint32_t> parse_u32(const std::string& s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > 0xFFFFFFFFull) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + 1) out.push_back(s.substr(b, e - b));
  out.push_back(s.substr(b));
  return out;
}

/// "a, b or c".
inline std::string or_list(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t k = 0; k < words.size(); ++k)
    out += (k == 0 ? "" : k + 1 == words.size() ? " or " : ", ") + words[k];
  return out;
}

/// --quiet / -q and --progress of export, import, show and analyse.
struct progress_flags {
  bool quiet = false;
  bool force = false;
  bool take(arg_parser& p, bool& err) {
    if (auto q = p.take("quiet", false, err); q || (q = p.take("q", false, err))) {
      quiet = *q != "off";
      return true;
    }
    if (auto f = p.take("progress", false, err)) {
      force = *f != "off";
      return true;
    }
    return false;
  }
};

}  // namespace msprof_cli

#endif  // MSPROF_CLI_ARGS_HPP
