// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "profiler.h"
#include "rediserror.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

class KeyKindReader;
class PatternIndex;
class QTimer;
class RedisClient;
class RedisValue;

// A bounded MONITOR: at most kMaxSeconds and kMaxLines lines (the user may choose less, never
// more), stopped early on request. MONITOR makes the server copy every command to this
// connection, which can halve its throughput, so the capture runs on a dedicated connection of
// the same profile that ends with it. Lines are summed as they arrive (profiler::MonitorSummary),
// never kept. RedisLens's own connections (CLIENT LIST names them, read just before) are counted
// apart. At the end, CLIENT LIST again names the clients seen, and the busiest key families are
// read once each for their pattern kind (KeyKindReader).
class MonitorCapture : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxLines = 100000;
    static constexpr int kMaxMs = 10000;
    static constexpr int kKindFamilies = 10; // families whose kind is read after a capture
    // The connection's undelivered lines wait for the window up to this many bytes.
    static constexpr qint64 kQueueBytes = qint64(32) * 1024 * 1024;

    enum class State : quint8 { Idle, Starting, Running, Finishing, Done };
    enum class End : quint8 {
        None,
        LineBound, // the line bound was reached
        TimeBound, // the time bound
        Stopped, // the user stopped it
        Refused, // the server refused MONITOR (NOPERM, read-only)
        Failed, // the connection failed
    };

    explicit MonitorCapture(RedisClient *client, QObject *parent = nullptr);
    ~MonitorCapture() override;

    void setPatternIndex(const PatternIndex *index);
    // Clamped to 1..kMaxLines and 100 ms..kMaxMs; for the next capture.
    void setLimits(int maxLines, int maxMs);
    int maxLines() const { return m_maxLines; }
    int maxMs() const { return m_maxMs; }

    void start();
    // Ends a capture early; what arrived is summed.
    void stop();

    State state() const { return m_state; }
    bool isCapturing() const { return m_state == State::Starting || m_state == State::Running; }
    End end() const { return m_end; }
    // Why the capture could not run (the refusal, the connection's failure); empty otherwise.
    QString errorText() const { return m_errorText; }
    const profiler::MonitorSummary &summary() const { return m_summary; }
    // Lines counted toward the bound: received, plus dropped when the window fell behind.
    qint64 lineCount() const { return m_summary.lines() + m_summary.malformed() + m_dropped; }
    qint64 droppedLines() const { return m_dropped; }
    // How long the MONITOR ran, from its +OK to its end.
    qint64 elapsedMs() const;
    // The dedicated connection while it exists (tests watch it go).
    RedisClient *monitorClient() const;

Q_SIGNALS:
    void stateChanged(MonitorCapture::State state);
    // Lines arrived (at most every batch the connection delivers).
    void progress();
    void finished(MonitorCapture::End end);

private:
    void connectMonitor(const QSet<QByteArray> &own);
    void onMessages(const QList<RedisValue> &messages, qint64 dropped);
    void finishCapture(End end, const QString &error = {});
    void nameClients();
    void readKinds();
    void setState(State state);

    RedisClient *m_client;
    QPointer<RedisClient> m_monitor;
    KeyKindReader *m_kinds;
    QTimer *m_timeBound;
    QPointer<QObject> m_context;
    profiler::MonitorSummary m_summary;
    QElapsedTimer m_clock;
    qint64 m_elapsedMs = 0;
    qint64 m_dropped = 0;
    int m_maxLines = kMaxLines;
    int m_maxMs = kMaxMs;
    State m_state = State::Idle;
    End m_end = End::None;
    QString m_errorText;
};
