// SPDX-License-Identifier: MIT
// An SS928-class SoC inference program on the SIMULATED SoC, profiled through
// acl.json (docs/soc.md): init, load a model, execute N pictures, finalize.
//
//   soc_inference [acl.json] [pictures] [model file]
//
// With acl.json's "profiler" section switched on, a JOB directory appears under
// its "output" directory; `msprof import -dir <JOB>` reads it. Without an
// argument it reads ./acl.json when there is one, else runs unprofiled (as
// svp_acl_init with an empty path).
#include <msprof/soc/acl.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace soc = msprof::soc;

namespace {
int fail(const msprof::error& e) {
  std::fprintf(stderr, "soc_inference: %s\n", e.message.c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  std::string acl_json = argc > 1 ? argv[1] : "acl.json";
  if (argc <= 1 && ::access(acl_json.c_str(), F_OK) != 0) {
    std::fprintf(stderr, "soc_inference: no acl.json here: running without profiling\n");
    acl_json.clear();
  }
  const long pictures = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 16;
  if (pictures < 1) {
    std::fprintf(stderr, "soc_inference: pictures must be a number >= 1\n");
    return 2;
  }
  if (auto r = soc::acl_init(acl_json); !r) return fail(r.err());  // svp_acl_init("acl.json")

  // svp_acl_mdl_load_from_mem: the model file's bytes, or a stand-in .om.
  msprof::result<std::uint32_t> model = argc > 3 ? soc::load_model_from_file(argv[3]) : [] {
    const std::string om = "simulated yolov3 model: 416x416 input, 80 classes";
    return soc::load_model_from_mem(om.data(), om.size(), "yolov3.om");
  }();
  if (!model) return fail(model.err());
  if (auto size = soc::query_size(*model); !size) return fail(size.err());

  for (long i = 0; i < pictures; ++i)  // one picture per svp_acl_mdl_execute
    if (auto r = soc::execute(*model); !r) return fail(r.err());

  if (auto r = soc::unload_model(*model); !r) return fail(r.err());
  if (auto r = soc::acl_finalize(); !r) return fail(r.err());  // svp_acl_finalize
  const std::string job = soc::job_dir();
  if (!job.empty()) std::printf("profiling data: %s\n", job.c_str());
  return 0;
}
