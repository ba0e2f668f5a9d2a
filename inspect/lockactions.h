// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

class RedisClient;

// What a release or an extension came to.
struct LockActionResult
{
    QString action; // "release", "extend"
    QByteArray key;
    bool done = false; // the script released / extended the lock
    bool refused = false; // not sent: read-only, busy, bad input
    QString message; // one line for the screen
};
Q_DECLARE_METATYPE(LockActionResult)

// Release (lua lock_release: compare-and-delete) and extend (lua lock_extend:
// compare-and-PEXPIRE) with a token the user supplies, through scriptcall::run. Refused
// without sending anything on a read-only connection. No widgets: tests use it headless.
class LockActions : public QObject
{
    Q_OBJECT
public:
    explicit LockActions(RedisClient *client, QObject *parent = nullptr);

    bool isReadOnly() const;
    bool isBusy() const { return m_busy; }
    void release(const QByteArray &key, const QByteArray &token);
    void extend(const QByteArray &key, const QByteArray &token, qint64 ttlMs);

Q_SIGNALS:
    void finished(const LockActionResult &result);

private:
    bool refuse(const QString &action, const QByteArray &key);
    void run(const QString &action, const QString &script, const QByteArray &key, const QList<QByteArray> &args);

    RedisClient *m_client;
    bool m_busy = false;
};
