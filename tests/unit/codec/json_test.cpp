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
