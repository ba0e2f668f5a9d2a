// SPDX-License-Identifier: GPL-3.0-or-later
#include "keysampler.h"

namespace keysampler {

namespace {

QList<double> scoresOf(const RedisValue &v, QList<QByteArray> *members)
{
    QList<double> out;
    const QList<RedisValue> &e = v.elements();
    // RESP2: member, score, member, score; RESP3: [member, score] pairs.
    if (!e.isEmpty() && e.first().isArray()) {
        for (const RedisValue &pair : e) {
            members->append(pair.at(0).bytes());
            out.append(pair.at(1).toDouble());
        }
        return out;
    }
    for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
        members->append(e.at(i).bytes());
        out.append(e.at(i + 1).toDouble());
    }
    return out;
}

} // namespace

QList<RedisCommand> commands(const QByteArray &key, KeyType type, qint64 elements, const QVersionNumber &version)
{
    QList<RedisCommand> c;
    switch (type) {
    case KeyType::String:
        c << RedisCommand{"GETRANGE", key, "0", QByteArray::number(PatternClassifier::kHeadBytes - 1)};
        break;
    case KeyType::Hash:
        if (!version.isNull() && version >= QVersionNumber(6, 2))
            c << RedisCommand{"HRANDFIELD", key, QByteArray::number(PatternClassifier::kFields)};
        else
            c << RedisCommand{"HSCAN", key, "0", "COUNT", QByteArray::number(PatternClassifier::kFields)};
        break;
    case KeyType::Set: c << RedisCommand{"SRANDMEMBER", key, QByteArray::number(PatternClassifier::kMembers)}; break;
    case KeyType::ZSet:
        c << RedisCommand{"ZRANGE", key, "0", "3", "WITHSCORES"}
          << RedisCommand{"ZRANGE", key, "-2", "-1", "WITHSCORES"};
        break;
    case KeyType::List: c << RedisCommand{"LRANGE", key, "0", "1"} << RedisCommand{"LRANGE", key, "-1", "-1"}; break;
    case KeyType::Unknown: c << RedisCommand{"TYPE", key}; break;
    default: break;
    }
    c << RedisCommand{"PTTL", key};
    if (readsLength(type, elements))
        c << RedisCommand{keyTypeLengthCommand(type), key};
    return c;
}

bool readsLength(KeyType type, qint64 elements)
{
    return elements < 0 && !keyTypeLengthCommand(type).isEmpty();
}

int pttlIndex(int first, int count, bool withLength)
{
    return first + count - (withLength ? 2 : 1);
}

int lengthIndex(int first, int count, bool withLength)
{
    return withLength ? first + count - 1 : -1;
}

void readValue(const RedisReply &reply, int first, KeySample *sample)
{
    const RedisValue &value = reply.value(first);
    switch (sample->type) {
    case KeyType::String: sample->head = value.bytes(); break;
    case KeyType::Hash:
        if (value.isArray() && value.size() == 2 && value.at(1).isArray()) {
            const QList<RedisValue> &kv = value.at(1).elements(); // HSCAN: cursor, [field, value…]
            for (qsizetype i = 0; i < kv.size(); i += 2)
                sample->members.append(kv.at(i).bytes());
        } else {
            for (const RedisValue &f : value.elements())
                sample->members.append(f.bytes());
        }
        break;
    case KeyType::Set:
        for (const RedisValue &m : value.elements())
            sample->members.append(m.bytes());
        break;
    case KeyType::ZSet: {
        QList<QByteArray> members;
        QList<double> scores = scoresOf(value, &members);
        QList<QByteArray> high;
        const QList<double> highScores = scoresOf(reply.value(first + 1), &high);
        for (qsizetype i = 0; i < high.size(); ++i) {
            if (!members.contains(high.at(i))) {
                members.append(high.at(i));
                scores.append(highScores.at(i));
            }
        }
        sample->members = members;
        sample->scores = scores;
        break;
    }
    case KeyType::List:
        for (const RedisValue &m : value.elements())
            sample->members.append(m.bytes());
        for (const RedisValue &m : reply.value(first + 1).elements())
            sample->members.append(m.bytes());
        break;
    default: break;
    }
}

} // namespace keysampler
