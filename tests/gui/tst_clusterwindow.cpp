// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a real Redis Cluster (three primaries on loopback ports): the key browser holds
// every node's keys, the status line names the cluster, a key says its slot and node, the locks
// panel reads locks on every node; pictured in both palettes.
#include "clientspanel.h"
#include "clusterkeys.h"
#include "clusterrouter.h"
#include "clustertopology.h"
#include "consolepanel.h"
#include "faultproxy.h"
#include "format.h"
#include "healthseries.h"
#include "keybrowser.h"
#include "keytreemodel.h"
#include "locks.h"
#include "lockspanel.h"
#include "luaeditor.h"
#include "luaresult.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "memorystats.h"
#include "overviewpanel.h"
#include "profiler.h"
#include "profilerpanel.h"
#include "profilerreader.h"
#include "redisclient.h"
#include "screenshots.h"
#include "settings.h"
#include "slowlogmodel.h"
#include "slowlogpanel.h"
#include "slowlogreader.h"
#include "testcluster.h"
#include "testserver.h"
#include "theme.h"
#include "valueview.h"

#include <QComboBox>
#include <QLabel>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QUuid>

class TstClusterWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void browsesEveryNode();
    void consoleKeepsScriptsToOneSlot();
    void oneNodeWithoutClusterModeSaysSo();
    void serverPanelsReadTheChosenNode();
    void anotherClusterIsNoticedAndShownAlone();
    void clientsAndProfilerReadTheChosenNode();

private:
    std::unique_ptr<MainWindow> open(bool cluster)
    {
        ConnectionProfile p;
        p.port = m_cluster.seedPort();
        p.cluster = cluster;
        p.name = QStringLiteral("orders-cluster");
        auto w = std::make_unique<MainWindow>(p, m_settings);
        w->resize(1400, 860);
        w->show();
        w->start();
        return w;
    }
    // The window in the light palette, then in the dark one (NAME.png, NAME-dark.png).
    static void pictures(MainWindow &w, const QString &name)
    {
        screenshots::save(w.grab().toImage(), name + QStringLiteral(".png"));
        theme::apply(theme::Theme::Dark);
        QCoreApplication::processEvents(); // the palette reaches every widget,
        QCoreApplication::processEvents(); // then the charts' queued replots run
        screenshots::save(w.grab().toImage(), name + QStringLiteral("-dark.png"));
        theme::apply(theme::Theme::Light);
    }
    QString stateText(MainWindow &w) const
    {
        const auto labels = w.statusBar()->findChildren<QLabel *>();
        QString all;
        for (const QLabel *l : labels)
            all += l->text() + QLatin1Char('\n');
        return all;
    }

    TestCluster m_cluster{3, 0};
    Settings *m_settings = nullptr;
    int m_total = 0;
};

void TstClusterWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QString error;
    QVERIFY2(m_cluster.start(&error), qPrintable(error));
    m_total += int(m_cluster.populate(2000, "orders:item:").size());
    QList<QList<QByteArray>> more;
    for (int i = 0; i < 12; ++i) {
        const QByteArray token = QByteArray::number(0x7a11c0de + i * 104729, 16) + "-9f2e-4d1c-b3a7-52e8c0f1d9a6";
        more.append({"SET", "lock:invoice:" + QByteArray::number(i), token, "PX", "300000"});
    }
    more.append({"SET", "lock:invoice:stuck", "5d1e8a7c-2b3f-4e6d-9a0c-7f1b2e3d4c5a"}); // no TTL
    for (int i = 0; i < 20; ++i)
        more.append({"HSET", "session:{u" + QByteArray::number(i) + "}", "user_id", QByteArray::number(i)});
    m_cluster.write(more);
    m_total += int(more.size());
    m_settings = new Settings(this);
}

void TstClusterWindow::browsesEveryNode()
{
    auto w = open(true);
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->cluster() != nullptr, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(w->keyBrowser()->model()->keyCount(), quint64(m_total), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!w->keyBrowser()->scanner()->isRunning(), 30000);
    QCOMPARE(w->keyBrowser()->model()->keyCount(), quint64(m_total));
    QTRY_VERIFY2_WITH_TIMEOUT(stateText(*w).contains(QStringLiteral("Redis Cluster: 3 primaries")),
                              qPrintable(stateText(*w)), 10000);
    QVERIFY(w->windowTitle().contains(QStringLiteral("cluster")));
    // One progress, and each primary's own part in its tooltip: all three done.
    const QString perNode = w->keyBrowser()->findChild<QLabel *>(QStringLiteral("scanStatus"))->toolTip();
    for (const quint16 port : m_cluster.primaryPorts()) {
        const QString line
            = perNode.section(QStringLiteral("127.0.0.1:%1: ").arg(port), 1).section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(line.endsWith(QStringLiteral(" · done")), qPrintable(perNode));
    }
    // A key says where it lives.
    w->openKeyWhenReady("orders:item:7");
    QTRY_COMPARE_WITH_TIMEOUT(w->valueView()->currentKey(), QByteArray("orders:item:7"), 10000);
    auto *meta = w->valueView()->findChild<QLabel *>(QStringLiteral("valueMeta"));
    const int slot = cluster::keySlot("orders:item:7");
    QTRY_VERIFY2_WITH_TIMEOUT(meta->text().contains(QStringLiteral("slot %1 on 127.0.0.1:").arg(slot)),
                              qPrintable(meta->text()), 10000);
    pictures(*w, QStringLiteral("cluster-window"));
    // The locks on all three nodes, the one without TTL among them.
    w->showPanel(QStringLiteral("locks"));
    QTRY_VERIFY_WITH_TIMEOUT(w->locksPanel()->model()->rows().size() >= 13, 20000);
    bool stuck = false;
    for (const LockInfo &l : w->locksPanel()->model()->rows())
        stuck = stuck || (l.key == "lock:invoice:stuck" && (l.flags & LockInfo::NoTtl));
    QVERIFY(stuck);
    screenshots::save(w->grab().toImage(), QStringLiteral("cluster-locks.png"));
}

// The Lua console on a cluster: KEYS in two slots are explained and not sent; KEYS sharing a
// hash tag run on the node that owns the tag's slot.
void TstClusterWindow::consoleKeepsScriptsToOneSlot()
{
    auto w = open(true);
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->cluster() != nullptr, 20000);
    ConsolePanel *console = w->consolePanel();
    w->showPanel(QStringLiteral("console"));
    console->editor()->setPlainText(QStringLiteral("return {redis.call('HGET', KEYS[1], 'user_id'), "
                                                   "redis.call('HGET', KEYS[2], 'user_id')}"));
    console->setKeys({"session:{u3}", "session:{u4}"});
    console->run();
    QVERIFY2(console->noticeText().contains(QStringLiteral("must hash to one slot")),
             qPrintable(console->noticeText()));
    QVERIFY(!console->isRunning());
    m_cluster.write({{"HSET", "session:{u3}:prefs", "user_id", "3b"}});
    console->setKeys({"session:{u3}", "session:{u3}:prefs"});
    console->run();
    QTRY_VERIFY_WITH_TIMEOUT(!console->isRunning(), 10000);
    const RedisValue result = console->resultModel()->result();
    QVERIFY2(result.isArray() && result.size() == 2, qPrintable(console->noticeText()));
    QCOMPARE(result.at(0).bytes(), QByteArray("3"));
    QCOMPARE(result.at(1).bytes(), QByteArray("3b"));
    screenshots::save(w->grab().toImage(), QStringLiteral("cluster-console.png"));

    // "Run on": a script without keys runs on the chosen primary (its own run id answers), a
    // script whose keys live elsewhere is not sent.
    QComboBox *picker = console->nodePicker();
    QVERIFY(picker->isVisible());
    QCOMPARE(picker->count(), 4); // where the keys live, and the three primaries
    const QList<quint16> primaries = m_cluster.primaryPorts();
    for (quint16 port : primaries) {
        const QString address = QStringLiteral("127.0.0.1:%1").arg(port);
        QVERIFY2(console->chooseNode(address), qPrintable(address));
        console->editor()->setPlainText(QStringLiteral("return redis.call('INFO', 'server')"));
        console->setKeys({});
        console->run();
        QTRY_VERIFY_WITH_TIMEOUT(!console->isRunning(), 10000);
        const QByteArray info = console->resultModel()->result().bytes();
        const QByteArray portLine = QByteArray("tcp_port:") + QByteArray::number(port);
        QVERIFY2(info.contains(portLine), qPrintable(console->noticeText()));
    }
    // The last primary chosen; a key owned by another is refused before sending.
    QByteArray elsewhere;
    for (int i = 0; elsewhere.isEmpty(); ++i) {
        const QByteArray key = "probe:" + QByteArray::number(i);
        const cluster::Node *owner = w->client()->cluster()->ownerOf(int(cluster::keySlot(key)));
        if (owner && owner->address.port != primaries.last())
            elsewhere = key;
    }
    console->editor()->setPlainText(QStringLiteral("return redis.call('EXISTS', KEYS[1])"));
    console->setKeys({elsewhere});
    console->run();
    QVERIFY2(console->noticeText().startsWith(QStringLiteral("Not sent: the KEYS live in slot")),
             qPrintable(console->noticeText()));
    QVERIFY(!console->isRunning());
    // Back to where the keys live: it runs.
    QVERIFY(console->chooseNode(QString()));
    console->run();
    QTRY_VERIFY_WITH_TIMEOUT(!console->isRunning(), 10000);
    QCOMPARE(console->resultModel()->result(), RedisValue::integer(0));
    pictures(*w, QStringLiteral("cluster-console-node"));
    QCoreApplication::processEvents();
}

// The same seed without cluster mode: one node's keys, and the status line says why.
void TstClusterWindow::oneNodeWithoutClusterModeSaysSo()
{
    auto w = open(false);
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->isReady(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(w->keyBrowser()->model()->keyCount() > 0, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!w->keyBrowser()->scanner()->isRunning(), 30000);
    QVERIFY(w->keyBrowser()->model()->keyCount() < quint64(m_total));
    QTRY_VERIFY2_WITH_TIMEOUT(stateText(*w).contains(QStringLiteral("one node of a Redis Cluster")),
                              qPrintable(stateText(*w)), 10000);
}

// The node bar: the overview, the slow log and the memory analysis each read the node chosen for
// them (the seed, or every primary for memory, by default), the overview every primary merged
// too, and the bar shows only for them.
void TstClusterWindow::serverPanelsReadTheChosenNode()
{
    auto w = open(true);
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->cluster() != nullptr, 20000);
    auto *bar = w->findChild<QWidget *>(QStringLiteral("nodeBar"));
    auto *picker = w->findChild<QComboBox *>(QStringLiteral("nodePicker"));
    QVERIFY(bar && picker);
    w->showPanel(QStringLiteral("locks"));
    QVERIFY(!bar->isVisible());
    // A primary other than the seed logs one marked command in its slow log.
    quint16 other = 0;
    for (const quint16 port : m_cluster.primaryPorts())
        if (port != m_cluster.seedPort())
            other = port;
    QVERIFY(other != 0);
    const QByteArray mark = "node-bar-" + QByteArray::number(other);
    const QByteArray seedMark = "node-bar-seed";
    for (const auto &[port, echo] : {std::make_pair(other, mark), std::make_pair(m_cluster.seedPort(), seedMark)}) {
        RawConnection node(port);
        node.command({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
        node.command({"ECHO", echo});
        node.command({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
    }
    const auto shows = [](SlowlogPanel *panel, const QByteArray &needle) {
        const SlowlogModel *m = panel->model();
        for (int i = 0; i < m->rowCount(); ++i)
            if (m->entryAt(i).args.contains(needle))
                return true;
        return false;
    };
    w->showPanel(QStringLiteral("slowlog"));
    QVERIFY(bar->isVisible());
    QVERIFY2(picker->itemText(0).contains(QStringLiteral("seed")), qPrintable(picker->itemText(0)));
    QCOMPARE(picker->count(), 5); // the seed, every primary merged, then the three primaries
    SlowlogPanel *seedLog = w->slowlogPanel();
    QTRY_VERIFY_WITH_TIMEOUT(seedLog->reader()->completedPolls() > 0, 10000);
    QVERIFY(!shows(seedLog, mark));
    const int at = picker->findData(QStringLiteral("127.0.0.1:%1").arg(other));
    QVERIFY(at > 0);
    QVERIFY2(picker->itemText(at).contains(QStringLiteral("primary · slots ")), qPrintable(picker->itemText(at)));
    Q_EMIT picker->activated(at);
    QVERIFY(w->slowlogPanel() != seedLog);
    QCOMPARE(w->currentPanel(), QStringLiteral("slowlog"));
    QTRY_VERIFY_WITH_TIMEOUT(shows(w->slowlogPanel(), mark), 10000);
    QCOMPARE(picker->currentIndex(), at);
    pictures(*w, QStringLiteral("cluster-slowlog-node"));

    // Each panel keeps its own choice: the overview still reads the seed, then the other node.
    w->showPanel(QStringLiteral("overview"));
    QCOMPARE(picker->currentIndex(), 0);
    const auto keyspace = [&w] {
        for (const HealthSeries::Fact &f : w->overviewPanel()->healthSeries()->facts())
            if (f.label == QStringLiteral("Keyspace"))
                return f.value;
        return QString();
    };
    const auto dbsize = [](quint16 port) { return quint64(RawConnection(port).command({"DBSIZE"}).toInteger()); };
    QTRY_VERIFY2_WITH_TIMEOUT(
        keyspace().contains(format::count(dbsize(m_cluster.seedPort())) + QStringLiteral(" keys")),
        qPrintable(keyspace()), 10000);
    Q_EMIT picker->activated(picker->findData(QStringLiteral("127.0.0.1:%1").arg(other)));
    QTRY_VERIFY2_WITH_TIMEOUT(keyspace().contains(format::count(dbsize(other)) + QStringLiteral(" keys")),
                              qPrintable(keyspace()), 10000);
    // Every primary as one: their keys add up, the role says how many were merged.
    const int every = picker->findData(QStringLiteral("*"));
    QVERIFY(every > 0);
    QVERIFY2(picker->itemText(every).contains(QStringLiteral("3 merged")), qPrintable(picker->itemText(every)));
    Q_EMIT picker->activated(every);
    QCOMPARE(w->overviewPanel()->mergedNodeCount(), 3);
    quint64 primaries = 0;
    for (const quint16 port : m_cluster.primaryPorts())
        primaries += dbsize(port);
    QVERIFY(primaries >= quint64(m_total)); // the tests before this one may have added keys
    QTRY_VERIFY2_WITH_TIMEOUT(keyspace().contains(format::count(primaries) + QStringLiteral(" keys")),
                              qPrintable(keyspace()), 10000);
    const auto fact = [&w](const QString &label) {
        for (const HealthSeries::Fact &f : w->overviewPanel()->healthSeries()->facts())
            if (f.label == label)
                return f.value;
        return QString();
    };
    QCOMPARE(fact(QStringLiteral("Role")), QStringLiteral("3 primaries, merged"));
    QCOMPARE(picker->currentIndex(), every);
    // A few samples, and the charts' once-a-second refresh after them, for the pictures.
    QTRY_VERIFY_WITH_TIMEOUT(w->overviewPanel()->healthSeries()->sampleCount() >= 4, 10000);
    QTest::qWait(1200);
    pictures(*w, QStringLiteral("cluster-overview-merged"));
    w->showPanel(QStringLiteral("slowlog"));
    QCOMPARE(picker->currentIndex(), at);

    // The slow logs of every primary in one table, each entry with its node.
    Q_EMIT picker->activated(picker->findData(QStringLiteral("*")));
    SlowlogPanel *merged = w->slowlogPanel();
    QCOMPARE(merged->mergedNodeCount(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(shows(merged, mark) && shows(merged, seedMark), 10000);
    const auto nodeOf = [merged](const QByteArray &needle) {
        const SlowlogModel *m = merged->model();
        for (int i = 0; i < m->rowCount(); ++i)
            if (m->entryAt(i).args.contains(needle))
                return m->index(i, SlowlogModel::NodeColumn).data().toString();
        return QString();
    };
    QCOMPARE(nodeOf(mark), QStringLiteral("127.0.0.1:%1").arg(other));
    QCOMPARE(nodeOf(seedMark), QStringLiteral("127.0.0.1:%1").arg(m_cluster.seedPort()));
    QTRY_VERIFY2_WITH_TIMEOUT(merged->configText().contains(QStringLiteral("on each of 3 primaries")),
                              qPrintable(merged->configText()), 10000);
    // Polled again and again: nothing shows twice.
    const int polls = merged->reader()->completedPolls();
    QTRY_VERIFY_WITH_TIMEOUT(merged->reader()->completedPolls() >= polls + 2, 10000);
    QSet<QString> seen;
    const SlowlogModel *entries = merged->model();
    for (int i = 0; i < entries->rowCount(); ++i) {
        const QString key
            = QStringLiteral("%1/%2/%3").arg(entries->sourceAt(i)).arg(entries->epochAt(i)).arg(entries->entryAt(i).id);
        QVERIFY2(!seen.contains(key), qPrintable(key));
        seen.insert(key);
    }
    pictures(*w, QStringLiteral("cluster-slowlog-merged"));

    // Memory: every primary's keys by default, one node's when chosen.
    w->showPanel(QStringLiteral("memory"));
    QVERIFY2(picker->itemText(0).contains(QStringLiteral("Every primary")), qPrintable(picker->itemText(0)));
    w->memoryPanel()->startAnalysis();
    QTRY_VERIFY_WITH_TIMEOUT(w->memoryPanel()->hasContent() && !w->memoryPanel()->isRunning(), 60000);
    quint64 all = 0;
    for (const quint16 port : m_cluster.primaryPorts())
        all += dbsize(port);
    QCOMPARE(w->memoryPanel()->stats().keyCount(), all);
    Q_EMIT picker->activated(picker->findData(QStringLiteral("127.0.0.1:%1").arg(other)));
    w->memoryPanel()->startAnalysis();
    QTRY_VERIFY_WITH_TIMEOUT(w->memoryPanel()->hasContent() && !w->memoryPanel()->isRunning(), 60000);
    QCOMPARE(w->memoryPanel()->stats().keyCount(), dbsize(other));
    screenshots::save(w->grab().toImage(), QStringLiteral("cluster-memory-node.png"));
}

// A reconnect that lands on another cluster (a tunnel or a load balancer now leading elsewhere,
// both clusters up): the window says so, drops what it showed, and the browser then holds the
// new cluster's keys and none of the old one's.
void TstClusterWindow::anotherClusterIsNoticedAndShownAlone()
{
    TestCluster billing(3, 0);
    QString error;
    QVERIFY2(billing.start(&error), qPrintable(error));
    const QList<QByteArray> billingKeys = billing.populate(300, "billing:item:");
    FaultProxy seed(billing.seedPort());
    QVERIFY(seed.isListening());
    ConnectionProfile p;
    p.port = seed.port();
    p.cluster = true;
    p.name = QStringLiteral("orders-cluster");
    MainWindow w(p, m_settings);
    w.resize(1400, 860);
    w.show();
    w.start();
    KeyTreeModel *model = w.keyBrowser()->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->keyCount(), quint64(billingKeys.size()), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.keyBrowser()->scanner()->isRunning(), 30000);

    const quint64 orders = quint64(m_cluster.allKeys().size());
    seed.redirect(m_cluster.seedPort());
    QTRY_VERIFY2_WITH_TIMEOUT(w.statusBar()->currentMessage().contains(QStringLiteral("another cluster")),
                              qPrintable(w.statusBar()->currentMessage()), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(model->keyCount(), orders, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.keyBrowser()->scanner()->isRunning(), 30000);
    QCOMPARE(model->keyCount(), orders);
    QVERIFY(!model->contains(billingKeys.first()));
}

// Clients and commands are a node's own: the clients panel lists a connection made only to
// another primary once that node is picked, and the profiler then reads that node's commands.
void TstClusterWindow::clientsAndProfilerReadTheChosenNode()
{
    auto w = open(true);
    QTRY_VERIFY_WITH_TIMEOUT(w->client()->cluster() != nullptr, 20000);
    auto *picker = w->findChild<QComboBox *>(QStringLiteral("nodePicker"));
    quint16 other = 0;
    for (const quint16 port : m_cluster.primaryPorts())
        if (port != m_cluster.seedPort())
            other = port;
    QVERIFY(picker && other != 0);
    const QByteArray name = "billing-" + QUuid::createUuid().toByteArray(QUuid::Id128).left(12);
    RawConnection app(other);
    QCOMPARE(app.command({"CLIENT", "SETNAME", name}), RedisValue::status("OK"));
    const auto lists = [&w, &name] {
        for (const ClientEntry &c : w->clientsPanel()->reading().clients)
            if (c.name == name)
                return true;
        return false;
    };
    w->showPanel(QStringLiteral("clients"));
    QVERIFY(w->findChild<QWidget *>(QStringLiteral("nodeBar"))->isVisible());
    ClientsPanel *seedClients = w->clientsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(!seedClients->reading().clients.isEmpty(), 10000);
    QVERIFY(!lists());
    Q_EMIT picker->activated(picker->findData(QStringLiteral("127.0.0.1:%1").arg(other)));
    QVERIFY(w->clientsPanel() != seedClients);
    QCOMPARE(w->currentPanel(), QStringLiteral("clients"));
    QTRY_VERIFY_WITH_TIMEOUT(lists(), 10000);
    pictures(*w, QStringLiteral("cluster-clients-node"));

    // The profiler, on the seed by default, then on the other node: 400 ECHOs sent only there
    // are counted only once that node is picked.
    const auto echoes = [&w] {
        for (const profiler::CommandRate &r : w->profilerPanel()->reader()->tracker().rates())
            if (r.command == "echo")
                return r.sessionCalls;
        return qint64(0);
    };
    const auto echoMany = [&app] {
        QList<QList<QByteArray>> traffic;
        for (int i = 0; i < 400; ++i)
            traffic << QList<QByteArray>{"ECHO", "billing"};
        app.pipeline(traffic);
    };
    w->showPanel(QStringLiteral("profiler"));
    QCOMPARE(picker->currentIndex(), 0);
    QSignalSpy seedReadings(w->profilerPanel()->reader(), &ProfilerReader::statsAvailable);
    QVERIFY(seedReadings.wait(10000));
    echoMany();
    w->profilerPanel()->reader()->refresh();
    QVERIFY(seedReadings.wait(10000));
    QCOMPARE(echoes(), qint64(0));
    Q_EMIT picker->activated(picker->findData(QStringLiteral("127.0.0.1:%1").arg(other)));
    QSignalSpy nodeReadings(w->profilerPanel()->reader(), &ProfilerReader::statsAvailable);
    QVERIFY(nodeReadings.wait(10000));
    echoMany();
    w->profilerPanel()->reader()->refresh();
    QTRY_COMPARE_WITH_TIMEOUT(echoes(), qint64(400), 10000);
    pictures(*w, QStringLiteral("cluster-profiler-node"));
}

QTEST_MAIN(TstClusterWindow)
#include "tst_clusterwindow.moc"
