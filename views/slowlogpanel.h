// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "rediserror.h"
#include "slowlog.h"

#include <QList>
#include <QPointer>
#include <QStringList>

class LatencyMonitor;
class QCPGraph;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QModelIndex;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class RedisClient;
class SlowlogModel;
class SlowlogReader;

// The slow log, live: the configuration (slowlog-log-slower-than, slowlog-max-len), a scatter
// of durations over time with flagged entries in the "bad" colour, the entries (activating one
// with a key argument opens the key), an aggregate by command, and the latency monitor
// (LATENCY LATEST and the history of the selected event, or how to turn it on). Polls only
// while active; "Clear view" forgets what is shown, never the server's log.
class SlowlogPanel : public Panel
{
    Q_OBJECT
public:
    explicit SlowlogPanel(RedisClient *client, QWidget *parent = nullptr);
    ~SlowlogPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // Reads these servers' slow logs (a cluster's primaries, named by 'names') into one table
    // with a node column, newest first by time; the latency monitor, which reads one server, is
    // hidden. Called again with other nodes, what is shown stays: a node read before keeps its
    // watermark, so nothing shows twice.
    void setMergedNodes(const QList<RedisClient *> &nodes, const QStringList &names);
    int mergedNodeCount() const { return int(m_mergedNames.size()); }

    SlowlogModel *model() const { return m_model; }
    // The reader of the server (the first node's when merged).
    SlowlogReader *reader() const { return m_readers.constFirst().reader; }
    // The one-line reason the slow log cannot be shown; empty when it can.
    QString errorText() const;
    // "slowlog-log-slower-than 10 ms · slowlog-max-len 128", or why it is unknown.
    QString configText() const;
    // Entries shown, missed and resets, as the status line says them.
    QString statusText() const;
    qint64 missedCount() const { return m_missed; }
    int resetsSeen() const { return m_resets; }
    // Latency monitor: true when it is on (threshold > 0), false when off or unknown.
    bool latencyMonitorOn() const;

public Q_SLOTS:
    void clearView();

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    void buildPlot();
    void buildTables();
    void applyStyle();
    struct Source
    {
        SlowlogReader *reader = nullptr;
        int source = 0; // in the model
        QString name; // empty for one server
        QString config; // its configuration as the header says it
        QString error; // why its log cannot be read; empty when it can
    };
    SlowlogReader *addReader(RedisClient *client, int source, const QString &name);
    void onEntries(int source, const QList<SlowlogEntry> &entries, int epoch);
    void onPolled();
    void onErrorChanged(SlowlogReader *reader, const RedisError &error);
    void onConfig(SlowlogReader *reader, const SlowlogConfig &config);
    Source *sourceOf(SlowlogReader *reader);
    void showSources();
    void onActivated(const QModelIndex &index);
    void scheduleReplot();
    void rebuildPlot();
    void updateStatus();
    void pollLatency();
    QString userName() const;

    RedisClient *m_client;
    SlowlogModel *m_model;
    QList<Source> m_readers; // one, or one per node when merged
    QStringList m_mergedNames;
    LatencyMonitor *m_latency;
    bool m_hasContent = false;
    qint64 m_missed = 0;
    int m_resets = 0;
    qint64 m_lastResetMs = 0;
    QString m_configText;
    QString m_errorText;

    QLabel *m_config = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QPushButton *m_clear = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPGraph *m_normalGraph = nullptr;
    QCPGraph *m_flaggedGraph = nullptr;
    QCPItemText *m_plotEmpty = nullptr;
    // Per graph, the (source, epoch, id) of each point in data order, so a click finds its entry.
    struct PointKey
    {
        int source;
        int epoch;
        qint64 id;
    };
    QList<PointKey> m_normalPoints;
    QList<PointKey> m_flaggedPoints;
    QTimer *m_replotTimer = nullptr;
    QTableView *m_table = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_aggregateTable = nullptr;
    QSortFilterProxyModel *m_aggregateProxy = nullptr;
};
