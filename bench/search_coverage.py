#!/usr/bin/env python3
"""How much of each engine's search the runner heard: per engine, of the moves it played, how
many carry a search entry in the journal, how many an evaluation, and how many a multi-PV group
(`mpv`, two PVs or more: what `-sample ... multipv=N` writes as a group).

    python3 bench/search_coverage.py JOURNAL... [--engine NAME] [--min-eval PCT] [--min-mpv PCT]
    python3 bench/search_coverage.py JOURNAL --engine NAME --log PROTOCOL_LOG

Counts moves, not games (a game cut short counts the moves it had). With --min-eval/--min-mpv
the exit status is 1 when a listed engine falls short. With --log (the run's `-log` file, one
game slot: -concurrency 1), also the moves whose search printed a whole multi-PV iteration (every
`INFO PV k` block of an `INFO NUMPV n` >= 2 depth), and how many of those carry a group: what the
runner could have kept, whatever the engine was asked.
"""

import argparse
import json
import re
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
                # Black moves first after an opening of an even number of stones.
                stones = len(re.findall(r"[a-z]\d+", game.get("opening") or ""))
                search = game.get("search") or []
                for i in range(len(game["times_ms"])):
                    name = engines[(i + stones) % 2]
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


def multipv_searches(log, engine):
    """Per answer of `engine` in a protocol log, in order: (x, y, whether a multi-PV iteration
    was printed whole before it)."""
    answers = []
    blocks = {}  # depth -> set of PV indexes heard, for the current request
    numpv = {}
    pv = depth = None
    mark = f"] {engine} > "
    for line in open(log, encoding="utf-8", errors="replace"):
        head, sep, text = line.rstrip("\n").partition(mark)
        if not sep:
            if f"] {engine} < " in line and any(
                w in line for w in ("< TURN", "< BEGIN", "< BOARD", "< YXBOARD")
            ):
                blocks, numpv = {}, {}
            continue
        if text.startswith("INFO PV ") and text != "INFO PV DONE":
            pv = int(text.split()[2])
        elif text.startswith("INFO NUMPV "):
            n = int(text.split()[2])
        elif text.startswith("INFO DEPTH "):
            depth = int(text.split()[2])
        elif text == "INFO PV DONE" and depth is not None:
            blocks.setdefault(depth, set()).add(pv)
            numpv[depth] = n
        else:
            xy = text.strip().split(",")
            if len(xy) == 2 and all(v.isdigit() for v in xy):
                whole = any(numpv[d] >= 2 and len(b) >= numpv[d] for d, b in blocks.items())
                answers.append((int(xy[0]), int(xy[1]), whole))
                blocks, numpv = {}, {}
    return answers


def journal_moves(path, engine):
    """`engine`'s moves in the journal, in order: (x, y, search entry)."""
    out = []
    for line in open(path, encoding="utf-8"):
        game = json.loads(line)
        if "game" not in game:
            continue
        points = re.findall(r"([a-z])(\d+)", game["moves"])
        search = game.get("search") or []
        # Black moves first after an opening of an even number of stones.
        stones = len(re.findall(r"[a-z]\d+", game.get("opening") or ""))
        colour = 0 if game["black"] == engine else 1 if game["white"] == engine else None
        if colour is None:
            continue
        for i in range((colour + stones) % 2, len(game["times_ms"]), 2):
            x, y = ord(points[i][0]) - ord("a"), int(points[i][1]) - 1
            out.append((x, y, search[i] if i < len(search) else None))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("journals", nargs="+")
    p.add_argument("--engine", help="count this engine only")
    p.add_argument("--min-eval", type=float, help="least share of moves with an evaluation, %%")
    p.add_argument("--min-mpv", type=float, help="least share of moves with a multi-PV group, %%")
    p.add_argument("--log", help="the run's protocol log (-log), for the multi-PV searches")
    a = p.parse_args()
    if a.log:
        if not a.engine or len(a.journals) != 1:
            sys.exit("--log needs --engine and one journal")
        answers = multipv_searches(a.log, a.engine)
        moves = journal_moves(a.journals[0], a.engine)
        # Pair each journal move with the next answer of the same point (answers of games cut
        # before the journal line, e.g. refused requests, are skipped).
        k = whole = kept = 0
        for x, y, entry in moves:
            while k < len(answers) and answers[k][:2] != (x, y):
                k += 1
            if k == len(answers):
                sys.exit(f"{a.log}: no answer for a journal move ({x},{y})")
            if answers[k][2]:
                whole += 1
                kept += bool(entry) and len(entry.get("mpv", [])) >= 2
            k += 1
        print(f"{a.engine}: {whole} moves after a whole multi-PV iteration, {kept} with a group"
              f" ({100.0 * kept / whole if whole else 0:.1f} %)")
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
