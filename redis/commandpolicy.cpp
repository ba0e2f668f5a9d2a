// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpolicy.h"

#include "redisvalue.h"

namespace {

// The one list of what a read-only connection may send on its own authority. 'Introspection'
// marks commands that change no data although the server does not flag them `readonly`
// (connection handling and introspection, some of them `admin`): they are allowed on top of
// what the server flags. 'Read' marks commands servers flag `readonly`; they are listed so
// that, when the server refuses `COMMAND`, the built-in policy still covers every command
// RedisLens reads with (tst_readonly holds it complete against `INFO commandstats`).
enum class Source : quint8 { Read, Introspection };
struct Entry
{
    const char *name; // lower case, "name" or "name|sub"
    Source source;
};
constexpr Source R = Source::Read;
constexpr Source I = Source::Introspection;
// clang-format off
const Entry readCommands[] = {
    // connection handling
    {"ping", I}, {"echo", I}, {"select", I}, {"auth", I}, {"hello", I}, {"readonly", I}, {"asking", I},
    {"client|setname", I}, {"client|setinfo", I}, {"client|getname", I}, {"client|id", I},
    {"client|info", I}, {"client|list", I},
    // listening: a subscriber or a MONITOR receives, it changes nothing (PUBLISH is not here)
    {"subscribe", I}, {"psubscribe", I}, {"ssubscribe", I}, {"unsubscribe", I}, {"punsubscribe", I},
    {"sunsubscribe", I}, {"monitor", I},
    // the profiler's hot keys on 8.6+: reads what a tracking session found, starts nothing
    {"hotkeys|get", I},
    // server introspection
    {"time", I}, {"lastsave", I}, {"role", I}, {"info", I}, {"config|get", I}, {"slowlog|get", I},
    {"slowlog|len", I}, {"latency|latest", I}, {"latency|history", I}, {"latency|doctor", I},
    {"latency|graph", I}, {"latency|histogram", I}, {"memory|stats", I}, {"memory|doctor", I},
    {"memory|malloc-stats", I}, {"acl|whoami", I}, {"acl|dryrun", I}, {"acl|list", I},
    {"acl|cat", I}, {"module|list", I}, {"command", I},
    {"command|info", I}, {"command|count", I}, {"command|docs", I}, {"command|list", I},
    {"command|getkeys", I}, {"command|getkeysandflags", I}, {"script|exists", I}, {"function|list", I},
    {"function|stats", I}, {"pubsub|channels", I}, {"pubsub|numsub", I}, {"pubsub|numpat", I},
    {"pubsub|shardchannels", I}, {"pubsub|shardnumsub", I}, {"cluster|info", I}, {"cluster|nodes", I},
    {"cluster|slots", I}, {"cluster|shards", I}, {"cluster|keyslot", I}, {"cluster|myid", I},
    {"cluster|links", I}, {"cluster|countkeysinslot", I}, {"cluster|getkeysinslot", I},
    // keyspace and values, as the panels read them
    {"dbsize", R}, {"scan", R}, {"type", R}, {"pttl", R}, {"ttl", R}, {"exists", R}, {"memory|usage", R},
    {"object|encoding", R}, {"object|freq", R}, {"object|idletime", R}, {"object|refcount", R},
    {"strlen", R}, {"getrange", R}, {"get", R}, {"mget", R},
    {"hscan", R}, {"hlen", R}, {"hget", R}, {"hmget", R}, {"hgetall", R}, {"hstrlen", R}, {"hrandfield", R},
    {"lrange", R}, {"llen", R}, {"lindex", R},
    {"sscan", R}, {"scard", R}, {"sismember", R}, {"smembers", R}, {"srandmember", R},
    {"zrange", R}, {"zrevrange", R}, {"zrangebyscore", R}, {"zrevrangebyscore", R}, {"zcard", R},
    {"zscore", R}, {"zrank", R}, {"zrevrank", R}, {"zcount", R}, {"zunion", R}, {"zrandmember", R},
    {"xrange", R}, {"xrevrange", R}, {"xlen", R}, {"xinfo|stream", R}, {"xinfo|groups", R},
    {"xinfo|consumers", R}, {"xpending", R},
    {"geopos", R}, {"geodist", R}, {"geosearch", R}, {"geohash", R}, {"georadius_ro", R},
    {"georadiusbymember_ro", R},
    // scripts that cannot write
    {"eval_ro", R}, {"evalsha_ro", R},
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
    for (const Entry &e : readCommands) {
        if (e.source == Source::Introspection && name == e.name)
            return true;
    }
    return false;
}

// Allow-list, not deny-list: a command the server does not flag `readonly` may write. EVAL,
// FCALL, PUBLISH or SCRIPT LOAD carry neither `write` nor `admin`, and Redis hides the
// `may_replicate` flag from COMMAND on purpose, so refusing only flagged writers lets them through.
// Flagged `readonly` by the server, but they change the value's bytes: PFCOUNT rewrites the
// cached cardinality inside the HyperLogLog (RedisLens counts from the bytes instead).
bool changesBytes(const QByteArray &name)
{
    return name == "pfcount";
}

bool entryAllowed(const QByteArray &name, const RedisValue &flags)
{
    if (hasFlag(flags, "write") || changesBytes(name))
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
    for (const Entry &e : readCommands) {
        const QByteArray n(e.name);
        p.m_allowed.insert(n);
        const qsizetype bar = n.indexOf('|');
        if (bar > 0)
            p.m_containers.insert(n.left(bar));
    }
    return p;
}

QString CommandPolicy::refusal(const QList<QByteArray> &argv, Purpose purpose) const
{
    if (!m_readOnly || argv.isEmpty())
        return {};
    if (purpose == Purpose::StopOwnReadOnlyScript && argv.size() == 2
        && argv.at(0).compare("script", Qt::CaseInsensitive) == 0
        && argv.at(1).compare("kill", Qt::CaseInsensitive) == 0)
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
