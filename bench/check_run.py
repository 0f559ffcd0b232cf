#!/usr/bin/env python3
"""check_run: are a finished run's outputs complete and consistent?

    check_run.py GOMOKU_CLI DIR GAMES

DIR holds what the bench scripts ask the runner to write: j.jsonl (journal), and when present
g.pgn, g.sgf, g.msg, s.bin.lz4 (samples), psq/ (Piskvork records), r.html (report). Checks:
- the journal has a header and exactly GAMES game lines, numbered 1..GAMES once each;
- every record file is, byte for byte, what `gomoku-cli export` rebuilds from that journal
  (so each holds exactly the journal's games, in the same order);
- the report, if asked for, exists and names the engines.
Prints "ok: ..." or "FAIL: ..." and exits 0 or 1.
"""

import filecmp
import json
import os
import subprocess
import sys
import tempfile


def fail(why):
    print(f"FAIL: {why}")
    sys.exit(1)


def main():
    cli, run, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    journal = os.path.join(run, "j.jsonl")
    numbers, engines, header = [], set(), 0
    with open(journal, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                g = json.loads(line)
            except json.JSONDecodeError as e:
                fail(f"{journal}:{i}: not JSON ({e})")
            if g.get("type") == "header":
                header += 1
                continue
            numbers.append(g["game"])
            engines.update([g["black"], g["white"]])
    if header != 1:
        fail(f"{journal}: {header} headers")
    if sorted(numbers) != list(range(1, games + 1)):
        missing = sorted(set(range(1, games + 1)) - set(numbers))[:5]
        extra = len(numbers) - len(set(numbers))
        fail(f"{journal}: {len(numbers)} games, {extra} repeated, missing e.g. {missing}")
    checked = ["journal"]
    with tempfile.TemporaryDirectory() as tmp:
        args = [cli, "export", journal]
        wanted = {"g.pgn": "-pgn", "g.sgf": "-sgf", "g.msg": "-msg"}
        for name, flag in wanted.items():
            if os.path.exists(os.path.join(run, name)):
                args += [flag, os.path.join(tmp, name)]
        if os.path.exists(os.path.join(run, "s.bin.lz4")):
            args += ["-sample", "format=bin_lz4", f"file={os.path.join(tmp, 's.bin.lz4')}"]
        if os.path.isdir(os.path.join(run, "psq")):
            args += ["-psq", os.path.join(tmp, "psq")]
        out = subprocess.run(args, capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"export: {out.stderr.strip()}")
        for name in sorted(os.listdir(tmp)):
            live, rebuilt = os.path.join(run, name), os.path.join(tmp, name)
            if name == "psq":
                cmp = filecmp.dircmp(live, rebuilt)
                if cmp.left_only or cmp.right_only or cmp.diff_files:
                    fail(f"{live}: differs from the journal's export ({len(cmp.left_only)} extra, "
                         f"{len(cmp.right_only)} missing, {len(cmp.diff_files)} different)")
                # dircmp compares shallowly by stat; compare the bytes too.
                _, mismatch, errors = filecmp.cmpfiles(live, rebuilt, cmp.common_files, shallow=False)
                if mismatch or errors:
                    fail(f"{live}: {len(mismatch) + len(errors)} records differ from the export")
                checked.append(f"psq ({len(cmp.common_files)} files)")
            elif not filecmp.cmp(live, rebuilt, shallow=False):
                fail(f"{live}: differs from the journal's export")
            else:
                checked.append(name)
    report = os.path.join(run, "r.html")
    if os.path.exists(report):
        page = open(report, encoding="utf-8").read()
        if not all(e in page for e in engines):
            fail(f"{report}: does not name every engine")
        checked.append("r.html")
    print(f"ok: {games} games; " + ", ".join(checked))


if __name__ == "__main__":
    main()
