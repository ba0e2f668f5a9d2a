// SPDX-License-Identifier: GPL-3.0-or-later
#include "bulkdelete.h"

#include "format.h"
#include "keyscanner.h"
#include "redisclient.h"

namespace {
// Past this many distinct names a duplicate SCAN reply (a rehash) is no longer filtered out:
// the count may then be a little high, and UNLINK's own count stays exact.
constexpr qsizetype kDedupLimit = 2'000'000;
} // namespace

QString BulkDeleteReport::summary() const
{
    // Refused before anything was sent.
    if (error.kind == RedisError::Kind::ReadOnlyRefused && matched == 0)
        return QObject::tr("Refused: %1").arg(error.message);
    const QString time = format::duration(qint64(elapsedSeconds * 1000));
    QString line;
    if (stage == Stage::Counting) {
        line = finished ? QObject::tr("%1 keys match %2 (counted in %3; nothing was deleted)")
                        : QObject::tr("%1 keys match %2 so far (counting, %3)");
        line = line.arg(format::count(quint64(matched)), QString::fromUtf8(pattern), time);
    } else {
        const qint64 gone = matched - deleted;
        line = finished ? QObject::tr("%1 keys deleted in %2").arg(format::count(quint64(deleted)), time)
                        : QObject::tr("%1 keys deleted so far (%2)").arg(format::count(quint64(deleted)), time);
        if (gone > 0)
            line += QObject::tr("; %1 matched but were already gone").arg(format::count(quint64(gone)));
    }
    if (cancelled)
        line += QObject::tr(" — cancelled");
    if (error)
        line += QObject::tr(" — stopped: %1").arg(error.message);
    return line;
}

BulkDelete::BulkDelete(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

BulkDelete::~BulkDelete()
{
    if (m_scanner)
        m_scanner->cancel();
}

bool BulkDelete::matchesEverything(const QByteArray &pattern)
{
    // '*' in any number, and nothing else: every name matches.
    return pattern.isEmpty() || pattern.count('*') == pattern.size();
}

QString BulkDelete::refusal(const QByteArray &pattern) const
{
    if (m_client->isReadOnly())
        return tr("the connection is read-only");
    if (matchesEverything(pattern))
        return tr("%1 matches every key: use Empty database, which asks for the connection's name")
            .arg(QString::fromUtf8(pattern.isEmpty() ? QByteArray("*") : pattern));
    return {};
}

bool BulkDelete::count(const QByteArray &pattern)
{
    return begin(BulkDeleteReport::Stage::Counting, pattern);
}

bool BulkDelete::remove(const QByteArray &pattern)
{
    return begin(BulkDeleteReport::Stage::Deleting, pattern);
}

bool BulkDelete::begin(BulkDeleteReport::Stage stage, const QByteArray &pattern)
{
    if (m_running)
        return false;
    m_report = {};
    m_report.stage = stage;
    m_report.pattern = pattern;
    // A dry run writes nothing: it is refused only for an everything-pattern, which could lead
    // to nothing but a refused delete.
    const bool deleting = stage == BulkDeleteReport::Stage::Deleting;
    const QString why = deleting || matchesEverything(pattern) ? refusal(pattern) : QString();
    if (!why.isEmpty()) {
        m_report.error = RedisError::make(RedisError::Kind::ReadOnlyRefused, why);
        m_report.finished = true;
        Q_EMIT finished(m_report);
        return false;
    }
    m_seen.clear();
    m_toUnlink.clear();
    m_inFlight = 0;
    m_scanDone = false;
    m_pausedForUnlinks = false;
    m_running = true;
    m_clock.start();

    // Maybe called from a slot of the last run's finish, which the old scanner is still emitting.
    if (m_scanner) {
        m_scanner->disconnect(this);
        m_scanner->deleteLater();
    }
    m_scanner = new KeyScanner(m_client, this);
    connect(m_scanner, &KeyScanner::batchAvailable, this, &BulkDelete::onBatch);
    connect(m_scanner, &KeyScanner::progressChanged, this, &BulkDelete::onProgress);
    connect(m_scanner, &KeyScanner::finished, this, &BulkDelete::onScanFinished);
    ScanOptions options;
    options.match = pattern;
    // TYPE per key: the report counts by type, and the pace (commands per second) then grows
    // with the keys matched, as the UNLINKs that follow do.
    options.details = true;
    options.ttl = false;
    options.maxCommandsPerSecond = m_scanRate;
    m_scanner->start(options);
    Q_EMIT progressChanged(m_report);
    return true;
}

void BulkDelete::cancel()
{
    if (!m_running)
        return;
    m_report.cancelled = true;
    if (m_scanner)
        m_scanner->cancel();
    m_scanDone = true;
    m_toUnlink.clear();
    maybeFinish();
}

void BulkDelete::onBatch(const ScanBatch &batch)
{
    if (!m_running || m_scanDone)
        return;
    for (const ScannedKey &key : batch.keys) {
        if (key.type == KeyType::None)
            continue; // gone between SCAN and TYPE
        if (m_seen.size() < kDedupLimit) {
            if (m_seen.contains(key.name))
                continue;
            m_seen.insert(key.name);
        }
        ++m_report.matched;
        ++m_report.byType[key.type];
        if (m_report.names.size() < kNameLimit)
            m_report.names.append(key.name);
        else
            m_report.namesComplete = false;
        if (m_report.stage == BulkDeleteReport::Stage::Deleting) {
            m_toUnlink.append(key.name);
            if (m_toUnlink.size() >= kUnlinkBatch)
                sendUnlink(std::exchange(m_toUnlink, {}));
        }
    }
    // What is left of this batch goes now: the scan may be paced, and waiting for the next page
    // to fill a command would hold keys the user sees as matched but not yet deleted.
    if (!m_toUnlink.isEmpty())
        sendUnlink(std::exchange(m_toUnlink, {}));
    Q_EMIT progressChanged(m_report);
}

void BulkDelete::sendUnlink(QList<QByteArray> keys)
{
    RedisCommand command;
    command.reserve(keys.size() + 1);
    command.append("UNLINK");
    command.append(keys);
    ++m_inFlight;
    if (m_inFlight >= kUnlinksInFlight && !m_pausedForUnlinks && m_scanner) {
        m_pausedForUnlinks = true;
        m_scanner->pause();
    }
    m_client->send(command, this, [this, keys = std::move(keys)](const RedisReply &r) {
        --m_inFlight;
        const RedisError err = r.firstError();
        if (err) {
            stop(err);
            return;
        }
        m_report.deleted += r.value().toInteger();
        m_report.elapsedSeconds = double(m_clock.elapsed()) / 1000;
        Q_EMIT keysRemoved(keys);
        if (m_pausedForUnlinks && m_inFlight < kUnlinksInFlight / 2 && m_scanner && !m_scanDone) {
            m_pausedForUnlinks = false;
            m_scanner->resume();
        }
        Q_EMIT progressChanged(m_report);
        maybeFinish();
    });
}

void BulkDelete::onProgress(const ScanProgress &progress)
{
    if (!m_running)
        return;
    m_report.dbsize = progress.dbsize;
    m_report.elapsedSeconds = double(m_clock.elapsed()) / 1000;
    m_report.commandsPerSecond = progress.commandsPerSecond;
    m_report.ceiling = progress.ceiling;
    m_report.paceReason = progress.paceReason;
    // A lost connection suspends the scan (it resumes from its cursor): a delete is stopped
    // instead, so that the user decides again on a server that may have changed.
    if (progress.error && m_report.stage == BulkDeleteReport::Stage::Deleting) {
        stop(progress.error);
        return;
    }
    Q_EMIT progressChanged(m_report);
}

void BulkDelete::onScanFinished(const ScanProgress &progress)
{
    if (!m_running)
        return;
    if (progress.error && progress.error.kind != RedisError::Kind::Cancelled && !m_report.error)
        m_report.error = progress.error;
    m_scanDone = true;
    if (!m_toUnlink.isEmpty())
        sendUnlink(std::exchange(m_toUnlink, {}));
    maybeFinish();
}

void BulkDelete::stop(const RedisError &error)
{
    if (!m_report.error)
        m_report.error = error;
    if (m_scanner)
        m_scanner->cancel();
    m_scanDone = true;
    m_toUnlink.clear();
    maybeFinish();
}

void BulkDelete::maybeFinish()
{
    if (!m_running || !m_scanDone || m_inFlight > 0)
        return;
    m_running = false;
    m_report.finished = true;
    m_report.elapsedSeconds = double(m_clock.elapsed()) / 1000;
    m_seen.clear();
    m_seen.squeeze();
    Q_EMIT finished(m_report);
}
