// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "healthseries.h"
#include "panel.h"
#include "rediserror.h"
#include "serverinfo.h"

#include <QPointer>
#include <array>

class QComboBox;
class QCPAxis;
class QCPAxisRect;
class QCPGraph;
class QCPItemStraightLine;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QMouseEvent;
class QTimer;
class QToolButton;
class OverviewReader;
class RedisClient;

// The server's health over time: reads INFO (OverviewReader) while active and charts memory, throughput, cache
// health and clients as four stacked charts on one time axis, under a header of facts
// (version, role, uptime, eviction policy, persistence, keyspace).
//
// Zooming or dragging a chart pauses the live view; sampling continues while paused, and
// resuming returns to the selected window ending now.
class OverviewPanel : public Panel
{
    Q_OBJECT
public:
    explicit OverviewPanel(RedisClient *client, QWidget *parent = nullptr);
    ~OverviewPanel() override;

    bool hasContent() const override;

    // Charts these servers (a cluster's primaries) as one (OverviewReader::setMergedNodes); the
    // same list again changes nothing, another starts the charts afresh.
    void setMergedNodes(const QList<RedisClient *> &nodes);
    int mergedNodeCount() const;

    // INFO every 'ms' milliseconds (default 1000, at least 100).
    void setPollInterval(int ms);
    int pollInterval() const;
    HealthSeries *healthSeries() const { return m_health; }

    // The visible span while live, in seconds; the selector offers 5 min to 24 h.
    void setTimeWindow(int seconds);
    int timeWindow() const { return m_window; }
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }

    // All four charts as one image, at their on-screen size.
    bool exportPng(const QString &file, QString *error = nullptr);
    // Every series, one row per sample (HealthSeries::writeCsv).
    bool exportCsv(const QString &file, QString *error = nullptr);

    // The values under the cursor as the tooltip shows them, or empty; for tests.
    QString hoverText() const { return m_hoverText; }
    // Time and every series' value nearest to 't' (seconds since epoch).
    QString valuesAt(double t) const;
    QString statusText() const;
    QCustomPlot *plot() const { return m_plot; }

Q_SIGNALS:
    void pausedChanged(bool paused);

protected:
    void activeChanged(bool active) override;
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    enum Chart { MemoryChart, ThroughputChart, CacheChart, ClientsChart, ChartCount };
    struct Line
    {
        HealthSeries::Series series;
        Chart chart;
        bool rightAxis;
        QCPGraph *graph = nullptr;
        quint64 generation = ~quint64(0);
        quint64 serial = 0;
    };

    void buildUi();
    void buildPlot();
    void restyle();
    void onInfo(const ServerInfo &info);
    void onInfoFailed(const RedisError &error, qint64 atMs);
    void onConfigUnavailable(const RedisError &error);
    void refresh();
    void updateLines();
    void followLive();
    void rescaleValueAxes();
    void syncKeyRange(QCPAxis *source);
    void updateHeader();
    void setStatus(const QString &text, bool isError);
    void onPlotMouseMove(QMouseEvent *event);
    void hideCursor();
    void exportPngInteractive();
    void exportCsvInteractive();
    QCPAxis *keyAxis(int chart) const;
    QString formatValue(HealthSeries::Series s, double v) const;

    QPointer<RedisClient> m_client;
    HealthSeries *m_health;
    OverviewReader *m_reader;
    QList<RedisClient *> m_mergedNodes; // compared only, never followed
    QTimer *m_refreshTimer;

    QLabel *m_status = nullptr;
    QWidget *m_header = nullptr;
    QList<QLabel *> m_factLabels;
    QList<QLabel *> m_factValues;
    QComboBox *m_windowBox = nullptr;
    QToolButton *m_pauseButton = nullptr;
    QCustomPlot *m_plot = nullptr;
    std::array<QCPAxisRect *, ChartCount> m_rects{};
    std::array<QCPItemStraightLine *, ChartCount> m_cursor{};
    QList<Line> m_lines;

    int m_window = 300;
    bool m_paused = false;
    bool m_syncing = false;
    bool m_statusIsError = false;
    int m_chartedSamples = 0;
    bool m_contentSignalled = false;
    QString m_hoverText;
};
