// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterkeys.h"

#include "clustertopology.h"

#include <QSet>

namespace cluster {
namespace {

enum class Shape : quint8 {
    None, // no keys
    First, // argv[1]
    All, // argv[1..]
    AllButLast, // BLPOP k1 k2 timeout
    Pairs, // MSET k v k v
    FirstTwo, // RENAME a b
    Second, // OBJECT ENCODING key
    NumKeysAt1, // ZUNION 2 a b
    NumKeysAt2, // EVAL script 2 a b; BLMPOP timeout 2 a b
    DestThenNumKeys, // ZUNIONSTORE dest 2 a b
    FromSecond, // BITOP AND dest a b
    Streams, // XREAD … STREAMS k1 k2 id1 id2
};

Shape shapeOf(const QByteArray &name, const RedisCommand &argv)
{
    static const QHash<QByteArray, Shape> table = [] {
        QHash<QByteArray, Shape> t;
        for (const char *c :
             {"ping",         "echo",       "info",        "config",       "client",   "cluster",   "scan",
              "dbsize",       "slowlog",    "acl",         "command",      "script",   "function",  "latency",
              "time",         "role",       "select",      "hello",        "auth",     "pubsub",    "publish",
              "subscribe",    "psubscribe", "unsubscribe", "punsubscribe", "sentinel", "wait",      "waitaof",
              "keys",         "randomkey",  "flushdb",     "flushall",     "swapdb",   "save",      "bgsave",
              "bgrewriteaof", "lastsave",   "debug",       "monitor",      "readonly", "readwrite", "asking",
              "multi",        "exec",       "discard",     "quit",         "reset",    "lolwut",    "failover",
              "replicaof",    "slaveof",    "shutdown",    "module",       "unwatch",  "hotkeys",   "sync",
              "psync",        "replconf",   "memory"})
            t.insert(c, Shape::None);
        for (const char *c : {"del", "unlink", "exists", "touch", "mget", "watch", "sinter", "sunion", "sdiff",
                              "sinterstore", "sunionstore", "sdiffstore", "pfcount", "pfmerge"})
            t.insert(c, Shape::All);
        for (const char *c : {"blpop", "brpop", "bzpopmin", "bzpopmax"})
            t.insert(c, Shape::AllButLast);
        for (const char *c : {"mset", "msetnx"})
            t.insert(c, Shape::Pairs);
        for (const char *c : {"rename", "renamenx", "rpoplpush", "brpoplpush", "lmove", "blmove", "smove", "copy",
                              "geosearchstore", "zrangestore", "georadius_store"})
            t.insert(c, Shape::FirstTwo);
        for (const char *c : {"object", "xinfo", "xgroup"})
            t.insert(c, Shape::Second);
        for (const char *c : {"zunion", "zinter", "zdiff", "sintercard", "zintercard", "lmpop", "zmpop"})
            t.insert(c, Shape::NumKeysAt1);
        for (const char *c : {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop"})
            t.insert(c, Shape::NumKeysAt2);
        for (const char *c : {"zunionstore", "zinterstore", "zdiffstore"})
            t.insert(c, Shape::DestThenNumKeys);
        t.insert("bitop", Shape::FromSecond);
        for (const char *c : {"xread", "xreadgroup"})
            t.insert(c, Shape::Streams);
        return t;
    }();
    if (name == "memory")
        return argv.size() > 2 && argv.at(1).toLower() == "usage" ? Shape::Second : Shape::None;
    // OBJECT HELP, XINFO HELP: no key.
    const Shape s = table.value(name, Shape::First);
    if (s == Shape::Second && argv.size() > 1 && argv.at(1).toLower() == "help")
        return Shape::None;
    return s;
}

void addRange(QList<int> *out, int from, int to, int size)
{
    for (int i = from; i < to && i < size; ++i)
        out->append(i);
}

int numberAt(const RedisCommand &argv, int i)
{
    bool ok = false;
    const int n = i < argv.size() ? argv.at(i).toInt(&ok) : 0;
    return ok && n > 0 ? n : 0;
}

} // namespace

QList<int> keyPositions(const RedisCommand &argv)
{
    QList<int> out;
    const int size = int(argv.size());
    if (size < 2)
        return out;
    switch (shapeOf(argv.at(0).toLower(), argv)) {
    case Shape::None: break;
    case Shape::First: out << 1; break;
    case Shape::All: addRange(&out, 1, size, size); break;
    case Shape::AllButLast: addRange(&out, 1, size - 1, size); break;
    case Shape::Pairs:
        for (int i = 1; i < size; i += 2)
            out << i;
        break;
    case Shape::FirstTwo: addRange(&out, 1, 3, size); break;
    case Shape::Second:
        if (size > 2)
            out << 2;
        break;
    case Shape::NumKeysAt1: addRange(&out, 2, 2 + numberAt(argv, 1), size); break;
    case Shape::NumKeysAt2: addRange(&out, 3, 3 + numberAt(argv, 2), size); break;
    case Shape::DestThenNumKeys:
        out << 1;
        addRange(&out, 3, 3 + numberAt(argv, 2), size);
        break;
    case Shape::FromSecond: addRange(&out, 2, size, size); break;
    case Shape::Streams:
        for (int i = 1; i < size; ++i) {
            if (argv.at(i).toLower() == "streams") {
                const int n = (size - i - 1) / 2;
                addRange(&out, i + 1, i + 1 + n, size);
                break;
            }
        }
        break;
    }
    return out;
}

int commandSlot(const RedisCommand &argv)
{
    int slot = -1;
    for (int i : keyPositions(argv)) {
        const int s = keySlot(argv.at(i));
        if (slot >= 0 && s != slot)
            return -2;
        slot = s;
    }
    return slot;
}

} // namespace cluster
