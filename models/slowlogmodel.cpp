// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlogmodel.h"

#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"
#include "threadcheck.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <utility>

// ---------------------------------------------------------------------------------------------
// Flags

namespace slowlogflags {

namespace {

bool isScript(const QByteArray &name)
{
    return name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL"
        || name == "FCALL_RO";
}

bool isWholeListRange(const SlowlogEntry &e)
{
    return e.args.size() == 4 && e.isArgumentComplete(2) && e.isArgumentComplete(3) && e.args.at(2) == "0"
        && e.args.at(3) == "-1";
}

// The counting command for an entry that read a whole collection, without its key; empty
// for anything else.
QByteArray wholeReadCounter(const SlowlogEntry &e)
{
    if (e.args.isEmpty() || e.moreArguments > 0)
        return {};
    const QByteArray name = e.args.first().toUpper();
    if (name == "SMEMBERS" && e.args.size() == 2)
        return "SCARD";
    if (name == "HGETALL" && e.args.size() == 2)
        return "HLEN";
    if (name == "LRANGE" && isWholeListRange(e))
        return "LLEN";
    return {};
}

} // namespace

RedisCommand sizeCommand(const SlowlogEntry &entry)
{
    const QByteArray counter = wholeReadCounter(entry);
    // A shortened key name cannot be asked about; the duration alone has to do.
    if (counter.isEmpty() || entry.keyIndex() != 1)
        return {};
    return {counter, entry.args.at(1)};
}

SlowlogVerdict judge(const SlowlogEntry &entry, qint64 keySize)
{
    SlowlogVerdict v;
    if (entry.args.isEmpty())
        return v;
    const QByteArray name = entry.args.first().toUpper();
    const QString took = SlowlogModel::durationText(entry.durationUs);
    if (name == "KEYS") {
        v.flag = SlowlogFlag::Keys;
        v.reason = QObject::tr("KEYS walks every key and blocks the server meanwhile (took %1); use SCAN").arg(took);
    } else if (name == "FLUSHALL" || name == "FLUSHDB") {
        v.flag = SlowlogFlag::Flush;
        v.reason = QObject::tr("%1 deletes every key of %2; a live app should not send it")
                       .arg(QString::fromLatin1(name),
                            name == "FLUSHALL" ? QObject::tr("every database") : QObject::tr("the database"));
    } else if (isScript(name) && entry.durationUs > kLongScriptUs) {
        v.flag = SlowlogFlag::LongScript;
        v.reason = QObject::tr("long script: %1 ran %2, and no other client was served meanwhile")
                       .arg(QString::fromLatin1(name), took);
    } else if (name == "DEBUG") {
        v.flag = SlowlogFlag::Diagnostic;
        v.reason = QObject::tr("DEBUG is a test or diagnostic command, not the app's traffic");
    } else if (!wholeReadCounter(entry).isEmpty()) {
        const bool big = keySize >= kBigCollectionElements;
        if (big || entry.durationUs >= kBigCollectionUs) {
            QString what, instead;
            if (name == "SMEMBERS") {
                what = QObject::tr("members of a set");
                instead = QStringLiteral("SSCAN");
            } else if (name == "HGETALL") {
                what = QObject::tr("fields of a hash");
                instead = QStringLiteral("HSCAN");
            } else {
                what = QObject::tr("elements of a list");
                instead = QObject::tr("LRANGE in pages");
            }
            v.flag = SlowlogFlag::BigCollection;
            v.reason = keySize >= 0
                ? QObject::tr("%1 read all %2 %3 in one call (took %4); use %5")
                      .arg(QString::fromLatin1(name), format::count(quint64(keySize)), what, took, instead)
                : QObject::tr("%1 read all %2 in one call (took %3); use %4")
                      .arg(QString::fromLatin1(name), what, took, instead);
        }
    }
    return v;
}

QString label(SlowlogFlag flag)
{
    switch (flag) {
    case SlowlogFlag::None: return {};
    case SlowlogFlag::Keys: return QStringLiteral("KEYS");
    case SlowlogFlag::Flush: return QStringLiteral("FLUSH");
    case SlowlogFlag::BigCollection: return QObject::tr("big collection");
    case SlowlogFlag::LongScript: return QObject::tr("long script");
    case SlowlogFlag::Diagnostic: return QObject::tr("debug");
    }
    return {};
}

} // namespace slowlogflags

// ---------------------------------------------------------------------------------------------
// Tracker

void SlowlogTracker::setFetchLimit(int limit)
{
    m_limit = qMax(1, limit);
    m_request = qMin(m_request, m_limit);
}

SlowlogTracker::Outcome SlowlogTracker::apply(const SlowlogPage &page)
{
    Outcome out;
    const QList<SlowlogEntry> &entries = page.entries; // newest first

    // What happened since the last complete page. Pages asked again for more entries are
    // measured against the same baseline, so a reset found on the first is kept.
    bool restart = m_pendingRestart;
    bool cleared = m_pendingCleared;
    if (m_started) {
        if (!page.runId.isEmpty() && !m_runId.isEmpty() && page.runId != m_runId)
            restart = true;
        if (!entries.isEmpty() && m_lastId >= 0 && entries.first().id < m_lastId)
            restart = true;
        if (!restart && page.length >= 0 && m_lastLength >= 0) {
            if (page.maxLength >= 0) {
                const qint64 arrived
                    = !entries.isEmpty() && m_lastId >= 0 ? qMax<qint64>(0, entries.first().id - m_lastId) : 0;
                // The log only shrinks by wrapping (down to max-len) or by SLOWLOG RESET.
                const qint64 expected = qMin(m_lastLength + arrived, page.maxLength);
                cleared = cleared || page.length < expected;
            } else {
                cleared = cleared || page.length < m_lastLength;
            }
        }
    }
    const qint64 baseline = restart ? -1 : m_lastId;

    const qsizetype n = entries.size();
    const bool reached = baseline >= 0 && n > 0 && entries.last().id <= baseline;
    const bool whole = n < page.requested || (page.length >= 0 && n >= page.length)
        || (page.maxLength > 0 && page.requested >= page.maxLength) || page.requested >= m_limit;
    if (!reached && !whole) {
        qint64 want = page.requested * 4;
        if (baseline >= 0 && n > 0)
            want = entries.first().id - baseline;
        else if (page.length >= 0)
            want = page.length;
        // A few more for what arrives while the next request travels.
        want = qMax<qint64>(want + 8, qint64(page.requested) * 2);
        m_request = int(qMin<qint64>(want, m_limit));
        m_pendingRestart = restart;
        m_pendingCleared = cleared;
        out.complete = false;
        return out;
    }

    for (qsizetype i = n - 1; i >= 0; --i) {
        if (baseline < 0 || entries.at(i).id > baseline)
            out.fresh.append(entries.at(i));
    }
    if (restart || cleared) {
        out.reset = true;
        ++m_resets;
        if (restart)
            ++m_epoch;
    }
    if (!out.fresh.isEmpty()) {
        const qint64 oldest = out.fresh.first().id;
        if (baseline >= 0 && oldest > baseline + 1)
            out.missed = oldest - baseline - 1;
        else if (restart && oldest > 0)
            out.missed = oldest; // a new server counts from 0
        m_lastId = out.fresh.last().id;
    } else if (restart) {
        m_lastId = -1;
    }
    m_totalMissed += out.missed;
    m_lastLength = page.length;
    if (!page.runId.isEmpty())
        m_runId = page.runId;
    m_started = true;
    m_pendingRestart = m_pendingCleared = false;
    m_request = qBound(qMin(kIncrementalRequest, m_limit), int(out.fresh.size()) * 2, m_limit);
    out.epoch = m_epoch;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Entries

SlowlogModel::SlowlogModel(QObject *parent) : QAbstractTableModel(parent), m_aggregate(new SlowlogAggregateModel(this))
{ }

SlowlogModel::~SlowlogModel() = default;

QString SlowlogModel::durationText(qint64 us)
{
    if (us < 1000)
        return QStringLiteral("%1 µs").arg(us);
    if (us < 1'000'000) {
        const double ms = double(us) / 1000.0;
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 100 ? 1 : 0);
    }
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 2);
}

void SlowlogModel::setCapacity(int entries)
{
    m_capacity = qMax(1, entries);
    const int overflow = rowCount() - m_capacity;
    if (overflow <= 0)
        return;
    QList<SlowlogEntry> removed;
    beginRemoveRows({}, rowCount() - overflow, rowCount() - 1);
    for (int i = 0; i < overflow; ++i) {
        removed.append(std::move(m_rows.front().entry));
        m_rows.pop_front();
    }
    endRemoveRows();
    m_aggregate->update({}, removed);
}

void SlowlogModel::judgeRow(Row &row) const
{
    const SlowlogVerdict v = slowlogflags::judge(row.entry, row.entry.hasKey() ? keySize(row.entry.key()) : -1);
    row.flag = v.flag;
    row.reason = v.reason;
}

int SlowlogModel::append(const QList<SlowlogEntry> &entries, int epoch)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    QList<SlowlogEntry> fresh;
    for (const SlowlogEntry &e : entries) {
        if (epoch > m_lastEpoch || (epoch == m_lastEpoch && e.id > m_lastId))
            fresh.append(e);
    }
    if (fresh.isEmpty())
        return 0;
    std::sort(fresh.begin(), fresh.end(), [](const SlowlogEntry &a, const SlowlogEntry &b) { return a.id < b.id; });
    fresh.erase(std::unique(fresh.begin(), fresh.end(),
                            [](const SlowlogEntry &a, const SlowlogEntry &b) { return a.id == b.id; }),
                fresh.end());
    if (fresh.size() > m_capacity)
        fresh.remove(0, fresh.size() - m_capacity);

    // Oldest leave first (the bottom rows), then the new ones arrive on top.
    QList<SlowlogEntry> removed;
    const int overflow = rowCount() + int(fresh.size()) - m_capacity;
    if (overflow > 0) {
        beginRemoveRows({}, rowCount() - overflow, rowCount() - 1);
        for (int i = 0; i < overflow; ++i) {
            removed.append(std::move(m_rows.front().entry));
            m_rows.pop_front();
        }
        endRemoveRows();
    }
    beginInsertRows({}, 0, int(fresh.size()) - 1);
    for (const SlowlogEntry &e : std::as_const(fresh)) {
        Row row;
        row.entry = e;
        row.epoch = epoch;
        row.text = slowlog::displayText(e, kDisplayArgBytes, kDisplayChars);
        judgeRow(row);
        m_rows.push_back(std::move(row));
    }
    endInsertRows();
    m_lastEpoch = epoch;
    m_lastId = fresh.constLast().id;
    m_aggregate->update(fresh, removed);
    return int(fresh.size());
}

void SlowlogModel::clear()
{
    if (m_rows.empty())
        return;
    beginResetModel();
    m_rows.clear();
    endResetModel();
    m_aggregate->clear();
}

void SlowlogModel::setKeySize(const QByteArray &key, qint64 size)
{
    m_keySizes.insert(key, size);
    int first = -1, last = -1;
    for (int r = 0; r < rowCount(); ++r) {
        Row &row = m_rows[m_rows.size() - 1 - std::size_t(r)];
        // Cheap test first: this runs over every row for every key size that arrives.
        if (row.entry.args.size() < 2 || row.entry.args.at(1) != key || slowlogflags::sizeCommand(row.entry).isEmpty())
            continue;
        const SlowlogFlag before = row.flag;
        const QString reason = row.reason;
        judgeRow(row);
        if (row.flag == before && row.reason == reason)
            continue;
        if (first < 0)
            first = r;
        last = r;
    }
    if (first >= 0)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

void SlowlogModel::setProblemColor(const QColor &color)
{
    if (color == m_problemColor)
        return;
    m_problemColor = color;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ForegroundRole});
}

SlowlogVerdict SlowlogModel::verdictAt(int row) const
{
    const Row &r = rowAt(row);
    return SlowlogVerdict{r.flag, r.reason};
}

int SlowlogModel::rowOf(int epoch, qint64 id) const
{
    // Rows are ordered by (epoch, id): binary search on the storage order.
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), std::make_pair(epoch, id),
        [](const Row &r, const std::pair<int, qint64> &k) { return std::make_pair(r.epoch, r.entry.id) < k; });
    if (it == m_rows.end() || it->epoch != epoch || it->entry.id != id)
        return -1;
    return int(m_rows.end() - it) - 1;
}

int SlowlogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SlowlogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlowlogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = rowAt(index.row());
    const SlowlogEntry &e = row.entry;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn: return e.id;
        case TimeColumn: {
            const QDateTime t = QDateTime::fromSecsSinceEpoch(e.timestamp);
            return t.date() == QDate::currentDate() ? t.toString(QStringLiteral("HH:mm:ss"))
                                                    : t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        }
        case DurationColumn: return durationText(e.durationUs);
        case CommandColumn: return row.text;
        case ClientColumn: return QString::fromLatin1(e.clientAddress);
        case NameColumn: return bytesescape::escape(e.clientName);
        case FlagColumn: return slowlogflags::label(row.flag);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case IdColumn: return QVariant::fromValue(qint64(row.epoch) << 48 | e.id);
        case TimeColumn: return e.timestamp;
        case DurationColumn: return e.durationUs;
        case FlagColumn: return int(row.flag);
        default: return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn: return QDateTime::fromSecsSinceEpoch(e.timestamp).toString(Qt::ISODate);
        case DurationColumn: return tr("%1 µs").arg(e.durationUs);
        case CommandColumn: {
            QString tip = slowlog::displayText(e);
            if (e.truncated)
                tip += QLatin1Char('\n')
                    + tr("The server logs at most %1 arguments and %2 bytes of each.")
                          .arg(slowlog::kMaxLoggedArguments - 1)
                          .arg(slowlog::kMaxLoggedStringBytes);
            if (e.hasKey())
                tip += QLatin1Char('\n') + tr("Activate to open the key %1").arg(bytesescape::quoteIfNeeded(e.key()));
            if (!row.reason.isEmpty())
                tip += QLatin1Char('\n') + row.reason;
            return tip;
        }
        case NameColumn: return e.clientName.isEmpty() ? tr("no client name") : QVariant();
        case FlagColumn: return row.reason.isEmpty() ? QVariant() : row.reason;
        }
        break;
    case Qt::ForegroundRole:
        if ((index.column() == FlagColumn || index.column() == CommandColumn)
            && SlowlogVerdict{row.flag, {}}.isProblem())
            return m_problemColor;
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == DurationColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case IdRole: return e.id;
    case EpochRole: return row.epoch;
    case KeyRole: return e.hasKey() ? QVariant(e.key()) : QVariant();
    case FlagRole: return int(row.flag);
    case DurationUsRole: return e.durationUs;
    case TimestampRole: return e.timestamp;
    default: break;
    }
    return {};
}

QVariant SlowlogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return tr("Id");
    case TimeColumn: return tr("Time");
    case DurationColumn: return tr("Duration");
    case CommandColumn: return tr("Command");
    case ClientColumn: return tr("Client");
    case NameColumn: return tr("Name");
    case FlagColumn: return tr("Flag");
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Aggregate

SlowlogAggregateModel::SlowlogAggregateModel(QObject *parent) : QAbstractTableModel(parent)
{ }

qint64 SlowlogAggregateModel::percentile(const QList<qint64> &sorted, double p)
{
    if (sorted.isEmpty())
        return -1;
    // The epsilon keeps 0.99 * 100 (98.999...) at rank 99 rather than rounding it away.
    const auto rank = qsizetype(std::ceil(p * double(sorted.size()) - 1e-9));
    return sorted.at(qBound<qsizetype>(1, rank, sorted.size()) - 1);
}

void SlowlogAggregateModel::update(const QList<SlowlogEntry> &added, const QList<SlowlogEntry> &removed)
{
    QSet<QByteArray> touched;
    QList<QByteArray> newNames;
    for (const SlowlogEntry &e : removed) {
        const QByteArray name = e.commandName();
        const auto it = m_groups.find(name);
        if (it == m_groups.end())
            continue;
        // Removed entries are the oldest; their durations are somewhere in the sorted list.
        const auto pos = std::lower_bound(it->durations.begin(), it->durations.end(), e.durationUs);
        if (pos != it->durations.end() && *pos == e.durationUs) {
            it->durations.erase(pos);
            it->totalUs -= e.durationUs;
            touched.insert(name);
        }
    }
    QHash<QByteArray, Group> pending; // groups that do not have a row yet
    for (const SlowlogEntry &e : added) {
        const QByteArray name = e.commandName();
        auto it = m_groups.find(name);
        Group *g = nullptr;
        if (it != m_groups.end()) {
            g = &*it;
        } else {
            if (!pending.contains(name))
                newNames.append(name);
            g = &pending[name];
        }
        g->durations.append(e.durationUs);
        g->totalUs += e.durationUs;
        touched.insert(name);
    }
    auto finish = [](Group &g) {
        std::sort(g.durations.begin(), g.durations.end());
        g.p50 = percentile(g.durations, 0.50);
        g.p99 = percentile(g.durations, 0.99);
    };

    // Names whose entries all left: remove their rows, highest row first.
    QList<int> gone;
    for (const QByteArray &name : std::as_const(touched)) {
        const auto it = m_groups.find(name);
        if (it != m_groups.end() && it->durations.isEmpty())
            gone.append(int(m_order.indexOf(name)));
    }
    std::sort(gone.begin(), gone.end(), std::greater<int>());
    for (int row : std::as_const(gone)) {
        beginRemoveRows({}, row, row);
        m_groups.remove(m_order.takeAt(row));
        endRemoveRows();
    }

    int first = -1, last = -1;
    for (int r = 0; r < m_order.size(); ++r) {
        if (!touched.contains(m_order.at(r)))
            continue;
        finish(m_groups[m_order.at(r)]);
        if (first < 0)
            first = r;
        last = r;
    }
    if (first >= 0)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));

    if (!newNames.isEmpty()) {
        const int at = int(m_order.size());
        beginInsertRows({}, at, at + int(newNames.size()) - 1);
        for (const QByteArray &name : std::as_const(newNames)) {
            Group g = std::move(pending[name]);
            finish(g);
            m_groups.insert(name, g);
            m_order.append(name);
        }
        endInsertRows();
    }
}

void SlowlogAggregateModel::clear()
{
    if (m_order.isEmpty())
        return;
    beginResetModel();
    m_groups.clear();
    m_order.clear();
    endResetModel();
}

qint64 SlowlogAggregateModel::countAt(int row) const
{
    return groupAt(row).durations.size();
}

qint64 SlowlogAggregateModel::totalUsAt(int row) const
{
    return groupAt(row).totalUs;
}

qint64 SlowlogAggregateModel::p50UsAt(int row) const
{
    return groupAt(row).p50;
}

qint64 SlowlogAggregateModel::p99UsAt(int row) const
{
    return groupAt(row).p99;
}

int SlowlogAggregateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int SlowlogAggregateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlowlogAggregateModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Group &g = groupAt(index.row());
    const QByteArray &name = m_order.at(index.row());
    auto number = [&](int column) -> qint64 {
        switch (column) {
        case CountColumn: return g.durations.size();
        case TotalColumn: return g.totalUs;
        case P50Column: return g.p50;
        case P99Column: return g.p99;
        case MaxColumn: return g.durations.isEmpty() ? -1 : g.durations.constLast();
        }
        return 0;
    };
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == CommandColumn)
            return bytesescape::escape(name);
        if (index.column() == CountColumn)
            return format::count(quint64(g.durations.size()));
        return SlowlogModel::durationText(number(index.column()));
    case SortRole:
        if (index.column() == CommandColumn)
            return bytesescape::escape(name);
        return number(index.column());
    case CommandRole: return name;
    case Qt::TextAlignmentRole:
        if (index.column() != CommandColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant SlowlogAggregateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case CommandColumn: return tr("Command");
    case CountColumn: return tr("Count");
    case TotalColumn: return tr("Total");
    case P50Column: return tr("p50");
    case P99Column: return tr("p99");
    case MaxColumn: return tr("Max");
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Poller

SlowlogPoller::SlowlogPoller(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_timer(new QTimer(this))
{
    qRegisterMetaType<SlowlogEntry>();
    qRegisterMetaType<SlowlogConfig>();
    m_timer->setInterval(m_intervalMs);
    connect(m_timer, &QTimer::timeout, this, &SlowlogPoller::tick);
    connect(m_client, &RedisClient::ready, this, [this] {
        if (m_running)
            tick();
    });
}

SlowlogPoller::~SlowlogPoller() = default;

void SlowlogPoller::setIntervalMs(int ms)
{
    m_intervalMs = qMax(50, ms);
    m_timer->setInterval(m_intervalMs);
}

void SlowlogPoller::start()
{
    if (m_running)
        return;
    m_running = true;
    m_timer->start();
    tick();
}

void SlowlogPoller::stop()
{
    if (!m_running)
        return;
    m_running = false;
    m_timer->stop();
    if (m_inFlight)
        m_client->cancel(m_inFlight);
    if (m_sizesInFlight) {
        m_client->cancel(m_sizesInFlight);
        m_sizeQueue = std::exchange(m_sizeBatch, {}) + m_sizeQueue;
    }
    m_inFlight = m_sizesInFlight = 0;
}

void SlowlogPoller::pollNow()
{
    tick();
}

void SlowlogPoller::tick()
{
    // One poll at a time: a slow server is not asked faster than it answers.
    if (m_inFlight || !m_client->isReady())
        return;
    request(m_tracker.requestCount(), 0);
}

void SlowlogPoller::request(int count, int attempt)
{
    const QList<RedisCommand> commands{
        {"SLOWLOG", "GET", QByteArray::number(count)},
        {"SLOWLOG", "LEN"},
        {"CONFIG", "GET", "slowlog-*"},
    };
    m_inFlight = m_client->sendBatch(commands, this,
                                     [this, count, attempt](const RedisReply &r) { onReply(r, count, attempt); });
}

void SlowlogPoller::onReply(const RedisReply &reply, int count, int attempt)
{
    m_inFlight = 0;
    if (!reply.ok()) {
        setError(reply.error);
        ++m_polls;
        Q_EMIT polled();
        return;
    }

    // CONFIG GET may be refused while SLOWLOG is allowed, and the other way round.
    const RedisValue &configReply = reply.value(2);
    m_configError = RedisError::fromReply(configReply);
    const SlowlogConfig config
        = m_configError ? SlowlogConfig() : slowlog::configFrom(slowlog::parseConfigGet(configReply));
    m_config = config;
    Q_EMIT configAvailable(config);

    SlowlogPage page;
    QString parseError;
    const RedisValue &getReply = reply.value(0);
    if (const RedisError e = RedisError::fromReply(getReply)) {
        setError(e);
        ++m_polls;
        Q_EMIT polled();
        return;
    }
    if (!slowlog::parseEntries(getReply, &page.entries, &parseError)) {
        setError(RedisError::make(RedisError::Kind::Protocol, parseError));
        ++m_polls;
        Q_EMIT polled();
        return;
    }
    bool ok = false;
    page.length = reply.value(1).toInteger(&ok);
    if (!ok || !reply.value(1).isInteger())
        page.length = -1;
    page.requested = count;
    page.maxLength = config.known ? config.maxLength : -1;
    page.runId = m_client->facts().runId;

    const SlowlogTracker::Outcome outcome = m_tracker.apply(page);
    // An incomplete page is asked again at once with the count the tracker wants; the limit
    // on attempts only guards against a log that grows faster than it can be read.
    if (!outcome.complete && attempt < 8) {
        request(m_tracker.requestCount(), attempt + 1);
        return;
    }
    setError({});
    if (outcome.reset)
        Q_EMIT resetDetected();
    if (outcome.missed > 0)
        Q_EMIT entriesMissed(outcome.missed);
    if (!outcome.fresh.isEmpty()) {
        for (const SlowlogEntry &e : outcome.fresh) {
            const RedisCommand size = slowlogflags::sizeCommand(e);
            if (size.isEmpty() || m_sizeAsked.contains(size.at(1)) || m_sizeAsked.size() >= kMaxKeySizeLookups)
                continue;
            m_sizeAsked.insert(size.at(1));
            m_sizeQueue.append(size);
        }
        Q_EMIT entriesAvailable(outcome.fresh, outcome.epoch);
    }
    ++m_polls;
    Q_EMIT polled();
    askKeySizes();
}

void SlowlogPoller::askKeySizes()
{
    if (m_sizesInFlight || m_sizeQueue.isEmpty() || !m_running)
        return;
    m_sizeBatch = m_sizeQueue.mid(0, kKeySizesPerBatch);
    m_sizeQueue.remove(0, m_sizeBatch.size());
    m_sizesInFlight = m_client->sendBatch(m_sizeBatch, this, [this](const RedisReply &r) {
        m_sizesInFlight = 0;
        const QList<RedisCommand> batch = std::exchange(m_sizeBatch, {});
        if (!r.ok()) {
            // Lost with the connection: ask again after the next good poll.
            m_sizeQueue = batch + m_sizeQueue;
            return;
        }
        for (qsizetype i = 0; i < batch.size(); ++i) {
            bool ok = false;
            const RedisValue &v = r.value(i);
            const qint64 size = v.isInteger() ? v.toInteger(&ok) : -1;
            // A key of another type now (WRONGTYPE) or a refused command: known to be unknown.
            Q_EMIT keySizeAvailable(batch.at(i).at(1), ok ? size : -1);
        }
        askKeySizes();
    });
}

void SlowlogPoller::setError(const RedisError &error)
{
    const bool changed = error.kind != m_error.kind || error.message != m_error.message;
    m_error = error;
    if (changed)
        Q_EMIT errorChanged(error);
}
