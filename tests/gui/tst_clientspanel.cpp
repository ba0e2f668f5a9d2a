// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientspanel.h"
#include "commandstats.h"
#include "confirmations.h"
#include "redisclient.h"
#include "screenshots.h"
#include "testserver.h"
#include "theme.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTcpSocket>
#include <QTest>
#include <QUuid>
#include <QVersionNumber>
#include <memory>
#include <vector>

// The clients panel against real clients on a real server: python3-redis pools of a known size
// (tests/fixtures/clients/pool.py), a client that opens a connection per request from an
// address of its own (per_request.py), a client blocked in BLPOP, and RedisLens itself. Groups
// count what the pools hold, a poll keeps the selection, RedisLens's own connections are marked,
// hints and the badge appear, a group is cut exactly, a read-only connection cuts nothing, a
// user without +client is told why, and screenshots render in both palettes.
namespace {

constexpr int kWaitMs = 20000;
constexpr int kPollMs = 300;
constexpr int kPoolSize = 8;

QString fixture(const char *name)
{
    return qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/fixtures/clients/")
        + QLatin1String(name);
}

// A python3-redis ConnectionPool with 'size' connections checked out, named 'name'; false when it
// did not report them all.
bool startPool(QProcess &pool, quint16 port, int size, const QString &name)
{
    pool.start(QStringLiteral("/usr/bin/python3"),
               {fixture("pool.py"), QStringLiteral("--port"), QString::number(port), QStringLiteral("--size"),
                QString::number(size), QStringLiteral("--name"), name});
    if (!pool.waitForStarted() || !pool.waitForReadyRead(30000))
        return false;
    return QJsonDocument::fromJson(pool.readLine()).object().value(QStringLiteral("in_use")).toInt() == size;
}

void stopPool(QProcess &pool)
{
    pool.closeWriteChannel();
    if (!pool.waitForFinished(10000))
        pool.kill();
}

// The rows of a view's model, by KeyRole.
int rowOf(const QAbstractItemModel *model, const QByteArray &key)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(RowTableRoles::KeyRole).toByteArray() == key)
            return r;
    return -1;
}

QByteArray selectedKey(const QTableView *view)
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? QByteArray() : rows.first().data(RowTableRoles::KeyRole).toByteArray();
}

// The ids CLIENT LIST shows for connections named 'name' (all of them when empty).
QSet<qint64> idsNamed(RawConnection &raw, const QByteArray &name)
{
    QSet<qint64> out;
    for (const QByteArray &line : raw.command({"CLIENT", "LIST"}).bytes().split('\n')) {
        if (line.isEmpty() || (!name.isEmpty() && !line.contains(QByteArray(" name=" + name + ' '))))
            continue;
        const qsizetype at = line.indexOf("id=");
        out.insert(line.mid(at + 3, line.indexOf(' ', at) - at - 3).toLongLong());
    }
    return out;
}

} // namespace

class TstClientsPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QProcess m_pool;

    // Waits for a reading asked for now (not one already on the wire when the call came).
    static bool readAgain(ClientsPanel &panel)
    {
        for (int i = 0; i < 2; ++i) {
            QSignalSpy spy(panel.reader(), &ClientsReader::readingAvailable);
            const bool busy = panel.reader()->isBusy();
            panel.refresh();
            if (!spy.wait(kWaitMs))
                return false;
            if (!busy)
                return true;
        }
        return true;
    }

    // Sends a command on 'socket' (connecting it first) and does not wait for the reply: a
    // blocking command stays blocked.
    bool sendAndLeave(QTcpSocket &socket, const QList<QByteArray> &argv)
    {
        if (socket.state() != QAbstractSocket::ConnectedState) {
            socket.connectToHost(QStringLiteral("127.0.0.1"), m_server.port());
            if (!socket.waitForConnected(5000))
                return false;
        }
        QByteArray resp = '*' + QByteArray::number(argv.size()) + "\r\n";
        for (const QByteArray &a : argv)
            resp += '$' + QByteArray::number(a.size()) + "\r\n" + a + "\r\n";
        socket.write(resp);
        return socket.waitForBytesWritten(5000);
    }

    static bool open(RedisClient &client, ClientsPanel &panel, const QString &grouping)
    {
        client.connectToServer();
        if (!waitForReady(client))
            return false;
        panel.setGrouping(grouping);
        panel.resize(1180, 720);
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        panel.setActive(true);
        return (panel.hasContent() || ready.wait(kWaitMs)) && readAgain(panel);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        // per_request.py connects from 127.0.0.3, which protected mode turns away; the server
        // still listens on loopback only.
        QCOMPARE(m_server.command({"CONFIG", "SET", "protected-mode", "no"}).bytes(), QByteArray("OK"));
        QVERIFY(startPool(m_pool, m_server.port(), kPoolSize, QStringLiteral("billing-pool")));
    }

    void cleanupTestCase() { stopPool(m_pool); }

    void groupsCountThePoolAndMarkRedisLens()
    {
        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        QCOMPARE(panel.objectName(), QStringLiteral("clients"));
        QAbstractItemModelTester groupsTester(panel.groupsView()->model(),
                                              QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester connectionsTester(panel.connectionsView()->model(),
                                                   QAbstractItemModelTester::FailureReportingMode::Fatal);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        QCOMPARE(panel.grouping(), QStringLiteral("name"));

        const QAbstractItemModel *groups = panel.groupsView()->model();
        const int pool = rowOf(groups, "billing-pool");
        const int own = rowOf(groups, "redislens");
        QVERIFY(pool >= 0 && own >= 0);
        QCOMPARE(groups->index(pool, 1).data(RowTableRoles::SortRole).toInt(), kPoolSize);
        QCOMPARE(groups->index(pool, 1).data().toString(), QString::number(kPoolSize));
        QVERIFY(!groups->index(pool, 0).data(ClientsPanel::OwnRole).toBool());
        QVERIFY(groups->index(own, 0).data(ClientsPanel::OwnRole).toBool());
        QVERIFY(groups->index(own, 0).data().toString().contains(QLatin1String("RedisLens")));
        QVERIFY(groups->index(own, 0).data(Qt::FontRole).value<QFont>().italic());
        // A pool that has just answered one PING each: every connection's last command.
        QVERIFY2(groups->index(pool, 4).data().toString().startsWith(QStringLiteral("PING %1").arg(kPoolSize)),
                 qPrintable(groups->index(pool, 4).data().toString()));
        // Two readings: the connection rate and the server's limits are known.
        const QString churn = panel.churnText();
        QVERIFY2(churn.contains(QLatin1String("new connections/s")) && churn.contains(QLatin1String("maxclients"))
                     && churn.contains(QLatin1String("rejected")) && churn.contains(QLatin1String("less than 5 s")),
                 qPrintable(churn));

        // One row a connection: the pool's eight, RedisLens's own marked.
        panel.setGrouping(QStringLiteral("connections"));
        QVERIFY(panel.connectionsView()->isVisible());
        const QAbstractItemModel *connections = panel.connectionsView()->model();
        int poolRows = 0, ownRows = 0;
        for (int r = 0; r < connections->rowCount(); ++r) {
            const QString name = connections->index(r, 1).data().toString();
            poolRows += name == QLatin1String("billing-pool") ? 1 : 0;
            if (connections->index(r, 0).data(ClientsPanel::OwnRole).toBool()) {
                ++ownRows;
                QVERIFY2(name.contains(QLatin1String("RedisLens")), qPrintable(name));
                QVERIFY(connections->index(r, 12).data().toString().contains(QLatin1String("RedisLens's own")));
            }
        }
        QCOMPARE(poolRows, kPoolSize);
        QVERIFY(ownRows >= 1);
        QCOMPARE(panel.killButton()->text(), QStringLiteral("Cut connection…"));

        // Library: the field arrives with Redis 7.2; an older server is said to lack it.
        panel.setGrouping(QStringLiteral("lib"));
        QVERIFY(panel.groupsView()->isVisible());
        if (client.facts().version < QVersionNumber(7, 2)) {
            QVERIFY2(panel.noteText().contains(QLatin1String("7.2")), qPrintable(panel.noteText()));
            QVERIFY(rowOf(panel.groupsView()->model(), "(not said)") >= 0);
        } else {
            QVERIFY(panel.noteText().isEmpty());
            bool ownLibrary = false;
            for (int r = 0; r < panel.groupsView()->model()->rowCount(); ++r)
                ownLibrary = ownLibrary
                    || panel.groupsView()
                           ->model()
                           ->index(r, 0)
                           .data(RowTableRoles::KeyRole)
                           .toByteArray()
                           .startsWith("redislens ");
            QVERIFY(ownLibrary);
        }
        panel.setGrouping(QStringLiteral("addr"));
        QVERIFY(panel.noteText().isEmpty());
        QVERIFY(rowOf(panel.groupsView()->model(), "127.0.0.1") >= 0);
    }

    // A client blocked in BLPOP shows in its group, with what it waits on.
    void blockedClientsSayWhatTheyWaitOn()
    {
        QTcpSocket blocked;
        QVERIFY(sendAndLeave(blocked, {"BLPOP", "queue:jobs", "0"}));
        RawConnection raw(m_server.port());
        QTRY_VERIFY_WITH_TIMEOUT(raw.command({"CLIENT", "LIST"}).bytes().contains("cmd=blpop"), kWaitMs);

        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("cmd")));
        const QAbstractItemModel *groups = panel.groupsView()->model();
        const int row = rowOf(groups, "blpop");
        QVERIFY(row >= 0);
        QCOMPARE(groups->index(row, 1).data().toString(), QStringLiteral("1"));
        QVERIFY2(groups->index(row, 8).data().toString().contains(QLatin1String("1 blocked: BLPOP 1")),
                 qPrintable(groups->index(row, 8).data().toString()));
        QCOMPARE(groups->index(row, 8).data(RowTableRoles::SeverityRole).toInt(), int(Severity::Warning));
        blocked.abort();
    }

    // A poll merges into the table: the selected row stays selected, the view keeps its scroll
    // position, and the model is never reset.
    void pollKeepsTheSelection()
    {
        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        panel.setPollInterval(kPollMs);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        auto *groupsProxy = qobject_cast<QSortFilterProxyModel *>(panel.groupsView()->model());
        QVERIFY(groupsProxy);
        QSignalSpy groupResets(groupsProxy->sourceModel(), &QAbstractItemModel::modelReset);
        panel.selectGroup("billing-pool");
        QCOMPARE(selectedKey(panel.groupsView()), QByteArray("billing-pool"));

        // New applications come and go, and sort before and after the pool.
        std::vector<std::unique_ptr<RawConnection>> others;
        for (const char *name : {"analytics", "zeta-worker", "api-gateway"}) {
            others.push_back(std::make_unique<RawConnection>(m_server.port()));
            QCOMPARE(others.back()->command({"CLIENT", "SETNAME", name}).bytes(), QByteArray("OK"));
        }
        QSignalSpy readings(panel.reader(), &ClientsReader::readingAvailable);
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(panel.groupsView()->model(), "api-gateway") >= 0, kWaitMs);
        others.erase(others.begin());
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(panel.groupsView()->model(), "analytics") < 0, kWaitMs);
        QVERIFY(readings.size() >= 2); // polled, not asked
        QCOMPARE(selectedKey(panel.groupsView()), QByteArray("billing-pool"));
        QCOMPARE(groupResets.size(), 0);

        // One row a connection, more of them than a short view shows.
        for (int i = 0; i < 12; ++i) {
            others.push_back(std::make_unique<RawConnection>(m_server.port()));
            QCOMPARE(others.back()->command({"CLIENT", "SETNAME", "worker-" + QByteArray::number(i)}).bytes(),
                     QByteArray("OK"));
        }
        panel.setGrouping(QStringLiteral("connections"));
        panel.resize(1180, 360);
        QVERIFY(readAgain(panel));
        const QSet<qint64> pool = idsNamed(*others.front(), "billing-pool");
        const qint64 chosen = *std::min_element(pool.cbegin(), pool.cend());
        panel.selectConnection(chosen);
        QCOMPARE(selectedKey(panel.connectionsView()), QByteArray::number(chosen));
        QScrollBar *scroll = panel.connectionsView()->verticalScrollBar();
        QTRY_VERIFY(scroll->maximum() > 0);
        scroll->setValue(scroll->maximum() / 2 + 1);
        const int at = scroll->value();
        auto *connectionsProxy = qobject_cast<QSortFilterProxyModel *>(panel.connectionsView()->model());
        QSignalSpy connectionResets(connectionsProxy->sourceModel(), &QAbstractItemModel::modelReset);
        const int rows = panel.connectionsView()->model()->rowCount();
        others.push_back(std::make_unique<RawConnection>(m_server.port()));
        QCOMPARE(others.back()->command({"CLIENT", "SETNAME", "late-joiner"}).bytes(), QByteArray("OK"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.connectionsView()->model()->rowCount() > rows, kWaitMs);
        QVERIFY(readAgain(panel));
        QCOMPARE(selectedKey(panel.connectionsView()), QByteArray::number(chosen));
        QCOMPARE(scroll->value(), at);
        QCOMPARE(connectionResets.size(), 0);
        panel.setActive(false);
    }

    // A client that opens a connection per request is hinted at with its address, the unnamed
    // connections too, and the sidebar badge counts what is worth a look.
    void hintsAndBadge()
    {
        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        panel.setPollInterval(kPollMs);
        QVERIFY(open(client, panel, QStringLiteral("addr")));
        QProcess perRequest;
        perRequest.start(QStringLiteral("/usr/bin/python3"),
                         {fixture("per_request.py"), QStringLiteral("--port"), QString::number(m_server.port()),
                          QStringLiteral("--source"), QStringLiteral("127.0.0.3"), QStringLiteral("--rate"),
                          QStringLiteral("40"), QStringLiteral("--hold"), QStringLiteral("2"),
                          QStringLiteral("--seconds"), QStringLiteral("8")});
        QVERIFY(perRequest.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(panel.hintsText().contains(QLatin1String("127.0.0.3: ")), kWaitMs);
        const QString hints = panel.hintsText();
        QVERIFY2(hints.contains(QLatin1String("a new connection per request")), qPrintable(hints));
        QVERIFY2(hints.contains(QLatin1String("(no name): ")), qPrintable(hints));
        QVERIFY(panel.badgeCount() >= 1);
        QVERIFY(panel.badgeSeverity() != Severity::None);
        QVERIFY(panel.badgeToolTip().contains(QLatin1String("per request")));
        QVERIFY(!panel.badgeToolTip().contains(QLatin1String("without a name")));
        const int row = rowOf(panel.groupsView()->model(), "127.0.0.3");
        QVERIFY(row >= 0);
        QVERIFY(panel.groupsView()->model()->index(row, 8).data().toString().contains(QLatin1String("under 5 s")));
        QVERIFY(panel.churnText().contains(QLatin1String("new connections/s")));
        QVERIFY(perRequest.waitForFinished(30000));
        QVERIFY2(perRequest.exitCode() == 0, perRequest.readAllStandardError().constData());
        panel.setActive(false);
    }

    // Cutting a group asks first, naming each connection; Cancel sends nothing; Yes cuts exactly
    // the group's connections and leaves RedisLens's own alone.
    void killGroupCutsExactlyIt()
    {
        QProcess victims;
        QVERIFY(startPool(victims, m_server.port(), 5, QStringLiteral("report-pool")));
        RawConnection raw(m_server.port());
        const QSet<qint64> group = idsNamed(raw, "report-pool");
        QCOMPARE(group.size(), 5);

        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        // A group of RedisLens's own only: nothing to cut.
        panel.selectGroup("redislens");
        QVERIFY(!panel.killButton()->isEnabled());
        QVERIFY(panel.killButton()->toolTip().contains(QLatin1String("Only RedisLens's own")));

        panel.selectGroup("report-pool");
        QVERIFY(panel.killButton()->isEnabled());
        QCOMPARE(panel.killButton()->text(), QStringLiteral("Cut group…"));
        const qint64 killsBefore = commandCalls(raw, {"client|kill"});
        {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
            panel.killSelected();
            QCOMPARE(answer.count(), 1);
            QCOMPARE(answer.objectName(), QStringLiteral("confirmation"));
            QVERIFY(answer.cancelWasDefault());
            const QString text = answer.text();
            QVERIFY2(text.startsWith(QLatin1String("Cut 5 connections of the group report-pool (by client name)?")),
                     qPrintable(text));
            for (const qint64 id : group)
                QVERIFY2(text.contains(QStringLiteral("id %1 · 127.0.0.1:").arg(id)), qPrintable(text));
            QVERIFY(!text.contains(QLatin1String("RedisLens's own")));
        }
        QCOMPARE(commandCalls(raw, {"client|kill"}), killsBefore);
        QCOMPARE(idsNamed(raw, "report-pool"), group);

        // An id whose address is no longer the one listed (reused, or another server since):
        // nothing is cut.
        {
            QSignalSpy stale(panel.actions(), &ClientActions::finished);
            panel.actions()->kill({*group.cbegin()}, {"127.0.0.1:1"});
            QVERIFY(stale.wait(kWaitMs));
            QVERIFY(stale.first().first().value<ClientKillResult>().cut.isEmpty());
            QCOMPARE(idsNamed(raw, "report-pool"), group);
        }

        const QSet<qint64> before = idsNamed(raw, {});
        QSignalSpy done(panel.actions(), &ClientActions::finished);
        {
            ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
            panel.killSelected();
            QCOMPARE(answer.count(), 1);
        }
        QVERIFY(done.wait(kWaitMs));
        const auto result = done.first().first().value<ClientKillResult>();
        QCOMPARE(QSet<qint64>(result.cut.cbegin(), result.cut.cend()), group);
        QCOMPARE(panel.resultText(), QStringLiteral("Cut 5 connections"));
        QCOMPARE(commandCalls(raw, {"client|kill"}), killsBefore + 6);
        // Exactly those: every other connection that was there still is.
        const QSet<qint64> after = idsNamed(raw, {});
        QVERIFY(idsNamed(raw, "report-pool").isEmpty());
        QCOMPARE(QSet<qint64>(before).subtract(after), group);
        QCOMPARE(idsNamed(raw, "billing-pool").size(), kPoolSize);
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(panel.groupsView()->model(), "report-pool") < 0, kWaitMs);
        stopPool(victims);
    }

    // On a read-only profile the button is off with the reason, and asking anyway sends no
    // CLIENT KILL: the action refuses before anything reaches the server.
    void readOnlyRefusesKill()
    {
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        RedisClient client(profile);
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        RawConnection raw(m_server.port());
        const qint64 killsBefore = commandCalls(raw, {"client|kill"});
        panel.selectGroup("billing-pool");
        QCOMPARE(selectedKey(panel.groupsView()), QByteArray("billing-pool"));
        QVERIFY(!panel.killButton()->isEnabled());
        QVERIFY2(panel.killButton()->toolTip().contains(QLatin1String("Read-only")),
                 qPrintable(panel.killButton()->toolTip()));
        ConfirmationAnswerer answer(ConfirmationAnswerer::Accept);
        panel.killSelected();
        QCOMPARE(answer.count(), 0);
        QVERIFY2(panel.resultText().startsWith(QLatin1String("Refused: Read-only connection")),
                 qPrintable(panel.resultText()));
        QSignalSpy done(panel.actions(), &ClientActions::finished);
        panel.actions()->kill(idsNamed(raw, "billing-pool").values());
        QCOMPARE(done.size(), 1);
        QVERIFY(done.first().first().value<ClientKillResult>().refused);
        QVERIFY(readAgain(panel));
        QCOMPARE(commandCalls(raw, {"client|kill"}), killsBefore);
        QCOMPARE(idsNamed(raw, "billing-pool").size(), kPoolSize);
    }

    // A user without +client cannot list the connections: one clear line, the churn still
    // shown from INFO, and the panel keeps working.
    void userWithoutClientCommandsIsToldWhy()
    {
        const QByteArray secret = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QCOMPARE(
            m_server.command({"ACL", "SETUSER", "watcher", "on", ">" + secret, "~*", "&*", "+@all", "-client"}).bytes(),
            QByteArray("OK"));
        ConnectionProfile profile = m_server.profile();
        profile.username = QStringLiteral("watcher");
        profile.password = QString::fromLatin1(secret);
        RedisClient client(profile);
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        QVERIFY2(panel.statusText().startsWith(
                     QLatin1String("The connections cannot be listed: user watcher needs +client|list")),
                 qPrintable(panel.statusText()));
        QVERIFY(!panel.statusText().contains(QLatin1Char('\n')));
        QVERIFY(panel.hasContent());
        QCOMPARE(panel.groupsView()->model()->rowCount(), 0);
        QVERIFY2(panel.churnText().contains(QLatin1String("maxclients")), qPrintable(panel.churnText()));
        QVERIFY(!panel.killButton()->isEnabled());
        panel.setGrouping(QStringLiteral("connections"));
        QVERIFY(readAgain(panel));
        QVERIFY(panel.statusText().contains(QLatin1String("+client|list")));
        m_server.command({"ACL", "DELUSER", "watcher"});
    }

    // Near maxclients, and past it: the server's hints, in the bad colour of the badge.
    void maxclientsHeadroomAndRejections()
    {
        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        RawConnection raw(m_server.port());
        qint64 connected = -1;
        for (const QByteArray &line : raw.command({"INFO", "clients"}).bytes().split('\n'))
            if (line.startsWith("connected_clients:"))
                connected = line.mid(18).trimmed().toLongLong();
        QVERIFY(connected > 0);
        const QByteArray limit = QByteArray::number(connected + 1);
        QCOMPARE(raw.command({"CONFIG", "SET", "maxclients", limit}).bytes(), QByteArray("OK"));
        QTcpSocket fits, refused;
        QVERIFY(sendAndLeave(fits, {"PING"}));
        QVERIFY(fits.waitForReadyRead(5000));
        refused.connectToHost(QStringLiteral("127.0.0.1"), m_server.port());
        QVERIFY(refused.waitForConnected(5000));
        QVERIFY(refused.waitForReadyRead(5000));
        QVERIFY2(refused.readAll().contains("max number of clients"), "the server admitted one past maxclients");
        fits.abort();
        QVERIFY(readAgain(panel));
        const QString hints = panel.hintsText();
        QVERIFY2(
            hints.contains(QStringLiteral("server: %1 of maxclients %2 connected").arg(connected + 1).arg(limit))
                || hints.contains(QStringLiteral("server: %1 of maxclients %2 connected").arg(connected).arg(limit)),
            qPrintable(hints));
        QVERIFY2(hints.contains(QLatin1String("refused since the server started")), qPrintable(hints));
        QCOMPARE(panel.badgeSeverity(), Severity::Bad);
        QVERIFY(panel.badgeCount() >= 2);
        QVERIFY2(panel.churnText().contains(QLatin1String("1 rejected since the server started")),
                 qPrintable(panel.churnText()));
        QVERIFY2(panel.churnText().contains(QStringLiteral("of maxclients %1 in use").arg(limit)),
                 qPrintable(panel.churnText()));
        QCOMPARE(raw.command({"CONFIG", "SET", "maxclients", "10000"}).bytes(), QByteArray("OK"));
    }

    // Grouped by name with a blocked consumer and a blocked worker about, and one row a
    // connection, in both palettes.
    void screenshots()
    {
        m_server.command({"XGROUP", "CREATE", "events", "mailer", "$", "MKSTREAM"});
        QTcpSocket consumer, worker;
        QVERIFY(sendAndLeave(consumer, {"CLIENT", "SETNAME", "mailer"}));
        QVERIFY(
            sendAndLeave(consumer, {"XREADGROUP", "GROUP", "mailer", "m1", "BLOCK", "0", "STREAMS", "events", ">"}));
        QVERIFY(sendAndLeave(worker, {"CLIENT", "SETNAME", "sms-worker"}));
        QVERIFY(sendAndLeave(worker, {"BLPOP", "queue:sms", "0"}));
        RawConnection raw(m_server.port());
        QTRY_VERIFY_WITH_TIMEOUT(raw.command({"CLIENT", "LIST"}).bytes().contains("cmd=blpop"), kWaitMs);
        RedisClient client(m_server.profile());
        ClientsPanel panel(&client);
        QVERIFY(open(client, panel, QStringLiteral("name")));
        panel.resize(1180, 560);
        panel.selectGroup("billing-pool");
        QTest::qWait(0);
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("clients.png")));
        theme::apply(theme::Theme::Dark);
        QCoreApplication::processEvents();
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("clients-dark.png")));
        panel.setGrouping(QStringLiteral("connections"));
        QVERIFY(readAgain(panel));
        const QSet<qint64> pool = idsNamed(raw, "billing-pool");
        panel.selectConnection(*std::min_element(pool.cbegin(), pool.cend()));
        QCoreApplication::processEvents();
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("clients-connections-dark.png")));
        theme::apply(theme::Theme::Light);
        QCoreApplication::processEvents();
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("clients-connections.png")));
    }
};

QTEST_MAIN(TstClientsPanel)
#include "tst_clientspanel.moc"
