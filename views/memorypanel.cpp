// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorypanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "keyscanner.h"
#include "qcp.h"
#include "redisclient.h"
#include "tableview.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace {
constexpr int kBars = 12;
constexpr int kCommandsPerKey = MemoryReader::kCommandsPerKey;

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    QTableView *view = tableview::make(model, parent);
    view->setSortingEnabled(true);
    view->setAlternatingRowColors(true);
    view->horizontalHeader()->setStretchLastSection(false);
    return view;
}
} // namespace

MemoryPanel::MemoryPanel(RedisClient *scanClient, QWidget *parent)
    : Panel(parent),
      m_client(scanClient),
      m_reader(new MemoryReader(scanClient, this)),
      m_namespaceModel(new NamespaceMemoryModel(this)),
      m_topModel(new TopKeysModel(this))
{
    setObjectName(QStringLiteral("memoryPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    buildControls(layout);

    auto *split = new QSplitter(Qt::Vertical, this);
    QWidget *top = buildNamespaces(split);
    QWidget *bottom = buildTopKeys(split);
    split->addWidget(top);
    split->addWidget(bottom);
    layout->addWidget(split, 1);

    connectControls();

    // Tables and chart follow the scan a few times a second, not once per batch.
    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setInterval(400);
    connect(m_refreshTimer, &QTimer::timeout, this, [this] {
        if (m_dirty)
            refresh();
    });
    connect(m_client, &RedisClient::ready, this, [this] { updateHint(); });

    chartstyle::apply(m_plot, palette());
    m_bars->setPen(QPen(chartstyle::series(0, palette())));
    m_bars->setBrush(chartstyle::series(0, palette()));
    m_pauseButton->setEnabled(false);
    m_cancelButton->setEnabled(false);
    updateHint();
}

void MemoryPanel::buildControls(QVBoxLayout *layout)
{
    auto *controls = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Analyse memory"), this);
    m_runButton->setObjectName(QStringLiteral("analyseButton"));
    m_runButton->setToolTip(tr("Scan every key with MEMORY USAGE and its length command (paced)"));
    m_pauseButton = new QPushButton(tr("Pause"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(10);
    m_depth = new QComboBox(this);
    m_depth->addItem(tr("1 level"), 1);
    m_depth->addItem(tr("2 levels"), 2);
    m_depth->addItem(tr("3 levels"), 3);
    m_depth->setToolTip(tr("How many name segments make a namespace"));
    controls->addWidget(m_runButton);
    controls->addWidget(m_pauseButton);
    controls->addWidget(m_cancelButton);
    controls->addWidget(m_progress, 1);
    controls->addWidget(new QLabel(tr("Namespaces:"), this));
    controls->addWidget(m_depth);
    layout->addLayout(controls);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("memoryStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("memoryError"));
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_error);
}

QWidget *MemoryPanel::buildNamespaces(QWidget *parent)
{
    auto *top = new QSplitter(Qt::Horizontal, parent);
    m_plot = new QCustomPlot(top);
    m_plot->setObjectName(QStringLiteral("memoryChart"));
    m_plot->setMinimumHeight(180);
    m_bars = new QCPBars(m_plot->yAxis, m_plot->xAxis); // horizontal: namespaces down the side
    m_bars->setWidth(0.7);
    m_bars->setSelectable(QCP::stSingleData);
    m_plot->setInteractions(QCP::iSelectPlottables);
    chartstyle::label(m_plot->xAxis, tr("Memory (MEMORY USAGE)"));
    chartstyle::label(m_plot->yAxis, tr("Namespace"));
    m_plot->yAxis->setRangeReversed(true); // the biggest on top
    chartstyle::useBytesAxis(m_plot->xAxis);
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *, int index, QMouseEvent *) {
        if (index >= 0 && index < m_barPrefixes.size())
            emitNamespaceFilter(m_barPrefixes.at(index));
    });

    m_namespaceProxy = new QSortFilterProxyModel(this);
    m_namespaceProxy->setSourceModel(m_namespaceModel);
    m_namespaceProxy->setSortRole(NamespaceMemoryModel::SortRole);
    m_namespaceView = makeTable(m_namespaceProxy, top);
    m_namespaceView->setObjectName(QStringLiteral("namespaceTable"));
    m_namespaceView->sortByColumn(NamespaceMemoryModel::MemoryColumn, Qt::DescendingOrder);
    m_namespaceView->horizontalHeader()->setStretchLastSection(true);
    m_namespaceView->setToolTip(tr("Click a namespace to show its keys in the key browser"));
    connect(m_namespaceView, &QTableView::clicked, this, [this](const QModelIndex &index) {
        emitNamespaceFilter(m_namespaceProxy->data(index, NamespaceMemoryModel::KeyRole).toByteArray());
    });
    top->addWidget(m_plot);
    top->addWidget(m_namespaceView);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);
    top->setSizes({450, 550});
    return top;
}

QWidget *MemoryPanel::buildTopKeys(QWidget *parent)
{
    auto *bottom = new QWidget(parent);
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    auto *topBar = new QHBoxLayout;
    topBar->addWidget(new QLabel(tr("Top keys of"), bottom));
    m_topType = new QComboBox(bottom);
    m_topType->setObjectName(QStringLiteral("topKeysType"));
    m_topType->addItem(tr("every type"), int(KeyType::Unknown));
    for (KeyType t : {KeyType::String, KeyType::Hash, KeyType::List, KeyType::Set, KeyType::ZSet, KeyType::Stream})
        m_topType->addItem(keyTypeName(t), int(t));
    m_topRank = new QComboBox(bottom);
    m_topRank->setObjectName(QStringLiteral("topKeysRank"));
    m_topRank->addItem(tr("by memory"), false);
    m_topRank->addItem(tr("by length"), true);
    topBar->addWidget(m_topType);
    topBar->addWidget(m_topRank);
    topBar->addStretch(1);
    bottomLayout->addLayout(topBar);
    m_topProxy = new QSortFilterProxyModel(this);
    m_topProxy->setSourceModel(m_topModel);
    m_topProxy->setSortRole(TopKeysModel::SortRole);
    m_topView = makeTable(m_topProxy, bottom);
    m_topView->setObjectName(QStringLiteral("topKeysTable"));
    m_topView->sortByColumn(TopKeysModel::RankColumn, Qt::AscendingOrder);
    m_topView->horizontalHeader()->setSectionResizeMode(TopKeysModel::KeyColumn, QHeaderView::Stretch);
    m_topView->setColumnWidth(TopKeysModel::RankColumn, 44);
    m_topView->setColumnWidth(TopKeysModel::TypeColumn, 70);
    m_topView->setColumnWidth(TopKeysModel::MemoryColumn, 90);
    m_topView->setColumnWidth(TopKeysModel::ElementsColumn, 120);
    m_topView->setToolTip(tr("Double-click a key to open it"));
    connect(m_topView, &QTableView::activated, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(m_topProxy->data(index, TopKeysModel::KeyRole).toByteArray(),
                                KeyType(m_topProxy->data(index, TopKeysModel::TypeRole).toInt()));
    });
    bottomLayout->addWidget(m_topView, 1);
    return bottom;
}

void MemoryPanel::connectControls()
{
    const auto topChanged
        = [this] { setTopKeysView(KeyType(m_topType->currentData().toInt()), m_topRank->currentData().toBool()); };
    connect(m_topType, &QComboBox::currentIndexChanged, this, topChanged);
    connect(m_topRank, &QComboBox::currentIndexChanged, this, topChanged);
    connect(m_depth, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_runButton, &QPushButton::clicked, this, &MemoryPanel::startAnalysis);
    connect(m_cancelButton, &QPushButton::clicked, this, &MemoryPanel::cancelAnalysis);
    connect(m_pauseButton, &QPushButton::clicked, this, [this] {
        if (m_reader->isPaused())
            m_reader->resume();
        else
            m_reader->pause();
        m_pauseButton->setText(m_reader->isPaused() ? tr("Resume") : tr("Pause"));
    });
    connect(m_reader, &MemoryReader::statsAvailable, this, [this] { m_dirty = true; });
    connect(m_reader, &MemoryReader::keyCountAvailable, this, &MemoryPanel::onKeyCount);
    connect(m_reader, &MemoryReader::progressChanged, this, &MemoryPanel::onProgress);
    connect(m_reader, &MemoryReader::finished, this, &MemoryPanel::onFinished);
}

MemoryPanel::~MemoryPanel() = default;

bool MemoryPanel::isRunning() const
{
    return m_reader->isRunning();
}

void MemoryPanel::setSeparator(const QByteArray &separator)
{
    if (separator == stats().separator())
        return;
    m_reader->stats().setSeparator(separator);
    // Namespaces are summed as keys arrive: a new separator needs a new pass.
    if (m_finishedOnce || isRunning())
        m_status->setText(tr("The namespace separator changed: analyse again to regroup."));
}

void MemoryPanel::setDepth(int depth)
{
    m_depth->setCurrentIndex(qBound(1, depth, MemoryStats::kMaxDepth) - 1);
}

void MemoryPanel::setTopKeysView(KeyType type, bool byElements)
{
    const int typeIndex = m_topType->findData(int(type));
    if (typeIndex >= 0 && typeIndex != m_topType->currentIndex())
        m_topType->setCurrentIndex(typeIndex); // re-enters through the signal
    const int rankIndex = byElements ? 1 : 0;
    if (rankIndex != m_topRank->currentIndex())
        m_topRank->setCurrentIndex(rankIndex);
    // Lengths are only comparable within a type: "every type" always ranks by memory.
    const bool elements = byElements && type != KeyType::Unknown;
    m_topModel->setResults(elements ? stats().topByElements(type) : stats().topByMemory(type));
    m_topView->sortByColumn(TopKeysModel::RankColumn, Qt::AscendingOrder);
}

void MemoryPanel::activeChanged(bool active)
{
    if (active)
        updateHint();
}

void MemoryPanel::updateHint()
{
    if (isRunning() || m_finishedOnce || !m_client->isReady())
        return;
    m_reader->readKeyCount();
}

void MemoryPanel::onKeyCount(qint64 keys)
{
    if (isRunning() || m_finishedOnce)
        return;
    m_dbsize = keys;
    QString text = tr("Press Analyse to measure every key: MEMORY USAGE (default samples) and its length, "
                      "%1 commands per key.")
                       .arg(kCommandsPerKey);
    if (m_dbsize >= 0 && m_scanRate > 0)
        text += tr(" %1 keys at the pacing ceiling of %2 commands/s take about %3.")
                    .arg(format::count(quint64(m_dbsize)), format::count(quint64(m_scanRate)),
                         format::duration(m_dbsize * kCommandsPerKey * 1000 / m_scanRate));
    else if (m_scanRate == kAdaptivePacing)
        text += tr(" The scan paces itself by the server's load: at full speed on an idle server, slower when "
                   "other clients are busy.");
    m_status->setText(text);
}

void MemoryPanel::startAnalysis()
{
    m_error->hide();
    m_lastProgress = {};
    m_reader->start(m_scanRate);
    m_progress->setValue(0);
    m_runButton->setText(tr("Analyse again"));
    m_pauseButton->setEnabled(true);
    m_pauseButton->setText(tr("Pause"));
    m_cancelButton->setEnabled(true);
    m_status->setText(tr("Analysing…"));
    m_refreshTimer->start();
    refresh();
}

void MemoryPanel::cancelAnalysis()
{
    m_reader->cancel();
}

void MemoryPanel::onProgress(const ScanProgress &p)
{
    m_lastProgress = p;
    if (p.dbsize > 0)
        m_progress->setValue(int(qMin<double>(1000, 1000.0 * double(p.returned) / double(p.dbsize))));
    if (p.waitingForConnection)
        m_status->setText(tr("Waiting for the connection: %1").arg(p.error.message));
}

void MemoryPanel::onFinished(const ScanProgress &p)
{
    m_lastProgress = p;
    m_refreshTimer->stop();
    m_pauseButton->setEnabled(false);
    m_cancelButton->setEnabled(false);
    m_progress->setValue(1000);
    refresh();
    if (p.error && p.error.kind != RedisError::Kind::Cancelled) {
        m_error->setText(tr("The analysis stopped: %1").arg(p.error.message));
        m_error->show();
    }
    const bool first = !m_finishedOnce;
    m_finishedOnce = true;
    Q_EMIT analysisFinished(p);
    if (first)
        Q_EMIT contentReady();
}

void MemoryPanel::refresh()
{
    m_dirty = false;
    const int depth = m_depth->currentData().toInt();
    m_namespaceModel->setResults(stats().namespaces(depth), stats().totalMemory());
    m_namespaceView->sortByColumn(m_namespaceView->horizontalHeader()->sortIndicatorSection(),
                                  m_namespaceView->horizontalHeader()->sortIndicatorOrder());
    // A few dozen rows at most: measuring them is cheap, and names should not be cut.
    if (m_namespaceModel->rowCount() > 0 && !m_namespaceSized) {
        m_namespaceView->resizeColumnsToContents();
        m_namespaceSized = !isRunning();
    }
    setTopKeysView(KeyType(m_topType->currentData().toInt()), m_topRank->currentData().toBool());
    updateChart();

    const ScanProgress &p = m_lastProgress;
    QString text = tr("%1 keys · %2 in MEMORY USAGE")
                       .arg(format::count(stats().keyCount()), format::bytes(stats().totalMemory()));
    if (p.elapsedSeconds > 0)
        text += tr(" · %1").arg(format::duration(qint64(p.elapsedSeconds * 1000)));
    if (p.vanished > 0)
        text += tr(" · %1 deleted while scanning").arg(format::count(p.vanished));
    if (isRunning())
        text += m_reader->isPaused() ? tr(" · paused") : tr(" · scanning…");
    else if (p.error.kind == RedisError::Kind::Cancelled)
        text += tr(" · cancelled: figures cover the keys scanned so far");
    m_status->setText(text);

    // Every MEMORY USAGE failed: almost always an ACL without +memory.
    if (stats().keyCount() > 0 && stats().measuredCount() == 0) {
        m_error->setText(
            tr("MEMORY USAGE was refused for every key (the user needs +memory|usage); sizes by length only."));
        m_error->show();
    }
}

void MemoryPanel::updateChart()
{
    const QList<NamespaceMemory> rows = stats().namespaces(m_depth->currentData().toInt());
    QVector<double> keys, values;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    m_barPrefixes.clear();
    for (int i = 0; i < rows.size() && i < kBars; ++i) {
        const NamespaceMemory &ns = rows.at(i);
        keys.append(i);
        values.append(double(ns.memory));
        m_barPrefixes.append(ns.prefix);
        QString label = ns.prefix.isEmpty() ? tr("(no namespace)") : bytesescape::escape(ns.prefix);
        if (label.size() > 28)
            label = label.left(27) + QChar(0x2026);
        ticker->addTick(i, label);
    }
    m_bars->setData(keys, values, true);
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(-0.6, qMax(5, int(keys.size())) - 0.4);
    m_plot->yAxis->setRangeReversed(true);
    double max = 0;
    for (double v : std::as_const(values))
        max = qMax(max, v);
    m_plot->xAxis->setRange(0, max > 0 ? max * 1.08 : 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryPanel::emitNamespaceFilter(const QByteArray &prefix)
{
    // Keys without a namespace have no prefix to filter by; the tree shows them at its top.
    if (prefix.isEmpty())
        return;
    KeyFilter filter;
    filter.prefix = prefix;
    filter.label = tr("namespace %1").arg(bytesescape::escape(prefix));
    Q_EMIT filterKeysRequested(filter);
}

void MemoryPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        chartstyle::apply(m_plot, palette());
        m_bars->setPen(QPen(chartstyle::series(0, palette())));
        m_bars->setBrush(chartstyle::series(0, palette()));
    }
    Panel::changeEvent(event);
}
