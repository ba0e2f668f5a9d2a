// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratelimitspanel.h"

#include "format.h"
#include "panelparts.h"
#include "ratelimits.h"
#include "ratelimitsreader.h"
#include "redisclient.h"
#include "tableview.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

RateLimitsPanel::RateLimitsPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new RateLimitsReader(client, this)),
      m_limiters(new LimitersModel(this)),
      m_callers(new CallersModel(this)),
      m_tick(new QTimer(this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    layout->addWidget(m_summary);
    m_status = new QLabel(tr("Waiting for the scan to find rate limiters…"), this);
    layout->addWidget(m_status);
    m_libraries = panelparts::librariesLabel(this);
    layout->addWidget(m_libraries);

    auto *limiters = new ColumnSeverityProxy({{LimitersModel::AtLimitColumn, LimitersModel::SeverityRole},
                                              {LimitersModel::NoteColumn, LimitersModel::SeverityRole}},
                                             this);
    limiters->setSourceModel(m_limiters);
    m_limitersView = tableview::make(limiters, this, QStringLiteral("limiters"));
    layout->addWidget(m_limitersView, 1);
    QHeaderView *lh = m_limitersView->horizontalHeader();
    lh->resizeSection(LimitersModel::NameColumn, 190);
    lh->resizeSection(LimitersModel::KindColumn, 95);
    lh->resizeSection(LimitersModel::CallersColumn, 60);
    lh->resizeSection(LimitersModel::LimitColumn, 280);
    lh->resizeSection(LimitersModel::WindowColumn, 85);
    lh->resizeSection(LimitersModel::AtLimitColumn, 150);

    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_note);
    auto *titleRow = new QHBoxLayout;
    m_callersTitle = new QLabel(this);
    titleRow->addWidget(m_callersTitle, 1);
    m_all = new QPushButton(tr("All limiters"), this);
    titleRow->addWidget(m_all);
    layout->addLayout(titleRow);
    auto *callers = new ColumnSeverityProxy({{CallersModel::PressureColumn, CallersModel::PressureSeverityRole},
                                             {CallersModel::FlagsColumn, CallersModel::SeverityRole}},
                                            this);
    callers->setSourceModel(m_callers);
    m_filter = new QSortFilterProxyModel(this);
    m_filter->setSourceModel(callers);
    m_filter->setFilterRole(CallersModel::LimiterRole);
    m_filter->setFilterKeyColumn(0);
    m_callersView = tableview::make(m_filter, this, QStringLiteral("callers"));
    QHeaderView *ch = m_callersView->horizontalHeader();
    ch->resizeSection(CallersModel::CallerColumn, 110);
    ch->resizeSection(CallersModel::LimiterColumn, 190);
    ch->resizeSection(CallersModel::UsedColumn, 105);
    ch->resizeSection(CallersModel::LimitColumn, 60);
    ch->resizeSection(CallersModel::PressureColumn, 70);
    ch->resizeSection(CallersModel::RemainingColumn, 125);
    ch->resizeSection(CallersModel::DetailColumn, 130);
    layout->addWidget(m_callersView, 4);

    m_tick->setInterval(kTickMs);
    connect(m_tick, &QTimer::timeout, this, [this] { m_callers->setNow(QDateTime::currentMSecsSinceEpoch()); });
    connect(m_reader, &RateLimitsReader::rateLimitsAvailable, this, &RateLimitsPanel::onRateLimits);
    connect(m_reader, &RateLimitsReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Cannot read rate limiters: %1").arg(message)); });
    connect(m_limitersView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndexList rows = m_limitersView->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            selectLimiter(rows.first().data(LimitersModel::NameRole).toString());
    });
    connect(m_callersView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndexList rows = m_callersView->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            m_selectedCaller = rows.first().data(CallersModel::KeyRole).toByteArray();
    });
    connect(m_all, &QPushButton::clicked, this, [this] { selectLimiter({}); });
    connect(m_callersView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(CallersModel::KeyRole).toByteArray(),
                                KeyType(index.data(CallersModel::TypeRole).toInt()));
    });
    updateNote();
}

void RateLimitsPanel::setMatches(const QList<PatternMatch> &matches)
{
    panelparts::showLibraries(m_libraries, matches);
    m_reader->setMatches(matches);
    if (m_reader->matchCount() == 0)
        m_status->setText(tr("No rate limiters found by the scan."));
}

void RateLimitsPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
    if (active)
        m_tick->start();
    else
        m_tick->stop();
}

void RateLimitsPanel::selectLimiter(const QString &name)
{
    m_limiter = name;
    m_filter->setFilterFixedString(name);
    if (name.isEmpty())
        m_limitersView->clearSelection();
    else if (const int row = m_limiters->rowOf(name); row >= 0)
        m_limitersView->selectRow(row);
    updateNote();
}

void RateLimitsPanel::onRateLimits(const RateLimitAnalysis &analysis)
{
    m_limiters->setRows(analysis.limiters);
    m_callers->setRows(analysis.callers);
    m_callers->setNow(QDateTime::currentMSecsSinceEpoch());
    const QList<LimiterInfo> &rows = analysis.limiters;
    int callers = 0, at = 0, noTtl = 0, untrimmed = 0;
    for (const LimiterInfo &l : rows) {
        callers += l.callers;
        at += l.atLimit;
        noTtl += l.noTtl;
        untrimmed += l.untrimmed;
    }
    QStringList parts{(rows.size() == 1 ? tr("1 limiter") : tr("%1 limiters").arg(rows.size())),
                      (callers == 1 ? tr("1 caller") : tr("%1 callers").arg(callers)),
                      tr("%n at or over the limit", nullptr, at)};
    if (noTtl)
        parts << (noTtl == 1 ? tr("1 key without TTL") : tr("%1 keys without TTL").arg(noTtl));
    if (untrimmed)
        parts << (untrimmed == 1 ? tr("1 untrimmed log") : tr("%1 untrimmed logs").arg(untrimmed));
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_status->setText(rows.isEmpty() ? tr("No rate limiter keys right now.")
                                     : tr("Read %1; re-read every %2 s while shown. Limits come from your rules, "
                                          "else from the most common ceiling.")
                                           .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")))
                                           .arg(RateLimitsReader::kRefreshMs / 1000));
    if (!m_limiter.isEmpty() && m_limiters->rowOf(m_limiter) < 0)
        selectLimiter({});
    else if (!m_limiter.isEmpty() && m_limitersView->selectionModel()->selectedRows().isEmpty())
        selectLimiter(m_limiter);
    if (!m_selectedCaller.isEmpty() && m_callersView->selectionModel()->selectedRows().isEmpty()) {
        const QModelIndexList hit
            = m_filter->match(m_filter->index(0, 0), CallersModel::KeyRole, m_selectedCaller, 1, Qt::MatchExactly);
        if (!hit.isEmpty())
            m_callersView->selectRow(hit.first().row());
    }
    updateNote();
    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void RateLimitsPanel::updateNote()
{
    const LimiterInfo *l = m_limiter.isEmpty() ? nullptr : m_limiters->find(m_limiter);
    m_all->setEnabled(!m_limiter.isEmpty());
    if (!l) {
        m_callersTitle->setText(tr("<b>Top callers of every limiter</b>, by pressure (count / limit)"));
        bool fixed = false;
        for (const LimiterInfo &i : m_limiters->rows())
            fixed = fixed || i.kind == LimiterKind::FixedWindow;
        m_note->setText(fixed ? tr("Fixed windows reset at the window edge: a caller can spend its whole limit "
                                   "just before the edge and again just after it, up to 2 × the limit in a "
                                   "moment. Select a limiter for its details.")
                              : QString());
        m_note->setVisible(fixed);
        return;
    }
    m_callersTitle->setText(tr("<b>Top callers of %1</b>, by pressure").arg(l->name.toHtmlEscaped()));
    QStringList lines;
    if (l->kind == LimiterKind::TokenBucket)
        lines << tr("Token bucket, %1; %2.")
                     .arg(l->limitSource,
                          std::isnan(l->refillPerSec) ? tr("refill rate unknown")
                                                      : tr("refills %1 tokens/s").arg(l->refillPerSec));
    else
        lines << tr("%1, limit %2; window %3 (%4).")
                     .arg(limiterKindName(l->kind).left(1).toUpper() + limiterKindName(l->kind).mid(1), l->limitSource,
                          l->windowMs > 0 ? format::duration(l->windowMs) : tr("unknown"), l->windowSource);
    if (!l->note().isEmpty())
        lines << l->note();
    if (l->kind == LimiterKind::SlidingWindow)
        lines << tr("Counted inside the window (ZCOUNT); \"logged\" is every member (ZCARD).");
    m_note->setText(lines.join(QLatin1Char('\n')));
    m_note->setVisible(true);
}

QString RateLimitsPanel::statusText() const
{
    return m_status->text();
}

QString RateLimitsPanel::summaryText() const
{
    return m_summary->text();
}

QString RateLimitsPanel::noteText() const
{
    return m_note->text();
}
