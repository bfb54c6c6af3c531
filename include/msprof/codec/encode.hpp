// SPDX-License-Identifier: MIT
// Encoders: build the on-disk bytes of every record kind (little-endian,
// byte-exact with CANN). Each returns a fixed-size std::array, or a vector of
// records for mstx messages that need several MsprofTxInfo segments.
#ifndef MSPROF_CODEC_ENCODE_HPP
#define MSPROF_CODEC_ENCODE_HPP

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

using api_bytes = std::array<unsigned char, api_size>;
using compact_bytes = std::array<unsigned char, compact_size>;
using additional_bytes = std::array<unsigned char, additional_size>;

inline api_bytes encode(const MsprofApi& a) {
  api_bytes b{};
  store(b.data(), a);
  return b;
}
inline api_bytes encode(const MsprofEvent& e) {
  api_bytes b{};
  store(b.data(), e);
  return b;
}

/// A compact record: header (dataLen set to sizeof(Payload)) + payload.
template <class Payload>
inline compact_bytes encode_compact(std::uint16_t level, std::uint32_t type, std::uint32_t thread_id,
                                    std::uint64_t timestamp, const Payload& payload) {
  static_assert(sizeof(Payload) <= compact_data_size, "payload does not fit MsprofCompactInfo.data");
  compact_bytes b{};
  record_header h;
  h.level = level;
  h.type = type;
  h.threadId = thread_id;
  h.dataLen = static_cast<std::uint32_t>(sizeof(Payload));
  h.timeStamp = timestamp;
  store(b.data(), h);
  store(b.data() + header_size, payload);
  return b;
}

/// An additional record: header (dataLen = sizeof(Payload)) + payload.
template <class Payload>
inline additional_bytes encode_additional(std::uint16_t level, std::uint32_t type, std::uint32_t thread_id,
                                          std::uint64_t timestamp, const Payload& payload) {
  static_assert(sizeof(Payload) <= additional_data_size, "payload does not fit MsprofAdditionalInfo.data");
  additional_bytes b{};
  record_header h;
  h.level = level;
  h.type = type;
  h.threadId = thread_id;
  h.dataLen = static_cast<std::uint32_t>(sizeof(Payload));
  h.timeStamp = timestamp;
  store(b.data(), h);
  store(b.data() + header_size, payload);
  return b;
}

/// Convenience wrappers for the common payloads.
inline compact_bytes encode_node_basic_info(std::uint32_t tid, std::uint64_t ts, const MsprofNodeBasicInfo& p) {
  return encode_compact(level::node, node_type::node_basic_info, tid, ts, p);
}
inline compact_bytes encode_task_track(std::uint32_t tid, std::uint64_t ts, const MsprofRuntimeTrack& p) {
  return encode_compact(level::runtime, runtime_task_track_type, tid, ts, p);
}
inline compact_bytes encode_memcpy_info(std::uint32_t tid, std::uint64_t ts, const MsprofMemcpyInfo& p) {
  return encode_compact(level::runtime, runtime_memcpy_info_type, tid, ts, p);
}
inline compact_bytes encode_hccl_op_info(std::uint32_t tid, std::uint64_t ts, const MsprofHcclOPInfo& p) {
  return encode_compact(level::node, node_type::hccl_op_info, tid, ts, p);
}
inline additional_bytes encode_tensor_info(std::uint32_t tid, std::uint64_t ts, const MsprofTensorInfo& p) {
  return encode_additional(level::node, node_type::tensor_info, tid, ts, p);
}
inline additional_bytes encode_context_id_info(std::uint32_t tid, std::uint64_t ts, const MsprofContextIdInfo& p) {
  return encode_additional(level::node, node_type::context_id_info, tid, ts, p);
}
inline additional_bytes encode_graph_id_map(std::uint32_t tid, std::uint64_t ts, const MsprofGraphIdInfo& p) {
  return encode_additional(level::model, model_type::graph_id_map, tid, ts, p);
}
inline additional_bytes encode_mstx_mem(std::uint32_t tid, std::uint64_t ts, const MstxMemInfo& p) {
  return encode_additional(level::tx, tx_type::mstx_mem, tid, ts, p);
}
inline additional_bytes encode_hccl_info(std::uint32_t tid, std::uint64_t ts, const MsprofHcclInfo& p) {
  return encode_additional(level::hccl_node, hccl_type::hccl_info, tid, ts, p);
}

inline additional_bytes encode_task_memory_info(std::uint32_t tid, std::uint64_t ts, const MsprofMemoryInfo& p) {
  return encode_additional(level::node, node_type::task_memory_info, tid, ts, p);
}
inline additional_bytes encode_static_op_mem(std::uint32_t tid, std::uint64_t ts, const MsprofStaticOpMem& p) {
  return encode_additional(level::node, node_type::static_op_mem, tid, ts, p);
}

/// Tensor descriptions of one op, split into records of up to 5 tensors with
/// equal opName/timestamp/thread (the parser concatenates them).
inline std::vector<additional_bytes> encode_tensor_infos(std::uint32_t tid, std::uint64_t ts, std::uint64_t op_name,
                                                         const std::vector<MsprofTensorData>& tensors) {
  std::vector<additional_bytes> out;
  std::size_t i = 0;
  do {
    MsprofTensorInfo t;
    t.opName = op_name;
    std::uint32_t n = 0;
    for (; n < 5 && i < tensors.size(); ++n, ++i) t.tensorData[n] = tensors[i];
    t.tensorNum = n;
    out.push_back(encode_tensor_info(tid, ts, t));
  } while (i < tensors.size());
  return out;
}

/// An mstx event as msproftx records (level 20500, type 0). `stamp` holds
/// everything but the message; the message is cut into 156-byte segments, one
/// record each, with res0 = segment index. The header timestamp is startTime.
/// Calls out(const additional_bytes&) for each record, in order.
template <class Out>
inline void encode_tx_to(std::uint32_t tid, MsprofStampInfo stamp, std::string_view message, Out&& out,
                         std::uint16_t info_type = tx_info_type::mark_ex) {
  std::size_t pos = 0;
  std::uint16_t seg = 0;
  do {
    MsprofTxInfo tx;
    tx.infoType = info_type;
    tx.res0 = seg++;
    tx.stampInfo = stamp;
    const std::size_t n = message.size() - pos < tx_message_bytes ? message.size() - pos : tx_message_bytes;
    if (n != 0) std::memcpy(tx.stampInfo.message, message.data() + pos, n);
    std::memset(tx.stampInfo.message + n, 0, tx_message_bytes - n);
    pos += n;
    out(encode_additional(level::tx, tx_type::msproftx, tid, stamp.startTime, tx));
  } while (pos < message.size() && seg != 0);
}

/// encode_tx_to's records as a vector.
inline std::vector<additional_bytes> encode_tx(std::uint32_t tid, MsprofStampInfo stamp, std::string_view message,
                                               std::uint16_t info_type = tx_info_type::mark_ex) {
  std::vector<additional_bytes> out;
  encode_tx_to(tid, stamp, message, [&](const additional_bytes& r) { out.push_back(r); }, info_type);
  return out;
}

template <class DeviceRecord>
inline std::array<unsigned char, sizeof(DeviceRecord)> encode_device(const DeviceRecord& r) {
  std::array<unsigned char, sizeof(DeviceRecord)> b{};
  store(b.data(), r);
  return b;
}

// --- AI CPU records (device slices aicpu.data.<id>) ---
inline additional_bytes encode_aicpu_node(std::uint32_t tid, std::uint64_t ts, const MsprofAicpuNodeAdditionalData& p) {
  return encode_additional(level::aicpu, aicpu_type::node, tid, ts, p);
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_ENCODE_HPP
