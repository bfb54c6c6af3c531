// SPDX-License-Identifier: MIT
// The converter model's lookups and display names (convert/model.hpp).
#include "msprof/convert/model.hpp"

#include <cstdint>
#include <string>

MSPROF_BEGIN_NAMESPACE
namespace convert {

const device_spec* model::device(std::uint32_t id) const noexcept {
  for (const auto& d : session.devices)
    if (d.id == id) return &d;
  return nullptr;
}

/// Display names -------------------------------------------------------------

/// Lower-case level name used in args/api_statistic ("acl", "node", ...).
const char* level_name(std::uint16_t lv) noexcept {
  switch (lv) {
    case 30000: return "pytorch";
    case 25000: return "pta";
    case 20500: return "msproftx";
    case 20000: return "acl";
    case 15000: return "model";
    case 10000: return "node";
    case 5500: return "communication";
    case 5000: return "runtime";
    default: return "unknown";
  }
}

/// Timeline layer prefix ("AscendCL@...").
const char* layer_name(std::uint16_t lv) noexcept {
  switch (lv) {
    case 20000: return "AscendCL";
    case 15000: return "Model";
    case 10000: return "Node";
    case 5500: return "Communication";
    case 5000: return "Runtime";
    default: return "Unknown";
  }
}

/// ACL API group (type >> 16) shown as "Mode".
const char* acl_group_name(std::uint32_t type) noexcept {
  switch (type >> 16) {
    case 0x01: return "ACL_OP";
    case 0x02: return "ACL_MODEL";
    case 0x03: return "ACL_RTS";
    case 0x04: return "ACL_OTHERS";
    case 0x05: return "ACL_NN";
    case 0x06: return "ACL_ASCENDC";
    case 0x07: return "HOST_HCCL";
    case 0x09: return "ACL_DVPP";
    case 0x0A: return "ACL_GRAPH";
    case 0x0B: return "ACL_ATB";
    case 0x0C: return "HIXL";
    default: return "ACL_OTHERS";
  }
}

/// GE task type name (node_basic_info.taskType).
std::string ge_task_type_name(std::uint32_t t) {
  switch (t) {
    case 0: return "AI_CORE";
    case 1: return "AI_CPU";
    case 2: return "AI_VECTOR_CORE";
    case 3: return "WRITE_BACK";
    case 4: return "MIX_AIC";
    case 5: return "MIX_AIV";
    case 6: return "FFTS_PLUS";
    case 7: return "DSA_SQE";
    case 8: return "DVPP";
    case 9: return "COMMUNICATION";
    case 10: return "FUSION";
    case 11: return "INVALID";
    case 256: return "HCCL_AI_CPU";
    default: return "UNKNOWN";
  }
}

/// STARS SQE type name (the reference's ACSQ task type table).
std::string sqe_type_name(std::uint16_t t) {
  static const char* const names[] = {
      "AI_CORE",         "AI_CPU",     "AIV_SQE",    "PLACE_HOLDER_SQE", "EVENT_RECORD_SQE", "EVENT_WAIT_SQE",
      "NOTIFY_RECORD_SQE", "NOTIFY_WAIT_SQE", "WRITE_VALUE_SQE", "VQ6_SQE", "TOF_SQE", "SDMA_SQE",
      "VPC_SQE",         "JPEGE_SQE",  "JPEGD_SQE",  "DSA_SQE",          "ROCCE_SQE",        "PCIE_DMA_SQE",
      "HOST_CPU_SQE",    "CDQM_SQE",   "C_CORE_SQE"};
  if (t < sizeof(names) / sizeof(names[0])) return names[t];
  return "UNKNOWN";
}

/// ENUM_MEMCPY_OPERATION name.
const char* memcpy_operation_name(std::uint16_t op) noexcept {
  static const char* const names[] = {"host to host",      "host to device",   "device to host",
                                      "device to device",  "managed memory",   "addr device to device",
                                      "host to device ex", "device to host ex"};
  return op < sizeof(names) / sizeof(names[0]) ? names[op] : "other";
}

/// GE data type name.
std::string data_type_name(std::uint32_t t) {
  static const char* const names[] = {
      "FLOAT",  "FLOAT16", "INT8",   "INT32",  "UINT8",  "UNDEFINED", "INT16",     "UINT16",
      "UINT32", "INT64",   "UINT64", "DOUBLE", "BOOL",   "STRING",    "DUAL_SUB_INT8", "DUAL_SUB_UINT8",
      "COMPLEX64", "COMPLEX128", "QINT8", "QINT16", "QINT32", "QUINT8", "QUINT16", "RESOURCE",
      "STRING_REF", "DUAL", "VARIANT", "DT_BF16", "DT_UNDEFINED", "DT_INT4", "DT_UINT1", "DT_INT2",
      "DT_UINT2", "DT_COMPLEX32", "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0"};
  if (t < sizeof(names) / sizeof(names[0])) return names[t];
  if (t == 0xFFFFFFFFu) return "UNDEFINED";
  return "UNKNOWN";
}

/// GE format name.
std::string format_name(std::uint32_t f) {
  static const char* const names[] = {
      "NCHW",        "NHWC",         "ND",          "NC1HWC0",        "FRACTAL_Z",   "NC1C0HWPAD",
      "NHWC1C0",     "FSR_NCHW",     "FRACTAL_DECONV", "C1HWNC0",     "FRACTAL_DECONV_TRANSPOSE",
      "FRACTAL_DECONV_SP_STRIDE_TRANS", "NC1HWC0_C04", "FRACTAL_Z_C04", "CHWN", "FRACTAL_DECONV_SP_STRIDE8_TRANS",
      "HWCN",        "NC1KHKWHWC0",  "BN_WEIGHT",   "FILTER_HWCK",    "HASHTABLE_LOOKUP_LOOKUPS",
      "HASHTABLE_LOOKUP_KEYS", "HASHTABLE_LOOKUP_VALUE", "HASHTABLE_LOOKUP_OUTPUT", "HASHTABLE_LOOKUP_HITS",
      "C1HWNCoC0",   "MD",           "NDHWC",       "FRACTAL_ZZ",     "FRACTAL_NZ",  "NCDHW",
      "DHWCN",       "NDC1HWC0",     "FRACTAL_Z_3D", "CN",            "NC",          "DHWNC",
      "FRACTAL_Z_3D_TRANSPOSE", "FRACTAL_ZN_LSTM", "FRACTAL_Z_G", "RESERVED", "ALL", "NULL"};
  if (f < sizeof(names) / sizeof(names[0])) return names[f];
  return "UNKNOWN";
}

/// NPU_INFO chip name from info.json platform_version.
std::string chip_name(const std::string& v) {
  if (v == "0") return "Ascend310";
  if (v == "1") return "Ascend910A";
  if (v == "4") return "Ascend310P";
  if (v == "5") return "Ascend910B";
  if (v == "7") return "Ascend310B";
  if (v == "15") return "Ascend950";
  return "UNKNOWN";
}

}  // namespace convert
MSPROF_END_NAMESPACE
