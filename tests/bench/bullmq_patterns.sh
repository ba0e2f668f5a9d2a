#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Classification of a job queue's keyspace: KEYS job hashes laid out as BullMQ lays them out
# (bull:<queue>:<id>, fields name, data, opts, timestamp, processedOn, finishedOn, atm) in four
# queues, each with its wait, active, completed, failed and delayed keys, meta hash and events
# stream, in a private redis-server on a free loopback port. `redislens-bench patterns` scans it
# alone, then with every key classified, then alone again, in one process; the script prints its
# JSON and the two figures the catalogue is held to: the sample reads (at most 300 for the whole
# keyspace: a few per family, not per key) and the ratio to the scan alone (at most 1.25).
#
#   tests/bench/bullmq_patterns.sh [BUILD_DIR]      (default build/dev; KEYS=1000000)
set -eu

build=${1:-build/dev}
bench=$build/tests/bench/redislens-bench
keys=${KEYS:-1000000}
[ -x "$bench" ] || { echo "bullmq_patterns: $bench is not built" >&2; exit 2; }
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    { echo "bullmq_patterns: redis-server and redis-cli are needed" >&2; exit 2; }

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d "${TMPDIR:-/tmp}/bullmq-patterns.XXXXXX")
redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
    --logfile "$dir/redis.log" --daemonize no &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done

# In slices of 50,000 jobs: one long script would block the server past Lua's time limit.
now=$(date +%s%3N)
slice=50000
start=1
while [ "$start" -le "$keys" ]; do
    cli EVAL "
local first, last, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local queues = {'email', 'image', 'reports', 'video'}
for id = first, last do
  local q = 'bull:' .. queues[(id % 4) + 1]
  local created = now - (id % 86400) * 1000
  redis.call('HSET', q .. ':' .. id, 'name', 'job', 'data', '{\"n\":' .. id .. '}', 'opts', '{\"attempts\":3}',
             'timestamp', created, 'processedOn', created + 100, 'finishedOn', created + 900, 'atm', 1)
  redis.call('ZADD', q .. ':completed', created + 900, id)
end
return last
" 0 "$start" "$((start + slice - 1 < keys ? start + slice - 1 : keys))" "$now" >/dev/null
    start=$((start + slice))
done
for q in email image reports video; do
    cli HSET "bull:$q:meta" opts.maxLenEvents 10000 version bullmq:5.34.0 >/dev/null
    cli SET "bull:$q:id" "$keys" >/dev/null
    cli RPUSH "bull:$q:wait" 1 2 3 >/dev/null
    cli RPUSH "bull:$q:active" 4 >/dev/null
    cli ZADD "bull:$q:failed" "$now" 5 >/dev/null
    cli ZADD "bull:$q:delayed" "$(( (now + 60000) * 4096 + 1 ))" 6 >/dev/null
    cli XADD "bull:$q:events" '*' event added jobId 1 >/dev/null
done
echo "keys: $(cli DBSIZE), port $port"
out=$("$bench" patterns --host 127.0.0.1 --port "$port")
echo "$out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
print("sample reads %d (target <= 300), classified %d of %d keys, ratio to the scan alone %.3f (target <= 1.25)"
      % (r["sample_commands"], r["classified_keys"], r["keys"], r["ratio"]))'
