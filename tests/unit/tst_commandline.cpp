// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include <QTest>

class TestCommandLine : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void accepted_data();
    void accepted();
    void rejected_data();
    void rejected();
    void passwordSources();
    void helpAndVersion();
};

void TestCommandLine::accepted_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<int>("db");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("readOnly");

    QTest::newRow("defaults") << QStringList{} << "127.0.0.1" << 6379 << 0 << ""
                              << "" << false << false;
    QTest::newRow("redis-cli flags") << QStringList{"-h", "10.1.2.3", "-p", "6380", "-n", "4", "--user", "ops"}
                                     << "10.1.2.3" << 6380 << 4 << "ops"
                                     << "" << false << false;
    QTest::newRow("long flags") << QStringList{"--host", "db.local", "--port", "7000", "--db", "1"} << "db.local"
                                << 7000 << 1 << ""
                                << "" << false << false;
    QTest::newRow("uri") << QStringList{"redis://inspector@cache.internal:6390/2"} << "cache.internal" << 6390 << 2
                         << "inspector"
                         << "" << false << false;
    QTest::newRow("rediss uri") << QStringList{"rediss://h:6379"} << "h" << 6379 << 0 << ""
                                << "" << true << false;
    QTest::newRow("flags override uri") << QStringList{"redis://a:1/1", "-p", "2"} << "a" << 2 << 1 << ""
                                        << "" << false << false;
    QTest::newRow("socket") << QStringList{"-s", "/run/redis.sock"} << "127.0.0.1" << 6379 << 0 << ""
                            << "/run/redis.sock" << false << false;
    QTest::newRow("tls and read-only") << QStringList{"--tls", "--read-only"} << "127.0.0.1" << 6379 << 0 << ""
                                       << "" << true << true;
}

void TestCommandLine::accepted()
{
    QFETCH(QStringList, args);
    QString error;
    const auto cl = CommandLine::parse(QStringList{QStringLiteral("redislens")} + args, &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QTEST(cl->profile.host, "host");
    QTEST(int(cl->profile.port), "port");
    QTEST(cl->profile.db, "db");
    QTEST(cl->profile.username, "user");
    QTEST(cl->profile.socketPath, "socket");
    QTEST(cl->profile.tls, "tls");
    QTEST(cl->profile.readOnly, "readOnly");
}

void TestCommandLine::rejected_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("port not a number") << QStringList{"-p", "abc"} << "invalid port 'abc'";
    QTest::newRow("port out of range") << QStringList{"-p", "70000"} << "invalid port";
    QTest::newRow("db negative") << QStringList{"-n", "-1"} << "invalid database";
    QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate";
    QTest::newRow("missing value") << QStringList{"-h"} << "Missing value";
    QTest::newRow("two uris") << QStringList{"redis://a", "redis://b"} << "at most one URI";
    QTest::newRow("bad scheme") << QStringList{"http://a"} << "unsupported scheme 'http'";
    QTest::newRow("not a uri") << QStringList{"localhost"} << "is not a URI";
    QTest::newRow("uri bad port") << QStringList{"redis://a:99999"} << "invalid port";
    QTest::newRow("uri bad db") << QStringList{"redis://a/x"} << "database must be a number";
    QTest::newRow("demo with host") << QStringList{"--demo", "-h", "x"} << "--demo starts its own server";
    QTest::newRow("tls on socket") << QStringList{"-s", "/tmp/s", "--tls"} << "Unix socket";
    QTest::newRow("screenshot dir") << QStringList{"--screenshot", "/nonexistent/dir/x.png"} << "does not exist";
    QTest::newRow("bad timeout") << QStringList{"--timeout", "0"} << "invalid --timeout";
    QTest::newRow("bad scan rate") << QStringList{"--scan-rate", "fast"} << "invalid --scan-rate";
}

void TestCommandLine::rejected()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QString error;
    const auto cl = CommandLine::parse(QStringList{QStringLiteral("redislens")} + args, &error);
    QVERIFY(!cl.has_value());
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
}

void TestCommandLine::passwordSources()
{
    QString error;
    auto cl = CommandLine::parse({QStringLiteral("redislens")}, &error, QStringLiteral("from-env"));
    QVERIFY(cl);
    QCOMPARE(cl->profile.password, QStringLiteral("from-env"));
    QVERIFY(cl->warnings.isEmpty());
    cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("-a"), QStringLiteral("s3cret")}, &error,
                            QStringLiteral("from-env"));
    QVERIFY(cl);
    QCOMPARE(cl->profile.password, QStringLiteral("s3cret"));
    QCOMPARE(cl->warnings.size(), 1);
    QVERIFY(!cl->warnings.first().contains(QLatin1String("s3cret")));
    // Neither the display name nor the URI kept for settings carries the password.
    cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("redis://u:pw%40x@h:1/2")}, &error);
    QVERIFY(cl);
    QCOMPARE(cl->profile.password, QStringLiteral("pw@x"));
    QVERIFY(!cl->profile.displayName().contains(QLatin1String("pw")));
    QVERIFY(!cl->profile.toUri().contains(QLatin1String("pw")));
}

void TestCommandLine::helpAndVersion()
{
    QString error;
    auto cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--help")}, &error);
    QVERIFY(cl);
    QCOMPARE(cl->action, CommandLine::Action::Help);
    QVERIFY(cl->helpText.contains(QLatin1String("-h, --host")));
    cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--version")}, &error);
    QVERIFY(cl);
    QCOMPARE(cl->action, CommandLine::Action::Version);
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
