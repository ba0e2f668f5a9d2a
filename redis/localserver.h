// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QStringList>
#include <memory>

class QProcess;
class QTemporaryDir;

// A private redis-server on a free loopback port in a temporary directory, with persistence
// off. Used by --demo and by the integration tests. The server is killed with this object and
// also when this process dies, however it dies (PR_SET_PDEATHSIG on Linux).
class LocalServer : public QObject
{
    Q_OBJECT
public:
    explicit LocalServer(QObject *parent = nullptr);
    ~LocalServer() override;

    // Finds redis-server: $REDISLENS_REDIS_SERVER, then PATH, then /usr/sbin and /usr/bin.
    static QString findExecutable();
    // A loopback TCP port nobody listens on right now.
    static quint16 freePort();

    // Extra "--directive value" arguments, e.g. {"--maxmemory", "64mb"}.
    void setExtraArguments(const QStringList &args) { m_extra = args; }
    // Starts and waits until the server answers PING. Returns false with a reason.
    bool start(QString *error = nullptr, int timeoutMs = 10000);
    // Stops the server (SIGTERM, then SIGKILL).
    void stop();
    // Kills the server without letting it shut down, as a crash would.
    void kill();
    // Starts again on the same port and directory (after kill or stop).
    bool restart(QString *error = nullptr);

    bool isRunning() const;
    quint16 port() const { return m_port; }
    QString host() const { return QStringLiteral("127.0.0.1"); }
    qint64 pid() const;
    QString directory() const;
    QString logFile() const;

Q_SIGNALS:
    void exited(int code);

private:
    bool launch(QString *error, int timeoutMs);

    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess *m_process = nullptr;
    quint16 m_port = 0;
    QStringList m_extra;
};
