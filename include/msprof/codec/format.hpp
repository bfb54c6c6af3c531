// SPDX-License-Identifier: MIT
// Byte-exact CANN raw record layouts (ascend-formats.md §2.1-§2.3, §2.8).
//
// The structs mirror the public CANN headers field by field; static_asserts pin
// every size and offset. They are plain host structs: never memcpy them to or
// from disk. Use load()/store() (here) or encode.hpp/decode.hpp, which read and
// write each field little-endian at its documented offset whatever the host.
// Bitfields of the device records are kept as raw words with accessors, since
// C++ bitfield order is implementation-defined.
#ifndef MSPROF_CODEC_FORMAT_HPP
#define MSPROF_CODEC_FORMAT_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

/// Version of our own raw-format handling (not CANN's; CANN files carry none).
constexpr std::uint32_t format_version = 1;

// ---------------------------------------------------------------- constants --
constexpr std::uint16_t magic = 0x5A5A;                        ///< MSPROF_DATA_HEAD_MAGIC_NUM
constexpr std::uint64_t event_flag = 0xFFFFFFFFFFFFFFFFull;     ///< MsprofEvent offset-24 word

namespace level {
constexpr std::uint16_t pytorch = 30000, pta = 25000, tx = 20500, acl = 20000, model = 15000, node = 10000,
                        aicpu = 6000, hccl_node = 5500, runtime = 5000, prof = 4500, dpu = 4000, aic = 3000;
}  // namespace level

/// ACL api groups (type >> 16).
namespace acl_group {
constexpr std::uint32_t op = 0x01, model = 0x02, rts = 0x03, others = 0x04, nn = 0x05, ascendc = 0x06,
                        host_hccl = 0x07, dvpp = 0x09, graph = 0x0A, atb = 0x0B, hixl = 0x0C;
constexpr std::uint32_t type(std::uint32_t group, std::uint32_t n) noexcept { return (group << 16) | (n & 0xFFFF); }
}  // namespace acl_group

namespace node_type {
constexpr std::uint32_t node_basic_info = 0, tensor_info = 1, fusion_op_info = 2, context_id_info = 4, launch = 5,
                        task_memory_info = 6, op_exec = 8, node_attr_info = 9, hccl_op_info = 10,
                        static_op_mem = 11, mc2_comm_info = 12, op_info = 13;
}  // namespace node_type
namespace model_type {
constexpr std::uint32_t graph_id_map = 0, execute = 1, load = 2, input_copy = 3, output_copy = 4,
                        logic_stream_info = 7, exeom = 8;
}  // namespace model_type
namespace tx_type {
constexpr std::uint32_t msproftx = 0;
constexpr std::uint32_t mstx_mem = 1;  ///< msprof's own: MstxMemInfo (not a CANN type)
}  // namespace tx_type

/// Runtime task types as registered in type_info_dic (level 5000). 0/1/6/98 are
/// known to the parser; the rest are names the parser takes from the dictionary.
namespace runtime_task {
constexpr std::uint32_t kernel_aicore = 0, kernel_aicpu = 1, event_record = 2, event_wait = 3, memcpy_async = 9,
                        kernel_aivec = 66;
}  // namespace runtime_task
/// runtime-level (5000) task_track compact record type id.
constexpr std::uint32_t runtime_task_track_type = 0;
/// runtime-level memcpy_info compact record type id (our registration).
constexpr std::uint32_t runtime_memcpy_info_type = 1;

/// GE task type (MsprofNodeBasicInfo.taskType).
namespace ge_task {
constexpr std::uint32_t ai_core = 0, ai_cpu = 1, ai_vector_core = 2, write_back = 3, mix_aic = 4, mix_aiv = 5,
                        ffts_plus = 6, dsa = 7, dvpp = 8, communication = 9, fusion = 10, invalid = 11,
                        hccl_ai_cpu = 256;
}  // namespace ge_task

/// STARS SQE types (ACSQ taskType field). The parser names 0..20 (sqe_name in
/// convert/model.hpp) and drops device tasks of any other type.
namespace sqe {
constexpr std::uint16_t ai_core = 0, ai_cpu = 1, aiv = 2, place_holder = 3, event_record = 4, event_wait = 5,
                        notify_record = 6, notify_wait = 7, write_value = 8, sdma = 11, last_named = 20;
}  // namespace sqe

/// Magic of every STARS log record (stars_soc.data): the u16 at offset 2. The
/// parser counts a record without it as invalid and drops it.
constexpr std::uint16_t stars_magic = 0x6BD3;

/// ContextPmu fftsType (bits 13-15 of the u16 at offset 20): the parser takes
/// 0 (normal task) as AI Core and every other value but 4 (FFTS+) as AI Vector;
/// CANN writes 1 for AI Vector tasks.
namespace ffts_type {
constexpr std::uint16_t aic = 0, aiv = 1, ffts_plus = 4;
}  // namespace ffts_type

/// MsprofTxInfo.infoType.
namespace tx_info_type {
constexpr std::uint16_t mark = 0, mark_ex = 1;
}  // namespace tx_info_type

/// Record sizes on disk.
constexpr std::size_t api_size = 40, compact_size = 64, compact_data_size = 40, additional_size = 256,
                      additional_data_size = 232, acsq_size = 64, context_pmu_size = 128, ts_track_size = 40,
                      header_size = 24;

// ------------------------------------------------------ little-endian bytes --
namespace detail {
template <class T>
inline T load_le(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return static_cast<T>(v);
}
template <class T>
inline void store_le(unsigned char* p, T value) noexcept {
  const auto v = static_cast<std::uint64_t>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
}  // namespace detail


// ------------------------------------------------------------- host records --
/// MsprofApi (40 B): one API call with begin/end.
struct MsprofApi {
  std::uint16_t magicNumber = magic;
  std::uint16_t level = 0;
  std::uint32_t type = 0;
  std::uint32_t threadId = 0;
  std::uint32_t reserve = 0;
  std::uint64_t beginTime = 0;
  std::uint64_t endTime = 0;
  std::uint64_t itemId = 0;

};
static_assert(sizeof(MsprofApi) == 40, "MsprofApi size");
static_assert(offsetof(MsprofApi, level) == 2 && offsetof(MsprofApi, type) == 4 && offsetof(MsprofApi, threadId) == 8 &&
                  offsetof(MsprofApi, reserve) == 12 && offsetof(MsprofApi, beginTime) == 16 &&
                  offsetof(MsprofApi, endTime) == 24 && offsetof(MsprofApi, itemId) == 32,
              "MsprofApi offsets");

/// MsprofEvent (40 B): one half of an API, same file as MsprofApi; the word at
/// offset 24 is event_flag. Two events with equal (level,type,thread,request,item)
/// form one API.
struct MsprofEvent {
  std::uint16_t magicNumber = magic;
  std::uint16_t level = 0;
  std::uint32_t type = 0;
  std::uint32_t threadId = 0;
  std::uint32_t requestId = 0;
  std::uint64_t timeStamp = 0;
  std::uint64_t eventFlag = event_flag;
  std::uint64_t itemId = 0;

};
static_assert(sizeof(MsprofEvent) == 40, "MsprofEvent size");
static_assert(offsetof(MsprofEvent, requestId) == 12 && offsetof(MsprofEvent, timeStamp) == 16 &&
                  offsetof(MsprofEvent, eventFlag) == 24 && offsetof(MsprofEvent, itemId) == 32,
              "MsprofEvent offsets");

/// The 24-byte header shared by MsprofCompactInfo and MsprofAdditionalInfo.
struct record_header {
  std::uint16_t magicNumber = magic;
  std::uint16_t level = 0;
  std::uint32_t type = 0;
  std::uint32_t threadId = 0;
  std::uint32_t dataLen = 0;
  std::uint64_t timeStamp = 0;

};
static_assert(sizeof(record_header) == 24 && offsetof(record_header, dataLen) == 12 &&
                  offsetof(record_header, timeStamp) == 16,
              "record header layout");

/// MsprofCompactInfo (64 B): header + 40-byte payload union.
struct MsprofCompactInfo {
  record_header head;
  unsigned char data[compact_data_size] = {};
};
static_assert(sizeof(MsprofCompactInfo) == 64 && offsetof(MsprofCompactInfo, data) == 24, "MsprofCompactInfo layout");

/// MsprofAdditionalInfo (256 B): header + 232-byte payload.
struct MsprofAdditionalInfo {
  record_header head;
  unsigned char data[additional_data_size] = {};
};
static_assert(sizeof(MsprofAdditionalInfo) == 256 && offsetof(MsprofAdditionalInfo, data) == 24,
              "MsprofAdditionalInfo layout");

// ------------------------------------------------ payloads (offsets in data) --
#pragma pack(push, 1)
/// MsprofNodeBasicInfo (29 B packed; compact NODE/0).
struct MsprofNodeBasicInfo {
  std::uint64_t opName = 0;   ///< hash
  std::uint32_t taskType = 0; ///< ge_task
  std::uint64_t opType = 0;   ///< hash
  std::uint32_t blockNum = 0;
  std::uint32_t opFlag = 0;
  std::uint8_t opState = 0;
};
#pragma pack(pop)
static_assert(sizeof(MsprofNodeBasicInfo) == 29, "MsprofNodeBasicInfo size");
static_assert(offsetof(MsprofNodeBasicInfo, taskType) == 8 && offsetof(MsprofNodeBasicInfo, opType) == 12 &&
                  offsetof(MsprofNodeBasicInfo, blockNum) == 20 && offsetof(MsprofNodeBasicInfo, opFlag) == 24 &&
                  offsetof(MsprofNodeBasicInfo, opState) == 28,
              "MsprofNodeBasicInfo offsets");

/// MsprofRuntimeTrack (40 B; compact RUNTIME task_track). taskId: low 16 bits
/// task id, high 16 bits batch id / flip number. extInfo as MsprofKernelInfo:
/// u16 numBlocks @0, u16 argsSize @2, u8 ratio:3/schedMode:2 @4.
struct MsprofRuntimeTrack {
  std::uint16_t deviceId = 0;
  std::uint16_t streamId = 0;
  std::uint32_t taskId = 0;
  std::uint64_t taskType = 0;    ///< runtime_task id (type_info_dic 5000_<id>)
  std::uint64_t kernelName = 0;  ///< hash
  unsigned char extInfo[16] = {};

  std::uint16_t num_blocks() const noexcept { return detail::load_le<std::uint16_t>(extInfo); }
  void set_num_blocks(std::uint16_t n) noexcept { detail::store_le(extInfo, n); }
};
static_assert(sizeof(MsprofRuntimeTrack) == 40, "MsprofRuntimeTrack size");
static_assert(offsetof(MsprofRuntimeTrack, streamId) == 2 && offsetof(MsprofRuntimeTrack, taskId) == 4 &&
                  offsetof(MsprofRuntimeTrack, taskType) == 8 && offsetof(MsprofRuntimeTrack, kernelName) == 16 &&
                  offsetof(MsprofRuntimeTrack, extInfo) == 24,
              "MsprofRuntimeTrack offsets");

/// MsprofMemcpyInfo (MSPROF parser view, 24 B with tail padding).
struct MsprofMemcpyInfo {
  std::uint64_t dataSize = 0;
  std::uint64_t maxSize = 0;
  std::uint16_t memcpyDirection = 0;
};
static_assert(sizeof(MsprofMemcpyInfo) == 24 && offsetof(MsprofMemcpyInfo, maxSize) == 8 &&
                  offsetof(MsprofMemcpyInfo, memcpyDirection) == 16,
              "MsprofMemcpyInfo layout");

#pragma pack(push, 1)
/// MsprofHcclOPInfo (26 B packed; compact NODE/10). flags: bit0 relay, bit1 retry.
struct MsprofHcclOPInfo {
  std::uint8_t flags = 0;
  std::uint8_t dataType = 0;
  std::uint64_t algType = 0;   ///< hash
  std::uint64_t count = 0;
  std::uint64_t groupName = 0; ///< hash
};

/// MsprofTensorData (44 B) inside MsprofTensorInfo.
struct MsprofTensorData {
  std::uint32_t tensorType = 0;  ///< 0 input, 1 output
  std::uint32_t format = 0;
  std::uint32_t dataType = 0;
  std::uint32_t shape[8] = {};
};

/// MsprofTensorInfo (232 B packed; additional NODE/1). Up to 5 tensors per
/// record; more are sent as further records with equal opName/time/thread.
struct MsprofTensorInfo {
  std::uint64_t opName = 0;
  std::uint32_t tensorNum = 0;
  MsprofTensorData tensorData[5];
};

/// MsprofContextIdInfo (232 B packed; additional NODE/4).
struct MsprofContextIdInfo {
  std::uint64_t opName = 0;
  std::uint32_t ctxIdNum = 0;
  std::uint32_t ctxIds[55] = {};
};

/// MsprofStampInfo (224 B packed) inside MsprofTxInfo.
struct MsprofStampInfo {
  std::uint16_t magicNumber = magic;
  std::uint16_t dataTag = 0;
  std::uint32_t processId = 0;
  std::uint32_t threadId = 0;
  std::uint32_t category = 0;
  std::uint32_t eventType = 0;
  std::int32_t payloadType = 0;
  std::uint64_t payload = 0;
  std::uint64_t startTime = 0;
  std::uint64_t endTime = 0;
  std::uint64_t markId = 0;
  std::uint64_t domain = 0;  ///< hash of the domain name
  std::int32_t messageType = 0;
  char message[156] = {};
};

/// MsprofTxInfo (232 B packed; additional TX/0 "msproftx"). res0 is the segment
/// index of a message longer than one record (same markId in each segment).
struct MsprofTxInfo {
  std::uint16_t infoType = tx_info_type::mark_ex;
  std::uint16_t res0 = 0;
  std::uint32_t res1 = 0;
  MsprofStampInfo stampInfo;
};
#pragma pack(pop)
static_assert(sizeof(MsprofHcclOPInfo) == 26 && offsetof(MsprofHcclOPInfo, algType) == 2 &&
                  offsetof(MsprofHcclOPInfo, count) == 10 && offsetof(MsprofHcclOPInfo, groupName) == 18,
              "MsprofHcclOPInfo layout");

/// MsprofHcclInfo (120 B, pack 4; additional HCCL_NODE "hccl_info"): one small
/// communication task (a Memcpy, Notify_Record, ...) of a collective. HCCL
/// sends it inside the HCCL-level API (level 5500, type master/slave) whose
/// task_track launches the task; ctxID is context_id_none outside FFTS+.
struct MsprofHcclInfo {
  std::uint64_t itemId = 0;     ///< hash of the task name ("Memcpy", "Notify_Wait", ...)
  std::uint64_t cclTag = 0;
  std::uint64_t groupName = 0;  ///< hash; the outputs print the number itself
  std::uint32_t localRank = 0;
  std::uint32_t remoteRank = 0;
  std::uint32_t rankSize = 0;
  std::uint32_t workFlowMode = 0;
  std::uint32_t planeID = 0;
  std::uint32_t ctxID = 0;
  std::uint64_t notifyID = 0;
  std::uint32_t stage = 0;
  std::uint32_t role = 0;       ///< 0 dst, 1 src
  double durationEstimated = 0; ///< µs
  std::uint64_t srcAddr = 0;
  std::uint64_t dstAddr = 0;
  std::uint64_t dataSize = 0;   ///< bytes
  std::uint32_t opType = 0;     ///< hccl_reduce_op
  std::uint32_t dataType = 0;   ///< HCCL data type (ENUM_HCCL_DATA_TYPE)
  std::uint32_t linkType = 0;   ///< ENUM_HCCL_LINK_TYPE
  std::uint32_t transportType = 0;  ///< ENUM_HCCL_TRANSPORT_TYPE
  std::uint32_t rdmaType = 0;   ///< ENUM_HCCL_RDMA_TYPE
  std::uint32_t reserve2 = 0;
};
static_assert(sizeof(MsprofHcclInfo) == 120 && offsetof(MsprofHcclInfo, localRank) == 24 &&
                  offsetof(MsprofHcclInfo, ctxID) == 44 && offsetof(MsprofHcclInfo, notifyID) == 48 &&
                  offsetof(MsprofHcclInfo, stage) == 56 && offsetof(MsprofHcclInfo, durationEstimated) == 64 &&
                  offsetof(MsprofHcclInfo, srcAddr) == 72 && offsetof(MsprofHcclInfo, dataSize) == 88 &&
                  offsetof(MsprofHcclInfo, opType) == 96 && offsetof(MsprofHcclInfo, rdmaType) == 112,
              "MsprofHcclInfo layout");
/// HCCL-level (5500) API types (CANN's MSPROF_REPORT_HCCL_*_TYPE), registered
/// as "master" / "slave" in type_info_dic; the additional hccl_info record's
/// own type is not named by CANN's header (the parser picks it by file name).
namespace hccl_type {
constexpr std::uint32_t master = 0x010001, slave = 0x010002, hccl_info = 0;
}  // namespace hccl_type
/// ctxID of a task outside an FFTS+ graph (the parser's DEFAULT_CONTEXT_ID).
constexpr std::uint32_t context_id_none = 0xFFFFFFFFu;
static_assert(sizeof(MsprofTensorData) == 44 && offsetof(MsprofTensorData, shape) == 12, "MsprofTensorData layout");
static_assert(sizeof(MsprofTensorInfo) == 232 && offsetof(MsprofTensorInfo, tensorNum) == 8 &&
                  offsetof(MsprofTensorInfo, tensorData) == 12,
              "MsprofTensorInfo layout");
static_assert(sizeof(MsprofContextIdInfo) == 232 && offsetof(MsprofContextIdInfo, ctxIds) == 12,
              "MsprofContextIdInfo layout");
static_assert(sizeof(MsprofStampInfo) == 224 && offsetof(MsprofStampInfo, processId) == 4 &&
                  offsetof(MsprofStampInfo, threadId) == 8 && offsetof(MsprofStampInfo, category) == 12 &&
                  offsetof(MsprofStampInfo, eventType) == 16 && offsetof(MsprofStampInfo, payloadType) == 20 &&
                  offsetof(MsprofStampInfo, payload) == 24 && offsetof(MsprofStampInfo, startTime) == 32 &&
                  offsetof(MsprofStampInfo, endTime) == 40 && offsetof(MsprofStampInfo, markId) == 48 &&
                  offsetof(MsprofStampInfo, domain) == 56 && offsetof(MsprofStampInfo, messageType) == 64 &&
                  offsetof(MsprofStampInfo, message) == 68,
              "MsprofStampInfo offsets");
static_assert(sizeof(MsprofTxInfo) == 232 && offsetof(MsprofTxInfo, res0) == 2 && offsetof(MsprofTxInfo, res1) == 4 &&
                  offsetof(MsprofTxInfo, stampInfo) == 8,
              "MsprofTxInfo layout");

/// Bytes of message text one MsprofTxInfo segment carries.
constexpr std::size_t tx_message_bytes = sizeof(MsprofStampInfo::message);

/// MsprofGraphIdInfo (16 B; additional MODEL/0 graph_id_map).
struct MsprofGraphIdInfo {
  std::uint64_t modelName = 0;  ///< hash
  std::uint32_t graphId = 0;
  std::uint32_t modelId = 0;
};
static_assert(sizeof(MsprofGraphIdInfo) == 16 && offsetof(MsprofGraphIdInfo, graphId) == 8 &&
                  offsetof(MsprofGraphIdInfo, modelId) == 12,
              "MsprofGraphIdInfo layout");

/// MstxMemInfo (48 B; additional TX/1 "msprof_mstx_mem"). msprof's own record:
/// CANN's collector keeps no mstx memory registrations, so this file is ours
/// and Huawei's parser ignores it. One record per heap or region
/// (un)registration; handles are the collector's ids (>= 1).
struct MstxMemInfo {
  std::uint8_t op = 0;  ///< instrument::mem_op (its values are this field's)
  std::uint8_t reserved[3] = {};
  std::uint32_t deviceId = 0;
  std::uint64_t handle = 0;   ///< heap or region id
  std::uint64_t heap = 0;     ///< owning heap of a region (0 for heaps)
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t domain = 0;   ///< hash of the domain name
};
static_assert(sizeof(MstxMemInfo) == 48 && offsetof(MstxMemInfo, deviceId) == 4 && offsetof(MstxMemInfo, handle) == 8 &&
                  offsetof(MstxMemInfo, address) == 24 && offsetof(MstxMemInfo, domain) == 40,
              "MstxMemInfo layout");

// ----------------------------------------------------------- device records --
#pragma pack(push, 1)
/// STARS ACSQ task log (64 B, stars_soc.data). word0: funcType bits 0-5
/// (0 start, 1 end), cnt bits 6-9 (counts records of the file, mod 16),
/// taskType (sqe) bits 10-15.
struct StarsAcsqLog {
  std::uint16_t word0 = 0;
  std::uint16_t magicNumber = stars_magic;
  std::uint16_t streamId = 0;
  std::uint16_t taskId = 0;
  std::uint64_t timestamp = 0;  ///< device cycles (hwts_frequency)
  std::uint16_t resv4 = 0;
  std::uint16_t resv5 = 0;
  std::uint32_t resv6[11] = {};

  std::uint16_t func_type() const noexcept { return word0 & 0x3F; }
  std::uint16_t cnt() const noexcept { return (word0 >> 6) & 0xF; }
  std::uint16_t task_type() const noexcept { return (word0 >> 10) & 0x3F; }
  void set_word0(std::uint16_t func, std::uint16_t count, std::uint16_t sqe_type) noexcept {
    word0 = static_cast<std::uint16_t>((func & 0x3F) | ((count & 0xF) << 6) | ((sqe_type & 0x3F) << 10));
  }
};

/// Per-task AI Core PMU record "ContextPmu" (128 B, ffts_profile.data).
/// word0 funcType bits 0-5 (0b101000 for a context PMU record), cnt bits 6-9
/// (counts records of the file, mod 16).
struct ContextPmu {
  std::uint16_t word0 = 0;
  std::uint16_t resv2 = 0;
  std::uint16_t streamId = 0;
  std::uint16_t taskId = 0;
  std::uint64_t resv3 = 0;
  std::uint16_t word16 = 0;     ///< subTaskType:8, resv:2, ovFlag:1, resv:5
  std::uint16_t subTaskId = 0;
  std::uint16_t word20 = 0;     ///< resv:13, fftsType:3
  std::uint16_t resv4 = 0;
  std::uint64_t resv5 = 0;
  std::uint64_t totalCycle = 0;
  std::uint64_t resv6 = 0;
  std::uint64_t pmuList[8] = {};
  std::uint64_t timeList[2] = {};  ///< start/end, device cycles

  std::uint16_t func_type() const noexcept { return word0 & 0x3F; }
  std::uint16_t cnt() const noexcept { return (word0 >> 6) & 0xF; }
  void set_word0(std::uint16_t func, std::uint16_t count) noexcept {
    word0 = static_cast<std::uint16_t>((func & 0x3F) | ((count & 0xF) << 6));
  }
  bool overflow() const noexcept { return (word16 >> 10) & 1; }
  std::uint16_t ffts_type() const noexcept { return static_cast<std::uint16_t>(word20 >> 13); }
  void set_ffts_type(std::uint16_t t) noexcept {
    word20 = static_cast<std::uint16_t>((word20 & 0x1FFF) | ((t & 0x7) << 13));
  }
};

/// ts_track step-trace record (40 B, ts_track.data). streamWord: streamId in
/// the low 11 bits.
struct TsTrackStepTrace {
  std::uint8_t resv1 = 0;
  std::uint8_t funcType = 0;
  std::uint16_t resv2 = 0;
  std::uint32_t resv3 = 0;
  std::uint64_t timestamp = 0;
  std::uint64_t indexId = 0;
  std::uint64_t modelId = 0;
  std::uint16_t streamWord = 0;
  std::uint16_t taskId = 0;
  std::uint16_t tagId = 0;
  std::uint16_t resv4 = 0;

  std::uint16_t stream_id() const noexcept { return streamWord & 0x7FF; }
};
#pragma pack(pop)
static_assert(sizeof(StarsAcsqLog) == 64 && offsetof(StarsAcsqLog, magicNumber) == 2 && offsetof(StarsAcsqLog, streamId) == 4 && offsetof(StarsAcsqLog, taskId) == 6 &&
                  offsetof(StarsAcsqLog, timestamp) == 8 && offsetof(StarsAcsqLog, resv6) == 20,
              "StarsAcsqLog layout");
static_assert(sizeof(ContextPmu) == 128 && offsetof(ContextPmu, streamId) == 4 && offsetof(ContextPmu, taskId) == 6 &&
                  offsetof(ContextPmu, word16) == 16 && offsetof(ContextPmu, subTaskId) == 18 &&
                  offsetof(ContextPmu, word20) == 20 && offsetof(ContextPmu, totalCycle) == 32 &&
                  offsetof(ContextPmu, pmuList) == 48 && offsetof(ContextPmu, timeList) == 112,
              "ContextPmu layout");
static_assert(sizeof(TsTrackStepTrace) == 40 && offsetof(TsTrackStepTrace, funcType) == 1 &&
                  offsetof(TsTrackStepTrace, timestamp) == 8 && offsetof(TsTrackStepTrace, indexId) == 16 &&
                  offsetof(TsTrackStepTrace, modelId) == 24 && offsetof(TsTrackStepTrace, streamWord) == 32 &&
                  offsetof(TsTrackStepTrace, taskId) == 34 && offsetof(TsTrackStepTrace, tagId) == 36,
              "TsTrackStepTrace layout");

/// ACSQ funcType values and the ContextPmu funcType our device writes.
constexpr std::uint16_t acsq_func_start = 0, acsq_func_end = 1, context_pmu_func = 0x28;
/// funcType of the accelerator PMU samples (ACC_PMU, 0b011010) that share the
/// ACSQ logs' stars_soc slices (codec/acc_pmu.hpp).
constexpr std::uint16_t acc_pmu_func = 0x1A;
/// ts_track step-trace funcType (tag records).
constexpr std::uint8_t ts_track_step_func = 10;


// ------------------------------------------- generic field-wise load/store --
// fields(x, f) calls f(offset, member) for every scalar member (arrays element
// by element) at its on-disk offset. store()/load() build on it, so each
// layout is written down once.
namespace detail {
template <class T, class F>
inline void each(std::size_t off, T& m, F& f) { f(off, m); }
template <class T, std::size_t N, class F>
inline void each(std::size_t off, T (&a)[N], F& f) {
  for (std::size_t i = 0; i < N; ++i) each(off + i * sizeof(T), a[i], f);
}
// Members of the packed structs may be misaligned: binding a reference to one
// is undefined behaviour, so f sees an aligned copy that is written back.
template <class M, class X, class F>
inline void each_packed(X& x, std::size_t off, std::size_t base, F& f) {
  using byte = std::conditional_t<std::is_const_v<X>, const unsigned char, unsigned char>;
  byte* raw = reinterpret_cast<byte*>(&x) + off;
  std::remove_cv_t<M> v;
  std::memcpy(&v, raw, sizeof v);
  each(base + off, v, f);
  if constexpr (!std::is_const_v<X>) std::memcpy(raw, &v, sizeof v);
}
}  // namespace detail
#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)

template <class X, class F> inline void fields(X& x, F&& f, std::size_t base = 0);

template <class F> inline void fields_of(MsprofApi& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofApi, magicNumber); MSPROF_DETAIL_F(MsprofApi, level); MSPROF_DETAIL_F(MsprofApi, type);
  MSPROF_DETAIL_F(MsprofApi, threadId); MSPROF_DETAIL_F(MsprofApi, reserve); MSPROF_DETAIL_F(MsprofApi, beginTime);
  MSPROF_DETAIL_F(MsprofApi, endTime); MSPROF_DETAIL_F(MsprofApi, itemId);
}
template <class F> inline void fields_of(MsprofEvent& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofEvent, magicNumber); MSPROF_DETAIL_F(MsprofEvent, level); MSPROF_DETAIL_F(MsprofEvent, type);
  MSPROF_DETAIL_F(MsprofEvent, threadId); MSPROF_DETAIL_F(MsprofEvent, requestId);
  MSPROF_DETAIL_F(MsprofEvent, timeStamp); MSPROF_DETAIL_F(MsprofEvent, eventFlag); MSPROF_DETAIL_F(MsprofEvent, itemId);
}
template <class F> inline void fields_of(record_header& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(record_header, magicNumber); MSPROF_DETAIL_F(record_header, level); MSPROF_DETAIL_F(record_header, type);
  MSPROF_DETAIL_F(record_header, threadId); MSPROF_DETAIL_F(record_header, dataLen); MSPROF_DETAIL_F(record_header, timeStamp);
}
template <class F> inline void fields_of(MsprofNodeBasicInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofNodeBasicInfo, opName); MSPROF_DETAIL_F(MsprofNodeBasicInfo, taskType);
  MSPROF_DETAIL_F(MsprofNodeBasicInfo, opType); MSPROF_DETAIL_F(MsprofNodeBasicInfo, blockNum);
  MSPROF_DETAIL_F(MsprofNodeBasicInfo, opFlag); MSPROF_DETAIL_F(MsprofNodeBasicInfo, opState);
}
template <class F> inline void fields_of(MsprofRuntimeTrack& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofRuntimeTrack, deviceId); MSPROF_DETAIL_F(MsprofRuntimeTrack, streamId);
  MSPROF_DETAIL_F(MsprofRuntimeTrack, taskId); MSPROF_DETAIL_F(MsprofRuntimeTrack, taskType);
  MSPROF_DETAIL_F(MsprofRuntimeTrack, kernelName); MSPROF_DETAIL_F(MsprofRuntimeTrack, extInfo);
}
template <class F> inline void fields_of(MsprofMemcpyInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofMemcpyInfo, dataSize); MSPROF_DETAIL_F(MsprofMemcpyInfo, maxSize);
  MSPROF_DETAIL_F(MsprofMemcpyInfo, memcpyDirection);
}
template <class F> inline void fields_of(MsprofHcclOPInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofHcclOPInfo, flags); MSPROF_DETAIL_F(MsprofHcclOPInfo, dataType);
  MSPROF_DETAIL_F(MsprofHcclOPInfo, algType); MSPROF_DETAIL_F(MsprofHcclOPInfo, count);
  MSPROF_DETAIL_F(MsprofHcclOPInfo, groupName);
}
template <class F> inline void fields_of(MsprofHcclInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofHcclInfo, itemId); MSPROF_DETAIL_F(MsprofHcclInfo, cclTag);
  MSPROF_DETAIL_F(MsprofHcclInfo, groupName); MSPROF_DETAIL_F(MsprofHcclInfo, localRank);
  MSPROF_DETAIL_F(MsprofHcclInfo, remoteRank); MSPROF_DETAIL_F(MsprofHcclInfo, rankSize);
  MSPROF_DETAIL_F(MsprofHcclInfo, workFlowMode); MSPROF_DETAIL_F(MsprofHcclInfo, planeID);
  MSPROF_DETAIL_F(MsprofHcclInfo, ctxID); MSPROF_DETAIL_F(MsprofHcclInfo, notifyID);
  MSPROF_DETAIL_F(MsprofHcclInfo, stage); MSPROF_DETAIL_F(MsprofHcclInfo, role);
  MSPROF_DETAIL_F(MsprofHcclInfo, durationEstimated); MSPROF_DETAIL_F(MsprofHcclInfo, srcAddr);
  MSPROF_DETAIL_F(MsprofHcclInfo, dstAddr); MSPROF_DETAIL_F(MsprofHcclInfo, dataSize);
  MSPROF_DETAIL_F(MsprofHcclInfo, opType); MSPROF_DETAIL_F(MsprofHcclInfo, dataType);
  MSPROF_DETAIL_F(MsprofHcclInfo, linkType); MSPROF_DETAIL_F(MsprofHcclInfo, transportType);
  MSPROF_DETAIL_F(MsprofHcclInfo, rdmaType); MSPROF_DETAIL_F(MsprofHcclInfo, reserve2);
}
template <class F> inline void fields_of(MsprofTensorData& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofTensorData, tensorType); MSPROF_DETAIL_F(MsprofTensorData, format);
  MSPROF_DETAIL_F(MsprofTensorData, dataType); MSPROF_DETAIL_F(MsprofTensorData, shape);
}
template <class F> inline void fields_of(MsprofTensorInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofTensorInfo, opName); MSPROF_DETAIL_F(MsprofTensorInfo, tensorNum);
  for (std::size_t i = 0; i < 5; ++i)
    fields_of(x.tensorData[i], f, base + offsetof(MsprofTensorInfo, tensorData) + i * sizeof(MsprofTensorData));
}
template <class F> inline void fields_of(MsprofContextIdInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofContextIdInfo, opName); MSPROF_DETAIL_F(MsprofContextIdInfo, ctxIdNum);
  MSPROF_DETAIL_F(MsprofContextIdInfo, ctxIds);
}
template <class F> inline void fields_of(MsprofStampInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofStampInfo, magicNumber); MSPROF_DETAIL_F(MsprofStampInfo, dataTag);
  MSPROF_DETAIL_F(MsprofStampInfo, processId); MSPROF_DETAIL_F(MsprofStampInfo, threadId);
  MSPROF_DETAIL_F(MsprofStampInfo, category); MSPROF_DETAIL_F(MsprofStampInfo, eventType);
  MSPROF_DETAIL_F(MsprofStampInfo, payloadType); MSPROF_DETAIL_F(MsprofStampInfo, payload);
  MSPROF_DETAIL_F(MsprofStampInfo, startTime); MSPROF_DETAIL_F(MsprofStampInfo, endTime);
  MSPROF_DETAIL_F(MsprofStampInfo, markId); MSPROF_DETAIL_F(MsprofStampInfo, domain);
  MSPROF_DETAIL_F(MsprofStampInfo, messageType); MSPROF_DETAIL_F(MsprofStampInfo, message);
}
template <class F> inline void fields_of(MsprofTxInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofTxInfo, infoType); MSPROF_DETAIL_F(MsprofTxInfo, res0); MSPROF_DETAIL_F(MsprofTxInfo, res1);
  fields_of(x.stampInfo, f, base + offsetof(MsprofTxInfo, stampInfo));
}
template <class F> inline void fields_of(MsprofGraphIdInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofGraphIdInfo, modelName); MSPROF_DETAIL_F(MsprofGraphIdInfo, graphId);
  MSPROF_DETAIL_F(MsprofGraphIdInfo, modelId);
}
template <class F> inline void fields_of(MstxMemInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MstxMemInfo, op); MSPROF_DETAIL_F(MstxMemInfo, reserved); MSPROF_DETAIL_F(MstxMemInfo, deviceId);
  MSPROF_DETAIL_F(MstxMemInfo, handle); MSPROF_DETAIL_F(MstxMemInfo, heap); MSPROF_DETAIL_F(MstxMemInfo, address);
  MSPROF_DETAIL_F(MstxMemInfo, size); MSPROF_DETAIL_F(MstxMemInfo, domain);
}
template <class F> inline void fields_of(StarsAcsqLog& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(StarsAcsqLog, word0); MSPROF_DETAIL_F(StarsAcsqLog, magicNumber); MSPROF_DETAIL_F(StarsAcsqLog, streamId);
  MSPROF_DETAIL_F(StarsAcsqLog, taskId); MSPROF_DETAIL_F(StarsAcsqLog, timestamp); MSPROF_DETAIL_F(StarsAcsqLog, resv4);
  MSPROF_DETAIL_F(StarsAcsqLog, resv5); MSPROF_DETAIL_F(StarsAcsqLog, resv6);
}
template <class F> inline void fields_of(ContextPmu& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(ContextPmu, word0); MSPROF_DETAIL_F(ContextPmu, resv2); MSPROF_DETAIL_F(ContextPmu, streamId);
  MSPROF_DETAIL_F(ContextPmu, taskId); MSPROF_DETAIL_F(ContextPmu, resv3); MSPROF_DETAIL_F(ContextPmu, word16);
  MSPROF_DETAIL_F(ContextPmu, subTaskId); MSPROF_DETAIL_F(ContextPmu, word20); MSPROF_DETAIL_F(ContextPmu, resv4);
  MSPROF_DETAIL_F(ContextPmu, resv5); MSPROF_DETAIL_F(ContextPmu, totalCycle); MSPROF_DETAIL_F(ContextPmu, resv6);
  MSPROF_DETAIL_F(ContextPmu, pmuList); MSPROF_DETAIL_F(ContextPmu, timeList);
}
template <class F> inline void fields_of(TsTrackStepTrace& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(TsTrackStepTrace, resv1); MSPROF_DETAIL_F(TsTrackStepTrace, funcType);
  MSPROF_DETAIL_F(TsTrackStepTrace, resv2); MSPROF_DETAIL_F(TsTrackStepTrace, resv3);
  MSPROF_DETAIL_F(TsTrackStepTrace, timestamp); MSPROF_DETAIL_F(TsTrackStepTrace, indexId);
  MSPROF_DETAIL_F(TsTrackStepTrace, modelId); MSPROF_DETAIL_F(TsTrackStepTrace, streamWord);
  MSPROF_DETAIL_F(TsTrackStepTrace, taskId); MSPROF_DETAIL_F(TsTrackStepTrace, tagId);
  MSPROF_DETAIL_F(TsTrackStepTrace, resv4);
}
#undef MSPROF_DETAIL_F

template <class X, class F>
inline void fields(X& x, F&& f, std::size_t base) { fields_of(x, f, base); }

/// Writes `x` little-endian into p[0, sizeof(X)) (bytes not covered by a field,
/// such as tail padding, are zeroed).
template <class X>
inline void store(unsigned char* p, const X& x) noexcept {
  std::memset(p, 0, sizeof(X));
  X copy = x;
  fields(copy, [p](std::size_t off, auto& m) {
    using M = std::remove_reference_t<decltype(m)>;
    if constexpr (std::is_same_v<M, char>) p[off] = static_cast<unsigned char>(m);
    else if constexpr (std::is_same_v<M, double>) {  // its IEEE bits (MsprofHcclInfo)
      std::uint64_t bits;
      std::memcpy(&bits, &m, sizeof bits);
      detail::store_le(p + off, bits);
    } else detail::store_le(p + off, m);
  });
}
/// Reads an X from p[0, sizeof(X)) (caller checked the bounds).
template <class X>
inline X load(const unsigned char* p) noexcept {
  X x{};
  fields(x, [p](std::size_t off, auto& m) {
    using M = std::remove_reference_t<decltype(m)>;
    if constexpr (std::is_same_v<M, char>) m = static_cast<char>(p[off]);
    else if constexpr (std::is_same_v<M, double>) {
      const auto bits = detail::load_le<std::uint64_t>(p + off);
      std::memcpy(&m, &bits, sizeof m);
    } else m = detail::load_le<M>(p + off);
  });
  return x;
}

// ---------------------------------------------------------- memory records --
// Kept in one block: the device's module samples and GE's per-op memory events.

/// npu_module_mem sample (24 B, device file npu_module_mem.data.<id>): the
/// memory one software module (an ENUM_MODULE id) holds reserved on the
/// device, stamped with the host counter (host_start.log's clock).
struct NpuModuleMem {
  std::uint32_t moduleId = 0;
  std::uint32_t reserved = 0;
  std::uint64_t cpuCycleCount = 0;
  std::uint64_t totalSize = 0;  ///< bytes
};
static_assert(sizeof(NpuModuleMem) == 24 && offsetof(NpuModuleMem, cpuCycleCount) == 8 &&
                  offsetof(NpuModuleMem, totalSize) == 16,
              "NpuModuleMem layout");
constexpr std::size_t npu_module_mem_size = sizeof(NpuModuleMem);

/// MsprofMemoryInfo (48 B; additional NODE/6 task_memory_info): GE's memory
/// event for an op, an allocation (size > 0) or a release (size < 0), with the
/// totals after it.
struct MsprofMemoryInfo {
  std::uint64_t addr = 0;
  std::int64_t size = 0;
  std::uint64_t nodeId = 0;  ///< hash of the op name
  std::uint64_t totalAllocateMemory = 0;
  std::uint64_t totalReserveMemory = 0;
  std::uint32_t deviceId = 0;
  std::uint32_t deviceType = 0;
};
static_assert(sizeof(MsprofMemoryInfo) == 48 && offsetof(MsprofMemoryInfo, size) == 8 &&
                  offsetof(MsprofMemoryInfo, nodeId) == 16 && offsetof(MsprofMemoryInfo, totalAllocateMemory) == 24 &&
                  offsetof(MsprofMemoryInfo, totalReserveMemory) == 32 && offsetof(MsprofMemoryInfo, deviceId) == 40 &&
                  offsetof(MsprofMemoryInfo, deviceType) == 44,
              "MsprofMemoryInfo layout");

/// npu_mem sample (32 B, device file npu_mem.data.<id>): the memory of the
/// application (event 0, "APP") or of the whole device (event 1) in DDR and
/// HBM. Collection version "1.0" (info.json's `version`, the one msprof
/// writes) stamps it in `sampleTimeUs`, µs after the host's
/// CLOCK_MONOTONIC_RAW start (host_start.log); version "2.0" moves the
/// time to `timestamp`.
struct NpuMem {
  std::uint32_t sampleTimeUs = 0;
  std::uint32_t event = 0;  ///< 0 APP, 1 Device
  std::uint64_t timestamp = 0;
  std::uint64_t ddr = 0;  ///< bytes
  std::uint64_t hbm = 0;  ///< bytes
};
static_assert(sizeof(NpuMem) == 32 && offsetof(NpuMem, event) == 4 && offsetof(NpuMem, timestamp) == 8 &&
                  offsetof(NpuMem, ddr) == 16 && offsetof(NpuMem, hbm) == 24,
              "NpuMem layout");
constexpr std::size_t npu_mem_size = sizeof(NpuMem);

#pragma pack(push, 1)
/// MsprofStaticOpMem (52 B packed; additional NODE/11 static_op_mem): GE's
/// memory of an op of a static graph, the node index range it lives in.
struct MsprofStaticOpMem {
  std::int64_t opMemSize = 0;      ///< bytes
  std::uint64_t opName = 0;        ///< hash; 0 the graph's total
  std::uint64_t lifeStart = 0;     ///< node index
  std::uint64_t lifeEnd = 0;       ///< node index
  std::uint64_t totalAllocMem = 0;
  std::uint64_t dynOpName = 0;     ///< hash of the dynamic root op (the model); 0 none
  std::uint32_t graphId = 0;
};
#pragma pack(pop)
static_assert(sizeof(MsprofStaticOpMem) == 52 && offsetof(MsprofStaticOpMem, opName) == 8 &&
                  offsetof(MsprofStaticOpMem, dynOpName) == 40 && offsetof(MsprofStaticOpMem, graphId) == 48,
              "MsprofStaticOpMem layout");

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(NpuModuleMem& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(NpuModuleMem, moduleId); MSPROF_DETAIL_F(NpuModuleMem, reserved);
  MSPROF_DETAIL_F(NpuModuleMem, cpuCycleCount); MSPROF_DETAIL_F(NpuModuleMem, totalSize);
}
template <class F> inline void fields_of(MsprofMemoryInfo& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofMemoryInfo, addr); MSPROF_DETAIL_F(MsprofMemoryInfo, size);
  MSPROF_DETAIL_F(MsprofMemoryInfo, nodeId); MSPROF_DETAIL_F(MsprofMemoryInfo, totalAllocateMemory);
  MSPROF_DETAIL_F(MsprofMemoryInfo, totalReserveMemory); MSPROF_DETAIL_F(MsprofMemoryInfo, deviceId);
  MSPROF_DETAIL_F(MsprofMemoryInfo, deviceType);
}
template <class F> inline void fields_of(NpuMem& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(NpuMem, sampleTimeUs); MSPROF_DETAIL_F(NpuMem, event); MSPROF_DETAIL_F(NpuMem, timestamp);
  MSPROF_DETAIL_F(NpuMem, ddr); MSPROF_DETAIL_F(NpuMem, hbm);
}
template <class F> inline void fields_of(MsprofStaticOpMem& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(MsprofStaticOpMem, opMemSize); MSPROF_DETAIL_F(MsprofStaticOpMem, opName);
  MSPROF_DETAIL_F(MsprofStaticOpMem, lifeStart); MSPROF_DETAIL_F(MsprofStaticOpMem, lifeEnd);
  MSPROF_DETAIL_F(MsprofStaticOpMem, totalAllocMem); MSPROF_DETAIL_F(MsprofStaticOpMem, dynOpName);
  MSPROF_DETAIL_F(MsprofStaticOpMem, graphId);
}
#undef MSPROF_DETAIL_F

// ------------------------------------------------ stream/task id packing --
/// Stream and task id as the parser sees them after unpacking the raw 16-bit
/// fields of STARS records (ascend-formats.md §2.8).
struct stream_task {
  std::uint16_t stream_id;
  std::uint16_t task_id;
};
/// Unpacks raw (streamId, taskId) of an ACSQ/PMU record:
/// bit 12 of stream set -> stream %= 2048, task = (task & 0x1FFF) | (stream & 0xE000);
/// else bit 13 set -> stream = task & 0x0FFF, task = (stream & 0x0FFF) | (task & 0xF000).
constexpr stream_task unpack_stream_task(std::uint16_t raw_stream, std::uint16_t raw_task) noexcept {
  if (raw_stream & 0x1000)
    return {static_cast<std::uint16_t>(raw_stream % 2048),
            static_cast<std::uint16_t>((raw_task & 0x1FFF) | (raw_stream & 0xE000))};
  if (raw_stream & 0x2000)
    return {static_cast<std::uint16_t>(raw_task & 0x0FFF),
            static_cast<std::uint16_t>((raw_stream & 0x0FFF) | (raw_task & 0xF000))};
  return {raw_stream, raw_task};
}
/// Our simulated device uses stream ids < 2048 and task ids < 4096 with neither
/// flag bit, so raw fields equal the logical ids (checked by the device).
constexpr bool packs_plainly(std::uint32_t stream, std::uint32_t task) noexcept {
  return stream < 0x1000 && task <= 0xFFFF;
}
/// task_track taskId: low 16 bits task id, high 16 bits batch id / flip number.
constexpr std::uint32_t pack_track_task(std::uint16_t task, std::uint16_t batch) noexcept {
  return (static_cast<std::uint32_t>(batch) << 16) | task;
}

// ------------------------------------------------------------ AI CPU records --
// Kept in one block: the AI CPU's own report of each kernel it ran (device
// slices aicpu.data.<id>: MsprofAdditionalInfo records of level AICPU).

namespace aicpu_type {
constexpr std::uint32_t node = 0;  ///< MsprofAicpuNodeAdditionalData
}  // namespace aicpu_type

/// MsprofAicpuNodeAdditionalData (128 B; additional AICPU/0): one AI CPU
/// kernel. *Tick fields are device counter ticks; compute/memcpy times are µs
/// on the AI CPU's own clock; dispatchTime and totalTime are µs.
struct MsprofAicpuNodeAdditionalData {
  std::uint16_t streamId = 0;
  std::uint16_t taskId = 0;
  std::uint32_t rev = 0;
  std::uint64_t runStartTime = 0;
  std::uint64_t runStartTick = 0;
  std::uint64_t computeStartTime = 0;
  std::uint64_t memcpyStartTime = 0;
  std::uint64_t memcpyEndTime = 0;
  std::uint64_t runEndTime = 0;
  std::uint64_t runEndTick = 0;
  std::uint32_t threadId = 0;
  std::uint32_t deviceId = 0;
  std::uint64_t submitTick = 0;
  std::uint64_t scheduleTick = 0;
  std::uint64_t tickBeforeRun = 0;
  std::uint64_t tickAfterRun = 0;
  std::uint32_t kernelType = 0;
  std::uint32_t dispatchTime = 0;
  std::uint32_t totalTime = 0;
  std::uint16_t fftsThreadId = 0;
  std::uint8_t version = 0;
  std::uint8_t reserve[9] = {};
};
static_assert(sizeof(MsprofAicpuNodeAdditionalData) == 128 && offsetof(MsprofAicpuNodeAdditionalData, runStartTick) == 16 &&
                  offsetof(MsprofAicpuNodeAdditionalData, runEndTick) == 56 &&
                  offsetof(MsprofAicpuNodeAdditionalData, threadId) == 64 &&
                  offsetof(MsprofAicpuNodeAdditionalData, submitTick) == 72 &&
                  offsetof(MsprofAicpuNodeAdditionalData, tickAfterRun) == 96 &&
                  offsetof(MsprofAicpuNodeAdditionalData, kernelType) == 104 &&
                  offsetof(MsprofAicpuNodeAdditionalData, fftsThreadId) == 116 &&
                  offsetof(MsprofAicpuNodeAdditionalData, reserve) == 119,
              "MsprofAicpuNodeAdditionalData layout");

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(MsprofAicpuNodeAdditionalData& x, F& f, std::size_t base) {
  using T = MsprofAicpuNodeAdditionalData;
  MSPROF_DETAIL_F(T, streamId); MSPROF_DETAIL_F(T, taskId); MSPROF_DETAIL_F(T, rev);
  MSPROF_DETAIL_F(T, runStartTime); MSPROF_DETAIL_F(T, runStartTick); MSPROF_DETAIL_F(T, computeStartTime);
  MSPROF_DETAIL_F(T, memcpyStartTime); MSPROF_DETAIL_F(T, memcpyEndTime); MSPROF_DETAIL_F(T, runEndTime);
  MSPROF_DETAIL_F(T, runEndTick); MSPROF_DETAIL_F(T, threadId); MSPROF_DETAIL_F(T, deviceId);
  MSPROF_DETAIL_F(T, submitTick); MSPROF_DETAIL_F(T, scheduleTick); MSPROF_DETAIL_F(T, tickBeforeRun);
  MSPROF_DETAIL_F(T, tickAfterRun); MSPROF_DETAIL_F(T, kernelType); MSPROF_DETAIL_F(T, dispatchTime);
  MSPROF_DETAIL_F(T, totalTime); MSPROF_DETAIL_F(T, fftsThreadId); MSPROF_DETAIL_F(T, version);
  MSPROF_DETAIL_F(T, reserve);
}
#undef MSPROF_DETAIL_F

// ------------------------------------------------- system interconnect --
/// PCIe sample (96 B, device file pcie.data.<id>): the link's bandwidths in
/// bytes/µs and its non-posted latency in ns over one sampling period, each as
/// min, max and average. The reference's summary shows the device directory's
/// id, not `deviceId`.
struct PcieSample {
  enum metric : unsigned { tx_p, tx_np, tx_cpl, tx_np_latency, rx_p, rx_np, rx_cpl, metric_count };
  enum stat : unsigned { min, max, avg };
  std::uint64_t timestamp = 0;  ///< ns
  std::uint32_t deviceId = 0;
  std::uint32_t values[metric_count * 3] = {};  ///< values[metric * 3 + stat]
  std::uint32_t value(metric m, stat s) const { return values[m * 3 + s]; }
};
static_assert(sizeof(PcieSample) == 96 && offsetof(PcieSample, deviceId) == 8 && offsetof(PcieSample, values) == 12,
              "PcieSample layout");
constexpr std::size_t pcie_size = sizeof(PcieSample);

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(PcieSample& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(PcieSample, timestamp); MSPROF_DETAIL_F(PcieSample, deviceId); MSPROF_DETAIL_F(PcieSample, values);
}
#undef MSPROF_DETAIL_F

// ----------------------------------------------------- device memory --
/// HBM sample (24 B, device file hbm.data.<id>; collection version "1.0",
/// info.json's `version`): the bytes one HBM channel (`hbmId`) read (event 0)
/// or wrote (any other event) since its previous sample, stamped in µs after
/// the device's clock_monotonic_raw start (dev_start.log).
struct HbmSample {
  std::uint64_t timestampUs = 0;
  std::uint64_t count = 0;  ///< bytes / 256 / 8 (the reference's SCALE turns it into MB)
  std::uint32_t eventId = 0;
  std::uint32_t hbmId = 0;
};
static_assert(sizeof(HbmSample) == 24 && offsetof(HbmSample, count) == 8 && offsetof(HbmSample, eventId) == 16 &&
                  offsetof(HbmSample, hbmId) == 20,
              "HbmSample layout");
constexpr std::size_t hbm_size = sizeof(HbmSample);

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(HbmSample& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(HbmSample, timestampUs); MSPROF_DETAIL_F(HbmSample, count); MSPROF_DETAIL_F(HbmSample, eventId);
  MSPROF_DETAIL_F(HbmSample, hbmId);
}
#undef MSPROF_DETAIL_F

/// DDR sample (20 B, device file ddr.data.<id>): the count one DDR controller
/// (`ddrcId`) read (event 0) or wrote (any other) since its previous sample,
/// stamped in µs after the device's clock_monotonic_raw start; `masterId`
/// 0xFFFFFFFF for the controller's whole flux, another value for one master's.
struct DdrSample {
  std::uint32_t timestampUs = 0;
  std::uint32_t count = 0;
  std::uint32_t eventId = 0;
  std::uint32_t ddrcId = 0;
  std::uint32_t masterId = 0;
};
static_assert(sizeof(DdrSample) == 20 && offsetof(DdrSample, masterId) == 16, "DdrSample layout");
constexpr std::size_t ddr_size = sizeof(DdrSample);

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(DdrSample& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(DdrSample, timestampUs); MSPROF_DETAIL_F(DdrSample, count); MSPROF_DETAIL_F(DdrSample, eventId);
  MSPROF_DETAIL_F(DdrSample, ddrcId); MSPROF_DETAIL_F(DdrSample, masterId);
}
#undef MSPROF_DETAIL_F

/// LLC sample of collection version "1.0" (24 B, device file llc.data.<id>;
/// info.json's `version`): the count of one PMU event (`eventId`) of one L3
/// tag (`l3tId`) since its previous sample, stamped in µs after the device's
/// clock_monotonic_raw start (dev_start.log).
struct LlcSample {
  std::uint64_t timestampUs = 0;
  std::uint64_t count = 0;
  std::uint32_t eventId = 0;
  std::uint32_t l3tId = 0;
};
static_assert(sizeof(LlcSample) == 24 && offsetof(LlcSample, eventId) == 16 && offsetof(LlcSample, l3tId) == 20,
              "LlcSample layout");
constexpr std::size_t llc_size = sizeof(LlcSample);

/// LLC sample of collection version "2.0" (also 24 B, the same file): the
/// same fields after 4 unused bytes, the time last, in ns.
struct LlcSampleV2 {
  std::uint32_t reserved = 0;
  std::uint32_t count = 0;
  std::uint32_t eventId = 0;
  std::uint32_t l3tId = 0;
  std::uint64_t timestampNs = 0;
};
static_assert(sizeof(LlcSampleV2) == llc_size && offsetof(LlcSampleV2, timestampNs) == 16, "LlcSampleV2 layout");

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(LlcSample& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(LlcSample, timestampUs); MSPROF_DETAIL_F(LlcSample, count); MSPROF_DETAIL_F(LlcSample, eventId);
  MSPROF_DETAIL_F(LlcSample, l3tId);
}
template <class F> inline void fields_of(LlcSampleV2& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(LlcSampleV2, reserved); MSPROF_DETAIL_F(LlcSampleV2, count); MSPROF_DETAIL_F(LlcSampleV2, eventId);
  MSPROF_DETAIL_F(LlcSampleV2, l3tId); MSPROF_DETAIL_F(LlcSampleV2, timestampNs);
}
#undef MSPROF_DETAIL_F

/// HCCS sample (device file hccs.data.<id>, text): after a header line, one
/// line "<timestamp>: <txAmount> <rxAmount>" per sample, the link's byte
/// counters at that time (ns).
struct HccsSample {
  double timestamp = 0;  ///< ns, as the reference reads it (a float)
  std::int64_t tx = 0, rx = 0;  ///< bytes sent and received so far
};

/// A line of the host's CPU usage slices (host/data/host_cpu.data.slice_<n>,
/// text): per sample, "time <ns>", then /proc/uptime's line ("<uptime s>
/// <idle s>"), then one line per thread of the application, its
/// /proc/<pid>/task/<tid>/stat (fields 0, 3, 13, 14 and 38 are read: CANN's
/// pid, tid, utime, stime and the CPU it last ran on).
struct HostCpuLine {
  enum kind_t : std::uint8_t { time, uptime, thread } kind = time;
  std::uint64_t timestamp = 0;  ///< time: the host clock, ns
  std::int64_t uptime_us = 0;   ///< uptime: seconds since boot, in µs (at most 6 decimals)
  std::int64_t pid = 0, tid = 0, utime = 0, stime = 0, cpu = 0;  ///< thread: clock ticks
};

/// A line of the host's memory usage slices (host/data/host_mem.data.slice_<n>,
/// text): "<ns> " then the application's /proc/<pid>/statm (size, resident,
/// ...: pages); the resident pages are read.
struct HostMemLine {
  std::uint64_t timestamp = 0;  ///< the host clock, ns
  std::int64_t resident = 0;    ///< pages (4 KiB, as the reference counts them)
};

/// A line of the host's disk usage slices (host/data/host_disk.data.slice_<n>,
/// text): "start_time <ns>" (the host clock), then one line per sampling
/// interval in iotop's batch form with the time first: "HH:MM:SS <pid> <prio>
/// <user> <read> <unit> <write> <unit> <swapin> % <io> % <command>", the unit
/// B/s, K/s, M/s or G/s. A line whose second field is not a number (iotop's
/// headers, a blank line) is `other`.
struct HostDiskLine {
  enum kind_t : std::uint8_t { other, start_time, sample } kind = other;
  double start_ns = 0;                 ///< start_time: the number as Python's float() reads it
  double read_kbs = 0, write_kbs = 0;  ///< sample: KB/s (0 when not a number)
  double io_percent = 0;               ///< sample: the IO column (0 when "unavailable" or under 11 fields)
  std::uint8_t flags = 0;              ///< sample: what was not read (the bits below)
  static constexpr std::uint8_t bad_read = 1, bad_write = 2, unknown_unit = 4;
};

/// A line of the host's network usage slices (host/data/host_network.data.slice_<n>,
/// text): per sample "time <ns>" (the host clock), then the lines of
/// /proc/net/dev ("eth0: rxbytes rxpackets rxerrs ... txbytes(field 9)
/// txpackets txerrs ..."). A line of fewer than 12 fields (its headers) is `other`;
/// one of 12 or more whose counters are not integers is `bad_interface`.
struct HostNetLine {
  enum kind_t : std::uint8_t { other, time, interface, bad_interface } kind = other;
  std::uint64_t timestamp = 0;              ///< time: ns
  std::string name;                         ///< interface: the first field less its last character ("eth0:" → "eth0")
  std::int64_t rx_bytes = 0, tx_bytes = 0;  ///< interface: bytes received and sent so far
};

/// NIC sample (device file nic.data.<id>, text): after an optional header line
/// (one holding the word "rxPacket/s"), one line per sample: "<timestamp>:"
/// then bandwidth (MB/s), rxPacket/s, rxByte/s, rxPackets, rxBytes, rxErrors,
/// rxDropped, the same six of tx, and the port's funcId; a line of 13 values
/// has no funcId (0), one of 15 a last value that is not read.
struct NicSample {
  enum field { rx_packet_s, rx_byte_s, rx_packets, rx_bytes, rx_errors, rx_dropped,
               tx_packet_s, tx_byte_s, tx_packets, tx_bytes, tx_errors, tx_dropped, fields };
  double timestamp = 0;         ///< ns, as the reference reads it (a float)
  std::int64_t bandwidth = 0;   ///< the port's, MB/s
  double v[fields] = {};        ///< the counters, as reals (the reference's REAL columns)
  std::int64_t func_id = 0;
};

// ---------------------------------------------------------- L2 cache records --
/// L2 cache counters of one task (72 B, device file l2_cache.data.<id>): the
/// eight L2 PMU events sample.json's l2CacheTaskProfilingEvents lists, in its
/// order. Stream and task id are the raw 16-bit values.
struct L2CacheTask {
  std::uint16_t taskType = 0;
  std::uint16_t streamId = 0;
  std::uint16_t taskId = 0;
  std::uint16_t reserved = 0;
  std::uint64_t events[8] = {};
};
static_assert(sizeof(L2CacheTask) == 72 && offsetof(L2CacheTask, taskId) == 4 && offsetof(L2CacheTask, events) == 8,
              "L2CacheTask layout");
constexpr std::size_t l2_cache_size = sizeof(L2CacheTask);

/// SoC PMU counters of one task (80 B, device file socpmu.data.<id>): the
/// eight SMMU events of sample.json's npuEvents ("SMMU:..."), in its order.
/// dataType 2 is a task's TLB counters; 1 (HA) and 4 (page faults) share the
/// file. Chips 15 and 16 write SocPmuTaskV6 instead (same size).
struct SocPmuTask {
  std::uint8_t reserved[8] = {};
  std::uint16_t taskType = 0;
  std::uint16_t streamId = 0;
  std::uint16_t taskId = 0;
  std::uint16_t dataType = 0;
  std::uint64_t events[8] = {};
};
static_assert(sizeof(SocPmuTask) == 80 && offsetof(SocPmuTask, taskType) == 8 && offsetof(SocPmuTask, events) == 16,
              "SocPmuTask layout");
/// The layout of chips 15 and 16: a 32-bit task id, the data type first
/// (decode_soc_pmu gives either layout's record in this one).
struct SocPmuTaskV6 {
  std::uint8_t reserved[6] = {};
  std::uint16_t dataType = 0;
  std::uint16_t taskType = 0;
  std::uint16_t streamId = 0;
  std::uint32_t taskId = 0;
  std::uint64_t events[8] = {};
};
static_assert(sizeof(SocPmuTaskV6) == 80 && offsetof(SocPmuTaskV6, taskId) == 12 && offsetof(SocPmuTaskV6, events) == 16,
              "SocPmuTaskV6 layout");
constexpr std::size_t soc_pmu_size = sizeof(SocPmuTask);

#define MSPROF_DETAIL_F(T, m) detail::each_packed<decltype(T::m)>(x, offsetof(T, m), base, f)
template <class F> inline void fields_of(L2CacheTask& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(L2CacheTask, taskType); MSPROF_DETAIL_F(L2CacheTask, streamId);
  MSPROF_DETAIL_F(L2CacheTask, taskId); MSPROF_DETAIL_F(L2CacheTask, reserved);
  MSPROF_DETAIL_F(L2CacheTask, events);
}
template <class F> inline void fields_of(SocPmuTask& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(SocPmuTask, reserved); MSPROF_DETAIL_F(SocPmuTask, taskType);
  MSPROF_DETAIL_F(SocPmuTask, streamId); MSPROF_DETAIL_F(SocPmuTask, taskId);
  MSPROF_DETAIL_F(SocPmuTask, dataType); MSPROF_DETAIL_F(SocPmuTask, events);
}
template <class F> inline void fields_of(SocPmuTaskV6& x, F& f, std::size_t base) {
  MSPROF_DETAIL_F(SocPmuTaskV6, reserved); MSPROF_DETAIL_F(SocPmuTaskV6, dataType);
  MSPROF_DETAIL_F(SocPmuTaskV6, taskType); MSPROF_DETAIL_F(SocPmuTaskV6, streamId);
  MSPROF_DETAIL_F(SocPmuTaskV6, taskId); MSPROF_DETAIL_F(SocPmuTaskV6, events);
}
#undef MSPROF_DETAIL_F

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_FORMAT_HPP
