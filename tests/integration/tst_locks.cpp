// SPDX-License-Identifier: GPL-3.0-or-later
#include "lockactions.h"
#include "locks.h"
#include "locksreader.h"
#include "patterntestdata.h"
#include "redisclient.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <memory>

// The locks reader and the lock actions against a real server. Locks are taken the way
// production takes them (SET NX PX with a random token), beside the mistakes the panel must
// flag: a lock without TTL, a value "1", a TTL far above its family's. Release and extend act
// only for the holder's token, which an independent connection confirms; a read-only
// connection sends nothing.
namespace {

constexpr int kWaitMs = 15000;

QByteArray token(int i)
{
    return QByteArray("7f3a9c0e5b2d41") + QByteArray::number(1000 + i, 16) + "c8e1";
}

bool runReader(LocksReader &reader)
{
    QSignalSpy refreshed(&reader, &LocksReader::refreshed);
    reader.refresh();
    return !refreshed.isEmpty() || refreshed.wait(kWaitMs);
}

LockActionResult act(LockActions &actions, const std::function<void()> &call)
{
    QSignalSpy done(&actions, &LockActions::finished);
    call();
    if (done.isEmpty() && !done.wait(kWaitMs))
        return {};
    return done.first().first().value<LockActionResult>();
}

} // namespace

class TestLocks : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QList<PatternMatch> m_matches;

    void seed()
    {
        m_server.flushAll();
        QList<QList<QByteArray>> cmds;
        for (int i = 1; i <= 5; ++i)
            cmds.append({"SET", "lock:invoice:" + QByteArray::number(i), token(i), "NX", "PX", "30000"});
        cmds.append({"SET", "lock:invoice:6", token(6), "NX", "PX", "3600000"});
        cmds.append({"SET", "lock:report:daily", token(7), "NX"});
        cmds.append({"SET", "lock:cron:cleanup", "1", "NX", "PX", "60000"});
        cmds.append({"SET", "lock:blob", token(8) + QByteArray(1 << 20, 'x'), "PX", "45000"});
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError() && !v.isNil(), qPrintable(v.toDisplayString()));
        m_matches.clear();
        for (int i = 1; i <= 6; ++i)
            m_matches << patternMatch("lock:invoice:" + QByteArray::number(i), PatternKind::Lock, KeyType::String,
                                      QStringLiteral("lock:invoice:{n}"));
        m_matches << patternMatch("lock:report:daily", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:report:{…}"))
                  << patternMatch("lock:cron:cleanup", PatternKind::Lock, KeyType::String,
                                  QStringLiteral("lock:cron:{…}"))
                  << patternMatch("lock:blob", PatternKind::Lock, KeyType::String, QStringLiteral("lock:{…}"));
        // Not a lock: the reader must ignore other kinds.
        PatternMatch cache
            = patternMatch("app:product:1", PatternKind::Lock, KeyType::String, QStringLiteral("app:product:{n}"));
        cache.kind = PatternKind::CacheEntry;
        m_matches << cache;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void init() { seed(); }

    void tokenLikeness_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("tokenLike");
        QTest::newRow("hex") << QByteArray("3f1c9a0e7b2d4c55") << true;
        QTest::newRow("uuid") << QByteArray("0b6f3c52-9d1e-4a77-8c11-3e2f5a6d7b90") << true;
        QTest::newRow("host:pid:uuid") << QByteArray("web-3:4121:9f2c") << true;
        QTest::newRow("one") << QByteArray("1") << false;
        QTest::newRow("locked") << QByteArray("locked") << false;
        QTest::newRow("true") << QByteArray("true") << false;
        QTest::newRow("repeated") << QByteArray("aaaaaaaaaaaa") << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void tokenLikeness()
    {
        QFETCH(QByteArray, value);
        QFETCH(bool, tokenLike);
        QCOMPARE(lockValueLooksLikeToken(value), tokenLike);
    }

    void loneLockIsComparedWithEveryLock()
    {
        // Alone in its family: a day-long lock beside locks held for seconds is still flagged.
        QCOMPARE(m_server.command({"SET", "lock:import:catalog", token(9), "PX", "86400000"}).bytes(),
                 QByteArray("OK"));
        LocksReader reader(m_client.get());
        QSignalSpy refreshed(&reader, &LocksReader::refreshed);
        reader.setMatches(m_matches << patternMatch("lock:import:catalog", PatternKind::Lock, KeyType::String,
                                                    QStringLiteral("lock:import:catalog")));
        reader.refresh();
        QVERIFY(refreshed.wait(kWaitMs));
        const LockInfo *lone = reader.lock("lock:import:catalog");
        QVERIFY(lone);
        QVERIFY(lone->flags & LockInfo::LongTtl);
        QVERIFY(lone->medianOfAllLocks);
        QVERIFY(lone->flagsText().contains(QLatin1String("far above typical")));
        // A family of its own decides for its members: the invoice locks keep their family's median.
        QVERIFY(!reader.lock("lock:invoice:6")->medianOfAllLocks);
    }

    void readerReadsLocksWithFlags()
    {
        LocksReader reader(m_client.get());
        LocksModel model; // what a panel or redislens show holds: the rows of each read
        QObject::connect(&reader, &LocksReader::locksAvailable, &model,
                         [&model](const QList<LockInfo> &locks) { model.setRows(locks); });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&reader, &LocksReader::refreshed);
        reader.setMatches(m_matches);
        reader.refresh();
        QVERIFY(refreshed.wait(kWaitMs));
        QCOMPARE(reader.matchCount(), 9);
        const QList<LockInfo> &locks = reader.locks();
        QCOMPARE(locks.size(), 9);
        // Most severe first: no TTL, then the long TTL, then the value that is no token.
        QCOMPARE(locks.at(0).key, QByteArray("lock:report:daily"));
        QCOMPARE(locks.at(0).pttlMs, -1);
        QCOMPARE(locks.at(0).flags, quint8(LockInfo::NoTtl));
        QCOMPARE(locks.at(1).key, QByteArray("lock:invoice:6"));
        QVERIFY(locks.at(1).flags & LockInfo::LongTtl);
        QCOMPARE(locks.at(1).familyMedianMs > 25000 && locks.at(1).familyMedianMs <= 30000, true);
        QCOMPARE(locks.at(2).key, QByteArray("lock:cron:cleanup"));
        QCOMPARE(locks.at(2).flags, quint8(LockInfo::NotTokenLike));
        QCOMPARE(locks.at(2).value, QByteArray("1"));
        for (int i = 3; i < locks.size(); ++i)
            QCOMPARE(locks.at(i).flags, quint8(0));

        const LockInfo *inv = reader.lock("lock:invoice:3");
        QVERIFY(inv);
        QCOMPARE(inv->value, token(3));
        QVERIFY(inv->pttlMs > 20000 && inv->pttlMs <= 30000);
        QCOMPARE(inv->family, QStringLiteral("lock:invoice:{n}"));
        // A 1 MiB value: only the first bytes travel, the length is known.
        const LockInfo *blob = reader.lock("lock:blob");
        QVERIFY(blob);
        QCOMPARE(blob->value.size(), LocksReader::kValueBytes);
        QCOMPARE(blob->valueLength, token(8).size() + (1 << 20));
        QVERIFY(blob->value.startsWith(token(8)));

        // The model shows the escaped key, the token, a countdown and the flags.
        QCOMPARE(model.index(0, LocksModel::ResourceColumn).data().toString(), QStringLiteral("lock:report:daily"));
        QCOMPARE(model.index(0, LocksModel::RemainingColumn).data().toString(), QStringLiteral("no TTL"));
        QCOMPARE(model.index(0, LocksModel::FlagsColumn).data().toString(), QStringLiteral("no TTL"));
        QCOMPARE(model.index(0, 0).data(LocksModel::SeverityRole).toInt(), int(Severity::Bad));
        const int row = model.rowOf("lock:invoice:3");
        QCOMPARE(model.index(row, LocksModel::TokenColumn).data().toString(), QString::fromLatin1(token(3)));
        const qint64 readAt = inv->readAtMs;
        model.setNow(readAt + 10000);
        const QString later = model.index(row, LocksModel::RemainingColumn).data().toString();
        model.setNow(readAt);
        const QString now = model.index(row, LocksModel::RemainingColumn).data().toString();
        QVERIFY2(later != now && later.endsWith(QLatin1String(" s")), qPrintable(now + QLatin1String(" / ") + later));
    }

    void disappearedLockShownAsReleasedThenDropped()
    {
        LocksReader reader(m_client.get());
        LocksModel model;
        QObject::connect(&reader, &LocksReader::locksAvailable, &model,
                         [&model](const QList<LockInfo> &locks) { model.setRows(locks); });
        QSignalSpy refreshed(&reader, &LocksReader::refreshed);
        reader.setMatches(m_matches);
        reader.refresh();
        QVERIFY(refreshed.wait(kWaitMs));
        QVERIFY(reader.lock("lock:invoice:2"));
        QCOMPARE(m_server.command({"DEL", "lock:invoice:2"}).toInteger(), 1);
        QVERIFY(runReader(reader));
        const LockInfo *gone = reader.lock("lock:invoice:2");
        QVERIFY(gone);
        QVERIFY(gone->released);
        QCOMPARE(reader.locks().last().key, QByteArray("lock:invoice:2"));
        QCOMPARE(model.index(model.rowOf("lock:invoice:2"), LocksModel::RemainingColumn).data().toString(),
                 QStringLiteral("released"));
        QVERIFY(runReader(reader));
        QVERIFY(!reader.lock("lock:invoice:2"));
        QCOMPARE(reader.locks().size(), 8);
        // Taken again by someone else: back, as an ordinary lock.
        m_server.command({"SET", "lock:invoice:2", token(42), "NX", "PX", "30000"});
        QVERIFY(runReader(reader));
        QVERIFY(reader.lock("lock:invoice:2"));
        QVERIFY(!reader.lock("lock:invoice:2")->released);
    }

    void releaseNeedsTheHoldersToken()
    {
        RawConnection raw(m_server.port());
        LockActions actions(m_client.get());
        LockActionResult r = act(actions, [&] { actions.release("lock:invoice:1", "not-the-token-123"); });
        QVERIFY(!r.done);
        QVERIFY(!r.refused);
        QCOMPARE(r.message, QStringLiteral("refused: the lock is held by another token or gone"));
        QCOMPARE(raw.command({"GET", "lock:invoice:1"}).bytes(), token(1));

        r = act(actions, [&] { actions.release("lock:invoice:1", token(1)); });
        QVERIFY2(r.done, qPrintable(r.message));
        QVERIFY(r.message.startsWith(QLatin1String("released")));
        QCOMPARE(raw.command({"EXISTS", "lock:invoice:1"}).toInteger(), 0);

        // Gone: the same token refuses now.
        r = act(actions, [&] { actions.release("lock:invoice:1", token(1)); });
        QVERIFY(!r.done);
        // A "1" lock is released by anyone who guesses "1": the reason the panel flags it.
        r = act(actions, [&] { actions.release("lock:cron:cleanup", "1"); });
        QVERIFY(r.done);
    }

    void extendOnlyForTheHolder()
    {
        RawConnection raw(m_server.port());
        LockActions actions(m_client.get());
        const qint64 before = raw.command({"PTTL", "lock:invoice:4"}).toInteger();
        QVERIFY(before > 0 && before <= 30000);
        LockActionResult r = act(actions, [&] { actions.extend("lock:invoice:4", token(5), 600000); });
        QVERIFY(!r.done);
        QCOMPARE(r.message, QStringLiteral("refused: the lock is held by another token or gone"));
        QVERIFY(raw.command({"PTTL", "lock:invoice:4"}).toInteger() <= before);

        r = act(actions, [&] { actions.extend("lock:invoice:4", token(4), 600000); });
        QVERIFY2(r.done, qPrintable(r.message));
        const qint64 after = raw.command({"PTTL", "lock:invoice:4"}).toInteger();
        QVERIFY2(after > 590000 && after <= 600000, qPrintable(QString::number(after)));
        QCOMPARE(raw.command({"GET", "lock:invoice:4"}).bytes(), token(4));

        // A bad TTL is refused before anything is sent.
        r = act(actions, [&] { actions.extend("lock:invoice:4", token(4), 0); });
        QVERIFY(r.refused);
    }

    void readOnlyConnectionSendsNothing()
    {
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        std::unique_ptr<RedisClient> client = connectedClient(profile);
        QVERIFY(client);
        RawConnection raw(m_server.port());
        raw.command({"CONFIG", "RESETSTAT"});
        LockActions actions(client.get());
        QVERIFY(actions.isReadOnly());
        QSignalSpy done(&actions, &LockActions::finished);
        actions.release("lock:invoice:3", token(3));
        actions.extend("lock:invoice:3", token(3), 600000);
        QCOMPARE(done.size(), 2); // refused on the spot, not after a round trip
        for (const QList<QVariant> &args : std::as_const(done)) {
            const auto r = args.first().value<LockActionResult>();
            QVERIFY(r.refused);
            QCOMPARE(r.message, QStringLiteral("Refused: the connection is read-only"));
        }
        QCOMPARE(raw.command({"GET", "lock:invoice:3"}).bytes(), token(3));
        const QByteArray stats = raw.command({"INFO", "commandstats"}).bytes();
        QVERIFY2(!stats.contains("cmdstat_eval") && !stats.contains("cmdstat_script"), stats.constData());
    }

    void noPermissionIsOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "inspector", {"pttl"});
        QVERIFY(client);
        LocksReader reader(client.get());
        const QString message = firstFailure(reader, m_matches, kWaitMs);
        QVERIFY2(isOneLinePermissionError(message), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestLocks)
#include "tst_locks.moc"
