"""Bench workload (CPython 2.7 and 3): recursive fib in a loop; the same
progress protocol as the C workloads ("progress COUNT MONO_NS" on SIGUSR1
and at exit)."""
import signal
import sys
import time

done = 0

try:
    monotonic_ns = time.monotonic_ns
except AttributeError:
    # 2.7 has no monotonic clock of its own: libc's clock_gettime
    import ctypes

    class timespec(ctypes.Structure):
        _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    CLOCK_MONOTONIC = 1

    def monotonic_ns():
        ts = timespec()
        libc.clock_gettime(CLOCK_MONOTONIC, ctypes.byref(ts))
        return ts.tv_sec * 1000000000 + ts.tv_nsec


def report(*_):
    sys.stdout.write("progress %d %d\n" % (done, monotonic_ns()))
    sys.stdout.flush()


def stop(*_):
    report()
    sys.exit(0)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


signal.signal(signal.SIGUSR1, report)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
report()
while True:
    fib(18)
    done += 1
