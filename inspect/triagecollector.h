// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"
#include "patternindex.h"

#include <QObject>
#include <QPointer>
#include <functional>

class RedisClient;
class RedlockReader;

// Gathers TriageFacts for the findings engine: the server's facts (INFO twice, a second apart
// at least, for rates; CONFIG GET of the settings the rules read; ACL LIST; the slow log), then,
// from a classified keyspace, what each pattern reader reads of its kinds (one round each, as
// bounded as the panels' reads), a probe of key lengths (every key up to kSizeProbe, else a
// sample of that many spread over the scan), the logical expiry inside a sample of cache values,
// and a sample of each geo set's points. Each step that is refused leaves its fact unread and a
// reason, so the rules say what they could not check. One collection at a time; a new one drops
// the replies of the old.
class TriageCollector : public QObject
{
    Q_OBJECT
public:
    static constexpr int kSizeProbe = 10000;
    static constexpr int kGeoSets = 20;
    static constexpr int kGeoPoints = 200;
    static constexpr int kMaxStreams = 100;
    static constexpr int kPendingPage = 100;
    static constexpr int kLogicalSample = 20; // cache values per namespace read for a logical expiry
    static constexpr int kSensitiveExamples = 1000;
    static constexpr qint64 kRateSpanMs = 1000; // the least time between the two INFO reads
    static constexpr int kIndexSlice = 4096; // keys of the index visited per turn of the event loop

    explicit TriageCollector(RedisClient *client, QObject *parent = nullptr);
    ~TriageCollector() override;

    // Collects from 'index' (classified keys; may still be growing) with the given coverage.
    // 'earlierInfo', when not empty, is an INFO read before (the window's overview keeps one):
    // then one INFO read is enough for rates.
    void collect(const PatternIndex &index, const KeyspaceCoverage &coverage, const ServerInfo &earlierInfo = {});
    bool isBusy() const;
    void cancel();

Q_SIGNALS:
    void step(const QString &what); // "reading locks…"
    void collected(const TriageFacts &facts);

private:
    struct Round;
    void next();
    void readIndex();
    void visitKey(const PatternIndex::KeyVerdict &k, int slot, QHash<const PatternMatch *, qsizetype> &verdictRow,
                  QHash<const PatternMatch *, bool> &queueVerdict);
    void readServer();
    void readSecondInfo();
    void readPatterns();
    void readStreams();
    void readQueues();
    void readSizes();
    void readLogicalExpiry();
    void readGeo();
    void finish();

    QPointer<RedisClient> m_client;
    QPointer<Round> m_round;
    // A Redlock set's reader (the profile's redlockPeers), kept across rounds with its peers'
    // connections; null without a set.
    RedlockReader *m_redlock = nullptr;
    QList<std::function<void()>> m_steps;
};
