#!/usr/bin/env python3
"""Captures unix datagrams: stands in for systemd's notification socket
(sd_notify(3)) or for syslog's /dev/log in tests.

Usage: dgram_capture.py SOCKET_PATH OUT_FILE SECONDS

Binds a unix datagram socket at SOCKET_PATH, then appends every message it
receives to OUT_FILE (one line per message, newlines inside a message shown
as '|') until SECONDS have passed since the last message or the start.
"""
import os
import socket
import sys


def main():
    path, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(seconds)
    with open(out, "a", buffering=1) as f:
        f.write("listening\n")
        while True:
            try:
                data = sock.recv(4096)
            except socket.timeout:
                break
            f.write(data.decode(errors="replace").strip("\n").replace("\n", "|") + "\n")
    os.unlink(path)


if __name__ == "__main__":
    main()
