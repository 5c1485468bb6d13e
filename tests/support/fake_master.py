#!/usr/bin/env python3
"""A master that misbehaves, for the replica's fault tests.

Usage: fake_master.py MODE PORTFILE

Listens on a free port (written to PORTFILE), answers the replica's
handshake (PING, AUTH, REPLCONF) as a master does, then answers PSYNC as
MODE says:
  badline    a reply line that is not RESP
  garbage    +FULLRESYNC, then a "$" line that is not a length
  truncated  +FULLRESYNC, "$1000" and 100 bytes, then closes
  badrdb     +FULLRESYNC and a whole payload that is not an RDB
  silent     +FULLRESYNC, then nothing (the replica's repl-timeout)
Each connection's attempt number is printed to stdout. Runs until killed.
"""
import socket
import sys

FULL = b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n"


def read_command(f):
    line = f.readline()
    if not line:
        return None
    if not line.startswith(b"*"):
        return line.split()
    args = []
    for _ in range(int(line[1:])):
        n = int(f.readline()[1:])
        args.append(f.read(n + 2)[:-2])
    return args


def serve(conn, mode):
    f = conn.makefile("rb")
    while True:
        cmd = read_command(f)
        if cmd is None:
            return
        name = cmd[0].upper() if cmd else b""
        if name == b"PING":
            conn.sendall(b"+PONG\r\n")
        elif name in (b"AUTH", b"REPLCONF"):
            conn.sendall(b"+OK\r\n")
        elif name in (b"PSYNC", b"SYNC"):
            break
        else:
            conn.sendall(b"-ERR unexpected\r\n")
    if mode == "badline":
        conn.sendall(b"this is not redis\r\n")
    elif mode == "garbage":
        conn.sendall(FULL + b"\n\n$not-a-length\r\n" + b"\x00\xff" * 64)
    elif mode == "truncated":
        conn.sendall(FULL + b"$1000\r\nREDIS0010" + b"\x00" * 91)
    elif mode == "badrdb":
        body = b"REDIS0010" + b"\xfe\x00\xfbjunkjunkjunk" * 20
        conn.sendall(FULL + b"$%d\r\n" % len(body) + body)
    elif mode == "silent":
        conn.sendall(FULL)
        while conn.recv(4096):
            pass
        return
    conn.close()


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    with open(portfile + ".tmp", "w") as out:
        out.write(str(srv.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    attempt = 0
    while True:
        conn, _ = srv.accept()
        attempt += 1
        print(attempt, flush=True)
        try:
            serve(conn, mode)
        except OSError:
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    main()
