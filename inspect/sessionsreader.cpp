// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionsreader.h"

#include "boundedread.h"
#include "bytesescape.h"
#include "format.h"
#include "redisclient.h"
#include "rediserror.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>
#include <limits>

namespace {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

SessionsReader::SessionsReader(RedisClient *client, QObject *parent)
    : PollingReader(client, kRefreshMs, WhileBusy::Skip, BeforeMatches::Wait, parent)
{ }

void SessionsReader::setMatches(const QList<PatternMatch> &matches)
{
    const qint64 now = nowMs();
    QList<SessionRow> rows;
    QHash<QByteArray, int> rowOf;
    QList<SessionIndexRow> indexes;
    QHash<QByteArray, SessionIndexRow> oldIndexes;
    for (const SessionIndexRow &r : std::as_const(m_indexRows))
        oldIndexes.insert(r.key, r);
    for (const PatternMatch &m : matches) {
        if (m.kind == PatternKind::Session && !rowOf.contains(m.key)) {
            const int old = m_rowOf.value(m.key, -1);
            SessionRow r = old >= 0 ? m_rows.at(old) : SessionRow();
            if (old < 0) {
                r.key = m.key;
                r.expireAtMs = ttl::expireAt(m.pttlMs, now);
                r.readAtMs = now;
                r.lifetime = m.pttlMs == -1 ? sessions::Lifetime::NoTtl : sessions::Lifetime::Unknown;
                r.nameIssue = sessions::keyNameIssue(m.key);
            }
            r.type = m.type;
            r.family = m.family;
            rowOf.insert(m.key, int(rows.size()));
            rows.append(r);
        } else if (m.kind == PatternKind::SessionIndex) {
            SessionIndexRow r = oldIndexes.value(m.key);
            r.key = m.key;
            r.family = m.family;
            r.pttlMs = m.pttlMs;
            if (m.params.contains(QStringLiteral("session_prefix")))
                r.sessionPrefix = m.params.value(QStringLiteral("session_prefix")).toString().toUtf8();
            indexes.append(r);
        }
    }
    m_rows = rows;
    m_rowOf = rowOf;
    m_indexRows = indexes;
    m_cursor = 0;
    m_indexCursor = 0;
    matchesChanged();
}

QList<QByteArray> SessionsReader::sessionPrefixes() const
{
    // Most sessions first: an id that matches no known key is joined to the biggest family.
    QHash<QByteArray, int> counts;
    for (const SessionRow &r : m_rows) {
        const QByteArray p = sessions::familyPrefix(r.family);
        if (!p.isEmpty())
            ++counts[p];
    }
    QList<QByteArray> out = counts.keys();
    std::sort(out.begin(), out.end(), [&counts](const QByteArray &a, const QByteArray &b) {
        return counts.value(a) != counts.value(b) ? counts.value(a) > counts.value(b) : a < b;
    });
    return out;
}

void SessionsReader::startRound()
{
    const qint64 sent = nowMs();
    const QList<int> slice = boundedread::rotate(m_cursor, m_rows.size(), kMaxPerPoll);
    const QList<int> indexSlice = boundedread::rotate(m_indexCursor, m_indexRows.size(), kMaxIndexesPerPoll);

    QList<RedisCommand> commands;
    QList<QByteArray> sliceKeys;
    for (int i : std::as_const(slice)) {
        const SessionRow &r = m_rows.at(i);
        sliceKeys.append(r.key);
        commands.append({"PTTL", r.key});
        commands.append({"MEMORY", "USAGE", r.key});
        const QByteArray len = keyTypeLengthCommand(r.type);
        commands.append({len.isEmpty() ? QByteArray("STRLEN") : len, r.key});
    }
    QList<QByteArray> indexKeys;
    for (int i : std::as_const(indexSlice)) {
        indexKeys.append(m_indexRows.at(i).key);
        commands.append({"SCARD", m_indexRows.at(i).key});
        commands.append({"PTTL", m_indexRows.at(i).key});
    }
    boundedread::runBatches(
        m_client, context(), commands, kBatch,
        [this, sliceKeys, indexKeys, sent](const QList<RedisValue> &values, const RedisError &error) {
            if (error) {
                fail(error.message);
                return;
            }
            const qint64 arrived = nowMs();
            qsizetype v = 0;
            const QString firstError = readSessions(sliceKeys, values, v, sent, arrived);
            const QList<SessionIndexRow> indexes = readIndexSizes(indexKeys, values, v);
            if (!firstError.isEmpty())
                Q_EMIT failed(firstError);
            readIndexes(indexes, arrived);
        });
}

// The PTTL, MEMORY USAGE and length replies of the sessions read this round, from values[v];
// sessions gone since the scan leave the list. Returns the first per-key error.
QString SessionsReader::readSessions(const QList<QByteArray> &keys, const QList<RedisValue> &values, qsizetype &v,
                                     qint64 sent, qint64 arrived)
{
    // The readings happened somewhere between sending and arriving.
    const qint64 readAt = sent + (arrived - sent) / 2;
    const qint64 tolerance = sessions::kSlideToleranceMs + (arrived - sent);
    QSet<QByteArray> gone;
    QString firstError;
    for (const QByteArray &key : keys) {
        const RedisValue &pttl = values.value(v++);
        const RedisValue &memory = values.value(v++);
        const RedisValue &length = values.value(v++);
        const int row = m_rowOf.value(key, -1);
        if (row < 0)
            continue;
        SessionRow &r = m_rows[row];
        const qint64 p = ttl::fromReply(pttl);
        if (p == -2) {
            gone.insert(key);
            continue;
        }
        if (pttl.isError() && firstError.isEmpty())
            firstError = RedisError::fromReply(pttl).message;
        const qint64 expireAt = ttl::expireAt(p, readAt);
        const qint64 previous = r.reads > 0 ? r.expireAtMs : ttl::kUnknown;
        r.lifetime
            = sessions::observe(r.reads > 0 ? r.lifetime : sessions::Lifetime::Unknown, previous, expireAt, tolerance);
        if (expireAt != ttl::kUnknown) {
            r.expireAtMs = expireAt;
            r.readAtMs = readAt;
            ++r.reads;
        }
        r.memoryBytes = memory.isInteger() ? memory.toInteger() : r.memoryBytes;
        r.elements = length.isInteger() ? length.toInteger() : r.elements;
    }
    if (!gone.isEmpty()) {
        QList<SessionRow> kept;
        for (const SessionRow &r : std::as_const(m_rows))
            if (!gone.contains(r.key))
                kept.append(r);
        m_rows = kept;
        m_rowOf.clear();
        for (qsizetype i = 0; i < m_rows.size(); ++i)
            m_rowOf.insert(m_rows.at(i).key, int(i));
        m_cursor = 0;
    }
    return firstError;
}

// The SCARD and PTTL replies of the indexes read this round; empty or gone indexes are left out.
QList<SessionIndexRow> SessionsReader::readIndexSizes(const QList<QByteArray> &keys, const QList<RedisValue> &values,
                                                      qsizetype &v)
{
    QList<SessionIndexRow> indexes;
    for (const QByteArray &key : keys) {
        const RedisValue &card = values.value(v++);
        const RedisValue &pttl = values.value(v++);
        for (SessionIndexRow &r : m_indexRows) {
            if (r.key != key)
                continue;
            r.cardinality = card.isInteger() ? card.toInteger() : -1;
            r.pttlMs = ttl::fromReply(pttl);
            r.error = card.isError() ? RedisError::fromReply(card).message : QString();
            if (r.cardinality != 0 && r.pttlMs != -2)
                indexes.append(r);
        }
    }
    return indexes;
}

void SessionsReader::readIndexes(QList<SessionIndexRow> indexes, qint64 now)
{
    QList<QByteArray> keys;
    for (const SessionIndexRow &r : std::as_const(indexes))
        if (r.error.isEmpty())
            keys.append(r.key);
    if (keys.isEmpty()) {
        finish(indexes, now);
        return;
    }
    boundedread::scanSets(
        m_client, context(), keys, kMaxIdsPerIndex,
        [this, indexes, now](const QHash<QByteArray, boundedread::ScannedSet> &sets, const RedisError &error) mutable {
            if (error) {
                fail(error.message);
                return;
            }
            const QList<QByteArray> prefixes = sessionPrefixes();
            QList<RedisCommand> commands;
            QList<QPair<int, QByteArray>> asked; // index row, id
            for (int i = 0; i < indexes.size(); ++i) {
                SessionIndexRow &r = indexes[i];
                const auto it = sets.constFind(r.key);
                if (it == sets.constEnd())
                    continue;
                if (it->error) {
                    r.error = it->error.message;
                    continue;
                }
                r.scanned = it->members.size();
                r.complete = it->complete;
                QByteArray chosen = r.sessionPrefix;
                for (const QByteArray &id : it->members) {
                    QByteArray key;
                    for (const QByteArray &p : prefixes) {
                        if (id.startsWith(p) && m_rowOf.contains(id)) {
                            key = id; // the index stores whole key names
                            break;
                        }
                        if (chosen.isEmpty() && m_rowOf.contains(p + id))
                            chosen = p;
                    }
                    if (key.isEmpty()) {
                        const QByteArray prefix = !chosen.isEmpty() ? chosen : prefixes.value(0);
                        if (prefix.isEmpty())
                            continue;
                        key = id.startsWith(prefix) ? id : prefix + id;
                    }
                    asked.append({i, id});
                    commands.append({"EXISTS", key});
                }
                r.sessionPrefix = !chosen.isEmpty() ? chosen : prefixes.value(0);
                if (r.sessionPrefix.isEmpty())
                    r.error = tr("no session family known to join the ids to");
            }
            boundedread::runBatches(
                m_client, context(), commands, kBatch,
                [this, indexes, asked, now](const QList<RedisValue> &values, const RedisError &error) mutable {
                    if (error) {
                        fail(error.message);
                        return;
                    }
                    for (SessionIndexRow &r : indexes)
                        r.dangling.clear();
                    for (qsizetype i = 0; i < asked.size() && i < values.size(); ++i)
                        if (values.at(i).isInteger() && values.at(i).toInteger() == 0)
                            indexes[asked.at(i).first].dangling.append(asked.at(i).second);
                    for (SessionIndexRow &r : indexes)
                        std::sort(r.dangling.begin(), r.dangling.end());
                    finish(indexes, now);
                });
        });
}

void SessionsReader::finish(QList<SessionIndexRow> indexes, qint64 now)
{
    // Indexes read this poll replace their rows; the others keep what the last poll saw.
    QHash<QByteArray, SessionIndexRow> fresh;
    for (const SessionIndexRow &r : std::as_const(indexes))
        fresh.insert(r.key, r);
    QList<SessionIndexRow> all;
    for (const SessionIndexRow &r : std::as_const(m_indexRows)) {
        if (fresh.contains(r.key))
            all.append(fresh.value(r.key));
        else if (r.cardinality != 0 && r.pttlMs != -2)
            all.append(r);
    }
    m_indexRows = all;

    m_summary = sessions::analyze(m_rows, m_indexRows, now);
    Q_EMIT sessionsAvailable({m_rows, m_indexRows, m_summary});
    roundDone();
}

void SessionsReader::loadContents(const QByteArray &key, KeyType type)
{
    const quint64 generation = ++m_contentsGeneration;
    auto out = std::make_shared<sessions::Contents>();
    out->key = key;
    out->type = type;
    // Always asynchronous, so a caller can connect after asking.
    const auto refuse = [this, out](const QString &why) {
        out->error = why;
        QMetaObject::invokeMethod(
            this, [this, out] { Q_EMIT contentsAvailable(*out); }, Qt::QueuedConnection);
    };
    if (!context()) {
        refuse(tr("not connected"));
        return;
    }
    if (type == KeyType::Hash) {
        hscanStep(out, {}, "0", generation);
        return;
    }
    if (type != KeyType::String) {
        refuse(tr("a session of type %1 is not shown here; open it in the key browser").arg(keyTypeName(type)));
        return;
    }
    m_client->sendBatch({{"STRLEN", key}, {"GETRANGE", key, "0", QByteArray::number(kContentsBytes - 1)}}, context(),
                        [this, key, generation](const RedisReply &r) {
                            if (generation != m_contentsGeneration)
                                return;
                            sessions::Contents c;
                            if (const RedisError e = r.firstError(); e || r.value(1).isError()) {
                                c.key = key;
                                c.type = KeyType::String;
                                c.error = e ? e.message : RedisError::fromReply(r.value(1)).message;
                            } else {
                                c = sessions::Contents::fromString(key, r.value(1).bytes(),
                                                                   r.value(0).toInteger() > kContentsBytes);
                            }
                            Q_EMIT contentsAvailable(c);
                        });
}

void SessionsReader::hscanStep(const std::shared_ptr<sessions::Contents> &out,
                               QList<QPair<QByteArray, QByteArray>> pairs, const QByteArray &cursor, quint64 generation)
{
    m_client->send({"HSCAN", out->key, cursor, "COUNT", "100"}, context(),
                   [this, out, pairs, generation](const RedisReply &r) mutable {
                       if (generation != m_contentsGeneration)
                           return;
                       const RedisValue &v = r.value();
                       if (const RedisError e = r.firstError(); e || !v.isArray() || v.size() < 2) {
                           out->error = e ? e.message : tr("unexpected HSCAN reply");
                           Q_EMIT contentsAvailable(*out);
                           return;
                       }
                       const QList<RedisValue> &items = v.at(1).elements();
                       for (qsizetype i = 0; i + 1 < items.size() && pairs.size() < kContentsFields; i += 2)
                           pairs.append({items.at(i).bytes(), items.at(i + 1).bytes()});
                       const QByteArray next = v.at(0).bytes();
                       const bool full = pairs.size() >= kContentsFields;
                       if (next == "0" || full) {
                           sessions::Contents c = sessions::Contents::fromHash(out->key, pairs, full && next != "0");
                           std::sort(
                               c.fields.begin(), c.fields.end(),
                               [](const sessions::Field &a, const sessions::Field &b) { return a.name < b.name; });
                           Q_EMIT contentsAvailable(c);
                           return;
                       }
                       hscanStep(out, pairs, next, generation);
                   });
}
