#!/usr/bin/env python3
"""A FastCGI client for the PHP-FPM test: sends GET requests for SCRIPT to
the pool listening on the Unix socket SOCK, CONNS connections at a time,
for SECONDS, and prints how many were answered with the script's output.

Usage: fcgi_client.py SOCK SCRIPT SECONDS [CONNS]   exit 0 when at least one
request was answered, 1 otherwise. Bounded in time; only the local socket."""
import socket
import struct
import sys
import threading
import time

BEGIN, END, PARAMS, STDIN, STDOUT = 1, 3, 4, 5, 6


def record(kind, rid, body):
    return struct.pack("!BBHHBx", 1, kind, rid, len(body), 0) + body


def pair(k, v):
    k, v = k.encode(), v.encode()
    enc = lambda n: bytes([n]) if n < 128 else struct.pack("!I", n | 0x80000000)
    return enc(len(k)) + enc(len(v)) + k + v


def request(sock_path, script):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock_path)
    params = b"".join(pair(k, v) for k, v in (
        ("SCRIPT_FILENAME", script), ("SCRIPT_NAME", "/app.php"),
        ("REQUEST_METHOD", "GET"), ("QUERY_STRING", ""), ("SERVER_PROTOCOL", "HTTP/1.1"),
        ("GATEWAY_INTERFACE", "CGI/1.1"), ("REMOTE_ADDR", "127.0.0.1")))
    s.sendall(record(BEGIN, 1, struct.pack("!HB5x", 1, 0)) + record(PARAMS, 1, params) +
              record(PARAMS, 1, b"") + record(STDIN, 1, b""))
    out = b""
    buf = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        while len(buf) >= 8:
            _, kind, _, clen, plen = struct.unpack("!BBHHB", buf[:7])
            if len(buf) < 8 + clen + plen:
                break
            body, buf = buf[8:8 + clen], buf[8 + clen + plen:]
            if kind == STDOUT:
                out += body
            if kind == END:
                s.close()
                return b"digest" in out
    s.close()
    return False


def main():
    sock_path, script, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    conns = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    until = time.time() + seconds
    done = [0, 0]
    lock = threading.Lock()

    def loop():
        while time.time() < until:
            try:
                ok = request(sock_path, script)
            except OSError:
                ok = False
                time.sleep(0.05)
            with lock:
                done[0 if ok else 1] += 1

    threads = [threading.Thread(target=loop) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("requests answered: %d, failed: %d" % (done[0], done[1]))
    sys.exit(0 if done[0] else 1)


if __name__ == "__main__":
    main()
