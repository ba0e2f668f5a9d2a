// SPDX-License-Identifier: GPL-3.0-or-later
#include "transport.h"

#include "connectionprofile.h"

#include <QLocalSocket>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>

Transport::~Transport() = default;

namespace {

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

// TCP and TLS: QSslSocket works with every hiredis version, since hiredis only formats and parses.
class TcpTransport final : public Transport
{
public:
    explicit TcpTransport(const ConnectionProfile &p) : m_host(p.host), m_port(p.port), m_tls(p.tls)
    {
        m_socket = m_tls ? new QSslSocket(this) : new QTcpSocket(this);
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket)) {
            QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
            if (!p.caCertFile.isEmpty()) {
                const QList<QSslCertificate> cas = QSslCertificate::fromPath(p.caCertFile, QSsl::Pem);
                if (cas.isEmpty())
                    m_lastError = QStringLiteral("no PEM certificate in %1").arg(p.caCertFile);
                conf.setCaCertificates(conf.caCertificates() + cas);
            }
            if (p.tlsInsecure)
                conf.setPeerVerifyMode(QSslSocket::VerifyNone);
            ssl->setSslConfiguration(conf);
        }
        m_socket->setReadBufferSize(0);
        connect(m_socket, &QAbstractSocket::connected, this, [this] {
            m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            m_socket->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
            if (!m_tls)
                Q_EMIT opened();
        });
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket)) {
            connect(ssl, &QSslSocket::encrypted, this, &Transport::opened);
            connect(ssl, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
                m_lastError = errors.isEmpty() ? QStringLiteral("TLS handshake failed") : errors.first().errorString();
            });
        }
        connect(m_socket, &QIODevice::readyRead, this, &Transport::readyRead);
        connect(m_socket, &QAbstractSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
            const bool wasOpen = m_everOpened;
            const QString reason = m_lastError.isEmpty() ? m_socket->errorString() : m_lastError;
            m_lastError.clear();
            Q_UNUSED(error)
            m_socket->abort();
            Q_EMIT closed(wasOpen ? RedisError::Kind::ConnectionLost : RedisError::Kind::ConnectionRefused, reason);
        });
        connect(this, &Transport::opened, this, [this] { m_everOpened = true; });
    }

    void open() override
    {
        m_everOpened = false;
        if (auto *ssl = qobject_cast<QSslSocket *>(m_socket))
            ssl->connectToHostEncrypted(m_host, m_port);
        else
            m_socket->connectToHost(m_host, m_port);
    }
    void abort() override { m_socket->abort(); }
    void write(const QByteArray &bytes) override { m_socket->write(bytes); }
    qint64 readInto(QByteArray &into) override { return readAvailable(m_socket, into); }

private:
    QString m_host;
    quint16 m_port;
    bool m_tls;
    bool m_everOpened = false;
    QString m_lastError;
    QTcpSocket *m_socket;
};

class UnixTransport final : public Transport
{
public:
    explicit UnixTransport(const ConnectionProfile &p) : m_path(p.socketPath)
    {
        m_socket = new QLocalSocket(this);
        m_socket->setReadBufferSize(0);
        connect(m_socket, &QLocalSocket::connected, this, [this] {
            m_everOpened = true;
            Q_EMIT opened();
        });
        connect(m_socket, &QIODevice::readyRead, this, &Transport::readyRead);
        connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError) {
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
