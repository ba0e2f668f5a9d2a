// SPDX-License-Identifier: GPL-3.0-or-later
#include "cachesreader.h"

#include "boundedread.h"
#include "bytesescape.h"
#include "format.h"
#include "hyperloglog.h"
#include "redisclient.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>

CachesReader::CachesReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Skip, BeforeMatches::Wait, parent)
{ }

void CachesReader::setMatches(const QList<PatternMatch> &matches)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<CacheKeyState> keys;
    QList<QString> families;
    QHash<QByteArray, int> keyOf;
    QHash<QByteArray, TagRow> oldTags;
    for (const TagRow &r : std::as_const(m_tagRows))
        oldTags.insert(r.key, r);
    QHash<QByteArray, DedupSetRow> oldSets;
    for (const DedupSetRow &r : std::as_const(m_setRows))
        oldSets.insert(r.key, r);
    QHash<QByteArray, CounterRow> oldCounters;
    for (const CounterRow &r : std::as_const(m_counterRows))
        oldCounters.insert(r.key, r);
    m_tagRows.clear();
    m_setRows.clear();
    m_counterRows.clear();
    QSet<QByteArray> seen;
    for (const PatternMatch &m : matches) {
        if (seen.contains(m.key))
            continue;
        seen.insert(m.key);
        switch (m.kind) {
        case PatternKind::CacheEntry:
        case PatternKind::NegativeCache:
        case PatternKind::DedupKey: {
            const int old = m_keyOf.value(m.key, -1);
            CacheKeyState k;
            k.key = m.key;
            k.kind = m.kind;
            k.expireAtMs = old >= 0 ? m_keys.at(old).expireAtMs : ttl::expireAt(m.pttlMs, now);
            keyOf.insert(m.key, int(keys.size()));
            keys.append(k);
            families.append(m.family);
            break;
        }
        case PatternKind::CacheTagSet: {
            TagRow r = oldTags.value(m.key);
            r.key = m.key;
            r.family = m.family;
            if (!oldTags.contains(m.key))
                r.pttlMs = m.pttlMs;
            m_tagRows.append(r);
            break;
        }
        case PatternKind::DedupSet: {
            DedupSetRow r = oldSets.value(m.key);
            r.key = m.key;
            r.family = m.family;
            if (!oldSets.contains(m.key))
                r.pttlMs = m.pttlMs;
            m_setRows.append(r);
            break;
        }
        case PatternKind::Counter:
        case PatternKind::HyperLogLog: {
            CounterRow r = oldCounters.value(m.key);
            r.key = m.key;
            r.family = m.family;
            r.hll = m.kind == PatternKind::HyperLogLog;
            if (!oldCounters.contains(m.key))
                r.pttlMs = m.pttlMs;
            m_counterRows.append(r);
            break;
        }
        default: break;
        }
    }
    for (auto it = m_setSamples.begin(); it != m_setSamples.end();)
        it = seen.contains(it.key()) ? std::next(it) : m_setSamples.erase(it);
    m_keys = keys;
    m_keyFamily = families;
    m_keyOf = keyOf;
    m_ttlCursor = 0;
    m_tagCursor = 0;
    matchesChanged();
}

void CachesReader::startRound()
{
    QList<RedisCommand> commands{{"INFO", "stats"}};
    QList<QByteArray> ttlKeys;
    for (int i : boundedread::rotate(m_ttlCursor, m_keys.size(), kMaxTtlsPerPoll)) {
        ttlKeys.append(m_keys.at(i).key);
        commands.append({"PTTL", m_keys.at(i).key});
    }
    QList<QByteArray> tagKeys;
    for (int i : boundedread::rotate(m_tagCursor, m_tagRows.size(), kMaxTagsPerPoll))
        tagKeys.append(m_tagRows.at(i).key);
    for (const QByteArray &k : std::as_const(tagKeys)) {
        commands.append({"SCARD", k});
        commands.append({"PTTL", k});
    }
    const QList<DedupSetRow> sets = m_setRows.mid(0, kMaxPerKindPerPoll);
    for (const DedupSetRow &r : sets) {
        commands.append({"SCARD", r.key});
        commands.append({"PTTL", r.key});
    }
    const QList<CounterRow> counters = m_counterRows.mid(0, 2 * kMaxPerKindPerPoll);
    for (const CounterRow &r : counters) {
        if (r.hll) // its bytes, not PFCOUNT, which rewrites them (hyperloglog.h)
            commands.append({"GETRANGE", r.key, "0", QByteArray::number(hyperloglog::kMaxBytes - 1)});
        else
            commands.append({"GETRANGE", r.key, "0", QByteArray::number(kCounterPeekBytes - 1)});
        commands.append({"PTTL", r.key});
    }
    boundedread::runBatches(
        m_client, context(), commands, kBatch,
        [this, ttlKeys, tagKeys, sets, counters](const QList<RedisValue> &values, const RedisError &error) {
            if (error) {
                fail(error.message);
                return;
            }
            m_now = QDateTime::currentMSecsSinceEpoch();
            qsizetype v = 0;
            readInfo(values.value(v++));
            countOwnLookups(values);
            readTtls(ttlKeys, values, v);
            const QList<TagRow> tags = readTagSizes(tagKeys, values, v);
            readDedupSets(sets, values, v);
            readCounters(counters, values, v);
            readTags(tags);
        });
}

void CachesReader::readInfo(const RedisValue &info)
{
    if (info.isError()) {
        m_infoError = RedisError::fromReply(info).message;
        return;
    }
    m_infoError.clear();
    const ServerInfo current = ServerInfo::parse(info.bytes(), m_now);
    if (m_lastInfo && m_now - m_lastInfo->capturedAtMs() < m_minRatioSpanMs) {
        // Too soon for a recent ratio: keep the older read as the baseline.
        const HitRatio recent = m_hitRatio;
        m_hitRatio = HitRatio::from(current, nullptr);
        m_hitRatio.recent = recent.recent;
        m_hitRatio.recentLookups = recent.recentLookups;
        m_hitRatio.recentSpanMs = recent.recentSpanMs;
    } else {
        m_hitRatio = HitRatio::from(current, m_lastInfo ? &*m_lastInfo : nullptr, m_ownHits, m_ownMisses);
        m_lastInfo = current;
        m_ownHits = 0;
        m_ownMisses = 0;
    }
}

void CachesReader::countOwnLookups(const QList<RedisValue> &values)
{
    // Every key read after INFO counts in the server's keyspace_hits/misses, until the baseline moves.
    for (qsizetype i = 1; i < values.size(); ++i) {
        const RedisValue &value = values.at(i);
        if (value.isInteger() && value.toInteger() == -2)
            ++m_ownMisses;
        else if (!value.isError())
            ++m_ownHits;
    }
}

void CachesReader::readTtls(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v)
{
    QSet<QByteArray> gone;
    for (const QByteArray &k : keys) {
        const qint64 p = ttl::fromReply(values.value(v++));
        const int i = m_keyOf.value(k, -1);
        if (i < 0)
            continue;
        if (p == -2)
            gone.insert(k);
        else if (p != ttl::kUnknown)
            m_keys[i].expireAtMs = ttl::expireAt(p, m_now);
    }
    if (gone.isEmpty())
        return;
    QList<CacheKeyState> kept;
    QList<QString> families;
    for (qsizetype i = 0; i < m_keys.size(); ++i) {
        if (gone.contains(m_keys.at(i).key))
            continue;
        kept.append(m_keys.at(i));
        families.append(m_keyFamily.at(i));
    }
    m_keys = kept;
    m_keyFamily = families;
    m_keyOf.clear();
    for (qsizetype i = 0; i < m_keys.size(); ++i)
        m_keyOf.insert(m_keys.at(i).key, int(i));
    m_ttlCursor = 0;
}

QList<TagRow> CachesReader::readTagSizes(const QList<QByteArray> &keys, const QList<RedisValue> &values,
                                         qsizetype &v) const
{
    QList<TagRow> tags;
    for (const QByteArray &k : keys) {
        const RedisValue &card = values.value(v++);
        const RedisValue &p = values.value(v++);
        for (const TagRow &old : std::as_const(m_tagRows)) {
            if (old.key != k)
                continue;
            TagRow r = old;
            r.cardinality = card.isInteger() ? card.toInteger() : -1;
            r.pttlMs = ttl::fromReply(p);
            r.error = card.isError() ? RedisError::fromReply(card).message : QString();
            tags.append(r);
        }
    }
    return tags;
}

void CachesReader::readDedupSets(const QList<DedupSetRow> &sets, const QList<RedisValue> &values, qsizetype &v)
{
    QHash<QByteArray, DedupSetRow> setRows;
    for (DedupSetRow r : sets) {
        const RedisValue &card = values.value(v++);
        r.pttlMs = ttl::fromReply(values.value(v++));
        r.cardinality = card.isInteger() ? card.toInteger() : -1;
        if (r.cardinality >= 0) {
            QList<QPair<qint64, qint64>> &samples = m_setSamples[r.key];
            samples.append({m_now, r.cardinality});
            while (samples.size() > 13) // about two minutes at one read per kRefreshMs
                samples.removeFirst();
            const qint64 span = samples.last().first - samples.first().first;
            if (samples.size() >= 2 && span > 0) {
                r.growth = samples.last().second - samples.first().second;
                r.growthSpanMs = span;
                r.growthPerMin = double(r.growth) * 60000.0 / double(span);
            }
        }
        setRows.insert(r.key, r);
    }
    for (DedupSetRow &r : m_setRows)
        if (setRows.contains(r.key))
            r = setRows.value(r.key);
}

void CachesReader::readCounters(const QList<CounterRow> &counters, const QList<RedisValue> &values, qsizetype &v)
{
    QHash<QByteArray, CounterRow> counterRows;
    for (CounterRow r : counters) {
        const RedisValue &value = values.value(v++);
        r.pttlMs = ttl::fromReply(values.value(v++));
        r.error = value.isError() ? RedisError::fromReply(value).message : QString();
        bool ok = false;
        if (r.hll) {
            QString why;
            const std::optional<qint64> count = hyperloglog::cardinality(value.bytes(), &why);
            ok = count.has_value();
            r.value = count.value_or(0);
            if (!ok && r.error.isEmpty())
                r.error = why;
            r.raw.clear();
        } else {
            r.value = value.toInteger(&ok);
            r.raw = value.isString() ? value.bytes() : QByteArray();
        }
        r.known = ok && r.error.isEmpty();
        counterRows.insert(r.key, r);
    }
    for (CounterRow &r : m_counterRows)
        if (counterRows.contains(r.key))
            r = counterRows.value(r.key);
}

void CachesReader::readTags(QList<TagRow> tags)
{
    QList<QByteArray> keys;
    for (const TagRow &r : std::as_const(tags))
        if (r.error.isEmpty() && r.cardinality > 0)
            keys.append(r.key);
    if (keys.isEmpty()) {
        finish(tags);
        return;
    }
    boundedread::scanSets(
        m_client, context(), keys, kMaxMembersPerTag,
        [this, tags](const QHash<QByteArray, boundedread::ScannedSet> &sets, const RedisError &error) mutable {
            if (error) {
                fail(error.message);
                return;
            }
            for (const boundedread::ScannedSet &set : sets)
                m_ownHits += 1 + set.members.size() / 100; // about one SSCAN round per hundred members
            // PTTL answers both questions at once: -2 is a member that is gone, else its TTL.
            QList<RedisCommand> commands;
            QList<QPair<int, QByteArray>> asked;
            for (int i = 0; i < tags.size(); ++i) {
                const auto it = sets.constFind(tags.at(i).key);
                if (it == sets.constEnd())
                    continue;
                tags[i].scanned = it->members.size();
                tags[i].complete = it->complete;
                if (it->error)
                    tags[i].error = it->error.message;
                for (const QByteArray &m : it->members) {
                    asked.append({i, m});
                    commands.append({"PTTL", m});
                }
            }
            boundedread::runBatches(
                m_client, context(), commands, kBatch,
                [this, tags, asked](const QList<RedisValue> &values, const RedisError &error) mutable {
                    if (error) {
                        fail(error.message);
                        return;
                    }
                    for (TagRow &r : tags) {
                        r.dangling.clear();
                        r.membersWithoutTtl = 0;
                        r.maxMemberTtlMs = -1;
                        r.outlivingMembers = 0;
                    }
                    for (qsizetype i = 0; i < asked.size() && i < values.size(); ++i) {
                        TagRow &r = tags[asked.at(i).first];
                        const qint64 p = ttl::fromReply(values.at(i));
                        ++(p == -2 ? m_ownMisses : m_ownHits);
                        if (p == -2) {
                            r.dangling.append(asked.at(i).second);
                        } else if (p == -1) {
                            ++r.membersWithoutTtl;
                            r.outlivingMembers += r.pttlMs >= 0 ? 1 : 0;
                        } else if (p >= 0) {
                            r.maxMemberTtlMs = qMax(r.maxMemberTtlMs, p);
                            r.outlivingMembers += r.pttlMs >= 0 && p > r.pttlMs ? 1 : 0;
                        }
                    }
                    for (TagRow &r : tags)
                        std::sort(r.dangling.begin(), r.dangling.end());
                    finish(tags);
                });
        });
}

void CachesReader::finish(QList<TagRow> tags)
{
    QHash<QByteArray, TagRow> fresh;
    for (const TagRow &r : std::as_const(tags))
        fresh.insert(r.key, r);
    QList<TagRow> all;
    for (const TagRow &r : std::as_const(m_tagRows)) {
        const TagRow &row = fresh.contains(r.key) ? fresh[r.key] : r;
        if (row.cardinality != 0 && row.pttlMs != -2) // an empty set is no key: the tag is gone
            all.append(row);
    }
    m_tagRows = all;
    publish();
    roundDone();
}

void CachesReader::publish()
{
    const caches::Grouped g = caches::group(m_keys, m_keyFamily, m_now);
    m_results = {g.namespaces, m_tagRows, m_setRows, g.dedupFamilies, m_counterRows, m_hitRatio, m_infoError, m_now};
    Q_EMIT cachesAvailable(m_results);
}
