// SPDX-License-Identifier: GPL-3.0-or-later
#include "lockactions.h"

#include "bytesescape.h"
#include "redisclient.h"
#include "scriptcall.h"
#include "scriptlibrary.h"

LockActions::LockActions(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

bool LockActions::isReadOnly() const
{
    return m_client->isReadOnly();
}

bool LockActions::refuse(const QString &action, const QByteArray &key)
{
    LockActionResult r;
    r.action = action;
    r.key = key;
    r.refused = true;
    if (isReadOnly())
        r.message = tr("Refused: the connection is read-only");
    else if (m_busy)
        r.message = tr("Refused: another action is still running");
    else if (key.isEmpty())
        r.message = tr("Select a lock first");
    else
        return false;
    Q_EMIT finished(r);
    return true;
}

void LockActions::release(const QByteArray &key, const QByteArray &token)
{
    if (refuse(QStringLiteral("release"), key))
        return;
    run(QStringLiteral("release"), QStringLiteral("lock_release"), key, {token});
}

void LockActions::extend(const QByteArray &key, const QByteArray &token, qint64 ttlMs)
{
    if (refuse(QStringLiteral("extend"), key))
        return;
    if (ttlMs <= 0) {
        Q_EMIT finished({QStringLiteral("extend"), key, false, true, tr("The new TTL must be above zero")});
        return;
    }
    run(QStringLiteral("extend"), QStringLiteral("lock_extend"), key, {token, QByteArray::number(ttlMs)});
}

void LockActions::run(const QString &action, const QString &script, const QByteArray &key,
                      const QList<QByteArray> &args)
{
    const ScriptInfo *info = ScriptLibrary::instance().find(script);
    if (!info) {
        Q_EMIT finished({action, key, false, true, tr("The script %1 is missing from this build").arg(script)});
        return;
    }
    m_busy = true;
    scriptcall::run(m_client, *info, {key}, args, this, [this, action, key](const RedisReply &reply) {
        m_busy = false;
        LockActionResult r;
        r.action = action;
        r.key = key;
        if (const RedisError e = reply.firstError()) {
            r.message = tr("%1 failed: %2").arg(action, e.message);
        } else if (reply.value(0).toInteger() == 1) {
            r.done = true;
            r.message = action == QLatin1String("release") ? tr("released %1").arg(bytesescape::quoteIfNeeded(key))
                                                           : tr("extended %1").arg(bytesescape::quoteIfNeeded(key));
        } else {
            r.message = tr("refused: the lock is held by another token or gone");
        }
        Q_EMIT finished(r);
    });
}
