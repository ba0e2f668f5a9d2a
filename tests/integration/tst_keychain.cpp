// SPDX-License-Identifier: GPL-3.0-or-later
// SecretStore against a real Secret Service: gnome-keyring-daemon in a D-Bus session of this
// test's own (dbus-run-session), with a home of its own, so no keychain of the person running
// the tests is touched. Without a keychain service in the session, the store says so and keeps
// secrets in memory only. In neither case does a secret reach a file in plain text.
#include "secretstore.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QEventLoop>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace {

const QString kSecret = QStringLiteral("keychain-test-secret-7f3a");

std::optional<QString> readBack(SecretStore &store, const QString &key, QString *error)
{
    std::optional<QString> out;
    QEventLoop loop;
    store.read(key, [&](const std::optional<QString> &s, const QString &e) {
        out = s;
        *error = e;
        loop.quit();
    });
    QTimer::singleShot(20000, &loop, &QEventLoop::quit);
    loop.exec();
    return out;
}

bool writeTo(SecretStore &store, const QString &key, const QString &secret, QString *error)
{
    bool ok = false;
    QEventLoop loop;
    store.write(key, secret, [&](bool done, const QString &e) {
        ok = done;
        *error = e;
        loop.quit();
    });
    QTimer::singleShot(20000, &loop, &QEventLoop::quit);
    loop.exec();
    return ok;
}

// Every file under 'dir' that holds 'needle' in plain text.
QStringList filesHolding(const QString &dir, const QByteArray &needle)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle))
            out << f.fileName();
    }
    return out;
}

} // namespace

class TestKeychain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void realSecretService();
    void noSecretService();
    // Run in the D-Bus sessions the two above start: this binary again, one function each.
    void inSessionWithKeyring();
    void inSessionWithoutKeyring();

private:
    void runInSession(const QString &function, bool keyring);
};

void TestKeychain::runInSession(const QString &function, bool keyring)
{
    // script/bootstrap installs both: their absence is a failure, not a reason to skip.
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("dbus-run-session")).isEmpty(),
             "dbus-run-session is missing (script/bootstrap installs dbus)");
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("gnome-keyring-daemon")).isEmpty(),
             "gnome-keyring-daemon is missing (script/bootstrap installs gnome-keyring)");
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"})
        env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("REDISLENS_KEYCHAIN_CHILD"), QStringLiteral("1"));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    const QString start = keyring
        ? QStringLiteral("printf 'unlock-the-test-keyring' | gnome-keyring-daemon --unlock --components=secrets "
                         ">/dev/null 2>&1; ")
        : QString();
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("dbus-run-session"),
            {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             start + QStringLiteral("exec \"$0\" \"$1\""), QCoreApplication::applicationFilePath(), function});
    QVERIFY(p.waitForFinished(90000));
    const QByteArray output = p.readAllStandardOutput() + p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, output.constData());
    QVERIFY2(output.contains(QByteArray("PASS   : TestKeychain::").append(function.toUtf8())), output.constData());
    // Whatever the session wrote (the keyring file included) holds no secret in plain text.
    const QStringList holding = filesHolding(home.path(), kSecret.toUtf8());
    QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u' ')));
}

void TestKeychain::realSecretService()
{
    runInSession(QStringLiteral("inSessionWithKeyring"), true);
}

void TestKeychain::noSecretService()
{
    runInSession(QStringLiteral("inSessionWithoutKeyring"), false);
}

void TestKeychain::inSessionWithKeyring()
{
    if (qEnvironmentVariableIsEmpty("REDISLENS_KEYCHAIN_CHILD"))
        QSKIP("runs in the D-Bus session realSecretService starts");
    const auto store = SecretStore::system();
    QSignalSpy unavailable(store.get(), &SecretStore::unavailable);
    QString error;
    const QString key = SecretStore::keyOf(QStringLiteral("test-connection"), "password");
    QVERIFY2(writeTo(*store, key, kSecret, &error), qPrintable(error));
    QVERIFY2(unavailable.isEmpty(), qPrintable(unavailable.value(0).value(0).toString()));
    QVERIFY(store->persistent());
    // A second store (the next start of RedisLens) finds it.
    const auto again = SecretStore::system();
    QCOMPARE(readBack(*again, key, &error), std::optional<QString>(kSecret));
    again->remove(key);
    QTRY_COMPARE(readBack(*again, key, &error), std::optional<QString>());
}

void TestKeychain::inSessionWithoutKeyring()
{
    if (qEnvironmentVariableIsEmpty("REDISLENS_KEYCHAIN_CHILD"))
        QSKIP("runs in the D-Bus session noSecretService starts");
    const auto store = SecretStore::system();
    QSignalSpy unavailable(store.get(), &SecretStore::unavailable);
    QString error;
    const QString key = SecretStore::keyOf(QStringLiteral("test-connection"), "password");
    // Stored for this session only, and said so once.
    QVERIFY2(writeTo(*store, key, kSecret, &error), qPrintable(error));
    QCOMPARE(unavailable.size(), 1);
    QVERIFY(!store->persistent());
    QCOMPARE(readBack(*store, key, &error), std::optional<QString>(kSecret));
    QVERIFY(writeTo(*store, key, kSecret, &error));
    QCOMPARE(unavailable.size(), 1);
}

QTEST_GUILESS_MAIN(TestKeychain)
#include "tst_keychain.moc"
