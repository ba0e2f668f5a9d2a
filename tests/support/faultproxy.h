// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

// A loopback TCP proxy between RedisLens and a real server that misbehaves on request, as a
// network or a struggling server does. What the server sends back can be
//   - held once for 'holdMs' after the client sent 'trigger' (a server that read a pipeline
//     and then blocked): holdAfter();
//   - stalled until released (a path that stops carrying bytes, the sockets still open): stall();
//   - trickled, 'bytes' every 'intervalMs' (a slow or congested link): trickle();
//   - cut after 'bytes' more bytes, the connection dropped mid-reply: dropAfter().
// Header-only, for tests; every address is 127.0.0.1.
class FaultProxy : public QObject
{
public:
    explicit FaultProxy(quint16 upstreamPort) : m_upstreamPort(upstreamPort)
    {
        m_listener.listen(QHostAddress::LocalHost);
        connect(&m_listener, &QTcpServer::newConnection, this, &FaultProxy::accept);
        m_pump.setInterval(1);
        connect(&m_pump, &QTimer::timeout, this, &FaultProxy::pumpAll);
    }
    ~FaultProxy() override
    {
        // The sockets go first, their signals cut: nothing of theirs reaches a freed link.
        for (Link *link : std::as_const(m_links)) {
            if (link->upstream)
                link->upstream->disconnect();
            if (link->client) {
                link->client->disconnect();
                delete link->client; // and its upstream, a child
            }
        }
        qDeleteAll(m_links);
    }
    bool isListening() const { return m_listener.isListening(); }
    quint16 port() const { return m_listener.serverPort(); }
    int connectionsAccepted() const { return m_accepted; }
    qint64 bytesToClients() const { return m_toClients; }

    void holdAfter(QByteArray trigger, int holdMs)
    {
        m_trigger = std::move(trigger);
        m_holdMs = holdMs;
    }
    bool held() const { return m_heldOnce; }

    void stall(bool on)
    {
        m_stalled = on;
        if (!on)
            pumpAll();
    }
    // 0 bytes: no trickle, everything as it comes.
    void trickle(int bytes, int intervalMs)
    {
        m_trickleBytes = bytes;
        m_pump.setInterval(qMax(1, intervalMs));
        if (bytes > 0)
            m_pump.start();
        else
            m_pump.stop();
        pumpAll();
    }
    // Connections made from now on go to 'port'; those open are cut (a tunnel or a load balancer
    // that now leads somewhere else).
    void redirect(quint16 port)
    {
        m_upstreamPort = port;
        const QList<Link *> links = m_links;
        for (Link *link : links)
            cut(*link);
    }
    // After 'bytes' more bytes to a client, its connection is dropped (both sides closed). -1: never.
    void dropAfter(qint64 bytes) { m_dropAfter = bytes < 0 ? -1 : m_toClients + bytes; }
    int dropped() const { return m_dropped; }

private:
    struct Link
    {
        QPointer<QTcpSocket> client;
        QPointer<QTcpSocket> upstream;
        QByteArray pending; // from the server, not yet given to the client
    };

    void accept()
    {
        while (QTcpSocket *client = m_listener.nextPendingConnection()) {
            ++m_accepted;
            auto *upstream = new QTcpSocket(client);
            upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
            auto *link = new Link{client, upstream, {}};
            m_links.append(link);
            connect(client, &QTcpSocket::readyRead, upstream, [this, client, upstream] {
                const QByteArray bytes = client->readAll();
                if (!m_heldOnce && !m_trigger.isEmpty() && bytes.contains(m_trigger)) {
                    m_heldOnce = m_holding = true;
                    QTimer::singleShot(m_holdMs, this, [this] {
                        m_holding = false;
                        pumpAll();
                    });
                }
                upstream->write(bytes);
            });
            connect(upstream, &QTcpSocket::readyRead, this, [this, link] {
                link->pending += link->upstream->readAll();
                pump(*link);
            });
            connect(client, &QTcpSocket::disconnected, this, [this, link] { forget(link); });
            connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
        }
    }

    void pumpAll()
    {
        const QList<Link *> links = m_links;
        for (Link *link : links)
            pump(*link);
    }

    void pump(Link &link)
    {
        if (m_stalled || m_holding || !link.client || link.pending.isEmpty())
            return;
        qsizetype n = m_trickleBytes > 0 ? qMin<qsizetype>(m_trickleBytes, link.pending.size()) : link.pending.size();
        if (m_dropAfter >= 0)
            n = qMin<qsizetype>(n, qMax<qint64>(0, m_dropAfter - m_toClients));
        if (n > 0) {
            link.client->write(link.pending.left(n));
            link.pending.remove(0, n);
            m_toClients += n;
        }
        if (m_dropAfter >= 0 && m_toClients >= m_dropAfter) {
            m_dropAfter = -1; // once
            ++m_dropped;
            link.client->flush();
            cut(link);
        }
    }

    // Both sides closed at once (each abort may free the other side through its signals).
    static void cut(Link &link)
    {
        QPointer<QTcpSocket> client = link.client;
        QPointer<QTcpSocket> upstream = link.upstream;
        if (upstream)
            upstream->abort();
        if (client)
            client->abort();
    }

    // Called from a socket's signal, maybe inside pump(): the link stays (empty) until the
    // proxy goes, so nothing is freed under a caller.
    void forget(Link *link)
    {
        link->pending.clear();
        if (link->client)
            link->client->deleteLater();
    }

    QTcpServer m_listener;
    QTimer m_pump;
    QList<Link *> m_links;
    quint16 m_upstreamPort;
    QByteArray m_trigger;
    int m_holdMs = 0;
    bool m_holding = false;
    bool m_heldOnce = false;
    bool m_stalled = false;
    int m_trickleBytes = 0;
    qint64 m_dropAfter = -1;
    qint64 m_toClients = 0;
    int m_accepted = 0;
    int m_dropped = 0;
};
