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

RedisClient *SentinelResolver::clientAt(int index)
{
    while (m_clients.size() <= index)
        m_clients.append(nullptr);
    if (RedisClient *c = m_clients.at(index))
        return c;
    cluster::Address a;
    cluster::parseAddress(m_profile.sentinels.at(index), &a);
    ConnectionProfile p = m_profile.atAddress(a.host, a.port, QStringLiteral("sentinel %1").arg(a.toString()));
    p.db = 0;
    p.username = m_profile.sentinelUsername;
    p.password = m_profile.sentinelPassword;
    // A sentinel holds no data: it is asked SENTINEL questions only, never sent a write.
    p.readOnly = false;
    p.clientName = m_profile.clientName + QStringLiteral("-sentinel");
    auto *c = new RedisClient(p, this);
    c->connectToServer();
    m_clients[index] = c;
    return c;
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
            done(a, {});
            return;
        }
        const RedisError e = r.firstError();
        *errors << QStringLiteral("%1: %2").arg(where, e ? e.message : QStringLiteral("unknown master"));
        ask(index + 1, errors, done);
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
