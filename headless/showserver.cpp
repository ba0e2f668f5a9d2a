// SPDX-License-Identifier: GPL-3.0-or-later
#include "showserver.h"

#include "clusterrouter.h"
#include "keyspacereader.h"
#include "keyspacescan.h"
#include "memoryreader.h"
#include "memorystats.h"
#include "overviewreader.h"
#include "progressbar.h"
#include "redisclient.h"
#include "showrequest.h"

#include <QDateTime>
#include <QTimeZone>
#include <QTimer>
#include <cmath>

ShowOverview::ShowOverview(const Context &context, QObject *parent)
    : PanelShow(context, parent), m_reader(new OverviewReader(m_client, this)), m_health(new HealthSeries(this))
{
    // Wired as OverviewPanel wires it.
    connect(m_reader, &OverviewReader::configAvailable, m_health, &HealthSeries::setConfig);
    connect(m_reader, &OverviewReader::configUnavailable, this,
            [this](const RedisError &e) { m_health->setConfigUnavailable(e.message); });
    connect(m_reader, &OverviewReader::infoFailed, this, [this](const RedisError &e, qint64) {
        Q_EMIT failed(QStringLiteral("cannot read INFO: %1").arg(e.message));
    });
    connect(m_reader, &OverviewReader::infoAvailable, this, [this](const ServerInfo &info) {
        m_health->addSample(info);
        if (++m_samples == 1) {
            // Rates need two samples: the second one a second later, as the panel polls.
            if (m_bar)
                m_bar->status(QStringLiteral("sampling INFO for a second…"));
            QTimer::singleShot(kSampleMs, this, [this] { m_reader->refresh(); });
            return;
        }
        m_facts = m_health->facts();
        Q_EMIT finished();
    });
}

void ShowOverview::start()
{
    // --node all: every primary's INFO as one server's (OverviewReader::setMergedNodes).
    if (ClusterRouter *router = m_client->cluster(); router && m_request.node == QLatin1String(ShowRequest::kEveryNode))
        m_reader->setMergedNodes(router->primaryClients());
    m_reader->refresh();
}

bool ShowOverview::facts() const
{
    return m_request.table == QLatin1String("facts");
}

QList<Column> ShowOverview::columns() const
{
    if (facts())
        return {{"label", Column::Type::Text}, {"value", Column::Type::Text}};
    return {{"series", Column::Type::Text}, {"title", Column::Type::Text}, {"value", Column::Type::Number}};
}

qsizetype ShowOverview::recordCount() const
{
    return facts() ? m_facts.size() : HealthSeries::kSeriesCount;
}

void ShowOverview::writeRecord(RecordWriter &w, qsizetype row) const
{
    if (facts()) {
        w.text(m_facts.at(row).label);
        w.text(m_facts.at(row).value);
        return;
    }
    const auto s = HealthSeries::Series(row);
    w.text(HealthSeries::columnName(s));
    w.text(HealthSeries::title(s));
    // The latest point: NaN (no lookups, no maxmemory) is null.
    w.number(m_health->series(s).last().v);
}

QJsonObject ShowOverview::coverage() const
{
    const ServerInfo &info = m_health->latest();
    QJsonObject out{
        {QStringLiteral("samples"), m_health->sampleCount()},
        {QStringLiteral("sample_ms"), kSampleMs},
        {QStringLiteral("table"), facts() ? QStringLiteral("facts") : QStringLiteral("figures")},
        {QStringLiteral("captured_at"),
         QDateTime::fromMSecsSinceEpoch(info.capturedAtMs(), QTimeZone::utc()).toString(Qt::ISODateWithMs)}};
    if (info.mergedNodes() > 0)
        out.insert(QStringLiteral("merged_nodes"), info.mergedNodes());
    return out;
}

ShowTtl::ShowTtl(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_keyspace(new KeyspaceReader(m_client, this)),
      m_scan(new KeyspaceScan(m_client, m_request, m_bar, {false, false, -1}, this)),
      m_model(new TtlNamespaceModel(this))
{
    m_stats.setSeparator(m_request.separator);
    addTable(QStringLiteral("namespaces"), m_model);
    connect(m_keyspace, &KeyspaceReader::keyspaceAvailable, this, [this](const QList<KeyspaceDb> &dbs) {
        m_databases = dbs;
        m_scan->start();
    });
    // The panel shows the scan's figures alone when INFO is refused.
    connect(m_keyspace, &KeyspaceReader::failed, this, [this](const RedisError &) { m_scan->start(); });
    connect(m_scan->scanner(), &KeyScanner::batchAvailable, this, [this](const ScanBatch &b) { m_stats.add(b); });
    connect(m_scan, &KeyspaceScan::failed, this, &PanelShow::failed);
    connect(m_scan, &KeyspaceScan::done, this, [this] {
        m_model->setSnapshot(m_stats.snapshot(QDateTime::currentMSecsSinceEpoch()));
        m_coverage.insert(QStringLiteral("keys_scanned"), qint64(m_stats.keyCount()));
        for (const KeyspaceDb &db : std::as_const(m_databases)) {
            if (db.db != m_client->profile().db)
                continue;
            m_coverage.insert(QStringLiteral("info_keys"), db.keys);
            m_coverage.insert(QStringLiteral("info_expires"), db.expires);
            m_coverage.insert(QStringLiteral("info_avg_ttl_ms"), db.avgTtlMs);
        }
        m_coverage.insert(QStringLiteral("match"),
                          m_request.match.isEmpty() ? QJsonValue() : QString::fromUtf8(m_request.match));
        tablesReady();
    });
}

void ShowTtl::start()
{
    m_keyspace->refresh();
}

ShowMemory::ShowMemory(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_reader(new MemoryReader(m_client, this)),
      m_namespaces(new NamespaceMemoryModel(this)),
      m_top(new TopKeysModel(this))
{
    addTable(QStringLiteral("namespaces"), m_namespaces);
    addTable(QStringLiteral("top"), m_top);
    connect(m_reader, &MemoryReader::progressChanged, this, [this](const ScanProgress &p) {
        if (m_bar)
            m_bar->scanned(p.returned, p.dbsize, p.keysPerSecond);
    });
    connect(m_reader, &MemoryReader::finished, this, [this](const ScanProgress &p) {
        if (p.error) {
            Q_EMIT failed(QStringLiteral("the memory analysis stopped: %1").arg(p.error.message));
            return;
        }
        const MemoryStats &stats = m_reader->stats();
        m_namespaces->setResults(stats.namespaces(1), stats.totalMemory());
        m_top->setResults(stats.topByMemory());
        m_coverage.insert(QStringLiteral("keys"), qint64(stats.keyCount()));
        m_coverage.insert(QStringLiteral("total_memory_bytes"), stats.totalMemory());
        m_coverage.insert(QStringLiteral("dbsize"), p.dbsize);
        m_coverage.insert(QStringLiteral("seconds"), p.elapsedSeconds);
        tablesReady();
    });
}

void ShowMemory::start()
{
    m_reader->stats().setSeparator(m_request.separator);
    m_reader->start(m_request.scanRate);
    m_reader->stats().setSeparator(m_request.separator);
}
