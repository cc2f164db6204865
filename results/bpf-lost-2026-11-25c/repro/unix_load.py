# consume_skb in process context with BHs enabled, as fast as one process
# can: a unix stream socketpair, 64 bytes written and read in a loop
# (unix_stream_read_generic frees each skb with consume_skb())
import signal
import socket
import sys
import time

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
end = time.time() + float(sys.argv[1])
n = 0
try:
    while time.time() < end:
        for _ in range(1000):
            a.send(b"x" * 64)
            b.recv(64)
        n += 1000
finally:
    print("unix_load: %d skbs consumed" % n, flush=True)
