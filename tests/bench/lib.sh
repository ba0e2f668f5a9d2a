# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the scripts in tests/bench: a private redis-server on a free loopback port, the
# mixed keyspace they measure on, and medians. Sets $port and $dir; the server stops, and $dir
# is removed, when the script exits.

# A free port: bind port 0 and let the kernel choose.
bench_free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# bench_start_server NAME [redis-server options...]
bench_start_server() {
    name=$1
    shift
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
        { echo "$name: redis-server and redis-cli are needed" >&2; exit 2; }
    port=$(bench_free_port)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
        --enable-debug-command local --logfile "$dir/redis.log" --daemonize no "$@" &
    server=$!
    trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
    for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done
}

cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }

# bench_fill KEYS: 70 % strings from DEBUG POPULATE, then hashes, lists, sets and sorted sets
# of 5 to 20 elements in their own namespaces, and a TTL (1 h to 1 day) on every third string.
bench_fill() {
    keys=$1
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
}

bench_now() { date +%s.%N; }

# The median of the numbers given.
bench_median() {
    echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g |
        awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

bench_ratio() { echo "scale=3; $1 / $2" | bc; }
