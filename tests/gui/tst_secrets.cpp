// SPDX-License-Identifier: GPL-3.0-or-later
// No password in any file, stream or title. The real binary runs with passwords in URIs, in
// -a and in REDISCLI_AUTH, against a server that wants one and with arguments that fail; its
// stdout and stderr and every file it leaves in its config, data and cache directories are
// searched for the password. In process, the window is driven (the console's history written,
// the settings saved) and its title, settings, history and data files are searched too.
#include "consolepanel.h"
#include "keybrowser.h"
#include "luaeditor.h"
#include "luaresult.h"
#include "mainwindow.h"
#include "settings.h"
#include "testserver.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

namespace {

constexpr int kWaitMs = 30000;
// Made at run time, long and random: nothing else a file holds matches them by chance, and no
// password-like literal sits in the source.
QByteArray randomSecret()
{
    return QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}
const QByteArray kPassword = randomSecret();
const QByteArray kUserPassword = randomSecret();

struct Run
{
    int code = -1;
    QByteArray output; // stdout and stderr
};

// Files under 'dir' (recursively) whose bytes contain 'needle'.
QStringList filesContaining(const QString &dir, const QByteArray &needle)
{
    QStringList hits;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle))
            hits << path;
    }
    return hits;
}

int fileCount(const QString &dir)
{
    int n = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        ++n;
    }
    return n;
}

} // namespace

class TestSecrets : public QObject
{
    Q_OBJECT

private:
    TestServer m_server{{QStringLiteral("--requirepass"), QString::fromLatin1(kPassword)}};
    QTemporaryDir m_home;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.remove(QStringLiteral("REDISCLI_AUTH"));
        return env;
    }

    Run runApp(const QStringList &args, const QProcessEnvironment &env)
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(REDISLENS_APP_PATH), args);
        Run r;
        if (!p.waitForFinished(90000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.output = p.readAll();
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        ConnectionProfile p = m_server.profile();
        p.password = QString::fromLatin1(kPassword);
        auto admin = connectedClient(p);
        QVERIFY(admin);
        QVERIFY(waitForReply(*admin,
                             {{"ACL", "SETUSER", "inspector", "reset", "on", ">" + kUserPassword, "~*", "+@all"},
                              {"SET", "app:item:1", "v"},
                              {"HSET", "session:abc", "user_id", "7"}})
                    .ok());
    }

    // The binary, in the ways a password reaches it, succeeding and failing.
    void binaryPrintsNoPassword()
    {
        const QString port = QString::number(m_server.port());
        const QString pw = QString::fromLatin1(kPassword);
        const QString userPw = QString::fromLatin1(kUserPassword);
        QTemporaryDir shots;
        QVERIFY(shots.isValid());
        const QString shot = shots.filePath(QStringLiteral("keys.png"));
        struct Case
        {
            QStringList args;
            bool withEnv;
            int code;
        };
        const QList<Case> cases{
            // Two URIs: the error quotes both, masked.
            {{QStringLiteral("redis://:%1@127.0.0.1:%2").arg(pw, port),
              QStringLiteral("rediss://inspector:%1@127.0.0.1:%2").arg(userPw, port)},
             false,
             2},
            // A malformed URI and an unknown scheme with a password in them.
            {{QStringLiteral("redis://inspector:%1@127.0.0.1:99999").arg(userPw)}, false, 2},
            {{QStringLiteral("http://inspector:%1@127.0.0.1").arg(userPw)}, false, 2},
            // -a warns, and the run works.
            {{QStringLiteral("-p"), port, QStringLiteral("-a"), pw, QStringLiteral("--screenshot"), shot}, false, 0},
            // A URI with an ACL user and its password.
            {{QStringLiteral("redis://inspector:%1@127.0.0.1:%2").arg(userPw, port), QStringLiteral("--screenshot"),
              shot},
             false,
             0},
            // REDISCLI_AUTH, and a wrong password that fails the run.
            {{QStringLiteral("-p"), port, QStringLiteral("--screenshot"), shot}, true, 0},
            {{QStringLiteral("redis://inspector:wrong-%1@127.0.0.1:%2").arg(userPw, port),
              QStringLiteral("--screenshot"), shot},
             false,
             1},
            // check: its report names the user, never the password, working or refused.
            {{QStringLiteral("check"), QStringLiteral("redis://inspector:%1@127.0.0.1:%2").arg(userPw, port),
              QStringLiteral("--format"), QStringLiteral("json")},
             false,
             0},
            {{QStringLiteral("check"), QStringLiteral("-p"), port}, true, 0},
            {{QStringLiteral("check"), QStringLiteral("redis://inspector:wrong-%1@127.0.0.1:%2").arg(userPw, port)},
             false,
             2},
        };
        for (const Case &c : cases) {
            QProcessEnvironment env = environment();
            if (c.withEnv)
                env.insert(QStringLiteral("REDISCLI_AUTH"), pw);
            const Run r = runApp(c.args, env);
            const QString what = c.args.join(QLatin1Char(' '))
                                     .replace(pw, QStringLiteral("<pw>"))
                                     .replace(userPw, QStringLiteral("<user pw>"));
            QVERIFY2(r.code == c.code,
                     qPrintable(QStringLiteral("%1: exit %2: %3")
                                    .arg(what)
                                    .arg(r.code)
                                    .arg(QString::fromUtf8(r.output).replace(pw, QStringLiteral("<pw>")))));
            QVERIFY2(!r.output.contains(kPassword), qPrintable(what));
            QVERIFY2(!r.output.contains(kUserPassword), qPrintable(what));
        }
        // Whatever the runs left in their config, data and cache directories holds no password
        // (screenshot runs may leave nothing; windowKeepsNoPassword covers a session's files).
        for (const QByteArray &secret : {kPassword, kUserPassword}) {
            const QStringList hits = filesContaining(m_home.path(), secret);
            QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1String(", "))));
        }
    }

    // In process: the title, the settings, the console's history file and everything else in
    // the config and data directories after a session with an ACL user's password.
    void windowKeepsNoPassword()
    {
        QStandardPaths::setTestModeEnabled(true);
        const QString config = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation);
        const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        ConnectionProfile p = m_server.profile();
        p.username = QStringLiteral("inspector");
        p.password = QString::fromLatin1(kUserPassword);
        {
            Settings settings;
            MainWindow w(p, &settings);
            w.resize(1200, 800);
            w.show();
            w.start();
            QSignalSpy scanned(w.keyBrowser(), &KeyBrowser::scanCompleted);
            QVERIFY(scanned.wait(kWaitMs));
            QVERIFY(!w.windowTitle().contains(QString::fromLatin1(kUserPassword)));
            QVERIFY(w.windowTitle().contains(QLatin1String("127.0.0.1")));
            QVERIFY(w.showPanel(QStringLiteral("console")));
            ConsolePanel *console = w.consolePanel();
            QSignalSpy finished(console, &ConsolePanel::runFinished);
            console->editor()->setPlainText(QStringLiteral("return redis.call('GET', KEYS[1])"));
            console->setKeys({"app:item:1"});
            console->run();
            QVERIFY(finished.wait(kWaitMs));
            QCOMPARE(console->resultModel()->result().bytes(), QByteArray("v"));
            QVERIFY(QFile::exists(console->history().path()));
            for (const QString &name : w.panelNames())
                w.showPanel(name);
            w.close(); // saves the window's settings
        }
        QVERIFY(fileCount(config) + fileCount(data) > 0);
        for (const QString &dir : {config, data}) {
            const QStringList hits = filesContaining(dir, kUserPassword);
            QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1String(", "))));
        }
    }
};

QTEST_MAIN(TestSecrets)
#include "tst_secrets.moc"
