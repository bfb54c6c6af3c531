// SPDX-License-Identifier: MIT
// Comparing trace JSON files (a top-level array of events) whose event order
// and some ids change from run to run: each event becomes one canonical line
// (keys sorted, every value as written), and the lines are compared as
// multisets. Ids that are renumbered between runs are replaced by what they
// link, so a flow that joins the wrong events still shows as a difference.
#ifndef MSPROF_TESTS_SUPPORT_TRACE_MULTISET_HPP
#define MSPROF_TESTS_SUPPORT_TRACE_MULTISET_HPP

#include <algorithm>
#include <iterator>
#include <map>
#include <msprof/core/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace trace_multiset {

namespace json = msprof::json;

/// A value with object keys sorted (strings escaped, numbers as written).
inline void canonical(const json::value& v, std::string& out) {
  if (v.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      if (i) out += ',';
      canonical(v.items()[i], out);
    }
    out += ']';
  } else if (v.is_object()) {
    std::vector<const json::value::member*> members;
    for (const auto& m : v.members()) members.push_back(&m);
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) out += ',';
      json::append_quoted(out, members[i]->first);
      out += ':';
      canonical(members[i]->second, out);
    }
    out += '}';
  } else {
    json::dump(v, out);
  }
}

inline std::string canonical(const json::value& v) {
  std::string s;
  canonical(v, s);
  return s;
}

/// "name@pid/tid/ts" of an event (ph for flow ends).
inline std::string place(const json::value& e, bool with_ph) {
  return (with_ph ? e.get("ph").as_string_or("?") : e.get("name").as_string_or("?")) + "@" + canonical(e.get("pid")) +
         "/" + canonical(e.get("tid")) + "/" + canonical(e.get("ts"));
}

/// Sorted, comma-joined, in angle brackets.
inline std::string label(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s = "<";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s + ">";
}

/// One canonical line per event, sorted. The flows of a category in
/// `renumbered` get, for their `id` (and for the end of their `name` when it
/// repeats the id: "HostToDevice4294967296"), the places of every event of that
/// category and id; `args.connection_id` becomes the places of every event
/// carrying that connection id. `error` is set when the text is not such an array.
inline std::vector<std::string> lines(std::string_view text, const std::set<std::string>& renumbered,
                                      std::string& error) {
  auto doc = json::parse(text, "trace");
  if (!doc) {
    error = doc.err().what();
    return {};
  }
  if (!doc->is_array()) {
    error = "top level is not an array";
    return {};
  }
  const auto flow_key = [](const json::value& e) {
    return e.get("cat").as_string_or("") + "\n" + canonical(e.get("id"));
  };
  std::map<std::string, std::vector<std::string>> flows, connections;
  for (const auto& e : doc->items()) {
    if (!e.is_object()) {
      error = "an event is not an object";
      return {};
    }
    if (e.find("id") && renumbered.count(e.get("cat").as_string_or(""))) flows[flow_key(e)].push_back(place(e, true));
    if (const auto* c = e.get("args").find("connection_id")) connections[canonical(*c)].push_back(place(e, false));
  }
  std::vector<std::string> out;
  for (json::value e : doc->items()) {
    if (e.find("id") && renumbered.count(e.get("cat").as_string_or(""))) {
      const std::string id = e.get("id").is_string() ? e.get("id").text() : canonical(e.get("id"));
      const std::string l = label(flows[flow_key(e)]);
      std::string name = e.get("name").as_string_or("");
      if (name.size() >= id.size() && name.compare(name.size() - id.size(), id.size(), id) == 0) {
        name.replace(name.size() - id.size(), id.size(), l);
        e.set("name", json::value::make_string(name));
      }
      e.set("id", json::value::make_string(l));
    }
    if (const auto* c = e.get("args").find("connection_id")) {
      json::value args = e.get("args");
      args.set("connection_id", json::value::make_string(label(connections[canonical(*c)])));
      e.set("args", std::move(args));
    }
    out.push_back(canonical(e));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Lines of `a` not in `b` (multiset difference; both sorted).
inline std::vector<std::string> minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> d;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d));
  return d;
}

}  // namespace trace_multiset

#endif  // MSPROF_TESTS_SUPPORT_TRACE_MULTISET_HPP
