// SPDX-License-Identifier: MIT
// The mstx tool core: every rule of the mstx API as msprof implements it, in
// front of a compile-time Recorder (see event.hpp), and c_api, which fills the mstx
// C function table with it.
//
// - ids: one process-wide counter starting at 1, shared by marks and ranges.
//   Threads take blocks of ids from it (one RMW per block, not per event), so a
//   single thread sees 1, 2, 3, ... and ids are unique process-wide.
// - range start returns 0 when the message/domain is rejected, the domain is
//   filtered out, or nothing is collecting; range end with id 0 is ignored.
// - messages: NULL, empty, leading = + - @ are rejected; a message starting
//   with `{` has every `\` stripped first; the result must be < 156 bytes.
// - domains: "default" is refused (NULL), the same name returns the same
//   handle, a destroyed handle records nothing (counted), unknown handles are
//   rejected without being dereferenced.
// - runtime include/exclude filter by name ("default" = default domain); both
//   given -> include wins and a warning is reported.
// - range/domain match and cross-thread ends are checked where ranges are
//   paired (collect/range_pairer.hpp), off the hot path.
// Nothing here throws or reports errors to the instrumented program.
#ifndef MSPROF_INSTRUMENT_TOOL_CORE_HPP
#define MSPROF_INSTRUMENT_TOOL_CORE_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../core/abi.hpp"
#include "../core/platform.hpp"
#include "../mstx.h"
#include "event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace instrument {

inline constexpr std::size_t max_message_bytes = 156;  // strnlen == 156 is rejected
inline constexpr std::size_t max_domain_name_bytes = 1024;
inline constexpr std::uint32_t max_domains = 4096;     // index fits the u16 in ring records
inline constexpr std::uint64_t id_block = 1024;

namespace detail {
// Empty, or a first character that makes a spreadsheet run the CSV cell as a
// formula (TAB and CR too: some spreadsheets skip them and read the rest).
MSPROF_INLINE bool bad_first_char(char c) noexcept {
  return c == '\0' || c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}
}  // namespace detail

// A thread's block of ids (see tool_core::next_id).
struct id_cache {
  std::uint64_t next = 0;
  std::uint64_t end = 0;
};
namespace detail {
template <class R, class = void>
struct has_ids : std::false_type {};
template <class R>
struct has_ids<R, std::void_t<decltype(R::ids())>> : std::true_type {};
}  // namespace detail

// Result of the runtime filter setup, for the caller to log.
struct filter_status {
  bool include_wins_warning = false;  // both lists were given; exclude was ignored
};

template <class Recorder>
class tool_core {
 public:
  // ------------------------------------------------------------- messages
  // Validates `m` into `out`; `buf` (max_message_bytes) receives `{`-messages.
  static bool validate_message(const char* m, bool is_static, message& out, char* buf) noexcept {
    if (m == nullptr || detail::bad_first_char(m[0])) return false;
    if (m[0] == '{') {
      std::size_t n = 0;
      for (const char* p = m; *p != '\0'; ++p) {
        if (*p == '\\') continue;
        if (n + 1 >= max_message_bytes) return false;
        buf[n++] = *p;
      }
      buf[n] = '\0';
      out = message{buf, static_cast<std::uint32_t>(n), false};
      return true;
    }
    std::size_t n = ::strnlen(m, max_message_bytes);
    if (n >= max_message_bytes) return false;
    out = message{m, static_cast<std::uint32_t>(n), is_static};
    return true;
  }

  // ------------------------------------------------------------------ ids
  MSPROF_INLINE static std::uint64_t next_id() noexcept {
    auto& t = tls_ids();
    if (MSPROF_UNLIKELY(t.next == t.end)) {
      t.next = next_block_.fetch_add(id_block, std::memory_order_relaxed);
      t.end = t.next + id_block;
    }
    return t.next++;
  }

  // -------------------------------------------------------------- domains
  // Handle <-> index without dereferencing foreign pointers.
  static mstxDomainHandle_t handle_of(std::uint32_t index) noexcept {
    return reinterpret_cast<mstxDomainHandle_t>(&domains_[index]);
  }
  // Returns false for NULL (default domain -> index 0 is a separate API) and
  // for pointers that are not one of our slots.
  static bool index_of(mstxDomainHandle_t h, std::uint32_t& index) noexcept {
    auto p = reinterpret_cast<std::uintptr_t>(h);
    auto b = reinterpret_cast<std::uintptr_t>(&domains_[0]);
    if (p <= b || p >= b + sizeof(domains_)) return false;
    if ((p - b) % sizeof(domain_slot) != 0) return false;
    index = static_cast<std::uint32_t>((p - b) / sizeof(domain_slot));
    return true;
  }

  static mstxDomainHandle_t domain_create(const char* name) noexcept {
    if (name == nullptr || detail::bad_first_char(name[0]) ||
        ::strnlen(name, max_domain_name_bytes) >= max_domain_name_bytes ||
        std::strcmp(name, "default") == 0) {
      reject(reject_reason::bad_domain_name);
      return nullptr;
    }
    try {
      std::lock_guard<std::mutex> lock(mutex());
      ensure_default_locked();
      auto& names = registry();
      auto it = names.find(name);
      if (it != names.end()) return handle_of(it->second);
      std::uint32_t n = domain_count_.load(std::memory_order_relaxed);
      if (n >= max_domains) {
        reject(reject_reason::registry_full);
        return nullptr;
      }
      auto& slot = domains_[n];
      slot.name = new char[std::strlen(name) + 1];  // lives as long as the process (records refer to it)
      std::strcpy(slot.name, name);
      slot.enabled.store(filter_allows_locked(name), std::memory_order_relaxed);
      slot.state.store(alive, std::memory_order_release);
      refresh_quiet(slot);
      names.emplace(name, n);
      domain_count_.store(n + 1, std::memory_order_release);
      Recorder::domain_registered(n, slot.name);
      return handle_of(n);
    } catch (...) {
      reject(reject_reason::registry_full);
      return nullptr;
    }
  }

  static void domain_destroy(mstxDomainHandle_t h) noexcept {
    std::uint32_t i = 0;
    if (!index_of(h, i)) {
      reject(reject_reason::destroyed_domain);
      return;
    }
    try {
      std::lock_guard<std::mutex> lock(mutex());
      if (domains_[i].state.load(std::memory_order_relaxed) != alive) {
        reject(reject_reason::destroyed_domain);
        return;
      }
      domains_[i].state.store(destroyed, std::memory_order_release);
      refresh_quiet(domains_[i]);  // calls on it must reach resolve() and be counted
      registry().erase(domains_[i].name);  // the same name later gets a new handle
    } catch (...) {
    }
  }

  static const char* domain_name(std::uint32_t index) noexcept {
    if (index >= domain_count_.load(std::memory_order_acquire)) return nullptr;
    return domains_[index].name;
  }

  // ----------------------------------------------------------------- filter
  // Replaces the runtime include/exclude lists (names; "default" = default domain).
  static filter_status set_filter(std::vector<std::string> include, std::vector<std::string> exclude) {
    filter_status st;
    std::lock_guard<std::mutex> lock(mutex());
    if (!include.empty() && !exclude.empty()) {
      st.include_wins_warning = true;  // torch_npu's rule
      exclude.clear();
    }
    include_ = std::move(include);
    exclude_ = std::move(exclude);
    ensure_default_locked();
    std::uint32_t n = domain_count_.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
      domains_[i].enabled.store(filter_allows_locked(domains_[i].name), std::memory_order_relaxed);
      if (i != 0) refresh_quiet(domains_[i]);  // slot 0 (default) has no handle: its byte stays 0
    }
    return st;
  }
  // extDomainQuietFlags: handles are &domains_[i], each slot starts with `quiet`.
  static void quiet_flags(const unsigned char** base, std::size_t* span, std::size_t* stride) noexcept {
    *base = reinterpret_cast<const unsigned char*>(&domains_[0]);
    *span = sizeof domains_;
    *stride = sizeof(domain_slot);
  }
  static bool domain_enabled(std::uint32_t index) noexcept {
    return domains_[index].enabled.load(std::memory_order_relaxed);
  }

  // ----------------------------------------------------------------- events
  // Resolves a domain call's handle: false (and counted) for destroyed/unknown.
  static bool resolve(mstxDomainHandle_t h, std::uint32_t& index) noexcept {
    if (h == nullptr) {
      index = 0;
      return true;
    }
    if (!index_of(h, index) || domains_[index].state.load(std::memory_order_acquire) != alive) {
      reject(reject_reason::destroyed_domain);
      return false;
    }
    return true;
  }

  // The common cases (a static literal, a plain dynamic message) are checked
  // inline and need no copy buffer; anything else (`{`-messages, literals that
  // fail the length check, rejects) goes through validate_message out of line.
  // Inline into each c_api entry, whose domain and message kind are constants.
  MSPROF_INLINE static void mark(std::uint32_t domain, const char* msg, bool is_static, std::size_t static_len,
                   void* stream) noexcept {
    if (!Recorder::collecting() || !domain_enabled(domain)) return;
    event e;
    if (MSPROF_UNLIKELY(!(is_static ? static_literal(msg, static_len, e.msg) : plain_dynamic(msg, e.msg))))
      return mark_checked(domain, msg, is_static, stream);
    emit_mark(domain, e, stream);
  }

  MSPROF_INLINE static std::uint64_t range_start(std::uint32_t domain, const char* msg, bool is_static,
                                   std::size_t static_len, void* stream) noexcept {
    if (!Recorder::collecting() || !domain_enabled(domain)) return 0;
    event e;
    if (MSPROF_UNLIKELY(!(is_static ? static_literal(msg, static_len, e.msg) : plain_dynamic(msg, e.msg))))
      return range_start_checked(domain, msg, is_static, stream);
    return emit_range_start(domain, e, stream);
  }

  MSPROF_INLINE static void range_end(std::uint32_t domain, std::uint64_t id) noexcept {
    if (id == 0 || !Recorder::collecting() || !domain_enabled(domain)) return;
    event e;
    e.type = event_type::start_stop;
    e.id = id;
    e.domain = domain;
    Recorder::range_end(e);
    if (MSPROF_UNLIKELY(open_stream_ranges_.load(std::memory_order_relaxed) != 0)) end_stream_range(id, domain);
  }

  // ----------------------------------------------------------------- memory
  static mstxMemHeapHandle_t heap_register(std::uint32_t domain, const mstxMemHeapDesc_t* d) noexcept {
    if (d == nullptr || d->usage != MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR ||
        d->type != MSTX_MEM_TYPE_VIRTUAL_ADDRESS || d->typeSpecificDesc == nullptr) {
      reject(reject_reason::bad_mem_descriptor);
      return nullptr;
    }
    auto* r = static_cast<const mstxMemVirtualRangeDesc_t*>(d->typeSpecificDesc);
    if (r->ptr == nullptr || r->size == 0) {
      reject(reject_reason::bad_mem_descriptor);
      return nullptr;
    }
    mem_event e;
    try {
      std::lock_guard<std::mutex> lock(mutex());
      e.handle = next_mem_handle_++;
      heaps()[e.handle] = heap_info{reinterpret_cast<std::uintptr_t>(r->ptr), r->size, r->deviceId, {}};
    } catch (...) {
      reject(reject_reason::registry_full);
      return nullptr;
    }
    e.op = mem_op::heap_register;
    e.domain = domain;
    e.heap = e.handle;
    e.address = reinterpret_cast<std::uintptr_t>(r->ptr);
    e.size = r->size;
    e.device_id = r->deviceId;
    emit_memory(domain, e);
    return reinterpret_cast<mstxMemHeapHandle_t>(static_cast<std::uintptr_t>(e.handle));
  }

  static void heap_unregister(std::uint32_t domain, mstxMemHeapHandle_t h) noexcept {
    auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(h));
    mem_event e;
    try {
      std::lock_guard<std::mutex> lock(mutex());
      auto it = heaps().find(id);
      if (h == nullptr || it == heaps().end()) {
        reject(reject_reason::bad_mem_descriptor);
        return;
      }
      for (auto& reg : it->second.regions) regions().erase(reg);  // its regions go with it
      e.address = it->second.address;
      e.size = it->second.size;
      e.device_id = it->second.device;
      heaps().erase(it);
    } catch (...) {
      return;
    }
    e.op = mem_op::heap_unregister;
    e.domain = domain;
    e.handle = id;
    e.heap = id;
    emit_memory(domain, e);
  }

  static void regions_register(std::uint32_t domain, const mstxMemRegionsRegisterBatch_t* b) noexcept {
    if (b == nullptr || b->regionType != MSTX_MEM_TYPE_VIRTUAL_ADDRESS || b->regionCount == 0 ||
        b->regionDescArray == nullptr) {
      reject(reject_reason::bad_mem_descriptor);
      return;
    }
    auto heap_id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(b->heap));
    auto* descs = static_cast<const mstxMemVirtualRangeDesc_t*>(b->regionDescArray);
    for (std::size_t i = 0; i < b->regionCount; ++i) {
      const auto& r = descs[i];
      mem_event e;
      bool ok = false;
      try {
        std::lock_guard<std::mutex> lock(mutex());
        auto it = heaps().find(heap_id);
        auto a = reinterpret_cast<std::uintptr_t>(r.ptr);
        if (it != heaps().end() && r.ptr != nullptr && r.size != 0 && a >= it->second.address &&
            a - it->second.address <= it->second.size && r.size <= it->second.size - (a - it->second.address)) {
          e.handle = next_mem_handle_++;
          regions()[e.handle] = region_info{heap_id, a, r.size, r.deviceId};
          region_by_ptr()[a] = e.handle;
          it->second.regions.push_back(e.handle);
          ok = true;
        }
      } catch (...) {
      }
      if (b->regionHandleArrayOut != nullptr)
        b->regionHandleArrayOut[i] =
            ok ? reinterpret_cast<mstxMemRegionHandle_t>(static_cast<std::uintptr_t>(e.handle)) : nullptr;
      if (!ok) {
        reject(reject_reason::bad_mem_descriptor);
        continue;
      }
      e.op = mem_op::region_register;
      e.domain = domain;
      e.heap = heap_id;
      e.address = reinterpret_cast<std::uintptr_t>(r.ptr);
      e.size = r.size;
      e.device_id = r.deviceId;
      emit_memory(domain, e);
    }
  }

  static void regions_unregister(std::uint32_t domain, const mstxMemRegionsUnregisterBatch_t* b) noexcept {
    if (b == nullptr || b->refCount == 0 || b->refArray == nullptr) {
      reject(reject_reason::bad_mem_descriptor);
      return;
    }
    for (std::size_t i = 0; i < b->refCount; ++i) {
      mem_event e;
      bool ok = false;
      try {
        std::lock_guard<std::mutex> lock(mutex());
        std::uint64_t id = lookup_region_locked(b->refArray[i]);
        auto it = regions().find(id);
        if (id != 0 && it != regions().end()) {
          e.handle = id;
          e.heap = it->second.heap;
          e.address = it->second.address;
          e.size = it->second.size;
          e.device_id = it->second.device;
          region_by_ptr().erase(it->second.address);
          auto h = heaps().find(it->second.heap);
          if (h != heaps().end()) {
            auto& v = h->second.regions;
            v.erase(std::remove(v.begin(), v.end(), id), v.end());
          }
          regions().erase(it);
          ok = true;
        }
      } catch (...) {
      }
      if (!ok) {
        reject(reject_reason::bad_mem_descriptor);
        continue;
      }
      e.op = mem_op::region_unregister;
      e.domain = domain;
      emit_memory(domain, e);
    }
  }

  static void permissions_assign(std::uint32_t, const mstxMemPermissionsAssignBatch_t* b) noexcept {
    // Validated only: msprof has no record kind for permissions.
    if (b == nullptr || b->regionCount == 0 || b->regionDescArray == nullptr) {
      reject(reject_reason::bad_mem_descriptor);
      return;
    }
    for (std::size_t i = 0; i < b->regionCount; ++i) {
      if ((b->regionDescArray[i].flags & ~0x07u) != 0) reject(reject_reason::bad_mem_descriptor);
    }
  }

  // ----------------------------------------------------------------- misc
  static void reject(reject_reason r) noexcept {
    rejects_[static_cast<std::size_t>(r)].fetch_add(1, std::memory_order_relaxed);
  }
  static std::uint64_t rejects(reject_reason r) noexcept {
    return rejects_[static_cast<std::size_t>(r)].load(std::memory_order_relaxed);
  }
  static std::uint64_t total_rejects() noexcept {
    std::uint64_t n = 0;
    for (auto& r : rejects_) n += r.load(std::memory_order_relaxed);
    return n;
  }
  static void set_stream_marker(stream_marker* d) noexcept { marker_.store(d, std::memory_order_release); }

 private:
  enum : std::uint8_t { free_slot = 0, alive = 1, destroyed = 2 };
  struct domain_slot {
    std::atomic<std::uint8_t> quiet{0};  // alive and filtered out; read inline by the mstx header
    std::atomic<std::uint8_t> state{free_slot};
    std::atomic<bool> enabled{true};
    char* name = nullptr;
  };
  static_assert(std::is_standard_layout_v<domain_slot> && (sizeof(domain_slot) & (sizeof(domain_slot) - 1)) == 0,
                "the quiet byte is the first byte of a power-of-two slot");
  static void refresh_quiet(domain_slot& d) noexcept {
    const bool q = d.state.load(std::memory_order_relaxed) == alive && !d.enabled.load(std::memory_order_relaxed);
    d.quiet.store(q ? 1 : 0, std::memory_order_relaxed);
  }
  struct heap_info {
    std::uintptr_t address;
    std::uint64_t size;
    std::uint32_t device;
    std::vector<std::uint64_t> regions;
  };
  struct region_info {
    std::uint64_t heap;
    std::uintptr_t address;
    std::uint64_t size;
    std::uint32_t device;
  };
  // The thread's block of ids: the Recorder's (Recorder::ids(), kept beside its
  // own per-thread state so one thread-local access serves both) or our own.
  MSPROF_INLINE static id_cache& tls_ids() noexcept {
    if constexpr (detail::has_ids<Recorder>::value) {
      return Recorder::ids();
    } else {
      static thread_local id_cache c;
      return c;
    }
  }
  // A literal from the static-message API: checked by its length and first byte.
  MSPROF_INLINE static bool static_literal(const char* msg, std::size_t static_len, message& out) noexcept {
    if (msg != nullptr && static_len > 0 && static_len < max_message_bytes && !detail::bad_first_char(msg[0]) &&
        msg[0] != '{') {
      out = message{msg, static_cast<std::uint32_t>(static_len), true};
      return true;
    }
    return false;
  }
  // A dynamic message validate_message would accept as it is (no `{`).
  MSPROF_INLINE static bool plain_dynamic(const char* msg, message& out) noexcept {
    if (msg == nullptr || detail::bad_first_char(msg[0]) || msg[0] == '{') return false;
    const std::size_t n = ::strnlen(msg, max_message_bytes);
    if (n >= max_message_bytes) return false;
    out = message{msg, static_cast<std::uint32_t>(n), false};
    return true;
  }
  MSPROF_INLINE static void emit_mark(std::uint32_t domain, event& e, void* stream) noexcept {
    e.type = event_type::mark;
    e.id = next_id();
    e.domain = domain;
    e.stream = stream;
    Recorder::mark(e);
    if (stream != nullptr) device_marker(stream, e.id, false);
  }
  MSPROF_INLINE static std::uint64_t emit_range_start(std::uint32_t domain, event& e, void* stream) noexcept {
    e.type = event_type::start_stop;
    e.id = next_id();
    e.domain = domain;
    e.stream = stream;
    Recorder::range_start(e);
    if (stream != nullptr) {
      device_marker(stream, e.id, false);
      remember_stream(e.id, domain, stream);
    }
    return e.id;
  }
  MSPROF_NOINLINE static void mark_checked(std::uint32_t domain, const char* msg, bool is_static,
                                           void* stream) noexcept {
    event e;
    char buf[max_message_bytes];
    if (!validate_message(msg, is_static, e.msg, buf)) {
      reject(reject_reason::bad_message);
      return;
    }
    emit_mark(domain, e, stream);
  }
  MSPROF_NOINLINE static std::uint64_t range_start_checked(std::uint32_t domain, const char* msg, bool is_static,
                                                           void* stream) noexcept {
    event e;
    char buf[max_message_bytes];
    if (!validate_message(msg, is_static, e.msg, buf)) {
      reject(reject_reason::bad_message);
      return 0;
    }
    return emit_range_start(domain, e, stream);
  }
  MSPROF_NOINLINE static void end_stream_range(std::uint64_t id, std::uint32_t domain) noexcept {
    if (void* stream = forget_stream(id, domain)) device_marker(stream, id, true);
  }
  // Ranges started on a stream remember it so their end marker lands on the same
  // stream. Plain ranges pay one relaxed load here. An end in another domain is
  // rejected later (drain), so it must not consume the range's stream either.
  static void remember_stream(std::uint64_t id, std::uint32_t domain, void* stream) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex());
      stream_ranges()[id] = stream_range{stream, domain};
      open_stream_ranges_.fetch_add(1, std::memory_order_relaxed);
    } catch (...) {
      reject(reject_reason::registry_full);  // the range is kept; only its device end marker is lost
    }
  }
  static void* forget_stream(std::uint64_t id, std::uint32_t domain) noexcept {
    if (open_stream_ranges_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard<std::mutex> lock(mutex());
    auto it = stream_ranges().find(id);
    if (it == stream_ranges().end() || it->second.domain != domain) return nullptr;
    void* stream = it->second.stream;
    stream_ranges().erase(it);
    open_stream_ranges_.fetch_sub(1, std::memory_order_relaxed);
    return stream;
  }

  static void device_marker(void* stream, std::uint64_t id, bool end) noexcept {
    if (auto* d = marker_.load(std::memory_order_acquire)) d->marker(stream, id, end);
  }
  static void emit_memory(std::uint32_t domain, const mem_event& e) noexcept {
    if (Recorder::collecting() && domain_enabled(domain)) Recorder::memory(e);
  }
  static std::uint64_t lookup_region_locked(const mstxMemRegionRef_t& ref) {
    if (ref.refType == MSTX_MEM_REGION_REF_TYPE_HANDLE)
      return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ref.handle));
    if (ref.refType == MSTX_MEM_REGION_REF_TYPE_POINTER) {
      auto it = region_by_ptr().find(reinterpret_cast<std::uintptr_t>(ref.pointer));
      return it == region_by_ptr().end() ? 0 : it->second;
    }
    return 0;
  }
  static bool filter_allows_locked(const char* name) {
    auto in = [&](const std::vector<std::string>& v) {
      return std::find(v.begin(), v.end(), name) != v.end();
    };
    if (!include_.empty()) return in(include_);
    return !in(exclude_);
  }
  static void ensure_default_locked() {
    if (domain_count_.load(std::memory_order_relaxed) != 0) return;
    static char default_name[] = "default";
    domains_[0].name = default_name;
    domains_[0].enabled.store(filter_allows_locked(default_name), std::memory_order_relaxed);
    domains_[0].state.store(alive, std::memory_order_release);
    domain_count_.store(1, std::memory_order_release);
    Recorder::domain_registered(0, default_name);
  }
  static std::mutex& mutex() noexcept {
    static std::mutex m;
    return m;
  }
  static std::unordered_map<std::string, std::uint32_t>& registry() {
    static std::unordered_map<std::string, std::uint32_t> r;
    return r;
  }
  static std::unordered_map<std::uint64_t, heap_info>& heaps() {
    static std::unordered_map<std::uint64_t, heap_info> h;
    return h;
  }
  static std::unordered_map<std::uint64_t, region_info>& regions() {
    static std::unordered_map<std::uint64_t, region_info> r;
    return r;
  }
  struct stream_range {
    void* stream;
    std::uint32_t domain;
  };
  static std::unordered_map<std::uint64_t, stream_range>& stream_ranges() {
    static std::unordered_map<std::uint64_t, stream_range> r;
    return r;
  }
  static std::unordered_map<std::uintptr_t, std::uint64_t>& region_by_ptr() {
    static std::unordered_map<std::uintptr_t, std::uint64_t> r;
    return r;
  }

  static inline domain_slot domains_[max_domains]{};
  static inline std::atomic<std::uint32_t> domain_count_{0};
  static inline std::atomic<std::uint64_t> next_block_{1};
  static inline std::atomic<std::uint64_t> rejects_[static_cast<std::size_t>(reject_reason::count_)]{};
  static inline std::atomic<stream_marker*> marker_{nullptr};
  static inline std::atomic<std::size_t> open_stream_ranges_{0};
  static inline std::vector<std::string> include_{};
  static inline std::vector<std::string> exclude_{};
  static inline std::uint64_t next_mem_handle_ = 1;
};

// The tool core behind the mstx C function table: implementations of every
// mstx API (plus msprof's static-message extension) and `init`, which fills a
// table through the Ascend/mstx getModuleFuncTable protocol. The same `init`
// serves InitInjectionMstx (libmsprof_mstx.so) and the in-process attach
// (msprof_mstx_attach_v0_1) under MSPROF_IMPLEMENT.
template <class Recorder>
struct c_api {
  using core = tool_core<Recorder>;

  static void mark_a(const char* m, aclrtStream s) noexcept { core::mark(0, m, false, 0, s); }
  static mstxRangeId range_start_a(const char* m, aclrtStream s) noexcept {
    return core::range_start(0, m, false, 0, s);
  }
  static void range_end(mstxRangeId id) noexcept { core::range_end(0, id); }
  static void get_tool_id(std::uint64_t* id) noexcept {
    if (id != nullptr) *id = MSTX_TOOL_MSPROF_ID;
  }
  static mstxDomainHandle_t domain_create_a(const char* n) noexcept { return core::domain_create(n); }
  static void domain_destroy(mstxDomainHandle_t d) noexcept { core::domain_destroy(d); }
  static void domain_mark_a(mstxDomainHandle_t d, const char* m, aclrtStream s) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::mark(i, m, false, 0, s);
  }
  static mstxRangeId domain_range_start_a(mstxDomainHandle_t d, const char* m, aclrtStream s) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::range_start(i, m, false, 0, s) : 0;
  }
  static void domain_range_end(mstxDomainHandle_t d, mstxRangeId id) noexcept {
    std::uint32_t i = 0;
    if (id != 0 && core::resolve(d, i)) core::range_end(i, id);
  }
  static mstxMemHeapHandle_t mem_heap_register(mstxDomainHandle_t d, const mstxMemHeapDesc_t* x) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::heap_register(i, x) : nullptr;
  }
  static void mem_heap_unregister(mstxDomainHandle_t d, mstxMemHeapHandle_t h) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::heap_unregister(i, h);
  }
  static void mem_regions_register(mstxDomainHandle_t d, const mstxMemRegionsRegisterBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::regions_register(i, x);
  }
  static void mem_regions_unregister(mstxDomainHandle_t d, const mstxMemRegionsUnregisterBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::regions_unregister(i, x);
  }
  static void mem_permissions_assign(mstxDomainHandle_t d, const mstxMemPermissionsAssignBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::permissions_assign(i, x);
  }
  static void ext_mark_static(mstxDomainHandle_t d, const char* m, std::size_t n) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::mark(i, m, true, n, nullptr);
  }
  static mstxRangeId ext_range_start_static(mstxDomainHandle_t d, const char* m, std::size_t n) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::range_start(i, m, true, n, nullptr) : 0;
  }

  // Fills the caller's table; checks outSize before every slot (older msprof
  // numbering had fewer core slots).
  static int init(mstxGetModuleFuncTableFunc get) noexcept { return init_mode(get, true); }
  // As init, but the default-domain mark/range slots (and the static-message
  // extension) stay NULL: while nothing collects, or while "default" is
  // filtered out, those calls cost one load and one branch in the program.
  static int init_without_default(mstxGetModuleFuncTableFunc get) noexcept { return init_mode(get, false); }

  static int init_mode(mstxGetModuleFuncTableFunc get, bool default_events) noexcept {
    if (get == nullptr) return MSTX_FAIL;
    auto fill = [get](int module, std::initializer_list<mstxFuncPointer> fns) {
      mstxFuncTable table = nullptr;
      unsigned int size = 0;
      if (get(static_cast<mstxFuncModule>(module), &table, &size) != MSTX_SUCCESS || table == nullptr)
        return false;
      unsigned int slot = 1;
      for (auto f : fns) {
        if (slot < size && table[slot] != nullptr) *table[slot] = f;
        ++slot;
      }
      return true;
    };
    auto fp = [](auto f) { return reinterpret_cast<mstxFuncPointer>(f); };
    const mstxFuncPointer none = nullptr;
    if (!fill(MSTX_API_MODULE_CORE, {default_events ? fp(&mark_a) : none, default_events ? fp(&range_start_a) : none,
                                     default_events ? fp(&range_end) : none, fp(&get_tool_id)}))
      return MSTX_FAIL;
    fill(MSTX_API_MODULE_CORE_DOMAIN, {fp(&domain_create_a), fp(&domain_destroy), fp(&domain_mark_a),
                                       fp(&domain_range_start_a), fp(&domain_range_end)});
    fill(MSTX_API_MODULE_CORE_MEM, {fp(&mem_heap_register), fp(&mem_heap_unregister), fp(&mem_regions_register),
                                    fp(&mem_regions_unregister), fp(&mem_permissions_assign)});
    fill(MSPROF_MSTX_MODULE_EXT, {default_events ? fp(&ext_mark_static) : none,
                                  default_events ? fp(&ext_range_start_static) : none, fp(&core::quiet_flags)});
    return MSTX_SUCCESS;
  }
};

}  // namespace instrument
MSPROF_END_NAMESPACE

#endif  // MSPROF_INSTRUMENT_TOOL_CORE_HPP
