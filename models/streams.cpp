// SPDX-License-Identifier: GPL-3.0-or-later
#include "streams.h"

#include "bytesescape.h"
#include "format.h"

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

Severity StreamsModel::severityOf(const StreamRow &row)
{
    if (!row.error.isEmpty())
        return Severity::Bad;
    return row.onlyGrows() ? Severity::Warning : Severity::None;
}

QVariant StreamsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const StreamRow &r = rows().at(index.row());
    if (role == KeyRole)
        return r.key;
    if (role == SeverityRole)
        return int(severityOf(r));
    if (role == TypeRole)
        return int(KeyType::Stream);
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

QVariant StreamGroupsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const StreamGroupInfo &g = rows().at(index.row());
    if (role == KeyRole)
        return g.name;
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

QVariant StreamConsumersModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const StreamConsumerInfo &c = rows().at(index.row());
    if (role == KeyRole)
        return c.name;
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
    allChanged();
}

void PendingModel::setDeleted(const QSet<QByteArray> &ids)
{
    m_deleted = ids;
    allChanged();
}

void PendingModel::allChanged()
{
    if (!rows().isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(rows().size()) - 1, ColumnCount - 1));
}

int PendingModel::poisonCount() const
{
    int n = 0;
    for (const PendingEntry &e : rows())
        n += e.deliveries > m_poison ? 1 : 0;
    return n;
}

QVariant PendingModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const PendingEntry &e = rows().at(index.row());
    const bool poison = e.deliveries > m_poison;
    const bool deleted = m_deleted.contains(e.id);
    switch (role) {
    case KeyRole: return e.id;
    case SeverityRole: return int(poison ? Severity::Bad : deleted ? Severity::Warning : Severity::None);
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
    if (!isCell(index))
        return {};
    const StreamEntry &e = rows().at(index.row());
    if (role == KeyRole)
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
