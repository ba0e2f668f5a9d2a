// SPDX-License-Identifier: GPL-3.0-or-later
// Ruby's Marshal, format 4.8, read as data: no class is looked up, no _load or marshal_load is
// called. What a load would build becomes a node naming its class:
//   - an object ('o'), a Struct ('S'): a map typed with the class name, keyed by the instance
//     variables as Ruby names them ("@name") or by the Struct's members ("name");
//   - a Hash: a map whose keys are their text: a Symbol key as ":name" (so that :a and "a",
//     different keys to Ruby, stay apart), a String, Integer or other scalar as its value, nil
//     as "nil"; a Hash with a default is typed "Hash with default" and has the default under
//     "<default>";
//   - a Symbol as a value: text typed "Symbol" (its name without the colon);
//   - a String: text in its encoding (typed "US-ASCII", "ASCII-8BIT" or the encoding's name
//     when that is not UTF-8), bytes when it is not valid in it;
//   - a Bignum past 64 bits, and a Float that is not finite ("inf", "-inf", "nan"): text typed
//     "Bignum" or "Float", since a number there could not hold them;
//   - a user-defined dump ('u'): its bytes typed with the class, a Time as its date and time;
//     marshal_dump data ('U') and Data ('d'): a map typed with the class holding the data;
//   - a subclass of String, Array, Hash or Regexp ('C'): the value typed with the class;
//   - a class or module reference: its name typed "Class" or "Module"; a Regexp: "/source/flags".
// Links ('@') share the object they name: it appears wherever it is used, and inside itself as
// "<itself>".
#include "decoders_p.h"
#include "valuegraph.h"

#include "bytesescape.h"

#include <QDateTime>
#include <QLocale>
#include <QStringDecoder>
#include <QTimeZone>
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace decode::detail {

namespace {

// What a string-like value still needs from its instance variables (its encoding).
enum class Raw : quint8 { None, String, Regexp, UserDump, Float };

struct Value
{
    Node::Kind kind = Node::Kind::Null;
    QString type;
    QString value;
    std::vector<int> items; // List: items; Map: keys and values, alternating
    Raw raw = Raw::None;
    QByteArray bytes; // a String's, Regexp's or user dump's bytes, until its encoding is known
    QString cls; // a class that names the value ('C', 'u'), over its encoding
    int options = 0; // a Regexp's
    bool symbol = false; // a Symbol: ":name" as a key
};

using Ivars = std::vector<std::pair<QString, int>>;

QString realText(double d)
{
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

QString utf8OrEscaped(const QByteArray &b)
{
    return bytesescape::isValidUtf8(b) ? QString::fromUtf8(b) : bytesescape::escape(b, false);
}

// A magnitude of little-endian bytes in decimal, by repeated division of 32-bit limbs.
QString decimalText(const QByteArray &le)
{
    std::vector<quint32> limbs(size_t((le.size() + 3) / 4), 0);
    for (qsizetype i = 0; i < le.size(); ++i)
        limbs[size_t(i / 4)] |= quint32(quint8(le.at(i))) << (8 * (i % 4));
    std::reverse(limbs.begin(), limbs.end()); // most significant first, as division goes
    QString digits;
    auto nonZero = [&] {
        for (const quint32 l : limbs)
            if (l)
                return true;
        return false;
    };
    while (nonZero()) {
        quint64 rest = 0;
        for (quint32 &l : limbs) {
            const quint64 cur = rest << 32 | l;
            l = quint32(cur / 1000000000U);
            rest = cur % 1000000000U;
        }
        QString chunk = QString::number(rest);
        if (nonZero())
            chunk = chunk.rightJustified(9, QLatin1Char('0'));
        digits.prepend(chunk);
    }
    return digits.isEmpty() ? QStringLiteral("0") : digits;
}

class Reader : public AlternatingGraph<Value>
{
public:
    Reader(const QByteArray &input, const Limits &limits) : m_in(input), m_limits(limits) { }

    StepOutput run();

    // The values as a graph (valuegraph.h).
    int valueCount() const override { return int(m_values.size()); }

private:
    // Past this many bytes a Bignum is shown in hexadecimal: decimal conversion is quadratic.
    static constexpr qsizetype kDecimalBignumBytes = 1024;

    bool stop(const QString &why, qsizetype at)
    {
        if (m_error.isEmpty()) {
            m_error = why;
            m_errorAt = at;
        }
        return false;
    }
    std::optional<quint8> byte()
    {
        if (m_pos >= m_in.size()) {
            stop(QStringLiteral("the value ends early (truncated)"), m_pos);
            return std::nullopt;
        }
        return quint8(m_in.at(m_pos++));
    }
    // Marshal's packed integer: small values in the type byte, others in 1 to 4 bytes.
    std::optional<qint64> packed()
    {
        const auto first = byte();
        if (!first)
            return std::nullopt;
        const auto c = qint8(*first);
        if (c == 0)
            return 0;
        if (c > 4)
            return qint64(c) - 5;
        if (c < -4)
            return qint64(c) + 5;
        const int n = c > 0 ? c : -c;
        if (m_in.size() - m_pos < n) {
            stop(QStringLiteral("the value ends early (truncated)"), m_pos);
            return std::nullopt;
        }
        qint64 v = c > 0 ? 0 : -1;
        for (int i = 0; i < n; ++i) {
            v &= ~(qint64(0xff) << (8 * i));
            v |= qint64(quint8(m_in.at(m_pos++))) << (8 * i);
        }
        return v;
    }
    // A count of things each at least 'width' bytes long: never more than the input holds.
    std::optional<qint64> count(int width, const char *what)
    {
        const qsizetype at = m_pos;
        const auto n = packed();
        if (!n)
            return std::nullopt;
        if (*n < 0 || *n > (m_in.size() - m_pos) / width) {
            stop(QStringLiteral("%1 of %2, more than the value holds").arg(QLatin1String(what)).arg(*n), at);
            return std::nullopt;
        }
        return n;
    }
    std::optional<QByteArray> bytes()
    {
        const auto n = count(1, "a length");
        if (!n)
            return std::nullopt;
        QByteArray b = m_in.mid(m_pos, *n);
        m_pos += *n;
        return b;
    }
    int add(Value v)
    {
        if (qsizetype(m_values.size()) >= m_limits.maxNodes) {
            stop(QStringLiteral("more than %1 values").arg(m_limits.maxNodes), m_pos);
            return -1;
        }
        m_values.push_back(std::move(v));
        return int(m_values.size()) - 1;
    }
    // An object Ruby enters in its table, for links ('@') to name by number.
    int entered(Value v)
    {
        const int i = add(std::move(v));
        if (i >= 0)
            m_objects.push_back(i);
        return i;
    }
    int textKey(const QString &name)
    {
        Value v;
        v.kind = Node::Kind::Text;
        v.value = name;
        return add(std::move(v));
    }
    std::optional<QString> symbol(int depth);
    int read(int depth);
    int readOne(quint8 type, qsizetype at, int depth);
    int bignum();
    int floatValue();
    bool pairs(int map, qint64 n, int depth, bool symbolKeys);
    void settle(int index, const QString &encoding, const Ivars &ivars);
    std::optional<QString> timeText(const QByteArray &dump, const Ivars &ivars) const;
    const Value &graphValue(int index) const override { return m_values[size_t(index)]; }
    QString keyText(int index) const override;

    const QByteArray &m_in;
    const Limits &m_limits;
    qsizetype m_pos = 0;
    std::vector<Value> m_values;
    std::vector<int> m_objects; // the object table: value indexes in the order Ruby numbers them
    std::vector<QString> m_symbols; // the symbol table
    QString m_error;
    qsizetype m_errorAt = 0;
};

// A Symbol where Ruby expects one (a class name, an instance variable's name): ':' new, ';' a
// link to one already read, 'I' ':' one with its encoding.
std::optional<QString> Reader::symbol(int depth)
{
    const qsizetype at = m_pos;
    if (depth > m_limits.maxDepth) {
        stop(QStringLiteral("nested deeper than %1").arg(m_limits.maxDepth), at);
        return std::nullopt;
    }
    const auto type = byte();
    if (!type)
        return std::nullopt;
    if (*type == ';') {
        const auto n = packed();
        if (!n)
            return std::nullopt;
        if (*n < 0 || *n >= qint64(m_symbols.size())) {
            stop(QStringLiteral("a link to symbol %1, not read yet").arg(*n), at);
            return std::nullopt;
        }
        return m_symbols[size_t(*n)];
    }
    const bool withIvars = *type == 'I' && m_pos < m_in.size() && m_in.at(m_pos) == ':';
    if (withIvars)
        ++m_pos;
    else if (*type != ':') {
        stop(QStringLiteral("a Symbol expected, found type 0x%1").arg(*type, 2, 16, QLatin1Char('0')), at);
        return std::nullopt;
    }
    const auto name = bytes();
    if (!name)
        return std::nullopt;
    const QString text = utf8OrEscaped(*name);
    m_symbols.push_back(text);
    if (withIvars) {
        // Only an encoding: the name is shown as UTF-8 whatever it says.
        const auto n = count(2, "instance variables");
        if (!n)
            return std::nullopt;
        for (qint64 i = 0; i < *n; ++i)
            if (!symbol(depth + 1) || read(depth + 1) < 0)
                return std::nullopt;
    }
    return text;
}

int Reader::bignum()
{
    const qsizetype at = m_pos;
    const auto sign = byte();
    if (!sign)
        return -1;
    if (*sign != '+' && *sign != '-') {
        stop(QStringLiteral("a Bignum's sign is neither + nor -"), at);
        return -1;
    }
    const auto shorts = count(2, "a Bignum length");
    if (!shorts)
        return -1;
    QByteArray digits = m_in.mid(m_pos, *shorts * 2);
    m_pos += *shorts * 2;
    while (!digits.isEmpty() && digits.back() == '\0')
        digits.chop(1);
    const bool negative = *sign == '-';
    Value v;
    if (digits.size() <= 8) {
        quint64 magnitude = 0;
        for (qsizetype i = digits.size() - 1; i >= 0; --i)
            magnitude = magnitude << 8 | quint8(digits.at(i));
        constexpr quint64 kMax = quint64(std::numeric_limits<qint64>::max());
        if (magnitude <= kMax || (negative && magnitude == kMax + 1)) {
            v.kind = Node::Kind::Integer;
            v.value = negative ? QString::number(qint64(0 - magnitude)) : QString::number(magnitude);
            return entered(std::move(v));
        }
    }
    v.kind = Node::Kind::Text;
    v.type = QStringLiteral("Bignum");
    if (digits.size() <= kDecimalBignumBytes) {
        v.value = decimalText(digits);
    } else {
        QByteArray be = digits;
        std::reverse(be.begin(), be.end());
        v.value = QStringLiteral("0x") + QString::fromLatin1(be.toHex());
    }
    if (negative)
        v.value.prepend(QLatin1Char('-'));
    return entered(std::move(v));
}

int Reader::floatValue()
{
    const qsizetype at = m_pos;
    const auto text = bytes();
    if (!text)
        return -1;
    // Ruby before 1.9 wrote mantissa bytes after a NUL; the text before it is the number.
    const QByteArray number = text->left(text->indexOf('\0') < 0 ? text->size() : text->indexOf('\0'));
    Value v;
    if (number == "inf" || number == "-inf" || number == "nan") {
        v.kind = Node::Kind::Text;
        v.type = QStringLiteral("Float");
        v.value = QString::fromLatin1(number);
        return entered(std::move(v));
    }
    bool ok = false;
    const double d = number.toDouble(&ok);
    if (!ok) {
        stop(QStringLiteral("a Float that is not a number"), at);
        return -1;
    }
    v.kind = Node::Kind::Real;
    v.value = realText(d);
    return entered(std::move(v));
}

// Entries of a Hash (any keys) or of an object or Struct (Symbol names).
bool Reader::pairs(int map, qint64 n, int depth, bool symbolKeys)
{
    for (qint64 i = 0; i < n; ++i) {
        int key = -1;
        if (symbolKeys) {
            const auto name = symbol(depth);
            if (!name)
                return false;
            key = textKey(*name);
        } else {
            key = read(depth);
        }
        if (key < 0)
            return false;
        const int value = read(depth);
        if (value < 0)
            return false;
        m_values[size_t(map)].items.push_back(key);
        m_values[size_t(map)].items.push_back(value);
    }
    return true;
}

int Reader::read(int depth)
{
    const qsizetype at = m_pos;
    if (depth > m_limits.maxDepth) {
        stop(QStringLiteral("nested deeper than %1").arg(m_limits.maxDepth), at);
        return -1;
    }
    const auto type = byte();
    if (!type)
        return -1;
    return readOne(*type, at, depth);
}

int Reader::readOne(quint8 type, qsizetype at, int depth)
{
    Value v;
    switch (type) {
    case '0': v.value = QStringLiteral("nil"); return add(std::move(v));
    case 'T':
    case 'F':
        v.kind = Node::Kind::Bool;
        v.value = type == 'T' ? QStringLiteral("true") : QStringLiteral("false");
        return add(std::move(v));
    case 'i': {
        const auto n = packed();
        if (!n)
            return -1;
        v.kind = Node::Kind::Integer;
        v.value = QString::number(*n);
        return add(std::move(v));
    }
    case 'l': return bignum();
    case 'f': return floatValue();
    case ':':
    case ';': {
        --m_pos;
        const auto name = symbol(depth);
        if (!name)
            return -1;
        v.kind = Node::Kind::Text;
        v.type = QStringLiteral("Symbol");
        v.value = *name;
        v.symbol = true;
        return add(std::move(v));
    }
    case '"': {
        const auto b = bytes();
        if (!b)
            return -1;
        v.raw = Raw::String;
        v.bytes = *b;
        const int i = entered(std::move(v));
        if (i >= 0)
            settle(i, {}, {});
        return i;
    }
    case '/': {
        const auto b = bytes();
        const auto options = b ? byte() : std::nullopt;
        if (!options)
            return -1;
        v.raw = Raw::Regexp;
        v.bytes = *b;
        v.options = *options;
        const int i = entered(std::move(v));
        if (i >= 0)
            settle(i, {}, {});
        return i;
    }
    case '@': {
        const auto n = packed();
        if (!n)
            return -1;
        if (*n < 0 || *n >= qint64(m_objects.size())) {
            stop(QStringLiteral("a link to object %1, not read yet").arg(*n), at);
            return -1;
        }
        return m_objects[size_t(*n)];
    }
    case 'I': {
        const int inner = read(depth + 1);
        if (inner < 0)
            return -1;
        const auto n = count(2, "instance variables");
        if (!n)
            return -1;
        QString encoding;
        Ivars ivars;
        for (qint64 i = 0; i < *n; ++i) {
            const auto name = symbol(depth + 1);
            const int value = name ? read(depth + 1) : -1;
            if (value < 0)
                return -1;
            const Value &iv = m_values[size_t(value)];
            if (*name == QLatin1String("E"))
                encoding = iv.kind == Node::Kind::Bool && iv.value == QLatin1String("true")
                    ? QStringLiteral("UTF-8")
                    : QStringLiteral("US-ASCII");
            else if (*name == QLatin1String("encoding"))
                encoding = QString::fromLatin1(iv.bytes.isEmpty() ? iv.value.toLatin1() : iv.bytes);
            ivars.emplace_back(*name, value);
        }
        settle(inner, encoding, ivars);
        return inner;
    }
    case '[': {
        v.kind = Node::Kind::List;
        const int list = entered(std::move(v));
        const auto n = list < 0 ? std::nullopt : count(1, "an Array");
        if (!n)
            return -1;
        for (qint64 i = 0; i < *n; ++i) {
            const int item = read(depth + 1);
            if (item < 0)
                return -1;
            m_values[size_t(list)].items.push_back(item);
        }
        return list;
    }
    case '{':
    case '}': {
        v.kind = Node::Kind::Map;
        const int map = entered(std::move(v));
        const auto n = map < 0 ? std::nullopt : count(2, "a Hash");
        if (!n || !pairs(map, *n, depth + 1, false))
            return -1;
        if (type == '}') {
            const int key = textKey(QStringLiteral("<default>"));
            const int value = key < 0 ? -1 : read(depth + 1);
            if (value < 0)
                return -1;
            m_values[size_t(map)].type = QStringLiteral("Hash with default");
            m_values[size_t(map)].items.push_back(key);
            m_values[size_t(map)].items.push_back(value);
        }
        return map;
    }
    case 'o':
    case 'S': {
        const auto cls = symbol(depth + 1);
        if (!cls)
            return -1;
        v.kind = Node::Kind::Map;
        v.type = *cls;
        const int map = entered(std::move(v));
        const auto n = map < 0 ? std::nullopt : count(2, type == 'o' ? "instance variables" : "Struct members");
        if (!n || !pairs(map, *n, depth + 1, true))
            return -1;
        return map;
    }
    case 'u': {
        const auto cls = symbol(depth + 1);
        const auto b = cls ? bytes() : std::nullopt;
        if (!b)
            return -1;
        v.raw = Raw::UserDump;
        v.cls = *cls;
        v.bytes = *b;
        const int i = entered(std::move(v));
        if (i >= 0)
            settle(i, {}, {});
        return i;
    }
    case 'U':
    case 'd': {
        const auto cls = symbol(depth + 1);
        if (!cls)
            return -1;
        v.kind = Node::Kind::Map;
        v.type = *cls;
        const int map = entered(std::move(v));
        const int key
            = map < 0 ? -1 : textKey(type == 'U' ? QStringLiteral("marshal_dump") : QStringLiteral("_dump_data"));
        const int data = key < 0 ? -1 : read(depth + 1);
        if (data < 0)
            return -1;
        m_values[size_t(map)].items = {key, data};
        return map;
    }
    case 'e': {
        // extend: the modules an object was extended with say nothing about its data.
        if (!symbol(depth + 1))
            return -1;
        return read(depth + 1);
    }
    case 'C': {
        const auto cls = symbol(depth + 1);
        const int inner = cls ? read(depth + 1) : -1;
        if (inner < 0)
            return -1;
        Value &in = m_values[size_t(inner)];
        in.cls = *cls;
        in.type = *cls;
        return inner;
    }
    case 'c':
    case 'm':
    case 'M': {
        const auto name = bytes();
        if (!name)
            return -1;
        v.kind = Node::Kind::Text;
        v.type = type == 'c' ? QStringLiteral("Class")
            : type == 'm'    ? QStringLiteral("Module")
                             : QStringLiteral("Class or Module");
        v.value = utf8OrEscaped(*name);
        return entered(std::move(v));
    }
    default: break;
    }
    stop(QStringLiteral("unknown type byte 0x%1").arg(type, 2, 16, QLatin1Char('0')), at);
    return -1;
}

// A string-like value once its encoding is known: text in it, or bytes when it is not valid.
void Reader::settle(int index, const QString &encoding, const Ivars &ivars)
{
    Value &v = m_values[size_t(index)];
    if (v.raw == Raw::None)
        return;
    if (v.raw == Raw::UserDump && v.cls == QLatin1String("Time")) {
        if (const auto t = timeText(v.bytes, ivars)) {
            v.kind = Node::Kind::Text;
            v.type = v.cls;
            v.value = *t;
            return;
        }
    }
    std::optional<QString> text;
    QString type;
    if (encoding.isEmpty()) {
        type = QStringLiteral("ASCII-8BIT");
        if (bytesescape::isValidUtf8(v.bytes))
            text = QString::fromUtf8(v.bytes);
    } else if (encoding == QLatin1String("UTF-8") || encoding == QLatin1String("US-ASCII")) {
        if (encoding != QLatin1String("UTF-8"))
            type = encoding;
        if (bytesescape::isValidUtf8(v.bytes))
            text = QString::fromUtf8(v.bytes);
    } else {
        type = encoding;
        QStringDecoder decoder(encoding.toLatin1().constData());
        if (decoder.isValid()) {
            QString decoded = decoder(v.bytes);
            if (!decoder.hasError())
                text = std::move(decoded);
        }
    }
    if (v.raw == Raw::Regexp) {
        QString flags;
        if (v.options & 4)
            flags += QLatin1Char('m');
        if (v.options & 1)
            flags += QLatin1Char('i');
        if (v.options & 2)
            flags += QLatin1Char('x');
        v.kind = Node::Kind::Text;
        v.type = v.cls.isEmpty() ? QStringLiteral("Regexp") : v.cls;
        v.value = QLatin1Char('/') + text.value_or(bytesescape::escape(v.bytes, false)) + QLatin1Char('/') + flags;
        return;
    }
    if (v.raw == Raw::UserDump && encoding.isEmpty())
        type.clear(); // a dump's bytes are the class's own, not a string's
    v.type = v.cls.isEmpty() ? type : v.cls;
    if (text) {
        v.kind = Node::Kind::Text;
        v.value = *text;
    } else {
        v.kind = Node::Kind::Bytes;
        v.value = bytesescape::escape(v.bytes, false);
    }
}

// Time#_dump: two little-endian words holding the UTC date and time to the microsecond, and
// instance variables for the UTC offset and the nanoseconds past the microsecond. Shown as
// "2026-12-07T13:30:05.123456789+01:00", in the offset it was written in.
std::optional<QString> Reader::timeText(const QByteArray &dump, const Ivars &ivars) const
{
    if (dump.size() != 8)
        return std::nullopt;
    auto word = [&](int at) {
        quint32 w = 0;
        for (int i = 3; i >= 0; --i)
            w = w << 8 | quint8(dump.at(at + i));
        return w;
    };
    const quint32 p = word(0);
    const quint32 s = word(4);
    if (!(p & (1U << 31)))
        return std::nullopt; // the format before Ruby 1.9.2: seconds since the epoch, rare now
    const bool utc = p & (1U << 30);
    qint64 offset = 0;
    qint64 nanoNum = 0;
    qint64 nanoDen = 1;
    bool hasOffset = false;
    for (const auto &[name, index] : ivars) {
        const Value &iv = m_values[size_t(index)];
        const bool integer = iv.kind == Node::Kind::Integer;
        if (name == QLatin1String("offset") && integer) {
            offset = iv.value.toLongLong();
            hasOffset = true;
        } else if (name == QLatin1String("nano_num") && integer) {
            nanoNum = iv.value.toLongLong();
        } else if (name == QLatin1String("nano_den") && integer) {
            nanoDen = iv.value.toLongLong();
        } else if (name == QLatin1String("offset") || name == QLatin1String("year")) {
            return std::nullopt; // a fractional offset, a year past 16 bits: kept as bytes
        }
    }
    if (offset <= -86400 || offset >= 86400 || nanoDen <= 0 || nanoNum < 0 || nanoNum / nanoDen >= 1000)
        return std::nullopt;
    const QDate date(int((p >> 14) & 0xffff) + 1900, int((p >> 10) & 0xf) + 1, int((p >> 5) & 0x1f));
    const QTime time(int(p & 0x1f), int((s >> 26) & 0x3f), int((s >> 20) & 0x3f));
    const qint64 nsec = qint64(s & 0xfffff) * 1000 + nanoNum / nanoDen;
    if (!date.isValid() || !time.isValid() || nsec >= 1'000'000'000)
        return std::nullopt;
    const QDateTime local = QDateTime(date, time, QTimeZone::utc()).addSecs(utc ? 0 : offset);
    QString out = local.toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss"));
    if (nsec % 1000 == 0 && nsec != 0)
        out += QStringLiteral(".%1").arg(nsec / 1000, 6, 10, QLatin1Char('0'));
    else if (nsec != 0)
        out += QStringLiteral(".%1").arg(nsec, 9, 10, QLatin1Char('0'));
    if (utc || !hasOffset) {
        out += QLatin1Char('Z');
    } else {
        const qint64 a = offset < 0 ? -offset : offset;
        out += QStringLiteral("%1%2:%3")
                   .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
                   .arg(a / 3600, 2, 10, QLatin1Char('0'))
                   .arg(a % 3600 / 60, 2, 10, QLatin1Char('0'));
    }
    return out;
}

QString Reader::keyText(int index) const
{
    const Value &k = m_values[size_t(index)];
    switch (k.kind) {
    case Node::Kind::List: return QStringLiteral("[%1 items]").arg(k.items.size());
    case Node::Kind::Map:
        return k.type.isEmpty() ? QStringLiteral("{%1 entries}").arg(k.items.size() / 2)
                                : QStringLiteral("#<%1>").arg(k.type);
    case Node::Kind::Text: return k.symbol ? QLatin1Char(':') + k.value : k.value;
    default: return k.value;
    }
}

StepOutput Reader::run()
{
    if (m_in.size() < 2)
        return fail(QStringLiteral("too short for Marshal data (truncated)"), m_in.size());
    if (m_in.at(0) != 4 || quint8(m_in.at(1)) > 8)
        return fail(QStringLiteral("Marshal version %1.%2 (this reader knows 4.8)")
                        .arg(quint8(m_in.at(0)))
                        .arg(quint8(m_in.at(1))),
                    0);
    m_pos = 2;
    const int root = read(0);
    if (root < 0)
        return fail(m_error.isEmpty() ? QStringLiteral("malformed Marshal data") : m_error, m_errorAt);
    if (m_pos < m_in.size())
        return fail(QStringLiteral("%1 bytes after the value").arg(m_in.size() - m_pos), m_pos);
    QString why;
    StepOutput out;
    out.tree = buildTree(*this, root, m_limits, &why);
    if (!out.tree)
        return fail(why, m_in.size());
    out.consumed = m_pos;
    return out;
}

} // namespace

StepOutput rubyMarshal(const QByteArray &input, const Limits &limits)
{
    return Reader(input, limits).run();
}

bool looksLikeRubyMarshal(const QByteArray &input)
{
    static constexpr char kTypes[] = "0TFilf\":;@I[{}oSuUecmM/Cd";
    return input.size() >= 3 && input.at(0) == 4 && input.at(1) == 8 && input.at(2) != '\0'
        && std::char_traits<char>::find(kTypes, sizeof(kTypes) - 1, input.at(2)) != nullptr;
}

} // namespace decode::detail
