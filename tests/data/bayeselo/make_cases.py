#!/usr/bin/env python3
"""Writes each case's games.pgn and script.txt (BayesElo's input) under this folder.

Usage: make_cases.py GOMOCUP_ELO_RATING_GIT_DIR
(the git directory of a clone of github.com/Gomocup/GomocupEloRating, commit 93024f3).

Real cases convert Gomocup's tournament records as Gomocup's merge.py and txt2pgn.cpp do: in each
file `A - B: wins : losses`, the pair's games are the most any pair played in that file, so
draws = that - wins - losses; pairs are summed over files and written sorted by name, each pair's
first half of games with A moving first (PGN White). Names are kept as the records spell them
(merge.py's nickname and year mapping is left out: it needs Gomocup's own tables).
Generated cases use Python's seeded random module.
"""

import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def script(setup, mm, report=""):
    """A BayesElo script: read, set up, fit, print; then the table again with the scale at 100,
    so that ratings and bars print in hundredths of an (unscaled) Elo; the last two lines leave
    its two menus."""
    return ("readpgn games.pgn\nelo\n%s%s\n%sexactdist\nratings >ratings.txt\nlos 0 200 4 >los.txt\n"
            "scale 100\nratings >ratings-x100.txt\nx\nx\n") % (setup, mm, report)


# Gomocup's compute script (its input.txt).
GOMOCUP_SCRIPT = script("offset 1600\n", "mm")
ESTIMATED_SCRIPT = script("offset 1600\n", "mm 1 1",
                          "advantage >parameters.txt\ndrawelo >>parameters.txt\n")
FIXED_SCRIPT = script("advantage 40\ndrawelo 100\n", "mm 0 0")


def game(white, black, result):
    return '[White "%s"]\n[Black "%s"]\n[Result "%s"]\n\n1. d4 d5 %s\n\n' % (
        white, black, result, result)


def records(git_dir, files):
    """Per pair (a, b) with a < b: [a's wins, draws, b's wins], as merge.py sums them."""
    scores = {}
    for name in files:
        text = subprocess.run(
            ["git", "-C", git_dir, "show", "HEAD:records/%s.txt" % name],
            check=True, capture_output=True, text=True).stdout
        current = {}
        most = 0
        for line in text.splitlines():
            m = re.match(r'^\s*(.+?)\s+-\s+(.+?)\s*:\s*(\d+)\s*:\s*(\d+)\s*$', line.strip())
            if not m:
                continue
            a, b = m.group(1).upper(), m.group(2).upper()
            sa, sb = int(m.group(3)), int(m.group(4))
            if a > b:
                a, b, sa, sb = b, a, sb, sa
            old = current.get((a, b), [0, 0])
            current[(a, b)] = [old[0] + sa, old[1] + sb]
            most = max(most, sa + sb)
        for pair, (sa, sb) in current.items():
            old = scores.get(pair, [0, 0, 0])
            if sa + sb > 0:
                scores[pair] = [old[0] + sa, old[1] + most - sa - sb, old[2] + sb]
            else:
                scores[pair] = old
    return scores


def txt2pgn(scores):
    """txt2pgn.cpp's order: wins, draws, losses; the first half of the pair's games A first."""
    out = []
    for (a, b), (w, d, l) in sorted(scores.items()):
        n = w + d + l
        i = 0
        for result_a, count in (("1-0", w), ("1/2-1/2", d), ("0-1", l)):
            for _ in range(count):
                if i < n // 2:
                    out.append(game(a, b, result_a))
                else:
                    flipped = {"1-0": "0-1", "0-1": "1-0"}.get(result_a, result_a)
                    out.append(game(b, a, flipped))
                i += 1
    return "".join(out)


def model_result(rng, delta, advantage, drawelo):
    """A result drawn from BayesElo's model for the first mover's rating minus the second's."""
    p = lambda x: 1 / (1 + 10 ** (x / 400))
    win = p(-delta - advantage + drawelo)
    loss = p(delta + advantage + drawelo)
    u = rng.random()
    return "1-0" if u < win else ("0-1" if u < win + loss else "1/2-1/2")


def colour_draws(seed=35):
    """8 engines, every pair 10-60 games, the first move given to one side 50-90 % of the time."""
    rng = random.Random(seed)
    names = ["ENGINE%d" % i for i in range(8)]
    strength = [rng.uniform(-300, 300) for _ in names]
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            bias = rng.uniform(0.5, 0.9)
            for _ in range(rng.randint(10, 60)):
                f, s = (i, j) if rng.random() < bias else (j, i)
                out.append(game(names[f], names[s],
                                model_result(rng, strength[f] - strength[s], 60, 120)))
    return "".join(out)


def perfect(seed=36):
    """6 engines; TOP wins every game it plays, with both colours."""
    rng = random.Random(seed)
    names = ["TOP", "B", "C", "D", "E", "F"]
    strength = [0, 50, 0, -50, -100, -150]
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            for k in range(8):
                f, s = (i, j) if k % 2 == 0 else (j, i)
                if names[f] == "TOP":
                    result = "1-0"
                elif names[s] == "TOP":
                    result = "0-1"
                else:
                    result = model_result(rng, strength[f] - strength[s], 30, 80)
                out.append(game(names[f], names[s], result))
    return "".join(out)


def write(case, pgn, script):
    folder = os.path.join(HERE, case)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "games.pgn"), "w") as f:
        f.write(pgn)
    with open(os.path.join(folder, "script.txt"), "w") as f:
        f.write(script)


def main():
    git_dir = sys.argv[1]
    renju = txt2pgn(records(git_dir, ["2024_r", "2025_r", "2026_r"]))
    freestyle = txt2pgn(records(git_dir, ["2026_1", "2026_2"]))
    write("gomocup-renju-2024-2026", renju, GOMOCUP_SCRIPT)
    write("gomocup-freestyle-2026", freestyle, GOMOCUP_SCRIPT)
    write("gomocup-renju-2024-2026-estimated", renju, ESTIMATED_SCRIPT)
    write("gomocup-freestyle-2026-estimated", freestyle, ESTIMATED_SCRIPT)
    write("colour-draws-fixed", colour_draws(), FIXED_SCRIPT)
    write("colour-draws-estimated", colour_draws(), ESTIMATED_SCRIPT)
    write("perfect-score", perfect(), GOMOCUP_SCRIPT)
    write("perfect-score-estimated", perfect(), ESTIMATED_SCRIPT)


if __name__ == "__main__":
    main()
