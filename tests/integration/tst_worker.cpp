// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"
#include "faultproxy.h"
#include "redisclient.h"
#include "respcodec.h"
#include "testserver.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QVersionNumber>

// RedisClient + RedisWorker against a real redis-server: ordering, binary safety, error kinds,
// read-only enforcement, timeouts, losing and regaining the server, and dropped replies.

class TstWorker : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;

    // Everything a client said about its state, in order, as seen on the GUI thread.
    struct StateLog
    {
        QList<RedisClient::State> states;
        QStringList details;
        QList<RedisError> errors;
        bool saw(RedisClient::State s) const { return states.contains(s); }
        // True when 'later' was reported after the last 'earlier'.
        bool sawAfter(RedisClient::State earlier, RedisClient::State later) const
        {
            const qsizetype at = states.lastIndexOf(earlier);
            return at >= 0 && states.indexOf(later, at) > at;
        }
    };

    static void track(RedisClient &client, StateLog &log)
    {
        QObject::connect(&client, &RedisClient::stateChanged, &client, [&log](RedisClient::State s, const QString &d) {
            log.states.append(s);
            log.details.append(d);
        });
        QObject::connect(&client, &RedisClient::connectionError, &client,
                         [&log](const RedisError &e) { log.errors.append(e); });
    }

    std::unique_ptr<RedisClient> connectedClient(const ConnectionProfile &p)
    {
        auto client = std::make_unique<RedisClient>(p);
        client->connectToServer();
        if (!waitForReady(*client))
            return nullptr;
        return client;
    }

    void ensureServer()
    {
        if (!m_server.server().isRunning()) {
            QString error;
            QVERIFY2(m_server.server().restart(&error), qPrintable(error));
        }
    }

    qint64 serverStat(const QByteArray &section, const QByteArray &field)
    {
        const RedisValue info = m_server.command({"INFO", section});
        for (const QByteArray &line : info.bytes().split('\n')) {
            if (line.startsWith(QByteArray(field + ':')))
                return line.mid(field.size() + 1).trimmed().toLongLong();
        }
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
    }

    void init()
    {
        ensureServer();
        m_server.flushAll();
    }

    // Operators tell RedisLens apart in CLIENT LIST: its name always, its library on 7.2+; an
    // older server is not sent the subcommand it would count as an error.
    void namesItselfInClientList()
    {
        const auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        const RedisReply r = waitForReply(*client, {{"CLIENT", "INFO"}, {"INFO", "server"}, {"INFO", "errorstats"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        const QByteArray info = r.value(0).bytes();
        QVERIFY2(info.contains(" name=redislens "), info.constData());
        const QByteArray server = r.value(1).bytes();
        const qsizetype at = server.indexOf("redis_version:") + 14;
        const auto version
            = QVersionNumber::fromString(QString::fromLatin1(server.mid(at, server.indexOf('\r', at) - at)));
        if (version >= QVersionNumber(7, 2)) {
            QVERIFY2(info.contains(" lib-name=redislens "), info.constData());
            QVERIFY2(QRegularExpression(QStringLiteral(" lib-ver=[0-9]+\\.[0-9]+"))
                         .match(QString::fromUtf8(info))
                         .hasMatch(),
                     info.constData());
        }
        QVERIFY2(!r.value(2).bytes().contains("errorstat_"), r.value(2).bytes().constData());
    }

    // The worker's thread rule is checked: a debug build stops at a call from another thread.
    // The call is made in a child process (this test binary, running only the child's function),
    // whose abort is the expected outcome; release builds compile the check away.
    void callFromWrongThreadStops()
    {
#ifdef QT_NO_DEBUG
        QSKIP("thread checks are compiled out of release builds; the asan lane (Debug) runs this");
#else
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDISLENS_WRONG_THREAD_CHILD"), QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("wrongThreadChild")});
        QVERIFY(child.waitForFinished(30000));
        const QByteArray output = child.readAllStandardError() + child.readAllStandardOutput();
        QVERIFY2(child.exitStatus() == QProcess::CrashExit || child.exitCode() != 0, output.constData());
        QVERIFY2(output.contains("called from a thread that does not own this object"), output.constData());
#endif
    }

    // Only in the child of callFromWrongThreadStops: submits from the GUI thread to a worker
    // that lives on its own thread.
    void wrongThreadChild()
    {
        if (qEnvironmentVariableIsEmpty("REDISLENS_WRONG_THREAD_CHILD"))
            QSKIP("runs as the child of callFromWrongThreadStops");
        RedisClient client(m_server.profile());
        client.worker()->submit(1, {{"PING"}}); // the worker lives on client.workerThread()
        QFAIL("the call from the wrong thread was not stopped");
    }

    void pipelinedBatchInOrder()
    {
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        // One batch of 3,000 commands: every reply lands at its command's index.
        QList<RedisCommand> batch;
        for (int i = 0; i < 1000; ++i) {
            batch.append(RedisCommand{"SET", "order:" + QByteArray::number(i), QByteArray::number(i * 3)});
            batch.append(RedisCommand{"INCR", "order:counter"});
            batch.append(RedisCommand{"GET", "order:" + QByteArray::number(i)});
        }
        const RedisReply r = waitForReply(*client, batch);
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QCOMPARE(r.values.size(), batch.size());
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(r.values.at(3 * i), RedisValue::status("OK"));
            QCOMPARE(r.values.at(3 * i + 1), RedisValue::integer(i + 1));
            QCOMPARE(r.values.at(3 * i + 2), RedisValue::bulk(QByteArray::number(i * 3)));
        }
        QVERIFY(r.elapsedUs > 0);

        // Many batches in flight at once: callbacks come in the order of sending, each with
        // its own replies.
        QObject context;
        QList<int> order;
        QList<qint64> seen;
        for (int i = 0; i < 50; ++i) {
            client->sendBatch({{"INCR", "order:seq"}, {"ECHO", QByteArray::number(i)}}, &context,
                              [&order, &seen, i](const RedisReply &reply) {
                                  order.append(i);
                                  seen.append(reply.value(0).toInteger());
                                  QCOMPARE(reply.value(1), RedisValue::bulk(QByteArray::number(i)));
                              });
        }
        QTRY_COMPARE_WITH_TIMEOUT(order.size(), 50, 10000);
        for (int i = 0; i < 50; ++i) {
            QCOMPARE(order.at(i), i);
            QCOMPARE(seen.at(i), qint64(i + 1));
        }
        QCOMPARE(client->pendingCount(), 0);
    }

    void binarySafe_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");

        QByteArray big(64 * 1024, '\0');
        QRandomGenerator rng(42);
        for (char &c : big)
            c = char(rng.bounded(256));
        QTest::newRow("nul") << QByteArrayLiteral("nul\0inside") << QByteArrayLiteral("v\0v");
        QTest::newRow("invalid utf8") << QByteArray("\xff\xfe\xfd") << QByteArray("\xc3\x28\xa0\xa1");
        QTest::newRow("newline") << QByteArray("line1\nline2\r\n") << QByteArray("\r\n*1\r\n$4\r\nPING\r\n");
        QTest::newRow("empty key") << QByteArray("") << QByteArray("value of the empty key");
        QTest::newRow("empty value") << QByteArray("empty:value") << QByteArray("");
        QTest::newRow("quotes and backslashes") << QByteArray("\"a\\b\"") << QByteArray("\\x00");
        QTest::newRow("utf8") << QByteArray("\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87:\xf0\x9f\x94\x91")
                              << QByteArray("\xe2\x82\xac");
        QTest::newRow("64 KB key") << big << QByteArray("big key");
        QTest::newRow("64 KB value") << QByteArray("big:value") << big;
    }

    void binarySafe()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);

        RedisReply r = waitForReply(*client, {{"SET", key, value}, {"GET", key}, {"STRLEN", key}, {"EXISTS", key}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QCOMPARE(r.value(0), RedisValue::status("OK"));
        QCOMPARE(r.value(1).kind(), RedisValue::Kind::Bulk);
        QCOMPARE(r.value(1).bytes(), value);
        QCOMPARE(r.value(2), RedisValue::integer(value.size()));
        QCOMPARE(r.value(3), RedisValue::integer(1));

        // Checked on a connection that does not go through the engine.
        QCOMPARE(m_server.command({"GET", key}).bytes(), value);
        const QList<QByteArray> keys = m_server.allKeys();
        QCOMPARE(keys.size(), 1);
        QCOMPARE(keys.first(), key);

        // A name shown on screen and typed back addresses the same key.
        const std::optional<QByteArray> typed = bytesescape::unescape(bytesescape::quoteIfNeeded(key));
        QVERIFY(typed.has_value());
        r = waitForReply(*client,
                         {{"GET", *typed},
                          {"RENAME", *typed, *typed + "~renamed"},
                          {"GET", key + "~renamed"},
                          {"DEL", key + "~renamed"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QCOMPARE(r.value(0).bytes(), value);
        QCOMPARE(r.value(1), RedisValue::status("OK"));
        QCOMPARE(r.value(2).bytes(), value);
        QCOMPARE(r.value(3), RedisValue::integer(1));
        QVERIFY(m_server.allKeys().isEmpty());
    }

    void serverErrorKinds()
    {
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        const RedisReply r
            = waitForReply(*client, {{"SET", "str", "x"}, {"HGET", "str", "f"}, {"NOSUCH"}, {"GET", "str"}});
        // Per-command errors do not fail the batch; the other commands still answer.
        QVERIFY(r.ok());
        QCOMPARE(r.values.size(), 4);
        QVERIFY(r.value(1).isError());
        QCOMPARE(RedisError::fromReply(r.value(1)).kind, RedisError::Kind::WrongType);
        QCOMPARE(RedisError::fromReply(r.value(2)).kind, RedisError::Kind::UnknownCommand);
        QCOMPARE(r.value(3), RedisValue::bulk("x"));
        QCOMPARE(r.firstError().kind, RedisError::Kind::WrongType);
        QVERIFY(client->isReady()); // an error reply is not a connection problem
    }

    void noPermForLimitedUser()
    {
        QCOMPARE(m_server.command({"ACL", "SETUSER", "inspector", "reset", "on", ">pw", "~*", "+@read", "-slowlog"}),
                 RedisValue::status("OK"));
        m_server.command({"SET", "visible", "yes"});
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("inspector");
        p.password = QStringLiteral("pw");
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        // A least-privilege user cannot PING, CLIENT SETNAME or INFO, and still gets a working
        // connection: the panels that need more say so one by one.
        QVERIFY2(waitForReady(client), qPrintable(client.stateDetail()));
        QVERIFY(log.errors.isEmpty());
        QVERIFY(client.facts().version.isNull());

        RedisReply r = waitForReply(client, {{"GET", "visible"}, {"SLOWLOG", "GET", "10"}, {"SET", "visible", "no"}});
        QVERIFY(r.ok());
        QCOMPARE(r.value(0), RedisValue::bulk("yes"));
        const RedisError slowlog = RedisError::fromReply(r.value(1));
        QCOMPARE(slowlog.kind, RedisError::Kind::NoPerm);
        QVERIFY2(slowlog.message.contains(QLatin1String("slowlog")), qPrintable(slowlog.message));
        QCOMPARE(RedisError::fromReply(r.value(2)).kind, RedisError::Kind::NoPerm);
        QCOMPARE(m_server.command({"GET", "visible"}), RedisValue::bulk("yes"));
    }

    void wrongPassword()
    {
        QCOMPARE(m_server.command({"ACL", "SETUSER", "alice", "reset", "on", ">right-password", "~*", "+@all"}),
                 RedisValue::status("OK"));
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("alice");
        p.password = QStringLiteral("wrong-password");
        p.connectTimeoutMs = 300;
        StateLog log;
        RedisClient client(p);
        track(client, log);
        QSignalSpy errors(&client, &RedisClient::connectionError);
        client.connectToServer();
        QVERIFY(errors.wait(5000));
        const RedisError e = errors.first().first().value<RedisError>();
        QCOMPARE(e.kind, RedisError::Kind::Auth);
        QVERIFY2(e.message.contains(QLatin1String("WRONGPASS")), qPrintable(e.message));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), RedisClient::State::Disconnected, 2000);

        // No reconnect loop and no second error: retrying a wrong password cannot help. Wait
        // past the connect timeout, which must not fire after the server answered.
        const qint64 connectionsBefore = serverStat("stats", "total_connections_received");
        QVERIFY(!errors.wait(3 * p.connectTimeoutMs));
        QCOMPARE(errors.size(), 1);
        QVERIFY(!log.saw(RedisClient::State::Backoff));
        QCOMPARE(log.states.count(RedisClient::State::Connecting), 1);
        QCOMPARE(client.state(), RedisClient::State::Disconnected);
        QVERIFY2(client.stateDetail().contains(QLatin1String("WRONGPASS")), qPrintable(client.stateDetail()));
        QCOMPARE(serverStat("stats", "total_connections_received"), connectionsBefore + 1); // our INFO only
        for (const QString &d : std::as_const(log.details))
            QVERIFY(!d.contains(p.password));

        // Requests say why there is no connection.
        const RedisReply r = waitForReply(client, {{"PING"}});
        QCOMPARE(r.error.kind, RedisError::Kind::NotConnected);
        QVERIFY2(r.error.message.contains(QLatin1String("WRONGPASS")), qPrintable(r.error.message));

        // The right password works.
        p.password = QStringLiteral("right-password");
        auto good = connectedClient(p);
        QVERIFY(good);
    }

    void readOnlyRefusesWrites()
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = true;
        RedisClient client(p);
        client.connectToServer();
        // Sent before the handshake told us which commands write: still refused, never sent.
        const RedisReply early = waitForReply(client, {{"SET", "ro:early", "1"}});
        QCOMPARE(early.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY(waitForReady(client));
        QVERIFY(client.facts().readOnly);
        QVERIFY(client.facts().policyFromServer);
        QCOMPARE(m_server.command({"EXISTS", "ro:early"}), RedisValue::integer(0));

        m_server.command({"SET", "ro:existing", "kept"});
        RedisReply r = waitForReply(client, {{"SET", "ro:key", "v"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY2(r.error.message.startsWith(QLatin1String("SET ")), qPrintable(r.error.message));
        QVERIFY(r.values.isEmpty());

        // One writing command refuses the whole batch before any of it is sent.
        r = waitForReply(client, {{"GET", "ro:existing"}, {"DEL", "ro:existing"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY2(r.error.message.contains(QLatin1String("DEL")), qPrintable(r.error.message));

        // Scripts that may write, publishing, and admin commands that change things.
        r = waitForReply(client, {{"EVAL", "redis.call('SET', KEYS[1], 'x') return 1", "1", "ro:eval"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY2(r.error.message.contains(QLatin1String("EVAL")), qPrintable(r.error.message));
        r = waitForReply(client, {{"PUBLISH", "channel", "hello"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        r = waitForReply(client, {{"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY2(r.error.message.contains(QLatin1String("CONFIG SET")), qPrintable(r.error.message));

        // Reading works, including read-only scripts and introspection.
        r = waitForReply(client,
                         {{"GET", "ro:existing"},
                          {"EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "ro:existing"},
                          {"CONFIG", "GET", "maxmemory-policy"},
                          {"PING"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QCOMPARE(r.value(0), RedisValue::bulk("kept"));
        QCOMPARE(r.value(1), RedisValue::bulk("kept"));
        QVERIFY(r.value(2).isArray());
        QCOMPARE(r.value(3), RedisValue::status("PONG"));

        // Nothing was written, nothing was changed.
        QCOMPARE(m_server.command({"EXISTS", "ro:key", "ro:eval", "ro:early"}), RedisValue::integer(0));
        QCOMPARE(m_server.command({"GET", "ro:existing"}), RedisValue::bulk("kept"));
        QCOMPARE(m_server.command({"CONFIG", "GET", "maxmemory-policy"}).at(1), RedisValue::bulk("noeviction"));
        QVERIFY(client.isReady());
    }

    void reconnectWithOtherPolicy()
    {
        // Requests sent right after switching profiles follow the new profile's policy.
        ConnectionProfile readOnly = m_server.profile();
        readOnly.readOnly = true;
        ConnectionProfile readWrite = m_server.profile();
        RedisClient client(readOnly);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        QCOMPARE(waitForReply(client, {{"SET", "switch", "1"}}).error.kind, RedisError::Kind::ReadOnlyRefused);

        client.reconnectWith(readWrite);
        RedisReply r = waitForReply(client, {{"SET", "switch", "2"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QVERIFY(!client.facts().readOnly);
        QCOMPARE(m_server.command({"GET", "switch"}), RedisValue::bulk("2"));

        client.reconnectWith(readOnly);
        r = waitForReply(client, {{"SET", "switch", "3"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY(client.facts().readOnly);
        QCOMPARE(m_server.command({"GET", "switch"}), RedisValue::bulk("2"));
    }

    void readOnlyWithoutCommandPermission()
    {
        // A user that may not run COMMAND gets the built-in list of reads.
        QCOMPARE(m_server.command({"ACL", "SETUSER", "reader", "reset", "on", ">pw", "~*", "+@read"}),
                 RedisValue::status("OK"));
        m_server.command({"SET", "k", "v"});
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("reader");
        p.password = QStringLiteral("pw");
        p.readOnly = true;
        auto client = connectedClient(p);
        QVERIFY(client);
        QVERIFY(client->facts().readOnly);
        QVERIFY(!client->facts().policyFromServer);
        RedisReply r = waitForReply(*client, {{"SET", "k", "w"}});
        QCOMPARE(r.error.kind, RedisError::Kind::ReadOnlyRefused);
        QVERIFY2(r.error.message.startsWith(QLatin1String("SET ")), qPrintable(r.error.message));
        r = waitForReply(*client, {{"GET", "k"}});
        QCOMPARE(r.value(), RedisValue::bulk("v"));
        // The classifier's and the geo panel's samplers are on the built-in list too.
        m_server.pipeline({{"SADD", "s", "a"},
                           {"HSET", "h", "f", "v"},
                           {"ZADD", "z", "1", "m"},
                           {"GEOADD", "g", "13.4", "52.5", "berlin"}});
        r = waitForReply(*client,
                         {{"SRANDMEMBER", "s", "8"},
                          {"HRANDFIELD", "h", "16"},
                          {"ZRANDMEMBER", "z", "10"},
                          {"GEORADIUS_RO", "g", "13.4", "52.5", "10", "km"},
                          {"GEORADIUSBYMEMBER_RO", "g", "berlin", "10", "km"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        for (const RedisValue &v : std::as_const(r.values))
            QVERIFY2(v.isArray() && v.size() == 1, qPrintable(v.toDisplayString()));
    }

    // A user name without a password authenticates as that user: an ACL user with nopass gets
    // in as itself, one with a password is told WRONGPASS. Never silently `default`.
    void userWithoutPassword()
    {
        QCOMPARE(m_server.command({"ACL", "SETUSER", "probe", "reset", "on", "nopass", "~*", "+@all"}),
                 RedisValue::status("OK"));
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("probe");
        auto client = connectedClient(p);
        QVERIFY(client);
        QCOMPARE(waitForReply(*client, {{"ACL", "WHOAMI"}}).value(), RedisValue::bulk("probe"));

        QCOMPARE(m_server.command({"ACL", "SETUSER", "guarded", "reset", "on", ">pw", "~*", "+@all"}),
                 RedisValue::status("OK"));
        p.username = QStringLiteral("guarded");
        RedisClient refused(p);
        QSignalSpy errors(&refused, &RedisClient::connectionError);
        refused.connectToServer();
        QVERIFY(errors.wait(5000));
        QCOMPARE(errors.first().first().value<RedisError>().kind, RedisError::Kind::Auth);
        QVERIFY(!refused.isReady());
    }

    void timeoutKeepsGuiResponsive()
    {
        m_server.command({"SET", "after", "timeout"});
        ConnectionProfile p = m_server.profile();
        p.commandTimeoutMs = 500;
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        QVERIFY(waitForReady(client));

        // A timer on the GUI thread keeps firing while the server sleeps.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0;
        qint64 maxGap = 0;
        QTimer ticker;
        ticker.setInterval(10);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            maxGap = qMax(maxGap, now - last);
            last = now;
        });
        ticker.start();
        last = clock.elapsed();

        QElapsedTimer took;
        took.start();
        // The sleep is long against the timeout: a worker thread starved past the sleep's end
        // would see the reply and the timer in the same turn, and take the reply.
        const RedisReply r = waitForReply(client, {{"DEBUG", "SLEEP", "4"}});
        const qint64 waited = took.elapsed();
        const QString seen = QStringLiteral("after %1 ms: error %2 (%3), value %4")
                                 .arg(waited)
                                 .arg(int(r.error.kind))
                                 .arg(r.error.message, r.values.isEmpty() ? QString() : r.value().toDisplayString());
        QVERIFY2(r.error.kind == RedisError::Kind::Timeout, qPrintable(seen));
        QVERIFY2(r.error.message.contains(QLatin1String("500 ms")), qPrintable(seen));
        // Before the 4 s sleep ends: the client gave up at its own timeout (with room for a
        // loaded machine), it did not wait for the server.
        QVERIFY2(waited >= 450 && waited < 3800, qPrintable(seen));

        // The connection is dropped (a late reply would be out of step) and comes back by itself
        // once the server wakes up; it then answers the right request.
        QTRY_VERIFY_WITH_TIMEOUT(log.saw(RedisClient::State::Backoff), 2000);
        QTRY_VERIFY_WITH_TIMEOUT(log.sawAfter(RedisClient::State::Backoff, RedisClient::State::Ready), 15000);
        const RedisReply after = waitForReply(client, {{"GET", "after"}});
        QVERIFY2(after.ok(), qPrintable(after.error.message));
        QCOMPARE(after.value(), RedisValue::bulk("timeout"));
        ticker.stop();
        // A GUI thread that waited on the socket would stall for the 500 ms timeout at least;
        // scheduling noise on a loaded 2-core machine stays well below that.
        QVERIFY2(maxGap < 400, qPrintable(QStringLiteral("GUI thread stalled for %1 ms").arg(maxGap)));
    }

    // Replies come in order: a short timeout behind a user's long one (a poll behind a Lua
    // script the console waits for) waits with it instead of killing the connection under it.
    void userRequestAheadSheltersShortTimeouts()
    {
        ConnectionProfile p = m_server.profile();
        RedisClient client(p);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        QObject context;
        RedisReply first, second;
        qint64 secondAt = -1;
        QElapsedTimer took;
        took.start();
        client.send(
            {"DEBUG", "SLEEP", "2"}, &context, [&](const RedisReply &r) { first = r; }, 8000);
        client.send(
            {"PING"}, &context,
            [&](const RedisReply &r) {
                second = r;
                secondAt = took.elapsed();
            },
            400);
        QTRY_VERIFY_WITH_TIMEOUT(secondAt >= 0, 8000);
        QVERIFY2(first.ok() && second.ok(), qPrintable(first.error.message + QLatin1Char('/') + second.error.message));
        QCOMPARE(second.value(), RedisValue::status("PONG"));
        QVERIFY2(secondAt >= 1900, qPrintable(QString::number(secondAt)));
    }

    // The connection's own request shelters nothing: on 7.2+ its CLIENT SETINFO is in flight
    // when the first request is written. A proxy holds the server's replies once it has seen
    // SETINFO, so the server "sits on" both: the user's 500 ms timeout fires at 500 ms, not at
    // the connect timeout.
    void connectionsOwnRequestSheltersNothing()
    {
        {
            RedisClient probe(m_server.profile());
            probe.connectToServer();
            QVERIFY(waitForReady(probe));
            if (probe.facts().version < QVersionNumber(7, 2))
                QSKIP("CLIENT SETINFO is sent on Redis 7.2 and later only");
        }
        FaultProxy proxy(m_server.port());
        proxy.holdAfter("SETINFO", 3000);
        QVERIFY(proxy.isListening());
        ConnectionProfile p = m_server.profile();
        p.port = proxy.port();
        p.commandTimeoutMs = 500;
        p.connectTimeoutMs = 5000;
        RedisClient client(p);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        QElapsedTimer took;
        took.start();
        const RedisReply r = waitForReply(client, {{"PING"}});
        const qint64 waited = took.elapsed();
        const QString seen = QStringLiteral("after %1 ms: %2").arg(waited).arg(r.error.message);
        QVERIFY2(proxy.held(), "the proxy never saw CLIENT SETINFO");
        QVERIFY2(r.error.kind == RedisError::Kind::Timeout, qPrintable(seen));
        QVERIFY2(r.error.message.contains(QLatin1String("500 ms")), qPrintable(seen));
        QVERIFY2(waited < 2500, qPrintable(seen));
    }

    void serverKilledAndRestarted()
    {
        StateLog log;
        RedisClient client(m_server.profile());
        track(client, log);
        client.connectToServer();
        QVERIFY(waitForReady(client));

        // A request the server is holding when it dies.
        QObject context;
        std::optional<RedisReply> blocked;
        client.send({"BLPOP", "never:filled", "30"}, &context, [&blocked](const RedisReply &r) { blocked = r; });
        QTRY_COMPARE_WITH_TIMEOUT(serverStat("clients", "blocked_clients"), qint64(1), 5000);
        m_server.server().kill();

        QTRY_VERIFY_WITH_TIMEOUT(blocked.has_value(), 5000);
        QCOMPARE(blocked->error.kind, RedisError::Kind::ConnectionLost);
        QVERIFY2(blocked->error.message.contains(QLatin1String("lost")), qPrintable(blocked->error.message));
        QTRY_VERIFY_WITH_TIMEOUT(log.saw(RedisClient::State::Backoff), 5000);
        // The error is its own signal, queued beside the state change: it can come a turn later.
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 2000);

        // While the server is away, requests fail at once with the reason.
        const RedisReply away = waitForReply(client, {{"PING"}}, 5000);
        QVERIFY2(away.error.kind == RedisError::Kind::NotConnected
                     || away.error.kind == RedisError::Kind::ConnectionRefused,
                 qPrintable(errorKindName(away.error.kind) + QLatin1String(": ") + away.error.message));
        QVERIFY(!away.error.message.isEmpty());

        // Wait for at least one failed retry, so that the client is backing off when the server
        // returns; then it reconnects without being told.
        QTRY_VERIFY_WITH_TIMEOUT(log.states.count(RedisClient::State::Backoff) >= 2, 5000);
        for (const QString &d : std::as_const(log.details)) {
            if (d.contains(QLatin1String("retrying")))
                QVERIFY2(d.contains(QRegularExpression(QStringLiteral("retrying in \\d+\\.\\d s"))), qPrintable(d));
        }
        QString error;
        QVERIFY2(m_server.server().restart(&error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(log.sawAfter(RedisClient::State::Backoff, RedisClient::State::Ready), 15000);
        const RedisReply r = waitForReply(client, {{"SET", "back", "1"}, {"GET", "back"}});
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QCOMPARE(r.value(1), RedisValue::bulk("1"));
    }

    void busyServerAtConnect()
    {
        // A script that never ends makes the server answer BUSY. That passes: the client backs
        // off and retries instead of giving up, and connects once the script is killed.
        QCOMPARE(m_server.command({"CONFIG", "SET", "lua-time-limit", "50"}), RedisValue::status("OK"));
        auto restore = qScopeGuard([this] {
            m_server.command({"SCRIPT", "KILL"});
            m_server.command({"CONFIG", "SET", "lua-time-limit", "5000"});
        });
        QTcpSocket script;
        script.connectToHost(QHostAddress::LocalHost, m_server.port());
        QVERIFY(script.waitForConnected(3000));
        script.write(resp::formatCommands({{"EVAL", "while true do end", "0"}}));
        QVERIFY(script.waitForBytesWritten(3000));
        QTRY_VERIFY_WITH_TIMEOUT(m_server.command({"PING"}).errorCode() == "BUSY", 5000);

        StateLog log;
        RedisClient client(m_server.profile());
        track(client, log);
        client.connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(log.saw(RedisClient::State::Backoff), 5000);
        // The error is its own signal, queued beside the state change: it can come a turn later.
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 2000);
        QCOMPARE(log.errors.first().kind, RedisError::Kind::Busy);
        QVERIFY2(log.errors.first().message.contains(QLatin1String("BUSY")), qPrintable(log.errors.first().message));
        QVERIFY(!client.isReady());

        QCOMPARE(m_server.command({"SCRIPT", "KILL"}), RedisValue::status("OK"));
        QTRY_VERIFY_WITH_TIMEOUT(client.isReady(), 10000);
        QCOMPARE(waitForReply(client, {{"PING"}}).value(), RedisValue::status("PONG"));
    }

    void refusedAtStart()
    {
        ConnectionProfile p = m_server.profile();
        p.port = LocalServer::freePort();
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 5000);
        const RedisError e = log.errors.first();
        QCOMPARE(e.kind, RedisError::Kind::ConnectionRefused);
        const QString where = QStringLiteral("cannot connect to 127.0.0.1:%1").arg(p.port);
        QVERIFY2(e.message.startsWith(where), qPrintable(e.message));
        QVERIFY2(e.message.contains(QLatin1String("refused"), Qt::CaseInsensitive), qPrintable(e.message));

        // Backoff grows and is jittered within [step/2, step] for steps of 250, 500, 1000 ms.
        QTRY_VERIFY_WITH_TIMEOUT(log.states.count(RedisClient::State::Backoff) >= 3, 10000);
        QList<double> delays;
        static const QRegularExpression re(QStringLiteral("retrying in (\\d+\\.\\d) s$"));
        for (qsizetype i = 0; i < log.states.size(); ++i) {
            if (log.states.at(i) != RedisClient::State::Backoff)
                continue;
            const QRegularExpressionMatch m = re.match(log.details.at(i));
            QVERIFY2(m.hasMatch(), qPrintable(log.details.at(i)));
            QVERIFY2(log.details.at(i).startsWith(where), qPrintable(log.details.at(i)));
            delays.append(m.captured(1).toDouble());
        }
        for (int k = 0; k < 3; ++k) {
            const double step = 0.25 * (1 << k);
            QVERIFY2(delays.at(k) >= step / 2 - 0.051 && delays.at(k) <= step + 0.051,
                     qPrintable(QStringLiteral("attempt %1 waited %2 s").arg(k).arg(delays.at(k))));
        }

        const RedisReply r = waitForReply(client, {{"PING"}}, 5000);
        QVERIFY(r.error.isConnectionLevel() || r.error.kind == RedisError::Kind::NotConnected);
        QVERIFY2(r.error.message.contains(where), qPrintable(r.error.message));

        // Giving up stops the retries.
        client.disconnectFromServer();
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), RedisClient::State::Disconnected, 2000);
        QSignalSpy states(&client, &RedisClient::stateChanged);
        QVERIFY(!states.wait(1500));
    }

    void cancelDropsReply()
    {
        m_server.pipeline({{"SET", "a", "A"}, {"SET", "b", "B"}});
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        QObject context;
        bool cancelledCalled = false;
        const RequestId id = client->send({"GET", "a"}, &context, [&](const RedisReply &) { cancelledCalled = true; });
        client->cancel(id);
        client->cancel(id); // twice is harmless
        // The reply to GET a still arrives (it was written) and is consumed in its place.
        const RedisReply r = waitForReply(*client, {{"GET", "b"}});
        QCOMPARE(r.value(), RedisValue::bulk("B"));
        QVERIFY(!cancelledCalled);
        QCOMPARE(client->pendingCount(), 0);

        // A request cancelled before it was written is never sent. CLIENT PAUSE holds the
        // handshake, so the request is certainly still waiting when the cancel arrives.
        QCOMPARE(m_server.command({"CLIENT", "PAUSE", "300", "ALL"}), RedisValue::status("OK"));
        RedisClient late(m_server.profile());
        late.connectToServer();
        bool lateCalled = false;
        const RequestId lateId
            = late.send({"SET", "cancelled", "1"}, &context, [&](const RedisReply &) { lateCalled = true; });
        late.cancel(lateId);
        QVERIFY(waitForReady(late));
        QCOMPARE(waitForReply(late, {{"PING"}}).value(), RedisValue::status("PONG"));
        QVERIFY(!lateCalled);
        QCOMPARE(late.pendingCount(), 0);
        QCOMPARE(m_server.command({"EXISTS", "cancelled"}), RedisValue::integer(0));
    }

    // A subscribed connection: the confirmations answer the SUBSCRIBE (one per channel), every
    // published message arrives as messageReceived in order, and a reconnect starts unsubscribed
    // (a later PUBLISH reaches nobody until the owner subscribes again).
    void subscribedConnectionDeliversMessages()
    {
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        QSignalSpy messages(client.get(), &RedisClient::messageReceived);
        const RedisReply sub = waitForReply(*client, {{"SUBSCRIBE", "alerts", "audit"}, {"PSUBSCRIBE", "jobs:*"}});
        QVERIFY2(sub.ok(), qPrintable(sub.error.message));
        QCOMPARE(sub.values.size(), 3); // alerts, audit, jobs:*
        QCOMPARE(sub.values.at(1).at(0).bytes(), QByteArray("subscribe"));
        QCOMPARE(sub.values.at(1).at(1).bytes(), QByteArray("audit"));
        QCOMPARE(sub.values.at(2).at(0).bytes(), QByteArray("psubscribe"));
        RawConnection raw(m_server.port());
        QCOMPARE(raw.command({"PUBLISH", "alerts", "disk full"}).toInteger(), 1);
        QCOMPARE(raw.command({"PUBLISH", "jobs:7", QByteArray("bin\0ary", 7)}).toInteger(), 1);
        QCOMPARE(raw.command({"PUBLISH", "audit", "login"}).toInteger(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(messages.size(), 3, 10000);
        const RedisValue first = messages.at(0).at(0).value<RedisValue>();
        QCOMPARE(first.at(0).bytes(), QByteArray("message"));
        QCOMPARE(first.at(1).bytes(), QByteArray("alerts"));
        QCOMPARE(first.at(2).bytes(), QByteArray("disk full"));
        const RedisValue second = messages.at(1).at(0).value<RedisValue>();
        QCOMPARE(second.at(0).bytes(), QByteArray("pmessage"));
        QCOMPARE(second.at(2).bytes(), QByteArray("jobs:7"));
        QCOMPARE(second.at(3).bytes(), QByteArray("bin\0ary", 7));
        QCOMPARE(messages.at(2).at(0).value<RedisValue>().at(2).bytes(), QByteArray("login"));
        // PING is answered on a subscribed connection, as a reply and not as a message.
        const RedisReply ping = waitForReply(*client, {{"PING"}});
        QVERIFY(ping.ok());
        QCOMPARE(messages.size(), 3);

        // The connection is dropped: the new one has no subscription.
        QSignalSpy ready(client.get(), &RedisClient::ready);
        QVERIFY(raw.command({"CLIENT", "KILL", "TYPE", "pubsub"}).toInteger() >= 1);
        QVERIFY(ready.wait(15000));
        QCOMPARE(raw.command({"PUBLISH", "alerts", "nobody hears this"}).toInteger(), 0);
        QVERIFY(waitForReply(*client, {{"GET", "nothing"}}).value().isNil()); // an ordinary connection again
    }

    // A subscriber the window cannot keep up with: the worker goes on reading (the server sees
    // no slow subscriber in RedisLens) and keeps at most the bound, newest last, counting the rest.
    void subscribedConnectionHoldsItsBound()
    {
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        client->setMessageBound(100, qint64(1) << 30);
        QVERIFY(waitForReply(*client, {{"SUBSCRIBE", "flood"}}).ok());
        QList<RedisValue> got;
        qint64 dropped = 0;
        qsizetype largestBatch = 0;
        connect(client.get(), &RedisClient::messagesReceived, this,
                [&](const QList<RedisValue> &messages, qint64 lost) {
                    got.append(messages);
                    dropped += lost;
                    largestBatch = qMax(largestBatch, messages.size());
                });
        RawConnection raw(m_server.port());
        QList<QList<QByteArray>> publishes;
        for (int i = 1; i <= 1000; ++i)
            publishes.append({"PUBLISH", "flood", QByteArray::number(i)});
        raw.pipeline(publishes);
        // The window is busy: no event is processed while the worker reads.
        QThread::msleep(1000);
        QTRY_VERIFY_WITH_TIMEOUT(got.size() + dropped == 1000, 10000);
        QVERIFY2(largestBatch <= 100, qPrintable(QString::number(largestBatch)));
        QVERIFY2(dropped >= 500, qPrintable(QString::number(dropped)));
        QCOMPARE(got.last().at(2).bytes(), QByteArray("1000"));
    }

    // A user without channel access: Redis refuses SUBSCRIBE a b with one NOPERM for the whole
    // command, not one per channel. The request ends at once with that error instead of waiting
    // for a second reply until its timeout drops the connection.
    void refusedSubscribeEndsAtOnce()
    {
        QCOMPARE(
            m_server.command({"ACL", "SETUSER", "nochannels", "reset", "on", "nopass", "~*", "+@all", "resetchannels"}),
            RedisValue::status("OK"));
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("nochannels");
        p.commandTimeoutMs = 20000;
        auto client = connectedClient(p);
        QVERIFY(client);
        QElapsedTimer clock;
        clock.start();
        const RedisReply r = waitForReply(*client, {{"SUBSCRIBE", "orders", "audit"}, {"PING"}}, 15000);
        QVERIFY2(r.ok(), qPrintable(r.error.message));
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(r.values.size(), 2);
        QCOMPARE(r.values.at(0).errorCode(), QByteArray("NOPERM"));
        QCOMPARE(r.values.at(1), RedisValue::status("PONG"));
        QCOMPARE(client->state(), RedisClient::State::Ready);
        m_server.command({"ACL", "DELUSER", "nochannels"});
    }

    // MONITOR: its +OK answers the request, then every command the server runs arrives as a line.
    void monitorDeliversLines()
    {
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        QList<QByteArray> lines;
        connect(client.get(), &RedisClient::messagesReceived, this, [&](const QList<RedisValue> &messages, qint64) {
            for (const RedisValue &v : messages)
                lines.append(v.bytes());
        });
        const RedisReply ok = waitForReply(*client, {{"MONITOR"}});
        QCOMPARE(ok.value(), RedisValue::status("OK"));
        RawConnection raw(m_server.port());
        raw.command({"SET", "watched", "1"});
        raw.command({"GET", "watched"});
        const auto seen = [&lines](const QByteArray &part) {
            return std::any_of(lines.cbegin(), lines.cend(), [&](const QByteArray &l) { return l.contains(part); });
        };
        QTRY_VERIFY_WITH_TIMEOUT(seen("\"GET\" \"watched\""), 10000);
        QVERIFY(seen("\"SET\" \"watched\" \"1\""));
    }

    void replyForDestroyedContextDropped()
    {
        m_server.command({"SET", "a", "A"});
        auto client = connectedClient(m_server.profile());
        QVERIFY(client);
        bool called = false;
        auto *context = new QObject;
        client->send({"GET", "a"}, context, [&](const RedisReply &) { called = true; });
        client->sendBatch({{"BLPOP", "nothing", "0.2"}}, context, [&](const RedisReply &) { called = true; });
        delete context;
        const RedisReply r = waitForReply(*client, {{"GET", "a"}});
        QCOMPARE(r.value(), RedisValue::bulk("A"));
        QVERIFY(!called);
        QCOMPARE(client->pendingCount(), 0);

        // Destroying the client with requests in flight neither hangs nor calls back.
        QObject other;
        client->send({"BLPOP", "nothing", "10"}, &other, [&](const RedisReply &) { called = true; });
        QElapsedTimer t;
        t.start();
        client.reset();
        QVERIFY2(t.elapsed() < 2000, qPrintable(QString::number(t.elapsed())));
        QCoreApplication::processEvents();
        QVERIFY(!called);
    }

    void databaseSelection()
    {
        ConnectionProfile p = m_server.profile();
        QString error;
        QVERIFY2(ConnectionProfile::parseUri(QStringLiteral("redis://127.0.0.1:%1/3").arg(m_server.port()), &p, &error),
                 qPrintable(error));
        QCOMPARE(p.db, 3);
        auto client = connectedClient(p);
        QVERIFY(client);
        QVERIFY(waitForReply(*client, {{"SET", "in:three", "yes"}}).ok());
        const QList<RedisValue> in3 = m_server.pipeline({{"SELECT", "3"}, {"GET", "in:three"}});
        QCOMPARE(in3.size(), 2);
        QCOMPARE(in3.at(1), RedisValue::bulk("yes"));
        QCOMPARE(m_server.command({"EXISTS", "in:three"}), RedisValue::integer(0)); // not in db 0

        // It survives a reconnect.
        m_server.server().kill();
        QString restartError;
        QVERIFY2(m_server.server().restart(&restartError), qPrintable(restartError));
        m_server.pipeline({{"SELECT", "3"}, {"SET", "in:three", "again"}});
        QTRY_VERIFY_WITH_TIMEOUT(
            waitForReply(*client, {{"GET", "in:three"}}, 2000).value() == RedisValue::bulk("again"), 15000);
    }

    void databaseOutOfRange()
    {
        ConnectionProfile p = m_server.profile();
        p.db = 99;
        p.connectTimeoutMs = 300;
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 5000);
        const RedisError e = log.errors.first();
        QVERIFY2(e.message.startsWith(QLatin1String("cannot select database 99: ")), qPrintable(e.message));
        QVERIFY2(e.message.contains(QLatin1String("out of range")), qPrintable(e.message));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), RedisClient::State::Disconnected, 2000);
        QSignalSpy errors(&client, &RedisClient::connectionError);
        QVERIFY(!errors.wait(3 * p.connectTimeoutMs));
        QVERIFY(!log.saw(RedisClient::State::Backoff));
        QVERIFY2(client.stateDetail().contains(QLatin1String("database 99")), qPrintable(client.stateDetail()));
    }

    void authErrorIsNotMistakenForDatabase()
    {
        // AUTH failing with a plain ERR (no password set for the default user) must not be
        // reported as a database problem just because a database was asked for.
        ConnectionProfile p = m_server.profile();
        p.password = QStringLiteral("not-needed");
        p.db = 2;
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 5000);
        const RedisError e = log.errors.first();
        QVERIFY2(e.message.startsWith(QLatin1String("ERR AUTH")), qPrintable(e.message));
        QVERIFY2(!e.message.contains(QLatin1String("database")), qPrintable(e.message));
        QVERIFY(!e.message.contains(p.password));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), RedisClient::State::Disconnected, 2000);
    }

    // A server at maxclients answers the first command with its refusal and closes before the
    // rest: the user reads the server's words, and the client keeps trying (a slot can free).
    void maxClientsRefusalIsQuoted_data()
    {
        QTest::addColumn<int>("db");
        QTest::newRow("db 0") << 0; // the handshake is a lone PING
        QTest::newRow("db 3") << 3; // SELECT then PING: the refusal answers SELECT
    }
    void maxClientsRefusalIsQuoted()
    {
        QFETCH(int, db);
        TestServer server;
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        ConnectionProfile p = server.profile();
        p.db = db;
        RedisClient holder(server.profile());
        holder.connectToServer();
        QVERIFY(waitForReady(holder));
        // Room for the holder only.
        QVERIFY(waitForReply(holder, {{"CONFIG", "SET", "maxclients", "1"}}).ok());
        StateLog log;
        RedisClient client(p);
        track(client, log);
        client.connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(!log.errors.isEmpty(), 5000);
        const QString message = log.errors.first().message;
        QVERIFY2(message.contains(QLatin1String("max number of clients reached")), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("database")), qPrintable(message));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), RedisClient::State::Backoff, 2000);
        // A slot frees: the next attempt gets in.
        QVERIFY(waitForReply(holder, {{"CONFIG", "SET", "maxclients", "100"}}).ok());
        QVERIFY(waitForReady(client, 15000));
    }

    void unixSocket()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("redis.sock"));
        TestServer server(
            {QStringLiteral("--unixsocket"), path, QStringLiteral("--unixsocketperm"), QStringLiteral("700")});
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        ConnectionProfile p;
        QVERIFY2(ConnectionProfile::parseUri(QStringLiteral("unix://%1?db=2").arg(path), &p, &error),
                 qPrintable(error));
        auto client = connectedClient(p);
        QVERIFY2(client, qPrintable(p.displayName()));
        QVERIFY(waitForReply(*client, {{"SET", "over:unix", QByteArrayLiteral("\0bytes")}}).ok());
        const QList<RedisValue> check = server.pipeline({{"SELECT", "2"}, {"GET", "over:unix"}});
        QCOMPARE(check.value(1), RedisValue::bulk(QByteArrayLiteral("\0bytes")));
    }
};

QTEST_MAIN(TstWorker)
#include "tst_worker.moc"
