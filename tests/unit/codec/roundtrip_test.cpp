// SPDX-License-Identifier: MIT
// encode -> decode for every record kind, byte positions pinned against the
// documented offsets (so a layout slip shows up as a wrong byte, not just a
// symmetric round trip), hash and dictionary behaviour, decoder errors.
#include <doctest/doctest.h>
#include <msprof/codec/decode.hpp>
#include <msprof/codec/dictionary.hpp>
#include <msprof/codec/encode.hpp>
#include <msprof/codec/hash.hpp>
#include <msprof/instrument/event.hpp>

#include <cstring>
#include <string>

namespace codec = msprof::codec;
using codec::detail::load_le;

TEST_CASE("MsprofApi / MsprofEvent bytes and round trip") {
  codec::MsprofApi a;
  a.level = codec::level::acl;
  a.type = codec::acl_group::type(codec::acl_group::rts, 1);
  a.threadId = 6061;
  a.beginTime = 0x1122334455667788ull;
  a.endTime = 0x1122334455667799ull;
  a.itemId = 42;
  const auto b = codec::encode(a);
  CHECK(b[0] == 0x5A);
  CHECK(b[1] == 0x5A);
  CHECK(load_le<std::uint16_t>(&b[2]) == 20000);
  CHECK(load_le<std::uint32_t>(&b[4]) == 0x30001u);
  CHECK(b[16] == 0x88);  // little-endian beginTime at 16
  CHECK(load_le<std::uint64_t>(&b[32]) == 42);
  auto d = codec::decode_api(b.data(), b.size(), {"f", 0});
  REQUIRE(d);
  CHECK_FALSE(d->is_event);
  CHECK(+d->api.beginTime == a.beginTime);
  CHECK(+d->api.endTime == a.endTime);
  CHECK(+d->api.threadId == 6061);

  codec::MsprofEvent e;
  e.level = codec::level::node;
  e.type = codec::node_type::launch;
  e.requestId = 7;
  e.timeStamp = 99;
  const auto eb = codec::encode(e);
  CHECK(load_le<std::uint64_t>(&eb[24]) == codec::event_flag);
  auto de = codec::decode_api(eb.data(), eb.size(), {"f", 40});
  REQUIRE(de);
  CHECK(de->is_event);
  CHECK(+de->event.requestId == 7);
  CHECK(+de->event.timeStamp == 99);
}

TEST_CASE("compact payloads: node_basic_info, task_track, memcpy_info, hccl_op_info") {
  codec::MsprofNodeBasicInfo n;
  n.opName = 0xAAAAAAAAAAAAAAAAull;
  n.taskType = codec::ge_task::ai_vector_core;
  n.opType = 0x0102030405060708ull;
  n.blockNum = 48;
  n.opFlag = 1;
  n.opState = 2;
  const auto b = codec::encode_node_basic_info(77, 1000, n);
  CHECK(load_le<std::uint32_t>(&b[12]) == 29);           // dataLen
  CHECK(load_le<std::uint32_t>(&b[24 + 8]) == 2);        // taskType @ data+8 (packed)
  CHECK(load_le<std::uint64_t>(&b[24 + 12]) == +n.opType);// opType @ data+12
  CHECK(load_le<std::uint32_t>(&b[24 + 20]) == 48);      // blockNum @ data+20
  CHECK(b[24 + 28] == 2);                                // opState
  auto r = codec::decode_compact(b.data(), b.size(), {"f", 0});
  REQUIRE(r);
  CHECK(r->head.threadId == 77);
  CHECK(r->head.timeStamp == 1000);
  auto p = codec::decode_payload<codec::MsprofNodeBasicInfo>(*r, {"f", 0});
  REQUIRE(p);
  CHECK(+p->opType == +n.opType);
  CHECK(+p->blockNum == 48);
  CHECK(+p->opState == 2);

  codec::MsprofRuntimeTrack t;
  t.deviceId = 0;
  t.streamId = 2;
  t.taskId = codec::pack_track_task(10, 3);
  t.taskType = codec::runtime_task::kernel_aivec;
  t.kernelName = 123456789;
  t.set_num_blocks(20);
  const auto tb = codec::encode_task_track(1, 5, t);
  CHECK(load_le<std::uint16_t>(&tb[26]) == 2);
  CHECK(load_le<std::uint32_t>(&tb[28]) == 0x3000Au);
  CHECK(load_le<std::uint16_t>(&tb[48]) == 20);
  auto tr = codec::decode_compact(tb.data(), tb.size(), {"f", 0});
  REQUIRE(tr);
  auto tp = codec::decode_payload<codec::MsprofRuntimeTrack>(*tr, {"f", 0});
  REQUIRE(tp);
  CHECK(tp->num_blocks() == 20);
  CHECK(+tp->kernelName == 123456789);
  CHECK((tp->taskId & 0xFFFF) == 10);

  codec::MsprofMemcpyInfo m;
  m.dataSize = 4096;
  m.maxSize = 8192;
  m.memcpyDirection = 1;
  const auto mb = codec::encode_memcpy_info(1, 5, m);
  auto mr = codec::decode_compact(mb.data(), mb.size(), {"f", 0});
  REQUIRE(mr);
  auto mp = codec::decode_payload<codec::MsprofMemcpyInfo>(*mr, {"f", 0});
  REQUIRE(mp);
  CHECK(+mp->dataSize == 4096);
  CHECK(+mp->memcpyDirection == 1);

  codec::MsprofHcclOPInfo h;
  h.flags = 3;
  h.dataType = 4;
  h.algType = 55;
  h.count = 1024;
  h.groupName = 66;
  const auto hb = codec::encode_hccl_op_info(1, 5, h);
  CHECK(load_le<std::uint64_t>(&hb[24 + 2]) == 55);  // packed: algType @ 2
  auto hr = codec::decode_compact(hb.data(), hb.size(), {"f", 0});
  REQUIRE(hr);
  auto hp = codec::decode_payload<codec::MsprofHcclOPInfo>(*hr, {"f", 0});
  REQUIRE(hp);
  CHECK(+hp->count == 1024);
  CHECK(+hp->groupName == 66);
}

TEST_CASE("additional payloads: tensor_info split, context_id_info, graph_id_map") {
  std::vector<codec::MsprofTensorData> ts(7);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    ts[i].tensorType = i < 4 ? 0 : 1;
    ts[i].format = 29;
    ts[i].dataType = 27;
    ts[i].shape[0] = static_cast<std::uint32_t>(i + 1);
    ts[i].shape[1] = 256;
  }
  const auto recs = codec::encode_tensor_infos(3, 77, 999, ts);
  REQUIRE(recs.size() == 2);
  std::vector<codec::MsprofTensorData> back;
  for (const auto& b : recs) {
    auto r = codec::decode_additional(b.data(), b.size(), {"f", 0});
    REQUIRE(r);
    CHECK(r->head.timeStamp == 77);
    auto p = codec::decode_payload<codec::MsprofTensorInfo>(*r, {"f", 0});
    REQUIRE(p);
    CHECK(std::uint64_t{p->opName} == 999);  // a copy: packed members may be misaligned
    for (std::uint32_t i = 0; i < p->tensorNum; ++i) back.push_back(p->tensorData[i]);
  }
  REQUIRE(back.size() == 7);
  CHECK(+back[6].shape[0] == 7);
  CHECK(+back[6].tensorType == 1);
  CHECK(load_le<std::uint32_t>(&recs[0][24 + 12 + 44 + 12]) == 2);  // tensor 1 shape[0] at data+12+44+12

  codec::MsprofContextIdInfo c;
  c.opName = 5;
  c.ctxIdNum = 2;
  c.ctxIds[0] = 11;
  c.ctxIds[54] = 12;
  const auto cb = codec::encode_context_id_info(1, 2, c);
  auto cr = codec::decode_additional(cb.data(), cb.size(), {"f", 0});
  REQUIRE(cr);
  auto cp = codec::decode_payload<codec::MsprofContextIdInfo>(*cr, {"f", 0});
  REQUIRE(cp);
  CHECK(+cp->ctxIds[54] == 12);

  codec::MsprofGraphIdInfo g;
  g.modelName = 8;
  g.graphId = 9;
  g.modelId = 10;
  const auto gb = codec::encode_graph_id_map(1, 2, g);
  CHECK(load_le<std::uint16_t>(&gb[2]) == codec::level::model);
  auto gr = codec::decode_additional(gb.data(), gb.size(), {"f", 0});
  REQUIRE(gr);
  auto gp = codec::decode_payload<codec::MsprofGraphIdInfo>(*gr, {"f", 0});
  REQUIRE(gp);
  CHECK(+gp->modelId == 10);
}

TEST_CASE("mstx memory: MstxMemInfo bytes and round trip") {
  codec::MstxMemInfo m;
  m.op = static_cast<std::uint8_t>(msprof::instrument::mem_op::region_register);
  m.deviceId = 3;
  m.handle = 7;
  m.heap = 2;
  m.address = 0xABCD00001000ull;
  m.size = 4096;
  m.domain = codec::double_hash("pool");
  const auto b = codec::encode_mstx_mem(55, 1234, m);
  CHECK(load_le<std::uint16_t>(&b[2]) == codec::level::tx);
  CHECK(load_le<std::uint32_t>(&b[4]) == codec::tx_type::mstx_mem);
  CHECK(load_le<std::uint32_t>(&b[12]) == 48);  // dataLen
  CHECK(b[24] == 2);                              // op
  CHECK(load_le<std::uint32_t>(&b[24 + 4]) == 3);
  CHECK(load_le<std::uint64_t>(&b[24 + 24]) == 0xABCD00001000ull);
  CHECK(load_le<std::uint64_t>(&b[24 + 40]) == m.domain);
  auto r = codec::decode_additional(b.data(), b.size(), {"f", 0});
  REQUIRE(r);
  CHECK(r->head.timeStamp == 1234);
  auto p = codec::decode_payload<codec::MstxMemInfo>(*r, {"f", 0}, 48);
  REQUIRE(p);
  CHECK(+p->handle == 7);
  CHECK(+p->heap == 2);
  CHECK(+p->size == 4096);
}

TEST_CASE("mstx: MsprofTxInfo segments and offsets") {
  codec::MsprofStampInfo s;
  s.processId = 100;
  s.threadId = 101;
  s.eventType = 2;
  s.startTime = 1000;
  s.endTime = 2000;
  s.markId = 5;
  s.domain = codec::double_hash("default");
  const std::string msg(233, 'x');
  const auto recs = codec::encode_tx(101, s, msg);
  REQUIRE(recs.size() == 2);
  CHECK(load_le<std::uint16_t>(&recs[0][2]) == codec::level::tx);
  CHECK(load_le<std::uint16_t>(&recs[1][24 + 2]) == 1);        // res0 = segment 1
  CHECK(load_le<std::uint64_t>(&recs[0][24 + 8 + 48]) == 5);   // markId @ stamp+48
  CHECK(recs[0][24 + 8 + 68] == 'x');                           // message @ stamp+68
  std::string joined;
  for (const auto& b : recs) {
    auto r = codec::decode_additional(b.data(), b.size(), {"f", 0});
    REQUIRE(r);
    const auto tx = codec::load<codec::MsprofTxInfo>(r->data);
    CHECK(+tx.stampInfo.endTime == 2000);
    joined += std::string(codec::tx_segment_text(tx));
  }
  CHECK(joined == msg);
  CHECK(codec::encode_tx(1, s, "").size() == 1);
  CHECK(codec::encode_tx(1, s, std::string(156, 'a')).size() == 1);
  CHECK(codec::encode_tx(1, s, std::string(157, 'a')).size() == 2);
}

TEST_CASE("device records: ACSQ, ContextPmu, ts_track") {
  codec::StarsAcsqLog l;
  l.set_word0(codec::acsq_func_end, 1, codec::sqe::aiv);
  l.streamId = 2;
  l.taskId = 10;
  l.timestamp = 7000002000ull;
  const auto b = codec::encode_device(l);
  CHECK(load_le<std::uint16_t>(&b[0]) == (1 | (1 << 6) | (2 << 10)));
  CHECK(load_le<std::uint64_t>(&b[8]) == 7000002000ull);
  auto d = codec::decode_acsq(b.data(), b.size(), {"f", 0});
  REQUIRE(d);
  CHECK(d->func_type() == 1);
  CHECK(d->task_type() == 2);
  CHECK(d->cnt() == 1);

  codec::ContextPmu p;
  p.word0 = codec::context_pmu_func;
  p.streamId = 2;
  p.taskId = 10;
  p.totalCycle = 1440000;
  for (int i = 0; i < 8; ++i) p.pmuList[i] = 1000u * static_cast<unsigned>(i + 1);
  p.timeList[0] = 1;
  p.timeList[1] = 2;
  const auto pb = codec::encode_device(p);
  CHECK(load_le<std::uint64_t>(&pb[32]) == 1440000);
  CHECK(load_le<std::uint64_t>(&pb[48 + 7 * 8]) == 8000);
  CHECK(load_le<std::uint64_t>(&pb[120]) == 2);
  auto pd = codec::decode_fixed<codec::ContextPmu>(pb.data(), pb.size(), {"f", 0});
  REQUIRE(pd);
  CHECK(std::uint64_t{pd->pmuList[3]} == 4000);

  codec::TsTrackStepTrace t;
  t.funcType = codec::ts_track_step_func;
  t.timestamp = 5;
  t.indexId = 6;
  t.modelId = 7;
  t.streamWord = 0x7FF | 0x800;
  t.tagId = 60000;
  const auto tb = codec::encode_device(t);
  auto td = codec::decode_fixed<codec::TsTrackStepTrace>(tb.data(), tb.size(), {"f", 0});
  REQUIRE(td);
  CHECK(td->stream_id() == 0x7FF);
  CHECK(+td->tagId == 60000);
  CHECK(load_le<std::uint16_t>(&tb[36]) == 60000);
}

TEST_CASE("device records: ACSQ logs carry the STARS magic, ContextPmu its fftsType and cnt") {
  // The golden raw inputs (ops_pipeutil stars_soc) hold 0x6BD3 in the u16 at
  // offset 2; Huawei's parser drops ACSQ records without it.
  codec::StarsAcsqLog l;
  l.set_word0(codec::acsq_func_start, 15, codec::sqe::sdma);
  const auto b = codec::encode_device(l);
  CHECK(load_le<std::uint16_t>(&b[2]) == 0x6BD3);
  auto d = codec::decode_acsq(b.data(), b.size(), {"f", 0});
  REQUIRE(d);
  CHECK(+d->magicNumber == codec::stars_magic);
  CHECK(d->cnt() == 15);
  CHECK(d->task_type() == codec::sqe::sdma);
  // Records without the magic (what msprof wrote before) still decode.
  auto old = b;
  old[2] = old[3] = 0;
  auto od = codec::decode_acsq(old.data(), old.size(), {"f", 0});
  REQUIRE(od);
  CHECK(+od->magicNumber == 0);
  CHECK(od->func_type() == codec::acsq_func_start);

  // fftsType: bits 13-15 of the u16 at offset 20 (golden AIV records: 0x2000).
  codec::ContextPmu p;
  p.set_word0(codec::context_pmu_func, 3);
  p.word20 = 0x1234;  // the reserved low bits are kept
  p.set_ffts_type(codec::ffts_type::aiv);
  const auto pb = codec::encode_device(p);
  CHECK(load_le<std::uint16_t>(&pb[20]) == (0x2000 | 0x1234));
  CHECK(load_le<std::uint16_t>(&pb[0]) == (0x28 | (3 << 6)));
  auto pd = codec::decode_fixed<codec::ContextPmu>(pb.data(), pb.size(), {"f", 0});
  REQUIRE(pd);
  CHECK(pd->ffts_type() == codec::ffts_type::aiv);
  CHECK(pd->cnt() == 3);
  CHECK(pd->func_type() == codec::context_pmu_func);
}

TEST_CASE("decoders reject short, bad-magic and impossible input with file + offset") {
  unsigned char buf[256] = {};
  auto a = codec::decode_api(buf, 39, {"x.slice_0", 80});
  REQUIRE_FALSE(a);
  CHECK(a.err().code == msprof::errc::truncated);
  CHECK(a.err().message.find("x.slice_0") != std::string::npos);
  CHECK(a.err().message.find("offset 80") != std::string::npos);
  auto m = codec::decode_compact(buf, 64, {"y", 128});
  REQUIRE_FALSE(m);
  CHECK(m.err().code == msprof::errc::bad_magic);
  CHECK(m.err().message.find("offset 128") != std::string::npos);
  codec::record_header h;
  h.dataLen = 41;
  codec::store(buf, h);
  auto s = codec::decode_compact(buf, 64, {"y", 0});
  REQUIRE_FALSE(s);
  CHECK(s.err().code == msprof::errc::bad_size);
  h.dataLen = 10;
  codec::store(buf, h);
  auto ok = codec::decode_compact(buf, 64, {"y", 0});
  REQUIRE(ok);
  CHECK_FALSE(codec::decode_payload<codec::MsprofNodeBasicInfo>(*ok, {"y", 0}, 28));
  std::memset(buf, 0, sizeof buf);
  buf[0] = 5;  // funcType 5
  CHECK_FALSE(codec::decode_acsq(buf, 64, {"z", 0}));
}

TEST_CASE("DoubleHash matches CANN ids, including sign-extended bytes") {
  // Values from the golden hash_dic files.
  CHECK(codec::double_hash("Add") == 247669290252505ull);
  CHECK(codec::double_hash("MatMul_1") == 4727051265323026290ull);
  CHECK(codec::double_hash("default") == 6438267842827357177ull);
  CHECK(codec::double_hash("dataloader") == 9667718193204308965ull);
  // A byte >= 0x80 adds 0xFFFFFF00|b, not b.
  const std::uint32_t c = 0xFFFFFFC3u;
  CHECK(codec::double_hash("\xC3") == ((static_cast<std::uint64_t>(c) << 32) | c));
  CHECK(codec::double_hash("") == 0);
}

TEST_CASE("dictionaries: parse, format, bad lines reported with line and offset") {
  codec::hash_map hm;
  std::vector<std::string> problems;
  codec::parse_hash_dic("1:a\n2:b:c\nbad line\n\n3:\n99999999999999999999999:x\n", "hash_dic", hm, problems);
  CHECK(hm.size() == 3);
  CHECK(hm[2] == "b:c");
  CHECK(hm[3].empty());
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("line 3") != std::string::npos);
  CHECK(problems[0].find("byte offset 10") != std::string::npos);
  CHECK(codec::format_hash_line(7, "x\ny") == "7:x\n");

  codec::type_map tm;
  problems.clear();
  codec::parse_type_info_dic("10000_5:launch\n20000_196609:aclrtSynchronizeStream\n70000_1:x\n5000:y\n", "type_info_dic", tm, problems);
  CHECK(tm.size() == 2);
  CHECK((tm[{10000, 5}] == "launch"));
  CHECK(problems.size() == 2);
  CHECK(codec::format_type_line(20500, 0, "msproftx") == "20500_0:msproftx\n");

  codec::dictionary_limits lim;
  lim.max_entries = 2;
  hm.clear();
  problems.clear();
  codec::parse_hash_dic("1:a\n2:b\n3:c\n", "h", hm, problems, lim);
  CHECK(hm.size() == 2);
  CHECK(problems.size() == 1);
}

TEST_CASE("stream/task unpacking rules") {
  CHECK(codec::unpack_stream_task(5, 10).stream_id == 5);
  const auto a = codec::unpack_stream_task(0x1000 | 3, 0x0ABC);
  CHECK(a.stream_id == ((0x1000 | 3) % 2048));
  CHECK(a.task_id == 0x0ABC);
  const auto b = codec::unpack_stream_task(0x2000 | 0x0123, 0x5007);
  CHECK(b.stream_id == 0x007);
  CHECK(b.task_id == (0x0123 | 0x5000));
}

TEST_CASE("additional payload: hccl_info (120 B, its double at offset 64)") {
  codec::MsprofHcclInfo h;
  h.itemId = 11;
  h.groupName = 0x8000000000000001ull;
  h.localRank = 2;
  h.remoteRank = 5;
  h.rankSize = 8;
  h.planeID = 3;
  h.ctxID = codec::context_id_none;
  h.notifyID = 77;
  h.role = 1;
  h.durationEstimated = 12.25;
  h.dataSize = 1u << 20;
  h.dataType = 4;
  h.linkType = 1;
  h.transportType = 0;
  h.rdmaType = 1;
  const auto b = codec::encode_hccl_info(1001, 42, h);
  CHECK(load_le<std::uint16_t>(&b[2]) == codec::level::hccl_node);
  CHECK(load_le<std::uint32_t>(&b[12]) == 120);                        // dataLen
  CHECK(load_le<std::uint32_t>(&b[24 + 44]) == 0xFFFFFFFFu);           // ctxID
  CHECK(load_le<std::uint64_t>(&b[24 + 64]) == 0x4028800000000000ull); // 12.25 as IEEE bits
  CHECK(load_le<std::uint32_t>(&b[24 + 112]) == 1);                    // rdmaType
  auto r = codec::decode_additional(b.data(), b.size(), {"f", 0});
  REQUIRE(r);
  auto p = codec::decode_payload<codec::MsprofHcclInfo>(*r, {"f", 0});
  REQUIRE(p);
  CHECK(p->durationEstimated == 12.25);
  CHECK(+p->groupName == 0x8000000000000001ull);
  CHECK(+p->remoteRank == 5);
  CHECK(+p->planeID == 3);
  CHECK(+p->dataSize == (1u << 20));
  // A record with a shorter payload is an error naming the place, not a read past it.
  auto cut = b;
  cut[12] = 100;
  auto rc = codec::decode_additional(cut.data(), cut.size(), {"f", 256});
  REQUIRE(rc);
  CHECK_FALSE(codec::decode_payload<codec::MsprofHcclInfo>(*rc, {"f", 256}, 120));
}

TEST_CASE("device records: an HBM sample's bytes, its round trip and a short one") {
  codec::HbmSample s;
  s.timestampUs = 0x0102030405060708ull;
  s.count = 999999999;
  s.eventId = 1;
  s.hbmId = 0x11223344;
  const auto b = codec::encode_device(s);
  REQUIRE(b.size() == 24);
  CHECK(b[0] == 0x08);   // little-endian µs first
  CHECK(b[16] == 1);     // then the count, the event id at 16
  CHECK(b[20] == 0x44);  // and the channel at 20
  auto d = codec::decode_fixed<codec::HbmSample>(b.data(), b.size(), {"hbm.data.0.slice_0", 0});
  REQUIRE(d);
  CHECK(d->timestampUs == s.timestampUs);
  CHECK(d->count == s.count);
  CHECK(d->eventId == 1);
  CHECK(d->hbmId == 0x11223344u);
  auto cut = codec::decode_fixed<codec::HbmSample>(b.data(), 23, {"hbm.data.0.slice_0", 48});
  REQUIRE_FALSE(cut);
  CHECK(cut.err().code == msprof::errc::truncated);
  CHECK(cut.err().message.find("offset 48") != std::string::npos);
}

TEST_CASE("device records: an LLC sample's bytes in both layouts, their round trip and a short one") {
  const codec::LlcSample v1{0x0102030405060708ull, 999999999, 0x36, 3};
  const auto b1 = codec::encode_device(v1);
  REQUIRE(b1.size() == 24);
  CHECK(b1[0] == 0x08);  // little-endian µs first, then the count
  CHECK(b1[16] == 0x36);  // the event id at 16
  CHECK(b1[20] == 3);     // the tag at 20
  auto d1 = codec::decode_fixed<codec::LlcSample>(b1.data(), b1.size(), {"llc.data.0.slice_0", 0});
  REQUIRE(d1);
  CHECK(d1->timestampUs == v1.timestampUs);
  CHECK(d1->count == 999999999u);
  CHECK(d1->eventId == 0x36u);
  CHECK(d1->l3tId == 3u);
  const codec::LlcSampleV2 v2{0xDEAD, 4000000000u, 0x21, 1, 1767268800000200003ull};
  const auto b2 = codec::encode_device(v2);
  REQUIRE(b2.size() == 24);
  CHECK(b2[4] == 0x00);   // four u32 (unused, count, event, tag), then the ns
  CHECK(b2[8] == 0x21);
  CHECK(b2[12] == 1);
  CHECK(b2[16] == 0x43);  // 1767268800000200003 = 0x1886999c36a48d43: low byte first
  auto d2 = codec::decode_fixed<codec::LlcSampleV2>(b2.data(), b2.size(), {"llc.data.0.slice_0", 0});
  REQUIRE(d2);
  CHECK(d2->count == 4000000000u);
  CHECK(d2->timestampNs == v2.timestampNs);
  auto cut = codec::decode_fixed<codec::LlcSampleV2>(b2.data(), 23, {"llc.data.0.slice_0", 72});
  REQUIRE_FALSE(cut);
  CHECK(cut.err().code == msprof::errc::truncated);
  CHECK(cut.err().message.find("offset 72") != std::string::npos);
}

TEST_CASE("device records: a DDR sample's bytes, its round trip and a short one") {
  const codec::DdrSample s{250, 4242, 1, 2, 0xFFFFFFFFu};
  const auto b = codec::encode_device(s);
  REQUIRE(b.size() == 20);
  CHECK(b[0] == 250);   // five little-endian u32: µs, count, event, controller, master
  CHECK(b[8] == 1);
  CHECK(b[12] == 2);
  CHECK(b[19] == 0xFF);
  auto d = codec::decode_fixed<codec::DdrSample>(b.data(), b.size(), {"ddr.data.0.slice_0", 0});
  REQUIRE(d);
  CHECK(d->timestampUs == 250);
  CHECK(d->count == 4242);
  CHECK(d->masterId == 0xFFFFFFFFu);
  auto cut = codec::decode_fixed<codec::DdrSample>(b.data(), 19, {"ddr.data.0.slice_0", 40});
  REQUIRE_FALSE(cut);
  CHECK(cut.err().message.find("offset 40") != std::string::npos);
}
