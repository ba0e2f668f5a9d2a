// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpolicy.h"

#include "redisvalue.h"

namespace {

// Commands that change no data although the server does not flag them `readonly`: connection
// handling and introspection, some of them `admin`. Everything else must be flagged `readonly`.
// clang-format off
const char *const introspection[] = {
    "ping", "echo", "select", "auth", "hello", "time", "lastsave", "role", "readonly", "info",
    "config|get", "slowlog|get", "slowlog|len", "latency|latest", "latency|history", "latency|doctor",
    "latency|graph", "latency|histogram", "client|list", "client|info", "client|id", "client|getname",
    "client|setname", "memory|stats", "memory|doctor", "memory|malloc-stats", "acl|whoami", "acl|cat",
    "module|list", "command", "command|info", "command|count", "command|docs", "command|list",
    "command|getkeys", "command|getkeysandflags", "script|exists", "function|list", "function|stats",
    "pubsub|channels", "pubsub|numsub", "pubsub|numpat", "pubsub|shardchannels", "pubsub|shardnumsub",
    "cluster|info", "cluster|nodes", "cluster|slots", "cluster|shards", "cluster|keyslot", "cluster|myid",
    "cluster|links", "cluster|countkeysinslot", "cluster|getkeysinslot",
};
// clang-format on

// Used only when the server refuses `COMMAND`: the commands RedisLens itself reads with.
// clang-format off
const char *const builtinReads[] = {
    "ping", "info", "dbsize", "scan", "type", "pttl", "ttl", "exists", "memory|usage", "strlen", "getrange",
    "get", "mget", "hscan", "hlen", "hget", "hmget", "hgetall", "hstrlen", "lrange", "llen", "lindex",
    "sscan", "scard", "sismember", "smembers", "zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore",
    "zcard", "zscore", "zrank", "zrevrank", "zcount", "zunion", "xrange", "xrevrange", "xlen", "xinfo|stream",
    "xinfo|groups", "xinfo|consumers", "xpending", "pfcount", "geopos", "geodist", "geosearch", "geohash",
    "object|encoding", "object|freq", "object|idletime", "object|refcount", "slowlog|get", "slowlog|len",
    "config|get", "client|list", "client|info", "latency|latest", "latency|history", "select", "auth",
    "hello", "client|setname", "evalsha_ro", "eval_ro", "script|exists", "pubsub|channels",
    "pubsub|numsub", "pubsub|numpat", "time", "echo", "role", "lastsave", "readonly", "cluster|slots",
    "cluster|shards", "cluster|nodes", "cluster|info", "cluster|keyslot", "command", "command|info",
};
// clang-format on

QByteArray lower(const QByteArray &b)
{
    return b.toLower();
}

bool hasFlag(const RedisValue &flags, const char *name)
{
    for (const RedisValue &f : flags.elements()) {
        if (f.bytes() == name)
            return true;
    }
    return false;
}

bool isIntrospection(const QByteArray &name)
{
    if (name.endsWith("|help"))
        return true;
    for (const char *ok : introspection) {
        if (name == ok)
            return true;
    }
    return false;
}

// Allow-list, not deny-list: a command the server does not flag `readonly` may write. EVAL,
// FCALL, PUBLISH or SCRIPT LOAD carry neither `write` nor `admin`, and Redis hides the
// `may_replicate` flag from COMMAND on purpose, so refusing only flagged writers lets them through.
bool entryAllowed(const QByteArray &name, const RedisValue &flags)
{
    if (hasFlag(flags, "write"))
        return false;
    if (hasFlag(flags, "readonly") && !hasFlag(flags, "admin"))
        return true;
    return isIntrospection(name);
}

} // namespace

CommandPolicy CommandPolicy::fromCommandReply(const RedisValue &reply)
{
    CommandPolicy p;
    p.m_readOnly = true;
    p.m_fromServer = true;
    // Entry layout (Redis 7): name, arity, flags, first, last, step, acl categories, tips,
    // key specs, subcommands. Redis 6 stops after the categories and has no subcommands.
    for (const RedisValue &entry : reply.elements()) {
        const QByteArray name = lower(entry.at(0).bytes());
        if (name.isEmpty())
            continue;
        if (entryAllowed(name, entry.at(2)))
            p.m_allowed.insert(name);
        const RedisValue &subs = entry.at(9);
        if (subs.isArray() && subs.size() > 0) {
            p.m_containers.insert(name);
            for (const RedisValue &sub : subs.elements()) {
                const QByteArray subName = lower(sub.at(0).bytes());
                if (entryAllowed(subName, sub.at(2)))
                    p.m_allowed.insert(subName);
            }
        }
    }
    return p;
}

CommandPolicy CommandPolicy::builtinReadOnly()
{
    CommandPolicy p;
    p.m_readOnly = true;
    for (const char *name : builtinReads) {
        const QByteArray n(name);
        p.m_allowed.insert(n);
        const qsizetype bar = n.indexOf('|');
        if (bar > 0)
            p.m_containers.insert(n.left(bar));
    }
    return p;
}

QString CommandPolicy::refusal(const QList<QByteArray> &argv) const
{
    if (!m_readOnly || argv.isEmpty())
        return {};
    // Checked for every command of every batch (a scan sends two per key): lower-case into a
    // stack buffer and look up through a raw-data view, so an allowed command allocates nothing.
    char buffer[96];
    qsizetype length = 0;
    auto append = [&](const QByteArray &part) {
        for (const char c : part) {
            if (length == qsizetype(sizeof buffer))
                return false;
            buffer[length++] = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
        }
        return true;
    };
    bool fits = append(argv.first());
    if (fits && argv.size() > 1 && m_containers.contains(QByteArray::fromRawData(buffer, length))) {
        fits = length < qsizetype(sizeof buffer);
        if (fits) {
            buffer[length++] = '|';
            fits = append(argv.at(1));
        }
    }
    // No command name is anywhere near 96 bytes; a longer one is not on the list.
    const QByteArray name = fits ? QByteArray::fromRawData(buffer, length) : lower(argv.first());
    if (fits && m_allowed.contains(name))
        return {};
    const QString shown
        = QString::fromUtf8(name.constData(), name.size()).replace(QLatin1Char('|'), QLatin1Char(' ')).toUpper();
    if (m_fromServer)
        return QStringLiteral("%1 is refused: the connection is read-only and the server does not flag %1 as read-only")
            .arg(shown);
    return QStringLiteral("%1 is refused: the connection is read-only and the server did not let us check it")
        .arg(shown);
}
