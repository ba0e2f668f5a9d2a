// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "scanpacer.h"

#include <QElapsedTimer>
#include <QObject>

class RedisClient;
class RedisValue;
class RedisWorker;
class QTimer;
struct ConnectionProfile;

// Measures what a scan does to everybody else, on a connection of its own: a PING every
// 50 ms (what any client's next command waits), and every quarter second INFO stats and cpu
// (the commands others send, the server's CPU) and the slow log's newest entry. ScanPacer turns that into a
// ceiling. Lives on the GUI thread; the scan's worker is only read (its command counter).
class LoadProbe : public QObject
{
    Q_OBJECT
public:
    LoadProbe(const ConnectionProfile &profile, const RedisWorker *scanWorker, QObject *parent = nullptr);
    ~LoadProbe() override;

    void start();
    int ceiling() const { return m_pacer.ceiling(); }
    QString reason() const { return m_pacer.reason(); }

Q_SIGNALS:
    void paceChanged(int ceiling, const QString &reason);

private:
    void ping();
    void sample();
    void onInfo(const QByteArray &info, const RedisValue &slowlog);
    void fallBack(const QString &why);

    RedisClient *m_client;
    const RedisWorker *m_scanWorker;
    ScanPacer m_pacer;
    QByteArray m_ours; // the prefix of our connections' names
    QTimer *m_pingTimer;
    QTimer *m_sampleTimer;
    QList<double> m_pings; // this tick's
    QList<double> m_baselinePings;
    QElapsedTimer m_pingClock; // runs while a PING is out
    QElapsedTimer m_tickClock;
    qint64 m_lastServerCommands = -1;
    quint64 m_lastOwnCommands = 0;
    quint64 m_lastOwnScan = 0;
    double m_lastCpu = -1;
    qint64 m_lastSlowlogId = -2; // -1: an empty log
    int m_ticks = 0;
    bool m_sampling = false;
    bool m_slowlogDenied = false;
    bool m_gaveUp = false;
};
