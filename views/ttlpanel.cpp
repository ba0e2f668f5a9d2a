// SPDX-License-Identifier: GPL-3.0-or-later
#include "ttlpanel.h"

#include "chartstyle.h"
#include "format.h"
#include "keyspacereader.h"
#include "redisclient.h"

#include "qcp.h"
#include <QDateTime>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace {
constexpr int kInfoIntervalMs = 10'000;
constexpr int kFlushMs = 250; // scan batches are drawn at most this often
constexpr int kTickMs = 2000; // remaining TTLs move with the clock
constexpr int kBinSeconds = 10; // forecast bars
constexpr int kMaxCliffLabels = 4;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString clock(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1);
}

// Integer ticks however small or large the counts (no "0.5 keys").
void useCountTicks(QCPAxis *axis)
{
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(ticker);
}

QCPItemText *makeText(QCustomPlot *plot)
{
    auto *t = new QCPItemText(plot);
    t->position->setType(QCPItemPosition::ptPlotCoords);
    t->setClipToAxisRect(true);
    t->setPadding(QMargins(3, 1, 3, 1));
    return t;
}
} // namespace

TtlPanel::TtlPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_model(new TtlNamespaceModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_keyspace(new KeyspaceReader(client, this)),
      m_infoTimer(new QTimer(this)),
      m_flushTimer(new QTimer(this)),
      m_tickTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("ttl"));

    buildLabels();
    buildHistogram();
    buildNamespaceTable();
    QLabel *forecastTitle = buildForecast();
    layOut(forecastTitle);

    m_infoTimer->setInterval(kInfoIntervalMs);
    connect(m_infoTimer, &QTimer::timeout, this, &TtlPanel::requestInfo);
    connect(m_keyspace, &KeyspaceReader::keyspaceAvailable, this, &TtlPanel::onKeyspace);
    connect(m_keyspace, &KeyspaceReader::failed, this, &TtlPanel::onKeyspaceFailed);
    m_flushTimer->setSingleShot(true);
    m_flushTimer->setInterval(kFlushMs);
    connect(m_flushTimer, &QTimer::timeout, this, &TtlPanel::refresh);
    m_tickTimer->setInterval(kTickMs);
    connect(m_tickTimer, &QTimer::timeout, this, [this] {
        if (m_stats.keyCount() > 0)
            refresh();
    });
    if (m_client) {
        connect(m_client, &RedisClient::ready, this, [this] {
            if (isActive())
                requestInfo();
        });
    }

    applyStyle();
    refresh();
}

TtlPanel::~TtlPanel() = default;

void TtlPanel::buildLabels()
{
    m_seedLabel = new QLabel(tr("Server figures (INFO keyspace): not read yet"), this);
    m_seedLabel->setObjectName(QStringLiteral("ttlSeed"));
    m_seedLabel->setWordWrap(true);
    m_seedLabel->setTextFormat(Qt::RichText); // numbers only; the current database in bold
    m_scanLabel = new QLabel(this);
    m_scanLabel->setObjectName(QStringLiteral("ttlScan"));
    m_scanLabel->setWordWrap(true);
    m_scanLabel->setTextFormat(Qt::PlainText);
    m_errorLabel = new QLabel(this);
    m_errorLabel->setObjectName(QStringLiteral("ttlError"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextFormat(Qt::PlainText);
    m_errorLabel->hide();
}

// Histogram of remaining TTL: the no-TTL bar apart, so it can carry the warning colour.
void TtlPanel::buildHistogram()
{
    m_histTitle = new QLabel(this);
    m_histTitle->setObjectName(QStringLiteral("ttlHistogramTitle"));
    m_histTitle->setWordWrap(true);
    m_histTitle->setTextFormat(Qt::PlainText); // carries key-name prefixes
    m_histogram = new QCustomPlot(this);
    m_histogram->setObjectName(QStringLiteral("ttlHistogram"));
    m_histogram->setMinimumSize(320, 220);
    m_noTtlBars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    m_ttlBars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    m_selectionBars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    m_selectionBars->setSelectable(QCP::stNone); // an outline over the selected bar
    for (QCPBars *b : {m_noTtlBars, m_ttlBars, m_selectionBars})
        b->setWidth(0.7);
    QSharedPointer<QCPAxisTickerText> bucketTicks(new QCPAxisTickerText);
    for (int b = 0; b < ttlbucket::Count; ++b) {
        // Two lines ("15–60" over "min"), so the labels fit under narrow bars.
        QString tick = ttlbucket::label(b);
        const qsizetype space = tick.lastIndexOf(QLatin1Char(' '));
        if (space > 0)
            tick[space] = QLatin1Char('\n');
        bucketTicks->addTick(b, tick);
    }
    m_histogram->xAxis->setTicker(bucketTicks);
    m_histogram->xAxis->setRange(-0.6, ttlbucket::Count - 0.4);
    m_histogram->xAxis->grid()->setVisible(false);
    useCountTicks(m_histogram->yAxis);
    chartstyle::label(m_histogram->xAxis, tr("Remaining TTL"));
    chartstyle::label(m_histogram->yAxis, tr("Keys"));
    for (int b = 0; b < ttlbucket::Count; ++b) {
        QCPItemText *t = makeText(m_histogram);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        m_barLabels.append(t);
    }
    m_histNote = new QCPItemText(m_histogram);
    m_histNote->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_histNote->position->setCoords(0.58, 0.45);
    m_histNote->setTextAlignment(Qt::AlignCenter);
    connect(m_histogram, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable *p, int dataIndex, QMouseEvent *) { onBarClicked(p, dataIndex); });
}

void TtlPanel::buildNamespaceTable()
{
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("ttlNamespaces"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RowTableRoles::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TtlNamespaceModel::KeysColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setMinimumSectionSize(40);
    // Names first: a namespace cut to three letters says nothing, a TTL column only needs "23h 59m".
    m_table->setColumnWidth(TtlNamespaceModel::NamespaceColumn,
                            m_table->fontMetrics().horizontalAdvance(QStringLiteral("(no namespace)")) + 16);
    const QFontMetrics metrics = m_table->horizontalHeader()->fontMetrics();
    for (int c = TtlNamespaceModel::KeysColumn; c < TtlNamespaceModel::ColumnCount; ++c) {
        const QString header = m_model->headerData(c, Qt::Horizontal).toString();
        m_table->setColumnWidth(
            c, qMax(metrics.horizontalAdvance(header), metrics.horizontalAdvance(QStringLiteral("23h 59m"))) + 22);
    }
    connect(m_table, &QTableView::clicked, this, &TtlPanel::onNamespaceClicked);
}

// Forecast: keys expiring per 10 s over the next hour on a wall-clock axis. Returns its title.
QLabel *TtlPanel::buildForecast()
{
    auto *forecastTitle = new QLabel(tr("Expiry forecast, next 60 minutes"), this);
    m_forecast = new QCustomPlot(this);
    m_forecast->setObjectName(QStringLiteral("ttlForecast"));
    m_forecast->setMinimumSize(320, 180);
    m_forecastBars = new QCPBars(m_forecast->xAxis, m_forecast->yAxis);
    m_forecastBars->setWidth(kBinSeconds * 0.85);
    m_cliffBars = new QCPBars(m_forecast->xAxis, m_forecast->yAxis);
    // A cliff is one bin among 360: wide enough in pixels to be seen.
    m_cliffBars->setWidthType(QCPBars::wtAbsolute);
    m_cliffBars->setWidth(4);
    chartstyle::useTimeAxis(m_forecast->xAxis);
    useCountTicks(m_forecast->yAxis);
    chartstyle::label(m_forecast->xAxis, tr("Expiry time"));
    chartstyle::label(m_forecast->yAxis, tr("Keys expiring per %1 s").arg(kBinSeconds));
    m_forecastNote = new QCPItemText(m_forecast);
    m_forecastNote->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_forecastNote->position->setCoords(0.5, 0.45);
    m_forecastCounts = new QLabel(this);
    m_forecastCounts->setObjectName(QStringLiteral("ttlForecastCounts"));
    m_forecastCounts->setTextFormat(Qt::PlainText);
    m_cliffLabel = new QLabel(this);
    m_cliffLabel->setObjectName(QStringLiteral("ttlCliffs"));
    m_cliffLabel->setWordWrap(true);
    m_cliffLabel->setTextFormat(Qt::PlainText);
    return forecastTitle;
}

void TtlPanel::layOut(QLabel *forecastTitle)
{
    auto *histBox = new QWidget(this);
    auto *histLayout = new QVBoxLayout(histBox);
    histLayout->setContentsMargins(0, 0, 0, 0);
    histLayout->addWidget(m_histTitle);
    histLayout->addWidget(m_histogram, 1);
    auto *tableBox = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(new QLabel(tr("Per namespace (click one to filter the key browser)"), tableBox));
    tableLayout->addWidget(m_table, 1);
    auto *top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(histBox);
    top->addWidget(tableBox);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);
    top->setSizes({440, 560});
    top->setChildrenCollapsible(false);

    auto *forecastBox = new QWidget(this);
    auto *forecastLayout = new QVBoxLayout(forecastBox);
    forecastLayout->setContentsMargins(0, 0, 0, 0);
    forecastLayout->addWidget(forecastTitle);
    forecastLayout->addWidget(m_forecast, 1);
    forecastLayout->addWidget(m_forecastCounts);
    forecastLayout->addWidget(m_cliffLabel);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(forecastBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_seedLabel);
    layout->addWidget(m_scanLabel);
    layout->addWidget(m_errorLabel);
    layout->addWidget(split, 1);
}

QByteArray TtlPanel::selectedPrefix() const
{
    return m_namespace >= 0 && m_namespace < m_snapshot.namespaces.size() ? m_snapshot.namespaces.at(m_namespace).prefix
                                                                          : QByteArray();
}

void TtlPanel::scanStarted(quint64 generation)
{
    m_generation = generation;
    m_scanDbsize = -1;
    m_scanning = true;
    m_scanDone = false;
    m_stats.clear(); // grows in shards and segments: nothing to reserve
    m_namespace = -1;
    refresh();
}

void TtlPanel::addScanBatch(const ScanBatch &batch)
{
    if (batch.generation != m_generation) {
        if (batch.generation < m_generation)
            return; // a scan that was replaced
        scanStarted(batch.generation); // the lead wired batches only: a newer scan began
    }
    m_stats.add(batch);
    scheduleRefresh();
}

void TtlPanel::scanFinished()
{
    m_scanning = false;
    m_scanDone = true;
    m_flushTimer->stop();
    if (isActive())
        refresh();
    else
        m_dirty = true;
}

void TtlPanel::setScanProgress(const ScanProgress &progress)
{
    if (progress.generation != m_generation || progress.dbsize == m_scanDbsize)
        return;
    m_scanDbsize = progress.dbsize;
    updateHeader();
}

void TtlPanel::setSeparator(const QByteArray &separator)
{
    if (separator == m_stats.separator())
        return;
    m_stats.setSeparator(separator);
    m_namespace = -1;
    refresh();
}

void TtlPanel::scheduleRefresh()
{
    if (!isActive()) {
        m_dirty = true; // drawn when the panel is shown
        return;
    }
    if (!m_flushTimer->isActive())
        m_flushTimer->start();
}

void TtlPanel::activeChanged(bool active)
{
    if (active) {
        requestInfo();
        m_infoTimer->start();
        m_tickTimer->start();
        if (m_dirty || m_stats.keyCount() > 0)
            refresh();
    } else {
        m_infoTimer->stop();
        m_tickTimer->stop();
        m_flushTimer->stop();
    }
}

void TtlPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyStyle();
    Panel::changeEvent(event);
}

void TtlPanel::requestInfo()
{
    m_keyspace->refresh();
}

void TtlPanel::onKeyspaceFailed(const RedisError &e)
{
    const QString user
        = m_client->profile().username.isEmpty() ? QStringLiteral("default") : m_client->profile().username;
    m_errorLabel->setText(e.kind == RedisError::Kind::NoPerm
                              ? tr("Server figures unavailable: INFO needs +info for user %1.").arg(user)
                              : tr("Server figures unavailable: %1").arg(e.message));
    m_errorLabel->show();
}

void TtlPanel::onKeyspace(const QList<KeyspaceDb> &databases)
{
    m_errorLabel->hide();
    m_seed = databases;
    m_seedAtMs = nowMs();
    m_haveSeed = true;
    updateHeader();
    if (m_stats.keyCount() == 0)
        updateHistogram();
    markContent();
}

const KeyspaceDb *TtlPanel::seedForCurrentDb() const
{
    const int db = m_client ? m_client->profile().db : 0;
    for (const KeyspaceDb &d : m_seed)
        if (d.db == db)
            return &d;
    return nullptr;
}

void TtlPanel::refresh()
{
    m_dirty = false;
    m_flushTimer->stop();
    m_snapshot = m_stats.snapshot(nowMs());
    m_model->setSnapshot(m_snapshot);
    if (m_namespace >= m_snapshot.namespaces.size())
        m_namespace = -1;
    updateHeader();
    updateHistogram();
    updateForecast();
    if (m_snapshot.keys > 0)
        markContent();
}

void TtlPanel::markContent()
{
    if (m_contentShown)
        return;
    m_contentShown = true;
    Q_EMIT contentReady();
}

void TtlPanel::updateHeader()
{
    if (!m_haveSeed) {
        m_seedLabel->setText(tr("Server figures (INFO keyspace): not read yet"));
    } else {
        const int current = m_client ? m_client->profile().db : 0;
        QStringList dbs;
        for (const KeyspaceDb &d : std::as_const(m_seed)) {
            QString line = tr("db%1: %2 keys, %3 with TTL")
                               .arg(d.db)
                               .arg(format::count(quint64(d.keys)), format::count(quint64(d.expires)));
            if (d.keys > 0)
                line += QStringLiteral(" (%1)").arg(percent(double(d.expires) / double(d.keys)));
            // The server estimates avg_ttl while it expires keys; 0 means "not sampled yet".
            if (d.expires > 0)
                line += d.avgTtlMs > 0 ? tr(", avg TTL %1").arg(format::duration(d.avgTtlMs))
                                       : tr(", avg TTL not sampled yet");
            dbs.append(d.db == current ? QStringLiteral("<b>%1</b>").arg(line) : line);
        }
        if (!seedForCurrentDb())
            dbs.prepend(QStringLiteral("<b>%1</b>").arg(tr("db%1 is empty").arg(current)));
        m_seedLabel->setText(
            tr("Server's own figures (INFO keyspace, %1): %2").arg(clock(m_seedAtMs), dbs.join(QStringLiteral("; "))));
    }

    const TtlSnapshot &s = m_snapshot;
    if (s.keys == 0 && !m_scanning) {
        m_scanLabel->setText(m_scanDone ? tr("From the scan: no keys.")
                                        : tr("From the scan: nothing yet. Buckets, namespaces and the forecast "
                                             "come from the key browser's scan (PTTL per key)."));
        return;
    }
    const quint64 noTtl = s.buckets[ttlbucket::NoTtl];
    const quint64 withTtl = s.keys - noTtl - s.unknown;
    QString text = tr("From the scan: %1 keys (%2 with TTL, %3 without")
                       .arg(format::count(s.keys), format::count(withTtl), format::count(noTtl));
    if (s.unknown > 0)
        text += tr(", %1 unknown").arg(format::count(s.unknown));
    text += QLatin1Char(')');
    if (s.expired > 0)
        text += tr(", %1 expired since they were read").arg(format::count(s.expired));
    if (m_scanning) {
        const KeyspaceDb *seed = seedForCurrentDb();
        const qint64 total = m_scanDbsize > 0 ? m_scanDbsize : seed ? seed->keys : -1;
        if (total > 0)
            text += tr(" · scan running, about %1 of the server's %2 keys")
                        .arg(percent(qMin(1.0, double(s.keys) / double(total))), format::count(quint64(total)));
        else
            text += tr(" · scan running…");
    } else {
        text += tr(" · scan complete");
    }
    m_scanLabel->setText(text);
}

void TtlPanel::updateHistogram()
{
    const QPalette &pal = palette();
    const bool fromScan = m_snapshot.keys > 0;
    const bool selected = fromScan && m_namespace >= 0 && m_namespace < m_snapshot.namespaces.size();
    const TtlNamespaceStats *ns = selected ? &m_snapshot.namespaces.at(m_namespace) : nullptr;
    const KeyspaceDb *seed = seedForCurrentDb();

    TtlBucketCounts counts{};
    if (fromScan)
        counts = ns ? ns->buckets : m_snapshot.buckets;
    else if (seed)
        counts[ttlbucket::NoTtl] = quint64(qMax<qint64>(0, seed->keys - seed->expires));

    m_noTtlBars->setData({0.0}, {double(counts[ttlbucket::NoTtl])}, true);
    QVector<double> keys;
    QVector<double> values;
    for (int b = ttlbucket::UnderMinute; b < ttlbucket::Count; ++b) {
        keys.append(b);
        values.append(double(counts[size_t(b)]));
    }
    m_ttlBars->setData(keys, values, true);
    if (m_bucket >= 0)
        m_selectionBars->setData({double(m_bucket)}, {double(counts[size_t(m_bucket)])}, true);
    else
        m_selectionBars->data()->clear();

    const quint64 top = *std::max_element(counts.begin(), counts.end());
    // Headroom for the count above the tallest bar.
    m_histogram->yAxis->setRange(0, qMax(4.0, double(top) * 1.18));
    for (int b = 0; b < ttlbucket::Count; ++b) {
        QCPItemText *t = m_barLabels.at(b);
        const bool show = fromScan || (b == ttlbucket::NoTtl && seed);
        t->setVisible(show);
        t->position->setCoords(b, double(counts[size_t(b)]));
        t->setText(format::count(counts[size_t(b)]));
    }

    QString title = !fromScan ? tr("Remaining TTL, server figures until the scan reads PTTL")
        : ns                  ? tr("Remaining TTL in %1").arg(ns->displayName())
                              : tr("Remaining TTL, all namespaces");
    if (fromScan) {
        const quint64 unknown = ns ? ns->unknown : m_snapshot.unknown;
        const quint64 expired = ns ? ns->expired : m_snapshot.expired;
        if (unknown > 0)
            title += tr(" · %1 with unknown TTL (no bar)").arg(format::count(unknown));
        if (expired > 0)
            title += tr(" · %1 expired since read").arg(format::count(expired));
        title += tr(" · click a bar to filter the key browser");
    }
    m_histTitle->setText(title);

    if (fromScan) {
        m_histNote->setVisible(false);
    } else if (seed) {
        QString note = tr("Server: no key has a TTL.");
        if (seed->expires > 0 && seed->avgTtlMs > 0)
            note = tr("Server: %1 keys have a TTL, %2 on average.\nThe scan sorts them into buckets.")
                       .arg(format::count(quint64(seed->expires)), format::duration(seed->avgTtlMs));
        else if (seed->expires > 0)
            note = tr("Server: %1 keys have a TTL.\nThe scan sorts them into buckets.")
                       .arg(format::count(quint64(seed->expires)));
        m_histNote->setText(note);
        m_histNote->setVisible(true);
    } else {
        m_histNote->setText(m_haveSeed ? tr("This database is empty.") : tr("Waiting for data…"));
        m_histNote->setVisible(true);
    }
    // Until the scan reads PTTL, the server's no-TTL bar is an estimate for the whole
    // database: drawn lighter than the scan's own.
    QColor warn = chartstyle::warning(pal);
    if (!fromScan)
        warn.setAlpha(140);
    m_noTtlBars->setBrush(warn);
    m_histogram->replot(QCustomPlot::rpQueuedReplot);
}

void TtlPanel::updateForecast()
{
    const TtlSnapshot &s = m_snapshot;
    const double start = double(s.forecastStartMs) / 1000.0;
    const int bins = (int(s.perSecond.size()) + kBinSeconds - 1) / kBinSeconds;
    std::vector<double> perBin(size_t(bins), 0.0);
    for (size_t i = 0; i < s.perSecond.size(); ++i)
        perBin[i / kBinSeconds] += s.perSecond[i];
    std::vector<bool> cliffBin(size_t(bins), false);
    for (const TtlCliff &c : s.cliffs) {
        const qint64 first = (c.startMs - s.forecastStartMs) / 1000 / kBinSeconds;
        const qint64 last = (c.endMs - 1 - s.forecastStartMs) / 1000 / kBinSeconds;
        for (qint64 b = qMax<qint64>(0, first); b <= last && b < bins; ++b)
            cliffBin[size_t(b)] = true;
    }
    QVector<double> keys, values, cliffKeys, cliffValues;
    double top = 0;
    double cliffTop = 0;
    for (int b = 0; b < bins; ++b) {
        if (perBin[size_t(b)] <= 0)
            continue;
        const double key = start + b * kBinSeconds + kBinSeconds / 2.0;
        (cliffBin[size_t(b)] ? cliffKeys : keys).append(key);
        (cliffBin[size_t(b)] ? cliffValues : values).append(perBin[size_t(b)]);
        (cliffBin[size_t(b)] ? cliffTop : top) = qMax(cliffBin[size_t(b)] ? cliffTop : top, perBin[size_t(b)]);
    }
    m_forecastBars->setData(keys, values, true);
    m_cliffBars->setData(cliffKeys, cliffValues, true);
    m_forecast->xAxis->setRange(start, start + TtlStats::kForecastSeconds);
    // A cliff can be a hundred times the ordinary bins: scaled to it, they would vanish. The
    // axis follows the ordinary bins and a taller cliff runs off the top, its count on the label.
    const double yTop = top > 0 ? qMax(4.0, top * 1.8) : qMax(4.0, cliffTop * 1.3);
    m_forecast->yAxis->setRange(0, yTop);

    // Labels for the largest cliffs, naming the namespace that dominates each.
    for (QCPItemText *t : std::as_const(m_cliffTexts))
        m_forecast->removeItem(t);
    m_cliffTexts.clear();
    QList<TtlCliff> biggest = s.cliffs;
    std::sort(biggest.begin(), biggest.end(), [](const TtlCliff &a, const TtlCliff &b) { return a.keys > b.keys; });
    if (biggest.size() > kMaxCliffLabels)
        biggest.resize(kMaxCliffLabels);
    const QColor bad = chartstyle::bad(palette());
    QColor backdrop = palette().color(QPalette::Base);
    backdrop.setAlpha(210);
    // Labels on steps down from the top, so that two cliffs close in time do not print over
    // each other.
    int level = 0;
    for (const TtlCliff &c : std::as_const(biggest)) {
        const qint64 bin = (c.peakSecondMs - s.forecastStartMs) / 1000 / kBinSeconds;
        const double key = start + double(bin * kBinSeconds) + kBinSeconds / 2.0;
        const double value = qMin(perBin[size_t(bin)], yTop * (0.86 - 0.14 * level++));
        QCPItemText *t = makeText(m_forecast);
        const QString ns = c.dominantNamespace >= 0 ? s.namespaces.at(c.dominantNamespace).displayName() : QString();
        t->setText(tr("%1 %2 keys at %3").arg(ns, format::count(c.keys), clock(c.startMs)));
        t->setColor(bad);
        t->setBrush(backdrop);
        const double ratio = (key - start) / TtlStats::kForecastSeconds;
        const Qt::Alignment side = ratio < 0.2 ? Qt::AlignLeft : ratio > 0.8 ? Qt::AlignRight : Qt::AlignHCenter;
        t->setPositionAlignment(Qt::AlignBottom | side);
        t->position->setCoords(key, value);
        m_cliffTexts.append(t);
    }
    m_forecastNote->setText(s.keys == 0 ? tr("The forecast comes from the scan.")
                                        : tr("No key expires in the next hour."));
    m_forecastNote->setVisible(s.within60m == 0);
    m_forecast->replot(QCustomPlot::rpQueuedReplot);

    m_forecastCounts->setText(
        s.keys == 0 ? QString()
                    : tr("Expiring within 1 minute: %1 · 5 minutes: %2 · 60 minutes: %3")
                          .arg(format::count(s.within1m), format::count(s.within5m), format::count(s.within60m)));
    m_cliffLabel->setToolTip(tr("A cliff is a second in which at least %1 keys expire and at least %2 times as many as "
                                "in the seconds around it (±%3 min). Keys written together with the same TTL and no "
                                "jitter expire together, and recomputing them hits the backend at once.")
                                 .arg(TtlStats::kCliffMinKeys)
                                 .arg(TtlStats::kCliffFactor)
                                 .arg(TtlStats::kCliffNeighbourhoodSeconds / 60));
    if (s.cliffs.isEmpty()) {
        m_cliffLabel->setText(s.within60m > 0
                                  ? tr("No expiry cliff: no second in which unusually many keys expire together.")
                                  : QString());
        m_cliffLabel->setStyleSheet(QString());
    } else {
        const TtlCliff &c = biggest.first();
        const QString ns = c.dominantNamespace >= 0 ? s.namespaces.at(c.dominantNamespace).displayName() : QString();
        const QString factor = c.baselinePerSecond > 0
            ? tr("%1× the rate around it").arg(qRound(double(c.peak) / c.baselinePerSecond))
            : tr("nothing expires around it");
        QString text = tr("Expiry cliff at %1: %2 keys within %3 s, %4 of them in %5 (%6). Same TTL, no jitter?")
                           .arg(clock(c.startMs), format::count(c.keys))
                           .arg((c.endMs - c.startMs) / 1000)
                           .arg(format::count(c.dominantKeys), ns, factor);
        if (s.cliffs.size() > 1)
            text += tr(" %1 cliffs in the hour.").arg(s.cliffs.size());
        m_cliffLabel->setText(text);
        m_cliffLabel->setStyleSheet(QStringLiteral("color: %1").arg(bad.name()));
    }
}

void TtlPanel::applyStyle()
{
    const QPalette &pal = palette();
    chartstyle::apply(m_histogram, pal);
    chartstyle::apply(m_forecast, pal);
    m_ttlBars->setBrush(chartstyle::series(0, pal));
    m_ttlBars->setPen(Qt::NoPen);
    m_noTtlBars->setBrush(chartstyle::warning(pal));
    m_noTtlBars->setPen(Qt::NoPen);
    m_selectionBars->setBrush(Qt::NoBrush);
    m_selectionBars->setPen(QPen(pal.color(QPalette::Text), 2));
    m_forecastBars->setBrush(chartstyle::series(0, pal));
    m_forecastBars->setPen(Qt::NoPen);
    m_cliffBars->setBrush(chartstyle::bad(pal));
    m_cliffBars->setPen(Qt::NoPen);
    for (QCPItemText *t : std::as_const(m_barLabels))
        t->setColor(pal.color(QPalette::Text));
    QColor muted = pal.color(QPalette::Text);
    muted.setAlpha(170);
    m_histNote->setColor(muted);
    m_forecastNote->setColor(muted);
    updateHistogram();
    updateForecast();
}

void TtlPanel::onBarClicked(QCPAbstractPlottable *plottable, int dataIndex)
{
    int bucket = -1;
    if (plottable == m_noTtlBars)
        bucket = ttlbucket::NoTtl;
    else if (plottable == m_ttlBars && dataIndex >= 0 && dataIndex < m_ttlBars->data()->size())
        bucket = int(m_ttlBars->data()->at(dataIndex)->key);
    else if (plottable == m_selectionBars) // the outline lies on top of the selected bar
        bucket = m_bucket;
    if (bucket < 0)
        return;
    m_bucket = bucket == m_bucket ? -1 : bucket; // a second click on the same bar lets go
    updateHistogram();
    emitFilter();
}

void TtlPanel::onNamespaceClicked(const QModelIndex &index)
{
    const QModelIndex source = m_proxy->mapToSource(index);
    if (!source.isValid() || !source.data(TtlNamespaceModel::HasPrefixRole).toBool())
        return;
    const int ns = source.data(TtlNamespaceModel::NamespaceIndexRole).toInt();
    if (ns == m_namespace) {
        m_namespace = -1;
        m_table->clearSelection();
    } else {
        m_namespace = ns;
    }
    updateHistogram();
    emitFilter();
}

void TtlPanel::emitFilter()
{
    // Bucket and namespace combine; with neither the filter is empty (show every key).
    Q_EMIT filterKeysRequested(TtlStats::filterFor(m_bucket, selectedPrefix()));
}
