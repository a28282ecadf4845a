"""Bench workload (python3): recursive fib in a loop; the same progress
protocol as the C workloads ("progress COUNT MONO_NS" on SIGUSR1 and at exit)."""
import signal
import sys
import time

done = 0


def report(*_):
    print("progress %d %d" % (done, time.monotonic_ns()), flush=True)


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
