// SPDX-License-Identifier: MIT
// msprof C++ instrumentation layer over the mstx C API (<msprof/mstx.h>).
//
//   struct net { static constexpr const char* name = "net"; };   // a typed domain
//   void step(int i) {
//     MSPROF_FUNC_RANGE();                       // range named after the function
//     MSPROF_RANGE_IN(net, "forward");           // literal: static call-site data, no copy
//     msprof::scoped_range_in<net> r{dynamic_text};   // copied (bounded) by the collector
//     msprof::markf("step {}", i);               // std-only formatting
//   }
//
// Everything is noexcept and never reports errors to the program. Literal
// messages given through the MSPROF_* macros are passed by address (the
// collector stores the pointer, not a copy). MSPROF_DISABLE turns every type
// into an empty type and every call into nothing; domain_traits<D>::enabled =
// false does the same for one domain. The namespace is ABI-tagged, so TUs
// with and without MSPROF_DISABLE link into one program.
#ifndef MSPROF_MSTX_HPP
#define MSPROF_MSTX_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/abi.hpp"
#include "framework.hpp"
#include "mstx.h"

MSPROF_BEGIN_NAMESPACE

// The default domain ("default"; NULL handle in the C API).
struct default_domain {
  static constexpr const char* name = "default";
};

// Specialize with `static constexpr bool enabled = false;` to compile a domain out.
template <class Domain>
struct domain_traits {
  static constexpr bool enabled = true;
};

namespace detail {

// Static call-site data of a literal message: its address is its identity.
struct site {
  const char* text;
  std::size_t size;
};

template <class D>
constexpr bool domain_on() noexcept {
#if defined(MSPROF_DISABLE)
  return false;
#else
  return domain_traits<D>::enabled;
#endif
}

#if !defined(MSPROF_DISABLE)
// Per typed domain: the tool's handle (cached once a tool returned one; NULL,
// no tool yet, is retried) and where its "filtered out" byte lives (a constant
// 0 for tools without msprof's domain table), so a filtered call is two loads.
inline constexpr unsigned char never_quiet = 0;
template <class D>
struct domain_cache {
  static inline mstxDomainHandle_t handle = nullptr;
  static inline const unsigned char* quiet = &never_quiet;
};

template <class D>
inline bool handle_of(mstxDomainHandle_t& out) noexcept {
  if constexpr (std::is_same_v<D, default_domain>) {
    out = nullptr;
    return true;
  } else {
    using cache = domain_cache<D>;
    mstxDomainHandle_t h = __atomic_load_n(&cache::handle, __ATOMIC_ACQUIRE);
    if (h == nullptr) {
      h = mstxDomainCreateA(D::name);
      if (h == nullptr) return false;  // never fall back to the default domain
      const unsigned char* q = msprof_mstx_quiet_byte_v0_1(h);
      __atomic_store_n(&cache::quiet, q != nullptr ? q : &never_quiet, __ATOMIC_RELAXED);
      __atomic_store_n(&cache::handle, h, __ATOMIC_RELEASE);  // publishes quiet too
    }
    out = h;
    return true;
  }
}

// A named domain the collector filters out (after handle_of succeeded). The
// default domain's filter empties its table slots instead: nothing to check.
template <class D>
inline bool filtered() noexcept {
  if constexpr (std::is_same_v<D, default_domain>)
    return false;
  else
    return __atomic_load_n(__atomic_load_n(&domain_cache<D>::quiet, __ATOMIC_RELAXED), __ATOMIC_RELAXED) != 0;
}

// One load + branch: is anything behind the slot this domain's calls use?
template <class D>
inline bool tool_present() noexcept {
  if constexpr (std::is_same_v<D, default_domain>)
    return __atomic_load_n(&msprof_mstx_context_v0_1.markA, __ATOMIC_ACQUIRE) != nullptr;
  else
    return __atomic_load_n(&msprof_mstx_context_v0_1.domainMarkA, __ATOMIC_ACQUIRE) != nullptr;
}

template <class D>
inline void mark(const char* msg, aclrtStream stream) noexcept {
  mstxDomainHandle_t h;
  if (!handle_of<D>(h)) return;
  if (h == nullptr) mstxMarkA(msg, stream);
  else mstxDomainMarkA(h, msg, stream);
}
template <class D>
inline void mark_site(const site& s) noexcept {
  if (!tool_present<D>()) return;
  mstxDomainHandle_t h;
  if (!handle_of<D>(h) || filtered<D>()) return;
  if (auto f = __atomic_load_n(&msprof_mstx_context_v0_1.extMarkStatic, __ATOMIC_ACQUIRE)) f(h, s.text, s.size);
  else if (h == nullptr) mstxMarkA(s.text, nullptr);
  else mstxDomainMarkA(h, s.text, nullptr);
}
template <class D>
inline mstxRangeId range_start(const char* msg, aclrtStream stream) noexcept {
  mstxDomainHandle_t h;
  if (!handle_of<D>(h)) return 0;
  return h == nullptr ? mstxRangeStartA(msg, stream) : mstxDomainRangeStartA(h, msg, stream);
}
template <class D>
inline mstxRangeId range_start_site(const site& s) noexcept {
  if (!tool_present<D>()) return 0;
  mstxDomainHandle_t h;
  if (!handle_of<D>(h) || filtered<D>()) return 0;
  if (auto f = __atomic_load_n(&msprof_mstx_context_v0_1.extRangeStartStatic, __ATOMIC_ACQUIRE))
    return f(h, s.text, s.size);
  return h == nullptr ? mstxRangeStartA(s.text, nullptr) : mstxDomainRangeStartA(h, s.text, nullptr);
}
template <class D>
inline void range_end(mstxRangeId id) noexcept {
  if (id == 0) return;
  mstxDomainHandle_t h;
  if (!handle_of<D>(h)) return;
  if (h == nullptr) mstxRangeEnd(id);
  else mstxDomainRangeEnd(h, id);
}
#else
// Disabled: only so the (never instantiated) enabled templates still parse.
template <class D>
inline mstxRangeId range_start(const char*, aclrtStream) noexcept { return 0; }
template <class D>
inline mstxRangeId range_start_site(const site&) noexcept { return 0; }
template <class D>
inline void range_end(mstxRangeId) noexcept {}
#endif

// ------------------------------------------------ std-only "{}" formatter
// Replaces each "{}" with the next argument; "{{" and "}}" are literal braces.
// Output is cut at `cap - 1` bytes.
struct fmt_buf {
  char* out;
  std::size_t cap;
  std::size_t n = 0;
  void put(char c) noexcept {
    if (n + 1 < cap) out[n++] = c;
  }
  void puts(const char* s, std::size_t len) noexcept {
    for (std::size_t i = 0; i < len; ++i) put(s[i]);
  }
  void put_u(unsigned long long v) noexcept {
    char tmp[24];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0) put(tmp[--k]);
  }
  template <class T>
  void arg(const T& v) noexcept {
    if constexpr (std::is_same_v<T, bool>) {
      v ? puts("true", 4) : puts("false", 5);
    } else if constexpr (std::is_same_v<T, char>) {
      put(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (v < 0) {
        put('-');
        put_u(0ull - static_cast<unsigned long long>(v));
      } else {
        put_u(static_cast<unsigned long long>(v));
      }
    } else if constexpr (std::is_integral_v<T>) {
      put_u(static_cast<unsigned long long>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      double d = static_cast<double>(v);
      if (d != d) return puts("nan", 3);
      if (d < 0) {
        put('-');
        d = -d;
      }
      if (d > 1e18) return puts("inf", 3);
      auto whole = static_cast<unsigned long long>(d);
      put_u(whole);
      auto frac = static_cast<unsigned long long>((d - static_cast<double>(whole)) * 1e6 + 0.5);
      if (frac >= 1000000) frac = 999999;
      if (frac != 0) {
        put('.');
        char digits[6];
        for (int i = 5; i >= 0; --i) {
          digits[i] = static_cast<char>('0' + frac % 10);
          frac /= 10;
        }
        int len = 6;
        while (len > 1 && digits[len - 1] == '0') --len;
        puts(digits, static_cast<std::size_t>(len));
      }
    } else if constexpr (std::is_convertible_v<const T&, const char*>) {
      const char* s = v;
      if (s == nullptr) return puts("(null)", 6);
      puts(s, std::strlen(s));
    } else if constexpr (std::is_pointer_v<T>) {
      puts("0x", 2);
      auto x = reinterpret_cast<std::uintptr_t>(v);
      char tmp[16];
      int k = 0;
      do {
        tmp[k++] = "0123456789abcdef"[x & 15];
        x >>= 4;
      } while (x != 0);
      while (k > 0) put(tmp[--k]);
    } else {
      // anything with data() and size() (std::string, std::string_view)
      puts(v.data(), v.size());
    }
  }
};

template <class T, class... Rest>
inline void format_into(fmt_buf& b, const char* f, const T& v, const Rest&... rest) noexcept;
inline void format_into(fmt_buf& b, const char* f) noexcept {
  for (; *f != '\0'; ++f) {
    if ((f[0] == '{' && f[1] == '{') || (f[0] == '}' && f[1] == '}')) ++f;
    b.put(*f);
  }
}
template <class T, class... Rest>
inline void format_into(fmt_buf& b, const char* f, const T& v, const Rest&... rest) noexcept {
  for (; *f != '\0'; ++f) {
    if (f[0] == '{' && f[1] == '}') {
      b.arg(v);
      return format_into(b, f + 2, rest...);
    }
    if ((f[0] == '{' && f[1] == '{') || (f[0] == '}' && f[1] == '}')) ++f;
    b.put(*f);
  }
}

}  // namespace detail

// Formats into `out` (always NUL-terminated), returns the length.
template <class... Args>
inline std::size_t format_to(char* out, std::size_t cap, const char* fmt, const Args&... args) noexcept {
  if (cap == 0) return 0;
  detail::fmt_buf b{out, cap};
  if (fmt != nullptr) detail::format_into(b, fmt, args...);
  out[b.n] = '\0';
  return b.n;
}

// ------------------------------------------------------------------- marks
template <class D>
inline void mark_in(const char* message, aclrtStream stream = nullptr) noexcept {
  if constexpr (detail::domain_on<D>()) {
#if !defined(MSPROF_DISABLE)
    detail::mark<D>(message, stream);
#endif
  } else {
    (void)message;
    (void)stream;
  }
}
inline void mark(const char* message, aclrtStream stream = nullptr) noexcept {
  mark_in<default_domain>(message, stream);
}

// The longest message the collector accepts is 155 bytes; formatted marks are
// cut to fit rather than rejected.
inline constexpr std::size_t formatted_message_buffer = 156;

template <class D, class... Args>
inline void markf_in(const char* fmt, const Args&... args) noexcept {
  if constexpr (detail::domain_on<D>()) {
    char buf[formatted_message_buffer];
    format_to(buf, sizeof buf, fmt, args...);
    mark_in<D>(buf);
  } else {
    (void)fmt;
    ((void)args, ...);
  }
}
template <class... Args>
inline void markf(const char* fmt, const Args&... args) noexcept {
  markf_in<default_domain>(fmt, args...);
}

// ------------------------------------------------------------------ ranges
// RAII range; not copyable, not movable, no heap. Ends on destruction.
template <class D, bool On = detail::domain_on<D>()>
class scoped_range_in {
 public:
  explicit scoped_range_in(const char* message, aclrtStream stream = nullptr) noexcept
#if !defined(MSPROF_DISABLE)
      : id_(detail::range_start<D>(message, stream)) {
  }
  explicit scoped_range_in(const detail::site& s) noexcept : id_(detail::range_start_site<D>(s)) {}
  ~scoped_range_in() { detail::range_end<D>(id_); }
#else
  {
    (void)message;
    (void)stream;
  }
  explicit scoped_range_in(const detail::site&) noexcept {}
#endif
  scoped_range_in(const scoped_range_in&) = delete;
  scoped_range_in& operator=(const scoped_range_in&) = delete;
  scoped_range_in(scoped_range_in&&) = delete;
  scoped_range_in& operator=(scoped_range_in&&) = delete;
  mstxRangeId id() const noexcept {
#if !defined(MSPROF_DISABLE)
    return id_;
#else
    return 0;
#endif
  }

 private:
#if !defined(MSPROF_DISABLE)
  mstxRangeId id_;
#endif
};

template <class D>
class scoped_range_in<D, false> {  // compiled out: an empty type
 public:
  explicit scoped_range_in(const char*, aclrtStream = nullptr) noexcept {}
  explicit scoped_range_in(const detail::site&) noexcept {}
  scoped_range_in(const scoped_range_in&) = delete;
  scoped_range_in& operator=(const scoped_range_in&) = delete;
  scoped_range_in(scoped_range_in&&) = delete;
  scoped_range_in& operator=(scoped_range_in&&) = delete;
  mstxRangeId id() const noexcept { return 0; }
};

using scoped_range = scoped_range_in<default_domain>;

// A range that can be moved and ended on another thread (end() or destruction).
template <class D, bool On = detail::domain_on<D>()>
class unique_range_in {
 public:
  unique_range_in() noexcept = default;
  explicit unique_range_in(const char* message, aclrtStream stream = nullptr) noexcept
      : id_(detail::range_start<D>(message, stream)) {}
  unique_range_in(unique_range_in&& o) noexcept : id_(o.id_) { o.id_ = 0; }
  unique_range_in& operator=(unique_range_in&& o) noexcept {
    if (this != &o) {
      end();
      id_ = o.id_;
      o.id_ = 0;
    }
    return *this;
  }
  unique_range_in(const unique_range_in&) = delete;
  unique_range_in& operator=(const unique_range_in&) = delete;
  ~unique_range_in() { end(); }
  void end() noexcept {
    detail::range_end<D>(id_);
    id_ = 0;
  }
  mstxRangeId id() const noexcept { return id_; }

 private:
  mstxRangeId id_ = 0;
};

template <class D>
class unique_range_in<D, false> {
 public:
  unique_range_in() noexcept = default;
  explicit unique_range_in(const char*, aclrtStream = nullptr) noexcept {}
  unique_range_in(unique_range_in&&) noexcept = default;
  unique_range_in& operator=(unique_range_in&&) noexcept = default;
  void end() noexcept {}
  mstxRangeId id() const noexcept { return 0; }
};

using unique_range = unique_range_in<default_domain>;

// ------------------------------------------------------- push / pop (torch_npu)
// Per-thread, per-domain stack. range_push returns the depth before the push
// (-1 when nothing was started: rejected, filtered, not collecting, or the
// stack is full); range_pop returns the depth after the pop (-1 when empty).
namespace detail {
inline constexpr int max_push_depth = 128;
template <class D>
struct push_stack {
  mstxRangeId ids[max_push_depth];
  int depth;
};
template <class D>
inline push_stack<D>& stack_of() noexcept {
  static thread_local push_stack<D> s{};
  return s;
}
}  // namespace detail

template <class D>
inline int range_push_in(const char* message, aclrtStream stream = nullptr) noexcept {
  if constexpr (detail::domain_on<D>()) {
#if !defined(MSPROF_DISABLE)
    auto& s = detail::stack_of<D>();
    if (s.depth >= detail::max_push_depth) return -1;
    mstxRangeId id = detail::range_start<D>(message, stream);
    if (id == 0) return -1;
    s.ids[s.depth] = id;
    return s.depth++;
#endif
  }
  (void)message;
  (void)stream;
  return -1;
}
template <class D>
inline int range_pop_in() noexcept {
  if constexpr (detail::domain_on<D>()) {
#if !defined(MSPROF_DISABLE)
    auto& s = detail::stack_of<D>();
    if (s.depth == 0) return -1;
    detail::range_end<D>(s.ids[--s.depth]);
    return s.depth;
#endif
  }
  return -1;
}
inline int range_push(const char* message, aclrtStream stream = nullptr) noexcept {
  return range_push_in<default_domain>(message, stream);
}
inline int range_pop() noexcept { return range_pop_in<default_domain>(); }

MSPROF_END_NAMESPACE

// ------------------------------------------------------------------ macros
#define MSPROF_DETAIL_CAT2(a, b) a##b
#define MSPROF_DETAIL_CAT(a, b) MSPROF_DETAIL_CAT2(a, b)
#define MSPROF_DETAIL_UNIQUE(name) MSPROF_DETAIL_CAT(name, __LINE__)

#if defined(MSPROF_DISABLE)
#  define MSPROF_MARK(literal) ((void)0)
#  define MSPROF_MARK_IN(D, literal) ((void)0)
#  define MSPROF_RANGE(literal) ((void)0)
#  define MSPROF_RANGE_IN(D, literal) ((void)0)
#  define MSPROF_FUNC_RANGE() ((void)0)
#  define MSPROF_FUNC_RANGE_IN(D) ((void)0)
#else
// The "" literal "" concatenation accepts string literals only.
#  define MSPROF_DETAIL_SITE(literal) \
    ([]() noexcept -> const ::msprof::detail::site& { \
      static constexpr ::msprof::detail::site s{"" literal "", sizeof("" literal "") - 1}; \
      return s; \
    }())
#  define MSPROF_MARK_IN(D, literal)                                \
    do {                                                            \
      if constexpr (::msprof::detail::domain_on<D>())               \
        ::msprof::detail::mark_site<D>(MSPROF_DETAIL_SITE(literal)); \
    } while (0)
#  define MSPROF_MARK(literal) MSPROF_MARK_IN(::msprof::default_domain, literal)
#  define MSPROF_RANGE_IN(D, literal) \
    ::msprof::scoped_range_in<D> MSPROF_DETAIL_UNIQUE(msprof_range_)(MSPROF_DETAIL_SITE(literal))
#  define MSPROF_RANGE(literal) MSPROF_RANGE_IN(::msprof::default_domain, literal)
#  define MSPROF_FUNC_RANGE_IN(D)                                                          \
    static const ::msprof::detail::site MSPROF_DETAIL_UNIQUE(msprof_func_site_){__func__, \
                                                                               sizeof(__func__) - 1}; \
    ::msprof::scoped_range_in<D> MSPROF_DETAIL_UNIQUE(msprof_func_range_)(MSPROF_DETAIL_UNIQUE(msprof_func_site_))
#  define MSPROF_FUNC_RANGE() MSPROF_FUNC_RANGE_IN(::msprof::default_domain)
#endif

// One TU of a program defines MSPROF_IMPLEMENT before including this header:
// it pulls in the collector (threads, drain) and attaches it at startup.
#if defined(MSPROF_IMPLEMENT) && !defined(MSPROF_DISABLE)
#  include "collect/collector.hpp"
#endif

#endif  // MSPROF_MSTX_HPP
