// SPDX-License-Identifier: GPL-3.0-or-later
#include "sentinelresolver.h"

#include "redisclient.h"

#include <memory>

namespace {
// The fields of a SENTINEL MASTER / REPLICAS / SENTINELS entry: a flat list of names and
// values (RESP2) or a map (RESP3).
QHash<QByteArray, QByteArray> fieldsOf(const RedisValue &entry)
{
    QHash<QByteArray, QByteArray> out;
    const QList<RedisValue> &e = entry.elements();
    for (qsizetype i = 0; i + 1 < e.size(); i += 2)
        out.insert(e.at(i).bytes(), e.at(i + 1).bytes());
    return out;
}

QString addressOf(const QHash<QByteArray, QByteArray> &f)
{
    cluster::Address a{QString::fromUtf8(f.value("ip")), quint16(f.value("port").toUInt())};
    return a.toString();
}
} // namespace

SentinelResolver::SentinelResolver(const ConnectionProfile &profile, QObject *parent)
    : QObject(parent), m_profile(profile)
{ }

SentinelResolver::~SentinelResolver() = default;

namespace {
ConnectionProfile sentinelProfile(const ConnectionProfile &profile, int index, const QString &clientName)
{
    cluster::Address a;
    cluster::parseAddress(profile.sentinels.at(index), &a);
    ConnectionProfile p = profile.atAddress(a.host, a.port, QStringLiteral("sentinel %1").arg(a.toString()));
    p.db = 0;
    p.username = profile.sentinelUsername;
    p.password = profile.sentinelPassword;
    // A sentinel holds no data: it is asked SENTINEL questions only, never sent a write.
    p.readOnly = false;
    p.clientName = profile.clientName + clientName;
    return p;
}
} // namespace

RedisClient *SentinelResolver::clientAt(int index)
{
    while (m_clients.size() <= index)
        m_clients.append(nullptr);
    if (RedisClient *c = m_clients.at(index))
        return c;
    auto *c = new RedisClient(sentinelProfile(m_profile, index, QStringLiteral("-sentinel")), this);
    c->connectToServer();
    m_clients[index] = c;
    return c;
}

void SentinelResolver::watchSwitches()
{
    if (!m_watchers.isEmpty())
        return;
    for (int i = 0; i < m_profile.sentinels.size(); ++i) {
        auto *c = new RedisClient(sentinelProfile(m_profile, i, QStringLiteral("-sentinel-events")), this);
        connect(c, &RedisClient::messageReceived, this, &SentinelResolver::onMessage);
        // Each (re)connection starts unsubscribed.
        connect(c, &RedisClient::ready, this, [this, c] {
            c->send({"SUBSCRIBE", "+switch-master"}, this, [this, c](const RedisReply &r) {
                if (r.ok() && !r.value().isError())
                    m_subscribed.insert(c);
            });
        });
        connect(c, &RedisClient::stateChanged, this, [this, c](RedisClient::State state) {
            if (state != RedisClient::State::Ready)
                m_subscribed.remove(c);
        });
        c->connectToServer();
        m_watchers.append(c);
    }
}

void SentinelResolver::onMessage(const RedisValue &message)
{
    // ["message", "+switch-master", "<master> <old ip> <old port> <new ip> <new port>"]
    const QList<RedisValue> &m = message.elements();
    if (m.size() != 3 || m.at(1).bytes() != "+switch-master")
        return;
    const QList<QByteArray> words = m.at(2).bytes().split(' ');
    if (words.size() != 5 || words.at(0) != m_profile.sentinelMaster.toUtf8())
        return;
    // Every sentinel announces the same switch: the first one is acted on.
    const cluster::Address to{QString::fromUtf8(words.at(3)), quint16(words.at(4).toUInt())};
    if (to == m_last && m_switches > 0)
        return;
    ++m_switches;
    m_last = to;
    Q_EMIT switched(to);
}

void SentinelResolver::resolve(const Done &done)
{
    if (m_profile.sentinels.isEmpty()) {
        done({}, QStringLiteral("no sentinel addresses"));
        return;
    }
    ask(0, std::make_shared<QStringList>(), done);
}

void SentinelResolver::ask(int index, const std::shared_ptr<QStringList> &errors, const Done &done)
{
    if (index >= m_profile.sentinels.size()) {
        done({},
             QStringLiteral("no sentinel knows master \"%1\": %2")
                 .arg(m_profile.sentinelMaster, errors->join(QStringLiteral("; "))));
        return;
    }
    RedisClient *c = clientAt(index);
    const QString where = m_profile.sentinels.at(index);
    const RedisCommand question{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", m_profile.sentinelMaster.toUtf8()};
    c->send(question, this, [this, index, errors, done, where](const RedisReply &r) {
        const RedisValue &v = r.value();
        if (r.ok() && v.isArray() && v.size() == 2) {
            cluster::Address a{QString::fromUtf8(v.at(0).bytes()), quint16(v.at(1).toInteger())};
            m_last = a;
            if (m_profile.sentinelReplica) {
                pickReplica(index, a, done);
                return;
            }
            done(a, {});
            return;
        }
        const RedisError e = r.firstError();
        *errors << QStringLiteral("%1: %2").arg(where, e ? e.message : QStringLiteral("unknown master"));
        ask(index + 1, errors, done);
    });
}

void SentinelResolver::pickReplica(int index, const cluster::Address &primary, const Done &done)
{
    // The freshest replica whose link to the primary is up and that no sentinel thinks is down.
    clientAt(index)->send(
        {"SENTINEL", "REPLICAS", m_profile.sentinelMaster.toUtf8()}, this, [this, primary, done](const RedisReply &r) {
            cluster::Address best;
            qint64 bestOffset = -1;
            int unhealthy = 0;
            if (r.ok() && !r.value().isError()) {
                for (const RedisValue &e : r.value().elements()) {
                    const auto f = fieldsOf(e);
                    const QByteArray flags = f.value("flags");
                    if (flags.contains("s_down") || flags.contains("o_down") || flags.contains("disconnected")
                        || f.value("master-link-status") != "ok") {
                        ++unhealthy;
                        continue;
                    }
                    const qint64 offset = f.value("slave-repl-offset").toLongLong();
                    if (offset > bestOffset) {
                        bestOffset = offset;
                        best = {QString::fromUtf8(f.value("ip")), quint16(f.value("port").toUInt())};
                    }
                }
            }
            if (best.isNull()) {
                m_note = QStringLiteral("no healthy replica of %1 (%2 down or cut off): reading the primary %3")
                             .arg(m_profile.sentinelMaster)
                             .arg(unhealthy)
                             .arg(primary.toString());
                done(primary, {});
                return;
            }
            m_note = QStringLiteral("reading replica %1 of %2 (primary %3)")
                         .arg(best.toString(), m_profile.sentinelMaster, primary.toString());
            done(best, {});
        });
}

void SentinelResolver::describe(const std::function<void(const SentinelReport &)> &done)
{
    describeAt(0, done);
}

void SentinelResolver::describeAt(int index, const std::function<void(const SentinelReport &)> &done)
{
    // One sentinel that answers describes the master, its replicas and its peers; the others'
    // flags come from that sentinel's view of them.
    if (index >= m_profile.sentinels.size()) {
        SentinelReport report;
        report.error = QStringLiteral("no sentinel answered");
        done(report);
        return;
    }
    const QByteArray name = m_profile.sentinelMaster.toUtf8();
    clientAt(index)->sendBatch(
        {{"SENTINEL", "MASTER", name}, {"SENTINEL", "REPLICAS", name}, {"SENTINEL", "SENTINELS", name}}, this,
        [this, done, index](const RedisReply &r) {
            if (!r.ok() || r.value(0).isError()) {
                describeAt(index + 1, done);
                return;
            }
            SentinelReport report;
            const auto master = fieldsOf(r.value(0));
            report.master = addressOf(master);
            report.masterFlags = master.value("flags");
            for (const RedisValue &e : r.value(1).elements()) {
                const auto f = fieldsOf(e);
                report.replicas.append({addressOf(f), f.value("flags"), f.value("slave-repl-offset").toLongLong(),
                                        f.value("master-link-down-time").toLongLong()});
            }
            report.sentinels.append({m_profile.sentinels.at(index), "sentinel"});
            for (const RedisValue &e : r.value(2).elements()) {
                const auto f = fieldsOf(e);
                report.sentinels.append({addressOf(f), f.value("flags")});
            }
            done(report);
        });
}
