// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisvalue.h"

#include "bytesescape.h"

#include <QStringBuilder>

RedisValue RedisValue::nil()
{
    RedisValue v;
    v.m_kind = Kind::Nil;
    return v;
}

RedisValue RedisValue::integer(qint64 value)
{
    RedisValue v;
    v.m_kind = Kind::Integer;
    v.m_integer = value;
    return v;
}

RedisValue RedisValue::typed(Kind kind, const QByteArray &s)
{
    RedisValue v;
    v.m_kind = kind;
    v.m_bytes = s;
    return v;
}

RedisValue RedisValue::status(const QByteArray &s)
{
    return typed(Kind::Status, s);
}
RedisValue RedisValue::error(const QByteArray &s)
{
    return typed(Kind::Error, s);
}
RedisValue RedisValue::bulk(const QByteArray &s)
{
    return typed(Kind::Bulk, s);
}

RedisValue RedisValue::array(QList<RedisValue> elements, Kind kind)
{
    RedisValue v;
    v.m_kind = kind;
    v.m_elements = std::move(elements);
    return v;
}

RedisValue RedisValue::number(double value, const QByteArray &text)
{
    RedisValue v = typed(Kind::Double, text);
    v.m_double = value;
    return v;
}

RedisValue RedisValue::boolean(bool value)
{
    RedisValue v;
    v.m_kind = Kind::Bool;
    v.m_integer = value ? 1 : 0;
    return v;
}

bool RedisValue::isString() const
{
    return m_kind == Kind::Bulk || m_kind == Kind::Status || m_kind == Kind::Verbatim;
}

bool RedisValue::isArray() const
{
    return m_kind == Kind::Array || m_kind == Kind::Set || m_kind == Kind::Map || m_kind == Kind::Push;
}

qint64 RedisValue::toInteger(bool *ok) const
{
    if (m_kind == Kind::Integer || m_kind == Kind::Bool) {
        if (ok)
            *ok = true;
        return m_integer;
    }
    if (isString() || m_kind == Kind::BigNumber)
        return m_bytes.toLongLong(ok);
    if (ok)
        *ok = false;
    return 0;
}

double RedisValue::toDouble(bool *ok) const
{
    if (m_kind == Kind::Double) {
        if (ok)
            *ok = true;
        return m_double;
    }
    if (m_kind == Kind::Integer) {
        if (ok)
            *ok = true;
        return double(m_integer);
    }
    if (isString()) {
        // Redis spells infinities "inf"/"-inf"; QByteArray::toDouble does not accept those.
        if (m_bytes == "inf" || m_bytes == "+inf") {
            if (ok)
                *ok = true;
            return std::numeric_limits<double>::infinity();
        }
        if (m_bytes == "-inf") {
            if (ok)
                *ok = true;
            return -std::numeric_limits<double>::infinity();
        }
        return m_bytes.toDouble(ok);
    }
    if (ok)
        *ok = false;
    return 0;
}

const RedisValue &RedisValue::at(qsizetype i) const
{
    static const RedisValue invalid;
    return (i >= 0 && i < m_elements.size()) ? m_elements.at(i) : invalid;
}

QByteArray RedisValue::errorCode() const
{
    if (m_kind != Kind::Error)
        return {};
    const qsizetype space = m_bytes.indexOf(' ');
    return space < 0 ? m_bytes : m_bytes.left(space);
}

QString RedisValue::toDisplayString(int maxLength) const
{
    switch (m_kind) {
    case Kind::Invalid: return QStringLiteral("(no reply)");
    case Kind::Nil: return QStringLiteral("(nil)");
    case Kind::Integer: return QStringLiteral("(integer) ") + QString::number(m_integer);
    case Kind::Bool: return m_integer ? QStringLiteral("(true)") : QStringLiteral("(false)");
    case Kind::Double: return QStringLiteral("(double) ") + QString::fromLatin1(m_bytes);
    case Kind::BigNumber: return QStringLiteral("(big number) ") + QString::fromLatin1(m_bytes);
    case Kind::Status: return QString::fromUtf8(m_bytes);
    case Kind::Error: return QStringLiteral("(error) ") + QString::fromUtf8(m_bytes);
    case Kind::Bulk:
    case Kind::Verbatim: return QLatin1Char('"') + bytesescape::escapeElided(m_bytes, maxLength) + QLatin1Char('"');
    case Kind::Array:
    case Kind::Set:
    case Kind::Map:
    case Kind::Push: {
        if (m_elements.isEmpty())
            return QStringLiteral("(empty %1)").arg(kindName(m_kind));
        QString out;
        for (qsizetype i = 0; i < m_elements.size(); ++i) {
            if (out.size() > maxLength) {
                out += QStringLiteral("… (%1 more)\n").arg(m_elements.size() - i);
                break;
            }
            out += QString::number(i + 1) + QStringLiteral(") ") + m_elements.at(i).toDisplayString(maxLength)
                + QLatin1Char('\n');
        }
        out.chop(1);
        return out;
    }
    }
    return {};
}

bool RedisValue::operator==(const RedisValue &o) const
{
    return m_kind == o.m_kind && m_integer == o.m_integer && m_bytes == o.m_bytes && m_elements == o.m_elements;
}

QString kindName(RedisValue::Kind kind)
{
    switch (kind) {
    case RedisValue::Kind::Invalid: return QStringLiteral("invalid");
    case RedisValue::Kind::Nil: return QStringLiteral("nil");
    case RedisValue::Kind::Integer: return QStringLiteral("integer");
    case RedisValue::Kind::Status: return QStringLiteral("status");
    case RedisValue::Kind::Error: return QStringLiteral("error");
    case RedisValue::Kind::Bulk: return QStringLiteral("bulk");
    case RedisValue::Kind::Array: return QStringLiteral("array");
    case RedisValue::Kind::Double: return QStringLiteral("double");
    case RedisValue::Kind::Bool: return QStringLiteral("boolean");
    case RedisValue::Kind::Map: return QStringLiteral("map");
    case RedisValue::Kind::Set: return QStringLiteral("set");
    case RedisValue::Kind::Verbatim: return QStringLiteral("verbatim");
    case RedisValue::Kind::BigNumber: return QStringLiteral("big number");
    case RedisValue::Kind::Push: return QStringLiteral("push");
    }
    return {};
}
