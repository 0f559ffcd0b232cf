#!/usr/bin/env python3
"""How much of each engine's search the runner heard: per engine, of the moves it played, how
many carry a search entry in the journal, how many an evaluation, and how many a multi-PV group
(`mpv`, two PVs or more: what `-sample ... multipv=N` writes as a group).

    python3 bench/search_coverage.py JOURNAL... [--engine NAME] [--min-eval PCT] [--min-mpv PCT]

Counts moves, not games (a game cut short counts the moves it had). With --min-eval/--min-mpv
the exit status is 1 when a listed engine falls short.
"""

import argparse
import json
import sys


def coverage(paths, only=None):
    """{engine: [moves, with search, with eval, with mpv group]} over the journals' games."""
    counts = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    game = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{number}: not JSON: {e}")
                if "game" not in game or "times_ms" not in game:
                    continue
                engines = (game["black"], game["white"])
                search = game.get("search") or []
                for i in range(len(game["times_ms"])):
                    name = engines[i % 2]
                    if only and name != only:
                        continue
                    entry = search[i] if i < len(search) else None
                    c = counts.setdefault(name, [0, 0, 0, 0])
                    c[0] += 1
                    if entry:
                        c[1] += 1
                        c[2] += "ev" in entry
                        c[3] += len(entry.get("mpv", [])) >= 2
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("journals", nargs="+")
    p.add_argument("--engine", help="count this engine only")
    p.add_argument("--min-eval", type=float, help="least share of moves with an evaluation, %%")
    p.add_argument("--min-mpv", type=float, help="least share of moves with a multi-PV group, %%")
    a = p.parse_args()
    counts = coverage(a.journals, a.engine)
    if not counts:
        sys.exit("no moves found")
    pct = lambda k, n: 100.0 * k / n if n else 0.0
    short = False
    print(f"{'engine':<16} {'moves':>6} {'search':>14} {'eval':>14} {'multipv':>14}")
    for name, (n, s, e, m) in sorted(counts.items()):
        print(
            f"{name:<16} {n:>6} {s:>6} {pct(s, n):5.1f} % {e:>6} {pct(e, n):5.1f} %"
            f" {m:>6} {pct(m, n):5.1f} %"
        )
        short |= a.min_eval is not None and pct(e, n) < a.min_eval
        short |= a.min_mpv is not None and pct(m, n) < a.min_mpv
    sys.exit(1 if short else 0)


if __name__ == "__main__":
    main()
