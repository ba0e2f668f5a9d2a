// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commandpolicy.h"
#include "connectionprofile.h"
#include "rediserror.h"
#include "redisvalue.h"

#include <QObject>
#include <memory>

class QTimer;
class Transport;
namespace resp {
class ReplyReader;
}

// Sends SCRIPT KILL on a connection of its own. It cannot be a RedisClient: while a script
// runs the server answers BUSY to everything but AUTH, HELLO, SCRIPT KILL and SHUTDOWN, so a
// client's handshake (PING, CLIENT SETNAME) never completes. And our own connection may be
// the one waiting for the script. This one authenticates and kills, nothing else, and each
// command it writes passes the connection's own policy first (the one RedisWorker holds to,
// taken from ServerFacts), so a read-only connection sends SCRIPT KILL only with the purpose
// CommandPolicy allows it for.
class ScriptKiller : public QObject
{
    Q_OBJECT
public:
    ScriptKiller(const ConnectionProfile &profile, const CommandPolicy &policy, CommandPolicy::Purpose purpose,
                 QObject *parent = nullptr);
    ~ScriptKiller() override;

    void start();

Q_SIGNALS:
    // 'reply' is SCRIPT KILL's answer (OK, NOTBUSY, UNKILLABLE...), or invalid with 'error'.
    void finished(const RedisValue &reply, const RedisError &error);

private:
    void onOpened();
    void onReadyRead();
    void finish(const RedisValue &reply, const RedisError &error);

    ConnectionProfile m_profile;
    CommandPolicy m_policy;
    CommandPolicy::Purpose m_purpose;
    QList<QList<QByteArray>> m_commands;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<resp::ReplyReader> m_reader;
    QTimer *m_timer;
    QList<RedisValue> m_replies;
    int m_expected = 0;
    bool m_done = false;
};
