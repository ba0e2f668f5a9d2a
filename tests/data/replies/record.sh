#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Records raw RESP replies of a real redis-server for the parser tests.
#
#   record.sh PORT SUFFIX [OUTDIR]     e.g. record.sh 6390 8.0
#
# Writes <name>-<SUFFIX>.resp into OUTDIR (default: this script's directory), each file holding
# exactly the bytes of one reply. The server must be a fresh, throw-away one started with
# `--enable-debug-command local`: the script runs FLUSHALL, DEBUG SLEEP and CONFIG SET on it.
# Host defaults to 127.0.0.1 (override with REDIS_HOST).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 PORT SUFFIX [OUTDIR]" >&2
    exit 2
fi

port=$1
suffix=$2
outdir=${3:-$(cd "$(dirname "$0")" && pwd)}
host=${REDIS_HOST:-127.0.0.1}

exec python3 - "$host" "$port" "$suffix" "$outdir" <<'PY'
import os
import socket
import sys
import time

host, port, suffix, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


def reply_end(buf, pos=0):
    """Index just past the RESP value starting at pos, or None if buf holds only part of it."""
    eol = buf.find(b"\r\n", pos)
    if eol < 0:
        return None
    kind, head, after = buf[pos:pos + 1], buf[pos + 1:eol], eol + 2
    if kind in b"+-:_,#(":
        return after
    if kind in b"$!=":
        size = int(head)
        if size < 0:
            return after
        return after + size + 2 if len(buf) >= after + size + 2 else None
    if kind in b"*~>%|":
        count = int(head)
        if count < 0:
            return after
        if kind in b"%|":
            count *= 2
        for _ in range(count):
            after = reply_end(buf, after)
            if after is None:
                return None
        return after
    raise ValueError("not RESP at byte %d: %r" % (pos, buf[pos:pos + 20]))


sock = socket.create_connection((host, port), timeout=10)
pending = b""


def command(*args):
    """Sends one command and returns the exact bytes of its reply."""
    global pending
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        arg = arg if isinstance(arg, bytes) else arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    sock.sendall(b"".join(parts))
    while True:
        end = reply_end(pending) if pending else None
        if end is not None:
            break
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit("connection closed by server")
        pending += chunk
    reply, pending = pending[:end], pending[end:]
    if pending:
        sys.exit("unexpected extra bytes after reply to %r" % (args,))
    return reply


def setup(*args):
    reply = command(*args)
    if reply.startswith(b"-"):
        sys.exit("set-up command %r failed: %r" % (args, reply))


def record(name, *args):
    reply = command(*args)
    path = os.path.join(outdir, "%s-%s.resp" % (name, suffix))
    with open(path, "wb") as f:
        f.write(reply)
    print("%-40s %6d bytes  %s" % (os.path.basename(path), len(reply), " ".join(
        a if isinstance(a, str) else repr(a) for a in args)))


# Set-up: keys with and without TTLs in db0, two keys in db3, a hash, a named client.
setup("FLUSHALL")
setup("SELECT", "0")
for i in range(1, 6):
    setup("SET", "str:%d" % i, "value %d" % i)
for i, ms in ((1, 3600000), (2, 7200000), (3, 86400000)):
    setup("PEXPIRE", "str:%d" % i, str(ms))
setup("HSET", "somehash", "field1", "one", "field2", "two", "field3", "three")
setup("SELECT", "3")
setup("SET", "db3:a", "alpha")
setup("SET", "db3:b", "beta")
setup("SELECT", "0")
setup("CLIENT", "SETNAME", "recorder")
# Let the server's cron sample the TTLs so avg_ttl is filled in.
time.sleep(0.5)

record("info-default", "INFO")
record("info-keyspace", "INFO", "keyspace")

# Slow log: log everything, then a mix of entry shapes (sleep, many args, long arg, binary arg).
setup("CONFIG", "SET", "slowlog-log-slower-than", "0")
setup("SLOWLOG", "RESET")
setup("SET", "slow:key", "value")
setup("DEBUG", "SLEEP", "0.02")
setup("RPUSH", "biglist", *("a%d" % i for i in range(1, 40)))
setup("SET", "slow:long", "x" * 300)
setup("SET", b"slow:bin\x00\xff", b"\x00\xff\x01binary\xfe\r\n")
setup("HGETALL", "somehash")
setup("EVAL", "return 1", "0")
setup("CONFIG", "SET", "slowlog-log-slower-than", "10000")
record("slowlog-get", "SLOWLOG", "GET", "128")
setup("SLOWLOG", "RESET")
record("slowlog-empty", "SLOWLOG", "GET", "128")

# Latency monitor: two 20 ms "command" events in different seconds.
setup("CONFIG", "SET", "latency-monitor-threshold", "5")
setup("LATENCY", "RESET")
setup("DEBUG", "SLEEP", "0.02")
time.sleep(1.1)
setup("DEBUG", "SLEEP", "0.02")
record("latency-latest", "LATENCY", "LATEST")
record("latency-history", "LATENCY", "HISTORY", "command")
setup("LATENCY", "RESET")
record("latency-latest-empty", "LATENCY", "LATEST")

record("config-slowlog", "CONFIG", "GET", "slowlog-log-slower-than")
record("config-maxmemory-policy", "CONFIG", "GET", "maxmemory-policy")
sock.close()
PY
