// SPDX-License-Identifier: GPL-3.0-or-later
// java.io.ObjectOutputStream's stream (the Java Object Serialization Specification, chapter 6),
// what Spring's JdkSerializationRedisSerializer stores, read as data: a class description is a
// name and a list of fields, an object is the values of those fields, and nothing is loaded,
// instantiated or run. An object becomes a map typed with its class name whose entries are its
// fields, its superclasses' first. What a class's writeObject wrote after its fields (objects and
// block data) is kept under "writeObject()" ("Super.writeObject()" for a superclass), block
// data as bytes.
//
// The JDK's own classes are shown as what they hold, from the layout their writeObject is known
// to write: boxed primitives as the scalar, lists and sets (ArrayList, LinkedList, HashSet, …)
// as lists of their elements, maps (HashMap, TreeMap, Hashtable, …) as maps of their entries,
// Date as an ISO time, UUID, BigInteger and BigDecimal as their text, enums as the constant's
// name typed "enum Class". A class of the same name written with another layout stays an object.
// Back-references are followed by handle; a container inside itself is named "<itself>" rather
// than followed, and a shared one is shown wherever it is used.
#include "decoders_p.h"
#include "valuegraph.h"

#include "bytesescape.h"

#include <QDateTime>
#include <QLocale>
#include <QSet>
#include <QTimeZone>
#include <QtEndian>
#include <array>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace decode::detail {

namespace {

enum TypeCode : quint8 {
    TcNull = 0x70,
    TcReference = 0x71,
    TcClassDesc = 0x72,
    TcObject = 0x73,
    TcString = 0x74,
    TcArray = 0x75,
    TcClass = 0x76,
    TcBlockData = 0x77,
    TcEndBlockData = 0x78,
    TcReset = 0x79,
    TcBlockDataLong = 0x7a,
    TcException = 0x7b,
    TcLongString = 0x7c,
    TcProxyClassDesc = 0x7d,
    TcEnum = 0x7e,
};

constexpr qint64 kBaseHandle = 0x7e0000;
constexpr quint8 kScWriteMethod = 0x01;
constexpr quint8 kScSerializable = 0x02;
constexpr quint8 kScExternalizable = 0x04;
constexpr quint8 kScBlockData = 0x08;

struct Field
{
    QString name;
    char code = 'I';
};

struct ClassDesc
{
    QString name;
    std::vector<Field> fields;
    int super = -1; // index into the descriptions
    quint8 flags = 0;
};

// One value read. Containers refer to others by index, so an object a later handle refers to
// is the same object wherever it is used, even one still being read (a cycle).
struct Value
{
    QString type;
    QString value;
    QByteArray raw; // block data: its bytes, for the classes whose writeObject layout is known
    std::vector<int> items; // List: items; Map: the values of 'keys'
    QStringList keys; // Map: the entries' keys
    Node::Kind kind = Node::Kind::Null;
    bool block = false; // block data in a writeObject annotation

    bool isContainer() const { return kind == Node::Kind::List || kind == Node::Kind::Map; }
};

// What one class of an object's hierarchy wrote: its fields, then its writeObject annotation.
struct ClassData
{
    std::vector<int> fields; // value indices, in the order of the description's fields
    std::vector<int> annotation;
    int desc = -1;
    bool annotated = false;
};

struct Handle
{
    int index = -1;
    bool desc = false;
};

QString number(double d)
{
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

// A float as a float's shortest text ("0.1", not the double 0.10000000149011612).
QString number(float f)
{
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), f);
    return QString::fromLatin1(buf.data(), r.ptr - buf.data());
}

// "[I" → "int[]", "[Ljava.lang.String;" → "java.lang.String[]".
QString arrayTypeName(const QString &descriptor)
{
    int dims = 0;
    while (dims < descriptor.size() && descriptor.at(dims) == QLatin1Char('['))
        ++dims;
    QString element;
    const QStringView rest = QStringView(descriptor).mid(dims);
    if (rest.startsWith(QLatin1Char('L')) && rest.endsWith(QLatin1Char(';')))
        element = rest.mid(1, rest.size() - 2).toString();
    else if (rest.size() == 1) {
        switch (rest.at(0).unicode()) {
        case 'B': element = QStringLiteral("byte"); break;
        case 'C': element = QStringLiteral("char"); break;
        case 'D': element = QStringLiteral("double"); break;
        case 'F': element = QStringLiteral("float"); break;
        case 'I': element = QStringLiteral("int"); break;
        case 'J': element = QStringLiteral("long"); break;
        case 'S': element = QStringLiteral("short"); break;
        case 'Z': element = QStringLiteral("boolean"); break;
        default: break;
        }
    }
    if (element.isEmpty())
        return descriptor;
    for (int i = 0; i < dims; ++i)
        element += QStringLiteral("[]");
    return element;
}

// A magnitude (big-endian) in decimal, for the sizes a person reads; wider ones in hex.
QString unsignedDecimal(const QByteArray &magnitude)
{
    constexpr qsizetype kMaxDecimalBytes = 128;
    if (magnitude.size() > kMaxDecimalBytes)
        return QStringLiteral("0x") + QString::fromLatin1(magnitude.toHex());
    std::vector<quint32> digits(size_t(magnitude.size()));
    for (qsizetype i = 0; i < magnitude.size(); ++i)
        digits[size_t(i)] = quint8(magnitude.at(i));
    QString out;
    // Repeated division by 10 of the base-256 digits.
    bool nonZero = true;
    while (nonZero) {
        nonZero = false;
        quint32 rest = 0;
        for (quint32 &d : digits) {
            const quint32 cur = rest * 256 + d;
            d = cur / 10;
            rest = cur % 10;
            nonZero = nonZero || d != 0;
        }
        out.prepend(QChar(char16_t(u'0' + rest)));
    }
    while (out.size() > 1 && out.at(0) == QLatin1Char('0'))
        out.remove(0, 1);
    return out;
}

bool isOneOf(const QString &name, std::initializer_list<const char *> names)
{
    for (const char *n : names)
        if (name == QLatin1String(n))
            return true;
    return false;
}

class Reader : public ValueGraph
{
public:
    Reader(const QByteArray &input, const Limits &limits) : m_in(input), m_limits(limits) { }

    StepOutput run();

    // The values as a graph (valuegraph.h): a map's items are its values, its keys their text.
    int valueCount() const override { return int(m_values.size()); }
    Node shell(int index) const override
    {
        const Value &v = m_values[size_t(index)];
        Node n;
        n.kind = v.kind;
        n.type = v.type;
        n.value = v.value;
        return n;
    }
    int childCount(int index) const override { return int(m_values[size_t(index)].items.size()); }
    int child(int index, int k) const override { return m_values[size_t(index)].items[size_t(k)]; }
    QString childKey(int index, int k) const override { return m_values[size_t(index)].keys.value(k); }

private:
    bool failAt(const QString &why, qsizetype at)
    {
        if (m_error.isEmpty()) {
            m_error = why;
            m_errorAt = at;
        }
        return false;
    }
    bool need(qint64 n)
    {
        if (n < 0 || m_in.size() - m_pos < n)
            return failAt(QStringLiteral("the stream ends early (truncated)"), m_pos);
        return true;
    }
    quint64 unsignedBe(int n)
    {
        quint64 v = 0;
        for (int i = 0; i < n; ++i)
            v = v << 8 | quint8(m_in.at(m_pos + i));
        m_pos += n;
        return v;
    }
    std::optional<QString> modifiedUtf8(qint64 length);
    std::optional<QString> utf() // a u2 length, then modified UTF-8
    {
        if (!need(2))
            return std::nullopt;
        return modifiedUtf8(qint64(unsignedBe(2)));
    }
    int add(Value v)
    {
        if (qsizetype(m_values.size() + m_descs.size()) >= m_limits.maxNodes) {
            failAt(QStringLiteral("more than %1 values").arg(m_limits.maxNodes), m_pos);
            return -1;
        }
        m_values.push_back(std::move(v));
        return int(m_values.size()) - 1;
    }
    int scalar(Node::Kind kind, const QString &value, const QString &type = {})
    {
        Value v;
        v.kind = kind;
        v.value = value;
        v.type = type;
        return add(std::move(v));
    }
    void assign(int index, bool desc) { m_handles.push_back(Handle{index, desc}); }

    bool content(int depth, bool blockAllowed, int *out);
    bool classDesc(int depth, int *out);
    bool classDescBody(quint8 code, int depth, int *out);
    bool object(int depth, int *out);
    bool array(int depth, int *out);
    bool string(quint8 code, int *out);
    bool annotation(int depth, std::vector<int> *items);
    bool fieldValue(char code, int depth, int *out);
    void interpret(int index, const QString &className, const std::vector<ClassData> &data);
    QString keyText(int index) const;

    const QByteArray &m_in;
    const Limits &m_limits;
    qsizetype m_pos = 0;
    std::vector<Value> m_values;
    std::vector<ClassDesc> m_descs;
    std::vector<Handle> m_handles;
    QString m_error;
    qsizetype m_errorAt = 0;
};

// Java's modified UTF-8: NUL as C0 80, a supplementary character as its two surrogates of
// three bytes each; no four-byte sequences.
std::optional<QString> Reader::modifiedUtf8(qint64 length)
{
    if (!need(length))
        return std::nullopt;
    const auto *b = reinterpret_cast<const quint8 *>(m_in.constData() + m_pos);
    QString out;
    out.reserve(qsizetype(length));
    for (qint64 i = 0; i < length;) {
        const quint8 c = b[i];
        char16_t ch = 0;
        if (c < 0x80) {
            ch = c;
            i += 1;
        } else if ((c & 0xe0) == 0xc0 && i + 1 < length && (b[i + 1] & 0xc0) == 0x80) {
            ch = char16_t((c & 0x1f) << 6 | (b[i + 1] & 0x3f));
            i += 2;
        } else if ((c & 0xf0) == 0xe0 && i + 2 < length && (b[i + 1] & 0xc0) == 0x80 && (b[i + 2] & 0xc0) == 0x80) {
            ch = char16_t((c & 0x0f) << 12 | (b[i + 1] & 0x3f) << 6 | (b[i + 2] & 0x3f));
            i += 3;
        } else {
            failAt(QStringLiteral("a string that is not modified UTF-8"), m_pos + qsizetype(i));
            return std::nullopt;
        }
        out.append(QChar(ch));
    }
    m_pos += qsizetype(length);
    return out;
}

bool Reader::string(quint8 code, int *out)
{
    const qsizetype at = m_pos - 1;
    qint64 length = 0;
    if (code == TcString) {
        if (!need(2))
            return false;
        length = qint64(unsignedBe(2));
    } else {
        if (!need(8))
            return false;
        length = qint64(unsignedBe(8));
        if (length < 0 || length > m_in.size() - m_pos)
            return failAt(QStringLiteral("a string of %1 bytes, longer than the stream").arg(length), at);
    }
    const int index = add(Value{});
    if (index < 0)
        return false;
    assign(index, false);
    const std::optional<QString> text = modifiedUtf8(length);
    if (!text)
        return false;
    m_values[size_t(index)].kind = Node::Kind::Text;
    m_values[size_t(index)].value = *text;
    *out = index;
    return true;
}

bool Reader::classDesc(int depth, int *out)
{
    if (!need(1))
        return false;
    const qsizetype at = m_pos;
    const auto code = quint8(m_in.at(m_pos++));
    switch (code) {
    case TcNull: *out = -1; return true;
    case TcReference: {
        if (!need(4))
            return false;
        const qint64 handle = qint64(unsignedBe(4)) - kBaseHandle;
        if (handle < 0 || handle >= qint64(m_handles.size()) || !m_handles[size_t(handle)].desc)
            return failAt(QStringLiteral("a reference to handle 0x%1 that is not a class description")
                              .arg(handle + kBaseHandle, 0, 16),
                          at);
        *out = m_handles[size_t(handle)].index;
        return true;
    }
    case TcClassDesc:
    case TcProxyClassDesc: return classDescBody(code, depth, out);
    default: break;
    }
    return failAt(
        QStringLiteral("type code 0x%1 where a class description was expected").arg(code, 2, 16, QLatin1Char('0')), at);
}

bool Reader::classDescBody(quint8 code, int depth, int *out)
{
    if (depth > m_limits.maxDepth)
        return failAt(QStringLiteral("nested deeper than %1").arg(m_limits.maxDepth), m_pos - 1);
    if (qsizetype(m_values.size() + m_descs.size()) >= m_limits.maxNodes)
        return failAt(QStringLiteral("more than %1 values").arg(m_limits.maxNodes), m_pos);
    ClassDesc desc;
    const int index = int(m_descs.size());
    if (code == TcClassDesc) {
        const std::optional<QString> name = utf();
        if (!name || !need(8 + 1 + 2))
            return false;
        desc.name = *name;
        m_pos += 8; // serialVersionUID
        m_descs.push_back(desc);
        assign(index, true);
        desc.flags = quint8(m_in.at(m_pos++));
        const int count = int(unsignedBe(2));
        for (int i = 0; i < count; ++i) {
            if (!need(1))
                return false;
            const qsizetype fieldAt = m_pos;
            const char fieldCode = m_in.at(m_pos++);
            if (std::string_view("BCDFIJSZL[").find(fieldCode) == std::string_view::npos)
                return failAt(QStringLiteral("unknown field type '%1'").arg(QChar::fromLatin1(fieldCode)), fieldAt);
            const std::optional<QString> fieldName = utf();
            if (!fieldName)
                return false;
            if (fieldCode == 'L' || fieldCode == '[') {
                const qsizetype typeAt = m_pos;
                int type = -1;
                if (!content(depth + 1, false, &type))
                    return false;
                if (type < 0 || m_values[size_t(type)].kind != Node::Kind::Text)
                    return failAt(QStringLiteral("a field's type that is not a string"), typeAt);
            }
            desc.fields.push_back(Field{*fieldName, fieldCode});
        }
    } else {
        m_descs.push_back(desc);
        assign(index, true);
        if (!need(4))
            return false;
        const qint64 count = qint32(unsignedBe(4));
        if (count < 0 || count > (m_in.size() - m_pos) / 2)
            return failAt(QStringLiteral("a proxy with %1 interfaces").arg(count), m_pos - 4);
        QStringList interfaces;
        for (qint64 i = 0; i < count; ++i) {
            const std::optional<QString> name = utf();
            if (!name)
                return false;
            interfaces << *name;
        }
        desc.name = QStringLiteral("proxy(%1)").arg(interfaces.join(QStringLiteral(", ")));
        desc.flags = kScSerializable;
    }
    std::vector<int> ignored; // the class annotation: what annotateClass wrote (usually nothing)
    if (!annotation(depth + 1, &ignored))
        return false;
    int super = -1;
    if (!classDesc(depth + 1, &super))
        return false;
    desc.super = super;
    m_descs[size_t(index)] = std::move(desc);
    *out = index;
    return true;
}

bool Reader::annotation(int depth, std::vector<int> *items)
{
    for (;;) {
        if (!need(1))
            return false;
        if (quint8(m_in.at(m_pos)) == TcEndBlockData) {
            ++m_pos;
            return true;
        }
        int item = -1;
        if (!content(depth, true, &item))
            return false;
        // Block data comes in chunks of up to 1 KiB: one run of it is one value.
        if (!items->empty() && item >= 0 && m_values[size_t(item)].block && m_values[size_t(items->back())].block) {
            Value &last = m_values[size_t(items->back())];
            last.raw += m_values[size_t(item)].raw;
            last.value = bytesescape::escape(last.raw, false);
            continue;
        }
        items->push_back(item);
    }
}

bool Reader::fieldValue(char code, int depth, int *out)
{
    switch (code) {
    case 'B':
        if (!need(1))
            return false;
        *out = scalar(Node::Kind::Integer, QString::number(qint8(unsignedBe(1))), QStringLiteral("byte"));
        break;
    case 'C':
        if (!need(2))
            return false;
        *out = scalar(Node::Kind::Text, QString(QChar(char16_t(unsignedBe(2)))), QStringLiteral("char"));
        break;
    case 'D': {
        if (!need(8))
            return false;
        const double d = qFromBigEndian<double>(m_in.constData() + m_pos);
        m_pos += 8;
        *out = scalar(Node::Kind::Real, number(d));
        break;
    }
    case 'F': {
        if (!need(4))
            return false;
        const float f = qFromBigEndian<float>(m_in.constData() + m_pos);
        m_pos += 4;
        *out = scalar(Node::Kind::Real, number(f), QStringLiteral("float"));
        break;
    }
    case 'I':
        if (!need(4))
            return false;
        *out = scalar(Node::Kind::Integer, QString::number(qint32(unsignedBe(4))));
        break;
    case 'J':
        if (!need(8))
            return false;
        *out = scalar(Node::Kind::Integer, QString::number(qint64(unsignedBe(8))), QStringLiteral("long"));
        break;
    case 'S':
        if (!need(2))
            return false;
        *out = scalar(Node::Kind::Integer, QString::number(qint16(unsignedBe(2))), QStringLiteral("short"));
        break;
    case 'Z':
        if (!need(1))
            return false;
        *out = scalar(Node::Kind::Bool, unsignedBe(1) != 0 ? QStringLiteral("true") : QStringLiteral("false"));
        break;
    default: return content(depth + 1, false, out);
    }
    return *out >= 0;
}

bool Reader::object(int depth, int *out)
{
    const qsizetype at = m_pos - 1;
    int descIndex = -1;
    if (!classDesc(depth + 1, &descIndex))
        return false;
    if (descIndex < 0)
        return failAt(QStringLiteral("an object without a class description"), at);
    Value shell;
    shell.kind = Node::Kind::Map;
    shell.type = m_descs[size_t(descIndex)].name;
    const int index = add(std::move(shell));
    if (index < 0)
        return false;
    assign(index, false);
    // The hierarchy, topmost superclass first; a description that is its own superclass ends it.
    std::vector<int> chain;
    QSet<int> seen;
    for (int d = descIndex; d >= 0 && !seen.contains(d); d = m_descs[size_t(d)].super) {
        if (int(chain.size()) > m_limits.maxDepth)
            return failAt(QStringLiteral("a class with more than %1 superclasses").arg(m_limits.maxDepth), at);
        seen.insert(d);
        chain.insert(chain.begin(), d);
    }
    std::vector<ClassData> data;
    const quint8 ownFlags = m_descs[size_t(descIndex)].flags;
    if (ownFlags & kScExternalizable) {
        // writeExternal's data: readable only when written in block data (protocol 2).
        if (!(ownFlags & kScBlockData))
            return failAt(QStringLiteral("externalizable data of stream protocol 1, unreadable without its class"), at);
        ClassData c;
        c.desc = descIndex;
        c.annotated = true;
        if (!annotation(depth + 1, &c.annotation))
            return false;
        data.push_back(std::move(c));
    } else {
        for (const int d : chain) {
            ClassData c;
            c.desc = d;
            const quint8 flags = m_descs[size_t(d)].flags;
            if (!(flags & kScSerializable)) {
                data.push_back(std::move(c));
                continue;
            }
            // Primitive values first, then objects: the order ObjectOutputStream writes them.
            const std::vector<Field> fields = m_descs[size_t(d)].fields;
            c.fields.assign(fields.size(), -1);
            for (const bool primitive : {true, false})
                for (size_t i = 0; i < fields.size(); ++i) {
                    const bool isPrimitive = fields[i].code != 'L' && fields[i].code != '[';
                    if (isPrimitive == primitive && !fieldValue(fields[i].code, depth, &c.fields[i]))
                        return false;
                }
            if (flags & kScWriteMethod) {
                c.annotated = true;
                if (!annotation(depth + 1, &c.annotation))
                    return false;
            }
            data.push_back(std::move(c));
        }
    }
    Value &v = m_values[size_t(index)];
    for (const ClassData &c : data) {
        const ClassDesc &desc = m_descs[size_t(c.desc)];
        for (size_t i = 0; i < c.fields.size(); ++i) {
            v.keys << desc.fields[i].name;
            v.items.push_back(c.fields[i]);
        }
    }
    for (const ClassData &c : data) {
        if (!c.annotated)
            continue;
        Value list;
        list.kind = Node::Kind::List;
        list.items = c.annotation;
        const int a = add(std::move(list));
        if (a < 0)
            return false;
        const QString &name = m_descs[size_t(c.desc)].name;
        Value &o = m_values[size_t(index)];
        o.keys << (c.desc == descIndex
                       ? QStringLiteral("writeObject()")
                       : name.mid(name.lastIndexOf(QLatin1Char('.')) + 1) + QStringLiteral(".writeObject()"));
        o.items.push_back(a);
    }
    interpret(index, m_descs[size_t(descIndex)].name, data);
    *out = index;
    return true;
}

bool Reader::array(int depth, int *out)
{
    const qsizetype at = m_pos - 1;
    int descIndex = -1;
    if (!classDesc(depth + 1, &descIndex))
        return false;
    if (descIndex < 0)
        return failAt(QStringLiteral("an array without a class description"), at);
    const QString name = m_descs[size_t(descIndex)].name;
    if (name.size() < 2 || name.at(0) != QLatin1Char('['))
        return failAt(QStringLiteral("an array of class %1, which is not an array class").arg(name), at);
    Value shell;
    shell.kind = Node::Kind::List;
    shell.type = arrayTypeName(name);
    const int index = add(std::move(shell));
    if (index < 0)
        return false;
    assign(index, false);
    if (!need(4))
        return false;
    const qint64 size = qint32(unsignedBe(4));
    const char code = char(name.at(1).unicode());
    const int width = code == 'B' || code == 'Z' ? 1
        : code == 'C' || code == 'S'             ? 2
        : code == 'I' || code == 'F'             ? 4
        : code == 'J' || code == 'D'             ? 8
        : code == 'L' || code == '['             ? 1 // at least a type code each
                                                 : 0;
    if (width == 0)
        return failAt(QStringLiteral("an array of unknown element type '%1'").arg(name.at(1)), at);
    if (size < 0 || size > (m_in.size() - m_pos) / width)
        return failAt(QStringLiteral("an array of %1 elements, longer than the stream").arg(size), m_pos - 4);
    if (code == 'B') {
        Value &v = m_values[size_t(index)];
        v.kind = Node::Kind::Bytes;
        v.raw = m_in.mid(m_pos, qsizetype(size));
        v.value = bytesescape::escape(v.raw, false);
        m_pos += qsizetype(size);
    } else if (code == 'C') {
        QString text;
        for (qint64 i = 0; i < size; ++i)
            text.append(QChar(char16_t(unsignedBe(2))));
        Value &v = m_values[size_t(index)];
        v.kind = Node::Kind::Text;
        v.value = text;
    } else {
        std::vector<int> items;
        for (qint64 i = 0; i < size; ++i) {
            int item = -1;
            if (!fieldValue(code, depth, &item))
                return false;
            items.push_back(item);
        }
        m_values[size_t(index)].items = std::move(items);
    }
    *out = index;
    return true;
}

bool Reader::content(int depth, bool blockAllowed, int *out)
{
    if (depth > m_limits.maxDepth)
        return failAt(QStringLiteral("nested deeper than %1").arg(m_limits.maxDepth), m_pos);
    for (;;) {
        if (!need(1))
            return false;
        const qsizetype at = m_pos;
        const auto code = quint8(m_in.at(m_pos++));
        switch (code) {
        case TcNull: *out = scalar(Node::Kind::Null, QStringLiteral("null")); return *out >= 0;
        case TcReference: {
            if (!need(4))
                return false;
            const qint64 handle = qint64(unsignedBe(4)) - kBaseHandle;
            if (handle < 0 || handle >= qint64(m_handles.size()))
                return failAt(
                    QStringLiteral("a reference to handle 0x%1, never assigned").arg(handle + kBaseHandle, 0, 16), at);
            const Handle h = m_handles[size_t(handle)];
            *out = h.desc ? scalar(Node::Kind::Text, m_descs[size_t(h.index)].name, QStringLiteral("class description"))
                          : h.index;
            return *out >= 0;
        }
        case TcClassDesc:
        case TcProxyClassDesc: {
            int desc = -1;
            if (!classDescBody(code, depth + 1, &desc))
                return false;
            *out = scalar(Node::Kind::Text, m_descs[size_t(desc)].name, QStringLiteral("class description"));
            return *out >= 0;
        }
        case TcObject: return object(depth, out);
        case TcString:
        case TcLongString: return string(code, out);
        case TcArray: return array(depth, out);
        case TcClass: {
            int desc = -1;
            if (!classDesc(depth + 1, &desc))
                return false;
            if (desc < 0)
                return failAt(QStringLiteral("a class without a class description"), at);
            *out = scalar(Node::Kind::Text, m_descs[size_t(desc)].name, QStringLiteral("class"));
            if (*out < 0)
                return false;
            assign(*out, false);
            return true;
        }
        case TcEnum: {
            int desc = -1;
            if (!classDesc(depth + 1, &desc))
                return false;
            if (desc < 0)
                return failAt(QStringLiteral("an enum constant without a class description"), at);
            const int index = add(Value{});
            if (index < 0)
                return false;
            assign(index, false);
            int name = -1;
            if (!content(depth + 1, false, &name))
                return false;
            if (name < 0 || m_values[size_t(name)].kind != Node::Kind::Text)
                return failAt(QStringLiteral("an enum constant whose name is not a string"), at);
            Value &v = m_values[size_t(index)];
            v.kind = Node::Kind::Text;
            v.value = m_values[size_t(name)].value;
            // An enum with constant-specific bodies is written as its anonymous subclass "E$1".
            const int super = m_descs[size_t(desc)].super;
            const QString &cls = super >= 0 && m_descs[size_t(super)].name != QLatin1String("java.lang.Enum")
                ? m_descs[size_t(super)].name
                : m_descs[size_t(desc)].name;
            v.type = QStringLiteral("enum ") + cls;
            *out = index;
            return true;
        }
        case TcBlockData:
        case TcBlockDataLong: {
            if (!blockAllowed)
                return failAt(QStringLiteral("block data where a field's value was expected"), at);
            const int width = code == TcBlockData ? 1 : 4;
            if (!need(width))
                return false;
            const qint64 size = width == 1 ? qint64(unsignedBe(1)) : qint64(qint32(unsignedBe(4)));
            if (size < 0 || !need(size))
                return size < 0 ? failAt(QStringLiteral("block data of %1 bytes").arg(size), at) : false;
            Value v;
            v.kind = Node::Kind::Bytes;
            v.block = true;
            v.raw = m_in.mid(m_pos, qsizetype(size));
            v.value = bytesescape::escape(v.raw, false);
            m_pos += qsizetype(size);
            *out = add(std::move(v));
            return *out >= 0;
        }
        case TcReset: m_handles.clear(); continue;
        case TcException: {
            m_handles.clear();
            int thrown = -1;
            if (!content(depth + 1, false, &thrown))
                return false;
            m_handles.clear();
            Value v;
            v.kind = Node::Kind::Map;
            v.type = QStringLiteral("exception while writing");
            v.keys << QStringLiteral("thrown");
            v.items.push_back(thrown);
            *out = add(std::move(v));
            return *out >= 0;
        }
        case TcEndBlockData: return failAt(QStringLiteral("an end of block data outside of an object's data"), at);
        default: break;
        }
        return failAt(QStringLiteral("unknown type code 0x%1").arg(code, 2, 16, QLatin1Char('0')), at);
    }
}

// The JDK's classes as what they hold, from the data their writeObject is known to write.
void Reader::interpret(int index, const QString &className, const std::vector<ClassData> &data)
{
    const auto field = [&](const char *name) -> int {
        for (auto c = data.rbegin(); c != data.rend(); ++c) {
            const ClassDesc &desc = m_descs[size_t(c->desc)];
            for (size_t i = 0; i < c->fields.size(); ++i)
                if (desc.fields[i].name == QLatin1String(name))
                    return c->fields[i];
        }
        return -1;
    };
    const auto kindOf = [&](int i) { return i < 0 ? Node::Kind::Null : m_values[size_t(i)].kind; };
    std::vector<int> objects;
    QByteArray blocks;
    for (const ClassData &c : data)
        for (const int i : c.annotation) {
            if (m_values[size_t(i)].block)
                blocks += m_values[size_t(i)].raw;
            else
                objects.push_back(i);
        }
    const auto becomeScalar = [&](Node::Kind kind, const QString &value) {
        Value &v = m_values[size_t(index)];
        v.kind = kind;
        v.value = value;
        v.items.clear();
        v.keys.clear();
    };
    const auto becomeList = [&](std::vector<int> items) {
        Value &v = m_values[size_t(index)];
        v.kind = Node::Kind::List;
        v.items = std::move(items);
        v.keys.clear();
    };
    const auto becomeMap = [&](const std::vector<int> &pairs) {
        QStringList keys;
        std::vector<int> values;
        for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
            keys << keyText(pairs[i]);
            values.push_back(pairs[i + 1]);
        }
        Value &v = m_values[size_t(index)];
        v.kind = Node::Kind::Map;
        v.keys = keys;
        v.items = std::move(values);
    };
    const auto itemsOf = [&](int i) { return i < 0 ? std::vector<int>{} : m_values[size_t(i)].items; };

    if (isOneOf(className,
                {"java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte", "java.lang.Double",
                 "java.lang.Float", "java.lang.Boolean", "java.lang.Character"})) {
        const int value = field("value");
        if (value >= 0 && !m_values[size_t(value)].isContainer())
            becomeScalar(m_values[size_t(value)].kind, m_values[size_t(value)].value);
        return;
    }
    if (isOneOf(className,
                {"java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashSet",
                 "java.util.LinkedHashSet", "java.util.PriorityQueue", "java.util.concurrent.CopyOnWriteArrayList"})) {
        becomeList(objects);
        return;
    }
    if (className == QLatin1String("java.util.TreeSet") && !objects.empty()) { // its comparator first
        becomeList(std::vector<int>(objects.begin() + 1, objects.end()));
        return;
    }
    if (isOneOf(className,
                {"java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.Hashtable",
                 "java.util.IdentityHashMap", "java.util.EnumMap", "java.util.concurrent.ConcurrentHashMap",
                 "java.util.concurrent.ConcurrentSkipListMap"})) {
        // ConcurrentHashMap and ConcurrentSkipListMap end their entries with a null (pair).
        if (className.startsWith(QLatin1String("java.util.concurrent.")) && !objects.empty()
            && kindOf(objects.back()) == Node::Kind::Null) {
            objects.pop_back();
            if (objects.size() % 2 != 0 && kindOf(objects.back()) == Node::Kind::Null)
                objects.pop_back();
        }
        if (objects.size() % 2 == 0)
            becomeMap(objects);
        return;
    }
    if (className == QLatin1String("java.util.Vector")) {
        std::vector<int> items = itemsOf(field("elementData"));
        const int count = field("elementCount");
        if (count >= 0) {
            const qint64 n = m_values[size_t(count)].value.toLongLong();
            if (n >= 0 && n < qint64(items.size()))
                items.resize(size_t(n));
        }
        becomeList(std::move(items));
        return;
    }
    if (className == QLatin1String("java.util.Arrays$ArrayList") && kindOf(field("a")) == Node::Kind::List) {
        becomeList(itemsOf(field("a")));
        return;
    }
    if (className == QLatin1String("java.util.EnumSet$SerializationProxy")
        && kindOf(field("elements")) == Node::Kind::List) {
        becomeList(itemsOf(field("elements")));
        m_values[size_t(index)].type = QStringLiteral("java.util.EnumSet");
        return;
    }
    if (isOneOf(className, {"java.util.Collections$EmptyList", "java.util.Collections$EmptySet"})) {
        becomeList({});
        return;
    }
    if (className == QLatin1String("java.util.Collections$EmptyMap")) {
        becomeMap({});
        return;
    }
    if (isOneOf(className, {"java.util.Collections$SingletonList", "java.util.Collections$SingletonSet"})
        && field("element") >= 0) {
        becomeList({field("element")});
        return;
    }
    if (className == QLatin1String("java.util.Collections$SingletonMap") && field("k") >= 0 && field("v") >= 0) {
        becomeMap({field("k"), field("v")});
        return;
    }
    if (className.startsWith(QLatin1String("java.util.Collections$Unmodifiable"))
        || className.startsWith(QLatin1String("java.util.Collections$Synchronized"))) {
        // A view of the collection it wraps: shown as that collection.
        const int inner = field("m") >= 0 ? field("m") : field("c");
        if (inner >= 0 && inner != index && m_values[size_t(inner)].isContainer()) {
            const Value copy = m_values[size_t(inner)];
            Value &v = m_values[size_t(index)];
            v.kind = copy.kind;
            v.items = copy.items;
            v.keys = copy.keys;
        }
        return;
    }
    if (className == QLatin1String("java.util.CollSer")) { // List.of, Set.of, Map.of
        const int tag = field("tag");
        const qint64 kind = tag >= 0 ? (m_values[size_t(tag)].value.toLongLong() & 0xff) : 0;
        if (kind == 1 || kind == 2 || kind == 4)
            becomeList(objects);
        else if (kind == 3 && objects.size() % 2 == 0)
            becomeMap(objects);
        if (kind >= 1 && kind <= 4) // what the application called to make it
            m_values[size_t(index)].type = kind == 2 ? QStringLiteral("java.util.Set.of")
                : kind == 3                          ? QStringLiteral("java.util.Map.of")
                                                     : QStringLiteral("java.util.List.of");
        return;
    }
    if (className == QLatin1String("java.util.Date") && blocks.size() == 8) {
        const auto ms = qFromBigEndian<qint64>(blocks.constData());
        const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toUTC();
        if (t.isValid() && t.date().year() >= 1 && t.date().year() <= 9999)
            becomeScalar(Node::Kind::Text, t.toString(Qt::ISODateWithMs));
        else
            becomeScalar(Node::Kind::Integer, QString::number(ms));
        return;
    }
    if (className == QLatin1String("java.util.UUID")) {
        const int most = field("mostSigBits");
        const int least = field("leastSigBits");
        if (kindOf(most) == Node::Kind::Integer && kindOf(least) == Node::Kind::Integer) {
            const QString hex = QStringLiteral("%1%2")
                                    .arg(quint64(m_values[size_t(most)].value.toLongLong()), 16, 16, QLatin1Char('0'))
                                    .arg(quint64(m_values[size_t(least)].value.toLongLong()), 16, 16, QLatin1Char('0'));
            becomeScalar(Node::Kind::Text,
                         hex.mid(0, 8) + QLatin1Char('-') + hex.mid(8, 4) + QLatin1Char('-') + hex.mid(12, 4)
                             + QLatin1Char('-') + hex.mid(16, 4) + QLatin1Char('-') + hex.mid(20));
        }
        return;
    }
    if (className == QLatin1String("java.math.BigInteger")) {
        const int signum = field("signum");
        const int magnitude = field("magnitude");
        if (kindOf(signum) != Node::Kind::Integer || kindOf(magnitude) != Node::Kind::Bytes)
            return;
        const qint64 sign = m_values[size_t(signum)].value.toLongLong();
        const QString digits = unsignedDecimal(m_values[size_t(magnitude)].raw);
        const QString text = sign < 0 && digits != QLatin1String("0") ? QLatin1Char('-') + digits : digits;
        bool fits = false;
        text.toLongLong(&fits);
        becomeScalar(fits ? Node::Kind::Integer : Node::Kind::Text, text);
        return;
    }
    if (className == QLatin1String("java.math.BigDecimal")) {
        const int unscaled = field("intVal");
        const int scaleField = field("scale");
        if (unscaled < 0 || kindOf(scaleField) != Node::Kind::Integer || m_values[size_t(unscaled)].isContainer())
            return;
        QString digits = m_values[size_t(unscaled)].value;
        const qint64 scale = m_values[size_t(scaleField)].value.toLongLong();
        if (digits.startsWith(QLatin1String("0x")) || scale < -1000 || scale > 1000)
            return; // too wide to write out
        const bool negative = digits.startsWith(QLatin1Char('-'));
        if (negative)
            digits.remove(0, 1);
        if (scale <= 0) {
            digits += QString(int(-scale), QLatin1Char('0'));
        } else {
            if (digits.size() <= scale)
                digits.prepend(QString(int(scale) - int(digits.size()) + 1, QLatin1Char('0')));
            digits.insert(digits.size() - int(scale), QLatin1Char('.'));
        }
        becomeScalar(Node::Kind::Text, negative ? QLatin1Char('-') + digits : digits);
        return;
    }
}

QString Reader::keyText(int index) const
{
    const Value &k = m_values[size_t(index)];
    switch (k.kind) {
    case Node::Kind::List: return QStringLiteral("(%1 items)").arg(k.items.size());
    case Node::Kind::Map:
        return k.type.isEmpty() ? QStringLiteral("{%1 entries}").arg(k.items.size())
                                : QStringLiteral("%1{%2}").arg(k.type).arg(k.items.size());
    default: return k.value;
    }
}

StepOutput Reader::run()
{
    if (m_in.size() < 4)
        return fail(QStringLiteral("the stream ends early (truncated)"), m_in.size());
    if (quint8(m_in.at(0)) != 0xac || quint8(m_in.at(1)) != 0xed)
        return fail(QStringLiteral("not a Java serialization stream (no magic AC ED)"), 0);
    const int version = quint8(m_in.at(2)) << 8 | quint8(m_in.at(3));
    if (version != 5)
        return fail(QStringLiteral("stream version %1 (this reader knows 5)").arg(version), 2);
    m_pos = 4;
    std::vector<int> items;
    while (m_pos < m_in.size()) {
        int item = -1;
        if (!content(0, true, &item))
            return fail(m_error, m_errorAt);
        if (!items.empty() && m_values[size_t(item)].block && m_values[size_t(items.back())].block) {
            Value &last = m_values[size_t(items.back())];
            last.raw += m_values[size_t(item)].raw;
            last.value = bytesescape::escape(last.raw, false);
            continue;
        }
        items.push_back(item);
    }
    if (items.empty())
        return fail(QStringLiteral("a stream header and nothing after it"), m_pos);
    int root = items.front();
    if (items.size() > 1) {
        // Several writeObject calls on one stream: all of them, in order.
        Value stream;
        stream.kind = Node::Kind::List;
        stream.type = QStringLiteral("stream");
        stream.items = items;
        root = add(std::move(stream));
        if (root < 0)
            return fail(m_error, m_errorAt);
    }
    QString why;
    StepOutput out;
    out.tree = buildTree(*this, root, m_limits, &why);
    if (!out.tree)
        return fail(why, m_pos);
    out.consumed = m_pos;
    return out;
}

} // namespace

StepOutput javaSerialization(const QByteArray &input, const Limits &limits)
{
    return Reader(input, limits).run();
}

bool looksLikeJavaSerialization(const QByteArray &input)
{
    return input.size() >= 4 && quint8(input.at(0)) == 0xac && quint8(input.at(1)) == 0xed && input.at(2) == 0
        && input.at(3) == 5;
}

} // namespace decode::detail
