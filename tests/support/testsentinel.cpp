// SPDX-License-Identifier: GPL-3.0-or-later
#include "testsentinel.h"

#include "localserver.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QThread>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#endif

TestSentinel::TestSentinel(const QStringList &sentinelConfig) : m_config(sentinelConfig)
{
    for (const QString &line : sentinelConfig)
        if (line.startsWith(QLatin1String("requirepass ")))
            m_password = line.mid(12).toUtf8();
}

RedisValue TestSentinel::ask(quint16 port, const QList<QByteArray> &argv) const
{
    RawConnection c(port);
    if (!m_password.isEmpty())
        c.command({"AUTH", m_password});
    return c.command(argv);
}

TestSentinel::~TestSentinel()
{
    for (QProcess *p : std::as_const(m_sentinels)) {
        p->terminate();
        if (!p->waitForFinished(5000))
            p->kill();
        p->waitForFinished(5000);
        delete p;
    }
    qDeleteAll(m_servers);
}

void TestSentinel::useTls(const QString &certFile, const QString &keyFile, const QString &caFile)
{
    m_tls = {certFile, keyFile, caFile};
}

QStringList TestSentinel::sentinelAddresses() const
{
    QStringList out;
    for (const quint16 port : m_tls.isEmpty() ? m_sentinelPorts : m_sentinelTlsPorts)
        out << QStringLiteral("127.0.0.1:%1").arg(port);
    return out;
}

bool TestSentinel::start(QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!m_dir.isValid())
        return fail(QStringLiteral("no temporary directory"));
    // With TLS: each server's TLS port and files, and the replica replicating over TLS.
    QStringList tlsArgs[2];
    quint16 tlsPorts[2] = {0, 0};
    for (int i = 0; i < 2 && !m_tls.isEmpty(); ++i) {
        tlsPorts[i] = LocalServer::freePort();
        tlsArgs[i] = {QStringLiteral("--tls-port"),         QString::number(tlsPorts[i]),
                      QStringLiteral("--tls-cert-file"),    m_tls.at(0),
                      QStringLiteral("--tls-key-file"),     m_tls.at(1),
                      QStringLiteral("--tls-ca-cert-file"), m_tls.at(2),
                      QStringLiteral("--tls-auth-clients"), QStringLiteral("no")};
    }
    auto *primary = new TestServer(tlsArgs[0]);
    m_servers << primary;
    if (!primary->start(error))
        return false;
    const quint16 watched = m_tls.isEmpty() ? primary->port() : tlsPorts[0];
    QStringList replicaArgs{QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"), QString::number(watched)};
    if (!m_tls.isEmpty())
        replicaArgs += tlsArgs[1] + QStringList{QStringLiteral("--tls-replication"), QStringLiteral("yes")};
    auto *replica = new TestServer(replicaArgs);
    m_servers << replica;
    if (!replica->start(error))
        return false;
    for (int i = 0; i < 3; ++i) {
        const quint16 port = LocalServer::freePort();
        const QString conf = m_dir.filePath(QStringLiteral("sentinel-%1.conf").arg(i));
        QFile f(conf);
        if (!f.open(QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write %1").arg(conf));
        QStringList lines{QStringLiteral("port %1").arg(port),
                          QStringLiteral("bind 127.0.0.1"),
                          QStringLiteral("daemonize no"),
                          QStringLiteral("dir %1").arg(m_dir.path()),
                          QStringLiteral("logfile %1").arg(m_dir.filePath(QStringLiteral("sentinel-%1.log").arg(i))),
                          QStringLiteral("sentinel monitor mymaster 127.0.0.1 %1 2").arg(watched),
                          QStringLiteral("sentinel down-after-milliseconds mymaster 1000"),
                          QStringLiteral("sentinel failover-timeout mymaster 5000"),
                          QStringLiteral("sentinel parallel-syncs mymaster 1")};
        if (!m_tls.isEmpty()) {
            const quint16 tlsPort = LocalServer::freePort();
            m_sentinelTlsPorts << tlsPort;
            lines += QStringList{QStringLiteral("tls-port %1").arg(tlsPort),
                                 QStringLiteral("tls-cert-file %1").arg(m_tls.at(0)),
                                 QStringLiteral("tls-key-file %1").arg(m_tls.at(1)),
                                 QStringLiteral("tls-ca-cert-file %1").arg(m_tls.at(2)),
                                 QStringLiteral("tls-auth-clients no"),
                                 QStringLiteral("tls-replication yes")};
        }
        lines += m_config;
        f.write(lines.join(QLatin1Char('\n')).toUtf8() + '\n');
        f.close();
        auto *p = new QProcess;
        p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p->setStandardOutputFile(QProcess::nullDevice());
#ifdef Q_OS_LINUX
        p->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
#endif
        p->start(LocalServer::findExecutable(), {conf, QStringLiteral("--sentinel")});
        m_sentinels << p;
        m_sentinelPorts << port;
        if (!p->waitForStarted(10000))
            return fail(QStringLiteral("a sentinel did not start"));
    }
    // Each sentinel answers PING.
    for (const quint16 port : std::as_const(m_sentinelPorts)) {
        const QDeadlineTimer deadline(10000);
        while (ask(port, {"PING"}).bytes() != "PONG") {
            if (deadline.hasExpired())
                return fail(QStringLiteral("sentinel on port %1 did not answer").arg(port));
            QThread::msleep(50);
        }
    }
    if (!waitForDiscovery())
        return fail(QStringLiteral("the sentinels did not discover the replica and each other"));
    return true;
}

bool TestSentinel::waitForDiscovery(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        bool all = true;
        for (const quint16 port : std::as_const(m_sentinelPorts)) {
            const RedisValue replicas = ask(port, {"SENTINEL", "REPLICAS", masterName()});
            const RedisValue sentinels = ask(port, {"SENTINEL", "SENTINELS", masterName()});
            all = all && replicas.size() >= 1 && sentinels.size() >= 2;
        }
        if (all)
            return true;
        QThread::msleep(100);
    }
    return false;
}

quint16 TestSentinel::currentPrimaryPort()
{
    for (int i = 0; i < m_sentinelPorts.size(); ++i) {
        if (m_sentinels.at(i)->state() != QProcess::Running)
            continue;
        const RedisValue v = ask(m_sentinelPorts.at(i), {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName()});
        if (v.isArray() && v.size() == 2)
            return quint16(v.at(1).toInteger());
    }
    return 0;
}

void TestSentinel::stopSentinel(int index)
{
    QProcess *p = m_sentinels.at(index);
    p->terminate();
    if (!p->waitForFinished(5000))
        p->kill();
}
