// SPDX-License-Identifier: GPL-3.0-or-later
#include "locks.h"

#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>

namespace {

constexpr qint64 kLongTtlFactor = 10;
constexpr qint64 kLongTtlMinMs = 5 * 60 * 1000;
constexpr int kLongTtlMinSiblings = 3; // a median of fewer TTLs says nothing about "typical"

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

bool lockValueLooksLikeToken(const QByteArray &value)
{
    if (value.size() < 8)
        return false;
    QSet<char> distinct;
    for (char c : value) {
        distinct.insert(c);
        if (distinct.size() >= 6)
            return true;
    }
    return false;
}

int LockInfo::severity() const
{
    if (released)
        return -1;
    if (flags & NoTtl)
        return 3;
    if (flags & LongTtl)
        return 2;
    if (flags & NotTokenLike)
        return 1;
    return 0;
}

QString LockInfo::flagsText() const
{
    if (released)
        return QObject::tr("released since the previous read");
    QStringList parts;
    if (flags & NoTtl)
        parts << QObject::tr("no TTL");
    if (flags & LongTtl)
        parts << QObject::tr("TTL far above the family's typical (%1)").arg(format::duration(familyMedianMs));
    if (flags & NotTokenLike)
        parts << QObject::tr("value not token-like");
    if (!error.isEmpty())
        parts << error;
    return parts.join(QStringLiteral(" · "));
}

void flagLocks(QList<LockInfo> &locks)
{
    QHash<QString, QList<qint64>> ttls;
    for (const LockInfo &l : locks) {
        if (!l.released && l.pttlMs > 0)
            ttls[l.family].append(l.pttlMs);
    }
    QHash<QString, qint64> medians;
    for (auto it = ttls.begin(); it != ttls.end(); ++it) {
        QList<qint64> &v = it.value();
        if (v.size() < kLongTtlMinSiblings)
            continue;
        std::sort(v.begin(), v.end());
        medians.insert(it.key(), v.at((v.size() - 1) / 2));
    }
    for (LockInfo &l : locks) {
        l.flags = 0;
        l.familyMedianMs = medians.value(l.family, -1);
        if (l.released)
            continue;
        // -1 only: an unknown TTL (an error reply) must not read as "no TTL".
        if (l.pttlMs == -1)
            l.flags |= LockInfo::NoTtl;
        if (l.familyMedianMs > 0 && l.pttlMs > kLongTtlFactor * l.familyMedianMs && l.pttlMs > kLongTtlMinMs)
            l.flags |= LockInfo::LongTtl;
        if (l.type == KeyType::String && l.error.isEmpty() && !lockValueLooksLikeToken(l.value))
            l.flags |= LockInfo::NotTokenLike;
    }
}

void sortLocks(QList<LockInfo> &locks)
{
    std::stable_sort(locks.begin(), locks.end(), [](const LockInfo &a, const LockInfo &b) {
        if (a.severity() != b.severity())
            return a.severity() > b.severity();
        return a.key < b.key;
    });
}

// ---- model ----

void LocksModel::setRows(const QList<LockInfo> &rows)
{
    bool sameKeys = rows.size() == m_rows.size();
    for (qsizetype i = 0; sameKeys && i < rows.size(); ++i)
        sameKeys = rows.at(i).key == m_rows.at(i).key;
    if (sameKeys) {
        m_rows = rows;
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

int LocksModel::rowOf(const QByteArray &key) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).key == key)
            return int(i);
    }
    return -1;
}

void LocksModel::setNow(qint64 nowMs)
{
    m_now = nowMs;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, RemainingColumn), index(rowCount() - 1, RemainingColumn), {Qt::DisplayRole});
}

int LocksModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LocksModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LocksModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LockInfo &l = m_rows.at(index.row());
    switch (role) {
    case KeyRole: return l.key;
    case TokenRole: return l.value;
    case SeverityRole: return l.severity();
    case TtlSeverityRole: return (l.flags & (LockInfo::NoTtl | LockInfo::LongTtl)) ? 2 : 0;
    case TypeRole: return int(l.type);
    case Qt::ToolTipRole:
        if (index.column() == FlagsColumn && l.flags) {
            QStringList why;
            if (l.flags & LockInfo::NoTtl)
                why << tr("No TTL: if the holder crashes, nobody can ever take this lock again.");
            if (l.flags & LockInfo::LongTtl)
                why << tr("The TTL is far above the %1 typical of its family: a crashed holder blocks the "
                          "resource that long.")
                           .arg(format::duration(l.familyMedianMs));
            if (l.flags & LockInfo::NotTokenLike)
                why << tr("The value is the same for every holder, so a compare-and-delete cannot tell the "
                          "owner apart: anyone may release it.");
            return why.join(QLatin1Char('\n'));
        }
        if (index.column() == TokenColumn && l.type == KeyType::String)
            return bytesescape::escapeElided(l.value, 1000);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case ResourceColumn: return bytesescape::escape(l.key);
    case TokenColumn:
        if (!l.error.isEmpty() && l.value.isEmpty())
            return tr("(not readable)");
        if (l.type != KeyType::String)
            return tr("(%1: holder not shown)").arg(keyTypeName(l.type));
        if (l.valueLength > l.value.size())
            return tr("%1 … (%2)").arg(bytesescape::escapeElided(l.value, 80), format::bytes(l.valueLength));
        return bytesescape::quoteIfNeeded(l.value);
    case RemainingColumn:
        if (l.released)
            return tr("released");
        if (l.pttlMs == ttl::kUnknown)
            return tr("unknown");
        return format::ttl(l.expireAtMs(), m_now ? m_now : l.readAtMs);
    case FamilyColumn: return l.family;
    case FlagsColumn: return l.flagsText();
    default: return {};
    }
}

QVariant LocksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceColumn: return tr("Resource (key)");
    case TokenColumn: return tr("Holder token");
    case RemainingColumn: return tr("Remaining");
    case FamilyColumn: return tr("Family");
    case FlagsColumn: return tr("Flags");
    default: return {};
    }
}

// ---- loader ----

LocksLoader::LocksLoader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_model(new LocksModel(this)), m_poll(new QTimer(this))
{
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &LocksLoader::refresh);
}

void LocksLoader::setMatches(const QList<PatternMatch> &matches)
{
    m_matches.clear();
    for (const PatternMatch &m : matches) {
        if (m.kind == PatternKind::Lock && m_matches.size() < kMaxLocks)
            m_matches.append(m);
    }
    // A rescan: replies to the previous key list are dropped, the model keeps what it shows
    // until the next round replaces it.
    delete m_context;
    m_context = new QObject(this);
    m_busy = false;
    m_again = false;
    // Read now only for a panel on screen; a hidden one reads when it is activated.
    if (isPolling())
        refresh();
}

void LocksLoader::refresh()
{
    if (m_busy) {
        m_again = true;
        return;
    }
    if (!m_context)
        m_context = new QObject(this);
    m_busy = true;
    m_reading.clear();
    readBatch(0, nowMs());
}

void LocksLoader::setPolling(bool on)
{
    if (on) {
        m_poll->start();
        refresh();
    } else {
        m_poll->stop();
    }
}

bool LocksLoader::isPolling() const
{
    return m_poll->isActive();
}

const LockInfo *LocksLoader::lock(const QByteArray &key) const
{
    const int row = m_model->rowOf(key);
    return row < 0 ? nullptr : &m_model->rows().at(row);
}

void LocksLoader::readBatch(int from, qint64 startedAt)
{
    if (from >= m_matches.size()) {
        finishRound();
        return;
    }
    const int to = qMin<int>(from + kBatch, int(m_matches.size()));
    QList<RedisCommand> cmds;
    cmds.reserve((to - from) * 3);
    for (int i = from; i < to; ++i) {
        const QByteArray &k = m_matches.at(i).key;
        cmds.append({"GETRANGE", k, "0", QByteArray::number(kValueBytes - 1)});
        cmds.append({"STRLEN", k});
        cmds.append({"PTTL", k});
    }
    const qint64 sent = nowMs();
    m_client->sendBatch(cmds, m_context, [this, from, to, sent, startedAt](const RedisReply &r) {
        if (!r.ok()) {
            m_busy = false;
            Q_EMIT failed(r.error.message);
            return;
        }
        for (int i = from; i < to; ++i) {
            const PatternMatch &m = m_matches.at(i);
            const RedisValue &value = r.value((i - from) * 3);
            const RedisValue &len = r.value((i - from) * 3 + 1);
            const RedisValue &pttl = r.value((i - from) * 3 + 2);
            const RedisError perm = RedisError::fromReply(pttl);
            if (perm.kind == RedisError::Kind::NoPerm) {
                m_busy = false;
                Q_EMIT failed(tr("%1 (the locks panel needs +getrange +strlen +pttl)").arg(perm.message));
                return;
            }
            LockInfo l;
            l.key = m.key;
            l.family = m.family;
            l.type = m.type == KeyType::Unknown ? KeyType::String : m.type;
            l.readAtMs = sent; // the request's start: the countdown errs on the short side
            l.pttlMs = ttl::fromReply(pttl);
            if (value.isError()) {
                if (value.errorCode() == "WRONGTYPE") {
                    if (l.type == KeyType::String)
                        l.type = KeyType::Unknown;
                } else {
                    l.error = QString::fromUtf8(value.bytes());
                }
            } else {
                l.type = KeyType::String;
                l.value = value.bytes();
                l.valueLength = len.isInteger() ? len.toInteger() : -1;
            }
            m_reading.append(l);
        }
        readBatch(to, startedAt);
    });
}

void LocksLoader::finishRound()
{
    QList<LockInfo> rows;
    rows.reserve(m_reading.size());
    for (LockInfo &l : m_reading) {
        if (l.pttlMs == -2) {
            // Gone: shown once as released if it was held at the previous read, then dropped.
            const LockInfo *before = lock(l.key);
            if (before && !before->released && !m_shownReleased.contains(l.key)) {
                LockInfo r = *before;
                r.released = true;
                r.readAtMs = l.readAtMs;
                rows.append(r);
                m_shownReleased.insert(l.key);
            }
            continue;
        }
        m_shownReleased.remove(l.key);
        rows.append(l);
    }
    m_reading.clear();
    flagLocks(rows);
    sortLocks(rows);
    m_model->setRows(rows);
    m_model->setNow(nowMs());
    m_hasResults = true;
    m_busy = false;
    Q_EMIT refreshed();
    if (m_again) {
        m_again = false;
        refresh();
    }
}
