"""Geo commands, reply for reply against Redis 7.0.

Starts Debian's redis-server (7.0) on a free loopback port beside our
server, loads the same random point clouds into both (dense and sparse,
near the poles and the antimeridian), and sends each the same GEOADD,
GEORADIUS[BYMEMBER], GEOSEARCH[STORE], GEODIST, GEOHASH and GEOPOS
queries, in RESP2 and RESP3. Replies must be byte for byte identical:
members, their order (sorted or not), distances to the fourth decimal,
coordinates, hashes, stored scores and encodings, and error texts.

Usage: /usr/bin/python3 geo_compat_test.py HOST PORT
Prints "[ok] ..." or "[err] ..." per round; exits 1 on any failure.
"""
import random
import socket
import subprocess
import sys
import tempfile
import time

REFERENCE = "/usr/bin/redis-server"
ROUNDS = 120


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Raw:
    """A connection that returns each reply as its exact bytes."""

    def __init__(self, host, port, proto):
        self.sock = socket.create_connection((host, port))
        self.f = self.sock.makefile("rb")
        if proto == 3:
            call(self, ["HELLO", "3"])

    def reply(self):
        line = self.f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind in b"$=!" and rest != b"-1":
            return line + self.f.read(int(rest) + 2)
        if kind in b"*~>%" and rest != b"-1":
            n = int(rest) * (2 if kind == b"%" else 1)
            return line + b"".join(self.reply() for _ in range(n))
        return line


def call(conn, args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    conn.sock.sendall(out)
    return conn.reply()


def cloud(rng):
    """A centre and GEOADD arguments for up to 80 points around it."""
    lon = rng.choice([rng.uniform(-180, 180), rng.uniform(175, 180), rng.uniform(-180, -175)])
    lat = rng.choice([rng.uniform(-85, 85), rng.uniform(70, 85), rng.uniform(-85, -70)])
    spread = rng.choice([0.001, 0.05, 0.5, 3, 20])
    args = []
    for i in range(rng.randint(1, 80)):
        # Points are kept distinct (no clamping to the edges): with equal
        # distances, COUNT's partial sort may order ties differently.
        plon, plat = 999, 999
        while not (-180 <= plon <= 180 and -85.05 <= plat <= 85.05):
            plon = lon + rng.uniform(-spread, spread)
            plat = lat + rng.uniform(-spread, spread)
        args += [repr(plon), repr(plat), f"p{i}"]
    return lon, lat, args


def queries(rng, lon, lat):
    r = rng.choice([0, 0.5, 5, 50, 400, 3000, 9000])
    unit = rng.choice(["m", "km", "ft", "mi", "KM"])
    return [
        ["GEORADIUS", "g", lon, lat, r, "km", "WITHDIST", "WITHCOORD", "WITHHASH"],
        ["GEORADIUS", "g", lon, lat, r, unit, "ASC", "WITHDIST"],
        ["GEORADIUS", "g", lon, lat, r, "km", "COUNT", 4, "DESC"],
        ["GEORADIUS_RO", "g", lon, lat, r, "km", "COUNT", 3, "ANY"],
        ["GEORADIUSBYMEMBER", "g", "p0", r, unit, "WITHDIST", "STORE", "s1"],
        ["GEORADIUSBYMEMBER", "g", "p0", r, unit, "STORE", "s1"],
        ["GEORADIUSBYMEMBER_RO", "g", "p0", r, "km", "WITHCOORD"],
        ["GEOSEARCH", "g", "FROMLONLAT", lon, lat, "BYBOX", r, r / 3, unit, "WITHCOORD"],
        ["GEOSEARCH", "g", "FROMMEMBER", "p1", "BYRADIUS", r, "km", "ASC", "COUNT", 5],
        ["GEOSEARCHSTORE", "s2", "g", "FROMMEMBER", "p0", "BYBOX", r, r, "km", "STOREDIST"],
        ["ZRANGE", "s1", 0, -1, "WITHSCORES"],
        ["ZRANGE", "s2", 0, -1, "WITHSCORES"],
        ["OBJECT", "ENCODING", "s2"],
        ["GEODIST", "g", "p0", "p1", unit],
        ["GEOHASH", "g", "p0", "p1", "nosuch"],
        ["GEOPOS", "g", "p0", "nosuch", "p2"],
    ]


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    ref_port = free_port()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        ref = subprocess.Popen(
            [REFERENCE, "--port", str(ref_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", tmp, "--logfile", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            up = False
            for _ in range(100):
                try:
                    call(Raw("127.0.0.1", ref_port, 2), ["PING"])
                    up = True
                    break
                except OSError:
                    time.sleep(0.1)
            if not up:
                print("[err] geo: the reference redis-server did not start")
                return 1
            rng = random.Random(7)
            for proto in (2, 3):
                ours = Raw(host, port, proto)
                theirs = Raw("127.0.0.1", ref_port, proto)
                for n in range(ROUNDS // 2):
                    lon, lat, args = cloud(rng)
                    diffs = []
                    for conn in (ours, theirs):
                        call(conn, ["DEL", "g", "s1", "s2"])
                    for q in [["GEOADD", "g"] + args] + queries(rng, lon, lat):
                        a, b = call(ours, q), call(theirs, q)
                        if a != b:
                            diffs.append((q, a, b))
                    if diffs:
                        failures += 1
                        q, a, b = diffs[0]
                        print(f"[err] geo resp{proto} round {n}: {q!r}: got {a!r}, Redis has {b!r}")
                    else:
                        print(f"[ok] geo resp{proto} round {n}")
        finally:
            ref.terminate()
            ref.wait()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
