// SPDX-License-Identifier: MIT
// chrome::write(): the chrome form into files, each written under a temporary
// name (core/output_file.hpp) and renamed once every part is complete.
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "msprof/convert/chrome/chrome_trace.hpp"
#include "msprof/convert/chrome/render.hpp"
#include "msprof/core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

namespace detail {

result<output> write_built(trace_builder& b, std::int64_t session_start_ns, const std::filesystem::path& dir,
                           std::string_view stem) {
  auto out = outfile::dir::open(dir.string());
  if (!out) return make_error(errc::io, out.err().message);  // a missing directory too: nothing can be written
  // Dropped uncommitted (any error), each removes its temporary.
  std::vector<outfile::atomic_file> parts;
  std::string failure;
  // Part file names are only known inside finish(); it names them
  // <stem>.json or <stem>_part<k>.json, so each part is committed under its
  // name after the output says which it was.
  auto r = b.finish(session_start_ns, stem, [&](std::size_t k, std::string_view chunk) {
    if (k >= parts.size()) {
      auto f = outfile::atomic_file::create(*out, fmt::format("{}.part{}", stem, k + 1));
      if (!f) {
        failure = f.err().message;
        return false;
      }
      parts.push_back(std::move(*f));
    }
    if (auto w = parts.back().write(chunk); !w) {
      failure = w.err().message;
      return false;
    }
    return true;
  });
  if (!r) {
    if (!failure.empty()) return make_error(errc::io, failure);
    return r;
  }
  if (parts.size() != r->parts.size())
    return make_error(errc::io, fmt::format("{}: {} parts planned, {} written", stem, r->parts.size(), parts.size()));
  if (!r->note_file.empty()) {
    auto nf = outfile::atomic_file::create(*out, r->note_file);
    if (!nf) return nf.err();
    MSPROF_TRY(nf->write(r->note));
    parts.push_back(std::move(*nf));
  }
  for (std::size_t k = 0; k < parts.size(); ++k)
    MSPROF_TRY(k < r->parts.size() ? parts[k].commit_as(r->parts[k].file_name) : parts[k].commit());
  return r;
}

}  // namespace detail

result<output> write(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                     const std::filesystem::path& dir, std::string_view stem, const options& opt) {
  detail::trace_builder b(opt, dir.string());
  for (std::size_t k = 0; k < events.size(); ++k) b.add(events[k], {0, k});
  return detail::write_built(b, session_start_ns, dir, stem);
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
