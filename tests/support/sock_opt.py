#!/usr/bin/env python3
"""Prints TCP_NODELAY (0 or 1) of a socket another process holds.

Usage: sock_opt.py PID FD

Takes a duplicate of the process's descriptor with pidfd_getfd(2) (Linux
5.6; needs the right to ptrace the process, e.g. the same user without
Yama restrictions, or root) and reads the option from the duplicate, which
shares the socket. Exit 77 when the kernel or the permissions refuse it.
"""
import ctypes
import errno
import os
import socket
import sys

SYS_PIDFD_GETFD = 438  # x86-64 and the generic syscall table alike


def main():
    pid, fd = int(sys.argv[1]), int(sys.argv[2])
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        pidfd = os.pidfd_open(pid)
    except OSError as e:
        print(f"pidfd_open: {e}", file=sys.stderr)
        return 77
    dup = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
    if dup < 0:
        err = ctypes.get_errno()
        print(f"pidfd_getfd: {os.strerror(err)}", file=sys.stderr)
        return 77 if err in (errno.EPERM, errno.ENOSYS, errno.EACCES) else 1
    s = socket.socket(fileno=dup)
    try:
        print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0 and 1 or 0)
    finally:
        s.detach()
        os.close(dup)
        os.close(pidfd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
