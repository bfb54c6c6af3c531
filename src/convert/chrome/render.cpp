// SPDX-License-Identifier: MIT
// Rendering the chrome form (include/msprof/convert/chrome/render.hpp) and
// chrome::render(), the form in memory.
#include "msprof/convert/chrome/render.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "msprof/convert/chrome/chrome_trace.hpp"
#include "msprof/convert/chrome/encode.hpp"
#include "msprof/convert/chrome/json.hpp"
#include "msprof/convert/chrome/parts.hpp"
#include "msprof/convert/chrome/plan.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

result<output> render_to(const std::vector<trace_event>& ev, std::int64_t session_start_ns, std::string_view stem,
                         const options& opt, const chunk_output& emit_chunk) {
  auto planned = make_plan(ev, session_start_ns, opt);
  if (!planned) return planned.err();
  plan& p = *planned;
  stats& st = p.st;

  // Sizes of everything, so parts can be planned before writing.
  std::string buf;
  std::uint64_t meta_bytes = 0;
  for (auto i : p.meta) {
    buf.clear();
    encode_meta(buf, p, i, st);
    meta_bytes += buf.size() + 2;
  }
  // While everything may still fit in one file, the encoded events are kept
  // (",\n"-separated) so a single-file trace is encoded only once.
  std::string body;
  bool keep_body = true;
  auto measure = [&](auto&& encode) -> std::uint64_t {
    if (keep_body) {
      const std::size_t before = body.size();
      body += ",\n";
      encode(body);
      const std::uint64_t n = body.size() - before;
      if (meta_bytes + body.size() > opt.max_part_bytes) {
        keep_body = false;
        std::string().swap(body);
      }
      return n;
    }
    buf.clear();
    encode(buf);
    return buf.size() + 2;
  };
  std::vector<std::uint32_t> pos(ev.size(), 0);
  std::vector<std::uint64_t> cost(p.order.size(), 0);
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < p.order.size(); ++k) {
    pos[p.order[k]] = static_cast<std::uint32_t>(k);
    cost[k] = measure([&](std::string& o) { encode_event(o, p, p.order[k], st); });
    total += cost[k];
  }
  for (std::size_t k = 0; k < p.flows.size(); ++k) {
    const std::uint64_t n = measure([&](std::string& o) { encode_flow(o, p, p.flows[k], st); });
    cost[std::max(pos[p.flows[k].host], pos[p.flows[k].device])] += n;
    total += n;
  }
  const stats counted = st;  // the sizing pass counted strings once; the write pass must not add again

  // Plan parts; grow the reserve for otherData until every part fits.
  const std::uint64_t fixed = head.size() + tail_open.size() + tail_close.size() + meta_bytes;
  std::vector<cut> cuts;
  std::vector<std::string> names;
  std::uint64_t reserve = 1024;
  std::size_t steps_split = 0;
  for (int attempt = 0;; ++attempt) {
    std::uint64_t whole = fixed + total + reserve;
    if (whole <= opt.max_part_bytes) {
      cuts = {{0, p.order.size()}};
    } else {
      if (opt.max_part_bytes <= fixed + reserve)
        return make_error(errc::limit, fmt::format("chrome trace: a part of at most {} bytes cannot hold the {} bytes "
                                                   "of metadata every part needs",
                                                   opt.max_part_bytes, fixed + reserve));
      steps_split = 0;
      cuts = cut_parts(p, cost, opt.max_part_bytes - fixed - reserve, opt, steps_split);
    }
    names.clear();
    if (cuts.size() == 1) {
      names.push_back(std::string(stem) + ".json");
    } else {
      for (std::size_t k = 0; k < cuts.size(); ++k) names.push_back(fmt::format("{}_part{}.json", stem, k + 1));
    }
    std::uint64_t need = 0;
    stats probe = counted;
    probe.steps_split = steps_split;
    for (std::size_t k = 0; k < cuts.size(); ++k)
      need = std::max<std::uint64_t>(need, other_data(p, probe, session_start_ns, k, names).size() + 64);
    if (need <= reserve || attempt == 8) break;
    reserve = need;
  }

  // Which part each event lands in; flows need both ends in one part.
  std::vector<std::uint32_t> part_of_pos(p.order.size(), 0);
  for (std::size_t k = 0; k < cuts.size(); ++k)
    for (std::size_t j = cuts[k].begin; j < cuts[k].end; ++j) part_of_pos[j] = static_cast<std::uint32_t>(k);
  std::vector<std::vector<std::uint32_t>> flows_in(cuts.size());
  stats final_st = counted;
  final_st.steps_split = steps_split;
  for (std::size_t k = 0; k < p.flows.size(); ++k) {
    const auto a = part_of_pos[pos[p.flows[k].host]], b = part_of_pos[pos[p.flows[k].device]];
    if (a != b) {
      ++final_st.flows_cut;
    } else {
      flows_in[a].push_back(static_cast<std::uint32_t>(k));
      ++final_st.flows_written;
    }
  }
  for (auto i : p.order) {
    const char ph = ev[i].ph;
    if (ph == 'X') ++final_st.slices;
    else if (ph == 'C') ++final_st.counters;
    else ++final_st.instants;
  }
  final_st.metadata = p.meta.size();

  output out;
  out.origin_ns = p.origin_ns;
  out.totals = final_st;
  stats scratch;  // string counters were taken in the sizing pass
  scratch.max_depth = 0;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    part pt;
    pt.file_name = names[k];
    std::uint64_t bytes = 0;
    std::size_t events = 0;
    auto emit = [&](std::string& chunk) -> bool {
      bytes += chunk.size();
      const bool ok = emit_chunk(k, std::string_view(chunk));
      chunk.clear();
      return ok;
    };
    buf.assign(head);
    bool first = true;
    auto sep = [&] {
      if (!first) buf += ",\n";
      first = false;
      ++events;
    };
    for (auto i : p.meta) {
      sep();
      encode_meta(buf, p, i, scratch);
    }
    const bool from_body = keep_body && cuts.size() == 1;
    if (from_body && !body.empty()) {
      // everything was encoded in the sizing pass: hand it over as it is
      if (!emit(buf)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
      std::string_view b(body);
      if (first) b.remove_prefix(2);  // no metadata before it: drop the leading ",\n"
      first = false;
      bytes += b.size();
      if (!emit_chunk(k, b)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
      events += p.order.size() + 2 * p.flows.size();
    }
    bool have_range = false;
    for (std::size_t j = cuts[k].begin; j < cuts[k].end; ++j) {
      const std::uint32_t i = p.order[j];
      if (!from_body) {
        sep();
        encode_event(buf, p, i, scratch);
      }
      const std::int64_t end = ev[i].ts_ns + p.dur[i];
      if (!have_range) {
        pt.first_ns = ev[i].ts_ns;
        pt.last_ns = end;
        have_range = true;
      }
      pt.first_ns = std::min(pt.first_ns, ev[i].ts_ns);
      pt.last_ns = std::max(pt.last_ns, end);
      if (buf.size() >= (std::size_t{1} << 20) && !emit(buf))
        return make_error(errc::io, fmt::format("{}: write failed", names[k]));
    }
    for (auto f : flows_in[k]) {
      if (from_body) break;
      sep();
      ++events;  // a flow is two events
      encode_flow(buf, p, p.flows[f], scratch);
    }
    buf += tail_open;
    buf += other_data(p, final_st, session_start_ns, k, names);
    buf += tail_close;
    if (!emit(buf)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
    pt.bytes = bytes;
    pt.events = events;
    out.parts.push_back(std::move(pt));
  }
  if (out.parts.size() > 1) {
    out.note_file = std::string(stem) + "_parts.txt";
    out.note = fmt::format(
        "The chrome trace is larger than {} bytes, so it was written as {} parts.\n"
        "Each part is a complete trace with all process and thread names; open them one at a time.\n"
        "Times are µs after ts_origin_ns = {} (otherData). Flows cut by a part boundary: {}.\n\n",
        opt.max_part_bytes, out.parts.size(), p.origin_ns, final_st.flows_cut);
    for (const auto& pt : out.parts)
      out.note += fmt::format("{}\t{} bytes\t{} events\tts {:.3f} .. {:.3f} us\n", pt.file_name, pt.bytes, pt.events,
                              js_us(pt.first_ns - p.origin_ns), js_us(pt.last_ns - p.origin_ns));
  }
  return out;
}

}  // namespace detail

result<output> render(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                      std::string_view stem, const options& opt) {
  std::vector<std::string> texts;
  auto r = detail::render_to(events, session_start_ns, stem, opt, [&](std::size_t k, std::string_view chunk) {
    if (texts.size() <= k) texts.resize(k + 1);
    texts[k].append(chunk.data(), chunk.size());
    return true;
  });
  if (!r) return r;
  for (std::size_t k = 0; k < r->parts.size() && k < texts.size(); ++k) r->parts[k].text = std::move(texts[k]);
  return r;
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
