// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobqueuesreader.h"
#include "panel.h"
#include "queuesreader.h"

class JobBrowser;
class QCPBars;
class QCustomPlot;
class QLabel;
class QTabWidget;
class QTableView;
class PatternRulesFile;
class RedisClient;
class RulesEditor;

// Queues: the job queues of libraries (BullMQ, Sidekiq, Celery, RQ…) as their users see them,
// reliable list queues with their processing lists, delayed-job sorted sets with a due-time
// histogram, and the rules that decided what is a queue: the shared rules file's editor, then
// the built-in rules.
class QueuesPanel : public Panel
{
    Q_OBJECT
public:
    explicit QueuesPanel(RedisClient *client, QWidget *parent = nullptr);
    ~QueuesPanel() override;

    bool hasContent() const override { return m_hasContent; }
    // Lists and sorted sets found by the scan.
    void setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets);
    // The job queues the pattern index found (jobqueues::group of its JobQueue keys).
    void setJobQueues(const QList<JobQueueSpec> &queues);
    // The shared user rules (owned by the main window): queues are classified again whenever
    // they change, and the rules tab edits them.
    void setRulesFile(PatternRulesFile *file);
    // Selects the longest queue (now, or once the first results arrive).
    void openLongest();

    QueuesReader *reader() const { return m_reader; }
    JobQueuesReader *jobReader() const { return m_jobReader; }
    JobQueuesModel *jobQueuesModel() const { return m_jobModel; }
    QTableView *jobQueuesView() const { return m_jobView; }
    QTableView *activeJobsTable() const { return m_activeJobs; }
    JobBrowser *jobBrowser() const { return m_jobBrowser; }
    QTabWidget *jobTabs() const { return m_jobTabs; }
    QueuesModel *queuesModel() const { return m_queuesModel; }
    DelayedModel *delayedModel() const { return m_delayedModel; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableView *queuesView() const { return m_queuesView; }
    QTableView *delayedView() const { return m_delayedView; }
    QTableView *dueView() const { return m_dueView; }
    QTableView *processingTable() const { return m_processing; }
    RulesEditor *rulesEditor() const { return m_rulesEditor; }
    QCustomPlot *plot() const { return m_plot; }

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void buildJobQueuesTab();
    void buildQueuesTab();
    void onJobQueuesAvailable(const QList<JobQueueInfo> &queues);
    void showJobQueueDetails();
    void updateJobBrowserActive();
    void updateBadge();
    void buildDelayedTab();
    void buildRulesTab();
    void onQueuesAvailable(const QList<QueueInfo> &queues, const QList<DelayedInfo> &delayed);
    void showQueueDetails();
    void showDelayedDetails();
    void applyRules();
    void styleChart();

    RedisClient *m_client;
    QueuesReader *m_reader;
    JobQueuesReader *m_jobReader;
    JobQueuesModel *m_jobModel;
    QueuesModel *m_queuesModel;
    DelayedModel *m_delayedModel;
    DueItemsModel *m_dueModel;
    ActiveJobsModel *m_activeModel;
    ProcessingListsModel *m_processingModel;
    QPointer<PatternRulesFile> m_rulesFile;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_jobView = nullptr;
    QLabel *m_jobDetails = nullptr;
    QTableView *m_activeJobs = nullptr;
    QTabWidget *m_jobTabs = nullptr;
    JobBrowser *m_jobBrowser = nullptr;
    QWidget *m_listQueuesTab = nullptr;
    QByteArray m_selectedJobQueue;
    qint64 m_overdue = 0;
    int m_stalled = 0;
    bool m_openRequested = false;
    bool m_jobOpened = false;
    QTableView *m_queuesView = nullptr;
    QLabel *m_peek = nullptr;
    QTableView *m_processing = nullptr;
    QTableView *m_delayedView = nullptr;
    QLabel *m_delayedSummary = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_bars = nullptr;
    QTableView *m_dueView = nullptr;
    RulesEditor *m_rulesEditor = nullptr;
    QByteArray m_selectedQueue, m_selectedDelayed;
    bool m_openLongestPending = false;
    bool m_hasContent = false;
};
