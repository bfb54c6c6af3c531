// SPDX-License-Identifier: MIT
// Helpers for comparing exporter output with tests/golden/<case>/expected:
// a temp copy of the input, the db canonicaliser (tables by name, rows by all
// columns, REAL as %!.20g like sqlite3's .dump), and a timeline normaliser that
// compares connection/flow ids by what they link rather than by value.
#ifndef MSPROF_TESTS_UNIT_CONVERT_GOLDEN_UTIL_HPP
#define MSPROF_TESTS_UNIT_CONVERT_GOLDEN_UTIL_HPP

#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <simdjson.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace golden {

namespace fs = std::filesystem;

inline const char* const cases[] = {"host_api_only", "mstx_domains", "ops_pipeutil", "multi_thread_mixed",
                                    "truncated_tail"};

inline fs::path case_dir(const std::string& c) { return fs::path(MSPROF_TEST_DATA_DIR) / "golden" / c; }

/// The host data file `name` of the collection `prof`.
inline fs::path host_data(const fs::path& prof, const char* name) { return prof / "host" / "data" / name; }

/// `name` in device `d`'s directory of `prof`.
inline fs::path device_file(const fs::path& prof, int d, const std::string& name) {
  return prof / ("device_" + std::to_string(d)) / name;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A fresh temp copy of a golden input; removed on destruction.
struct temp_copy {
  fs::path root;
  fs::path prof;
  explicit temp_copy(const std::string& c, const std::string& tag = "") {
    std::string flat = c;  // a nested case ("aic_metrics/Memory") gets one flat temp directory
    std::replace(flat.begin(), flat.end(), '/', '_');
    root = fs::temp_directory_path() /
           ("msprof_convert_" + flat + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(root);
    fs::create_directories(root);
    fs::copy(case_dir(c) / "input", root, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(root))
      if (e.path().filename().string().rfind("PROF_", 0) == 0) prof = e.path();
  }
  ~temp_copy() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// Export options whose file names carry the fixed timestamp "T".
inline msprof::convert::export_options fixed_ts() {
  msprof::convert::export_options o;
  o.timestamp = "T";
  return o;
}

/// The timeline, summary and db exports of a copied case, each required to succeed.
inline void export_everything(const temp_copy& t) {
  const auto o = fixed_ts();
  auto a = msprof::convert::export_timeline(t.prof.string(), o);
  REQUIRE_MESSAGE(a.has_value(), a.err().what());
  auto b = msprof::convert::export_summary(t.prof.string(), o);
  REQUIRE_MESSAGE(b.has_value(), b.err().what());
  auto c = msprof::convert::export_db(t.prof.string(), o);
  REQUIRE_MESSAGE(c.has_value(), c.err().what());
}

/// The warnings of the timeline and db exports of a copied case, each required to succeed.
inline std::pair<std::vector<std::string>, std::vector<std::string>> timeline_and_db_warnings(const temp_copy& t) {
  const auto o = fixed_ts();
  auto tl = msprof::convert::export_timeline(t.prof.string(), o);
  REQUIRE_MESSAGE(tl.has_value(), tl.err().what());
  auto db = msprof::convert::export_db(t.prof.string(), o);
  REQUIRE_MESSAGE(db.has_value(), db.err().what());
  return {tl->warnings, db->warnings};
}

/// The output file named <stem>_<ts>.<ext> (ts "T"); empty path if absent.
inline fs::path output(const fs::path& prof, const std::string& stem, const std::string& ext) {
  const auto p = prof / "mindstudio_profiler_output" / (stem + "_T." + ext);
  return fs::exists(p) ? p : fs::path();
}

/// `stored` (a stored golden input) holds exactly the files of `generated`
/// (what the generator writes now), byte for byte.
inline void check_same_files(const fs::path& generated, const fs::path& stored) {
  std::size_t files = 0, made = 0;
  for (const auto& e : fs::recursive_directory_iterator(stored)) {
    if (!e.is_regular_file()) continue;
    const auto rel = fs::relative(e.path(), stored);
    CAPTURE(rel.string());
    REQUIRE(fs::exists(generated / rel));
    CHECK(slurp(generated / rel) == slurp(e.path()));
    ++files;
  }
  for (const auto& e : fs::recursive_directory_iterator(generated)) made += e.is_regular_file();
  CHECK(files == made);
}

/// Every CSV of case `c`'s expected/ equals ours (in t) byte for byte; how many there were.
/// Whether one of `warnings` holds both `a` and `b`.
inline bool has_warning(const std::vector<std::string>& warnings, const std::string& a, const std::string& b) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(a) != std::string::npos && w.find(b) != std::string::npos; });
}

inline std::size_t check_csvs(const temp_copy& t, const std::string& c) {
  std::size_t csvs = 0;
  for (const auto& e : fs::directory_iterator(case_dir(c) / "expected")) {
    if (e.path().extension() != ".csv") continue;
    const std::string stem = e.path().stem().string();
    CAPTURE(stem);
    const auto ours = output(t.prof, stem, "csv");
    REQUIRE_MESSAGE(!ours.empty(), "no " << stem << " written");
    CHECK(slurp(ours) == slurp(e.path()));
    ++csvs;
  }
  return csvs;
}

/// Canonical dump: CREATE + INSERT lines, tables by name, rows by all columns.
inline std::vector<std::string> canonical_db(const fs::path& db_path) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    out.push_back("cannot open " + db_path.string());
    sqlite3_close(db);
    return out;
  }
  std::vector<std::pair<std::string, std::string>> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW)
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                        reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  sqlite3_finalize(st);
  for (const auto& [name, sql] : tables) {
    out.push_back(sql + ";");
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, ("SELECT * FROM " + name + " LIMIT 0").c_str(), -1, &q, nullptr);
    const int n = sqlite3_column_count(q);
    sqlite3_finalize(q);
    std::string order;
    for (int i = 1; i <= n; ++i) order += (i > 1 ? "," : "") + std::to_string(i);
    sqlite3_prepare_v2(db, ("SELECT * FROM " + name + " ORDER BY " + order).c_str(), -1, &q, nullptr);
    while (sqlite3_step(q) == SQLITE_ROW) {
      std::string line = "INSERT INTO " + name + " VALUES(";
      for (int i = 0; i < n; ++i) {
        if (i) line += ',';
        switch (sqlite3_column_type(q, i)) {
          case SQLITE_INTEGER: line += std::to_string(sqlite3_column_int64(q, i)); break;
          case SQLITE_FLOAT: {
            char* s = sqlite3_mprintf("%!.20g", sqlite3_column_double(q, i));
            line += s;
            sqlite3_free(s);
            break;
          }
          case SQLITE_NULL: line += "NULL"; break;
          default: {
            std::string v = reinterpret_cast<const char*>(sqlite3_column_text(q, i));
            line += '\'';
            for (char c : v) {
              if (c == '\'') line += '\'';
              line += c;
            }
            line += '\'';
          }
        }
      }
      out.push_back(line + ");");
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return out;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

/// Timeline events as sorted canonical strings. Connection ids become the
/// label of the CANN API that owns them; flow ids and names become the label
/// of the event their 's' end sits on.
inline std::vector<std::string> canonical_timeline(const std::string& json, std::string& error) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto e = parser.parse(json).get(doc)) {
    error = simdjson::error_message(e);
    return {};
  }
  simdjson::dom::array arr;
  if (doc.get_array().get(arr)) {
    error = "top level is not an array";
    return {};
  }
  auto str = [](simdjson::dom::element e, const char* k) {
    std::string_view s;
    if (e[k].get_string().get(s)) return std::string();
    return std::string(s);
  };
  auto num = [](simdjson::dom::element e, const char* k) {
    std::int64_t v = -1;
    if (e[k].get_int64().get(v)) v = -1;
    return v;
  };
  // Pass 1: connection id -> API label; (pid, tid, ts) -> X label.
  std::map<std::int64_t, std::string> conn_label;
  std::map<std::string, std::string> at_label;
  for (auto e : arr) {
    if (str(e, "ph") != "X") continue;
    const std::string label = str(e, "name") + "@" + std::to_string(num(e, "tid")) + "@" + str(e, "ts");
    at_label[std::to_string(num(e, "pid")) + "/" + std::to_string(num(e, "tid")) + "/" + str(e, "ts")] = label;
    std::int64_t c = -1;
    if (!e["args"]["connection_id"].get_int64().get(c) && str(e, "name").find('@') != std::string::npos)
      conn_label[c] = label;
  }
  std::map<std::string, std::string> flow_label;
  for (auto e : arr) {
    if (str(e, "ph") != "s") continue;
    auto it = at_label.find(std::to_string(num(e, "pid")) + "/" + std::to_string(num(e, "tid")) + "/" + str(e, "ts"));
    flow_label[str(e, "cat") + ":" + str(e, "id")] = it == at_label.end() ? "<dangling s>" : it->second;
  }
  std::vector<std::string> out;
  for (auto e : arr) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj)) {
      error = "event is not an object";
      return {};
    }
    const std::string ph = str(e, "ph");
    const bool flow = ph == "s" || ph == "f";
    std::string s = "{";
    for (auto field : obj) {
      const std::string key(field.key);
      s += key + ":";
      if (flow && (key == "id" || key == "name")) {
        auto it = flow_label.find(str(e, "cat") + ":" + str(e, "id"));
        s += it == flow_label.end() ? "<no s end>" : "<" + it->second + ">";
      } else if (key == "args") {
        simdjson::dom::object args;
        s += "{";
        if (!field.value.get_object().get(args)) {
          for (auto a : args) {
            s += std::string(a.key) + ":";
            std::int64_t c = -1;
            if (std::string(a.key) == "connection_id" && !a.value.get_int64().get(c)) {
              auto it = conn_label.find(c);
              s += it == conn_label.end() ? "<unknown connection>" : "<" + it->second + ">";
            } else {
              s += simdjson::minify(a.value);
            }
            s += ",";
          }
        }
        s += "}";
      } else {
        s += simdjson::minify(field.value);
      }
      s += ",";
    }
    out.push_back(s + "}");
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Lines in a but not in b (multiset difference).
inline std::vector<std::string> minus(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> d;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d));
  return d;
}

/// The canonical events of process `pid` in the case's msprof_T.json.
inline std::vector<std::string> process_events(const fs::path& prof, std::uint64_t pid) {
  std::string err;
  const auto events = canonical_timeline(slurp(output(prof, "msprof", "json")), err);
  REQUIRE_MESSAGE(err.empty(), err);
  std::vector<std::string> v;
  for (const auto& e : events)
    if (e.find("pid:" + std::to_string(pid) + ",") != std::string::npos) v.push_back(e);
  return v;
}

/// The canonical dump's lines of `table` in the case's msprof_T.db.
inline std::vector<std::string> table_rows(const fs::path& prof, const std::string& table) {
  std::vector<std::string> v;
  for (const auto& l : canonical_db(prof / "msprof_T.db"))
    if (l.rfind("CREATE TABLE " + table + " ", 0) == 0 || l.rfind("INSERT INTO " + table + " ", 0) == 0) v.push_back(l);
  return v;
}

}  // namespace golden

#endif  // MSPROF_TESTS_UNIT_CONVERT_GOLDEN_UTIL_HPP
