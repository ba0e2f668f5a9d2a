// SPDX-License-Identifier: GPL-3.0-or-later
#include "healthseries.h"

#include "format.h"

#include <QBuffer>
#include <QDateTime>
#include <QIODevice>
#include <QTimeZone>
#include <cmath>
#include <limits>

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Counters that only grow while the server runs; a decrease means they were reset.
const char *const kCounters[] = {
    "total_commands_processed", "total_net_input_bytes", "total_net_output_bytes", "keyspace_hits",
    "keyspace_misses",          "expired_keys",          "evicted_keys",           "total_error_replies",
};

double gauge(const ServerInfo &info, const QByteArray &name)
{
    const double v = info.real(name, kNaN);
    return std::isfinite(v) ? v : kNaN;
}

QString trimmedText(const QByteArray &v)
{
    return QString::fromUtf8(v.trimmed());
}
} // namespace

HealthSeries::HealthSeries(QObject *parent) : QObject(parent)
{ }

QString HealthSeries::columnName(Series s)
{
    switch (s) {
    case Series::UsedMemory: return QStringLiteral("used_memory_bytes");
    case Series::RssMemory: return QStringLiteral("used_memory_rss_bytes");
    case Series::PeakMemory: return QStringLiteral("used_memory_peak_bytes");
    case Series::MaxMemory: return QStringLiteral("maxmemory_bytes");
    case Series::Fragmentation: return QStringLiteral("mem_fragmentation_ratio");
    case Series::OpsPerSec: return QStringLiteral("commands_per_sec");
    case Series::NetInPerSec: return QStringLiteral("net_input_bytes_per_sec");
    case Series::NetOutPerSec: return QStringLiteral("net_output_bytes_per_sec");
    case Series::HitRatio: return QStringLiteral("hit_ratio_percent");
    case Series::ExpiredPerSec: return QStringLiteral("expired_keys_per_sec");
    case Series::EvictedPerSec: return QStringLiteral("evicted_keys_per_sec");
    case Series::ConnectedClients: return QStringLiteral("connected_clients");
    case Series::BlockedClients: return QStringLiteral("blocked_clients");
    case Series::ErrorsPerSec: return QStringLiteral("errors_per_sec");
    }
    return {};
}

QString HealthSeries::title(Series s)
{
    switch (s) {
    case Series::UsedMemory: return tr("used");
    case Series::RssMemory: return tr("RSS");
    case Series::PeakMemory: return tr("peak");
    case Series::MaxMemory: return tr("maxmemory");
    case Series::Fragmentation: return tr("fragmentation");
    case Series::OpsPerSec: return tr("commands/s");
    case Series::NetInPerSec: return tr("net in");
    case Series::NetOutPerSec: return tr("net out");
    case Series::HitRatio: return tr("hit ratio");
    case Series::ExpiredPerSec: return tr("expired/s");
    case Series::EvictedPerSec: return tr("evicted/s");
    case Series::ConnectedClients: return tr("connected");
    case Series::BlockedClients: return tr("blocked");
    case Series::ErrorsPerSec: return tr("errors/s");
    }
    return {};
}

void HealthSeries::clear()
{
    for (TimeSeries &s : m_series)
        s.clear();
    m_previous = {};
    m_latest = {};
    m_lastTime = 0;
    m_firstTime = 0;
    m_samples = 0;
    m_resets = 0;
    m_gapPending = false;
    Q_EMIT factsChanged();
}

void HealthSeries::appendAll(double t, const std::array<double, kSeriesCount> &values)
{
    for (int i = 0; i < kSeriesCount; ++i)
        m_series[size_t(i)].append(t, values[size_t(i)]);
}

bool HealthSeries::addSample(const ServerInfo &info)
{
    const double t = (info.capturedAtMs() > 0 ? info.capturedAtMs() : QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    if (m_samples > 0 && t <= m_lastTime)
        return false;

    std::array<double, kSeriesCount> v;
    v.fill(kNaN);
    auto set = [&v](Series s, double value) { v[size_t(s)] = value; };
    set(Series::UsedMemory, gauge(info, "used_memory"));
    set(Series::RssMemory, gauge(info, "used_memory_rss"));
    set(Series::PeakMemory, gauge(info, "used_memory_peak"));
    const qint64 maxmemory = info.integer("maxmemory", 0);
    set(Series::MaxMemory, maxmemory > 0 ? double(maxmemory) : kNaN);
    const double frag = gauge(info, "mem_fragmentation_ratio");
    set(Series::Fragmentation, frag > 0 ? frag : kNaN);
    set(Series::ConnectedClients, gauge(info, "connected_clients"));
    set(Series::BlockedClients, gauge(info, "blocked_clients"));

    if (m_samples > 0) {
        const ServerInfo &prev = m_previous;
        bool reset = false;
        const QByteArray runBefore = prev.value("run_id");
        const QByteArray runNow = info.value("run_id");
        if (!runBefore.isEmpty() && !runNow.isEmpty() && runBefore != runNow)
            reset = true;
        const qint64 upBefore = prev.integer("uptime_in_seconds");
        const qint64 upNow = info.integer("uptime_in_seconds");
        if (upBefore >= 0 && upNow >= 0 && upNow < upBefore)
            reset = true;
        for (const char *counter : kCounters) {
            const qint64 a = prev.integer(counter);
            const qint64 b = info.integer(counter);
            if (a >= 0 && b >= 0 && b < a)
                reset = true;
        }

        if (reset) {
            ++m_resets;
            // Halfway between the samples: the restart happened somewhere in there. After
            // markGap() the break is already in.
            if (!m_gapPending)
                for (TimeSeries &s : m_series)
                    s.appendBreak((m_lastTime + t) / 2);
        } else if (!m_gapPending) {
            // No rate across an outage (markGap): an average over it has no shape to show.
            // The server's own clock, when both samples carry it, measures the interval
            // between the counters exactly; the arrival time includes network and event-loop
            // jitter that would make a steady load look spiky.
            double dt = t - m_lastTime;
            const qint64 usBefore = prev.integer("server_time_usec");
            const qint64 usNow = info.integer("server_time_usec");
            if (usBefore > 0 && usNow > usBefore)
                dt = double(usNow - usBefore) / 1e6;
            auto delta = [&](const char *name) {
                const qint64 a = prev.integer(name);
                const qint64 b = info.integer(name);
                return a >= 0 && b >= 0 ? double(b - a) : kNaN;
            };
            set(Series::OpsPerSec, delta("total_commands_processed") / dt);
            set(Series::NetInPerSec, delta("total_net_input_bytes") / dt);
            set(Series::NetOutPerSec, delta("total_net_output_bytes") / dt);
            set(Series::ExpiredPerSec, delta("expired_keys") / dt);
            set(Series::EvictedPerSec, delta("evicted_keys") / dt);
            set(Series::ErrorsPerSec, delta("total_error_replies") / dt);
            const double hits = delta("keyspace_hits");
            const double misses = delta("keyspace_misses");
            if (hits + misses > 0)
                set(Series::HitRatio, 100.0 * hits / (hits + misses));
        }
    }

    appendAll(t, v);
    m_gapPending = false;
    m_previous = info;
    m_latest = info;
    m_lastTime = t;
    if (m_samples == 0)
        m_firstTime = t;
    ++m_samples;
    Q_EMIT sampleAdded(t);
    Q_EMIT factsChanged();
    return true;
}

void HealthSeries::markGap(double t)
{
    if (m_samples == 0 || m_gapPending || t <= m_lastTime)
        return;
    m_gapPending = true;
    for (TimeSeries &s : m_series)
        s.appendBreak(t);
}

void HealthSeries::setConfig(const QByteArray &save, const QByteArray &appendonly)
{
    m_configSave = save;
    m_configAof = appendonly;
    m_haveConfig = true;
    m_configUnavailable.clear();
    Q_EMIT factsChanged();
}

void HealthSeries::setConfigUnavailable(const QString &reason)
{
    m_haveConfig = false;
    m_configSave.clear();
    m_configAof.clear();
    m_configUnavailable = reason;
    Q_EMIT factsChanged();
}

QList<HealthSeries::Fact> HealthSeries::facts() const
{
    QList<Fact> out;
    const ServerInfo &i = m_latest;
    if (i.isEmpty())
        return out;

    QString version = i.text("redis_version");
    const QString mode = i.text("redis_mode");
    if (!mode.isEmpty() && mode != QLatin1String("standalone"))
        version += QStringLiteral(" (%1)").arg(mode);
    out.append({tr("Version"), version, {}});

    QString role = i.text("role");
    const int merged = i.mergedNodes();
    if (merged > 0) {
        // A cluster's primaries read as one: how many, and their replicas together.
        role = tr("%n primaries, merged", nullptr, merged);
        const qint64 replicas = i.integer("connected_slaves", 0);
        if (replicas > 0)
            role += tr(", %n replica(s)", nullptr, int(replicas));
    } else if (role == QLatin1String("master")) {
        const qint64 replicas = i.integer("connected_slaves", 0);
        if (replicas > 0)
            role += tr(", %n replica(s)", nullptr, int(replicas));
    } else if (role == QLatin1String("slave")) {
        role = tr("replica of %1:%2, link %3")
                   .arg(i.text("master_host"), i.text("master_port"), i.text("master_link_status"));
    }
    out.append({tr("Role"), role, {}});

    const qint64 uptime = i.integer("uptime_in_seconds");
    QString up = uptime >= 0 ? format::duration(uptime * 1000) : tr("unknown");
    if (merged > 0 && uptime >= 0)
        up = tr("%1 (the youngest node)").arg(up);
    out.append({tr("Uptime"), up, {}});

    const qint64 maxmemory = i.integer("maxmemory", 0);
    QString policy = i.has("maxmemory_policy") ? i.text("maxmemory_policy") : tr("unknown");
    policy += maxmemory > 0 ? tr(", limit %1").arg(format::bytes(maxmemory)) : tr(", no memory limit");
    out.append({tr("maxmemory-policy"), policy, {}});

    QStringList persistence;
    if (m_haveConfig) {
        persistence << (m_configSave.trimmed().isEmpty() ? tr("save: off")
                                                         : tr("save: %1").arg(QString::fromUtf8(m_configSave)));
        persistence << tr("appendonly: %1").arg(trimmedText(m_configAof));
    } else {
        persistence
            << tr("save: unknown (%1)").arg(m_configUnavailable.isEmpty() ? tr("not read yet") : m_configUnavailable);
        if (i.has("aof_enabled"))
            persistence << tr("appendonly: %1").arg(i.integer("aof_enabled", 0) > 0 ? tr("yes") : tr("no"));
    }
    // RDB details matter only when snapshots may be taken. rdb_last_save_time is the start
    // time on a server that never saved, so it is shown only after a save (rdb_saves, 7.0+).
    const bool rdbOff = m_haveConfig && m_configSave.trimmed().isEmpty();
    const qint64 lastSave = i.integer("rdb_last_save_time", 0);
    const qint64 saves = i.integer("rdb_saves");
    if (!rdbOff && lastSave > 0 && saves != 0) {
        const qint64 agoMs = QDateTime::currentMSecsSinceEpoch() - lastSave * 1000;
        QString rdb = tr("last RDB save %1 ago").arg(format::duration(agoMs));
        const QString status = i.text("rdb_last_bgsave_status");
        if (!status.isEmpty() && status != QLatin1String("ok"))
            rdb += tr(" (%1)").arg(status);
        persistence << rdb;
    } else if (!rdbOff && saves == 0) {
        persistence << tr("no RDB save since start");
    }
    const qint64 changes = i.integer("rdb_changes_since_last_save");
    if (!rdbOff && changes > 0)
        persistence << tr("%1 changes not saved").arg(format::count(quint64(changes)));
    out.append({tr("Persistence"), persistence.join(QStringLiteral(" · ")), {}});

    const QList<KeyspaceDb> dbs = i.keyspace();
    QStringList lines;
    for (const KeyspaceDb &db : dbs)
        lines << tr("db%1: %2 keys, %3 expires")
                     .arg(db.db)
                     .arg(format::count(quint64(db.keys)), format::count(quint64(db.expires)));
    Fact keyspace{tr("Keyspace"), {}, lines.join(QLatin1Char('\n'))};
    if (lines.isEmpty())
        keyspace.value = i.hasSection("Keyspace") ? tr("empty") : tr("unknown");
    else if (lines.size() <= 3)
        keyspace.value = lines.join(QStringLiteral(" · "));
    else
        keyspace.value = tr("%1 · … (%2 databases)")
                             .arg(lines.mid(0, 2).join(QStringLiteral(" · ")), QString::number(lines.size()));
    out.append(keyspace);
    return out;
}

void HealthSeries::writeCsv(QIODevice *device) const
{
    QByteArray header = "time_utc,epoch_seconds";
    for (int s = 0; s < kSeriesCount; ++s)
        header += ',' + columnName(Series(s)).toUtf8();
    device->write(header + '\n');

    std::array<QList<TimeSeries::Point>, kSeriesCount> pts;
    std::array<qsizetype, kSeriesCount> at{};
    for (int s = 0; s < kSeriesCount; ++s)
        pts[size_t(s)] = m_series[size_t(s)].points();

    // Every series gets a point at every sample time, so merging by time gives one row per
    // sample; breaks and buckets that differ between series simply get rows of their own.
    QByteArray row;
    for (;;) {
        double t = std::numeric_limits<double>::infinity();
        for (int s = 0; s < kSeriesCount; ++s)
            if (at[size_t(s)] < pts[size_t(s)].size())
                t = std::min(t, pts[size_t(s)].at(at[size_t(s)]).t);
        if (!std::isfinite(t))
            break;
        const auto ms = qint64(std::llround(t * 1000));
        row = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc())
                  .toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'Z'"))
                  .toUtf8();
        row += ',' + QByteArray::number(t, 'f', 3);
        for (int s = 0; s < kSeriesCount; ++s) {
            row += ',';
            qsizetype &k = at[size_t(s)];
            if (k < pts[size_t(s)].size() && pts[size_t(s)].at(k).t == t) {
                const double value = pts[size_t(s)].at(k).v;
                if (!std::isnan(value))
                    row += QByteArray::number(value, 'g', 12);
                ++k;
            }
        }
        row += '\n';
        device->write(row);
    }
}

QByteArray HealthSeries::toCsv() const
{
    QByteArray out;
    QBuffer buffer(&out);
    buffer.open(QIODevice::WriteOnly);
    writeCsv(&buffer);
    return out;
}
