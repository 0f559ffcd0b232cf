#!/usr/bin/env bash
# The rating list at scale (issue 35's aim: 1,000 engines and 1,000,000 games in under 10 s and
# 1 GiB): a seeded PGN of GAMES games among ENGINES engines (defaults 1,000,000 and 1,000), its
# results drawn from BayesElo's model (ratings spread over ~1,000 Elo, a first-move advantage of
# 40, a draw Elo of 100; 20 engines losing 15 % of their games on time), then `gomoku-cli
# ratings` over it, timed with /usr/bin/time (wall and peak RSS, release build): with the model's
# parameters estimated (the default), with Gomocup's settings, and as JSON.
#   GAMES=1000000 ENGINES=1000 bench/ratings_scale.sh     (NO_BUILD=1 to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-1000000}
ENGINES=${ENGINES:-1000}
[ -n "${NO_BUILD:-}" ] || cargo build --release --bin gomoku-cli >/dev/null
R=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
cat >"$tmp/gen.py" <<'PY'
import random, sys
path, games, engines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(35)
names = ["engine-%04d" % i for i in range(engines)]
strength = [rnd.gauss(0, 250) for _ in names]
faulty = set(rnd.sample(range(engines), min(20, engines)))
def p(x):
    return 1 / (1 + 10 ** (x / 400))
out, chunk = open(path, "w"), []
for g in range(games):
    a, b = rnd.sample(range(engines), 2)
    delta = strength[a] - strength[b]
    win, loss = p(-delta - 40 + 100), p(delta + 40 + 100)
    u = rnd.random()
    result = "1-0" if u < win else ("0-1" if u < win + loss else "1/2-1/2")
    loser = a if result == "0-1" else (b if result == "1-0" else None)
    termination = "normal"
    if loser in faulty and rnd.random() < 0.3:
        termination = "time forfeit"
    chunk.append('[White "%s"]\n[Black "%s"]\n[Result "%s"]\n[Termination "%s"]\n\n{} %s\n\n'
                 % (names[a], names[b], result, termination, result))
    if len(chunk) == 10000:
        out.write("".join(chunk))
        chunk = []
out.write("".join(chunk))
out.close()
PY
python3 - "$tmp/games.pgn" "$GAMES" "$ENGINES" <"$tmp/gen.py"
end=$(date +%s.%N)
size=$(stat -c %s "$tmp/games.pgn")
printf "PGN: %d games among %d engines, %.0f MB, written in %.1f s\n" "$GAMES" "$ENGINES" \
    "$(echo "$size / 1000000" | bc -l)" "$(echo "$end - $start" | bc -l)"
measure() {
    /usr/bin/time -v "$@" >"$tmp/out" 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
    local wall user sys rss
    wall=$(grep "Elapsed (wall clock)" "$tmp/time" | awk '{print $NF}')
    user=$(grep "User time" "$tmp/time" | awk '{print $NF}')
    sys=$(grep "System time" "$tmp/time" | awk '{print $NF}')
    rss=$(grep "Maximum resident set size" "$tmp/time" | awk '{print $NF}')
    printf "%s wall, %.2f s CPU (user + system), %.0f MiB peak RSS\n" "$wall" \
        "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
echo "ratings (estimated):  $(measure "$R/gomoku-cli" ratings "$tmp/games.pgn")"
head -4 "$tmp/out"
grep "first-move advantage" "$tmp/out"
echo "ratings --gomocup:    $(measure "$R/gomoku-cli" ratings --gomocup "$tmp/games.pgn")"
grep -A2 "^left out" "$tmp/out" || true
echo "ratings --json:       $(measure "$R/gomoku-cli" ratings --json "$tmp/games.pgn")"
echo "ratings --los:        $(measure "$R/gomoku-cli" ratings --los "$tmp/games.pgn")"
# The reading alone: the same games between two engines (a fit of two players takes no time).
python3 - "$tmp/two.pgn" "$GAMES" 2 <"$tmp/gen.py"
echo "ratings, 2 engines:   $(measure "$R/gomoku-cli" ratings "$tmp/two.pgn")"
