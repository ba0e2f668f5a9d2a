// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "pollingreader.h"
#include "redisvalue.h"
#include "sessions.h"

#include <QHash>
#include <QList>
#include <memory>

class RedisClient;

// Polls the sessions the classifier found: PTTL (sliding vs fixed across reads), size, and the
// reverse indexes' dangling ids. Bounded per poll (kMaxPerPoll sessions, rotating through the
// rest), pipelined, and only while polling is on. Each round ends with sessionsAvailable, then
// refreshed; refresh() reads one round without a timer.
class SessionsReader : public PollingReader
{
    Q_OBJECT
public:
    static constexpr int kMaxPerPoll = 300;
    static constexpr int kMaxIndexesPerPoll = 50;
    static constexpr int kMaxIdsPerIndex = 500;
    static constexpr int kBatch = 200;
    static constexpr int kRefreshMs = 10'000;
    static constexpr double kOutlierFactor = sessions::kOutlierFactor;
    static constexpr int kOutlierMinSessions = sessions::kOutlierMinSessions;
    static constexpr int kContentsFields = 200;
    static constexpr int kContentsBytes = 64 * 1024;

    explicit SessionsReader(RedisClient *client, QObject *parent = nullptr);

    // Session and SessionIndex matches; others are ignored. Keeps what was read of keys that stay.
    void setMatches(const QList<PatternMatch> &matches);

    // What the last round read.
    const QList<SessionRow> &sessions() const { return m_rows; }
    const QList<SessionIndexRow> &indexes() const { return m_indexRows; }
    SessionsSummary summary() const { return m_summary; }

    // Reads one session (HSCAN or GETRANGE, bounded); contentsAvailable follows.
    void loadContents(const QByteArray &key, KeyType type);

Q_SIGNALS:
    void sessionsAvailable(const SessionsResults &results);
    void contentsAvailable(const sessions::Contents &contents);

private:
    void startRound() override;
    QString readSessions(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v, qint64 sent,
                         qint64 arrived);
    QList<SessionIndexRow> readIndexSizes(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v);
    void readIndexes(QList<SessionIndexRow> indexes, qint64 now);
    void finish(QList<SessionIndexRow> indexes, qint64 now);
    QList<QByteArray> sessionPrefixes() const;
    void hscanStep(const std::shared_ptr<sessions::Contents> &out, QList<QPair<QByteArray, QByteArray>> pairs,
                   const QByteArray &cursor, quint64 generation);

    QList<SessionRow> m_rows;
    QHash<QByteArray, int> m_rowOf;
    QList<SessionIndexRow> m_indexRows;
    qsizetype m_cursor = 0; // rotation through m_rows
    qsizetype m_indexCursor = 0;
    SessionsSummary m_summary;
    quint64 m_contentsGeneration = 0;
};
