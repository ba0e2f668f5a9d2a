// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandstats.h"
#include "confirmations.h"
#include "panelparts.h"
#include "qcp.h"
#include "redisclient.h"
#include "screenshots.h"
#include "scriptlibrary.h"
#include "streamactions.h"
#include "streamspanel.h"
#include "streamsreader.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <memory>

// The streams panel offscreen on a real server: it lists the streams, opens the stream with
// the oldest pending entry, shows its groups, pending rows and a labelled idle histogram, and
// acts on a selection. Set REDISLENS_SCREENSHOT_DIR to keep its screenshot (streams.png).
namespace {

constexpr int kWaitMs = 30000;

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

} // namespace

class TestStreamsPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;

    qint64 serverPendingCount() { return m_server.command({"XPENDING", "events:orders", "billing"}).at(0).toInteger(); }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        // A realistic shape: an orders stream read by a billing group with two workers, some
        // entries stuck for a while and a few redelivered over and over; a second, quiet stream.
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 400; ++i)
            cmds.append({"XADD", "events:orders", "*", "order_id", QByteArray::number(50000 + i), "customer",
                         "cust:" + QByteArray::number(i % 37), "total",
                         QByteArray::number(10 + (i * 7) % 300) + ".90"});
        for (int i = 0; i < 60; ++i)
            cmds.append({"XADD", "events:audit", "*", "who", "admin", "what", "login"});
        cmds.append({"XGROUP", "CREATE", "events:orders", "billing", "0"});
        cmds.append({"XGROUP", "CREATE", "events:orders", "shipping", "$"});
        cmds.append({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "60", "STREAMS", "events:orders", ">"});
        cmds.append({"XREADGROUP", "GROUP", "billing", "worker-2", "COUNT", "60", "STREAMS", "events:orders", ">"});
        m_server.pipeline(cmds);
        const QList<PendingEntry> pel = [&] {
            QList<PendingEntry> p;
            streaminfo::parsePending(m_server.command({"XPENDING", "events:orders", "billing", "-", "+", "1000"}), &p);
            return p;
        }();
        QCOMPARE(pel.size(), 120);
        // Idle times spread over seconds to days; every 15th redelivered 6-12 times.
        const qint64 idles[] = {3000, 25000, 90000, 420000, 1800000, 7200000, 172800000};
        QList<QList<QByteArray>> claims;
        for (int i = 0; i < pel.size(); ++i) {
            QList<QByteArray> c{"XCLAIM", "events:orders", "billing", pel.at(i).consumer,
                                "0",      pel.at(i).id,    "IDLE",    QByteArray::number(idles[(i * 5) % 7] + i * 100)};
            if (i % 15 == 0)
                c << "RETRYCOUNT" << QByteArray::number(6 + i % 7);
            c << "JUSTID";
            claims.append(c);
        }
        m_server.pipeline(claims);
        m_server.command({"XACK", "events:orders", "billing", pel.at(4).id, pel.at(70).id});
        m_server.command({"XDEL", "events:orders", pel.at(8).id});
        m_client = connectedClient(m_server.profile());
        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    void showsStreamGroupsPendingAndHistogram()
    {
        StreamsPanel panel(m_client.get());
        panel.setConfirmations(false);
        panel.resize(1400, 820);
        panel.show();
        QAbstractItemModelTester t1(panel.streamsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(panel.pendingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setActive(true);
        panel.setStreams({"events:audit", "events:orders"});
        QVERIFY(ready.wait(kWaitMs));
        QVERIFY(panel.hasContent());
        QSignalSpy streamsAvail(panel.reader(), &StreamsReader::streamsAvailable);
        QTRY_VERIFY_WITH_TIMEOUT(panel.streamsModel()->rowCount() == 2 && panel.streamsModel()->rows().at(1).loaded,
                                 kWaitMs);
        panel.openOldestPending();
        QTRY_COMPARE_WITH_TIMEOUT(panel.reader()->stream(), QByteArray("events:orders"), kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(panel.reader()->group(), QByteArray("billing"), kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(panel.pendingModel()->rowCount(), 50, kWaitMs);
        QCOMPARE(panel.groupsModel()->rowCount(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(panel.consumersModel()->rowCount(), 2, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(panel.reader()->pendingSample().size(), qsizetype(118), kWaitMs);

        // Histogram: bars for every pending entry, both axes labelled.
        QCustomPlot *h = panel.histogramPlot();
        auto *bars = qobject_cast<QCPBars *>(h->plottable(0));
        QVERIFY(bars);
        double total = 0;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            total += it->value;
        QCOMPARE(total, 118.0);
        QVERIFY(!h->xAxis->label().isEmpty());
        QVERIFY(!h->yAxis->label().isEmpty());
        QVERIFY(panel.pendingModel()->poisonCount() > 0);
        QCOMPARE(panel.badgeCount(), panel.pendingModel()->poisonCount());
        QCOMPARE(panel.badgeSeverity(), Severity::Bad);

        // Two XLEN samples make a sparkline.
        QSignalSpy sampled(panel.reader(), &StreamsReader::lengthsSampled);
        panel.reader()->sampleLengths();
        QVERIFY(sampled.wait(kWaitMs));
        QTRY_VERIFY_WITH_TIMEOUT(panel.sparklinePlot()->graph(0)->dataCount() >= 2, kWaitMs);

        // Select a poison entry: its fields appear.
        PendingModel *pm = panel.pendingModel();
        int poisonRow = -1;
        for (int r = 0; r < pm->rowCount() && poisonRow < 0; ++r)
            poisonRow = pm->isPoison(r) ? r : -1;
        QVERIFY(poisonRow >= 0);
        QSignalSpy entry(panel.reader(), &StreamsReader::entryLoaded);
        panel.pendingView()->selectRow(poisonRow);
        QVERIFY(entry.wait(kWaitMs));
        QVERIFY(!entry.last().at(1).value<StreamEntry>().isNull());

        const QImage image = panel.grab().toImage();
        QVERIFY(!image.isNull());
        QVERIFY(distinctColours(image) > 20);
        QVERIFY(distinctColours(h->grab().toImage()) > 3);
        QVERIFY(screenshots::save(image, QStringLiteral("streams.png")));
    }

    void ackFromPanelChangesServer()
    {
        StreamsPanel panel(m_client.get());
        panel.setConfirmations(false);
        panel.setStreams({"events:orders"});
        panel.openStream("events:orders");
        QTRY_COMPARE_WITH_TIMEOUT(panel.reader()->group(), QByteArray("billing"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(panel.pendingModel()->rowCount() > 0, kWaitMs);
        const qint64 before = serverPendingCount();
        const QByteArray id = panel.pendingModel()->rows().at(0).id;
        panel.pendingView()->selectRow(0);
        QSignalSpy finished(panel.actions(), &StreamActions::finished);
        panel.ackSelected();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(serverPendingCount(), before - 1);
        QVERIFY(m_server.command({"XPENDING", "events:orders", "billing", id, id, "1"}).elements().isEmpty());
        // The page is reloaded without it.
        QTRY_VERIFY_WITH_TIMEOUT(panel.pendingModel()->rowCount() > 0 && panel.pendingModel()->rows().at(0).id != id,
                                 kWaitMs);
    }

    void readOnlyDisablesActions()
    {
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient client(profile);
        client.connectToServer();
        QVERIFY(waitForReady(client));
        StreamsPanel panel(&client);
        panel.setConfirmations(false);
        const QList<QPushButton *> buttons = panel.findChildren<QPushButton *>();
        int disabled = 0;
        for (QPushButton *b : buttons) {
            if (b->text() == QLatin1String("Acknowledge") || b->text() == QLatin1String("Trim")
                || b->text() == QLatin1String("Claim"))
                disabled += b->isEnabled() ? 0 : 1;
        }
        QCOMPARE(disabled, 3);
        panel.setStreams({"events:orders"});
        panel.openStream("events:orders");
        QTRY_VERIFY_WITH_TIMEOUT(panel.pendingModel()->rowCount() > 0, kWaitMs);
        const qint64 before = serverPendingCount();
        const qint64 len = m_server.command({"XLEN", "events:orders"}).toInteger();
        panel.pendingView()->selectRow(0);
        QSignalSpy finished(panel.actions(), &StreamActions::finished);
        panel.ackSelected();
        panel.trimStream(0);
        QCOMPARE(finished.size(), 2);
        QVERIFY(panel.statusText().contains(QLatin1String("read-only")));
        QCOMPARE(serverPendingCount(), before);
        QCOMPARE(m_server.command({"XLEN", "events:orders"}).toInteger(), len);
    }

    // Last: accepting the trim shortens the stream the other tests read.
    void confirmationsListWhatTheyTouch()
    {
        StreamsPanel panel(m_client.get()); // confirmations on, as a user has them
        const ScriptInfo *script = ScriptLibrary::instance().find(QStringLiteral("stream_dead_letter"));
        QVERIFY(script);
        panel.setDeadLetterScript(script->source, script->sha1);
        panel.resize(1400, 820);
        panel.show();
        panel.setActive(true);
        panel.setStreams({"events:orders"});
        panel.openStream("events:orders");
        QTRY_COMPARE_WITH_TIMEOUT(panel.reader()->group(), QByteArray("billing"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(panel.pendingModel()->rowCount() >= 3, kWaitMs);
        PendingModel *pm = panel.pendingModel();
        const auto selectFirst = [&](int rows) {
            QAbstractItemModel *m = panel.pendingView()->model();
            panel.pendingView()->selectionModel()->select(
                QItemSelection(m->index(0, 0), m->index(rows - 1, m->columnCount() - 1)),
                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        };
        selectFirst(2);
        const QList<QByteArray> ids{pm->rows().at(0).id, pm->rows().at(1).id};
        const QByteArray third = pm->rows().at(2).id;
        RawConnection raw(m_server.port());
        const auto writes = [&] {
            return commandCalls(raw, {"xclaim", "xautoclaim", "xack", "xtrim", "xadd", "xdel", "eval", "evalsha"});
        };
        const qint64 writesBefore = writes();
        const qint64 pendingBefore = serverPendingCount();
        const qint64 lengthBefore = m_server.command({"XLEN", "events:orders"}).toInteger();
        const QByteArray owner
            = m_server.command({"XPENDING", "events:orders", "billing", ids.at(0), ids.at(0), "1"}).at(0).at(1).bytes();
        const QString idText = QString::fromLatin1(ids.at(0) + ", " + ids.at(1));

        {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
            panel.claimSelected("worker-9");
            QCOMPARE(answer.count(), 1);
            QCOMPARE(answer.title(), QStringLiteral("Claim entries"));
            QCOMPARE(answer.text(),
                     QStringLiteral("XCLAIM 2 entries of group billing in stream events:orders for "
                                    "consumer worker-9:\n")
                         + idText);
            QCOMPARE(answer.objectName(), panelparts::confirmationObjectName());
            QCOMPARE(answer.textFormat(), Qt::PlainText);
            QVERIFY(answer.cancelWasDefault());

            panel.ackSelected();
            QCOMPARE(answer.count(), 2);
            QCOMPARE(answer.text(),
                     QStringLiteral("XACK 2 entries in group billing of stream events:orders; they "
                                    "leave the pending list:\n")
                         + idText);

            // A dead-letter stream with a newline and a control byte in its name: escaped.
            panel.deadLetterSelected(QByteArray("dead\n\x01", 6));
            QCOMPARE(answer.count(), 3);
            QCOMPARE(answer.text(),
                     QStringLiteral("Copy 2 entries to stream \"dead\\n\\x01\" and acknowledge them "
                                    "in group billing of stream events:orders (each one "
                                    "atomically):\n")
                         + idText);
            QVERIFY(!answer.text().contains(QString::fromLatin1(third)));

            panel.trimStream(100);
            QCOMPARE(answer.count(), 4);
            QVERIFY2(answer.text().startsWith(QStringLiteral("XTRIM events:orders MAXLEN ~ 100: ")),
                     qPrintable(answer.text()));
        }
        // Nothing was sent: no write reached the server, the stream and its pending list are unchanged.
        QCOMPARE(writes(), writesBefore);
        QCOMPARE(serverPendingCount(), pendingBefore);
        QCOMPARE(m_server.command({"XLEN", "events:orders"}).toInteger(), lengthBefore);
        QCOMPARE(m_server.command({"EXISTS", QByteArray("dead\n\x01", 6)}).toInteger(), 0);
        QCOMPARE(
            m_server.command({"XPENDING", "events:orders", "billing", ids.at(0), ids.at(0), "1"}).at(0).at(1).bytes(),
            owner);

        ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
        QSignalSpy finished(panel.actions(), &StreamActions::finished);
        const auto consumerOf = [&](const QByteArray &id) {
            const RedisValue v = m_server.command({"XPENDING", "events:orders", "billing", id, id, "1"});
            return v.elements().isEmpty() ? QByteArray() : v.at(0).at(1).bytes();
        };
        const auto reselect = [&](int rows) {
            selectFirst(rows);
            QList<QByteArray> now;
            for (int i = 0; i < rows; ++i)
                now << pm->rows().at(i).id;
            return now;
        };

        panel.claimSelected("worker-9");
        QCOMPARE(answer.count(), 1);
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(consumerOf(ids.at(0)), QByteArray("worker-9"));
        QCOMPARE(consumerOf(ids.at(1)), QByteArray("worker-9"));
        QCOMPARE(consumerOf(third),
                 m_server.command({"XPENDING", "events:orders", "billing", third, third, "1"}).at(0).at(1).bytes());
        QCOMPARE(serverPendingCount(), pendingBefore);

        // Claimed entries stay pending (with their new consumer), so the page still starts with them.
        const QList<QByteArray> acked = reselect(1);
        QCOMPARE(acked.at(0), ids.at(0));
        finished.clear();
        panel.ackSelected();
        QCOMPARE(answer.count(), 2);
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(serverPendingCount(), pendingBefore - 1);
        QVERIFY(consumerOf(acked.at(0)).isEmpty());

        QTRY_VERIFY_WITH_TIMEOUT(pm->rowCount() >= 2 && pm->rows().at(0).id != acked.at(0), kWaitMs);
        const QList<QByteArray> dead = reselect(2);
        finished.clear();
        panel.deadLetterSelected("events:orders:dead");
        QCOMPARE(answer.count(), 3);
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(m_server.command({"XLEN", "events:orders:dead"}).toInteger(), 2);
        QCOMPARE(serverPendingCount(), pendingBefore - 3);
        QVERIFY(consumerOf(dead.at(0)).isEmpty() && consumerOf(dead.at(1)).isEmpty());

        finished.clear();
        panel.trimStream(100);
        QCOMPARE(answer.count(), 4);
        QVERIFY(finished.wait(kWaitMs));
        const qint64 trimmed = m_server.command({"XLEN", "events:orders"}).toInteger();
        QVERIFY2(trimmed < lengthBefore && trimmed >= 100, qPrintable(QString::number(trimmed)));
    }
};

QTEST_MAIN(TestStreamsPanel)
#include "tst_streamspanel.moc"
