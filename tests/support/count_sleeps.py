"""Runs a program and reports how often it slept (Tcl cannot read rusage).

Usage: python3 count_sleeps.py PROGRAM [ARGS...]
The program's stdout and stderr pass through; then one line is printed:
"sleeps: N cpu_s: C wall_s: W". N is the program's voluntary context
switches (each one a block in epoll_wait or another wait that something
had to wake it from), C its user + system CPU seconds, W the seconds it ran.
Exits with the program's exit status.
"""
import resource
import subprocess
import sys
import time


def main() -> int:
    start = time.monotonic()
    rc = subprocess.call(sys.argv[1:])
    wall = time.monotonic() - start
    sys.stdout.flush()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print(f"sleeps: {usage.ru_nvcsw} cpu_s: {cpu:.3f} wall_s: {wall:.3f}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
