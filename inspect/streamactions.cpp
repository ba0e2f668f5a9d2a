// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamactions.h"

#include "bytesescape.h"
#include "redisclient.h"
#include "streaminfo.h"

StreamActions::StreamActions(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void StreamActions::setDeadLetterScript(const QByteArray &source, const QByteArray &sha1)
{
    m_deadSource = source;
    m_deadSha = sha1;
}

bool StreamActions::isReadOnly() const
{
    return m_client->isReadOnly();
}

bool StreamActions::refuse(const QString &action)
{
    StreamActionResult r;
    r.action = action;
    if (isReadOnly())
        r.message = tr("Refused: the connection is read-only");
    else if (m_busy)
        r.message = tr("Refused: another action is still running");
    else
        return false;
    Q_EMIT finished(r);
    return true;
}

void StreamActions::done(const StreamActionResult &result)
{
    m_busy = false;
    Q_EMIT finished(result);
}

bool StreamActions::claim(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                          const QByteArray &consumer, qint64 minIdleMs)
{
    if (refuse(QStringLiteral("claim")))
        return false;
    if (ids.isEmpty() || consumer.isEmpty())
        return false;
    m_busy = true;
    RedisCommand cmd{"XCLAIM", key, group, consumer, QByteArray::number(qMax<qint64>(0, minIdleMs))};
    cmd.append(ids);
    m_client->send(cmd, this, [this, consumer](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("claim");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XCLAIM failed: %1").arg(e.message);
        } else {
            QList<StreamEntry> entries;
            streaminfo::parseEntries(r.value(), &entries);
            res.ok = true;
            res.count = entries.size();
            res.message
                = tr("%n entries claimed for %1", nullptr, int(res.count)).arg(bytesescape::quoteIfNeeded(consumer));
        }
        done(res);
    });
    return true;
}

bool StreamActions::autoClaim(const QByteArray &key, const QByteArray &group, const QByteArray &consumer,
                              qint64 minIdleMs)
{
    if (refuse(QStringLiteral("autoclaim")))
        return false;
    if (consumer.isEmpty())
        return false;
    const QVersionNumber v = m_client->facts().version;
    if (!v.isNull() && v < QVersionNumber(6, 2)) {
        StreamActionResult r;
        r.action = QStringLiteral("autoclaim");
        r.message = tr("XAUTOCLAIM needs Redis 6.2 or later (server is %1)").arg(v.toString());
        Q_EMIT finished(r);
        return false;
    }
    m_busy = true;
    StreamActionResult acc;
    acc.action = QStringLiteral("autoclaim");
    autoClaimStep(key, group, consumer, minIdleMs, "0-0", acc);
    return true;
}

void StreamActions::autoClaimStep(const QByteArray &key, const QByteArray &group, const QByteArray &consumer,
                                  qint64 minIdleMs, const QByteArray &cursor, StreamActionResult acc)
{
    // JUSTID: the entries are not sent back (thousands of them) and their delivery counters are
    // not raised, since the new owner has not been handed them yet.
    const RedisCommand cmd{"XAUTOCLAIM",
                           key,
                           group,
                           consumer,
                           QByteArray::number(qMax<qint64>(0, minIdleMs)),
                           cursor,
                           "COUNT",
                           QByteArray::number(kAutoClaimCount),
                           "JUSTID"};
    m_client->send(cmd, this, [=](const RedisReply &r) mutable {
        AutoClaimReply a;
        if (const RedisError e = r.firstError()) {
            acc.message = tr("XAUTOCLAIM failed after %n entries: %1", nullptr, int(acc.count)).arg(e.message);
            done(acc);
            return;
        }
        if (!streaminfo::parseAutoClaim(r.value(), &a)) {
            acc.message = tr("XAUTOCLAIM: unexpected reply");
            done(acc);
            return;
        }
        acc.count += a.claimedIds.size();
        acc.deletedIds.append(a.deletedIds);
        Q_EMIT progress(acc.count);
        if (a.cursor == "0-0" || a.cursor.isEmpty()) {
            acc.ok = true;
            acc.message
                = tr("%n entries claimed for %1", nullptr, int(acc.count)).arg(bytesescape::quoteIfNeeded(consumer));
            if (!acc.deletedIds.isEmpty())
                acc.message
                    += tr("; %n deleted entries dropped from the pending list", nullptr, int(acc.deletedIds.size()));
            done(acc);
            return;
        }
        autoClaimStep(key, group, consumer, minIdleMs, a.cursor, acc);
    });
}

bool StreamActions::ack(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids)
{
    if (refuse(QStringLiteral("ack")))
        return false;
    if (ids.isEmpty())
        return false;
    m_busy = true;
    RedisCommand cmd{"XACK", key, group};
    cmd.append(ids);
    m_client->send(cmd, this, [this](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("ack");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XACK failed: %1").arg(e.message);
        } else {
            res.ok = true;
            res.count = r.value().toInteger();
            res.message = tr("%n entries acknowledged", nullptr, int(res.count));
        }
        done(res);
    });
    return true;
}

bool StreamActions::trim(const QByteArray &key, qint64 maxLen)
{
    if (refuse(QStringLiteral("trim")))
        return false;
    if (maxLen < 0)
        return false;
    m_busy = true;
    m_client->send({"XTRIM", key, "MAXLEN", "~", QByteArray::number(maxLen)}, this, [this](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("trim");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XTRIM failed: %1").arg(e.message);
        } else {
            res.ok = true;
            res.count = r.value().toInteger();
            res.message = tr("%n entries removed", nullptr, int(res.count));
        }
        done(res);
    });
    return true;
}

bool StreamActions::deadLetter(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                               const QByteArray &deadKey, const QByteArray &reason)
{
    if (refuse(QStringLiteral("deadletter")))
        return false;
    if (ids.isEmpty())
        return false;
    if (m_deadSource.isEmpty()) {
        StreamActionResult r;
        r.action = QStringLiteral("deadletter");
        r.message = tr("The dead-letter script is not available");
        Q_EMIT finished(r);
        return false;
    }
    m_busy = true;
    const QByteArray dead = deadKey.isEmpty() ? defaultDeadKey(key) : deadKey;
    QList<RedisCommand> calls;
    for (const QByteArray &id : ids)
        calls.append({"EVALSHA", m_deadSha, "2", key, dead, group, id, reason, QByteArray::number(kDeadMaxLen)});
    runDeadLetter(calls, ids, false);
    return true;
}

void StreamActions::runDeadLetter(const QList<RedisCommand> &calls, const QList<QByteArray> &ids, bool loaded)
{
    QList<RedisCommand> batch = calls;
    if (loaded)
        batch.prepend({"SCRIPT", "LOAD", m_deadSource});
    m_client->sendBatch(batch, this, [this, calls, ids, loaded](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("deadletter");
        if (!r.ok()) {
            res.message = tr("Dead letter failed: %1").arg(r.error.message);
            done(res);
            return;
        }
        const int offset = loaded ? 1 : 0;
        if (!loaded && r.value(0).isError() && r.value(0).errorCode() == "NOSCRIPT") {
            // The script cache was empty (restart, SCRIPT FLUSH): load it and send them all again.
            runDeadLetter(calls, ids, true);
            return;
        }
        QStringList errors;
        for (int i = 0; i < ids.size(); ++i) {
            const RedisValue &v = r.value(i + offset);
            if (v.isError()) {
                res.failedIds.append(ids.at(i));
                errors.append(QString::fromLatin1(ids.at(i)) + QStringLiteral(": ") + QString::fromUtf8(v.bytes()));
            } else {
                ++res.count;
            }
        }
        res.ok = errors.isEmpty();
        res.message = tr("%n entries moved to the dead-letter stream", nullptr, int(res.count));
        if (!errors.isEmpty())
            res.message += QStringLiteral("; ") + tr("not moved: %1").arg(errors.join(QStringLiteral("; ")));
        done(res);
    });
}
