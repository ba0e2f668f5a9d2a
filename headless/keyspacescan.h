// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyscanner.h"

#include <QObject>
#include <memory>

class PatternIndex;
class PatternRulesFile;
class ProgressBar;
class RedisClient;
struct ShowRequest;

// The window's first scan without the window: KeyScanner walks the keyspace (TYPE and PTTL per
// key, paced by --scan-rate, narrowed by --match) and PatternIndex classifies every key as it
// arrives, wired as MainWindow wires them. done() comes when the scan is over and every key has
// its verdict. Panels built on the scan read the index, or the keys of a type, afterwards.
class KeyspaceScan : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        bool patterns = true; // classify (PatternIndex); off for panels that need names only
        bool keepTypes = false; // remember (name, type) for keysOfType()
        qint64 stopAfter = -1; // cancel the scan once this many distinct keys are known
    };

    KeyspaceScan(RedisClient *client, const ShowRequest &request, ProgressBar *progress, Options options,
                 QObject *parent = nullptr);
    ~KeyspaceScan() override;

    void start();
    const PatternIndex &index() const { return *m_index; }
    const ScanProgress &progress() const { return m_progress; }
    bool stoppedEarly() const { return m_stoppedEarly; }
    quint64 distinctKeys() const;
    // Up to 'limit' keys of a type, in scan order, each once.
    QList<QByteArray> keysOfType(KeyType type, int limit) const;
    KeyScanner *scanner() const { return m_scanner; }

Q_SIGNALS:
    void done();
    void failed(const QString &message);

private:
    void onBatch(const ScanBatch &batch);
    void onFinished(const ScanProgress &progress);
    void maybeDone();

    RedisClient *m_client;
    const ShowRequest &m_request;
    ProgressBar *m_bar;
    Options m_options;
    KeyScanner *m_scanner;
    std::unique_ptr<PatternIndex> m_index;
    std::unique_ptr<PatternRulesFile> m_rules;
    ScanProgress m_progress;
    QList<QPair<QByteArray, KeyType>> m_typed;
    bool m_scanDone = false;
    bool m_stoppedEarly = false;
    bool m_reported = false;
};
