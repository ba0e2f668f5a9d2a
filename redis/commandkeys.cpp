// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandkeys.h"

#include <QHash>
#include <QSet>

namespace commandkeys {

namespace {

enum class Shape : quint8 {
    First, // GET key …: a command the table does not know
    None, // connection, server, scripting and pub/sub commands
    All, // DEL k1 k2 …
    AllButLast, // BLPOP k1 k2 timeout
    FirstTwo, // LMOVE src dst …
    Pairs, // MSET k v k v
    NumKeys, // EVAL script 2 a b, ZUNION 2 a b: a count, then that many keys
    DestThenNumKeys, // ZUNIONSTORE dest 2 a b
    FromSecond, // BITOP AND dest a b
    Streams, // XREAD … STREAMS k1 k2 id1 id2
    Migrate, // MIGRATE host port key|"" db timeout … [KEYS k1 k2 …]
    Subcommand, // OBJECT ENCODING key: argument 2 for the subcommands that take a key
};

struct Spec
{
    Shape shape = Shape::First;
    int countAt = 0; // NumKeys, DestThenNumKeys: the index of the count
};

Spec specOf(const QByteArray &lowerName)
{
    static const QHash<QByteArray, Spec> table = [] {
        QHash<QByteArray, Spec> t;
        // Channels, patterns, scripts and glob patterns are not keys.
        for (const char *c :
             {"acl",         "asking",     "auth",      "bgrewriteaof", "bgsave",       "client",  "cluster",
              "command",     "config",     "dbsize",    "debug",        "discard",      "echo",    "exec",
              "failover",    "flushall",   "flushdb",   "function",     "hello",        "info",    "keys",
              "lastsave",    "latency",    "lolwut",    "module",       "monitor",      "multi",   "ping",
              "psubscribe",  "psync",      "publish",   "pubsub",       "punsubscribe", "quit",    "randomkey",
              "readonly",    "readwrite",  "replconf",  "replicaof",    "reset",        "role",    "save",
              "scan",        "script",     "select",    "sentinel",     "shutdown",     "slaveof", "slowlog",
              "spublish",    "ssubscribe", "subscribe", "sunsubscribe", "swapdb",       "sync",    "time",
              "unsubscribe", "unwatch",    "wait",      "waitaof"})
            t.insert(c, {Shape::None});
        for (const char *c : {"del", "unlink", "exists", "touch", "mget", "watch", "pfcount", "pfmerge", "sinter",
                              "sunion", "sdiff", "sinterstore", "sunionstore", "sdiffstore", "rename", "renamenx"})
            t.insert(c, {Shape::All});
        for (const char *c : {"blpop", "brpop", "bzpopmin", "bzpopmax"})
            t.insert(c, {Shape::AllButLast});
        for (const char *c :
             {"rpoplpush", "brpoplpush", "lmove", "blmove", "smove", "copy", "zrangestore", "geosearchstore", "lcs"})
            t.insert(c, {Shape::FirstTwo});
        for (const char *c : {"mset", "msetnx"})
            t.insert(c, {Shape::Pairs});
        for (const char *c : {"zunion", "zinter", "zdiff", "zintercard", "sintercard", "lmpop", "zmpop"})
            t.insert(c, {Shape::NumKeys, 1});
        for (const char *c : {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop"})
            t.insert(c, {Shape::NumKeys, 2});
        for (const char *c : {"zunionstore", "zinterstore", "zdiffstore"})
            t.insert(c, {Shape::DestThenNumKeys, 2});
        t.insert("bitop", {Shape::FromSecond});
        for (const char *c : {"xread", "xreadgroup"})
            t.insert(c, {Shape::Streams});
        t.insert("migrate", {Shape::Migrate});
        for (const char *c : {"object", "memory", "xinfo", "xgroup"})
            t.insert(c, {Shape::Subcommand});
        return t;
    }();
    // Search module commands name an index, not a key of the keyspace.
    if (lowerName.startsWith("ft."))
        return {Shape::None};
    return table.value(lowerName);
}

// The subcommands of OBJECT, MEMORY, XINFO and XGROUP whose argument 2 is a key.
bool subcommandTakesKey(const QByteArray &sub)
{
    static const QSet<QByteArray> keyed{"encoding", "freq",           "idletime",   "refcount", "usage",
                                        "stream",   "groups",         "consumers",  "create",   "setid",
                                        "destroy",  "createconsumer", "delconsumer"};
    return keyed.contains(sub.toLower());
}

// MIGRATE's own reading of its arguments (migrateGetKeys in the server): the key at 3, or, when
// that is empty, every argument after KEYS; AUTH's and AUTH2's values are skipped, so a
// password spelt "keys" is not the keyword.
void migrateKeys(const QList<QByteArray> &args, qsizetype *from, qsizetype *to)
{
    const qsizetype n = args.size();
    *from = *to = 0;
    for (qsizetype i = 6; i < n; ++i) {
        const QByteArray word = args.at(i).toLower();
        if (word == "keys") {
            if (args.at(3).isEmpty()) {
                *from = i + 1;
                *to = n;
            }
            return; // a key at 3 and KEYS too is an error: no keys
        }
        if (word == "auth")
            i += 1;
        else if (word == "auth2")
            i += 2;
    }
    if (n > 3 && !args.at(3).isEmpty()) {
        *from = 3;
        *to = 4;
    }
}

} // namespace

QList<qsizetype> keyPositions(const QList<QByteArray> &args, qsizetype max)
{
    QList<qsizetype> keys;
    const qsizetype n = args.size();
    if (n < 2 || max == 0)
        return keys;
    auto range = [&](qsizetype from, qsizetype to, qsizetype step) {
        for (qsizetype i = from; i < to && i < n && (max < 0 || keys.size() < max); i += step)
            keys.append(i);
    };
    // The count before a command's keys; none when it is not a positive number.
    auto countAt = [&](qsizetype at) -> qint64 {
        bool ok = false;
        const qint64 count = at < n ? args.at(at).toLongLong(&ok) : 0;
        return ok && count > 0 ? count : 0;
    };
    const Spec spec = specOf(args.constFirst().toLower());
    switch (spec.shape) {
    case Shape::First: range(1, 2, 1); break;
    case Shape::None: break;
    case Shape::All: range(1, n, 1); break;
    case Shape::AllButLast: range(1, n - 1, 1); break;
    case Shape::FirstTwo: range(1, 3, 1); break;
    case Shape::Pairs: range(1, n, 2); break;
    case Shape::NumKeys: range(spec.countAt + 1, spec.countAt + 1 + countAt(spec.countAt), 1); break;
    case Shape::DestThenNumKeys:
        range(1, 2, 1);
        range(spec.countAt + 1, spec.countAt + 1 + countAt(spec.countAt), 1);
        break;
    case Shape::FromSecond: range(2, n, 1); break;
    case Shape::Streams:
        for (qsizetype i = 1; i < n; ++i) {
            if (args.at(i).compare("streams", Qt::CaseInsensitive) == 0) {
                // As many keys as ids follow them.
                range(i + 1, i + 1 + (n - i - 1) / 2, 1);
                break;
            }
        }
        break;
    case Shape::Migrate: {
        qsizetype from = 0, to = 0;
        migrateKeys(args, &from, &to);
        range(from, to, 1);
        break;
    }
    case Shape::Subcommand:
        if (subcommandTakesKey(args.at(1)))
            range(2, 3, 1);
        break;
    }
    return keys;
}

} // namespace commandkeys
