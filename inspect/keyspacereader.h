// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "rediserror.h"
#include "serverinfo.h"

#include <QList>
#include <QObject>
#include <QPointer>

class RedisClient;

// The server's own figures per database: INFO keyspace, read once per refresh() (nothing while
// a read is on the wire or the client is not ready). The caller decides how often.
class KeyspaceReader : public QObject
{
    Q_OBJECT
public:
    explicit KeyspaceReader(RedisClient *client, QObject *parent = nullptr);
    ~KeyspaceReader() override;

    void refresh();
    bool isBusy() const { return m_request != 0; }

Q_SIGNALS:
    void keyspaceAvailable(const QList<KeyspaceDb> &databases);
    // INFO was refused (NOPERM) or failed.
    void failed(const RedisError &error);

private:
    void onReply(const RedisReply &reply);

    QPointer<RedisClient> m_client;
    RequestId m_request = 0;
};
