// SPDX-License-Identifier: MIT
// codec/decode.hpp: the lines of the host's disk and network usage slices
// (decode_host_disk_line, decode_host_net_line), as the reference's
// HostDiskUsagePresenter and HostNetworkUsagePresenter split them.
#include <doctest/doctest.h>

#include <msprof/codec/decode.hpp>
#include <string>

namespace codec = msprof::codec;

namespace {
const codec::place at{"host_x.data.slice_0", 7};
}

TEST_CASE("host disk lines: start_time, samples with their units, and iotop's headers passed over") {
  auto l = codec::decode_host_disk_line("start_time 1000000050000", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostDiskLine::start_time);
  CHECK(l->start_ns == 1000000050000.0);

  for (const char* header : {"", "12:00:00 Total DISK READ :       0.00 K/s | Total DISK WRITE :       0.00 K/s",
                             "    TIME  TID  PRIO  USER     DISK READ  DISK WRITE  SWAPIN      IO    COMMAND", "12:00:0"}) {
    CAPTURE(header);
    l = codec::decode_host_disk_line(header, at);
    REQUIRE(l.has_value());
    CHECK(l->kind == codec::HostDiskLine::other);
  }

  l = codec::decode_host_disk_line("12:00:00  4242 be/4 root  512.00 B/s  3.25 M/s  0.10 % 17.50 % python app.py", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostDiskLine::sample);
  CHECK(l->read_kbs == 0.5);
  CHECK(l->write_kbs == 3.25 * 1024);
  CHECK(l->io_percent == 17.5);
  CHECK(l->flags == 0);

  l = codec::decode_host_disk_line("12:00:00  4243 be/4 root  1.50 G/s  x K/s ?unavailable?  python", at);
  REQUIRE(l.has_value());
  CHECK(l->read_kbs == 1.5 * 1024 * 1024);
  CHECK(l->write_kbs == 0);
  CHECK(l->io_percent == 0);
  CHECK(l->flags == codec::HostDiskLine::bad_write);

  l = codec::decode_host_disk_line("12:00:00  4243 be/4 root  2 T/s  1e1 K/s", at);  // 8 fields: no IO column
  REQUIRE(l.has_value());
  CHECK(l->read_kbs == 2);
  CHECK(l->write_kbs == 10);
  CHECK(l->flags == codec::HostDiskLine::unknown_unit);

  auto bad = codec::decode_host_disk_line("12:00:00  4242 be/4 root  1 K/s", at);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().message == "host_x.data.slice_0: record at byte offset 7: 6 fields in a host disk line, not at least 8");
  bad = codec::decode_host_disk_line("12:00:00  4242 be/4 root  1 K/s  1 K/s  0.00 %  nan % python", at);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().message.find("host disk IO 'nan' is not a number") != std::string::npos);
}

TEST_CASE("host network lines: time, /proc/net/dev interfaces, headers passed over") {
  auto l = codec::decode_host_net_line("time 1000000100000", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostNetLine::time);
  CHECK(l->timestamp == 1000000100000u);
  CHECK_FALSE(codec::decode_host_net_line("time 1.5e12", at).has_value());
  CHECK_FALSE(codec::decode_host_net_line("time", at).has_value());

  l = codec::decode_host_net_line("  eth0: 5000000 4001 0 0 0 0 0 0 3000000 3001 0 0 0 0 0 0", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostNetLine::interface);
  CHECK(l->name == "eth0");
  CHECK(l->rx_bytes == 5000000);
  CHECK(l->tx_bytes == 3000000);

  l = codec::decode_host_net_line("  eth0:5000000 4001 0 0 0 0 0 0 3000000 3001 0 0 0 0 0", at);  // glued: a name the reference cannot match
  REQUIRE(l.has_value());
  CHECK(l->name == "eth0:500000");

  l = codec::decode_host_net_line(" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostNetLine::bad_interface);
  CHECK(l->name == "fac");  // never listed: passed over
  l = codec::decode_host_net_line("Inter-|   Receive                                                |  Transmit", at);
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostNetLine::other);
  l = codec::decode_host_net_line("  eth1: +5 1 0 0 0 0 0 0 -7 1 0 0", at);  // Python's int() takes signs
  REQUIRE(l.has_value());
  CHECK(l->kind == codec::HostNetLine::interface);
  CHECK(l->rx_bytes == 5);
  CHECK(l->tx_bytes == -7);
}
