// SPDX-License-Identifier: GPL-3.0-or-later
#include "slowlogtracker.h"

#include "format.h"

#include <QObject>
#include <algorithm>

// ---------------------------------------------------------------------------------------------
// Flags

namespace slowlogflags {

namespace {

bool isScript(const QByteArray &name)
{
    return name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL"
        || name == "FCALL_RO";
}

bool isWholeListRange(const SlowlogEntry &e)
{
    return e.args.size() == 4 && e.isArgumentComplete(2) && e.isArgumentComplete(3) && e.args.at(2) == "0"
        && e.args.at(3) == "-1";
}

// The counting command for an entry that read a whole collection, without its key; empty
// for anything else.
QByteArray wholeReadCounter(const SlowlogEntry &e)
{
    if (e.args.isEmpty() || e.moreArguments > 0)
        return {};
    const QByteArray name = e.args.first().toUpper();
    if (name == "SMEMBERS" && e.args.size() == 2)
        return "SCARD";
    if (name == "HGETALL" && e.args.size() == 2)
        return "HLEN";
    if (name == "LRANGE" && isWholeListRange(e))
        return "LLEN";
    return {};
}

} // namespace

QString durationText(qint64 us)
{
    if (us < 1000)
        return QStringLiteral("%1 µs").arg(us);
    if (us < 1'000'000) {
        const double ms = double(us) / 1000.0;
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 100 ? 1 : 0);
    }
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 2);
}

QList<QByteArray> sizeCommand(const SlowlogEntry &entry)
{
    const QByteArray counter = wholeReadCounter(entry);
    // A shortened key name cannot be asked about; the duration alone has to do.
    if (counter.isEmpty() || entry.keyIndex() != 1)
        return {};
    return {counter, entry.args.at(1)};
}

SlowlogVerdict judge(const SlowlogEntry &entry, qint64 keySize)
{
    SlowlogVerdict v;
    if (entry.args.isEmpty())
        return v;
    const QByteArray name = entry.args.first().toUpper();
    const QString took = durationText(entry.durationUs);
    if (name == "KEYS") {
        v.flag = SlowlogFlag::Keys;
        v.reason = QObject::tr("KEYS walks every key and blocks the server meanwhile (took %1); use SCAN").arg(took);
    } else if (name == "FLUSHALL" || name == "FLUSHDB") {
        v.flag = SlowlogFlag::Flush;
        v.reason = QObject::tr("%1 deletes every key of %2; a live app should not send it")
                       .arg(QString::fromLatin1(name),
                            name == "FLUSHALL" ? QObject::tr("every database") : QObject::tr("the database"));
    } else if (isScript(name) && entry.durationUs > kLongScriptUs) {
        v.flag = SlowlogFlag::LongScript;
        v.reason = QObject::tr("long script: %1 ran %2, and no other client was served meanwhile")
                       .arg(QString::fromLatin1(name), took);
    } else if (name == "DEBUG") {
        v.flag = SlowlogFlag::Diagnostic;
        v.reason = QObject::tr("DEBUG is a test or diagnostic command, not the app's traffic");
    } else if (!wholeReadCounter(entry).isEmpty()) {
        const bool big = keySize >= kBigCollectionElements;
        if (big || entry.durationUs >= kBigCollectionUs) {
            QString what, instead;
            if (name == "SMEMBERS") {
                what = QObject::tr("members of a set");
                instead = QStringLiteral("SSCAN");
            } else if (name == "HGETALL") {
                what = QObject::tr("fields of a hash");
                instead = QStringLiteral("HSCAN");
            } else {
                what = QObject::tr("elements of a list");
                instead = QObject::tr("LRANGE in pages");
            }
            v.flag = SlowlogFlag::BigCollection;
            v.reason = keySize >= 0
                ? QObject::tr("%1 read all %2 %3 in one call (took %4); use %5")
                      .arg(QString::fromLatin1(name), format::count(quint64(keySize)), what, took, instead)
                : QObject::tr("%1 read all %2 in one call (took %3); use %4")
                      .arg(QString::fromLatin1(name), what, took, instead);
        }
    }
    return v;
}

QString label(SlowlogFlag flag)
{
    switch (flag) {
    case SlowlogFlag::None: return {};
    case SlowlogFlag::Keys: return QStringLiteral("KEYS");
    case SlowlogFlag::Flush: return QStringLiteral("FLUSH");
    case SlowlogFlag::BigCollection: return QObject::tr("big collection");
    case SlowlogFlag::LongScript: return QObject::tr("long script");
    case SlowlogFlag::Diagnostic: return QObject::tr("debug");
    }
    return {};
}

} // namespace slowlogflags

// ---------------------------------------------------------------------------------------------
// Tracker

void SlowlogTracker::setFetchLimit(int limit)
{
    m_limit = qMax(1, limit);
    m_request = qMin(m_request, m_limit);
}

SlowlogTracker::Outcome SlowlogTracker::apply(const SlowlogPage &page)
{
    Outcome out;
    const QList<SlowlogEntry> &entries = page.entries; // newest first

    // What happened since the last complete page. Pages asked again for more entries are
    // measured against the same baseline, so a reset found on the first is kept.
    bool restart = m_pendingRestart;
    bool cleared = m_pendingCleared;
    if (m_started) {
        if (!page.runId.isEmpty() && !m_runId.isEmpty() && page.runId != m_runId)
            restart = true;
        if (!entries.isEmpty() && m_lastId >= 0 && entries.first().id < m_lastId)
            restart = true;
        if (!restart && page.length >= 0 && m_lastLength >= 0) {
            if (page.maxLength >= 0) {
                const qint64 arrived
                    = !entries.isEmpty() && m_lastId >= 0 ? qMax<qint64>(0, entries.first().id - m_lastId) : 0;
                // The log only shrinks by wrapping (down to max-len) or by SLOWLOG RESET.
                const qint64 expected = qMin(m_lastLength + arrived, page.maxLength);
                cleared = cleared || page.length < expected;
            } else {
                cleared = cleared || page.length < m_lastLength;
            }
        }
    }
    const qint64 baseline = restart ? -1 : m_lastId;

    const qsizetype n = entries.size();
    const bool reached = baseline >= 0 && n > 0 && entries.last().id <= baseline;
    const bool whole = n < page.requested || (page.length >= 0 && n >= page.length)
        || (page.maxLength > 0 && page.requested >= page.maxLength) || page.requested >= m_limit;
    if (!reached && !whole) {
        qint64 want = page.requested * 4;
        if (baseline >= 0 && n > 0)
            want = entries.first().id - baseline;
        else if (page.length >= 0)
            want = page.length;
        // A few more for what arrives while the next request travels.
        want = qMax<qint64>(want + 8, qint64(page.requested) * 2);
        m_request = int(qMin<qint64>(want, m_limit));
        m_pendingRestart = restart;
        m_pendingCleared = cleared;
        out.complete = false;
        return out;
    }

    for (qsizetype i = n - 1; i >= 0; --i) {
        if (baseline < 0 || entries.at(i).id > baseline)
            out.fresh.append(entries.at(i));
    }
    if (restart || cleared) {
        out.reset = true;
        ++m_resets;
        if (restart)
            ++m_epoch;
    }
    if (!out.fresh.isEmpty()) {
        const qint64 oldest = out.fresh.first().id;
        if (baseline >= 0 && oldest > baseline + 1)
            out.missed = oldest - baseline - 1;
        else if (restart && oldest > 0)
            out.missed = oldest; // a new server counts from 0
        m_lastId = out.fresh.last().id;
    } else if (restart) {
        m_lastId = -1;
    }
    m_totalMissed += out.missed;
    m_lastLength = page.length;
    if (!page.runId.isEmpty())
        m_runId = page.runId;
    m_started = true;
    m_pendingRestart = m_pendingCleared = false;
    m_request = qBound(qMin(kIncrementalRequest, m_limit), int(out.fresh.size()) * 2, m_limit);
    out.epoch = m_epoch;
    return out;
}
