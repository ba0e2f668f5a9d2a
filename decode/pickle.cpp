// SPDX-License-Identifier: GPL-3.0-or-later
// Python pickles, protocols 0 to 5, read as data and never executed: the opcodes run on a stack
// machine of plain values, and what would be a call (REDUCE, NEWOBJ, INST, OBJ, BUILD) becomes a
// node naming the class with its arguments and state. Nothing is imported, looked up or called.
#include "decoders_p.h"
#include "valuegraph.h"

#include "bytesescape.h"

#include <QLocale>
#include <QtEndian>
#include <cstring>
#include <optional>
#include <vector>

namespace decode::detail {

namespace {

// One value on the machine's stack or in its memo. Containers refer to other values by index,
// so a list memoized while empty and filled afterwards is the same list wherever it is used.
struct Value
{
    Node::Kind kind = Node::Kind::Null;
    QString type;
    QString value;
    std::vector<int> items; // List: items; Map: keys and values, alternating
    bool isGlobal = false; // a class or function named by GLOBAL / STACK_GLOBAL
};

class Machine : public AlternatingGraph<Value>
{
public:
    Machine(const QByteArray &input, const Limits &limits) : m_in(input), m_limits(limits) { }

    StepOutput run();

    // The values as a graph (valuegraph.h).
    int valueCount() const override { return int(m_values.size()); }

protected:
    const Value &graphValue(int index) const override { return m_values[size_t(index)]; }
    QString keyText(int index) const override
    {
        // A key that is not a scalar (a tuple) is named by its shape.
        const Value &key = m_values[size_t(index)];
        return key.kind == Node::Kind::List ? QStringLiteral("(%1 items)").arg(key.items.size())
            : key.kind == Node::Kind::Map   ? QStringLiteral("{%1 entries}").arg(key.items.size() / 2)
            : key.kind == Node::Kind::Null  ? QStringLiteral("None")
                                            : key.value;
    }

private:
    static constexpr int kMark = -1;

    bool need(qsizetype n)
    {
        if (m_in.size() - m_pos < n) {
            m_error = QStringLiteral("the pickle ends early (truncated)");
            return false;
        }
        return true;
    }
    quint64 unsignedLe(int n)
    {
        quint64 v = 0;
        for (int i = n - 1; i >= 0; --i)
            v = v << 8 | quint8(m_in.at(m_pos + i));
        m_pos += n;
        return v;
    }
    std::optional<QByteArray> line()
    {
        const qsizetype end = m_in.indexOf('\n', m_pos);
        if (end < 0) {
            m_error = QStringLiteral("a text argument without its end of line");
            return std::nullopt;
        }
        QByteArray l = m_in.mid(m_pos, end - m_pos);
        m_pos = end + 1;
        if (l.endsWith('\r'))
            l.chop(1);
        return l;
    }
    std::optional<QByteArray> bytes(qsizetype n)
    {
        if (n < 0 || !need(n))
            return std::nullopt;
        QByteArray b = m_in.mid(m_pos, n);
        m_pos += n;
        return b;
    }
    int add(Value v)
    {
        if (qsizetype(m_values.size()) >= m_limits.maxNodes) {
            m_error = QStringLiteral("more than %1 values").arg(m_limits.maxNodes);
            return -2;
        }
        m_values.push_back(std::move(v));
        return int(m_values.size()) - 1;
    }
    bool push(Value v)
    {
        const int i = add(std::move(v));
        if (i < 0)
            return false;
        m_stack.push_back(i);
        return true;
    }
    bool pushScalar(Node::Kind kind, const QString &value, const QString &type = {})
    {
        Value v;
        v.kind = kind;
        v.value = value;
        v.type = type;
        return push(std::move(v));
    }
    bool pushText(const QByteArray &utf8, const QString &type = {})
    {
        if (bytesescape::isValidUtf8(utf8))
            return pushScalar(Node::Kind::Text, QString::fromUtf8(utf8), type);
        return pushScalar(Node::Kind::Bytes, bytesescape::escape(utf8, false), type);
    }
    std::optional<int> pop()
    {
        if (m_stack.empty() || m_stack.back() == kMark) {
            m_error = QStringLiteral("the stack is empty where a value was expected");
            return std::nullopt;
        }
        const int v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    // The values above the topmost mark, the mark removed.
    std::optional<std::vector<int>> popMark()
    {
        std::vector<int> out;
        while (!m_stack.empty() && m_stack.back() != kMark) {
            out.push_back(m_stack.back());
            m_stack.pop_back();
        }
        if (m_stack.empty()) {
            m_error = QStringLiteral("no mark to pop to");
            return std::nullopt;
        }
        m_stack.pop_back();
        return std::vector<int>(out.rbegin(), out.rend());
    }
    int top()
    {
        if (m_stack.empty() || m_stack.back() == kMark) {
            m_error = QStringLiteral("the stack is empty where a value was expected");
            return -1;
        }
        return m_stack.back();
    }
    bool container(int index, Node::Kind kind)
    {
        if (index < 0 || m_values[size_t(index)].kind != kind) {
            m_error = kind == Node::Kind::Map ? QStringLiteral("items set on something that is not a dict")
                                              : QStringLiteral("items added to something that is not a list");
            return false;
        }
        return true;
    }
    static Value tupleOf(std::vector<int> items)
    {
        Value v;
        v.kind = Node::Kind::List;
        v.type = QStringLiteral("tuple");
        v.items = std::move(items);
        return v;
    }
    bool tuple(std::vector<int> items) { return push(tupleOf(std::move(items))); }
    bool global(const QByteArray &module, const QByteArray &name)
    {
        Value v;
        v.kind = Node::Kind::Text;
        v.type = QStringLiteral("class");
        v.value = QString::fromUtf8(module) + QLatin1Char('.') + QString::fromUtf8(name);
        v.isGlobal = true;
        return push(std::move(v));
    }
    // What a call would have made: an object named after its class, with its arguments.
    bool object(int callable, int args, int kwargs = -1)
    {
        const Value &c = m_values[size_t(callable)];
        Value v;
        v.kind = Node::Kind::Map;
        v.type = c.isGlobal ? c.value : QStringLiteral("object");
        std::vector<int> argItems = args >= 0 ? m_values[size_t(args)].items : std::vector<int>{};
        // copyreg._reconstructor(cls, base, state): protocols 0 and 1 writing an instance.
        if ((v.type == QLatin1String("copyreg._reconstructor") || v.type == QLatin1String("copy_reg._reconstructor"))
            && !argItems.empty() && m_values[size_t(argItems.front())].isGlobal) {
            v.type = m_values[size_t(argItems.front())].value;
            argItems.clear();
        }
        if (!argItems.empty()) {
            const int key = add(textValue(QStringLiteral("__args__")));
            const int list = add(tupleOf(std::move(argItems)));
            if (key < 0 || list < 0)
                return false;
            v.items = {key, list};
        }
        if (kwargs >= 0) {
            const int key = add(textValue(QStringLiteral("__kwargs__")));
            if (key < 0)
                return false;
            v.items.push_back(key);
            v.items.push_back(kwargs);
        }
        return push(std::move(v));
    }
    static Value textValue(const QString &text)
    {
        Value v;
        v.kind = Node::Kind::Text;
        v.value = text;
        return v;
    }
    // BUILD: the state joins the object: a dict's entries (or (dict, slots)) as its own.
    bool build(int objectIndex, int state)
    {
        if (objectIndex < 0)
            return false;
        Value &o = m_values[size_t(objectIndex)];
        if (o.kind != Node::Kind::Map) {
            m_error = QStringLiteral("state set on something that is not an object");
            return false;
        }
        std::vector<int> parts{state};
        const Value &s = m_values[size_t(state)];
        if (s.kind == Node::Kind::List && s.type == QLatin1String("tuple") && s.items.size() == 2)
            parts = s.items;
        for (const int p : parts) {
            const Value &part = m_values[size_t(p)];
            if (part.kind == Node::Kind::Map && part.type.isEmpty()) {
                const std::vector<int> entries = part.items; // copied: 'o' may be 'part'
                m_values[size_t(objectIndex)].items.insert(m_values[size_t(objectIndex)].items.end(), entries.begin(),
                                                           entries.end());
            } else if (part.kind != Node::Kind::Null) {
                const int key = add(textValue(QStringLiteral("__state__")));
                if (key < 0)
                    return false;
                m_values[size_t(objectIndex)].items.push_back(key);
                m_values[size_t(objectIndex)].items.push_back(p);
            }
        }
        return true;
    }
    bool memoPut(qint64 index)
    {
        const int t = top();
        if (t < 0)
            return false;
        if (index < 0 || index > m_limits.maxNodes) {
            m_error = QStringLiteral("a memo index out of range");
            return false;
        }
        if (qsizetype(m_memo.size()) <= index)
            m_memo.resize(size_t(index) + 1, -1);
        m_memo[size_t(index)] = t;
        return true;
    }
    bool memoGet(qint64 index)
    {
        if (index < 0 || index >= qint64(m_memo.size()) || m_memo[size_t(index)] < 0) {
            m_error = QStringLiteral("a memo entry that was never stored");
            return false;
        }
        m_stack.push_back(m_memo[size_t(index)]);
        return true;
    }
    bool step(quint8 op);

    const QByteArray &m_in;
    const Limits &m_limits;
    qsizetype m_pos = 0;
    std::vector<Value> m_values;
    std::vector<int> m_stack;
    std::vector<int> m_memo;
    QString m_error;
    bool m_stopped = false;
};

std::optional<qint64> decimal(const QByteArray &text)
{
    bool ok = false;
    const qint64 v = text.trimmed().toLongLong(&ok);
    return ok ? std::optional<qint64>(v) : std::nullopt;
}

// A Python 2 repr of a str: quoted, with backslash escapes.
std::optional<QByteArray> unquote(const QByteArray &repr)
{
    if (repr.size() < 2 || repr.front() != repr.back() || (repr.front() != '\'' && repr.front() != '"'))
        return std::nullopt;
    QByteArray out;
    for (qsizetype i = 1; i + 1 < repr.size(); ++i) {
        char c = repr.at(i);
        if (c != '\\' || i + 2 >= repr.size()) {
            out.append(c);
            continue;
        }
        c = repr.at(++i);
        switch (c) {
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'x':
            if (i + 2 < repr.size()) {
                out.append(QByteArray::fromHex(repr.mid(i + 1, 2)).left(1));
                i += 2;
            }
            break;
        default: out.append(c); break;
        }
    }
    return out;
}

// Python's raw-unicode-escape: \uXXXX and \UXXXXXXXX, every other byte a Latin-1 character.
QString rawUnicode(const QByteArray &text)
{
    QString out;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        const int digits = c == '\\' && i + 1 < text.size() ? (text.at(i + 1) == 'u'       ? 4
                                                                   : text.at(i + 1) == 'U' ? 8
                                                                                           : 0)
                                                            : 0;
        if (digits > 0 && i + 1 + digits < text.size()) {
            bool ok = false;
            const uint code = text.mid(i + 2, digits).toUInt(&ok, 16);
            if (ok) {
                const char32_t cp = char32_t(code);
                out += QString::fromUcs4(&cp, 1);
                i += 1 + digits;
                continue;
            }
        }
        out += QChar(char16_t(uchar(c)));
    }
    return out;
}

// LONG1/LONG4: little-endian two's complement of any length.
QString longText(const QByteArray &b)
{
    if (b.isEmpty())
        return QStringLiteral("0");
    if (b.size() <= 8) {
        quint64 v = 0;
        for (qsizetype i = b.size() - 1; i >= 0; --i)
            v = v << 8 | quint8(b.at(i));
        if (b.size() < 8 && (quint8(b.back()) & 0x80))
            v |= ~quint64(0) << (8 * b.size()); // sign-extend
        return QString::number(qint64(v));
    }
    // Wider: hexadecimal, big-endian (an exact value without arbitrary precision here).
    QByteArray be;
    for (qsizetype i = b.size() - 1; i >= 0; --i)
        be.append(b.at(i));
    return QStringLiteral("0x%1").arg(QString::fromLatin1(be.toHex()));
}

bool Machine::step(quint8 op)
{
    switch (op) {
    case 0x80: // PROTO
        if (!need(1))
            return false;
        if (quint8(m_in.at(m_pos)) > 5) {
            m_error = QStringLiteral("pickle protocol %1 (this reader knows 0 to 5)").arg(quint8(m_in.at(m_pos)));
            return false;
        }
        ++m_pos;
        return true;
    case 0x95: // FRAME: a length hint only
        if (!need(8))
            return false;
        m_pos += 8;
        return true;
    case '.': m_stopped = true; return true;
    case '(': m_stack.push_back(kMark); return true;
    case '0': return pop().has_value();
    case '1': return popMark().has_value();
    case '2': {
        const int t = top();
        if (t < 0)
            return false;
        m_stack.push_back(t);
        return true;
    }
    case 'N': return pushScalar(Node::Kind::Null, QStringLiteral("None"));
    case 0x88: return pushScalar(Node::Kind::Bool, QStringLiteral("true"));
    case 0x89: return pushScalar(Node::Kind::Bool, QStringLiteral("false"));
    case 'I': {
        const auto l = line();
        if (!l)
            return false;
        if (*l == "01" || *l == "00")
            return pushScalar(Node::Kind::Bool, *l == "01" ? QStringLiteral("true") : QStringLiteral("false"));
        const auto v = decimal(*l);
        if (!v) {
            m_error = QStringLiteral("INT is not a number");
            return false;
        }
        return pushScalar(Node::Kind::Integer, QString::number(*v));
    }
    case 'J':
        if (!need(4))
            return false;
        return pushScalar(Node::Kind::Integer, QString::number(qint32(unsignedLe(4))));
    case 'K':
        if (!need(1))
            return false;
        return pushScalar(Node::Kind::Integer, QString::number(unsignedLe(1)));
    case 'M':
        if (!need(2))
            return false;
        return pushScalar(Node::Kind::Integer, QString::number(unsignedLe(2)));
    case 'L': {
        auto l = line();
        if (!l)
            return false;
        if (l->endsWith('L'))
            l->chop(1);
        const auto v = decimal(*l);
        return pushScalar(Node::Kind::Integer, v ? QString::number(*v) : QString::fromLatin1(*l));
    }
    case 0x8a:
    case 0x8b: {
        const int width = op == 0x8a ? 1 : 4;
        if (!need(width))
            return false;
        const qint64 n = op == 0x8a ? qint64(unsignedLe(1)) : qint64(qint32(unsignedLe(4)));
        const auto b = bytes(n);
        return b && pushScalar(Node::Kind::Integer, longText(*b));
    }
    case 'F': {
        const auto l = line();
        bool ok = false;
        const double d = l ? l->toDouble(&ok) : 0;
        if (!ok) {
            m_error = QStringLiteral("FLOAT is not a number");
            return false;
        }
        return pushScalar(Node::Kind::Real, QString::number(d, 'g', QLocale::FloatingPointShortest));
    }
    case 'G': {
        if (!need(8))
            return false;
        const double d = qFromBigEndian<double>(m_in.constData() + m_pos);
        m_pos += 8;
        return pushScalar(Node::Kind::Real, QString::number(d, 'g', QLocale::FloatingPointShortest));
    }
    case 'S': {
        const auto l = line();
        const auto s = l ? unquote(*l) : std::nullopt;
        if (!s) {
            m_error = QStringLiteral("STRING is not a quoted string");
            return false;
        }
        return pushText(*s, QStringLiteral("str (Python 2)"));
    }
    case 'T':
    case 'U': {
        const int width = op == 'T' ? 4 : 1;
        if (!need(width))
            return false;
        const auto b = bytes(qint64(op == 'T' ? qint32(unsignedLe(4)) : qint32(unsignedLe(1))));
        return b && pushText(*b, QStringLiteral("str (Python 2)"));
    }
    case 'V': {
        const auto l = line();
        return l && pushScalar(Node::Kind::Text, rawUnicode(*l));
    }
    case 'X':
    case 0x8c:
    case 0x8d:
    case 'B':
    case 'C':
    case 0x8e:
    case 0x96: {
        const int width = (op == 0x8c || op == 'C') ? 1 : (op == 0x8d || op == 0x8e || op == 0x96) ? 8 : 4;
        if (!need(width))
            return false;
        const quint64 n = unsignedLe(width);
        if (n > quint64(m_in.size())) {
            m_error = QStringLiteral("a length of %1 bytes, longer than the pickle").arg(n);
            return false;
        }
        const auto b = bytes(qint64(n));
        if (!b)
            return false;
        if (op == 'X' || op == 0x8c || op == 0x8d) {
            if (!bytesescape::isValidUtf8(*b)) {
                m_error = QStringLiteral("a str that is not UTF-8");
                return false;
            }
            return pushScalar(Node::Kind::Text, QString::fromUtf8(*b));
        }
        return pushScalar(Node::Kind::Bytes, bytesescape::escape(*b, false),
                          op == 0x96 ? QStringLiteral("bytearray") : QString());
    }
    case ']':
    case '}':
    case ')':
    case 0x8f: {
        Value v;
        v.kind = op == '}' ? Node::Kind::Map : Node::Kind::List;
        if (op == ')')
            v.type = QStringLiteral("tuple");
        else if (op == 0x8f)
            v.type = QStringLiteral("set");
        return push(std::move(v));
    }
    case 'l':
    case 't':
    case 'd':
    case 0x91: {
        auto items = popMark();
        if (!items)
            return false;
        if (op == 'd' && items->size() % 2 != 0) {
            m_error = QStringLiteral("DICT with a key and no value");
            return false;
        }
        Value v;
        v.kind = op == 'd' ? Node::Kind::Map : Node::Kind::List;
        v.type = op == 't' ? QStringLiteral("tuple") : op == 0x91 ? QStringLiteral("frozenset") : QString();
        v.items = std::move(*items);
        return push(std::move(v));
    }
    case 0x85:
    case 0x86:
    case 0x87: {
        const int n = op - 0x84;
        std::vector<int> items(static_cast<size_t>(n));
        for (int i = n - 1; i >= 0; --i) {
            const auto v = pop();
            if (!v)
                return false;
            items[size_t(i)] = *v;
        }
        return tuple(std::move(items));
    }
    case 'a': {
        const auto v = pop();
        const int list = top();
        if (!v || !container(list, Node::Kind::List))
            return false;
        m_values[size_t(list)].items.push_back(*v);
        return true;
    }
    case 'e':
    case 0x90: {
        const auto items = popMark();
        const int list = top();
        if (!items || !container(list, Node::Kind::List))
            return false;
        auto &dst = m_values[size_t(list)].items;
        dst.insert(dst.end(), items->begin(), items->end());
        return true;
    }
    case 's': {
        const auto value = pop();
        const auto key = pop();
        const int dict = top();
        if (!value || !key || !container(dict, Node::Kind::Map))
            return false;
        m_values[size_t(dict)].items.push_back(*key);
        m_values[size_t(dict)].items.push_back(*value);
        return true;
    }
    case 'u': {
        const auto items = popMark();
        const int dict = top();
        if (!items || !container(dict, Node::Kind::Map))
            return false;
        if (items->size() % 2 != 0) {
            m_error = QStringLiteral("SETITEMS with a key and no value");
            return false;
        }
        auto &dst = m_values[size_t(dict)].items;
        dst.insert(dst.end(), items->begin(), items->end());
        return true;
    }
    case 'p': {
        const auto l = line();
        const auto i = l ? decimal(*l) : std::nullopt;
        return i && memoPut(*i);
    }
    case 'q': return need(1) && memoPut(qint64(unsignedLe(1)));
    case 'r': return need(4) && memoPut(qint64(unsignedLe(4)));
    case 0x94: return memoPut(qint64(m_memo.size()));
    case 'g': {
        const auto l = line();
        const auto i = l ? decimal(*l) : std::nullopt;
        return i && memoGet(*i);
    }
    case 'h': return need(1) && memoGet(qint64(unsignedLe(1)));
    case 'j': return need(4) && memoGet(qint64(unsignedLe(4)));
    case 'c': {
        const auto module = line();
        const auto name = module ? line() : std::nullopt;
        return name && global(*module, *name);
    }
    case 0x93: {
        const auto name = pop();
        const auto module = pop();
        if (!name || !module)
            return false;
        return global(m_values[size_t(*module)].value.toUtf8(), m_values[size_t(*name)].value.toUtf8());
    }
    case 'R':
    case 0x81: {
        const auto args = pop();
        const auto callable = pop();
        return args && callable && object(*callable, *args);
    }
    case 0x92: {
        const auto kwargs = pop();
        const auto args = pop();
        const auto cls = pop();
        return kwargs && args && cls && object(*cls, *args, *kwargs);
    }
    case 'i': {
        const auto module = line();
        const auto name = module ? line() : std::nullopt;
        auto items = name ? popMark() : std::nullopt;
        if (!items || !global(*module, *name))
            return false;
        const int cls = m_stack.back();
        m_stack.pop_back();
        const int a = add(tupleOf(std::move(*items)));
        return a >= 0 && object(cls, a);
    }
    case 'o': {
        auto items = popMark();
        if (!items || items->empty()) {
            if (items)
                m_error = QStringLiteral("OBJ without a class");
            return false;
        }
        const int cls = items->front();
        const int a = add(tupleOf(std::vector<int>(items->begin() + 1, items->end())));
        return a >= 0 && object(cls, a);
    }
    case 'b': {
        const auto state = pop();
        return state && build(top(), *state);
    }
    case 'P': {
        const auto l = line();
        return l && pushText(*l, QStringLiteral("persistent id"));
    }
    case 'Q': {
        const auto id = pop();
        if (!id)
            return false;
        Value v = m_values[size_t(*id)];
        v.type = QStringLiteral("persistent id");
        return push(std::move(v));
    }
    case 0x82:
    case 0x83:
    case 0x84: {
        const int width = op == 0x82 ? 1 : op == 0x83 ? 2 : 4;
        if (!need(width))
            return false;
        return pushScalar(Node::Kind::Integer, QString::number(unsignedLe(width)), QStringLiteral("extension code"));
    }
    case 0x97: return pushScalar(Node::Kind::Null, QStringLiteral("out-of-band buffer"), QStringLiteral("buffer"));
    case 0x98: return true; // READONLY_BUFFER: the buffer on the stack stays as it is
    default: break;
    }
    m_error = QStringLiteral("unknown opcode 0x%1").arg(op, 2, 16, QLatin1Char('0'));
    return false;
}

StepOutput Machine::run()
{
    while (!m_stopped) {
        if (m_pos >= m_in.size())
            return fail(QStringLiteral("the pickle ends without STOP (truncated)"), m_pos);
        const qsizetype at = m_pos;
        const auto op = quint8(m_in.at(m_pos++));
        if (!step(op))
            return fail(m_error.isEmpty() ? QStringLiteral("a malformed pickle") : m_error, at);
        if (m_stack.size() > size_t(m_limits.maxNodes))
            return fail(QStringLiteral("a stack deeper than %1").arg(m_limits.maxNodes), at);
    }
    if (m_pos < m_in.size())
        return fail(QStringLiteral("%1 bytes after STOP").arg(m_in.size() - m_pos), m_pos);
    if (m_stack.size() != 1 || m_stack.back() == kMark)
        return fail(QStringLiteral("STOP with %1 values on the stack").arg(m_stack.size()), m_pos);
    QString why;
    StepOutput out;
    out.tree = buildTree(*this, m_stack.back(), m_limits, &why);
    if (!out.tree)
        return fail(why, m_pos);
    out.consumed = m_pos;
    return out;
}

} // namespace

StepOutput pickle(const QByteArray &input, const Limits &limits)
{
    return Machine(input, limits).run();
}

bool looksLikePickle(const QByteArray &input)
{
    if (input.size() < 2 || input.back() != '.')
        return false;
    const auto first = quint8(input.at(0));
    if (first == 0x80)
        return quint8(input.at(1)) >= 2 && quint8(input.at(1)) <= 5;
    // Protocols 0 and 1 start with a mark, an empty container, a global or a scalar.
    return first == '(' || first == ']' || first == '}' || first == ')' || first == 'c' || first == 'N' || first == 'I'
        || first == 'L' || first == 'F' || first == 'S' || first == 'V' || first == 'X' || first == 'U' || first == 'T'
        || first == 'J' || first == 'K' || first == 'M' || first == 'G';
}

} // namespace decode::detail
