#!/usr/bin/env python3
"""Writes the binary seed inputs of tests/fuzz/corpus (record, ring, unwind),
laid out as the fuzz targets read them. Usage: make_seeds.py CORPUS_DIR"""
import os, struct, sys

out = sys.argv[1]
IP, TID, TIME, ADDR, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = 1, 2, 4, 8, 32, 64, 128, 256, 512, 1024
REGS_USER, STACK_USER, IDENTIFIER = 4096, 8192, 65536
DAEMON_ST = IP | TID | TIME | CPU | PERIOD | CALLCHAIN | REGS_USER | STACK_USER
REGS_MASK = 0xff01ff  # perf x86 GPRs + sp + ip: 17 registers
MMAP, LOST, COMM, EXIT, THROTTLE, UNTHROTTLE, FORK, SAMPLE, MMAP2 = 1, 2, 3, 4, 5, 6, 7, 9, 10
CTX_KERNEL, CTX_USER = (1 << 64) - 128, (1 << 64) - 512


def put(d, name, data):
    os.makedirs(os.path.join(out, d), exist_ok=True)
    with open(os.path.join(out, d, name), 'wb') as f:
        f.write(data)


def rec(type_, misc, body):
    while (8 + len(body)) % 8:
        body += b'\0'
    return struct.pack('<IHH', type_, misc, 8 + len(body)) + body


def trailer(pid=100, tid=101, time=123456789, cpu=1):
    return struct.pack('<IIQII', pid, tid, time, cpu, 0)


def sample(nstack=64, dyn=48, user=True, kernel=True, abi=2):
    b = struct.pack('<Q', 0x401234) + struct.pack('<II', 100, 101) + struct.pack('<Q', 5555)
    b += struct.pack('<II', 1, 0) + struct.pack('<Q', 10101010)
    chain = []
    if kernel:
        chain += [CTX_KERNEL, 0xffffffff81000010, 0xffffffff81000020]
    if user:
        chain += [CTX_USER, 0x401234, 0x401300]
    b += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', x) for x in chain)
    b += struct.pack('<Q', abi)
    if abi:
        b += b''.join(struct.pack('<Q', 0x7ffd0000 + i * 8) for i in range(17))
    b += struct.pack('<Q', nstack)
    if nstack:
        b += bytes(range(nstack)) + struct.pack('<Q', dyn)
    return rec(SAMPLE, 2, b)


def mmap(name=b'/usr/lib/libc.so.6', tr=True):
    b = struct.pack('<IIQQQ', 100, 101, 0x7f0000000000, 0x1000, 0) + name + b'\0'
    while (8 + len(b)) % 8:
        b += b'\0'
    return rec(MMAP, 2, b + (trailer() if tr else b''))


def mmap2(build_id=False, tr=True):
    b = struct.pack('<IIQQQ', 100, 101, 0x7f0000000000, 0x1000, 0x2000)
    if build_id:
        b += struct.pack('<B3x', 20) + bytes(range(20))
    else:
        b += struct.pack('<IIQQ', 8, 1, 123456, 7)
    b += struct.pack('<II', 5, 2) + b'/usr/bin/python3.11\0'
    while (8 + len(b)) % 8:
        b += b'\0'
    return rec(MMAP2, (1 << 14) if build_id else 2, b + (trailer() if tr else b''))


def comm(exec_=True):
    b = struct.pack('<II', 100, 100) + b'nginx\0'
    while (8 + len(b)) % 8:
        b += b'\0'
    return rec(COMM, (1 << 13) if exec_ else 0, b + trailer())


def task(t):
    return rec(t, 0, struct.pack('<IIIIQ', 100, 1, 101, 1, 999) + trailer())


def lost():
    return rec(LOST, 0, struct.pack('<QQ', 7, 42) + trailer())


def throttle(t):
    return rec(t, 0, struct.pack('<QQQ', 1000, 7, 7) + trailer())


def layout(st=DAEMON_ST, mask=REGS_MASK, flags=1):
    return struct.pack('<QQB', st, mask, flags)


# record: 17 layout bytes + one record
recs = {
    'sample': sample(), 'sample_nostack': sample(nstack=0), 'sample_abi_none': sample(abi=0),
    'sample_kernel_only': sample(user=False), 'mmap': mmap(), 'mmap2_inode': mmap2(),
    'mmap2_buildid': mmap2(True), 'comm_exec': comm(), 'comm': comm(False), 'fork': task(FORK),
    'exit': task(EXIT), 'lost': lost(), 'throttle': throttle(THROTTLE),
    'unthrottle': throttle(UNTHROTTLE),
}
for name, r in recs.items():
    put('record', name, layout() + r)
put('record', 'mmap_no_sample_id_all', layout(flags=0) + mmap(tr=False))
put('record', 'sample_all_fields',
    layout(IDENTIFIER | IP | TID | TIME | ADDR | ID | STREAM_ID | CPU | PERIOD | CALLCHAIN | RAW, 0) +
    rec(SAMPLE, 0, struct.pack('<QQIIQQQQIIQQ', 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 10, 1) +
        struct.pack('<Q', 0x401000) + struct.pack('<I', 4) + b'abcd'))
put('record', 'sample_truncated', layout() + sample()[:100])

# ring: flags, tail, delta0, delta1, 4 release bytes, then the data area
stream = sample() + mmap() + comm() + task(FORK) + lost() + throttle(THROTTLE) + mmap2() + task(EXIT)
def ring(tail, delta0, delta1, data, flags=0, rel=b'\xff\x00\x01\x00'):
    return struct.pack('<BQII', flags, tail, delta0, delta1) + rel + data

put('ring', 'records', ring(0, len(stream), 0, stream))
size = 4096
start = size - 40
area = bytearray(size)
for i, c in enumerate(stream):
    area[(start + i) % size] = c
put('ring', 'wrapping', ring(start + 3 * size, len(stream), 0, bytes(area)))
put('ring', 'two_rounds', ring(0, len(sample()), len(stream) - len(sample()), stream, rel=b'\x00\x00\x01\x00'))
put('ring', 'two_pages', ring(8, len(stream), 0, b'\0' * 8 + stream, flags=1))
put('ring', 'head_behind', ring(4096, (1 << 32) - 8, 0, stream))
bad = bytearray(stream)
bad[6:8] = struct.pack('<H', 12)
put('ring', 'bad_size', ring(0, len(stream), 0, bytes(bad)))

# unwind, mode 0: max, stack base, 17 regs, valid mask, stack bytes
def unwind_in(regs, stack, base=None, maxf=64):
    b = struct.pack('<B', 0) + struct.pack('<B', maxf)
    b += struct.pack('<Q', 1 if base is None else base)
    b += b''.join(struct.pack('<Q', v) for v in regs) + struct.pack('<I', (1 << 17) - 1)
    return b + stack

sp = 0x7ffd0000
regs = [0] * 17
regs[6] = sp + 0x20
regs[7] = sp
regs[16] = 0x1234
stk = bytearray(512)
struct.pack_into('<QQ', stk, 0x20, sp + 0x60, 0x5678)
struct.pack_into('<QQ', stk, 0x60, 0, 0x9abc)
for off in range(0x80, 512, 8):
    struct.pack_into('<Q', stk, off, 0x400000 + off)
put('unwind', 'cfi_walk', unwind_in(regs, bytes(stk)))
regs_fp = list(regs)
regs_fp[16] = 0xe000000000001234
put('unwind', 'fp_walk', unwind_in(regs_fp, bytes(stk)))
regs_nomap = list(regs)
regs_nomap[16] = 0xf000000000001234
put('unwind', 'no_map', unwind_in(regs_nomap, bytes(stk[:64])))
# base bit 1: the copy is the first half, the live stack beyond it the rest
far = bytearray(2048)
far[:512] = stk
for off in range(512, 2048, 8):
    struct.pack_into('<Q', far, off, 0x400000 + off if off % 16 else sp + off + 0x40)
put('unwind', 'far_walk', unwind_in(regs, bytes(far), base=3))

# unwind, mode 1: valid mask, cfa, stack base (bit 0: cfa valid), 64 stack bytes, ops
def ops_in(ops, base=0x7ffd0000, cfa=0x7ffd0040, cfa_valid=True):
    b = struct.pack('<B', 1) + struct.pack('<I', (1 << 17) - 1) + struct.pack('<Q', cfa)
    b += struct.pack('<Q', base | (1 if cfa_valid else 0)) + bytes(range(64))
    for atom, n1, n2 in ops:
        b += struct.pack('<BQQ', atom, n1 & (2**64 - 1), n2 & (2**64 - 1))
    return b

# the x86-64 PLT CFA rule
put('unwind', 'ops_plt', ops_in([(0x77, 8, 0), (0x80, 0, 0), (0x3f, 0, 0), (0x1a, 0, 0),
                                 (0x3b, 0, 0), (0x2a, 0, 0), (0x33, 0, 0), (0x24, 0, 0),
                                 (0x22, 0, 0)]))
put('unwind', 'ops_deref', ops_in([(0x9c, 0, 0), (0x23, 8, 0), (0x06, 0, 0), (0x9f, 0, 0)]))
put('unwind', 'ops_branch', ops_in([(0x0e, 5, 0), (0x28, 3, 0), (0x30, 0, 0), (0x2f, 3, 0),
                                    (0x31, 0, 0)]))
put('unwind', 'ops_arith', ops_in([(0x11, -7, 0), (0x10, 300, 0), (0x1b, 0, 0), (0x11, 3, 0),
                                   (0x1d, 0, 0), (0x1f, 0, 0), (0x20, 0, 0), (0x12, 0, 0),
                                   (0x16, 0, 0), (0x14, 0, 0), (0x15, 1, 0), (0x17, 0, 0),
                                   (0x92, 7, 16), (0x94, 4, 0)]))
