// SPDX-License-Identifier: GPL-3.0-or-later
#include "queues.h"

#include "bytesescape.h"
#include "format.h"
#include "geo.h"
#include "redisclient.h"
#include "redisvalue.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <cmath>
#include <utility>

namespace {

qint64 nowMsDefault(qint64 nowMs)
{
    return nowMs > 0 ? nowMs : QDateTime::currentMSecsSinceEpoch();
}

QList<QByteArray> segmentsOf(const QByteArray &key)
{
    QList<QByteArray> out;
    QByteArray current;
    for (char c : key) {
        if (c == ':' || c == '.' || c == '/') {
            out.append(current);
            current.clear();
        } else {
            current.append(c);
        }
    }
    out.append(current);
    return out;
}

// The first segment of 'key' that is one of 'hints' (case-insensitive), or -1.
int segmentIndex(const QList<QByteArray> &segments, const QList<QByteArray> &hints)
{
    for (int i = 0; i < segments.size(); ++i) {
        const QByteArray lower = segments.at(i).toLower();
        if (hints.contains(lower))
            return i;
    }
    return -1;
}

// The key up to (not including) segment 'index', separators kept as they were.
QByteArray prefixBefore(const QByteArray &key, int index)
{
    int seen = 0;
    for (int i = 0; i < key.size(); ++i) {
        const char c = key.at(i);
        if (c == ':' || c == '.' || c == '/') {
            if (++seen == index)
                return key.left(i);
        }
    }
    return {};
}

QByteArray processingParent(const QByteArray &key)
{
    const QList<QByteArray> segments = segmentsOf(key);
    const int at = segmentIndex(segments, QueueRules::processingSegments());
    if (at > 0)
        return prefixBefore(key, at);
    const qsizetype cut = key.lastIndexOf(':');
    return cut > 0 ? key.left(cut) : QByteArray();
}

QString unitName(EpochUnit unit)
{
    return unit == EpochUnit::Seconds ? QStringLiteral("seconds") : QStringLiteral("milliseconds");
}

QString peek(const QByteArray &item)
{
    if (item.size() > QueuesLoader::kPeekBytes)
        return bytesescape::escape(item.left(QueuesLoader::kPeekBytes)) + QStringLiteral("…");
    return bytesescape::escape(item);
}

QString ageText(qint64 ms)
{
    return ms < 0 ? QStringLiteral("—") : format::duration(ms);
}

qint64 dueMsOf(double score, EpochUnit unit)
{
    return unit == EpochUnit::Seconds ? qint64(score * 1000) : qint64(score);
}

} // namespace

QString queueKindName(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return QStringLiteral("queue");
    case QueueKind::ProcessingList: return QStringLiteral("processing list");
    case QueueKind::DelayedJobs: return QStringLiteral("delayed jobs");
    case QueueKind::NotAQueue: break;
    }
    return QStringLiteral("not a queue");
}

QByteArray queueKindId(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return "queue";
    case QueueKind::ProcessingList: return "processing";
    case QueueKind::DelayedJobs: return "delayed";
    case QueueKind::NotAQueue: break;
    }
    return "none";
}

std::optional<QueueKind> queueKindFromId(const QByteArray &id)
{
    for (QueueKind k : {QueueKind::Queue, QueueKind::ProcessingList, QueueKind::DelayedJobs, QueueKind::NotAQueue}) {
        if (queueKindId(k) == id)
            return k;
    }
    return std::nullopt;
}

std::optional<QueueKind> queueKindOf(PatternKind kind)
{
    switch (kind) {
    case PatternKind::ListQueue: return QueueKind::Queue;
    case PatternKind::ProcessingList: return QueueKind::ProcessingList;
    case PatternKind::DelayedJobs: return QueueKind::DelayedJobs;
    case PatternKind::Unknown: return QueueKind::NotAQueue;
    default: return std::nullopt;
    }
}

PatternKind patternKindOf(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Queue: return PatternKind::ListQueue;
    case QueueKind::ProcessingList: return PatternKind::ProcessingList;
    case QueueKind::DelayedJobs: return PatternKind::DelayedJobs;
    case QueueKind::NotAQueue: break;
    }
    return PatternKind::Unknown;
}

EpochUnit detectEpochUnit(const QList<double> &scores, qint64 nowMs)
{
    if (classifyZSetSample(scores, {}, nowMs) != ZSetKind::TimeScheduled)
        return EpochUnit::None;
    // Seconds scaled to milliseconds stay in the window; milliseconds scaled up leave it.
    QList<double> scaled;
    scaled.reserve(scores.size());
    for (double s : scores)
        scaled.append(s * 1000);
    return classifyZSetSample(scaled, {}, nowMs) == ZSetKind::TimeScheduled ? EpochUnit::Seconds
                                                                            : EpochUnit::Milliseconds;
}

std::optional<qint64> itemTimestampMs(const QByteArray &item, qint64 nowMs, QString *source)
{
    nowMs = nowMsDefault(nowMs);
    const auto asEpoch = [nowMs](double v, QString *unit) -> std::optional<qint64> {
        const EpochUnit u = detectEpochUnit({v}, nowMs);
        if (u == EpochUnit::None)
            return std::nullopt;
        *unit = u == EpochUnit::Seconds ? QStringLiteral("s") : QStringLiteral("ms");
        return dueMsOf(v, u);
    };
    QString unit;
    const QByteArray trimmed = item.trimmed();
    if (trimmed.startsWith('{')) {
        const QJsonObject o = QJsonDocument::fromJson(trimmed).object();
        for (const char *field : {"enqueued_at", "created_at", "queued_at", "ts", "timestamp", "time"}) {
            const QJsonValue v = o.value(QLatin1String(field));
            double d = qQNaN();
            if (v.isDouble())
                d = v.toDouble();
            else if (v.isString())
                d = v.toString().toDouble();
            if (std::isnan(d))
                continue;
            if (const auto ms = asEpoch(d, &unit)) {
                if (source)
                    *source = QLatin1String(field) + QStringLiteral(" (") + unit + QLatin1Char(')');
                return ms;
            }
        }
        return std::nullopt;
    }
    qsizetype digits = 0;
    while (digits < trimmed.size()
           && (std::isdigit(static_cast<unsigned char>(trimmed.at(digits))) || trimmed.at(digits) == '.'))
        ++digits;
    if (digits >= 9) {
        bool ok = false;
        const double d = trimmed.left(digits).toDouble(&ok);
        if (ok) {
            if (const auto ms = asEpoch(d, &unit)) {
                if (source)
                    *source = QStringLiteral("leading number (") + unit + QLatin1Char(')');
                return ms;
            }
        }
    }
    return std::nullopt;
}

// ---- rules ----

const QList<QByteArray> &QueueRules::queueSegments()
{
    static const QList<QByteArray> s{"q", "queue", "queues", "jobs", "tasks", "inbox", "outbox", "mail", "email"};
    return s;
}

const QList<QByteArray> &QueueRules::processingSegments()
{
    static const QList<QByteArray> s{"processing", "proc", "inflight", "working"};
    return s;
}

const QList<QByteArray> &QueueRules::delayedSegments()
{
    static const QList<QByteArray> s{"sched", "scheduled", "schedule", "delayed", "due", "retry", "retries"};
    return s;
}

QStringList QueueRules::builtInDescriptions()
{
    const auto join = [](const QList<QByteArray> &l) { return QString::fromLatin1(l.join(", ")); };
    return {QStringLiteral("list with a name segment %1 → processing list of the name before it")
                .arg(join(processingSegments())),
            QStringLiteral("list with a name segment %1 → queue").arg(join(queueSegments())),
            QStringLiteral("sorted set whose sampled scores are epoch seconds or milliseconds (±10 years) and whose "
                           "name has a segment %1, or whose highest score is in the future → delayed jobs")
                .arg(join(delayedSegments())),
            QStringLiteral("anything else → not a queue")};
}

QueueClassification QueueRules::classify(const QByteArray &key, KeyType type, const QList<double> *scores,
                                         qint64 nowMs) const
{
    nowMs = nowMsDefault(nowMs);
    QueueClassification c;
    const EpochUnit unit = scores ? detectEpochUnit(*scores, nowMs) : EpochUnit::None;
    if (const PatternRule *r = m_rules.match(key, type)) {
        const std::optional<QueueKind> kind = queueKindOf(r->kind);
        c.kind = kind.value_or(QueueKind::NotAQueue);
        const QString verdict = kind
            ? queueKindName(*kind)
            : QStringLiteral("not a queue: a rule says it is a %1").arg(patternKindName(r->kind));
        c.reason = QStringLiteral("rule %1: glob '%2' %3 → %4")
                       .arg(QString::number(m_rules.indexOf(r) + 1), bytesescape::escape(r->glob),
                            patternRuleTypeId(r->type), verdict);
        if (!r->note.isEmpty())
            c.reason += QStringLiteral(" (") + r->note + QLatin1Char(')');
        if (c.kind == QueueKind::ProcessingList)
            c.queue = processingParent(key);
        if (c.kind == QueueKind::DelayedJobs) {
            // A forced set whose scores are not epoch times: guess the unit from the magnitude.
            double high = 0;
            if (scores) {
                for (double s : *scores)
                    high = qMax(high, std::abs(s));
            }
            c.unit = unit != EpochUnit::None ? unit : (high >= 1e11 ? EpochUnit::Milliseconds : EpochUnit::Seconds);
        }
        return c;
    }

    const QList<QByteArray> segments = segmentsOf(key);
    if (type == KeyType::List) {
        const int proc = segmentIndex(segments, processingSegments());
        if (proc > 0) {
            c.kind = QueueKind::ProcessingList;
            c.queue = prefixBefore(key, proc);
            c.reason = QStringLiteral("list named with segment '%1' (built-in rule): processing list of %2")
                           .arg(QString::fromLatin1(segments.at(proc)), bytesescape::quoteIfNeeded(c.queue));
            return c;
        }
        const int q = segmentIndex(segments, queueSegments());
        if (q >= 0) {
            c.kind = QueueKind::Queue;
            c.reason = QStringLiteral("list named with segment '%1' (built-in rule)")
                           .arg(QString::fromLatin1(segments.at(q)));
            return c;
        }
        c.reason = QStringLiteral("list without a queue name segment (built-in rule)");
        return c;
    }
    if (type == KeyType::ZSet) {
        if (!scores) {
            c.reason = QStringLiteral("sorted set not sampled");
            return c;
        }
        if (unit == EpochUnit::None) {
            c.reason = QStringLiteral("scores are not epoch times (%1 sampled)").arg(scores->size());
            return c;
        }
        const QString what
            = QStringLiteral("scores are epoch %1 (%2 of %2 sampled)").arg(unitName(unit)).arg(scores->size());
        const int hint = segmentIndex(segments, delayedSegments());
        double highest = -qInf();
        for (double s : *scores)
            highest = qMax(highest, s);
        const bool future = dueMsOf(highest, unit) > nowMs;
        c.unit = unit;
        // The scores decide that these are times; the name (or a due time still ahead) decides
        // they are due times, not a log of past events such as a sliding-window rate limit.
        if (hint >= 0) {
            c.kind = QueueKind::DelayedJobs;
            c.reason = what + QStringLiteral(", name segment '%1'").arg(QString::fromLatin1(segments.at(hint)));
        } else if (future) {
            c.kind = QueueKind::DelayedJobs;
            c.reason = what + QStringLiteral(", some due in the future");
        } else {
            c.reason = what + QStringLiteral(", all in the past and no scheduling name: a time log");
        }
        return c;
    }
    c.reason = QStringLiteral("%1: only lists and sorted sets are queues here").arg(keyTypeName(type));
    return c;
}

// ---- infos ----

qint64 QueueInfo::oldestProcessingAgeMs() const
{
    qint64 oldest = -1;
    for (const ProcessingListInfo &p : processing)
        oldest = qMax(oldest, p.oldestAgeMs);
    return oldest;
}

bool QueueInfo::stale() const
{
    for (const ProcessingListInfo &p : processing) {
        if (p.stale)
            return true;
    }
    return false;
}

qint64 QueueInfo::processingItems() const
{
    qint64 n = 0;
    for (const ProcessingListInfo &p : processing)
        n += p.length;
    return n;
}

QStringList DelayedInfo::bucketLabels()
{
    return {QStringLiteral("overdue"), QStringLiteral("≤1m"),  QStringLiteral("≤5m"),  QStringLiteral("≤15m"),
            QStringLiteral("≤1h"),     QStringLiteral("≤24h"), QStringLiteral("later")};
}

// ---- models ----

QVariant QueuesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const QueueInfo &q = rows().at(index.row());
    if (role == KeyRole)
        return q.key;
    if (role == Qt::ToolTipRole)
        return QString(QStringLiteral("classified as queue because ") + q.reason);
    if (role == Qt::TextAlignmentRole && index.column() >= LengthColumn && index.column() <= OldestColumn
        && index.column() != HeadColumn && index.column() != TailColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case KeyColumn: return bytesescape::quoteIfNeeded(q.key);
    case LengthColumn: return sort ? QVariant(q.length) : QVariant(format::count(quint64(q.length)));
    case GrowthColumn:
        if (sort)
            return std::isnan(q.growthPerMin) ? 0.0 : q.growthPerMin;
        return std::isnan(q.growthPerMin) ? QStringLiteral("—")
                                          : QStringLiteral("%1%2/min")
                                                .arg(q.growthPerMin > 0 ? QStringLiteral("+") : QString())
                                                .arg(q.growthPerMin, 0, 'f', 1);
    case HeadColumn: return peek(q.head);
    case TailColumn: return peek(q.tail);
    case ProcessingColumn:
        if (sort)
            return q.processingItems();
        return q.processing.isEmpty()
            ? QStringLiteral("—")
            : QStringLiteral("%1 (%2 items)").arg(q.processing.size()).arg(q.processingItems());
    case OldestColumn: return sort ? QVariant(q.oldestProcessingAgeMs()) : QVariant(ageText(q.oldestProcessingAgeMs()));
    case StaleColumn: return q.stale() ? QStringLiteral("stale") : QString();
    case ReasonColumn: return q.reason;
    }
    return {};
}

QVariant QueuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Queue");
    case LengthColumn: return tr("Length");
    case GrowthColumn: return tr("Growth");
    case HeadColumn: return tr("Head (newest)");
    case TailColumn: return tr("Tail (oldest)");
    case ProcessingColumn: return tr("Processing");
    case OldestColumn: return tr("Oldest in processing");
    case StaleColumn: return tr("Stale");
    case ReasonColumn: return tr("Classified because");
    }
    return {};
}

QVariant DelayedModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const DelayedInfo &d = rows().at(index.row());
    if (role == KeyRole)
        return d.key;
    if (role == Qt::ToolTipRole)
        return QString(QStringLiteral("classified as delayed jobs because ") + d.reason);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case KeyColumn: return bytesescape::quoteIfNeeded(d.key);
    case TotalColumn: return sort ? QVariant(d.total) : QVariant(format::count(quint64(d.total)));
    case OverdueColumn: return sort ? QVariant(d.overdue) : QVariant(format::count(quint64(d.overdue)));
    case OldestColumn: return sort ? QVariant(d.oldestOverdueAgeMs) : QVariant(ageText(d.oldestOverdueAgeMs));
    case NextColumn:
        if (d.next.isEmpty())
            return sort ? QVariant(qint64(0)) : QVariant(QStringLiteral("—"));
        return sort
            ? QVariant(d.next.first().dueMs)
            : QVariant(
                QDateTime::fromMSecsSinceEpoch(d.next.first().dueMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    case ReasonColumn: return d.reason;
    }
    return {};
}

QVariant DelayedModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Sorted set");
    case TotalColumn: return tr("Jobs");
    case OverdueColumn: return tr("Due now");
    case OldestColumn: return tr("Oldest overdue");
    case NextColumn: return tr("Next due");
    case ReasonColumn: return tr("Classified because");
    }
    return {};
}

void DueItemsModel::setItems(const QList<DueItem> &items, qint64 nowMs)
{
    beginResetModel();
    m_items = items;
    m_now = nowMs;
    endResetModel();
}

int DueItemsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

int DueItemsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DueItemsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const DueItem &it = m_items.at(index.row());
    if (role == MemberRole)
        return it.member;
    if (role == Qt::ToolTipRole && index.column() == MemberColumn)
        return bytesescape::escapeElided(it.member, 2000);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case DueColumn: return QDateTime::fromMSecsSinceEpoch(it.dueMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case InColumn:
        return it.dueMs >= m_now ? QString(QStringLiteral("in ") + format::duration(it.dueMs - m_now))
                                 : QString(format::duration(m_now - it.dueMs) + QStringLiteral(" ago"));
    case MemberColumn: return peek(it.member);
    }
    return {};
}

QVariant DueItemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case DueColumn: return tr("Due");
    case InColumn: return tr("When");
    case MemberColumn: return tr("Job");
    }
    return {};
}

// ---- loader ----

QueuesLoader::QueuesLoader(RedisClient *client, QObject *parent)
    : QObject(parent),
      m_client(client),
      m_queues(new QueuesModel(this)),
      m_delayed(new DelayedModel(this)),
      m_pace(new QTimer(this)),
      m_poll(new QTimer(this))
{
    m_pace->setSingleShot(true);
    m_pace->setInterval(30); // paced sampling: a round of kZSetsPerRound keys, then a pause
    connect(m_pace, &QTimer::timeout, this, &QueuesLoader::sampleRound);
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &QueuesLoader::refresh);
}

void QueuesLoader::setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets)
{
    delete m_context;
    m_context = new QObject(this);
    m_lists = lists.mid(0, kMaxLists);
    m_zsets = zsets.mid(0, kMaxZSets);
    m_samples.clear();
    m_toSample = m_zsets;
    m_classified = false;
    m_refreshing = false;
    m_refreshAgain = false;
    m_pace->stop();
    if (m_toSample.isEmpty())
        finishClassification();
    else
        sampleRound();
}

QList<double> QueuesLoader::parseScores(const RedisValue &v) const
{
    QList<double> out;
    if (!v.isArray())
        return out;
    // RESP2: member, score, member, score…; RESP3: [member, score] pairs.
    if (!v.elements().isEmpty() && v.at(0).isArray()) {
        for (const RedisValue &pair : v.elements())
            out.append(pair.at(1).toDouble());
    } else {
        for (qsizetype i = 1; i < v.size(); i += 2)
            out.append(v.at(i).toDouble());
    }
    return out;
}

void QueuesLoader::sampleRound()
{
    const QList<QByteArray> round = m_toSample.mid(0, kZSetsPerRound);
    m_toSample = m_toSample.mid(round.size());
    QList<RedisCommand> commands;
    for (const QByteArray &key : round) {
        commands.append({"ZRANGE", key, "0", "2", "WITHSCORES"});
        commands.append({"ZRANGE", key, "-1", "-1", "WITHSCORES"});
    }
    m_client->sendBatch(commands, m_context, [this, round](const RedisReply &r) {
        if (!r.ok()) {
            Q_EMIT failed(r.error.message);
            return;
        }
        for (qsizetype i = 0; i < round.size(); ++i) {
            const RedisValue &low = r.value(2 * i);
            if (low.isError())
                continue; // a key that changed type: left unclassified
            QList<double> scores = parseScores(low);
            const QList<double> high = parseScores(r.value(2 * i + 1));
            if (!high.isEmpty() && scores.size() >= 3)
                scores.append(high.first()); // the highest, unless the set has at most three
            if (!scores.isEmpty())
                m_samples.insert(round.at(i), scores);
        }
        if (m_toSample.isEmpty())
            finishClassification();
        else
            m_pace->start();
    });
}

void QueuesLoader::reclassify()
{
    if (m_context && m_toSample.isEmpty())
        finishClassification();
}

void QueuesLoader::finishClassification()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_classes.clear();
    for (const QByteArray &key : m_lists)
        m_classes.insert(key, m_rules.classify(key, KeyType::List, nullptr, now));
    for (const QByteArray &key : m_zsets) {
        const auto it = m_samples.constFind(key);
        if (it == m_samples.constEnd())
            continue; // empty or gone
        m_classes.insert(key, m_rules.classify(key, KeyType::ZSet, &it.value(), now));
    }
    m_classified = true;
    Q_EMIT classified();
    refresh();
}

QList<QByteArray> QueuesLoader::keysOfKind(QueueKind kind) const
{
    QList<QByteArray> out;
    for (auto it = m_classes.constBegin(); it != m_classes.constEnd(); ++it) {
        if (it.value().kind == kind)
            out.append(it.key());
    }
    std::sort(out.begin(), out.end());
    return out;
}

RedisCommand QueuesLoader::nextDueCommand(const QByteArray &key, const QByteArray &now, const QVersionNumber &version)
{
    if (version.isNull() || version >= QVersionNumber(6, 2))
        return {"ZRANGE", key, '(' + now, "+inf", "BYSCORE", "LIMIT", "0", "10", "WITHSCORES"};
    return {"ZRANGEBYSCORE", key, '(' + now, "+inf", "WITHSCORES", "LIMIT", "0", "10"};
}

void QueuesLoader::setPolling(bool on)
{
    if (on) {
        m_poll->start();
        if (m_classified)
            refresh();
    } else {
        m_poll->stop();
    }
}

void QueuesLoader::refresh()
{
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    if (!m_classified || !m_context)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();

    // Queues and their processing lists; a processing list whose queue is empty (and so gone)
    // still gets a row under its queue's name.
    QList<QueueInfo> queues;
    QHash<QByteArray, int> queueRow;
    for (const QByteArray &key : keysOfKind(QueueKind::Queue)) {
        queueRow.insert(key, int(queues.size()));
        QueueInfo q;
        q.key = key;
        q.reason = m_classes.value(key).reason;
        queues.append(q);
    }
    for (const QByteArray &key : keysOfKind(QueueKind::ProcessingList)) {
        const QueueClassification &c = m_classes[key];
        if (!queueRow.contains(c.queue)) {
            queueRow.insert(c.queue, int(queues.size()));
            QueueInfo q;
            q.key = c.queue;
            q.reason = QStringLiteral("has the processing list %1").arg(bytesescape::quoteIfNeeded(key));
            queues.append(q);
        }
        ProcessingListInfo p;
        p.key = key;
        queues[queueRow.value(c.queue)].processing.append(p);
    }
    QList<DelayedInfo> delayed;
    for (const QByteArray &key : keysOfKind(QueueKind::DelayedJobs)) {
        DelayedInfo d;
        d.key = key;
        d.reason = m_classes.value(key).reason;
        d.unit = m_classes.value(key).unit;
        d.readAtMs = now;
        delayed.append(d);
    }

    QList<RedisCommand> commands;
    for (const QueueInfo &q : queues) {
        commands.append({"LLEN", q.key});
        commands.append({"LINDEX", q.key, "0"});
        commands.append({"LINDEX", q.key, "-1"});
        // Workers move items with LMOVE queue proc RIGHT LEFT (or RPOPLPUSH), so a processing
        // list fills at its head and the item taken longest ago sits at its tail.
        for (const ProcessingListInfo &p : q.processing) {
            commands.append({"LLEN", p.key});
            commands.append({"LINDEX", p.key, "-1"});
        }
    }
    const QVersionNumber version = m_versionOverride.isNull() ? m_client->facts().version : m_versionOverride;
    static const qint64 kEdgesMs[] = {0, 60000, 5 * 60000, 15 * 60000, 60 * 60000, 24 * 60 * 60000};
    for (const DelayedInfo &d : delayed) {
        const auto at = [&d, now](qint64 offsetMs) {
            return d.unit == EpochUnit::Seconds ? QByteArray::number((now + offsetMs) / 1000)
                                                : QByteArray::number(now + offsetMs);
        };
        const QByteArray nowArg = at(0);
        commands.append({"ZCARD", d.key});
        commands.append(nextDueCommand(d.key, nowArg, version));
        commands.append({"ZRANGE", d.key, "0", "0", "WITHSCORES"});
        // Due-time buckets: (-inf, now], (now, now+1m], …, (now+24h, +inf): they add up to ZCARD.
        commands.append({"ZCOUNT", d.key, "-inf", nowArg});
        for (size_t i = 0; i + 1 < std::size(kEdgesMs); ++i)
            commands.append({"ZCOUNT", d.key, '(' + at(kEdgesMs[i]), at(kEdgesMs[i + 1])});
        commands.append({"ZCOUNT", d.key, '(' + at(kEdgesMs[std::size(kEdgesMs) - 1]), "+inf"});
    }
    if (commands.isEmpty()) {
        m_queues->setRows({});
        m_delayed->setRows({});
        Q_EMIT refreshed();
        return;
    }
    m_refreshing = true;
    m_client->sendBatch(commands, m_context, [this, queues, delayed, now](const RedisReply &r) mutable {
        m_refreshing = false;
        if (!r.ok()) {
            m_refreshAgain = false;
            Q_EMIT failed(r.error.message);
            return;
        }
        qsizetype i = 0;
        for (QueueInfo &q : queues) {
            q.length = r.value(i++).toInteger();
            q.head = r.value(i++).bytes();
            q.tail = r.value(i++).bytes();
            QList<QPair<qint64, qint64>> &samples = m_lengthSamples[q.key];
            samples.append({now, q.length});
            while (samples.size() > 13) // about a minute at one sample per kRefreshMs
                samples.removeFirst();
            const qint64 span = samples.last().first - samples.first().first;
            if (samples.size() >= 2 && span > 0)
                q.growthPerMin = double(samples.last().second - samples.first().second) * 60000.0 / double(span);
            for (ProcessingListInfo &p : q.processing) {
                p.length = r.value(i++).toInteger();
                p.tail = r.value(i++).bytes();
                if (const auto ts = itemTimestampMs(p.tail, now, &p.ageSource)) {
                    p.oldestAgeMs = qMax<qint64>(0, now - *ts);
                    p.stale = p.oldestAgeMs > m_staleMs;
                }
            }
        }
        for (DelayedInfo &d : delayed) {
            d.total = r.value(i++).toInteger();
            const RedisValue &next = r.value(i++);
            const RedisValue &first = r.value(i++);
            const auto pairs = [](const RedisValue &v) {
                QList<QPair<QByteArray, double>> out;
                if (!v.elements().isEmpty() && v.at(0).isArray()) {
                    for (const RedisValue &p : v.elements())
                        out.append({p.at(0).bytes(), p.at(1).toDouble()});
                } else {
                    for (qsizetype k = 0; k + 1 < v.size(); k += 2)
                        out.append({v.at(k).bytes(), v.at(k + 1).toDouble()});
                }
                return out;
            };
            for (const auto &p : pairs(next))
                d.next.append({p.first, p.second, dueMsOf(p.second, d.unit)});
            d.histogram.clear();
            for (int b = 0; b < DelayedInfo::kBuckets; ++b)
                d.histogram.append(r.value(i++).toInteger());
            d.overdue = d.histogram.value(0);
            const auto lowest = pairs(first);
            if (d.overdue > 0 && !lowest.isEmpty())
                d.oldestOverdueAgeMs = qMax<qint64>(0, now - dueMsOf(lowest.first().second, d.unit));
        }
        m_queues->setRows(queues);
        m_delayed->setRows(delayed);
        Q_EMIT refreshed();
        if (std::exchange(m_refreshAgain, false))
            refresh();
    });
}
