"""A minimal reader of pprof's profile.proto, for the tests that check
smolder's pprof output without Go: the string table and the samples, each
with its values and its string labels."""
import gzip


def varint(buf, i):
    """The varint at buf[i:] and the index after it."""
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(buf):
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        else:
            raise ValueError("unexpected wire type %d" % wt)
        yield num, wt, v


def packed(wt, v):
    """A repeated varint field's values, packed (wire type 2) or not."""
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def read(path):
    """(strings, samples) of a gzip'd profile.proto: samples as (values,
    labels), labels a dict of the sample's string labels."""
    data = gzip.open(path).read()
    top = list(fields(data))
    strings = [v.decode("utf-8", "replace") for n, wt, v in top if n == 6]  # string_table
    samples = []
    for n, wt, v in top:
        if n != 2:  # Profile.sample
            continue
        values, labels = [], []
        for n2, w2, v2 in fields(v):
            if n2 == 2:  # Sample.value
                values += packed(w2, v2)
            elif n2 == 3:  # Sample.label {key = 1, str = 2}
                lab = {n3: v3 for n3, _, v3 in fields(v2)}
                labels.append((lab.get(1, 0), lab.get(2, 0)))
        samples.append((values, {strings[k]: strings[s] for k, s in labels}))
    return strings, samples
