// SPDX-License-Identifier: MIT
// Every compile-time knob of msprof, in one place. A value the user already set
// wins; otherwise a default is detected. See docs/configuration.md.
#ifndef MSPROF_CONFIG_HPP
#define MSPROF_CONFIG_HPP

#ifdef MSPROF_CONFIG_FILE  // one user header for all settings
#  include MSPROF_CONFIG_FILE
#endif

// MSPROF_DISABLE (global): compiles every instrumentation call site to nothing.

#ifndef MSPROF_USE_EXCEPTIONS
#  if defined(__cpp_exceptions) || defined(_CPPUNWIND)
#    define MSPROF_USE_EXCEPTIONS 1
#  else
#    define MSPROF_USE_EXCEPTIONS 0
#  endif
#endif

#ifndef MSPROF_DEVELOPMENT_CHECKS
#  ifdef NDEBUG
#    define MSPROF_DEVELOPMENT_CHECKS 0
#  else
#    define MSPROF_DEVELOPMENT_CHECKS 1
#  endif
#endif

#endif  // MSPROF_CONFIG_HPP
