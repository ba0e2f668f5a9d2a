// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"
#include "keyscanner.h"
#include "panelregistry.h"

#include <QFile>
#include <QTemporaryDir>
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
    void uriPasswordsMasked();
    void caCertWithoutCertificate();
    void panelsFromRegistry();
    void scanRateZero();
    void redlockPeers();
    void scanReplica();
    void demoKeepsReadOnly();
    void showCommand();
    void showRejected_data();
    void showRejected();
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
    QTest::newRow("redis-cli flags") << QStringList{"-h", "127.0.2.3", "-p", "6380", "-n", "4", "--user", "ops"}
                                     << "127.0.2.3" << 6380 << 4 << "ops"
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
    QTest::newRow("scan replica port") << QStringList{"--scan-replica", "127.0.0.2:99999"}
                                       << "invalid --scan-replica '127.0.0.2:99999': the port must be a number";
    QTest::newRow("scan replica empty") << QStringList{"--scan-replica", " "} << "--scan-replica needs host[:port]";
    QTest::newRow("scan replica bracket")
        << QStringList{"--scan-replica", "[::1"} << "an IPv6 address needs its closing ']'";
    QTest::newRow("consumers without a group")
        << QStringList{"show", "streams", "--stream", "s", "--table", "consumers"}
        << "--table consumers lists one group's: add --group NAME";
    QTest::newRow("pending without a group")
        << QStringList{"show", "streams", "--stream", "s", "--table", "pending"} << "--table pending lists one group's";
    QTest::newRow("rediss with socket") << QStringList{"rediss://h:6380", "-s", "/tmp/s"}
                                        << "rediss:// URI (TLS) cannot be used with -s";
    QTest::newRow("empty socket") << QStringList{"-s", ""} << "-s needs a socket path";
    QTest::newRow("unknown panel") << QStringList{"--panel", "nope"}
                                   << "unknown panel 'nope' (known: triage, keys, value,";
    QTest::newRow("cert without tls") << QStringList{"--cert", "/etc/hostname"} << "--cert needs --tls";
    QTest::newRow("sni without tls") << QStringList{"--sni", "redis.test"} << "--sni needs --tls";
    QTest::newRow("cacertdir without tls") << QStringList{"--cacertdir", "/etc"} << "--cacertdir needs --tls";
    QTest::newRow("empty sni") << QStringList{"--tls", "--sni", ""} << "--sni needs a host name";
    QTest::newRow("cert without key") << QStringList{"--tls", "--cert", "/etc/hostname"}
                                      << "a client certificate needs its key (--key)";
    QTest::newRow("unreadable key") << QStringList{"--tls", "--cert", "/etc/hostname", "--key", "/nonexistent.key"}
                                    << "no PEM certificate in the client certificate '/etc/hostname'";
    QTest::newRow("missing cacertdir") << QStringList{"--tls", "--cacertdir", "/nonexistent/cas"}
                                       << "cannot read the CA certificate directory '/nonexistent/cas'";
    QTest::newRow("redlock not host:port")
        << QStringList{"--redlock", "127.0.0.2"} << "invalid --redlock: \"127.0.0.2\" is not host:port";
    QTest::newRow("scan replicas without a cluster")
        << QStringList{"--cluster-scan-replicas"} << "--cluster-scan-replicas need --cluster";
    QTest::newRow("redlock on a cluster")
        << QStringList{"-c", "--redlock", "127.0.0.2:6379"} << "--redlock is for independent primaries";
}

void TestCommandLine::rejected()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QString error;
    const auto cl = CommandLine::parse(QStringList{QStringLiteral("redislens")} + args, &error);
    // The TLS files are read once the application object exists, as main() does.
    if (cl)
        error = cl->tlsFilesError();
    QVERIFY2(!cl.has_value() || !error.isEmpty(), "accepted");
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

// Two URIs are an error that quotes them: both passwords masked, as redis://user:****@host.
void TestCommandLine::uriPasswordsMasked()
{
    QString error;
    const auto cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("redis://ops:first-pw@a:1"),
                                        QStringLiteral("rediss://:second-pw@b")},
                                       &error);
    QVERIFY(!cl);
    QVERIFY2(!error.contains(QLatin1String("first-pw")) && !error.contains(QLatin1String("second-pw")),
             qPrintable(error));
    QVERIFY2(error.contains(QLatin1String("redis://ops:****@a:1")), qPrintable(error));
    QVERIFY2(error.contains(QLatin1String("rediss://:****@b")), qPrintable(error));
    QCOMPARE(ConnectionProfile::maskedUri(QStringLiteral("redis://u:p@h")), QStringLiteral("redis://u:****@h"));
    QCOMPARE(ConnectionProfile::maskedUri(QStringLiteral("redis://u@h")), QStringLiteral("redis://u@h"));
    QCOMPARE(ConnectionProfile::maskedUri(QStringLiteral("-p")), QStringLiteral("-p"));
}

// A --cacert file that holds no certificate would trust nothing extra, silently: refused.
void TestCommandLine::caCertWithoutCertificate()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString notPem = dir.filePath(QStringLiteral("notes.txt"));
    QFile f(notPem);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a certificate\n");
    f.close();
    QString error;
    auto cl = CommandLine::parse(
        {QStringLiteral("redislens"), QStringLiteral("--tls"), QStringLiteral("--cacert"), notPem}, &error);
    QVERIFY(cl);
    error = cl->tlsFilesError();
    QVERIFY2(error.contains(QLatin1String("holds no PEM certificate")), qPrintable(error));
    const QString empty = dir.filePath(QStringLiteral("empty.pem"));
    QFile e(empty);
    QVERIFY(e.open(QIODevice::WriteOnly));
    e.close();
    cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--tls"), QStringLiteral("--cacert"), empty},
                            &error);
    QVERIFY(cl);
    error = cl->tlsFilesError();
    QVERIFY2(error.contains(QLatin1String("holds no PEM certificate")), qPrintable(error));
}

// --panel takes every panel the window has, and its help names them all.
void TestCommandLine::panelsFromRegistry()
{
    QString error;
    const auto help = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--help")}, &error);
    QVERIFY(help);
    const QStringList names = panelregistry::names();
    QCOMPARE(names.size(), 20);
    const QString flat = help->helpText.simplified();
    for (const QString &name : names) {
        QVERIFY2(flat.contains(name), qPrintable(name));
        const auto cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--panel"), name}, &error);
        QVERIFY2(cl, qPrintable(error));
        QCOMPARE(cl->panel, name);
    }
}

// --demo connects to a server of its own, with the rest of the line's options kept.
void TestCommandLine::demoKeepsReadOnly()
{
    QString error;
    const auto cl
        = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--demo"), QStringLiteral("--read-only"),
                              QStringLiteral("--timeout"), QStringLiteral("1234")},
                             &error);
    QVERIFY2(cl, qPrintable(error));
    ConnectionProfile demo;
    demo.port = 40123;
    const ConnectionProfile p = cl->applyOptionsTo(demo);
    QVERIFY(p.readOnly);
    QCOMPARE(p.commandTimeoutMs, 1234);
    QCOMPARE(p.port, quint16(40123));
}

// The window scans through a replica: host and port (6379 by default, IPv6 in brackets); the
// server stays the one connected to, and the scan's profile points at the replica.
void TestCommandLine::scanReplica()
{
    QString error;
    auto cl = CommandLine::parse({"redislens", "-p", "7000", "--scan-replica", "127.0.0.2:7001"}, &error);
    QVERIFY2(cl, qPrintable(error));
    QCOMPARE(cl->profile.port, quint16(7000));
    QCOMPARE(cl->profile.scanReplica(), QStringLiteral("127.0.0.2:7001"));
    const ConnectionProfile scan = cl->profile.scanProfile();
    QCOMPARE(scan.host, QStringLiteral("127.0.0.2"));
    QCOMPARE(scan.port, quint16(7001));
    QCOMPARE(scan.clientName, QStringLiteral("redislens-scan"));
    cl = CommandLine::parse({"redislens", "--scan-replica", "[::1]"}, &error);
    QVERIFY2(cl, qPrintable(error));
    QCOMPARE(cl->profile.scanReplicaHost, QStringLiteral("::1"));
    QCOMPARE(cl->profile.scanReplicaPort, quint16(6379));
    QCOMPARE(cl->profile.scanReplica(), QStringLiteral("[::1]:6379"));
    // Without the flag the scan reads the server.
    cl = CommandLine::parse({"redislens", "-p", "7000"}, &error);
    QCOMPARE(cl->profile.scanProfile().port, quint16(7000));
    QVERIFY(cl->profile.scanReplica().isEmpty());
}

void TestCommandLine::redlockPeers()
{
    QString error;
    const auto cl = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--redlock"),
                                        QStringLiteral("127.0.0.2:6380, 127.0.0.3:6381"), QStringLiteral("--redlock"),
                                        QStringLiteral("[::1]:6382")},
                                       &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QCOMPARE(cl->profile.redlockPeers,
             (QStringList{QStringLiteral("127.0.0.2:6380"), QStringLiteral("127.0.0.3:6381"),
                          QStringLiteral("[::1]:6382")}));
    // Through a Sentinel replica: read-only whatever else was given.
    const auto replica = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--sentinel"),
                                             QStringLiteral("127.0.0.1:26379"), QStringLiteral("--master"),
                                             QStringLiteral("mymaster"), QStringLiteral("--sentinel-replica")},
                                            &error);
    QVERIFY2(replica.has_value(), qPrintable(error));
    QVERIFY(replica->profile.sentinelReplica);
    QVERIFY(replica->profile.readOnly);
    QVERIFY(!CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--sentinel-replica")}, &error));
    QVERIFY2(error.contains(QLatin1String("--sentinel and --master go together")), qPrintable(error));
    // A node of the set is one server: the peers do not carry over to a profile at another address.
    QVERIFY(cl->profile.atAddress(QStringLiteral("127.0.0.2"), 6380, QString()).redlockPeers.isEmpty());
}

void TestCommandLine::scanRateZero()
{
    QString error;
    const auto cl
        = CommandLine::parse({QStringLiteral("redislens"), QStringLiteral("--scan-rate"), QStringLiteral("0")}, &error);
    QVERIFY(cl);
    QCOMPARE(cl->scanRate, 0);
    // auto is the default's name; without the flag the settings decide.
    QCOMPARE(CommandLine::parse({"redislens", "--scan-rate", "auto"}, &error)->scanRate, kAdaptivePacing);
    QCOMPARE(CommandLine::parse({"redislens", "--scan-rate", "25000"}, &error)->scanRate, 25000);
    QVERIFY(!CommandLine::parse({"redislens"}, &error)->scanRate.has_value());
    QVERIFY(!CommandLine::parse({"redislens", "--scan-rate", "-1"}, &error));
    QCOMPARE(error, QStringLiteral("invalid --scan-rate '-1': expected auto or commands per second"));
}

void TestCommandLine::showCommand()
{
    QString error;
    auto cl = CommandLine::parse({"redislens", "show", "keys", "-p", "7000", "--format", "jsonl", "--limit", "5",
                                  "--match", "lock:\\x00*", "--read-only", "--scan-rate", "0"},
                                 &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QCOMPARE(cl->action, CommandLine::Action::Show);
    QCOMPARE(cl->show.panel, QStringLiteral("keys"));
    QCOMPARE(cl->show.format, ShowRequest::Format::Jsonl);
    QCOMPARE(cl->show.limit, qint64(5));
    QCOMPARE(cl->show.match, QByteArray("lock:\0*", 7));
    QCOMPARE(int(cl->profile.port), 7000);
    QVERIFY(cl->profile.readOnly);
    QCOMPARE(cl->scanRate, 0);

    cl = CommandLine::parse({"redislens", "show", "leaderboard", "\"lb:\\xff\"", "redis://h:6390/2"}, &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QCOMPARE(cl->show.key, QByteArray("lb:\xff"));
    QCOMPARE(cl->profile.host, QStringLiteral("h"));
    QCOMPARE(cl->profile.db, 2);

    cl = CommandLine::parse({"redislens", "show", "locks", "--demo", "--table", "x"}, &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QVERIFY(cl->demo && cl->show.demo);
    QCOMPARE(cl->show.table, QStringLiteral("x"));

    cl = CommandLine::parse({"redislens", "show", "--help"}, &error);
    QVERIFY2(cl.has_value(), qPrintable(error));
    QCOMPARE(cl->action, CommandLine::Action::Help);
    QVERIFY(cl->helpText.startsWith(QStringLiteral("Usage: redislens show [options] PANEL")));
    QVERIFY(cl->helpText.contains(QStringLiteral("--format")));
}

void TestCommandLine::showRejected_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::newRow("no panel") << QStringList{} << "which panel";
    QTest::newRow("unknown panel") << QStringList{"values"} << "unknown panel 'values'";
    QTest::newRow("no key") << QStringList{"geo"} << "needs the KEY";
    QTest::newRow("bad key escape") << QStringList{"geo", "\\xZZ"} << "KEY";
    QTest::newRow("format") << QStringList{"keys", "--format", "yaml"} << "--format";
    QTest::newRow("limit") << QStringList{"keys", "--limit", "many"} << "--limit";
    QTest::newRow("match without a scan") << QStringList{"overview", "--match", "a"} << "--match";
    QTest::newRow("two uris") << QStringList{"keys", "redis://a", "redis://b"} << "at most one URI";
    QTest::newRow("demo and host") << QStringList{"keys", "--demo", "-h", "x"} << "--demo";
    QTest::newRow("window option") << QStringList{"keys", "--screenshot", "a.png"} << "screenshot";
}

void TestCommandLine::showRejected()
{
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    QString error;
    QVERIFY(!CommandLine::parse(QStringList{"redislens", "show"} + args, &error));
    QVERIFY2(error.startsWith(QStringLiteral("show: ")), qPrintable(error));
    QVERIFY2(error.contains(says), qPrintable(error));
}
QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
