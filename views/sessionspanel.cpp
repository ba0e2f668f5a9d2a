// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionspanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "panelparts.h"
#include "qcp.h"
#include "tableview.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

SessionsPanel::SessionsPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_reader(new SessionsReader(client, this)),
      m_sessions(new SessionsModel(this)),
      m_indexes(new SessionIndexesModel(this)),
      m_contentsModel(new SessionContentsModel(this))
{
    setObjectName(QStringLiteral("sessions"));
    auto *layout = new QVBoxLayout(this);
    m_status
        = panelparts::statusLabel(QStringLiteral("sessionsStatus"), tr("Waiting for the scan to find sessions…"), this);
    layout->addWidget(m_status);
    m_libraries = panelparts::librariesLabel(this);
    layout->addWidget(m_libraries);
    m_summary = panelparts::statusLabel(QStringLiteral("sessionsSummary"), {}, this);
    layout->addWidget(m_summary);

    // Top: the TTL distribution beside the reverse indexes.
    auto *top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(makeChart(top));
    top->addWidget(makeIndexes(top));
    top->setStretchFactor(0, 2);
    top->setStretchFactor(1, 3);
    top->setChildrenCollapsible(false);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(makeSessionsTable()); // middle: every session
    split->addWidget(makeContents()); // bottom: one session's contents, on demand only
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    connectSignals();
    styleChart();
}

QWidget *SessionsPanel::makeChart(QWidget *parent)
{
    auto *chartBox = new QWidget(parent);
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(panelparts::heading(tr("Remaining TTL"), chartBox));
    m_plot = new QCustomPlot(chartBox);
    m_plot->setObjectName(QStringLiteral("sessionsTtlChart"));
    m_plot->setMinimumSize(300, 170);
    m_noTtlBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    for (QCPBars *b : {m_noTtlBars, m_bars})
        b->setWidth(0.7);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int b = 0; b < ttlbucket::Count; ++b) {
        QString tick = ttlbucket::label(b);
        const qsizetype space = tick.lastIndexOf(QLatin1Char(' '));
        if (space > 0)
            tick[space] = QLatin1Char('\n'); // two lines fit under narrow bars
        ticks->addTick(b, tick);
    }
    m_plot->xAxis->setTicker(ticks);
    m_plot->xAxis->setRange(-0.6, ttlbucket::Count - 0.4);
    m_plot->xAxis->grid()->setVisible(false);
    QSharedPointer<QCPAxisTickerFixed> countTicks(new QCPAxisTickerFixed);
    countTicks->setTickStep(1.0);
    countTicks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->yAxis->setTicker(countTicks);
    m_plot->yAxis->setRange(0, 1);
    chartstyle::label(m_plot->yAxis, tr("Sessions"));
    chartLayout->addWidget(m_plot, 1);
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *p, int dataIndex, QMouseEvent *) {
        auto *bars = qobject_cast<QCPBars *>(p);
        if (!bars || dataIndex < 0 || dataIndex >= bars->data()->size())
            return;
        const int bucket = int((bars->data()->constBegin() + dataIndex)->key);
        QByteArray prefix;
        for (const SessionRow &r : m_sessions->rows()) {
            prefix = sessions::familyPrefix(r.family);
            break;
        }
        Q_EMIT filterKeysRequested(TtlStats::filterFor(bucket, prefix));
    });
    return chartBox;
}

QWidget *SessionsPanel::makeIndexes(QWidget *parent)
{
    auto *indexBox = new QWidget(parent);
    auto *indexLayout = new QVBoxLayout(indexBox);
    indexLayout->setContentsMargins(0, 0, 0, 0);
    indexLayout->addWidget(panelparts::heading(tr("Reverse indexes (per-user sets of session ids)"), indexBox));
    auto *indexProxy = new SeverityProxyModel(this, this);
    indexProxy->setSourceModel(m_indexes);
    m_indexesView = tableview::make(indexProxy, indexBox, QStringLiteral("sessionIndexes"));
    m_indexesView->setSortingEnabled(true);
    m_indexesView->sortByColumn(SessionIndexesModel::DanglingColumn, Qt::DescendingOrder);
    indexLayout->addWidget(m_indexesView, 1);
    return indexBox;
}

QWidget *SessionsPanel::makeSessionsTable()
{
    auto *sessionsBox = new QWidget(this);
    auto *sessionsLayout = new QVBoxLayout(sessionsBox);
    sessionsLayout->setContentsMargins(0, 0, 0, 0);
    auto *sessionsHeader = new QHBoxLayout;
    sessionsHeader->addWidget(panelparts::heading(tr("Sessions"), sessionsBox));
    sessionsHeader->addStretch();
    m_filterFamily = new QPushButton(tr("Show family in key browser"), sessionsBox);
    m_filterFamily->setEnabled(false);
    sessionsHeader->addWidget(m_filterFamily);
    m_showContents = new QPushButton(tr("Show contents"), sessionsBox);
    m_showContents->setObjectName(QStringLiteral("sessionsShowContents"));
    m_showContents->setEnabled(false);
    m_showContents->setToolTip(tr("Reads the selected session (at most %1 fields or %2); secrets stay masked.")
                                   .arg(SessionsReader::kContentsFields)
                                   .arg(format::bytes(SessionsReader::kContentsBytes)));
    sessionsHeader->addWidget(m_showContents);
    sessionsLayout->addLayout(sessionsHeader);
    auto *sessionsProxy = new SeverityProxyModel(this, this);
    sessionsProxy->setSourceModel(m_sessions);
    m_sessionsView = tableview::make(sessionsProxy, sessionsBox, QStringLiteral("sessionsTable"));
    m_sessionsView->setSortingEnabled(true);
    m_sessionsView->sortByColumn(SessionsModel::FlagsColumn, Qt::DescendingOrder); // flagged first
    const QFontMetrics fm = m_sessionsView->fontMetrics();
    m_sessionsView->setColumnWidth(SessionsModel::KeyColumn,
                                   fm.horizontalAdvance(QStringLiteral("session:0123456789abcdef0123")) + 16);
    m_sessionsView->setColumnWidth(SessionsModel::TtlColumn, fm.horizontalAdvance(QStringLiteral("23h 59m__")) + 16);
    m_sessionsView->setColumnWidth(SessionsModel::LifetimeColumn,
                                   fm.horizontalAdvance(QStringLiteral("not known yet")) + 16);
    m_sessionsView->setColumnWidth(SessionsModel::SizeColumn, fm.horizontalAdvance(QStringLiteral("1023.9 KiB")) + 16);
    sessionsLayout->addWidget(m_sessionsView, 1);
    return sessionsBox;
}

QWidget *SessionsPanel::makeContents()
{
    auto *contentsBox = new QWidget(this);
    auto *contentsLayout = new QVBoxLayout(contentsBox);
    contentsLayout->setContentsMargins(0, 0, 0, 0);
    auto *contentsHeader = new QHBoxLayout;
    m_contentsLabel = new QLabel(tr("Select a session and press Show contents."), contentsBox);
    m_contentsLabel->setObjectName(QStringLiteral("sessionsContentsLabel"));
    m_contentsLabel->setTextFormat(Qt::PlainText);
    contentsHeader->addWidget(m_contentsLabel, 1);
    m_reveal = new QCheckBox(tr("Reveal secrets"), contentsBox);
    m_reveal->setObjectName(QStringLiteral("sessionsReveal"));
    m_reveal->setToolTip(tr("Fields named like token, csrf, password, secret, api_key, cookie, jwt are masked."));
    contentsHeader->addWidget(m_reveal);
    contentsLayout->addLayout(contentsHeader);
    m_contentsView = tableview::make(m_contentsModel, contentsBox, QStringLiteral("sessionsContents"));
    const QFontMetrics fm = m_sessionsView->fontMetrics();
    m_contentsView->setColumnWidth(SessionContentsModel::FieldColumn,
                                   fm.horizontalAdvance(QStringLiteral("last_seen_at_ms")) + 24);
    contentsLayout->addWidget(m_contentsView, 1);
    return contentsBox;
}

void SessionsPanel::connectSignals()
{
    connect(m_reader, &SessionsReader::sessionsAvailable, this, &SessionsPanel::onSessions);
    connect(m_reader, &SessionsReader::failed, this, [this](const QString &message) {
        m_status->setText(tr("Cannot read sessions: %1").arg(message));
        m_status->show();
    });
    connect(m_reader, &SessionsReader::contentsAvailable, this, &SessionsPanel::onContents);
    connect(m_reveal, &QCheckBox::toggled, m_contentsModel, &SessionContentsModel::setRevealed);
    connect(m_showContents, &QPushButton::clicked, this, &SessionsPanel::showSelectedContents);
    connect(m_sessionsView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_selected = selectedKey();
        m_showContents->setEnabled(!m_selected.isEmpty());
        m_filterFamily->setEnabled(!m_selected.isEmpty());
    });
    connect(m_filterFamily, &QPushButton::clicked, this, [this] {
        const int row = m_sessions->rowOf(m_selected);
        if (row < 0)
            return;
        KeyFilter f;
        f.prefix = sessions::familyPrefix(m_sessions->rows().at(row).family);
        f.label = tr("sessions %1").arg(bytesescape::quoteIfNeeded(f.prefix));
        if (!f.prefix.isEmpty())
            Q_EMIT filterKeysRequested(f);
    });
    const auto open = [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(SessionsModel::KeyRole).toByteArray(),
                                KeyType(index.data(SessionsModel::TypeRole).toInt()));
    };
    connect(m_sessionsView, &QAbstractItemView::doubleClicked, this, open);
    connect(m_indexesView, &QAbstractItemView::doubleClicked, this, open);
}

SessionsPanel::~SessionsPanel() = default;

void SessionsPanel::setMatches(const QList<PatternMatch> &matches)
{
    panelparts::showLibraries(m_libraries, matches);
    int count = 0;
    for (const PatternMatch &m : matches)
        count += m.kind == PatternKind::Session ? 1 : 0;
    m_status->setText(count ? tr("%n session(s) found by the scan; reading them…", nullptr, count)
                            : tr("The scan found no sessions."));
    m_reader->setMatches(matches);
}

void SessionsPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
}

QByteArray SessionsPanel::selectedKey(KeyType *type) const
{
    const QModelIndexList rows = m_sessionsView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return {};
    if (type)
        *type = KeyType(rows.first().data(SessionsModel::TypeRole).toInt());
    return rows.first().data(SessionsModel::KeyRole).toByteArray();
}

void SessionsPanel::showSelectedContents()
{
    KeyType type = KeyType::Unknown;
    const QByteArray key = selectedKey(&type);
    if (key.isEmpty())
        return;
    m_contentsLabel->setText(tr("Reading %1…").arg(bytesescape::quoteIfNeeded(key)));
    m_reader->loadContents(key, type);
}

void SessionsPanel::onContents(const sessions::Contents &contents)
{
    // Every new session starts masked: revealing one must not reveal the next.
    m_reveal->setChecked(false);
    m_contentsModel->setRevealed(false);
    m_contentsModel->setContents(contents);
    const QString name = bytesescape::quoteIfNeeded(contents.key);
    if (!contents.error.isEmpty()) {
        m_contentsLabel->setText(tr("%1: %2").arg(name, contents.error));
        return;
    }
    QString text = tr("%1: %n field(s)", nullptr, int(contents.fields.size())).arg(name);
    if (contents.json)
        text += tr(" (JSON)");
    else if (!contents.decoded.isEmpty())
        text += tr(" (decoded: %1)").arg(contents.decoded);
    if (contents.truncated)
        text += tr(", more not read");
    const int masked = contents.maskedCount();
    text += masked ? tr(" · %n masked", nullptr, masked) : tr(" · nothing looks secret");
    m_contentsLabel->setText(text);
}

void SessionsPanel::onSessions(const SessionsResults &results)
{
    m_sessions->setNow(results.summary.nowMs);
    m_sessions->setRows(results.sessions);
    m_indexes->setRows(results.indexes);
    const SessionsSummary &s = results.summary;
    if (s.sessions == 0 && s.indexes == 0) {
        m_status->setText(tr("No sessions found (keys like session:<id> holding a hash or JSON)."));
    } else {
        m_status->setText(tr("Lifetime is observed across reads every %1: sliding when the expiry moved forward "
                             "(the session was used), fixed when it stayed put.")
                              .arg(format::duration(SessionsReader::kRefreshMs)));
    }
    QStringList parts;
    parts << tr("%n session(s)", nullptr, s.sessions);
    if (s.noTtl)
        parts << tr("%n without TTL (never expire)", nullptr, s.noTtl);
    parts << tr("sliding %1 · fixed %2 · not known yet %3").arg(s.sliding).arg(s.fixed).arg(s.unknownLifetime);
    if (s.outliers)
        parts
            << tr("%n size outlier(s) (≥ %1× family median)", nullptr, s.outliers).arg(SessionsReader::kOutlierFactor);
    if (s.nameIssues)
        parts << tr("%n name(s) leaking data", nullptr, s.nameIssues);
    parts << tr("%n index(es)", nullptr, s.indexes) + tr(", %n dangling id(s)", nullptr, int(s.dangling));
    m_summary->setText(parts.join(QStringLiteral(" · ")));

    QVector<double> keys, values, noTtlKeys, noTtlValues;
    double max = 0;
    for (int b = 0; b < ttlbucket::Count; ++b) {
        const double v = double(s.buckets[size_t(b)]);
        max = qMax(max, v);
        (b == ttlbucket::NoTtl ? noTtlKeys : keys).append(b);
        (b == ttlbucket::NoTtl ? noTtlValues : values).append(v);
    }
    m_bars->setData(keys, values, true);
    m_noTtlBars->setData(noTtlKeys, noTtlValues, true);
    m_plot->yAxis->setRange(0, max > 0 ? max * 1.15 : 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);

    // A reset (sessions came or went) clears the selection: put it back on the same key.
    if (!m_selected.isEmpty() && !m_sessionsView->selectionModel()->hasSelection()) {
        const QAbstractItemModel *model = m_sessionsView->model();
        for (int r = 0; r < model->rowCount(); ++r) {
            if (model->index(r, 0).data(SessionsModel::KeyRole).toByteArray() == m_selected) {
                m_sessionsView->selectRow(r);
                break;
            }
        }
    }
    m_indexesView->resizeColumnToContents(SessionIndexesModel::KeyColumn);
    if (!m_hasContent) { // a round was read, whatever it found
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void SessionsPanel::styleChart()
{
    chartstyle::apply(m_plot, palette());
    m_bars->setPen(QPen(chartstyle::series(0, palette())));
    m_bars->setBrush(chartstyle::series(0, palette()));
    m_noTtlBars->setPen(QPen(chartstyle::bad(palette())));
    m_noTtlBars->setBrush(chartstyle::bad(palette()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SessionsPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        styleChart();
    Panel::changeEvent(event);
}
