// SPDX-License-Identifier: MIT
// Performs CANN's loader protocol by hand (as ms_tools_ext.h does): dlopen the
// library named on the command line, call its InitInjectionMstx with our own
// getModuleFuncTable, then call the tool through the filled slots.
#include <dlfcn.h>

#include <cstdio>
#include <cstdint>
#include <thread>

typedef void (*func_ptr)(void);
typedef func_ptr** func_table;
typedef int (*get_table_fn)(int module, func_table* out, unsigned int* size);

namespace {
func_ptr core[6], domain[7], mem[7];
func_ptr* core_slots[6] = {nullptr, &core[1], &core[2], &core[3], &core[4], nullptr};
func_ptr* domain_slots[7] = {nullptr, &domain[1], &domain[2], &domain[3], &domain[4], &domain[5], nullptr};
func_ptr* mem_slots[7] = {nullptr, &mem[1], &mem[2], &mem[3], &mem[4], &mem[5], nullptr};

int get_table(int module, func_table* out, unsigned int* size) {
  switch (module) {
    case 1: *out = core_slots; *size = 5; return 0;
    case 2: *out = domain_slots; *size = 6; return 0;
    case 3: *out = mem_slots; *size = 6; return 0;
    default: return 1;
  }
}
template <class F>
F as(func_ptr p) {
  return reinterpret_cast<F>(p);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  auto init = reinterpret_cast<int (*)(get_table_fn)>(dlsym(h, "InitInjectionMstx"));
  if (init == nullptr) return 4;
  if (init(&get_table) != 0) return 5;
  auto mark = as<void (*)(const char*, void*)>(core[1]);
  auto start = as<std::uint64_t (*)(const char*, void*)>(core[2]);
  auto end = as<void (*)(std::uint64_t)>(core[3]);
  auto tool = as<void (*)(std::uint64_t*)>(core[4]);
  auto dcreate = as<void* (*)(const char*)>(domain[1]);
  auto dmark = as<void (*)(void*, const char*, void*)>(domain[3]);
  auto dstart = as<std::uint64_t (*)(void*, const char*, void*)>(domain[4]);
  auto dend = as<void (*)(void*, std::uint64_t)>(domain[5]);
  if (!mark || !start || !end || !tool || !dcreate || !dmark || !dstart || !dend) return 6;
  std::uint64_t id = 0;
  tool(&id);
  if (id != 0x1000) return 7;
  mark("loader mark", nullptr);
  std::uint64_t r = start("loader range", nullptr);
  std::thread([&] { end(r); }).join();
  void* d = dcreate("loaderdom");
  dmark(d, "domain mark", nullptr);
  std::uint64_t r2 = dstart(d, "domain range", nullptr);
  dend(d, r2);
  mark("=rejected", nullptr);
  return 0;  // exit flushes the collection
}
