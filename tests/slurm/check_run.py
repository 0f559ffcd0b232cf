#!/usr/bin/env python3
"""Checks what a SLURM array run of examples/slurm/sprt-array.sh left in its run directory.

Called by tests/slurm/cluster-check.sh; standard library only. Prints one line per check,
`ok - ...` or `FAIL - ...` (and `  ...` details), and exits 0; the caller counts the lines.

Task exit codes come from the marker files the job script writes (RUNDIR/slurm/task-K.json):
`sacct` needs SLURM's accounting storage, which the single-node test cluster does not run.
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

VERDICT_CODE = {"H1": 0, "H0": 3}
RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:?\d{2})$"
)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, what, details=()):
        if cond:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"FAIL - {what}")
            for d in details:
                print(f"  {d}")
        sys.stdout.flush()
        return cond

    def note(self, text):
        print(f"  {text}")


def epoch_ns(ts):
    """RFC 3339 timestamp -> integer nanoseconds since the epoch (exact; datetime stops at µs)."""
    m = RFC3339.match(ts or "")
    if not m:
        raise ValueError(f"not an RFC 3339 timestamp: {ts!r}")
    y, mo, d, h, mi, s, frac, tz = m.groups()
    import calendar

    secs = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        tz = tz[1:].replace(":", "")
        secs -= sign * (int(tz[:2]) * 3600 + int(tz[2:]) * 60)
    ns = int((frac or "0")[:9].ljust(9, "0"))
    return secs * 1_000_000_000 + ns


def fmt_s(ns):
    return f"{ns / 1e9:+.3f} s"


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_journal(path):
    """(header or None, [game dicts], problems)."""
    header, games, problems = None, [], []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            if i == len(lines):
                problems.append(f"{path}:{i}: torn last line ({e})")
                continue
            problems.append(f"{path}:{i}: not JSON ({e})")
            continue
        if obj.get("type") == "header":
            if i != 1:
                problems.append(f"{path}:{i}: a header that is not the first line")
            header = obj
        else:
            games.append(obj)
    return header, games, problems


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def sprt_args(sprt):
    """'elo0=0 elo1=20 alpha=0.001' -> ['--elo0', '0', '--elo1', '20', '--alpha', '0.001']."""
    out = []
    for kv in sprt.split():
        k, _, v = kv.partition("=")
        if k in ("elo0", "elo1", "alpha", "beta", "model"):
            out += [f"--{k}", v]
    return out


def close(a, b, tol):
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= tol


def check_markers(c, rundir, shards, dry_run):
    markers = {}
    for k in range(1, shards + 1):
        path = os.path.join(rundir, "slurm", f"task-{k}.json")
        if not c.check(os.path.isfile(path), f"task {k} wrote its marker {path}"):
            continue
        try:
            m = read_json(path)
        except ValueError as e:
            c.check(False, f"task {k}'s marker is JSON", [str(e)])
            continue
        c.check(
            m.get("shard") == f"{k}/{shards}" and bool(m.get("dry_run")) == dry_run,
            f"task {k} ran shard {k}/{shards}" + (" as a dry run" if dry_run else ""),
            [json.dumps(m)],
        )
        markers[k] = m
    return markers


def check_logs(c, logdir, shards):
    if not logdir:
        return
    for k in range(1, shards + 1):
        found = glob.glob(os.path.join(logdir, f"*_{k}.out"))
        c.check(len(found) == 1, f"task {k} has its own output file in {logdir}", [str(found)])


def stop_marker_time(stop, path):
    """The stop marker's time: a timestamp field of its content if there is one, else its mtime."""
    for key in ("written", "written_at", "time", "at", "stopped", "stopped_at", "decided_at", "timestamp"):
        v = stop.get(key)
        if isinstance(v, str):
            try:
                return epoch_ns(v), f"its {key!r} field {v}"
            except ValueError:
                pass
    return os.stat(path).st_mtime_ns, "its mtime"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rundir", required=True)
    ap.add_argument("--cli", help="gomoku-cli (not needed with --dry-run)")
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--sprt", default="", help="the run's -sprt arguments, e.g. 'elo0=0 elo1=20'")
    ap.add_argument("--sbatch-rc", type=int, required=True, help="exit code of sbatch --wait")
    ap.add_argument("--logdir", help="directory of the tasks' --output files")
    ap.add_argument("--tolerance-ms", type=float, default=100.0,
                    help="slack for 'no game started after the stop marker' (the marker's "
                         "write-then-rename and timestamp granularity)")
    ap.add_argument("--reference", help="journal of the same run unsharded: the games must be the same")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    c = Checks()
    rundir, shards = a.rundir, a.shards

    markers = check_markers(c, rundir, shards, a.dry_run)
    check_logs(c, a.logdir, shards)
    codes = {k: m.get("exit") for k, m in markers.items()}

    if a.dry_run:
        c.check(all(v == 0 for v in codes.values()) and len(codes) == shards,
                "every dry-run task exited 0", [str(codes)])
        c.check(a.sbatch_rc == 0, "sbatch --wait exited 0", [f"sbatch --wait: {a.sbatch_rc}"])
        print(f"# {c.passed} passed, {c.failed} failed")
        return

    # --- the stop marker and the verdict -------------------------------------------------
    stop_path = os.path.join(rundir, "sprt-stop.json")
    stop, stop_ns, verdict = None, None, None
    if os.path.exists(stop_path):
        try:
            stop = read_json(stop_path)
        except ValueError as e:
            c.check(False, "sprt-stop.json is one JSON object (written atomically)", [str(e)])
        else:
            verdict = stop.get("verdict")
            c.check(verdict in VERDICT_CODE, f"sprt-stop.json names a verdict: {verdict!r}",
                    [json.dumps(stop)])
            stop_ns, source = stop_marker_time(stop, stop_path)
            c.note(f"stop marker time from {source}; content: {json.dumps(stop)}")
    elif a.sprt:
        c.note("no sprt-stop.json: the SPRT did not decide, every game must have been played")
    expected = VERDICT_CODE.get(verdict, 0)
    # One verdict: a task that reports one (its decision line, its final results block) reports
    # the marker's crossing, not the one its own, late, view of the other shards crossed at.
    if stop is not None and a.logdir and all(k in stop for k in ("games", "game", "llr")):
        want = (f"{verdict} accepted after {stop['games']} games "
                f"(at game {stop['game']}, LLR {stop['llr']:.2f})")
        for k in range(1, shards + 1):
            for path in glob.glob(os.path.join(a.logdir, f"*_{k}.out")):
                with open(path, errors="replace") as f:
                    lines = [l for l in f.read().splitlines() if " accepted after " in l]
                if lines:
                    c.check(all(want in l for l in lines),
                            f"task {k} reports the stop marker's crossing: {want}", lines[-3:])

    # --- journals --------------------------------------------------------------------------
    journals = sorted(glob.glob(os.path.join(rundir, "*.journal.jsonl")))
    names = {os.path.basename(p) for p in journals}
    expected_names = {f"shard-{k}-of-{shards}.journal.jsonl" for k in range(1, shards + 1)}
    c.check(names <= expected_names, "the run directory holds only shard-K-of-N journals",
            [str(sorted(names - expected_names))])
    for k in range(1, shards + 1):
        name = f"shard-{k}-of-{shards}.journal.jsonl"
        if name in names:
            continue
        m = markers.get(k)
        late = (m is not None and stop_ns is not None and epoch_ns(m.get("started")) > stop_ns)
        c.check(late, f"shard {k} has a journal, or its task started after the stop and had "
                      f"nothing to play", [f"missing {name}; task marker {json.dumps(m)}"])

    per_shard, headers, problems = {}, {}, []
    for p in journals:
        h, games, probs = read_journal(p)
        problems += probs
        headers[p], per_shard[p] = h, games
    c.check(not problems, "every journal line is JSON (no torn lines after a normal end)", problems[:10])
    c.check(journals and all(h is not None for h in headers.values()),
            "every journal starts with its header", [p for p, h in headers.items() if h is None])
    hs = [h for h in headers.values() if h]
    fps = {h.get("fingerprint") for h in hs}
    totals = {(h.get("settings") or {}).get("total_games") for h in hs}
    c.check(len(fps) == 1 and len(totals) == 1 and None not in totals,
            "the shards' headers agree on the configuration and settings.total_games",
            [f"fingerprints {fps}, total_games {totals}"])
    total = next(iter(totals)) if len(totals) == 1 else None

    numbers = [g.get("game") for games in per_shard.values() for g in games]
    dup = sorted(n for n, times in collections.Counter(numbers).items() if times > 1)
    c.check(not dup, f"the {len(numbers)} game numbers of all journals are unique",
            [f"duplicates: {dup[:20]}"])
    if total is not None:
        out = sorted(n for n in numbers if not (isinstance(n, int) and 1 <= n <= total))
        c.check(not out, f"every game number is in the schedule 1..{total}", [f"outside: {out[:20]}"])
        if stop is None:
            missing = sorted(set(range(1, total + 1)) - set(numbers))
            c.check(not missing and not dup, f"no stop: the journals hold exactly games 1..{total}",
                    [f"missing {len(missing)}: {missing[:20]}"])

    # --- against the same run unsharded (deterministic engines): the same games, game by game ---
    if a.reference:
        rh, rgames, rprobs = read_journal(a.reference)
        ref = {g.get("game"): g for g in rgames}
        mine = {g.get("game"): g for games in per_shard.values() for g in games}
        keys = ("opening", "black", "white", "moves", "result", "termination")
        diff = [f"game {n}: " + ", ".join(f"{k} {mine[n].get(k)!r} vs {ref[n].get(k)!r}"
                                          for k in keys if mine[n].get(k) != ref[n].get(k))
                for n in sorted(set(mine) & set(ref))
                if any(mine[n].get(k) != ref[n].get(k) for k in keys)]
        c.check(not rprobs and set(mine) == set(ref) and not diff,
                f"the shards played the games of the unsharded run, game by game ({len(ref)} games: "
                f"{', '.join(keys)})",
                rprobs + [f"only sharded: {sorted(set(mine) - set(ref))[:20]}",
                          f"only unsharded: {sorted(set(ref) - set(mine))[:20]}"] + diff[:10])
        rs = (rh or {}).get("settings") or {}
        hs0 = (hs[0] if hs else {}).get("settings") or {}
        c.check(rs.get("total_games") == hs0.get("total_games") and rs.get("openings") == hs0.get("openings"),
                "the shards' header settings are the unsharded run's (total_games, openings)")
        if rh and hs and rh.get("fingerprint") != hs[0].get("fingerprint"):
            c.note(f"fingerprints differ: unsharded {rh.get('fingerprint')}, shards {hs[0].get('fingerprint')}")

    # --- each shard plays its part: every N-th unit of the schedule (a -repeat pair is a unit) ---
    repeat = bool(((hs[0] if hs else {}).get("settings") or {}).get("repeat"))
    unit = 2 if repeat else 1
    part = {k: {g for g in range(1, (total or 0) + 1) if (g - 1) // unit % shards == k - 1}
            for k in range(1, shards + 1)}
    own = {}
    for p, games in sorted(per_shard.items()):
        m = re.match(r"shard-(\d+)-of-\d+\.journal\.jsonl$", os.path.basename(p))
        if not m or total is None:
            continue
        k = int(m.group(1))
        own[k] = {g.get("game") for g in games}
        stray = sorted(own[k] - part.get(k, set()))
        c.check(not stray, f"shard {k}'s {len(own[k])} games are all of its part of the schedule "
                           f"(every {shards}th {'pair' if repeat else 'game'})", [f"not its own: {stray[:20]}"])

    # --- exit codes: the verdict's, or 0 for a task that played its whole part before the stop ---
    for k in range(1, shards + 1):
        if k not in codes:
            continue
        m = markers[k]
        try:
            ended_first = stop_ns is not None and epoch_ns(m.get("ended")) < stop_ns
        except ValueError:
            ended_first = False
        if ended_first:
            c.check(codes[k] == 0 and own.get(k) == part.get(k),
                    f"task {k} ended before the run decided, with its whole part played "
                    f"({len(own.get(k, ()))} of {len(part.get(k, ()))} games), exit {codes[k]} (0)")
        else:
            c.check(codes[k] == expected,
                    f"task {k} exited {codes[k]}, the code of {verdict or 'a complete run'} ({expected})")
    if codes:
        c.check(a.sbatch_rc == max(codes.values()),
                f"sbatch --wait exited {a.sbatch_rc}, the highest task exit code", [str(codes)])

    # --- the stop: nothing started after it, at most the games in flight ended after it --------
    if stop_ns is not None:
        tol = int(a.tolerance_ms * 1e6)
        for p, games in sorted(per_shard.items()):
            name = os.path.basename(p)
            try:
                started = [(epoch_ns(g.get("started")), g) for g in games]
                ended = [epoch_ns(g.get("ended")) for g in games]
            except ValueError as e:
                c.check(False, f"{name}: game lines carry RFC 3339 started/ended", [str(e)])
                continue
            late = [(s - stop_ns, g.get("game")) for s, g in started if s > stop_ns + tol]
            last = max((s for s, _ in started), default=None)
            # A shard looks for the marker before each game: at most the game it was handed
            # just before the marker appeared (one per slot) starts after it.
            c.check(len(late) <= a.concurrency,
                    f"{name}: at most {a.concurrency} game(s) started after the stop marker "
                    f"({len(games)} games, last start "
                    f"{fmt_s(last - stop_ns) if last is not None else 'none'} from the marker)",
                    [f"game {n} started {fmt_s(d)} after the marker" for d, n in sorted(late)[-10:]])
            # In flight at the stop: started before the marker's time, ended after it. A game
            # started after that time (the marker's time is taken just before its file appears,
            # so a shard can start one in between) is judged by the start check above.
            after = sum(1 for (s, _), e in zip(started, ended) if s <= stop_ns < e)
            c.check(after <= a.concurrency,
                    f"{name}: {after} game(s) in flight at the stop (started before, ended after), "
                    f"at most the {a.concurrency} slot(s)")

    # --- merge and the calculator ------------------------------------------------------------
    rc, out, err = run([a.cli, "merge", rundir, "--json"])
    merged = None
    try:
        merged = json.loads(out)
    except ValueError:
        pass
    c.check(isinstance(merged, dict), f"gomoku-cli merge RUNDIR --json prints one JSON object (exit {rc})",
            [out[-500:], err[-500:]])
    rc2, out2, err2 = run([a.cli, "sprt", *sprt_args(a.sprt), "--json", *journals])
    calc = None
    try:
        calc = json.loads(out2)
    except ValueError:
        pass
    c.check(rc2 == 0 and isinstance(calc, dict),
            f"gomoku-cli sprt {' '.join(sprt_args(a.sprt) + ['--json'])} RUNDIR/*.journal.jsonl works",
            [out2[-500:], err2[-500:]])
    if isinstance(merged, dict) and isinstance(calc, dict):
        c.note(f"merge: llr {merged.get('llr')} verdict {merged.get('verdict')} games "
               f"{merged.get('games')} crossing {merged.get('crossing')}")
        c.note(f"sprt:  llr {calc.get('llr')} verdict {calc.get('verdict')} games "
               f"{calc.get('games')} crossing {calc.get('crossing')}")
        if a.sprt:  # without -sprt the run has no SPRT settings to compute an llr with
            c.check(close(merged.get("llr"), calc.get("llr"), 1e-9),
                    "merge --json and sprt --json agree on llr (within 1e-9)")
            c.check(merged.get("verdict") == calc.get("verdict"),
                    "merge --json and sprt --json agree on the verdict")
        # With -repeat the counts are pentanomial: a pair the stop cut is not in them. `games` is
        # not compared: sprt's counts the games of the counts, merge's every game of the journals.
        # Without -sprt, merge --json has no SPRT fields (counts included): only its games count.
        if not a.sprt:
            c.check(merged.get("games") == len(numbers),
                    f"merge --json counts the {len(numbers)} games of the journals (games {merged.get('games')})")
        if a.sprt:
            c.check(merged.get("counts") == calc.get("counts") and merged.get("stats") == calc.get("stats"),
                    f"merge --json and sprt --json have the same {calc.get('stats')} counts {calc.get('counts')}",
                    [f"merge {merged.get('stats')} {merged.get('counts')} (games {merged.get('games')})",
                     f"sprt {calc.get('stats')} {calc.get('counts')} (games {calc.get('games')})"])
        if merged.get("games") != calc.get("games"):
            c.note(f"games: merge --json {merged.get('games')}, sprt --json {calc.get('games')}, "
                   f"{len(numbers)} in the journals")
        if a.sprt:
            mc, cc = merged.get("crossing") or {}, calc.get("crossing") or {}
            c.check(mc.get("verdict") == cc.get("verdict")
                    and close(mc.get("llr"), cc.get("llr"), 1e-9),
                    "merge --json and sprt --json report the same crossing")
        if stop is not None:
            c.check(merged.get("verdict") == verdict,
                    f"the merged verdict {merged.get('verdict')} is the stop marker's {verdict}")
    rc3, out3, err3 = run([a.cli, "merge", rundir])
    counted = {len(numbers), (calc or {}).get("games") if isinstance(calc, dict) else len(numbers)}
    c.check(any(re.search(rf"\bGames: {n}\b|\b{n} games\b", out3) for n in counted),
            f"gomoku-cli merge RUNDIR prints the results of the {len(numbers)} games (exit {rc3})",
            [out3[-800:], err3[-500:]])
    print(f"# {c.passed} passed, {c.failed} failed")


if __name__ == "__main__":
    main()
