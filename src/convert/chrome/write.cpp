// SPDX-License-Identifier: MIT
// chrome::write(): the chrome form into files, each written under a .tmp name
// and renamed once every part is complete.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "msprof/convert/chrome/chrome_trace.hpp"
#include "msprof/convert/chrome/render.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

result<output> write(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                     const std::filesystem::path& dir, std::string_view stem, const options& opt) {
  std::vector<std::filesystem::path> tmp;
  std::FILE* file = nullptr;
  std::size_t open_part = static_cast<std::size_t>(-1);
  std::string failure;
  auto close_file = [&]() -> bool {
    if (!file) return true;
    const bool ok = std::fflush(file) == 0 && std::ferror(file) == 0;
    const bool closed = std::fclose(file) == 0;
    file = nullptr;
    return ok && closed;
  };
  auto cleanup = [&] {
    close_file();
    std::error_code ec;
    for (const auto& t : tmp) std::filesystem::remove(t, ec);
  };
  // Part file names are only known inside render_to; it names them
  // <stem>.json or <stem>_part<k>.json, so the temporary name is derived from k
  // and renamed after the output says which it was.
  auto r = detail::render_to(events, session_start_ns, stem, opt, [&](std::size_t k, std::string_view chunk) {
    if (k != open_part) {
      if (!close_file()) {
        failure = fmt::format("{}: {}", tmp.back().string(), std::strerror(errno));
        return false;
      }
      tmp.push_back(dir / fmt::format("{}.part{}.tmp", stem, k + 1));
      file = std::fopen(tmp.back().string().c_str(), "wb");
      if (!file) {
        failure = fmt::format("{}: cannot create: {}", tmp.back().string(), std::strerror(errno));
        tmp.pop_back();
        return false;
      }
      open_part = k;
    }
    if (std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
      failure = fmt::format("{}: {}", tmp.back().string(), std::strerror(errno));
      return false;
    }
    return true;
  });
  if (!r) {
    cleanup();
    if (!failure.empty()) return make_error(errc::io, failure);
    return r;
  }
  if (!close_file()) {
    const std::string name = tmp.empty() ? std::string(stem) : tmp.back().string();
    cleanup();
    return make_error(errc::io, fmt::format("{}: write failed: {}", name, std::strerror(errno)));
  }
  if (tmp.size() != r->parts.size()) {
    cleanup();
    return make_error(errc::io, fmt::format("{}: {} parts planned, {} written", stem, r->parts.size(), tmp.size()));
  }
  if (!r->note_file.empty()) {
    const auto note_tmp = dir / (r->note_file + ".tmp");
    std::FILE* nf = std::fopen(note_tmp.string().c_str(), "wb");
    bool ok = nf && std::fwrite(r->note.data(), 1, r->note.size(), nf) == r->note.size();
    if (nf) ok = (std::fclose(nf) == 0) && ok;
    if (!ok) {
      cleanup();
      std::error_code ec;
      std::filesystem::remove(note_tmp, ec);
      return make_error(errc::io, fmt::format("{}: cannot write: {}", note_tmp.string(), std::strerror(errno)));
    }
    tmp.push_back(note_tmp);
  }
  for (std::size_t k = 0; k < tmp.size(); ++k) {
    const auto final_name = dir / (k < r->parts.size() ? r->parts[k].file_name : r->note_file);
    std::error_code ec;
    std::filesystem::rename(tmp[k], final_name, ec);
    if (ec) {
      cleanup();
      return make_error(errc::io, fmt::format("{}: cannot rename to {}: {}", tmp[k].string(), final_name.string(),
                                              ec.message()));
    }
  }
  return r;
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
