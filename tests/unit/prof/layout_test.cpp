// SPDX-License-Identifier: MIT
// The PROF_ names (prof/layout.hpp): the reader's parse is the inverse of the
// writer's names, and every typed host stream maps to its record type.
#include <doctest/doctest.h>
#include <msprof/prof/layout.hpp>

#include <string>
#include <vector>

namespace prof = msprof::prof;
namespace codec = msprof::codec;
namespace layout = msprof::prof::layout;

TEST_CASE("layout: stream::parse inverts base_name + slice index for every stream the writer uses") {
  const std::vector<prof::stream> all = {
      prof::stream::api_event(true),        prof::stream::api_event(false),     prof::stream::node_basic_info(true),
      prof::stream::task_track(false),      prof::stream::memcpy_info(true),    prof::stream::hccl_op_info(false),
      prof::stream::tensor_info(true),      prof::stream::context_id_info(true), prof::stream::graph_id_map(false),
      prof::stream::msproftx(true),         prof::stream::mstx_mem(false),      prof::stream::dictionary(layout::tag::hash_dic),
      prof::stream::stars_soc(0),           prof::stream::ffts_profile(3),      prof::stream::ts_track(65535),
  };
  for (const auto& s : all) {
    const std::string name = layout::slice_file(s.base_name(), 7);
    CAPTURE(name);
    const auto p = prof::stream::parse(name, s.device, s.device_id);
    REQUIRE(p.problem == nullptr);
    CHECK(p.slice == 7);
    CHECK(p.s.device == s.device);
    CHECK(p.s.device_id == s.device_id);
    CHECK(p.s.aging == s.aging);
    CHECK(p.s.module == s.module);
    CHECK(p.s.tag == s.tag);
  }
}

TEST_CASE("layout: names that are not slice names say what is wrong") {
  CHECK(std::string(prof::stream::parse("aging.compact.task_track", false, 0).problem).find("<name>.slice_<N>") !=
        std::string::npos);
  CHECK(std::string(prof::stream::parse("aging.compact.slice_x", false, 0).problem).find("<name>.slice_<N>") !=
        std::string::npos);
  CHECK(std::string(prof::stream::parse("aging.slice_0", false, 0).problem).find("<module>.<tag>") != std::string::npos);
  CHECK(std::string(prof::stream::parse("old.compact.task_track.slice_0", false, 0).problem).find("aging.") !=
        std::string::npos);
  // a device file of another device id is not this device's
  CHECK(prof::stream::parse("stars_soc.data.1.slice_0", true, 0).problem != nullptr);
  CHECK(prof::stream::parse("stars_soc.data.1.slice_4294967296", true, 1).problem != nullptr);
}

TEST_CASE("layout: each typed host stream has the record type its encoder writes") {
  CHECK(layout::record_type(layout::compact, layout::tag::node_basic_info) == codec::node_type::node_basic_info);
  CHECK(layout::record_type(layout::compact, layout::tag::task_track) == codec::runtime_task_track_type);
  CHECK(layout::record_type(layout::additional, layout::tag::msproftx) == codec::tx_type::msproftx);
  CHECK(layout::record_type(layout::additional, layout::tag::mstx_mem) == codec::tx_type::mstx_mem);
  // same tag, other module; text streams; api_event (one fixed struct) have no typed records
  CHECK_FALSE(layout::record_type(layout::additional, layout::tag::task_track).has_value());
  CHECK_FALSE(layout::record_type(layout::additional, layout::tag::hash_dic).has_value());
  CHECK_FALSE(layout::record_type(layout::api_event, "data").has_value());
  // every table row belongs to a stream the writer can name
  for (const auto& r : layout::tag_records) {
    const auto s = r.module == std::string_view(layout::compact) ? prof::stream::compact(false, r.tag)
                                                                 : prof::stream::additional(false, r.tag);
    CHECK(s.record_size == (r.module == std::string_view(layout::compact) ? codec::compact_size : codec::additional_size));
  }
}
