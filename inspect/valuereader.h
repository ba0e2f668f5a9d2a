// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "rediscommand.h"
#include "valuemodel.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <functional>
#include <limits>

class RedisClient;

// Reads one key's value, page by page, and emits what it read (keyOpened, stringAvailable,
// pageLoaded; feedValueModel() keeps a ValueModel in step). Never reads a whole collection:
// hashes and sets with HSCAN/SSCAN, lists and sorted sets in index windows, streams newest
// first with COUNT, strings as a GETRANGE preview. Opening another key (or clear()) makes
// every reply still on its way for the previous key stale; those are cancelled or dropped.
class ValueReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultPageSize = 200;
    static constexpr qint64 kDefaultPreviewBytes = 256 * 1024;

    explicit ValueReader(RedisClient *client, QObject *parent = nullptr);
    ~ValueReader() override;

    // Rows per page (COUNT hint for scans, window for ranges).
    void setPageSize(int rows) { m_pageSize = qMax(1, rows); }
    int pageSize() const { return m_pageSize; }
    void setPreviewBytes(qint64 bytes) { m_previewBytes = qMax<qint64>(16, bytes); }
    qint64 previewBytes() const { return m_previewBytes; }

    bool hasKey() const { return m_hasKey; }
    QByteArray currentKey() const { return m_key; }
    KeyType currentType() const { return m_type; }
    // What the last keyOpened() said (generation 0 before that).
    const KeyInfo &keyInfo() const { return m_info; }
    quint64 generation() const { return m_generation; }
    bool isLoading() const { return !m_requests.isEmpty(); }
    bool hasMore() const { return m_hasMore; }

    // The id just before 'id' in stream order ("5-0" → "4-18446744073709551615"), or empty
    // when 'id' is 0-0 or malformed. XREVRANGE with it as the end is an exclusive end on
    // every server version.
    static QByteArray previousStreamId(const QByteArray &id);

public Q_SLOTS:
    // Starts reading 'key'; 'hint' (from the key browser) saves a round trip when right and
    // costs nothing when wrong. Reopening the current key refreshes it.
    void openKey(const QByteArray &key, KeyType hint = KeyType::Unknown);
    // Reads the same key again from the start.
    // Fetches the next page; ignored while a page is on its way or when everything is loaded.
    void loadMore();
    // Forgets the key; replies still on their way are dropped.
    void clear();

Q_SIGNALS:
    // The rows of the previous key are gone (another key opens, or clear()).
    void keyClosed();
    void keyOpened(const KeyInfo &info);
    void stringAvailable(const StringValue &value);
    void pageLoaded(const ValuePage &page);
    // One line, ready for the screen. The loader stays usable.
    void errorOccurred(const QString &message);
    void loadingChanged(bool loading);

private:
    void startGeneration(const QByteArray &key);
    void requestOpen(KeyType type, int attempt);
    void onOpenReply(const RedisReply &reply, KeyType asked, int attempt);
    void requestPage();
    void onPageReply(const RedisReply &reply, qsizetype sizeAt, qsizetype pageAt);
    // The entries of one page by type, into 'page'; where the next page starts and whether
    // there is one. A scan reply of the wrong shape fails the read (false).
    bool readScanPage(const RedisValue &data, ValuePage &page);
    void readListPage(const QList<RedisValue> &items, ValuePage &page);
    void readZSetPage(const QList<RedisValue> &items, ValuePage &page);
    void readStreamPage(const QList<RedisValue> &items, ValuePage &page);
    void onStringReply(const RedisReply &reply, qsizetype sizeAt, qsizetype previewAt);
    void finishString(StringValue value);
    QList<RedisCommand> pageCommands() const;
    RedisCommand sizeCommand(KeyType type) const;
    void send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> handler);
    void cancelRequests();
    void fail(const RedisError &error, const QByteArray &command);
    QString describe(const RedisError &error, const QByteArray &command) const;

    QPointer<RedisClient> m_client; // may go before the loader (the window reconnects)
    int m_pageSize = kDefaultPageSize;
    qint64 m_previewBytes = kDefaultPreviewBytes;

    quint64 m_generation = 0;
    bool m_hasKey = false; // a key is open (an empty name is a valid key)
    QByteArray m_key;
    KeyType m_type = KeyType::Unknown;
    KeyInfo m_info;
    QList<RequestId> m_requests; // in flight for this generation

    // Where the next page starts.
    QByteArray m_cursor; // HSCAN/SSCAN
    qint64 m_offset = 0; // LRANGE/ZRANGE
    QByteArray m_streamEnd; // XREVRANGE end, inclusive
    bool m_hasMore = false;
    qint64 m_loaded = 0;
    QSet<QByteArray> m_seen; // members already delivered (scans may repeat them)
};

// Keeps a ValueModel showing what a ValueReader reads (the rows of the current collection;
// none for strings): a panel's wiring, and a test's. Call it before connecting anything else
// that reads the model on the reader's signals.
void feedValueModel(ValueReader *reader, ValueModel *model);
