#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `redislens show keys --format jsonl > /dev/null` against `redislens-bench scan` on the same
# server: a private redis-server on a free loopback port, filled with KEYS keys of every type,
# a third of them with a TTL; RUNS runs of each, alternating; the ratio of the medians. The
# target is at most 1.15: printing every key with its verdict costs little more than the key
# browser's scan of the same keyspace. Both run unpaced (--scan-rate 0; the bench's scan is).
#
#   tests/bench/show_vs_scan.sh [BUILD_DIR]      (default build/dev; KEYS=1000000 RUNS=3)
set -eu

build=${1:-build/dev}
app=$build/app/redislens
bench=$build/tests/bench/redislens-bench
keys=${KEYS:-1000000}
runs=${RUNS:-3}
for tool in "$app" "$bench"; do
    [ -x "$tool" ] || { echo "show_vs_scan: $tool is not built" >&2; exit 2; }
done

here=$(dirname "$0")
. "$here/lib.sh"
bench_start_server show-vs-scan
bench_fill "$keys"
echo "keys: $(cli DBSIZE), port $port"

show_times=""
scan_times=""
for i in $(seq "$runs"); do
    start=$(bench_now)
    XDG_CONFIG_HOME="$dir/config" "$app" show keys -p "$port" --scan-rate 0 --format jsonl >/dev/null 2>"$dir/show.err" ||
        { cat "$dir/show.err" >&2; exit 1; }
    t=$(echo "$(bench_now) - $start" | bc)
    show_times="$show_times $t"
    s=$("$bench" scan --host 127.0.0.1 --port "$port" | sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p')
    scan_times="$scan_times $s"
    echo "run $i: show keys ${t} s, redislens-bench scan ${s} s"
done
ms=$(bench_median $show_times)
mb=$(bench_median $scan_times)
echo "median: show keys $ms s, redislens-bench scan $mb s, ratio $(bench_ratio "$ms" "$mb") (target <= 1.15)"
