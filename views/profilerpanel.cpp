// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilerpanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "hotkeysreader.h"
#include "panelparts.h"
#include "profilerreader.h"
#include "redisclient.h"
#include "tableview.h"

#include <QButtonGroup>
#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "qcp.h"

#include <cmath>

using profiler::CommandRate;
using profiler::HotKey;
using profiler::MonitorSummary;

namespace {

constexpr int kDefaultCaptureLines = 10000;
constexpr int kDefaultCaptureSeconds = 5;
constexpr double kChartWindowSecs = 600;
constexpr double kChartMinSecs = 60;

QString rateText(double perSec)
{
    if (perSec < 0)
        return QStringLiteral("–");
    if (perSec == 0)
        return QStringLiteral("0");
    if (perSec < 10)
        return QString::number(perSec, 'f', perSec < 1 ? 2 : 1);
    return format::count(quint64(std::llround(perSec)));
}

QString latencyText(double usec)
{
    if (usec < 0)
        return QStringLiteral("–");
    if (usec < 1000)
        return QStringLiteral("%1 µs").arg(usec, 0, 'f', usec < 10 ? 2 : 1);
    if (usec < 1000000)
        return QStringLiteral("%1 ms").arg(usec / 1000, 0, 'f', 2);
    return QStringLiteral("%1 s").arg(usec / 1e6, 0, 'f', 2);
}

QString percentText(double fraction)
{
    return QStringLiteral("%1 %").arg(fraction * 100, 0, 'f', fraction * 100 < 10 ? 1 : 0);
}

QString countText(qint64 n)
{
    return n < 0 ? QStringLiteral("–") : format::count(quint64(n));
}

QVariant right(int role)
{
    return role == Qt::TextAlignmentRole ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
}

// A numeric cell: shown as 'text', sorted by 'value', aligned right.
QVariant number(int role, double value, const QString &text, const QString &toolTip = {})
{
    switch (role) {
    case Qt::DisplayRole: return text;
    case RowTableRoles::SortRole: return value;
    case Qt::ToolTipRole: return toolTip.isEmpty() ? QVariant() : QVariant(toolTip);
    default: return right(role);
    }
}

QVariant textCell(int role, const QString &text, const QString &toolTip = {})
{
    if (role == Qt::DisplayRole)
        return text;
    if (role == Qt::ToolTipRole)
        return toolTip.isEmpty() ? text : toolTip;
    return {};
}

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent, const QString &name)
{
    QTableView *view = tableview::make(model, parent, name);
    view->setAlternatingRowColors(true);
    view->setSortingEnabled(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(panelparts::heading(title, box));
    layout->addWidget(content, 1);
    return box;
}

} // namespace

ProfilerPanel::ProfilerPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new ProfilerReader(client, this)),
      m_capture(new MonitorCapture(client, this)),
      m_hotKeys(new HotKeysReader(client, this))
{
    m_status = panelparts::statusLabel(QStringLiteral("profilerStatus"), tr("Waiting for the first reading…"), this);
    m_error = panelparts::statusLabel(QStringLiteral("profilerError"), {}, this);
    m_error->hide();
    auto *reset = new QPushButton(tr("New session"), this);
    reset->setObjectName(QStringLiteral("profilerReset"));
    reset->setToolTip(
        tr("Start the session's figures again from the next reading; the server's counters are not touched"));
    connect(reset, &QPushButton::clicked, this, &ProfilerPanel::resetSession);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("profilerTabs"));
    m_tabs->addTab(buildCommandsTab(), tr("Command rates"));
    m_tabs->addTab(buildCaptureTab(), tr("MONITOR capture"));
    m_tabs->addTab(buildHotKeysTab(), tr("Hot keys"));

    auto *header = new QHBoxLayout;
    header->addWidget(m_status, 1);
    header->addWidget(reset);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_error);
    layout->addWidget(m_tabs, 1);

    connect(m_reader, &ProfilerReader::statsAvailable, this, &ProfilerPanel::onStats);
    connect(m_reader, &ProfilerReader::errorChanged, this, &ProfilerPanel::onReaderError);
    connect(m_capture, &MonitorCapture::stateChanged, this, &ProfilerPanel::onCaptureState);
    connect(m_capture, &MonitorCapture::progress, this, &ProfilerPanel::updateCaptureStatus);
    connect(m_capture, &MonitorCapture::finished, this, [this] {
        updateCaptureStatus();
        showCaptureSummary();
    });
    connect(m_hotKeys, &HotKeysReader::progress, this, &ProfilerPanel::showHotKeys);
    connect(m_hotKeys, &HotKeysReader::finished, this, &ProfilerPanel::showHotKeys);

    applyStyle();
    rebuildChart();
    updateCaptureStatus();
    showHotKeys();
}

ProfilerPanel::~ProfilerPanel() = default;

QWidget *ProfilerPanel::buildCommandsTab()
{
    auto *page = new QWidget(this);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Rank and chart by:"), page));
    m_byCalls = new QRadioButton(tr("calls"), page);
    m_byCalls->setObjectName(QStringLiteral("profilerByCalls"));
    m_byCalls->setChecked(true);
    m_byTime = new QRadioButton(tr("server time"), page);
    m_byTime->setObjectName(QStringLiteral("profilerByTime"));
    auto *group = new QButtonGroup(page);
    group->addButton(m_byCalls);
    group->addButton(m_byTime);
    connect(m_byTime, &QRadioButton::toggled, this, &ProfilerPanel::setRankByTime);
    bar->addWidget(m_byCalls);
    bar->addWidget(m_byTime);
    bar->addStretch(1);

    m_plot = chartstyle::narrowTimePlot(page, QStringLiteral("profilerPlot"));
    m_plot->setMinimumHeight(200);
    chartstyle::label(m_plot->xAxis, tr("Time"));
    chartstyle::label(m_plot->yAxis, tr("Calls (/s)"));
    for (int i = 0; i < kChartedCommands; ++i) {
        QCPGraph *g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsLine);
        g->removeFromLegend();
        m_graphs.append(g);
    }
    chartstyle::putLegendAbove(m_plot);
    m_plotEmpty = new QCPItemText(m_plot);
    m_plotEmpty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_plotEmpty->position->setCoords(0.5, 0.5);
    m_plotEmpty->setText(tr("rates from the second reading on"));

    using Cell = RowTableModel<CommandRate>::Cell;
    const QList<RowTableModel<CommandRate>::Column> columns{
        {tr("Command"),
         Cell([](const CommandRate &r, int role) { return textCell(role, QString::fromUtf8(r.command).toUpper()); })},
        {tr("Calls/s"), Cell([](const CommandRate &r, int role) {
             return number(role, r.callsPerSec, rateText(r.callsPerSec),
                           tr("%1 calls since the server's counters started").arg(countText(r.totalCalls)));
         })},
        {tr("Avg latency"), Cell([](const CommandRate &r, int role) {
             return number(role, r.avgUsec, latencyText(r.avgUsec), tr("server time per call over the last interval"));
         })},
        {tr("Server time"), Cell([](const CommandRate &r, int role) {
             return number(role, r.timeShare, percentText(r.timeShare),
                           tr("%1 of all commands' time over the last interval; %2 of one core")
                               .arg(percentText(r.timeShare), percentText(r.usecPerSec / 1e6)));
         })},
        {tr("Session calls"), Cell([](const CommandRate &r, int role) {
             return number(role, double(r.sessionCalls), countText(r.sessionCalls),
                           tr("%1/s on average since the panel's first reading").arg(rateText(r.sessionCallsPerSec)));
         })},
        {tr("Session latency"), Cell([](const CommandRate &r, int role) {
             return number(role, r.sessionAvgUsec, latencyText(r.sessionAvgUsec),
                           tr("%1 of all commands' time over the session").arg(percentText(r.sessionTimeShare)));
         })},
        {tr("Change"), Cell([](const CommandRate &r, int role) {
             const double c = r.change();
             const QString text = std::isnan(c)
                 ? QStringLiteral("–")
                 : QStringLiteral("%1%2 %").arg(c >= 0 ? QStringLiteral("+") : QString()).arg(c * 100, 0, 'f', 0);
             return number(role, std::isnan(c) ? -1e9 : c, text, tr("calls/s now against the session's average"));
         })},
        {tr("Rejected/s"), Cell([](const CommandRate &r, int role) {
             return number(role, r.rejectedPerSec, rateText(r.rejectedPerSec),
                           r.sessionRejected < 0 ? tr("the server does not count them (before 7.0)")
                                                 : tr("%1 rejected in the session").arg(countText(r.sessionRejected)));
         })},
        {tr("Failed/s"), Cell([](const CommandRate &r, int role) {
             return number(role, r.failedPerSec, rateText(r.failedPerSec),
                           r.sessionFailed < 0 ? tr("the server does not count them (before 7.0)")
                                               : tr("%1 failed in the session").arg(countText(r.sessionFailed)));
         })},
    };
    RowTableModel<CommandRate>::Meta meta;
    meta.key = [](const CommandRate &r) { return r.command; };
    meta.severity = [](const CommandRate &r) {
        return r.sessionFailed > 0 || r.sessionRejected > 0 ? Severity::Warning : Severity::None;
    };
    m_commands = new RowTableModel<CommandRate>(columns, meta, this);
    m_commandsProxy = new SeverityProxyModel(this, this);
    m_commandsProxy->setSourceModel(m_commands);
    m_commandsView = makeTable(m_commandsProxy, page, QStringLiteral("profilerCommands"));
    m_commandsView->sortByColumn(1, Qt::DescendingOrder);
    const int digit = m_commandsView->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_commandsView->setColumnWidth(0, digit * 20);
    for (int c = 1; c < columns.size(); ++c)
        m_commandsView->setColumnWidth(c, digit * 13);

    auto *split = new QSplitter(Qt::Vertical, page);
    split->setObjectName(QStringLiteral("profilerSplitter"));
    split->addWidget(m_plot);
    split->addWidget(m_commandsView);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({300, 400});

    auto *layout = new QVBoxLayout(page);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
    return page;
}

QWidget *ProfilerPanel::buildCaptureTab()
{
    auto *page = new QWidget(this);
    m_captureWarning = panelparts::statusLabel(
        QStringLiteral("captureWarning"),
        tr("MONITOR makes the server copy every command it runs to RedisLens: while a capture runs, a busy server's "
           "throughput can halve. A capture is bounded: at most %1 s and %2 lines, and Stop ends it at once.")
            .arg(MonitorCapture::kMaxMs / 1000)
            .arg(format::count(MonitorCapture::kMaxLines)),
        page);

    m_maxLines = new QSpinBox(page);
    m_maxLines->setObjectName(QStringLiteral("captureMaxLines"));
    m_maxLines->setRange(100, MonitorCapture::kMaxLines);
    m_maxLines->setSingleStep(1000);
    m_maxLines->setGroupSeparatorShown(true);
    m_maxLines->setValue(kDefaultCaptureLines);
    m_maxSeconds = new QSpinBox(page);
    m_maxSeconds->setObjectName(QStringLiteral("captureMaxSeconds"));
    m_maxSeconds->setRange(1, MonitorCapture::kMaxMs / 1000);
    m_maxSeconds->setValue(kDefaultCaptureSeconds);
    m_maxSeconds->setSuffix(tr(" s"));
    m_startCapture = new QPushButton(tr("Start capture…"), page);
    m_startCapture->setObjectName(QStringLiteral("captureStart"));
    connect(m_startCapture, &QPushButton::clicked, this, &ProfilerPanel::startCapture);
    m_stopCapture = new QPushButton(tr("Stop"), page);
    m_stopCapture->setObjectName(QStringLiteral("captureStop"));
    m_stopCapture->setEnabled(false);
    connect(m_stopCapture, &QPushButton::clicked, this, &ProfilerPanel::stopCapture);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("At most"), page));
    controls->addWidget(m_maxLines);
    controls->addWidget(new QLabel(tr("lines and"), page));
    controls->addWidget(m_maxSeconds);
    controls->addWidget(m_startCapture);
    controls->addWidget(m_stopCapture);
    controls->addStretch(1);
    m_captureStatus = panelparts::statusLabel(QStringLiteral("captureStatus"), {}, page);

    using CountCell = RowTableModel<MonitorSummary::Count>::Cell;
    RowTableModel<MonitorSummary::Count>::Meta countMeta;
    countMeta.key = [](const MonitorSummary::Count &c) { return c.name; };
    m_captureCommands = new RowTableModel<MonitorSummary::Count>(
        {
            {tr("Command"), CountCell([](const MonitorSummary::Count &c, int role) {
                 return textCell(role, QString::fromUtf8(c.name).toUpper());
             })},
            {tr("Lines"), CountCell([](const MonitorSummary::Count &c, int role) {
                 return number(role, double(c.lines), countText(c.lines));
             })},
        },
        countMeta, this);

    using FamilyCell = RowTableModel<MonitorSummary::Family>::Cell;
    RowTableModel<MonitorSummary::Family>::Meta familyMeta;
    familyMeta.key = [](const MonitorSummary::Family &f) { return f.sampleKey; };
    m_captureFamilies = new RowTableModel<MonitorSummary::Family>(
        {
            {tr("Key family"),
             FamilyCell([](const MonitorSummary::Family &f, int role) { return textCell(role, f.family); })},
            {tr("Pattern"), FamilyCell([](const MonitorSummary::Family &f, int role) {
                 if (!f.kindKnown)
                     return textCell(role, tr("not read"), tr("only the busiest families' patterns are read"));
                 const QString why = tr("%1: %2").arg(bytesescape::quoteIfNeeded(f.sampleKey), f.kindReason);
                 // No pattern: the reason says more than "unknown" (the key was gone, say).
                 return textCell(role, f.kind == PatternKind::Unknown ? f.kindReason : patternKindName(f.kind), why);
             })},
            {tr("Key uses"), FamilyCell([](const MonitorSummary::Family &f, int role) {
                 return number(role, double(f.lines), countText(f.lines),
                               tr("commands that named a key of the family (a command naming three counts three)"));
             })},
            {tr("Keys"), FamilyCell([](const MonitorSummary::Family &f, int role) {
                 return number(role, f.keys, countText(f.keys));
             })},
            {tr("Top command"), FamilyCell([](const MonitorSummary::Family &f, int role) {
                 return textCell(role, QString::fromUtf8(f.topCommand).toUpper());
             })},
            {tr("Busiest key"), FamilyCell([](const MonitorSummary::Family &f, int role) {
                 return textCell(role, bytesescape::escapeElided(f.sampleKey, 200));
             })},
        },
        familyMeta, this);

    using ClientCell = RowTableModel<MonitorSummary::Client>::Cell;
    RowTableModel<MonitorSummary::Client>::Meta clientMeta;
    clientMeta.key = [](const MonitorSummary::Client &c) { return c.addr; };
    m_captureClients = new RowTableModel<MonitorSummary::Client>(
        {
            {tr("Client"), ClientCell([](const MonitorSummary::Client &c, int role) {
                 return textCell(role, QString::fromUtf8(c.addr),
                                 c.addr == "lua" ? tr("commands run by scripts") : QString());
             })},
            {tr("Name"), ClientCell([](const MonitorSummary::Client &c, int role) {
                 return textCell(role, bytesescape::escape(c.name));
             })},
            {tr("Lines"), ClientCell([](const MonitorSummary::Client &c, int role) {
                 return number(role, double(c.lines), countText(c.lines));
             })},
            {tr("Top command"), ClientCell([](const MonitorSummary::Client &c, int role) {
                 return textCell(role, QString::fromUtf8(c.topCommand).toUpper());
             })},
            {tr("RedisLens"), ClientCell([](const MonitorSummary::Client &c, int role) {
                 return textCell(role, c.own ? tr("own connection") : QString(),
                                 c.own ? tr("RedisLens's own: left out of commands and key families") : QString());
             })},
        },
        clientMeta, this);

    auto proxied = [this](QAbstractItemModel *model) {
        auto *proxy = new SeverityProxyModel(this, this);
        proxy->setSourceModel(model);
        return proxy;
    };
    QTableView *commands = makeTable(proxied(m_captureCommands), page, QStringLiteral("captureCommands"));
    QTableView *families = makeTable(proxied(m_captureFamilies), page, QStringLiteral("captureFamilies"));
    QTableView *clients = makeTable(proxied(m_captureClients), page, QStringLiteral("captureClients"));
    commands->sortByColumn(1, Qt::DescendingOrder);
    families->sortByColumn(2, Qt::DescendingOrder);
    clients->sortByColumn(2, Qt::DescendingOrder);
    const int digit = families->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    families->setColumnWidth(0, digit * 28);
    families->setColumnWidth(1, digit * 22);
    for (int c = 2; c < 5; ++c)
        families->setColumnWidth(c, digit * 11);
    commands->horizontalHeader()->setStretchLastSection(false);
    commands->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    commands->setColumnWidth(1, digit * 12);
    clients->setColumnWidth(0, digit * 20);
    clients->setColumnWidth(1, digit * 16);
    clients->setColumnWidth(2, digit * 9);
    clients->setColumnWidth(3, digit * 12);
    connect(families, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        const QByteArray key = index.data(RowTableRoles::KeyRole).toByteArray();
        if (!key.isEmpty())
            Q_EMIT openKeyRequested(key, KeyType::Unknown);
    });

    auto *bottom = new QSplitter(Qt::Horizontal, page);
    bottom->addWidget(titled(tr("Top commands"), commands, bottom));
    bottom->addWidget(titled(tr("Top clients"), clients, bottom));
    bottom->setStretchFactor(0, 2);
    bottom->setStretchFactor(1, 3);
    bottom->setSizes({400, 600});
    auto *split = new QSplitter(Qt::Vertical, page);
    split->addWidget(titled(tr("Top key families"), families, split));
    split->addWidget(bottom);
    split->setChildrenCollapsible(false);
    split->setSizes({350, 300});

    auto *layout = new QVBoxLayout(page);
    layout->addWidget(m_captureWarning);
    layout->addLayout(controls);
    layout->addWidget(m_captureStatus);
    layout->addWidget(split, 1);
    return page;
}

QWidget *ProfilerPanel::buildHotKeysTab()
{
    auto *page = new QWidget(this);
    auto *about = panelparts::statusLabel(
        QStringLiteral("hotKeysAbout"),
        tr("Hot keys come from HOTKEYS where the server has it (Redis 8.6 and later: a tracking session someone "
           "started), else from OBJECT FREQ under an LFU maxmemory-policy: a paced SCAN of at most %1 keys, "
           "each asked for its access counter. RedisLens never changes the policy or starts a tracking session.")
            .arg(format::count(HotKeysReader::kDefaultMaxKeys)),
        page);
    m_findHotKeys = new QPushButton(tr("Find hot keys"), page);
    m_findHotKeys->setObjectName(QStringLiteral("hotKeysFind"));
    connect(m_findHotKeys, &QPushButton::clicked, this, &ProfilerPanel::findHotKeys);
    m_hotKeysStatus = panelparts::statusLabel(QStringLiteral("hotKeysStatus"), {}, page);

    using Cell = RowTableModel<HotKey>::Cell;
    RowTableModel<HotKey>::Meta meta;
    meta.key = [](const HotKey &k) { return k.key; };
    m_hotKeyRows = new RowTableModel<HotKey>(
        {
            {tr("Key"),
             Cell([](const HotKey &k, int role) { return textCell(role, bytesescape::escapeElided(k.key, 200)); })},
            {tr("Heat"), Cell([this](const HotKey &k, int role) {
                 return number(role, double(k.value), countText(k.value), m_hotKeys->valueName());
             })},
            {tr("Pattern"), Cell([](const HotKey &k, int role) {
                 return textCell(role, k.kindKnown ? patternKindName(k.kind) : tr("not read"));
             })},
            {tr("Key family"), Cell([](const HotKey &k, int role) { return textCell(role, k.family); })},
        },
        meta, this);
    m_hotKeysProxy = new SeverityProxyModel(this, this);
    m_hotKeysProxy->setSourceModel(m_hotKeyRows);
    m_hotKeysView = makeTable(m_hotKeysProxy, page, QStringLiteral("hotKeysTable"));
    m_hotKeysView->sortByColumn(1, Qt::DescendingOrder);
    const int digit = m_hotKeysView->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_hotKeysView->setColumnWidth(0, digit * 52);
    m_hotKeysView->setColumnWidth(1, digit * 10);
    m_hotKeysView->setColumnWidth(2, digit * 24);
    connect(m_hotKeysView, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(RowTableRoles::KeyRole).toByteArray(), KeyType::Unknown);
    });

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_findHotKeys);
    bar->addWidget(m_hotKeysStatus, 1);
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(about);
    layout->addLayout(bar);
    layout->addWidget(m_hotKeysView, 1);
    return page;
}

void ProfilerPanel::setPatternIndex(const PatternIndex *index)
{
    m_capture->setPatternIndex(index);
    m_hotKeys->setPatternIndex(index);
}

void ProfilerPanel::setPollInterval(int ms)
{
    m_reader->setIntervalMs(ms);
}

void ProfilerPanel::showTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}

void ProfilerPanel::setRankByTime(bool byTime)
{
    if (byTime == m_rankByTime)
        return;
    m_rankByTime = byTime;
    {
        const QSignalBlocker block(m_byTime);
        m_byTime->setChecked(byTime);
        m_byCalls->setChecked(!byTime);
    }
    m_commandsView->sortByColumn(byTime ? 3 : 1, Qt::DescendingOrder);
    chartstyle::label(m_plot->yAxis, byTime ? tr("Calls (/s), the busiest by server time") : tr("Calls (/s)"));
    rebuildChart();
}

void ProfilerPanel::activeChanged(bool active)
{
    // Only the rates poll; a capture and a hot-key sample are bounded and run to their end.
    m_reader->setPolling(active);
}

void ProfilerPanel::changeEvent(QEvent *event)
{
    Panel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_plot)
        applyStyle();
}

void ProfilerPanel::applyStyle()
{
    const QPalette pal = palette();
    chartstyle::apply(m_plot, pal);
    for (int i = 0; i < m_graphs.size(); ++i)
        m_graphs.at(i)->setPen(QPen(chartstyle::series(i, pal), 1.6));
    m_plotEmpty->setColor(pal.color(QPalette::PlaceholderText));
    QPalette warning = m_captureWarning->palette();
    warning.setColor(QPalette::WindowText, chartstyle::warning(pal));
    m_captureWarning->setPalette(warning);
    QPalette bad = m_error->palette();
    bad.setColor(QPalette::WindowText, chartstyle::bad(pal));
    m_error->setPalette(bad);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ProfilerPanel::resetSession()
{
    m_reader->clearSession();
    m_commands->clear();
    rebuildChart();
    updateStatus();
    if (isActive())
        m_reader->refresh();
}

void ProfilerPanel::onStats()
{
    const profiler::CommandStatsTracker &t = m_reader->tracker();
    m_commands->setRows(t.rates());
    rebuildChart();
    updateStatus();
    if (!m_hasContent && t.hasRates()) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void ProfilerPanel::onReaderError(const RedisError &error)
{
    if (!error.isError())
        m_errorText.clear();
    else if (error.kind == RedisError::Kind::NoPerm)
        m_errorText = tr("Command rates: INFO needs +info for user %1").arg(userName());
    else
        m_errorText = tr("Command rates: %1").arg(error.message.isEmpty() ? errorKindName(error.kind) : error.message);
    m_error->setText(m_errorText);
    m_error->setVisible(!m_errorText.isEmpty());
}

void ProfilerPanel::rebuildChart()
{
    const profiler::CommandStatsTracker &t = m_reader->tracker();
    m_charted = m_rankByTime ? t.topBySessionTime(kChartedCommands) : t.topBySessionCalls(kChartedCommands);
    double first = std::numeric_limits<double>::infinity(), last = -first, top = 0;
    for (int i = 0; i < m_graphs.size(); ++i) {
        QCPGraph *g = m_graphs.at(i);
        const profiler::CommandStatsTracker &tracker = t;
        const TimeSeries *series = i < m_charted.size() ? tracker.callsSeries(m_charted.at(i)) : nullptr;
        if (!series) {
            g->data()->clear();
            g->removeFromLegend();
            g->setVisible(false);
            continue;
        }
        QVector<QCPGraphData> data;
        const QList<TimeSeries::Point> points = series->points();
        data.reserve(points.size());
        for (const TimeSeries::Point &p : points) {
            data.append(QCPGraphData(p.t, p.v));
            first = std::min(first, p.t);
            last = std::max(last, p.t);
            if (std::isfinite(p.v))
                top = std::max(top, p.v);
        }
        g->data()->set(data, true);
        g->setName(QString::fromUtf8(m_charted.at(i)).toUpper());
        g->setVisible(true);
        if (!m_plot->legend->hasItemWithPlottable(g))
            g->addToLegend();
    }
    const bool empty = !std::isfinite(first);
    if (empty) {
        const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
        m_plot->xAxis->setRange(now - chartstyle::kMinTimeSpanSecs, now);
        m_plot->yAxis->setRange(0, 10);
    } else {
        // A young session grows from the left edge; an old one shows its last ten minutes.
        const double span = std::clamp(last - first, kChartMinSecs, kChartWindowSecs);
        const double start = last - first < kChartMinSecs ? first : last - span;
        m_plot->xAxis->setRange(start - span * 0.01, start + span * 1.02);
        // Room above the highest point for the legend.
        m_plot->yAxis->setRange(0, std::max(top * 1.25, 1.0));
    }
    m_plotEmpty->setVisible(empty);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ProfilerPanel::updateStatus()
{
    const profiler::CommandStatsTracker &t = m_reader->tracker();
    QStringList parts;
    if (t.readings() == 0) {
        parts << tr("Waiting for the first reading…");
    } else if (!t.hasRates() && t.resets() == 0) {
        parts << tr("First reading taken; rates from the next one");
    } else {
        const QList<CommandRate> rates = t.rates();
        parts << (rates.size() == 1 ? tr("1 command") : tr("%1 commands").arg(rates.size()));
        if (t.hasRates()) {
            parts << tr("%1 calls/s").arg(rateText(t.totalCallsPerSec()));
            parts << tr("server busy %1 of one core with commands").arg(percentText(t.totalUsecPerSec() / 1e6));
        }
        parts << tr("session %1, %2 calls")
                     .arg(format::duration(qint64(t.sessionSecs() * 1000)), countText(t.sessionCalls()));
    }
    if (t.resets() > 0)
        parts << tr("counters reset at %1 (CONFIG RESETSTAT or a restart): rates start again")
                     .arg(QDateTime::fromMSecsSinceEpoch(t.lastResetMs()).toString(QStringLiteral("HH:mm:ss")));
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

QString ProfilerPanel::statusText() const
{
    return m_status->text();
}

QString ProfilerPanel::errorText() const
{
    return m_errorText;
}

QString ProfilerPanel::userName() const
{
    return m_client->profile().username.isEmpty() ? QStringLiteral("default") : m_client->profile().username;
}

// The capture ------------------------------------------------------------------------------------

void ProfilerPanel::startCapture()
{
    if (m_capture->isCapturing())
        return;
    const int lines = m_maxLines->value();
    const int seconds = m_maxSeconds->value();
    const QString text
        = tr("MONITOR makes %1 send RedisLens a copy of every command it runs while the capture lasts. On a busy "
             "server "
             "this costs real throughput: it can halve.\n\nThe capture runs on a connection of its own and stops after "
             "%2 s or %3 lines, whichever comes first, or when you press Stop.")
              .arg(m_client->profile().displayName())
              .arg(seconds)
              .arg(format::count(quint64(lines)));
    if (!panelparts::confirm(this, tr("Start a MONITOR capture?"), text))
        return;
    m_capture->setLimits(lines, seconds * 1000);
    m_capture->start();
}

void ProfilerPanel::stopCapture()
{
    m_capture->stop();
}

void ProfilerPanel::onCaptureState(MonitorCapture::State state)
{
    const bool capturing = state == MonitorCapture::State::Starting || state == MonitorCapture::State::Running;
    m_startCapture->setEnabled(!capturing && state != MonitorCapture::State::Finishing);
    m_stopCapture->setEnabled(capturing);
    m_maxLines->setEnabled(!capturing);
    m_maxSeconds->setEnabled(!capturing);
    updateCaptureStatus();
    if (state == MonitorCapture::State::Starting)
        showCaptureSummary(); // the last capture's tables go
}

void ProfilerPanel::updateCaptureStatus()
{
    const MonitorCapture &c = *m_capture;
    const auto seconds = [](qint64 ms) { return QString::number(double(ms) / 1000.0, 'f', 1); };
    QStringList parts;
    switch (c.state()) {
    case MonitorCapture::State::Idle: parts << tr("No capture yet."); break;
    case MonitorCapture::State::Starting: parts << tr("Opening the MONITOR connection…"); break;
    case MonitorCapture::State::Running:
        parts << tr("Capturing: %1 of at most %2 lines, %3 of at most %4 s")
                     .arg(countText(c.lineCount()), countText(c.maxLines()), seconds(c.elapsedMs()),
                          seconds(c.maxMs()));
        break;
    case MonitorCapture::State::Finishing:
        parts << tr("Captured %1 lines; naming clients and reading the busiest families' patterns…")
                     .arg(countText(c.lineCount()));
        break;
    case MonitorCapture::State::Done:
        switch (c.end()) {
        case MonitorCapture::End::LineBound:
            parts << tr("Stopped at its bound of %1 lines after %2 s")
                         .arg(countText(c.maxLines()), seconds(c.elapsedMs()));
            break;
        case MonitorCapture::End::TimeBound:
            parts << tr("Ran its %1 s: %2 lines").arg(seconds(c.maxMs()), countText(c.lineCount()));
            break;
        case MonitorCapture::End::Stopped:
            parts << tr("Stopped after %1 s: %2 lines").arg(seconds(c.elapsedMs()), countText(c.lineCount()));
            break;
        case MonitorCapture::End::Refused: parts << tr("MONITOR refused: %1").arg(c.errorText()); break;
        case MonitorCapture::End::Failed:
            parts << tr("The capture ended early: %1 (%2 lines)").arg(c.errorText(), countText(c.lineCount()));
            break;
        case MonitorCapture::End::None: break;
        }
        break;
    }
    const MonitorSummary &s = c.summary();
    if (s.lines() > 0 && c.state() != MonitorCapture::State::Running) {
        const double span = s.lastTime() - s.firstTime();
        if (span > 0)
            parts << tr("%1 commands/s").arg(rateText(double(s.lines()) / span));
    }
    if (s.ownLines() > 0)
        parts << tr("%1 from RedisLens's own connections, left out").arg(countText(s.ownLines()));
    if (c.droppedLines() > 0)
        parts << tr("%1 dropped (the window fell behind)").arg(countText(c.droppedLines()));
    if (s.malformed() > 0)
        parts << tr("%1 did not parse").arg(countText(s.malformed()));
    m_captureStatus->setText(parts.join(QStringLiteral(" · ")));
}

QString ProfilerPanel::captureStatusText() const
{
    return m_captureStatus->text();
}

void ProfilerPanel::showCaptureSummary()
{
    const MonitorSummary &s = m_capture->summary();
    m_captureCommands->setRows(s.topCommands(kTopRows));
    m_captureFamilies->setRows(s.topFamilies(kTopRows));
    m_captureClients->setRows(s.topClients(kTopRows));
}

// Hot keys ---------------------------------------------------------------------------------------

void ProfilerPanel::findHotKeys()
{
    m_hotKeys->start();
}

void ProfilerPanel::showHotKeys()
{
    const HotKeysReader &h = *m_hotKeys;
    m_findHotKeys->setEnabled(!h.isRunning());
    QString text;
    if (h.isRunning()) {
        text = h.source() == HotKeysReader::Source::ObjectFreq
            ? tr("Reading OBJECT FREQ: %1 of at most %2 keys…").arg(countText(h.sampledKeys()), countText(h.maxKeys()))
            : tr("Looking for hot keys…");
    } else if (!h.unavailableReason().isEmpty()) {
        text = tr("No hot keys: %1").arg(h.unavailableReason());
    } else if (h.source() == HotKeysReader::Source::Hotkeys) {
        text = tr("%1; heat is %2").arg(h.note(), h.valueName());
    } else if (h.source() == HotKeysReader::Source::ObjectFreq) {
        text = tr("OBJECT FREQ of %1 keys (%2) under maxmemory-policy %3. Heat is the LFU counter: logarithmic "
                  "(0–255) and decaying while a key is idle, so it ranks keys rather than counting accesses.")
                   .arg(countText(h.sampledKeys()),
                        h.scanComplete() ? tr("the whole database") : tr("a sample of the database"),
                        h.policy().isEmpty() ? tr("(not readable)") : QString::fromUtf8(h.policy()));
        if (!h.note().isEmpty())
            text += QLatin1Char(' ') + h.note() + QLatin1Char('.');
    } else {
        text = tr("Not looked for yet.");
    }
    m_hotKeysStatus->setText(text);
    if (!h.isRunning())
        m_hotKeyRows->setRows(h.keys());
}

QString ProfilerPanel::hotKeysText() const
{
    return m_hotKeysStatus->text();
}
