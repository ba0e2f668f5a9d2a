// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patterns.h"
#include "rowtablemodel.h"
#include "ttlstats.h"

#include <QHash>
#include <QList>
#include <QMetaType>

// ---- headless session logic ----

namespace sessions {

// Why a key name leaks something (an e-mail address, a JWT, "token=…"); empty when it does not.
QString keyNameIssue(const QByteArray &key);
// The literal start of a family shape: "session:{id}" → "session:"; empty when it starts with
// a placeholder.
QByteArray familyPrefix(const QString &family);

enum class Lifetime : quint8 { Unknown, Sliding, Fixed, NoTtl };
QString lifetimeName(Lifetime lifetime);
// Expiry moved by more than this between two reads means the session was touched; less is the
// clock noise of two PTTL readings.
constexpr qint64 kSlideToleranceMs = 500;
// The verdict after one more read: 'previous' verdict, the expiry read before and now.
Lifetime observe(Lifetime previous, qint64 previousExpireAtMs, qint64 expireAtMs,
                 qint64 toleranceMs = kSlideToleranceMs);

struct Field
{
    QByteArray name;
    QByteArray value; // as stored (a JSON session: the field's JSON text)
    QByteArray masked; // what shows while hidden: 'value', or with secrets inside masked
    bool secret = false; // the whole value is hidden
    bool hasMasked() const { return secret || masked != value; }
};

struct Contents
{
    QByteArray key;
    KeyType type = KeyType::Unknown;
    QList<Field> fields;
    bool truncated = false; // bounded read: more fields or bytes than were read
    bool json = false;
    QString decoded; // the chain a string was decoded with ("pickle", "zlib → MessagePack"); empty: none
    QString error;

    static Contents fromHash(const QByteArray &key, const QList<QPair<QByteArray, QByteArray>> &pairs, bool truncated);
    // A JSON object becomes one field per top-level key; so does a value that decodes to a map
    // (a pickled, MessagePack, PHP or Marshal session), masked after decoding; anything else one
    // field "(value)", masked whole when it decodes to something with secrets.
    static Contents fromString(const QByteArray &key, const QByteArray &value, bool truncated);
    int maskedCount() const;
};

} // namespace sessions
Q_DECLARE_METATYPE(sessions::Contents)

// One session's fields, masked until setRevealed(true). KeyRole: the field's name.
class SessionContentsModel : public RowListModel<sessions::Field>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { FieldColumn, ValueColumn, ColumnCount };
    enum Role {
        MaskedRole = FirstExtraRole, // bool: the value is (or holds) a secret
    };
    explicit SessionContentsModel(QObject *parent = nullptr);

    void setContents(const sessions::Contents &contents);
    const sessions::Contents &contents() const { return m_contents; }
    bool isRevealed() const { return m_revealed; }
    void setRevealed(bool revealed);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    sessions::Contents m_contents;
    bool m_revealed = false;
};

// ---- what the reader reads ----

struct SessionRow
{
    QByteArray key;
    KeyType type = KeyType::Unknown;
    QString family;
    qint64 expireAtMs = ttl::kUnknown; // ttl.h conventions
    qint64 readAtMs = 0;
    sessions::Lifetime lifetime = sessions::Lifetime::Unknown;
    int reads = 0; // PTTL readings so far
    qint64 memoryBytes = -1; // MEMORY USAGE; -1 unknown (NOPERM, not read yet)
    qint64 elements = -1; // HLEN / STRLEN
    double sizeFactor = 0; // size / family median; >= kOutlierFactor is an outlier
    bool outlier = false;
    QString nameIssue;
    Severity severity() const;
    QString flags() const;
};

struct SessionIndexRow
{
    QByteArray key;
    QString family;
    qint64 cardinality = -1; // SCARD
    qint64 pttlMs = ttl::kUnknown;
    qint64 scanned = 0; // ids read (bounded)
    bool complete = false;
    QByteArray sessionPrefix; // what an id was joined to; empty: unknown
    QList<QByteArray> dangling; // ids whose session key is gone
    QString error;
    Severity severity() const;
};

struct SessionsSummary
{
    int sessions = 0;
    int noTtl = 0;
    int sliding = 0;
    int fixed = 0;
    int unknownLifetime = 0;
    int outliers = 0;
    int nameIssues = 0;
    int indexes = 0;
    qint64 dangling = 0;
    TtlBucketCounts buckets{}; // remaining TTL, ttlbucket:: of ttlstats.h
    qint64 nowMs = 0;
};

namespace sessions {

// A session this many times its family's median size (bytes, else fields or length) is an
// outlier, in a family of at least kOutlierMinSessions (a median of fewer says nothing).
constexpr double kOutlierFactor = 5.0;
constexpr int kOutlierMinSessions = 4;
// Sets each row's size factor and outlier flag and counts what the panel sums up: lifetimes,
// outliers, leaking names, the remaining-TTL buckets at 'now', the indexes' dangling ids.
SessionsSummary analyze(QList<SessionRow> &rows, const QList<SessionIndexRow> &indexes, qint64 now);

} // namespace sessions

// What one round of SessionsReader read: every session, the reverse indexes, the totals.
struct SessionsResults
{
    QList<SessionRow> sessions;
    QList<SessionIndexRow> indexes;
    SessionsSummary summary;
};
Q_DECLARE_METATYPE(SessionsResults)

// The sessions of one read; the TTL column counts from now() (setNow: the read's time).
class SessionsModel : public RowTableModel<SessionRow>
{
    Q_OBJECT
public:
    enum Column { KeyColumn, TtlColumn, LifetimeColumn, SizeColumn, FlagsColumn, ColumnCount };
    explicit SessionsModel(QObject *parent = nullptr);
};

class SessionIndexesModel : public RowTableModel<SessionIndexRow>
{
    Q_OBJECT
public:
    enum Column { KeyColumn, SizeColumn, TtlColumn, DanglingColumn, ExamplesColumn, ColumnCount };
    explicit SessionIndexesModel(QObject *parent = nullptr);
};
