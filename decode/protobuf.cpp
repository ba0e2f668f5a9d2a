// SPDX-License-Identifier: GPL-3.0-or-later
// Protocol Buffers' wire format read without a schema, as protoc --decode_raw would: what the
// bytes say for certain, and a guess, named as one, where they do not.
//
// Certain: a message is a sequence of fields, each a tag (field number, wire type) and a value.
// The tree is a map keyed by field number ("1", "2", …) in the order the fields first appear;
// a number that occurs several times (a repeated field written unpacked) is one entry holding
// a list of its values, typed "repeated". Groups (the deprecated SGROUP … EGROUP) are maps typed
// "group".
//
// What a value means needs the schema, so each is shown as its wire type with the other
// readings in its type text:
// - VARINT: the unsigned integer ("varint"), with its zigzag reading (what sint32/sint64 mean)
//   in the type; one past 2^63 is shown as the signed 64-bit value it almost always is (a
//   negative int32/int64) with the unsigned value in the type.
// - I64 and I32: the little-endian integer ("fixed64", "fixed32"; signed when past 2^63), with
//   the double or float reading, and a fixed32's signed reading when it differs, in the type.
// - LEN: a string, bytes, a nested message or a packed repeated field. The guess: a nested
//   message ("message") when the bytes parse completely as a non-empty message of valid field
//   numbers (1 to 2^29-1) and wire types, its groups closed; but readable UTF-8 text without
//   any control character stays text, since a short word can parse as a message by accident
//   ("hi" is field 13 = 105) while a real message nearly always holds a byte below 0x20 (the
//   tags of fields 1 to 3, small lengths and numbers). Otherwise readable UTF-8 is a "string",
//   and anything else is "bytes", with the varints it would be as a packed field in the type
//   when it parses as such. Empty is "empty": text, bytes or a message with no field set.
// Bounded by Limits: nesting (deeper LEN values are not tried as messages, deeper groups are an
// error), the nodes of the tree, and the work spent on guesses.
#include "decoders_p.h"

#include "bytesescape.h"

#include <QHash>
#include <QLocale>
#include <QStringList>
#include <QtEndian>
#include <array>
#include <charconv>
#include <limits>

namespace decode::detail {

namespace {

constexpr quint64 kMaxFieldNumber = (quint64(1) << 29) - 1;
constexpr int kWorkPerNode = 64; // field reads, guesses included, per node the tree may hold

QString signedOrUnsigned(quint64 v)
{
    return v > quint64(std::numeric_limits<qint64>::max()) ? QString::number(qint64(v)) : QString::number(v);
}

QString shortest(double d)
{
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

// A float's own shortest text ("0.1", not the double 0.10000000149011612).
QString shortest(float f)
{
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), f);
    return QString::fromLatin1(buf.data(), r.ptr - buf.data());
}

class Parser
{
public:
    Parser(const QByteArray &input, const Limits &limits)
        : m_in(input), m_limits(limits), m_workLeft(qint64(limits.maxNodes) * kWorkPerNode)
    { }

    StepOutput run();

private:
    bool failAt(const QString &why, qsizetype at)
    {
        if (m_error.isEmpty()) {
            m_error = why;
            m_errorAt = at;
        }
        return false;
    }
    bool varint(qsizetype &pos, qsizetype end, quint64 *out);
    // The fields from 'pos' to 'end', into 'message'; inside a group (groupField > 0) up to its
    // end, which 'pos' is left after.
    bool fields(qsizetype &pos, qsizetype end, int depth, quint64 groupField, Node *message);
    Node lenValue(qsizetype begin, qsizetype end, int depth);
    static QString packedHint(const QByteArray &bytes);

    const QByteArray &m_in;
    const Limits &m_limits;
    qint64 m_workLeft;
    QString m_error;
    qsizetype m_errorAt = 0;
};

bool Parser::varint(qsizetype &pos, qsizetype end, quint64 *out)
{
    const qsizetype at = pos;
    quint64 v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (pos >= end)
            return failAt(QStringLiteral("the message ends inside a varint (truncated)"), pos);
        const auto b = quint8(m_in.at(pos++));
        if (shift == 63 && (b & 0x7e) != 0)
            return failAt(QStringLiteral("a varint past 64 bits"), at);
        v |= quint64(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return failAt(QStringLiteral("a varint longer than 10 bytes"), at);
}

bool Parser::fields(qsizetype &pos, qsizetype end, int depth, quint64 groupField, Node *message)
{
    message->kind = Node::Kind::Map;
    QHash<QString, qsizetype> seen; // field number → its entry
    while (pos < end) {
        if (--m_workLeft < 0)
            return failAt(QStringLiteral("more than %1 fields read").arg(qint64(m_limits.maxNodes) * kWorkPerNode),
                          pos);
        const qsizetype at = pos;
        quint64 tag = 0;
        if (!varint(pos, end, &tag))
            return false;
        const quint64 number = tag >> 3;
        const auto wireType = int(tag & 7);
        if (number == 0 || number > kMaxFieldNumber)
            return failAt(QStringLiteral("field number %1 (valid: 1 to %2)").arg(number).arg(kMaxFieldNumber), at);
        Node value;
        switch (wireType) {
        case 0: {
            quint64 v = 0;
            if (!varint(pos, end, &v))
                return false;
            value.kind = Node::Kind::Integer;
            value.value = signedOrUnsigned(v);
            QStringList type{QStringLiteral("varint")};
            if (v > quint64(std::numeric_limits<qint64>::max()))
                type << QStringLiteral("unsigned %1").arg(v);
            if (v != 0)
                type << QStringLiteral("zigzag %1").arg(qint64(v >> 1) ^ -qint64(v & 1));
            value.type = type.join(QStringLiteral(", "));
            break;
        }
        case 1: {
            if (end - pos < 8)
                return failAt(QStringLiteral("the message ends inside a fixed64 (truncated)"), pos);
            const auto v = qFromLittleEndian<quint64>(m_in.constData() + pos);
            const auto d = qFromLittleEndian<double>(m_in.constData() + pos);
            pos += 8;
            value.kind = Node::Kind::Integer;
            value.value = signedOrUnsigned(v);
            value.type = QStringLiteral("fixed64, double %1").arg(shortest(d));
            if (v > quint64(std::numeric_limits<qint64>::max()))
                value.type += QStringLiteral(", unsigned %1").arg(v);
            break;
        }
        case 2: {
            quint64 length = 0;
            if (!varint(pos, end, &length))
                return false;
            if (length > quint64(end - pos))
                return failAt(QStringLiteral("a length of %1 bytes, past the end (truncated)").arg(length), pos);
            value = lenValue(pos, pos + qsizetype(length), depth);
            pos += qsizetype(length);
            break;
        }
        case 3:
            if (depth >= m_limits.maxDepth)
                return failAt(QStringLiteral("groups nested deeper than %1").arg(m_limits.maxDepth), at);
            if (!fields(pos, end, depth + 1, number, &value))
                return false;
            value.type = QStringLiteral("group");
            break;
        case 4:
            if (number != groupField)
                return failAt(groupField == 0
                                  ? QStringLiteral("the end of group %1 without its start").arg(number)
                                  : QStringLiteral("the end of group %1 inside group %2").arg(number).arg(groupField),
                              at);
            return true;
        case 5: {
            if (end - pos < 4)
                return failAt(QStringLiteral("the message ends inside a fixed32 (truncated)"), pos);
            const auto v = qFromLittleEndian<quint32>(m_in.constData() + pos);
            const auto f = qFromLittleEndian<float>(m_in.constData() + pos);
            pos += 4;
            value.kind = Node::Kind::Integer;
            value.value = QString::number(v);
            value.type = QStringLiteral("fixed32, float %1").arg(shortest(f));
            if (v > quint32(std::numeric_limits<qint32>::max()))
                value.type += QStringLiteral(", signed %1").arg(qint32(v));
            break;
        }
        default: return failAt(QStringLiteral("unknown wire type %1 (field %2)").arg(wireType).arg(number), at);
        }
        const QString key = QString::number(number);
        const auto found = seen.constFind(key);
        if (found == seen.cend()) {
            value.key = key;
            seen.insert(key, message->children.size());
            message->children.append(std::move(value));
            continue;
        }
        Node &entry = message->children[*found];
        if (entry.kind != Node::Kind::List) { // values are never lists: this is the first repeat
            Node first = std::move(entry);
            first.key.clear();
            entry = Node{};
            entry.kind = Node::Kind::List;
            entry.type = QStringLiteral("repeated");
            entry.key = key;
            entry.children.append(std::move(first));
        }
        entry.children.append(std::move(value));
    }
    if (groupField != 0)
        return failAt(QStringLiteral("the message ends inside group %1 (truncated)").arg(groupField), pos);
    return true;
}

// The varints a packed repeated field of this content would hold, when it parses as such.
QString Parser::packedHint(const QByteArray &bytes)
{
    constexpr int kShown = 8;
    QStringList shown;
    qsizetype count = 0;
    quint64 v = 0;
    int shift = 0;
    for (const char c : bytes) {
        const auto b = quint8(c);
        if (shift > 63)
            return {};
        v |= quint64(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (++count <= kShown)
                shown << signedOrUnsigned(v);
            v = 0;
            shift = 0;
        }
    }
    if (shift != 0 || count < 2)
        return {};
    return QStringLiteral(", packed varints? %1%2")
        .arg(shown.join(QStringLiteral(" ")), count > kShown ? QStringLiteral(" …") : QString());
}

Node Parser::lenValue(qsizetype begin, qsizetype end, int depth)
{
    Node n;
    if (begin == end) {
        n.kind = Node::Kind::Text;
        n.type = QStringLiteral("empty");
        return n;
    }
    const QByteArray bytes = m_in.mid(begin, end - begin);
    const bool utf8 = bytesescape::isValidUtf8(bytes);
    bool control = false;
    bool readable = utf8;
    for (const char c : bytes) {
        if (quint8(c) < 0x20) {
            control = true;
            if (c != '\n' && c != '\r' && c != '\t')
                readable = false;
        }
    }
    if ((!readable || control) && depth < m_limits.maxDepth && m_workLeft > 0) {
        Node message;
        qsizetype pos = begin;
        const QString outerError = m_error;
        if (fields(pos, end, depth + 1, 0, &message) && !message.children.isEmpty()) {
            message.type = QStringLiteral("message");
            return message;
        }
        m_error = outerError; // a failed guess is not an error of the message
    }
    if (readable) {
        n.kind = Node::Kind::Text;
        n.type = QStringLiteral("string");
        n.value = QString::fromUtf8(bytes);
        return n;
    }
    n.kind = Node::Kind::Bytes;
    n.type = QStringLiteral("bytes") + packedHint(bytes);
    n.value = bytesescape::escape(bytes, false);
    return n;
}

StepOutput Parser::run()
{
    Node root;
    qsizetype pos = 0;
    if (!fields(pos, m_in.size(), 0, 0, &root))
        return fail(m_error, m_errorAt);
    root.type = QStringLiteral("message");
    if (root.count() > m_limits.maxNodes)
        return fail(QStringLiteral("more than %1 nodes").arg(m_limits.maxNodes), m_in.size());
    StepOutput out;
    out.tree = std::move(root);
    out.consumed = pos;
    return out;
}

} // namespace

StepOutput protobuf(const QByteArray &input, const Limits &limits)
{
    return Parser(input, limits).run();
}

} // namespace decode::detail
