// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commandpolicy.h"
#include "rediscommand.h"

#include <QObject>
#include <QPointer>
#include <optional>

class RedisClient;
class ScriptKiller;

// The console's script runs: one script at a time on the panel's connection (EVALSHA, and
// EVAL only when the server has not seen the source; the _RO forms on a read-only connection),
// cancelling the wait, and SCRIPT KILL on a connection of its own. The panel decides what may
// be sent and shows the answers; this class sends.
class ScriptRunner : public QObject
{
    Q_OBJECT
public:
    explicit ScriptRunner(RedisClient *client, QObject *parent = nullptr);
    ~ScriptRunner() override;

    // Sends 'source' with its KEYS and ARGV; 'finished' brings the answer. One run at a time:
    // false while another is awaited.
    bool run(const QByteArray &source, const QList<QByteArray> &keys, const QList<QByteArray> &args, bool readOnly,
             int timeoutMs);
    bool isRunning() const { return m_runContext != nullptr; }
    // A cluster: run on this node ("host:port" as reached) instead of where the keys live (the
    // seed without keys). Empty: by the keys. The caller checks the keys belong to it.
    void setNode(const QString &address) { m_node = address; }
    QString node() const { return m_node; }
    // Stops waiting: the answer, when it comes, is dropped. The script runs on.
    void cancel();

    // SCRIPT KILL on a separate connection, sent under 'purpose' (a read-only connection may
    // stop only the script it still waits for). False while a kill is under way.
    bool kill(CommandPolicy::Purpose purpose);
    bool isKilling() const { return m_killer != nullptr; }

Q_SIGNALS:
    // The script's answer (value(0)), or the error that kept it from running.
    void finished(const RedisReply &reply);
    // SCRIPT KILL's answer (OK, NOTBUSY, UNKILLABLE…), or invalid with 'error'.
    void killFinished(const RedisValue &reply, const RedisError &error);

private:
    RedisClient *m_client;
    QPointer<QObject> m_runContext; // alive while a run is awaited; deleting it drops the answer
    RequestId m_runId = 0;
    std::optional<QByteArray> m_firstKey; // where a cluster runs the script
    QString m_node; // a chosen node, or empty
    RedisClient *m_ranOn = nullptr; // the connection the last run went to
    ScriptKiller *m_killer = nullptr; // a child; gone once it reports
};
