// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientactions.h"

#include "redisclient.h"

namespace {

QString connectionCount(qsizetype n)
{
    return n == 1 ? ClientActions::tr("1 connection") : ClientActions::tr("%1 connections").arg(n);
}

} // namespace

ClientActions::ClientActions(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

QString ClientActions::refusal() const
{
    if (m_client->isReadOnly())
        return tr("Read-only connection: connections are not cut from here");
    // Read-write profiles allow everything; this also covers a policy the server tightened.
    const QString why = m_client->policy().refusal({"CLIENT", "KILL", "ID", "0"});
    return why.isEmpty() ? QString() : tr("Not allowed on this connection: %1").arg(why);
}

void ClientActions::kill(const QList<qint64> &ids, const QList<QByteArray> &addrs)
{
    ClientKillResult r;
    r.asked = ids;
    const QString why = refusal();
    if (!why.isEmpty())
        r.message = tr("Refused: %1").arg(why);
    else if (m_busy)
        r.message = tr("Refused: another kill is still running");
    else if (ids.isEmpty())
        r.message = tr("Nothing to cut: select a connection or a group first");
    if (!r.message.isEmpty()) {
        r.refused = true;
        Q_EMIT finished(r);
        return;
    }
    QList<RedisCommand> commands;
    commands.reserve(ids.size());
    const bool withAddr = addrs.size() == ids.size();
    for (qsizetype i = 0; i < ids.size(); ++i) {
        RedisCommand c{"CLIENT", "KILL", "ID", QByteArray::number(ids.at(i))};
        if (withAddr && !addrs.at(i).isEmpty())
            c << "ADDR" << addrs.at(i);
        commands.append(c);
    }
    m_busy = true;
    m_client->sendBatch(commands, this, [this, r](const RedisReply &reply) mutable {
        m_busy = false;
        if (!reply.ok()) {
            r.message = tr("Kill failed: %1").arg(reply.error.message);
            Q_EMIT finished(r);
            return;
        }
        QString error;
        for (qsizetype i = 0; i < r.asked.size(); ++i) {
            const RedisValue &v = reply.value(i);
            if (const RedisError e = RedisError::fromReply(v); e)
                error = e.message;
            else if (v.toInteger() > 0)
                r.cut.append(r.asked.at(i));
        }
        const qsizetype gone = r.asked.size() - r.cut.size();
        if (!error.isEmpty())
            r.message = tr("Cut %1 of %2; the server refused the rest: %3")
                            .arg(r.cut.size())
                            .arg(connectionCount(r.asked.size()), error);
        else if (gone > 0)
            r.message = tr("Cut %1 of %2; %3 had already closed")
                            .arg(r.cut.size())
                            .arg(connectionCount(r.asked.size()))
                            .arg(gone);
        else
            r.message = tr("Cut %1").arg(connectionCount(r.cut.size()));
        Q_EMIT finished(r);
    });
}
