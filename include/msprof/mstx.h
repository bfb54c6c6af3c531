/* SPDX-License-Identifier: MIT */
/*
 * mstx C API with the exact names, types and signatures of Huawei CANN's
 * ms_tools_ext.h (C11 and C++17, standard library + POSIX dlopen only).
 *
 * Every API is `static inline` (never clashes with libms_tools_ext.so) and calls
 * through one versioned, link-once dispatch table. With no tool attached a call
 * costs one load and one branch. The first call initialises the table once
 * (thread-safe): if MSTX_INJECTION_PATH names a shared library it is dlopen'ed
 * and its `InitInjectionMstx(getModuleFuncTable)` fills the slots using the
 * open Ascend/mstx module/slot numbering, so CANN tools attach unchanged.
 * msprof's own collector attaches in-process through msprof_mstx_attach_v0_1().
 *
 * MSPROF_DISABLE: every function compiles to nothing (returns 0 / NULL).
 */
#ifndef MSPROF_MSTX_H
#define MSPROF_MSTX_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ constants */
#define MSTX_INVALID_ID 0
#define MSTX_SUCCESS 0
#define MSTX_FAIL 1
#define MSTX_TOOL_INVALID_ID 0x0
#define MSTX_TOOL_MSPROF_ID 0x1000
#define MSTX_TOOL_MSOPPROF_ID 0x1001
#define MSTX_TOOL_MSSANITIZER_ID 0x1002
#define MSTX_TOOL_MSLEAKS_ID 0x1003

#define MSTX_MEM_PERMISSIONS_NONE 0x00
#define MSTX_MEM_PERMISSIONS_READ 0x01
#define MSTX_MEM_PERMISSIONS_WRITE 0x02
#define MSTX_MEM_PERMISSIONS_SHARED 0x04

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- types */
typedef uint64_t mstxRangeId;
typedef void* aclrtStream; /* identical redefinition with acl_base.h is allowed */

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration_t;
typedef mstxDomainRegistration_t* mstxDomainHandle_t;

struct mstxMemHeap_st;
typedef struct mstxMemHeap_st mstxMemHeap_t;
typedef mstxMemHeap_t* mstxMemHeapHandle_t;

struct mstxMemRegion_st;
typedef struct mstxMemRegion_st mstxMemRegion_t;
typedef mstxMemRegion_t* mstxMemRegionHandle_t;

typedef struct mstxMemVirtualRangeDesc_t {
  uint32_t deviceId;
  void const* ptr;
  uint64_t size;
} mstxMemVirtualRangeDesc_t;

typedef enum mstxMemHeapUsageType {
  MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR = 0
} mstxMemHeapUsageType;

typedef enum mstxMemType { MSTX_MEM_TYPE_VIRTUAL_ADDRESS = 0 } mstxMemType;

typedef struct mstxMemHeapDesc_t {
  mstxMemHeapUsageType usage;
  mstxMemType type;
  void const* typeSpecificDesc;
} mstxMemHeapDesc_t;

typedef struct mstxMemRegionsRegisterBatch_t {
  mstxMemHeapHandle_t heap;
  mstxMemType regionType;
  size_t regionCount;
  void const* regionDescArray;
  mstxMemRegionHandle_t* regionHandleArrayOut;
} mstxMemRegionsRegisterBatch_t;

typedef enum mstxMemRegionRefType {
  MSTX_MEM_REGION_REF_TYPE_POINTER = 0,
  MSTX_MEM_REGION_REF_TYPE_HANDLE
} mstxMemRegionRefType;

typedef struct mstxMemRegionRef_t {
  mstxMemRegionRefType refType;
  union {
    void const* pointer;
    mstxMemRegionHandle_t handle;
  };
} mstxMemRegionRef_t;

typedef struct mstxMemRegionsUnregisterBatch_t {
  size_t refCount;
  mstxMemRegionRef_t const* refArray;
} mstxMemRegionsUnregisterBatch_t;

typedef struct mstxMemPermissionsAssignRegionsDesc_t {
  uint32_t flags;
  mstxMemRegionRef_t region;
} mstxMemPermissionsAssignRegionsDesc_t;

typedef struct mstxMemPermissionsAssignBatch_t {
  size_t regionCount;
  mstxMemPermissionsAssignRegionsDesc_t const* regionDescArray;
} mstxMemPermissionsAssignBatch_t;

/* The default domain of the memory APIs. */
static mstxDomainHandle_t const globalDomain = NULL;

/* ------------------------------------------------- injection protocol types */
typedef enum mstxFuncModule {
  MSTX_API_MODULE_INVALID = 0,
  MSTX_API_MODULE_CORE = 1,
  MSTX_API_MODULE_CORE_DOMAIN = 2,
  MSTX_API_MODULE_CORE_MEM = 3,
  MSTX_API_MODULE_SIZE,
  MSTX_API_MODULE_FORCE_INT = 0x7fffffff
} mstxFuncModule;

typedef void (*mstxFuncPointer)(void);
typedef mstxFuncPointer** mstxFuncTable;
typedef int (*mstxGetModuleFuncTableFunc)(mstxFuncModule module, mstxFuncTable* outTable,
                                          unsigned int* outSize);
typedef int (*mstxInitInjectionFunc)(mstxGetModuleFuncTableFunc getFuncTable);

/* msprof extension module (not in CANN; CANN tools never ask for it): the C++
 * layer's static-message fast path. Slot 1: mark with a static message,
 * slot 2: range start with a static message. Both take (domain, msg, len). */
#define MSPROF_MSTX_MODULE_EXT 0x4d50 /* 'MP' */

/* Slots 4-7 of that module: framework records as torch_npu's profiler keeps
 * them (FRAMEWORK/torch.op_range, torch.op_mark, torch.memory_usage), used by
 * <msprof/framework.hpp>. Slot 4 (uint64_t (*)(void)) returns the collector's
 * clock now, 0 while nothing collects; slot 5 takes a finished op (ended now,
 * on the calling thread), slot 6 a task-queue mark, slot 7 an allocator event.
 * Strings are (pointer, length) pairs, copied before the call returns. */
typedef struct msprof_fw_op_v0_1 {
  uint64_t start;       /* slot 4's clock at the op's start */
  int64_t seq;          /* sequence number, -1 for none */
  uint64_t fwd_tid;     /* forward thread id (backward ops), 0 for none */
  const char* name;
  size_t name_len;
  const char* dtypes;   /* empty: not recorded */
  size_t dtypes_len;
  const char* shapes;   /* empty: not recorded */
  size_t shapes_len;
  const char* stack;    /* empty: not recorded */
  size_t stack_len;
  uint8_t scope;        /* at::RecordScope */
  uint8_t is_async;
} msprof_fw_op_v0_1;

typedef struct msprof_fw_memory_v0_1 {
  int64_t ptr, alloc_size, total_allocated, total_reserved, total_active, stream_ptr;
  int8_t device_type, device_index;
  uint8_t component_type, data_type, allocator_type;
} msprof_fw_memory_v0_1;

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------ disabled: nothing */
#if defined(MSPROF_DISABLE)

#ifdef __cplusplus
extern "C" {
#endif
#define MSPROF_DETAIL_MSTX_UNUSED(x) (void)(x)
static inline void mstxMarkA(const char* message, aclrtStream stream) {
  MSPROF_DETAIL_MSTX_UNUSED(message); MSPROF_DETAIL_MSTX_UNUSED(stream);
}
static inline mstxRangeId mstxRangeStartA(const char* message, aclrtStream stream) {
  MSPROF_DETAIL_MSTX_UNUSED(message); MSPROF_DETAIL_MSTX_UNUSED(stream); return 0;
}
static inline void mstxRangeEnd(mstxRangeId id) { MSPROF_DETAIL_MSTX_UNUSED(id); }
static inline void mstxGetToolId(uint64_t* id) { if (id) *id = MSTX_TOOL_INVALID_ID; }
static inline mstxDomainHandle_t mstxDomainCreateA(const char* name) {
  MSPROF_DETAIL_MSTX_UNUSED(name); return NULL;
}
static inline void mstxDomainDestroy(mstxDomainHandle_t d) { MSPROF_DETAIL_MSTX_UNUSED(d); }
static inline void mstxDomainMarkA(mstxDomainHandle_t d, const char* message, aclrtStream stream) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(message); MSPROF_DETAIL_MSTX_UNUSED(stream);
}
static inline mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t d, const char* message, aclrtStream stream) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(message); MSPROF_DETAIL_MSTX_UNUSED(stream);
  return 0;
}
static inline void mstxDomainRangeEnd(mstxDomainHandle_t d, mstxRangeId id) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(id);
}
static inline mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t d, mstxMemHeapDesc_t const* desc) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(desc); return NULL;
}
static inline void mstxMemHeapUnregister(mstxDomainHandle_t d, mstxMemHeapHandle_t heap) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(heap);
}
static inline void mstxMemRegionsRegister(mstxDomainHandle_t d, mstxMemRegionsRegisterBatch_t const* desc) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(desc);
}
static inline void mstxMemRegionsUnregister(mstxDomainHandle_t d, mstxMemRegionsUnregisterBatch_t const* desc) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(desc);
}
static inline void mstxMemPermissionsAssign(mstxDomainHandle_t d, mstxMemPermissionsAssignBatch_t const* desc) {
  MSPROF_DETAIL_MSTX_UNUSED(d); MSPROF_DETAIL_MSTX_UNUSED(desc);
}
#ifdef __cplusplus
}
#endif

#else /* ---------------------------------------------------- enabled */

#include "detail/mstx_dispatch.h"

#endif /* MSPROF_DISABLE */

#endif /* MSPROF_MSTX_H */
