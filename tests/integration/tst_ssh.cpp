// SPDX-License-Identifier: GPL-3.0-or-later
// SSH tunnels against a real OpenSSH sshd on a free loopback port, with a host key and client
// keys made by ssh-keygen for the test: a Redis behind the bastion is browsed (in process and
// by the real binary), an unknown host key is asked about and remembered, a changed one is
// refused with both fingerprints (ssh-keygen's), a wrong key and a wrong passphrase are refused
// once and not tried again, the agent and ~/.ssh/config aliases work, and a passphrase typed at
// the terminal prompt is nowhere afterwards.
#include "keyscanner.h"
#include "localserver.h"
#include "processrun.h"
#include "sshdserver.h"
#include "sshtunnel.h"
#include "testcluster.h"
#include "testserver.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

namespace {

// Made at run time, long and random: nothing else matches it by chance.
const QString kPassphrase = QUuid::createUuid().toString(QUuid::WithoutBraces);

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSsh : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void keyLoginBrowsesTheServerBehindIt();
    void theBinaryShowsAndChecksThroughTheBastion();
    void unknownHostKeyIsRefusedUnlessTrusted();
    void trustedHostKeyIsRememberedInKnownHosts();
    void changedHostKeyIsRefusedWithBothFingerprints();
    void wrongKeyIsRefusedOnceAndNotTriedAgain();
    void encryptedKeyNeedsItsPassphrase();
    void agentLogsIn();
    void configAliasIsHonoured();
    void unreachableServerBehindTheBastionIsNamed();
    void clusterNodesEachHaveTheirForward();
    void passphraseTypedAtThePromptIsNowhere();

private:
    ConnectionProfile throughBastion(const QString &key) const;
    RedisError refusal(const ConnectionProfile &profile);
    QString sshDir() const { return m_home.path() + QStringLiteral("/.ssh"); }
    QStringList bastionArgs(const QString &key) const;

    QTemporaryDir m_home;
    SshdServer m_sshd;
    TestServer m_redis;
};

void TestSsh::initTestCase()
{
    // HOME is where RedisLens looks for ~/.ssh (known_hosts, config, default keys): the test's.
    qputenv("HOME", m_home.path().toLocal8Bit());
    qunsetenv("SSH_AUTH_SOCK"); // an agent of the person testing must not log anybody in
    QString error;
    QVERIFY2(m_redis.start(&error), qPrintable(error));
    QVERIFY2(m_sshd.start(&error), qPrintable(error));
    QVERIFY2(m_sshd.makeKey(QStringLiteral("id_plain"), QString(), true, &error), qPrintable(error));
    QVERIFY2(m_sshd.makeKey(QStringLiteral("id_locked"), kPassphrase, true, &error), qPrintable(error));
    QVERIFY2(m_sshd.makeKey(QStringLiteral("id_stranger"), QString(), false, &error), qPrintable(error));
    QVERIFY2(m_sshd.makeKey(QStringLiteral("id_agent"), QString(), true, &error), qPrintable(error));
    QVERIFY2(m_sshd.makeKey(QStringLiteral("other_host"), QString(), false, &error), qPrintable(error));
    m_redis.pipeline({{"SET", "behind:one", "1"},
                      {"SET", "behind:two", "2"},
                      {"HSET", "behind:hash", "f", "v"},
                      {"SET", "behind:big", QByteArray(3 * 1024 * 1024 + 17, 'b')}});
}

void TestSsh::init()
{
    QDir(sshDir()).removeRecursively();
    SshTunnel::setHostKeyAsker({});
}

ConnectionProfile TestSsh::throughBastion(const QString &key) const
{
    ConnectionProfile p = m_redis.profile();
    p.ssh.host = QStringLiteral("127.0.0.1");
    p.ssh.port = m_sshd.port();
    p.ssh.user = m_sshd.user();
    p.ssh.keyFile = key.isEmpty() ? QString() : m_sshd.keyFile(key);
    p.ssh.acceptNewHostKey = true;
    return p;
}

QStringList TestSsh::bastionArgs(const QString &key) const
{
    return {QStringLiteral("-h"),
            QStringLiteral("127.0.0.1"),
            QStringLiteral("-p"),
            QString::number(m_redis.port()),
            QStringLiteral("--ssh"),
            QStringLiteral("%1@127.0.0.1:%2").arg(m_sshd.user()).arg(m_sshd.port()),
            QStringLiteral("--ssh-key"),
            m_sshd.keyFile(key),
            QStringLiteral("--ssh-accept-new")};
}

RedisError TestSsh::refusal(const ConnectionProfile &profile)
{
    RedisClient client(profile);
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    if (!errors.wait(20000))
        return {};
    const auto e = errors.first().first().value<RedisError>();
    if (client.isReady() || e.message.contains(QLatin1Char('\n')))
        return {};
    return e;
}

void TestSsh::keyLoginBrowsesTheServerBehindIt()
{
    const ConnectionProfile p = throughBastion(QStringLiteral("id_plain"));
    // Two connections at once share the bastion's session, each with its own channel.
    auto first = connectedClient(p, 20000);
    auto second = connectedClient(p, 20000);
    QVERIFY(first && second);
    const RedisReply scanned = waitForReply(*first, {{"SCAN", "0", "MATCH", "behind:*", "COUNT", "1000"}});
    QVERIFY2(scanned.ok(), qPrintable(scanned.error.message));
    QList<QByteArray> keys;
    for (const RedisValue &k : scanned.value().at(1).elements())
        keys << k.bytes();
    std::sort(keys.begin(), keys.end());
    QList<QByteArray> expected = m_redis.allKeys("behind:*");
    std::sort(expected.begin(), expected.end());
    QCOMPARE(keys, expected);
    // A value of several megabytes crosses the channel window many times over, both ways.
    const QByteArray upload(2 * 1024 * 1024 + 3, 'u');
    const RedisReply r = waitForReply(*second, {{"GET", "behind:big"}, {"SET", "behind:upload", upload}});
    QVERIFY2(r.ok(), qPrintable(r.error.message));
    QCOMPARE(r.value(0).bytes(), m_redis.command({"GET", "behind:big"}).bytes());
    QCOMPARE(m_redis.command({"STRLEN", "behind:upload"}).toInteger(), qint64(upload.size()));
    m_redis.command({"DEL", "behind:upload"});
    // The server sees the bastion's forward, not this process: the connection came from sshd.
    const QByteArray clients = m_redis.command({"CLIENT", "LIST"}).bytes();
    QVERIFY(clients.contains("name=redislens"));
}

void TestSsh::theBinaryShowsAndChecksThroughTheBastion()
{
    const QProcessEnvironment env = isolatedEnvironment(m_home.path());
    const ProcessRun shown = runProgram(
        QStringLiteral(REDISLENS_APP_PATH),
        QStringList{QStringLiteral("show"), QStringLiteral("keys"), QStringLiteral("--format"), QStringLiteral("jsonl")}
            + bastionArgs(QStringLiteral("id_plain")),
        120000, env);
    QVERIFY2(shown.code == 0, shown.err.constData());
    for (const QByteArray &key : m_redis.allKeys("behind:*"))
        QVERIFY2(shown.out.contains(QByteArray("\"" + key + "\"")), key.constData());

    const ProcessRun checked
        = runProgram(QStringLiteral(REDISLENS_APP_PATH),
                     QStringList{QStringLiteral("check")} + bastionArgs(QStringLiteral("id_plain")), 120000, env);
    QVERIFY2(checked.code == 0, QByteArray(checked.out + checked.err).constData());
    QVERIFY2(checked.out.contains("ssh") && checked.out.contains("forward"), checked.out.constData());
    QVERIFY(!checked.out.contains("failed"));
}

void TestSsh::unknownHostKeyIsRefusedUnlessTrusted()
{
    ConnectionProfile p = throughBastion(QStringLiteral("id_plain"));
    p.ssh.acceptNewHostKey = false;
    const RedisError e = refusal(p);
    QVERIFY2(e.message.contains(QLatin1String("not in")), qPrintable(e.message));
    const QString fingerprint = SshdServer::fingerprint(m_sshd.hostKeyFile() + QStringLiteral(".pub"));
    QVERIFY(fingerprint.startsWith(QLatin1String("SHA256:")));
    QVERIFY2(e.message.contains(fingerprint), qPrintable(e.message));
    QVERIFY(!QFile::exists(sshDir() + QStringLiteral("/known_hosts")));

    // Asked and declined: refused too, and nothing is remembered.
    int asked = 0;
    SshTunnel::setHostKeyAsker([&asked](const SshTunnel::HostKey &) {
        ++asked;
        return false;
    });
    QVERIFY(!refusal(p).message.isEmpty());
    QCOMPARE(asked, 1);
    QVERIFY(!QFile::exists(sshDir() + QStringLiteral("/known_hosts")));
}

void TestSsh::trustedHostKeyIsRememberedInKnownHosts()
{
    ConnectionProfile p = throughBastion(QStringLiteral("id_plain"));
    p.ssh.acceptNewHostKey = false;
    SshTunnel::HostKey shown;
    int asked = 0;
    SshTunnel::setHostKeyAsker([&](const SshTunnel::HostKey &key) {
        shown = key;
        ++asked;
        return true;
    });
    {
        auto client = connectedClient(p, 20000);
        QVERIFY(client);
    }
    QCOMPARE(asked, 1);
    QCOMPARE(shown.fingerprint, SshdServer::fingerprint(m_sshd.hostKeyFile() + QStringLiteral(".pub")));
    QCOMPARE(shown.type, QStringLiteral("ssh-ed25519"));
    QCOMPARE(shown.host, QStringLiteral("[127.0.0.1]:%1").arg(m_sshd.port()));
    // Remembered where ssh looks: ssh-keygen finds it there.
    QProcess find;
    find.start(QStringLiteral("ssh-keygen"),
               {QStringLiteral("-F"), shown.host, QStringLiteral("-f"), sshDir() + QStringLiteral("/known_hosts")});
    QVERIFY(find.waitForFinished(30000));
    QCOMPARE(find.exitCode(), 0);
    // The next session does not ask.
    auto again = connectedClient(p, 20000);
    QVERIFY(again);
    QCOMPARE(asked, 1);
}

void TestSsh::changedHostKeyIsRefusedWithBothFingerprints()
{
    // known_hosts holds another key for this bastion, as after a server was replaced (or an
    // attacker stands in between).
    QVERIFY(QDir().mkpath(sshDir()));
    QFile known(sshDir() + QStringLiteral("/known_hosts"));
    QVERIFY(known.open(QIODevice::WriteOnly));
    known.write(QStringLiteral("[127.0.0.1]:%1 ").arg(m_sshd.port()).toUtf8()
                + readAll(m_sshd.keyFile(QStringLiteral("other_host.pub"))));
    known.close();
    int asked = 0;
    SshTunnel::setHostKeyAsker([&asked](const SshTunnel::HostKey &) {
        ++asked;
        return true; // never asked: a changed key is not a question
    });
    const RedisError e = refusal(throughBastion(QStringLiteral("id_plain"))); // accept-new is on too
    QVERIFY2(e.message.contains(QLatin1String("CHANGED")), qPrintable(e.message));
    QVERIFY2(e.message.contains(SshdServer::fingerprint(m_sshd.keyFile(QStringLiteral("other_host.pub")))),
             qPrintable(e.message));
    QVERIFY2(e.message.contains(SshdServer::fingerprint(m_sshd.hostKeyFile() + QStringLiteral(".pub"))),
             qPrintable(e.message));
    QVERIFY2(e.message.contains(QLatin1String("ssh-keygen -R")), qPrintable(e.message));
    QCOMPARE(asked, 0);
    // known_hosts is left as it was.
    QCOMPARE(readAll(known.fileName()).count('\n'), 1);
}

void TestSsh::wrongKeyIsRefusedOnceAndNotTriedAgain()
{
    const QString before = m_sshd.log();
    const ConnectionProfile p = throughBastion(QStringLiteral("id_stranger"));
    RedisClient client(p);
    QSignalSpy errors(&client, &RedisClient::connectionError);
    client.connectToServer();
    QVERIFY(errors.wait(20000));
    const QString message = errors.first().first().value<RedisError>().message;
    QVERIFY2(message.contains(QLatin1String("refused the key")), qPrintable(message));
    QVERIFY2(message.contains(SshdServer::fingerprint(m_sshd.keyFile(QStringLiteral("id_stranger.pub")))),
             qPrintable(message));
    // The client retries with back-off: two more attempts fail with the same reason, and the
    // bastion sees no second try with the same key (a login refused takes sshd's log a line
    // before the client hears of it).
    QTRY_VERIFY_WITH_TIMEOUT(errors.size() >= 3, 20000);
    QCOMPARE(errors.last().first().value<RedisError>().message, message);
    const QString log = m_sshd.log().mid(before.size());
    QCOMPARE(log.count(QLatin1String("Connection from 127.0.0.1")), 1);
}

void TestSsh::encryptedKeyNeedsItsPassphrase()
{
    QVERIFY(sshkeys::isEncrypted(m_sshd.keyFile(QStringLiteral("id_locked"))));
    QVERIFY(!sshkeys::isEncrypted(m_sshd.keyFile(QStringLiteral("id_plain"))));
    ConnectionProfile p = throughBastion(QStringLiteral("id_locked"));
    const RedisError without = refusal(p);
    QVERIFY2(without.message.contains(QLatin1String("needs its passphrase")), qPrintable(without.message));
    p.ssh.keyPassphrase = QStringLiteral("not the passphrase");
    const RedisError wrong = refusal(p);
    QVERIFY2(wrong.message.contains(QLatin1String("wrong passphrase")), qPrintable(wrong.message));
    QVERIFY(!wrong.message.contains(p.ssh.keyPassphrase));
    p.ssh.keyPassphrase = kPassphrase;
    QVERIFY(connectedClient(p, 20000));
}

void TestSsh::agentLogsIn()
{
    const QString socket = m_sshd.dir() + QStringLiteral("/agent.sock");
    QProcess agent;
    agent.start(QStringLiteral("ssh-agent"), {QStringLiteral("-D"), QStringLiteral("-a"), socket});
    QVERIFY(agent.waitForStarted(10000));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(socket), 5000);
    QProcess add;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SSH_AUTH_SOCK"), socket);
    add.setProcessEnvironment(env);
    add.start(QStringLiteral("ssh-add"), {m_sshd.keyFile(QStringLiteral("id_agent"))});
    QVERIFY(add.waitForFinished(30000));
    QCOMPARE(add.exitCode(), 0);

    // No key file and no default key in ~/.ssh: only the agent can log this user in.
    const ConnectionProfile p = throughBastion(QString());
    const RedisError without = refusal(p);
    QVERIFY2(without.message.contains(QLatin1String("accepted no key")), qPrintable(without.message));
    qputenv("SSH_AUTH_SOCK", socket.toLocal8Bit());
    auto client = connectedClient(p, 20000);
    qunsetenv("SSH_AUTH_SOCK");
    agent.terminate();
    agent.waitForFinished(5000);
    QVERIFY(client);
}

void TestSsh::configAliasIsHonoured()
{
    QVERIFY(QDir().mkpath(sshDir()));
    QFile config(sshDir() + QStringLiteral("/config"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QStringLiteral("Host bastion-alias\n"
                                "    HostName 127.0.0.1\n"
                                "    Port %1\n"
                                "    User %2\n"
                                "    IdentityFile %3\n")
                     .arg(m_sshd.port())
                     .arg(m_sshd.user(), m_sshd.keyFile(QStringLiteral("id_plain")))
                     .toUtf8());
    config.close();
    ConnectionProfile p = m_redis.profile();
    p.ssh.host = QStringLiteral("bastion-alias"); // nothing else: the rest is ~/.ssh/config's
    p.ssh.acceptNewHostKey = true;
    auto client = connectedClient(p, 20000);
    QVERIFY(client);
    QCOMPARE(waitForReply(*client, {{"GET", "behind:one"}}).value().bytes(), QByteArray("1"));
}

void TestSsh::unreachableServerBehindTheBastionIsNamed()
{
    ConnectionProfile p = throughBastion(QStringLiteral("id_plain"));
    p.port = LocalServer::freePort(); // nothing listens there
    const RedisError e = refusal(p);
    QVERIFY2(e.message.contains(QStringLiteral("could not reach 127.0.0.1:%1").arg(p.port)), qPrintable(e.message));
}

// A Redis Cluster behind the bastion: every primary is reached through a forward of its own
// (sshd logs each one asked for), and the walk over all of them finds every key.
void TestSsh::clusterNodesEachHaveTheirForward()
{
    TestCluster cluster(3, 0);
    QString error;
    QVERIFY2(cluster.start(&error), qPrintable(error));
    const QList<QByteArray> written = cluster.populate(600, "behind:cluster:");
    const qsizetype logBefore = m_sshd.log().size(); // the earlier tests' forwards are not this one's
    ConnectionProfile p = throughBastion(QStringLiteral("id_plain"));
    p.port = cluster.seedPort();
    p.cluster = true;
    auto client = connectedClient(p, 20000);
    QVERIFY(client);
    QVERIFY(client->cluster());
    KeyScanner scanner(client.get());
    QSet<QByteArray> found;
    connect(&scanner, &KeyScanner::batchAvailable, this, [&found](const ScanBatch &b) {
        for (const ScannedKey &k : b.keys)
            found.insert(k.name);
    });
    QSignalSpy finished(&scanner, &KeyScanner::finished);
    scanner.start(ScanOptions());
    QVERIFY(finished.wait(60000));
    QVERIFY(!finished.constFirst().constFirst().value<ScanProgress>().error);
    QCOMPARE(found, QSet<QByteArray>(written.cbegin(), written.cend()));
    const QString log = m_sshd.log().mid(logBefore);
    for (const quint16 port : cluster.primaryPorts()) {
        const QRegularExpression forward(QStringLiteral("target 127\\.0\\.0\\.1 port %1\\b").arg(port),
                                         QRegularExpression::MultilineOption);
        QVERIFY2(log.contains(forward), qPrintable(log.right(4000)));
    }
}

void TestSsh::passphraseTypedAtThePromptIsNowhere()
{
    QTemporaryDir home;
    QVERIFY(QDir().mkpath(home.path() + QStringLiteral("/.ssh")));
    QProcessEnvironment env = isolatedEnvironment(home.path());
    env.insert(QStringLiteral("TYPED"), kPassphrase);
    const QString helper = qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/support/atprompt.py");
    for (const QString &command : {QStringLiteral("check"), QStringLiteral("show")}) {
        QStringList args{helper,
                         QStringLiteral("Passphrase for the SSH key"),
                         QStringLiteral("TYPED"),
                         QStringLiteral("--"),
                         QStringLiteral(REDISLENS_APP_PATH),
                         command};
        if (command == QLatin1String("show"))
            args << QStringLiteral("keys");
        args << bastionArgs(QStringLiteral("id_locked"));
        const ProcessRun r = runProgram(QStringLiteral("python3"), args, 120000, env);
        QVERIFY2(r.code == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains("Passphrase for the SSH key"), r.out.constData());
        QVERIFY(!r.out.contains(kPassphrase.toUtf8()) && !r.err.contains(kPassphrase.toUtf8()));
    }
    // Nothing RedisLens wrote (settings, history, known_hosts, caches) holds it.
    QDirIterator it(home.path(), QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        ++files;
        QVERIFY2(!readAll(path).contains(kPassphrase.toUtf8()), qPrintable(path));
    }
    QVERIFY(files > 0); // known_hosts at least: the search looked somewhere
}

QTEST_GUILESS_MAIN(TestSsh)
#include "tst_ssh.moc"
