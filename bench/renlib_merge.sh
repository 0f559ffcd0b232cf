#!/usr/bin/env bash
# The million-game RenLib merge of README.md ("RenLib archives"): wall time and peak memory of
# `gomoku-cli lib merge` on generated 15×15 games of 40 to 80 stones.
#
# Steps (release build):
#   1. `benches/renlib_games.rs` writes GAMES games, one pos-notation line each (game i from
#      ChaCha8 seeded with i: first stone h8, each later one within distance 2 of a stone).
#   2. `gomoku-cli lib merge -o new.lib games.txt`: every game into a new library, each in the
#      orientation that follows the tree deepest, with its `[game pos:HASH] *` end-of-game line.
#   3. the same games again `--into new.lib`: all already there (key lookups and the rewrite).
#   4. STATS_GAMES games (default 100000) with `--stats` (a statistics line on every node).
# /usr/bin/time gives wall time and peak RSS (the process's maximum resident memory).
#
# Environment: GAMES (default 1000000), STATS_GAMES, NO_BUILD=1 to skip the build, KEEP=1 to keep
# the files (in a temporary directory, printed).
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-1000000}
STATS_GAMES=${STATS_GAMES:-100000}
if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release --bin gomoku-cli >&2
fi
R=target/release
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "files in $tmp" >&2; fi

measure() { # label, command...
    local label=$1
    shift
    /usr/bin/time -f "$label: wall %e s, CPU %U s user + %S s sys, peak RSS %M KiB" "$@" >"$tmp/out.txt" 2>"$tmp/time.txt" || {
        cat "$tmp/out.txt" "$tmp/time.txt" >&2
        exit 1
    }
    sed 's/^/    /' "$tmp/out.txt"
    tail -n 1 "$tmp/time.txt"
}

cargo bench --bench renlib_games -- generate "$GAMES" >"$tmp/games.txt" 2>"$tmp/build.txt" || {
    cat "$tmp/build.txt" >&2
    exit 1
}
echo "$GAMES games, $(wc -c <"$tmp/games.txt") bytes of pos notation, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure "merge $GAMES games into a new library" "$R/gomoku-cli" lib merge -o "$tmp/new.lib" "$tmp/games.txt"
echo "    library: $(wc -c <"$tmp/new.lib") bytes"
measure "the same games again (--into)" "$R/gomoku-cli" lib merge -o "$tmp/again.lib" --into "$tmp/new.lib" "$tmp/games.txt"
cmp -s "$tmp/new.lib" "$tmp/again.lib" && echo "    unchanged, byte for byte"
head -n "$STATS_GAMES" "$tmp/games.txt" >"$tmp/some.txt"
measure "merge $STATS_GAMES games with --stats" "$R/gomoku-cli" lib merge --stats -o "$tmp/stats.lib" "$tmp/some.txt"
echo "    library: $(wc -c <"$tmp/stats.lib") bytes"
