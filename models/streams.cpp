// SPDX-License-Identifier: GPL-3.0-or-later
#include "streams.h"

#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>

namespace {

QString idText(const QByteArray &id)
{
    return id.isEmpty() ? QStringLiteral("–") : QString::fromLatin1(id);
}

QString optionalText(const std::optional<qint64> &v)
{
    return v ? format::count(quint64(qMax<qint64>(0, *v))) : QStringLiteral("–");
}

QVariant alignRight()
{
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
}

} // namespace

// ---- StreamRow / StreamsModel ----

bool StreamRow::onlyGrows() const
{
    if (!loaded)
        return false;
    for (int i = 1; i < samples.size(); ++i) {
        if (samples.at(i).second < samples.at(i - 1).second)
            return false;
    }
    const std::optional<bool> never = info.neverDeleted();
    if (never)
        return *never;
    return samples.size() >= 2;
}

void StreamsModel::setKeys(const QList<QByteArray> &keys)
{
    QList<StreamRow> rows;
    rows.reserve(keys.size());
    m_index.clear();
    for (const QByteArray &k : keys) {
        if (m_index.contains(k))
            continue;
        m_index.insert(k, int(rows.size()));
        StreamRow r;
        r.key = k;
        rows.append(r);
    }
    setRows(rows);
}

void StreamsModel::setInfo(const QByteArray &key, const StreamInfo &info)
{
    const int row = rowOf(key);
    if (row < 0)
        return;
    m_rows[row].info = info;
    m_rows[row].loaded = true;
    m_rows[row].error.clear();
    changed(row);
}

void StreamsModel::setError(const QByteArray &key, const QString &error)
{
    const int row = rowOf(key);
    if (row < 0)
        return;
    m_rows[row].error = error;
    changed(row);
}

void StreamsModel::addSample(const QByteArray &key, qint64 ms, qint64 length)
{
    const int row = rowOf(key);
    if (row < 0)
        return;
    auto &s = m_rows[row].samples;
    s.append({ms, length});
    if (s.size() > kMaxSamples)
        s.remove(0, s.size() - kMaxSamples);
    changed(row);
}

void StreamsModel::changed(int row)
{
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int StreamsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StreamsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const StreamRow &r = m_rows.at(index.row());
    if (role == KeyRole)
        return r.key;
    if (role == OnlyGrowsRole)
        return r.onlyGrows();
    if (role == Qt::TextAlignmentRole && index.column() != KeyColumn && index.column() != GrowsColumn)
        return alignRight();
    if (role == Qt::ToolTipRole) {
        if (!r.error.isEmpty())
            return r.error;
        if (index.column() == GrowsColumn && r.onlyGrows())
            return tr("The length never went down while sampled and no trimming or deletion was seen: "
                      "consider XADD … MAXLEN ~ or XTRIM");
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    if (index.column() == KeyColumn)
        return bytesescape::quoteIfNeeded(r.key);
    if (!r.error.isEmpty())
        return index.column() == LengthColumn ? r.error : QString();
    if (!r.loaded)
        return index.column() == LengthColumn ? tr("…") : QString();
    switch (index.column()) {
    case LengthColumn: return format::count(quint64(r.info.length));
    case FirstColumn: return idText(r.info.firstEntry.id);
    case LastColumn: return idText(r.info.lastEntry.id);
    case GroupsColumn: return format::count(quint64(r.info.groups));
    case AddedColumn: return optionalText(r.info.entriesAdded);
    case MaxDeletedColumn: return idText(r.info.maxDeletedEntryId);
    case GrowsColumn: return r.onlyGrows() ? tr("only grows") : QString();
    default: return {};
    }
}

QVariant StreamsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Stream");
    case LengthColumn: return tr("Length");
    case FirstColumn: return tr("First id");
    case LastColumn: return tr("Last id");
    case GroupsColumn: return tr("Groups");
    case AddedColumn: return tr("Entries added");
    case MaxDeletedColumn: return tr("Max deleted id");
    case GrowsColumn: return tr("Trimming");
    default: return {};
    }
}

// ---- StreamGroupsModel ----

int StreamGroupsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StreamGroupsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const StreamGroupInfo &g = m_rows.at(index.row());
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn && index.column() != LastDeliveredColumn)
        return alignRight();
    if (role == Qt::ToolTipRole && index.column() == LagColumn && g.lagKnown && !g.lag)
        return tr("The server cannot tell the lag after entries were deleted between the group's position and "
                  "the end of the stream");
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NameColumn: return bytesescape::quoteIfNeeded(g.name);
    case ConsumersColumn: return format::count(quint64(g.consumers));
    case PendingColumn: return format::count(quint64(g.pending));
    case LastDeliveredColumn: return idText(g.lastDeliveredId);
    case EntriesReadColumn: return optionalText(g.entriesRead);
    case LagColumn:
        if (g.lagKnown && !g.lag)
            return tr("unknown");
        return optionalText(g.lag);
    default: return {};
    }
}

QVariant StreamGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Group");
    case ConsumersColumn: return tr("Consumers");
    case PendingColumn: return tr("Pending");
    case LastDeliveredColumn: return tr("Last delivered");
    case EntriesReadColumn: return tr("Entries read");
    case LagColumn: return tr("Lag");
    default: return {};
    }
}

// ---- StreamConsumersModel ----

int StreamConsumersModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StreamConsumersModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const StreamConsumerInfo &c = m_rows.at(index.row());
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn)
        return alignRight();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NameColumn: return bytesescape::quoteIfNeeded(c.name);
    case PendingColumn: return format::count(quint64(c.pending));
    case IdleColumn: return format::duration(c.idleMs);
    case InactiveColumn:
        if (!c.inactiveMs)
            return QStringLiteral("–");
        return *c.inactiveMs < 0 ? tr("never read") : format::duration(*c.inactiveMs);
    default: return {};
    }
}

QVariant StreamConsumersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Consumer");
    case PendingColumn: return tr("Pending");
    case IdleColumn: return tr("Idle");
    case InactiveColumn: return tr("Inactive");
    default: return {};
    }
}

// ---- PendingModel ----

void PendingModel::setPoisonThreshold(qint64 deliveries)
{
    m_poison = qMax<qint64>(1, deliveries);
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void PendingModel::setDeleted(const QSet<QByteArray> &ids)
{
    m_deleted = ids;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

int PendingModel::poisonCount() const
{
    int n = 0;
    for (const PendingEntry &e : m_rows)
        n += e.deliveries > m_poison ? 1 : 0;
    return n;
}

int PendingModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PendingModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const PendingEntry &e = m_rows.at(index.row());
    const bool poison = e.deliveries > m_poison;
    const bool deleted = m_deleted.contains(e.id);
    switch (role) {
    case IdRole: return e.id;
    case PoisonRole: return poison;
    case DeletedRole: return deleted;
    case Qt::TextAlignmentRole:
        if (index.column() == IdleColumn || index.column() == DeliveriesColumn)
            return alignRight();
        return {};
    case Qt::ForegroundRole:
        if (poison)
            return QBrush(QColor(0xc6, 0x28, 0x28));
        if (deleted)
            return QBrush(QColor(0x80, 0x80, 0x80));
        return {};
    case Qt::FontRole:
        if (poison && index.column() == DeliveriesColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (deleted)
            return tr("Deleted from the stream (trimmed or XDEL) but still pending: acknowledge it");
        if (poison)
            return tr("Delivered %1 times, more than %2: probably a poison message").arg(e.deliveries).arg(m_poison);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case IdColumn: return QString::fromLatin1(e.id);
    case ConsumerColumn: return bytesescape::quoteIfNeeded(e.consumer);
    case IdleColumn: return format::duration(e.idleMs);
    case DeliveriesColumn: return QString::number(e.deliveries);
    case StateColumn: {
        QStringList s;
        if (poison)
            s << tr("poison");
        if (deleted)
            s << tr("deleted, still pending");
        return s.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

QVariant PendingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn: return tr("Id");
    case ConsumerColumn: return tr("Consumer");
    case IdleColumn: return tr("Idle");
    case DeliveriesColumn: return tr("Deliveries");
    case StateColumn: return tr("State");
    default: return {};
    }
}

// ---- StreamEntriesModel ----

int StreamEntriesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString StreamEntriesModel::summary(const StreamEntry &entry, int maxChars)
{
    QString s;
    for (qsizetype i = 0; i + 1 < entry.fields.size() && s.size() < maxChars; i += 2) {
        if (!s.isEmpty())
            s += QStringLiteral("  ");
        s += bytesescape::escapeElided(entry.fields.at(i), 40) + QLatin1Char('=')
            + bytesescape::escapeElided(entry.fields.at(i + 1), 80);
    }
    if (s.size() > maxChars)
        s = s.left(maxChars) + QStringLiteral("…");
    return s;
}

QVariant StreamEntriesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const StreamEntry &e = m_rows.at(index.row());
    if (role == IdRole)
        return e.id;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case IdColumn: return QString::fromLatin1(e.id);
    case TimeColumn: {
        const qint64 ms = streamid::milliseconds(e.id);
        return ms < 0 ? QString()
                      : QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
    }
    case FieldsColumn: return summary(e);
    default: return {};
    }
}

QVariant StreamEntriesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn: return tr("Id");
    case TimeColumn: return tr("Time");
    case FieldsColumn: return tr("Fields");
    default: return {};
    }
}

// ---- IdleHistogram ----

IdleHistogram IdleHistogram::of(const QList<PendingEntry> &entries, qint64 poisonThreshold)
{
    IdleHistogram h;
    h.upperMs = {1000, 10000, 60000, 600000, 3600000, 86400000, -1};
    h.labels = {QStringLiteral("<1s"),    QStringLiteral("1–10s"), QStringLiteral("10s–1m"), QStringLiteral("1–10m"),
                QStringLiteral("10m–1h"), QStringLiteral("1h–1d"), QStringLiteral(">1d")};
    h.counts = QList<int>(h.upperMs.size(), 0);
    for (const PendingEntry &e : entries) {
        int b = 0;
        while (h.upperMs.at(b) >= 0 && e.idleMs >= h.upperMs.at(b))
            ++b;
        ++h.counts[b];
        h.poison += e.deliveries > poisonThreshold ? 1 : 0;
    }
    h.total = int(entries.size());
    return h;
}

// ---- StreamsLoader ----

StreamsLoader::StreamsLoader(RedisClient *client, QObject *parent)
    : QObject(parent),
      m_client(client),
      m_streams(new StreamsModel(this)),
      m_groups(new StreamGroupsModel(this)),
      m_consumers(new StreamConsumersModel(this)),
      m_pending(new PendingModel(this)),
      m_entries(new StreamEntriesModel(this))
{ }

QVersionNumber StreamsLoader::serverVersion() const
{
    return m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
}

bool StreamsLoader::serverIdle(const QVersionNumber &version)
{
    // A server that hides its version is taken to be current: the commands fail visibly if not.
    return version.isNull() || version >= QVersionNumber(6, 2);
}

void StreamsLoader::send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done)
{
    m_client->sendBatch(commands, this, std::move(done));
}

void StreamsLoader::setStreams(const QList<QByteArray> &keys)
{
    m_streams->setKeys(keys.mid(0, kMaxStreams));
    refreshStreams();
}

void StreamsLoader::refreshStreams()
{
    const QList<StreamRow> rows = m_streams->rows();
    if (rows.isEmpty()) {
        Q_EMIT streamsAvailable();
        return;
    }
    QList<RedisCommand> cmds;
    for (const StreamRow &r : rows)
        cmds.append({"XINFO", "STREAM", r.key});
    const quint64 request = ++m_listRequest;
    send(cmds, [this, request, rows](const RedisReply &r) {
        if (request != m_listRequest)
            return;
        if (!r.ok()) {
            Q_EMIT failed(tr("Streams could not be read: %1").arg(r.error.message));
            return;
        }
        for (int i = 0; i < rows.size(); ++i) {
            const RedisValue &v = r.value(i);
            StreamInfo info;
            if (v.isError())
                m_streams->setError(rows.at(i).key, QString::fromUtf8(v.bytes()));
            else if (streaminfo::parseStream(v, &info))
                m_streams->setInfo(rows.at(i).key, info);
            else
                m_streams->setError(rows.at(i).key, tr("unexpected XINFO STREAM reply"));
        }
        Q_EMIT streamsAvailable();
    });
}

void StreamsLoader::sampleLengths()
{
    const QList<StreamRow> rows = m_streams->rows();
    if (rows.isEmpty())
        return;
    QList<RedisCommand> cmds;
    for (const StreamRow &r : rows)
        cmds.append({"XLEN", r.key});
    send(cmds, [this, rows](const RedisReply &r) {
        if (!r.ok())
            return;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < rows.size(); ++i) {
            bool ok = false;
            const qint64 len = r.value(i).toInteger(&ok);
            if (ok)
                m_streams->addSample(rows.at(i).key, now, len);
        }
        Q_EMIT lengthsSampled();
    });
}

void StreamsLoader::openStream(const QByteArray &key)
{
    ++m_streamGen;
    m_key = key;
    m_group.clear();
    m_summary = {};
    m_sample.clear();
    m_pageStarts.clear();
    m_hasNext = false;
    m_groups->clear();
    m_consumers->clear();
    m_pending->clear();
    m_entries->clear();
    const quint64 gen = m_streamGen;
    send({{"XINFO", "GROUPS", key}}, [this, gen, key](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        QList<StreamGroupInfo> groups;
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(tr("Groups of %1: %2").arg(bytesescape::quoteIfNeeded(key), e.message));
        } else if (streaminfo::parseGroups(r.value(), &groups)) {
            m_groups->setRows(groups);
        }
        Q_EMIT groupsAvailable(key);
    });
}

void StreamsLoader::openGroup(const QByteArray &group)
{
    ++m_streamGen;
    m_group = group;
    m_summary = {};
    m_sample.clear();
    m_consumers->clear();
    m_pending->clear();
    loadGroupFacts();
    firstPendingPage();
    loadSample();
}

void StreamsLoader::refreshGroup()
{
    if (m_key.isEmpty())
        return;
    const quint64 gen = m_streamGen;
    const QByteArray key = m_key;
    send({{"XINFO", "GROUPS", key}}, [this, gen](const RedisReply &r) {
        QList<StreamGroupInfo> groups;
        if (gen == m_streamGen && !r.firstError() && streaminfo::parseGroups(r.value(), &groups))
            m_groups->setRows(groups);
    });
    if (m_group.isEmpty())
        return;
    loadGroupFacts();
    loadPendingPage(m_pageStarts.isEmpty() ? QByteArray("-") : m_pageStarts.last());
    loadSample();
}

void StreamsLoader::loadGroupFacts()
{
    const quint64 gen = m_streamGen;
    send({{"XINFO", "CONSUMERS", m_key, m_group}, {"XPENDING", m_key, m_group}}, [this, gen](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(tr("Consumers of %1: %2").arg(bytesescape::quoteIfNeeded(m_group), e.message));
            return;
        }
        QList<StreamConsumerInfo> consumers;
        if (streaminfo::parseConsumers(r.value(0), &consumers))
            m_consumers->setRows(consumers);
        Q_EMIT consumersAvailable();
        PendingSummary s;
        if (streaminfo::parsePendingSummary(r.value(1), &s)) {
            m_summary = s;
            Q_EMIT summaryAvailable(s);
        }
    });
}

void StreamsLoader::loadSample()
{
    const quint64 gen = m_streamGen;
    send({{"XPENDING", m_key, m_group, "-", "+", QByteArray::number(kSampleLimit)}}, [this, gen](const RedisReply &r) {
        if (gen != m_streamGen)
            return;
        QList<PendingEntry> rows;
        if (!r.firstError() && streaminfo::parsePending(r.value(), &rows)) {
            m_sample = rows;
            Q_EMIT pendingSampleAvailable();
        }
    });
}

RedisCommand StreamsLoader::pendingCommand(const QByteArray &key, const QByteArray &group, const PendingFilter &filter,
                                           const QByteArray &start, int count, const QVersionNumber &version)
{
    RedisCommand cmd{"XPENDING", key, group};
    if (filter.minIdleMs > 0 && serverIdle(version))
        cmd << "IDLE" << QByteArray::number(filter.minIdleMs);
    cmd << start << "+" << QByteArray::number(count);
    if (!filter.consumer.isEmpty())
        cmd << filter.consumer;
    return cmd;
}

QByteArray StreamsLoader::exclusiveAfter(const QByteArray &lastId, const QVersionNumber &version)
{
    if (serverIdle(version))
        return '(' + lastId;
    return streamid::next(lastId);
}

QByteArray StreamsLoader::exclusiveBefore(const QByteArray &id, const QVersionNumber &version)
{
    if (serverIdle(version))
        return '(' + id;
    return streamid::previous(id);
}

QList<PendingEntry> StreamsLoader::applyLocalFilter(const QList<PendingEntry> &rows, const PendingFilter &filter,
                                                    const QVersionNumber &version)
{
    const bool idleHere = filter.minIdleMs > 0 && !serverIdle(version);
    if (!idleHere && filter.minDeliveries <= 0)
        return rows;
    QList<PendingEntry> out;
    for (const PendingEntry &e : rows) {
        if (idleHere && e.idleMs < filter.minIdleMs)
            continue;
        if (e.deliveries < filter.minDeliveries)
            continue;
        out.append(e);
    }
    return out;
}

void StreamsLoader::setPendingFilter(const PendingFilter &filter)
{
    m_filter = filter;
    if (!m_group.isEmpty())
        firstPendingPage();
}

void StreamsLoader::setPageSize(int rows)
{
    m_pageSize = qBound(1, rows, 10000);
}

void StreamsLoader::setPoisonThreshold(qint64 deliveries)
{
    m_pending->setPoisonThreshold(deliveries);
}

void StreamsLoader::firstPendingPage()
{
    m_pageStarts.clear();
    loadPendingPage("-");
}

void StreamsLoader::nextPendingPage()
{
    if (!m_hasNext || m_pageLastId.isEmpty())
        return;
    const QByteArray start = exclusiveAfter(m_pageLastId, serverVersion());
    if (start.isEmpty())
        return;
    loadPendingPage(start);
}

void StreamsLoader::previousPendingPage()
{
    if (m_pageStarts.size() < 2)
        return;
    m_pageStarts.removeLast();
    const QByteArray start = m_pageStarts.takeLast();
    loadPendingPage(start);
}

void StreamsLoader::loadPendingPage(const QByteArray &start)
{
    if (m_key.isEmpty() || m_group.isEmpty())
        return;
    const quint64 gen = m_streamGen;
    const quint64 request = ++m_pageRequest;
    const QVersionNumber version = serverVersion();
    const PendingFilter filter = m_filter;
    const QByteArray key = m_key;
    send({pendingCommand(m_key, m_group, filter, start, m_pageSize, version)},
         [this, gen, request, start, version, filter, key](const RedisReply &r) {
             if (gen != m_streamGen || request != m_pageRequest)
                 return;
             QList<PendingEntry> raw;
             if (const RedisError e = r.firstError()) {
                 Q_EMIT failed(tr("Pending entries: %1").arg(e.message));
                 return;
             }
             if (!streaminfo::parsePending(r.value(), &raw)) {
                 Q_EMIT failed(tr("Pending entries: unexpected XPENDING reply"));
                 return;
             }
             if (m_pageStarts.isEmpty() || m_pageStarts.last() != start)
                 m_pageStarts.append(start);
             m_pageLastId = raw.isEmpty() ? QByteArray() : raw.last().id;
             m_hasNext = raw.size() >= m_pageSize;
             const QList<PendingEntry> rows = applyLocalFilter(raw, filter, version);
             m_pending->setDeleted({});
             m_pending->setRows(rows);
             Q_EMIT pendingPageAvailable(int(rows.size()));
             if (rows.isEmpty())
                 return;
             // Which of them are gone from the stream: one bounded XRANGE per row of the page.
             QList<RedisCommand> cmds;
             for (const PendingEntry &e : rows)
                 cmds.append({"XRANGE", key, e.id, e.id});
             send(cmds, [this, gen, request, rows](const RedisReply &x) {
                 if (gen != m_streamGen || request != m_pageRequest || !x.ok())
                     return;
                 QSet<QByteArray> deleted;
                 for (int i = 0; i < rows.size(); ++i) {
                     const RedisValue &v = x.value(i);
                     if (v.isArray() && v.size() == 0)
                         deleted.insert(rows.at(i).id);
                 }
                 m_pending->setDeleted(deleted);
             });
         });
}

void StreamsLoader::loadEntry(const QByteArray &id)
{
    const quint64 request = ++m_entryRequest;
    const quint64 gen = m_streamGen;
    send({{"XRANGE", m_key, id, id}}, [this, request, gen, id](const RedisReply &r) {
        if (request != m_entryRequest || gen != m_streamGen)
            return;
        QList<StreamEntry> entries;
        if (const RedisError e = r.firstError()) {
            Q_EMIT failed(tr("Entry %1: %2").arg(QString::fromLatin1(id), e.message));
            return;
        }
        streaminfo::parseEntries(r.value(), &entries);
        Q_EMIT entryLoaded(id, entries.isEmpty() ? StreamEntry{} : entries.first());
    });
}

void StreamsLoader::browseEntries(const QByteArray &from, int count)
{
    const quint64 request = ++m_browseRequest;
    const quint64 gen = m_streamGen;
    send({{"XREVRANGE", m_key, from, "-", "COUNT", QByteArray::number(qMax(1, count))}},
         [this, request, gen](const RedisReply &r) {
             if (request != m_browseRequest || gen != m_streamGen)
                 return;
             QList<StreamEntry> entries;
             if (const RedisError e = r.firstError()) {
                 Q_EMIT failed(tr("Entries: %1").arg(e.message));
                 return;
             }
             streaminfo::parseEntries(r.value(), &entries);
             m_entries->setRows(entries);
             m_entriesLastId = entries.isEmpty() ? QByteArray() : entries.last().id;
             Q_EMIT entriesAvailable(int(entries.size()));
         });
}

void StreamsLoader::browseFromTime(qint64 msSinceEpoch, int count)
{
    // XREVRANGE's end "ms" means "ms-<max seq>": every entry of that millisecond and before.
    browseEntries(QByteArray::number(qMax<qint64>(0, msSinceEpoch)), count);
}

void StreamsLoader::nextEntries(int count)
{
    if (m_entriesLastId.isEmpty())
        return;
    const QByteArray from = exclusiveBefore(m_entriesLastId, serverVersion());
    if (!from.isEmpty())
        browseEntries(from, count);
}

void StreamsLoader::findOldestPending()
{
    const QList<StreamRow> rows = m_streams->rows();
    QList<RedisCommand> cmds;
    QList<QByteArray> keys;
    for (const StreamRow &r : rows) {
        if (r.loaded && r.info.groups > 0) {
            cmds.append({"XINFO", "GROUPS", r.key});
            keys.append(r.key);
        }
    }
    if (cmds.isEmpty())
        return;
    send(cmds, [this, keys](const RedisReply &r) {
        if (!r.ok())
            return;
        QList<RedisCommand> summaries;
        QList<QPair<QByteArray, QByteArray>> pairs;
        for (int i = 0; i < keys.size(); ++i) {
            QList<StreamGroupInfo> groups;
            if (!streaminfo::parseGroups(r.value(i), &groups))
                continue;
            for (const StreamGroupInfo &g : groups) {
                if (g.pending > 0) {
                    summaries.append({"XPENDING", keys.at(i), g.name, "-", "+", "1"});
                    pairs.append({keys.at(i), g.name});
                }
            }
        }
        if (summaries.isEmpty())
            return;
        send(summaries, [this, pairs](const RedisReply &s) {
            if (!s.ok())
                return;
            int best = -1;
            QByteArray bestId;
            for (int i = 0; i < pairs.size(); ++i) {
                QList<PendingEntry> first;
                if (!streaminfo::parsePending(s.value(i), &first) || first.isEmpty())
                    continue;
                // By id, i.e. the time the entry was added: the entry waiting longest overall,
                // whatever claims reset its idle time since.
                if (best < 0 || streamid::less(first.first().id, bestId)) {
                    bestId = first.first().id;
                    best = i;
                }
            }
            if (best >= 0)
                Q_EMIT oldestPendingFound(pairs.at(best).first, pairs.at(best).second);
        });
    });
}

// ---- StreamActions ----

StreamActions::StreamActions(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void StreamActions::setDeadLetterScript(const QByteArray &source, const QByteArray &sha1)
{
    m_deadSource = source;
    m_deadSha = sha1;
}

bool StreamActions::isReadOnly() const
{
    return m_client->facts().readOnly || m_client->profile().readOnly;
}

bool StreamActions::refuse(const QString &action)
{
    StreamActionResult r;
    r.action = action;
    if (isReadOnly())
        r.message = tr("Refused: the connection is read-only");
    else if (m_busy)
        r.message = tr("Refused: another action is still running");
    else
        return false;
    Q_EMIT finished(r);
    return true;
}

void StreamActions::done(const StreamActionResult &result)
{
    m_busy = false;
    Q_EMIT finished(result);
}

bool StreamActions::claim(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                          const QByteArray &consumer, qint64 minIdleMs)
{
    if (refuse(QStringLiteral("claim")))
        return false;
    if (ids.isEmpty() || consumer.isEmpty())
        return false;
    m_busy = true;
    RedisCommand cmd{"XCLAIM", key, group, consumer, QByteArray::number(qMax<qint64>(0, minIdleMs))};
    cmd.append(ids);
    m_client->send(cmd, this, [this, consumer](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("claim");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XCLAIM failed: %1").arg(e.message);
        } else {
            QList<StreamEntry> entries;
            streaminfo::parseEntries(r.value(), &entries);
            res.ok = true;
            res.count = entries.size();
            res.message
                = tr("%n entries claimed for %1", nullptr, int(res.count)).arg(bytesescape::quoteIfNeeded(consumer));
        }
        done(res);
    });
    return true;
}

bool StreamActions::autoClaim(const QByteArray &key, const QByteArray &group, const QByteArray &consumer,
                              qint64 minIdleMs)
{
    if (refuse(QStringLiteral("autoclaim")))
        return false;
    if (consumer.isEmpty())
        return false;
    const QVersionNumber v = m_client->facts().version;
    if (!v.isNull() && v < QVersionNumber(6, 2)) {
        StreamActionResult r;
        r.action = QStringLiteral("autoclaim");
        r.message = tr("XAUTOCLAIM needs Redis 6.2 or later (server is %1)").arg(v.toString());
        Q_EMIT finished(r);
        return false;
    }
    m_busy = true;
    StreamActionResult acc;
    acc.action = QStringLiteral("autoclaim");
    autoClaimStep(key, group, consumer, minIdleMs, "0-0", acc);
    return true;
}

void StreamActions::autoClaimStep(const QByteArray &key, const QByteArray &group, const QByteArray &consumer,
                                  qint64 minIdleMs, const QByteArray &cursor, StreamActionResult acc)
{
    // JUSTID: the entries are not sent back (thousands of them) and their delivery counters are
    // not raised, since the new owner has not been handed them yet.
    const RedisCommand cmd{"XAUTOCLAIM",
                           key,
                           group,
                           consumer,
                           QByteArray::number(qMax<qint64>(0, minIdleMs)),
                           cursor,
                           "COUNT",
                           QByteArray::number(kAutoClaimCount),
                           "JUSTID"};
    m_client->send(cmd, this, [=](const RedisReply &r) mutable {
        AutoClaimReply a;
        if (const RedisError e = r.firstError()) {
            acc.message = tr("XAUTOCLAIM failed after %n entries: %1", nullptr, int(acc.count)).arg(e.message);
            done(acc);
            return;
        }
        if (!streaminfo::parseAutoClaim(r.value(), &a)) {
            acc.message = tr("XAUTOCLAIM: unexpected reply");
            done(acc);
            return;
        }
        acc.count += a.claimedIds.size();
        acc.deletedIds.append(a.deletedIds);
        Q_EMIT progress(acc.count);
        if (a.cursor == "0-0" || a.cursor.isEmpty()) {
            acc.ok = true;
            acc.message
                = tr("%n entries claimed for %1", nullptr, int(acc.count)).arg(bytesescape::quoteIfNeeded(consumer));
            if (!acc.deletedIds.isEmpty())
                acc.message
                    += tr("; %n deleted entries dropped from the pending list", nullptr, int(acc.deletedIds.size()));
            done(acc);
            return;
        }
        autoClaimStep(key, group, consumer, minIdleMs, a.cursor, acc);
    });
}

bool StreamActions::ack(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids)
{
    if (refuse(QStringLiteral("ack")))
        return false;
    if (ids.isEmpty())
        return false;
    m_busy = true;
    RedisCommand cmd{"XACK", key, group};
    cmd.append(ids);
    m_client->send(cmd, this, [this](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("ack");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XACK failed: %1").arg(e.message);
        } else {
            res.ok = true;
            res.count = r.value().toInteger();
            res.message = tr("%n entries acknowledged", nullptr, int(res.count));
        }
        done(res);
    });
    return true;
}

bool StreamActions::trim(const QByteArray &key, qint64 maxLen)
{
    if (refuse(QStringLiteral("trim")))
        return false;
    if (maxLen < 0)
        return false;
    m_busy = true;
    m_client->send({"XTRIM", key, "MAXLEN", "~", QByteArray::number(maxLen)}, this, [this](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("trim");
        if (const RedisError e = r.firstError()) {
            res.message = tr("XTRIM failed: %1").arg(e.message);
        } else {
            res.ok = true;
            res.count = r.value().toInteger();
            res.message = tr("%n entries removed", nullptr, int(res.count));
        }
        done(res);
    });
    return true;
}

bool StreamActions::deadLetter(const QByteArray &key, const QByteArray &group, const QList<QByteArray> &ids,
                               const QByteArray &deadKey, const QByteArray &reason)
{
    if (refuse(QStringLiteral("deadletter")))
        return false;
    if (ids.isEmpty())
        return false;
    if (m_deadSource.isEmpty()) {
        StreamActionResult r;
        r.action = QStringLiteral("deadletter");
        r.message = tr("The dead-letter script is not available");
        Q_EMIT finished(r);
        return false;
    }
    m_busy = true;
    const QByteArray dead = deadKey.isEmpty() ? defaultDeadKey(key) : deadKey;
    QList<RedisCommand> calls;
    for (const QByteArray &id : ids)
        calls.append({"EVALSHA", m_deadSha, "2", key, dead, group, id, reason, QByteArray::number(kDeadMaxLen)});
    runDeadLetter(calls, ids, false);
    return true;
}

void StreamActions::runDeadLetter(const QList<RedisCommand> &calls, const QList<QByteArray> &ids, bool loaded)
{
    QList<RedisCommand> batch = calls;
    if (loaded)
        batch.prepend({"SCRIPT", "LOAD", m_deadSource});
    m_client->sendBatch(batch, this, [this, calls, ids, loaded](const RedisReply &r) {
        StreamActionResult res;
        res.action = QStringLiteral("deadletter");
        if (!r.ok()) {
            res.message = tr("Dead letter failed: %1").arg(r.error.message);
            done(res);
            return;
        }
        const int offset = loaded ? 1 : 0;
        if (!loaded && r.value(0).isError() && r.value(0).errorCode() == "NOSCRIPT") {
            // The script cache was empty (restart, SCRIPT FLUSH): load it and send them all again.
            runDeadLetter(calls, ids, true);
            return;
        }
        QStringList errors;
        for (int i = 0; i < ids.size(); ++i) {
            const RedisValue &v = r.value(i + offset);
            if (v.isError()) {
                res.failedIds.append(ids.at(i));
                errors.append(QString::fromLatin1(ids.at(i)) + QStringLiteral(": ") + QString::fromUtf8(v.bytes()));
            } else {
                ++res.count;
            }
        }
        res.ok = errors.isEmpty();
        res.message = tr("%n entries moved to the dead-letter stream", nullptr, int(res.count));
        if (!errors.isEmpty())
            res.message += QStringLiteral("; ") + tr("not moved: %1").arg(errors.join(QStringLiteral("; ")));
        done(res);
    });
}
