// SPDX-License-Identifier: MIT
// Test helper: a record_sink that keeps copies of everything the drain hands over.
#ifndef MSPROF_TESTS_MSTX_RECORDER_HPP
#define MSPROF_TESTS_MSTX_RECORDER_HPP

#include <msprof/collect/collector.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct recorded_tx {
  std::uint64_t id;
  std::uint16_t type;
  std::uint32_t tid, end_tid;
  std::uint64_t start, end;
  std::string domain, message;
  bool stream;
};

/// A framework op or queue mark with its strings copied.
struct recorded_fw {
  msprof::collect::fw_op_record op;  // string views cleared
  msprof::collect::fw_mark_record mark;
  std::string name, dtypes, shapes, stack;
};

class recorder : public msprof::collect::record_sink {
 public:
  void write_tx(const msprof::collect::tx_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    tx_.push_back({r.id, r.event_type, r.tid, r.end_tid, r.start, r.end, std::string(r.domain),
                   std::string(r.message), r.has_stream});
  }
  void write_mem(const msprof::collect::mem_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    mem_.push_back(r);
    mem_.back().domain = {};  // the view dies with the call
  }
  void write_step(const msprof::collect::step_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    steps_.push_back(r);
  }
  void write_fw_op(const msprof::collect::fw_op_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    recorded_fw f{r, {}, std::string(r.name), std::string(r.dtypes), std::string(r.shapes), std::string(r.stack)};
    f.op.name = f.op.dtypes = f.op.shapes = f.op.stack = {};
    ops_.push_back(std::move(f));
  }
  void write_fw_mark(const msprof::collect::fw_mark_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    recorded_fw f{{}, r, std::string(r.name), {}, {}, {}};
    f.mark.name = {};
    marks_.push_back(std::move(f));
  }
  void write_fw_memory(const msprof::collect::fw_memory_record& r) override {
    std::lock_guard<std::mutex> l(m_);
    fw_mem_.push_back(r);
  }
  void flush() override { ++flushes_; }
  std::vector<recorded_fw> fw_ops() {
    std::lock_guard<std::mutex> l(m_);
    return ops_;
  }
  std::vector<recorded_fw> fw_marks() {
    std::lock_guard<std::mutex> l(m_);
    return marks_;
  }
  std::vector<msprof::collect::fw_memory_record> fw_memory() {
    std::lock_guard<std::mutex> l(m_);
    return fw_mem_;
  }
  std::vector<recorded_tx> tx() {
    std::lock_guard<std::mutex> l(m_);
    return tx_;
  }
  std::vector<msprof::collect::mem_record> mem() {
    std::lock_guard<std::mutex> l(m_);
    return mem_;
  }
  std::vector<msprof::collect::step_record> steps() {
    std::lock_guard<std::mutex> l(m_);
    return steps_;
  }
  const recorded_tx* find(const std::string& msg) {
    std::lock_guard<std::mutex> l(m_);
    for (auto& t : tx_)
      if (t.message == msg) return &t;
    return nullptr;
  }
  std::atomic<int> flushes_{0};

 private:
  std::mutex m_;
  std::vector<recorded_tx> tx_;
  std::vector<msprof::collect::mem_record> mem_;
  std::vector<msprof::collect::step_record> steps_;
  std::vector<recorded_fw> ops_, marks_;
  std::vector<msprof::collect::fw_memory_record> fw_mem_;
};

// Starts the default collector with a fresh recorder; stops it at scope end.
struct session_guard {
  std::shared_ptr<recorder> rec = std::make_shared<recorder>();
  std::vector<std::string> warnings;
  explicit session_guard(msprof::collect::options o = {}) {
    o.sink = rec;
    o.warn = [this](const std::string& w) { warnings.push_back(w); };
    auto r = msprof::collect::start(o);
    ok = static_cast<bool>(r);
  }
  ~session_guard() { msprof::collect::stop(); }
  void stop() { msprof::collect::stop(); }
  bool ok = false;
};

#endif  // MSPROF_TESTS_MSTX_RECORDER_HPP
