// SPDX-License-Identifier: GPL-3.0-or-later
#include "loadprobe.h"

#include "redisclient.h"
#include "serverinfo.h"

#include <QTimer>

namespace {
constexpr int kPingMs = 50;
constexpr int kSampleMs = 250;
constexpr int kProbeTimeoutMs = 1000;
// Without a probe the scan keeps the fixed ceiling RedisLens used before it paced itself.
constexpr int kFallbackCeiling = 50000;
constexpr int kConnectGraceMs = 3000;
constexpr qint64 kUnknownId = -2; // no slow log id read (yet, or not allowed)
constexpr int kSlowlogWindow = 16; // newest entries read a tick
} // namespace

LoadProbe::LoadProbe(const ConnectionProfile &profile, const RedisWorker *scanWorker, QObject *parent)
    : QObject(parent), m_scanWorker(scanWorker), m_pingTimer(new QTimer(this)), m_sampleTimer(new QTimer(this))
{
    // What our connections call themselves ("redislens", "redislens-scan"): their slow log
    // entries are not others'.
    m_ours = profile.clientName.section(QLatin1Char('-'), 0, 0).toUtf8();
    ConnectionProfile probe = profile;
    probe.clientName = profile.clientName + QStringLiteral("-probe");
    m_client = new RedisClient(probe, this);
    m_pingTimer->setInterval(kPingMs);
    m_sampleTimer->setInterval(kSampleMs);
    connect(m_pingTimer, &QTimer::timeout, this, &LoadProbe::ping);
    connect(m_sampleTimer, &QTimer::timeout, this, &LoadProbe::sample);
    connect(m_client, &RedisClient::ready, this, [this] {
        if (m_gaveUp)
            return;
        m_tickClock.start();
        ping();
        sample();
        m_pingTimer->start();
        m_sampleTimer->start();
    });
    connect(m_client, &RedisClient::stateChanged, this, [this](RedisClient::State state, const QString &detail) {
        if (state == RedisClient::State::Backoff && m_pingTimer->isActive()) {
            m_pingTimer->stop();
            m_sampleTimer->stop();
            // The next connection starts its counts afresh: its first tick only records them.
            m_pings.clear();
            m_ticks = 0;
            m_lastServerCommands = -1;
            m_lastCpu = -1;
            m_lastSlowlogId = kUnknownId;
            m_sampling = false;
            m_pingClock.invalidate();
            fallBack(QStringLiteral("the load probe lost its connection (%1)").arg(detail));
        }
    });
}

LoadProbe::~LoadProbe() = default;

void LoadProbe::start()
{
    m_client->connectToServer();
    // A server that refuses another connection (maxclients, say) leaves the scan a fixed
    // ceiling rather than none.
    QTimer::singleShot(kConnectGraceMs, this, [this] {
        if (!m_client->isReady() && !m_pacer.hasBaseline())
            fallBack(QStringLiteral("no connection for the load probe (%1)").arg(m_client->stateDetail()));
    });
}

void LoadProbe::fallBack(const QString &why)
{
    m_gaveUp = !m_pacer.hasBaseline();
    // Given up before it measured anything: no slot is held on a server that may be full.
    if (m_gaveUp)
        m_client->disconnectFromServer();
    const int ceiling
        = m_pacer.hasBaseline() && m_pacer.ceiling() > 0 ? qMin(m_pacer.ceiling(), kFallbackCeiling) : kFallbackCeiling;
    Q_EMIT paceChanged(ceiling, QStringLiteral("%1: fixed ceiling of %2/s").arg(why).arg(ceiling));
}

void LoadProbe::ping()
{
    if (m_pingClock.isValid())
        return; // one PING out at a time; a late one is counted when the tick ends
    m_pingClock.start();
    m_client->send(
        {"PING"}, this,
        [this](const RedisReply &r) {
            m_pingClock.invalidate();
            if (r.ok())
                m_pings.append(double(r.elapsedUs) / 1000.0);
        },
        kProbeTimeoutMs);
}

void LoadProbe::sample()
{
    if (m_sampling)
        return;
    // A PING still unanswered has taken at least this long.
    if (m_pingClock.isValid() && m_pingClock.elapsed() > kPingMs)
        m_pings.append(double(m_pingClock.nsecsElapsed()) / 1e6);
    m_sampling = true;
    QList<RedisCommand> cmds{{"INFO", "stats"}, {"INFO", "cpu"}};
    // The newest entry's id, not SLOWLOG LEN: a full log (128 entries by default, as on most
    // long-running servers) keeps its length while entries come in.
    if (!m_slowlogDenied)
        cmds.append(RedisCommand{"SLOWLOG", "GET", QByteArray::number(kSlowlogWindow)});
    m_client->sendBatch(
        cmds, this,
        [this](const RedisReply &r) {
            m_sampling = false;
            if (!r.ok())
                return;
            const RedisValue &stats = r.value(0);
            const RedisValue &cpu = r.value(1);
            QByteArray info;
            if (stats.isString())
                info += stats.bytes() + '\n';
            if (cpu.isString())
                info += cpu.bytes();
            if (r.values.size() > 2 && !r.value(2).isArray())
                m_slowlogDenied = true; // NOPERM: the other signals still count
            onInfo(info, r.values.size() > 2 ? r.value(2) : RedisValue());
        },
        kProbeTimeoutMs);
}

// Entries newer than 'afterId' that other clients' commands made (ours name themselves
// "redislens…"), of the newest kSlowlogWindow; *newest gets the newest id (-1: an empty log).
static qint64 othersSlowEntries(const RedisValue &log, qint64 afterId, const QByteArray &ours, qint64 *newest)
{
    *newest = log.size() == 0 ? -1 : kUnknownId;
    qint64 count = 0;
    for (const RedisValue &e : log.elements()) {
        if (!e.isArray() || e.size() < 1 || !e.at(0).isInteger())
            continue;
        const qint64 id = e.at(0).toInteger();
        *newest = qMax(*newest, id);
        const bool mine = e.size() >= 6 && e.at(5).isString() && e.at(5).bytes().startsWith(ours);
        if (id > afterId && !mine)
            ++count;
    }
    return count;
}

void LoadProbe::onInfo(const QByteArray &text, const RedisValue &slowlog)
{
    qint64 slowlogNewestId = kUnknownId;
    const qint64 othersSlow
        = slowlog.isArray() ? othersSlowEntries(slowlog, m_lastSlowlogId, m_ours, &slowlogNewestId) : -1;
    const ServerInfo info = ServerInfo::parse(text);
    const qint64 serverCommands = info.integer("total_commands_processed", -1);
    const double cpuUser = info.real("used_cpu_user", -1);
    const double cpuSys = info.real("used_cpu_sys", -1);
    const double cpu = cpuUser >= 0 && cpuSys >= 0 ? cpuUser + cpuSys : -1;
    const quint64 own = m_scanWorker->commandsWritten() + m_client->worker()->commandsWritten();
    const double seconds = double(m_tickClock.nsecsElapsed()) / 1e9;
    m_tickClock.restart();

    LoadSample s;
    s.seconds = seconds;
    s.pingMs = m_pings;
    m_pings.clear();
    if (m_lastServerCommands >= 0 && serverCommands >= 0 && seconds > 0) {
        const double others = double(serverCommands - m_lastServerCommands) - double(own - m_lastOwnCommands);
        s.othersPerSecond = qMax(0.0, others / seconds);
    }
    const quint64 scanWritten = m_scanWorker->commandsWritten();
    s.ownPerSecond = seconds > 0 ? double(scanWritten - m_lastOwnScan) / seconds : 0;
    if (m_lastCpu >= 0 && cpu >= 0 && seconds > 0)
        s.serverCpu = (cpu - m_lastCpu) / seconds;
    s.slowlogGrowth = m_lastSlowlogId != kUnknownId && slowlogNewestId != kUnknownId ? othersSlow : -1;
    const bool first = m_ticks++ == 0;
    m_lastServerCommands = serverCommands;
    m_lastOwnCommands = own;
    m_lastOwnScan = scanWritten;
    m_lastCpu = cpu;
    m_lastSlowlogId = slowlogNewestId;
    if (first) {
        m_baselinePings = s.pingMs;
        return;
    }
    if (!m_pacer.hasBaseline()) {
        m_pacer.setBaseline(m_baselinePings + s.pingMs, s.othersPerSecond, qMax<qint64>(0, s.slowlogGrowth));
        Q_EMIT paceChanged(m_pacer.ceiling(), m_pacer.reason());
        return;
    }
    const int before = m_pacer.ceiling();
    const QString beforeReason = m_pacer.reason();
    m_pacer.update(s);
    if (m_pacer.ceiling() != before || m_pacer.reason() != beforeReason)
        Q_EMIT paceChanged(m_pacer.ceiling(), m_pacer.reason());
}
