// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "patterns.h"
#include "ratelimits.h"

#include <QList>
#include <QString>

class CallersModel;
class LimitersModel;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class RateLimitsReader;
class RedisClient;

// Rate limiters found by the scan (fixed-window counters, sliding-window logs, token buckets)
// grouped by key family: per limiter its limit (from a rule or inferred), window and findings,
// with the fixed window's boundary burst explained; below, callers by pressure (count / limit),
// all of them or those of the selected limiter. Read-only: it has no actions.
class RateLimitsPanel : public Panel
{
    Q_OBJECT
public:
    static constexpr int kTickMs = 500;

    explicit RateLimitsPanel(RedisClient *client, QWidget *parent = nullptr);

    bool hasContent() const override { return m_hasContent; }

    // FixedWindow, SlidingWindow and TokenBucket matches from the main window, after every rescan.
    void setMatches(const QList<PatternMatch> &matches);
    // Shows only this limiter's callers; empty: all.
    void selectLimiter(const QString &name);
    QString selectedLimiter() const { return m_limiter; }

    RateLimitsReader *reader() const { return m_reader; }
    LimitersModel *limitersModel() const { return m_limiters; }
    CallersModel *callersModel() const { return m_callers; }
    QTableView *limitersView() const { return m_limitersView; }
    QTableView *callersView() const { return m_callersView; }
    QString statusText() const;
    QString summaryText() const;
    QString noteText() const;

protected:
    void activeChanged(bool active) override;

private:
    void onRateLimits(const RateLimitAnalysis &analysis);
    void updateNote();

    RedisClient *m_client;
    RateLimitsReader *m_reader;
    LimitersModel *m_limiters;
    CallersModel *m_callers;
    QTimer *m_tick;
    QSortFilterProxyModel *m_filter = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_libraries = nullptr; // the libraries the catalogue named among the matches
    QLabel *m_note = nullptr;
    QLabel *m_callersTitle = nullptr;
    QPushButton *m_all = nullptr;
    QTableView *m_limitersView = nullptr;
    QTableView *m_callersView = nullptr;
    QString m_limiter;
    QByteArray m_selectedCaller; // kept across refreshes that reset the model
    bool m_hasContent = false;
};
