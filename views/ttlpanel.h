// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panel.h"
#include "rediserror.h"
#include "serverinfo.h"
#include "ttlstats.h"

class QCPAbstractPlottable;
class QCPBars;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QModelIndex;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class KeyspaceReader;
class RedisClient;

// How long keys have left: the server's own INFO keyspace figures at once, then what the key
// browser's scan read with PTTL: a histogram of remaining TTL, a table per namespace and a
// forecast of the next hour's expiries with the seconds in which unusually many keys expire
// together (the "no jitter" cliff). Clicking a bar or a namespace asks the key browser to
// show those keys.
class TtlPanel : public Panel
{
    Q_OBJECT
public:
    explicit TtlPanel(RedisClient *client, QWidget *parent = nullptr);
    ~TtlPanel() override;

    bool hasContent() const override { return m_contentShown; }

    const TtlStats &ttlStats() const { return m_stats; }
    TtlStats &ttlStats() { return m_stats; }
    // What is on screen now.
    const TtlSnapshot &snapshot() const { return m_snapshot; }
    TtlNamespaceModel *namespaceModel() const { return m_model; }
    // The INFO keyspace figures last received (empty before the first reply).
    const QList<KeyspaceDb> &serverKeyspace() const { return m_seed; }
    int selectedBucket() const { return m_bucket; } // -1: none
    QByteArray selectedPrefix() const; // empty: none

public Q_SLOTS:
    // The key browser's scan: a new scan clears what the previous one found (the server's
    // figures stay); batches of another generation are dropped.
    void scanStarted(quint64 generation);
    void addScanBatch(const ScanBatch &batch);
    void scanFinished();
    // Optional: the scanner's progress, for "N of M keys" while the scan runs (without it the
    // server's INFO key count is the estimate).
    void setScanProgress(const ScanProgress &progress);
    void setSeparator(const QByteArray &separator);
    // Asks INFO keyspace now (the panel does so itself every ~10 s while active).
    void requestInfo();
    // Recomputes against the current time and redraws (normally driven by timers).
    void refresh();

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;

private:
    void buildLabels();
    void buildHistogram();
    void buildNamespaceTable();
    QLabel *buildForecast();
    void layOut(QLabel *forecastTitle);
    void onKeyspace(const QList<KeyspaceDb> &databases);
    void onKeyspaceFailed(const RedisError &error);
    void scheduleRefresh();
    void updateHeader();
    void updateHistogram();
    void updateForecast();
    void applyStyle();
    void onBarClicked(QCPAbstractPlottable *plottable, int dataIndex);
    void onNamespaceClicked(const QModelIndex &index);
    void emitFilter();
    void markContent();
    const KeyspaceDb *seedForCurrentDb() const;

    RedisClient *m_client;
    TtlStats m_stats;
    TtlSnapshot m_snapshot;
    TtlNamespaceModel *m_model;
    QSortFilterProxyModel *m_proxy;
    KeyspaceReader *m_keyspace;

    QLabel *m_seedLabel = nullptr;
    QLabel *m_scanLabel = nullptr;
    QLabel *m_errorLabel = nullptr;
    QLabel *m_histTitle = nullptr;
    QLabel *m_forecastCounts = nullptr;
    QLabel *m_cliffLabel = nullptr;
    QCustomPlot *m_histogram = nullptr;
    QCPBars *m_noTtlBars = nullptr;
    QCPBars *m_ttlBars = nullptr;
    QCPBars *m_selectionBars = nullptr;
    QList<QCPItemText *> m_barLabels;
    QCPItemText *m_histNote = nullptr;
    QTableView *m_table = nullptr;
    QCustomPlot *m_forecast = nullptr;
    QCPBars *m_forecastBars = nullptr;
    QCPBars *m_cliffBars = nullptr;
    QList<QCPItemText *> m_cliffTexts;
    QCPItemText *m_forecastNote = nullptr;

    QTimer *m_infoTimer;
    QTimer *m_flushTimer;
    QTimer *m_tickTimer;

    QList<KeyspaceDb> m_seed;
    qint64 m_seedAtMs = 0;
    bool m_haveSeed = false;
    quint64 m_generation = 0;
    qint64 m_scanDbsize = -1;
    bool m_scanning = false;
    bool m_scanDone = false;
    bool m_dirty = false;
    int m_bucket = -1;
    int m_namespace = -1; // index into m_snapshot.namespaces
    bool m_contentShown = false;
};
