#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The window's resident memory per key, as a user gets it: `redislens` with default settings
# (adaptive pacing, the key browser's scan with type and TTL, every key classified by the
# pattern index), offscreen, against a private redis-server on a free loopback port filled
# with KEYS keys of every type, a third of them with a TTL.
#
# The window is measured twice in one script: on the empty database 1 (what the window costs
# by itself), then on database 0. It is left alone until the server has counted fewer than
# IDLE commands a second for three seconds (the scan and the index are done; the window's own
# polls are a few a second), and its VmRSS is read then. The target is at most 200 bytes per
# key: (full - empty) / keys.
#
#   tests/bench/window_memory.sh [BUILD_DIR]      (default build/dev; KEYS=1000000 IDLE=50)
set -eu

build=${1:-build/dev}
app=$build/app/redislens
keys=${KEYS:-1000000}
idle=${IDLE:-50}
[ -x "$app" ] || { echo "window_memory: $app is not built" >&2; exit 2; }

here=$(dirname "$0")
. "$here/lib.sh"
bench_start_server window-memory
bench_fill "$keys"
echo "keys: $(cli DBSIZE), port $port"

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
processed() { cli INFO stats | sed -n 's/^total_commands_processed:\([0-9]*\).*/\1/p'; }

# measure DB: prints "<rss kB> <seconds until idle>"
measure() {
    XDG_CONFIG_HOME="$dir/config" QT_QPA_PLATFORM=offscreen "$app" -p "$port" -n "$1" \
        >"$dir/window.out" 2>"$dir/window.err" &
    window=$!
    start=$(bench_now)
    last=$(processed)
    quiet=0
    elapsed=0
    while [ "$quiet" -lt 3 ] || [ "$elapsed" -lt 5 ]; do
        sleep 1
        elapsed=$((elapsed + 1))
        kill -0 "$window" 2>/dev/null || { cat "$dir/window.err" >&2; echo "window_memory: the window exited" >&2; exit 1; }
        now=$(processed)
        # Two of these are this loop's own INFO.
        if [ $((now - last)) -lt "$idle" ]; then quiet=$((quiet + 1)); else quiet=0; fi
        last=$now
    done
    rss=$(rss_kb "$window")
    t=$(echo "$(bench_now) - $start - 3" | bc)
    kill "$window"
    wait "$window" 2>/dev/null || true
    echo "$rss $t"
}

set -- $(measure 1)
empty=$1
echo "window on an empty database: $((empty / 1024)) MB"
set -- $(measure 0)
full=$1
echo "window with $keys keys: $((full / 1024)) MB, idle after $2 s"
echo "bytes per key: $(echo "($full - $empty) * 1024 / $keys" | bc) (target <= 200; the window's total over keys: $(echo "$full * 1024 / $keys" | bc))"
