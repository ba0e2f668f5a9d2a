// SPDX-License-Identifier: GPL-3.0-or-later
#include "hotkeysreader.h"

#include "keysampler.h"
#include "patternindex.h"
#include "redisclient.h"
#include "slowlog.h"

#include <QTimer>

// KeyKindReader -------------------------------------------------------------------------------

KeyKindReader::KeyKindReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{ }

void KeyKindReader::setPatternIndex(const PatternIndex *index)
{
    m_index = index;
}

void KeyKindReader::cancel()
{
    delete m_context;
    m_found.clear();
}

void KeyKindReader::read(const QList<QByteArray> &asked)
{
    cancel();
    m_context = new QObject(this);
    const QList<QByteArray> keys = asked.mid(0, kMaxKeys);
    QList<QByteArray> unknown;
    for (const QByteArray &key : keys) {
        // The index has read this key, or its group: its verdict is the one the panels show.
        const std::optional<PatternMatch> known = m_index ? m_index->match(key) : std::nullopt;
        if (known && (known->kind != PatternKind::Unknown || known->confidence > 0))
            m_found.insert(key, *known);
        else
            unknown.append(key);
    }
    if (unknown.isEmpty() || !m_client->isReady()) {
        Q_EMIT kindsAvailable(std::exchange(m_found, {}));
        return;
    }
    QList<RedisCommand> commands;
    for (const QByteArray &key : std::as_const(unknown))
        commands << RedisCommand{"TYPE", key} << RedisCommand{"PTTL", key};
    m_client->sendBatch(commands, m_context, [this, unknown](const RedisReply &r) {
        QList<QByteArray> keys;
        QList<KeyType> types;
        QList<qint64> pttls;
        const PatternClassifier classifier(m_index ? &m_index->rules() : nullptr);
        for (qsizetype i = 0; r.ok() && i < unknown.size(); ++i) {
            const KeyType type = keyTypeFromReply(r.value(2 * i).bytes());
            if (type == KeyType::None) {
                // Gone since it was named (a queue drained, a lock released): said so.
                KeySample gone;
                gone.key = unknown.at(i);
                gone.type = type;
                m_found.insert(gone.key, classifier.classify(gone));
                continue;
            }
            if (type == KeyType::Unknown)
                continue;
            keys << unknown.at(i);
            types << type;
            pttls << ttl::fromReply(r.value(2 * i + 1));
        }
        sample(keys, types, pttls);
    });
}

void KeyKindReader::sample(const QList<QByteArray> &keys, const QList<KeyType> &types, const QList<qint64> &pttls)
{
    if (keys.isEmpty()) {
        Q_EMIT kindsAvailable(std::exchange(m_found, {}));
        return;
    }
    QList<RedisCommand> commands;
    QList<int> firsts;
    QList<int> counts;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const QList<RedisCommand> c = keysampler::commands(keys.at(i), types.at(i), -1, m_client->facts().version);
        firsts << int(commands.size());
        counts << int(c.size());
        commands << c;
    }
    m_client->sendBatch(commands, m_context, [this, keys, types, pttls, firsts, counts](const RedisReply &r) {
        const PatternClassifier classifier(m_index ? &m_index->rules() : nullptr);
        for (qsizetype i = 0; r.ok() && i < keys.size(); ++i) {
            KeySample s;
            s.key = keys.at(i);
            s.type = types.at(i);
            s.pttlMs = pttls.at(i);
            s.sampled = true;
            const bool withLength = keysampler::readsLength(s.type, -1);
            const int length = keysampler::lengthIndex(firsts.at(i), counts.at(i), withLength);
            if (length >= 0 && r.value(length).isInteger())
                s.elements = r.value(length).toInteger();
            keysampler::readValue(r, firsts.at(i), &s);
            m_found.insert(s.key, classifier.classify(s));
        }
        Q_EMIT kindsAvailable(std::exchange(m_found, {}));
    });
}

// HotKeysReader -------------------------------------------------------------------------------

HotKeysReader::HotKeysReader(RedisClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_kinds(new KeyKindReader(client, this)), m_pause(new QTimer(this))
{
    m_pause->setSingleShot(true);
    m_pause->setInterval(kPauseMs);
    connect(m_pause, &QTimer::timeout, this, &HotKeysReader::scanNext);
    connect(m_kinds, &KeyKindReader::kindsAvailable, this, [this](const QHash<QByteArray, PatternMatch> &kinds) {
        for (profiler::HotKey &k : m_keys) {
            const auto it = kinds.constFind(k.key);
            if (it == kinds.cend())
                continue;
            k.kind = it->kind;
            k.kindKnown = true;
        }
        // Keys beyond the ones read take their family's kind, as the pattern index's groups do.
        QHash<QString, PatternKind> byFamily;
        for (const profiler::HotKey &k : std::as_const(m_keys))
            if (k.kindKnown && !byFamily.contains(k.family))
                byFamily.insert(k.family, k.kind);
        for (profiler::HotKey &k : m_keys) {
            if (!k.kindKnown && byFamily.contains(k.family)) {
                k.kind = byFamily.value(k.family);
                k.kindKnown = true;
            }
        }
        finish();
    });
}

HotKeysReader::~HotKeysReader() = default;

void HotKeysReader::setPatternIndex(const PatternIndex *index)
{
    m_kinds->setPatternIndex(index);
}

void HotKeysReader::cancel()
{
    delete m_context;
    m_pause->stop();
    m_kinds->cancel();
    m_running = false;
}

void HotKeysReader::start()
{
    cancel();
    m_context = new QObject(this);
    m_running = true;
    m_source = Source::None;
    m_reason.clear();
    m_note.clear();
    m_valueName.clear();
    m_policy.clear();
    m_cursor = "0";
    m_top.clear();
    m_keys.clear();
    m_scanComplete = false;
    Q_EMIT progress();
    // COMMAND INFO answers nil for a command the server does not have (HOTKEYS came in 8.6).
    const QList<RedisCommand> probe{{"COMMAND", "INFO", "HOTKEYS"}, {"CONFIG", "GET", "maxmemory-policy"}};
    m_client->sendBatch(probe, m_context, [this](const RedisReply &r) { onProbe(r); });
}

void HotKeysReader::onProbe(const RedisReply &reply)
{
    if (!reply.ok()) {
        unavailable(reply.error.message);
        return;
    }
    if (!RedisError::fromReply(reply.value(1)))
        m_policy = slowlog::parseConfigGet(reply.value(1)).value("maxmemory-policy");
    const RedisValue &info = reply.value(0);
    const bool hasHotkeys = info.isArray() && info.size() > 0 && info.at(0).isArray() && info.at(0).size() > 0;
    if (hasHotkeys)
        readHotkeys();
    else
        startSampling();
}

void HotKeysReader::readHotkeys()
{
    m_client->send(RedisCommand{"HOTKEYS", "GET"}, m_context, [this](const RedisReply &r) {
        const RedisError e = r.ok() ? RedisError::fromReply(r.value()) : r.error;
        if (e) {
            m_note = tr("HOTKEYS GET failed (%1)").arg(e.message);
            startSampling();
            return;
        }
        const profiler::HotkeysReport report = profiler::parseHotkeysGet(r.value());
        const QList<profiler::HotKey> &keys = report.byCpuUs.isEmpty() ? report.byNetBytes : report.byCpuUs;
        if (!report.present || keys.isEmpty()) {
            m_note = tr("HOTKEYS has no tracking session with keys (HOTKEYS START begins one; RedisLens only reads)");
            startSampling();
            return;
        }
        m_source = Source::Hotkeys;
        m_valueName = report.byCpuUs.isEmpty() ? tr("bytes") : tr("µs of CPU");
        m_note = report.active ? tr("from HOTKEYS: the tracking session still runs")
                               : tr("from HOTKEYS: the last tracking session");
        m_scanComplete = true;
        finishWith(keys.mid(0, kTopKeys));
    });
}

void HotKeysReader::startSampling()
{
    if (m_policy.isEmpty()) {
        // CONFIG GET was refused: OBJECT FREQ's own answer tells whether the policy allows it.
        probeFreq();
        return;
    }
    if (!m_policy.contains("lfu")) {
        unavailable(tr("OBJECT FREQ needs maxmemory-policy allkeys-lfu or volatile-lfu (this server: %1); "
                       "RedisLens does not change it")
                        .arg(QString::fromUtf8(m_policy)));
        return;
    }
    m_source = Source::ObjectFreq;
    m_valueName = tr("OBJECT FREQ");
    scanNext();
}

void HotKeysReader::probeFreq()
{
    m_client->send(RedisCommand{"SCAN", "0", "COUNT", "10"}, m_context, [this](const RedisReply &r) {
        const RedisError e = r.ok() ? RedisError::fromReply(r.value()) : r.error;
        if (e) {
            unavailable(e.message);
            return;
        }
        const RedisValue &keys = r.value().at(1);
        if (keys.size() == 0) {
            // Nothing to ask about: an empty database has no hot keys either way.
            m_source = Source::ObjectFreq;
            m_valueName = tr("OBJECT FREQ");
            m_scanComplete = true;
            finishWith({});
            return;
        }
        m_client->send(RedisCommand{"OBJECT", "FREQ", keys.at(0).bytes()}, m_context, [this](const RedisReply &f) {
            const RedisError fe = f.ok() ? RedisError::fromReply(f.value()) : f.error;
            if (fe && fe.message.contains(QLatin1String("LFU"), Qt::CaseInsensitive)) {
                unavailable(tr("OBJECT FREQ needs maxmemory-policy allkeys-lfu or volatile-lfu (%1); "
                               "RedisLens does not change it")
                                .arg(fe.message));
                return;
            }
            if (fe) {
                unavailable(fe.message);
                return;
            }
            m_source = Source::ObjectFreq;
            m_valueName = tr("OBJECT FREQ");
            scanNext();
        });
    });
}

void HotKeysReader::scanNext()
{
    if (!m_running)
        return;
    m_client->send(RedisCommand{"SCAN", m_cursor, "COUNT", QByteArray::number(kScanCount)}, m_context,
                   [this](const RedisReply &r) {
                       const RedisError e = r.ok() ? RedisError::fromReply(r.value()) : r.error;
                       if (e) {
                           unavailable(e.message);
                           return;
                       }
                       const QByteArray cursor = r.value().at(0).bytes();
                       QList<QByteArray> keys;
                       for (const RedisValue &k : r.value().at(1).elements())
                           keys.append(k.bytes());
                       const qint64 room = m_maxKeys - m_top.added();
                       if (keys.size() > room)
                           keys.resize(qMax<qint64>(0, room));
                       if (keys.isEmpty()) {
                           onBatch(RedisReply(), keys, cursor);
                           return;
                       }
                       QList<RedisCommand> freq;
                       freq.reserve(keys.size());
                       for (const QByteArray &k : std::as_const(keys))
                           freq << RedisCommand{"OBJECT", "FREQ", k};
                       m_client->sendBatch(freq, m_context, [this, keys, cursor](const RedisReply &f) {
                           if (!f.ok()) {
                               unavailable(f.error.message);
                               return;
                           }
                           onBatch(f, keys, cursor);
                       });
                   });
}

void HotKeysReader::onBatch(const RedisReply &reply, const QList<QByteArray> &keys, const QByteArray &cursor)
{
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const RedisValue &v = reply.value(i);
        // A key gone since the SCAN answers nil; a refused one an error: neither is ranked.
        if (v.isInteger())
            m_top.add(keys.at(i), v.toInteger());
    }
    m_cursor = cursor;
    m_scanComplete = cursor == "0";
    Q_EMIT progress();
    if (m_scanComplete || m_top.added() >= m_maxKeys) {
        finishWith(m_top.top());
        return;
    }
    m_pause->start();
}

void HotKeysReader::finishWith(const QList<profiler::HotKey> &keys)
{
    m_keys = keys;
    QList<QByteArray> names;
    for (const profiler::HotKey &k : keys)
        names.append(k.key);
    if (names.isEmpty()) {
        finish();
        return;
    }
    m_kinds->read(names);
}

void HotKeysReader::finish()
{
    m_running = false;
    Q_EMIT progress();
    Q_EMIT finished();
}

void HotKeysReader::unavailable(const QString &reason)
{
    m_source = Source::None;
    m_reason = reason;
    m_keys.clear();
    finish();
}
