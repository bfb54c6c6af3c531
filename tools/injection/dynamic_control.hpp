// SPDX-License-Identifier: MIT
// The control file of `msprof --dynamic=on` (docs/cli.md, "Dynamic profiling"):
// how the launcher switches collection on and off in every process of the run
// without signalling the user's program. The launcher creates it in the output
// directory and names it in MSPROF_DYNAMIC_CONTROL; each process's injection
// library maps it read-only and polls its generation word every few ms.
//
// Layout (4096 bytes): "MSPDYN1\0"; at 8 the generation (a 64-bit word written
// atomically by msprof): the number of start and stop commands so far, so an
// odd value means "collecting". A process that sees the word change closes its
// open window, if any, and opens a new one when the value is odd: each
// start..stop is its own PROF_ directory, as CANN's dynamic profiling makes
// them, even when a stop and a start come between two looks. At 16, the
// generation the process has acted on (attach mode: msprof waits for it before
// it exports). From 64, NUL-terminated: the output directory (attach mode:
// written by msprof before the generation changes).
//
// Attach mode (`msprof --dynamic=on --pid=N`): a program started with the
// injection library and PROFILING_MODE=dynamic (no launcher) creates the file
// itself, as $HOME/msprof_dynamic_<pid> (CANN keeps its dynamic-profiling
// socket in the home directory too), and removes it at exit.
#ifndef MSPROF_TOOLS_DYNAMIC_CONTROL_HPP
#define MSPROF_TOOLS_DYNAMIC_CONTROL_HPP

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace msprof_dynamic {

constexpr char magic[8] = {'M', 'S', 'P', 'D', 'Y', 'N', '1', '\0'};
constexpr std::size_t file_bytes = 4096;
constexpr const char* env_var = "MSPROF_DYNAMIC_CONTROL";

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the generation is shared between processes");

/// The generation word of a mapping of the control file (page-aligned, so the word is aligned).
inline std::atomic<std::uint64_t>* generation(void* mapping) {
  return reinterpret_cast<std::atomic<std::uint64_t>*>(static_cast<unsigned char*>(mapping) + sizeof magic);
}

/// The generation the process has acted on (its windows opened and closed).
inline std::atomic<std::uint64_t>* acted(void* mapping) {
  return reinterpret_cast<std::atomic<std::uint64_t>*>(static_cast<unsigned char*>(mapping) + 16);
}

constexpr std::size_t output_offset = 64;
constexpr std::size_t output_max = file_bytes - output_offset - 1;  // bytes of the path, without its NUL

/// Attach mode: the name of process `pid`'s control file in $HOME.
inline std::string attach_name(long pid) { return "msprof_dynamic_" + std::to_string(pid); }

/// True when `mapping` (file_bytes long) starts with the magic.
inline bool valid(const void* mapping) { return std::memcmp(mapping, magic, sizeof magic) == 0; }

/// A shared mapping of the whole file; nullptr on failure.
inline void* map(int fd, bool writable) {
  void* p = ::mmap(nullptr, file_bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace msprof_dynamic

#endif  // MSPROF_TOOLS_DYNAMIC_CONTROL_HPP
