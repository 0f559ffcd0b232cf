#!/usr/bin/env python3
"""Run a command and print `wall_s self_cpu_s` on one line: its wall time, and the user + system
CPU time of the command's own process alone, its children (the engines) excluded.

The process is waited for without being reaped (waitid with WNOWAIT), so its /proc/PID/stat still
holds its final utime and stime (clock ticks), which count its own threads only; what its reaped
children used is in cutime/cstime and is left out. `time` or getrusage would mix the two.

usage: runstat.py CMD [ARG]...   (the command's stdout and stderr go to /dev/null)
"""
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - t0
    with open(f"/proc/{p.pid}/stat") as f:
        stat = f.read()
    # Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    fields = stat[stat.rfind(")") + 2:].split()
    ticks = int(fields[14 - 3]) + int(fields[15 - 3])
    code = p.wait()
    if code != 0:
        sys.exit(f"runstat: exit code {code}: {' '.join(sys.argv[1:])}")
    print(f"{wall:.4f} {ticks / os.sysconf('SC_CLK_TCK'):.3f}")


if __name__ == "__main__":
    main()
