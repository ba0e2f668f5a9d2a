// SPDX-License-Identifier: GPL-3.0-or-later
// Serialization formats read into a Node tree: JSON and CBOR with Qt, MessagePack with
// msgpack-cxx. A structure must use its whole input; nesting and size are bounded by Limits.
#include "decoders_p.h"

#include "bytesescape.h"

#include <QCborArray>
#include <QCborMap>
#include <QCborStreamReader>
#include <QCborValue>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QTimeZone>
#include <QUrl>
#include <QUuid>

#define MSGPACK_NO_BOOST
#include <msgpack.hpp>

namespace decode::detail {

namespace {

Node scalar(Node::Kind kind, const QString &value, const QString &type = {})
{
    Node n;
    n.kind = kind;
    n.value = value;
    n.type = type;
    return n;
}

QString realText(double d)
{
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

// Text when it is UTF-8, else bytes shown escaped.
Node textOrBytes(const char *data, qsizetype size, const QString &type = {})
{
    const QByteArray bytes = QByteArray::fromRawData(data, size);
    if (bytesescape::isValidUtf8(bytes))
        return scalar(Node::Kind::Text, QString::fromUtf8(bytes), type);
    return scalar(Node::Kind::Bytes, bytesescape::escape(bytes, false), type);
}

// A map key as one line of text.
QString keyText(const Node &n)
{
    switch (n.kind) {
    case Node::Kind::List: return QStringLiteral("[%1 items]").arg(n.children.size());
    case Node::Kind::Map: return QStringLiteral("{%1 entries}").arg(n.children.size());
    case Node::Kind::Null: return QStringLiteral("null");
    default: return n.value;
    }
}

// Counts nodes and depth while a tree is built; past a limit the build stops with why.
struct Budget
{
    explicit Budget(const Limits &l) : limits(l) { }
    const Limits &limits;
    qsizetype nodes = 0;
    QString error;
    bool take(int depth)
    {
        if (!error.isEmpty())
            return false;
        if (depth > limits.maxDepth) {
            error = QStringLiteral("nested deeper than %1 levels").arg(limits.maxDepth);
            return false;
        }
        if (++nodes > limits.maxNodes) {
            error = QStringLiteral("more than %1 items").arg(limits.maxNodes);
            return false;
        }
        return true;
    }
};

// A list of the items of a JSON or CBOR array, each converted.
template <typename Array, typename Convert> Node listOf(const Array &items, Convert &&convert)
{
    Node n;
    n.kind = Node::Kind::List;
    for (const auto &item : items)
        n.children.append(convert(item));
    return n;
}

Node fromJson(const QJsonValue &v, Budget &budget, int depth)
{
    if (!budget.take(depth))
        return {};
    switch (v.type()) {
    case QJsonValue::Null: return scalar(Node::Kind::Null, QStringLiteral("null"));
    case QJsonValue::Bool:
        return scalar(Node::Kind::Bool, v.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    case QJsonValue::Double: {
        // Qt keeps a whole number that fits 64 bits as one: no rounding through a double.
        const QVariant exact = v.toVariant();
        if (exact.typeId() == QMetaType::LongLong)
            return scalar(Node::Kind::Integer, QString::number(exact.toLongLong()));
        return scalar(Node::Kind::Real, realText(v.toDouble()));
    }
    case QJsonValue::String: return scalar(Node::Kind::Text, v.toString());
    case QJsonValue::Array:
        return listOf(v.toArray(), [&](const QJsonValue &item) { return fromJson(item, budget, depth + 1); });
    case QJsonValue::Object: {
        Node n;
        n.kind = Node::Kind::Map;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            Node child = fromJson(it.value(), budget, depth + 1);
            child.key = it.key();
            n.children.append(std::move(child));
        }
        return n;
    }
    case QJsonValue::Undefined: break;
    }
    return {};
}

Node fromCbor(const QCborValue &v, Budget &budget, int depth)
{
    if (!budget.take(depth))
        return {};
    switch (v.type()) {
    case QCborValue::Integer: return scalar(Node::Kind::Integer, QString::number(v.toInteger()));
    case QCborValue::ByteArray: {
        const QByteArray b = v.toByteArray();
        return scalar(Node::Kind::Bytes, bytesescape::escape(b, false), QStringLiteral("bytes"));
    }
    case QCborValue::String: return scalar(Node::Kind::Text, v.toString());
    case QCborValue::Array:
        return listOf(v.toArray(), [&](const QCborValue &item) { return fromCbor(item, budget, depth + 1); });
    case QCborValue::Map: {
        Node n;
        n.kind = Node::Kind::Map;
        const QCborMap m = v.toMap();
        for (auto it = m.begin(); it != m.end(); ++it) {
            const Node key = fromCbor(it.key(), budget, depth + 1);
            Node child = fromCbor(it.value(), budget, depth + 1);
            child.key = keyText(key);
            n.children.append(std::move(child));
        }
        return n;
    }
    case QCborValue::False: return scalar(Node::Kind::Bool, QStringLiteral("false"));
    case QCborValue::True: return scalar(Node::Kind::Bool, QStringLiteral("true"));
    case QCborValue::Null: return scalar(Node::Kind::Null, QStringLiteral("null"));
    case QCborValue::Undefined:
        return scalar(Node::Kind::Null, QStringLiteral("undefined"), QStringLiteral("undefined"));
    case QCborValue::Double: return scalar(Node::Kind::Real, realText(v.toDouble()));
    case QCborValue::DateTime:
        return scalar(Node::Kind::Text, v.toDateTime().toString(Qt::ISODateWithMs), QStringLiteral("date-time"));
    case QCborValue::Url: return scalar(Node::Kind::Text, v.toUrl().toString(), QStringLiteral("URL"));
    case QCborValue::RegularExpression:
        return scalar(Node::Kind::Text, v.toRegularExpression().pattern(), QStringLiteral("regular expression"));
    case QCborValue::Uuid:
        return scalar(Node::Kind::Text, v.toUuid().toString(QUuid::WithoutBraces), QStringLiteral("UUID"));
    case QCborValue::Tag: {
        Node inner = fromCbor(v.taggedValue(), budget, depth + 1);
        inner.type = QStringLiteral("tag %1").arg(quint64(v.tag()));
        return inner;
    }
    default:
        if (v.isSimpleType())
            return scalar(Node::Kind::Integer, QString::number(int(v.toSimpleType())), QStringLiteral("simple"));
        break;
    }
    return scalar(Node::Kind::Null, QStringLiteral("?"), QStringLiteral("invalid"));
}

Node fromMsgpack(const msgpack::object &o, Budget &budget, int depth)
{
    if (!budget.take(depth))
        return {};
    switch (o.type) {
    case msgpack::type::NIL: return scalar(Node::Kind::Null, QStringLiteral("nil"));
    case msgpack::type::BOOLEAN:
        return scalar(Node::Kind::Bool, o.via.boolean ? QStringLiteral("true") : QStringLiteral("false"));
    case msgpack::type::POSITIVE_INTEGER: return scalar(Node::Kind::Integer, QString::number(o.via.u64));
    case msgpack::type::NEGATIVE_INTEGER: return scalar(Node::Kind::Integer, QString::number(o.via.i64));
    case msgpack::type::FLOAT32: return scalar(Node::Kind::Real, realText(o.via.f64), QStringLiteral("float32"));
    case msgpack::type::FLOAT64: return scalar(Node::Kind::Real, realText(o.via.f64));
    case msgpack::type::STR: return textOrBytes(o.via.str.ptr, qsizetype(o.via.str.size));
    case msgpack::type::BIN:
        return scalar(Node::Kind::Bytes,
                      bytesescape::escape(QByteArray::fromRawData(o.via.bin.ptr, qsizetype(o.via.bin.size)), false),
                      QStringLiteral("bin"));
    case msgpack::type::ARRAY: {
        Node n;
        n.kind = Node::Kind::List;
        for (uint32_t i = 0; i < o.via.array.size; ++i)
            n.children.append(fromMsgpack(o.via.array.ptr[i], budget, depth + 1));
        return n;
    }
    case msgpack::type::MAP: {
        Node n;
        n.kind = Node::Kind::Map;
        for (uint32_t i = 0; i < o.via.map.size; ++i) {
            const msgpack::object_kv &kv = o.via.map.ptr[i];
            const Node key = fromMsgpack(kv.key, budget, depth + 1);
            Node child = fromMsgpack(kv.val, budget, depth + 1);
            child.key = keyText(key);
            n.children.append(std::move(child));
        }
        return n;
    }
    case msgpack::type::EXT: {
        // Extension types are the writer's own (-1 is the timestamp of the spec).
        Node n
            = scalar(Node::Kind::Bytes,
                     bytesescape::escape(QByteArray::fromRawData(o.via.ext.data(), qsizetype(o.via.ext.size)), false),
                     QStringLiteral("ext %1").arg(int(o.via.ext.type())));
        if (o.via.ext.type() == -1) {
            // The timestamp extension: 4, 8 or 12 bytes, big-endian.
            const auto *p = reinterpret_cast<const unsigned char *>(o.via.ext.data());
            const auto be = [p](int from, int count) {
                quint64 v = 0;
                for (int i = 0; i < count; ++i)
                    v = v << 8 | p[from + i];
                return v;
            };
            qint64 seconds = -1;
            quint32 nanos = 0;
            if (o.via.ext.size == 4) {
                seconds = qint64(be(0, 4));
            } else if (o.via.ext.size == 8) {
                const quint64 v = be(0, 8);
                nanos = quint32(v >> 34);
                seconds = qint64(v & 0x3ffffffffULL);
            } else if (o.via.ext.size == 12) {
                nanos = quint32(be(0, 4));
                seconds = qint64(be(4, 8));
            }
            // Up to the year 9999; past it (or garbage) the bytes stay as they are, and the
            // milliseconds below cannot overflow.
            constexpr qint64 kLastSecond = 253402300799;
            if (seconds >= 0 && seconds <= kLastSecond) {
                n.kind = Node::Kind::Text;
                n.type = QStringLiteral("timestamp");
                n.value = QDateTime::fromMSecsSinceEpoch(seconds * 1000 + nanos / 1000000, QTimeZone::utc())
                              .toString(Qt::ISODateWithMs);
            }
        }
        return n;
    }
    }
    return scalar(Node::Kind::Null, QStringLiteral("?"), QStringLiteral("invalid"));
}

StepOutput treeOrBudgetError(Node tree, const Budget &budget, qsizetype consumed)
{
    if (!budget.error.isEmpty())
        return fail(budget.error, 0);
    StepOutput out;
    out.tree = std::move(tree);
    out.consumed = consumed;
    return out;
}

} // namespace

StepOutput json(const QByteArray &input, const Limits &limits)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(input, &error);
    if (error.error != QJsonParseError::NoError)
        return fail(error.errorString(), error.offset);
    Budget budget(limits);
    Node tree = fromJson(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()), budget, 0);
    return treeOrBudgetError(std::move(tree), budget, input.size());
}

StepOutput cbor(const QByteArray &input, const Limits &limits)
{
    QCborStreamReader reader(input);
    const QCborValue value = QCborValue::fromCbor(reader);
    if (const QCborError e = reader.lastError(); e.c != QCborError::NoError)
        return fail(e.toString(), qsizetype(reader.currentOffset()));
    const qsizetype used = qsizetype(reader.currentOffset());
    if (used < input.size())
        return fail(QStringLiteral("%1 bytes after the value").arg(input.size() - used), used);
    Budget budget(limits);
    Node tree = fromCbor(value, budget, 0);
    return treeOrBudgetError(std::move(tree), budget, used);
}

StepOutput msgpack(const QByteArray &input, const Limits &limits)
{
    const auto items = std::size_t(std::min<qsizetype>(limits.maxNodes, 0xffffffff));
    const auto bytes = std::size_t(std::min<qsizetype>(limits.maxOutput, 0xffffffff));
    const msgpack::unpack_limit bounds(items, items, bytes, bytes, bytes, std::size_t(limits.maxDepth));
    std::size_t offset = 0;
    msgpack::object_handle handle;
    try {
        handle = msgpack::unpack(input.constData(), std::size_t(input.size()), offset, nullptr, nullptr, bounds);
    } catch (const msgpack::insufficient_bytes &) {
        return fail(QStringLiteral("the value ends early (truncated)"), input.size());
    } catch (const msgpack::size_overflow &) {
        return fail(QStringLiteral("larger or deeper than the decoding limits"), qsizetype(offset));
    } catch (const std::exception &e) {
        return fail(QStringLiteral("not MessagePack: %1").arg(QString::fromLatin1(e.what())), qsizetype(offset));
    }
    if (qsizetype(offset) < input.size())
        return fail(QStringLiteral("%1 bytes after the value").arg(input.size() - qsizetype(offset)),
                    qsizetype(offset));
    Budget budget(limits);
    Node tree = fromMsgpack(handle.get(), budget, 0);
    return treeOrBudgetError(std::move(tree), budget, qsizetype(offset));
}

} // namespace decode::detail
