import socket, sys
n, port = int(sys.argv[1]), int(sys.argv[2])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
r.bind(("127.0.0.1", port)); r.setblocking(False)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
got = 0
for i in range(n):
    s.sendto(b"x" * 64, ("127.0.0.1", port))
    try:
        while True:
            r.recv(100); got += 1
    except BlockingIOError:
        pass
print("sent", n, "read", got)
