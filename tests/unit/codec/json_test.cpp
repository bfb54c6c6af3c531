// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <msprof/core/json.hpp>

#include <string>

namespace json = msprof::json;

TEST_CASE("json: objects keep order, numbers keep text, accessors") {
  auto v = json::parse(R"({"b": 1, "a": [true, null, -0.5e3], "big": 18446744073709551615, "s": "6060", "CPU": [{"Frequency": ""}]})", "t");
  REQUIRE(v);
  REQUIRE(v->members().size() == 5);
  CHECK(v->members()[0].first == "b");
  CHECK(v->members()[1].first == "a");
  CHECK(v->get("a").at(2).text() == "-0.5e3");
  double d = 0;
  CHECK(v->get("a").at(2).to_double(d));
  CHECK(d == -500.0);
  std::uint64_t u = 0;
  CHECK(v->get("big").to_uint64(u));
  CHECK(u == 18446744073709551615ull);
  std::int64_t i = 0;
  CHECK_FALSE(v->get("big").to_int64(i));
  CHECK(v->get("s").int_or(0) == 6060);
  CHECK(v->get("CPU").at(0).get("Frequency").as_string_or("x").empty());
  CHECK(v->get("missing").get("deeper").is_null());
  CHECK(json::dump(*v) == R"({"b": 1, "a": [true, null, -0.5e3], "big": 18446744073709551615, "s": "6060", "CPU": [{"Frequency": ""}]})");
}

TEST_CASE("json: a repeated key keeps its first place and its last value, as Python reads it") {
  auto v = json::parse(R"({"a": 1, "b": {"x": 1, "x": [2]}, "a": 3, "c": 4, "a": {"d": 5}})", "t");
  REQUIRE(v);
  REQUIRE(v->members().size() == 3);
  CHECK(v->members()[0].first == "a");
  CHECK(v->members()[1].first == "b");
  CHECK(v->members()[2].first == "c");
  CHECK(v->get("a").get("d").int_or(0) == 5);
  REQUIRE(v->get("b").members().size() == 1);
  CHECK(v->get("b").get("x").at(0).int_or(0) == 2);
  CHECK(json::dump(*v) == R"({"a": {"d": 5}, "b": {"x": [2]}, "c": 4})");
  // Keys that differ only in invalid UTF-8 bytes are written alike (U+FFFD), so they are one key.
  auto bad = json::parse("{\"a\xff\": 1, \"a\xfe\": 2}", "t");
  REQUIRE(bad);
  REQUIRE(bad->members().size() == 1);
  CHECK(bad->members()[0].first == "a\xEF\xBF\xBD");
  CHECK(bad->members()[0].second.int_or(0) == 2);
  auto again = json::parse(json::dump(*bad), "t");
  REQUIRE(again);
  CHECK(json::dump(*again) == json::dump(*bad));
  // Many members, and many of one key, parse in sorted time, not a scan per key.
  std::string many = "{";
  for (int k = 0; k < 200000; ++k) many += "\"k" + std::to_string(k % 1000 == 0 ? 0 : k) + "\": " + std::to_string(k) + ",";
  many.back() = '}';
  auto m = json::parse(many, "many");
  REQUIRE(m);
  CHECK(m->members().size() == 200000 - 199);
  CHECK(m->get("k0").int_or(-1) == 199000);
  CHECK(m->members()[1].first == "k1");
}

TEST_CASE("json: escapes and surrogate pairs") {
  auto v = json::parse(R"(["\u00e9\u4e2d\ud83d\ude00", "a\"b\\c\/\n\t"])", "t");
  REQUIRE(v);
  CHECK(v->at(0).text() == "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  CHECK(v->at(1).text() == "a\"b\\c/\n\t");
  std::string out;
  json::append_quoted(out, std::string("q\"\x01", 3));
  CHECK(out == "\"q\\\"\\u0001\"");
  auto back = json::parse(out, "t");
  REQUIRE(back);
  CHECK(back->text() == std::string("q\"\x01", 3));
}

TEST_CASE("json: errors name the source and byte offset") {
  struct bad { const char* text; std::size_t offset; };
  for (const auto& b : {bad{"{\"a\": }", 6}, bad{"[1, 2", 5}, bad{"\"abc", 0}, bad{"01", 1}, bad{"[1] x", 4},
                        bad{"\"\\ud800\"", 1}, bad{"\"\\udc00\"", 1}, bad{"tru", 0}, bad{"{\"a\" 1}", 5}, bad{"", 0},
                        bad{"[\"\x01\"]", 2}}) {
    CAPTURE(b.text);
    auto v = json::parse(b.text, "cfg/acl.json");
    REQUIRE_FALSE(v);
    CHECK(v.err().code == msprof::errc::parse);
    CHECK(v.err().message.find("cfg/acl.json") != std::string::npos);
    CHECK(v.err().message.find("byte offset " + std::to_string(b.offset) + ":") != std::string::npos);
  }
}

TEST_CASE("json: limits bound depth, size and element count") {
  std::string deep(100, '[');
  deep += std::string(100, ']');
  auto v = json::parse(deep, "t");
  REQUIRE_FALSE(v);
  CHECK(v.err().message.find("nesting deeper") != std::string::npos);
  json::limits lim;
  lim.max_depth = 200;
  CHECK(json::parse(deep, "t", lim));
  lim.max_bytes = 10;
  CHECK_FALSE(json::parse("[1,2,3,4,5,6,7]", "t", lim));
  json::limits few;
  few.max_elements = 3;
  CHECK_FALSE(json::parse("[1,2,3]", "t", few));
  CHECK(json::parse("[1,2]", "t", few));
}

TEST_CASE("json: writer output parses back") {
  json::writer w;
  w.begin_object();
  w.member("a", "x\"y");
  w.key("n");
  w.begin_array();
  w.number(std::int64_t{-1});
  w.number(std::uint64_t{18446744073709551615ull});
  w.begin_object();
  w.end_object();
  w.end_array();
  w.member("b", 3);
  w.end_object();
  CHECK(w.str() == R"({"a": "x\"y", "n": [-1, 18446744073709551615, {}], "b": 3})");
  auto v = json::parse(w.str(), "t");
  REQUIRE(v);
  CHECK(v->get("n").size() == 3);
  CHECK(v->get("b").int_or(0) == 3);
}
