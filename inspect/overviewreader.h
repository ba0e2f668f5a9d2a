// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "rediserror.h"
#include "serverinfo.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>

class QTimer;
class RedisClient;

// The overview's reads: INFO every interval while polling (1 s by default, at least 100 ms),
// one at a time, and the persistence settings (CONFIG GET save, appendonly) once per
// connection. A single round needs no timer: refresh() reads INFO (and the settings when they
// are not known yet) and the signals follow. A new connection reads the settings again.
class OverviewReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 1000;
    static constexpr int kMinIntervalMs = 100;

    explicit OverviewReader(RedisClient *client, QObject *parent = nullptr);
    ~OverviewReader() override;

    void setIntervalMs(int ms);
    int intervalMs() const;
    // Reads at once, then every interval; off drops nothing already sent.
    void setPolling(bool on);
    bool isPolling() const;
    // One INFO now, unless one is on the wire or the client is not ready.
    void refresh();
    // Reads these servers (a cluster's primaries) as one: every round sends INFO to each and
    // emits their ServerInfo::merged() once all have answered, or infoFailed naming the first
    // that could not (a node down fails the round: a sum missing a node would read as a drop).
    // A round waits for nodes still connecting.
    // The settings are still the first client's. An empty list reads the client alone again.
    void setMergedNodes(const QList<RedisClient *> &nodes);
    int mergedNodeCount() const { return int(m_nodes.size()); }

Q_SIGNALS:
    // A parsed INFO; capturedAtMs() is when the reply arrived.
    void infoAvailable(const ServerInfo &info);
    // INFO was refused or failed (or returned no text) at 'atMs'.
    void infoFailed(const RedisError &error, qint64 atMs);
    // The values of CONFIG GET save and CONFIG GET appendonly.
    void configAvailable(const QByteArray &save, const QByteArray &appendonly);
    // CONFIG GET was refused (ACL users often may not run CONFIG): INFO alone then.
    void configUnavailable(const RedisError &error);

private:
    void onClientReady();
    void readConfig();
    void onConfig(const RedisReply &reply);
    void onInfo(const RedisReply &reply, qint64 receivedAtMs);
    void refreshMerged();
    void onNodeInfo(int generation, int node, const RedisReply &reply);
    static QString nodeName(const RedisClient *client);

    QPointer<RedisClient> m_client;
    QTimer *m_timer;
    RequestId m_infoRequest = 0;
    RequestId m_configRequest = 0;
    bool m_configRead = false;
    // Merged reads: one round at a time; another set of nodes starts a new generation, whose
    // rounds ignore the replies of older ones.
    QList<QPointer<RedisClient>> m_nodes;
    QList<ServerInfo> m_parts;
    RedisError m_roundError;
    int m_generation = 0;
    int m_pending = 0;
    bool m_waitingForNodes = false;
};
