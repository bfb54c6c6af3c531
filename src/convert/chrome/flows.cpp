// SPDX-License-Identifier: MIT
// Flows of the chrome form (include/msprof/convert/chrome/flows.hpp): pairing
// s with f, binding each end to a slice, dropping what DevTools would misbind.
#include "msprof/convert/chrome/flows.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {
namespace {

/// Finds the slice a flow end binds to on (pid, tid) at ts: a slice starting
/// there (the one whose connection_id matches, else the innermost), else the
/// innermost slice enclosing ts. `thread` holds that thread's X events in
/// nesting order.
std::uint32_t find_flow_slice(const plan& p, const std::uint32_t* thread, std::size_t n, std::int64_t ts,
                              std::uint64_t conn) {
  const auto& ev = *p.ev;
  const std::uint32_t* first =
      std::lower_bound(thread, thread + n, ts, [&](std::uint32_t i, std::int64_t v) { return ev[i].ts_ns < v; });
  std::uint32_t best = npos32;
  for (const std::uint32_t* it = first; it != thread + n && ev[*it].ts_ns == ts; ++it) {
    if (ev[*it].ph != 'X') continue;
    for (const auto& a : ev[*it].args) {
      if (a.key == "connection_id" && a.k == trace_arg::kind::integer && conn != 0 &&
          static_cast<std::uint64_t>(a.i) == conn)
        return *it;
    }
    best = *it;  // later = nested deeper
  }
  if (best != npos32) return best;
  // Innermost enclosing slice among the last starts before ts. The scan is
  // bounded so that flows pointing at nothing cannot make this quadratic.
  std::size_t budget = 256;
  for (const std::uint32_t* it = first; it != thread && budget-- > 0;) {
    --it;
    if (ev[*it].ph == 'X' && end_ns(p, *it) > ts) return *it;
  }
  return npos32;
}

std::uint64_t parse_u64(std::string_view s) noexcept {
  std::uint64_t v = 0;
  if (s.empty()) return 0;
  for (char c : s) {
    if (c < '0' || c > '9' || v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return 0;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

std::uint32_t intern_cat(plan& p, const std::string& c) {
  for (std::size_t k = 0; k < p.cats.size(); ++k)
    if (p.cats[k] == c) return static_cast<std::uint32_t>(k);
  p.cats.push_back(c);
  return static_cast<std::uint32_t>(p.cats.size() - 1);
}

}  // namespace

void plan_flows(plan& p, const std::vector<std::uint32_t>& slices, const std::vector<thread_run>& threads) {
  const auto& ev = *p.ev;
  // Flows: pair s with f by (cat, name, id) in input order, as DevTools does.
  // Each key holds a chain of its s events (next_s) not yet paired.
  struct flow_key {
    std::string_view cat, name, id;
    bool operator==(const flow_key& o) const noexcept { return cat == o.cat && name == o.name && id == o.id; }
  };
  struct flow_key_hash {
    std::size_t operator()(const flow_key& k) const noexcept {
      const std::hash<std::string_view> h;
      std::size_t seed = h(k.id);
      for (std::size_t v : {h(k.name), h(k.cat)}) seed ^= v + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
      return seed;
    }
  };
  std::unordered_map<flow_key, std::pair<std::uint32_t, std::uint32_t>, flow_key_hash> open;  // head, tail
  open.reserve(ev.size() / 8 + 16);
  std::vector<std::uint32_t> next_s(ev.size(), npos32);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    if (e.ph != 's') continue;
    const auto i = static_cast<std::uint32_t>(k);
    auto [it, fresh] = open.try_emplace(flow_key{e.cat, e.name, e.id}, i, i);
    if (!fresh) {
      if (it->second.first == npos32) {
        it->second.first = i;
      } else {
        next_s[it->second.second] = i;
      }
      it->second.second = i;
    }
  }
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    if (e.ph != 'f') continue;
    auto it = open.find(flow_key{e.cat, e.name, e.id});
    if (it == open.end() || it->second.first == npos32) {
      ++p.st.flows_unpaired;
      continue;
    }
    pairs.emplace_back(it->second.first, static_cast<std::uint32_t>(k));
    it->second.first = next_s[it->second.first];
  }
  for (const auto& kv : open)
    for (std::uint32_t i = kv.second.first; i != npos32; i = next_s[i]) ++p.st.flows_unpaired;

  auto thread_of = [&](std::uint64_t pid, std::uint64_t tid) -> const thread_run* {
    auto it = std::lower_bound(threads.begin(), threads.end(), std::make_pair(pid, tid),
                               [](const thread_run& r, const std::pair<std::uint64_t, std::uint64_t>& v) {
                                 return std::make_pair(r.pid, r.tid) < v;
                               });
    return it != threads.end() && it->pid == pid && it->tid == tid ? &*it : nullptr;
  };
  std::vector<std::uint8_t> is_end(ev.size(), 0);
  std::vector<flow_ref> candidates;
  for (const auto& [si, fi] : pairs) {
    const auto& s = ev[si];
    const auto& f = ev[fi];
    const std::uint64_t id = parse_u64(s.id);
    const std::uint64_t conn = s.cat == "HostToDevice" ? id >> 32 : id;
    const thread_run* hs = thread_of(s.pid, s.tid);
    const thread_run* ds = thread_of(f.pid, f.tid);
    const std::uint32_t host = hs ? find_flow_slice(p, slices.data() + hs->begin, hs->end - hs->begin, s.ts_ns, conn) : npos32;
    const std::uint32_t dev = ds ? find_flow_slice(p, slices.data() + ds->begin, ds->end - ds->begin, f.ts_ns, conn) : npos32;
    if (host == npos32 || dev == npos32 || host == dev) {
      ++p.st.flows_unresolved;
      continue;
    }
    const std::uint32_t c = intern_cat(p, s.cat);
    // A slice carries one category; a flow needs its category on both ends.
    bool ok = true;
    for (std::uint32_t sl : {host, dev})
      if (is_end[sl] && p.cat[sl] != c) ok = false;
    if (!ok || c == 0) {
      ++p.st.flows_unbindable;
      continue;
    }
    for (std::uint32_t sl : {host, dev}) {
      is_end[sl] = 1;
      p.cat[sl] = c;
    }
    candidates.push_back({host, dev, si, c});
  }
  // DevTools binds a flow end to the first event in the file with the same
  // (ts, pid, tid, cat). Slices that are not flow ends keep the default
  // category, so only two flow ends of one category starting together on one
  // thread can collide; the later one's flows are dropped.
  std::vector<std::uint8_t> shadowed(ev.size(), 0);
  for (const auto& r : threads) {
    for (std::size_t k = r.begin; k < r.end; ++k) {
      const std::uint32_t i = slices[k];
      if (!is_end[i]) continue;
      for (std::size_t j = k; j-- > r.begin && ev[slices[j]].ts_ns == ev[i].ts_ns;) {
        if (p.cat[slices[j]] == p.cat[i] && (ev[slices[j]].ph == 'X' || ev[slices[j]].ph == 'I' || ev[slices[j]].ph == 'i')) {
          shadowed[i] = 1;
          break;
        }
      }
    }
  }
  for (const auto& fr : candidates) {
    if (shadowed[fr.host] || shadowed[fr.device]) {
      ++p.st.flows_unbindable;
    } else {
      p.flows.push_back(fr);
    }
  }
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
