"""COMMAND DOCS and COMMAND INFO, checked against Redis 7.0.

Starts Debian's redis-server (7.0) on a free loopback port beside our
server and compares, for every command ours has, the argument tree of
COMMAND DOCS (names, types, tokens, optional/multiple flags, nesting, key
spec indexes) and COMMAND INFO (arity, flags, legacy key positions, tips,
key specs); then COMMAND GETKEYSANDFLAGS for a list of full commands. This
is what clients that build hints from COMMAND DOCS (redis-cli 7.2+, IDEs)
and cluster clients that locate keys read.

Usage: /usr/bin/python3 command_docs_test.py HOST PORT
Prints "[ok] name" or "[err] name: detail" per command; exits 1 on any
failure.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

import redis

REFERENCE = "/usr/bin/redis-server"


def raw(conn, *args):
    conn.send_command(*args)
    return conn.read_response()


def as_map(x):
    # RESP2 maps arrive as flat [k, v, k, v] lists.
    if isinstance(x, dict):
        return {k.decode() if isinstance(k, bytes) else k: v for k, v in x.items()}
    return {x[i].decode(): x[i + 1] for i in range(0, len(x), 2)}


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def render(a):
    """One argument as a compact string. A block of one member is drawn as
    that member (Redis writes "parameter [parameter ...]" either way)."""
    a = as_map(a)
    kind = text(a["type"])
    token = text(a.get("token")) if a.get("token") is not None else None
    flags = {text(f) for f in a.get("flags", [])}
    subs = a.get("arguments", [])
    if kind == "block" and len(subs) == 1:
        inner = as_map(subs[0])
        inner_flags = {text(f) for f in inner.get("flags", [])}
        merged = dict(inner)
        if token is not None:
            merged["token"] = token
        merged["flags"] = sorted(flags | inner_flags)
        return render(merged)
    if kind == "pure-token":
        s = token
    elif kind == "oneof":
        s = "<" + " | ".join(render(x) for x in subs) + ">"
    elif kind == "block":
        s = "{" + " ".join(render(x) for x in subs) + "}"
    else:
        s = text(a["name"]) + ("" if kind == "string" else ":" + kind)
        if "key_spec_index" in a:
            s += "#" + str(a["key_spec_index"])
    if token is not None and kind != "pure-token":
        s = token + " " + s
    if "multiple" in flags:
        s += " ...T" if "multiple_token" in flags else " ..."
    if "optional" in flags:
        s = "[" + s + "]"
    return s


def docs_line(conn, name):
    reply = as_map(raw(conn, "COMMAND", "DOCS", name))
    if name not in reply:
        return None
    doc = as_map(reply[name])
    return " ".join(render(a) for a in doc.get("arguments", []))


def key_spec(k):
    """One key spec as "FLAGS; BEGIN; FIND" (server/core/key_spec.h's notation)."""
    k = as_map(k)
    flags = " ".join(text(f) for f in k["flags"])
    begin, find = as_map(k["begin_search"]), as_map(k["find_keys"])
    b_spec = as_map(begin["spec"]) if begin["spec"] else {}
    f_spec = as_map(find["spec"]) if find["spec"] else {}
    b_type, f_type = text(begin["type"]), text(find["type"])
    if b_type == "index":
        b = f"index {b_spec['index']}"
    elif b_type == "keyword":
        b = f"keyword {text(b_spec['keyword'])} {b_spec['startfrom']}"
    else:
        b = b_type
    if f_type == "range":
        f = f"range {f_spec['lastkey']} {f_spec['keystep']} {f_spec['limit']}"
    elif f_type == "keynum":
        f = f"keynum {f_spec['keynumidx']} {f_spec['firstkey']} {f_spec['keystep']}"
    else:
        f = f_type
    return f"{flags}; {b}; {f}"


def info(conn, name):
    """Arity, flags, legacy key positions, tips and key specs."""
    entry = raw(conn, "COMMAND", "INFO", name)[0]
    if entry is None:
        return None
    return {
        "arity": entry[1],
        "flags": sorted(text(f) for f in entry[2]),
        "legacy keys": (entry[3], entry[4], entry[5]),
        "tips": sorted(text(t) for t in entry[7]),
        "key specs": " | ".join(key_spec(k) for k in entry[8]),
    }


# Full commands whose keys and key flags COMMAND GETKEYSANDFLAGS reports:
# fixed positions, key counts, keywords, argument-dependent flags, not-keys
# and refusals.
GETKEYS_SAMPLES = [
    "GET k", "SET k v", "SET k v GET", "MSET a 1 b 2", "MSETNX a 1 b 2", "DEL a b",
    "UNLINK a", "EXISTS a b", "TOUCH a", "WATCH a b", "COPY a b", "RENAME a b",
    "RENAMENX a b", "GETEX k PERSIST", "LCS a b", "OBJECT ENCODING k", "MEMORY USAGE k",
    "BITFIELD k GET u8 0", "BITFIELD k SET u8 0 1", "BITFIELD k OVERFLOW SAT INCRBY u8 0 1",
    "BITOP AND d a b", "PFMERGE d a b", "PFCOUNT a b", "LMOVE a b LEFT RIGHT",
    "LMPOP 2 a b LEFT COUNT 1", "BLMPOP 0 2 a b RIGHT", "BLPOP a b 0", "SMOVE a b m",
    "SDIFFSTORE d a b", "SINTERCARD 2 a b LIMIT 1", "ZUNIONSTORE d 2 a b WEIGHTS 1 2",
    "ZINTER 2 a b", "ZRANGESTORE d s 0 1", "ZMPOP 1 z MIN", "SORT k BY w_* GET o_* STORE d",
    "SORT k", "SORT_RO k", "HSET h f v", "SPUBLISH ch m", "SSUBSCRIBE a b", "PING",
    "ZUNIONSTORE d 0 a", "LMPOP 3 a b LEFT", "NOSUCH a",
    "EVAL s 2 a b c", "EVAL s 0 x", "EVALSHA_RO s 1 k", "FCALL f 1 k x", "FCALL_RO f 0",
]


def getkeys(conn, line):
    try:
        return raw(conn, "COMMAND", "GETKEYSANDFLAGS", *line.split())
    except redis.ResponseError as e:
        return f"error: {e}"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    ours = redis.Connection(host=host, port=port)
    names = sorted(text(n) for n in raw(ours, "COMMAND", "LIST"))
    if not os.access(REFERENCE, os.X_OK):
        print(f"[err] command docs: {REFERENCE} missing (package redis-server)")
        return 1
    ref_port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        ref = subprocess.Popen(
            [REFERENCE, "--port", str(ref_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", tmp, "--logfile", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            theirs = None
            for _ in range(100):
                try:
                    theirs = redis.Connection(host="127.0.0.1", port=ref_port)
                    raw(theirs, "PING")
                    break
                except redis.ConnectionError:
                    theirs = None
                    time.sleep(0.1)
            if theirs is None:
                print("[err] command docs: the reference redis-server did not start")
                return 1
            version = as_map(raw(theirs, "HELLO", "2"))["version"]
            failures = 0
            for name in names:
                want = (docs_line(theirs, name), info(theirs, name))
                got = (docs_line(ours, name), info(ours, name))
                if want[0] is None:
                    print(f"[err] docs {name}: Redis {text(version)} has no such command")
                    failures += 1
                elif got == want:
                    print(f"[ok] docs {name}")
                else:
                    print(f"[err] docs {name}: got {got!r}, Redis {text(version)} has {want!r}")
                    failures += 1
            for line in GETKEYS_SAMPLES:
                want, got = getkeys(theirs, line), getkeys(ours, line)
                if got == want:
                    print(f"[ok] getkeysandflags {line}")
                else:
                    print(f"[err] getkeysandflags {line}: got {got!r}, Redis has {want!r}")
                    failures += 1
            return 1 if failures else 0
        finally:
            ref.terminate()
            ref.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
