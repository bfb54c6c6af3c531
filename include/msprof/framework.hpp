// SPDX-License-Identifier: MIT
// Framework records from C++, as torch_npu's profiler keeps them: operator
// ranges (torch's record_function), task-queue marks and allocator events.
// A session or launcher with the ascend_pt layout writes them to FRAMEWORK/
// (torch.op_range, torch.op_mark, torch.memory_usage), which `msprof analyse`
// and torch_npu's own analysis read (docs/torch_npu.md).
//
//   void linear(const Tensor& x) {
//     msprof::record_function op("aten::linear", {"float;float", "128,256;256,512"});
//     msprof::scoped_enqueue q("aten::linear", task_id);  // the host thread hands work on
//     ...
//   }
//   void worker(std::uint64_t task_id) { msprof::scoped_dequeue d("aten::linear", task_id); launch(); }
//   msprof::record_memory({ptr, +bytes, allocated, reserved, active});
//
// Costs are those of mstx (<msprof/mstx.hpp>): nothing collecting, one load
// and one branch per call; collecting, one record in the thread's ring (an op
// is one record, written when it ends); MSPROF_DISABLE, nothing at all (the
// types are empty). Strings are copied when the record is written (an op's at
// its end: its name and attributes must live until then), each cut at 16 KiB.
// Nothing here reports errors to the program.
#ifndef MSPROF_FRAMEWORK_HPP
#define MSPROF_FRAMEWORK_HPP

#include <cstdint>
#include <string_view>

#include "core/abi.hpp"
#include "mstx.h"

MSPROF_BEGIN_NAMESPACE

/// What torch's RecordFunction keeps besides the name; every field optional
/// (an empty string is not recorded, as in torch_npu).
struct op_attributes {
  std::string_view input_dtypes;  ///< ';'-separated, e.g. "float;c10::Half"
  std::string_view input_shapes;  ///< ';'-separated, e.g. "128,256;256,512"
  std::string_view call_stack;    ///< ';'-separated frames, outermost first
  std::int64_t sequence_nr = -1;  ///< autograd sequence number; -1 for none
  std::uint64_t fwd_thread_id = 0;  ///< the forward op's thread, for a backward op; 0 for none
  std::uint8_t scope = 0;         ///< at::RecordScope (0 = FUNCTION)
  bool is_async = false;
};

/// An operator range on the calling thread: starts at construction, recorded
/// (one torch.op_range record) at destruction. Not copyable, not movable.
/// \code
///   msprof::record_function f("aten::mm");
///   msprof::record_function g(name, {dtypes, shapes, stack, seq});
/// \endcode
class record_function {
 public:
  explicit record_function(std::string_view name) noexcept : record_function(name, op_attributes{}) {}
#if !defined(MSPROF_DISABLE)
  record_function(std::string_view name, const op_attributes& a) noexcept {
    op_.start = 0;
    if (auto now = __atomic_load_n(&msprof_mstx_context_v0_1.extFwNow, __ATOMIC_ACQUIRE)) op_.start = now();
    if (op_.start == 0) return;  // nothing collects
    op_.seq = a.sequence_nr;
    op_.fwd_tid = a.fwd_thread_id;
    op_.name = name.data();
    op_.name_len = name.size();
    op_.dtypes = a.input_dtypes.data();
    op_.dtypes_len = a.input_dtypes.size();
    op_.shapes = a.input_shapes.data();
    op_.shapes_len = a.input_shapes.size();
    op_.stack = a.call_stack.data();
    op_.stack_len = a.call_stack.size();
    op_.scope = a.scope;
    op_.is_async = a.is_async ? 1 : 0;
  }
  ~record_function() {
    if (op_.start == 0) return;
    if (auto f = __atomic_load_n(&msprof_mstx_context_v0_1.extFwOp, __ATOMIC_ACQUIRE)) f(&op_);
  }
  /// Whether a collector is recording this op.
  bool active() const noexcept { return op_.start != 0; }
#else
  record_function(std::string_view, const op_attributes&) noexcept {}
  bool active() const noexcept { return false; }
#endif
  record_function(const record_function&) = delete;
  record_function& operator=(const record_function&) = delete;
  record_function(record_function&&) = delete;
  record_function& operator=(record_function&&) = delete;

 private:
#if !defined(MSPROF_DISABLE)
  msprof_fw_op_v0_1 op_;
#endif
};

/// torch_npu's task-queue mark categories (torch.op_mark).
enum class queue_mark : std::uint64_t { enqueue_start = 0, enqueue_end = 1, dequeue_start = 2, dequeue_end = 3 };

/// One task-queue mark on the calling thread. An enqueue (on the thread that
/// hands work on) and its dequeue (on the thread that launches it) share
/// `corr_id`; `name` is the op's.
inline void mark_queue(queue_mark m, std::uint64_t corr_id, std::string_view name) noexcept {
#if !defined(MSPROF_DISABLE)
  if (auto f = __atomic_load_n(&msprof_mstx_context_v0_1.extFwMark, __ATOMIC_ACQUIRE))
    f(static_cast<std::uint64_t>(m), corr_id, name.data(), name.size());
#else
  (void)m;
  (void)corr_id;
  (void)name;
#endif
}

namespace detail {
// Start mark at construction, end mark at destruction.
template <queue_mark Start, queue_mark End>
class queue_scope {
 public:
  queue_scope(std::string_view name, std::uint64_t corr_id) noexcept
#if !defined(MSPROF_DISABLE)
      : name_(name), corr_id_(corr_id) {
    mark_queue(Start, corr_id_, name_);
  }
  ~queue_scope() { mark_queue(End, corr_id_, name_); }
#else
  {
    (void)name;
    (void)corr_id;
  }
#endif
  queue_scope(const queue_scope&) = delete;
  queue_scope& operator=(const queue_scope&) = delete;

 private:
#if !defined(MSPROF_DISABLE)
  std::string_view name_;
  std::uint64_t corr_id_;
#endif
};
}  // namespace detail

/// An enqueue of a task-queue op (enqueue start/end marks around the scope).
using scoped_enqueue = detail::queue_scope<queue_mark::enqueue_start, queue_mark::enqueue_end>;
/// The dequeue of that op on the launching thread (same name and correlation id).
using scoped_dequeue = detail::queue_scope<queue_mark::dequeue_start, queue_mark::dequeue_end>;

/// An allocator event (torch.memory_usage): `alloc_size` > 0 allocates, < 0
/// frees; the totals are the allocator's after the event.
struct memory_event {
  std::int64_t ptr = 0;
  std::int64_t alloc_size = 0;
  std::int64_t total_allocated = 0;
  std::int64_t total_reserved = 0;
  std::int64_t total_active = 0;
  std::int64_t stream_ptr = 0;
  std::int8_t device_type = 20;  ///< c10::DeviceType; 20 (PrivateUse1) is the NPU
  std::int8_t device_index = 0;
  std::uint8_t component_type = 0;  ///< 0 the caching allocator (PTA), 1 a workspace
  std::uint8_t data_type = 0;       ///< 0 malloc, 1 free, 2 block free
  std::uint8_t allocator_type = 0;  ///< 0 the inner allocator
};

/// Records an allocator event on the calling thread, now.
inline void record_memory(const memory_event& e) noexcept {
#if !defined(MSPROF_DISABLE)
  auto f = __atomic_load_n(&msprof_mstx_context_v0_1.extFwMemory, __ATOMIC_ACQUIRE);
  if (f == nullptr) return;
  const msprof_fw_memory_v0_1 m{e.ptr,         e.alloc_size,   e.total_allocated, e.total_reserved,
                                e.total_active, e.stream_ptr,  e.device_type,     e.device_index,
                                e.component_type, e.data_type, e.allocator_type};
  f(&m);
#else
  (void)e;
#endif
}

MSPROF_END_NAMESPACE

#endif  // MSPROF_FRAMEWORK_HPP
