// SPDX-License-Identifier: GPL-3.0-or-later
#include "showpubsub.h"

#include "bytesescape.h"
#include "pubsubreader.h"
#include "showrequest.h"

#include <QJsonArray>
#include <QJsonObject>

namespace {

QString escaped(const QByteArray &b)
{
    return bytesescape::escape(b);
}

} // namespace

ShowPubSub::ShowPubSub(const Context &context, QObject *parent)
    : PanelShow(context, parent), m_reader(new PubSubReader(m_client, this))
{
    connect(m_reader, &PubSubReader::failed, this, &PanelShow::failed);
    connect(m_reader, &PubSubReader::snapshotAvailable, this, [this](const pubsub::Snapshot &s) {
        m_snapshot = s;
        for (qsizetype i = 0; i < s.slow.size(); ++i)
            m_slowAt.insert(s.slow.at(i).client.id, i);
        if (subscribersTable() && !s.clientsError.isEmpty()) {
            Q_EMIT failed(s.clientsError);
            return;
        }
        Q_EMIT finished();
    });
}

void ShowPubSub::start()
{
    if (!m_request.table.isEmpty() && m_request.table != QLatin1String("channels") && !subscribersTable()) {
        Q_EMIT failed(QStringLiteral("pubsub has no table '%1' (tables: channels, subscribers)").arg(m_request.table));
        return;
    }
    m_reader->read();
}

bool ShowPubSub::subscribersTable() const
{
    return m_request.table == QLatin1String("subscribers");
}

QList<Column> ShowPubSub::columns() const
{
    if (subscribersTable())
        return {{"id", Column::Type::Integer},
                {"addr", Column::Type::Text},
                {"name", Column::Type::Text},
                {"lib", Column::Type::Text},
                {"user", Column::Type::Text},
                {"channels", Column::Type::Integer},
                {"patterns", Column::Type::Integer},
                {"shard_channels", Column::Type::Integer},
                {"output_bytes", Column::Type::Integer},
                {"total_bytes", Column::Type::Integer},
                {"age_s", Column::Type::Integer},
                {"idle_s", Column::Type::Integer},
                {"share_of_hard_limit", Column::Type::Number},
                {"severity", Column::Type::Text},
                {"verdict", Column::Type::Text}};
    return {{"name", Column::Type::Text}, {"shard", Column::Type::Boolean}, {"subscribers", Column::Type::Integer}};
}

qsizetype ShowPubSub::recordCount() const
{
    return subscribersTable() ? m_snapshot.subscribers.size() : m_snapshot.channels.size();
}

void ShowPubSub::writeRecord(RecordWriter &writer, qsizetype row) const
{
    const auto textOrNull = [&writer](const QByteArray &b) {
        if (b.isEmpty())
            writer.null();
        else
            writer.bytes(b);
    };
    const auto numberOrNull = [&writer](qint64 n) {
        if (n < 0)
            writer.null();
        else
            writer.integer(n);
    };
    if (!subscribersTable()) {
        const pubsub::Channel &c = m_snapshot.channels.at(row);
        writer.bytes(c.name);
        writer.boolean(c.shard);
        numberOrNull(c.subscribers);
        return;
    }
    const ClientEntry &c = m_snapshot.subscribers.at(row);
    const auto at = m_slowAt.constFind(c.id);
    const pubsub::SlowSubscriber *slow = at == m_slowAt.constEnd() ? nullptr : &m_snapshot.slow.at(*at);
    writer.integer(c.id);
    writer.bytes(c.addr);
    textOrNull(c.name);
    QByteArray lib = c.libName;
    if (!lib.isEmpty() && !c.libVer.isEmpty())
        lib += ' ' + c.libVer;
    textOrNull(lib);
    textOrNull(c.user);
    writer.integer(c.sub);
    writer.integer(c.psub);
    writer.integer(c.ssub);
    numberOrNull(c.omem);
    numberOrNull(c.totMem);
    numberOrNull(c.age);
    numberOrNull(c.idle);
    if (slow && slow->shareOfHard >= 0)
        writer.number(slow->shareOfHard);
    else if (m_snapshot.limit.known && m_snapshot.limit.hardBytes > 0 && c.omem >= 0)
        writer.number(double(c.omem) / double(m_snapshot.limit.hardBytes));
    else
        writer.null();
    writer.text(!slow ? "none" : slow->critical ? "bad" : "warning");
    if (slow)
        writer.text(slow->verdict);
    else
        writer.null();
}

QJsonObject ShowPubSub::coverage() const
{
    const pubsub::Snapshot &s = m_snapshot;
    qint64 counted = 0;
    for (const pubsub::Channel &c : s.channels)
        counted += c.subscribers >= 0 ? 1 : 0;
    QJsonObject o{
        {QStringLiteral("table"), subscribersTable() ? QStringLiteral("subscribers") : QStringLiteral("channels")},
        {QStringLiteral("channels"), s.channels.size()},
        {QStringLiteral("channels_counted"), counted},
        {QStringLiteral("max_channels_counted"), PubSubReader::kMaxChannels},
        {QStringLiteral("pattern_subscriptions"), s.patterns},
        {QStringLiteral("subscribers"), s.subscribers.size()},
        {QStringLiteral("slow_subscribers"), s.slow.size()}};
    if (s.limit.known)
        o.insert(QStringLiteral("pubsub_output_limit"),
                 QJsonObject{{QStringLiteral("hard_bytes"), s.limit.hardBytes},
                             {QStringLiteral("soft_bytes"), s.limit.softBytes},
                             {QStringLiteral("soft_seconds"), s.limit.softSeconds}});
    if (!s.shardNote.isEmpty())
        o.insert(QStringLiteral("shard_channels"), s.shardNote);
    if (!s.clientsError.isEmpty())
        o.insert(QStringLiteral("clients_error"), s.clientsError);
    return o;
}

QJsonObject ShowPubSub::details() const
{
    QJsonArray channels;
    for (const pubsub::Channel &c : m_snapshot.channels) {
        QJsonObject o{{QStringLiteral("name"), escaped(c.name)},
                      {QStringLiteral("subscribers"), c.subscribers >= 0 ? QJsonValue(c.subscribers) : QJsonValue()}};
        if (c.shard)
            o.insert(QStringLiteral("shard"), true);
        channels.append(o);
    }
    // No command lists subscribed patterns: their count, and who holds them.
    QJsonArray holders;
    for (const ClientEntry &c : m_snapshot.subscribers)
        if (c.psub > 0)
            holders.append(QJsonObject{{QStringLiteral("id"), c.id},
                                       {QStringLiteral("addr"), QString::fromUtf8(c.addr)},
                                       {QStringLiteral("name"), escaped(c.name)},
                                       {QStringLiteral("patterns"), c.psub}});
    return {
        {QStringLiteral("channels"), channels},
        {QStringLiteral("patterns"),
         QJsonObject{{QStringLiteral("subscriptions"), m_snapshot.patterns}, {QStringLiteral("clients"), holders}}}};
}
