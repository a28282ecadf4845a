# Python workloads for smolder's CPython tests; runs on 2.7 and 3.6+.
#   py_work.py chain SECONDS      outer -> middle -> inner, tight loops in inner
#   py_work.py native SECONDS     compress_data -> zlib.compress (C code under it)
#   py_work.py chains SECONDS     a_outer -> a_mid -> a_leaf (zlib) and
#                                 b_outer -> b_mid -> b_leaf (sha256), the
#                                 main loop switching chains about every
#                                 millisecond
#   py_work.py pool SECONDS       a pool of four threads running short tasks
#                                 (0.5-2 ms), task_a in zlib or task_b in
#                                 sha256, at random
#   py_work.py threads SECONDS    two threads, each with its own chain
#   py_work.py deep SECONDS       62 Python frames (<module>, main, level x 59,
#                                 deep_leaf) over zlib.compress, then a second
#                                 asleep on the same stack
import hashlib
import sys
import threading
import time
import zlib

# A run lasts SECONDS, and longer (up to four times) until the process has
# had 80 % of SECONDS on a CPU: a test beside others on a busy machine
# still records a run's worth of samples.
_cpu = getattr(time, "process_time", None) or time.clock
_cpu_goal = 0.0
_hard = 0.0


def more(until):
    now = time.time()
    if now < until:
        return True
    return now < _hard and _cpu() < _cpu_goal


def inner(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def middle(n):
    return inner(n)


def outer(until):
    while more(until):
        middle(20000)


def compress_data(blob, until):
    while more(until):
        zlib.compress(blob, 9)


def a_leaf(blob, until):
    while time.time() < until:
        zlib.compress(blob, 6)


def a_mid(blob, until):
    a_leaf(blob, until)


def a_outer(blob, until):
    a_mid(blob, until)


def b_leaf(blob, until):
    while time.time() < until:
        hashlib.sha256(blob).digest()


def b_mid(blob, until):
    b_leaf(blob, until)


def b_outer(blob, until):
    b_mid(blob, until)


def chains(until):
    blob = bytes(bytearray((i * 7919 + (i >> 3)) & 0xff for i in range(16384)))
    while more(until):
        t = time.time()
        a_outer(blob, t + 0.001)
        b_outer(blob, t + 0.002)


def task_a(blob, ms):
    until = time.time() + ms / 1000.0
    while time.time() < until:
        zlib.compress(blob, 6)


def task_b(blob, ms):
    until = time.time() + ms / 1000.0
    while time.time() < until:
        hashlib.sha256(blob).digest()


def pool(until):
    import random
    from concurrent.futures import ThreadPoolExecutor
    blob = bytes(bytearray((i * 7919 + (i >> 3)) & 0xff for i in range(16384)))
    rnd = random.Random(27)
    with ThreadPoolExecutor(max_workers=4) as ex:
        while more(until):
            fs = [ex.submit(rnd.choice((task_a, task_b)), blob, rnd.uniform(0.5, 2.0))
                  for _ in range(16)]
            for f in fs:
                f.result()


def worker_a(until):
    while more(until):
        spin_a(5000)


def spin_a(n):
    total = 0
    for i in range(n):
        total += i ^ 3
    return total


def worker_b(until):
    while more(until):
        spin_b(5000)


def spin_b(n):
    total = 0
    for i in range(n):
        total += i | 5
    return total


def level(n, blob, until):
    if n == 0:
        return deep_leaf(blob, until)
    # the addition keeps the call from being the frame's last act
    return level(n - 1, blob, until) + 0


def deep_leaf(blob, until):
    while more(until):
        zlib.compress(blob, 9)
    # samples are handled up to a poll interval late: the stack stays
    time.sleep(1)
    return 0


def threads(until):
    ts = [threading.Thread(target=worker_a, args=(until,)),
          threading.Thread(target=worker_b, args=(until,))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def main():
    global _cpu_goal, _hard
    mode, seconds = sys.argv[1], float(sys.argv[2])
    until = time.time() + seconds
    _cpu_goal = _cpu() + 0.8 * seconds
    _hard = time.time() + 4 * seconds
    if mode == "chain":
        outer(until)
    elif mode == "native":
        blob = bytes(bytearray((i * 31 + (i >> 5)) & 0xff for i in range(1 << 16)))
        compress_data(blob, until)
    elif mode == "chains":
        chains(until)
    elif mode == "pool":
        pool(until)
    elif mode == "threads":
        threads(until)
    elif mode == "deep":
        blob = bytes(bytearray((i * 7919 + (i >> 3)) & 0xff for i in range(16384)))
        level(58, blob, until)
    else:
        sys.exit("unknown mode " + mode)


main()
