#!/usr/bin/env python3
"""Builds RDB files and DUMP payloads as older and newer servers write them,
byte by byte from the format's description (no files of theirs are used):

  RDB 1-5   Redis 2.0-2.4: plain types, zipmap hashes (9), intsets (11),
            expiry in seconds (opcode 253), no checksum before version 5
  RDB 6     Redis 2.6-2.8: ziplist lists (10), sorted sets (12) and hashes
            (13), expiry in ms (252), CRC-64 trailer
  RDB 7     Redis 3.0-3.2: quicklist lists with ziplist nodes (14), aux
            fields, RESIZEDB
  RDB 8, 9  Redis 4.0-6.2: binary sorted-set scores (5), LFU/idle opcodes
  RDB 11    Redis 7.2 / Valkey 7.2-8.x: listpack sets (20)
  RDB 12    Redis 7.4: hashes with field expiry (22-25), slot-info opcode
  VALKEY080 Valkey 9: its own magic, its hash with field expiry (22)

Each file holds the data set of data_set() (what that version could hold),
so that a file of every era can be checked against the reference file
written with plain types ("ref"), which Redis 7.0.15 and this server load.

  old_rdb.py file VERSION PATH      write the era file (1..12, valkey80)
  old_rdb.py ref VERSION PATH       the same data, plain types, RDB 10
  old_rdb.py special NAME PATH      a file that must be refused (see
                                    special_file: future version, module
                                    data, unknown type, ...)
  old_rdb.py bulk MB PATH           a big RDB 9 file of ziplist-era values
                                    (load benchmarks); prints the key count
  old_rdb.py payload KIND           hex of a DUMP payload (kinds below)
  old_rdb.py fuzz KIND N SEED       N corrupted payloads of KIND, hex, one
                                    per line (checksums made right, so the
                                    value parser is what sees the damage)
"""
import random
import struct
import sys

# ------------------------------------------------------------------ CRC-64
# Redis's CRC-64 (Jones polynomial, reflected, initial 0, no final xor).
_POLY = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA


def with_crc(data):
    """data followed by its CRC-64 (8 bytes LE), as file trailers and DUMP
    payloads end."""
    return data + struct.pack("<Q", crc64(data))

# ------------------------------------------------------------------ RDB primitives


def length(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def as_int(s):
    """The integer a canonical decimal string stands for, else None."""
    try:
        v = int(s)
    except ValueError:
        return None
    return v if str(v).encode() == s and -(1 << 63) <= v < (1 << 63) else None


def rstring(s, lzf=False):
    """A string as Redis writes it: int-encoded when it can be, else raw
    (or, with lzf, in LZF form)."""
    if isinstance(s, str):
        s = s.encode()
    v = as_int(s)
    if v is not None and -(1 << 31) <= v < (1 << 31):
        if -128 <= v < 128:
            return b"\xc0" + struct.pack("<b", v)
        if -32768 <= v < 32768:
            return b"\xc1" + struct.pack("<h", v)
        return b"\xc2" + struct.pack("<i", v)
    if lzf:
        comp = lzf_literal_with_backref(s)
        return b"\xc3" + length(len(comp)) + length(len(s)) + comp
    return length(len(s)) + s


def lzf_literal_with_backref(s):
    """Valid LZF data for s: literal runs, plus one back reference when s
    starts with a repeated two-byte pattern (as compressors produce)."""
    out = bytearray()
    i = 0
    if len(s) >= 10 and s[2:10] == s[0:2] * 4:
        out += bytes([1]) + s[0:2]  # literal "ab"
        out += bytes([(8 - 2) << 5, 1])  # copy 8 bytes from 2 back
        i = 10
    while i < len(s):
        run = s[i:i + 32]
        out += bytes([len(run) - 1]) + run
        i += len(run)
    return bytes(out)


def text_double(d):
    if d == float("inf"):
        return b"\xfe"
    if d == float("-inf"):
        return b"\xff"
    t = ("%.17g" % d).encode()
    return bytes([len(t)]) + t


# ------------------------------------------------------------------ ziplist

def zl_entry(prevlen, e, long_prevlen=False):
    if prevlen < 254 and not long_prevlen:
        head = bytes([prevlen])
    else:
        head = b"\xfe" + struct.pack("<I", prevlen)
    v = as_int(e) if isinstance(e, bytes) and len(e) <= 32 else None
    if isinstance(e, int):
        v = e
    if v is not None:
        if 0 <= v <= 12:
            body = bytes([0xF1 + v])
        elif -128 <= v < 128:
            body = b"\xfe" + struct.pack("<b", v)
        elif -32768 <= v < 32768:
            body = b"\xc0" + struct.pack("<h", v)
        elif -(1 << 23) <= v < (1 << 23):
            body = b"\xf0" + struct.pack("<i", v)[:3]
        elif -(1 << 31) <= v < (1 << 31):
            body = b"\xd0" + struct.pack("<i", v)
        else:
            body = b"\xe0" + struct.pack("<q", v)
    else:  # a ziplist string's length is encoded as an RDB length
        body = length(len(e)) + e
    return head + body


def ziplist(elems, long_prevlen_at=None):
    entries = b""
    prev = 0
    tail = 10
    for i, e in enumerate(elems):
        ent = zl_entry(prev, bstr(e), long_prevlen=(i == long_prevlen_at))
        tail = 10 + len(entries)
        entries += ent
        prev = len(ent)
    total = 10 + len(entries) + 1
    count = len(elems) if len(elems) < 65535 else 65535
    return struct.pack("<IIH", total, tail, count) + entries + b"\xff"


def bstr(e):
    if isinstance(e, (int, float)) and not isinstance(e, bool):
        return fmt_num(e).encode()
    return e.encode() if isinstance(e, str) else e


def fmt_num(x):
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1 << 53):
        return str(int(x))
    return "%.17g" % x


# ------------------------------------------------------------------ zipmap, intset, listpack

def zipmap(pairs, pad=0):
    out = bytearray([len(pairs) if len(pairs) < 254 else 254])
    for f, v in pairs:
        f, v = bstr(f), bstr(v)
        out += zm_len(len(f)) + f + zm_len(len(v)) + bytes([pad]) + v + b"\0" * pad
    return bytes(out) + b"\xff"


def zm_len(n):
    return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)


def intset(values):
    values = sorted(values)
    w = 2
    for v in values:
        if not -32768 <= v < 32768:
            w = max(w, 4)
        if not -(1 << 31) <= v < (1 << 31):
            w = 8
    fmt = {2: "<h", 4: "<i", 8: "<q"}[w]
    return struct.pack("<II", w, len(values)) + b"".join(struct.pack(fmt, v) for v in values)


def lp_backlen(n):
    """An entry's length as listpacks end it: 7 bits a byte, most
    significant first, the high bit set on all bytes but the first."""
    groups = []
    while True:
        groups.insert(0, n & 127)
        n >>= 7
        if not n:
            break
    return bytes(g | (128 if i else 0) for i, g in enumerate(groups))


def listpack(elems):
    body = bytearray()
    for e in elems:
        e = bstr(e)
        v = as_int(e)
        if v is not None:
            if 0 <= v < 128:
                enc = bytes([v])
            elif -4096 <= v < 4096:
                u = v & 0x1FFF
                enc = bytes([0xC0 | (u >> 8), u & 0xFF])
            elif -32768 <= v < 32768:
                enc = b"\xf1" + struct.pack("<h", v)
            elif -(1 << 23) <= v < (1 << 23):
                enc = b"\xf2" + struct.pack("<i", v)[:3]
            elif -(1 << 31) <= v < (1 << 31):
                enc = b"\xf3" + struct.pack("<i", v)
            else:
                enc = b"\xf4" + struct.pack("<q", v)
        else:
            n = len(e)
            if n < 64:
                enc = bytes([0x80 | n]) + e
            elif n < 4096:
                enc = bytes([0xE0 | (n >> 8), n & 0xFF]) + e
            else:
                enc = b"\xf0" + struct.pack("<I", n) + e
        body += enc + lp_backlen(len(enc))
    total = 6 + len(body) + 1
    return struct.pack("<IH", total, min(len(elems), 65535)) + bytes(body) + b"\xff"


# ------------------------------------------------------------------ the data set

FAR = 2114380800  # 2037-01-01, fits the 32-bit seconds of old files
NOW_MS = None


def data_set(version):
    """(key, kind, value, expire_seconds or None) the era could hold; the
    kind names how the file stores it."""
    d = [
        ("str:plain", "string", b"hello world", None),
        ("str:int8", "string", b"-12", None),
        ("str:int16", "string", b"30000", None),
        ("str:int32", "string", b"-2000000000", None),
        ("str:big", "string", b"12345678901234567890", None),
        ("str:lzf", "string-lzf", b"ab" * 20 + b"xyz", None),
        ("str:ttl", "string", b"expires later", FAR),
        ("list:plain", "list", [b"a", b"b", b"c", b"1000"], None),
        ("set:plain", "set", [b"x", b"y", b"z"], None),
        ("zset:text", "zset-text", [(b"m1", 1.5), (b"m2", -3.0), (b"m3", float("inf"))], None),
        ("hash:plain", "hash", [(b"f1", b"v1"), (b"f2", b"22")], FAR),
    ]
    if version >= 4:
        d += [("hash:zipmap", "hash-zipmap", [(b"name", b"redis"), (b"year", b"2009"),
                                               (b"long", b"L" * 300)], None),
              ("set:intset", "set-intset", [5, -7, 70000, 1 << 40], None)]
    if version >= 6:
        d += [("list:ziplist", "list-ziplist",
               [b"one", 2, b"three", -100000, 1 << 40, b"x" * 300, 12, 13, -1], FAR),
              ("zset:ziplist", "zset-ziplist", [(b"a", 1.0), (b"b", 2.5), (b"c", 1e20),
                                                (b"d", float("inf"))], None),
              ("hash:ziplist", "hash-ziplist", [(b"f", b"v"), (b"n", 7), (b"big", b"B" * 70)],
               None)]
    if version >= 7:
        d += [("list:quicklist", "list-quicklist",
               [[b"n1-a", b"n1-b", 3], [b"n2-a", 1 << 33], [b"y" * 70000]], None)]
    if version >= 8:
        d += [("zset:binary", "zset-2", [(b"p", 0.1), (b"q", 2.0), (b"r", -1e-300)], None)]
    if version >= 11:
        d += [("set:listpack", "set-listpack", [b"alpha", b"beta", b"7"], None)]
    if version == 12:
        d += [("hash:ttl-lp", "hash-listpack-ex", [(b"keep", b"1", 0), (b"later", b"2", FAR * 1000),
                                                   (b"gone", b"3", 1000)], None),
              ("hash:ttl-md", "hash-metadata", [(b"keep", b"1", 0), (b"later", b"2", FAR * 1000),
                                                (b"gone", b"3", 1000)], None),
              ("hash:ttl-lp0", "hash-listpack-ex-pre-ga", [(b"a", b"1", 0), (b"b", b"2", FAR * 1000)],
               None),
              ("hash:ttl-md0", "hash-metadata-pre-ga", [(b"a", b"1", 0), (b"b", b"2", 5)], None)]
    if version == 80:
        d += [("hash:valkey2", "valkey-hash-2", [(b"keep", b"1", -1), (b"later", b"2", FAR * 1000),
                                                 (b"gone", b"3", 0)], None)]
    return d


TYPES = {"string": 0, "string-lzf": 0, "list": 1, "set": 2, "zset-text": 3, "hash": 4, "zset-2": 5,
         "hash-zipmap": 9, "list-ziplist": 10, "set-intset": 11, "zset-ziplist": 12,
         "hash-ziplist": 13, "list-quicklist": 14, "hash-listpack": 16, "zset-listpack": 17,
         "list-quicklist-2": 18, "set-listpack": 20, "hash-metadata-pre-ga": 22,
         "hash-listpack-ex-pre-ga": 23, "hash-metadata": 24, "hash-listpack-ex": 25,
         "valkey-hash-2": 22}


def min_field_expiry(triples):
    """Redis 7.4's minimum field expiry of (field, value, time) triples, time
    0 meaning none: 2^48 when no field has one."""
    return min([t for _, _, t in triples if t] or [1 << 48])


def encode_value(kind, v):
    if kind == "string":
        return rstring(v)
    if kind == "string-lzf":
        return rstring(v, lzf=True)
    if kind in ("list", "set"):
        return length(len(v)) + b"".join(rstring(bstr(e)) for e in v)
    if kind == "zset-text":
        return length(len(v)) + b"".join(rstring(m) + text_double(s) for m, s in v)
    if kind == "zset-2":
        return length(len(v)) + b"".join(rstring(m) + struct.pack("<d", s) for m, s in v)
    if kind == "hash":
        return length(len(v)) + b"".join(rstring(f) + rstring(bstr(x)) for f, x in v)
    if kind == "hash-zipmap":
        return rstring(zipmap(v, pad=1))
    if kind == "set-intset":
        return rstring(intset(v))
    if kind == "list-ziplist":
        return rstring(ziplist(v, long_prevlen_at=3))
    if kind in ("zset-ziplist", "hash-ziplist"):
        flat = [bstr(x) for pair in v for x in pair]
        return rstring(ziplist(flat))
    if kind == "list-quicklist":
        return length(len(v)) + b"".join(rstring(ziplist(node)) for node in v)
    if kind == "list-quicklist-2":
        return length(len(v)) + b"".join(length(2) + rstring(listpack(node)) for node in v)
    if kind == "set-listpack":
        return rstring(listpack(v))
    if kind in ("hash-listpack", "zset-listpack"):
        return rstring(listpack([bstr(x) for pair in v for x in pair]))
    if kind in ("hash-listpack-ex", "hash-listpack-ex-pre-ga"):
        # fields with a time first, in time order, as Redis keeps them
        order = sorted(v, key=lambda t: (t[2] == 0, t[2]))
        lp = rstring(listpack([x for f, val, t in order for x in (f, val, t)]))
        if kind == "hash-listpack-ex":
            return struct.pack("<q", min_field_expiry(v)) + lp
        return lp
    if kind == "hash-metadata":
        mn = min_field_expiry(v)
        body = b"".join(length(0 if t == 0 else t - mn + 1) + rstring(f) + rstring(x)
                        for f, x, t in v)
        return struct.pack("<q", mn) + length(len(v)) + body
    if kind == "hash-metadata-pre-ga":
        return length(len(v)) + b"".join(length(t) + rstring(f) + rstring(x) for f, x, t in v)
    if kind == "valkey-hash-2":
        return length(len(v)) + b"".join(rstring(f) + rstring(x) + struct.pack("<q", t)
                                         for f, x, t in v)
    raise ValueError(kind)


def plain_equivalent(kind, v, now_ms):
    """The value as plain types hold it (what the reference file writes)."""
    if kind in ("string", "string-lzf"):
        return "string", v
    if kind in ("list", "list-ziplist"):
        return "list", [bstr(e) for e in v]
    if kind == "list-quicklist":
        return "list", [bstr(e) for node in v for e in node]
    if kind in ("set", "set-listpack", "set-intset"):
        return "set", [bstr(e) for e in v]
    if kind in ("zset-text", "zset-2", "zset-ziplist"):
        return "zset-2", v
    if kind in ("hash", "hash-zipmap", "hash-ziplist"):
        return "hash", [(f, bstr(x)) for f, x in v]
    if kind in ("hash-listpack-ex", "hash-listpack-ex-pre-ga", "hash-metadata",
                "hash-metadata-pre-ga"):
        return "hash", [(f, x) for f, x, t in v if t == 0 or t >= now_ms]
    if kind == "valkey-hash-2":
        return "hash", [(f, x) for f, x, t in v if t == -1 or t >= now_ms]
    raise ValueError(kind)


def aux(k, v):
    return b"\xfa" + rstring(k.encode()) + rstring(v.encode())


def rdb_file(version, items, writer="2.4.0"):
    valkey = version >= 80
    out = bytearray(b"VALKEY%03d" % version if valkey else b"REDIS%04d" % version)
    if version >= 7:
        out += aux("redis-ver", writer) + aux("redis-bits", "64") + aux("ctime", "1600000000")
        if valkey:
            out += aux("valkey-ver", "9.0.0")
    out += b"\xfe\x00"
    if version >= 7:
        out += b"\xfb" + length(len(items)) + length(sum(1 for i in items if i[3]))
    if version == 12:  # Redis 7.4 in cluster mode: a slot's size hints
        out += b"\xf4" + length(866) + length(len(items)) + length(2)
    if valkey:  # Valkey 8.1 on: the same hints as an aux field
        out += aux("slot-info", "866,%d,2" % len(items))
    for key, kind, v, exp in items:
        if exp is not None:
            out += (b"\xfc" + struct.pack("<q", exp * 1000)) if version >= 3 else \
                (b"\xfd" + struct.pack("<i", exp))
        if version >= 8 and key == "str:plain":
            out += b"\xf8" + length(12)  # LRU idle time
        out += encode_item(key, kind, v)
    out += b"\xff"
    return with_crc(bytes(out)) if version >= 5 else bytes(out)


WRITERS = {1: "2.0.0", 2: "2.2.0", 3: "2.3.0", 4: "2.4.0", 5: "2.4.17", 6: "2.6.17", 7: "3.2.13",
           8: "4.0.14", 9: "6.2.14", 10: "7.0.15", 11: "7.2.4", 12: "7.4.0", 80: "7.2.4"}


def parse_version(s):
    return 80 if s == "valkey80" else int(s)


def era_file(version):
    return rdb_file(version, data_set(version), WRITERS[version])


def ref_file(version):
    import time
    now_ms = int(time.time() * 1000)
    items = []
    for key, kind, v, exp in data_set(version):
        pk, pv = plain_equivalent(kind, v, now_ms)
        items.append((key, pk, pv, exp))
    return rdb_file(10, items, "7.0.15")


# ------------------------------------------------------------------ payloads

PAYLOADS = {
    "zipmap": (9, lambda: zipmap([(b"a", b"1"), (b"bb", b"22"), (b"c" * 260, b"x")], pad=2)),
    "ziplist-list": (10, lambda: ziplist([b"a", 1, b"b" * 300, -5, 1 << 40], long_prevlen_at=1)),
    "ziplist-zset": (12, lambda: ziplist([b"a", 1, b"b", b"2.5", b"c", b"inf"])),
    "ziplist-hash": (13, lambda: ziplist([b"f1", b"v1", b"f2", 22, b"f3", b"x" * 100])),
    "quicklist": (14, None),
    "intset": (11, lambda: intset([1, 2, 70000])),
    "listpack-set": (20, lambda: listpack([b"a", b"b", b"1"])),
}


def payload_body(kind):
    if kind == "hash-listpack-ex":  # Redis 7.4: "gone" expired in 1970
        return 25, encode_value(kind, [(b"keep", b"1", 0), (b"later", b"2", FAR * 1000),
                                       (b"gone", b"3", 1000)])
    if kind == "valkey-hash-2":
        return 22, encode_value(kind, [(b"keep", b"1", -1), (b"gone", b"3", 0)])
    t, make = PAYLOADS[kind]
    if kind == "quicklist":
        return t, length(2) + rstring(ziplist([b"a", b"b"])) + rstring(ziplist([3, b"d"]))
    return t, rstring(make())


def payload(t, body, version):
    return with_crc(bytes([t]) + body + struct.pack("<H", version))


def payload_version(kind):
    return {"intset": 6, "listpack-set": 11, "quicklist": 7, "zipmap": 4, "hash-listpack-ex": 12,
            "valkey-hash-2": 80}.get(kind, 6)


def fuzz(kind, n, seed):
    rnd = random.Random(seed)
    t, body = payload_body(kind)
    version = payload_version(kind)
    out = []
    for _ in range(n):
        b = bytearray(body)
        how = rnd.randrange(3)
        if how == 0 and len(b) > 2:  # truncate
            b = b[:rnd.randrange(1, len(b))]
        elif how == 1:  # flip bits
            for _ in range(rnd.randrange(1, 4)):
                i = rnd.randrange(len(b))
                b[i] ^= 1 << rnd.randrange(8)
        else:  # splice a run of bytes from elsewhere
            i, j = rnd.randrange(len(b)), rnd.randrange(len(b))
            k = rnd.randrange(1, 8)
            b[i:i + k] = b[j:j + k]
        out.append(payload(t, bytes(b), version).hex())
    return out


def module_id(name, encver):
    charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    v = 0
    for ch in name:
        v = (v << 6) | charset.index(ch)
    return (v << 10) | encver


def special_file(name):
    """Files that cannot be loaded, each for one diagnostic."""
    head = b"REDIS0009" + aux("redis-ver", "5.0.7") + b"\xfe\x00"
    if name == "future-version":
        body = b"REDIS0013" + aux("redis-ver", "8.2.0") + b"\xfe\x00"
    elif name == "redis-magic-valkey-version":
        body = b"REDIS0080\xfe\x00"
    elif name == "module-aux":
        body = head + b"\xf7" + length(module_id("mymodule1", 3)) + length(2) + length(2)
    elif name == "module-value":
        body = head + b"\x07" + rstring(b"mkey") + length(module_id("modtype-A", 1)) + b"\x00"
    elif name == "unknown-type":
        body = head + encode_item("str:ok", "string", b"v") + b"\x1e" + rstring(b"k") + b"\x00"
    elif name == "valkey-slot-import":
        body = b"VALKEY080" + b"\xf3" + length(1)
    else:
        raise ValueError(name)
    return with_crc(body + b"\xff")


def stream_file(kind):
    """A stream with no entries but one consumer group and one consumer, as
    Redis 5/6 (type 15, RDB 9) or Redis 7.2 (type 21, RDB 11) write it: 21
    adds the 7.0 metadata (first id, max deleted id, entries added, the
    group's entries-read) and a consumer's active time after its seen time."""
    def sid(ms, seq):
        return length(ms) + length(seq)
    seen = struct.pack("<q", 1700000000123)
    if kind == "15":
        value = (length(0) + length(0) + sid(1700000000000, 5) + length(1) +
                 rstring(b"grp") + sid(1700000000000, 3) + length(0) +
                 length(1) + rstring(b"alice") + seen + length(0))
        head = b"REDIS0009" + aux("redis-ver", "6.2.14")
        t = 0x0f
    elif kind == "21":
        active = struct.pack("<q", 1700000000456)
        value = (length(0) + length(0) + sid(1700000000000, 5) + sid(0, 0) +
                 sid(1700000000000, 5) + length(7) + length(1) +
                 rstring(b"grp") + sid(1700000000000, 3) + length(4) +
                 length(0) + length(1) + rstring(b"alice") + seen + active +
                 length(0))
        head = b"REDIS0011" + aux("redis-ver", "7.2.4")
        t = 21
    else:
        raise ValueError(kind)
    return with_crc(head + b"\xfe\x00" + bytes([t]) + rstring(b"s") + value + b"\xff")


def encode_item(key, kind, v):
    return bytes([TYPES[kind]]) + rstring(key.encode()) + encode_value(kind, v)


def bulk_file(path, megabytes):
    """A large RDB 9 file (Redis 5.0-6.2) of ziplist hashes and sorted sets,
    quicklist lists, intsets and strings, for load benchmarks. Values come
    from 64 templates per type; the trailer's checksum is 0 ("saved without
    checksum"), which every server takes without checking."""
    shapes = []
    for i in range(64):
        shapes.append((13, rstring(ziplist([x for j in range(8)
                                            for x in (b"field:%d" % j, b"value-%d-%d" % (i, j))]))))
        shapes.append((12, rstring(ziplist([x for j in range(8)
                                            for x in (b"member:%d:%d" % (i, j), b"%d.5" % j)]))))
        shapes.append((14, length(1) + rstring(ziplist([b"item-%d-%d" % (i, j) for j in range(16)]))))
        shapes.append((11, rstring(intset([i * 1000 + j for j in range(8)]))))
        shapes.append((0, rstring(b"string-value-%d-abcdefghijklmnop" % i)))
    target = megabytes << 20
    with open(path, "wb") as f:
        f.write(b"REDIS0009" + aux("redis-ver", "6.2.14") + aux("redis-bits", "64") + b"\xfe\x00")
        written, i, chunk = 0, 0, []
        while written < target:
            t, body = shapes[i % len(shapes)]
            rec = bytes([t]) + rstring(b"key:%010d" % i) + body
            chunk.append(rec)
            written += len(rec)
            i += 1
            if len(chunk) >= 8192:
                f.write(b"".join(chunk))
                chunk = []
        f.write(b"".join(chunk) + b"\xff" + b"\0" * 8)
    return i


def main(argv):
    cmd = argv[1]
    if cmd in ("file", "ref"):
        v = parse_version(argv[2])
        data = era_file(v) if cmd == "file" else ref_file(v)
        with open(argv[3], "wb") as f:
            f.write(data)
    elif cmd == "bulk":
        print(bulk_file(argv[3], int(argv[2])))
    elif cmd == "special":
        with open(argv[3], "wb") as f:
            f.write(special_file(argv[2]))
    elif cmd == "stream":
        with open(argv[3], "wb") as f:
            f.write(stream_file(argv[2]))
    elif cmd == "payload":
        t, body = payload_body(argv[2])
        print(payload(t, body, payload_version(argv[2])).hex())
    elif cmd == "fuzz":
        print("\n".join(fuzz(argv[2], int(argv[3]), int(argv[4]))))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
