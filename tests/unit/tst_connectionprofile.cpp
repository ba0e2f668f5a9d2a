// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionprofile.h"

#include <QTest>
#include <QUrl>

// Connection URIs come from the command line, from settings and from paste; a bad one must be
// refused with one line that says what is wrong, and a password must never come back out.
class TstConnectionProfile : public QObject
{
    Q_OBJECT

private:
    static const QString &secret()
    {
        static const QString s = QStringLiteral("s3cret");
        return s;
    }

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("uri");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<int>("db");
        QTest::addColumn<QString>("username");
        QTest::addColumn<QString>("password");
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("socketPath");

        const QString localhost = QStringLiteral("127.0.0.1");
        QTest::newRow("host") << QStringLiteral("redis://cache.example.com") << QStringLiteral("cache.example.com")
                              << 6379 << 0 << QString() << QString() << false << QString();
        QTest::newRow("host port db") << QStringLiteral("redis://10.0.0.5:6380/3") << QStringLiteral("10.0.0.5") << 6380
                                      << 3 << QString() << QString() << false << QString();
        QTest::newRow("trailing slash") << QStringLiteral("redis://h/") << QStringLiteral("h") << 6379 << 0 << QString()
                                        << QString() << false << QString();
        QTest::newRow("db 0 explicit") << QStringLiteral("redis://h:1/0") << QStringLiteral("h") << 1 << 0 << QString()
                                       << QString() << false << QString();
        QTest::newRow("empty port") << QStringLiteral("redis://h:") << QStringLiteral("h") << 6379 << 0 << QString()
                                    << QString() << false << QString();
        QTest::newRow("user only") << QStringLiteral("redis://inspector@h") << QStringLiteral("h") << 6379 << 0
                                   << QStringLiteral("inspector") << QString() << false << QString();
        QTest::newRow("password only") << QStringLiteral("redis://:s3cret@h") << QStringLiteral("h") << 6379 << 0
                                       << QString() << secret() << false << QString();
        QTest::newRow("user and password")
            << QStringLiteral("redis://inspector:s3cret@h:7000/15") << QStringLiteral("h") << 7000 << 15
            << QStringLiteral("inspector") << secret() << false << QString();
        QTest::newRow("percent-encoded password")
            << QStringLiteral("redis://app:p%40ss%3Aw%2Fd%25%20x%23@h") << QStringLiteral("h") << 6379 << 0
            << QStringLiteral("app") << QStringLiteral("p@ss:w/d% x#") << false << QString();
        QTest::newRow("percent-encoded utf8 password")
            << QStringLiteral("redis://:%C3%A9t%C3%A9@h") << QStringLiteral("h") << 6379 << 0 << QString()
            << QStringLiteral("\u00e9t\u00e9") << false << QString();
        QTest::newRow("percent-encoded user") << QStringLiteral("redis://ops%40team@h") << QStringLiteral("h") << 6379
                                              << 0 << QStringLiteral("ops@team") << QString() << false << QString();
        QTest::newRow("tls") << QStringLiteral("rediss://secure.example.com:6380")
                             << QStringLiteral("secure.example.com") << 6380 << 0 << QString() << QString() << true
                             << QString();
        QTest::newRow("tls with auth and db") << QStringLiteral("rediss://u:s3cret@h/2") << QStringLiteral("h") << 6379
                                              << 2 << QStringLiteral("u") << secret() << true << QString();
        QTest::newRow("upper-case scheme")
            << QStringLiteral("REDIS://Cache.Example.COM") << QStringLiteral("cache.example.com") << 6379 << 0
            << QString() << QString() << false << QString();
        QTest::newRow("db in query") << QStringLiteral("redis://h?db=4") << QStringLiteral("h") << 6379 << 4
                                     << QString() << QString() << false << QString();
        QTest::newRow("ipv6") << QStringLiteral("redis://[::1]:6381/2") << QStringLiteral("::1") << 6381 << 2
                              << QString() << QString() << false << QString();
        QTest::newRow("unix") << QStringLiteral("unix:///var/run/redis/redis.sock") << localhost << 6379 << 0
                              << QString() << QString() << false << QStringLiteral("/var/run/redis/redis.sock");
        QTest::newRow("unix db") << QStringLiteral("unix:///tmp/r.sock?db=3") << localhost << 6379 << 3 << QString()
                                 << QString() << false << QStringLiteral("/tmp/r.sock");
        QTest::newRow("unix auth") << QStringLiteral("unix://bob:s3cret@/tmp/r.sock") << localhost << 6379 << 0
                                   << QStringLiteral("bob") << secret() << false << QStringLiteral("/tmp/r.sock");
    }

    void parse()
    {
        QFETCH(QString, uri);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(int, db);
        QFETCH(QString, username);
        QFETCH(QString, password);
        QFETCH(bool, tls);
        QFETCH(QString, socketPath);

        ConnectionProfile p;
        QString error;
        QVERIFY2(ConnectionProfile::parseUri(uri, &p, &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(p.host, host);
        QCOMPARE(int(p.port), port);
        QCOMPARE(p.db, db);
        QCOMPARE(p.username, username);
        QCOMPARE(p.password, password);
        QCOMPARE(p.tls, tls);
        QCOMPARE(p.socketPath, socketPath);
        QCOMPARE(p.usesUnixSocket(), !socketPath.isEmpty());

        // What is shown and what is stored never carry the password.
        if (!password.isEmpty()) {
            QVERIFY2(!p.displayName().contains(password), qPrintable(p.displayName()));
            QVERIFY2(!p.toUri().contains(password), qPrintable(p.toUri()));
            QVERIFY2(!p.toUri().contains(QString::fromLatin1(QUrl::toPercentEncoding(password))),
                     qPrintable(p.toUri()));
        }

        // toUri() reads back as the same place (the password is not in it).
        ConnectionProfile again;
        QVERIFY2(ConnectionProfile::parseUri(p.toUri(), &again, &error),
                 qPrintable(p.toUri() + QLatin1String(": ") + error));
        QCOMPARE(again.host, p.usesUnixSocket() ? again.host : p.host);
        QCOMPARE(again.port, p.usesUnixSocket() ? again.port : p.port);
        QCOMPARE(again.db, p.db);
        QCOMPARE(again.username, p.username);
        QCOMPARE(again.tls, p.tls);
        QCOMPARE(again.socketPath, p.socketPath);
        QVERIFY(again.password.isEmpty());
    }

    void parseKeepsOtherSettings()
    {
        ConnectionProfile p;
        p.name = QStringLiteral("production");
        p.readOnly = true;
        p.commandTimeoutMs = 1234;
        p.connectTimeoutMs = 567;
        p.clientName = QStringLiteral("me");
        QString error;
        QVERIFY2(ConnectionProfile::parseUri(QStringLiteral("redis://h:1/2"), &p, &error), qPrintable(error));
        QCOMPARE(p.name, QStringLiteral("production"));
        QVERIFY(p.readOnly);
        QCOMPARE(p.commandTimeoutMs, 1234);
        QCOMPARE(p.connectTimeoutMs, 567);
        QCOMPARE(p.clientName, QStringLiteral("me"));

        // A later TCP URI replaces an earlier socket path.
        p.socketPath = QStringLiteral("/tmp/old.sock");
        QVERIFY(ConnectionProfile::parseUri(QStringLiteral("redis://h2"), &p, &error));
        QVERIFY(!p.usesUnixSocket());
        QCOMPARE(p.host, QStringLiteral("h2"));
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("uri");
        QTest::addColumn<QString>("reasonContains");

        QTest::newRow("port not a number") << QStringLiteral("redis://h:abc") << QStringLiteral("port");
        QTest::newRow("port too big") << QStringLiteral("redis://h:70000") << QStringLiteral("port");
        QTest::newRow("port zero") << QStringLiteral("redis://h:0") << QStringLiteral("port");
        QTest::newRow("port negative") << QStringLiteral("redis://h:-1") << QStringLiteral("port");
        QTest::newRow("db not a number") << QStringLiteral("redis://h/abc") << QStringLiteral("database");
        QTest::newRow("db negative") << QStringLiteral("redis://h/-1") << QStringLiteral("database");
        QTest::newRow("db with path") << QStringLiteral("redis://h/1/2") << QStringLiteral("database");
        QTest::newRow("db query not a number") << QStringLiteral("redis://h?db=x") << QStringLiteral("db");
        QTest::newRow("unix db not a number") << QStringLiteral("unix:///tmp/r.sock?db=three") << QStringLiteral("db");
        QTest::newRow("unknown scheme") << QStringLiteral("http://h") << QStringLiteral("unsupported scheme 'http'");
        QTest::newRow("missing host") << QStringLiteral("redis://") << QStringLiteral("no host");
        QTest::newRow("missing host with db") << QStringLiteral("redis:///3") << QStringLiteral("no host");
        QTest::newRow("missing socket path") << QStringLiteral("unix://") << QStringLiteral("no socket path");
        QTest::newRow("word") << QStringLiteral("localhost") << QStringLiteral("not a URI");
        QTest::newRow("host:port") << QStringLiteral("127.0.0.1:6379") << QStringLiteral("not a URI");
        QTest::newRow("empty") << QString() << QStringLiteral("not a URI");
        QTest::newRow("blank") << QStringLiteral("   ") << QStringLiteral("not a URI");
        QTest::newRow("bad host") << QStringLiteral("redis://ho st") << QStringLiteral("host");
        // The password must not leak into the message, whatever else is wrong.
        QTest::newRow("secret, bad port") << QStringLiteral("redis://:s3cret@h:abc") << QStringLiteral("port");
        QTest::newRow("secret, bad db") << QStringLiteral("redis://u:s3cret@h/abc") << QStringLiteral("database");
        QTest::newRow("secret, no host") << QStringLiteral("rediss://u:s3cret@/x") << QStringLiteral("no host");
        QTest::newRow("secret, scheme") << QStringLiteral("http://u:s3cret@h") << QStringLiteral("scheme");
        QTest::newRow("secret, bad char") << QStringLiteral("redis://u:s3cret x@h") << QStringLiteral("password");
        QTest::newRow("secret, port too big") << QStringLiteral("redis://u:s3cret@h:99999/1") << QStringLiteral("port");
        QTest::newRow("secret, encoded") << QStringLiteral("redis://u:s3%63ret@h:bad") << QStringLiteral("port");
    }

    void rejects()
    {
        QFETCH(QString, uri);
        QFETCH(QString, reasonContains);

        ConnectionProfile p;
        p.name = QStringLiteral("unchanged");
        p.host = QStringLiteral("before");
        p.db = 7;
        QString error;
        QVERIFY(!ConnectionProfile::parseUri(uri, &p, &error));
        QVERIFY2(error.contains(reasonContains, Qt::CaseInsensitive), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
        QVERIFY2(error.size() < 200, qPrintable(error));
        QVERIFY2(!error.contains(secret()), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String("s3%63ret")), qPrintable(error));
        // A refused URI leaves the profile as it was.
        QCOMPARE(p.name, QStringLiteral("unchanged"));
        QCOMPARE(p.host, QStringLiteral("before"));
        QCOMPARE(p.db, 7);
        // Callers that do not want the reason are allowed to pass nullptr.
        QVERIFY(!ConnectionProfile::parseUri(uri, &p, nullptr));
    }

    void displayAndUri_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<int>("db");
        QTest::addColumn<QString>("username");
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("socketPath");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QString>("uri");

        QTest::newRow("plain") << QString() << QStringLiteral("h") << 6379 << 0 << QString() << false << QString()
                               << QStringLiteral("h:6379") << QStringLiteral("redis://h:6379");
        QTest::newRow("named with db") << QStringLiteral("prod") << QStringLiteral("h") << 6380 << 2
                                       << QStringLiteral("bob") << false << QString()
                                       << QStringLiteral("prod (h:6380/2)") << QStringLiteral("redis://bob@h:6380/2");
        QTest::newRow("tls") << QString() << QStringLiteral("h") << 6379 << 0 << QString() << true << QString()
                             << QStringLiteral("h:6379") << QStringLiteral("rediss://h:6379");
        QTest::newRow("unix") << QString() << QString() << 6379 << 3 << QString() << false
                              << QStringLiteral("/tmp/r.sock") << QStringLiteral("/tmp/r.sock db 3")
                              << QStringLiteral("unix:///tmp/r.sock?db=3");
        QTest::newRow("ipv6") << QString() << QStringLiteral("::1") << 6379 << 0 << QString() << false << QString()
                              << QStringLiteral("[::1]:6379") << QStringLiteral("redis://[::1]:6379");
        QTest::newRow("unix user") << QString() << QString() << 6379 << 0 << QStringLiteral("bob") << false
                                   << QStringLiteral("/tmp/r.sock") << QStringLiteral("/tmp/r.sock")
                                   << QStringLiteral("unix://bob@/tmp/r.sock");
        QTest::newRow("user needing escapes")
            << QString() << QStringLiteral("h") << 1 << 0 << QStringLiteral("a@b:c d") << false << QString()
            << QStringLiteral("h:1") << QStringLiteral("redis://a%40b%3Ac%20d@h:1");
    }

    void displayAndUri()
    {
        QFETCH(QString, name);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(int, db);
        QFETCH(QString, username);
        QFETCH(bool, tls);
        QFETCH(QString, socketPath);
        QFETCH(QString, display);
        QFETCH(QString, uri);

        ConnectionProfile p;
        p.name = name;
        if (!host.isEmpty())
            p.host = host;
        p.port = quint16(port);
        p.db = db;
        p.username = username;
        p.password = secret();
        p.tls = tls;
        p.socketPath = socketPath;
        QCOMPARE(p.displayName(), display);
        QCOMPARE(p.toUri(), uri);
        QVERIFY(!p.displayName().contains(secret()));
        QVERIFY(!p.toUri().contains(secret()));

        ConnectionProfile back;
        QString error;
        QVERIFY2(ConnectionProfile::parseUri(p.toUri(), &back, &error), qPrintable(error));
        QCOMPARE(back.username, username);
        QCOMPARE(back.db, db);
        QCOMPARE(back.socketPath, socketPath);
        if (socketPath.isEmpty()) {
            QCOMPARE(back.host, host);
            QCOMPARE(int(back.port), port);
            QCOMPARE(back.tls, tls);
        }
    }
};

QTEST_GUILESS_MAIN(TstConnectionProfile)
#include "tst_connectionprofile.moc"
