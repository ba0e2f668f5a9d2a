// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

class RedisClient;

// The key browser's writes: delete and rename on exact bytes. The window asks the user first;
// this only sends and says what happened. Renames never overwrite (RENAMENX).
class KeyActions : public QObject
{
    Q_OBJECT
public:
    explicit KeyActions(RedisClient *client, QObject *parent = nullptr);

    // UNLINK the key.
    void deleteKey(const QByteArray &key);
    // RENAMENX: fails when 'to' exists.
    void renameKey(const QByteArray &from, const QByteArray &to);

Q_SIGNALS:
    // 'existed' is false when the key was already gone.
    void keyDeleted(const QByteArray &key, bool existed);
    void keyRenamed(const QByteArray &from, const QByteArray &to);
    void deleteFailed(const QByteArray &key, const QString &message);
    void renameFailed(const QByteArray &from, const QByteArray &to, const QString &message);

private:
    RedisClient *m_client;
};
