#!/usr/bin/env bash
# The shipped build's link order (issue 37's memory aim): the functions a match runs, laid side by
# side in the program's code, so that a run maps a few 64 KiB windows of it instead of ~70 spread
# over the whole file (each first touch of a page maps the 64 KiB around it: BENCHMARKS.md §13).
#
#   bench/link_order.sh            # rewrites .cargo/link-order.txt, then `cargo dist` uses it
#
# 1. Builds `cargo dist` without stripping (in target/link-order: the same code and the same
#    symbol names as the shipped build, whose symbols the linker drops).
# 2. Plays matches under valgrind's callgrind (names not demangled): two instant engines at one
#    slot and at two, as the benchmarks run them (`-journal off -noprogress`), and as a user
#    would (the journal, `-pgn`, `-sgf`, `-sprt`, a shipped openings file, the console's summaries).
# 3. Writes the name of every function that ran, most instructions first, to
#    .cargo/link-order.txt, which `cargo dist` hands to the linker (`--symbol-ordering-file`).
#
# The names carry hashes of the compiler, the crates' versions and the profile's settings: after a
# toolchain or a dependency update most of them no longer match, the linker then leaves those
# functions where they were (the program is the same, only its layout), and this script is run
# again. It ends by saying how many of the listed names the build has.
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=$root/target/link-order
bin=$target/x86_64-unknown-linux-gnu/release/gomoku-cli

command -v valgrind >/dev/null || {
    echo "link_order: valgrind is missing (apt-get install valgrind)" >&2
    exit 1
}
# `cargo dist`'s build (.cargo/config.toml) but for the linker's `--strip-all`: the same code
# and the same names, with the symbols kept.
CARGO_TARGET_DIR=$target cargo build --release --bin gomoku-cli --target x86_64-unknown-linux-gnu \
    --config 'profile.release.strip = false' \
    --config "target.x86_64-unknown-linux-gnu.rustflags = ['-C', 'target-feature=+crt-static']"
cargo build --release -p pbrain-random
engine=$root/target/release/pbrain-random

work=$(mktemp -d "${TMPDIR:-/tmp}/link-order.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
profile() {
    local name=$1
    shift
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.cg" "$bin" \
        -each "cmd=$engine --first-empty" -engine name=a -engine name=b -rule 0 -boardsize 15 \
        "$@" >"$work/$name.out" 2>"$work/$name.err" || {
        echo "link_order: the $name run failed:" >&2
        tail -5 "$work/$name.err" >&2
        exit 1
    }
}
profile bench1 -games 40 -repeat -concurrency 1 -journal off -noprogress
profile bench2 -games 40 -repeat -concurrency 2 -journal off -noprogress
profile user -games 40 -repeat -concurrency 2 -journal run.jsonl -pgn run.pgn -sgf run.sgf \
    -sprt elo1=5 -openings file=$root/openings/freestyle15.txt type=pos order=random srand=1 \
    -ratinginterval 10

# callgrind names a function once, `fn=(N) NAME`, then by `(N)`; its cost lines follow it.
python3 - "$work"/*.cg >"$root/.cargo/link-order.txt" <<'EOF'
import re, sys
cost = {}
for path in sys.argv[1:]:
    names, current, after_call = {}, None, False
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.+))?$", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3).strip()
            if m.group(1) == "fn":
                current = names.get(m.group(2))
            continue
        if line.startswith("calls="):
            after_call = True  # the next cost line is the call's, not this function's own
            continue
        parts = line.split()
        if len(parts) >= 2 and re.match(r"^([+-]?\d+|\*)$", parts[0]) and parts[1].isdigit():
            if current and not after_call:
                cost[current] = cost.get(current, 0) + int(parts[1])
            after_call = False
# Only the program's own symbols (valgrind's and the loader's have no place in its link).
ranked = sorted((n for n in cost if not n.startswith("0x")), key=lambda n: -cost[n])
print("\n".join(ranked))
EOF
echo "link_order: $(wc -l <"$root/.cargo/link-order.txt") functions in .cargo/link-order.txt"
found=$(nm --defined-only "$bin" | awk '{ print $NF }' | sort -u | comm -12 - <(sort -u "$root/.cargo/link-order.txt") | wc -l)
echo "link_order: $found of them are in the build (its settings are cargo dist's)"
# Cargo does not see the list's content (a linker argument names the file), so a `cargo dist`
# that finds nothing else changed would keep the program linked with the old list: touching the
# program's root makes it link again (42 s on 2 cores).
touch "$root/src/main.rs"
echo "link_order: src/main.rs touched: the next \`cargo dist\` links with the new list"
