#!/usr/bin/env bash
# Makes docs/report.png, the report guide's picture of a report: a real renju SPRT run between two
# depths of the bundled pbrain-scout, reported with -report, shown in headless Chromium with the
# viewer on game 21 at stone 40 (forbidden points for black on the board).
#   docs/report-screenshot.sh     (needs Debian's chromium; NO_BUILD=1 to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || cargo build --release --workspace --bins >/dev/null
R=$PWD/target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$R/gomoku-cli" -engine "cmd=$R/pbrain-scout" name=scout-d4 depth=4 \
    -engine "cmd=$R/pbrain-scout" name=scout-d3 depth=3 -each tc=10/1 \
    -rule 4 -boardsize 15 -games 200 -repeat -concurrency 2 \
    -openings file=openings/renju15.txt type=pos -sprt elo0=0 elo1=100 \
    -journal "$tmp/run.jsonl" -report "$tmp/report.html" -quiet -noprogress >/dev/null || true
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
    --window-size=1200,2750 --screenshot="$PWD/docs/report.png" \
    "file://$tmp/report.html#game=21&ply=40" 2>/dev/null
echo "docs/report.png written"
