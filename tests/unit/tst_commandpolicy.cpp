// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpolicy.h"
#include "redisvalue.h"
#include "respcodec.h"
#include "testdata.h"

#include <QFile>
#include <QTest>

// A read-only connection decides from the server's own COMMAND reply (recorded from
// redis-server 7.0.15 in tests/data/replies/command-7.0.resp) what it may send.
class TstCommandPolicy : public QObject
{
    Q_OBJECT

private:
    CommandPolicy m_server;
    CommandPolicy m_builtin;

    static QList<QByteArray> argv(const char *line)
    {
        QList<QByteArray> out;
        for (const QByteArray &part : QByteArray(line).split(' '))
            out.append(part);
        return out;
    }

    void readCommon()
    {
        QTest::addColumn<QByteArray>("command");
        // What RedisLens itself reads with, and what a user inspecting production types.
        for (const char *c :
             {"GET k", "get k", "SCAN 0 COUNT 100", "TYPE k", "PTTL k", "TTL k", "HSCAN h 0", "SSCAN s 0",
              "ZRANGE z 0 10", "XRANGE s - + COUNT 10", "XPENDING s g", "XINFO STREAM s", "EVAL_RO return 1 0",
              "EVALSHA_RO abc 0", "CONFIG GET maxmemory", "config get maxmemory", "Config Get *", "SLOWLOG GET 10",
              "SLOWLOG LEN", "MEMORY USAGE k", "INFO", "INFO keyspace", "DBSIZE", "PING", "SELECT 2",
              "CLIENT SETNAME redislens", "CLIENT LIST", "LATENCY LATEST", "COMMAND", "COMMAND INFO get",
              "OBJECT ENCODING k", "GEOSEARCH g FROMLONLAT 0 0 BYRADIUS 1 km", "GEORADIUS_RO g 0 0 1 km",
              "GEORADIUSBYMEMBER_RO g m 1 km", "SRANDMEMBER s 8", "HRANDFIELD h 16", "ZRANDMEMBER z 10", "ACL WHOAMI",
              // listening changes nothing: the live tail, key events, the profiler
              "SUBSCRIBE ch", "PSUBSCRIBE orders.*", "SSUBSCRIBE {s}ch", "UNSUBSCRIBE", "MONITOR", "TIME"})
            QTest::newRow(c) << QByteArray(c);
    }

    void writeCommon()
    {
        QTest::addColumn<QByteArray>("command");
        QTest::addColumn<QString>("shownAs");
        const struct
        {
            const char *line;
            const char *shown;
        } rows[] = {
            {"SET k v", "SET"},
            {"set k v", "SET"},
            {"DEL k", "DEL"},
            {"UNLINK k", "UNLINK"},
            {"EXPIRE k 10", "EXPIRE"},
            {"EVAL return 1 0", "EVAL"},
            {"EVALSHA abc 0", "EVALSHA"},
            {"FCALL f 0", "FCALL"},
            {"FLUSHALL", "FLUSHALL"},
            {"FLUSHDB ASYNC", "FLUSHDB"},
            {"CONFIG SET maxmemory 1", "CONFIG SET"},
            {"config set maxmemory 1", "CONFIG SET"},
            {"CONFIG RESETSTAT", "CONFIG RESETSTAT"},
            {"PUBLISH ch msg", "PUBLISH"},
            {"XACK s g 1-0", "XACK"},
            {"XGROUP CREATE s g $", "XGROUP CREATE"},
            {"DEBUG SLEEP 1", "DEBUG"},
            {"SLOWLOG RESET", "SLOWLOG RESET"},
            {"SCRIPT FLUSH", "SCRIPT FLUSH"},
            {"SCRIPT LOAD return 1", "SCRIPT LOAD"},
            {"SCRIPT KILL", "SCRIPT KILL"},
            {"PFCOUNT hll", "PFCOUNT"},
            {"FUNCTION KILL", "FUNCTION KILL"},
            {"CLIENT KILL ID 1", "CLIENT KILL"},
            {"CLIENT PAUSE 1000", "CLIENT PAUSE"},
            {"SHUTDOWN NOSAVE", "SHUTDOWN"},
            {"SWAPDB 0 1", "SWAPDB"},
            {"MIGRATE h 1 k 0 100", "MIGRATE"},
            {"RESTORE k 0 x", "RESTORE"},
            {"FUNCTION FLUSH", "FUNCTION FLUSH"},
            {"NOSUCHCOMMAND x", "NOSUCHCOMMAND"},
        };
        for (const auto &row : rows)
            QTest::newRow(row.line) << QByteArray(row.line) << QString::fromLatin1(row.shown);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QList<RedisValue> values;
        QString error;
        QVERIFY2(resp::parseAll(recordedReply(QStringLiteral("command-7.0.resp")), &values, &error), qPrintable(error));
        QCOMPARE(values.size(), 1);
        QVERIFY(values.first().size() > 200);
        m_server = CommandPolicy::fromCommandReply(values.first());
        m_builtin = CommandPolicy::builtinReadOnly();
    }

    void kinds()
    {
        QVERIFY(m_server.isReadOnly());
        QVERIFY(m_server.fromServer());
        QVERIFY(m_builtin.isReadOnly());
        QVERIFY(!m_builtin.fromServer());
        const CommandPolicy open;
        QVERIFY(!open.isReadOnly());
        QVERIFY(open.refusal(argv("FLUSHALL")).isEmpty());
        QVERIFY(open.refusal(argv("EVAL x 0")).isEmpty());
        QVERIFY(m_server.refusal({}).isEmpty());
    }

    void serverAllows_data() { readCommon(); }
    void serverAllows()
    {
        QFETCH(QByteArray, command);
        const QString why = m_server.refusal(argv(command.constData()));
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    void serverRefuses_data() { writeCommon(); }
    void serverRefuses()
    {
        QFETCH(QByteArray, command);
        QFETCH(QString, shownAs);
        const QString why = m_server.refusal(argv(command.constData()));
        QVERIFY2(!why.isEmpty(), "allowed on a read-only connection");
        QVERIFY2(why.startsWith(shownAs + QLatin1Char(' ')), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("read-only")), qPrintable(why));
        QVERIFY(!why.contains(QLatin1Char('\n')));
    }

    void builtinAllows_data() { readCommon(); }
    void builtinAllows()
    {
        QFETCH(QByteArray, command);
        const QString why = m_builtin.refusal(argv(command.constData()));
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    void builtinRefuses_data() { writeCommon(); }
    void builtinRefuses()
    {
        QFETCH(QByteArray, command);
        QFETCH(QString, shownAs);
        const QString why = m_builtin.refusal(argv(command.constData()));
        QVERIFY2(!why.isEmpty(), "allowed on a read-only connection");
        // The built-in list knows the subcommands of the containers it reads from (CONFIG GET);
        // for others (XGROUP, FUNCTION) it names the command.
        QVERIFY2(why.startsWith(shownAs + QLatin1Char(' '))
                     || why.startsWith(shownAs.section(QLatin1Char(' '), 0, 0) + QLatin1String(" is refused")),
                 qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("read-only")), qPrintable(why));
    }

    // SCRIPT KILL passes a read-only policy only for the console's own EVAL_RO script, and the
    // purpose opens nothing else.
    void scriptKillOnlyForOwnScript_data()
    {
        QTest::addColumn<bool>("builtin");
        QTest::newRow("server") << false;
        QTest::newRow("builtin") << true;
    }
    void scriptKillOnlyForOwnScript()
    {
        QFETCH(bool, builtin);
        const CommandPolicy &policy = builtin ? m_builtin : m_server;
        constexpr auto own = CommandPolicy::Purpose::StopOwnReadOnlyScript;
        QVERIFY(!policy.refusal(argv("SCRIPT KILL")).isEmpty());
        QVERIFY(policy.refusal(argv("SCRIPT KILL"), own).isEmpty());
        QVERIFY(policy.refusal(argv("script kill"), own).isEmpty());
        for (const char *other : {"SCRIPT FLUSH", "SCRIPT LOAD x", "FUNCTION KILL", "EVAL x 0", "SHUTDOWN NOSAVE",
                                  "CLIENT KILL ID 1", "SCRIPT KILL extra"})
            QVERIFY2(!policy.refusal(argv(other), own).isEmpty(), other);
        QVERIFY(CommandPolicy().refusal(argv("SCRIPT KILL")).isEmpty());
    }

    void everyServerWriteCommandRefused()
    {
        // Cross-check against the recording itself: nothing the server flags "write" or
        // "admin" slips through, except the introspection the panels need.
        QList<RedisValue> values;
        QVERIFY(resp::parseAll(recordedReply(QStringLiteral("command-7.0.resp")), &values));
        const QSet<QByteArray> readingAdmin{"config|get", "slowlog|get", "slowlog|len", "latency|latest",
                                            "latency|history", "latency|doctor", "latency|graph", "latency|histogram",
                                            "client|list", "module|list",
                                            // asks what a user may run; `check` and the window's panel gating
                                            "acl|dryrun",
                                            // the triage: whether the default user has nopass
                                            "acl|list",
                                            // the profiler's bounded capture: it watches, it changes nothing
                                            "monitor"};
        int writes = 0, reads = 0;
        auto check = [&](const RedisValue &entry) {
            const QByteArray name = entry.at(0).bytes();
            QSet<QByteArray> flags;
            for (const RedisValue &fl : entry.at(2).elements())
                flags.insert(fl.bytes());
            QList<QByteArray> args = name.split('|');
            args.append("x");
            const QString why = m_server.refusal(args);
            if (flags.contains("write") || (flags.contains("admin") && !readingAdmin.contains(name))) {
                ++writes;
                if (why.isEmpty())
                    QFAIL(qPrintable(QStringLiteral("%1 is allowed").arg(QString::fromLatin1(name))));
            } else if (flags.contains("readonly") && name != "pfcount") {
                // (PFCOUNT rewrites the HyperLogLog's cached count: refused although flagged.)
                ++reads;
                if (!why.isEmpty())
                    QFAIL(qPrintable(why));
            }
        };
        for (const RedisValue &entry : values.first().elements()) {
            check(entry);
            for (const RedisValue &sub : entry.at(9).elements())
                check(sub);
        }
        QVERIFY(writes > 100);
        QVERIFY(reads > 80);
    }
};

QTEST_GUILESS_MAIN(TstCommandPolicy)
#include "tst_commandpolicy.moc"
