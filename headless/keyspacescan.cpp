// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyspacescan.h"

#include "format.h"
#include "patternindex.h"
#include "patternrules.h"
#include "progressbar.h"
#include "redisclient.h"
#include "showrequest.h"

#include <QSet>

KeyspaceScan::KeyspaceScan(RedisClient *client, const ShowRequest &request, ProgressBar *progress, Options options,
                           QObject *parent)
    : QObject(parent),
      m_client(client),
      m_request(request),
      m_bar(progress),
      m_options(options),
      m_scanner(new KeyScanner(client, this)),
      m_index(std::make_unique<PatternIndex>(client))
{
    // The window samples on the scan's connection at the scan's pace, with the user's rules.
    m_index->setMaxCommandsPerSecond(request.scanRate);
    if (!request.rulesFile.isEmpty()) {
        m_rules = std::make_unique<PatternRulesFile>(request.rulesFile);
        m_index->setRules(m_rules->rules());
    }
    connect(m_scanner, &KeyScanner::batchAvailable, this, &KeyspaceScan::onBatch);
    connect(m_scanner, &KeyScanner::progressChanged, this, [this](const ScanProgress &p) {
        m_progress = p;
        m_index->followScanPace(p);
        if (m_bar) {
            m_bar->setPace(format::scanPace(p));
            m_bar->scanned(p.returned, p.dbsize, p.keysPerSecond);
        }
    });
    connect(m_scanner, &KeyScanner::finished, this, &KeyspaceScan::onFinished);
    connect(m_index.get(), &PatternIndex::idle, this, &KeyspaceScan::maybeDone);
}

KeyspaceScan::~KeyspaceScan() = default;

void KeyspaceScan::start()
{
    ScanOptions options;
    options.match = m_request.match;
    options.maxCommandsPerSecond = m_request.scanRate;
    m_scanner->start(options);
}

quint64 KeyspaceScan::distinctKeys() const
{
    return m_options.patterns ? quint64(m_index->size()) : m_progress.returned;
}

QList<QByteArray> KeyspaceScan::keysOfType(KeyType type, int limit) const
{
    QList<QByteArray> out;
    QSet<QByteArray> seen;
    for (const auto &[name, t] : m_typed) {
        if (t != type || seen.contains(name))
            continue;
        seen.insert(name);
        out.append(name);
        if (limit >= 0 && out.size() >= limit)
            break;
    }
    return out;
}

void KeyspaceScan::onBatch(const ScanBatch &batch)
{
    if (m_options.keepTypes) {
        for (const ScannedKey &k : batch.keys)
            m_typed.append({k.name, k.type});
    }
    if (!m_options.patterns)
        return;
    m_index->addKeys(batch.keys);
    if (m_options.stopAfter >= 0 && m_index->size() >= m_options.stopAfter && m_scanner->isRunning()) {
        m_stoppedEarly = true;
        m_scanner->cancel();
    }
}

void KeyspaceScan::onFinished(const ScanProgress &progress)
{
    const bool cancelledHere = m_stoppedEarly && progress.error.kind == RedisError::Kind::Cancelled;
    if (!cancelledHere)
        m_progress = progress;
    m_progress.finished = true;
    if (progress.error && !cancelledHere) {
        m_reported = true;
        Q_EMIT failed(QStringLiteral("the scan stopped: %1").arg(progress.error.message));
        return;
    }
    m_scanDone = true;
    if (m_bar)
        m_bar->scanned(m_progress.returned, m_progress.dbsize, m_progress.keysPerSecond, true);
    if (m_bar && m_options.patterns && !m_index->isIdle())
        m_bar->status(QStringLiteral("classifying %1 keys…").arg(m_index->size()));
    maybeDone();
}

void KeyspaceScan::maybeDone()
{
    if (!m_scanDone || m_reported || !m_index->isIdle())
        return;
    m_reported = true;
    if (m_bar)
        m_bar->clear();
    Q_EMIT done();
}
