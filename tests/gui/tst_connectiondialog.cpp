// SPDX-License-Identifier: GPL-3.0-or-later
// The connection manager: a connection is saved without its password (which goes to the
// keychain), read back and connected to; imports keep their secrets out of the settings; a box
// without a keychain says so; a production connection marks its window.
#include "confirmations.h"
#include "connectiondialog.h"
#include "mainwindow.h"
#include "screenshots.h"
#include "secretstore.h"
#include "settings.h"
#include "testserver.h"
#include "theme.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <utility>

namespace {

// A keychain that keeps what it is given, as a Secret Service would: persistent.
class FakeKeychain final : public SecretStore
{
public:
    FakeKeychain()
    {
        // Answers come later, as a real keychain's do: one timer delivers what is due.
        m_deliver.setSingleShot(true);
        m_deliver.setInterval(0);
        connect(&m_deliver, &QTimer::timeout, this, [this] {
            const QList<std::function<void()>> due = std::exchange(m_due, {});
            for (const auto &answer : due)
                answer();
        });
    }
    QHash<QString, QString> secrets;
    QString description() const override { return QStringLiteral("the test keychain"); }
    bool persistent() const override { return true; }
    void read(const QString &key, ReadDone done) override
    {
        const auto it = secrets.constFind(key);
        const std::optional<QString> s = it == secrets.cend() ? std::nullopt : std::optional<QString>(*it);
        later([done, s] { done(s, {}); });
    }
    void write(const QString &key, const QString &secret, WriteDone done) override
    {
        secrets.insert(key, secret);
        later([done] { done(true, {}); });
    }
    void remove(const QString &key) override { secrets.remove(key); }

private:
    void later(std::function<void()> answer)
    {
        m_due.append(std::move(answer));
        m_deliver.start();
    }
    QTimer m_deliver;
    QList<std::function<void()>> m_due;
};

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray sample(const char *name)
{
    return readAll(qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/data/imports/")
                   + QLatin1String(name));
}

} // namespace

class TestConnectionDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void savedWithoutPasswordAndConnected();
    void importKeepsSecretsOutOfSettings();
    void withoutKeychainItSaysSo();
    void productionMarksTheWindow();
    void insecureTlsStaysInSight();
    void testWalksTheSteps();
    void sshSettingsSavedSecretsInTheKeychain();
    void scanReplicaSaved();
    void clusterSettingsSaved();
    void redlockSetSaved();
    void sentinelSettingsSaved();

private:
    QTemporaryDir m_dir;
    TestServer m_server;
};

void TestConnectionDialog::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(!qEnvironmentVariableIsEmpty("REDISLENS_SOURCE_DIR"));
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    QCOMPARE(m_server.command({"ACL", "SETUSER", "dialog-user", "on", ">dialog-secret", "~*", "+@all"}).bytes(),
             QByteArray("OK"));
}

void TestConnectionDialog::savedWithoutPasswordAndConnected()
{
    const QString ini = m_dir.filePath(QStringLiteral("saved.ini"));
    Settings settings(ini);
    FakeKeychain keychain;
    QString id;
    {
        ConnectionDialog d(&settings, &keychain);
        QCOMPARE(d.list()->count(), 0); // nothing saved: a new connection's form
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("orders"));
        d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
        d.findChild<QSpinBox *>(QStringLiteral("port"))->setValue(m_server.port());
        d.findChild<QLineEdit *>(QStringLiteral("user"))->setText(QStringLiteral("dialog-user"));
        auto *tag = d.findChild<QComboBox *>(QStringLiteral("tag"));
        tag->setCurrentIndex(tag->findText(QStringLiteral("production")));
        QVERIFY(d.findChild<QCheckBox *>(QStringLiteral("readOnly"))->isChecked()); // production: read-only
        d.setPassword(QStringLiteral("dialog-secret"));
        QVERIFY(d.findChild<QCheckBox *>(QStringLiteral("remember"))->isEnabled());
        d.findChild<QCheckBox *>(QStringLiteral("remember"))->setChecked(true);
        d.save();
        QCOMPARE(d.list()->count(), 1);
        QVERIFY(d.list()->item(0)->text().contains(QLatin1String("orders  (production)")));
        id = settings.connections().value(0).id;
        QVERIFY(!id.isEmpty());
        d.grab().save(QDir(screenshots::directory()).filePath(QStringLiteral("connection-manager.png")));
    }
    QTRY_COMPARE(keychain.secrets.value(id + QStringLiteral("/password")), QStringLiteral("dialog-secret"));
    QVERIFY(!readAll(ini).contains("dialog-secret"));
    QVERIFY(readAll(ini).contains("orders"));

    // A new dialog reads it back; Connect gives the profile with the password from the keychain.
    ConnectionDialog d(&settings, &keychain);
    QSignalSpy loaded(&d, &ConnectionDialog::passwordLoaded);
    d.list()->setCurrentRow(-1);
    d.list()->setCurrentRow(0);
    QVERIFY(loaded.wait(5000));
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("password"))->text(), QStringLiteral("dialog-secret"));
    Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
    QCOMPARE(d.result(), int(QDialog::Accepted));
    const ConnectionProfile p = d.chosenProfile();
    QCOMPARE(p.password, QStringLiteral("dialog-secret"));
    QVERIFY(p.readOnly);
    QCOMPARE(p.port, m_server.port());
    const auto client = connectedClient(p);
    QVERIFY(client);
    QVERIFY(client->facts().readOnly);
}

void TestConnectionDialog::importKeepsSecretsOutOfSettings()
{
    const QString ini = m_dir.filePath(QStringLiteral("import.ini"));
    Settings settings(ini);
    FakeKeychain keychain;
    ConnectionDialog d(&settings, &keychain);
    QString error;
    const QStringList notes = d.importText(sample("ardm.ano"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(notes.join(u'|').contains(QLatin1String("key separator")));
    d.importText(sample("redisinsight.json"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(d.list()->count(), 5);
    QCOMPARE(settings.connections().size(), 5);
    QTRY_COMPARE(keychain.secrets.size(), 6); // 4 passwords (the sentinel has none), 2 SSH passphrases
    const QByteArray stored = readAll(ini);
    for (const QString &secret : std::as_const(keychain.secrets))
        QVERIFY2(!stored.contains(secret.toUtf8()), qPrintable(secret));
    QVERIFY(!stored.contains("PRIVATE KEY"));
    // RedisInsight's PEM texts became files readable by this user only.
    const SavedConnection tls = settings.connections().at(3);
    QVERIFY(QFile::exists(tls.profile.clientKeyFile));
    QCOMPARE(QFile::permissions(tls.profile.clientKeyFile) & (QFile::ReadGroup | QFile::ReadOther),
             QFile::Permissions());
    QVERIFY(readAll(tls.profile.caCertFile).startsWith("-----BEGIN CERTIFICATE-----"));
}

void TestConnectionDialog::withoutKeychainItSaysSo()
{
    Settings settings(m_dir.filePath(QStringLiteral("nokeychain.ini")));
    MemorySecretStore memory;
    ConnectionDialog d(&settings, &memory);
    QVERIFY(!d.findChild<QCheckBox *>(QStringLiteral("remember"))->isEnabled());
    QVERIFY2(d.keychainNote().contains(QLatin1String("asked for each time and stored nowhere")),
             qPrintable(d.keychainNote()));
}

void TestConnectionDialog::productionMarksTheWindow()
{
    Settings settings(m_dir.filePath(QStringLiteral("window.ini")));
    SavedConnection c;
    c.id = QStringLiteral("prod-1");
    c.tag = SavedConnection::Tag::Production;
    c.colour = QColor(0xc0, 0x39, 0x2b);
    c.profile = m_server.profile();
    c.profile.name = QStringLiteral("orders");
    c.profile.readOnly = true;
    for (const auto t : {theme::Theme::Light, theme::Theme::Dark}) {
        theme::apply(t);
        MainWindow w(c.profile, &settings);
        w.setConnection(c);
        w.resize(1200, 700);
        w.show();
        w.start();
        QVERIFY2(w.windowTitle().contains(QLatin1String("orders (127.0.0.1:")), qPrintable(w.windowTitle()));
        QVERIFY2(w.windowTitle().contains(QLatin1String("[production]")), qPrintable(w.windowTitle()));
        QVERIFY(w.windowTitle().contains(QLatin1String("read-only")));
        QVERIFY2(w.environmentBannerText().contains(QLatin1String("PRODUCTION")),
                 qPrintable(w.environmentBannerText()));
        QVERIFY(w.environmentBannerText().contains(QLatin1String("read-only")));
        // The icon carries the connection's colour.
        const QImage icon = w.windowIcon().pixmap(32, 32).toImage();
        QCOMPARE(icon.pixelColor(16, 16).rgb(), c.colour.rgb());
        QTRY_VERIFY_WITH_TIMEOUT(w.client()->isReady(), 10000);
        screenshots::save(w.grab().toImage(),
                          t == theme::Theme::Dark ? QStringLiteral("production-window-dark.png")
                                                  : QStringLiteral("production-window.png"));
    }
    theme::apply(theme::Theme::System);
    // A read-only connection of another tag says so too, under its own tag.
    c.tag = SavedConnection::Tag::Staging;
    {
        MainWindow w(c.profile, &settings);
        w.setConnection(c);
        QVERIFY2(w.environmentBannerText().contains(QLatin1String("STAGING")), qPrintable(w.environmentBannerText()));
        QVERIFY(w.environmentBannerText().contains(QLatin1String("read-only")));
    }
    // So does a read-only connection from the command line, which has no tag.
    {
        MainWindow w(c.profile, &settings);
        QVERIFY2(w.environmentBannerText().contains(QLatin1String("READ-ONLY")), qPrintable(w.environmentBannerText()));
    }
    // A writable local connection has no banner.
    c.tag = SavedConnection::Tag::Local;
    c.profile.readOnly = false;
    MainWindow w(c.profile, &settings);
    w.setConnection(c);
    QVERIFY(w.environmentBannerText().isEmpty());
    QVERIFY2(w.windowTitle().contains(QLatin1String("[local]")), qPrintable(w.windowTitle()));
}

void TestConnectionDialog::insecureTlsStaysInSight()
{
    Settings settings(m_dir.filePath(QStringLiteral("insecure.ini")));
    ConnectionProfile p = m_server.profile();
    {
        MainWindow w(p, &settings);
        QVERIFY(w.insecureBannerText().isEmpty());
    }
    p.tls = true;
    p.tlsInsecure = true;
    MainWindow w(p, &settings);
    w.resize(1200, 700);
    w.show();
    QVERIFY2(w.insecureBannerText().contains(QLatin1String("the server's certificate is not checked (--insecure)")),
             qPrintable(w.insecureBannerText()));
    screenshots::save(w.grab().toImage(), QStringLiteral("insecure-window.png"));
}

// Test runs check's steps on the form as it stands, password included, and shows the report.
void TestConnectionDialog::testWalksTheSteps()
{
    Settings settings(m_dir.filePath(QStringLiteral("test.ini")));
    MemorySecretStore memory;
    ConnectionDialog d(&settings, &memory);
    d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
    d.findChild<QSpinBox *>(QStringLiteral("port"))->setValue(m_server.port());
    d.findChild<QLineEdit *>(QStringLiteral("user"))->setText(QStringLiteral("dialog-user"));
    d.setPassword(QStringLiteral("dialog-secret"));
    QSignalSpy finished(&d, &ConnectionDialog::testFinished);
    d.testConnection();
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QVERIFY2(d.testReport().contains(QLatin1String("ok       auth         accepted as dialog-user")),
             qPrintable(d.testReport()));
    QVERIFY(d.testReport().contains(QLatin1String("panels:")));
    QVERIFY(!d.testReport().contains(QLatin1String("dialog-secret")));
    d.resize(900, 760);
    screenshots::save(d.grab().toImage(), QStringLiteral("connection-test.png"));

    d.setPassword(QStringLiteral("not-the-password"));
    d.testConnection();
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.last().first().toInt(), 2);
    QVERIFY2(d.testReport().contains(QLatin1String("failed   auth")), qPrintable(d.testReport()));
}

// The SSH settings are saved with the connection; the key's passphrase goes to the keychain only.
// Each tab is pictured in both palettes, and says when TLS or SSH is on.
void TestConnectionDialog::sshSettingsSavedSecretsInTheKeychain()
{
    const QString ini = m_dir.filePath(QStringLiteral("ssh.ini"));
    Settings settings(ini);
    FakeKeychain keychain;
    const QString phrase = QStringLiteral("ssh-phrase-in-keychain");
    const QString keyFile = m_dir.filePath(QStringLiteral("id_jump"));
    QString id;
    {
        ConnectionDialog d(&settings, &keychain);
        auto *tabs = d.findChild<QTabWidget *>(QStringLiteral("formTabs"));
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(2), QStringLiteral("SSH tunnel"));
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("behind"));
        d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
        auto *sshKey = d.findChild<QLineEdit *>(QStringLiteral("sshKey"));
        QVERIFY(!sshKey->isEnabled()); // nothing to log in to without a bastion
        d.findChild<QLineEdit *>(QStringLiteral("sshHost"))->setText(QStringLiteral("jump@127.0.0.1:2222"));
        QVERIFY(sshKey->isEnabled());
        QCOMPARE(tabs->tabText(2), QStringLiteral("SSH tunnel (on)"));
        sshKey->setText(keyFile);
        d.findChild<QLineEdit *>(QStringLiteral("sshPassphrase"))->setText(phrase);
        d.findChild<QCheckBox *>(QStringLiteral("remember"))->setChecked(true);
        d.save();
        id = settings.connections().value(0).id;
        d.resize(920, 620);
        d.show();
        for (const auto t : {theme::Theme::Light, theme::Theme::Dark}) {
            theme::apply(t);
            QCoreApplication::processEvents(); // the palette reaches a dialog built before it
            const QString suffix = t == theme::Theme::Dark ? QStringLiteral("-dark.png") : QStringLiteral(".png");
            const QStringList names{QStringLiteral("server"), QStringLiteral("tls"), QStringLiteral("ssh")};
            for (int tab = 0; tab < names.size(); ++tab) {
                tabs->setCurrentIndex(tab);
                screenshots::save(d.grab().toImage(), QStringLiteral("connection-manager-") + names.at(tab) + suffix);
            }
        }
        theme::apply(theme::Theme::System);
    }
    QTRY_COMPARE(keychain.secrets.value(id + QStringLiteral("/ssh-passphrase")), phrase);
    const QByteArray stored = readAll(ini);
    QVERIFY(!stored.contains(phrase.toUtf8()));
    QVERIFY(stored.contains("jump"));

    ConnectionDialog d(&settings, &keychain);
    QSignalSpy loaded(&d, &ConnectionDialog::passwordLoaded);
    d.list()->setCurrentRow(-1);
    d.list()->setCurrentRow(0);
    QVERIFY(loaded.wait(5000));
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("sshPassphrase"))->text(), phrase);
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("sshHost"))->text(), QStringLiteral("jump@127.0.0.1:2222"));
    Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
    const ConnectionProfile p = d.chosenProfile();
    QCOMPARE(p.ssh.user, QStringLiteral("jump"));
    QCOMPARE(p.ssh.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(p.ssh.port, quint16(2222));
    QCOMPARE(p.ssh.keyFile, keyFile);
    QCOMPARE(p.ssh.keyPassphrase, phrase);
    QVERIFY(p.displayName().contains(QLatin1String("via jump@127.0.0.1:2222")));
}

// The Server tab's "Scan through replica": saved with the connection, shown again, and in the
// profile the window opens with.
void TestConnectionDialog::scanReplicaSaved()
{
    Settings settings(m_dir.filePath(QStringLiteral("replica.ini")));
    FakeKeychain keychain;
    {
        ConnectionDialog d(&settings, &keychain);
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("orders"));
        d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
        d.findChild<QLineEdit *>(QStringLiteral("scanReplica"))->setText(QStringLiteral(" 127.0.0.2:6390 "));
        d.save();
    }
    QCOMPARE(settings.connections().value(0).profile.scanReplica(), QStringLiteral("127.0.0.2:6390"));
    ConnectionDialog d(&settings, &keychain);
    d.list()->setCurrentRow(-1);
    d.list()->setCurrentRow(0);
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("scanReplica"))->text(), QStringLiteral("127.0.0.2:6390"));
    Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
    const ConnectionProfile p = d.chosenProfile();
    QCOMPARE(p.scanProfile().host, QStringLiteral("127.0.0.2"));
    QCOMPARE(p.scanProfile().port, quint16(6390));
    QCOMPARE(p.port, quint16(6379));
}

// Redis Cluster with an address map: saved, shown again, in the chosen profile; a map that is
// not one is refused with its reason, and the map's rows show only for a cluster.
void TestConnectionDialog::clusterSettingsSaved()
{
    Settings settings(m_dir.filePath(QStringLiteral("cluster.ini")));
    FakeKeychain keychain;
    {
        ConnectionDialog d(&settings, &keychain);
        d.show();
        auto *map = d.findChild<QLineEdit *>(QStringLiteral("clusterMap"));
        QVERIFY(!map->isVisible());
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("orders-cluster"));
        d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
        d.findChild<QCheckBox *>(QStringLiteral("cluster"))->setChecked(true);
        QVERIFY(map->isVisible());
        map->setText(QStringLiteral("127.0.0.30:6379=127.0.0.1:7001, 127.0.0.31=127.0.0.1"));
        d.findChild<QCheckBox *>(QStringLiteral("clusterKeepHost"))->setChecked(true);
        auto *seeds = d.findChild<QLineEdit *>(QStringLiteral("clusterSeeds"));
        QVERIFY(seeds->isVisible());
        seeds->setText(QStringLiteral("127.0.0.1:7002 127.0.0.1:7003,"));
        auto *replicas = d.findChild<QCheckBox *>(QStringLiteral("clusterScanReplicas"));
        QVERIFY(replicas->isVisible());
        replicas->setChecked(true);
        d.save();
    }
    const ConnectionProfile saved = settings.connections().value(0).profile;
    QVERIFY(saved.cluster);
    QVERIFY(saved.clusterScanReplicas);
    QVERIFY(saved.clusterKeepSeedHost);
    QCOMPARE(saved.clusterAddressMap, QStringLiteral("127.0.0.30:6379=127.0.0.1:7001,127.0.0.31=127.0.0.1"));
    QCOMPARE(saved.clusterSeeds, (QStringList{QStringLiteral("127.0.0.1:7002"), QStringLiteral("127.0.0.1:7003")}));
    ConnectionDialog d(&settings, &keychain);
    d.list()->setCurrentRow(-1);
    d.list()->setCurrentRow(0);
    QVERIFY(d.findChild<QCheckBox *>(QStringLiteral("cluster"))->isChecked());
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("clusterMap"))->text(), saved.clusterAddressMap);
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("clusterSeeds"))->text(),
             QStringLiteral("127.0.0.1:7002, 127.0.0.1:7003"));
    Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
    QVERIFY(d.chosenProfile().cluster);
    QCOMPARE(d.chosenProfile().clusterAddressMap, saved.clusterAddressMap);
    QCOMPARE(d.chosenProfile().clusterSeeds, saved.clusterSeeds);
    QVERIFY(d.chosenProfile().clusterScanReplicas);
}

// A Redlock set: the other primaries are saved, shown again and in the chosen profile; an
// address that is not host:port, or a set on a cluster, is refused with its reason.
void TestConnectionDialog::redlockSetSaved()
{
    Settings settings(m_dir.filePath(QStringLiteral("redlock.ini")));
    FakeKeychain keychain;
    {
        ConnectionDialog d(&settings, &keychain);
        d.show();
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("locks-a"));
        d.findChild<QLineEdit *>(QStringLiteral("host"))->setText(QStringLiteral("127.0.0.1"));
        auto *peers = d.findChild<QLineEdit *>(QStringLiteral("redlockPeers"));
        QVERIFY(peers && peers->isVisible());
        peers->setText(QStringLiteral("127.0.0.1"));
        {
            ConfirmationAnswerer refused(ConfirmationAnswerer::Reject); // answers the warning
            d.save();
            QCOMPARE(refused.count(), 1);
            QVERIFY2(refused.text().contains(QLatin1String("is not host:port")), qPrintable(refused.text()));
        }
        QVERIFY(settings.connections().isEmpty());
        peers->setText(QStringLiteral("127.0.0.1:7102"));
        d.findChild<QCheckBox *>(QStringLiteral("cluster"))->setChecked(true);
        {
            ConfirmationAnswerer refused(ConfirmationAnswerer::Reject);
            d.save();
            QCOMPARE(refused.count(), 1);
            QVERIFY2(refused.text().contains(QLatin1String("independent primaries")), qPrintable(refused.text()));
        }
        QVERIFY(settings.connections().isEmpty());
        d.findChild<QCheckBox *>(QStringLiteral("cluster"))->setChecked(false);
        peers->setText(QStringLiteral("127.0.0.1:7102, 127.0.0.1:7103"));
        d.save();
    }
    const ConnectionProfile saved = settings.connections().value(0).profile;
    QCOMPARE(saved.redlockPeers, (QStringList{QStringLiteral("127.0.0.1:7102"), QStringLiteral("127.0.0.1:7103")}));
    ConnectionDialog d(&settings, &keychain);
    d.list()->setCurrentRow(-1);
    d.list()->setCurrentRow(0);
    QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("redlockPeers"))->text(),
             QStringLiteral("127.0.0.1:7102, 127.0.0.1:7103"));
    Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
    QCOMPARE(d.chosenProfile().redlockPeers, saved.redlockPeers);
}

// Sentinel: the addresses, the master's name and the sentinels' user are saved; their password
// is a secret like the others (in the profile the window opens with, never in the settings file).
void TestConnectionDialog::sentinelSettingsSaved()
{
    const QString file = m_dir.filePath(QStringLiteral("sentinel.ini"));
    {
        Settings settings(file);
        FakeKeychain keychain;
        ConnectionDialog d(&settings, &keychain);
        d.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("payments"));
        d.findChild<QLineEdit *>(QStringLiteral("sentinels"))
            ->setText(QStringLiteral("127.0.0.1:26379, 127.0.0.2:26379"));
        d.findChild<QLineEdit *>(QStringLiteral("sentinelMaster"))->setText(QStringLiteral("payments-primary"));
        d.findChild<QLineEdit *>(QStringLiteral("sentinelUser"))->setText(QStringLiteral("watcher"));
        d.findChild<QLineEdit *>(QStringLiteral("sentinelPassword"))->setText(QStringLiteral("s3ntinel-secret-71"));
        d.findChild<QCheckBox *>(QStringLiteral("sentinelReplica"))->setChecked(true);
        d.save();
        const ConnectionProfile saved = settings.connections().value(0).profile;
        QVERIFY(saved.sentinelReplica);
        QCOMPARE(saved.sentinels, (QStringList{QStringLiteral("127.0.0.1:26379"), QStringLiteral("127.0.0.2:26379")}));
        QCOMPARE(saved.sentinelMaster, QStringLiteral("payments-primary"));
        QCOMPARE(saved.sentinelUsername, QStringLiteral("watcher"));
        QVERIFY(saved.sentinelPassword.isEmpty());
        Q_EMIT d.list()->itemDoubleClicked(d.list()->item(0));
        QCOMPARE(d.chosenProfile().sentinelPassword, QStringLiteral("s3ntinel-secret-71"));
        QVERIFY(d.chosenProfile().sentinelReplica);
        QVERIFY2(d.chosenProfile().displayName().contains(QStringLiteral("payments-primary via Sentinel")),
                 qPrintable(d.chosenProfile().displayName()));
    }
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray written = f.readAll();
    QVERIFY(written.contains("payments-primary"));
    QVERIFY(Settings(file).connections().value(0).profile.sentinelReplica); // read back from the file
    QVERIFY(!written.contains("s3ntinel-secret-71"));
}

QTEST_MAIN(TestConnectionDialog)
#include "tst_connectiondialog.moc"
