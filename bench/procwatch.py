#!/usr/bin/env python3
"""procwatch: run a command and watch its process through /proc while it runs.

The benchmark scripts need figures of the runner alone, not of the runner plus the engines it
reaps (what `time` reports): its own CPU time (utime + stime), its peak resident memory (VmHWM),
its open file descriptors and threads, sampled every INTERVAL seconds. The last sample before
the exit stands for the end, so CPU time may miss up to one interval.

    procwatch.py [--interval S] [--series FILE] -- COMMAND...

Prints one JSON object on stdout (the command's stdout goes to stderr): exit code, wall_s, self_cpu_s, peak_rss_kb, rss_kb (first,
last), fds (first, max, last), threads_max, samples. With --series, every sample is written to
FILE as "t_s rss_kb fds threads" lines (for plots of memory over a soak).
"""

import argparse
import json
import os
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    """(cpu_s, rss_kb, hwm_kb, threads, fds) of a live process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2 :].split()
        # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
        cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
        rss = hwm = threads = 0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return cpu, rss, hwm, threads, fds
    except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--series")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    series = open(args.series, "w") if args.series else None
    start = time.monotonic()
    # The command's own output goes to stderr: stdout carries only the JSON line.
    proc = subprocess.Popen(command, stdout=sys.stderr)
    samples = []
    while proc.poll() is None:
        s = sample(proc.pid)
        # A zombie has no memory left: keep only samples of the living process.
        if s is not None and s[1] > 0:
            samples.append(s)
            if series:
                series.write(f"{time.monotonic() - start:.2f} {s[1]} {s[4]} {s[3]}\n")
        time.sleep(args.interval)
    wall = time.monotonic() - start
    if series:
        series.close()
    if not samples:
        samples = [(0.0, 0, 0, 0, 0)]
    out = {
        "exit": proc.returncode,
        "wall_s": round(wall, 4),
        "self_cpu_s": samples[-1][0],
        "peak_rss_kb": max(s[2] for s in samples),
        "rss_kb": [samples[0][1], samples[-1][1]],
        "fds": [samples[0][4], max(s[4] for s in samples), samples[-1][4]],
        "threads_max": max(s[3] for s in samples),
        "samples": len(samples),
    }
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
