"""Check a binpack or binpack_lz4 sample file against the journal of the run that wrote it.

Usage: python3 binpack_evals.py SAMPLES JOURNAL

The file is decoded here as Rapfi's trainer lays it out (pytorch-nnue-trainer,
dataset/packed_binary.py), independently of gomoku-cli's reader: LZ4 frames one after the
other (python-lz4), then entries of an 8-byte head, the starting stones, and 4-byte move
records (u16 isFirst | isLast << 1 | isNoEval << 2 | isPass << 3 | move << 6, then an i16
evaluation). Each move's group (the played move first, then the other PV moves) and its
evaluations must be what the journal's `search` field says of that move: the side to move's
evaluation on the samples' scale (a win in n plies 30000 - n, of unknown length 29500, scores
clamped to +-29499), the other PV moves in PV order without the played move, occupied points
or repeats. Run at freq=1: every game with samples is one entry.

Prints one line `games G moves M evals E groups P others O` and exits 0, or names the first
difference and exits 1.
"""

import json
import re
import struct
import sys

import lz4.frame

CUT = ("crash", "time_forfeit", "illegal_move", "failed_start")


def stream(path):
    data = open(path, "rb").read()
    if not path.endswith(".lz4"):
        return data
    out = b""
    while data:
        d = lz4.frame.LZ4FrameDecompressor()
        out += d.decompress(data)
        if not d.eof:
            sys.exit(f"{path}: a truncated LZ4 frame")
        data = d.unused_data
    return out


def entries(data):
    """Each entry as (start stones, groups); a group is a list of (x, y, eval or None)."""
    at, out = 0, []
    while at < len(data):
        w1, w2 = struct.unpack_from("<II", data, at)
        start, records = w1 >> 22, w2 >> 14
        at += 8
        stones = [((w >> 5) & 31, w & 31) for w in struct.unpack_from(f"<{start}H", data, at)]
        at += 2 * start
        groups, group = [], None
        for _ in range(records):
            word, ev = struct.unpack_from("<Hh", data, at)
            at += 4
            first, last, no_eval, is_pass = (bool(word >> b & 1) for b in range(4))
            if is_pass or first != (group is None) or (no_eval and ev != 0):
                sys.exit(f"byte {at - 4}: a pass, isFirst where a group is (not) open, or isNoEval with an evaluation")
            mv = word >> 6
            group = (group or []) + [((mv >> 5) & 31, mv & 31, None if no_eval else ev)]
            if last:
                groups.append(tuple(group))
                group = None
        if group is not None or ((w1 >> 12) & 1023) != start + len(groups):
            sys.exit(f"entry ending at byte {at}: an open group, or the stone count is wrong")
        out.append((tuple(stones), groups))
    return out


def points(text):
    return [(ord(c) - ord("a"), int(n) - 1) for c, n in re.findall(r"([a-z])(\d+)", text or "")]


def value(ev):
    """The samples' scale of a journal evaluation (`+35`, `-M4`, `+M*`)."""
    if ev is None:
        return None
    m = re.fullmatch(r"([+-]?)M(\d+|\*)", ev)
    if m:
        v = 30000 - (500 if m.group(2) == "*" else int(m.group(2)))
        return -v if m.group(1) == "-" else v
    return max(-29499, min(29499, int(ev)))


def expected(game):
    """The groups the journal's game should give, one per move."""
    opening, moves = points(game["opening"]), points(game["moves"])
    search = game.get("search") or [None] * len(moves)
    board, groups = set(opening), []
    for mv, report in zip(moves, search):
        report = report or {}
        mpv = [(points(p)[0], value(e)) for p, e in report.get("mpv", [])]
        own = [e for p, e in mpv if p == mv and e is not None]
        group = [(mv[0], mv[1], own[0] if own else value(report.get("ev")))]
        for p, e in mpv:
            if p != mv and p not in board and all(g[:2] != p for g in group):
                group.append((p[0], p[1], e))
        groups.append(tuple(group))
        board.add(mv)
    return tuple(opening), groups


def main(samples, journal):
    games = [json.loads(line) for line in open(journal) if line.endswith("\n")]
    # Sorted by their text: two games of a pair share the opening and may share a first move,
    # where one eval is a number and the other None, which Python cannot order.
    want = sorted(
        (
            expected(g)
            for g in games
            if g.get("type") != "header" and g["termination"] not in CUT and g["moves"]
        ),
        key=repr,
    )
    got = sorted(entries(stream(samples)), key=repr)
    if len(got) != len(want):
        sys.exit(f"{len(got)} entries, the journal has {len(want)} games with samples")
    for (start, groups), (w_start, w_groups) in zip(got, want):
        if start != w_start or groups != w_groups:
            for i, (g, w) in enumerate(zip(groups, w_groups)):
                if g != w:
                    sys.exit(f"opening {start}, move {i + 1}: file {g}, journal {w}")
            sys.exit(f"opening {start}: file {groups}, journal {w_groups}")
    moves = [g for _, groups in got for g in groups]
    print(
        "games", len(got),
        "moves", len(moves),
        "evals", sum(g[0][2] is not None for g in moves),
        "groups", sum(len(g) > 1 for g in moves),
        "others", sum(len(g) - 1 for g in moves),
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
