"""RDB files and DUMP payloads moved between Debian's Redis 7.0.15 and us.

Starts four servers in their own directories: ours (A) and Debian's
redis-server (B) get the same data set, every type in every encoding both
servers have (int/embstr/raw strings, LZF-compressible strings, HLL dense
and sparse, listpack/quicklist lists with and without list-compress-depth,
intset/listpack/hashtable sets, listpack/hashtable hashes, listpack/skiplist
sorted sets, TTLs, several databases). Then:
  - A's dump.rdb is loaded by a fresh Redis (C) and B's by a fresh ours (D);
    every key is compared value by value (typed reads, TTLs) against the
    writer, and DEBUG DIGEST must agree;
  - every key is DUMPed on one server and RESTOREd on the other, both ways,
    and compared the same way.

Usage: /usr/bin/python3 rdb_compat_test.py OUR_SERVER_BIN
Prints "[ok] ..." / "[err] ..." lines; exits 1 on any failure.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import redis

REFERENCE = "/usr/bin/redis-server"
failures = 0


def ok(name):
    print("[ok] " + name)


def err(name, detail):
    global failures
    failures += 1
    print("[err] %s: %s" % (name, detail))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary, workdir, name):
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
             "--list-compress-depth", "0"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.r = redis.Redis(port=self.port, decode_responses=False)
        for _ in range(100):
            try:
                self.r.ping()
                return
            except redis.exceptions.ConnectionError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError("%s did not start: %s" % (name, open(os.path.join(self.dir, "log")).read()))

    def stop(self):
        try:
            self.r.shutdown(nosave=True)
        except Exception:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def populate(r):
    """The same commands on both servers; returns nothing."""
    r.flushall()
    r.set("str:short", "hello")
    r.set("str:int", "12345")
    r.set("str:negint", "-7")
    r.set("str:bigint", "123456789012345")
    r.set("str:notcanon", "0123")
    r.set("str:empty", "")
    r.set("str:binary", b"a\x00b\xffc\r\n")
    r.set("str:float", "3.14")
    r.set("str:lzf", "abcdefgh" * 20000)
    r.set("str:random", os.urandom(300))
    r.set("str:ttl", "v", ex=100000)
    r.set("str:raw", "x" * 50)
    r.append("str:raw", "y")
    r.pfadd("hll:sparse", "a", "b", "c")
    r.pfadd("hll:dense", *["e%d" % i for i in range(5000)])
    r.rpush("list:lp", "a", 1, -5, 300, 70000, 2**40, "string", "")
    r.rpush("list:ql", *["element-%d" % i for i in range(20000)])
    r.rpush("list:bigel", *[("%d" % i) * 3000 for i in range(10)])
    r.rpush("list:ints", *range(-1000, 1000))
    r.config_set("list-compress-depth", 1)
    r.rpush("list:compressed", *["compress-me-%d" % (i % 50) for i in range(20000)])
    r.config_set("list-compress-depth", 0)
    r.sadd("set:intset", 1, 2, 3, -4)
    r.sadd("set:intset64", 2**40, -2**50, 7)
    r.sadd("set:small", "a", "b", "c")
    r.sadd("set:big", *["m%d" % i for i in range(1000)])
    r.sadd("set:bigints", *range(600))
    r.sadd("set:longmember", "x" * 100, "y")
    r.hset("hash:lp", mapping={"f1": "v1", "f2": 2, "n": -3, "big": 2**62})
    r.hset("hash:big", mapping={"f%d" % i: "v%d" % i for i in range(1000)})
    r.hset("hash:longval", mapping={"f": "v" * 100, "g": "1"})
    r.hset("hash:ttl", "a", "b")
    r.pexpire("hash:ttl", 50000000)
    r.zadd("zset:lp", {"a": 1, "b": 2.5, "c": -3, "d": 0.1, "e": float("inf"),
                       "f": float("-inf"), "g": 1e20, "h": 1234567})
    r.zadd("zset:big", {"m%d" % i: i * 1.5 for i in range(500)})
    r.zadd("zset:longmember", {"x" * 100: 1, "y": 2})
    # Streams: several nodes (small node size), tombstones, a trimmed head,
    # an empty stream, consumer groups with pending entries and consumers.
    x = r.execute_command
    x("XADD", "stream:small", "1-1", "a", 1, "b", "x")
    x("XADD", "stream:small", "1-2", "a", 2, "b", "y")
    x("XADD", "stream:small", "2-0", "c", "other", "d", "v" * 100)
    x("XDEL", "stream:small", "1-2")
    x("XGROUP", "CREATE", "stream:small", "g1", "0")
    x("XGROUP", "CREATE", "stream:small", "g2", "$", "ENTRIESREAD", 2)
    x("XREADGROUP", "GROUP", "g1", "alice", "COUNT", 1, "STREAMS", "stream:small", ">")
    x("XGROUP", "CREATECONSUMER", "stream:small", "g1", "bob")
    r.config_set("stream-node-max-entries", 7)
    for i in range(300):
        x("XADD", "stream:big", "%d-%d" % (i // 5 + 1, i % 5), "f%d" % (i % 3), i * 1000)
    r.config_set("stream-node-max-entries", 100)
    x("XTRIM", "stream:big", "MAXLEN", "~", 250)
    x("XDEL", "stream:big", "30-0", "30-1")
    x("XADD", "stream:empty", "5-5", "x", 1)
    x("XDEL", "stream:empty", "5-5")
    r.select(3)
    r.set("db3:key", "in db 3")
    r.rpush("db3:list", "x", "y")
    r.select(15)
    r.hset("db15:h", "k", "v")
    r.select(0)


def read_value(r, key):
    t = r.type(key).decode()
    if t == "string":
        v = r.get(key)
    elif t == "list":
        v = r.lrange(key, 0, -1)
    elif t == "set":
        v = sorted(r.smembers(key))
    elif t == "hash":
        v = sorted(r.hgetall(key).items())
    elif t == "zset":
        v = r.zrange(key, 0, -1, withscores=True)
    elif t == "stream":
        # Entries, counters and groups; not the times (idle, seen-time),
        # nor radix-tree-nodes (Redis's tree, estimated here).
        def x(*args):  # unparsed replies (redis-py turns some into dicts)
            conn = r.connection_pool.get_connection("x")
            try:
                conn.send_command(*args)
                return conn.read_response()
            finally:
                r.connection_pool.release(conn)
        info = x("XINFO", "STREAM", key)
        info = [info[i:i + 2] for i in range(0, len(info), 2) if info[i] != b"radix-tree-nodes"]
        groups = x("XINFO", "GROUPS", key)
        detail = []
        for g in groups:
            name = g[1]
            pending = [p[:2] + p[3:] for p in x("XPENDING", key, name, "-", "+", 1000)]
            consumers = [c[:4] for c in x("XINFO", "CONSUMERS", key, name)]
            detail.append((pending, consumers))
        v = (x("XRANGE", key, "-", "+"), info, groups, detail)
    else:
        v = None
    ttl = r.pttl(key)
    return t, v, ttl


def snapshot(r):
    out = {}
    for db in (0, 3, 15):
        r.execute_command("SELECT", db)
        for k in r.scan_iter(count=1000):
            out[(db, k)] = read_value(r, k)
    r.execute_command("SELECT", 0)
    return out


def compare(label, want, got):
    bad = 0
    for k, (t, v, ttl) in want.items():
        if k not in got:
            bad += 1
            if bad <= 3:
                err(label, "key %r missing" % (k,))
            continue
        gt, gv, gttl = got[k]
        if gt != t or gv != v:
            bad += 1
            if bad <= 3:
                err(label, "key %r differs (type %s/%s)" % (k, t, gt))
        elif (ttl < 0) != (gttl < 0) or (ttl >= 0 and abs(ttl - gttl) > 60000):
            bad += 1
            if bad <= 3:
                err(label, "key %r ttl %d vs %d" % (k, ttl, gttl))
    extra = set(got) - set(want)
    if extra:
        bad += 1
        err(label, "unexpected keys %r" % sorted(extra)[:3])
    if bad == 0:
        ok("%s: %d keys equal" % (label, len(want)))


def encodings(r):
    """OBJECT ENCODING of every key in the dbs snapshot() reads."""
    out = {}
    for db in (0, 3, 15):
        r.execute_command("SELECT", db)
        for k in r.scan_iter(count=1000):
            try:
                out[(db, k)] = r.object("encoding", k)
            except redis.ResponseError as e:  # expired meanwhile
                out[(db, k)] = str(e)
    r.execute_command("SELECT", 0)
    return out


def compare_encodings(label, want, got):
    diff = sorted(k for k in want if want[k] != got.get(k))
    if diff:
        k = diff[0]
        err(label, "%d keys differ, first %r: %r vs Redis %r" % (len(diff), k, got.get(k), want[k]))
    else:
        ok("%s: %d keys" % (label, len(want)))


def digest(r):
    return r.execute_command("DEBUG", "DIGEST")


def main():
    ours_bin = sys.argv[1]
    work = tempfile.mkdtemp(prefix="rdbcompat.")
    servers = []
    try:
        a = Server(ours_bin, work, "ours")
        b = Server(REFERENCE, work, "ref")
        servers += [a, b]
        populate(a.r)
        populate(b.r)
        # HLL and random bytes are the only values that could differ: copy
        # the random string so both hold the same bytes.
        b.r.set("str:random", a.r.get("str:random"))
        want = snapshot(b.r)
        compare("same commands give the same data", want, snapshot(a.r))
        compare_encodings("same commands give the same OBJECT ENCODING", encodings(b.r),
                          encodings(a.r))
        if digest(a.r) == digest(b.r):
            ok("DEBUG DIGEST equal after the same commands")
        else:
            err("DEBUG DIGEST after the same commands", "%r vs %r" % (digest(a.r), digest(b.r)))

        # Ours -> Redis through dump.rdb.
        a.r.save()
        c_dir = os.path.join(work, "ref-load")
        os.makedirs(c_dir)
        shutil.copy(os.path.join(a.dir, "dump.rdb"), c_dir)
        check = subprocess.run(["/usr/bin/redis-check-rdb", os.path.join(c_dir, "dump.rdb")],
                               capture_output=True, text=True)
        if check.returncode == 0 and "RDB looks OK" in check.stdout:
            ok("redis-check-rdb accepts our dump.rdb")
        else:
            err("redis-check-rdb on our dump.rdb", check.stdout[-300:])
        c = Server(REFERENCE, work, "ref-load")
        servers.append(c)
        compare("our RDB loaded by Redis 7.0.15", snapshot(a.r), snapshot(c.r))
        if digest(a.r) == digest(c.r):
            ok("DEBUG DIGEST: Redis after loading our RDB")
        else:
            err("DEBUG DIGEST after loading our RDB in Redis", "differs")

        # Redis -> ours through dump.rdb.
        b.r.save()
        d_dir = os.path.join(work, "ours-load")
        os.makedirs(d_dir)
        shutil.copy(os.path.join(b.dir, "dump.rdb"), d_dir)
        d = Server(ours_bin, work, "ours-load")
        servers.append(d)
        compare("Redis 7.0.15's RDB loaded by ours", snapshot(b.r), snapshot(d.r))
        if digest(b.r) == digest(d.r):
            ok("DEBUG DIGEST: ours after loading Redis's RDB")
        else:
            err("DEBUG DIGEST after loading Redis's RDB here", "differs")

        # DUMP / RESTORE both ways, every key of db 0, with TTLs.
        for src, dst, label in ((a, b, "DUMP here, RESTORE in Redis"),
                                (b, a, "DUMP in Redis, RESTORE here")):
            dst.r.execute_command("SELECT", 9)
            dst.r.flushdb()
            bad = 0
            n = 0
            for k in src.r.scan_iter(count=1000):
                payload = src.r.dump(k)
                ttl = max(src.r.pttl(k), 0)
                try:
                    dst.r.restore(k, ttl, payload)
                except redis.exceptions.ResponseError as e:
                    bad += 1
                    if bad <= 3:
                        err(label, "RESTORE %r: %s" % (k, e))
                    continue
                n += 1
                want_v = read_value(src.r, k)
                dst.r.execute_command("SELECT", 9)
                got_v = read_value(dst.r, k)
                if want_v[:2] != got_v[:2] or (want_v[2] < 0) != (got_v[2] < 0):
                    bad += 1
                    if bad <= 3:
                        err(label, "key %r differs after RESTORE" % k)
                wd = src.r.execute_command("DEBUG", "DIGEST-VALUE", k)
                gd = dst.r.execute_command("DEBUG", "DIGEST-VALUE", k)
                if wd != gd:
                    bad += 1
                    if bad <= 3:
                        err(label, "DIGEST-VALUE of %r differs" % k)
            dst.r.flushdb()
            dst.r.execute_command("SELECT", 0)
            if bad == 0:
                ok("%s: %d keys" % (label, n))

        # Byte-identical payloads where both servers hold the same encoding.
        same = 0
        for k in (b"str:short", b"str:int", b"str:lzf", b"hash:lp", b"zset:big", b"set:intset",
                  b"list:lp"):
            if a.r.dump(k) == b.r.dump(k):
                same += 1
            else:
                err("DUMP bytes", "%r differs from Redis's payload" % k)
        if same == 7:
            ok("DUMP payloads byte-identical to Redis's for 7 keys")
    finally:
        for s in servers:
            s.stop()
        for s in servers:
            s.log.close()
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
