# Shared helpers of the bench/ scripts (sourced, not run).

# stats: "median [min-max]" of the numbers on stdin, one decimal.
stats() {
    sort -g | awk '{ v[NR] = $1 } END {
        med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.1f [%.1f-%.1f]", med, v[1], v[NR] }'
}

# median: the median of the numbers on stdin, as given.
median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# json_field FILE KEY [INDEX]: a number of procwatch.py's JSON output (item INDEX of a list).
json_field() {
    python3 -c 'import json,sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print(v[int(sys.argv[3])] if isinstance(v, list) else v)' "$1" "$2" "${3:-0}"
}

# build_release: the release binaries and examples, unless NO_BUILD is set.
build_release() {
    if [ -z "${NO_BUILD:-}" ]; then
        cargo build --release --workspace --bins --examples >&2
    fi
}

# machine: one line describing the machine, for the results.
machine() {
    echo "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
        "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
}
