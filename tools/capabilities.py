#!/usr/bin/env python3
"""Prints which capabilities the tests may skip for this machine has.

One comma-separated line of: io_uring (the kernel sets up a ring),
o_direct (DIR's file system takes O_DIRECT reads), avx2 (x86 CPU flag).
tools/test.sh passes it to tools/test_tally.py, which on CI counts a test
skipped for a capability listed here as failed.
"""

import argparse
import ctypes
import mmap
import os
import platform
import sys
import tempfile

# io_uring_setup is 425 on every architecture with the generic syscall table
# and on x86_64.
IO_URING_SETUP = 425


def has_io_uring():
    try:
        with open("/proc/sys/kernel/io_uring_disabled") as f:
            if f.read().strip() == "2":
                return False
    except OSError:
        pass
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed.
    fd = libc.syscall(IO_URING_SETUP, ctypes.c_uint(4), params)
    if fd < 0:
        return False
    os.close(fd)
    return True


def has_o_direct(directory):
    try:
        with tempfile.NamedTemporaryFile(dir=directory) as f:
            f.write(b"x" * 8192)
            f.flush()
            fd = os.open(f.name, os.O_RDONLY | os.O_DIRECT)
            try:
                buf = mmap.mmap(-1, 4096)  # Page-aligned, as O_DIRECT needs.
                return os.preadv(fd, [buf], 0) == 4096
            finally:
                os.close(fd)
    except OSError:
        return False


def has_avx2():
    if platform.machine() not in ("x86_64", "AMD64", "i686"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx2" in line for line in f)
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=tempfile.gettempdir(),
                        help="where the tests write their files (for o_direct)")
    args = parser.parse_args()
    found = []
    if has_io_uring():
        found.append("io_uring")
    if has_o_direct(args.dir):
        found.append("o_direct")
    if has_avx2():
        found.append("avx2")
    print(",".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
