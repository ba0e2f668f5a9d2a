// SPDX-License-Identifier: GPL-3.0-or-later
#include "transport.h"

#include "connectionprofile.h"
#include "sshtunnel.h"
#include "tlsconfig.h"

#include <QLocalSocket>
#include <QSslSocket>
#include <QTcpSocket>

#include <mutex>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

Transport::~Transport() = default;

namespace {

// What a plain socket takes from the kernel ahead of the worker. A reply larger than this
// arrives over several reads; a connection that receives faster than its thread parses (a
// subscriber to a flood) leaves the rest in the kernel's buffer instead of this process.
constexpr qint64 kReadAhead = qint64(1) << 20;

qint64 readAvailable(QIODevice *device, QByteArray &into)
{
    const qint64 n = device->bytesAvailable();
    if (n <= 0)
        return 0;
    const qsizetype old = into.size();
    into.resize(old + n);
    const qint64 got = device->read(into.data() + old, n);
    into.resize(old + qMax<qint64>(got, 0));
    return got;
}

// Who a forward's answer from the SSH tunnel's thread goes to, while there is one.
struct ForwardReply
{
    std::mutex mutex;
    QObject *to = nullptr;
};

// Our end of a forward's socket pair until a socket adopts it: closed if nobody does.
struct PairEnd
{
    int fd;
    explicit PairEnd(int f) : fd(f) { }
    ~PairEnd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    PairEnd(const PairEnd &) = delete;
    PairEnd &operator=(const PairEnd &) = delete;
    int release() { return std::exchange(fd, -1); }
};

// TCP and TLS: QSslSocket works with every hiredis version, since hiredis only formats and parses.
// Through an SSH bastion the socket is one end of a socket pair whose other end the tunnel pumps
// through a channel to host:port; TLS runs over it end to end, verified against host (or sni).
class TcpTransport final : public Transport
{
public:
    explicit TcpTransport(const ConnectionProfile &p)
        : m_host(p.host),
          m_peerName(p.sni.isEmpty() ? p.host : p.sni),
          m_port(p.port),
          m_tls(p.tls),
          m_clientCertificate(!p.clientCertFile.isEmpty()),
          m_ssh(p.ssh),
          m_connectTimeoutMs(p.connectTimeoutMs)
    {
        m_socket = m_tls ? new QSslSocket(this) : new QTcpSocket(this);
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket)) {
            QString error;
            if (const auto conf = tlsconfig::forProfile(p, &error))
                ssl->setSslConfiguration(*conf);
            else
                m_configError = error;
        }
        // TLS decrypts into Qt's buffer as records arrive: left unbounded there.
        m_socket->setReadBufferSize(m_tls ? 0 : kReadAhead);
        connect(m_socket, &QAbstractSocket::connected, this, [this] {
            m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            m_socket->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
            if (!m_tls)
                Q_EMIT opened();
        });
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket)) {
            connect(ssl, &QSslSocket::encrypted, this, &Transport::opened);
            connect(ssl, &QSslSocket::sslErrors, this,
                    [this](const QList<QSslError> &errors) { m_lastError = tlsconfig::describe(errors, m_peerName); });
        }
        connect(m_socket, &QIODevice::readyRead, this, &Transport::readyRead);
        connect(m_socket, &QAbstractSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
            const bool wasOpen = m_everOpened;
            // What the server said before it closed comes first: a refusal such as "-ERR max
            // number of clients reached" is the reason, not "the remote host closed".
            if (m_socket->bytesAvailable() > 0)
                Q_EMIT readyRead();
            QString reason = m_lastError.isEmpty() ? m_socket->errorString() : m_lastError;
            if (m_tls && m_lastError.isEmpty())
                reason = tlsconfig::describeClosed(reason, m_clientCertificate);
            m_lastError.clear();
            m_socket->abort();
            Q_EMIT closed(wasOpen ? RedisError::Kind::ConnectionLost : RedisError::Kind::ConnectionRefused, reason);
        });
        connect(this, &Transport::opened, this, [this] { m_everOpened = true; });
    }

    ~TcpTransport() override { forgetForward(); }

    void open() override
    {
        m_everOpened = false;
        forgetForward();
        if (!m_configError.isEmpty()) {
            // A file that cannot be used fails every attempt the same way, without a socket.
            refuseLater(m_configError);
            return;
        }
        if (m_ssh.enabled())
            openThroughBastion();
        else if (auto *ssl = qobject_cast<QSslSocket *>(m_socket))
            ssl->connectToHostEncrypted(m_host, m_port, m_peerName);
        else
            m_socket->connectToHost(m_host, m_port);
    }
    void abort() override
    {
        forgetForward();
        m_socket->abort();
    }
    void write(const QByteArray &bytes) override { m_socket->write(bytes); }
    qint64 readInto(QByteArray &into) override { return readAvailable(m_socket, into); }

private:
    // An attempt that fails before any socket connects: reported from the event loop, as a
    // socket's failure would be, never from inside open().
    void refuseLater(const QString &why)
    {
        QMetaObject::invokeMethod(
            this, [this, why] { Q_EMIT closed(RedisError::Kind::ConnectionRefused, why); }, Qt::QueuedConnection);
    }

    void openThroughBastion()
    {
        if (!m_tunnel)
            m_tunnel = SshTunnel::shared(m_ssh, m_connectTimeoutMs);
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
            refuseLater(QStringLiteral("no socket pair for SSH"));
            return;
        }
        auto reply = std::make_shared<ForwardReply>();
        reply->to = this;
        m_forward = reply;
        auto ours = std::make_shared<PairEnd>(fds[0]);
        m_tunnel->forward(fds[1], m_host, m_port, [reply, ours](const QString &error) {
            std::lock_guard lock(reply->mutex);
            if (!reply->to)
                return; // the transport gave up on this attempt; 'ours' closes with the last copy
            auto *self = static_cast<TcpTransport *>(reply->to);
            QMetaObject::invokeMethod(
                self, [self, reply, ours, error] { self->forwardDone(reply, ours, error); }, Qt::QueuedConnection);
        });
    }

    void forwardDone(const std::shared_ptr<ForwardReply> &reply, const std::shared_ptr<PairEnd> &fd,
                     const QString &error)
    {
        if (reply != m_forward)
            return;
        m_forward.reset();
        if (!error.isEmpty()) {
            Q_EMIT closed(RedisError::Kind::ConnectionRefused, error);
            return;
        }
        m_socket->setSocketDescriptor(fd->release());
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket)) {
            ssl->setPeerVerifyName(m_peerName);
            ssl->startClientEncryption();
        } else {
            Q_EMIT opened();
        }
    }

    // An attempt whose answer has not come: it is closed when it comes.
    void forgetForward()
    {
        const std::shared_ptr<ForwardReply> forward = std::exchange(m_forward, nullptr);
        if (!forward)
            return;
        std::lock_guard lock(forward->mutex);
        forward->to = nullptr;
    }

    QString m_host;
    QString m_peerName; // the name sent (SNI) and verified
    quint16 m_port;
    bool m_tls;
    bool m_clientCertificate;
    SshSettings m_ssh;
    int m_connectTimeoutMs;
    std::shared_ptr<SshTunnel> m_tunnel;
    std::shared_ptr<ForwardReply> m_forward;
    bool m_everOpened = false;
    QString m_lastError;
    QString m_configError;
    QTcpSocket *m_socket;
};

class UnixTransport final : public Transport
{
public:
    explicit UnixTransport(const ConnectionProfile &p) : m_path(p.socketPath)
    {
        m_socket = new QLocalSocket(this);
        m_socket->setReadBufferSize(kReadAhead);
        connect(m_socket, &QLocalSocket::connected, this, [this] {
            m_everOpened = true;
            Q_EMIT opened();
        });
        connect(m_socket, &QIODevice::readyRead, this, &Transport::readyRead);
        connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError) {
            if (m_socket->bytesAvailable() > 0) // what the server said before it closed, first
                Q_EMIT readyRead();
            const QString reason = m_socket->errorString();
            const bool wasOpen = m_everOpened;
            m_socket->abort();
            Q_EMIT closed(wasOpen ? RedisError::Kind::ConnectionLost : RedisError::Kind::ConnectionRefused, reason);
        });
    }

    void open() override
    {
        m_everOpened = false;
        m_socket->connectToServer(m_path);
    }
    void abort() override { m_socket->abort(); }
    void write(const QByteArray &bytes) override { m_socket->write(bytes); }
    qint64 readInto(QByteArray &into) override { return readAvailable(m_socket, into); }

private:
    QString m_path;
    bool m_everOpened = false;
    QLocalSocket *m_socket;
};

} // namespace

std::unique_ptr<Transport> Transport::create(const ConnectionProfile &profile)
{
    if (profile.usesUnixSocket())
        return std::make_unique<UnixTransport>(profile);
    return std::make_unique<TcpTransport>(profile);
}
