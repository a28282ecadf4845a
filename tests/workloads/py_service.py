# A thread-per-request HTTP service for smolder's CPython tests; runs on
# 2.7 and 3.6+. Each request runs on a thread of its own that lives for
# that request alone: do_GET -> handler -> helper, CPU-bound for about
# 3 ms of a CPU (REQUEST_S).
#   py_service.py serve PORTFILE SECONDS   listens on 127.0.0.1 (a free
#                                          port, written to PORTFILE)
#   py_service.py load PORT SECONDS        CLIENTS client threads requesting
#                                          without pause
# At its end serve writes PORTFILE.cpu, the reference a profile of it is
# judged by (3.7+, which has a thread's own CPU clock): the CPU time its
# request threads had, and the part of it spent in do_GET's call of
# handler, each from the kernel's per-thread accounting.
import sys
import threading
import time

# Clients of the load, at once: two keep the service busy and leave a
# CPU of a two-CPU test host for the agent.
CLIENTS = 2

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn
    from urllib.request import urlopen
except ImportError:  # 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn
    from urllib2 import urlopen


_thread_cpu = getattr(time, "thread_time", None)
_cpu_lock = threading.Lock()
_cpu = {"threads": 0.0, "chain": 0.0, "requests": 0}


def _count(key, seconds):
    with _cpu_lock:
        _cpu[key] += seconds


class Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True

    def process_request_thread(self, request, client_address):
        try:
            ThreadingMixIn.process_request_thread(self, request, client_address)
        finally:
            if _thread_cpu:
                _count("threads", _thread_cpu())
                _count("requests", 1)


# A request's work: helper's iterations, set by serve so that one request
# is REQUEST_S of a CPU on the host at hand (a fast CPU ran the fixed
# 40,000 in 1.1 ms, and the share of samples read after their request
# ended grows as the request shortens), never fewer than 40,000.
REQUEST_S = 0.003
HELPER_N = 40000


def helper(n):
    total = 0
    for i in range(n):
        total += i * i % 13
    return total


def handler():
    return helper(HELPER_N)


class ShopHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        t0 = _thread_cpu() if _thread_cpu else 0
        body = str(handler()).encode()
        if _thread_cpu:
            _count("chain", _thread_cpu() - t0)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def calibrate():
    global HELPER_N

    def timed():
        t0 = time.time()
        helper(20000)
        return time.time() - t0
    best = min(timed() for _ in range(5))
    if best > 0:
        HELPER_N = max(40000, int(20000 * REQUEST_S / best))


def serve(portfile, seconds):
    calibrate()
    srv = Server(("127.0.0.1", 0), ShopHandler)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    until = time.time() + seconds
    srv.timeout = 0.2
    while time.time() < until:
        srv.handle_request()
    if _thread_cpu:
        with _cpu_lock:
            line = "%d requests, request threads %.3f s CPU, in do_GET -> handler %.3f s\n" % (
                _cpu["requests"], _cpu["threads"], _cpu["chain"])
        with open(portfile + ".cpu", "w") as f:
            f.write(line)


def load(port, seconds):
    until = time.time() + seconds
    url = "http://127.0.0.1:%d/item" % port

    def client():
        while time.time() < until:
            try:
                urlopen(url, timeout=5).read()
            except Exception:
                time.sleep(0.01)
    ts = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], float(sys.argv[3]))
    else:
        load(int(sys.argv[2]), float(sys.argv[3]))
