// SPDX-License-Identifier: GPL-3.0-or-later
#include "showslowlog.h"

#include "latencyreader.h"
#include "slowlogmodel.h"
#include "slowlogreader.h"

#include <QDateTime>
#include <QTimeZone>

ShowSlowlog::ShowSlowlog(const Context &context, QObject *parent)
    : TablesShow(context, parent),
      m_reader(new SlowlogReader(m_client, this)),
      m_model(new SlowlogModel(this)),
      m_latency(new LatencyReader(m_client, this)),
      m_events(new LatencyEventsModel(this))
{
    addTable(QStringLiteral("entries"), m_model);
    addTable(QStringLiteral("commands"), m_model->aggregate());
    addTable(QStringLiteral("latency"), m_events);
    // Wired as SlowlogPanel wires them.
    connect(m_reader, &SlowlogReader::entriesAvailable, m_model, &SlowlogModel::append);
    connect(m_reader, &SlowlogReader::keySizeAvailable, m_model, &SlowlogModel::setKeySize);
    connect(m_reader, &SlowlogReader::configAvailable, this, [this](const SlowlogConfig &c) {
        m_coverage.insert(QStringLiteral("slowlog_max_len"), c.known ? QJsonValue(c.maxLength) : QJsonValue());
        m_coverage.insert(QStringLiteral("slower_than_us"), c.known ? QJsonValue(c.slowerThanUs) : QJsonValue());
    });
    connect(m_reader, &SlowlogReader::polled, this, [this] {
        m_reader->stop();
        if (m_reader->lastError()) {
            Q_EMIT failed(QStringLiteral("cannot read the slow log: %1").arg(m_reader->lastError().message));
            return;
        }
        m_polled = true;
        maybeReady();
    });
    connect(m_latency, &LatencyReader::latestAvailable, this, &ShowSlowlog::onLatency);
}

void ShowSlowlog::start()
{
    // One poll and one latency read, no timer: the panel's start() does both at once, and the
    // first answers end the run.
    m_coverage.insert(QStringLiteral("slowlog_max_len"), QJsonValue());
    m_coverage.insert(QStringLiteral("slower_than_us"), QJsonValue());
    m_reader->pollNow();
    m_latency->refresh();
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

bool ShowSlowlog::entriesTable() const
{
    return table() == QLatin1String("entries");
}

QList<Column> ShowSlowlog::columns() const
{
    if (!entriesTable())
        return TablesShow::columns();
    return {
        {"id", Column::Type::Integer},          {"time", Column::Type::Text},    {"timestamp", Column::Type::Integer},
        {"duration_us", Column::Type::Integer}, {"command", Column::Type::Text}, {"client", Column::Type::Text},
        {"client_name", Column::Type::Text},    {"flag", Column::Type::Text},    {"reason", Column::Type::Text}};
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
}
