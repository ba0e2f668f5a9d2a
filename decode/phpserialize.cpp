// SPDX-License-Identifier: GPL-3.0-or-later
// PHP's serialize(), read as data: no class is looked up, no __wakeup, __unserialize or
// Serializable::unserialize is called. What unserialize() would build becomes:
//   - an array: a list when its keys are 0, 1, 2… in order (what array_is_list() says), else
//     a map keyed by the keys' text;
//   - an object ('O'): a map typed with its class; a protected property shown as
//     "name (protected)", a private one as "name (private Class)", as PHP mangles their names;
//   - a Serializable object ('C'): its payload, the class's own format, as text (or bytes)
//     typed with the class;
//   - an enum case ('E'): "Suit::Hearts" typed "enum";
//   - a string: text when it is UTF-8, else bytes (its length counts bytes);
//   - a float that is not finite: "inf", "-inf" or "nan" typed "float", since a number there
//     could not hold it.
// References ('R' to a value, 'r' to an object) name a value slot, numbered from 1 in the order
// unserialize() meets values: the value they name appears wherever it is used, and inside
// itself as "<itself>".
#include "decoders_p.h"
#include "valuegraph.h"

#include "bytesescape.h"

#include <QLocale>
#include <optional>
#include <vector>

namespace decode::detail {

namespace {

struct Value
{
    Node::Kind kind = Node::Kind::Null;
    QString type;
    QString value;
    std::vector<int> items; // List: items; Map: keys and values, alternating
};

QString textOf(const QByteArray &b)
{
    return bytesescape::isValidUtf8(b) ? QString::fromUtf8(b) : bytesescape::escape(b, false);
}

// A property's name as PHP mangles it: "\0*\0name" protected, "\0Class\0name" private.
QString propertyName(const QByteArray &mangled)
{
    if (mangled.size() < 3 || mangled.at(0) != '\0')
        return textOf(mangled);
    const qsizetype end = mangled.indexOf('\0', 1);
    if (end < 0)
        return textOf(mangled);
    const QByteArray scope = mangled.mid(1, end - 1);
    const QString name = textOf(mangled.mid(end + 1));
    if (scope == "*")
        return QStringLiteral("%1 (protected)").arg(name);
    return QStringLiteral("%1 (private %2)").arg(name, textOf(scope));
}

class Reader : public AlternatingGraph<Value>
{
public:
    Reader(const QByteArray &input, const Limits &limits) : m_in(input), m_limits(limits) { }

    StepOutput run();

    // The values as a graph (valuegraph.h).
    int valueCount() const override { return int(m_values.size()); }

private:
    bool stop(const QString &why, qsizetype at)
    {
        if (m_error.isEmpty()) {
            m_error = why;
            m_errorAt = at;
        }
        return false;
    }
    bool expect(char c)
    {
        if (m_pos < m_in.size() && m_in.at(m_pos) == c) {
            ++m_pos;
            return true;
        }
        if (m_pos >= m_in.size())
            return stop(QStringLiteral("the value ends early (truncated)"), m_pos);
        return stop(QStringLiteral("'%1' expected").arg(QLatin1Char(c)), m_pos);
    }
    // The text up to 'end' (not included), which is consumed.
    std::optional<QByteArray> until(char end)
    {
        const qsizetype at = m_in.indexOf(end, m_pos);
        if (at < 0) {
            stop(QStringLiteral("no '%1' after this (truncated)").arg(QLatin1Char(end)), m_pos);
            return std::nullopt;
        }
        QByteArray text = m_in.mid(m_pos, at - m_pos);
        m_pos = at + 1;
        return text;
    }
    std::optional<qint64> integer(char end)
    {
        const qsizetype at = m_pos;
        const auto text = until(end);
        if (!text)
            return std::nullopt;
        bool ok = !text->isEmpty()
            && (text->at(0) == '-' || text->at(0) == '+' || (text->at(0) >= '0' && text->at(0) <= '9'));
        const qint64 v = ok ? text->toLongLong(&ok) : 0;
        if (!ok) {
            stop(QStringLiteral("not an integer: \"%1\"").arg(bytesescape::escape(text->left(32))), at);
            return std::nullopt;
        }
        return v;
    }
    // A count or length: not negative, and never more than what is left of the input.
    std::optional<qint64> length(char end, int width, const char *what)
    {
        const qsizetype at = m_pos;
        const auto n = integer(end);
        if (!n)
            return std::nullopt;
        if (*n < 0 || *n > (m_in.size() - m_pos) / width) {
            stop(QStringLiteral("%1 of %2, more than the value holds").arg(QLatin1String(what)).arg(*n), at);
            return std::nullopt;
        }
        return n;
    }
    // LEN:"bytes" (the quotes around exactly LEN bytes).
    std::optional<QByteArray> quoted()
    {
        const auto n = length(':', 1, "a length");
        if (!n || !expect('"'))
            return std::nullopt;
        QByteArray b = m_in.mid(m_pos, *n);
        m_pos += *n;
        if (!expect('"'))
            return std::nullopt;
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
    int scalar(Node::Kind kind, const QString &value, const QString &type = {})
    {
        Value v;
        v.kind = kind;
        v.value = value;
        v.type = type;
        return add(std::move(v));
    }
    int read(int depth, bool key);
    bool entries(int map, qint64 n, int depth, bool properties);
    const Value &graphValue(int index) const override { return m_values[size_t(index)]; }
    QString keyText(int index) const override;

    const QByteArray &m_in;
    const Limits &m_limits;
    qsizetype m_pos = 0;
    std::vector<Value> m_values;
    std::vector<int> m_slots{-1}; // value slots as R: and r: number them, from 1
    QString m_error;
    qsizetype m_errorAt = 0;
};

// N entries of an array or object, between braces: keys (i: or s:) and values.
bool Reader::entries(int map, qint64 n, int depth, bool properties)
{
    if (!expect('{'))
        return false;
    bool list = !properties;
    for (qint64 i = 0; i < n; ++i) {
        const qsizetype at = m_pos;
        const char type = at < m_in.size() ? m_in.at(at) : '\0';
        if (type != 'i' && type != 's')
            return stop(QStringLiteral("a key must be an integer or a string"), at);
        int key = -1;
        if (type == 's') {
            // A key's bytes as written: a property's name carries its visibility.
            m_pos += 1;
            const auto b = expect(':') ? quoted() : std::nullopt;
            if (!b || !expect(';'))
                return false;
            key = scalar(Node::Kind::Text, properties ? propertyName(*b) : textOf(*b));
        } else {
            key = read(depth, true);
        }
        if (key < 0)
            return false;
        if (type != 'i' || m_values[size_t(key)].value != QString::number(i))
            list = false;
        const int value = read(depth, false);
        if (value < 0)
            return false;
        m_values[size_t(map)].items.push_back(key);
        m_values[size_t(map)].items.push_back(value);
    }
    if (!expect('}'))
        return false;
    if (list) {
        // Keys 0..N-1 in order: a list, its keys dropped.
        Value &v = m_values[size_t(map)];
        std::vector<int> items;
        for (size_t i = 1; i < v.items.size(); i += 2)
            items.push_back(v.items[i]);
        v.kind = Node::Kind::List;
        v.items = std::move(items);
    }
    return true;
}

int Reader::read(int depth, bool key)
{
    const qsizetype at = m_pos;
    if (depth > m_limits.maxDepth) {
        stop(QStringLiteral("nested deeper than %1").arg(m_limits.maxDepth), at);
        return -1;
    }
    if (m_pos >= m_in.size()) {
        stop(QStringLiteral("the value ends early (truncated)"), m_pos);
        return -1;
    }
    const char type = m_in.at(m_pos++);
    // unserialize() numbers every value it meets but keys and R: references, before their
    // contents: an array's slot comes before its items'.
    size_t slot = 0;
    if (!key && type != 'R') {
        slot = m_slots.size();
        m_slots.push_back(-1);
    }
    const auto done = [&](int index) {
        if (index >= 0 && slot)
            m_slots[slot] = index;
        return index;
    };
    if (type == 'N') {
        if (!expect(';'))
            return -1;
        return done(scalar(Node::Kind::Null, QStringLiteral("null")));
    }
    if (!expect(':'))
        return -1;
    switch (type) {
    case 'b': {
        const auto v = integer(';');
        if (!v)
            return -1;
        if (*v != 0 && *v != 1) {
            stop(QStringLiteral("a boolean that is neither 0 nor 1"), at);
            return -1;
        }
        return done(scalar(Node::Kind::Bool, *v ? QStringLiteral("true") : QStringLiteral("false")));
    }
    case 'i': {
        const auto v = integer(';');
        return v ? done(scalar(Node::Kind::Integer, QString::number(*v))) : -1;
    }
    case 'd': {
        const auto text = until(';');
        if (!text)
            return -1;
        if (*text == "INF" || *text == "-INF" || *text == "NAN")
            return done(scalar(Node::Kind::Text, QString::fromLatin1(text->toLower()), QStringLiteral("float")));
        bool ok = false;
        const double d = text->toDouble(&ok);
        if (!ok) {
            stop(QStringLiteral("a float that is not a number"), at);
            return -1;
        }
        return done(scalar(Node::Kind::Real, QString::number(d, 'g', QLocale::FloatingPointShortest)));
    }
    case 's': {
        const auto b = quoted();
        if (!b || !expect(';'))
            return -1;
        return done(scalar(bytesescape::isValidUtf8(*b) ? Node::Kind::Text : Node::Kind::Bytes, textOf(*b)));
    }
    case 'E': {
        const auto b = quoted();
        if (!b || !expect(';'))
            return -1;
        const qsizetype colon = b->indexOf(':');
        if (colon < 0) {
            stop(QStringLiteral("an enum case without its enum's name"), at);
            return -1;
        }
        return done(scalar(Node::Kind::Text, textOf(b->left(colon)) + QStringLiteral("::") + textOf(b->mid(colon + 1)),
                           QStringLiteral("enum")));
    }
    case 'a': {
        Value v;
        v.kind = Node::Kind::Map;
        const int map = done(add(std::move(v)));
        const auto n = map < 0 ? std::nullopt : length(':', 4, "an array");
        return n && entries(map, *n, depth + 1, false) ? map : -1;
    }
    case 'O': {
        const auto cls = quoted();
        if (!cls || !expect(':'))
            return -1;
        Value v;
        v.kind = Node::Kind::Map;
        v.type = textOf(*cls);
        const int map = done(add(std::move(v)));
        const auto n = map < 0 ? std::nullopt : length(':', 4, "an object's properties");
        return n && entries(map, *n, depth + 1, true) ? map : -1;
    }
    case 'C': {
        const auto cls = quoted();
        const auto n = cls && expect(':') ? length(':', 1, "a payload") : std::nullopt;
        if (!n || !expect('{'))
            return -1;
        const QByteArray payload = m_in.mid(m_pos, *n);
        m_pos += *n;
        if (!expect('}'))
            return -1;
        return done(scalar(bytesescape::isValidUtf8(payload) ? Node::Kind::Text : Node::Kind::Bytes, textOf(payload),
                           textOf(*cls)));
    }
    case 'r':
    case 'R': {
        const auto n = integer(';');
        if (!n)
            return -1;
        if (*n < 1 || *n >= qint64(m_slots.size()) || m_slots[size_t(*n)] < 0) {
            stop(QStringLiteral("a reference to value %1, not read yet").arg(*n), at);
            return -1;
        }
        return done(m_slots[size_t(*n)]);
    }
    default: break;
    }
    stop(QStringLiteral("unknown type '%1'").arg(bytesescape::escape(QByteArray(1, type))), at);
    return -1;
}

QString Reader::keyText(int index) const
{
    const Value &k = m_values[size_t(index)];
    return k.value;
}

StepOutput Reader::run()
{
    const int root = read(0, false);
    if (root < 0)
        return fail(m_error.isEmpty() ? QStringLiteral("malformed serialize() data") : m_error, m_errorAt);
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

// Digits from 'at' on, then 'end': the position after 'end', or -1.
qsizetype digitsThen(const QByteArray &in, qsizetype at, char end)
{
    const qsizetype start = at;
    while (at < in.size() && in.at(at) >= '0' && in.at(at) <= '9')
        ++at;
    return at > start && at < in.size() && in.at(at) == end ? at + 1 : -1;
}

} // namespace

StepOutput phpSerialize(const QByteArray &input, const Limits &limits)
{
    return Reader(input, limits).run();
}

bool looksLikePhpSerialize(const QByteArray &input)
{
    if (input.startsWith("N;"))
        return true;
    if (input.size() < 4 || input.at(1) != ':')
        return false;
    switch (input.at(0)) {
    case 'b': return (input.at(2) == '0' || input.at(2) == '1') && input.at(3) == ';';
    case 'i': return digitsThen(input, input.at(2) == '-' ? 3 : 2, ';') > 0;
    case 'd': {
        // 0.5, -1.0E+25, INF, -INF, NAN
        qsizetype at = 2;
        while (at < input.size() && at < 40 && QByteArrayView("0123456789.-+EINFA").contains(input.at(at)))
            ++at;
        return at > 2 && at < input.size() && input.at(at) == ';';
    }
    case 'a': {
        const qsizetype after = digitsThen(input, 2, ':');
        return after > 0 && after < input.size() && input.at(after) == '{';
    }
    case 's':
    case 'O':
    case 'C':
    case 'E': {
        const qsizetype after = digitsThen(input, 2, ':');
        return after > 0 && after < input.size() && input.at(after) == '"';
    }
    default: return false;
    }
}

} // namespace decode::detail
