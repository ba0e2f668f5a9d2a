// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "ttl.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QMetaType>

// What the header of a value view shows about a key.
struct KeyInfo
{
    quint64 generation = 0;
    QByteArray key;
    KeyType type = KeyType::Unknown;
    QByteArray typeName; // as TYPE answered (module types have their own names)
    QByteArray encoding; // OBJECT ENCODING; empty when not allowed
    static constexpr qint64 kTtlUnknown = ttl::kUnknown;
    qint64 pttlMs = kTtlUnknown; // PTTL when fetched (see ttl.h)
    qint64 fetchedAtMs = 0; // wall clock (ms since epoch) when PTTL arrived
    qint64 size = -1; // STRLEN/HLEN/LLEN/SCARD/ZCARD/XLEN; -1 unknown

    // Absolute expiry in ms since epoch (see ttl.h).
    qint64 expireAtMs() const { return ttl::expireAt(pttlMs, fetchedAtMs); }
};
Q_DECLARE_METATYPE(KeyInfo)

// The start of a string value. Only a preview is fetched (GETRANGE); fullLength says how much
// the server holds.
struct StringValue
{
    quint64 generation = 0;
    QByteArray key;
    QByteArray preview;
    qint64 fullLength = 0;
    bool truncated = false; // preview is shorter than the value
    bool isJson = false; // the whole value parses as a JSON object or array
    bool isBinary = false; // NUL/control bytes or invalid UTF-8: show as hex
    bool isHyperLogLog = false;
    qint64 hllCount = -1; // PFCOUNT when isHyperLogLog
};
Q_DECLARE_METATYPE(StringValue)

// One element of a collection as the server returned it. Which members are used depends on
// the key's type:
//   hash    name = field, value = value
//   list    value = element, position = index
//   set     name = member
//   zset    name = member, value = score (as the server wrote it), position = rank
//   stream  name = entry id, fields = field, value, field, value, ...
struct ValueEntry
{
    QByteArray name;
    QByteArray value;
    QList<QByteArray> fields;
    qint64 position = -1;

    bool operator==(const ValueEntry &o) const
    {
        return name == o.name && value == o.value && fields == o.fields && position == o.position;
    }
};

// One page of a collection, as ValueReader delivers it and ValueModel appends it.
struct ValuePage
{
    quint64 generation = 0; // which openKey() produced it
    QByteArray key;
    KeyType type = KeyType::Unknown;
    QList<ValueEntry> entries; // new entries only (duplicates from HSCAN/SSCAN removed)
    bool hasMore = false; // the server holds more than has been loaded so far
    qint64 total = -1; // the collection's size when the page was read; -1 unknown
};
Q_DECLARE_METATYPE(ValueEntry)
Q_DECLARE_METATYPE(ValuePage)

// What has been fetched of one collection, plus a final "load more" row while the server has
// more. Cells show escaped bytes; RawBytesRole gives the exact bytes back. The model does no
// I/O: ValueReader (or a test) feeds it pages.
class ValueModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Mode : quint8 { None, Hash, List, Set, ZSet, Stream };
    Q_ENUM(Mode)

    enum Role {
        // QByteArray: the cell's exact bytes (field, value, member, score text, entry id; for
        // index/rank columns the decimal number). Invalid for a stream's fields column: use
        // StreamFieldsRole.
        RawBytesRole = Qt::UserRole + 1,
        LoadMoreRole, // bool: this is the "load more" row
        StreamFieldsRole, // QList<QByteArray>: field, value, ... of a stream entry
        PositionRole, // qint64: list index or zset rank
        MaskedRole, // bool: the cell hides a secret while secrets are not revealed
    };

    // Longest cell text before eliding in the middle; the tooltip shows more.
    static constexpr int kDisplayChars = 200;
    static constexpr int kToolTipChars = 2000;

    explicit ValueModel(QObject *parent = nullptr);
    ~ValueModel() override;

    static Mode modeForType(KeyType type);

    Mode mode() const { return m_mode; }
    // Changes the columns; drops every row.
    void setMode(Mode mode);
    void clear();

    // Appends the page's entries (one beginInsertRows) and takes its hasMore/total.
    void appendPage(const ValuePage &page);
    void setHasMore(bool more, qint64 total);
    // While a page is on its way the "load more" row says so.
    void setLoading(bool loading);

    bool hasMore() const { return m_hasMore; }
    bool isLoading() const { return m_loading; }
    qint64 total() const { return m_total; }
    int entryCount() const { return int(m_entries.size()); }
    bool isLoadMoreRow(int row) const { return m_hasMore && row == int(m_entries.size()); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    // "field=value field=value", each part escaped, the whole elided at maxChars.
    static QString streamFieldsText(const QList<QByteArray> &fields, int maxChars);

    // Secrets (values of secret-named hash or stream fields, secret-named keys inside JSON) are
    // shown masked by the rules of masking.h until revealed. RawBytesRole is always exact.
    void setRevealed(bool revealed);
    bool isRevealed() const { return m_revealed; }
    int maskedCount() const { return m_maskedCount; }

private:
    QVariant entryData(int row, int column, int role) const;
    QVariant loadMoreData(int column, int role) const;
    QString loadMoreText() const;

    // What a cell shows while hidden, by entry: empty when it hides nothing.
    struct Masked
    {
        QByteArray bytes; // the value (hash), or the member (list, set, zset)
        QList<QByteArray> fields; // a stream entry's fields
        bool any() const { return !bytes.isNull() || !fields.isEmpty(); }
    };
    Masked maskedOf(const ValueEntry &e, bool decodeCheck) const;
    // The time a page may spend decoding its values for secrets on the GUI thread; past it, the
    // rest that might be encoded are masked as not checked (their decoded view masks them).
    static constexpr int kMaskingBudgetMs = 6;

    QList<ValueEntry> m_entries;
    QList<Masked> m_masked;
    bool m_revealed = false;
    int m_maskedCount = 0;
    Mode m_mode = Mode::None;
    bool m_hasMore = false;
    bool m_loading = false;
    qint64 m_total = -1;
};
