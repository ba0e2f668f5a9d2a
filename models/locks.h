// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "redisworker.h"
#include "ttl.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

class QTimer;
class RedisClient;

// A lock value that can identify one holder: long enough and varied enough to be a random
// token ("3f1c9a0e7b2d4c55", a UUID, "host:pid:uuid"). "1", "locked" or "true" are the same
// for every holder, so compare-and-delete cannot tell the owner from anyone else.
bool lockValueLooksLikeToken(const QByteArray &value);

// One lock as the last poll read it.
struct LockInfo
{
    enum Flag : quint8 {
        NotTokenLike = 1, // least severe
        LongTtl = 2, // far above the family's typical TTL
        NoTtl = 4, // most severe: a crashed holder never lets go
    };

    QByteArray key;
    KeyType type = KeyType::String;
    QString family;
    QByteArray value; // the first kValueBytes bytes (strings only)
    qint64 valueLength = -1; // STRLEN; -1 unknown
    qint64 pttlMs = ttl::kUnknown; // at readAtMs
    qint64 readAtMs = 0;
    qint64 familyMedianMs = -1; // the family's median TTL, for the LongTtl explanation
    quint8 flags = 0;
    bool released = false; // gone since the previous poll; shown once, then dropped
    QString error; // a per-key error reply (WRONGTYPE, NOPERM)

    qint64 expireAtMs() const { return ttl::expireAt(pttlMs, readAtMs); }
    int severity() const; // 3 no TTL, 2 long TTL, 1 not token-like, 0 fine; -1 released
    QString flagsText() const; // "no TTL · value not token-like"
    bool canRelease() const { return !released && type == KeyType::String && error.isEmpty(); }
};

// Sets the flags of a set of locks read together: NoTtl, LongTtl (more than kLongTtlFactor times
// the family's median and more than kLongTtlMinMs), NotTokenLike.
void flagLocks(QList<LockInfo> &locks);
// Severity first (no TTL on top), then the key; released locks last.
void sortLocks(QList<LockInfo> &locks);

class LocksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { ResourceColumn, TokenColumn, RemainingColumn, FamilyColumn, FlagsColumn, ColumnCount };
    enum Role { KeyRole = Qt::UserRole + 1, TokenRole, SeverityRole, TypeRole, TtlSeverityRole };
    using QAbstractTableModel::QAbstractTableModel;

    // Replaces the rows. When the same keys come back in the same order only the cells change
    // (selection and scroll position stay); otherwise the model is reset.
    void setRows(const QList<LockInfo> &rows);
    const QList<LockInfo> &rows() const { return m_rows; }
    int rowOf(const QByteArray &key) const;
    // The countdown: the remaining column is computed from each row's read time and 'nowMs'.
    void setNow(qint64 nowMs);
    qint64 now() const { return m_now; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<LockInfo> m_rows;
    qint64 m_now = 0;
};

// Reads the locks the classifier found: per key GETRANGE 0 kValueBytes-1 (a huge value costs
// nothing), STRLEN and PTTL, pipelined in batches of kBatch keys, one batch after the other,
// at most kMaxLocks keys per poll; again every kRefreshMs while polling.
class LocksLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxLocks = 500;
    static constexpr int kBatch = 100;
    static constexpr int kValueBytes = 256;
    static constexpr int kRefreshMs = 3000;

    explicit LocksLoader(RedisClient *client, QObject *parent = nullptr);

    // PatternKind::Lock matches; others are ignored. Reads at once only while polling.
    void setMatches(const QList<PatternMatch> &matches);
    int matchCount() const { return int(m_matches.size()); }
    void refresh();
    void setPolling(bool on);
    bool isPolling() const;
    bool hasResults() const { return m_hasResults; }

    LocksModel *model() const { return m_model; }
    const QList<LockInfo> &locks() const { return m_model->rows(); }
    const LockInfo *lock(const QByteArray &key) const;

Q_SIGNALS:
    void refreshed();
    void failed(const QString &message);

private:
    void readBatch(int from, qint64 startedAt);
    void finishRound();

    RedisClient *m_client;
    LocksModel *m_model;
    QTimer *m_poll;
    QList<PatternMatch> m_matches;
    QList<LockInfo> m_reading; // this round's results so far
    QSet<QByteArray> m_shownReleased; // shown as released once already: dropped now
    QPointer<QObject> m_context; // replaced on setMatches: older replies are dropped
    bool m_busy = false;
    bool m_again = false;
    bool m_hasResults = false;
};
