// SPDX-License-Identifier: GPL-3.0-or-later
#include "showslowlog.h"

#include "slowlogmodel.h"
#include "slowlogreader.h"

#include <QDateTime>
#include <QTimeZone>

ShowSlowlog::ShowSlowlog(const Context &context, QObject *parent)
    : PanelShow(context, parent), m_reader(new SlowlogReader(m_client, this)), m_model(new SlowlogModel(this))
{
    // Wired as SlowlogPanel wires it.
    connect(m_reader, &SlowlogReader::entriesAvailable, m_model, &SlowlogModel::append);
    connect(m_reader, &SlowlogReader::keySizeAvailable, m_model, &SlowlogModel::setKeySize);
    connect(m_reader, &SlowlogReader::configAvailable, this, [this](const SlowlogConfig &c) { m_config = c; });
    connect(m_reader, &SlowlogReader::polled, this, [this] {
        m_reader->stop();
        if (m_reader->lastError())
            Q_EMIT failed(QStringLiteral("cannot read the slow log: %1").arg(m_reader->lastError().message));
        else
            Q_EMIT finished();
    });
}

void ShowSlowlog::start()
{
    // One poll, no timer: the panel's start() polls at once, and the first answer ends the run.
    m_reader->pollNow();
}

QList<Column> ShowSlowlog::columns() const
{
    return {
        {"id", Column::Type::Integer},          {"time", Column::Type::Text},    {"timestamp", Column::Type::Integer},
        {"duration_us", Column::Type::Integer}, {"command", Column::Type::Text}, {"client", Column::Type::Text},
        {"client_name", Column::Type::Text},    {"flag", Column::Type::Text},    {"reason", Column::Type::Text}};
}

qsizetype ShowSlowlog::recordCount() const
{
    return m_model->rowCount();
}

void ShowSlowlog::writeRecord(RecordWriter &w, qsizetype row) const
{
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

QJsonObject ShowSlowlog::coverage() const
{
    return {{QStringLiteral("entries"), m_model->rowCount()},
            {QStringLiteral("slowlog_max_len"), m_config.known ? QJsonValue(m_config.maxLength) : QJsonValue()},
            {QStringLiteral("slower_than_us"), m_config.known ? QJsonValue(m_config.slowerThanUs) : QJsonValue()}};
}
