// SPDX-License-Identifier: GPL-3.0-or-later
#include "sshdserver.h"

#include "localserver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTcpSocket>
#include <QThread>

#include <pwd.h>
#include <unistd.h>

SshdServer::SshdServer() = default;

SshdServer::~SshdServer()
{
    if (m_sshd && m_sshd->state() != QProcess::NotRunning) {
        m_sshd->terminate();
        if (!m_sshd->waitForFinished(5000))
            m_sshd->kill();
        m_sshd->waitForFinished(5000);
    }
}

QString SshdServer::user() const
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : qEnvironmentVariable("USER");
}

bool SshdServer::run(const QString &program, const QStringList &args, QString *error)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("%1 %2: %3")
                     .arg(program, args.join(QLatin1Char(' ')), QString::fromLocal8Bit(p.readAllStandardError()));
        return false;
    }
    return true;
}

QString SshdServer::fingerprint(const QString &publicKeyFile)
{
    QProcess p;
    p.start(
        QStringLiteral("ssh-keygen"),
        {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"), QStringLiteral("-f"), publicKeyFile});
    p.waitForFinished(30000);
    // "256 SHA256:… comment (ED25519)"
    return QString::fromLatin1(p.readAllStandardOutput()).section(QLatin1Char(' '), 1, 1);
}

bool SshdServer::makeKey(const QString &name, const QString &passphrase, bool authorized, QString *error)
{
    const QString file = keyFile(name);
    QFile::remove(file);
    QFile::remove(file + QStringLiteral(".pub"));
    if (!run(QStringLiteral("ssh-keygen"),
             {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), passphrase,
              QStringLiteral("-C"), name, QStringLiteral("-f"), file},
             error))
        return false;
    if (!authorized)
        return true;
    QFile pub(file + QStringLiteral(".pub"));
    QFile keys(m_dir.filePath(QStringLiteral("authorized_keys")));
    if (!pub.open(QIODevice::ReadOnly) || !keys.open(QIODevice::Append)) {
        *error = QStringLiteral("cannot add %1 to authorized_keys").arg(name);
        return false;
    }
    keys.write(pub.readAll());
    return true;
}

QString SshdServer::log() const
{
    QFile f(m_dir.filePath(QStringLiteral("sshd.log")));
    return f.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(f.readAll()) : QString();
}

bool SshdServer::start(QString *error)
{
    const QString sshd = QStringLiteral("/usr/sbin/sshd");
    if (!QFileInfo(sshd).isExecutable()) {
        *error = QStringLiteral("no %1 (Debian's openssh-server; script/bootstrap --tests installs it)").arg(sshd);
        return false;
    }
    if (!m_dir.isValid()) {
        *error = QStringLiteral("no temporary directory");
        return false;
    }
    // As root, sshd wants its privilege separation directory, a path compiled into it.
    if (::geteuid() == 0 && !QFileInfo(QStringLiteral("/run/sshd")).isDir()) {
        *error = QStringLiteral("sshd runs as root here and needs /run/sshd: run script/bootstrap --tests");
        return false;
    }
    if (!run(QStringLiteral("ssh-keygen"),
             {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
              QStringLiteral("-f"), hostKeyFile()},
             error))
        return false;
    QFile(m_dir.filePath(QStringLiteral("authorized_keys"))).open(QIODevice::Append);
    // A port that was free a moment ago may be taken by the time sshd binds it: a few tries.
    for (int attempt = 0; attempt < 5; ++attempt) {
        m_port = LocalServer::freePort();
        const QString config = m_dir.filePath(QStringLiteral("sshd_config"));
        QFile f(config);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            *error = QStringLiteral("cannot write %1").arg(config);
            return false;
        }
        f.write(QStringLiteral("Port %1\n"
                               "ListenAddress 127.0.0.1\n"
                               "HostKey %2\n"
                               "AuthorizedKeysFile %3\n"
                               "PidFile none\n"
                               "StrictModes no\n"
                               "UsePAM no\n"
                               "PasswordAuthentication no\n"
                               "KbdInteractiveAuthentication no\n"
                               "PermitRootLogin prohibit-password\n"
                               "AllowTcpForwarding yes\n"
                               "PermitOpen 127.0.0.1:*\n"
                               "AllowAgentForwarding no\n"
                               "X11Forwarding no\n"
                               // DEBUG1 logs each forward asked for ("target 127.0.0.1 port
                               // N"): tests see which servers were reached through it.
                               "LogLevel DEBUG1\n")
                    .arg(m_port)
                    .arg(hostKeyFile(), m_dir.filePath(QStringLiteral("authorized_keys")))
                    .toLocal8Bit());
        f.close();
        m_sshd = std::make_unique<QProcess>();
        // To a file: a pipe nobody reads would stall sshd once full.
        m_sshd->setStandardErrorFile(m_dir.filePath(QStringLiteral("sshd.log")), QIODevice::Append);
        m_sshd->start(sshd, {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), config});
        if (!m_sshd->waitForStarted(10000)) {
            *error = QStringLiteral("sshd did not start: %1").arg(m_sshd->errorString());
            return false;
        }
        for (int i = 0; i < 100 && m_sshd->state() == QProcess::Running; ++i) {
            QTcpSocket probe;
            probe.connectToHost(QStringLiteral("127.0.0.1"), m_port);
            if (probe.waitForConnected(200)) {
                probe.abort();
                return true;
            }
            QThread::msleep(50);
        }
        m_sshd->waitForFinished(2000);
        *error = QStringLiteral("sshd did not listen on port %1: %2").arg(m_port).arg(log());
    }
    return false;
}
