// SPDX-License-Identifier: GPL-3.0-or-later
// The key browser following a real server's keyspace notifications: after one scan, keys another
// client creates, changes, deletes, lets expire and renames appear, change and go in the tree
// without a second SCAN (INFO commandstats says so), the selection and the open folders stay,
// and what following cannot do it says: events dropped by the bound, notifications off on the
// server, a cluster. A read-only connection follows too, and sends nothing that writes.
#include "commandstats.h"
#include "keybrowser.h"
#include "keyspacefollower.h"
#include "keytreemodel.h"
#include "redisclient.h"
#include "screenshots.h"
#include "testserver.h"
#include "theme.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QLineEdit>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

namespace {

constexpr int kWaitMs = 10000;

// A browser on its own connection to 'profile', scanned once, with a follower set.
struct Browser
{
    std::unique_ptr<RedisClient> client;
    std::unique_ptr<KeyBrowser> browser;
    KeyspaceFollower *follower = nullptr;

    QCheckBox *box() const { return browser->findChild<QCheckBox *>(QStringLiteral("followKeyEvents")); }
    KeyTreeModel *model() const { return browser->model(); }
    KeyType typeOf(const QByteArray &key) const
    {
        return KeyType(model()->data(model()->indexForKey(key), KeyTreeModel::KeyTypeRole).toInt());
    }
    qint64 expireAt(const QByteArray &key) const
    {
        return model()->data(model()->indexForKey(key), KeyTreeModel::ExpireAtRole).toLongLong();
    }
};

bool scan(KeyBrowser &browser, const QString &match = {}, KeyType type = KeyType::Unknown)
{
    browser.findChild<QLineEdit *>(QStringLiteral("scanMatch"))->setText(match);
    auto *types = browser.findChild<QComboBox *>(QStringLiteral("scanType"));
    types->setCurrentIndex(types->findData(int(type)));
    QSignalSpy done(&browser, &KeyBrowser::scanCompleted);
    browser.startScan();
    return done.wait(kWaitMs);
}

// The server's flags of a command ("set" → write, denyoom…; "config|set" too).
QList<QByteArray> serverFlags(RawConnection &raw, const QByteArray &name)
{
    const RedisValue info = raw.command({"COMMAND", "INFO", name});
    QList<QByteArray> flags;
    if (info.size() == 1 && info.at(0).size() > 2) {
        for (const RedisValue &f : info.at(0).at(2).elements())
            flags.append(f.bytes());
    }
    return flags;
}

} // namespace

class TestKeyspaceFollow : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RawConnection> m_raw; // the other client: writes, and reads the server's stats

    RedisValue admin(const QList<QByteArray> &argv) { return m_raw->command(argv); }

    std::unique_ptr<Browser> open(const ConnectionProfile &profile, bool scanFirst = true)
    {
        auto b = std::make_unique<Browser>();
        b->client = connectedClient(profile);
        if (!b->client)
            return nullptr;
        b->browser = std::make_unique<KeyBrowser>(b->client.get());
        b->browser->resize(560, 640);
        b->follower = new KeyspaceFollower(profile, profile.db, b->browser.get());
        b->follower->setInterval(50);
        b->browser->setFollower(b->follower);
        if (scanFirst && !scan(*b->browser))
            return nullptr;
        return b;
    }

    // Follow, and wait until the subscription is made.
    static bool follow(Browser &b)
    {
        if (!QTest::qWaitFor([&b] { return b.box()->isEnabled(); }, kWaitMs))
            return false;
        b.box()->setChecked(true);
        return QTest::qWaitFor([&b] { return b.follower->isFollowing(); }, kWaitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        m_raw = std::make_unique<RawConnection>(m_server.port());
    }

    void init()
    {
        m_server.flushAll();
        QCOMPARE(admin({"CONFIG", "SET", "notify-keyspace-events", "KEA"}).bytes(), QByteArray("OK"));
    }

    void followsCreatedChangedAndGone()
    {
        m_raw->pipeline({{"SET", "user:1", "a"},
                         {"HSET", "user:2", "f", "v"},
                         {"SET", "old:name", "x"},
                         {"SET", "tmp:gone", "x"},
                         {"SET", "soon:gone", "x"},
                         {"SET", "solo:only", "x"}});
        auto b = open(m_server.profile());
        QVERIFY(b);
        KeyBrowser &browser = *b->browser;
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QCOMPARE(b->model()->keyCount(), quint64(6));
        QVERIFY(follow(*b));
        QVERIFY(b->box()->toolTip().contains(QStringLiteral("every change")));
        const qint64 scansBefore = commandCalls(*m_raw, {"scan"});

        // The user's place in the tree: a folder open, a key selected.
        QTreeView *view = browser.view();
        view->expand(b->model()->indexForPrefix("user:"));
        QVERIFY(browser.selectKey("user:1"));

        static const char raw[] = "bin:\0\xff key";
        const QByteArray binary(raw, sizeof raw - 1);
        m_raw->pipeline({{"SET", "user:3", "new"},
                         {"HSET", "user:4", "f", "v"},
                         {"SET", binary, "v"},
                         {"DEL", "tmp:gone"},
                         {"DEL", "solo:only"},
                         {"PEXPIRE", "soon:gone", "50"},
                         {"RENAME", "old:name", "new:name"},
                         {"SET", "user:2", "was a hash"},
                         {"EXPIRE", "user:1", "600"}});

        KeyTreeModel *model = b->model();
        QTRY_VERIFY_WITH_TIMEOUT(model->contains("user:3"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(model->contains("user:4"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(model->contains(binary), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!model->contains("tmp:gone"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!model->contains("old:name"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(model->contains("new:name"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!model->contains("soon:gone"), kWaitMs); // expired on the server
        QTRY_COMPARE_WITH_TIMEOUT(b->typeOf("user:2"), KeyType::String, kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(b->expireAt("user:1") > QDateTime::currentMSecsSinceEpoch(), kWaitMs);
        QCOMPARE(b->typeOf("user:3"), KeyType::String);
        QCOMPARE(b->typeOf("user:4"), KeyType::Hash);
        QCOMPARE(b->typeOf("new:name"), KeyType::String);
        QCOMPARE(b->expireAt("user:3"), qint64(-1));
        // A folder whose last key went goes too; the open one stays open, the selection stays.
        QVERIFY(!model->indexForPrefix("solo:").isValid());
        QVERIFY(!model->indexForPrefix("tmp:").isValid());
        QVERIFY(view->isExpanded(model->indexForPrefix("user:")));
        QCOMPARE(browser.selectedKey(), QByteArray("user:1"));
        QCOMPARE(model->keyCount(), quint64(admin({"DBSIZE"}).toInteger()));
        // No second scan: one pipeline of TYPE and PTTL per batch did it.
        QCOMPARE(commandCalls(*m_raw, {"scan"}), scansBefore);
        QVERIFY(browser.followNote().isEmpty());

        // An HSET on a hash the tree holds changes nothing it shows: no lookup for it.
        const qint64 typesBefore = commandCalls(*m_raw, {"type"});
        admin({"HSET", "user:4", "g", "w"});
        admin({"SET", "user:5", "marker"});
        QTRY_VERIFY_WITH_TIMEOUT(model->contains("user:5"), kWaitMs);
        QCOMPARE(commandCalls(*m_raw, {"type"}), typesBefore + 1);

        for (const bool dark : {false, true}) {
            const QPalette light = QApplication::palette();
            const auto restore = qScopeGuard([&light] { QApplication::setPalette(light); });
            if (dark)
                QApplication::setPalette(theme::darkPalette());
            QCoreApplication::processEvents(); // the widgets take the palette change
            view->expandAll();
            QVERIFY(screenshots::save(
                browser.grab().toImage(),
                QStringLiteral("keyspace-follow-%1.png").arg(dark ? QLatin1String("dark") : QLatin1String("light"))));
        }

        // Unchecked: no more changes.
        b->box()->setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(!b->follower->isStarted(), kWaitMs);
        admin({"SET", "user:6", "unseen"});
        QTest::qWait(300);
        QVERIFY(!model->contains("user:6"));
    }

    // The scan's MATCH and TYPE say what the tree holds: following keeps to them.
    void keepsToTheScansMatchAndType()
    {
        m_raw->pipeline({{"HSET", "user:1", "f", "v"}, {"SET", "user:s", "v"}, {"HSET", "other:1", "f", "v"}});
        auto b = open(m_server.profile(), false);
        QVERIFY(b);
        QVERIFY(scan(*b->browser, QStringLiteral("user:*"), KeyType::Hash));
        QCOMPARE(b->model()->keyCount(), quint64(1));
        QVERIFY(follow(*b));
        QCOMPARE(b->follower->pattern(), QByteArray("user:*"));
        m_raw->pipeline({{"HSET", "other:2", "f", "v"},
                         {"SET", "user:string", "v"},
                         {"HSET", "user:2", "f", "v"},
                         {"SET", "user:1", "now a string"}});
        QTRY_VERIFY_WITH_TIMEOUT(b->model()->contains("user:2"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!b->model()->contains("user:1"), kWaitMs); // left the TYPE filter
        QTest::qWait(200);
        QVERIFY(!b->model()->contains("other:2"));
        QVERIFY(!b->model()->contains("user:string"));
        QCOMPARE(b->model()->keyCount(), quint64(1));

        // Another MATCH: the subscription moves with it (PUNSUBSCRIBE, PSUBSCRIBE on one connection).
        QVERIFY(scan(*b->browser, QStringLiteral("other:*")));
        QCOMPARE(b->follower->pattern(), QByteArray("other:*"));
        QCOMPARE(b->model()->keyCount(), quint64(2));
        QTRY_VERIFY_WITH_TIMEOUT(b->follower->isFollowing(), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(commandCalls(*m_raw, {"punsubscribe"}) >= 1, kWaitMs);
        m_raw->pipeline({{"SET", "user:late", "v"}, {"SET", "other:3", "v"}});
        QTRY_VERIFY_WITH_TIMEOUT(b->model()->contains("other:3"), kWaitMs);
        QVERIFY(!b->model()->contains("user:late"));
    }

    // More events at once than the bound lets wait: the browser says some were missed.
    void droppedEventsAreSaid()
    {
        auto b = open(m_server.profile());
        QVERIFY(b);
        b->follower->setMessageBound(5, 1 << 20);
        QVERIFY(follow(*b));
        // The GUI thread waits on this pipeline: the follower's worker queues what arrives
        // meanwhile and drops what is past the bound.
        QList<QList<QByteArray>> burst;
        for (int i = 0; i < 2000; ++i)
            burst.append({"SET", "burst:" + QByteArray::number(i), "v"});
        m_raw->pipeline(burst);
        QTRY_VERIFY_WITH_TIMEOUT(b->browser->followNote().contains(QStringLiteral("missed")), kWaitMs);
        QVERIFY2(b->browser->followNote().contains(QStringLiteral("rescan")), qPrintable(b->browser->followNote()));
        QVERIFY(b->model()->keyCount() < 2000);
        b->browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(b->browser.get()));
        QVERIFY(screenshots::save(b->browser->grab().toImage(), QStringLiteral("keyspace-follow-missed.png")));
        // A rescan reads them all, and the note goes.
        QVERIFY(scan(*b->browser));
        QCOMPARE(b->model()->keyCount(), quint64(2000));
        QVERIFY(b->browser->followNote().isEmpty());
    }

    // The follower's connection cut: it subscribes again, and says what it could not see.
    void resubscribesAfterReconnect()
    {
        auto b = open(m_server.profile());
        QVERIFY(b);
        QVERIFY(follow(*b));
        QVERIFY(admin({"CLIENT", "KILL", "TYPE", "pubsub"}).toInteger() >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(b->browser->followNote().contains(QStringLiteral("lost")), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(b->follower->isFollowing(), kWaitMs);
        admin({"SET", "after:reconnect", "v"});
        QTRY_VERIFY_WITH_TIMEOUT(b->model()->contains("after:reconnect"), kWaitMs);
    }

    // Off on the server: the box is off and says why, with a setting to use; turned off while
    // following, a rescan notices and following stops.
    void notificationsOff()
    {
        admin({"CONFIG", "SET", "notify-keyspace-events", ""});
        auto b = open(m_server.profile());
        QVERIFY(b);
        QTRY_VERIFY_WITH_TIMEOUT(b->box()->toolTip().contains(QStringLiteral("off")), kWaitMs);
        QVERIFY(!b->box()->isEnabled());
        QVERIFY2(b->box()->text().contains(QStringLiteral("off on the server")), qPrintable(b->box()->text()));
        QVERIFY2(b->box()->toolTip().contains(QStringLiteral("CONFIG SET notify-keyspace-events KA")),
                 qPrintable(b->box()->toolTip()));
        QVERIFY(b->box()->toolTip().contains(QStringLiteral("never changes it")));
        QCOMPARE(admin({"CONFIG", "GET", "notify-keyspace-events"}).at(1).bytes(), QByteArray()); // untouched
        b->browser->show();
        QVERIFY(QTest::qWaitForWindowExposed(b->browser.get()));
        QVERIFY(screenshots::save(b->browser->grab().toImage(), QStringLiteral("keyspace-follow-off.png")));

        admin({"CONFIG", "SET", "notify-keyspace-events", "Kgx"});
        QVERIFY(scan(*b->browser)); // a rescan reads the setting again
        QTRY_VERIFY_WITH_TIMEOUT(b->box()->isEnabled(), kWaitMs);
        QVERIFY(b->box()->toolTip().contains(QStringLiteral("partly on")));
        QVERIFY(follow(*b));
        admin({"CONFIG", "SET", "notify-keyspace-events", ""});
        QVERIFY(scan(*b->browser));
        QTRY_VERIFY_WITH_TIMEOUT(!b->box()->isEnabled(), kWaitMs);
        QVERIFY(!b->box()->isChecked());
        QVERIFY(!b->follower->isStarted());
        QVERIFY(b->browser->followNote().contains(QStringLiteral("stopped")));
    }

    // A read-only profile follows: CONFIG GET, PSUBSCRIBE, TYPE and PTTL only, nothing that writes.
    void readOnlyProfile()
    {
        m_raw->pipeline({{"SET", "ro:old", "x"}, {"SET", "ro:kept", "x"}});
        QCOMPARE(admin({"CONFIG", "RESETSTAT"}).bytes(), QByteArray("OK"));
        ConnectionProfile profile = m_server.profile();
        profile.readOnly = true;
        auto b = open(profile);
        QVERIFY(b);
        QVERIFY(follow(*b));
        m_raw->pipeline({{"SET", "ro:new", "v"}, {"DEL", "ro:old"}}); // the test's own writes
        QTRY_VERIFY_WITH_TIMEOUT(b->model()->contains("ro:new"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!b->model()->contains("ro:old"), kWaitMs);
        b.reset();

        const QHash<QByteArray, qint64> calls = commandCalls(*m_raw);
        QCOMPARE(calls.value("set"), qint64(1));
        QCOMPARE(calls.value("del"), qint64(1));
        QVERIFY(calls.value("psubscribe") >= 1);
        QVERIFY(calls.value("config|get") >= 1);
        QCOMPARE(calls.value("config|set"), qint64(0));
        QStringList sent;
        for (auto it = calls.cbegin(); it != calls.cend(); ++it) {
            if (it.value() == 0)
                continue;
            sent << QString::fromLatin1(it.key());
            if (it.key() == "set" || it.key() == "del" || it.key() == "config|resetstat")
                continue; // the test's own
            QVERIFY2(!serverFlags(*m_raw, it.key()).contains("write"), it.key().constData());
        }
        qInfo("read-only browser and follower sent: %s", qPrintable(sent.join(QLatin1Char(' '))));
    }

    // Without a browser: the follower reads the setting on its own connection before it
    // subscribes, and follows the keyevent channels when the server publishes only those.
    void followerOnItsOwn()
    {
        admin({"CONFIG", "SET", "notify-keyspace-events", "Eg$x"});
        KeyspaceFollower follower(m_server.profile(), 0);
        follower.setInterval(50);
        follower.setPattern("mine:*");
        QSignalSpy read(&follower, &KeyspaceFollower::settingRead);
        follower.checkSetting();
        QVERIFY(read.wait(kWaitMs));
        const auto setting = read.first().first().value<keyspaceevents::Setting>();
        QVERIFY(setting.followable);
        QVERIFY(!setting.complete);
        QTRY_VERIFY_WITH_TIMEOUT(!follower.connection(), kWaitMs); // closed again: not following

        QHash<QByteArray, bool> present; // each key's last state, over every batch
        connect(&follower, &KeyspaceFollower::changesAvailable, this,
                [&present](const keyspaceevents::ChangeBatch &batch) {
                    for (const keyspaceevents::KeyChange &c : batch.changed)
                        present.insert(c.key, true);
                    for (const keyspaceevents::KeyChange &c : batch.removed)
                        present.insert(c.key, false);
                });
        follower.start();
        QTRY_VERIFY_WITH_TIMEOUT(follower.isFollowing(), kWaitMs);
        m_raw->pipeline({{"SET", "other:1", "v"}, {"SET", "mine:1", "v"}, {"DEL", "mine:1"}, {"SET", "mine:2", "v"}});
        QTRY_VERIFY_WITH_TIMEOUT(present.value("mine:2"), kWaitMs);
        QVERIFY(present.contains("mine:1"));
        QVERIFY(!present.value("mine:1"));
        QVERIFY(!present.contains("other:1")); // filtered here: keyevent messages carry every key
        follower.stop();
        QVERIFY(!follower.connection());
    }

    // A cluster publishes each key's events on its node: not followed yet, and said so.
    void clusterNotSupported()
    {
        RedisClient client(ConnectionProfile{}); // never connected
        KeyBrowser browser(&client);
        ConnectionProfile profile;
        profile.cluster = true;
        KeyspaceFollower follower(profile, 0);
        QVERIFY(follower.unsupportedReason().contains(QStringLiteral("Cluster")));
        QSignalSpy changed(&follower, &KeyspaceFollower::followingChanged);
        follower.start();
        QCOMPARE(changed.size(), 1);
        QVERIFY(!follower.isStarted());
        browser.setFollower(&follower);
        QVERIFY(!browser.findChild<QCheckBox *>(QStringLiteral("followKeyEvents"))->isEnabled());
        QCOMPARE(browser.findChild<QCheckBox *>(QStringLiteral("followKeyEvents"))->toolTip(),
                 follower.unsupportedReason());
        browser.setFollower(nullptr);
    }
};

QTEST_MAIN(TestKeyspaceFollow)
#include "tst_keyspacefollow.moc"
