// SPDX-License-Identifier: MIT
// training_loop: the README demo. A two-layer MLP trains for 6 steps on the
// simulated NPU under a profiler session: schedule(wait=1, warmup=1, active=2,
// repeat=1), PipeUtilization metrics, step markers, metadata, mstx ranges on the
// host; on_trace_ready exports the saved PROF_ directory (text and db). Run:
//   cmake --build build --target examples_training_loop msprof_cli
//   build/bin/examples/training_loop --output out [--steps N]; build/bin/msprof show -dir out
// --profiling-options takes TensorFlow's JSON string, e.g.
//   '{"training_trace": "on", "fp_point": "fc1/MatMul", "bp_point": "fc1/MatMul_grad_w"}'
// for FP/BP columns in step_trace.
#include <msprof/session/config_files.hpp>
#include <msprof/session/session.hpp>
#include <msprof/session/export_handler.hpp>
#include <msprof/mstx.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct model_domain {
  static constexpr const char* name = "model";
};
struct data_domain {
  static constexpr const char* name = "dataloader";
};

constexpr std::uint32_t batch = 256;
constexpr std::uint32_t hidden = 1024;
constexpr std::uint32_t classes = 16;
constexpr std::uint32_t fp16 = 1;  // GE data type FLOAT16

msprof::device::tensor_desc tensor(std::vector<std::uint32_t> shape) {
  msprof::device::tensor_desc t;
  t.shape = std::move(shape);
  t.dtype = fp16;
  return t;
}

double elements(const msprof::device::tensor_desc& t) {
  double n = 1;
  for (auto d : t.shape) n *= d;
  return n;
}

// One operator as the framework would launch it: shapes for record_shapes, and
// flops / bytes moved for the device's cost model.
msprof::device::op_desc op(std::string name, std::string type, std::vector<msprof::device::tensor_desc> in,
                           msprof::device::tensor_desc out, double flops) {
  msprof::device::op_desc o;
  const bool cube = type == "MatMul";  // matrix work runs on AI Cores, the rest on AI Vector cores
  o.name = std::move(name);
  o.type = std::move(type);
  o.block_dim = cube ? 24 : 8;
  if (!cube) o.task_type = msprof::codec::ge_task::ai_vector_core;
  double bytes = 2 * elements(out);
  for (const auto& t : in) bytes += 2 * elements(t);
  o.inputs = std::move(in);
  o.outputs = {std::move(out)};
  o.flops = flops;
  o.bytes = bytes;
  return o;
}

double matmul_flops(double m, double k, double n) { return 2 * m * k * n; }

class trainer {
 public:
  trainer(msprof::session::profiler& prof, msprof::device::stream_id compute, msprof::device::stream_id copy)
      : prof_(prof), compute_(compute), copy_(copy) {}

  bool step(int n) {
    const std::string name = "step " + std::to_string(n);
    msprof::scoped_range_in<model_domain> whole_step{name.c_str(), prof_.stream_handle(compute_)};
    return load_batch() && forward() && backward() && optimize() && ok(prof_.device().synchronize());
  }

 private:
  bool ok(const msprof::result<void>& r) {
    if (!r) std::fprintf(stderr, "training_loop: %s\n", r.err().message.c_str());
    return static_cast<bool>(r);
  }
  bool launch(const msprof::device::op_desc& o) { return ok(prof_.device().launch(compute_, o)); }

  bool load_batch() {
    MSPROF_RANGE_IN(data_domain, "load_batch");
    const double input_bytes = 2.0 * batch * hidden;
    return ok(prof_.device().memcpy_async(copy_, static_cast<std::uint64_t>(input_bytes),
                                          msprof::device::memcpy_kind::host_to_device)) &&
           ok(prof_.device().record_event(copy_, 1)) && ok(prof_.device().wait_event(compute_, 1));
  }

  bool forward() {
    MSPROF_RANGE_IN(model_domain, "forward");
    const auto x = tensor({batch, hidden}), w1 = tensor({hidden, hidden}), w2 = tensor({hidden, classes});
    const auto h = tensor({batch, hidden}), y = tensor({batch, classes});
    return launch(op("fc1/MatMul", "MatMul", {x, w1}, h, matmul_flops(batch, hidden, hidden))) &&
           launch(op("fc1/Add", "Add", {h, tensor({hidden})}, h, elements(h))) &&
           launch(op("fc1/Relu", "Relu", {h}, h, elements(h))) &&
           launch(op("fc2/MatMul", "MatMul", {h, w2}, y, matmul_flops(batch, hidden, classes))) &&
           launch(op("loss/SoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits", {y, y}, tensor({batch}),
                     5 * elements(y)));
  }

  bool backward() {
    MSPROF_RANGE_IN(model_domain, "backward");
    const auto x = tensor({batch, hidden}), h = tensor({batch, hidden}), dy = tensor({batch, classes});
    return launch(op("fc2/MatMul_grad_w", "MatMul", {h, dy}, tensor({hidden, classes}),
                     matmul_flops(hidden, batch, classes))) &&
           launch(op("fc2/MatMul_grad_x", "MatMul", {dy, tensor({classes, hidden})}, h,
                     matmul_flops(batch, classes, hidden))) &&
           launch(op("fc1/ReluGrad", "ReluGrad", {h, h}, h, elements(h))) &&
           launch(op("fc1/MatMul_grad_w", "MatMul", {x, h}, tensor({hidden, hidden}),
                     matmul_flops(hidden, batch, hidden)));
  }

  bool optimize() {
    MSPROF_RANGE_IN(model_domain, "optimizer");
    const auto w1 = tensor({hidden, hidden}), w2 = tensor({hidden, classes});
    return launch(op("adam/ApplyAdam_fc1", "ApplyAdam", {w1, w1, w1}, w1, 10 * elements(w1))) &&
           launch(op("adam/ApplyAdam_fc2", "ApplyAdam", {w2, w2, w2}, w2, 10 * elements(w2)));
  }

  msprof::session::profiler& prof_;
  msprof::device::stream_id compute_, copy_;
};

int usage() {
  std::fprintf(stderr, "usage: training_loop [--output DIR] [--steps N] [--profiling-options JSON]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  msprof::session::session_config cfg;
  cfg.output = "./training_loop_output";
  cfg.aic_metrics = "PipeUtilization";
  cfg.record_shapes = true;
  cfg.export_types = {msprof::session::export_type::text, msprof::session::export_type::db};
  int steps = 6;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--output") == 0 && i + 1 < argc) cfg.output = argv[++i];
    else if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--profiling-options") == 0 && i + 1 < argc) {
      auto tf = msprof::session::parse_profiling_options(argv[++i]);
      if (!tf) {
        std::fprintf(stderr, "training_loop: %s\n", tf.err().message.c_str());
        return 2;
      }
      cfg.training_trace = tf->training_trace;
      cfg.fp_point = tf->fp_point;
      cfg.bp_point = tf->bp_point;
      cfg.aic_metrics = tf->aic_metrics;
    } else return usage();
  }
  if (steps < 1) return usage();

  // Timeline, summaries and db (cfg.export_types) each time a window is saved.
  msprof::session::export_handler exporter(msprof::session::export_options_for(cfg));
  msprof::session::profiler prof(cfg, msprof::session::schedule{/*wait*/ 1, /*active*/ 2, /*warmup*/ 1, /*repeat*/ 1},
                                 exporter);
  prof.add_metadata("model", "mlp 1024x1024 -> 16, fp16");
  if (auto r = prof.add_metadata_json("hyperparameters", R"({"batch": 256, "lr": 0.001, "optimizer": "adam"})"); !r)
    std::fprintf(stderr, "training_loop: %s\n", r.err().message.c_str());

  if (auto r = prof.start(); !r) {
    std::fprintf(stderr, "training_loop: %s\n", r.err().message.c_str());
    return 1;
  }
  auto compute = prof.device().create_stream();
  auto copy = compute ? prof.device().create_stream() : compute;
  if (!compute || !copy) {
    std::fprintf(stderr, "training_loop: %s\n", (compute ? copy : compute).err().message.c_str());
    return 1;
  }
  trainer t(prof, *compute, *copy);
  for (int n = 0; n < steps; ++n) {
    if (!t.step(n)) return 1;
    if (auto r = prof.step(); !r) {
      std::fprintf(stderr, "training_loop: %s\n", r.err().message.c_str());
      return 1;
    }
  }
  if (auto r = prof.stop(); !r) {
    std::fprintf(stderr, "training_loop: %s\n", r.err().message.c_str());
    return 1;
  }
  const auto failures = exporter.wait();
  for (const auto& dir : exporter.exported()) std::printf("training_loop: saved and exported %s\n", dir.c_str());
  for (const auto& failure : failures) std::fprintf(stderr, "training_loop: %s\n", failure.c_str());
  return exporter.exported().empty() || !failures.empty() ? 1 : 0;
}
