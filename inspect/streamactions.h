// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

class RedisClient;

// What an action did.
struct StreamActionResult
{
    QString action; // "claim", "autoclaim", "ack", "deadletter", "trim"
    bool ok = false;
    QString message; // one line for the screen
    qint64 count = 0; // entries claimed / acknowledged / moved / removed
    QList<QByteArray> deletedIds; // XAUTOCLAIM (7.0+): pending ids no longer in the stream
    QList<QByteArray> failedIds; // dead letter: ids the script refused, with the reasons in message
};
Q_DECLARE_METATYPE(StreamActionResult)

// Writes to a stream's groups. Each method refuses at once on a read-only connection
// (finished() with ok = false, nothing sent); the engine would refuse the commands too.
// One action at a time: a call while busy is refused.
class StreamActions : public QObject
{
    Q_OBJECT
public:
    static constexpr int kAutoClaimCount = 100;
    static constexpr qint64 kDeadMaxLen = 10000;

    explicit StreamActions(RedisClient *client, QObject *parent = nullptr);

    // The dead-letter script (lua/stream_dead_letter.lua: source and its SHA1), given by whoever
    // links the script library. Without it deadLetter() refuses.
    void setDeadLetterScript(const QByteArray &source, const QByteArray &sha1);
    bool hasDeadLetterScript() const { return !m_deadSource.isEmpty(); }
    bool isBusy() const { return m_busy; }
    bool isReadOnly() const;
    static QByteArray defaultDeadKey(const QByteArray &stream) { return stream + ":dead"; }

    // Each returns false when refused without sending anything (finished() was emitted).
    bool claim(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids, const QByteArray &consumer,
               qint64 minIdleMs = 0);
    // XAUTOCLAIM … COUNT 100 JUSTID from cursor 0-0 until the server answers 0-0 (6.2+).
    bool autoClaim(const QByteArray &key, const QByteArray &group, const QByteArray &consumer, qint64 minIdleMs);
    bool ack(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids);
    // One script call per id: copies the entry to 'deadKey' and acknowledges it atomically.
    bool deadLetter(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                    const QByteArray &deadKey, const QByteArray &reason);
    bool trim(const QByteArray &key, qint64 maxLen);

Q_SIGNALS:
    void progress(qint64 done);
    void finished(const StreamActionResult &result);

private:
    bool refuse(const QString &action);
    void done(const StreamActionResult &result);
    void autoClaimStep(const QByteArray &key, const QByteArray &group, const QByteArray &consumer, qint64 minIdleMs,
                       const QByteArray &cursor, StreamActionResult acc);
    void runDeadLetter(const QList<RedisCommand> &calls, const QList<QByteArray> &ids, bool loaded);

    RedisClient *m_client;
    QByteArray m_deadSource;
    QByteArray m_deadSha;
    bool m_busy = false;
};
