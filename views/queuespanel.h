// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "queues.h"

class QCPBars;
class QCustomPlot;
class QLabel;
class QTabWidget;
class QTableView;
class QTableWidget;
class RedisClient;

// Queues: reliable list queues with their processing lists, delayed-job sorted sets with a
// due-time histogram, and the rules that decided what is a queue (editable, saved as JSON).
class QueuesPanel : public Panel
{
    Q_OBJECT
public:
    explicit QueuesPanel(RedisClient *client, QWidget *parent = nullptr);
    ~QueuesPanel() override;

    bool hasContent() const override { return m_hasContent; }
    // Lists and sorted sets found by the scan.
    void setKeys(const QList<QByteArray> &lists, const QList<QByteArray> &zsets);
    // Loads the user rules from 'path' (missing: none); Save writes there.
    void setRulesFile(const QString &path);
    // Selects the longest queue (now, or once the first results arrive).
    void openLongest();

    QueuesLoader *loader() const { return m_loader; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableView *queuesView() const { return m_queuesView; }
    QTableView *delayedView() const { return m_delayedView; }
    QTableView *dueView() const { return m_dueView; }
    QTableView *rulesView() const { return m_rulesView; }
    QTableWidget *processingTable() const { return m_processing; }
    QueueRulesModel *rulesModel() const { return m_rulesModel; }
    QCustomPlot *plot() const { return m_plot; }
    QLabel *rulesStatus() const { return m_rulesStatus; }
    // The rules tab's buttons, as a test presses them.
    void addRule();
    void removeSelectedRule();
    void moveSelectedRule(int delta);
    bool saveRules();

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void onRefreshed();
    void showQueueDetails();
    void showDelayedDetails();
    void applyRules();
    void styleChart();

    RedisClient *m_client;
    QueuesLoader *m_loader;
    QueueRulesModel *m_rulesModel;
    DueItemsModel *m_dueModel;
    QString m_rulesPath;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_queuesView = nullptr;
    QLabel *m_peek = nullptr;
    QTableWidget *m_processing = nullptr;
    QTableView *m_delayedView = nullptr;
    QLabel *m_delayedSummary = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_bars = nullptr;
    QTableView *m_dueView = nullptr;
    QTableView *m_rulesView = nullptr;
    QLabel *m_rulesStatus = nullptr;
    QByteArray m_selectedQueue, m_selectedDelayed;
    bool m_openLongestPending = false;
    bool m_hasContent = false;
};
