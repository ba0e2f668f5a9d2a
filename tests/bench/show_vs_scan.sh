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
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    { echo "show_vs_scan: redis-server and redis-cli are needed" >&2; exit 2; }

# A free port: bind port 0 and let the kernel choose.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d "${TMPDIR:-/tmp}/show-vs-scan.XXXXXX")
redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
    --enable-debug-command local --logfile "$dir/redis.log" --daemonize no &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done

# 70 % strings from DEBUG POPULATE, then hashes, lists, sets and sorted sets of 5 to 20
# elements in their own namespaces, and a TTL (1 h to 1 day) on every third key.
strings=$((keys * 7 / 10))
cli DEBUG POPULATE "$strings" cache:item 64 >/dev/null
cli EVAL "
local n = tonumber(ARGV[1])
local strings = tonumber(ARGV[2])
for i = 0, n - 1 do
  local kind = i % 4
  local elements = 5 + (i * 7) % 16
  if kind == 0 then
    local key = 'user:' .. i
    for e = 1, elements do redis.call('HSET', key, 'field' .. e, 'value' .. i) end
  elseif kind == 1 then
    local key = 'queue:jobs:' .. i
    for e = 1, elements do redis.call('RPUSH', key, 'job-' .. e) end
  elseif kind == 2 then
    local key = 'tags:' .. i
    for e = 1, elements do redis.call('SADD', key, 'tag-' .. e) end
  else
    local key = 'board:' .. i
    for e = 1, elements do redis.call('ZADD', key, e * 10, 'player-' .. e) end
  end
end
for i = 0, strings - 1, 3 do
  redis.call('PEXPIRE', 'cache:item:' .. i, 3600000 + (i % 82800) * 1000)
end
return redis.call('DBSIZE')
" 0 $((keys - strings)) "$strings" >/dev/null
echo "keys: $(cli DBSIZE), port $port"

now() { date +%s.%N; }
show_times=""
scan_times=""
for i in $(seq "$runs"); do
    start=$(now)
    XDG_CONFIG_HOME="$dir/config" "$app" show keys -p "$port" --scan-rate 0 --format jsonl >/dev/null 2>"$dir/show.err" ||
        { cat "$dir/show.err" >&2; exit 1; }
    t=$(echo "$(now) - $start" | bc)
    show_times="$show_times $t"
    s=$("$bench" scan --host 127.0.0.1 --port "$port" | sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p')
    scan_times="$scan_times $s"
    echo "run $i: show keys ${t} s, redislens-bench scan ${s} s"
done
median() { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ms=$(median $show_times)
mb=$(median $scan_times)
echo "median: show keys $ms s, redislens-bench scan $mb s, ratio $(echo "scale=3; $ms / $mb" | bc) (target <= 1.15)"
