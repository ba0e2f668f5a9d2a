// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"
#include "panel.h"

#include <functional>

class PatternIndex;
class QLabel;
class QPushButton;
class QTableView;
class QTimer;
class RedisClient;
class TriageCollector;
template <typename Row> class RowTableModel;

// The first panel: the triage's findings, worst first, each with its evidence, how much of the
// server it saw, a hint, and a way to the panel and key it concerns. Collects (TriageCollector)
// once the window's scan has classified what it found, again as the scan goes on, and every
// kRefreshMs while shown; nothing while hidden. A finding can be dismissed for this connection
// ("known, accepted"): it is listed under Dismissed, where it can be brought back.
class TriagePanel : public Panel
{
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 30000;
    static constexpr int kSettleMs = 2000; // the least time between two collections the scan asks for

    explicit TriagePanel(RedisClient *client, QWidget *parent = nullptr);
    ~TriagePanel() override;

    bool hasContent() const override { return m_result.has_value(); }

    void setPatternIndex(const PatternIndex *index) { m_index = index; }
    // The scan's reach, as the window knows it; the rules say how much they saw from it.
    void setCoverage(const KeyspaceCoverage &coverage) { m_coverage = coverage; }
    const KeyspaceCoverage &coverage() const { return m_coverage; }
    // The index has classified what the scan found so far: findings are collected again.
    void keyspaceSettled();
    // Rule ids dismissed for this connection.
    void setDismissed(const QStringList &ids);
    QStringList dismissed() const { return m_dismissed; }
    void setThresholds(const TriageThresholds &thresholds) { m_thresholds = thresholds; }
    // The sidebar's title of a panel name ("locks" → "Locks"), for the buttons.
    void setPanelTitles(std::function<QString(const QString &)> title) { m_panelTitle = std::move(title); }
    void collectNow();

    const std::optional<TriageResult> &result() const { return m_result; }
    QList<Finding> shownFindings() const; // without the dismissed ones, ranked
    bool selectFinding(const QString &id);

Q_SIGNALS:
    void openPanelRequested(const QString &name);
    void dismissedChanged(const QStringList &ids);
    void collected(); // a collection ended and the view shows it

protected:
    void activeChanged(bool active) override;

private:
    void onCollected(const TriageFacts &facts);
    void showResult();
    void showFinding(int row);
    void updateDismissedMenu();

    RedisClient *m_client;
    TriageCollector *m_collector;
    const PatternIndex *m_index = nullptr;
    KeyspaceCoverage m_coverage;
    TriageThresholds m_thresholds;
    std::optional<TriageResult> m_result;
    QStringList m_dismissed;
    std::function<QString(const QString &)> m_panelTitle;
    bool m_stale = true;
    qint64 m_lastCollectMs = 0;

    QLabel *m_summary;
    QLabel *m_status;
    QPushButton *m_refresh;
    QPushButton *m_dismissedButton;
    RowTableModel<Finding> *m_findings;
    QTableView *m_findingsView;
    QWidget *m_details;
    QLabel *m_title;
    QLabel *m_hint;
    RowTableModel<FindingItem> *m_evidence;
    QTableView *m_evidenceView;
    QPushButton *m_openPanel;
    QPushButton *m_dismiss;
    QLabel *m_notChecked;
    QTimer *m_refreshTimer;
    QTimer *m_settleTimer;
};
