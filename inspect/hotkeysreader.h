// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "profiler.h"
#include "rediscommand.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class PatternIndex;
class QTimer;
class RedisClient;

// What a few keys are: the pattern index's verdict when it knows the key, else one sample read
// as the index reads one (TYPE, then keysampler's commands) and classified by PatternClassifier
// with the index's rules. For the Profiler's busiest families and hottest keys, so at most
// kMaxKeys keys, in two pipelined batches.
class KeyKindReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxKeys = 20;

    explicit KeyKindReader(RedisClient *client, QObject *parent = nullptr);
    void setPatternIndex(const PatternIndex *index);
    // Reads the first kMaxKeys of 'keys'; a read in progress is dropped.
    void read(const QList<QByteArray> &keys);
    void cancel();

Q_SIGNALS:
    // Every key asked for that could be read (a key gone since has none).
    void kindsAvailable(const QHash<QByteArray, PatternMatch> &kinds);

private:
    void sample(const QList<QByteArray> &keys, const QList<KeyType> &types, const QList<qint64> &pttls);

    RedisClient *m_client;
    QPointer<const PatternIndex> m_index;
    QPointer<QObject> m_context;
    QHash<QByteArray, PatternMatch> m_found;
};

// Hot keys, read only: HOTKEYS GET where the server has the command (Redis 8.6+; it shows the
// current or last tracking session, which RedisLens never starts or resets), else under an LFU
// maxmemory-policy a paced sample of the keyspace (SCAN with a bounded COUNT, OBJECT FREQ for
// each key, one batch at a time with a pause between batches) ranked by OBJECT FREQ's counter.
// Under another policy it says why there are none: it never changes the policy.
class HotKeysReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kScanCount = 100;
    static constexpr int kDefaultMaxKeys = 10000;
    static constexpr int kTopKeys = 50;
    static constexpr int kPauseMs = 20;

    enum class Source : quint8 { None, Hotkeys, ObjectFreq };

    explicit HotKeysReader(RedisClient *client, QObject *parent = nullptr);
    ~HotKeysReader() override;

    void setPatternIndex(const PatternIndex *index);
    // How many keys an OBJECT FREQ sample reads at most.
    void setMaxKeys(int keys) { m_maxKeys = qMax(1, keys); }
    int maxKeys() const { return m_maxKeys; }

    void start();
    void cancel();
    bool isRunning() const { return m_running; }

    Source source() const { return m_source; }
    // Why hot keys cannot be shown (the policy, a refusal), empty when they can.
    QString unavailableReason() const { return m_reason; }
    // A note on how they were found ("HOTKEYS has no tracking session…"), may be empty.
    QString note() const { return m_note; }
    QByteArray policy() const { return m_policy; }
    qint64 sampledKeys() const { return m_top.added(); }
    bool scanComplete() const { return m_scanComplete; }
    // Busiest first, with their pattern kind once known.
    QList<profiler::HotKey> keys() const { return m_keys; }
    // What the values mean: "OBJECT FREQ" (a logarithmic counter), "µs of CPU", "bytes".
    QString valueName() const { return m_valueName; }

Q_SIGNALS:
    void progress();
    void finished();

private:
    void onProbe(const RedisReply &reply);
    void readHotkeys();
    void startSampling();
    void probeFreq();
    void scanNext();
    void onBatch(const RedisReply &reply, const QList<QByteArray> &keys, const QByteArray &cursor);
    void finishWith(const QList<profiler::HotKey> &keys);
    void finish();
    void unavailable(const QString &reason);

    RedisClient *m_client;
    KeyKindReader *m_kinds;
    QTimer *m_pause;
    QPointer<QObject> m_context;
    Source m_source = Source::None;
    QString m_reason;
    QString m_note;
    QString m_valueName;
    QByteArray m_policy;
    QByteArray m_cursor = "0";
    profiler::TopKeys m_top{kTopKeys};
    QList<profiler::HotKey> m_keys;
    int m_maxKeys = kDefaultMaxKeys;
    bool m_running = false;
    bool m_scanComplete = false;
};
