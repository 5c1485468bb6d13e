"""Relays bytes between stdin/stdout and a unix socket (Tcl has no AF_UNIX).

Usage: python3 unix_bridge.py SOCKET_PATH
Exits when the server closes the connection; stdin EOF half-closes the socket
so the server sees the client hang up while its last replies still arrive.
On connect failure prints "ERR connect: <reason>" and exits 1.
"""
import os
import select
import socket
import sys


def main() -> int:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(sys.argv[1])
    except OSError as exc:
        sys.stdout.write(f"ERR connect: {exc}\n")
        return 1
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    inputs = [sock, stdin]
    while True:
        readable, _, _ = select.select(inputs, [], [])
        if sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                return 0
            view = memoryview(data)
            while view:
                view = view[os.write(stdout, view):]
        if stdin in readable:
            data = os.read(stdin, 65536)
            if not data:
                inputs.remove(stdin)
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            else:
                sock.sendall(data)


if __name__ == "__main__":
    sys.exit(main())
