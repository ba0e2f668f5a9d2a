// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"
#include "streams.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QSet>
#include <QVersionNumber>

#include <functional>

class RedisClient;

// Reads streams, groups, consumers, pending pages and entries and emits them as rows (the
// …Available signals) for the models in models/streams.h. Every read is bounded (COUNT, at
// most kMaxStreams keys). A reply for a stream, group or page the user has left is dropped.
// Read once: setStreams() then streamsAvailable; openStream() then groupsAvailable; openGroup()
// then consumersAvailable, summaryAvailable and pendingPageAvailable.
class StreamsReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxStreams = 200;
    static constexpr int kSampleLimit = 1000; // pending entries read for the histogram
    static constexpr int kMaxSamples = 120; // lengths kept per stream

    explicit StreamsReader(RedisClient *client, QObject *parent = nullptr);

    // The streams listed, with what was read of them so far.
    const QList<StreamRow> &streams() const { return m_rows; }

    QVersionNumber serverVersion() const;
    void overrideServerVersion(const QVersionNumber &version) { m_versionOverride = version; }

    QByteArray stream() const { return m_key; }
    QByteArray group() const { return m_group; }
    const PendingSummary &summary() const { return m_summary; }
    const PendingFilter &filter() const { return m_filter; }
    int pageSize() const { return m_pageSize; }
    int pageNumber() const { return int(m_pageStarts.size()); } // 1-based once a page arrived
    bool hasNextPage() const { return m_hasNext; }
    const QList<PendingEntry> &pendingSample() const { return m_sample; }

    // Streams of the scan: XINFO STREAM for the first kMaxStreams, pipelined.
    void setStreams(const QList<QByteArray> &keys);
    void refreshStreams();
    // XLEN of every listed stream, pipelined; adds one sample each.
    void sampleLengths();
    // The groups of a stream (XINFO GROUPS); forgets the previous stream's group and pages.
    void openStream(const QByteArray &key);
    // Consumers, pending summary, first pending page and the histogram sample of a group.
    void openGroup(const QByteArray &group);
    // Re-reads groups, consumers, summary and the current page (after an action).
    void refreshGroup();

    void setPendingFilter(const PendingFilter &filter); // reloads the first page
    void setPageSize(int rows);
    void firstPendingPage();
    void nextPendingPage();
    void previousPendingPage();

    // XRANGE key id id; entryLoaded(id, entry) with a null entry when it was deleted.
    void loadEntry(const QByteArray &id);

    // Entries browser, newest first: XREVRANGE key <from> - COUNT n. 'from' "+" is the end.
    void browseEntries(const QByteArray &from = "+", int count = 50);
    void browseFromTime(qint64 msSinceEpoch, int count = 50);
    void nextEntries(int count = 50);

    // Finds the stream and group whose oldest pending entry (smallest id time) is oldest.
    void findOldestPending();

    // Command choice, public so it can be tested without old servers. 'start' is "-" or an id
    // already made exclusive.
    static RedisCommand pendingCommand(const QByteArray &key, const QByteArray &group, const PendingFilter &filter,
                                       const QByteArray &start, int count, const QVersionNumber &version);
    // Start of the page after 'lastId': "(id" on 6.2+, else the next id.
    static QByteArray exclusiveAfter(const QByteArray &lastId, const QVersionNumber &version);
    static QByteArray exclusiveBefore(const QByteArray &id, const QVersionNumber &version);
    // The rows the model shows of a raw XPENDING page: the filters the server did not apply.
    static QList<PendingEntry> applyLocalFilter(const QList<PendingEntry> &rows, const PendingFilter &filter,
                                                const QVersionNumber &version);

Q_SIGNALS:
    // The streams of setStreams(), before anything was read of them.
    void streamsListed(const QList<StreamRow> &streams);
    // After XINFO STREAM (each row loaded or with its error) and after each sample of lengths.
    void streamsAvailable(const QList<StreamRow> &streams);
    void lengthsSampled(const QList<StreamRow> &streams);
    // openStream() and openGroup() were called: what was shown of the previous one is void.
    void streamOpened(const QByteArray &key);
    void groupOpened(const QByteArray &group);
    // The groups of the open stream, after openStream() (empty when they could not be read)
    // and after refreshGroup().
    void groupsAvailable(const QByteArray &key, const QList<StreamGroupInfo> &groups);
    void consumersAvailable(const QList<StreamConsumerInfo> &consumers);
    void summaryAvailable(const PendingSummary &summary);
    // A page of pending entries, the filters applied; then, when XRANGE answered, the ids on
    // it that are no longer in the stream.
    void pendingPageAvailable(const QList<PendingEntry> &rows);
    void deletedPendingAvailable(const QSet<QByteArray> &ids);
    void pendingSampleAvailable(const QList<PendingEntry> &sample);
    void entryLoaded(const QByteArray &id, const StreamEntry &entry);
    void entriesAvailable(const QList<StreamEntry> &entries);
    void oldestPendingFound(const QByteArray &key, const QByteArray &group);
    // One line for the panel: what could not be read and why.
    void failed(const QString &message);

private:
    void send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> done);
    void loadPendingPage(const QByteArray &start);
    void loadGroupFacts();
    void loadSample();
    static bool serverIdle(const QVersionNumber &version);
    StreamRow *rowOf(const QByteArray &key);
    void readDeleted(const QList<PendingEntry> &rows, quint64 gen, quint64 request);

    RedisClient *m_client;
    QList<StreamRow> m_rows;
    QVersionNumber m_versionOverride;
    QByteArray m_key;
    QByteArray m_group;
    PendingSummary m_summary;
    PendingFilter m_filter;
    QList<PendingEntry> m_sample;
    QList<QByteArray> m_pageStarts; // start of every page shown so far; the last is the current one
    QByteArray m_pageLastId; // last raw id of the current page (filters applied here do not matter)
    QByteArray m_entriesLastId;
    quint64 m_streamGen = 0; // bumped when the stream or group changes
    quint64 m_pageRequest = 0;
    quint64 m_listRequest = 0;
    quint64 m_entryRequest = 0;
    quint64 m_browseRequest = 0;
    int m_pageSize = 50;
    bool m_hasNext = false;
};
