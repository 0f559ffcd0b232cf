#!/usr/bin/env bash
# Interop check against real engines before a change to the engine protocol lands. Our example
# engines agree with our reading of the protocol; engines written by others read some commands
# differently (SWAP2BOARD's stones as BOARD's x,y,c lines, BEGIN refused on a board with stones),
# so only real engines show such differences. CI cannot fetch or build them: run this by hand and
# record the verdicts in docs/design/BENCHMARKS.md. Three parts, each with a verdict per run:
#
#   features  Rapfi (github.com/dhbloo/rapfi, the strongest public gomoku engine) through every
#             feature that talks to engines, short runs
#   modes     Rapfi in each of its message modes (normal, brief, ucilike, none: `message_mode` of
#             its config.toml) against pbrain-scout --depth 3: no game ends on an ERROR line,
#             >= 95 % of Rapfi's moves carry an evaluation, and with -sample multipv=3 >= 95 %
#             of the moves Rapfi searched with two PVs or more carry a multi-PV group (the share
#             of all moves is printed beside it)
#   wine      Gomocup engine packages (Windows executables) under Wine, each against
#             pbrain-scout --depth 3, freestyle 15x15: every game finishes, and every fault is
#             the Wine engine's (the bundled scout never faults)
#
#   RAPFI=/path/to/pbrain-rapfi bench/interop.sh       a Rapfi binary
#   RAPFI_SRC=/path/to/rapfi bench/interop.sh          a checkout of its source: built here
#                                                      (cmake, Release, no command modules) in
#                                                      $SCRATCH (default: a temporary folder)
#   GOMOCUP_PKGS=/path/to/packages bench/interop.sh    the wine part: a folder of Gomocup
#                                                      packages, zips (GomocupDownload's
#                                                      2021/EMBRYO21.F.zip ...), one engine
#                                                      each, played with -engine pkg=ZIP;
#                                                      needs `wine`
# A part whose engine (or wine) is missing says so and is skipped; with nothing to run the
# script exits 0. Nothing of Rapfi or the packages is kept in this repository: the packages are
# unpacked into the run's temporary folder (XDG_CACHE_HOME), as is Rapfi's config.toml.
#
# Rapfi runs in its binary's folder: without a config.toml there (a build folder has none) it
# uses its built-in classical evaluation, no network. The modes part copies the binary into a
# folder per mode with a config.toml: `[general] message_mode = "MODE"` followed by Rapfi's
# built-in configuration (from $RAPFI_SRC/Rapfi/internalConfig.cpp, else read out of the binary),
# because an external config replaces the built-in one and a build without command modules
# ignores `--config`.
#
# Options: PARTS (default "features modes wine"), TC (features, default 10/0.5), GAMES (modes:
# games per mode and run, default 30; 4 for a quick run), MODE_TC (default 0/0.1), WINE_GAMES
# (default 2), WINE_TC (default 10/0.5), WINEPREFIX (default: a new prefix in the run's folder,
# about 15 s of wineboot), CORPUS (a folder: each Wine engine's raw output lines, moves and OK
# left out, are copied to CORPUS/NAME.log), JOBS (cmake build jobs, default 2), NO_BUILD=1 (use
# the runner already built), BIN_DIR (default target/release; target/debug works too), KEEP=1
# (keep the runs' folders and logs).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

TC=${TC:-10/0.5}
BIN_DIR=${BIN_DIR:-target/release}
PARTS=${PARTS:-features modes wine}
GAMES=${GAMES:-30}
MODE_TC=${MODE_TC:-0/0.1}
WINE_GAMES=${WINE_GAMES:-2}
WINE_TC=${WINE_TC:-10/0.5}

# wants PART: whether PARTS names PART.
wants() { [[ " $PARTS " == *" $1 "* ]]; }

skips=()
RAPFI=${RAPFI:-}
if ! wants features && ! wants modes; then
    RAPFI=""
elif [ -n "$RAPFI" ]; then
    if [ ! -x "$RAPFI" ]; then
        echo "interop: RAPFI=$RAPFI is not an executable file" >&2
        exit 1
    fi
    rapfi_from="binary $RAPFI"
elif [ -n "${RAPFI_SRC:-}" ]; then
    if [ ! -f "$RAPFI_SRC/Rapfi/CMakeLists.txt" ]; then
        echo "interop: RAPFI_SRC=$RAPFI_SRC has no Rapfi/CMakeLists.txt (a checkout of github.com/dhbloo/rapfi is expected)" >&2
        exit 1
    fi
    if ! command -v cmake >/dev/null; then
        skips+=("features, modes: building Rapfi needs cmake (apt-get install cmake), or give RAPFI=path/to/pbrain-rapfi")
    else
        build=${SCRATCH:-$(mktemp -d)}/rapfi-build
        echo "interop: building Rapfi from $RAPFI_SRC into $build (a few minutes)" >&2
        cmake -S "$RAPFI_SRC/Rapfi" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNO_COMMAND_MODULES=ON >"$build.cmake.log" 2>&1 ||
            { echo "interop: cmake failed, see $build.cmake.log" >&2; exit 1; }
        cmake --build "$build" -j"${JOBS:-2}" >"$build.build.log" 2>&1 ||
            { echo "interop: the Rapfi build failed, see $build.build.log" >&2; exit 1; }
        RAPFI=$build/pbrain-rapfi
        rapfi_from="source $RAPFI_SRC at commit $(git -C "$RAPFI_SRC" rev-parse HEAD 2>/dev/null || echo unknown)"
    fi
else
    skips+=("features, modes: no Rapfi; give RAPFI=path/to/pbrain-rapfi, or RAPFI_SRC=a checkout of github.com/dhbloo/rapfi to build it")
fi
if [ -n "$RAPFI" ]; then RAPFI=$(realpath "$RAPFI"); fi

wine_ok=""
if wants wine; then
    if ! command -v wine >/dev/null; then
        skips+=("wine: no wine (apt-get install wine: wine64 runs the 64-bit packages)")
    elif [ -z "${GOMOCUP_PKGS:-}" ]; then
        skips+=("wine: no packages; give GOMOCUP_PKGS=a folder of Gomocup engine zips")
    elif [ ! -d "$GOMOCUP_PKGS" ]; then
        echo "interop: GOMOCUP_PKGS=$GOMOCUP_PKGS is not a folder" >&2
        exit 1
    else
        wine_ok=1
    fi
fi
if [ -z "$RAPFI" ] && [ -z "$wine_ok" ]; then
    printf 'interop: SKIP: %s\n' "${skips[@]}"
    exit 0
fi

if [ -z "${NO_BUILD:-}" ]; then
    profile=$([ "$BIN_DIR" = target/debug ] && echo "" || echo --release)
    cargo build $profile --workspace --bins >&2
fi
CLI=$PWD/$BIN_DIR/gomoku-cli
SCOUT=$PWD/$BIN_DIR/pbrain-scout
OPENINGS=$PWD/openings/freestyle15.txt
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; fi

if [ -n "$RAPFI" ]; then
    about=$(printf 'ABOUT\r\nEND\r\n' | (cd "$(dirname "$RAPFI")" && timeout 10 "$RAPFI") | grep -m1 name= | tr -d '\r' || true)
    echo "interop: Rapfi from $rapfi_from"
    echo "interop: Rapfi says $about"
fi
echo "interop: parts: $PARTS; runner $CLI; $(machine)"
if [ ${#skips[@]} -gt 0 ]; then printf 'interop: SKIP: %s\n' "${skips[@]}"; fi

verdicts=()
failed=0

# check DIR FEATURE GAMES: the verdict of the run in DIR from its journal. A features run: every
# game ends on the board (and the feature's own checks). mode-*: Rapfi (named rapfi) against
# scout: no game ends on an ERROR line, every game ends on the board, >= 95 % of Rapfi's moves
# carry an evaluation, and in a run named *-mpv (-sample multipv=3) >= 95 % of the moves Rapfi
# searched with two PVs or more (its protocol log's `INFO NUMPV`) carry a multi-PV group (two PVs
# or more); the share of all its moves is printed too (Rapfi announces one PV where only one move
# is worth a search: forced defences, won endings, a third of its moves against scout).
# wine-*: a Wine engine against scout: every game that did not end on the board lost by the Wine
# engine (scout, the bundled engine, never faults: a fault blamed on it is the runner's); the
# Wine engine's faults are listed, to be read in the run's protocol log.
check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
folder, feature, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
games = {}
for line in open(f"{folder}/j.jsonl"):
    e = json.loads(line)
    if "game" in e:
        games.setdefault(e["game"], []).append(e)
problems = []
if len(games) != expected:
    problems.append(f"{len(games)} games in the journal, {expected} expected")
if any(len(v) > 1 for v in games.values()):
    problems.append("a game recorded twice")
if feature.startswith("mode-"):
    multipv = feature.endswith("-mpv")
    ends, errors = {}, 0
    moves = told = grouped = 0
    for n, (g, *_) in sorted(games.items()):
        how = g["termination"]
        ends[how] = ends.get(how, 0) + 1
        if how == "engine_error":
            errors += 1
        if how not in ("five", "full_board", "draw_after"):
            problems.append(f"game {n}: {how}: {g['reason']}")
        # Move i is played by the side to move after the opening's stones and i moves.
        stones = sum(c.isalpha() for c in g["opening"])
        search = g.get("search") or [None] * len(g["times_ms"])
        for i, s in enumerate(search):
            if g["black" if (stones + i) % 2 == 0 else "white"] != "rapfi":
                continue
            moves += 1
            told += bool(s and "ev" in s)
            grouped += bool(s and len(s.get("mpv", [])) >= 2)
    share = lambda k: f"{k} ({100 * k / max(moves, 1):.1f} %)"
    figures = f"Rapfi {moves} moves, {share(told)} with an evaluation"
    if told < 0.95 * moves:
        problems.insert(0, f"only {share(told)} of {moves} moves with an evaluation (95 % wanted)")
    if multipv:
        # How many of its moves Rapfi was asked for with YXNBEST (the protocol log): after an
        # answer the runner takes for a refusal it is asked the usual way for the rest of the run.
        import glob
        # And how many of those requests Rapfi answered with an iteration of two PVs or more
        # (`INFO NUMPV n`, n >= 2): it announces one PV where only one root move is worth a
        # search (a forced defence, a won ending), and no runner can make a group of those.
        asked = offered = 0
        numpv = None
        for log in sorted(glob.glob(f"{folder}/gomoku-cli.*.log")):
            for line in open(log, errors="replace"):
                said = line.split("] ", 1)[-1]
                if said.startswith("rapfi < YXNBEST"):
                    offered += bool(numpv and numpv >= 2)
                    asked, numpv = asked + 1, 0
                elif said.startswith("rapfi > INFO NUMPV ") and numpv is not None:
                    numpv = max(numpv, int(said.split()[-1]))
            offered += bool(numpv and numpv >= 2)
            numpv = None
        figures += (f", {share(grouped)} with a multi-PV group, {share(asked)} asked with YXNBEST,"
                    f" {share(offered)} answered with two PVs or more")
        if grouped < 0.95 * offered:
            problems.insert(0, f"only {grouped} of the {offered} moves Rapfi searched with several PVs have a group (95 % wanted)")
        if grouped < 0.8 * moves:
            figures += f"; the issue's aim of 80 % of all moves is not met: {share(offered)} is what Rapfi offered"
    if errors:
        problems.insert(0, f"{errors} games ended on an ERROR line (engine_error)")
    verdict = "FAIL" if problems else "PASS"
    ended = ", ".join(f"{k} {v}" for k, v in sorted(ends.items()))
    shown = problems[:8] + ([f"... {len(problems) - 8} more"] if len(problems) > 8 else [])
    print(f"{verdict} {len(games)} games ({ended}); {figures}" + "".join(f"\n    {p}" for p in shown))
elif feature.startswith("wine-"):
    faults, ends, engine, score = [], [], "?", [0, 0, 0]
    for n, (g, *_) in sorted(games.items()):
        how = g["termination"]
        engine = g["white"] if g["black"] == "scout" else g["black"]
        ends.append(f"{g['result']} {how}")
        won = {"1-0": "black", "0-1": "white"}.get(g["result"])
        score[0 if won is None else 1 if g[won] == engine else 2] += 1
        if how in ("five", "full_board", "draw_after"):
            continue
        loser = {"1-0": g["white"], "0-1": g["black"]}.get(g["result"])
        if loser == "scout" or loser is None:
            problems.append(f"game {n}: {how} blamed on {loser or 'nobody'}: {g['reason']}")
        else:
            faults.append(f"game {n}: {how}: {g['reason']}")
    verdict = "FAIL" if problems else "PASS"
    extra = f"; {len(faults)} faults of {engine}'s" if faults else ""
    print(f"{verdict} {engine} (+{score[1]} ={score[0]} -{score[2]} v scout), {len(games)} games: {', '.join(ends)}{extra}"
          + "".join(f"\n    {p}" for p in problems + faults))
else:
    ends, forms, heard, groups = [], set(), [], []
    for n, (g, *_) in sorted(games.items()):
        how = g["termination"]
        ends.append(f"{g['result']} {how}")
        # A game that ends on the board; anything else is an engine's fault or a disagreement.
        if how not in ("five", "full_board", "draw_after"):
            problems.append(f"game {n}: {how}: {g['reason']}")
        swap = g.get("swap")
        if feature.startswith("swap"):
            if not swap or swap.get("unsupported"):
                problems.append(f"game {n}: no swap ({swap})")
            else:
                for i, s in enumerate(swap["steps"]):
                    # The proposer's first request is the empty board: the same in both forms.
                    if i > 0 or s["by"] == "chooser":
                        forms.add(f"{swap[s['by']]} {s.get('form', 'points')}")
                last = swap["steps"][-1]
                if not (last.get("swap") or len(last.get("stones", "")) in (2, 3)):
                    problems.append(f"game {n}: the swap did not decide ({swap['steps']})")
        if feature == "maxmemory":
            for colour in ("black", "white"):
                peak = g["usage"][colour]["peak_memory"]
                if peak > 64 * 2**20 + 32 * 2**20:
                    problems.append(f"game {n}: {colour} peaked at {peak >> 20} MiB")
        if feature in ("search", "multipv"):
            moves = g["moves"]
            search = g.get("search") or [None] * len(g["times_ms"])
            told = [s for s in search if s and "ev" in s]
            heard.append((len(told), len(search)))
            if feature == "multipv":
                groups.extend(len(s.get("mpv", [])) for s in told)
    if heard:
        told, total = map(sum, zip(*heard))
        # Rapfi plays a game's first move without a search: at most one move a game unreported.
        if told < total - len(heard):
            problems.append(f"only {told} of {total} moves carried an evaluation")
        extra_search = f"; {told} of {total} moves with an evaluation"
        if feature == "multipv":
            # Rapfi announces fewer PVs (INFO NUMPV 1 or 2) where fewer moves are worth a search,
            # as on a forced reply: most moves, not all, carry three.
            full = sum(1 for k in groups if k == 3)
            extra_search += f", {full} with 3 PVs"
            if full < len(groups) * 0.5:
                problems.append(f"only {full} of {len(groups)} reports had 3 PVs")
    verdict = "FAIL" if problems else "PASS"
    extra = f"; SWAP2BOARD forms answered: {', '.join(sorted(forms))}" if forms else ""
    if heard:
        extra += extra_search
    print(f"{verdict} {len(games)} games: {', '.join(ends)}{extra}" + "".join(f"\n    {p}" for p in problems))
PY
}

# feature NAME GAMES ARGS...: a run of GAMES games with ARGS in its own folder, and its verdict.
feature() {
    local name=$1 games=$2
    shift 2
    local dir=$tmp/$name
    mkdir -p "$dir"
    local code=0
    (cd "$dir" && "$CLI" "$@" -games "$games" -journal j.jsonl -log -noprogress >out.txt 2>err.txt) || code=$?
    record "$name" "$dir" "$games" "$code"
}

# record NAME DIR GAMES CODE: the verdict line of a finished run.
record() {
    local name=$1 dir=$2 games=$3 code=$4 verdict
    if [ "$code" != 0 ]; then
        verdict="FAIL exit code $code: $(tail -3 "$dir/err.txt" | tr '\n' ' ')"
    else
        verdict=$(check "$dir" "$name" "$games")
    fi
    case $verdict in FAIL*) failed=1 ;; esac
    verdicts+=("$(printf '%-12s %s' "$name" "$verdict")")
    echo "interop: ${verdicts[-1]}"
}

if wants features && [ -n "$RAPFI" ]; then
    echo "interop: features: tc $TC"
    rapfi2=(-engine "cmd=$RAPFI" name=rapfiA -engine "cmd=$RAPFI" name=rapfiB -each "tc=$TC")
    scout=(-engine "cmd=$RAPFI" name=rapfi -engine "cmd=$SCOUT" name=scout -each "tc=$TC")

    feature freestyle 2 "${rapfi2[@]}" -rule 0 -repeat
    feature renju 2 "${rapfi2[@]}" -rule 4 -repeat
    feature swap2 2 "${rapfi2[@]}" -swap2 -repeat
    feature swap1 2 "${rapfi2[@]}" -swap1 -repeat
    feature swap2-scout 2 "${scout[@]}" -swap2 -repeat
    feature swap1-scout 2 "${scout[@]}" -swap1 -repeat
    feature suspend 2 "${rapfi2[@]}" -suspend -repeat
    feature sendbyboard 2 "${rapfi2[@]}" -sendbyboard -repeat
    feature maxmemory 2 "${rapfi2[@]}" maxmemory=67108864 -repeat
    # A named Rapfi (no ABOUT asked before its first game) with a max_memory it finds too small: it
    # prints ERROR about that INFO line before its ABOUT answer, which must not be read as a move.
    feature maxmemory-1m 2 -engine "cmd=$RAPFI" name=rapfi maxmemory=1048576 -engine "cmd=$SCOUT" name=scout -each "tc=$TC" -repeat

    # -resume: a run of 4 games stopped by Ctrl-C (SIGINT) once its first game is in the journal,
    # then the same command line with -resume: exactly the 4 games, each once.
    dir=$tmp/resume
    mkdir -p "$dir"
    resume_args=("${rapfi2[@]}" -swap2 -repeat -games 4 -journal j.jsonl -log -noprogress)
    (cd "$dir" && exec "$CLI" "${resume_args[@]}" >out1.txt 2>err1.txt) &
    pid=$!
    for _ in $(seq 600); do
        if [ -f "$dir/j.jsonl" ] && grep -q '"game"' "$dir/j.jsonl"; then break; fi
        sleep 0.5
    done
    kill -INT "$pid" 2>/dev/null || true
    code=0
    wait "$pid" || code=$?
    if [ "$code" != 130 ]; then
        failed=1
        verdicts+=("$(printf '%-12s %s' resume "FAIL the stopped run exited with $code (130 expected)")")
        echo "interop: ${verdicts[-1]}"
    else
        code=0
        (cd "$dir" && "$CLI" "${resume_args[@]}" -resume >out.txt 2>err.txt) || code=$?
        record resume "$dir" 4 "$code"
    fi

    # What Rapfi says about its search (INFO show_detail 2, asked by default): an evaluation on every
    # move it searched; with -sample multipv=3, YXBOARD + YXNBEST 3 and three PVs a move.
    feature search 2 "${rapfi2[@]}" -repeat
    feature multipv 2 "${rapfi2[@]}" -repeat -sample format=binpack file=s.binpack multipv=3
    # `gomoku-cli check` on Rapfi: reported, not a verdict on the runner (a fail there is Rapfi's).
    code=0
    "$CLI" check -engine "cmd=$RAPFI" >"$tmp/check.txt" 2>&1 || code=$?
    fails=$(grep '^fail' "$tmp/check.txt" | awk '{print $2}' | paste -sd, - || true)
    if [ "$code" -le 1 ]; then
        verdicts+=("$(printf '%-12s %s' check "RAN (exit $code): $(grep -c '^pass' "$tmp/check.txt") pass, $(grep -c '^warn' "$tmp/check.txt") warn, fails: ${fails:-none}")")
    else
        failed=1
        verdicts+=("$(printf '%-12s %s' check "FAIL the check command exited with $code")")
    fi
    echo "interop: ${verdicts[-1]}"
fi

if wants modes && [ -n "$RAPFI" ]; then
    echo "interop: modes: $GAMES games a run, tc $MODE_TC, against pbrain-scout --depth 3"
    # Rapfi's built-in configuration, under which each mode's message_mode is set.
    base=$(python3 - "$RAPFI" "${RAPFI_SRC:-}" <<'PY'
import sys
binary, src = sys.argv[1], sys.argv[2]
if src:
    text = open(f"{src}/Rapfi/internalConfig.cpp").read()
    start = text.index('R"internalConfig(') + len('R"internalConfig(')
    print(text[start:text.index(')internalConfig"')])
else:
    data = open(binary, "rb").read()
    start = data.find(b"\n[requirement]\n")
    if start < 0:
        sys.exit(f"interop: no built-in configuration found in {binary}: give RAPFI_SRC")
    print(data[start:data.index(b"\0", start)].decode())
PY
    )
    for mode in normal brief ucilike none; do
        home=$tmp/rapfi-$mode
        mkdir -p "$home"
        cp "$RAPFI" "$home/pbrain-rapfi"
        printf '[general]\nmessage_mode = "%s"\n%s\n' "$mode" "$base" >"$home/config.toml"
        vs_scout=(-engine "cmd=$home/pbrain-rapfi" name=rapfi -engine "cmd=$SCOUT --depth 3" name=scout
            -each "tc=$MODE_TC" -repeat -openings "file=$OPENINGS" type=pos)
        feature "mode-$mode" "$GAMES" "${vs_scout[@]}"
        feature "mode-$mode-mpv" "$GAMES" "${vs_scout[@]}" -sample format=binpack file=s.binpack multipv=3
    done
fi

# corpus LOGDIR NAME: the lines the Wine engine printed (not scout's; moves and OK left out,
# the line ends' \r removed) into $CORPUS/NAME.log, for readers of engines' search output.
corpus() {
    python3 - "$1" "$CORPUS/$2.log" <<'PY'
import glob, re, sys
logdir, out = sys.argv[1], sys.argv[2]
line_re = re.compile(r"^\[\s*[\d.]+\] (.+?) > (.*)$")
with open(out, "w") as f:
    for log in sorted(glob.glob(f"{logdir}/gomoku-cli.*.log")):
        for line in open(log, encoding="utf-8", errors="replace"):
            m = line_re.match(line.rstrip("\n"))
            if not m or m.group(1) == "scout":
                continue
            text = m.group(2).rstrip("\r")
            if text != "OK" and not re.fullmatch(r"\s*\d+\s*,\s*\d+\s*", text):
                print(text, file=f)
PY
}

if [ -n "$wine_ok" ]; then
    export WINEDEBUG=${WINEDEBUG:--all}
    if [ -z "${WINEPREFIX:-}" ]; then
        export WINEPREFIX=$tmp/wineprefix
        start=$(date +%s)
        wineboot -i >"$tmp/wineboot.log" 2>&1 || true
        echo "interop: wine: a new prefix $WINEPREFIX in $(($(date +%s) - start)) s"
    fi
    echo "interop: wine: $(wine --version), $WINE_GAMES games each, tc $WINE_TC, against pbrain-scout --depth 3"
    if [ -n "${CORPUS:-}" ]; then mkdir -p "$CORPUS"; fi
    # Each zip plays as it is (`pkg=`): the runner unpacks it into its cache (here the run's
    # folder), picks the program for the rule and size as GomocupJudge does, runs it through
    # wine in its folder, and ends Wine's server and services when the run ends.
    export XDG_CACHE_HOME=$tmp/cache
    for pkg in "$GOMOCUP_PKGS"/*.zip "$GOMOCUP_PKGS"/*.ZIP; do
        [ -f "$pkg" ] || continue
        name=$(basename "$pkg"); name=${name%.*}
        feature "wine-$name" "$WINE_GAMES" -engine "pkg=$(realpath "$pkg")" -engine "cmd=$SCOUT --depth 3" name=scout \
            -each "tc=$WINE_TC" -repeat -openings "file=$OPENINGS" type=pos -startuptimeout 30
        if [ -n "${CORPUS:-}" ]; then corpus "$tmp/wine-$name" "$name"; fi
    done
fi

echo
echo "Interop verdicts (parts: $PARTS${RAPFI:+; Rapfi from $rapfi_from}):"
if [ ${#skips[@]} -gt 0 ]; then printf '  SKIP %s\n' "${skips[@]}"; fi
printf '  %s\n' "${verdicts[@]}"
if [ -n "${KEEP:-}" ]; then echo "runs kept in $tmp"; fi
exit "$failed"
