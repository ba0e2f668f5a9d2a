// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuespanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "jobbrowser.h"
#include "panelparts.h"
#include "qcp.h"
#include "ruleseditor.h"
#include "tableview.h"

#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <limits>

namespace {

QByteArray selectedKey(QTableView *view, int role)
{
    const QModelIndexList rows = view->selectionModel() ? view->selectionModel()->selectedRows() : QModelIndexList();
    return rows.isEmpty() ? QByteArray() : rows.first().data(role).toByteArray();
}

void selectKey(QTableView *view, const QByteArray &key, int role)
{
    QAbstractItemModel *m = view->model();
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(role).toByteArray() == key) {
            view->selectRow(r);
            return;
        }
    }
}

} // namespace

QueuesPanel::QueuesPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_client(client),
      m_reader(new QueuesReader(client, this)),
      m_jobReader(new JobQueuesReader(client, this)),
      m_jobModel(new JobQueuesModel(this)),
      m_queuesModel(new QueuesModel(this)),
      m_delayedModel(new DelayedModel(this)),
      m_dueModel(new DueItemsModel(this)),
      m_activeModel(new ActiveJobsModel(this)),
      m_processingModel(new ProcessingListsModel(this))
{
    auto *layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("Waiting for the scan's lists and sorted sets…"), this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);

    buildJobQueuesTab();
    buildQueuesTab();
    buildDelayedTab();
    buildRulesTab();

    connect(m_reader, &QueuesReader::queuesAvailable, this, &QueuesPanel::onQueuesAvailable);
    connect(m_jobReader, &JobQueuesReader::queuesAvailable, this, &QueuesPanel::onJobQueuesAvailable);
    connect(m_jobReader, &JobQueuesReader::failed, this,
            [this](const QString &message) { m_jobDetails->setText(tr("Cannot read job queues: %1").arg(message)); });
    connect(m_jobView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_selectedJobQueue = selectedKey(m_jobView, RowTableRoles::KeyRole);
        showJobQueueDetails();
    });
    connect(m_reader, &QueuesReader::failed, this,
            [this](const QString &message) { m_status->setText(tr("Cannot read queues: %1").arg(message)); });
    connect(m_queuesView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_selectedQueue = selectedKey(m_queuesView, RowTableRoles::KeyRole);
        showQueueDetails();
    });
    connect(m_delayedView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_selectedDelayed = selectedKey(m_delayedView, RowTableRoles::KeyRole);
        showDelayedDetails();
    });
    connect(m_queuesView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(RowTableRoles::KeyRole).toByteArray(), KeyType::List);
    });
    connect(m_delayedView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(RowTableRoles::KeyRole).toByteArray(), KeyType::ZSet);
    });
    connect(m_processing, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        Q_EMIT openKeyRequested(index.data(RowTableRoles::KeyRole).toByteArray(), KeyType::List);
    });
    connect(m_dueView, &QAbstractItemView::doubleClicked, this, [this] {
        if (!m_selectedDelayed.isEmpty())
            Q_EMIT openKeyRequested(m_selectedDelayed, KeyType::ZSet);
    });
    styleChart();
}

void QueuesPanel::buildJobQueuesTab()
{
    // Job queues: one row per queue of a library, then the selected queue's active jobs.
    auto *split = new QSplitter(Qt::Vertical, m_tabs);
    auto *proxy = new SeverityProxyModel(this, this);
    proxy->setSourceModel(m_jobModel);
    proxy->setSortRole(RowTableRoles::SortRole);
    m_jobView = tableview::make(proxy, split);
    m_jobView->setObjectName(QStringLiteral("jobQueuesView"));
    auto *details = new QWidget(split);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    m_jobDetails
        = new QLabel(tr("Job queues of libraries appear here once the scan has classified their keys."), details);
    m_jobDetails->setWordWrap(true);
    m_jobDetails->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detailsLayout->addWidget(m_jobDetails);
    // The selected queue's active jobs, and its jobs by state, a page at a time.
    m_jobTabs = new QTabWidget(details);
    m_jobTabs->setObjectName(QStringLiteral("jobTabs"));
    // The state of a stalled job in the "bad" colour, of a long-running one in "warning".
    auto *activeProxy
        = new ColumnSeverityProxy({{ActiveJobsModel::StateColumn, RowTableRoles::SeverityRole}}, m_jobTabs);
    activeProxy->setSourceModel(m_activeModel);
    m_activeJobs = tableview::make(activeProxy, m_jobTabs, QStringLiteral("activeJobs"));
    m_jobTabs->addTab(m_activeJobs, tr("Active jobs"));
    m_jobBrowser = new JobBrowser(m_client, m_jobTabs);
    m_jobTabs->addTab(m_jobBrowser, tr("Jobs by state"));
    detailsLayout->addWidget(m_jobTabs, 1);
    connect(m_jobBrowser, &JobBrowser::openKeyRequested, this, &Panel::openKeyRequested);
    connect(m_jobTabs, &QTabWidget::currentChanged, this, [this] { updateJobBrowserActive(); });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateJobBrowserActive(); });
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    m_tabs->addTab(split, tr("Job queues"));
}

void QueuesPanel::buildQueuesTab()
{
    // Queues: the table, then the selected queue's head/tail and processing lists.
    auto *queuesSplit = new QSplitter(Qt::Vertical, m_tabs);
    auto *queuesProxy = new QSortFilterProxyModel(this);
    queuesProxy->setSourceModel(m_queuesModel);
    queuesProxy->setSortRole(RowTableRoles::SortRole);
    m_queuesView = tableview::make(queuesProxy, queuesSplit);
    m_queuesView->setSortingEnabled(true);
    m_queuesView->sortByColumn(QueuesModel::LengthColumn, Qt::DescendingOrder);
    auto *details = new QWidget(queuesSplit);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    m_peek = new QLabel(details);
    m_peek->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_peek->setWordWrap(true);
    // An item without spaces cannot wrap: it is cut at the edge rather than widening the window.
    m_peek->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    detailsLayout->addWidget(m_peek);
    // The age of a stale list's oldest item in the "bad" colour.
    auto *processingProxy
        = new ColumnSeverityProxy({{ProcessingListsModel::AgeColumn, RowTableRoles::SeverityRole}}, details);
    processingProxy->setSourceModel(m_processingModel);
    m_processing = tableview::make(processingProxy, details, QStringLiteral("processingLists"));
    detailsLayout->addWidget(m_processing, 1);
    queuesSplit->setStretchFactor(0, 3);
    queuesSplit->setStretchFactor(1, 2);
    m_listQueuesTab = queuesSplit;
    m_tabs->addTab(queuesSplit, tr("List queues"));
}

void QueuesPanel::buildDelayedTab()
{
    // Delayed jobs: the table, then the histogram beside the next due items.
    auto *delayedSplit = new QSplitter(Qt::Vertical, m_tabs);
    auto *delayedProxy = new QSortFilterProxyModel(this);
    delayedProxy->setSourceModel(m_delayedModel);
    delayedProxy->setSortRole(RowTableRoles::SortRole);
    m_delayedView = tableview::make(delayedProxy, delayedSplit);
    m_delayedView->setSortingEnabled(true);
    m_delayedView->sortByColumn(DelayedModel::OverdueColumn, Qt::DescendingOrder);
    auto *bottom = new QWidget(delayedSplit);
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    m_delayedSummary = new QLabel(bottom);
    bottomLayout->addWidget(m_delayedSummary);
    auto *charts = new QSplitter(Qt::Horizontal, bottom);
    m_plot = new QCustomPlot(charts);
    m_plot->setMinimumSize(280, 180);
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setWidth(0.7);
    chartstyle::label(m_plot->xAxis, tr("Due (from now)"));
    chartstyle::label(m_plot->yAxis, tr("Jobs"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const QStringList labels = DelayedInfo::bucketLabels();
    for (int i = 0; i < labels.size(); ++i)
        ticker->addTick(i, labels.at(i));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, DelayedInfo::kBuckets - 0.4);
    m_plot->yAxis->setRange(0, 1);
    m_dueView = tableview::make(m_dueModel, charts);
    charts->addWidget(m_plot);
    charts->addWidget(m_dueView);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
    bottomLayout->addWidget(charts, 1);
    delayedSplit->setStretchFactor(0, 2);
    delayedSplit->setStretchFactor(1, 3);
    m_tabs->addTab(delayedSplit, tr("Delayed jobs"));
}

void QueuesPanel::buildRulesTab()
{
    // Rules: the shared rules file's editor, then the built-in queue rules as text.
    auto *rulesPage = new QWidget(m_tabs);
    auto *rulesLayout = new QVBoxLayout(rulesPage);
    auto *intro = new QLabel(tr("Rules of kind queue, processing or delayed make a list or sorted set one; a rule "
                                "of kind none, or of any other kind, says it is not a queue."),
                             rulesPage);
    intro->setWordWrap(true);
    rulesLayout->addWidget(intro);
    m_rulesEditor = new RulesEditor(rulesPage);
    rulesLayout->addWidget(m_rulesEditor, 1);
    auto *builtIn = new QLabel(tr("Built-in queue rules, after yours:") + QStringLiteral("\n• ")
                                   + QueueRules::builtInDescriptions().join(QStringLiteral("\n• ")),
                               rulesPage);
    builtIn->setWordWrap(true);
    rulesLayout->addWidget(builtIn);
    m_tabs->addTab(rulesPage, tr("Rules"));
}

QueuesPanel::~QueuesPanel() = default;

void QueuesPanel::setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets)
{
    m_status->setText(tr("Classifying %n list(s) and %1 sorted set(s)…", nullptr, int(lists.size()))
                          .arg(qMin<qsizetype>(zsets.size(), QueuesReader::kMaxZSets)));
    m_reader->setKeys(lists, zsets);
}

void QueuesPanel::setRulesFile(PatternRulesFile *file)
{
    if (m_rulesFile)
        disconnect(m_rulesFile, nullptr, this, nullptr);
    m_rulesFile = file;
    m_rulesEditor->setFile(file);
    if (file)
        connect(file, &PatternRulesFile::rulesChanged, this, &QueuesPanel::applyRules);
    applyRules();
}

void QueuesPanel::openLongest()
{
    m_openRequested = true;
    // Job queues of libraries come first: the worst of them (stalled jobs, stopped workers).
    if (const QList<JobQueueInfo> &jobs = m_jobModel->rows(); !jobs.isEmpty()) {
        qsizetype worst = 0;
        for (qsizetype i = 1; i < jobs.size(); ++i) {
            if (int(jobs.at(i).severity()) > int(jobs.at(worst).severity()))
                worst = i;
        }
        m_openLongestPending = false;
        m_jobOpened = true;
        m_tabs->setCurrentIndex(0);
        selectKey(m_jobView, jobs.at(worst).spec.id(), RowTableRoles::KeyRole);
        return;
    }
    if (m_queuesModel->rows().isEmpty()) {
        m_openLongestPending = true;
        return;
    }
    m_openLongestPending = false;
    const QList<QueueInfo> &rows = m_queuesModel->rows();
    qsizetype best = 0;
    for (qsizetype i = 1; i < rows.size(); ++i) {
        if (rows.at(i).length > rows.at(best).length)
            best = i;
    }
    m_tabs->setCurrentWidget(m_listQueuesTab);
    selectKey(m_queuesView, rows.at(best).key, RowTableRoles::KeyRole);
    const QList<DelayedInfo> &delayed = m_delayedModel->rows();
    if (!delayed.isEmpty() && m_selectedDelayed.isEmpty())
        selectKey(m_delayedView, delayed.first().key, RowTableRoles::KeyRole);
}

void QueuesPanel::activeChanged(bool active)
{
    m_reader->setPolling(active);
    m_jobReader->setPolling(active);
    updateJobBrowserActive();
}

void QueuesPanel::updateJobBrowserActive()
{
    m_jobBrowser->setActive(isActive() && m_tabs->currentIndex() == 0 && m_jobTabs->currentWidget() == m_jobBrowser);
}

void QueuesPanel::setJobQueues(const QList<JobQueueSpec> &queues)
{
    m_jobReader->setQueues(queues);
    if (isActive())
        m_jobReader->refresh();
}

void QueuesPanel::updateBadge()
{
    // Stalled jobs first: work that nothing will finish; then overdue delayed jobs.
    const int overdue = int(qMin<qint64>(m_overdue, std::numeric_limits<int>::max()));
    if (m_stalled > 0)
        setBadge(m_stalled, Severity::Bad,
                 tr("%n job(s) stalled: active without a live lock or worker", nullptr, m_stalled)
                     + (overdue > 0
                            ? QStringLiteral("; ") + tr("%n job(s) overdue in the delayed-job sets", nullptr, overdue)
                            : QString()));
    else
        setBadge(
            overdue, Severity::Warning,
            tr("%n job(s) overdue in the delayed-job sets: nothing claimed them when they were due", nullptr, overdue));
}

void QueuesPanel::onJobQueuesAvailable(const QList<JobQueueInfo> &queues)
{
    m_jobModel->setRows(queues);
    m_stalled = 0;
    for (const JobQueueInfo &q : queues)
        m_stalled += int(q.stalled.size());
    updateBadge();
    // Asked to open the worst queue before the job queues were read: they come first.
    if ((m_openLongestPending || m_openRequested) && !m_jobOpened && !queues.isEmpty())
        openLongest();
    m_jobView->resizeColumnsToContents();
    m_jobView->setColumnWidth(0, qMin(m_jobView->columnWidth(0), 260));
    showJobQueueDetails();
    if (!queues.isEmpty() && !m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void QueuesPanel::showJobQueueDetails()
{
    const JobQueueInfo *q = m_jobModel->find(m_selectedJobQueue);
    m_jobBrowser->setQueue(q);
    if (!q) {
        m_activeModel->clear();
        m_jobDetails->setText(m_jobModel->rowCount() == 0
                                  ? tr("No job queue of a known library was found.")
                                  : tr("%n job queue(s). Select one to see its active jobs and workers.", nullptr,
                                       m_jobModel->rowCount()));
        return;
    }
    QStringList workers;
    for (const QueueWorker &w : q->workers) {
        QString line = w.name.toHtmlEscaped();
        if (w.lastSeenMs >= 0)
            line += tr(" (beat %1 ago)").arg(format::duration(w.lastSeenMs));
        if (!w.alive)
            line
                = QStringLiteral("<b>%1</b>")
                      .arg(line + tr(" stopped")
                           + (w.holds.isEmpty() ? QString() : tr(", holding %n job(s)", nullptr, int(w.holds.size()))));
        workers.append(line);
    }
    QStringList keys;
    for (const JobQueueKey &k : q->spec.keys)
        keys.append(QStringLiteral("%1 (%2)").arg(bytesescape::quoteIfNeeded(k.key).toHtmlEscaped(), k.role));
    m_jobDetails->setText(
        tr("<b>%1</b> · %2%3<br>keys: %4<br>workers: %5%6")
            .arg(q->spec.isLibraryWide() ? tr("all queues of %1").arg(q->spec.library)
                                         : bytesescape::quoteIfNeeded(q->spec.name).toHtmlEscaped(),
                 q->spec.library.toHtmlEscaped(),
                 q->version.isEmpty() ? QString() : QStringLiteral(" ") + q->version.toHtmlEscaped(),
                 keys.join(QStringLiteral(", ")),
                 workers.isEmpty() ? tr("none registered") : workers.join(QStringLiteral(", ")),
                 q->problems().isEmpty() ? QString() : QStringLiteral("<br>") + q->problems().toHtmlEscaped()));
    // Merged by job id: a job selected in the table stays selected across polls.
    m_activeModel->setRows(q->active);
    m_activeJobs->resizeColumnsToContents();
}

void QueuesPanel::onQueuesAvailable(const QList<QueueInfo> &queues, const QList<DelayedInfo> &delayed)
{
    // Merged by key: the selections and the scroll stay where they were.
    m_queuesModel->setRows(queues);
    m_delayedModel->setRows(delayed);
    const int queueCount = int(queues.size());
    const int delayedCount = int(delayed.size());
    int stale = 0;
    for (const QueueInfo &q : queues)
        stale += q.stale() ? 1 : 0;
    qint64 overdue = 0;
    for (const DelayedInfo &d : delayed)
        overdue += d.overdue;
    m_overdue = overdue;
    updateBadge();
    QString text = tr("%n list queue(s), %1 delayed-job set(s).", nullptr, queueCount).arg(delayedCount);
    if (stale > 0)
        text += QLatin1Char(' ')
            + tr("%n queue(s) with a stale processing list (oldest item over %1).", nullptr, stale)
                  .arg(format::duration(m_reader->staleThresholdMs()));
    m_status->setText(text);
    if (m_selectedDelayed.isEmpty() && delayedCount > 0)
        m_delayedView->selectRow(0);
    showQueueDetails();
    showDelayedDetails();
    // Small tables (one row per queue): sizing to contents is cheap; peeks are capped.
    m_queuesView->resizeColumnsToContents();
    for (int c : {int(QueuesModel::HeadColumn), int(QueuesModel::TailColumn)})
        m_queuesView->setColumnWidth(c, qMin(m_queuesView->columnWidth(c), 220));
    m_delayedView->resizeColumnsToContents();
    m_dueView->resizeColumnsToContents();
    if (m_openLongestPending)
        openLongest();
    if (!m_hasContent) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
}

void QueuesPanel::showQueueDetails()
{
    const QueuesModel *model = m_queuesModel;
    const int row = model->rowOf(m_selectedQueue);
    if (row < 0) {
        m_processingModel->clear();
        m_peek->setText(tr("Select a queue to see its head, tail and processing lists."));
        return;
    }
    const QueueInfo &q = model->rows().at(row);
    const auto plain = [](const QByteArray &item) {
        return item.size() > QueuesModel::kPeekBytes
            ? QString(bytesescape::escape(item.left(QueuesModel::kPeekBytes)) + QStringLiteral("…"))
            : bytesescape::escape(item);
    };
    const auto shown = [&plain](const QByteArray &item) { return plain(item).toHtmlEscaped(); };
    m_peek->setText(tr("<b>%1</b>: %2 items · classified as queue because %3<br>head (newest): <tt>%4</tt><br>tail "
                       "(oldest, next to be taken): <tt>%5</tt>")
                        .arg(bytesescape::quoteIfNeeded(q.key).toHtmlEscaped(), format::count(quint64(q.length)),
                             q.reason.toHtmlEscaped(), shown(q.head), shown(q.tail)));
    // Merged by list key: a list selected in the table stays selected across polls.
    m_processingModel->setRows(q.processing);
    m_processing->resizeColumnsToContents();
}

void QueuesPanel::showDelayedDetails()
{
    const DelayedModel *model = m_delayedModel;
    const int row = model->rowOf(m_selectedDelayed);
    QVector<double> keys, values;
    if (row < 0) {
        m_dueModel->setItems({}, QDateTime::currentMSecsSinceEpoch());
        m_delayedSummary->setText(model->rowCount() ? tr("Select a set.") : tr("No delayed-job sets found."));
        m_bars->data()->clear();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const DelayedInfo &d = model->rows().at(row);
    m_dueModel->setItems(d.next, d.readAtMs);
    m_delayedSummary->setText(
        tr("%1: %2 jobs, %3 due now (oldest overdue %4) · %5")
            .arg(bytesescape::quoteIfNeeded(d.key), format::count(quint64(d.total)), format::count(quint64(d.overdue)),
                 d.oldestOverdueAgeMs < 0 ? tr("—") : format::duration(d.oldestOverdueAgeMs), d.reason));
    double max = 0;
    for (int i = 0; i < d.histogram.size(); ++i) {
        keys.append(i);
        values.append(double(d.histogram.at(i)));
        max = qMax(max, double(d.histogram.at(i)));
    }
    m_bars->setData(keys, values, true);
    m_plot->yAxis->setRange(0, max > 0 ? max * 1.15 : 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void QueuesPanel::applyRules()
{
    m_reader->rules().setUserRules(m_rulesFile ? m_rulesFile->rules() : PatternRules());
    m_reader->reclassify();
}

void QueuesPanel::styleChart()
{
    chartstyle::apply(m_plot, palette());
    m_bars->setPen(QPen(chartstyle::series(0, palette())));
    m_bars->setBrush(chartstyle::series(0, palette()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void QueuesPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        styleChart();
    Panel::changeEvent(event);
}
