"""Runs a program and counts the times it slept (Tcl cannot read rusage).

Usage: python3 count_sleeps.py PROGRAM [ARGS...]
The program's stdout and stderr pass through; then one line is printed:
"sleeps: N", N being the program's voluntary context switches (each one a
block in epoll_wait or another wait that someone had to wake it from).
Exits with the program's exit status.
"""
import resource
import subprocess
import sys


def main() -> int:
    rc = subprocess.call(sys.argv[1:])
    sys.stdout.flush()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"sleeps: {usage.ru_nvcsw}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
