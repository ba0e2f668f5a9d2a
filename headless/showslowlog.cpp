// SPDX-License-Identifier: GPL-3.0-or-later
#include "showslowlog.h"

#include "clusterrouter.h"
#include "clustertopology.h"
#include "latencyreader.h"
#include "redisclient.h"
#include "showrequest.h"
#include "slowlogmodel.h"
#include "slowlogreader.h"

#include <QDateTime>
#include <QTimeZone>

ShowSlowlog::ShowSlowlog(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_model(new SlowlogModel(this)),
      m_latency(new LatencyReader(m_client, this)),
      m_events(new LatencyEventsModel(this))
{
    addTable(QStringLiteral("entries"), m_model);
    addTable(QStringLiteral("commands"), m_model->aggregate());
    addTable(QStringLiteral("latency"), m_events);
    connect(m_latency, &LatencyReader::latestAvailable, this, &ShowSlowlog::onLatency);
}

void ShowSlowlog::addReader(RedisClient *client, int source)
{
    auto *reader = new SlowlogReader(client, this);
    m_readers.append(reader);
    // Wired as SlowlogPanel wires them.
    connect(
        reader, &SlowlogReader::entriesAvailable, m_model,
        [this, source](const QList<SlowlogEntry> &entries, int epoch) { m_model->appendFrom(source, entries, epoch); });
    connect(reader, &SlowlogReader::keySizeAvailable, m_model, &SlowlogModel::setKeySize);
    connect(reader, &SlowlogReader::configAvailable, this, [this, reader](const SlowlogConfig &c) {
        // Several nodes: the first one's settings (the coverage has room for one).
        if (reader != m_readers.constFirst())
            return;
        m_coverage.insert(QStringLiteral("slowlog_max_len"), c.known ? QJsonValue(c.maxLength) : QJsonValue());
        m_coverage.insert(QStringLiteral("slower_than_us"), c.known ? QJsonValue(c.slowerThanUs) : QJsonValue());
    });
    connect(reader, &SlowlogReader::polled, this, [this, reader, client] {
        reader->stop();
        if (reader->lastError()) {
            const QString where = merged() ? QStringLiteral(" of %1").arg(client->profile().displayName()) : QString();
            Q_EMIT failed(QStringLiteral("cannot read the slow log%1: %2").arg(where, reader->lastError().message));
            return;
        }
        if (++m_readersPolled < m_readers.size())
            return;
        m_polled = true;
        maybeReady();
    });
}

void ShowSlowlog::start()
{
    // One poll and one latency read, no timer: the panel's start() does both at once, and the
    // first answers end the run.
    m_coverage.insert(QStringLiteral("slowlog_max_len"), QJsonValue());
    m_coverage.insert(QStringLiteral("slower_than_us"), QJsonValue());
    ClusterRouter *router = m_client->cluster();
    if (m_request.node == QLatin1String(ShowRequest::kEveryNode) && router) {
        QStringList names{QString()}; // source 0: the server alone, unused here
        const QList<RedisClient *> nodes = router->primaryClients();
        for (const cluster::Node &n : router->topology().primaries())
            names << n.address.toString();
        m_model->setSourceNames(names);
        for (int i = 0; i < nodes.size(); ++i)
            addReader(nodes.at(i), i + 1);
        m_coverage.insert(QStringLiteral("nodes"), int(nodes.size()));
        m_coverage.insert(QStringLiteral("latency_error"),
                          QStringLiteral("the latency monitor is one server's: --node HOST:PORT reads it"));
        m_latencyRead = true;
    } else {
        addReader(m_client, 0);
        m_latency->refresh();
    }
    // start(), not pollNow(): a node's connection may still be coming up (the router connects on
    // demand), and a started reader polls once it is ready. The first poll stops each.
    for (SlowlogReader *r : std::as_const(m_readers))
        r->start();
}

void ShowSlowlog::onLatency(const LatencyLatest &latest)
{
    if (latest.error) {
        Q_EMIT failed(QStringLiteral("cannot read the latency monitor: %1").arg(latest.error.message));
        return;
    }
    // A user without +latency still gets the slow log; the coverage says what is missing.
    m_coverage.insert(QStringLiteral("latency_threshold_ms"),
                      latest.thresholdMs >= 0 ? QJsonValue(latest.thresholdMs) : QJsonValue());
    if (latest.latestError)
        m_coverage.insert(QStringLiteral("latency_error"), latest.latestError.message);
    m_events->setRows(latest.events);
    m_latencyRead = true;
    maybeReady();
}

void ShowSlowlog::maybeReady()
{
    if (!m_polled || !m_latencyRead)
        return;
    m_coverage.insert(QStringLiteral("entries"), m_model->rowCount());
    tablesReady();
}

bool ShowSlowlog::merged() const
{
    return !m_model->sourceNames().isEmpty();
}

bool ShowSlowlog::entriesTable() const
{
    return table() == QLatin1String("entries");
}

QList<Column> ShowSlowlog::columns() const
{
    if (!entriesTable())
        return TablesShow::columns();
    QList<Column> out{
        {"id", Column::Type::Integer},          {"time", Column::Type::Text},    {"timestamp", Column::Type::Integer},
        {"duration_us", Column::Type::Integer}, {"command", Column::Type::Text}, {"client", Column::Type::Text},
        {"client_name", Column::Type::Text},    {"flag", Column::Type::Text},    {"reason", Column::Type::Text}};
    if (merged())
        out.append({"node", Column::Type::Text});
    return out;
}

qsizetype ShowSlowlog::recordCount() const
{
    return entriesTable() ? m_model->rowCount() : TablesShow::recordCount();
}

void ShowSlowlog::writeRecord(RecordWriter &w, qsizetype row) const
{
    if (!entriesTable()) {
        TablesShow::writeRecord(w, row);
        return;
    }
    // The entries keep their own fields (raw ids, seconds and microseconds beside the text).
    const SlowlogEntry &e = m_model->entryAt(int(row));
    const auto cell = [&](int column) { return m_model->data(m_model->index(int(row), column)).toString(); };
    w.integer(e.id);
    w.text(QDateTime::fromSecsSinceEpoch(e.timestamp, QTimeZone::utc()).toString(Qt::ISODate));
    w.integer(e.timestamp);
    w.integer(e.durationUs);
    w.text(cell(SlowlogModel::CommandColumn));
    w.bytes(e.clientAddress);
    w.bytes(e.clientName);
    const SlowlogVerdict v = m_model->verdictAt(int(row));
    w.text(v.flag == SlowlogFlag::None ? QString() : slowlogflags::label(v.flag));
    w.text(v.reason);
    if (merged())
        w.text(cell(SlowlogModel::NodeColumn));
}
