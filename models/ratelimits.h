// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "rowtablemodel.h"
#include "ttl.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariantMap>
#include <cmath>
#include <optional>

enum class LimiterKind : quint8 { FixedWindow, SlidingWindow, TokenBucket };
QString limiterKindName(LimiterKind kind); // "fixed window", "sliding log", "token bucket"

// One caller of one limiter: for a fixed window its newest window's counter, for a sliding
// log the sorted set, for a token bucket the hash.
struct CallerState
{
    enum Flag : quint8 {
        NoTtl = 1, // counter: locked out for ever once over; bucket/log: never goes away
        Untrimmed = 2, // sliding log: members the last write should have trimmed
        AtLimit = 4, // count >= limit, or an empty bucket
        OverLimit = 8, // count > limit
    };

    QByteArray key;
    QString limiter; // the limiter's name: the family ("rate:user:{n}:{n}")
    LimiterKind kind = LimiterKind::FixedWindow;
    QByteArray caller; // the id part of the key ("42", "client-7")
    QByteArray window; // fixed window: the window number segment
    qint64 count = -1; // fixed: the counter; sliding: members inside the window
    qint64 total = -1; // sliding: ZCARD
    qint64 untrimmed = 0; // sliding: members at or before (newest - window)
    qint64 newestMs = -1, oldestMs = -1; // sliding: the scores at both ends
    qint64 pttlMs = ttl::kUnknown;
    qint64 readAtMs = 0; // local clock
    qint64 serverReadAtMs = 0; // the server's clock at the read
    qint64 limit = -1; // the limiter's
    qint64 windowMs = -1; // the limiter's
    double tokens = qQNaN(); // bucket
    qint64 lastRefillMs = -1; // bucket: epoch ms
    qint64 refillAgeMs = -1; // bucket: at readAtMs
    double capacity = qQNaN(); // bucket, from a rule
    quint8 flags = 0;
    QString error;

    // count / limit, or for a bucket with a known capacity the share of it used; -1 unknown.
    double pressure() const;
    QString flagsText() const;
};

// A group of callers with one key shape and one limit.
struct LimiterInfo
{
    QString name;
    LimiterKind kind = LimiterKind::FixedWindow;
    qint64 limit = -1;
    QString limitSource; // "rule", "inferred: 40 of 80 callers stop at 100", "unknown: …"
    qint64 windowMs = -1;
    QString windowSource; // "rule", "from the window number", "from TTLs at the last write"
    double capacity = qQNaN(); // bucket, from a rule
    double refillPerSec = qQNaN(); // bucket, from a rule
    int callers = 0;
    int atLimit = 0; // includes overLimit
    int overLimit = 0;
    int noTtl = 0;
    int untrimmed = 0;

    // Where it applies: the fixed window's boundary burst, one line.
    QString note() const;
};

// The most common ceiling among callers' maximum counts: the value the largest number of
// callers stopped at (ties: the higher value), if at least kMinCallersAtCeiling callers and a
// fifth of them share it. 'atCeiling' gets that number of callers.
std::optional<qint64> inferCeiling(const QList<qint64> &maxima, int *atCeiling = nullptr);
constexpr int kMinCallersAtCeiling = 3;

// The id part of a limiter key: what follows the family's literal prefix up to its last ':',
// minus the trailing window segment for fixed windows. 'window' gets that segment.
QByteArray rateLimitCaller(const QByteArray &key, const QString &family, LimiterKind kind,
                           QByteArray *window = nullptr);

// Groups what one poll read into limiters, decides limits (rule params "limit", "window_ms",
// "capacity", "rate" / "refill_per_sec" win; otherwise inferred) and flags; keeps one row per
// caller (a fixed window's newest window) and sorts callers by pressure, highest first.
// 'rawKeys' holds every key read (all windows), 'params' the rule parameters per limiter.
struct RateLimitAnalysis
{
    QList<LimiterInfo> limiters;
    QList<CallerState> callers;
};
Q_DECLARE_METATYPE(RateLimitAnalysis)
RateLimitAnalysis analyzeRateLimits(const QList<CallerState> &rawKeys, const QHash<QString, QVariantMap> &params,
                                    qint64 serverNowMs);
// A sliding log's window from its callers: the scripts set the TTL to the window at each write,
// so TTL + (now - newest member) is the window. The median over callers; nullopt without TTLs.
std::optional<qint64> inferSlidingWindowMs(const QList<CallerState> &callers, qint64 serverNowMs);
// A fixed window's length from its window numbers (floor(now / window)), or nullopt when the
// numbers are epoch times (window starts) or say nothing sensible.
std::optional<qint64> inferFixedWindowMs(const QList<QByteArray> &windows, qint64 serverNowMs);

// The limiters of one analysis. SeverityRole: int(Severity), keys without TTL, untrimmed logs
// and callers over the limit Bad, callers at it Warning.
class LimitersModel : public RowListModel<LimiterInfo, QString>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        KindColumn,
        CallersColumn,
        LimitColumn,
        WindowColumn,
        AtLimitColumn,
        NoteColumn,
        ColumnCount
    };
    enum Role {
        NameRole = FirstExtraRole, // QString: the limiter's name (KeyRole: the same in UTF-8)
    };
    explicit LimitersModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

// The callers of one analysis; the remaining window (setNow) counts down from each row's read
// time. SeverityRole: int(Severity) of the flags; PressureSeverityRole that of count / limit.
class CallersModel : public RowListModel<CallerState>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column {
        CallerColumn,
        LimiterColumn,
        UsedColumn,
        LimitColumn,
        PressureColumn,
        RemainingColumn,
        DetailColumn,
        FlagsColumn,
        ColumnCount
    };
    enum Role {
        LimiterRole = FirstExtraRole, // QString: the limiter's name
        PressureSeverityRole,
    };
    explicit CallersModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};
