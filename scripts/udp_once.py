#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One-datagram traffic of bpf_test.sh's GRO-held case (the bench tools
always read what arrives and send for a duration):

  udp_once.py hold ADDR PORT SECS   a UDP_GRO socket bound to ADDR:PORT
                                    that never reads, for SECS seconds
  udp_once.py send ADDR PORT LEN    one datagram of LEN bytes to ADDR:PORT,
                                    sent right after a jiffy began (the
                                    coarse clock ticks with jiffies)
  udp_once.py burst ADDR PORT N CMD...
                                    runs CMD, then at once sends N
                                    one-byte datagrams to ADDR:PORT from
                                    a socket opened before it (bpf_test.sh
                                    unseenold: CMD frees a held skb, the
                                    burst takes its address)
IPv4 addresses."""
import socket
import subprocess
import sys
import time

UDP_GRO = 104
# Linux's CLOCK_MONOTONIC_COARSE (not in Python's time module before 3.13)
COARSE = getattr(time, "CLOCK_MONOTONIC_COARSE", 6)


def main(argv):
    if (len(argv) < 5 or argv[1] not in ("hold", "send", "burst") or
            (len(argv) == 5) == (argv[1] == "burst")):
        sys.stderr.write("usage: udp_once.py hold ADDR PORT SECS | send ADDR PORT LEN"
                         " | burst ADDR PORT N CMD...\n")
        return 2
    cmd, addr, port, n = argv[1], argv[2], int(argv[3]), int(argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if cmd == "burst":
        subprocess.run(argv[5:], check=True)
        for _ in range(n):
            s.sendto(b"x", (addr, port))
    elif cmd == "hold":
        s.setsockopt(socket.IPPROTO_UDP, UDP_GRO, 1)
        s.bind((addr, port))
        time.sleep(n)
    else:
        # right after a tick: the NAPI poll that holds it (run at once, on
        # the sender's softirq) ends in the jiffy it began, so that
        # napi_complete_done does not flush it as older (gro_flush_timeout)
        t0 = time.clock_gettime_ns(COARSE)
        while time.clock_gettime_ns(COARSE) == t0:
            pass
        s.sendto(b"x" * n, (addr, port))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
