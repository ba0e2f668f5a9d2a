// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "rediserror.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

class KeyScanner;
class RedisClient;
struct ScanBatch;
struct ScanProgress;

// What a bulk delete by pattern counted (its dry run) or deleted, so far or in the end.
struct BulkDeleteReport
{
    enum class Stage : quint8 { Counting, Deleting };
    Stage stage = Stage::Counting;
    QByteArray pattern;
    bool finished = false;
    bool cancelled = false;
    RedisError error; // the run stopped because of this
    qint64 matched = 0; // distinct keys the scan matched (in a delete run: sent to UNLINK)
    qint64 deleted = 0; // UNLINK's own count: the keys that still existed when it ran
    qint64 dbsize = -1; // DBSIZE when the run began
    QMap<KeyType, qint64> byType; // matched keys by type
    QList<QByteArray> names; // the first kNameLimit distinct names matched, in scan order
    bool namesComplete = true; // false when more keys matched than 'names' holds
    double elapsedSeconds = 0;
    double commandsPerSecond = 0; // what the scan sends now
    int ceiling = 0; // the scan's pace ceiling; 0 none
    QString paceReason;

    // "1,204 keys deleted (3 were already gone) in 2.1 s" and the like: one line for a status bar.
    QString summary() const;
};

// Deletes every key matching a SCAN pattern, as an operator would with `redis-cli --scan
// --pattern P | xargs redis-cli unlink`, but paced and watched: a dry run (count()) walks the
// keyspace and writes nothing; remove() walks it again and sends UNLINK for each page of
// matches (at most kUnlinkBatch keys a command, at most kUnlinksInFlight commands waiting;
// the scan pauses while they do). The scan is paced as the key browser's is (adaptive by
// default). Cancelling stops the scan; the UNLINKs already sent finish and are counted.
//
// remove() deletes what matches when it runs, which may differ from what the dry run saw:
// the report says both. A pattern that matches every key is refused: emptying a database
// is its own action, guarded by typing the connection's name.
class BulkDelete : public QObject
{
    Q_OBJECT
public:
    static constexpr int kNameLimit = 100000;
    static constexpr int kUnlinkBatch = 500;
    static constexpr int kUnlinksInFlight = 4;

    explicit BulkDelete(RedisClient *client, QObject *parent = nullptr);
    ~BulkDelete() override;

    // Commands per second for the scan: kAdaptivePacing (the default), 0 for none, or a ceiling.
    void setScanRate(int commandsPerSecond) { m_scanRate = commandsPerSecond; }

    // Why remove() would refuse this pattern on this connection, or empty.
    QString refusal(const QByteArray &pattern) const;
    static bool matchesEverything(const QByteArray &pattern);

    // False (with the reason in report().error) when a run is going or the pattern is refused.
    bool count(const QByteArray &pattern);
    bool remove(const QByteArray &pattern);
    void cancel();
    bool isRunning() const { return m_running; }
    const BulkDeleteReport &report() const { return m_report; }

Q_SIGNALS:
    void progressChanged(const BulkDeleteReport &report);
    void finished(const BulkDeleteReport &report);
    // Keys UNLINK was sent for and answered (deleted, or already gone): the key browser and the
    // pattern index drop them.
    void keysRemoved(const QList<QByteArray> &keys);

private:
    bool begin(BulkDeleteReport::Stage stage, const QByteArray &pattern);
    void onBatch(const ScanBatch &batch);
    void onProgress(const ScanProgress &progress);
    void onScanFinished(const ScanProgress &progress);
    void sendUnlink(QList<QByteArray> keys);
    void stop(const RedisError &error);
    void maybeFinish();

    RedisClient *m_client;
    QPointer<KeyScanner> m_scanner;
    BulkDeleteReport m_report;
    QElapsedTimer m_clock;
    QSet<QByteArray> m_seen;
    QList<QByteArray> m_toUnlink;
    int m_scanRate = -1;
    int m_inFlight = 0;
    bool m_running = false;
    bool m_scanDone = false;
    bool m_pausedForUnlinks = false;
};
