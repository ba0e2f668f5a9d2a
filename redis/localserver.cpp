// SPDX-License-Identifier: GPL-3.0-or-later
#include "localserver.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#ifdef Q_OS_LINUX
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#endif

LocalServer::LocalServer(QObject *parent) : QObject(parent)
{ }

LocalServer::~LocalServer()
{
    stop();
}

QString LocalServer::findExecutable()
{
    const QString fromEnv = qEnvironmentVariable("REDISLENS_REDIS_SERVER");
    if (!fromEnv.isEmpty() && QFileInfo(fromEnv).isExecutable())
        return fromEnv;
    QString found = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (found.isEmpty())
        found = QStandardPaths::findExecutable(
            QStringLiteral("redis-server"),
            {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/bin")});
    return found;
}

quint16 LocalServer::freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool LocalServer::start(QString *error, int timeoutMs)
{
    stop();
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/redislens-server-XXXXXX"));
    if (!m_dir->isValid()) {
        if (error)
            *error = QStringLiteral("cannot create a temporary directory: %1").arg(m_dir->errorString());
        return false;
    }
    // Another process may take the port between the probe and the bind; try a few.
    for (int attempt = 0; attempt < 5; ++attempt) {
        m_port = freePort();
        if (launch(error, timeoutMs))
            return true;
        if (!error || !error->contains(QLatin1String("Address already in use")))
            return false;
    }
    return false;
}

bool LocalServer::restart(QString *error)
{
    if (!m_dir)
        return start(error);
    if (isRunning())
        stop();
    return launch(error, 10000);
}

bool LocalServer::launch(QString *error, int timeoutMs)
{
    const QString exe = findExecutable();
    if (exe.isEmpty()) {
        if (error)
            *error = QStringLiteral("redis-server not found (install the redis-server package or set "
                                    "REDISLENS_REDIS_SERVER)");
        return false;
    }
    QStringList args{QStringLiteral("--port"),
                     QString::number(m_port),
                     QStringLiteral("--bind"),
                     QStringLiteral("127.0.0.1"),
                     QStringLiteral("--dir"),
                     m_dir->path(),
                     QStringLiteral("--save"),
                     QString(),
                     QStringLiteral("--appendonly"),
                     QStringLiteral("no"),
                     QStringLiteral("--daemonize"),
                     QStringLiteral("no"),
                     QStringLiteral("--logfile"),
                     logFile(),
                     QStringLiteral("--enable-debug-command"),
                     QStringLiteral("local"),
                     QStringLiteral("--protected-mode"),
                     QStringLiteral("yes")};
    args += m_extra;
    delete m_process;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_process->setStandardOutputFile(QProcess::nullDevice());
#ifdef Q_OS_LINUX
    // The kernel sends SIGKILL to the server when the thread that started it dies, so a crash
    // of RedisLens never leaves a server behind.
    const pid_t parent = getpid();
    m_process->setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(1);
    });
#endif
    connect(m_process, &QProcess::finished, this, [this](int code) { Q_EMIT exited(code); });
    m_process->start(exe, args);
    if (!m_process->waitForStarted(timeoutMs)) {
        if (error)
            *error = QStringLiteral("cannot start %1: %2").arg(exe, m_process->errorString());
        return false;
    }
    const QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process->state() != QProcess::Running) {
            QFile log(logFile());
            QString tail;
            if (log.open(QIODevice::ReadOnly))
                tail = QString::fromUtf8(log.readAll()).trimmed().section(QLatin1Char('\n'), -1);
            if (error)
                *error = QStringLiteral("redis-server exited at start: %1").arg(tail);
            return false;
        }
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, m_port);
        if (probe.waitForConnected(200)) {
            probe.write("PING\r\n");
            QByteArray got;
            while (!got.contains("\r\n") && probe.waitForReadyRead(500))
                got += probe.readAll();
            // Up: PONG, or NOAUTH from a password-protected server. LOADING means not yet.
            if (got.startsWith("+PONG") || got.startsWith("-NOAUTH"))
                return true;
        }
        QThread::msleep(20);
    }
    if (error)
        *error = QStringLiteral("redis-server did not answer within %1 ms").arg(timeoutMs);
    kill();
    return false;
}

void LocalServer::stop()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }
}

void LocalServer::kill()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

bool LocalServer::isRunning() const
{
    return m_process && m_process->state() == QProcess::Running;
}

qint64 LocalServer::pid() const
{
    return m_process ? m_process->processId() : 0;
}

QString LocalServer::directory() const
{
    return m_dir ? m_dir->path() : QString();
}

QString LocalServer::logFile() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("redis.log")) : QString();
}
