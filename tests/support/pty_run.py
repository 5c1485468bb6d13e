"""Runs a program on a pseudo-terminal and types into it (Tcl has no pty).

Usage: python3 pty_run.py INPUT PROGRAM [ARGS...]
INPUT is typed one piece at a time: pieces are separated by the two
characters "\\p" (a pause that lets the program redraw); "\\t" is Tab,
"\\x03" Ctrl-C, "\\x04" Ctrl-D and "\\r" the
Enter key of a terminal in raw mode. Everything the program writes to the terminal is printed
to stdout once it exits (or after 10 seconds, when it is killed).
"""
import os
import pty
import select
import sys
import time


def main() -> int:
    pieces = sys.argv[1].split("\\p")
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[2], sys.argv[2:])
    out = bytearray()

    def drain(seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return True
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            if b"\x1b[6n" in data:
                # Cursor position queries (linenoise measures the width with
                # one before and one after moving 999 columns right): answer
                # as an 80-column terminal would, or the program waits.
                parts = data.split(b"\x1b[6n")
                os.write(fd, b"".join(b"\x1b[1;80R" if b"\x1b[999C" in p else b"\x1b[1;1R"
                                      for p in parts[:-1]))
                data = b"".join(parts)
            out.extend(data)

    alive = drain(0.5)
    for piece in pieces:
        if not alive:
            break
        text = piece.replace("\\t", "\t").replace("\\x03", "\x03").replace("\\x04", "\x04").replace("\\n", "\n").replace("\\r", "\r")
        os.write(fd, text.encode())
        alive = drain(0.5)
    deadline = time.monotonic() + 10
    while alive and time.monotonic() < deadline:
        alive = drain(0.2)
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            drain(0.2)
            break
    else:
        if alive:
            os.kill(pid, 9)
    sys.stdout.write(out.decode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
