#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `redislens report` against `redislens show keys` on the same server: a private redis-server on
# a free loopback port, filled with KEYS keys of every type (a TTL on a third of the strings);
# RUNS runs of each, alternating, with the settings a user has (adaptive scan pacing); the ratio
# of the medians (target: at most 1.3), then `report --sample 10000` (target: under 2 s, and it
# says it sampled). The report scans as show keys does, then reads each pattern's keys once,
# the length of up to 10,000 keys and the server's facts.
#
#   tests/bench/report_vs_show.sh [BUILD_DIR]      (default build/dev; KEYS=1000000 RUNS=3)
set -eu

build=${1:-build/dev}
app=$build/app/redislens
keys=${KEYS:-1000000}
runs=${RUNS:-3}
[ -x "$app" ] || { echo "report_vs_show: $app is not built" >&2; exit 2; }

here=$(dirname "$0")
. "$here/lib.sh"
bench_start_server report-vs-show
bench_fill "$keys"
echo "keys: $(cli DBSIZE), port $port"

timed() {
    start=$(bench_now)
    XDG_CONFIG_HOME="$dir/config" "$app" "$@" -p "$port" >"$dir/out" 2>"$dir/err" || [ $? -eq 1 ] ||
        { cat "$dir/err" >&2; exit 1; }
    echo "$(bench_now) - $start" | bc
}

report_times=""
show_times=""
for i in $(seq "$runs"); do
    r=$(timed report --format json)
    report_times="$report_times $r"
    s=$(timed show keys --format jsonl)
    show_times="$show_times $s"
    echo "run $i: report ${r} s, show keys ${s} s"
done
mr=$(bench_median $report_times)
ms=$(bench_median $show_times)
echo "median: report $mr s, show keys $ms s, ratio $(bench_ratio "$mr" "$ms") (target <= 1.3)"
sample_times=""
for i in $(seq "$runs"); do
    t=$(timed report --format json --sample 10000)
    grep -q '"coverage": "from a sample of' "$dir/out" || { echo "report --sample did not say it sampled" >&2; exit 1; }
    sample_times="$sample_times $t"
    echo "run $i: report --sample 10000 ${t} s"
done
echo "median: report --sample 10000 $(bench_median $sample_times) s (target < 2 s)"
