// SPDX-License-Identifier: GPL-3.0-or-later
#include "triagepanel.h"

#include "format.h"
#include "panelparts.h"
#include "redisclient.h"
#include "rowtablemodel.h"
#include "tableview.h"
#include "triagecollector.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace {

enum FindingColumn { SeverityColumn, TitleColumn, AffectedColumn, RuleColumn };

Severity rowSeverity(FindingSeverity s)
{
    switch (s) {
    case FindingSeverity::Critical: return Severity::Bad;
    case FindingSeverity::Warning: return Severity::Warning;
    case FindingSeverity::Info: break;
    }
    return Severity::None;
}

} // namespace

TriagePanel::TriagePanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_collector(new TriageCollector(client, this)),
      m_refreshTimer(new QTimer(this)),
      m_settleTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("triagePanel"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_summary = new QLabel(tr("Waiting for the scan…"), this);
    m_summary->setObjectName(QStringLiteral("triageSummary"));
    m_summary->setWordWrap(true);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    top->addWidget(m_summary, 1);
    m_dismissedButton = new QPushButton(tr("Dismissed"), this);
    m_dismissedButton->setObjectName(QStringLiteral("triageDismissed"));
    m_dismissedButton->setMenu(new QMenu(m_dismissedButton));
    top->addWidget(m_dismissedButton);
    m_refresh = new QPushButton(tr("Check again"), this);
    m_refresh->setObjectName(QStringLiteral("triageRefresh"));
    top->addWidget(m_refresh);
    layout->addLayout(top);
    m_status = panelparts::statusLabel(QStringLiteral("triageStatus"), QString(), this);
    layout->addWidget(m_status);

    m_findings = new RowTableModel<Finding>(
        {
            {tr("Severity"),
             [](const Finding &f, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return findingSeverityName(f.severity);
                 return role == RowTableRoles::SortRole ? QVariant(int(f.severity)) : QVariant();
             }},
            {tr("Finding"),
             [](const Finding &f, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return f.title;
                 return role == Qt::ToolTipRole ? QVariant(f.hint) : QVariant();
             }},
            {tr("Affected"),
             [](const Finding &f, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return format::count(quint64(f.affected));
                 if (role == Qt::TextAlignmentRole)
                     return int(Qt::AlignRight | Qt::AlignVCenter);
                 return role == RowTableRoles::SortRole ? QVariant(f.affected) : QVariant();
             }},
            {tr("Rule"),
             [](const Finding &f, int role) { return role == Qt::DisplayRole ? QVariant(f.id) : QVariant(); }},
        },
        {[](const Finding &f) { return f.id.toUtf8(); }, [](const Finding &f) { return rowSeverity(f.severity); }, {}},
        this);
    auto *proxy = new ColumnSeverityProxy(
        {{SeverityColumn, RowTableRoles::SeverityRole}, {TitleColumn, RowTableRoles::SeverityRole}}, this);
    proxy->setSourceModel(m_findings);
    auto *split = new QSplitter(Qt::Vertical, this);
    m_findingsView = tableview::make(proxy, split, QStringLiteral("findings"));
    m_findingsView->horizontalHeader()->resizeSection(SeverityColumn, 80);
    m_findingsView->horizontalHeader()->resizeSection(TitleColumn, 420);
    m_findingsView->horizontalHeader()->resizeSection(AffectedColumn, 80);
    split->addWidget(m_findingsView);

    m_details = new QWidget(split);
    auto *details = new QVBoxLayout(m_details);
    details->setContentsMargins(0, 4, 0, 0);
    m_title = panelparts::heading(QString(), m_details);
    m_title->setObjectName(QStringLiteral("triageTitle"));
    m_title->setWordWrap(true);
    details->addWidget(m_title);
    m_hint = panelparts::statusLabel(QStringLiteral("triageHint"), QString(), m_details);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details->addWidget(m_hint);
    m_evidence = new RowTableModel<FindingItem>(
        {
            {tr("Evidence"),
             [](const FindingItem &e, int role) { return role == Qt::DisplayRole ? QVariant(e.subject) : QVariant(); }},
            {tr("Detail"),
             [](const FindingItem &e, int role) { return role == Qt::DisplayRole ? QVariant(e.detail) : QVariant(); }},
        },
        {[](const FindingItem &e) { return e.key.isEmpty() ? e.subject.toUtf8() : e.key; }, {}, {}}, this);
    m_evidenceView = tableview::make(m_evidence, m_details, QStringLiteral("evidence"));
    m_evidenceView->setTextElideMode(Qt::ElideMiddle);
    m_evidenceView->horizontalHeader()->resizeSection(0, 320);
    m_evidenceView->setToolTip(tr("Double-click a key to open it in the key browser."));
    details->addWidget(m_evidenceView, 1);
    auto *buttons = new QHBoxLayout;
    m_openPanel = new QPushButton(m_details);
    m_openPanel->setObjectName(QStringLiteral("triageOpenPanel"));
    buttons->addWidget(m_openPanel);
    buttons->addStretch(1);
    m_dismiss = new QPushButton(tr("Dismiss for this connection"), m_details);
    m_dismiss->setObjectName(QStringLiteral("triageDismiss"));
    m_dismiss->setToolTip(tr("Known and accepted: hidden on this connection until brought back from Dismissed."));
    buttons->addWidget(m_dismiss);
    details->addLayout(buttons);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_notChecked = panelparts::statusLabel(QStringLiteral("triageNotChecked"), QString(), this);
    layout->addWidget(m_notChecked);
    m_details->hide();

    connect(m_findingsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, proxy](const QModelIndex &current) { showFinding(proxy->mapToSource(current).row()); });
    connect(m_evidenceView, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const FindingItem &item = m_evidence->rows().at(index.row());
        if (!item.key.isEmpty())
            Q_EMIT openKeyRequested(item.key, KeyType::Unknown);
    });
    connect(m_openPanel, &QPushButton::clicked, this, [this] {
        const int row = m_findingsView->currentIndex().row();
        if (row >= 0 && row < m_findings->rowCount())
            Q_EMIT openPanelRequested(m_findings->rows().at(row).panel);
    });
    connect(m_dismiss, &QPushButton::clicked, this, [this] {
        const int row = m_findingsView->currentIndex().row();
        if (row < 0 || row >= m_findings->rowCount())
            return;
        m_dismissed.append(m_findings->rows().at(row).id);
        Q_EMIT dismissedChanged(m_dismissed);
        showResult();
    });
    connect(m_refresh, &QPushButton::clicked, this, &TriagePanel::collectNow);
    connect(m_collector, &TriageCollector::step, m_status, &QLabel::setText);
    connect(m_collector, &TriageCollector::collected, this, &TriagePanel::onCollected);
    m_refreshTimer->setInterval(kRefreshMs);
    connect(m_refreshTimer, &QTimer::timeout, this, &TriagePanel::collectNow);
    m_settleTimer->setSingleShot(true);
    connect(m_settleTimer, &QTimer::timeout, this, &TriagePanel::collectNow);
    updateDismissedMenu();
}

TriagePanel::~TriagePanel() = default;

void TriagePanel::activeChanged(bool active)
{
    if (!active) {
        m_refreshTimer->stop();
        m_settleTimer->stop();
        return;
    }
    m_refreshTimer->start();
    // Before the scan's first keys are classified there is nothing to judge the keyspace by.
    if (m_stale && m_index && m_coverage.scanned)
        collectNow();
}

void TriagePanel::keyspaceSettled()
{
    m_stale = true;
    if (!isActive())
        return;
    // A scan that settles often (a big keyspace classified in steps) is collected at most every kSettleMs.
    const qint64 since = QDateTime::currentMSecsSinceEpoch() - m_lastCollectMs;
    if (since >= kSettleMs && !m_collector->isBusy())
        collectNow();
    else if (!m_settleTimer->isActive())
        m_settleTimer->start(int(qMax<qint64>(0, kSettleMs - since)) + (m_collector->isBusy() ? kSettleMs : 0));
}

void TriagePanel::collectNow()
{
    if (!m_index)
        return;
    if (m_collector->isBusy()) {
        m_stale = true;
        return;
    }
    m_stale = false;
    m_lastCollectMs = QDateTime::currentMSecsSinceEpoch();
    m_refresh->setEnabled(false);
    m_collector->collect(*m_index, m_coverage);
}

void TriagePanel::onCollected(const TriageFacts &facts)
{
    m_refresh->setEnabled(true);
    m_result = evaluateTriage(facts, m_thresholds);
    m_status->setText(facts.readerErrors.isEmpty()
                          ? QString()
                          : tr("Some reads failed: %1").arg(facts.readerErrors.join(QStringLiteral("; "))));
    showResult();
    if (m_stale && isActive())
        m_settleTimer->start(kSettleMs);
    Q_EMIT collected();
    Q_EMIT contentReady();
}

QList<Finding> TriagePanel::shownFindings() const
{
    QList<Finding> out;
    if (!m_result)
        return out;
    for (const Finding &f : m_result->findings) {
        if (!m_dismissed.contains(f.id))
            out.append(f);
    }
    return out;
}

void TriagePanel::showResult()
{
    if (!m_result)
        return;
    const QList<Finding> shown = shownFindings();
    const QString selected = m_findingsView->currentIndex().isValid()
        ? m_findingsView->model()->index(m_findingsView->currentIndex().row(), RuleColumn).data().toString()
        : QString();
    m_findings->setRows(shown);
    int n[3] = {0, 0, 0};
    for (const Finding &f : shown)
        ++n[int(f.severity)];
    if (shown.isEmpty()) {
        m_summary->setText(tr("Nothing found: %1 keys examined, %2 rules checked.")
                               .arg(format::count(quint64(m_coverage.examined)))
                               .arg(m_result->rulesChecked));
    } else {
        m_summary->setText(tr("%1 critical · %2 warning · %3 info, %4; %5 rules checked.")
                               .arg(n[2])
                               .arg(n[1])
                               .arg(n[0])
                               .arg(m_result->coverage)
                               .arg(m_result->rulesChecked));
    }
    // Not checked, by reason: "5 rules: no locks found".
    QList<std::pair<QString, QStringList>> byWhy;
    for (const auto &[id, why] : m_result->notChecked) {
        auto it = std::find_if(byWhy.begin(), byWhy.end(), [&why = why](const auto &p) { return p.first == why; });
        if (it == byWhy.end())
            byWhy.append({why, {id}});
        else
            it->second.append(id);
    }
    QStringList parts, tips;
    for (const auto &[why, ids] : byWhy) {
        parts << (ids.size() == 1 ? tr("1 rule: %1").arg(why) : tr("%1 rules: %2").arg(ids.size()).arg(why));
        tips << QStringLiteral("%1: %2").arg(why, ids.join(QStringLiteral(", ")));
    }
    m_notChecked->setText(parts.isEmpty() ? QString() : tr("Not checked: %1.").arg(parts.join(QStringLiteral("; "))));
    m_notChecked->setToolTip(tips.join(QLatin1Char('\n')));
    setBadge(n[2] + n[1], n[2] > 0 ? Severity::Bad : Severity::Warning,
             tr("%1 critical and %2 warning findings").arg(n[2]).arg(n[1]));
    updateDismissedMenu();
    if (!selectFinding(selected) && !shown.isEmpty())
        selectFinding(shown.constFirst().id);
    if (shown.isEmpty())
        m_details->hide();
}

bool TriagePanel::selectFinding(const QString &id)
{
    if (id.isEmpty())
        return false;
    QAbstractItemModel *model = m_findingsView->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, RuleColumn).data().toString() == id) {
            m_findingsView->setCurrentIndex(model->index(row, TitleColumn));
            showFinding(row);
            return true;
        }
    }
    return false;
}

void TriagePanel::showFinding(int row)
{
    if (row < 0 || row >= m_findings->rowCount()) {
        m_details->hide();
        return;
    }
    const Finding &f = m_findings->rows().at(row);
    m_title->setText(QStringLiteral("%1: %2").arg(findingSeverityName(f.severity), f.title));
    QStringList lines{f.hint, tr("Seen %1.").arg(f.coverage)};
    QStringList figures;
    for (const auto &[name, value] : f.figures)
        figures << QStringLiteral("%1 %2").arg(name, value);
    if (!figures.isEmpty())
        lines << figures.join(QStringLiteral(" · "));
    m_hint->setText(lines.join(QLatin1Char('\n')));
    m_evidence->setRows(f.evidence);
    const QString title = m_panelTitle ? m_panelTitle(f.panel) : f.panel;
    m_openPanel->setText(tr("Show in %1").arg(title));
    m_openPanel->setVisible(!f.panel.isEmpty());
    m_details->show();
}

void TriagePanel::setDismissed(const QStringList &ids)
{
    m_dismissed = ids;
    showResult();
    updateDismissedMenu();
}

void TriagePanel::updateDismissedMenu()
{
    QMenu *menu = m_dismissedButton->menu();
    menu->clear();
    m_dismissedButton->setText(tr("Dismissed (%1)").arg(m_dismissed.size()));
    m_dismissedButton->setEnabled(!m_dismissed.isEmpty());
    for (const QString &id : std::as_const(m_dismissed)) {
        menu->addAction(tr("Bring back %1").arg(id), this, [this, id] {
            m_dismissed.removeAll(id);
            Q_EMIT dismissedChanged(m_dismissed);
            showResult();
        });
    }
}
