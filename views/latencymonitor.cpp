// SPDX-License-Identifier: GPL-3.0-or-later
#include "latencymonitor.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "latencyreader.h"
#include "redisclient.h"
#include "slowlogmodel.h"

#include <QDateTime>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "qcp.h"
#include "tableview.h"

#include <algorithm>

LatencyMonitor::LatencyMonitor(RedisClient *client, QWidget *parent)
    : QWidget(parent), m_client(client), m_reader(new LatencyReader(client, this))
{
    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("slowlogLatencyHeader"));
    m_header->setTextFormat(Qt::PlainText);
    m_hint = new QLabel(this);
    m_hint->setObjectName(QStringLiteral("slowlogLatencyHint"));
    m_hint->setTextFormat(Qt::PlainText);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_model = new LatencyEventsModel(this);
    m_table = tableview::make(nullptr, this, QStringLiteral("slowlogLatencyTable"));
    m_table->setAlternatingRowColors(true);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    const int digit = m_table->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_table->setColumnWidth(LatencyEventsModel::LatestAtColumn, digit * 11);
    m_table->setColumnWidth(LatencyEventsModel::LatestColumn, digit * 9);
    m_table->setColumnWidth(LatencyEventsModel::MaxColumn, digit * 9);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &LatencyMonitor::onSelectionChanged);
    m_plot = chartstyle::narrowTimePlot(this, QStringLiteral("slowlogLatencyPlot"));
    chartstyle::label(m_plot->xAxis, tr("Time (server clock)"));
    chartstyle::label(m_plot->yAxis, tr("Latency (ms)"));
    m_graph = m_plot->addGraph();
    chartstyle::putLegendAbove(m_plot);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_plot);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    m_stack = new QStackedWidget(this);
    m_stack->setObjectName(QStringLiteral("slowlogLatencyStack"));
    m_stack->addWidget(m_hint);
    m_stack->addWidget(split);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_header);
    layout->addWidget(m_stack, 1);
    m_header->setText(tr("Latency monitor"));
    m_hint->setText(tr("waiting for the server…"));
    applyStyle();

    connect(m_reader, &LatencyReader::latestAvailable, this, &LatencyMonitor::onLatest);
    connect(m_reader, &LatencyReader::historyAvailable, this,
            [this](const QByteArray &event, const QList<LatencySample> &samples) {
                if (event == m_event)
                    showHistory(event, samples);
            });
}

LatencyMonitor::~LatencyMonitor() = default;

void LatencyMonitor::applyStyle()
{
    const QPalette pal = palette();
    chartstyle::apply(m_plot, pal);
    const QColor latency = chartstyle::series(1, pal);
    m_graph->setPen(QPen(latency, 1.5));
    m_graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, latency, pal.color(QPalette::Base), 6));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LatencyMonitor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyStyle();
}

void LatencyMonitor::poll()
{
    m_polling = true;
    m_reader->refresh();
    requestHistory();
}

void LatencyMonitor::stop()
{
    m_polling = false;
    m_reader->cancel();
}

QString LatencyMonitor::userName() const
{
    return m_client->profile().username.isEmpty() ? QStringLiteral("default") : m_client->profile().username;
}

void LatencyMonitor::onLatest(const LatencyLatest &latest)
{
    if (latest.error) {
        m_hint->setText(tr("Latency monitor: %1").arg(latest.error.message));
        m_stack->setCurrentWidget(m_hint);
        return;
    }
    const bool known = latest.thresholdMs >= 0;
    const qint64 threshold = latest.thresholdMs;
    m_thresholdMs = threshold;
    if (known && threshold == 0) {
        m_header->setText(tr("Latency monitor · latency-monitor-threshold 0 (off)"));
        m_hint->setText(tr("latency monitor is off: CONFIG SET latency-monitor-threshold 100 turns it on "
                           "(events slower than 100 ms are then recorded)"));
        m_stack->setCurrentWidget(m_hint);
        return;
    }
    if (known)
        m_header->setText(tr("Latency monitor · latency-monitor-threshold %1 ms").arg(threshold));
    else if (latest.configError.kind == RedisError::Kind::NoPerm)
        m_header->setText(
            tr("Latency monitor · threshold unknown: CONFIG GET needs +config|get for user %1").arg(userName()));
    else
        m_header->setText(tr("Latency monitor · threshold unknown"));

    if (const RedisError &e = latest.latestError) {
        m_hint->setText(e.kind == RedisError::Kind::NoPerm
                            ? tr("Latency monitor: needs +latency for user %1").arg(userName())
                            : tr("Latency monitor: %1").arg(e.message));
        m_stack->setCurrentWidget(m_hint);
        return;
    }
    m_stack->setCurrentIndex(1);
    showEvents(latest.events);
}

void LatencyMonitor::showEvents(const QList<LatencyEvent> &events)
{
    // Merged by name: the current row stays on its event while the numbers are updated.
    m_model->setRows(events);
    if (events.isEmpty()) {
        m_event.clear();
        showHistory({}, {});
        return;
    }
    const int row = qMax(0, m_model->rowOf(m_event));
    if (m_table->currentIndex().row() != row)
        m_table->setCurrentIndex(m_model->index(row, 0)); // asks for the history
}

void LatencyMonitor::onSelectionChanged()
{
    const QModelIndex current = m_table->currentIndex();
    const QByteArray event = current.data(RowTableRoles::KeyRole).toByteArray();
    if (event == m_event)
        return;
    m_event = event;
    requestHistory();
}

void LatencyMonitor::requestHistory()
{
    if (m_event.isEmpty() || !m_polling)
        return;
    m_reader->readHistory(m_event);
}

void LatencyMonitor::showHistory(const QByteArray &event, const QList<LatencySample> &samples)
{
    QVector<QCPGraphData> data;
    data.reserve(samples.size());
    double maxMs = 0;
    for (const LatencySample &s : samples) {
        data.append(QCPGraphData(double(s.timestamp), double(s.latencyMs)));
        maxMs = qMax(maxMs, double(s.latencyMs));
    }
    std::sort(data.begin(), data.end(), [](const QCPGraphData &a, const QCPGraphData &b) { return a.key < b.key; });
    m_graph->data()->set(data, true);
    m_graph->setName(event.isEmpty() ? tr("no event") : tr("event “%1”").arg(bytesescape::escape(event)));
    if (data.isEmpty()) {
        const double now = double(QDateTime::currentSecsSinceEpoch());
        m_plot->xAxis->setRange(now - 600, now);
        m_plot->yAxis->setRange(0, 100);
    } else {
        const double first = data.constFirst().key, last = data.constLast().key;
        const double pad = qMax(chartstyle::kMinTimeSpanSecs / 2 - (last - first) / 2, (last - first) * 0.04);
        m_plot->xAxis->setRange(first - pad, last + pad);
        m_plot->yAxis->setRange(0, maxMs * 1.2);
    }
    m_plot->replot();
}
