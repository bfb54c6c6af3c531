// SPDX-License-Identifier: MIT
// Compiler and OS detection, and the small attribute macros used everywhere.
#ifndef MSPROF_CORE_PLATFORM_HPP
#define MSPROF_CORE_PLATFORM_HPP

#if defined(__GNUC__) || defined(__clang__)
#  define MSPROF_LIKELY(x) __builtin_expect(!!(x), 1)
#  define MSPROF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define MSPROF_NOINLINE __attribute__((noinline))
#  define MSPROF_COLD __attribute__((cold, noinline))
#  if defined(__OPTIMIZE__)
#    define MSPROF_INLINE inline __attribute__((always_inline))
#  else
#    define MSPROF_INLINE inline
#  endif
#else
#  define MSPROF_LIKELY(x) (x)
#  define MSPROF_UNLIKELY(x) (x)
#  define MSPROF_NOINLINE
#  define MSPROF_COLD
#  define MSPROF_INLINE inline
#endif

#if defined(__x86_64__) || defined(_M_X64)
#  define MSPROF_ARCH_X86_64 1
#elif defined(__aarch64__)
#  define MSPROF_ARCH_AARCH64 1
#endif

#endif  // MSPROF_CORE_PLATFORM_HPP
