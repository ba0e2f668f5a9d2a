// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobqueues.h"

#include "bytesescape.h"
#include "clientlist.h"
#include "format.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>

QByteArray JobQueueSpec::id() const
{
    // Readable where it shows (the key column of `show queues`), unique per queue.
    return library.toUtf8() + ':' + (prefix.isEmpty() ? name : prefix);
}

QByteArray JobQueueSpec::keyOf(const QString &role) const
{
    for (const JobQueueKey &k : keys) {
        if (k.role == role)
            return k.key;
    }
    return {};
}

namespace jobqueues {

const QStringList &stateRoles()
{
    static const QStringList roles{
        QStringLiteral("waiting"),  QStringLiteral("prioritized"),
        QStringLiteral("paused"),   QStringLiteral("active"),
        QStringLiteral("delayed"),  QStringLiteral("scheduled"),
        QStringLiteral("deferred"), QStringLiteral("waiting-children"),
        QStringLiteral("failed"),   QStringLiteral("retry"),
        QStringLiteral("dead"),     QStringLiteral("completed"),
        QStringLiteral("canceled"), QStringLiteral("unacked"),
        QStringLiteral("stalled"),
    };
    return roles;
}

namespace {

// Roles that are neither a state nor a job's: a queue's registry of workers, its queue list.
bool isQueueRole(const QString &role)
{
    static const QStringList others{QStringLiteral("workers"), QStringLiteral("queues"),  QStringLiteral("meta"),
                                    QStringLiteral("stat"),    QStringLiteral("metrics"), QStringLiteral("binding")};
    return stateRoles().contains(role) || others.contains(role);
}

QString text(const PatternMatch &m, const char *name)
{
    return m.params.value(QLatin1String(name)).toString();
}

} // namespace

bool isQueueKey(const PatternMatch &match)
{
    return match.kind == PatternKind::JobQueue && isQueueRole(text(match, "role"));
}

QList<JobQueueSpec> group(const QList<PatternMatch> &matches)
{
    QHash<QByteArray, qsizetype> byId;
    QList<JobQueueSpec> out;
    for (const PatternMatch &m : matches) {
        if (!isQueueKey(m))
            continue;
        JobQueueSpec spec;
        spec.library = text(m, "library");
        spec.name = text(m, "queue").toUtf8();
        spec.prefix = text(m, "prefix").toUtf8();
        // Celery's unacked hash and Sidekiq's retry set belong to every queue of the library;
        // RQ's per-queue registries name their queue.
        const QByteArray id = spec.id();
        auto it = byId.constFind(id);
        if (it == byId.cend()) {
            it = byId.insert(id, out.size());
            out.append(spec);
        }
        out[it.value()].keys.append({m.key, m.type, text(m, "role")});
    }
    for (JobQueueSpec &q : out)
        std::sort(q.keys.begin(), q.keys.end(),
                  [](const JobQueueKey &a, const JobQueueKey &b) { return a.key < b.key; });
    std::sort(out.begin(), out.end(), [](const JobQueueSpec &a, const JobQueueSpec &b) {
        if (a.library != b.library)
            return a.library < b.library;
        if (a.name != b.name)
            return a.name < b.name;
        return a.prefix < b.prefix;
    });
    return out;
}

} // namespace jobqueues

jobqueues::ConnectionWorkers jobqueues::connectionWorkers(const QByteArray &clientList)
{
    ConnectionWorkers out;
    // A BullMQ worker names its connection bull:ZW1haWw=:w:mailer (the queue's name in base64).
    for (const ClientEntry &c : parseClientList(clientList)) {
        if (c.name.isEmpty())
            continue;
        const qsizetype named = c.name.indexOf(":w:");
        QueueWorker w;
        w.name = named >= 0 ? QString::fromUtf8(c.name.mid(named + 3)) : QString::fromUtf8(c.addr);
        w.lastSeenMs = c.idle < 0 ? -1 : c.idle * 1000;
        w.alive = true; // connected: its connection is the worker
        out[named >= 0 ? c.name.left(named) : c.name].append(w);
    }
    return out;
}

QList<QueueWorker> jobqueues::workersOf(const ConnectionWorkers &workers, const JobQueueSpec &queue)
{
    if (queue.name.isEmpty() || !queue.prefix.endsWith(QByteArray(':' + queue.name)))
        return {};
    return workers.value(queue.prefix.left(queue.prefix.size() - queue.name.size()) + queue.name.toBase64());
}

QJsonObject jobqueues::toJson(const JobQueueInfo &q)
{
    QJsonObject states, growth;
    for (auto it = q.states.cbegin(); it != q.states.cend(); ++it)
        states.insert(it.key(), it.value());
    for (auto it = q.growthPerMin.cbegin(); it != q.growthPerMin.cend(); ++it)
        growth.insert(it.key(), it.value());
    QJsonArray active, stalled, workers, keys;
    for (const ActiveJob &a : q.active) {
        QJsonObject o{
            {QStringLiteral("id"), bytesescape::escape(a.id)},
            {QStringLiteral("running_ms"), a.runningMs < 0 ? QJsonValue() : QJsonValue(a.runningMs)},
            {QStringLiteral("lock_ttl_ms"), a.lockTtlMs == ttl::kUnknown ? QJsonValue() : QJsonValue(a.lockTtlMs)},
            {QStringLiteral("stalled"), a.stalled}};
        if (!a.worker.isEmpty())
            o.insert(QStringLiteral("worker"), a.worker);
        if (a.longRunning)
            o.insert(QStringLiteral("long_running"), true);
        if (!a.why.isEmpty())
            o.insert(QStringLiteral("why"), a.why);
        active.append(o);
    }
    for (const QByteArray &id : q.stalled)
        stalled.append(bytesescape::escape(id));
    for (const QueueWorker &w : q.workers) {
        QJsonArray holds;
        for (const QByteArray &id : w.holds)
            holds.append(bytesescape::escape(id));
        workers.append(
            QJsonObject{{QStringLiteral("name"), w.name},
                        {QStringLiteral("last_seen_ms"), w.lastSeenMs < 0 ? QJsonValue() : QJsonValue(w.lastSeenMs)},
                        {QStringLiteral("alive"), w.alive},
                        {QStringLiteral("holds"), holds}});
    }
    for (const JobQueueKey &k : q.spec.keys)
        keys.append(QJsonObject{{QStringLiteral("key"), bytesescape::escape(k.key)},
                                {QStringLiteral("type"), keyTypeName(k.type)},
                                {QStringLiteral("role"), k.role}});
    QJsonObject o{
        {QStringLiteral("name"), q.spec.isLibraryWide() ? QJsonValue() : QJsonValue(bytesescape::escape(q.spec.name))},
        {QStringLiteral("library"), q.spec.library},
        {QStringLiteral("version"), q.version.isEmpty() ? QJsonValue() : QJsonValue(q.version)},
        {QStringLiteral("prefix"),
         q.spec.prefix.isEmpty() ? QJsonValue() : QJsonValue(bytesescape::escape(q.spec.prefix))},
        {QStringLiteral("states"), states},
        {QStringLiteral("growth_per_min"), growth},
        {QStringLiteral("oldest_waiting_ms"), q.oldestWaitingMs < 0 ? QJsonValue() : QJsonValue(q.oldestWaitingMs)},
        {QStringLiteral("active"), active},
        {QStringLiteral("stalled"), stalled},
        {QStringLiteral("workers"), workers},
        {QStringLiteral("keys"), keys},
        {QStringLiteral("problems"), q.problems()}};
    if (!q.estimated.isEmpty())
        o.insert(QStringLiteral("estimated"), QJsonArray::fromStringList(q.estimated));
    if (q.processedToday >= 0)
        o.insert(QStringLiteral("processed_today"), q.processedToday);
    QJsonObject metrics;
    const auto metric = [&metrics](const char *name, const JobQueueInfo::Metrics &m) {
        if (m.total >= 0)
            metrics.insert(QLatin1String(name) + QLatin1String("_total"), m.total);
        if (m.lastHour >= 0)
            metrics.insert(QLatin1String(name) + QLatin1String("_last_hour"), m.lastHour);
    };
    metric("completed", q.completed);
    metric("failed", q.failed);
    if (!metrics.isEmpty())
        o.insert(QStringLiteral("metrics"), metrics);
    if (!q.error.isEmpty())
        o.insert(QStringLiteral("error"), q.error);
    return o;
}

int JobQueueInfo::deadWorkers() const
{
    return int(std::count_if(workers.cbegin(), workers.cend(), [](const QueueWorker &w) { return !w.alive; }));
}

qint64 JobQueueInfo::heldByDeadWorkers() const
{
    qint64 n = 0;
    for (const QueueWorker &w : workers) {
        if (!w.alive)
            n += w.holds.size();
    }
    return n;
}

Severity JobQueueInfo::severity() const
{
    if (!stalled.isEmpty() || heldByDeadWorkers() > 0)
        return Severity::Bad;
    if (state(QStringLiteral("failed")) > 0 || state(QStringLiteral("dead")) > 0 || deadWorkers() > 0
        || longRunning() > 0 || !error.isEmpty())
        return Severity::Warning;
    return Severity::None;
}

int JobQueueInfo::longRunning() const
{
    int n = 0;
    for (const ActiveJob &a : active)
        n += a.longRunning ? 1 : 0;
    return n;
}

QString JobQueueInfo::problems() const
{
    QStringList parts;
    if (!error.isEmpty())
        parts.append(error);
    if (!stalled.isEmpty())
        parts.append(QStringLiteral("%1 stalled (active without a live lock or worker)").arg(stalled.size()));
    const int dead = deadWorkers();
    if (dead > 0) {
        const qint64 held = heldByDeadWorkers();
        parts.append(held > 0 ? QStringLiteral("%1 worker(s) stopped, holding %2 job(s)").arg(dead).arg(held)
                              : QStringLiteral("%1 worker(s) stopped").arg(dead));
    }
    if (const int n = longRunning(); n > 0)
        parts.append(QStringLiteral("%1 running far past their lock's duration").arg(n));
    if (state(QStringLiteral("failed")) > 0)
        parts.append(QStringLiteral("%1 failed").arg(state(QStringLiteral("failed"))));
    if (state(QStringLiteral("dead")) > 0)
        parts.append(QStringLiteral("%1 dead").arg(state(QStringLiteral("dead"))));
    return parts.join(QStringLiteral("; "));
}

namespace {

using Column = RowTableModel<JobQueueInfo>::Column;

QVariant rightAligned()
{
    return int(Qt::AlignRight | Qt::AlignVCenter);
}

// A count column that sums one or more roles; "—" where the queue has none of them.
Column countColumn(const QString &title, QStringList roles)
{
    return {title, [roles = std::move(roles)](const JobQueueInfo &q, int role) -> QVariant {
                qint64 sum = 0;
                bool any = false;
                double growth = 0;
                for (const QString &r : roles) {
                    if (q.states.contains(r)) {
                        sum += q.states.value(r);
                        growth += q.growthPerMin.value(r, 0);
                        any = true;
                    }
                }
                switch (role) {
                case Qt::TextAlignmentRole: return rightAligned();
                case RowTableRoles::SortRole: return any ? sum : -1;
                case Qt::ToolTipRole:
                    return any && growth != 0 ? QStringLiteral("%1%2 per minute since the last read")
                                                    .arg(growth > 0 ? QStringLiteral("+") : QString())
                                                    .arg(growth, 0, 'f', 1)
                                              : QVariant();
                case Qt::DisplayRole:
                    if (!any)
                        return QStringLiteral("—");
                    return growth != 0
                        ? QStringLiteral("%1 (%2%3/min)")
                              .arg(format::count(quint64(sum)), growth > 0 ? QStringLiteral("+") : QString())
                              .arg(growth, 0, 'f', 0)
                        : format::count(quint64(sum));
                }
                return {};
            }};
}

QString queueTitle(const JobQueueInfo &q)
{
    if (q.spec.isLibraryWide())
        return QStringLiteral("(all queues)");
    return bytesescape::quoteIfNeeded(q.spec.name);
}

} // namespace

JobQueuesModel::JobQueuesModel(QObject *parent)
    : RowTableModel<JobQueueInfo>(
        {
            {tr("Queue"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 if (role == Qt::ToolTipRole)
                     return q.spec.prefix.isEmpty()
                         ? QVariant()
                         : QStringLiteral("keys under %1").arg(bytesescape::quoteIfNeeded(q.spec.prefix));
                 return role == Qt::DisplayRole ? QVariant(queueTitle(q)) : QVariant();
             }},
            {tr("Library"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 if (role != Qt::DisplayRole)
                     return {};
                 if (q.spec.library == QLatin1String("unknown"))
                     return tr("unknown (by structure)");
                 return q.version.isEmpty() ? q.spec.library : QStringLiteral("%1 (%2)").arg(q.spec.library, q.version);
             }},
            countColumn(tr("Waiting"), {QStringLiteral("waiting"), QStringLiteral("prioritized")}),
            countColumn(tr("Paused"), {QStringLiteral("paused")}),
            countColumn(tr("Active"), {QStringLiteral("active")}),
            countColumn(tr("Delayed"),
                        {QStringLiteral("delayed"), QStringLiteral("scheduled"), QStringLiteral("deferred")}),
            countColumn(tr("Failed"), {QStringLiteral("failed")}),
            countColumn(tr("Retry"), {QStringLiteral("retry")}),
            countColumn(tr("Dead"), {QStringLiteral("dead")}),
            countColumn(tr("Unacked"), {QStringLiteral("unacked")}),
            countColumn(tr("Completed"), {QStringLiteral("completed")}),
            {tr("Oldest waiting"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return q.oldestWaitingMs;
                 case Qt::DisplayRole:
                     return q.oldestWaitingMs < 0 ? QStringLiteral("—") : format::duration(q.oldestWaitingMs);
                 }
                 return {};
             }},
            {tr("Stalled"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return q.stalled.size();
                 case Qt::ToolTipRole: {
                     QStringList ids;
                     for (const QByteArray &id : q.stalled.mid(0, 20))
                         ids.append(bytesescape::quoteIfNeeded(id));
                     return ids.isEmpty() ? QVariant() : QVariant(ids.join(QStringLiteral(", ")));
                 }
                 case Qt::DisplayRole: return q.stalled.isEmpty() ? QString() : QString::number(q.stalled.size());
                 }
                 return {};
             }},
            {tr("Workers"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole: return q.workers.size();
                 case Qt::DisplayRole:
                     if (q.workers.isEmpty())
                         return QStringLiteral("—");
                     return q.deadWorkers() > 0
                         ? QStringLiteral("%1 (%2 stopped)").arg(q.workers.size()).arg(q.deadWorkers())
                         : QString::number(q.workers.size());
                 }
                 return {};
             }},
            {tr("Throughput"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return rightAligned();
                 case RowTableRoles::SortRole:
                     return q.completed.lastHour >= 0 ? q.completed.lastHour : q.processedToday;
                 case Qt::ToolTipRole:
                     if (q.completed.lastHour >= 0)
                         return QStringLiteral("%1 completed and %2 failed in the last hour; %3 and %4 since the "
                                               "metrics began (BullMQ metrics)")
                             .arg(q.completed.lastHour)
                             .arg(qMax<qint64>(0, q.failed.lastHour))
                             .arg(q.completed.total)
                             .arg(qMax<qint64>(0, q.failed.total));
                     return q.processedToday >= 0
                         ? QVariant(
                             QStringLiteral("%1 processed today, UTC (Sidekiq stat:processed)").arg(q.processedToday))
                         : QVariant();
                 case Qt::DisplayRole:
                     if (q.completed.lastHour >= 0)
                         return QStringLiteral("%1/h").arg(format::count(quint64(q.completed.lastHour)));
                     if (q.processedToday >= 0)
                         return QStringLiteral("%1 today").arg(format::count(quint64(q.processedToday)));
                     return QStringLiteral("—");
                 }
                 return {};
             }},
            {tr("Problems"),
             [](const JobQueueInfo &q, int role) -> QVariant {
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? QVariant(q.problems()) : QVariant();
             }},
        },
        {[](const JobQueueInfo &q) { return q.spec.id(); }, [](const JobQueueInfo &q) { return q.severity(); },
         [](const JobQueueInfo &q) {
             const QByteArray waiting = q.spec.keyOf(QStringLiteral("waiting"));
             for (const JobQueueKey &k : q.spec.keys) {
                 if (k.key == waiting)
                     return k.type;
             }
             return KeyType::Unknown;
         }},
        parent)
{ }

Severity ActiveJobsModel::severityOf(const ActiveJob &job)
{
    if (job.stalled)
        return Severity::Bad;
    return job.longRunning ? Severity::Warning : Severity::None;
}

ActiveJobsModel::ActiveJobsModel(QObject *parent)
    : RowTableModel<ActiveJob>(
        {
            {tr("Active job"),
             [](const ActiveJob &a, int role) -> QVariant {
                 return role == Qt::DisplayRole ? QVariant(bytesescape::quoteIfNeeded(a.id)) : QVariant();
             }},
            {tr("Running for"),
             [](const ActiveJob &a, int role) -> QVariant {
                 switch (role) {
                 case RowTableRoles::SortRole: return a.runningMs;
                 case Qt::DisplayRole: return a.runningMs < 0 ? tr("—") : format::duration(a.runningMs);
                 }
                 return {};
             }},
            {tr("Lock / worker"),
             [](const ActiveJob &a, int role) -> QVariant {
                 switch (role) {
                 case RowTableRoles::SortRole: return a.lockTtlMs >= 0 ? a.lockTtlMs : qint64(-1);
                 case Qt::DisplayRole:
                     if (a.lockTtlMs >= 0)
                         return tr("lock %1 left").arg(format::duration(a.lockTtlMs));
                     if (a.lockTtlMs == -2)
                         return tr("no lock");
                     return a.worker;
                 }
                 return {};
             }},
            {tr("State"),
             [](const ActiveJob &a, int role) -> QVariant {
                 switch (role) {
                 case RowTableRoles::SortRole: return int(severityOf(a));
                 case Qt::DisplayRole:
                     if (a.stalled)
                         return tr("stalled: %1").arg(a.why);
                     return a.longRunning ? tr("long running: %1").arg(a.why) : tr("running");
                 }
                 return {};
             }},
        },
        {[](const ActiveJob &a) { return a.id; }, &ActiveJobsModel::severityOf, nullptr}, parent)
{ }
