// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the real redislens binary: argument errors, --help/--version, and --screenshot against
// a real server; and redislens-bench's argument errors.
#include "testserver.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

namespace {

struct Run
{
    int code = -1;
    QString out;
    QString err;
};

Run runProgram(const QString &program, const QStringList &args, int timeoutMs,
               const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    // A sanitizer's report is longer than a test message holds: written whole, to be read.
    if (r.err.contains(QLatin1String("Sanitizer")))
        std::fprintf(stderr, "%s: %s\n", qPrintable(program), qPrintable(r.err));
    return r;
}

Run runApp(const QStringList &args, int timeoutMs = 90000,
           const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return runProgram(QStringLiteral(REDISLENS_APP_PATH), args, timeoutMs, env);
}

// redis-server processes started by LocalServer (their --dir is a redislens-server-* temp
// directory) whose parent is gone: a server the app failed to take down with it.
QSet<qint64> orphanedLocalServers()
{
    QSet<qint64> found;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        bool ok = false;
        const qint64 n = pid.toLongLong(&ok);
        if (!ok)
            continue;
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        const QByteArray args = cmdline.readAll();
        if (!args.contains("redis-server") || !args.contains("redislens-server-"))
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        // fields: state, ppid, ...; a zombie has already exited.
        if (fields.size() > 1 && fields.at(0) != "Z"
            && !QFile::exists(QStringLiteral("/proc/%1").arg(QString::fromLatin1(fields.at(1)))))
            found.insert(n);
        else if (fields.size() > 1 && fields.at(1) == "1" && fields.at(0) != "Z")
            found.insert(n);
    }
    return found;
}

// Distinct colours in a region: a blank or half-painted window has very few.
int distinctColours(const QImage &image, const QRect &region)
{
    QSet<QRgb> colours;
    for (int y = region.top(); y <= region.bottom(); y += 2)
        for (int x = region.left(); x <= region.right(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void badArguments_data();
    void badArguments();
    void helpAndVersion();
    void benchBadArguments_data();
    void benchBadArguments();
    void screenshotOfScannedTree();
    void screenshotOfValuePanel();
    void demoPanelScreenshots_data();
    void demoPanelScreenshots();
    void demoScreenshotLeavesNoServer();
    void deadServerFailsClearly();
    void wrongPasswordFailsClearly();
    void damagedSettingsAreKeptAsideByTheWindowOnly();

private:
    TestServer m_server{{QStringLiteral("--requirepass"), QString()}};
    QTemporaryDir m_dir;
};

void TestCli::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    QList<QList<QByteArray>> writes;
    for (int i = 0; i < 300; ++i) {
        writes.append(
            {"SET", "app:product:" + QByteArray::number(i), "{\"id\":" + QByteArray::number(i) + "}", "EX", "3600"});
        writes.append({"HSET", "session:" + QByteArray::number(i, 16), "user_id", QByteArray::number(i)});
    }
    writes.append({"SET", QByteArray("bin:\x00\xff\n", 7), "x"});
    m_server.pipeline(writes);
}

void TestCli::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad port") << QStringList{"-p", "notaport"} << "invalid port";
    QTest::newRow("bad uri") << QStringList{"redis://host:0"} << "invalid port";
    QTest::newRow("bad scheme") << QStringList{"ftp://x"} << "unsupported scheme";
    QTest::newRow("unknown panel") << QStringList{"--panel", "nope"} << "unknown panel 'nope'";
    QTest::newRow("unknown option") << QStringList{"--bogus"} << "bogus";
    QTest::newRow("bad open escape") << QStringList{"--open", "a\\x4"} << "--open";
}

void TestCli::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runApp(args, 20000);
    QCOMPARE(r.code, 2);
    const QStringList lines = r.err.trimmed().split(QLatin1Char('\n'));
    QVERIFY2(lines.first().startsWith(QLatin1String("redislens: ")), qPrintable(r.err));
    QVERIFY2(lines.first().contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestCli::helpAndVersion()
{
    Run r = runApp({QStringLiteral("--version")}, 20000);
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.startsWith(QLatin1String("redislens ")));
    r = runApp({QStringLiteral("--help")}, 20000);
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains(QLatin1String("-h, --host <hostname>")));
    QVERIFY(r.out.contains(QLatin1String("--screenshot <file>")));
}

void TestCli::benchBadArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    // Without --local the server is someone's: the benchmark must not write a keyspace into it.
    QTest::newRow("populate without local") << QStringList{"scan", "--populate", "1000"} << "--populate needs --local";
    QTest::newRow("populate without local, patterns")
        << QStringList{"patterns", "--port", "1", "--populate", "1000"} << "--populate needs --local";
    QTest::newRow("bad populate count") << QStringList{"memory", "--local", "--populate", "many"}
                                        << "invalid --populate 'many'";
    QTest::newRow("unknown mode") << QStringList{"nope"} << "unknown or missing mode";
}

void TestCli::benchBadArguments()
{
    // redislens-bench follows the app's rule: bad input exits 2 with one line, before any I/O.
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runProgram(QStringLiteral(REDISLENS_BENCH_PATH), args, 20000);
    QCOMPARE(r.code, 2);
    const QStringList lines = r.err.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith(QLatin1String("redislens-bench: ")), qPrintable(r.err));
    QVERIFY2(lines.first().contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestCli::screenshotOfScannedTree()
{
    const QString file = m_dir.filePath(QStringLiteral("keys.png"));
    const Run r
        = runApp({QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("--screenshot"), file});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage image(file);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 500);
    // The tree occupies the left part of the window: a filled tree has text in many shades.
    QVERIFY(distinctColours(image, QRect(0, 100, image.width() / 2, image.height() / 3)) > 20);
}

void TestCli::screenshotOfValuePanel()
{
    const QString file = m_dir.filePath(QStringLiteral("value.png"));
    const Run r = runApp({QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("--screenshot"), file,
                          QStringLiteral("--panel"), QStringLiteral("value")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage image(file);
    QVERIFY(!image.isNull());
    QVERIFY(distinctColours(image, QRect(image.width() / 2, 60, image.width() / 2 - 1, image.height() / 4)) > 10);
}

void TestCli::demoPanelScreenshots_data()
{
    QTest::addColumn<QString>("panel");
    QTest::newRow("ttl") << QStringLiteral("ttl");
    QTest::newRow("memory") << QStringLiteral("memory");
    QTest::newRow("leaderboard") << QStringLiteral("leaderboard");
    QTest::newRow("geo") << QStringLiteral("geo");
    QTest::newRow("queues") << QStringLiteral("queues");
    QTest::newRow("streams") << QStringLiteral("streams");
}

void TestCli::demoPanelScreenshots()
{
    // The binary end to end: the demo's data in a chart panel, the panel in front.
    QFETCH(QString, panel);
    const QString file = m_dir.filePath(panel + QStringLiteral(".png"));
    const Run r
        = runApp({QStringLiteral("--demo"), QStringLiteral("--screenshot"), file, QStringLiteral("--panel"), panel});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage image(file);
    QVERIFY(!image.isNull());
    // The right half holds the panel's chart: bars, labels and grid in many shades.
    QVERIFY(distinctColours(image, QRect(image.width() / 2, 80, image.width() / 2 - 1, image.height() / 3)) > 20);
}

void TestCli::demoScreenshotLeavesNoServer()
{
    const QSet<qint64> before = orphanedLocalServers();
    const QString file = m_dir.filePath(QStringLiteral("demo.png"));
    const Run r = runApp({QStringLiteral("--demo"), QStringLiteral("--screenshot"), file});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!QImage(file).isNull());
    // The server goes down with the app: no new orphan appears.
    QTRY_VERIFY_WITH_TIMEOUT((orphanedLocalServers() - before).isEmpty(), 5000);
}

void TestCli::deadServerFailsClearly()
{
    const quint16 port = LocalServer::freePort();
    const QString file = m_dir.filePath(QStringLiteral("dead.png"));
    const Run r = runApp({QStringLiteral("-p"), QString::number(port), QStringLiteral("--connect-timeout"),
                          QStringLiteral("2000"), QStringLiteral("--screenshot"), file},
                         30000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QLatin1String("cannot connect")), qPrintable(r.err));
    QVERIFY(!QFile::exists(file));
}

void TestCli::wrongPasswordFailsClearly()
{
    TestServer guarded({QStringLiteral("--requirepass"), QStringLiteral("right-one")});
    QVERIFY(guarded.start());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("REDISCLI_AUTH"), QStringLiteral("wrong-one"));
    const QString file = m_dir.filePath(QStringLiteral("auth.png"));
    const Run r = runApp({QStringLiteral("-p"), QString::number(guarded.port()), QStringLiteral("--screenshot"), file},
                         30000, env);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QLatin1String("WRONGPASS")) || r.err.contains(QLatin1String("invalid password")),
             qPrintable(r.err));
    QVERIFY(!r.err.contains(QLatin1String("wrong-one")));
}

// A damaged settings file: show reads what it can, says so and leaves the file as it is; the
// window keeps it aside, says where, and starts from the defaults.
void TestCli::damagedSettingsAreKeptAsideByTheWindowOnly()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    const QString dir = home.filePath(QStringLiteral("config/RedisLens"));
    QVERIFY(QDir().mkpath(dir));
    const QString conf = dir + QStringLiteral("/redislens.conf");
    const QByteArray damaged = QByteArray("[browser]\nseparator=/\n") + QByteArray("\x00\xff[[[\n", 6);
    {
        QFile f(conf);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(damaged);
    }
    const QString port = QString::number(m_server.port());
    const Run show = runApp({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("-p"), port}, 90000, env);
    QVERIFY2(show.code == 0, qPrintable(show.err));
    QVERIFY2(show.err.contains(QLatin1String("is damaged")), qPrintable(show.err));
    QVERIFY(!show.out.isEmpty());
    QFile kept(conf);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), damaged);
    kept.close();

    const Run window = runApp(
        {QStringLiteral("-p"), port, QStringLiteral("--screenshot"), home.filePath(QStringLiteral("shot.png"))}, 90000,
        env);
    QVERIFY2(window.code == 0, qPrintable(window.err));
    QVERIFY2(window.err.contains(QLatin1String("was kept as")), qPrintable(window.err));
    const QStringList aside = QDir(dir).entryList({QStringLiteral("redislens.conf.corrupt-*")});
    QCOMPARE(aside.size(), 1);
    QFile asideFile(dir + QLatin1Char('/') + aside.first());
    QVERIFY(asideFile.open(QIODevice::ReadOnly));
    QCOMPARE(asideFile.readAll(), damaged);
    // The next run finds a whole file and says nothing.
    const Run again = runApp({QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("-p"), port}, 90000, env);
    QVERIFY2(again.code == 0 && again.err.isEmpty(), qPrintable(again.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
