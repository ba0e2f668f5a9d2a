// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

class RedisClient;

// What a kill came to.
struct ClientKillResult
{
    QList<qint64> asked; // the ids the kill was for
    QList<qint64> cut; // the ids the server closed
    bool refused = false; // nothing sent: read-only, busy, nothing to cut
    QString message; // one line for the screen
};
Q_DECLARE_METATYPE(ClientKillResult)

// Closes connections by id: one CLIENT KILL ID per connection, all in one batch (Redis takes a
// single id per ID filter, and several filters mean all of them at once, never either). Refused
// without sending anything when the connection's command policy refuses CLIENT KILL (a read-only
// profile). No widgets: the panel asks the user first, tests use it headless.
class ClientActions : public QObject
{
    Q_OBJECT
public:
    explicit ClientActions(RedisClient *client, QObject *parent = nullptr);

    // Empty when kill may be sent, otherwise why not, in one line.
    QString refusal() const;
    bool isBusy() const { return m_busy; }
    // CLIENT KILL ID for each id. With 'addrs' (one per id, as the reading listed them), each
    // also names its address (ADDR; the filters must all match): an id the server reused for
    // another client, or another server answering since (a failover), cuts nothing.
    void kill(const QList<qint64> &ids, const QList<QByteArray> &addrs = {});

Q_SIGNALS:
    void finished(const ClientKillResult &result);

private:
    RedisClient *m_client;
    bool m_busy = false;
};
