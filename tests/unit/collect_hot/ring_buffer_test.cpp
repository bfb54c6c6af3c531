// SPDX-License-Identifier: MIT
#include <msprof/collect/clock.hpp>
#include <msprof/collect/ring_buffer.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using msprof::collect::byte_ring;

namespace {
bool put(byte_ring& r, std::size_t size, std::uint32_t tag) {
  unsigned char* p = r.try_reserve(size);
  if (p == nullptr) return false;
  std::uint16_t units = static_cast<std::uint16_t>(size / 8);
  std::memcpy(p, &units, 2);
  std::memcpy(p + 4, &tag, 4);
  r.commit();
  return true;
}
// The tags of every committed record, in order; `freed` adds the bytes of the blocks left behind.
std::vector<std::uint32_t> take(byte_ring& r, std::size_t* freed = nullptr) {
  std::vector<std::uint32_t> tags;
  r.consume(
      [&](const unsigned char* p, std::size_t size) {
        std::uint32_t t;
        std::memcpy(&t, p + 4, 4);
        CHECK(size % 8 == 0);
        tags.push_back(t);
      },
      [&](std::size_t bytes) {
        if (freed != nullptr) *freed += bytes;
      });
  return tags;
}
// The tags 0, 1, ..., n - 1, each once, in that order.
bool in_order(const std::vector<std::uint32_t>& tags, std::uint32_t n) {
  if (tags.size() != n) return false;
  for (std::uint32_t i = 0; i < n; ++i)
    if (tags[i] != i) return false;
  return true;
}
}  // namespace

TEST_CASE("ring: capacity rounds to a power of two, records come back in order") {
  byte_ring r(5000);
  CHECK(r.capacity() == 8192);
  for (std::uint32_t i = 0; i < 10; ++i) REQUIRE(put(r, 24, i));
  auto t = take(r);
  REQUIRE(t.size() == 10);
  for (std::uint32_t i = 0; i < 10; ++i) CHECK(t[i] == i);
  CHECK(r.empty());
}

TEST_CASE("ring: full ring refuses, never overwrites / records never split at the wrap") {
  byte_ring r(4096);
  std::uint32_t n = 0;
  while (put(r, 200, n)) ++n;  // 200-byte records: 4096/200 = 20 fit
  CHECK(n == 20);
  auto t = take(r);
  CHECK(t.size() == 20);
  // Now the write position is at 4000: a 200-byte record needs the skip marker.
  REQUIRE(put(r, 200, 100));
  REQUIRE(put(r, 200, 101));
  t = take(r);
  REQUIRE(t.size() == 2);
  CHECK(t[0] == 100);
  CHECK(t[1] == 101);
  // A record that does not fit before the end and not after the start is refused.
  std::uint32_t k = 0;
  while (put(r, 1000, k)) ++k;
  CHECK(k >= 3);
  CHECK(take(r).size() == k);
}

TEST_CASE("ring: producer and consumer on two threads lose nothing") {
  byte_ring r(4096);
  constexpr std::uint32_t total = 200000;
  std::atomic<bool> done{false};
  std::vector<std::uint32_t> seen;
  std::thread consumer([&] {
    while (!done.load() || !r.empty()) {
      auto t = take(r);
      seen.insert(seen.end(), t.begin(), t.end());
    }
  });
  for (std::uint32_t i = 0; i < total; ++i) {
    std::size_t size = 8 * (2 + i % 7);
    while (!put(r, size, i)) std::this_thread::yield();
  }
  done = true;
  consumer.join();
  CHECK(in_order(seen, total));
}

TEST_CASE("ring: grow keeps the order across blocks and frees the old block once it is read") {
  byte_ring r(4096);
  std::uint32_t n = 0;
  while (put(r, 40, n)) ++n;  // the first block is full
  const std::uint32_t first = n;
  REQUIRE(r.grow(16384) == 16384);
  CHECK(r.capacity() == 16384);
  CHECK(r.held_bytes() == 4096 + 16384);
  while (put(r, 40, n)) ++n;  // the second block is full too
  CHECK(n - first == 16384 / 40);
  std::size_t freed = 0;
  const std::vector<std::uint32_t> tags = take(r, &freed);
  CHECK(in_order(tags, n));
  CHECK(freed == 4096);
  CHECK(r.held_bytes() == 16384);
  CHECK(r.empty());
  REQUIRE(put(r, 40, 7));  // the new block wraps like any ring
  CHECK(take(r) == std::vector<std::uint32_t>{7});
}

TEST_CASE("ring: a producer that grows while the consumer reads on another thread loses nothing") {
  byte_ring r(4096);
  constexpr std::uint32_t total = 300000;
  std::atomic<bool> done{false};
  std::size_t freed = 0;  // the consumer's; read after join
  std::vector<std::uint32_t> seen;
  std::thread consumer([&] {
    auto read = [&] {
      const auto t = take(r, &freed);
      seen.insert(seen.end(), t.begin(), t.end());
    };
    while (!done.load()) {
      read();
      std::this_thread::sleep_for(std::chrono::microseconds(50));  // let the ring fill up
    }
    read();
  });
  std::size_t grown = 0;
  for (std::uint32_t i = 0; i < total; ++i) {
    const std::size_t size = 8 * (2 + i % 7);
    while (!put(r, size, i)) {
      if (r.capacity() < (std::size_t{1} << 20))
        grown += r.grow(r.capacity() * 2);
      else
        std::this_thread::yield();
    }
  }
  done = true;
  consumer.join();
  CHECK(in_order(seen, total));
  CHECK(grown > 0);
  CHECK(freed + r.held_bytes() == 4096 + grown);  // every block but the last was freed
}

TEST_CASE("clock: calibration against CLOCK_MONOTONIC_RAW") {
  auto c = msprof::collect::calibrate(true, 5'000'000);
  if (c.counter) {
    CHECK(c.frequency_mhz > 100.0);  // any real TSC / generic timer
    auto t0 = msprof::collect::monotonic_raw_ns();
    auto c0 = msprof::collect::cpu_counter();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto dt = static_cast<double>(msprof::collect::monotonic_raw_ns() - t0);
    auto dc = static_cast<double>(msprof::collect::cpu_counter() - c0) * 1000.0 / c.frequency_mhz;
    CHECK(dc == doctest::Approx(dt).epsilon(0.02));
  } else {
    CHECK(c.frequency_mhz == 1000.0);
  }
  auto fallback = msprof::collect::calibrate(false);
  CHECK_FALSE(fallback.counter);
  CHECK(fallback.frequency_mhz == 1000.0);
  auto a = msprof::collect::auto_clock::now();
  auto b = msprof::collect::auto_clock::now();
  CHECK(b >= a);
}
