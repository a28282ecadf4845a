#!/usr/bin/env python3
"""A test collector for smolder's sinks, used by the service_*/upload_* tests.

Python 3 standard library only. A threaded HTTP server bound to 127.0.0.1 on
an ephemeral port (written to --port-file once listening). Its behaviour is
switched while it runs through a control file: the test writes one line
"SEQ MODE [ARGS]" (atomically: write a temp file, rename it); the receiver
polls it, applies the mode and echoes the same line into the state file
(--control FILE.state) so the test knows the switch is in effect.

Modes:
  ok [STATUS]        answer 200 (or STATUS, e.g. 204) to every request
  refuse             close the listening socket and every open connection:
                     connects are refused; switching away reopens the SAME port
  status N [BODY]    answer N with a short body (default "test status N")
  sequence N,N,...   answer the listed statuses in order, then 200
  hang               read the request, never answer until the mode changes
                     (then answer per the new mode)
  pyroscope          validate like Grafana Pyroscope's /ingest (see check_ingest)

Every request is appended to --log as one JSON line: time, mode, method,
path, query (raw and parsed), headers, body length, the status answered and
the decoded body: "dump" (the gunzipped, parsed JSON dump; "window_id"
copied out) or, for /ingest, "lines" ([stack, count] pairs). Requests that
were not answered (hang, refuse) are logged with status null.

Bounded: exits after --max-time seconds (default 300) and on SIGTERM/SIGINT.
"""

import argparse
import gzip
import http.server
import json
import os
import re
import signal
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

MAX_STACKS = 16000
# Pyroscope's ingest rules (its key parser, then Grafana Pyroscope's label
# validation): application names [A-Za-z0-9_.-] after trimming spaces; label
# names as Prometheus' legacy grammar; values end at ',' or '}' and are
# trimmed of spaces (a value that would change is refused here: smolder must
# send what the server keeps); at most 30 labels, values of 2048 bytes.
APP_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
LABEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
BAD_VALUE_CHARS = set(",}=")
MAX_LABELS = 30
MAX_VALUE_BYTES = 2048


class State:
    def __init__(self, log_path):
        self.lock = threading.Condition()
        self.mode = ["ok"]
        self.seq_left = []
        self.gen = 0               # bumped on every mode change (wakes hangs)
        self.log_f = open(log_path, "a", encoding="utf-8")
        self.conns = set()
        self.stopping = False

    def set_mode(self, words):
        with self.lock:
            self.mode = words
            if words[0] == "sequence":
                self.seq_left = [int(x) for x in words[1].split(",") if x] if len(words) > 1 else []
            self.gen += 1
            self.lock.notify_all()

    def log(self, rec):
        line = json.dumps(rec, sort_keys=True) + "\n"
        with self.lock:
            self.log_f.write(line)
            self.log_f.flush()


STATE = None


# --------------------------------------------------------------------------
# Pyroscope /ingest validation

# The profile types Grafana Pyroscope's legacy ingest knows by the name's
# last part (its ingest adapter's convertMetadata); others are refused.
PROFILE_TYPES = {
    "cpu", "wall", "inuse_objects", "inuse_space", "alloc_objects", "alloc_space",
    "goroutines", "mutex_count", "mutex_duration", "block_count", "block_duration",
    "itimer", "alloc_in_new_tlab_objects", "alloc_in_new_tlab_bytes",
    "alloc_outside_tlab_objects", "alloc_outside_tlab_bytes", "lock_count",
    "lock_duration", "live", "exceptions",
}

def parse_name(name):
    """APP{k=v,...} -> (app, labels) or raise ValueError (Pyroscope's ParseKey
    plus label-name validation)."""
    if "{" not in name:
        app, rest = name, None
    else:
        i = name.index("{")
        app, rest = name[:i], name[i + 1:]
        if not rest.endswith("}"):
            raise ValueError("name %r: labels not closed by '}'" % name)
        rest = rest[:-1]
    if app == "":
        raise ValueError("name %r: empty application name" % name)
    svc, _, ptype = app.rpartition(".")
    if svc == "" or ptype == "":
        raise ValueError("name %r: want SERVICE.TYPE{...} with a non-empty service" % name)
    if ptype not in PROFILE_TYPES:
        raise ValueError("name %r: unknown profile type: %s" % (name, ptype))
    if not APP_NAME.match(app.strip()):
        raise ValueError("name %r: application name %r is not [A-Za-z0-9_.-]+" % (name, app))
    labels = {}
    if rest:
        for kv in rest.split(","):
            if "=" not in kv:
                raise ValueError("name %r: label %r without '='" % (name, kv))
            k, v = kv.split("=", 1)
            if not LABEL_NAME.match(k):
                raise ValueError("name %r: invalid label name %r" % (name, k))
            if any(c in BAD_VALUE_CHARS for c in v):
                raise ValueError("name %r: invalid label value %r" % (name, v))
            if v != v.strip():
                raise ValueError("name %r: label value %r would be trimmed" % (name, v))
            if "\ufffd" in v or len(v.encode("utf-8")) > MAX_VALUE_BYTES:
                raise ValueError("name %r: label value %r not UTF-8 or too long" % (name, v[:80]))
            if k in labels:
                raise ValueError("name %r: duplicate label %r" % (name, k))
            labels[k] = v
    if len(labels) > MAX_LABELS:
        raise ValueError("name %r: %d labels, more than %d" % (name, len(labels), MAX_LABELS))
    return app, labels


def check_ingest(path, query, headers, body):
    """Returns (status, message, record fields)."""
    extra = {}
    if path != "/ingest":
        return 404, "404 page not found: %s" % path, extra
    if headers.get("content-encoding", "").lower() not in ("", "identity"):
        return 400, "unsupported Content-Encoding %r" % headers.get("content-encoding"), extra
    q = {}
    for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True):
        q.setdefault(k, v)
    for k in ("name", "from", "until", "sampleRate", "spyName", "format"):
        if k not in q or q[k] == "":
            return 400, "missing query parameter %s" % k, extra
    if q["format"] != "folded":
        return 400, "format %r is not folded" % q["format"], extra
    try:
        app, labels = parse_name(q["name"])
    except ValueError as e:
        return 400, "invalid name: %s" % e, extra
    extra["app"] = app
    extra["labels"] = labels
    try:
        t0, t1, rate = int(q["from"]), int(q["until"]), int(q["sampleRate"])
    except ValueError:
        return 400, "from/until/sampleRate not integers", extra
    if not t0 < t1:
        return 400, "from %d is not before until %d" % (t0, t1), extra
    if rate <= 0:
        return 400, "sampleRate %d <= 0" % rate, extra
    extra.update({"from": t0, "until": t1, "sample_rate": rate})
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return 400, "body is not UTF-8: %s" % e, extra
    lines = []
    distinct = set()
    for n, line in enumerate(text.split("\n"), 1):
        if line == "":
            continue
        i = line.rfind(" ")
        if i < 0:
            return 400, "line %d: no count: %r" % (n, line[:100]), extra
        stack, cnt = line[:i], line[i + 1:]
        if not re.match(r"^[0-9]+$", cnt):
            return 400, "line %d: count %r is not an integer" % (n, cnt[:40]), extra
        lines.append([stack, int(cnt)])
        distinct.add(stack)
    if len(distinct) > MAX_STACKS:
        return 400, "profile has %d distinct stacks, more than %d" % (len(distinct), MAX_STACKS), extra
    extra["lines"] = lines
    extra["distinct"] = len(distinct)
    return 200, "", extra


# --------------------------------------------------------------------------
# HTTP

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "smolder-test-receiver/1"

    def log_message(self, fmt, *args):  # quiet: the JSON log says it all
        pass

    def setup(self):
        super().setup()
        with STATE.lock:
            STATE.conns.add(self.connection)

    def finish(self):
        with STATE.lock:
            STATE.conns.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def read_body(self):
        te = self.headers.get("Transfer-Encoding", "")
        if te.lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def answer(self, status, body):
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)
        self.wfile.flush()

    def handle_any(self):
        t = time.time()
        body = self.read_body()
        url = urllib.parse.urlsplit(self.path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = {"time": t, "method": self.command, "path": url.path, "query": url.query,
               "params": dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True)),
               "headers": headers, "body_len": len(body)}
        with STATE.lock:
            mode = list(STATE.mode)
            gen = STATE.gen
        rec["mode"] = " ".join(mode)
        if mode[0] == "refuse":
            # A connection opened before the switch: drop it unanswered.
            rec["status"] = None
            STATE.log(rec)
            self.close_connection = True
            return
        if mode[0] == "hang":
            rec["hung"] = True
            with STATE.lock:
                while STATE.gen == gen and not STATE.stopping:
                    STATE.lock.wait(0.2)
                mode = list(STATE.mode)
                rec["mode"] = " ".join(mode)
            if mode[0] in ("refuse", "hang") or STATE.stopping:
                rec["status"] = None
                STATE.log(rec)
                self.close_connection = True
                return
        if mode[0] == "pyroscope":
            status, msg, extra = check_ingest(url.path, url.query, headers, body)
            rec.update(extra)
            rec["status"] = status
            rec["answer"] = msg
            STATE.log(rec)
            try:
                self.answer(status, msg + "\n" if msg else "")
            except OSError:
                pass
            return
        # JSON sink modes: decode the body for the log.
        try:
            raw = gzip.decompress(body) if headers.get("content-encoding", "").lower() == "gzip" else body
            dump = json.loads(raw.decode("utf-8"))
            rec["dump"] = dump
            if isinstance(dump, dict) and isinstance(dump.get("window"), dict):
                rec["window_id"] = dump["window"].get("id")
        except Exception as e:  # noqa: BLE001 - any decoding failure is data
            rec["decode_error"] = "%s: %s" % (type(e).__name__, e)
        if mode[0] == "ok":
            status, msg = (int(mode[1]) if len(mode) > 1 else 200), ""
        elif mode[0] == "status":
            status = int(mode[1])
            msg = " ".join(mode[2:]) if len(mode) > 2 else "test status %d" % status
        elif mode[0] == "sequence":
            with STATE.lock:
                status = STATE.seq_left.pop(0) if STATE.seq_left else 200
            msg = "" if status < 300 else "test sequence status %d" % status
        else:
            status, msg = 500, "receiver: unknown mode %r" % mode[0]
        rec["status"] = status
        rec["answer"] = msg
        STATE.log(rec)
        try:
            self.answer(status, (msg + "\n") if msg and status != 204 else "")
        except OSError:
            pass

    do_POST = handle_any
    do_PUT = handle_any
    do_GET = handle_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True   # SO_REUSEADDR: reopen the same port after refuse


def listen(port):
    srv = Server(("127.0.0.1", port), Handler)
    th = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    th.start()
    return srv, th


def close_listener(srv, th):
    srv.shutdown()
    srv.server_close()
    th.join(5)
    # Sever kept-alive connections too, so a client really sees the collector go.
    with STATE.lock:
        conns = list(STATE.conns)
    for c in conns:
        try:
            c.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def write_atomic(path, text):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.rename(tmp, path)


def main(argv):
    global STATE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--control", required=True, help="control file; FILE.state echoes the applied mode")
    ap.add_argument("--mode", default="ok", help="initial mode (words separated by spaces)")
    ap.add_argument("--max-time", type=float, default=300)
    a = ap.parse_args(argv)

    STATE = State(a.log)
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    srv, th = listen(0)
    port = srv.server_address[1]
    deadline = time.monotonic() + a.max_time
    listening = True

    def apply(words):
        nonlocal srv, th, listening
        if words[0] == "refuse":
            STATE.set_mode(words)
            if listening:
                close_listener(srv, th)
                listening = False
        else:
            if not listening:
                for _ in range(100):
                    try:
                        srv, th = listen(port)
                        break
                    except OSError:
                        time.sleep(0.05)
                else:
                    print("receiver: cannot reopen port %d" % port, file=sys.stderr)
                    sys.exit(1)
                listening = True
            STATE.set_mode(words)

    init = a.mode.split()
    apply(init)
    state_path = a.control + ".state"
    write_atomic(state_path, "0 " + " ".join(init) + "\n")
    write_atomic(a.port_file, "%d\n" % port)

    last = None
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            with open(a.control, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            text = None
        if text is not None and text != last and text.endswith("\n"):
            last = text
            words = text.split()
            if len(words) >= 2:
                apply(words[1:])
                write_atomic(state_path, text)
        stop.wait(0.05)
    with STATE.lock:
        STATE.stopping = True
        STATE.lock.notify_all()
    if listening:
        close_listener(srv, th)
    STATE.log_f.close()
    return 0


# --------------------------------------------------------------------------
# Helpers for the tests' Python snippets (import receiver as rcv)

def load_log(path):
    """The requests logged so far (a last line still being written is skipped)."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.endswith("\n"):
                    out.append(json.loads(line))
    except FileNotFoundError:
        pass
    return out


def load_gz_dump(path):
    with open(path, "rb") as f:
        return json.loads(gzip.decompress(f.read()).decode("utf-8"))


_SCHEMA = None


def schema_errors(dump, schema_path):
    """Problems found by jsonschema (None when jsonschema is not importable)."""
    global _SCHEMA
    try:
        import jsonschema
    except ImportError:
        return None
    if _SCHEMA is None:
        with open(schema_path, encoding="utf-8") as f:
            _SCHEMA = json.load(f)
    v = jsonschema.Draft7Validator(_SCHEMA)
    return ["%s: %s" % ("/".join(str(x) for x in e.path), e.message) for e in v.iter_errors(dump)][:10]


def full_check(dump, what, schema_path=None):
    """dumpcheck's validator + the JSON Schema + window.id; list of problems."""
    import dumpcheck
    errs = ["%s: %s" % (what, e) for e in dumpcheck.validate(dump)]
    if schema_path:
        se = schema_errors(dump, schema_path)
        errs += ["%s: schema: %s" % (what, e) for e in (se or [])]
    if isinstance(dump, dict):
        w = dump.get("window") or {}
        want = "%s@%s" % ((dump.get("host") or {}).get("hostname"), w.get("start_ns"))
        # a window recorded with two events: the second's dump is its own
        ev = (dump.get("event") or {}).get("name")
        if w.get("id") not in (want, "%s/%s" % (want, ev)):
            errs.append("%s: window.id %r, want %r or %r" % (what, w.get("id"), want,
                                                            "%s/%s" % (want, ev)))
    return errs


def contiguity_errors(windows):
    """windows: (start_ns, end_ns, label); sorted by start, each end == next start."""
    errs = []
    ws = sorted(windows)
    for a, b in zip(ws, ws[1:]):
        if a[1] != b[0]:
            errs.append("window %s [%d, %d] then %s [%d, %d]: %s of %.3f s"
                        % (a[2], a[0], a[1], b[2], b[0], b[1],
                           "gap" if b[0] > a[1] else "overlap", abs(b[0] - a[1]) / 1e9))
    return errs


def make_dump(start_ns, end_ns, nstacks, host="synthetic-host", services=("svc-a", "svc.b"), seed=1):
    """A valid smolder.profile/v1 dump with about nstacks distinct stacks
    spread over the services (one profile each), sums right, sorted as the
    format says."""
    import random
    rnd = random.Random(seed)
    profiles = []
    per = max(1, nstacks // len(services))
    total = 0
    for k, svc in enumerate(services):
        stacks = []
        for i in range(per):
            st = "_start;__libc_start_main;main;worker_%d;f%05d;leaf_%d" % (k, i, i % 7)
            if i % 5 == 0:
                st += ";do_syscall_64_[k]"
            stacks.append({"stack": st, "count": rnd.randint(1, 4)})
        stacks.sort(key=lambda s: (-s["count"], s["stack"].encode()))
        n = sum(s["count"] for s in stacks)
        total += n
        profiles.append({"labels": {"service_name": svc, "exe": "/usr/bin/" + svc, "comm": svc[:15]},
                         "samples": n, "stacks": stacks})
    profiles.sort(key=lambda p: (-p["samples"], p["labels"]["service_name"].encode()))
    return {"schema": "smolder.profile/v1",
            "agent": {"name": "smolder", "version": "0.1.0"},
            "host": {"hostname": host, "kernel": "6.1.0", "arch": "x86_64"},
            "window": {"start_ns": start_ns, "end_ns": end_ns, "id": "%s@%d" % (host, start_ns)},
            "event": {"name": "cpu-clock", "unit": "samples", "frequency_hz": 99},
            "labels": {"env": "test"},
            "profiles": profiles,
            "stats": {"samples": total + 3, "lost": 0, "dropped": 3, "throttled": 0, "kernel_only": 0,
                      "idle": 3, "corrupt": 0,
                      "unwind": {"complete": total, "truncated": 0, "no_cfi": 0, "no_map": 0,
                                 "bad_pc": 0, "depth": 0},
                      "processes": 2, "binaries": 2, "agent_cpu_ns": 1000, "agent_rss_bytes": 4096}}


def write_gz(path, dump):
    data = (json.dumps(dump, separators=(",", ":")) + "\n").encode("utf-8")
    with open(path, "wb") as f:
        f.write(gzip.compress(data))


def spool_name(dump):
    return "%020d-%s.json.gz" % (dump["window"]["start_ns"], dump["host"]["hostname"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
