#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic of kmod_guest.sh that the bench tools cannot make:

  guest_traffic.py sink --port P [--secs S]
      a UDP socket on 127.0.0.1:P with the smallest receive buffer that
      never reads (every datagram past the first few is dropped by the stack)
  guest_traffic.py dodgy --dev DEV --src-mac M --dst-mac M --port P
                         --count N --len BYTES --gso-size S
      N TCP GSO frames (10.71.0.1:40000 -> 10.71.0.2:P, BYTES of payload)
      from a packet socket with a virtio-net header: DODGY skbs whose
      gso_segs the stack leaves 0 until segmentation"""
import argparse
import socket
import struct
import time

SOL_PACKET = 263
PACKET_VNET_HDR = 15


def sink(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    s.bind(("127.0.0.1", a.port))
    time.sleep(a.secs)


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff


def frame(a):
    """Ethernet + IPv4 + TCP headers and payload of one GSO frame, after
    its virtio-net header (NEEDS_CSUM, GSO_TCPV4, hdr_len, gso_size,
    csum_start, csum_offset)"""
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    src = bytes.fromhex(a.src_mac.replace(":", ""))
    pay = b"x" * a.len
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(pay), 1, 0x4000, 64, 6, 0,
                     socket.inet_aton("10.71.0.1"), socket.inet_aton("10.71.0.2"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    tcp = struct.pack("!HHIIBBHHH", 40000, a.port, 1, 0, 5 << 4, 0x18, 65535, 0, 0)
    vnet = struct.pack("<BBHHHH", 1, 1, 54, a.gso_size, 34, 16)
    return vnet + dst + src + b"\x08\x00" + ip + tcp + pay


def dodgy(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    s.bind((a.dev, 0))
    f = frame(a)
    for _ in range(a.count):
        s.send(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("sink", help="a UDP socket that never reads")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--secs", type=float, default=60)
    p.set_defaults(fn=sink)
    p = sub.add_parser("dodgy", help="TCP GSO frames from a packet socket")
    p.add_argument("--dev", required=True)
    p.add_argument("--src-mac", required=True)
    p.add_argument("--dst-mac", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--len", type=int, required=True)
    p.add_argument("--gso-size", type=int, required=True)
    p.set_defaults(fn=dodgy)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
