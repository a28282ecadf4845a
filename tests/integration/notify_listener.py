#!/usr/bin/env python3
"""A stand-in for systemd's notification socket: binds a datagram socket at
argv[1] and appends every message it receives, one per line, to argv[2].
Exits after argv[3] seconds (bounded)."""
import os
import socket
import sys
import time

path, out, lifetime = sys.argv[1], sys.argv[2], float(sys.argv[3])
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
sock.settimeout(0.2)
end = time.monotonic() + lifetime
with open(out, "a", buffering=1) as f:
    f.write("LISTENING\n")
    while time.monotonic() < end:
        try:
            msg = sock.recv(4096)
        except socket.timeout:
            continue
        f.write(msg.decode("utf-8", "replace").replace("\n", " ") + "\n")
os.unlink(path)
