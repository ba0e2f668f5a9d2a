// SPDX-License-Identifier: GPL-3.0-or-later
// `redislens check` against real servers: a default user, an ACL user who may only read (its
// verdicts tried, then held against what `show` can really do as that user), a user who may
// ask ACL DRYRUN, a wrong password, nothing listening, and TLS certificates that fail.
#include "commandstats.h"
#include "processrun.h"
#include "testserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void defaultUserMayUseEverything();
    void readOnlyUserIsToldWhatItLacks();
    void verdictsMatchWhatShowCanDo();
    void dryRunChecksActionsToo();
    void keyPatternsAreNotMissingCommands();
    void wrongPasswordFailsAtAuth();
    void nothingListeningFailsAtTcp();
    void tlsSteps();

private:
    ProcessRun check(const QStringList &args, const QByteArray &password = {}) const;
    QJsonObject json(const QStringList &args, const QByteArray &password = {}) const;
    static QJsonObject panel(const QJsonObject &doc, const QString &name);
    static QJsonObject step(const QJsonObject &doc, const QString &name);
    QStringList at() const { return {QStringLiteral("-p"), QString::number(m_server.port())}; }

    QTemporaryDir m_home;
    TestServer m_server;
};

ProcessRun TestCheck::check(const QStringList &args, const QByteArray &password) const
{
    QProcessEnvironment env = isolatedEnvironment(m_home.path());
    if (!password.isEmpty())
        env.insert(QStringLiteral("REDISCLI_AUTH"), QString::fromUtf8(password));
    return runProgram(QStringLiteral(REDISLENS_APP_PATH), QStringList{QStringLiteral("check")} + args, 60000, env);
}

QJsonObject TestCheck::json(const QStringList &args, const QByteArray &password) const
{
    const ProcessRun r = check(args + QStringList{QStringLiteral("--format"), QStringLiteral("json")}, password);
    return QJsonDocument::fromJson(r.out).object();
}

QJsonObject TestCheck::panel(const QJsonObject &doc, const QString &name)
{
    for (const QJsonValue v : doc.value(QStringLiteral("panels")).toArray()) {
        if (v.toObject().value(QStringLiteral("panel")).toString() == name)
            return v.toObject();
    }
    return {};
}

QJsonObject TestCheck::step(const QJsonObject &doc, const QString &name)
{
    for (const QJsonValue v : doc.value(QStringLiteral("steps")).toArray()) {
        if (v.toObject().value(QStringLiteral("step")).toString() == name)
            return v.toObject();
    }
    return {};
}

void TestCheck::initTestCase()
{
    QVERIFY(m_home.isValid());
    QString error;
    QVERIFY2(m_server.start(&error), qPrintable(error));
    // A user who may read keys and little else: no slowlog, no scripts, no TIME, no CONFIG.
    QCOMPARE(m_server
                 .command({"ACL", "SETUSER", "reader", "on", ">reader-secret", "~*", "+@read", "+ping", "+info",
                           "+client|setname", "+acl|whoami", "-slowlog"})
                 .bytes(),
             QByteArray("OK"));
    // The same rights, and ACL DRYRUN: actions are checked too.
    QCOMPARE(m_server
                 .command({"ACL", "SETUSER", "auditor", "on", ">auditor-secret", "~*", "+@read", "+ping", "+info",
                           "+client|setname", "+acl|whoami", "+acl|dryrun", "-slowlog"})
                 .bytes(),
             QByteArray("OK"));
    // Every read, on the cache's keys only.
    QCOMPARE(m_server
                 .command({"ACL", "SETUSER", "narrow", "on", ">narrow-secret", "~cache:*", "+@read", "+ping", "+info",
                           "+client|setname", "+acl|whoami"})
                 .bytes(),
             QByteArray("OK"));
    m_server.command({"SET", "greeting", "hello"});
}

void TestCheck::defaultUserMayUseEverything()
{
    const ProcessRun r = check(at());
    QVERIFY2(r.code == 0, r.out.constData());
    QVERIFY2(r.out.contains("panels checked with ACL DRYRUN"), r.out.constData());
    const QJsonObject doc = json(at());
    for (const char *name : {"resolve", "tcp", "ping", "server", "acl"})
        QCOMPARE(step(doc, QString::fromLatin1(name)).value(QStringLiteral("state")).toString(), QStringLiteral("ok"));
    QCOMPARE(step(doc, QStringLiteral("auth")).value(QStringLiteral("state")).toString(), QStringLiteral("skipped"));
    const QJsonArray panels = doc.value(QStringLiteral("panels")).toArray();
    QCOMPARE(panels.size(), 16);
    for (const QJsonValue p : panels)
        QCOMPARE(p.toObject().value(QStringLiteral("status")).toString(), QStringLiteral("available"));
}

void TestCheck::readOnlyUserIsToldWhatItLacks()
{
    const QStringList as = at() + QStringList{QStringLiteral("--user"), QStringLiteral("reader")};
    const ProcessRun r = check(as, "reader-secret");
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.contains("slowlog      unavailable: needs +slowlog|get, +slowlog|len"), r.out.constData());
    const QJsonObject doc = json(as, "reader-secret");
    QCOMPARE(step(doc, QStringLiteral("auth")).value(QStringLiteral("detail")).toString(),
             QStringLiteral("accepted as reader"));
    QVERIFY(step(doc, QStringLiteral("acl"))
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("ACL DRYRUN not allowed")));
    QCOMPARE(panel(doc, QStringLiteral("keys")).value(QStringLiteral("status")).toString(),
             QStringLiteral("available"));
    QCOMPARE(panel(doc, QStringLiteral("slowlog")).value(QStringLiteral("status")).toString(),
             QStringLiteral("unavailable"));
    QCOMPARE(panel(doc, QStringLiteral("console")).value(QStringLiteral("needs")).toArray(),
             QJsonArray({QStringLiteral("+eval"), QStringLiteral("+evalsha")}));
    QCOMPARE(panel(doc, QStringLiteral("overview")).value(QStringLiteral("status")).toString(),
             QStringLiteral("partial"));
    // Trials never write: the actions stay unchecked, and nothing was written.
    QVERIFY(!panel(doc, QStringLiteral("keys")).value(QStringLiteral("actions_unchecked")).toArray().isEmpty());
    RawConnection raw(m_server.port());
    QCOMPARE(commandCalls(raw, {"unlink", "renamenx", "script|load", "xack", "slowlog|reset"}), 0);
    QVERIFY(!r.out.contains("reader-secret") && !r.err.contains("reader-secret"));
}

// What check says a user may not use, `show` indeed cannot read as that user, and the reverse.
void TestCheck::verdictsMatchWhatShowCanDo()
{
    const QStringList as = at() + QStringList{QStringLiteral("--user"), QStringLiteral("reader")};
    const QJsonObject doc = json(as, "reader-secret");
    for (const char *name : {"keys", "slowlog", "ttl", "memory", "ratelimits", "overview", "topology"}) {
        QProcessEnvironment env = isolatedEnvironment(m_home.path());
        env.insert(QStringLiteral("REDISCLI_AUTH"), QStringLiteral("reader-secret"));
        const ProcessRun shown
            = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                         QStringList{QStringLiteral("show"), QString::fromLatin1(name)} + as, 60000, env);
        const bool unavailable = panel(doc, QString::fromLatin1(name)).value(QStringLiteral("status")).toString()
            == QLatin1String("unavailable");
        QVERIFY2((shown.code != 0) == unavailable,
                 qPrintable(QStringLiteral("%1: check says %2, show exits %3: %4")
                                .arg(QString::fromLatin1(name),
                                     panel(doc, QString::fromLatin1(name)).value(QStringLiteral("summary")).toString())
                                .arg(shown.code)
                                .arg(QString::fromUtf8(shown.err))));
    }
}

void TestCheck::dryRunChecksActionsToo()
{
    const QStringList as = at() + QStringList{QStringLiteral("--user"), QStringLiteral("auditor")};
    const QJsonObject doc = json(as, "auditor-secret");
    QVERIFY(step(doc, QStringLiteral("acl"))
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("user auditor; panels checked with ACL DRYRUN")));
    const QJsonObject keys = panel(doc, QStringLiteral("keys"));
    QCOMPARE(keys.value(QStringLiteral("status")).toString(), QStringLiteral("partial"));
    QVERIFY2(keys.value(QStringLiteral("summary")).toString().contains(QLatin1String("deleting keys (+unlink)")),
             qPrintable(keys.value(QStringLiteral("summary")).toString()));
    QCOMPARE(panel(doc, QStringLiteral("slowlog")).value(QStringLiteral("needs")).toArray(),
             QJsonArray({QStringLiteral("+slowlog|get"), QStringLiteral("+slowlog|len")}));
}

// A user whose key patterns leave out the sample key has the commands: the panels work on the
// keys it may read, and check says so instead of calling them unavailable.
void TestCheck::keyPatternsAreNotMissingCommands()
{
    const QStringList as = at() + QStringList{QStringLiteral("--user"), QStringLiteral("narrow")};
    const QJsonObject doc = json(as, "narrow-secret");
    const QJsonObject keys = panel(doc, QStringLiteral("keys"));
    QCOMPARE(keys.value(QStringLiteral("status")).toString(), QStringLiteral("available"));
    QVERIFY(keys.value(QStringLiteral("keys_restricted")).toBool());
    QVERIFY2(
        keys.value(QStringLiteral("summary")).toString().contains(QLatin1String("only the keys this user may read")),
        qPrintable(keys.value(QStringLiteral("summary")).toString()));
}

void TestCheck::wrongPasswordFailsAtAuth()
{
    const QStringList as = at() + QStringList{QStringLiteral("--user"), QStringLiteral("reader")};
    const ProcessRun r = check(as + QStringList{QStringLiteral("--format"), QStringLiteral("json")}, "not-it");
    QCOMPARE(r.code, 2);
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(step(doc, QStringLiteral("tcp")).value(QStringLiteral("state")).toString(), QStringLiteral("ok"));
    QCOMPARE(step(doc, QStringLiteral("auth")).value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QVERIFY(step(doc, QStringLiteral("auth"))
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("WRONGPASS")));
    QVERIFY(doc.value(QStringLiteral("panels")).toArray().isEmpty());
}

void TestCheck::nothingListeningFailsAtTcp()
{
    const quint16 dead = LocalServer::freePort();
    const ProcessRun r = check(
        {QStringLiteral("-p"), QString::number(dead), QStringLiteral("--connect-timeout"), QStringLiteral("2000")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.out.contains("ok       resolve"), r.out.constData());
    QVERIFY2(r.out.contains(QByteArray("failed   tcp          127.0.0.1 port ").append(QByteArray::number(dead))),
             r.out.constData());
    QVERIFY(!r.out.contains("auth"));
}

void TestCheck::tlsSteps()
{
    QTemporaryDir dir;
    const auto openssl = [&](const QStringList &args) {
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(QStringLiteral("openssl"), args);
        return p.waitForFinished(30000) && p.exitCode() == 0;
    };
    // A self-signed certificate for redis.test: unknown to the system, and not for 127.0.0.1.
    QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                     QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                     QStringLiteral("-nodes"), QStringLiteral("-keyout"), QStringLiteral("s.key"),
                     QStringLiteral("-out"), QStringLiteral("s.crt"), QStringLiteral("-days"), QStringLiteral("2"),
                     QStringLiteral("-subj"), QStringLiteral("/CN=redis.test"), QStringLiteral("-addext"),
                     QStringLiteral("subjectAltName=DNS:redis.test")}));
    const quint16 port = LocalServer::freePort();
    TestServer tls({QStringLiteral("--tls-port"), QString::number(port), QStringLiteral("--tls-cert-file"),
                    dir.filePath(QStringLiteral("s.crt")), QStringLiteral("--tls-key-file"),
                    dir.filePath(QStringLiteral("s.key")), QStringLiteral("--tls-auth-clients"), QStringLiteral("no")});
    QString error;
    QVERIFY2(tls.start(&error), qPrintable(error));
    const QStringList base{QStringLiteral("--tls"), QStringLiteral("-p"), QString::number(port)};

    ProcessRun r = check(base);
    QCOMPARE(r.code, 2);
    // The TLS files are read once the application exists: Qt's TLS backend, loaded before it,
    // warned about a connection to a null application object.
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QVERIFY2(r.out.contains("ok       tls"), r.out.constData());
    QVERIFY2(r.out.contains("failed   certificate"), r.out.constData());

    r = check(base + QStringList{QStringLiteral("--cacert"), dir.filePath(QStringLiteral("s.crt"))});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.out.contains("certificate is for redis.test, not 127.0.0.1"), r.out.constData());

    r = check(base
              + QStringList{QStringLiteral("--cacert"), dir.filePath(QStringLiteral("s.crt")), QStringLiteral("--sni"),
                            QStringLiteral("redis.test")});
    QVERIFY2(r.code == 0, QByteArray("exit " + QByteArray::number(r.code) + '\n' + r.err + r.out).constData());
    QVERIFY2(r.out.contains("ok       certificate  chain and host name verified (redis.test"), r.out.constData());

    r = check(base + QStringList{QStringLiteral("--insecure")});
    QVERIFY2(r.code == 0, QByteArray("exit " + QByteArray::number(r.code) + '\n' + r.err + r.out).constData());
    QVERIFY2(r.out.contains("warning  certificate  not verified (--insecure)"), r.out.constData());
}

QTEST_GUILESS_MAIN(TestCheck)
#include "tst_check.moc"
