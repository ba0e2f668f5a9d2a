// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scanbatch.h"

#include <QByteArray>
#include <QObject>
#include <QString>

class RedisClient;

// The key browser's writes: delete and rename on exact bytes, and emptying the database. The window asks the user
// first; this only sends and says what happened. Renames never overwrite (RENAMENX).
class KeyActions : public QObject
{
    Q_OBJECT
public:
    explicit KeyActions(RedisClient *client, QObject *parent = nullptr);

    // UNLINK the key.
    void deleteKey(const QByteArray &key);
    // RENAMENX: fails when 'to' exists. The renamed key's TYPE and PTTL are read in the same
    // round trip, so the browser can show it even when it had not listed 'from' yet.
    void renameKey(const QByteArray &from, const QByteArray &to);
    // DBSIZE of the connection's database, for the question before emptying it.
    void readDatabaseSize();
    // FLUSHDB of the connection's database only (ASYNC where the server has it: the memory is
    // freed in the background). There is no FLUSHALL: other databases are never touched.
    void emptyDatabase();

Q_SIGNALS:
    // 'existed' is false when the key was already gone.
    void keyDeleted(const QByteArray &key, bool existed);
    // 'now' is the key under its new name, as read right after the rename ('capturedAtMs').
    void keyRenamed(const QByteArray &from, const ScannedKey &now, qint64 capturedAtMs);
    void deleteFailed(const QByteArray &key, const QString &message);
    void renameFailed(const QByteArray &from, const QByteArray &to, const QString &message);
    void databaseSizeRead(qint64 keys);
    void databaseEmptied();
    void emptyFailed(const QString &message);

private:
    RedisClient *m_client;
};
