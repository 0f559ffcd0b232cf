#!/usr/bin/env python3
"""Where each runner's CPU goes: the same match played by each runner, interleaved (forward,
then backward), several times per concurrency level; medians of the wall time, the runner's own
user and system time per game (its process alone, read from /proc/PID/stat once it has exited
and before it is reaped) and its engines' CPU per game (what the reaped runner's children used),
and each runner's paired wall ratio against c-gomoku-cli.

  usersys.py DIR LEVELS [NAME='PATH ARGS' ...]     e.g. usersys.py .devcarry 1:1000:7,8:4000:7

DIR is bench/manycore.sh's folder (gomoku-cli-new, c-gomoku-cli, pbrain-random; pingpong and
relay_tokio where present). The runners, each given the runners' words (-each cmd=... -games
-concurrency ...): `new` (gomoku-cli-new -journal off -noprogress), `pin` (the same with -cpus
auto), `relay` and `relayT` (relay_tokio, the second with -timer 100: a tokio timer a move, as
the runner arms one), `floor` (pingpong) and `c` (c-gomoku-cli); NAME='PATH ARGS' adds one.
JSON=FILE writes every run. Issue 37's split (docs/design/BENCHMARKS.md §13) on 16 cores: the
runner's extra CPU over the floor is user time, its system time about the floor's."""
import json
import os
import statistics as st
import subprocess
import sys
import time


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    # Exited but not reaped: its /proc/PID/stat still holds its own threads' times.
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - t0
    hz = os.sysconf("SC_CLK_TCK")
    f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    user, system = int(f[11]) / hz, int(f[12]) / hz
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    engines = ru.ru_utime + ru.ru_stime - user - system
    return dict(wall=wall, user=user, sys=system, engines=engines, rc=status)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, levels = os.path.abspath(sys.argv[1]), sys.argv[2]
    engine = f"cmd={d}/pbrain-random --first-empty"
    new = [f"{d}/gomoku-cli-new", "-journal", "off", "-noprogress"]
    runners = {"new": new, "pin": new + ["-cpus", "auto"]}
    if os.access(f"{d}/relay_tokio", os.X_OK):
        runners["relay"] = [f"{d}/relay_tokio"]
        runners["relayT"] = [f"{d}/relay_tokio", "-timer", "100"]
    if os.access(f"{d}/pingpong", os.X_OK):
        runners["floor"] = [f"{d}/pingpong"]
    runners["c"] = [f"{d}/c-gomoku-cli"]
    for extra in sys.argv[3:]:
        name, cmd = extra.split("=", 1)
        runners[name] = cmd.split()
    every = {}
    for level in levels.split(","):
        conc, games, reps = level.split(":")
        words = ["-each", engine, "-engine", "name=a", "-engine", "name=b", "-rule", "0",
                 "-boardsize", "15", "-games", games, "-repeat", "-concurrency", conc]
        runs = {k: [] for k in runners}
        names = list(runners)
        for r in range(int(reps)):
            for k in names if r % 2 == 0 else names[::-1]:
                runs[k].append(run(runners[k] + words))
        every[conc] = runs
        g = int(games)
        print(f"concurrency {conc}, {games} games, {reps} runs (medians; ms a game: the runner's "
              "own user and system time, its engines' CPU)", flush=True)
        for k, v in runs.items():
            med = lambda key: st.median(x[key] for x in v)
            ratio = st.median(a["wall"] / b["wall"] for a, b in zip(v, runs["c"]))
            failed = sum(1 for x in v if x["rc"] != 0)
            print(f"  {k:7} wall {med('wall'):.3f} s, / c {ratio:.3f}; user {1000 * med('user') / g:.3f},"
                  f" system {1000 * med('sys') / g:.3f}, engines {1000 * med('engines') / g:.3f}"
                  + (f"; {failed} runs FAILED" if failed else ""), flush=True)
    if os.environ.get("JSON"):
        with open(os.environ["JSON"], "w") as f:
            json.dump(every, f, indent=1)


if __name__ == "__main__":
    main()
