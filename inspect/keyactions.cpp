// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyactions.h"

#include "bytesescape.h"
#include "keytype.h"
#include "redisclient.h"

#include <QDateTime>
#include <QVersionNumber>

KeyActions::KeyActions(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void KeyActions::deleteKey(const QByteArray &key)
{
    m_client->send({"UNLINK", key}, this, [this, key](const RedisReply &r) {
        const RedisError err = r.firstError();
        if (err) {
            Q_EMIT deleteFailed(key, err.message);
            return;
        }
        Q_EMIT keyDeleted(key, r.value().toInteger() == 1);
    });
}

void KeyActions::renameKey(const QByteArray &from, const QByteArray &to)
{
    // RENAMENX: never overwrite a key the user did not name.
    m_client->sendBatch(
        {{"RENAMENX", from, to}, {"TYPE", to}, {"PTTL", to}}, this, [this, from, to](const RedisReply &r) {
            const RedisError err = r.firstError();
            if (err || r.value(0).toInteger() != 1) {
                Q_EMIT renameFailed(
                    from, to,
                    err ? err.message
                        : tr("a key named %1 already exists").arg(bytesescape::quoteIfNeeded(to.left(80))));
                return;
            }
            ScannedKey now;
            now.name = to;
            now.type = keyTypeFromReply(r.value(1).bytes());
            now.pttlMs = r.value(2).isInteger() ? r.value(2).toInteger() : -1;
            Q_EMIT keyRenamed(from, now, QDateTime::currentMSecsSinceEpoch());
        });
}

void KeyActions::readDatabaseSize()
{
    m_client->send({"DBSIZE"}, this, [this](const RedisReply &r) {
        Q_EMIT databaseSizeRead(r.firstError() || !r.value().isInteger() ? -1 : r.value().toInteger());
    });
}

void KeyActions::emptyDatabase()
{
    // ASYNC came in 4.0; a server that did not say its version is asked with it all the same.
    const QVersionNumber version = m_client->facts().version;
    RedisCommand command{"FLUSHDB"};
    if (version.isNull() || version >= QVersionNumber(4))
        command.append("ASYNC");
    m_client->send(command, this, [this](const RedisReply &r) {
        if (const RedisError err = r.firstError()) {
            Q_EMIT emptyFailed(err.message);
            return;
        }
        Q_EMIT databaseEmptied();
    });
}
