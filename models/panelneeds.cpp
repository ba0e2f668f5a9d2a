// SPDX-License-Identifier: GPL-3.0-or-later
#include "panelneeds.h"

#include <QHash>

namespace panelneeds {

namespace {

// A key name for sample calls: DRYRUN and the trials check the command, and key rules
// (~pattern) against this name say nothing about the keys a panel will read.
const QByteArray kKey = QByteArrayLiteral("redislens:check");
const QByteArray kOtherKey = QByteArrayLiteral("redislens:check:other");
// SHA1 of "return 1": a call that names a script without sending one.
const QByteArray kSha = QByteArrayLiteral("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");

using Argv = std::initializer_list<QByteArray>;

QList<Need> reads(std::initializer_list<Argv> calls)
{
    QList<Need> out;
    for (const Argv &argv : calls)
        out.append({QList<QByteArray>(argv), Need::Kind::Read, {}});
    return out;
}

Need extra(Argv argv, const char *what)
{
    return {QList<QByteArray>(argv), Need::Kind::Extra, QString::fromUtf8(what)};
}

Need background(Argv argv, const char *what)
{
    return {QList<QByteArray>(argv), Need::Kind::Background, QString::fromUtf8(what)};
}

Need action(Argv argv, const char *what)
{
    return {QList<QByteArray>(argv), Need::Kind::Action, QString::fromUtf8(what)};
}

// The key browser's scan: names, types and TTLs of every key; with the default (adaptive)
// pacing, its load probe's figures (see LoadProbe): without them it paces by PING alone.
QList<Need> scanning()
{
    return reads({{"SCAN", "0", "COUNT", "100"}, {"TYPE", kKey}, {"PTTL", kKey}, {"DBSIZE"}})
        + QList<Need>{background({"INFO", "stats"}, "the scan pacing's count of other clients' commands"),
                      background({"SLOWLOG", "GET", "1"}, "the scan pacing's watch on the slow log")};
}

// What the pattern index reads of a few keys per family to classify the rest.
QList<Need> sampling()
{
    return reads({{"STRLEN", kKey},
                  {"GETRANGE", kKey, "0", "63"},
                  {"HLEN", kKey},
                  {"HRANDFIELD", kKey, "8"},
                  {"HSCAN", kKey, "0"},
                  {"LLEN", kKey},
                  {"LRANGE", kKey, "0", "7"},
                  {"SCARD", kKey},
                  {"SRANDMEMBER", kKey, "8"},
                  {"SSCAN", kKey, "0"},
                  {"ZCARD", kKey},
                  {"ZRANGE", kKey, "0", "7"},
                  {"EXISTS", kKey}});
}

QList<Need> scripts(const char *what)
{
    return {action({"SCRIPT", "LOAD", "return 1"}, what), action({"EVALSHA", kSha, "0"}, what)};
}

QHash<QString, QList<Need>> build()
{
    const QList<Need> patterns = scanning() + sampling();
    QHash<QString, QList<Need>> t;
    t.insert(QStringLiteral("keys"),
             patterns
                 + QList<Need>{action({"UNLINK", kKey}, "deleting keys"),
                               action({"RENAMENX", kKey, kOtherKey}, "renaming keys")});
    t.insert(QStringLiteral("value"),
             reads({{"TYPE", kKey},
                    {"PTTL", kKey},
                    {"OBJECT", "ENCODING", kKey},
                    {"GETRANGE", kKey, "0", "63"},
                    {"STRLEN", kKey},
                    {"HSCAN", kKey, "0"},
                    {"LRANGE", kKey, "0", "99"},
                    {"LLEN", kKey},
                    {"SSCAN", kKey, "0"},
                    {"ZRANGE", kKey, "0", "99", "WITHSCORES"},
                    {"ZCARD", kKey},
                    {"XREVRANGE", kKey, "+", "-", "COUNT", "100"}})
                 + QList<Need>{extra({"MEMORY", "USAGE", kKey}, "the key's memory")});
    t.insert(QStringLiteral("overview"),
             reads({{"INFO"}}) + QList<Need>{extra({"CONFIG", "GET", "save"}, "the persistence settings")});
    t.insert(QStringLiteral("ttl"), scanning());
    // A cluster's node list and slot counts; INFO is asked of every node it can reach.
    t.insert(QStringLiteral("topology"),
             reads({{"INFO"}})
                 + QList<Need>{extra({"CLUSTER", "NODES"}, "a cluster's node flags and links"),
                               extra({"CLUSTER", "COUNTKEYSINSLOT", "0"}, "a cluster's keys per slot"),
                               extra({"CLUSTER", "GETKEYSINSLOT", "0", "200"}, "the hot slots' hash tags")});
    t.insert(QStringLiteral("slowlog"),
             reads({{"SLOWLOG", "GET", "128"}, {"SLOWLOG", "LEN"}})
                 + QList<Need>{extra({"CONFIG", "GET", "slowlog-log-slower-than"}, "the slowlog's settings"),
                               extra({"LATENCY", "LATEST"}, "the latency events"),
                               extra({"LATENCY", "HISTORY", "command"}, "the latency history"),
                               action({"SLOWLOG", "RESET"}, "resetting the slowlog")});
    t.insert(QStringLiteral("memory"),
             scanning()
                 + reads({{"MEMORY", "USAGE", kKey},
                          {"STRLEN", kKey},
                          {"HLEN", kKey},
                          {"LLEN", kKey},
                          {"SCARD", kKey},
                          {"ZCARD", kKey},
                          {"XLEN", kKey}}));
    t.insert(QStringLiteral("caches"), patterns + scripts("invalidating tags"));
    t.insert(QStringLiteral("sessions"),
             patterns + QList<Need>{extra({"MEMORY", "USAGE", kKey}, "the sessions' sizes")}
                 + scripts("touching sessions"));
    t.insert(QStringLiteral("ratelimits"),
             patterns + reads({{"GET", kKey}, {"HMGET", kKey, "tokens"}, {"ZCOUNT", kKey, "0", "1"}})
                 + QList<Need>{extra({"TIME"}, "the server's clock (windows are placed by this machine's)")});
    t.insert(QStringLiteral("locks"), patterns + scripts("releasing and extending locks"));
    t.insert(QStringLiteral("queues"),
             patterns
                 + reads({{"HGET", kKey, "name"},
                          {"HMGET", kKey, "name"},
                          {"LINDEX", kKey, "0"},
                          {"ZCOUNT", kKey, "0", "1"},
                          {"ZREVRANGE", kKey, "0", "99"},
                          {"XREVRANGE", kKey, "+", "-", "COUNT", "1"}})
                 + QList<Need>{extra({"CLIENT", "LIST"}, "the workers of BullMQ and Bull queues")}
                 + scripts("claiming due jobs"));
    t.insert(QStringLiteral("streams"),
             scanning()
                 + reads({{"XINFO", "STREAM", kKey},
                          {"XINFO", "GROUPS", kKey},
                          {"XINFO", "CONSUMERS", kKey, "group"},
                          {"XPENDING", kKey, "group"},
                          {"XRANGE", kKey, "-", "+", "COUNT", "100"},
                          {"XREVRANGE", kKey, "+", "-", "COUNT", "100"},
                          {"XLEN", kKey}})
                 + QList<Need>{action({"XACK", kKey, "group", "0-1"}, "acknowledging entries"),
                               action({"XCLAIM", kKey, "group", "consumer", "0", "0-1"}, "claiming entries"),
                               action({"XAUTOCLAIM", kKey, "group", "consumer", "0", "0"}, "claiming entries"),
                               action({"XTRIM", kKey, "MAXLEN", "~", "1000"}, "trimming streams")}
                 + scripts("moving entries to a dead letter stream"));
    t.insert(QStringLiteral("leaderboard"),
             reads({{"ZCARD", kKey},
                    {"ZRANGE", kKey, "0", "99", "WITHSCORES"},
                    {"ZREVRANGE", kKey, "0", "99", "WITHSCORES"},
                    {"ZRANGEBYSCORE", kKey, "-inf", "+inf"},
                    {"ZREVRANGEBYSCORE", kKey, "+inf", "-inf"},
                    {"ZCOUNT", kKey, "-inf", "+inf"},
                    {"ZSCORE", kKey, "member"},
                    {"ZRANK", kKey, "member"},
                    {"ZREVRANK", kKey, "member"},
                    {"ZRANDMEMBER", kKey, "8"},
                    {"PTTL", kKey}})
                 + QList<Need>{extra({"MEMORY", "USAGE", kKey}, "the board's memory"),
                               extra({"ZUNION", "2", kKey, kOtherKey}, "combining boards")});
    t.insert(QStringLiteral("geo"),
             reads({{"ZCARD", kKey},
                    {"ZRANGE", kKey, "0", "99", "WITHSCORES"},
                    {"GEOPOS", kKey, "member"},
                    {"GEOSEARCH", kKey, "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
                    {"GEODIST", kKey, "a", "b"}})
                 + QList<Need>{extra({"MEMORY", "USAGE", kKey}, "the set's memory")});
    t.insert(QStringLiteral("console"),
             reads({{"EVAL", "return 1", "0"}, {"EVALSHA", kSha, "0"}, {"SCRIPT", "LOAD", "return 1"}})
                 + QList<Need>{action({"SCRIPT", "KILL"}, "stopping a running script")});
    return t;
}

const QHash<QString, QList<Need>> &table()
{
    static const QHash<QString, QList<Need>> needs = build();
    return needs;
}

} // namespace

QList<Need> of(const QString &panel)
{
    return table().value(panel);
}

QStringList panels()
{
    return {QStringLiteral("keys"),       QStringLiteral("value"),       QStringLiteral("overview"),
            QStringLiteral("ttl"),        QStringLiteral("slowlog"),     QStringLiteral("memory"),
            QStringLiteral("topology"),   QStringLiteral("caches"),      QStringLiteral("sessions"),
            QStringLiteral("ratelimits"), QStringLiteral("locks"),       QStringLiteral("queues"),
            QStringLiteral("streams"),    QStringLiteral("leaderboard"), QStringLiteral("geo"),
            QStringLiteral("console")};
}

QList<QList<QByteArray>> connection()
{
    return {{"AUTH", "user", "password"},
            {"SELECT", "0"},
            {"PING"},
            {"CLIENT", "SETNAME", "redislens"},
            {"CLIENT", "SETINFO", "LIB-NAME", "redislens"},
            {"INFO", "server"},
            {"COMMAND"}};
}

QString aclRule(const QList<QByteArray> &argv)
{
    if (argv.isEmpty())
        return {};
    // Container commands: the rule names the subcommand.
    static const QList<QByteArray> containers{"ACL",      "CLIENT",  "CLUSTER", "COMMAND", "CONFIG", "DEBUG",
                                              "FUNCTION", "LATENCY", "MEMORY",  "MODULE",  "OBJECT", "PUBSUB",
                                              "SCRIPT",   "SLOWLOG", "XGROUP",  "XINFO"};
    const QByteArray name = argv.first().toLower();
    if (argv.size() > 1 && containers.contains(argv.first().toUpper()))
        return QStringLiteral("+%1|%2").arg(QString::fromLatin1(name), QString::fromLatin1(argv.at(1).toLower()));
    return QStringLiteral("+%1").arg(QString::fromLatin1(name));
}

} // namespace panelneeds
