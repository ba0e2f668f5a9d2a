// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

// One reply from the server. Kinds stay apart: a nil is not an empty string, a status is not a
// bulk, an error keeps its prefix. RESP3 kinds appear only where hiredis parses them (>= 1.0).
class RedisValue
{
public:
    enum class Kind : quint8 {
        Invalid, // no reply (the request failed before one arrived)
        Nil,
        Integer,
        Status,
        Error,
        Bulk,
        Array,
        Double, // RESP3
        Bool, // RESP3
        Map, // RESP3: elements are key, value, key, value, ...
        Set, // RESP3
        Verbatim, // RESP3
        BigNumber, // RESP3
        Push, // RESP3
    };

    RedisValue() = default;
    static RedisValue nil();
    static RedisValue integer(qint64 v);
    static RedisValue status(const QByteArray &s);
    static RedisValue error(const QByteArray &s);
    static RedisValue bulk(const QByteArray &s);
    static RedisValue array(QList<RedisValue> elements, Kind kind = Kind::Array);
    static RedisValue number(double v, const QByteArray &text);
    static RedisValue boolean(bool v);
    static RedisValue typed(Kind kind, const QByteArray &s);

    Kind kind() const { return m_kind; }
    bool isValid() const { return m_kind != Kind::Invalid; }
    bool isNil() const { return m_kind == Kind::Nil; }
    bool isError() const { return m_kind == Kind::Error; }
    bool isInteger() const { return m_kind == Kind::Integer; }
    bool isString() const; // bulk, status or verbatim
    bool isArray() const; // array, set, map or push

    // Bytes of a bulk/status/error/verbatim/bignumber/double reply, or empty.
    const QByteArray &bytes() const { return m_bytes; }
    // Integer replies; also parses a bulk holding a decimal integer. 'ok' tells which.
    qint64 toInteger(bool *ok = nullptr) const;
    double toDouble(bool *ok = nullptr) const;
    const QList<RedisValue> &elements() const { return m_elements; }
    qsizetype size() const { return m_elements.size(); }
    const RedisValue &at(qsizetype i) const;

    // For errors: the first word ("NOPERM", "MOVED", "ERR"...).
    QByteArray errorCode() const;

    // redis-cli style rendering, for display and logs only.
    QString toDisplayString(int maxLength = 4096) const;

    bool operator==(const RedisValue &o) const;
    bool operator!=(const RedisValue &o) const { return !(*this == o); }

private:
    friend struct RespBuilder; // the parser fills arrays in place

    QByteArray m_bytes;
    QList<RedisValue> m_elements;
    qint64 m_integer = 0;
    double m_double = 0;
    Kind m_kind = Kind::Invalid;
};

Q_DECLARE_METATYPE(RedisValue)

QString kindName(RedisValue::Kind kind);
