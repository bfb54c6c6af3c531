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
std::vector<std::uint32_t> take(byte_ring& r) {
  std::vector<std::uint32_t> tags;
  r.consume([&](const unsigned char* p, std::size_t size) {
    std::uint32_t t;
    std::memcpy(&t, p + 4, 4);
    CHECK(size % 8 == 0);
    tags.push_back(t);
  });
  return tags;
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
  REQUIRE(seen.size() == total);
  bool ordered = true;
  for (std::uint32_t i = 0; i < total; ++i) ordered = ordered && seen[i] == i;
  CHECK(ordered);
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
