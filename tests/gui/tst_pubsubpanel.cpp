// SPDX-License-Identifier: GPL-3.0-or-later
// The pub/sub panel against real subscribers and publishers on a real server: redis-cli
// subscriber processes give the channels and counts PUBSUB says; a raw socket that subscribes
// and never reads while 50 MB are published is flagged before the server cuts it; the live tail
// shows, decodes, masks, filters, pauses and copies messages; its bound holds under
// redis-benchmark publishing as fast as it can, with this process's resident memory measured;
// publishing is confirmed, and refused on a read-only connection (INFO commandstats); keyspace
// notifications are explained and tailed.
#include "commandstats.h"
#include "confirmations.h"
#include "masking.h"
#include "panelparts.h"
#include "processrun.h"
#include "pubsublistener.h"
#include "pubsubpanel.h"
#include "pubsubreader.h"
#include "qcp.h"
#include "redisclient.h"
#include "screenshots.h"
#include "testserver.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QUuid>
#include <arpa/inet.h>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace {
constexpr int kWaitMs = 20000;

// This process's resident memory, from /proc (bytes).
qint64 residentBytes()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong() * 1024;
    }
    return -1;
}

QStringList column(const QAbstractItemModel *model, int col)
{
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, col).data().toString();
    return out;
}
} // namespace

class TstPubSubPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::vector<std::unique_ptr<QProcess>> m_subscribers;
    int m_stalled = -1;

    void subscribe(const QStringList &command)
    {
        auto p = startRedisCli(m_server.port(), command);
        QVERIFY(p);
        m_subscribers.push_back(std::move(p));
    }

    std::unique_ptr<RedisClient> client(bool readOnly = false)
    {
        ConnectionProfile p = m_server.profile();
        p.readOnly = readOnly;
        return connectedClient(p);
    }

    static bool read(PubSubPanel &panel)
    {
        QSignalSpy spy(panel.reader(), &PubSubReader::snapshotAvailable);
        panel.reader()->read();
        return spy.wait(kWaitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        RawConnection raw(m_server.port());
        subscribe({QStringLiteral("SUBSCRIBE"), QStringLiteral("orders")});
        subscribe({QStringLiteral("SUBSCRIBE"), QStringLiteral("orders"), QStringLiteral("audit")});
        subscribe({QStringLiteral("PSUBSCRIBE"), QStringLiteral("jobs.*")});
        QTRY_VERIFY_WITH_TIMEOUT(raw.command({"PUBSUB", "NUMSUB", "orders"}).at(1).toInteger() == 2
                                     && raw.command({"PUBSUB", "NUMPAT"}).toInteger() == 1,
                                 10000);
    }

    void cleanupTestCase()
    {
        for (auto &p : m_subscribers) {
            p->kill();
            p->waitForFinished();
        }
        if (m_stalled >= 0)
            ::close(m_stalled);
    }

    // The channels table holds what PUBSUB CHANNELS and NUMSUB say; the pattern count NUMPAT.
    void channelsFromTheServer()
    {
        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));
        const QAbstractItemModel *channels = panel.channelsView()->model();
        QAbstractItemModelTester tester(panel.channelsView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        RawConnection raw(m_server.port());
        const QStringList names = column(channels, 0);
        QVERIFY2(names.contains(QStringLiteral("orders")) && names.contains(QStringLiteral("audit")),
                 qPrintable(names.join(u' ')));
        for (int r = 0; r < channels->rowCount(); ++r) {
            const QByteArray name = channels->index(r, 0).data().toString().toUtf8();
            QCOMPARE(channels->index(r, 2).data().toString().toLongLong(),
                     raw.command({"PUBSUB", "NUMSUB", name}).at(1).toInteger());
        }
        const QString status = panel.statusLabel()->text();
        QVERIFY2(status.contains(QLatin1String("1 pattern subscription")), qPrintable(status));
        // Polled only while shown.
        panel.setActive(false);
        const qint64 before = commandCalls(raw, {"pubsub|channels"});
        QTest::qWait(3500);
        QCOMPARE(commandCalls(raw, {"pubsub|channels"}), before);
    }

    // A subscriber that never reads while 50 MB are published: flagged (over the soft limit)
    // with a bad badge before the server cuts it at the hard limit.
    void stalledSubscriberFlagged()
    {
        RawConnection raw(m_server.port());
        raw.command({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 96mb 24mb 60"});
        m_stalled = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(m_stalled >= 0);
        int small = 4096; // the kernel buffers a little; the server holds the rest
        ::setsockopt(m_stalled, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(m_server.port());
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::connect(m_stalled, reinterpret_cast<const sockaddr *>(&to), sizeof to), 0);
        const QByteArray hello = "*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nflood\r\n";
        QCOMPARE(::send(m_stalled, hello.constData(), size_t(hello.size()), 0), ssize_t(hello.size()));
        QTRY_COMPARE_WITH_TIMEOUT(raw.command({"PUBSUB", "NUMSUB", "flood"}).at(1).toInteger(), qint64(1), 10000);
        const QByteArray chunk(64 * 1024, 'm');
        QList<QList<QByteArray>> publishes;
        for (int i = 0; i < 50 * 1024 * 1024 / chunk.size(); ++i)
            publishes.append({"PUBLISH", "flood", chunk});
        raw.pipeline(publishes);

        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        panel.resize(1200, 900);
        panel.show();
        panel.setActive(true);
        QVERIFY(read(panel));
        const QAbstractItemModel *slow = panel.slowView()->model();
        QVERIFY2(slow->rowCount() >= 1, qPrintable(panel.findChild<QLabel *>(QStringLiteral("slowLabel"))->text()));
        QVERIFY(panel.slowView()->isVisible());
        const QString verdict = slow->index(0, 3).data().toString();
        QVERIFY2(verdict.contains(QLatin1String("soft limit")), qPrintable(verdict));
        QVERIFY2(slow->index(0, 2).data().toString().contains(QLatin1String("MiB")),
                 qPrintable(slow->index(0, 2).data().toString()));
        QCOMPARE(panel.badgeSeverity(), Severity::Bad);
        QVERIFY(panel.badgeCount() >= 1);
        const QString shots = screenshots::directory();
        QVERIFY(panel.grab().toImage().save(shots + QStringLiteral("/pubsub-slow.png")));
        // Let the server cut it now, so the tests after this one start clean.
        ::close(m_stalled);
        m_stalled = -1;
        raw.command({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60"});
    }

    // The tail: messages from a real publisher, each channel's rate, decoding and masking in the
    // row and in the detail, reveal, filter, pause and resume, copy.
    void tailShowsDecodesAndMasks()
    {
        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        panel.resize(1200, 900);
        panel.show();
        panel.setActive(true);
        QAbstractItemModelTester tester(panel.messagesView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy state(panel.listener(), &PubSubListener::stateChanged);
        panel.listen(QStringLiteral("orders jobs.*"));
        QVERIFY(state.wait(kWaitMs));
        QVERIFY2(state.last().at(0).toString().contains(QLatin1String("1 channel, 1 pattern")),
                 qPrintable(state.last().at(0).toString()));
        RawConnection raw(m_server.port());
        // The secrets are random markers, so that a test shows them only where they were revealed.
        const QString password = QUuid::createUuid().toString(QUuid::WithoutBraces).left(13);
        const QString token = QUuid::createUuid().toString(QUuid::WithoutBraces).left(13);
        // zlib-compressed JSON as Python's zlib writes it, holding a secret.
        QProcess py;
        py.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import sys, zlib, json; sys.stdout.buffer.write(zlib.compress("
                                 "json.dumps({'order': 7, 'api_token': sys.argv[1]}).encode()))"),
                  token});
        QVERIFY(py.waitForFinished(20000));
        const QByteArray compressed = py.readAllStandardOutput();
        QVERIFY(compressed.startsWith("\x78"));
        QCOMPARE(
            raw.command({"PUBLISH", "orders", R"({"id":1,"password":")" + password.toUtf8() + R"("})"}).toInteger(), 3);
        QVERIFY(raw.command({"PUBLISH", "jobs.email", "send"}).toInteger() >= 2);
        QVERIFY(raw.command({"PUBLISH", "orders", compressed}).toInteger() >= 3);
        for (int i = 0; i < 20; ++i)
            raw.command({"PUBLISH", "jobs.report", "r" + QByteArray::number(i)});
        const QAbstractItemModel *messages = panel.messagesView()->model();
        QTRY_COMPARE_WITH_TIMEOUT(messages->rowCount(), 23, kWaitMs);
        QCOMPARE(messages->index(0, 1).data().toString(), QStringLiteral("orders"));
        QCOMPARE(messages->index(1, 2).data().toString(), QStringLiteral("jobs.*"));
        // Masked in the row: the secret-named key, and the secret inside what decodes.
        const QString first = messages->index(0, 4).data().toString();
        QVERIFY2(!first.contains(password) && first.contains(QLatin1String(R"({"id":1,"password":)")),
                 qPrintable(first));
        QVERIFY2(!messages->index(2, 4).data().toString().contains(token),
                 qPrintable(messages->index(2, 4).data().toString()));
        // The detail decodes: zlib → JSON, the token masked until revealed.
        panel.messagesView()->setCurrentIndex(messages->index(2, 0));
        QString detail = panel.detail()->toPlainText();
        QVERIFY2(detail.contains(QLatin1String("zlib")) && detail.contains(QLatin1String("order: 7"))
                     && !detail.contains(token) && detail.contains(QLatin1String("1 secret masked")),
                 qPrintable(detail));
        const QString shots = screenshots::directory();
        QVERIFY(panel.grab().toImage().save(shots + QStringLiteral("/pubsub.png")));
        theme::apply(theme::Theme::Dark);
        QCoreApplication::processEvents();
        QVERIFY(panel.grab().toImage().save(shots + QStringLiteral("/pubsub-dark.png")));
        theme::apply(theme::Theme::Light);
        panel.findChild<QCheckBox *>(QStringLiteral("revealMessages"))->setChecked(true);
        detail = panel.detail()->toPlainText();
        QVERIFY2(detail.contains(token), qPrintable(detail));
        QVERIFY(messages->index(0, 4).data().toString().contains(password));
        panel.findChild<QCheckBox *>(QStringLiteral("revealMessages"))->setChecked(false);

        // Rates per channel, busiest first.
        const QAbstractItemModel *rates = panel.ratesView()->model();
        QTRY_VERIFY_WITH_TIMEOUT(rates->rowCount() == 3, kWaitMs);
        QCOMPARE(column(rates, 0).first(), QStringLiteral("jobs.report"));
        QCOMPARE(rates->index(0, 2).data().toString(), QStringLiteral("20"));

        // Copy takes what the table shows: masked.
        panel.messagesView()->selectRow(0);
        const QString copied = panel.selectedMessagesText();
        QVERIFY2(copied.contains(QLatin1String("orders")) && !copied.contains(password), qPrintable(copied));

        // The filter narrows the table, not the tail.
        panel.setFilter(QStringLiteral("report"));
        QCOMPARE(messages->rowCount(), 20);
        panel.setFilter(QString());
        QCOMPARE(messages->rowCount(), 23);

        // Paused: the table stands still while messages are still received; resumed, they show.
        panel.setPaused(true);
        for (int i = 0; i < 5; ++i)
            raw.command({"PUBLISH", "orders", "late"});
        QTRY_COMPARE_WITH_TIMEOUT(panel.tail().received(), qint64(28), kWaitMs);
        QTest::qWait(400);
        QCOMPARE(messages->rowCount(), 23);
        QVERIFY(panel.tailStatusLabel()->text().contains(QLatin1String("paused")));
        panel.setPaused(false);
        QCOMPARE(messages->rowCount(), 28);

        // A reconnect subscribes again.
        QSignalSpy again(panel.listener(), &PubSubListener::stateChanged);
        raw.command({"CLIENT", "KILL", "TYPE", "pubsub", "SKIPME", "yes"});
        // the redis-cli subscribers went too: only the tail comes back
        QTRY_VERIFY_WITH_TIMEOUT(raw.command({"PUBSUB", "NUMSUB", "orders"}).at(1).toInteger() == 1, kWaitMs);
        QCOMPARE(raw.command({"PUBLISH", "orders", "after"}).toInteger(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(messages->rowCount(), 29, kWaitMs);
        panel.stopListening();
        QTRY_COMPARE_WITH_TIMEOUT(raw.command({"PUBSUB", "NUMSUB", "orders"}).at(1).toInteger(), qint64(0), kWaitMs);
        for (auto &p : m_subscribers)
            p->kill();
    }

    // redis-benchmark publishing a million messages, eight in flight (about 100,000 a second on
    // two cores, more on a faster machine), into a tail bounded at 16 MiB: the tail holds its bound, drops the oldest,
    // and this process grows by at most the bound plus 20 MB.
    void boundHoldsUnderAFlood()
    {
        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        panel.resize(1200, 900);
        panel.show();
        panel.setActive(true);
        constexpr qint64 kBound = qint64(16) << 20;
        panel.setBound(1000000, kBound);
        QSignalSpy state(panel.listener(), &PubSubListener::stateChanged);
        panel.listen(QStringLiteral("flood"));
        QVERIFY(state.wait(kWaitMs));
        const qint64 before = residentBytes();
        QVERIFY(before > 0);
        QProcess bench;
        // Under a sanitizer everything runs several times slower and memory is shadowed and held
        // in quarantine: fewer messages, and resident memory is reported, not held to the target.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        constexpr int kMessages = 200000;
        constexpr bool kMeasuresMemory = false;
#else
        constexpr int kMessages = 1000000;
        constexpr bool kMeasuresMemory = true;
#endif
        bench.start(QStringLiteral("redis-benchmark"),
                    {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                     QString::number(m_server.port()), QStringLiteral("-n"), QString::number(kMessages),
                     QStringLiteral("-c"), QStringLiteral("1"), QStringLiteral("-P"), QStringLiteral("8"),
                     QStringLiteral("-q"), QStringLiteral("PUBLISH"), QStringLiteral("flood"),
                     QStringLiteral("order:__rand_int__:{\"sku\":\"A-100\",\"qty\":3,\"note\":\"padding to a "
                                    "typical event size of about one hundred bytes\"}")});
        QVERIFY(bench.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        qint64 peak = before;
        while (bench.state() != QProcess::NotRunning && clock.elapsed() < 120000) {
            QTest::qWait(50);
            peak = qMax(peak, residentBytes());
            QVERIFY2(panel.tail().bytes() <= kBound, qPrintable(QString::number(panel.tail().bytes())));
        }
        const double seconds = clock.elapsed() / 1000.0;
        QVERIFY(bench.waitForFinished(1000) || bench.state() == QProcess::NotRunning);
        QVERIFY2(bench.exitStatus() == QProcess::NormalExit && bench.exitCode() == 0,
                 bench.readAllStandardError().constData());
        qInfo("redis-benchmark: %s", bench.readAllStandardOutput().trimmed().constData());
        // The rest of what the worker read: the tail stops growing.
        qint64 seen = -1;
        while (seen != panel.tail().received() + panel.tail().droppedBeforeTail()) {
            seen = panel.tail().received() + panel.tail().droppedBeforeTail();
            QTest::qWait(500);
            peak = qMax(peak, residentBytes());
        }
        const double rate = kMessages / seconds;
        qInfo("published %d messages in %.1f s (%.0f/s); the tail saw %lld (lost its connection %d times), kept "
              "%zu (%s), dropped %lld; resident +%.1f MiB",
              kMessages, seconds, rate, seen, panel.listener()->interruptions(), panel.tail().messages().size(),
              qPrintable(QString::number(panel.tail().bytes() / 1048576.0, 'f', 1) + QStringLiteral(" MiB")),
              panel.tail().dropped(), (peak - before) / 1048576.0);
        QVERIFY(panel.tail().dropped() > 0);
        QVERIFY(panel.tail().bytes() <= kBound);
        QVERIFY2(!kMeasuresMemory || peak - before <= kBound + 20 * 1000 * 1000,
                 qPrintable(QStringLiteral("resident grew by %1 MiB").arg((peak - before) / 1048576.0)));
        // Every message was received, unless the server cut the connection (a machine too busy to
        // read as fast as it publishes): then the panel says so.
        if (seen < kMessages)
            QVERIFY2(panel.listener()->interruptions() > 0
                         && panel.tailStatusLabel()->text().contains(QLatin1String("was missed")),
                     qPrintable(panel.tailStatusLabel()->text()));
        // Newest kept.
        QVERIFY(panel.tail().messages().back().payload.startsWith("order:"));
        panel.stopListening();
    }

    // Publishing: confirmed on a writable connection (Cancel sends nothing), refused on a
    // read-only one with no PUBLISH reaching the server.
    void publishConfirmedAndRefusedReadOnly()
    {
        RawConnection raw(m_server.port());
        {
            auto ro = client(true);
            QVERIFY(ro);
            PubSubPanel panel(ro.get());
            panel.show();
            QVERIFY(!panel.publishButton()->isEnabled());
            QVERIFY(panel.publishButton()->toolTip().contains(QLatin1String("read-only"), Qt::CaseInsensitive));
            const qint64 before = commandCalls(raw, {"publish"});
            ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
            QVERIFY(!panel.publishTestMessage("orders", "x"));
            QCOMPARE(answer.count(), 0);
            QVERIFY(panel.tailStatusLabel()->text().contains(QLatin1String("read-only")));
            // The tail itself works read-only: subscribing changes nothing.
            QSignalSpy state(panel.listener(), &PubSubListener::stateChanged);
            panel.listen(QStringLiteral("orders"));
            QVERIFY(state.wait(kWaitMs));
            QVERIFY2(state.last().at(0).toString().startsWith(QLatin1String("Subscribed")),
                     qPrintable(state.last().at(0).toString()));
            QCOMPARE(commandCalls(raw, {"publish"}), before);
        }
        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        panel.show();
        QSignalSpy state(panel.listener(), &PubSubListener::stateChanged);
        panel.listen(QStringLiteral("orders"));
        QVERIFY(state.wait(kWaitMs));
        const qint64 before = commandCalls(raw, {"publish"});
        ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
        QVERIFY(!panel.publishTestMessage("orders", "hello"));
        QCOMPARE(answer.count(), 1);
        QVERIFY2(answer.text().contains(QLatin1String("orders")), qPrintable(answer.text()));
        QCOMPARE(commandCalls(raw, {"publish"}), before);
        answer.setAnswer(ConfirmationAnswerer::Accept);
        QVERIFY(panel.publishTestMessage("orders", "hello"));
        QTRY_VERIFY_WITH_TIMEOUT(
            panel.tailStatusLabel()->text().contains(QLatin1String("Published to orders: received by")), kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(panel.tail().received(), qint64(1), kWaitMs);
        QCOMPARE(commandCalls(raw, {"publish"}), before + 1);
    }

    // notify-keyspace-events explained; off: nothing to tail; on: key events arrive in the tail.
    void keyspaceNotifications()
    {
        RawConnection raw(m_server.port());
        raw.command({"CONFIG", "SET", "notify-keyspace-events", ""});
        auto c = client();
        QVERIFY(c);
        PubSubPanel panel(c.get());
        panel.show();
        panel.setActive(true);
        QVERIFY(read(panel));
        QVERIFY2(panel.keyspaceLabel()->text().contains(QLatin1String("off")),
                 qPrintable(panel.keyspaceLabel()->text()));
        auto *tailKeys = panel.findChild<QPushButton *>(QStringLiteral("tailKeyEvents"));
        QVERIFY(!tailKeys->isEnabled());
        raw.command({"CONFIG", "SET", "notify-keyspace-events", "KA"});
        QVERIFY(read(panel));
        QVERIFY2(panel.keyspaceLabel()->text().contains(QLatin1String("AK"))
                     && !panel.keyspaceLabel()->text().contains(QLatin1String("would turn")),
                 qPrintable(panel.keyspaceLabel()->text()));
        QVERIFY(panel.keyspaceLabel()->toolTip().contains(QLatin1String("x on")));
        QVERIFY(tailKeys->isEnabled());
        QSignalSpy state(panel.listener(), &PubSubListener::stateChanged);
        tailKeys->click();
        QVERIFY(state.wait(kWaitMs));
        raw.command({"SET", "cart:9", "1"});
        raw.command({"DEL", "cart:9"});
        const QAbstractItemModel *messages = panel.messagesView()->model();
        QTRY_COMPARE_WITH_TIMEOUT(messages->rowCount(), 2, kWaitMs);
        QCOMPARE(messages->index(0, 1).data().toString(), QStringLiteral("__keyspace@0__:cart:9"));
        QCOMPARE(messages->index(0, 4).data().toString(), QStringLiteral("set"));
        QCOMPARE(messages->index(1, 4).data().toString(), QStringLiteral("del"));
        raw.command({"CONFIG", "SET", "notify-keyspace-events", ""});
    }
};

QTEST_MAIN(TstPubSubPanel)
#include "tst_pubsubpanel.moc"
