// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptrunner.h"

#include "clusterrouter.h"
#include "redisclient.h"
#include "scriptcall.h"
#include "scriptkiller.h"

ScriptRunner::ScriptRunner(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

ScriptRunner::~ScriptRunner() = default;

bool ScriptRunner::run(const QByteArray &source, const QList<QByteArray> &keys, const QList<QByteArray> &args,
                       bool readOnly, int timeoutMs)
{
    if (isRunning())
        return false;
    m_runContext = new QObject(this);
    m_firstKey = keys.isEmpty() ? std::optional<QByteArray>() : std::optional<QByteArray>(keys.first());
    m_ranOn = m_client;
    cluster::Address chosen;
    if (ClusterRouter *router = m_client->cluster();
        router && cluster::parseAddress(m_node, &chosen) && !chosen.isNull())
        m_ranOn = router->clientFor(chosen);
    m_runId = scriptcall::run(
        m_ranOn, source, scriptcall::sha1Hex(source), keys, args, m_runContext,
        [this](const RedisReply &r) {
            if (m_runContext)
                m_runContext->deleteLater();
            m_runContext = nullptr;
            Q_EMIT finished(r);
        },
        readOnly, timeoutMs);
    return true;
}

void ScriptRunner::cancel()
{
    if (!isRunning())
        return;
    (m_ranOn ? m_ranOn : m_client)->cancel(m_runId);
    delete m_runContext; // the NOSCRIPT retry, if any, was made under this context
}

bool ScriptRunner::kill(CommandPolicy::Purpose purpose)
{
    if (m_killer)
        return false;
    ConnectionProfile where = m_client->profile();
    // On a cluster the script runs on the node that owns its keys (or the seed, without keys):
    // SCRIPT KILL must reach that node, not the one the profile names.
    if (const ClusterRouter *router = m_client->cluster()) {
        const cluster::Node *owner = m_firstKey ? router->ownerOf(cluster::keySlot(*m_firstKey)) : nullptr;
        if (m_ranOn && m_ranOn != m_client) {
            // The node the user chose.
            where.host = m_ranOn->profile().host;
            where.port = m_ranOn->profile().port;
        } else if (owner) {
            where.host = owner->address.host;
            where.port = owner->address.port;
        }
        where.cluster = false;
    }
    m_killer = new ScriptKiller(where, m_client->policy(), purpose, this);
    connect(m_killer, &ScriptKiller::finished, this, [this](const RedisValue &reply, const RedisError &error) {
        m_killer->deleteLater();
        m_killer = nullptr; // a second kill may follow at once
        Q_EMIT killFinished(reply, error);
    });
    m_killer->start();
    return true;
}
