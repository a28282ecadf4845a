# Python threads that wait in known places, for smolder's off-cpu tests;
# runs on 2.7 and 3.6+. For argv[1] seconds: the main thread sleeps 10 ms
# at a time in nap() (under waiter()), and feeds a socket pair; a thread
# blocks in sock.recv() in recv_loop(). Each is off the CPU nearly all the
# time, so their Python frames hold about half of the process's off-CPU
# time each.
import socket
import sys
import threading
import time


def recv_loop(s):
    while True:
        try:
            data = s.recv(1)
        except OSError:
            return
        if not data:
            return


def nap():
    time.sleep(0.01)


def waiter(seconds):
    a, b = socket.socketpair()
    t = threading.Thread(target=recv_loop, args=(a,))
    t.start()
    end = time.time() + seconds
    while time.time() < end:
        nap()
        b.send(b"x")
    b.close()
    t.join()


waiter(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
