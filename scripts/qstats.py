#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""qstats.py DEV: a device's per-queue packet and byte counters from the
netdev generic netlink family (NETDEV_CMD_QSTATS_GET, scope queue; 6.10+),
one line each, named as older drivers name them in `ethtool -S` (also the
rx checksum, rx-hw-gro-* and tx-hw-gso-* counters where the driver reports them):

    qstat rx_queue_0_packets 123
    qstat tx_queue_1_bytes 4567

Since 6.10 drivers such as virtio_net report these through netlink only
(`ethtool -S` keeps the per-queue drops and kicks); snapshot.sh counters
prints them beside ethtool -S.  Prints nothing and exits 0 when the kernel
or the device has no queue stats (an older kernel, veth): the caller then
has only ethtool -S.  Standard library only (no ynl, no pyroute2).
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
# include/uapi/linux/netdev.h (6.10+)
NETDEV_CMD_QSTATS_GET = 12
A_IFINDEX, A_QTYPE, A_QID, A_SCOPE = 1, 2, 3, 4
A_STATS = {8: ("rx", "packets"), 9: ("rx", "bytes"),
           10: ("tx", "packets"), 11: ("tx", "bytes"),
           # what the driver reports of its checksum and coalescing work
           15: ("rx", "csum_complete"), 16: ("rx", "csum_unnecessary"),
           17: ("rx", "csum_none"), 18: ("rx", "csum_bad"),
           19: ("rx", "hw_gro_packets"), 21: ("rx", "hw_gro_wire_packets"),
           # the device's own GSO (6.11+): one hw_gso packet per GSO skb the
           # device segmented, hw_gso_wire its segments (uapi netdev.h: 28, 30)
           28: ("tx", "hw_gso_packets"), 30: ("tx", "hw_gso_wire_packets")}
QTYPE = {0: "rx", 1: "tx"}
SCOPE_QUEUE = 1


def attr(t, payload):
    ln = 4 + len(payload)
    return struct.pack("HH", ln, t) + payload + b"\0" * ((4 - ln % 4) % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, t = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[t & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def uint(b):
    return int.from_bytes(b, sys.byteorder)


def talk(sk, ftype, cmd, payload, flags):
    hdr = struct.pack("BBH", cmd, 1, 0)
    msg = hdr + payload
    sk.send(struct.pack("IHHII", 16 + len(msg), ftype, NLM_F_REQUEST | flags, 1, 0) + msg)
    msgs = []
    while True:
        data = sk.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            ln, typ, _, _, _ = struct.unpack_from("IHHII", data, off)
            if ln < 16:
                return msgs
            body = data[off + 16:off + ln]
            off += (ln + 3) & ~3
            if typ == NLMSG_DONE:
                return msgs
            if typ == NLMSG_ERROR:
                err = struct.unpack_from("i", body)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return msgs
            msgs.append(attrs(body[4:]))
            if not flags & NLM_F_DUMP:
                return msgs


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: qstats.py DEV", file=sys.stderr)
        return 0 if len(argv) == 2 else 1
    try:
        ifindex = socket.if_nametoindex(argv[1])
    except OSError:
        print("qstats.py: no device %s" % argv[1], file=sys.stderr)
        return 1
    try:
        sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        sk.settimeout(2)
        fam = talk(sk, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                   attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"), 0)
        fid = uint(fam[0][CTRL_ATTR_FAMILY_ID])
        req = attr(A_IFINDEX, struct.pack("I", ifindex)) + \
            attr(A_SCOPE, struct.pack("I", SCOPE_QUEUE))
        rows = talk(sk, fid, NETDEV_CMD_QSTATS_GET, req, NLM_F_DUMP)
    except (OSError, KeyError, IndexError, struct.error):
        return 0	# no netdev family or no qstats here: nothing to add
    lines = []
    for r in rows:
        if A_QTYPE not in r or A_QID not in r:
            continue
        if A_IFINDEX in r and uint(r[A_IFINDEX]) != ifindex:
            continue
        q = QTYPE.get(uint(r[A_QTYPE]))
        qid = uint(r[A_QID])
        for a, (dirn, what) in A_STATS.items():
            if a in r and dirn == q:
                lines.append((q, qid, what, uint(r[a])))
    for q, qid, what, v in sorted(lines):
        print("qstat %s_queue_%d_%s %d" % (q, qid, what, v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
