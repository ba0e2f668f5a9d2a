// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

// A loopback proxy for one connection that, once the client has sent 'trigger', holds every
// byte the server sends back for 'holdMs' (as a server that read a pipeline and then blocked).
class HoldingProxy : public QObject
{
public:
    HoldingProxy(quint16 upstreamPort, QByteArray trigger, int holdMs)
        : m_upstreamPort(upstreamPort), m_trigger(std::move(trigger)), m_holdMs(holdMs)
    {
        m_listener.listen(QHostAddress::LocalHost);
        connect(&m_listener, &QTcpServer::newConnection, this, &HoldingProxy::accept);
    }
    bool isListening() const { return m_listener.isListening(); }
    quint16 port() const { return m_listener.serverPort(); }
    bool held() const { return m_heldOnce; }

private:
    void accept()
    {
        while (QTcpSocket *client = m_listener.nextPendingConnection()) {
            auto *upstream = new QTcpSocket(client);
            upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
            connect(client, &QTcpSocket::readyRead, upstream, [this, client, upstream] {
                const QByteArray bytes = client->readAll();
                if (!m_heldOnce && bytes.contains(m_trigger)) {
                    m_heldOnce = m_holding = true;
                    QTimer::singleShot(m_holdMs, client, [this, client] {
                        m_holding = false;
                        client->write(m_held);
                        m_held.clear();
                    });
                }
                upstream->write(bytes);
            });
            connect(upstream, &QTcpSocket::readyRead, client, [this, client, upstream] {
                const QByteArray bytes = upstream->readAll();
                if (m_holding)
                    m_held += bytes;
                else
                    client->write(bytes);
            });
            connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
            connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
        }
    }

    QTcpServer m_listener;
    quint16 m_upstreamPort;
    QByteArray m_trigger;
    int m_holdMs;
    bool m_holding = false;
    bool m_heldOnce = false;
    QByteArray m_held;
};
