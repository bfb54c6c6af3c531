// SPDX-License-Identifier: MIT
// codec/framework.hpp: torch_npu FRAMEWORK files decoded field by field, and
// damaged files (cut header, length past the end, unknown record type, short
// struct, cut raw tail) give one warning naming the file and the byte offset
// while every whole record before (and, where it can, after) is kept.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <msprof/codec/framework.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace fw = msprof::codec::framework;

namespace {

void put(std::string& b, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string tlv(std::uint16_t type, const std::string& value) {
  std::string b;
  put(b, type, 2);
  put(b, value.size(), 4);
  return b + value;
}

/// A torch.op_range record (TLV 1): the 58-byte struct, then name and shapes.
std::string op_range(std::int64_t start, std::int64_t end, std::uint64_t tid, const std::string& name,
                     const std::string& shapes = "") {
  std::string v;
  put(v, static_cast<std::uint64_t>(start), 8);
  put(v, static_cast<std::uint64_t>(end), 8);
  put(v, 7, 8);     // seq
  put(v, 6060, 8);  // pid
  put(v, tid, 8);   // start tid
  put(v, tid, 8);   // end tid
  put(v, 0, 8);     // fwd tid
  v += '\1';        // scope
  v += '\0';        // is_async
  v += tlv(2, name);
  if (!shapes.empty()) v += tlv(4, shapes);
  return tlv(1, v);
}

std::string op_mark(std::int64_t t, std::uint64_t cat, std::uint64_t corr, std::uint64_t tid, const std::string& name) {
  std::string v;
  put(v, static_cast<std::uint64_t>(t), 8);
  put(v, cat, 8);
  put(v, corr, 8);
  put(v, tid, 8);
  put(v, 6060, 8);
  v += tlv(1, name);
  return tlv(2, v);
}

struct decoded {
  fw::records rec;
  std::vector<std::string> warnings;
};

decoded decode(fw::file_kind k, const std::string& bytes, const std::string& file = "FRAMEWORK/torch.op_range") {
  decoded d;
  fw::decode(k, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), file, d.rec, d.warnings);
  return d;
}

}  // namespace

TEST_CASE("framework: file kinds by name prefix, as torch_npu dispatches them") {
  CHECK(fw::kind_of("torch.op_range") == fw::file_kind::op_range);
  CHECK(fw::kind_of("torch.op_range.1") == fw::file_kind::op_range);
  CHECK(fw::kind_of("torch.op_mark") == fw::file_kind::op_mark);
  CHECK(fw::kind_of("torch.memory_usage") == fw::file_kind::memory_usage);
  CHECK(fw::kind_of("torch.python_tracer_func") == fw::file_kind::python_tracer_func);
  CHECK(fw::kind_of("torch.python_tracer_hash") == fw::file_kind::python_tracer_hash);
  CHECK(fw::kind_of("torch.gc_record") == fw::file_kind::gc_record);
  CHECK(fw::kind_of("msprof.json") == fw::file_kind::unknown);
}

TEST_CASE("framework: op_range and op_mark records decode every field") {
  auto d = decode(fw::file_kind::op_range,
                  op_range(100, 250, 6000, "aten::mm", "128,256;256,512") + op_range(300, 400, 6001, "aten::add"));
  CHECK(d.warnings.empty());
  REQUIRE(d.rec.ops.size() == 2);
  const auto& o = d.rec.ops[0];
  CHECK(o.start == 100);
  CHECK(o.end == 250);
  CHECK(o.seq == 7);
  CHECK(o.pid == 6060);
  CHECK(o.start_tid == 6000);
  CHECK(o.scope == 1);
  CHECK_FALSE(o.is_async);
  CHECK(o.name == "aten::mm");
  CHECK(o.input_shapes == "128,256;256,512");
  CHECK(o.has_shapes);
  CHECK_FALSE(d.rec.ops[1].has_shapes);

  auto m = decode(fw::file_kind::op_mark, op_mark(5, fw::mark::dequeue_start, 42, 6061, "aten::mm"), "torch.op_mark");
  CHECK(m.warnings.empty());
  REQUIRE(m.rec.marks.size() == 1);
  CHECK(m.rec.marks[0].time == 5);
  CHECK(m.rec.marks[0].category == fw::mark::dequeue_start);
  CHECK(m.rec.marks[0].corr_id == 42);
  CHECK(m.rec.marks[0].tid == 6061);
  CHECK(m.rec.marks[0].name == "aten::mm");
}

TEST_CASE("framework: a truncated file keeps its whole records and names the offset of the cut one") {
  const std::string first = op_range(100, 250, 6000, "aten::mm");
  const std::string second = op_range(300, 400, 6000, "aten::add");
  SUBCASE("length past the end") {
    auto d = decode(fw::file_kind::op_range, first + second.substr(0, second.size() - 3));
    REQUIRE(d.rec.ops.size() == 1);
    CHECK(d.rec.ops[0].name == "aten::mm");
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0].find("FRAMEWORK/torch.op_range") == 0);
    CHECK(d.warnings[0].find("byte offset " + std::to_string(first.size())) != std::string::npos);
    CHECK(d.warnings[0].find("runs past the end of the file") != std::string::npos);
  }
  SUBCASE("header cut") {
    auto d = decode(fw::file_kind::op_range, first + second.substr(0, 4));
    REQUIRE(d.rec.ops.size() == 1);
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0].find("byte offset " + std::to_string(first.size())) != std::string::npos);
    CHECK(d.warnings[0].find("truncated record header") != std::string::npos);
  }
}

TEST_CASE("framework: an unknown record type is skipped with a warning, the records after it are kept") {
  const std::string first = op_range(100, 250, 6000, "aten::mm");
  const std::string odd = tlv(77, std::string(60, 'x'));
  auto d = decode(fw::file_kind::op_range, first + odd + op_range(300, 400, 6000, "aten::add"));
  REQUIRE(d.rec.ops.size() == 2);
  CHECK(d.rec.ops[1].name == "aten::add");
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0].find("FRAMEWORK/torch.op_range: record at byte offset " + std::to_string(first.size())) == 0);
  CHECK(d.warnings[0].find("unknown record type") != std::string::npos);
}

TEST_CASE("framework: a record shorter than its struct and a broken inner field are reported") {
  SUBCASE("short struct") {
    auto d = decode(fw::file_kind::op_range, tlv(1, std::string(20, '\0')));
    CHECK(d.rec.ops.empty());
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0].find("byte offset 0") != std::string::npos);
    CHECK(d.warnings[0].find("shorter than its 58-byte struct") != std::string::npos);
  }
  SUBCASE("inner field length past its record") {
    std::string v(58, '\0');
    v += tlv(2, "aten::mm").substr(0, 8);  // name field cut: its length says 8, 2 bytes follow
    auto d = decode(fw::file_kind::op_range, tlv(1, v));
    REQUIRE(d.rec.ops.size() == 1);
    CHECK(d.rec.ops[0].name.empty());
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0].find("byte offset " + std::to_string(6 + 58)) != std::string::npos);
  }
}

TEST_CASE("framework: raw files keep whole structs and report a cut tail") {
  std::string b;
  for (std::uint64_t v : {6060ull, 10ull, 20ull}) put(b, v, 8);
  b += "abc";
  auto d = decode(fw::file_kind::gc_record, b, "torch.gc_record");
  REQUIRE(d.rec.gcs.size() == 1);
  CHECK(d.rec.gcs[0].pid == 6060);
  CHECK(d.rec.gcs[0].start == 10);
  CHECK(d.rec.gcs[0].end == 20);
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0].find("torch.gc_record: record at byte offset 24") == 0);
}

TEST_CASE("framework: the golden FRAMEWORK files decode without warnings, with the generator's counts") {
  const std::string dir = std::string(MSPROF_TEST_DATA_DIR) +
                          "/golden-pt/pt_text_steps/input/worker0_6060_20260101120000000_ascend_pt/FRAMEWORK/";
  fw::records rec;
  std::vector<std::string> warnings;
  for (const char* f : {"torch.op_range", "torch.op_mark", "torch.python_tracer_func", "torch.python_tracer_hash"}) {
    std::ifstream in(dir + f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string b = ss.str();
    REQUIRE(!b.empty());
    fw::decode(fw::kind_of(f), reinterpret_cast<const unsigned char*>(b.data()), b.size(), f, rec, warnings);
  }
  CHECK(warnings.empty());
  // tests/golden-pt/pt_text_steps/checks.json generator_counts
  CHECK(rec.ops.size() == 12);
  CHECK(rec.marks.size() == 20);
  CHECK(rec.python_funcs.size() == 4);
  CHECK(rec.python_hashes.size() == 2);
}

TEST_CASE("framework: encoding the decoded golden op_range, op_mark and memory_usage files gives their bytes back") {
  const std::string dir = std::string(MSPROF_TEST_DATA_DIR) +
                          "/golden-pt/pt_memory/input/worker0_6060_20260101120000000_ascend_pt/FRAMEWORK/";
  for (const char* f : {"torch.op_range", "torch.op_mark", "torch.memory_usage"}) {
    CAPTURE(f);
    std::ifstream in(dir + f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string b = ss.str();
    REQUIRE(!b.empty());
    fw::records rec;
    std::vector<std::string> warnings;
    fw::decode(fw::kind_of(f), reinterpret_cast<const unsigned char*>(b.data()), b.size(), f, rec, warnings);
    REQUIRE(warnings.empty());
    std::string out;
    for (const auto& r : rec.ops) fw::encode(r, out);
    for (const auto& r : rec.marks) fw::encode(r, out);
    for (const auto& r : rec.memory) fw::encode(r, out);
    CHECK(out == b);
  }
}
