#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What the default (adaptive) scan pacing costs, on a private redis-server on a free loopback
# port with KEYS keys of every type (type and TTL read for each):
#
#  1. Idle server: `redislens show keys` with default settings against `--scan-rate 0`
#     (unpaced), RUNS runs each, alternating; the ratio of the medians (target <= 1.5).
#  2. Loaded server: `redis-benchmark -t get,set -c 50` alone, and with `show keys` started
#     half a second into it (default settings, restarted whenever it finishes), RUNS runs each,
#     alternating; the throughput the benchmark keeps (target >= 0.95) and its p99 latency's
#     ratio (target <= 1.20), medians over runs of the sum of SET and GET rps and the larger
#     p99. The same with the load arriving during a scan (the pacing's reaction), and beside
#     an unpaced scan (what the pacing saves).
#
#   tests/bench/adaptive_scan.sh [BUILD_DIR]   (default build/dev; KEYS=1000000 RUNS=3 REQUESTS=300000)
set -eu

build=${1:-build/dev}
app=$build/app/redislens
keys=${KEYS:-1000000}
runs=${RUNS:-3}
requests=${REQUESTS:-300000}
[ -x "$app" ] || { echo "adaptive_scan: $app is not built" >&2; exit 2; }
command -v redis-benchmark >/dev/null || { echo "adaptive_scan: redis-benchmark is needed" >&2; exit 2; }

here=$(dirname "$0")
. "$here/lib.sh"
bench_start_server adaptive-scan
bench_fill "$keys"
echo "keys: $(cli DBSIZE), port $port"
# Default settings: a configuration directory of its own, empty.
export XDG_CONFIG_HOME="$dir/config"

show() { "$app" show keys -p "$port" --format jsonl "$@" >/dev/null 2>>"$dir/show.err"; }

echo "== idle server"
default_times=""
unpaced_times=""
for i in $(seq "$runs"); do
    start=$(bench_now)
    show || { cat "$dir/show.err" >&2; exit 1; }
    d=$(echo "$(bench_now) - $start" | bc)
    start=$(bench_now)
    show --scan-rate 0 || { cat "$dir/show.err" >&2; exit 1; }
    u=$(echo "$(bench_now) - $start" | bc)
    default_times="$default_times $d"
    unpaced_times="$unpaced_times $u"
    echo "run $i: default (adaptive) ${d} s, unpaced ${u} s"
done
md=$(bench_median $default_times)
mu=$(bench_median $unpaced_times)
echo "median: default $md s, unpaced $mu s, ratio $(bench_ratio "$md" "$mu") (target <= 1.5)"

# One benchmark run: prints "RPS P99" (SET + GET requests per second, the larger p99 in ms).
benchmark() {
    redis-benchmark -h 127.0.0.1 -p "$port" -t get,set -c 50 -n "$requests" --csv 2>/dev/null |
        awk -F'","' '/^"(SET|GET)"/ { gsub(/"/, "", $0); split($0, f, ","); rps += f[2]; if (f[7] > p99) p99 = f[7] }
                     END { printf "%.0f %.3f\n", rps, p99 }'
}

# benchmark_beside ARGS: the benchmark with `show keys ARGS` scanning in a loop beside it,
# started half a second after the benchmark (as a user opens RedisLens on a busy server).
benchmark_beside() {
    benchmark >"$dir/bench.out" &
    b=$!
    sleep 0.5
    ( while :; do show "$@" || exit 1; done ) &
    loop=$!
    wait "$b"
    kill "$loop" 2>/dev/null
    wait "$loop" 2>/dev/null || true
    pkill -f "show keys -p $port" 2>/dev/null || true
    cat "$dir/bench.out"
}

# benchmark_after_scan: the default scan starts first, on the idle server (it lifts its
# ceiling), and the load arrives a second later: what the pacing's reaction costs.
benchmark_after_scan() {
    ( while :; do show || exit 1; done ) &
    loop=$!
    sleep 1
    benchmark
    kill "$loop" 2>/dev/null
    wait "$loop" 2>/dev/null || true
    pkill -f "show keys -p $port" 2>/dev/null || true
}

echo "== loaded server: redis-benchmark -t get,set -c 50 -n $requests"
alone_rps=""; alone_p99=""; adaptive_rps=""; adaptive_p99=""; unpaced_rps=""; unpaced_p99=""; late_rps=""; late_p99=""
for i in $(seq "$runs"); do
    set -- $(benchmark); alone_rps="$alone_rps $1"; alone_p99="$alone_p99 $2"; a="$1 rps p99 $2 ms"
    set -- $(benchmark_beside); adaptive_rps="$adaptive_rps $1"; adaptive_p99="$adaptive_p99 $2"; b="$1 rps p99 $2 ms"
    set -- $(benchmark_after_scan); late_rps="$late_rps $1"; late_p99="$late_p99 $2"; c="$1 rps p99 $2 ms"
    set -- $(benchmark_beside --scan-rate 0); unpaced_rps="$unpaced_rps $1"; unpaced_p99="$unpaced_p99 $2"
    echo "run $i: alone $a; default scan $b; load arriving during a default scan $c; unpaced scan $1 rps p99 $2 ms"
done
ar=$(bench_median $alone_rps); ap=$(bench_median $alone_p99)
dr=$(bench_median $adaptive_rps); dp=$(bench_median $adaptive_p99)
lr=$(bench_median $late_rps); lp=$(bench_median $late_p99)
ur=$(bench_median $unpaced_rps); up=$(bench_median $unpaced_p99)
echo "median: alone $ar rps p99 $ap ms; default scan $dr rps p99 $dp ms; load arriving during a default scan $lr rps p99 $lp ms; unpaced scan $ur rps p99 $up ms"
echo "beside the default scan: throughput kept $(bench_ratio "$dr" "$ar") (target >= 0.95), p99 ratio $(bench_ratio "$dp" "$ap") (target <= 1.20)"
echo "load arriving during a default scan: throughput kept $(bench_ratio "$lr" "$ar"), p99 ratio $(bench_ratio "$lp" "$ap")"
echo "beside an unpaced scan: throughput kept $(bench_ratio "$ur" "$ar"), p99 ratio $(bench_ratio "$up" "$ap")"
