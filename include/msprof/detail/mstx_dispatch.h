/* SPDX-License-Identifier: MIT */
/*
 * The mstx dispatch table (internal; include <msprof/mstx.h>).
 *
 * One hidden weak global per shared object (C and C++ TUs share it because it
 * has C linkage), versioned by name. Every slot starts at an init trampoline;
 * the first call runs the init state machine (UNINITED -> INITIALIZING ->
 * COMPLETE | FAILED, others yield), which loads MSTX_INJECTION_PATH if set and
 * then publishes the final slots (tool functions or NULL) with release stores.
 * Afterwards a call is one acquire load (a plain load on x86) and one branch.
 *
 * fork(): the initialiser and the attach lock are claimed with the owner's
 * pid, so a child forked while another thread of its parent was initialising
 * (or attaching) never waits for a thread that does not exist in the child:
 * the child takes the init over as FAILED (no tool, calls are no-ops, one line
 * on stderr when a tool was configured) or takes the attach lock over.
 */
#ifndef MSPROF_DETAIL_MSTX_DISPATCH_H
#define MSPROF_DETAIL_MSTX_DISPATCH_H

#ifndef MSPROF_MSTX_H
#  error "Never include this file directly; include <msprof/mstx.h>."
#endif

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__GNUC__)
#  error "msprof/mstx.h needs GCC or Clang (weak hidden link-once globals)"
#endif

#define MSPROF_DETAIL_LINKONCE __attribute__((weak, visibility("hidden")))
#define MSPROF_DETAIL_LOAD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define MSPROF_DETAIL_STORE(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*msprof_mstx_markA_fn)(const char*, aclrtStream);
typedef mstxRangeId (*msprof_mstx_rangeStartA_fn)(const char*, aclrtStream);
typedef void (*msprof_mstx_rangeEnd_fn)(mstxRangeId);
typedef void (*msprof_mstx_getToolId_fn)(uint64_t*);
typedef mstxDomainHandle_t (*msprof_mstx_domainCreateA_fn)(const char*);
typedef void (*msprof_mstx_domainDestroy_fn)(mstxDomainHandle_t);
typedef void (*msprof_mstx_domainMarkA_fn)(mstxDomainHandle_t, const char*, aclrtStream);
typedef mstxRangeId (*msprof_mstx_domainRangeStartA_fn)(mstxDomainHandle_t, const char*, aclrtStream);
typedef void (*msprof_mstx_domainRangeEnd_fn)(mstxDomainHandle_t, mstxRangeId);
typedef mstxMemHeapHandle_t (*msprof_mstx_memHeapRegister_fn)(mstxDomainHandle_t, mstxMemHeapDesc_t const*);
typedef void (*msprof_mstx_memHeapUnregister_fn)(mstxDomainHandle_t, mstxMemHeapHandle_t);
typedef void (*msprof_mstx_memRegionsRegister_fn)(mstxDomainHandle_t, mstxMemRegionsRegisterBatch_t const*);
typedef void (*msprof_mstx_memRegionsUnregister_fn)(mstxDomainHandle_t, mstxMemRegionsUnregisterBatch_t const*);
typedef void (*msprof_mstx_memPermissionsAssign_fn)(mstxDomainHandle_t, mstxMemPermissionsAssignBatch_t const*);
/* msprof extension: (domain, static message, length) — the message outlives the program's use. */
typedef void (*msprof_mstx_extMarkStatic_fn)(mstxDomainHandle_t, const char*, size_t);
typedef mstxRangeId (*msprof_mstx_extRangeStartStatic_fn)(mstxDomainHandle_t, const char*, size_t);
/* msprof extension: the tool's domain handles are the addresses of slots of
 * `stride` bytes (a power of two) in [*base, *base + span); the first byte of
 * a slot is non-zero while that domain is filtered out. The dispatch asks once
 * per publish, so a filtered domain call returns without calling the tool and
 * without dereferencing a handle outside that array. */
typedef void (*msprof_mstx_extDomainQuietFlags_fn)(const unsigned char** base, size_t* span, size_t* stride);
/* msprof extension: framework records (see MSPROF_MSTX_MODULE_EXT in mstx.h). */
typedef uint64_t (*msprof_mstx_extFwNow_fn)(void);
typedef void (*msprof_mstx_extFwOp_fn)(const msprof_fw_op_v0_1*);
typedef void (*msprof_mstx_extFwMark_fn)(uint64_t category, uint64_t corr_id, const char* name, size_t len);
typedef void (*msprof_mstx_extFwMemory_fn)(const msprof_fw_memory_v0_1*);

/* Layout is versioned by the symbol name; append only within a version. */
struct msprof_mstx_context_v0_1 {
  int state;    /* 0 uninited, 1 initializing, 2 complete, 3 failed (no tool) */
  int injected; /* 1 when MSTX_INJECTION_PATH supplied the tool */
  int lock;     /* serialises attach/detach: 0 or the pid of the holder */
  msprof_mstx_markA_fn markA;
  msprof_mstx_rangeStartA_fn rangeStartA;
  msprof_mstx_rangeEnd_fn rangeEnd;
  msprof_mstx_getToolId_fn getToolId;
  msprof_mstx_domainCreateA_fn domainCreateA;
  msprof_mstx_domainDestroy_fn domainDestroy;
  msprof_mstx_domainMarkA_fn domainMarkA;
  msprof_mstx_domainRangeStartA_fn domainRangeStartA;
  msprof_mstx_domainRangeEnd_fn domainRangeEnd;
  msprof_mstx_memHeapRegister_fn memHeapRegister;
  msprof_mstx_memHeapUnregister_fn memHeapUnregister;
  msprof_mstx_memRegionsRegister_fn memRegionsRegister;
  msprof_mstx_memRegionsUnregister_fn memRegionsUnregister;
  msprof_mstx_memPermissionsAssign_fn memPermissionsAssign;
  msprof_mstx_extMarkStatic_fn extMarkStatic;
  msprof_mstx_extRangeStartStatic_fn extRangeStartStatic;
  msprof_mstx_extDomainQuietFlags_fn extDomainQuietFlags;
  /* From extDomainQuietFlags at publish time (all 0 without it). */
  const unsigned char* quietBase;
  size_t quietSpan;
  size_t quietMask; /* stride - 1 */
  int initPid;      /* pid of the process whose thread claimed the init (0: unclaimed) */
  msprof_mstx_extFwNow_fn extFwNow;
  msprof_mstx_extFwOp_fn extFwOp;
  msprof_mstx_extFwMark_fn extFwMark;
  msprof_mstx_extFwMemory_fn extFwMemory;
};

/* ------------------------------------------------------------ trampolines */
static void msprof_mstx_init_once_v0_1(void);
static void msprof_mstx_markA_init(const char* m, aclrtStream s);
static mstxRangeId msprof_mstx_rangeStartA_init(const char* m, aclrtStream s);
static void msprof_mstx_rangeEnd_init(mstxRangeId id);
static void msprof_mstx_getToolId_init(uint64_t* id);
static mstxDomainHandle_t msprof_mstx_domainCreateA_init(const char* n);
static void msprof_mstx_domainDestroy_init(mstxDomainHandle_t d);
static void msprof_mstx_domainMarkA_init(mstxDomainHandle_t d, const char* m, aclrtStream s);
static mstxRangeId msprof_mstx_domainRangeStartA_init(mstxDomainHandle_t d, const char* m, aclrtStream s);
static void msprof_mstx_domainRangeEnd_init(mstxDomainHandle_t d, mstxRangeId id);
static mstxMemHeapHandle_t msprof_mstx_memHeapRegister_init(mstxDomainHandle_t d, mstxMemHeapDesc_t const* x);
static void msprof_mstx_memHeapUnregister_init(mstxDomainHandle_t d, mstxMemHeapHandle_t h);
static void msprof_mstx_memRegionsRegister_init(mstxDomainHandle_t d, mstxMemRegionsRegisterBatch_t const* x);
static void msprof_mstx_memRegionsUnregister_init(mstxDomainHandle_t d, mstxMemRegionsUnregisterBatch_t const* x);
static void msprof_mstx_memPermissionsAssign_init(mstxDomainHandle_t d, mstxMemPermissionsAssignBatch_t const* x);
static void msprof_mstx_extMarkStatic_init(mstxDomainHandle_t d, const char* m, size_t n);
static mstxRangeId msprof_mstx_extRangeStartStatic_init(mstxDomainHandle_t d, const char* m, size_t n);
static uint64_t msprof_mstx_extFwNow_init(void);
static void msprof_mstx_extFwOp_init(const msprof_fw_op_v0_1* op);
static void msprof_mstx_extFwMark_init(uint64_t category, uint64_t corr_id, const char* name, size_t len);
static void msprof_mstx_extFwMemory_init(const msprof_fw_memory_v0_1* m);

MSPROF_DETAIL_LINKONCE struct msprof_mstx_context_v0_1 msprof_mstx_context_v0_1 = {
    0, 0, 0,
    msprof_mstx_markA_init, msprof_mstx_rangeStartA_init, msprof_mstx_rangeEnd_init,
    msprof_mstx_getToolId_init, msprof_mstx_domainCreateA_init, msprof_mstx_domainDestroy_init,
    msprof_mstx_domainMarkA_init, msprof_mstx_domainRangeStartA_init, msprof_mstx_domainRangeEnd_init,
    msprof_mstx_memHeapRegister_init, msprof_mstx_memHeapUnregister_init,
    msprof_mstx_memRegionsRegister_init, msprof_mstx_memRegionsUnregister_init,
    msprof_mstx_memPermissionsAssign_init, msprof_mstx_extMarkStatic_init,
    msprof_mstx_extRangeStartStatic_init, NULL, NULL, 0, 0, 0,
    msprof_mstx_extFwNow_init, msprof_mstx_extFwOp_init, msprof_mstx_extFwMark_init,
    msprof_mstx_extFwMemory_init};

/* The table a tool writes into during InitInjectionMstx / attach (init owns it). */
MSPROF_DETAIL_LINKONCE struct msprof_mstx_context_v0_1 msprof_mstx_staging_v0_1;

#define MSPROF_DETAIL_CTX msprof_mstx_context_v0_1
#define MSPROF_DETAIL_SLOT(field) ((mstxFuncPointer*)&msprof_mstx_staging_v0_1.field)

/* getModuleFuncTable of the open Ascend/mstx protocol: slot 0 and the last slot
 * are NULL, *outSize = number of slots - 1 (a tool must check it). */
static int msprof_mstx_get_module_func_table_v0_1(mstxFuncModule module, mstxFuncTable* outTable,
                                                  unsigned int* outSize) {
  static mstxFuncPointer* core[6];
  static mstxFuncPointer* domain[7];
  static mstxFuncPointer* mem[7];
  static mstxFuncPointer* ext[9];
  mstxFuncPointer** table = NULL;
  unsigned int size = 0;
  if (outTable == NULL || outSize == NULL) return MSTX_FAIL;
  switch ((int)module) {
    case MSTX_API_MODULE_CORE:
      core[1] = MSPROF_DETAIL_SLOT(markA);
      core[2] = MSPROF_DETAIL_SLOT(rangeStartA);
      core[3] = MSPROF_DETAIL_SLOT(rangeEnd);
      core[4] = MSPROF_DETAIL_SLOT(getToolId);
      table = core; size = 5; break;
    case MSTX_API_MODULE_CORE_DOMAIN:
      domain[1] = MSPROF_DETAIL_SLOT(domainCreateA);
      domain[2] = MSPROF_DETAIL_SLOT(domainDestroy);
      domain[3] = MSPROF_DETAIL_SLOT(domainMarkA);
      domain[4] = MSPROF_DETAIL_SLOT(domainRangeStartA);
      domain[5] = MSPROF_DETAIL_SLOT(domainRangeEnd);
      table = domain; size = 6; break;
    case MSTX_API_MODULE_CORE_MEM:
      mem[1] = MSPROF_DETAIL_SLOT(memHeapRegister);
      mem[2] = MSPROF_DETAIL_SLOT(memHeapUnregister);
      mem[3] = MSPROF_DETAIL_SLOT(memRegionsRegister);
      mem[4] = MSPROF_DETAIL_SLOT(memRegionsUnregister);
      mem[5] = MSPROF_DETAIL_SLOT(memPermissionsAssign);
      table = mem; size = 6; break;
    case MSPROF_MSTX_MODULE_EXT:
      ext[1] = MSPROF_DETAIL_SLOT(extMarkStatic);
      ext[2] = MSPROF_DETAIL_SLOT(extRangeStartStatic);
      ext[3] = MSPROF_DETAIL_SLOT(extDomainQuietFlags);
      ext[4] = MSPROF_DETAIL_SLOT(extFwNow);
      ext[5] = MSPROF_DETAIL_SLOT(extFwOp);
      ext[6] = MSPROF_DETAIL_SLOT(extFwMark);
      ext[7] = MSPROF_DETAIL_SLOT(extFwMemory);
      table = ext; size = 8; break;
    default: return MSTX_FAIL;
  }
  *outTable = table;
  *outSize = size;
  return MSTX_SUCCESS;
}

static void msprof_mstx_clear_staging_v0_1(void) {
  struct msprof_mstx_context_v0_1* s = &msprof_mstx_staging_v0_1;
  s->markA = NULL; s->rangeStartA = NULL; s->rangeEnd = NULL; s->getToolId = NULL;
  s->domainCreateA = NULL; s->domainDestroy = NULL; s->domainMarkA = NULL;
  s->domainRangeStartA = NULL; s->domainRangeEnd = NULL; s->memHeapRegister = NULL;
  s->memHeapUnregister = NULL; s->memRegionsRegister = NULL; s->memRegionsUnregister = NULL;
  s->memPermissionsAssign = NULL; s->extMarkStatic = NULL; s->extRangeStartStatic = NULL;
  s->extDomainQuietFlags = NULL; s->extFwNow = NULL; s->extFwOp = NULL; s->extFwMark = NULL;
  s->extFwMemory = NULL;
}

static void msprof_mstx_publish_v0_1(void) {
  struct msprof_mstx_context_v0_1* s = &msprof_mstx_staging_v0_1;
  struct msprof_mstx_context_v0_1* c = &MSPROF_DETAIL_CTX;
  MSPROF_DETAIL_STORE(c->markA, s->markA);
  MSPROF_DETAIL_STORE(c->rangeStartA, s->rangeStartA);
  MSPROF_DETAIL_STORE(c->rangeEnd, s->rangeEnd);
  MSPROF_DETAIL_STORE(c->getToolId, s->getToolId);
  MSPROF_DETAIL_STORE(c->domainCreateA, s->domainCreateA);
  MSPROF_DETAIL_STORE(c->domainDestroy, s->domainDestroy);
  MSPROF_DETAIL_STORE(c->domainMarkA, s->domainMarkA);
  MSPROF_DETAIL_STORE(c->domainRangeStartA, s->domainRangeStartA);
  MSPROF_DETAIL_STORE(c->domainRangeEnd, s->domainRangeEnd);
  MSPROF_DETAIL_STORE(c->memHeapRegister, s->memHeapRegister);
  MSPROF_DETAIL_STORE(c->memHeapUnregister, s->memHeapUnregister);
  MSPROF_DETAIL_STORE(c->memRegionsRegister, s->memRegionsRegister);
  MSPROF_DETAIL_STORE(c->memRegionsUnregister, s->memRegionsUnregister);
  MSPROF_DETAIL_STORE(c->memPermissionsAssign, s->memPermissionsAssign);
  MSPROF_DETAIL_STORE(c->extMarkStatic, s->extMarkStatic);
  MSPROF_DETAIL_STORE(c->extRangeStartStatic, s->extRangeStartStatic);
  MSPROF_DETAIL_STORE(c->extFwNow, s->extFwNow);
  MSPROF_DETAIL_STORE(c->extFwOp, s->extFwOp);
  MSPROF_DETAIL_STORE(c->extFwMark, s->extFwMark);
  MSPROF_DETAIL_STORE(c->extFwMemory, s->extFwMemory);
  {
    const unsigned char* base = NULL;
    size_t span = 0, stride = 1;
    if (s->extDomainQuietFlags) s->extDomainQuietFlags(&base, &span, &stride);
    if (stride == 0 || (stride & (stride - 1)) != 0) span = 0; /* not a power of two: never skip */
    MSPROF_DETAIL_STORE(c->quietSpan, (size_t)0); /* no window while base changes */
    MSPROF_DETAIL_STORE(c->quietBase, base);
    MSPROF_DETAIL_STORE(c->quietMask, stride - 1);
    MSPROF_DETAIL_STORE(c->quietSpan, span);
  }
}

/* A fork()ed child whose parent was initialising: that thread does not exist
 * here, so the child publishes no tool (its calls are no-ops) and says so. */
static void msprof_mstx_init_in_forked_child_v0_1(void) {
  static const char note[] =
      "[msprof mstx] fork() during mstx initialisation in the parent: this child records no mstx events\n";
  const char* path = getenv("MSTX_INJECTION_PATH");
  msprof_mstx_clear_staging_v0_1();
  MSPROF_DETAIL_STORE(MSPROF_DETAIL_CTX.injected, 0);
  msprof_mstx_publish_v0_1();
  MSPROF_DETAIL_STORE(MSPROF_DETAIL_CTX.state, 3);
  if (path != NULL && path[0] != '\0') {
    ssize_t w = write(2, note, sizeof note - 1);
    (void)w;
  }
}

static void msprof_mstx_init_once_v0_1(void) {
  int owner = 0, me;
  if (MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.state) >= 2) return;
  me = (int)getpid();
  if (__atomic_compare_exchange_n(&MSPROF_DETAIL_CTX.initPid, &owner, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    int ok = 0;
    const char* path = getenv("MSTX_INJECTION_PATH");
    MSPROF_DETAIL_STORE(MSPROF_DETAIL_CTX.state, 1);
    msprof_mstx_clear_staging_v0_1();
    if (path != NULL && path[0] != '\0') {
      void* handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
      if (handle != NULL) {
        void* sym = dlsym(handle, "InitInjectionMstx");
        mstxInitInjectionFunc init = NULL;
        memcpy(&init, &sym, sizeof init); /* object -> function pointer without a pedantic cast */
        if (init != NULL && init(msprof_mstx_get_module_func_table_v0_1) == MSTX_SUCCESS) ok = 1;
      }
    }
    if (!ok) msprof_mstx_clear_staging_v0_1(); /* a failed tool leaves no half-filled table */
    MSPROF_DETAIL_STORE(MSPROF_DETAIL_CTX.injected, ok);
    msprof_mstx_publish_v0_1();
    MSPROF_DETAIL_STORE(MSPROF_DETAIL_CTX.state, ok ? 2 : 3);
    return;
  }
  while (MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.state) < 2) {
    owner = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.initPid);
    if (owner != me) { /* claimed in the parent before fork(): take it over, once */
      if (__atomic_compare_exchange_n(&MSPROF_DETAIL_CTX.initPid, &owner, me, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE))
        msprof_mstx_init_in_forked_child_v0_1();
      continue;
    }
    sched_yield();
  }
}

static void msprof_mstx_lock_v0_1(void) {
  const int me = (int)getpid();
  for (;;) {
    int held = 0;
    if (__atomic_compare_exchange_n(&MSPROF_DETAIL_CTX.lock, &held, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    /* Held by a thread of the parent at fork(): it never unlocks in this process. */
    if (held != me &&
        __atomic_compare_exchange_n(&MSPROF_DETAIL_CTX.lock, &held, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    sched_yield();
  }
}
static void msprof_mstx_unlock_v0_1(void) { __atomic_store_n(&MSPROF_DETAIL_CTX.lock, 0, __ATOMIC_RELEASE); }

/* In-process attach (msprof's collector under MSPROF_IMPLEMENT): `init` fills the
 * table exactly like InitInjectionMstx does. A tool loaded from
 * MSTX_INJECTION_PATH keeps priority: attach then fails (returns MSTX_FAIL). */
static inline int msprof_mstx_attach_v0_1(mstxInitInjectionFunc init) {
  int rc = MSTX_FAIL;
  if (init == NULL) return MSTX_FAIL;
  msprof_mstx_init_once_v0_1();
  msprof_mstx_lock_v0_1();
  if (!MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.injected)) {
    msprof_mstx_clear_staging_v0_1();
    rc = init(msprof_mstx_get_module_func_table_v0_1);
    if (rc != MSTX_SUCCESS) msprof_mstx_clear_staging_v0_1();
    msprof_mstx_publish_v0_1();
  }
  msprof_mstx_unlock_v0_1();
  return rc;
}

/* Undo an in-process attach: every slot becomes NULL (calls are no-ops again). */
static inline void msprof_mstx_detach_v0_1(void) {
  msprof_mstx_init_once_v0_1();
  msprof_mstx_lock_v0_1();
  if (!MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.injected)) {
    msprof_mstx_clear_staging_v0_1();
    msprof_mstx_publish_v0_1();
  }
  msprof_mstx_unlock_v0_1();
}

/* The trampolines: initialise, then forward to whatever was published. */
#define MSPROF_DETAIL_TRAMP_VOID(field, params, args) \
  static void msprof_mstx_##field##_init params {     \
    msprof_mstx_##field##_fn f;                        \
    msprof_mstx_init_once_v0_1();                      \
    f = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.field);   \
    if (f) f args;                                     \
  }
#define MSPROF_DETAIL_TRAMP_RET(ret, field, params, args) \
  static ret msprof_mstx_##field##_init params {          \
    msprof_mstx_##field##_fn f;                            \
    msprof_mstx_init_once_v0_1();                          \
    f = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.field);       \
    return f ? f args : 0;                                 \
  }

MSPROF_DETAIL_TRAMP_VOID(markA, (const char* m, aclrtStream s), (m, s))
MSPROF_DETAIL_TRAMP_RET(mstxRangeId, rangeStartA, (const char* m, aclrtStream s), (m, s))
MSPROF_DETAIL_TRAMP_VOID(rangeEnd, (mstxRangeId id), (id))
static void msprof_mstx_getToolId_init(uint64_t* id) {
  msprof_mstx_getToolId_fn f;
  msprof_mstx_init_once_v0_1();
  f = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.getToolId);
  if (f) f(id);
  else if (id) *id = MSTX_TOOL_INVALID_ID;
}
MSPROF_DETAIL_TRAMP_RET(mstxDomainHandle_t, domainCreateA, (const char* n), (n))
MSPROF_DETAIL_TRAMP_VOID(domainDestroy, (mstxDomainHandle_t d), (d))
MSPROF_DETAIL_TRAMP_VOID(domainMarkA, (mstxDomainHandle_t d, const char* m, aclrtStream s), (d, m, s))
MSPROF_DETAIL_TRAMP_RET(mstxRangeId, domainRangeStartA, (mstxDomainHandle_t d, const char* m, aclrtStream s), (d, m, s))
MSPROF_DETAIL_TRAMP_VOID(domainRangeEnd, (mstxDomainHandle_t d, mstxRangeId id), (d, id))
MSPROF_DETAIL_TRAMP_RET(mstxMemHeapHandle_t, memHeapRegister, (mstxDomainHandle_t d, mstxMemHeapDesc_t const* x), (d, x))
MSPROF_DETAIL_TRAMP_VOID(memHeapUnregister, (mstxDomainHandle_t d, mstxMemHeapHandle_t h), (d, h))
MSPROF_DETAIL_TRAMP_VOID(memRegionsRegister, (mstxDomainHandle_t d, mstxMemRegionsRegisterBatch_t const* x), (d, x))
MSPROF_DETAIL_TRAMP_VOID(memRegionsUnregister, (mstxDomainHandle_t d, mstxMemRegionsUnregisterBatch_t const* x), (d, x))
MSPROF_DETAIL_TRAMP_VOID(memPermissionsAssign, (mstxDomainHandle_t d, mstxMemPermissionsAssignBatch_t const* x), (d, x))
MSPROF_DETAIL_TRAMP_VOID(extMarkStatic, (mstxDomainHandle_t d, const char* m, size_t n), (d, m, n))
MSPROF_DETAIL_TRAMP_RET(mstxRangeId, extRangeStartStatic, (mstxDomainHandle_t d, const char* m, size_t n), (d, m, n))
MSPROF_DETAIL_TRAMP_RET(uint64_t, extFwNow, (void), ())
MSPROF_DETAIL_TRAMP_VOID(extFwOp, (const msprof_fw_op_v0_1* op), (op))
MSPROF_DETAIL_TRAMP_VOID(extFwMark, (uint64_t category, uint64_t corr_id, const char* name, size_t len),
                         (category, corr_id, name, len))
MSPROF_DETAIL_TRAMP_VOID(extFwMemory, (const msprof_fw_memory_v0_1* m), (m))

/* ----------------------------------------------------------- the CANN API */
/* Where the attached tool keeps the "filtered out" byte of domain `d`, or NULL
 * when `d` is not one of its domains (see extDomainQuietFlags). */
static inline const unsigned char* msprof_mstx_quiet_byte_v0_1(mstxDomainHandle_t d) {
  size_t off = (size_t)((uintptr_t)d - (uintptr_t)__atomic_load_n(&MSPROF_DETAIL_CTX.quietBase, __ATOMIC_RELAXED));
  if (off < __atomic_load_n(&MSPROF_DETAIL_CTX.quietSpan, __ATOMIC_RELAXED) &&
      (off & __atomic_load_n(&MSPROF_DETAIL_CTX.quietMask, __ATOMIC_RELAXED)) == 0)
    return (const unsigned char*)d;
  return NULL;
}
/* 1 when `d` is one of the attached tool's domains and that domain is filtered
 * out: a few loads, no call. */
static inline int msprof_mstx_domain_quiet_v0_1(mstxDomainHandle_t d) {
  const unsigned char* q = msprof_mstx_quiet_byte_v0_1(d);
  return q != NULL && __atomic_load_n(q, __ATOMIC_RELAXED) != 0;
}

#define MSPROF_DETAIL_CALL_VOID(field, args)                                   \
  do {                                                                         \
    msprof_mstx_##field##_fn f_ = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.field); \
    if (f_) f_ args;                                                           \
  } while (0)
#define MSPROF_DETAIL_CALL_RET(field, args)                                    \
  do {                                                                         \
    msprof_mstx_##field##_fn f_ = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.field); \
    return f_ ? f_ args : 0;                                                   \
  } while (0)

static inline void mstxMarkA(const char* message, aclrtStream stream) {
  MSPROF_DETAIL_CALL_VOID(markA, (message, stream));
}
static inline mstxRangeId mstxRangeStartA(const char* message, aclrtStream stream) {
  MSPROF_DETAIL_CALL_RET(rangeStartA, (message, stream));
}
static inline void mstxRangeEnd(mstxRangeId id) { MSPROF_DETAIL_CALL_VOID(rangeEnd, (id)); }
static inline void mstxGetToolId(uint64_t* id) {
  msprof_mstx_getToolId_fn f = MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.getToolId);
  if (f) f(id);
  else if (id) *id = MSTX_TOOL_INVALID_ID;
}
static inline mstxDomainHandle_t mstxDomainCreateA(const char* name) {
  MSPROF_DETAIL_CALL_RET(domainCreateA, (name));
}
static inline void mstxDomainDestroy(mstxDomainHandle_t domain) {
  MSPROF_DETAIL_CALL_VOID(domainDestroy, (domain));
}
static inline void mstxDomainMarkA(mstxDomainHandle_t domain, const char* message, aclrtStream stream) {
  if (msprof_mstx_domain_quiet_v0_1(domain)) return;
  MSPROF_DETAIL_CALL_VOID(domainMarkA, (domain, message, stream));
}
static inline mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char* message,
                                                aclrtStream stream) {
  if (msprof_mstx_domain_quiet_v0_1(domain)) return 0;
  MSPROF_DETAIL_CALL_RET(domainRangeStartA, (domain, message, stream));
}
static inline void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id) {
  MSPROF_DETAIL_CALL_VOID(domainRangeEnd, (domain, id));
}
static inline mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t domain, mstxMemHeapDesc_t const* desc) {
  MSPROF_DETAIL_CALL_RET(memHeapRegister, (domain, desc));
}
static inline void mstxMemHeapUnregister(mstxDomainHandle_t domain, mstxMemHeapHandle_t heap) {
  MSPROF_DETAIL_CALL_VOID(memHeapUnregister, (domain, heap));
}
static inline void mstxMemRegionsRegister(mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const* desc) {
  MSPROF_DETAIL_CALL_VOID(memRegionsRegister, (domain, desc));
}
static inline void mstxMemRegionsUnregister(mstxDomainHandle_t domain,
                                            mstxMemRegionsUnregisterBatch_t const* desc) {
  MSPROF_DETAIL_CALL_VOID(memRegionsUnregister, (domain, desc));
}
static inline void mstxMemPermissionsAssign(mstxDomainHandle_t domain,
                                            mstxMemPermissionsAssignBatch_t const* desc) {
  MSPROF_DETAIL_CALL_VOID(memPermissionsAssign, (domain, desc));
}

/* msprof extension used by <msprof/mstx.hpp>: NULL unless msprof's collector is attached. */
static inline int msprof_mstx_has_static_path_v0_1(void) {
  return MSPROF_DETAIL_LOAD(MSPROF_DETAIL_CTX.extMarkStatic) != NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* MSPROF_DETAIL_MSTX_DISPATCH_H */
