// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slowlog.h"

#include <QByteArray>
#include <QWidget>

class LatencyEventsModel;
class LatencyReader;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QStackedWidget;
class QTableView;
class RedisClient;
struct LatencyLatest;

// The latency monitor, as the slow log panel shows it under its tables: the threshold
// (latency-monitor-threshold), the latest spike of every event (LATENCY LATEST) and the history
// of the selected one (LATENCY HISTORY), or how to turn the monitor on, or what the user lacks
// to read it. It reads when poll() is called; the panel calls it after each slow log poll.
class LatencyMonitor : public QWidget
{
    Q_OBJECT
public:
    explicit LatencyMonitor(RedisClient *client, QWidget *parent = nullptr);
    ~LatencyMonitor() override;

    // LATENCY LATEST, and the history of the event shown.
    void poll();
    // Drops the replies still on the wire and reads nothing more (a history for a row the
    // user picks included) until the next poll(): the panel is hidden.
    void stop();
    // True when the monitor is on (threshold > 0), false when off or unknown.
    bool isOn() const { return m_thresholdMs > 0; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyStyle();
    void onLatest(const LatencyLatest &latest);
    void showEvents(const QList<LatencyEvent> &events);
    void showHistory(const QByteArray &event, const QList<LatencySample> &samples);
    void onSelectionChanged();
    void requestHistory();
    QString userName() const;

    RedisClient *m_client;
    LatencyReader *m_reader;
    QLabel *m_header = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_hint = nullptr;
    QTableView *m_table = nullptr;
    LatencyEventsModel *m_model = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPGraph *m_graph = nullptr;
    qint64 m_thresholdMs = -1; // -1 unknown
    bool m_polling = false;
    QByteArray m_event; // the event whose history is shown
};
