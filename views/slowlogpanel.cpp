// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlogpanel.h"

#include "chartstyle.h"
#include "format.h"
#include "latencymonitor.h"
#include "redisclient.h"
#include "slowlogmodel.h"
#include "slowlogreader.h"

#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "qcp.h"
#include "tableview.h"

#include <algorithm>
#include <cmath>

namespace {

QTableView *makeTable(QWidget *parent, const QString &name)
{
    QTableView *table = tableview::make(nullptr, parent, name);
    table->setAlternatingRowColors(true);
    return table;
}

} // namespace

SlowlogPanel::SlowlogPanel(RedisClient *client, QWidget *parent)
    : Panel(parent), m_client(client), m_model(new SlowlogModel(this)), m_latency(new LatencyMonitor(client, this))
{
    buildUi();
    applyStyle();
    addReader(client, 0, QString());
    // Flags change when key sizes arrive; the chart follows on its timer.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &SlowlogPanel::scheduleReplot);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SlowlogPanel::scheduleReplot);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &SlowlogPanel::scheduleReplot);

    updateStatus();
    rebuildPlot();
}

SlowlogPanel::~SlowlogPanel() = default;

SlowlogReader *SlowlogPanel::addReader(RedisClient *client, int source, const QString &name)
{
    auto *reader = new SlowlogReader(client, this);
    m_readers.append(Source{reader, source, name, {}, {}});
    connect(reader, &SlowlogReader::entriesAvailable, this,
            [this, source](const QList<SlowlogEntry> &entries, int epoch) { onEntries(source, entries, epoch); });
    // Key sizes by name: a key lives on one node of a cluster.
    connect(reader, &SlowlogReader::keySizeAvailable, m_model, &SlowlogModel::setKeySize);
    connect(reader, &SlowlogReader::configAvailable, this,
            [this, reader](const SlowlogConfig &config) { onConfig(reader, config); });
    connect(reader, &SlowlogReader::errorChanged, this,
            [this, reader](const RedisError &error) { onErrorChanged(reader, error); });
    connect(reader, &SlowlogReader::polled, this, &SlowlogPanel::onPolled);
    connect(reader, &SlowlogReader::resetDetected, this, [this] {
        ++m_resets;
        m_lastResetMs = QDateTime::currentMSecsSinceEpoch();
        updateStatus();
    });
    connect(reader, &SlowlogReader::entriesMissed, this, [this](qint64 n) {
        m_missed += n;
        updateStatus();
    });
    return reader;
}

void SlowlogPanel::setMergedNodes(const QList<RedisClient *> &nodes, const QStringList &names)
{
    if (names == m_mergedNames || nodes.size() != names.size() || nodes.isEmpty())
        return;
    for (const Source &s : std::as_const(m_readers)) {
        s.reader->stop();
        s.reader->deleteLater();
    }
    m_readers.clear();
    m_mergedNames = names;
    // Source 0 stays the server read alone (unnamed); nodes are 1 on.
    QStringList known = m_model->sourceNames();
    if (known.isEmpty())
        known.append(QString());
    for (int i = 0; i < nodes.size(); ++i) {
        qsizetype source = known.indexOf(names.at(i));
        if (source <= 0) {
            // A node never read before: a source of its own, with its own watermark.
            source = known.size();
            known.append(names.at(i));
        }
        SlowlogReader *reader = addReader(nodes.at(i), int(source), names.at(i));
        if (isActive())
            reader->start();
    }
    m_model->setSourceNames(known);
    // One server's latency monitor would stand for all: the node bar picks a node for it.
    m_latency->stop();
    m_latency->hide();
    m_table->setColumnHidden(SlowlogModel::NodeColumn, false);
    m_table->sortByColumn(SlowlogModel::TimeColumn, Qt::DescendingOrder);
    showSources();
}

SlowlogPanel::Source *SlowlogPanel::sourceOf(SlowlogReader *reader)
{
    for (Source &s : m_readers)
        if (s.reader == reader)
            return &s;
    return nullptr;
}

void SlowlogPanel::buildUi()
{
    m_config = new QLabel(this);
    m_config->setObjectName(QStringLiteral("slowlogConfig"));
    m_config->setTextFormat(Qt::PlainText);
    m_config->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("slowlogStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_clear = new QPushButton(tr("Clear view"), this);
    m_clear->setObjectName(QStringLiteral("slowlogClear"));
    m_clear->setToolTip(tr("Forget the entries shown here; the server's slow log is not touched"));
    connect(m_clear, &QPushButton::clicked, this, &SlowlogPanel::clearView);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("slowlogError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();

    buildPlot();
    buildTables();

    auto *top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(m_plot);
    top->addWidget(m_aggregateTable);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);
    top->setSizes({500, 500}); // the aggregate's command names need room in a narrow window
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("slowlogSplitter"));
    split->addWidget(top);
    split->addWidget(m_table);
    split->addWidget(m_latency);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    split->setChildrenCollapsible(false);
    // Proportions, scaled to the real height once laid out.
    split->setSizes({320, 300, 230});

    auto *headerRow = new QHBoxLayout;
    headerRow->addWidget(m_config, 1);
    headerRow->addWidget(m_status);
    headerRow->addWidget(m_clear);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(headerRow);
    layout->addWidget(m_error);
    layout->addWidget(split, 1);
}

// Scatter of durations over time.
void SlowlogPanel::buildPlot()
{
    m_plot = chartstyle::narrowTimePlot(this, QStringLiteral("slowlogPlot"));
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> logTicker(new QCPAxisTickerLog);
    logTicker->setLogBase(10);
    logTicker->setSubTickCount(8);
    m_plot->yAxis->setTicker(logTicker);
    m_plot->yAxis->setNumberFormat(QStringLiteral("g"));
    chartstyle::label(m_plot->xAxis, tr("Time (server clock)"));
    chartstyle::label(m_plot->yAxis, tr("Duration (ms)"));
    m_normalGraph = m_plot->addGraph();
    m_normalGraph->setName(tr("slow command"));
    m_flaggedGraph = m_plot->addGraph();
    m_flaggedGraph->setName(tr("flagged"));
    for (QCPGraph *g : {m_normalGraph, m_flaggedGraph}) {
        g->setLineStyle(QCPGraph::lsNone);
        g->setSelectable(QCP::stSingleData);
    }
    chartstyle::putLegendAbove(m_plot);
    m_plotEmpty = new QCPItemText(m_plot);
    m_plotEmpty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_plotEmpty->position->setCoords(0.5, 0.5);
    m_plotEmpty->setText(tr("no slow commands logged yet"));
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *p, int dataIndex, QMouseEvent *) {
        const auto &points = p == m_flaggedGraph ? m_flaggedPoints : m_normalPoints;
        if (dataIndex < 0 || dataIndex >= points.size())
            return;
        const PointKey &k = points.at(dataIndex);
        const int row = m_model->rowOf(k.epoch, k.id, k.source);
        if (row < 0)
            return;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, SlowlogModel::CommandColumn));
        m_table->setCurrentIndex(index);
        m_table->scrollTo(index);
    });
    m_replotTimer = new QTimer(this);
    m_replotTimer->setSingleShot(true);
    m_replotTimer->setInterval(100);
    connect(m_replotTimer, &QTimer::timeout, this, &SlowlogPanel::rebuildPlot);
}

// Entries, newest first unless the user sorts otherwise, and the same entries by command.
void SlowlogPanel::buildTables()
{
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RowTableRoles::SortRole);
    m_table = makeTable(this, QStringLiteral("slowlogTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SlowlogModel::IdColumn, Qt::DescendingOrder);
    m_table->setTextElideMode(Qt::ElideRight);
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(false);
    header->setSectionResizeMode(SlowlogModel::CommandColumn, QHeaderView::Stretch);
    const int digit = m_table->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_table->setColumnWidth(SlowlogModel::IdColumn, digit * 8);
    m_table->setColumnWidth(SlowlogModel::TimeColumn, digit * 12);
    m_table->setColumnWidth(SlowlogModel::DurationColumn, digit * 11);
    m_table->setColumnWidth(SlowlogModel::ClientColumn, digit * 18);
    m_table->setColumnWidth(SlowlogModel::NameColumn, digit * 12);
    m_table->setColumnWidth(SlowlogModel::FlagColumn, digit * 15);
    m_table->setColumnWidth(SlowlogModel::NodeColumn, digit * 16);
    m_table->setColumnHidden(SlowlogModel::NodeColumn, true); // one server: no node to name
    connect(m_table, &QAbstractItemView::activated, this, &SlowlogPanel::onActivated);

    m_aggregateProxy = new QSortFilterProxyModel(this);
    m_aggregateProxy->setSourceModel(m_model->aggregate());
    m_aggregateProxy->setSortRole(RowTableRoles::SortRole);
    m_aggregateTable = makeTable(this, QStringLiteral("slowlogAggregate"));
    m_aggregateTable->setModel(m_aggregateProxy);
    m_aggregateTable->setSortingEnabled(true);
    m_aggregateTable->sortByColumn(SlowlogAggregateModel::TotalColumn, Qt::DescendingOrder);
    m_aggregateTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_aggregateTable->horizontalHeader()->setStretchLastSection(false);
    m_aggregateTable->horizontalHeader()->setSectionResizeMode(SlowlogAggregateModel::CommandColumn,
                                                               QHeaderView::Stretch);
    for (int c = SlowlogAggregateModel::CountColumn; c < SlowlogAggregateModel::ColumnCount; ++c)
        m_aggregateTable->setColumnWidth(c, digit * 7);
    m_aggregateTable->setToolTip(tr("By command, over the entries shown; percentiles by nearest rank"));
}

void SlowlogPanel::applyStyle()
{
    const QPalette pal = palette();
    chartstyle::apply(m_plot, pal);
    const QColor normal = chartstyle::series(0, pal);
    const QColor bad = chartstyle::bad(pal);
    m_normalGraph->setPen(QPen(normal));
    m_normalGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, normal, normal, 6));
    m_flaggedGraph->setPen(QPen(bad));
    m_flaggedGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, bad, bad, 8));
    m_plotEmpty->setColor(pal.color(QPalette::PlaceholderText));
    m_model->setProblemColor(bad);
    QPalette errorPalette = m_error->palette();
    errorPalette.setColor(QPalette::WindowText, bad);
    m_error->setPalette(errorPalette);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SlowlogPanel::changeEvent(QEvent *event)
{
    Panel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyStyle();
}

void SlowlogPanel::activeChanged(bool active)
{
    if (active) {
        for (const Source &s : std::as_const(m_readers))
            s.reader->start();
        return;
    }
    for (const Source &s : std::as_const(m_readers))
        s.reader->stop();
    // Replies still travelling are for a panel nobody looks at.
    m_latency->stop();
}

void SlowlogPanel::clearView()
{
    m_model->clear();
    m_missed = 0;
    m_resets = 0;
    updateStatus();
    rebuildPlot();
}

QString SlowlogPanel::userName() const
{
    return m_client->profile().username.isEmpty() ? QStringLiteral("default") : m_client->profile().username;
}

QString SlowlogPanel::errorText() const
{
    return m_errorText;
}

QString SlowlogPanel::configText() const
{
    return m_configText;
}

QString SlowlogPanel::statusText() const
{
    return m_status->text();
}

void SlowlogPanel::onEntries(int source, const QList<SlowlogEntry> &entries, int epoch)
{
    if (m_model->appendFrom(source, entries, epoch) > 0)
        scheduleReplot();
    updateStatus();
}

void SlowlogPanel::onPolled()
{
    if (!m_hasContent) {
        // The first answer is drawn at once, so a screenshot taken on contentReady shows it.
        rebuildPlot();
        m_hasContent = true;
        Q_EMIT contentReady();
    }
    pollLatency();
}

void SlowlogPanel::onErrorChanged(SlowlogReader *reader, const RedisError &error)
{
    Source *s = sourceOf(reader);
    if (!s)
        return;
    if (!error.isError())
        s->error.clear();
    else if (error.kind == RedisError::Kind::NoPerm)
        s->error = tr("needs +slowlog for user %1").arg(userName());
    else
        s->error = error.message.isEmpty() ? errorKindName(error.kind) : error.message;
    showSources();
}

void SlowlogPanel::showSources()
{
    QStringList errors;
    for (const Source &s : std::as_const(m_readers))
        if (!s.error.isEmpty())
            errors << (s.name.isEmpty() ? s.error : tr("%1: %2").arg(s.name, s.error));
    if (errors.isEmpty()) {
        m_errorText.clear();
        m_error->hide();
    } else {
        m_errorText = tr("Slow log: %1").arg(errors.join(QStringLiteral("; ")));
        m_error->setText(m_errorText);
        m_error->setToolTip(errors.join(QLatin1Char('\n')));
        m_error->show();
    }

    // One server: its settings. Several: theirs once when they agree (saying so while some are
    // still to be read), else each node's.
    QStringList configs;
    QString common;
    bool same = true;
    for (const Source &s : std::as_const(m_readers)) {
        if (s.config.isEmpty())
            continue;
        if (configs.isEmpty())
            common = s.config;
        same = same && s.config == common;
        configs << (s.name.isEmpty() ? s.config : tr("%1: %2").arg(s.name, s.config));
    }
    const int nodes = int(m_readers.size());
    if (nodes == 1 || configs.isEmpty())
        m_configText = m_readers.constFirst().config;
    else if (same && configs.size() == nodes)
        m_configText = tr("%1 · on each of %n primaries", nullptr, nodes).arg(common);
    else if (same)
        m_configText = tr("%1 · on %2 of %n primaries read so far", nullptr, nodes).arg(common).arg(configs.size());
    else
        m_configText = configs.join(QStringLiteral(" | "));
    m_config->setText(m_configText);
    m_config->setToolTip(configs.join(QLatin1Char('\n')));
}

void SlowlogPanel::onConfig(SlowlogReader *reader, const SlowlogConfig &config)
{
    Source *s = sourceOf(reader);
    if (!s)
        return;
    QString &configText = s->config;
    if (config.known) {
        QString threshold;
        if (config.slowerThanUs < 0)
            threshold = tr("%1 (the slow log is off)").arg(config.slowerThanUs);
        else if (config.slowerThanUs == 0)
            threshold = tr("0 (every command is logged)");
        else
            threshold = tr("%1 µs (%2)").arg(config.slowerThanUs).arg(SlowlogModel::durationText(config.slowerThanUs));
        configText = tr("slowlog-log-slower-than %1 · slowlog-max-len %2")
                         .arg(threshold, format::count(quint64(qMax<qint64>(0, config.maxLength))));
    } else {
        const RedisError &e = reader->configError();
        if (e.kind == RedisError::Kind::NoPerm)
            configText
                = tr("slowlog-log-slower-than and slowlog-max-len unknown: CONFIG GET needs +config|get for user %1")
                      .arg(userName());
        else
            configText = tr("slowlog-log-slower-than and slowlog-max-len unknown%1")
                             .arg(e.isError() ? QStringLiteral(": ") + e.message : QString());
    }
    showSources();
}

void SlowlogPanel::updateStatus()
{
    QStringList parts;
    const int rows = m_model->rowCount();
    parts << (rows == 1 ? tr("1 entry") : tr("%1 entries").arg(format::count(quint64(rows))));
    int flagged = 0;
    for (int r = 0; r < rows; ++r)
        flagged += m_model->verdictAt(r).isProblem() ? 1 : 0;
    if (flagged > 0)
        parts << tr("%1 flagged").arg(flagged);
    if (m_missed > 0)
        parts << tr("%1 missed (the log wrapped between polls)").arg(format::count(quint64(m_missed)));
    if (m_resets > 0)
        parts << tr("log reset at %1")
                     .arg(QDateTime::fromMSecsSinceEpoch(m_lastResetMs).toString(QStringLiteral("HH:mm:ss")));
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

void SlowlogPanel::onActivated(const QModelIndex &index)
{
    const QModelIndex source = m_proxy->mapToSource(index);
    const QVariant key = m_model->data(source, RowTableRoles::KeyRole);
    if (key.isValid())
        Q_EMIT openKeyRequested(key.toByteArray(), KeyType::Unknown);
}

void SlowlogPanel::scheduleReplot()
{
    if (!m_replotTimer->isActive())
        m_replotTimer->start();
    updateStatus();
}

void SlowlogPanel::rebuildPlot()
{
    // Rebuilt from the model rather than appended to: flags change after the fact (key sizes
    // arrive later) and moving a point between graphs is the same work. At most 10,000 points,
    // at most once per poll.
    struct Point
    {
        qint64 t;
        double ms;
        bool flagged;
        PointKey key;
    };
    QList<Point> points;
    const int rows = m_model->rowCount();
    points.reserve(rows);
    for (int r = rows - 1; r >= 0; --r) {
        const SlowlogEntry &e = m_model->entryAt(r);
        // Log scale: a 0 µs entry (threshold 0) sits at 1 µs.
        points.append({e.timestamp, double(qMax<qint64>(1, e.durationUs)) / 1000.0, m_model->verdictAt(r).isProblem(),
                       PointKey{m_model->sourceAt(r), m_model->epochAt(r), e.id}});
    }
    std::stable_sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.t < b.t; });

    QVector<QCPGraphData> normal, flagged;
    m_normalPoints.clear();
    m_flaggedPoints.clear();
    double minMs = 0, maxMs = 0;
    for (const Point &p : std::as_const(points)) {
        (p.flagged ? flagged : normal).append(QCPGraphData(double(p.t), p.ms));
        (p.flagged ? m_flaggedPoints : m_normalPoints).append(p.key);
        minMs = minMs == 0 ? p.ms : qMin(minMs, p.ms);
        maxMs = qMax(maxMs, p.ms);
    }
    m_normalGraph->data()->set(normal, true);
    m_flaggedGraph->data()->set(flagged, true);

    if (points.isEmpty()) {
        const double now = double(QDateTime::currentSecsSinceEpoch());
        m_plot->xAxis->setRange(now - 300, now);
        m_plot->yAxis->setRange(0.01, 100);
    } else {
        const double first = double(points.constFirst().t), last = double(points.constLast().t);
        // At least two minutes wide: entries have whole seconds, and a span of a few seconds
        // would put a tick label on every one of them.
        const double pad = qMax(chartstyle::kMinTimeSpanSecs / 2 - (last - first) / 2, (last - first) * 0.04);
        m_plot->xAxis->setRange(first - pad, last + pad);
        // Whole decades, at least two, so the log axis always has labelled ticks.
        double lower = std::pow(10.0, std::floor(std::log10(minMs)));
        const double upper = std::pow(10.0, std::ceil(std::log10(maxMs * 1.05)));
        if (upper / lower < 100)
            lower = upper / 100;
        m_plot->yAxis->setRange(lower, upper);
    }
    m_plotEmpty->setVisible(points.isEmpty());
    m_plot->replot();
}

bool SlowlogPanel::latencyMonitorOn() const
{
    return m_latency->isOn();
}

void SlowlogPanel::pollLatency()
{
    if (isActive())
        m_latency->poll();
}
