// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandkeys.h"

#include <QHash>
#include <QSet>

namespace commandkeys {

namespace {

// Commands whose arguments name no key (connection, server, scripting and pub/sub commands).
const QSet<QByteArray> &keylessCommands()
{
    static const QSet<QByteArray> set{
        "acl",          "asking",     "auth",      "bgrewriteaof", "bgsave",     "client",   "cluster",   "command",
        "config",       "dbsize",     "debug",     "discard",      "echo",       "exec",     "failover",  "flushall",
        "flushdb",      "function",   "hello",     "info",         "keys",       "lastsave", "latency",   "lolwut",
        "module",       "monitor",    "multi",     "ping",         "psubscribe", "psync",    "publish",   "pubsub",
        "punsubscribe", "quit",       "randomkey", "readonly",     "readwrite",  "replconf", "replicaof", "reset",
        "role",         "save",       "scan",      "script",       "select",     "shutdown", "slaveof",   "slowlog",
        "spublish",     "ssubscribe", "subscribe", "sunsubscribe", "swapdb",     "sync",     "time",      "unsubscribe",
        "unwatch",      "wait",       "waitaof",   "migrate",
    };
    return set;
}

// Every argument is a key.
const QSet<QByteArray> &allKeys()
{
    static const QSet<QByteArray> set{"del",         "unlink",     "exists", "touch",   "mget",  "watch",
                                      "pfcount",     "pfmerge",    "sinter", "sunion",  "sdiff", "sinterstore",
                                      "sunionstore", "sdiffstore", "rename", "renamenx"};
    return set;
}

// Every argument but the last is a key (a timeout, a member or a direction follows).
const QSet<QByteArray> &allButLast()
{
    static const QSet<QByteArray> set{"blpop", "brpop", "bzpopmin", "bzpopmax"};
    return set;
}

// The first two arguments are keys.
const QSet<QByteArray> &firstTwo()
{
    static const QSet<QByteArray> set{"rpoplpush", "brpoplpush",  "lmove",          "blmove", "smove",
                                      "copy",      "zrangestore", "geosearchstore", "lcs"};
    return set;
}

// numkeys at argument 'at', the keys after it.
int numkeysAt(const QByteArray &name)
{
    static const QHash<QByteArray, int> map{
        {"eval", 2},   {"evalsha", 2}, {"eval_ro", 2}, {"evalsha_ro", 2},  {"fcall", 2},       {"fcall_ro", 2},
        {"zunion", 1}, {"zinter", 1},  {"zdiff", 1},   {"zintercard", 1},  {"sintercard", 1},  {"lmpop", 1},
        {"zmpop", 1},  {"blmpop", 2},  {"bzmpop", 2},  {"zunionstore", 2}, {"zinterstore", 2}, {"zdiffstore", 2},
    };
    return map.value(name, -1);
}

} // namespace

QList<qsizetype> keyPositions(const QList<QByteArray> &args, qsizetype max)
{
    QList<qsizetype> keys;
    if (args.size() < 2 || max == 0)
        return keys;
    const QByteArray name = args.constFirst().toLower();
    const qsizetype n = args.size();
    auto range = [&](qsizetype from, qsizetype to, qsizetype step) {
        for (qsizetype i = from; i < to && i < n && (max < 0 || keys.size() < max); i += step)
            keys.append(i);
    };
    if (keylessCommands().contains(name)) {
        return keys;
    } else if (allKeys().contains(name)) {
        range(1, n, 1);
    } else if (allButLast().contains(name)) {
        range(1, n - 1, 1);
    } else if (firstTwo().contains(name)) {
        range(1, 3, 1);
    } else if (name == "mset" || name == "msetnx") {
        range(1, n, 2);
    } else if (const int at = numkeysAt(name); at >= 0) {
        bool ok = false;
        const qint64 count = at < n ? args.at(at).toLongLong(&ok) : -1;
        if (name.endsWith("store"))
            range(1, 2, 1); // the destination
        if (ok && count > 0)
            range(at + 1, at + 1 + count, 1);
    } else if (name == "xread" || name == "xreadgroup") {
        for (qsizetype i = 1; i < n; ++i) {
            if (args.at(i).compare("streams", Qt::CaseInsensitive) == 0) {
                const qsizetype streams = (n - i - 1) / 2;
                range(i + 1, i + 1 + streams, 1);
                break;
            }
        }
    } else if (name == "object" || name == "memory" || name == "xinfo" || name == "xgroup") {
        range(2, 3, 1); // OBJECT FREQ key, MEMORY USAGE key, XINFO STREAM key
    } else {
        range(1, 2, 1);
    }
    return keys;
}

} // namespace commandkeys
