// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobpage.h"

#include "bytesescape.h"
#include "decoders.h"
#include "format.h"
#include "masking.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimeZone>

#include <cctype>
#include <zlib.h>

namespace {

QString text(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'f', v.toDouble() == std::floor(v.toDouble()) ? 0 : 3);
    return {};
}

// A time field: a number (s or ms) or a string (a number, ISO 8601, Resque's form).
qint64 timeOf(const QJsonValue &v)
{
    const QString t = text(v);
    return t.isEmpty() ? 0 : jobpages::epochMs(t.toUtf8());
}

qint64 firstTime(const QJsonObject &o, std::initializer_list<const char *> fields)
{
    for (const char *f : fields) {
        if (const qint64 ms = timeOf(o.value(QLatin1String(f))); ms > 0)
            return ms;
    }
    return -1;
}

int intOf(const QJsonValue &v)
{
    if (v.isDouble())
        return int(v.toDouble());
    bool ok = false;
    const int n = v.toString().toInt(&ok);
    return ok ? n : -1;
}

QString firstText(const QJsonObject &o, std::initializer_list<const char *> fields)
{
    for (const char *f : fields) {
        const QString t = text(o.value(QLatin1String(f)));
        if (!t.isEmpty())
            return t;
    }
    return {};
}

} // namespace

int JobPage::pageCount() const
{
    if (total <= 0)
        return 1;
    return int((total + jobpages::kPageSize - 1) / jobpages::kPageSize);
}

namespace jobpages {

QStringList browsableRoles(const JobQueueSpec &spec)
{
    QStringList roles;
    for (const QString &role : jobqueues::stateRoles()) {
        for (const JobQueueKey &k : spec.keys) {
            if (k.role == role && k.type != KeyType::String && k.type != KeyType::Stream && !roles.contains(role))
                roles.append(role);
        }
    }
    return roles;
}

bool keepsJobHashes(const QString &library)
{
    return library == QLatin1String("BullMQ") || library == QLatin1String("Bull") || library == QLatin1String("RQ");
}

QByteArray jobHashKey(const JobQueueSpec &queue, const QByteArray &id)
{
    if (queue.library == QLatin1String("RQ"))
        return "rq:job:" + id;
    if (queue.library == QLatin1String("BullMQ") || queue.library == QLatin1String("Bull"))
        return queue.prefix + ':' + id;
    return {};
}

bool takesFromRight(const QString &library)
{
    return library == QLatin1String("BullMQ") || library == QLatin1String("Bull") || library == QLatin1String("Sidekiq")
        || library == QLatin1String("Celery");
}

bool newestFirst(const QString &role)
{
    static const QStringList ended
        = {QStringLiteral("completed"), QStringLiteral("failed"),   QStringLiteral("dead"),
           QStringLiteral("finished"),  QStringLiteral("canceled"), QStringLiteral("succeeded")};
    return ended.contains(role);
}

qint64 epochMs(const QByteArray &raw)
{
    const QByteArray t = raw.trimmed();
    bool ok = false;
    const double d = t.toDouble(&ok);
    if (ok) {
        if (d > 1e11 && d < 1e14)
            return qint64(d);
        if (d > 1e8 && d < 1e11)
            return qint64(d * 1000);
        return 0;
    }
    QByteArray iso = t;
    if (iso.size() >= 19 && iso.at(4) == '/' && iso.at(7) == '/') { // Resque: "2026/12/02 10:00:00 UTC"
        iso[4] = '-';
        iso[7] = '-';
        iso[10] = 'T';
        if (iso.endsWith(" UTC"))
            iso.chop(4);
    }
    // Qt reads at most milliseconds: cut longer fractions to three digits.
    const qsizetype dot = iso.indexOf('.');
    if (dot > 0) {
        qsizetype end = dot + 1;
        while (end < iso.size() && std::isdigit(static_cast<unsigned char>(iso.at(end))))
            ++end;
        iso = iso.left(qMin(end, dot + 4)) + iso.mid(end);
    }
    QDateTime when = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
    if (!when.isValid())
        return 0;
    if (!iso.endsWith('Z') && !iso.contains('+') && iso.lastIndexOf('-') < 10)
        when.setTimeZone(QTimeZone::utc()); // RQ and Resque write UTC without a zone
    return when.toMSecsSinceEpoch();
}

QString reasonLine(const QString &error)
{
    const QStringList lines = error.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty())
        return {};
    // A Python traceback ends with the exception; other texts start with it.
    if (lines.first().startsWith(QLatin1String("Traceback (most recent call last)")))
        return lines.last().trimmed();
    return lines.first().trimmed();
}

QByteArray inflate(const QByteArray &data, qsizetype limit)
{
    if (data.size() < 2)
        return {};
    z_stream z{};
    if (inflateInit(&z) != Z_OK)
        return {};
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    z.avail_in = uInt(data.size());
    QByteArray out;
    char buffer[16384];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef *>(buffer);
        z.avail_out = sizeof buffer;
        rc = ::inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END)
            break;
        out.append(buffer, qsizetype(sizeof buffer - z.avail_out));
        if (out.size() > limit) {
            rc = Z_DATA_ERROR;
            break;
        }
    }
    inflateEnd(&z);
    return rc == Z_STREAM_END ? out : QByteArray();
}

namespace {

// A job's field or payload its library encoded (RQ: zlib of a pickle; others MessagePack,
// base64…), decoded as the value viewer decodes it and masked after decoding:
// {"$decoded": "zlib → pickle", "value": …}. Null when it is not recognised.
QJsonValue decodedJob(const QByteArray &value)
{
    const std::optional<masking::DecodedInline> d = masking::decodeInline(value);
    if (!d)
        return QJsonValue::Undefined;
    return QJsonObject{{QStringLiteral("$decoded"), d->result.chainText()},
                       {QStringLiteral("value"), decode::toJson(d->masked)}};
}

} // namespace

QJsonObject objectFromFields(const QList<QPair<QByteArray, QByteArray>> &fields)
{
    QJsonObject o;
    for (const auto &[field, value] : fields) {
        const QString name = QString::fromUtf8(field);
        const QJsonDocument doc = QJsonDocument::fromJson(value);
        if (doc.isObject())
            o.insert(name, doc.object());
        else if (doc.isArray())
            o.insert(name, doc.array());
        else if (const QJsonValue decoded = decodedJob(value); !decoded.isUndefined())
            o.insert(name, decoded);
        else if (bytesescape::isValidUtf8(value))
            o.insert(name, QString::fromUtf8(value));
        else
            o.insert(name, QStringLiteral("<binary: %1 bytes>").arg(value.size()));
    }
    return o;
}

JobEntry entryFrom(const QJsonObject &o)
{
    JobEntry e;
    e.body = o;
    const QJsonObject headers = o.value(QLatin1String("headers")).toObject(); // Celery's message
    const QJsonObject payload = o.value(QLatin1String("payload")).toObject(); // Resque's failure
    e.id = firstText(o, {"jid", "id", "uuid"}).toUtf8();
    if (e.id.isEmpty())
        e.id = text(headers.value(QLatin1String("id"))).toUtf8();
    e.name = firstText(o, {"class", "displayName", "name", "description", "task"});
    if (e.name.isEmpty())
        e.name = firstText(headers, {"task"});
    if (e.name.isEmpty())
        e.name = firstText(payload, {"class"});
    // Sidekiq's wrapper (ActiveJob) names the job class it wraps.
    if (const QString wrapped = text(o.value(QLatin1String("wrapped"))); !wrapped.isEmpty())
        e.name = wrapped;
    e.createdMs = firstTime(o, {"created_at", "enqueued_at", "timestamp", "pushedAt"});
    e.finishedMs = firstTime(o, {"finishedOn", "ended_at", "failed_at"});
    // BullMQ and Bull: a delayed job is due at its creation plus its delay.
    if (const double delay = o.value(QLatin1String("delay")).toVariant().toDouble(); delay > 0 && e.createdMs > 0)
        e.dueMs = e.createdMs + qint64(delay);
    if (e.dueMs < 0)
        e.dueMs = firstTime(headers, {"eta"});
    if (e.dueMs < 0)
        e.dueMs = firstTime(o, {"at"}); // Sidekiq: a scheduled job's time
    if (o.contains(QLatin1String("atm")))
        e.attempts = intOf(o.value(QLatin1String("atm")));
    else if (o.contains(QLatin1String("attemptsMade")))
        e.attempts = intOf(o.value(QLatin1String("attemptsMade")));
    else if (o.contains(QLatin1String("retry_count"))) // Sidekiq counts the retries after the first run
        e.attempts = intOf(o.value(QLatin1String("retry_count"))) + 1;
    else if (o.contains(QLatin1String("attempts")) && o.contains(QLatin1String("displayName"))) // Laravel
        e.attempts = intOf(o.value(QLatin1String("attempts")));
    else if (headers.contains(QLatin1String("retries"))) // Celery: the retries before this message
        e.attempts = intOf(headers.value(QLatin1String("retries")));
    // Why it failed: BullMQ and Bull's failedReason, Sidekiq's error class and message, RQ's
    // traceback, Resque's exception and error.
    if (const QString failed = text(o.value(QLatin1String("failedReason"))); !failed.isEmpty()) {
        e.reason = failed;
        const QJsonArray stack = o.value(QLatin1String("stacktrace")).toArray();
        e.error = stack.isEmpty() ? failed : stack.last().toString();
    } else if (const QString message = text(o.value(QLatin1String("error_message"))); !message.isEmpty()) {
        const QString cls = text(o.value(QLatin1String("error_class")));
        e.reason = cls.isEmpty() ? message : QStringLiteral("%1: %2").arg(cls, message);
        const QJsonArray backtrace = o.value(QLatin1String("error_backtrace")).toArray();
        e.error = e.reason;
        for (const QJsonValue line : backtrace)
            e.error += QLatin1Char('\n') + line.toString();
    } else if (const QString exc = text(o.value(QLatin1String("exc_info"))); !exc.isEmpty()) {
        e.error = exc;
        e.reason = reasonLine(exc);
    } else if (const QString exception = text(o.value(QLatin1String("exception"))); !exception.isEmpty()) {
        const QString error = text(o.value(QLatin1String("error")));
        e.reason = error.isEmpty() ? exception : QStringLiteral("%1: %2").arg(exception, error);
        e.error = e.reason;
        for (const QJsonValue line : o.value(QLatin1String("backtrace")).toArray())
            e.error += QLatin1Char('\n') + line.toString();
    }
    return e;
}

JobEntry entryFromPayload(const QByteArray &payload)
{
    const QJsonDocument doc = QJsonDocument::fromJson(payload);
    if (doc.isObject())
        return entryFrom(doc.object());
    JobEntry e;
    const bool readable = bytesescape::isValidUtf8(payload);
    if (const QJsonValue decoded = decodedJob(payload); !decoded.isUndefined())
        e.body.insert(QStringLiteral("payload"), decoded);
    else
        e.body.insert(QStringLiteral("payload"),
                      readable ? QString::fromUtf8(payload) : QStringLiteral("<binary: %1 bytes>").arg(payload.size()));
    e.id = payload.left(64);
    return e;
}

QJsonObject toJson(const JobEntry &job)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), bytesescape::escape(job.id));
    if (!job.name.isEmpty())
        o.insert(QStringLiteral("name"), job.name);
    const auto time = [&o](const char *field, qint64 ms) {
        if (ms > 0)
            o.insert(QLatin1String(field), double(ms));
    };
    time("created_ms", job.createdMs);
    time("due_ms", job.dueMs);
    time("finished_ms", job.finishedMs);
    if (job.attempts >= 0)
        o.insert(QStringLiteral("attempts"), job.attempts);
    if (!job.reason.isEmpty())
        o.insert(QStringLiteral("reason"), job.reason);
    if (job.missing)
        o.insert(QStringLiteral("missing"), true);
    return o;
}

} // namespace jobpages

namespace {

using Column = RowTableModel<JobEntry>::Column;

QVariant timeCell(qint64 ms, qint64 now, int role)
{
    if (role == RowTableRoles::SortRole)
        return ms;
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (ms <= 0)
        return role == Qt::DisplayRole ? QVariant(QStringLiteral("—")) : QVariant();
    if (role == Qt::ToolTipRole)
        return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toString(Qt::ISODateWithMs);
    if (role != Qt::DisplayRole)
        return {};
    const qint64 d = ms - now;
    return d >= 0 ? QObject::tr("in %1").arg(format::duration(d)) : QObject::tr("%1 ago").arg(format::duration(-d));
}

} // namespace

JobPageModel::JobPageModel(QObject *parent)
    : RowTableModel<JobEntry>(
        {
            {tr("Job"),
             [](const JobEntry &j, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return j.missing ? tr("%1 (hash gone)").arg(bytesescape::escape(j.id)) : bytesescape::escape(j.id);
                 return {};
             }},
            {tr("Name"),
             [](const JobEntry &j, int role) -> QVariant {
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? QVariant(j.name) : QVariant();
             }},
            {tr("Created"), [this](const JobEntry &j, int role) { return timeCell(j.createdMs, now(), role); }},
            {tr("Due"), [this](const JobEntry &j, int role) { return timeCell(j.dueMs, now(), role); }},
            {tr("Ended"), [this](const JobEntry &j, int role) { return timeCell(j.finishedMs, now(), role); }},
            {tr("Attempts"),
             [](const JobEntry &j, int role) -> QVariant {
                 switch (role) {
                 case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
                 case RowTableRoles::SortRole: return j.attempts;
                 case Qt::DisplayRole: return j.attempts < 0 ? QString() : QString::number(j.attempts);
                 }
                 return {};
             }},
            {tr("Reason"),
             [](const JobEntry &j, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return j.reason;
                 if (role == Qt::ToolTipRole)
                     return j.error.isEmpty() ? QVariant() : QVariant(j.error.left(4000));
                 return {};
             }},
        },
        {[](const JobEntry &j) { return j.id; },
         [this](const JobEntry &j) {
             if (!j.reason.isEmpty()
                 && (m_page.role == QLatin1String("failed") || m_page.role == QLatin1String("dead")))
                 return Severity::Bad;
             if (!j.reason.isEmpty() || (j.dueMs > 0 && j.dueMs < now()))
                 return Severity::Warning;
             return Severity::None;
         },
         {}},
        parent)
{ }

void JobPageModel::setPage(const JobPage &page)
{
    m_page = page;
    setRows(page.jobs);
}
