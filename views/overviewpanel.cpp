// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewpanel.h"

#include "chartstyle.h"
#include "format.h"
#include "overviewreader.h"
#include "qcp.h"
#include "redisclient.h"

#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSaveFile>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

namespace {

using Series = HealthSeries::Series;

enum class Unit { Bytes, BytesPerSec, PerSec, Percent, Ratio, Count };

Unit unitOf(Series s)
{
    switch (s) {
    case Series::UsedMemory:
    case Series::RssMemory:
    case Series::PeakMemory:
    case Series::MaxMemory: return Unit::Bytes;
    case Series::Fragmentation: return Unit::Ratio;
    case Series::NetInPerSec:
    case Series::NetOutPerSec: return Unit::BytesPerSec;
    case Series::HitRatio: return Unit::Percent;
    case Series::OpsPerSec:
    case Series::ErrorsPerSec:
    case Series::ExpiredPerSec:
    case Series::EvictedPerSec: return Unit::PerSec;
    case Series::ConnectedClients:
    case Series::BlockedClients: return Unit::Count;
    }
    return Unit::Count;
}

struct WindowChoice
{
    const char *label;
    int seconds;
};
const WindowChoice kWindows[] = {
    {QT_TRANSLATE_NOOP("OverviewPanel", "5 min"), 5 * 60},   {QT_TRANSLATE_NOOP("OverviewPanel", "15 min"), 15 * 60},
    {QT_TRANSLATE_NOOP("OverviewPanel", "1 h"), 3600},       {QT_TRANSLATE_NOOP("OverviewPanel", "6 h"), 6 * 3600},
    {QT_TRANSLATE_NOOP("OverviewPanel", "24 h"), 24 * 3600},
};

constexpr int kDefaultRefreshMs = 1000;

} // namespace

OverviewPanel::OverviewPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_health(new HealthSeries(this)),
      m_reader(new OverviewReader(client, this)),
      m_refreshTimer(new QTimer(this))
{
    // Charts follow one timer, not every sample: a fast poll interval costs no extra replots.
    m_refreshTimer->setInterval(kDefaultRefreshMs);
    connect(m_refreshTimer, &QTimer::timeout, this, &OverviewPanel::refresh);

    buildUi();
    connect(m_health, &HealthSeries::factsChanged, this, &OverviewPanel::updateHeader);
    connect(m_reader, &OverviewReader::infoAvailable, this, &OverviewPanel::onInfo);
    connect(m_reader, &OverviewReader::infoFailed, this, &OverviewPanel::onInfoFailed);
    connect(m_reader, &OverviewReader::configAvailable, m_health, &HealthSeries::setConfig);
    connect(m_reader, &OverviewReader::configUnavailable, this, &OverviewPanel::onConfigUnavailable);
    connect(m_client, &RedisClient::ready, this, [this] { setStatus(QString(), false); });
    connect(m_client, &RedisClient::stateChanged, this, [this](RedisClient::State state, const QString &detail) {
        if (state == RedisClient::State::Ready)
            return;
        m_health->markGap(QDateTime::currentMSecsSinceEpoch() / 1000.0);
        if (m_health->sampleCount() == 0)
            setStatus(tr("Waiting for the connection…"), false);
        else
            setStatus(tr("Not connected (%1); the charts keep their data").arg(detail), true);
    });
    if (!m_client->isReady())
        setStatus(tr("Waiting for the connection…"), false);
}

OverviewPanel::~OverviewPanel() = default;

void OverviewPanel::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);

    m_header = new QWidget(this);
    m_header->setObjectName(QStringLiteral("overviewHeader"));
    auto *grid = new QGridLayout(m_header);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(2);
    // Version, role, uptime and policy share the first row; persistence and keyspace are long
    // enough to need a row each.
    for (int i = 0; i < 6; ++i) {
        auto *label = new QLabel(m_header);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        auto *value = new QLabel(m_header);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setObjectName(QStringLiteral("overviewFact%1").arg(i));
        if (i < 4) {
            grid->addWidget(label, 0, 2 * i);
            grid->addWidget(value, 0, 2 * i + 1);
        } else {
            grid->addWidget(label, i - 3, 0);
            grid->addWidget(value, i - 3, 1, 1, 7);
            // A long persistence or keyspace line is clipped (its tooltip has it all) rather
            // than widening the window.
            value->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        }
        m_factLabels << label;
        m_factValues << value;
    }
    grid->setColumnStretch(7, 1);
    layout->addWidget(m_header);

    auto *bar = new QHBoxLayout;
    bar->setSpacing(6);
    auto *windowLabel = new QLabel(tr("Window:"), this);
    m_windowBox = new QComboBox(this);
    m_windowBox->setObjectName(QStringLiteral("overviewWindow"));
    for (const WindowChoice &w : kWindows)
        m_windowBox->addItem(tr(w.label), w.seconds);
    windowLabel->setBuddy(m_windowBox);
    connect(m_windowBox, &QComboBox::currentIndexChanged, this,
            [this](int index) { setTimeWindow(m_windowBox->itemData(index).toInt()); });
    m_pauseButton = new QToolButton(this);
    m_pauseButton->setObjectName(QStringLiteral("overviewPause"));
    m_pauseButton->setCheckable(true);
    m_pauseButton->setText(tr("Pause"));
    m_pauseButton->setToolTip(tr("Freeze the view; sampling continues. Zooming or dragging a chart also pauses; "
                                 "double-click a chart to resume."));
    connect(m_pauseButton, &QToolButton::toggled, this, &OverviewPanel::setPaused);
    auto *pngButton = new QToolButton(this);
    pngButton->setObjectName(QStringLiteral("overviewExportPng"));
    pngButton->setText(tr("Export PNG…"));
    connect(pngButton, &QToolButton::clicked, this, &OverviewPanel::exportPngInteractive);
    auto *csvButton = new QToolButton(this);
    csvButton->setObjectName(QStringLiteral("overviewExportCsv"));
    csvButton->setText(tr("Export CSV…"));
    connect(csvButton, &QToolButton::clicked, this, &OverviewPanel::exportCsvInteractive);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("overviewStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(windowLabel);
    bar->addWidget(m_windowBox);
    bar->addWidget(m_pauseButton);
    bar->addWidget(pngButton);
    bar->addWidget(csvButton);
    bar->addSpacing(12);
    bar->addWidget(m_status, 1);
    layout->addLayout(bar);

    buildPlot();
    layout->addWidget(m_plot, 1);
    restyle();
    updateHeader();
}

void OverviewPanel::buildPlot()
{
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("overviewPlot"));
    m_plot->setMinimumSize(420, 440);
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    m_plot->plotLayout()->clear();
    m_plot->plotLayout()->setRowSpacing(0);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    auto *margins = new QCPMarginGroup(m_plot);
    const QString yLeft[] = {tr("Memory (bytes)"), tr("Commands (/s)"), tr("Hit ratio (%)"), tr("Clients")};
    const QString yRight[] = {tr("Fragmentation (ratio)"), tr("Network (bytes/s)"), tr("Keys (/s)"), QString()};
    for (int c = 0; c < ChartCount; ++c) {
        auto *rect = new QCPAxisRect(m_plot);
        m_plot->plotLayout()->addElement(c, 0, rect);
        rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        // Charts sit close together; only the bottom one carries time labels.
        rect->setAutoMargins(QCP::msLeft | QCP::msRight | (c == ClientsChart ? QCP::msBottom : QCP::msNone));
        rect->setMargins(QMargins(0, 6, 0, 4));
        QCPAxis *x = rect->axis(QCPAxis::atBottom);
        chartstyle::useTimeAxis(x);
        x->setTickLabels(c == ClientsChart);
        if (c == ClientsChart)
            chartstyle::label(x, tr("Time"));
        QCPAxis *left = rect->axis(QCPAxis::atLeft);
        QCPAxis *right = rect->axis(QCPAxis::atRight);
        chartstyle::label(left, yLeft[c]);
        if (!yRight[c].isEmpty()) {
            right->setVisible(true);
            right->setTickLabels(true);
            chartstyle::label(right, yRight[c]);
        }
        if (c == MemoryChart)
            chartstyle::useBytesAxis(left);
        if (c == ThroughputChart)
            chartstyle::useBytesAxis(right, QStringLiteral("/s"));
        if (c == CacheChart)
            left->setRange(0, 104);
        rect->setRangeDrag(Qt::Horizontal);
        rect->setRangeZoom(Qt::Horizontal);
        rect->setRangeDragAxes(x, nullptr);
        rect->setRangeZoomAxes(x, nullptr);
        connect(x, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, x] { syncKeyRange(x); });

        auto *legend = new QCPLegend;
        rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignLeft);
        legend->setLayer(QStringLiteral("legend"));
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        legend->setIconSize(14, 8);
        legend->setMargins(QMargins(4, 1, 4, 1));
        legend->setRowSpacing(0);
        legend->setColumnSpacing(6);
        QFont small = legend->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        legend->setFont(small);

        auto *cursor = new QCPItemStraightLine(m_plot);
        cursor->setClipAxisRect(rect);
        cursor->point1->setAxes(x, left);
        cursor->point2->setAxes(x, left);
        cursor->setVisible(false);
        cursor->setSelectable(false);
        m_cursor[size_t(c)] = cursor;
        m_rects[size_t(c)] = rect;
    }

    const Line lines[] = {
        {Series::UsedMemory, MemoryChart, false},      {Series::RssMemory, MemoryChart, false},
        {Series::PeakMemory, MemoryChart, false},      {Series::MaxMemory, MemoryChart, false},
        {Series::Fragmentation, MemoryChart, true},    {Series::OpsPerSec, ThroughputChart, false},
        {Series::NetInPerSec, ThroughputChart, true},  {Series::NetOutPerSec, ThroughputChart, true},
        {Series::HitRatio, CacheChart, false},         {Series::ExpiredPerSec, CacheChart, true},
        {Series::EvictedPerSec, CacheChart, true},     {Series::ConnectedClients, ClientsChart, false},
        {Series::BlockedClients, ClientsChart, false}, {Series::ErrorsPerSec, ThroughputChart, false},
    };
    for (Line line : lines) {
        QCPAxisRect *rect = m_rects[size_t(line.chart)];
        line.graph = m_plot->addGraph(rect->axis(QCPAxis::atBottom),
                                      rect->axis(line.rightAxis ? QCPAxis::atRight : QCPAxis::atLeft));
        line.graph->setName(HealthSeries::title(line.series));
        line.graph->setLineStyle(QCPGraph::lsLine);
        line.graph->setAdaptiveSampling(true);
        // maxmemory joins the legend only when it is set.
        if (line.series != Series::MaxMemory)
            line.graph->addToLegend(qobject_cast<QCPLegend *>(rect->insetLayout()->elementAt(0)));
        m_lines.append(line);
    }
    connect(m_plot, &QCustomPlot::mouseMove, this, &OverviewPanel::onPlotMouseMove);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { setPaused(false); });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent *e) {
        if (m_plot->axisRectAt(e->position()))
            setPaused(true);
    });
    followLive();
}

void OverviewPanel::restyle()
{
    const QPalette pal = palette();
    chartstyle::apply(m_plot, pal);
    // The lines of a chart take the palette's hues in order; limits and losses (maxmemory,
    // evictions) take its "bad" colour.
    int indexInChart[ChartCount] = {};
    for (Line &line : m_lines) {
        QPen pen(chartstyle::bad(pal), 1.6);
        if (line.series == Series::MaxMemory)
            pen.setStyle(Qt::DashDotLine);
        else if (line.series != Series::EvictedPerSec && line.series != Series::ErrorsPerSec)
            pen.setColor(chartstyle::series(indexInChart[line.chart]++, pal));
        if (line.series == Series::PeakMemory)
            pen.setStyle(Qt::DashLine);
        line.graph->setPen(pen);
        // A hit ratio exists only for intervals with lookups; on a quiet server those are
        // single samples between gaps, which a line alone would not show.
        if (line.series == Series::HitRatio)
            line.graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), 3));
    }
    QColor cursor = pal.color(QPalette::Text);
    cursor.setAlpha(110);
    for (QCPItemStraightLine *c : m_cursor)
        c->setPen(QPen(cursor, 1, Qt::DashLine));
    setStatus(m_status->text(), m_statusIsError);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && m_plot)
        restyle();
    Panel::changeEvent(event);
}

bool OverviewPanel::hasContent() const
{
    return m_chartedSamples >= 2;
}

void OverviewPanel::setPollInterval(int ms)
{
    m_reader->setIntervalMs(ms);
    ms = m_reader->intervalMs();
    // Refresh no faster than once per sample and no slower than once a second.
    m_refreshTimer->setInterval(std::clamp(ms, 200, 1000));
}

int OverviewPanel::pollInterval() const
{
    return m_reader->intervalMs();
}

void OverviewPanel::setMergedNodes(const QList<RedisClient *> &nodes)
{
    if (nodes == m_mergedNodes)
        return;
    m_mergedNodes = nodes;
    m_reader->setMergedNodes(nodes);
    // Sums over another set of nodes are another series: no line joins the two.
    m_health->clear();
    if (isActive())
        m_reader->refresh();
}

int OverviewPanel::mergedNodeCount() const
{
    return m_reader->mergedNodeCount();
}

void OverviewPanel::activeChanged(bool active)
{
    if (active) {
        // Again here: an INFO that was in flight when the panel was hidden may have landed
        // after the break and joined the lines across the pause.
        m_health->markGap(QDateTime::currentMSecsSinceEpoch() / 1000.0);
        m_reader->setPolling(true);
        m_refreshTimer->start();
        refresh();
    } else {
        m_reader->setPolling(false);
        m_refreshTimer->stop();
        hideCursor();
        // No samples while hidden: the lines break instead of joining across the pause.
        m_health->markGap(QDateTime::currentMSecsSinceEpoch() / 1000.0);
    }
}

void OverviewPanel::onConfigUnavailable(const RedisError &error)
{
    m_health->setConfigUnavailable(error.kind == RedisError::Kind::NoPerm ? tr("no CONFIG permission")
                                                                          : tr("CONFIG failed: %1").arg(error.message));
}

void OverviewPanel::onInfoFailed(const RedisError &error, qint64 atMs)
{
    m_health->markGap(atMs / 1000.0);
    if (error.kind == RedisError::Kind::NoPerm) {
        const QString name = m_client ? m_client->profile().username : QString();
        const QString user = name.isEmpty() ? QStringLiteral("default") : name;
        setStatus(tr("The overview needs +info for user %1").arg(user), true);
    } else {
        setStatus(tr("INFO failed: %1").arg(error.message), true);
    }
}

void OverviewPanel::onInfo(const ServerInfo &info)
{
    if (m_statusIsError || !m_status->text().isEmpty())
        setStatus(QString(), false);
    m_health->addSample(info);
}

void OverviewPanel::refresh()
{
    updateLines();
    if (!m_paused)
        followLive();
    rescaleValueAxes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_chartedSamples = m_health->sampleCount();
    if (hasContent() && !m_contentSignalled) {
        m_contentSignalled = true;
        Q_EMIT contentReady();
    }
}

void OverviewPanel::updateLines()
{
    QVector<double> keys;
    QVector<double> values;
    for (Line &line : m_lines) {
        const TimeSeries &ts = m_health->series(line.series);
        if (ts.generation() != line.generation) {
            // Older samples were folded into buckets or aged out: take the series afresh.
            const QList<TimeSeries::Point> pts = ts.points();
            keys.resize(pts.size());
            values.resize(pts.size());
            for (qsizetype i = 0; i < pts.size(); ++i) {
                keys[i] = pts[i].t;
                values[i] = pts[i].v;
            }
            line.graph->setData(keys, values, true);
            line.generation = ts.generation();
        } else if (ts.serial() != line.serial) {
            const QList<TimeSeries::Point> pts = ts.pointsSince(line.serial);
            keys.resize(pts.size());
            values.resize(pts.size());
            for (qsizetype i = 0; i < pts.size(); ++i) {
                keys[i] = pts[i].t;
                values[i] = pts[i].v;
            }
            line.graph->addData(keys, values, true);
        }
        line.serial = ts.serial();

        if (line.series == Series::MaxMemory) {
            const double limit = ts.lastValue().v;
            QCPLegend *legend = qobject_cast<QCPLegend *>(m_rects[MemoryChart]->insetLayout()->elementAt(0));
            if (std::isnan(limit)) {
                line.graph->removeFromLegend(legend);
            } else {
                line.graph->setName(tr("maxmemory %1").arg(format::bytes(qint64(limit))));
                if (!legend->hasItemWithPlottable(line.graph))
                    line.graph->addToLegend(legend);
            }
        }
    }
}

void OverviewPanel::followLive()
{
    const double end
        = m_health->sampleCount() > 0 ? m_health->lastSampleTime() : QDateTime::currentMSecsSinceEpoch() / 1000.0;
    // While the history is younger than the window, it grows from the left edge instead of
    // sitting squeezed against the right one.
    const double first = m_health->sampleCount() > 0 ? m_health->firstSampleTime() : end;
    const double start = std::max(end - m_window, first - m_window * 0.02);
    keyAxis(MemoryChart)->setRange(start, start + m_window);
}

QCPAxis *OverviewPanel::keyAxis(int chart) const
{
    return m_rects[size_t(chart)]->axis(QCPAxis::atBottom);
}

void OverviewPanel::syncKeyRange(QCPAxis *source)
{
    if (m_syncing)
        return;
    m_syncing = true;
    for (int c = 0; c < ChartCount; ++c)
        if (keyAxis(c) != source)
            keyAxis(c)->setRange(source->range());
    m_syncing = false;
    rescaleValueAxes();
}

void OverviewPanel::rescaleValueAxes()
{
    const QCPRange keys = keyAxis(MemoryChart)->range();
    auto maxOn = [&](QCPAxis *axis, bool includeMaxMemory, double *limit) {
        double top = 0;
        *limit = std::numeric_limits<double>::quiet_NaN();
        for (const Line &line : m_lines) {
            if (line.graph->valueAxis() != axis)
                continue;
            bool found = false;
            const QCPRange r = line.graph->getValueRange(found, QCP::sdBoth, keys);
            if (!found)
                continue;
            if (line.series == Series::MaxMemory && !includeMaxMemory) {
                *limit = r.upper;
                continue;
            }
            top = std::max(top, r.upper);
        }
        return top;
    };
    for (int c = 0; c < ChartCount; ++c) {
        QCPAxisRect *rect = m_rects[size_t(c)];
        for (QCPAxis *axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atRight)}) {
            if (c == CacheChart && axis == rect->axis(QCPAxis::atLeft))
                continue; // a percentage keeps 0–100
            double limit = 0;
            double top = maxOn(axis, false, &limit);
            // maxmemory is drawn when it is near the data; a 64 GiB limit would flatten a
            // 10 MiB instance into the x axis (the legend still names the limit).
            if (!std::isnan(limit) && limit <= 2 * top)
                top = std::max(top, limit);
            // An idle server still gets a readable scale.
            double minimum = 1.0;
            if (c == MemoryChart)
                minimum = axis->axisType() == QCPAxis::atLeft ? 1024.0 : 1.5;
            else if (c == ThroughputChart && axis->axisType() == QCPAxis::atRight)
                minimum = 1024.0;
            else if (c == ClientsChart)
                minimum = 4.0;
            // Room above the highest point for the legend in the top-left corner.
            axis->setRange(0, std::max(top * 1.3, minimum));
        }
    }
}

void OverviewPanel::setTimeWindow(int seconds)
{
    m_window = std::clamp(seconds, 60, 24 * 3600);
    const int index = m_windowBox->findData(m_window);
    if (index >= 0)
        m_windowBox->setCurrentIndex(index);
    setPaused(false);
    followLive();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewPanel::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    {
        const QSignalBlocker block(m_pauseButton);
        m_pauseButton->setChecked(paused);
    }
    m_pauseButton->setText(paused ? tr("Resume") : tr("Pause"));
    if (!paused) {
        followLive();
        rescaleValueAxes();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    Q_EMIT pausedChanged(paused);
}

void OverviewPanel::updateHeader()
{
    const QList<HealthSeries::Fact> facts = m_health->facts();
    for (qsizetype i = 0; i < m_factLabels.size(); ++i) {
        const bool have = i < facts.size();
        m_factLabels[i]->setText(have ? facts[i].label + QLatin1Char(':') : QString());
        m_factValues[i]->setText(have ? facts[i].value : QString());
        m_factValues[i]->setToolTip(!have ? QString() : facts[i].toolTip.isEmpty() ? facts[i].value : facts[i].toolTip);
    }
    m_header->setVisible(!facts.isEmpty());
}

void OverviewPanel::setStatus(const QString &text, bool isError)
{
    m_statusIsError = isError;
    m_status->setText(text);
    m_status->setToolTip(text);
    QPalette pal = m_status->palette();
    pal.setColor(QPalette::WindowText, isError ? chartstyle::bad(palette()) : palette().color(QPalette::WindowText));
    m_status->setPalette(pal);
}

QString OverviewPanel::statusText() const
{
    return m_status->text();
}

QString OverviewPanel::formatValue(Series s, double v) const
{
    if (std::isnan(v))
        return QStringLiteral("–");
    switch (unitOf(s)) {
    case Unit::Bytes: return format::bytes(qint64(std::llround(v)));
    case Unit::BytesPerSec: return format::bytes(qint64(std::llround(v))) + tr("/s");
    case Unit::PerSec: return QString::number(v, 'f', v < 10 ? 1 : 0); // the title says "/s"
    case Unit::Percent: return QString::number(v, 'f', 1) + QStringLiteral(" %");
    case Unit::Ratio: return QString::number(v, 'f', 2);
    case Unit::Count: return format::count(quint64(std::llround(v)));
    }
    return {};
}

QString OverviewPanel::valuesAt(double t) const
{
    if (m_health->sampleCount() == 0)
        return {};
    // The nearest point, but not one that is far away: a gap shows as "–".
    const double tolerance = std::max(2.5 * pollInterval() / 1000.0, keyAxis(MemoryChart)->range().size() / 200);
    QString out = QDateTime::fromMSecsSinceEpoch(qint64(t * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    int chart = -1;
    for (const Line &line : m_lines) {
        const QSharedPointer<QCPGraphDataContainer> data = line.graph->data();
        double value = std::numeric_limits<double>::quiet_NaN();
        if (!data->isEmpty()) {
            auto it = data->findBegin(t, false);
            if (it == data->constEnd())
                --it;
            if (it != data->constBegin()) {
                auto before = it - 1;
                if (std::abs(before->key - t) < std::abs(it->key - t))
                    it = before;
            }
            if (std::abs(it->key - t) <= tolerance)
                value = it->value;
        }
        if (line.series == Series::MaxMemory && std::isnan(value))
            continue;
        out += line.chart != chart ? QStringLiteral("\n") : QStringLiteral(" · ");
        chart = line.chart;
        out += HealthSeries::title(line.series) + QLatin1Char(' ') + formatValue(line.series, value);
    }
    return out;
}

void OverviewPanel::onPlotMouseMove(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton) {
        // A drag on a chart pans it; a live view would snap back on the next sample.
        if (m_plot->axisRectAt(event->position()))
            setPaused(true);
        hideCursor();
        return;
    }
    QCPAxisRect *rect = m_plot->axisRectAt(event->position());
    if (!rect || !rect->rect().contains(event->position().toPoint())) {
        hideCursor();
        return;
    }
    const double t = rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
    for (int c = 0; c < ChartCount; ++c) {
        QCPItemStraightLine *cursor = m_cursor[size_t(c)];
        cursor->point1->setCoords(t, 0);
        cursor->point2->setCoords(t, 1);
        cursor->setVisible(true);
    }
    m_hoverText = valuesAt(t);
    QToolTip::showText(event->globalPosition().toPoint() + QPoint(14, 14), m_hoverText, m_plot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewPanel::hideCursor()
{
    if (m_hoverText.isEmpty())
        return;
    m_hoverText.clear();
    for (QCPItemStraightLine *cursor : m_cursor)
        cursor->setVisible(false);
    QToolTip::hideText();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool OverviewPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave)
        hideCursor();
    return Panel::eventFilter(watched, event);
}

bool OverviewPanel::exportPng(const QString &file, QString *error)
{
    hideCursor();
    refresh();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    return chartstyle::savePng(m_plot, file, error);
}

bool OverviewPanel::exportCsv(const QString &file, QString *error)
{
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = tr("cannot write %1: %2").arg(file, out.errorString());
        return false;
    }
    m_health->writeCsv(&out);
    if (!out.commit()) {
        if (error)
            *error = tr("cannot write %1: %2").arg(file, out.errorString());
        return false;
    }
    return true;
}

void OverviewPanel::exportPngInteractive()
{
    const QString name = QStringLiteral("redislens-overview-%1.png")
                             .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    const QString file = QFileDialog::getSaveFileName(this, tr("Export charts"), name, tr("PNG images (*.png)"));
    if (file.isEmpty())
        return;
    QString error;
    if (!exportPng(file, &error))
        setStatus(error, true);
}

void OverviewPanel::exportCsvInteractive()
{
    const QString name = QStringLiteral("redislens-overview-%1.csv")
                             .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    const QString file = QFileDialog::getSaveFileName(this, tr("Export series"), name, tr("CSV files (*.csv)"));
    if (file.isEmpty())
        return;
    QString error;
    if (!exportCsv(file, &error))
        setStatus(error, true);
}
