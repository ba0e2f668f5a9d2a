// SPDX-License-Identifier: GPL-3.0-or-later
// Connecting through Redis Sentinel, on a real primary, replica and three sentinels on loopback
// ports: the primary is found, its replicas and the sentinels are described, a failover is
// followed, and what cannot work says why.
#include "followclock.h"
#include "localserver.h"
#include "redisclient.h"
#include "sentinelresolver.h"
#include "testsentinel.h"
#include "testserver.h"

#include "processrun.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TstSentinel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void findsThePrimary();
    void unknownMasterSaysSo();
    void describesReplicasAndSentinels();
    void headlessShowThroughSentinel();
    void sentinelPasswordIsUsedAndNeverShown();
    void inspectsThroughAReplica();
    void switchMasterIsFollowed();
    void failoverIsFollowed();

private:
    ConnectionProfile profile(const QString &master = QStringLiteral("mymaster")) const
    {
        ConnectionProfile p;
        // A sentinel address nothing listens on comes first: the next one answers.
        p.sentinels = QStringList{QStringLiteral("127.0.0.1:%1").arg(m_deadPort)} + m_setup.sentinelAddresses();
        p.sentinelMaster = master;
        p.host = QStringLiteral("127.0.0.1");
        p.port = 1; // never used: the sentinels say where the primary is
        return p;
    }

    TestSentinel m_setup;
    quint16 m_deadPort = 0;
};

void TstSentinel::initTestCase()
{
    QString error;
    QVERIFY2(m_setup.start(&error), qPrintable(error));
    m_deadPort = LocalServer::freePort();
    m_setup.primary().command({"SET", "greeting", "hello"});
}

void TstSentinel::findsThePrimary()
{
    RedisClient client(profile());
    QSignalSpy ready(&client, &RedisClient::ready);
    client.connectToServer();
    QVERIFY(ready.wait(15000));
    QCOMPARE(client.profile().port, m_setup.primary().port());
    QVERIFY(client.profile().displayName().startsWith(QStringLiteral("mymaster via Sentinel")));
    const RedisReply r = waitForReply(client, {{"GET", "greeting"}, {"ROLE"}});
    QCOMPARE(r.value(0).bytes(), QByteArray("hello"));
    QCOMPARE(r.value(1).at(0).bytes(), QByteArray("master"));
}

void TstSentinel::unknownMasterSaysSo()
{
    RedisClient client(profile(QStringLiteral("nosuch")));
    QSignalSpy failed(&client, &RedisClient::connectionError);
    client.connectToServer();
    QVERIFY(failed.wait(15000));
    const QString message = failed.constFirst().constFirst().value<RedisError>().message;
    QVERIFY2(message.contains(QStringLiteral("no sentinel knows master \"nosuch\"")), qPrintable(message));
    client.disconnectFromServer();
}

void TstSentinel::describesReplicasAndSentinels()
{
    SentinelResolver resolver(profile());
    SentinelReport report;
    bool done = false;
    resolver.describe([&](const SentinelReport &r) {
        report = r;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 15000);
    QVERIFY2(report.error.isEmpty(), qPrintable(report.error));
    QCOMPARE(report.master, QStringLiteral("127.0.0.1:%1").arg(m_setup.primary().port()));
    QCOMPARE(report.replicas.size(), 1);
    QCOMPARE(report.replicas.constFirst().address, QStringLiteral("127.0.0.1:%1").arg(m_setup.replica().port()));
    QVERIFY(report.replicas.constFirst().offset > 0);
    QCOMPARE(report.sentinels.size(), 3);
    for (const auto &s : report.sentinels)
        QVERIFY2(!s.flags.contains("s_down"), s.flags.constData());
}

// `redislens show keys --sentinel … --master …`: the primary's keys; a name no sentinel knows,
// or one flag without the other, exits 2 with the reason.
void TstSentinel::headlessShowThroughSentinel()
{
    QTemporaryDir home;
    const QString sentinels = QStringLiteral("127.0.0.1:%1,").arg(m_deadPort) + m_setup.sentinelAddresses().join(u',');
    const auto show = [&](const QStringList &args) {
        return runProgram(QStringLiteral(REDISLENS_APP_PATH),
                          QStringList{QStringLiteral("show"), QStringLiteral("keys")} + args, 60000,
                          isolatedEnvironment(home.path()));
    };
    const ProcessRun ok
        = show({QStringLiteral("--sentinel"), sentinels, QStringLiteral("--master"), QStringLiteral("mymaster")});
    QVERIFY2(ok.code == 0, ok.err.constData());
    const QJsonArray records = QJsonDocument::fromJson(ok.out).object().value(QStringLiteral("records")).toArray();
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.at(0).toObject().value(QStringLiteral("key")).toString(), QStringLiteral("greeting"));
    const ProcessRun unknown
        = show({QStringLiteral("--sentinel"), sentinels, QStringLiteral("--master"), QStringLiteral("nosuch")});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("no sentinel knows master \"nosuch\""), unknown.err.constData());
    const ProcessRun alone = show({QStringLiteral("--master"), QStringLiteral("mymaster")});
    QCOMPARE(alone.code, 2);
    QVERIFY2(alone.err.contains("--sentinel and --master go together"), alone.err.constData());
}

// Sentinels with a password of their own: REDISLENS_SENTINEL_AUTH gets in, and the password is
// in no output; a wrong one exits 2 with the reason, without either password.
void TstSentinel::sentinelPasswordIsUsedAndNeverShown()
{
    const QString secret = QStringLiteral("sentinel-s3cret-9f2");
    TestSentinel guarded(
        {QStringLiteral("requirepass %1").arg(secret), QStringLiteral("sentinel sentinel-pass %1").arg(secret)});
    QString error;
    QVERIFY2(guarded.start(&error), qPrintable(error));
    guarded.primary().command({"SET", "guarded", "1"});
    QTemporaryDir home;
    const auto show = [&](const QString &password) {
        QProcessEnvironment env = isolatedEnvironment(home.path());
        env.insert(QStringLiteral("REDISLENS_SENTINEL_AUTH"), password);
        return runProgram(QStringLiteral(REDISLENS_APP_PATH),
                          {QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--sentinel"),
                           guarded.sentinelAddresses().join(u','), QStringLiteral("--master"),
                           QStringLiteral("mymaster")},
                          60000, env);
    };
    const ProcessRun ok = show(secret);
    QVERIFY2(ok.code == 0, ok.err.constData());
    QVERIFY(ok.out.contains("guarded"));
    QVERIFY(!ok.out.contains(secret.toUtf8()) && !ok.err.contains(secret.toUtf8()));
    const QString wrong = QStringLiteral("not-the-p4ssword");
    const ProcessRun refused = show(wrong);
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains("no sentinel knows master"), refused.err.constData());
    for (const QString &s : {secret, wrong})
        QVERIFY(!refused.out.contains(s.toUtf8()) && !refused.err.contains(s.toUtf8()));
}

// --sentinel-replica: the connection goes to the master's healthy replica, is read-only there
// (a write is refused before it is sent), and says which replica it reads.
void TstSentinel::inspectsThroughAReplica()
{
    ConnectionProfile p = profile();
    p.sentinelReplica = true;
    RedisClient client(p);
    QVERIFY(client.profile().readOnly);
    client.connectToServer();
    QVERIFY(waitForReady(client, 15000));
    QCOMPARE(client.profile().port, m_setup.replica().port());
    QCOMPARE(waitForReply(client, {{"ROLE"}}).value().at(0).bytes(), QByteArray("slave"));
    QTRY_COMPARE_WITH_TIMEOUT(waitForReply(client, {{"GET", "greeting"}}).value().bytes(), QByteArray("hello"), 10000);
    const RedisReply write = waitForReply(client, {{"SET", "greeting", "changed"}});
    QCOMPARE(write.error.kind, RedisError::Kind::ReadOnlyRefused);
    QCOMPARE(m_setup.primary().command({"GET", "greeting"}).bytes(), QByteArray("hello"));
    QVERIFY2(client.sentinel()->note().startsWith(
                 QStringLiteral("reading replica 127.0.0.1:%1 of mymaster").arg(m_setup.replica().port())),
             qPrintable(client.sentinel()->note()));
    client.disconnectFromServer();
}

// A graceful failover (SENTINEL FAILOVER): the old primary stays up and answers, so only the
// sentinels' +switch-master tells the client; it moves within 5 s of the sentinels' switch.
void TstSentinel::switchMasterIsFollowed()
{
    TestSentinel setup;
    QString error;
    QVERIFY2(setup.start(&error), qPrintable(error));
    QVERIFY(setup.waitForDiscovery());
    ConnectionProfile p;
    p.sentinels = setup.sentinelAddresses();
    p.sentinelMaster = QStringLiteral("mymaster");
    RedisClient client(p);
    client.connectToServer();
    QVERIFY(waitForReady(client, 15000));
    const quint16 oldPrimary = setup.primary().port();
    const quint16 replica = setup.replica().port();
    QCOMPARE(client.profile().port, oldPrimary);
    QTRY_COMPARE_WITH_TIMEOUT(client.sentinel()->watching(), 3, 15000);
    // Replicated before the switch, so that the promoted replica may be chosen.
    setup.primary().command({"SET", "greeting", "hello"});
    QTRY_COMPARE_WITH_TIMEOUT(setup.replica().command({"GET", "greeting"}).bytes(), QByteArray("hello"), 10000);

    RawConnection sentinel(setup.sentinelPorts().first());
    QElapsedTimer clock;
    clock.start();
    const RedisValue started = sentinel.command({"SENTINEL", "FAILOVER", "mymaster"});
    QVERIFY2(started == RedisValue::status("OK"), qPrintable(started.toDisplayString()));
    qint64 switchedMs = -1;
    qint64 followedMs = -1;
    QDeadlineTimer deadline(40000);
    while (!deadline.hasExpired() && (switchedMs < 0 || followedMs < 0)) {
        if (switchedMs < 0 && setup.currentPrimaryPort() == replica)
            switchedMs = clock.elapsed();
        if (followedMs < 0 && client.profile().port == replica && client.state() == RedisClient::State::Ready)
            followedMs = clock.elapsed();
        QTest::qWait(20);
    }
    qInfo("the sentinels switched after %lld ms; the client followed after %lld ms (+switch-master messages: %d)",
          switchedMs, followedMs, client.sentinel()->switchesSeen());
    QVERIFY(switchedMs >= 0);
    QVERIFY2(followedMs >= 0, "the client did not follow the switch");
    QVERIFY2(followedMs - switchedMs <= 5000, "the client took more than 5 s to follow the switch");
    QVERIFY(client.sentinel()->switchesSeen() >= 1);
    QCOMPARE(waitForReply(client, {{"ROLE"}}).value().at(0).bytes(), QByteArray("master"));
    client.disconnectFromServer();
}

// The primary dies; the sentinels promote the replica (their part: down-after plus the
// election) and the client is on the new primary within 5 s of their having done so.
void TstSentinel::failoverIsFollowed()
{
    RedisClient client(profile());
    QSignalSpy ready(&client, &RedisClient::ready);
    client.connectToServer();
    QVERIFY(ready.wait(15000));
    const quint16 oldPrimary = m_setup.primary().port();
    const quint16 replica = m_setup.replica().port();
    QTRY_COMPARE_WITH_TIMEOUT(m_setup.replica().command({"GET", "greeting"}).bytes(), QByteArray("hello"), 10000);
    m_setup.primary().server().stop();
    const FollowTimes t = measureFollow(
        client, {"GET", "greeting"}, [&] { return m_setup.currentPrimaryPort() == replica; },
        [&](const RedisReply &r) {
            return r.ok() && r.value().bytes() == "hello" && client.profile().port == replica;
        });
    const qint64 sentinelsDoneMs = t.serverMs;
    const qint64 clientDoneMs = t.clientMs;
    qInfo("the sentinels promoted the replica after %lld ms; the client followed after %lld ms", sentinelsDoneMs,
          clientDoneMs);
    QVERIFY(sentinelsDoneMs >= 0);
    QVERIFY(clientDoneMs >= 0);
    QVERIFY2(clientDoneMs - sentinelsDoneMs <= 5000, "the client took more than 5 s to follow the failover");
    QVERIFY(client.profile().port != oldPrimary);
    const RedisReply role = waitForReply(client, {{"ROLE"}});
    QCOMPARE(role.value().at(0).bytes(), QByteArray("master"));
}

QTEST_GUILESS_MAIN(TstSentinel)
#include "tst_sentinel.moc"
