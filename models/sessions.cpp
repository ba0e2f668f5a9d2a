// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessions.h"

#include "bytesescape.h"
#include "decoders.h"
#include "format.h"
#include "masking.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <limits>

// ---- headless session logic ----

namespace sessions {

QString keyNameIssue(const QByteArray &key)
{
    // Latin-1 maps every byte to one character, so the patterns see the name as it is.
    const QString name = QString::fromLatin1(key);
    static const QRegularExpression email(
        QStringLiteral("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}"));
    static const QRegularExpression jwt(QStringLiteral("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\."));
    static const QRegularExpression secret(
        QStringLiteral("(token|password|passwd|secret|api_?key|bearer|jwt|csrf)[=:][^:]{6,}"),
        QRegularExpression::CaseInsensitiveOption);
    if (email.match(name).hasMatch())
        return QCoreApplication::translate("Sessions", "name holds an e-mail address");
    if (jwt.match(name).hasMatch())
        return QCoreApplication::translate("Sessions", "name holds a JWT");
    if (secret.match(name).hasMatch())
        return QCoreApplication::translate("Sessions", "name holds a secret (%1)").arg(secret.match(name).captured(1));
    return {};
}

QByteArray familyPrefix(const QString &family)
{
    const qsizetype brace = family.indexOf(QLatin1Char('{'));
    return (brace < 0 ? family : family.left(brace)).toUtf8();
}

QString lifetimeName(Lifetime lifetime)
{
    switch (lifetime) {
    case Lifetime::Unknown: return QCoreApplication::translate("Sessions", "not known yet");
    case Lifetime::Sliding: return QCoreApplication::translate("Sessions", "sliding");
    case Lifetime::Fixed: return QCoreApplication::translate("Sessions", "fixed");
    case Lifetime::NoTtl: return QCoreApplication::translate("Sessions", "no TTL");
    }
    return {};
}

Lifetime observe(Lifetime previous, qint64 previousExpireAtMs, qint64 expireAtMs, qint64 toleranceMs)
{
    if (expireAtMs == -1)
        return Lifetime::NoTtl;
    if (expireAtMs == ttl::kUnknown)
        return previous;
    if (previousExpireAtMs < 0) // first reading with a TTL
        return previous == Lifetime::NoTtl ? Lifetime::Unknown : previous;
    if (expireAtMs - previousExpireAtMs > toleranceMs)
        return Lifetime::Sliding;
    // Once seen touched it stays sliding: a quiet minute does not make a lifetime fixed.
    return previous == Lifetime::Sliding ? Lifetime::Sliding : Lifetime::Fixed;
}

Contents Contents::fromHash(const QByteArray &key, const QList<QPair<QByteArray, QByteArray>> &pairs, bool truncated)
{
    Contents c;
    c.key = key;
    c.type = KeyType::Hash;
    c.truncated = truncated;
    for (const auto &p : pairs) {
        Field f;
        f.name = p.first;
        f.value = p.second;
        f.secret = masking::isSecretName(p.first);
        const QByteArray hidden = masking::maskedValue(&p.first, p.second);
        f.masked = hidden.isNull() ? p.second : hidden; // the mask, or a JSON value with secrets inside
        c.fields.append(f);
    }
    return c;
}

Contents Contents::fromString(const QByteArray &key, const QByteArray &value, bool truncated)
{
    Contents c;
    c.key = key;
    c.type = KeyType::String;
    c.truncated = truncated;
    QJsonParseError error;
    const QJsonDocument doc = truncated ? QJsonDocument() : QJsonDocument::fromJson(value, &error);
    if (!doc.isNull() && doc.isObject()) {
        c.json = true;
        const QJsonObject o = doc.object();
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            Field f;
            f.name = it.key().toUtf8();
            f.value = masking::jsonText(it.value());
            f.secret = masking::isSecretName(f.name) && !it.value().isNull();
            int count = 0;
            f.masked = f.secret ? masking::maskText().toUtf8()
                                : masking::jsonText(masking::maskJsonValue(it.value(), count));
            c.fields.append(f);
        }
        return c;
    }
    // Sessions are often pickled (Flask-Session, Django), MessagePack, PHP serialize() or Ruby
    // Marshal: a value that decodes to a map shows its entries as fields, each masked by its
    // name or by what it holds, as JSON's are.
    const std::optional<masking::DecodedInline> d = truncated ? std::nullopt : masking::decodeInline(value);
    if (d && d->result.tree->kind == decode::Node::Kind::Map && !d->result.tree->children.isEmpty()) {
        c.decoded = d->result.chainText();
        // One line a field, as a JSON object's are: a nested structure as compact JSON. The
        // masked tree has the same entries in the same order, a secret-named one as the mask.
        const auto text = [](const decode::Node &n) {
            return n.isContainer() ? masking::jsonText(decode::toJson(n)) : n.value.toUtf8();
        };
        const QList<decode::Node> &entries = d->result.tree->children;
        for (qsizetype i = 0; i < entries.size(); ++i) {
            Field f;
            f.name = entries.at(i).key.toUtf8();
            f.value = text(entries.at(i));
            const bool null = entries.at(i).kind == decode::Node::Kind::Null;
            f.secret = masking::isSecretName(f.name) && !null;
            f.masked = null ? f.value : text(d->masked.children.at(i)); // a null hides nothing
            c.fields.append(f);
        }
        return c;
    }
    Field f;
    f.name = "(value)";
    f.value = value;
    const QByteArray hidden = truncated ? QByteArray() : masking::maskedValue(nullptr, value);
    f.masked = hidden.isNull() ? value : hidden;
    c.fields.append(f);
    return c;
}

int Contents::maskedCount() const
{
    return int(std::count_if(fields.cbegin(), fields.cend(), [](const Field &f) { return f.hasMasked(); }));
}

} // namespace sessions

// ---- what a round means ----

namespace {

qint64 median(QList<qint64> v)
{
    if (v.isEmpty())
        return -1;
    const auto mid = v.begin() + v.size() / 2;
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

} // namespace

SessionsSummary sessions::analyze(QList<SessionRow> &rows, const QList<SessionIndexRow> &indexes, qint64 now)
{
    // Size outliers against their family's median, in bytes where MEMORY USAGE answered.
    QHash<QString, QList<qint64>> bytes, elements;
    for (const SessionRow &r : std::as_const(rows)) {
        if (r.memoryBytes >= 0)
            bytes[r.family].append(r.memoryBytes);
        if (r.elements >= 0) // bytes of a string and fields of a hash do not compare
            elements[r.family + QString::number(int(r.type))].append(r.elements);
    }
    QHash<QString, qint64> medianBytes, medianElements;
    for (auto it = bytes.cbegin(); it != bytes.cend(); ++it)
        if (it->size() >= kOutlierMinSessions)
            medianBytes.insert(it.key(), median(*it));
    for (auto it = elements.cbegin(); it != elements.cend(); ++it)
        if (it->size() >= kOutlierMinSessions)
            medianElements.insert(it.key(), median(*it));

    SessionsSummary s;
    s.nowMs = now;
    for (SessionRow &r : rows) {
        const qint64 mb = medianBytes.value(r.family, -1);
        const qint64 me = medianElements.value(r.family + QString::number(int(r.type)), -1);
        if (r.memoryBytes >= 0 && mb > 0)
            r.sizeFactor = double(r.memoryBytes) / double(mb);
        else if (r.elements >= 0 && me > 0)
            r.sizeFactor = double(r.elements) / double(me);
        else
            r.sizeFactor = 0;
        r.outlier = r.sizeFactor >= kOutlierFactor;
        ++s.sessions;
        switch (r.lifetime) {
        case sessions::Lifetime::NoTtl: ++s.noTtl; break;
        case sessions::Lifetime::Sliding: ++s.sliding; break;
        case sessions::Lifetime::Fixed: ++s.fixed; break;
        case sessions::Lifetime::Unknown: ++s.unknownLifetime; break;
        }
        s.outliers += r.outlier ? 1 : 0;
        s.nameIssues += r.nameIssue.isEmpty() ? 0 : 1;
        if (r.expireAtMs == -1) {
            ++s.buckets[ttlbucket::NoTtl];
        } else if (r.expireAtMs >= 0) {
            const int b = ttlbucket::forRemaining(r.expireAtMs - now);
            if (b >= 0)
                ++s.buckets[size_t(b)];
        }
    }
    s.indexes = int(indexes.size());
    for (const SessionIndexRow &r : std::as_const(indexes))
        s.dangling += r.dangling.size();
    return s;
}

// ---- contents model ----

SessionContentsModel::SessionContentsModel(QObject *parent)
    : RowListModel([](const sessions::Field &f) { return f.name; }, ColumnCount, -1, parent)
{ }

void SessionContentsModel::setContents(const sessions::Contents &contents)
{
    m_contents = contents;
    setRows(contents.fields);
}

void SessionContentsModel::setRevealed(bool revealed)
{
    if (revealed == m_revealed)
        return;
    m_revealed = revealed;
    if (!rows().isEmpty())
        Q_EMIT dataChanged(index(0, ValueColumn), index(int(rows().size()) - 1, ValueColumn));
}

QVariant SessionContentsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const sessions::Field &f = rows().at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == FieldColumn)
            return bytesescape::escape(f.name);
        return bytesescape::escapeElided(m_revealed ? f.value : f.masked, 2000);
    case Qt::ToolTipRole:
        if (index.column() == ValueColumn && f.hasMasked())
            return m_revealed ? tr("A secret, shown because Reveal is on.")
                              : tr("Masked: the name looks like a secret.");
        return {};
    case KeyRole: return f.name;
    case MaskedRole: return f.hasMasked();
    }
    return {};
}

QVariant SessionContentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return section == FieldColumn ? tr("Field") : tr("Value");
}

// ---- rows ----

Severity SessionRow::severity() const
{
    if (lifetime == sessions::Lifetime::NoTtl)
        return Severity::Bad;
    return outlier || !nameIssue.isEmpty() ? Severity::Warning : Severity::None;
}

QString SessionRow::flags() const
{
    QStringList out;
    if (lifetime == sessions::Lifetime::NoTtl)
        out << QCoreApplication::translate("Sessions", "no TTL: never expires");
    if (outlier)
        out << QCoreApplication::translate("Sessions", "%1× the family's median size").arg(sizeFactor, 0, 'f', 1);
    if (!nameIssue.isEmpty())
        out << nameIssue;
    return out.join(QStringLiteral("; "));
}

Severity SessionIndexRow::severity() const
{
    return dangling.isEmpty() && error.isEmpty() ? Severity::None : Severity::Warning;
}

// ---- session models ----

namespace {

QVariant right()
{
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

QList<RowTableModel<SessionRow>::Column> sessionColumns(const SessionsModel *model)
{
    const auto ttlCell = [model](const SessionRow &r, int role) -> QVariant {
        if (role == Qt::TextAlignmentRole)
            return right();
        if (role == SessionsModel::SortRole)
            return r.expireAtMs == -1 ? std::numeric_limits<qint64>::max() : r.expireAtMs;
        if (role != Qt::DisplayRole)
            return {};
        return r.expireAtMs == ttl::kUnknown ? QObject::tr("unknown") : format::ttl(r.expireAtMs, model->now());
    };
    return {{QObject::tr("Session"),
             [](const SessionRow &r, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return bytesescape::quoteIfNeeded(r.key);
                 if (role == Qt::ToolTipRole)
                     return QObject::tr("family %1, %2").arg(r.family, keyTypeName(r.type));
                 return {};
             }},
            {QObject::tr("TTL left"), ttlCell},
            {QObject::tr("Lifetime"),
             [](const SessionRow &r, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return sessions::lifetimeName(r.lifetime);
                 if (role == Qt::ToolTipRole)
                     return QObject::tr(
                         "Sliding: the expiry moved forward between two reads (the session was used). Fixed: it "
                         "stayed put. Known after two reads with a TTL.");
                 return {};
             }},
            {QObject::tr("Size"),
             [](const SessionRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == SessionsModel::SortRole)
                     return r.memoryBytes >= 0 ? r.memoryBytes : r.elements;
                 if (role == Qt::ToolTipRole)
                     return QObject::tr("MEMORY USAGE, with %1 %2").arg(r.elements).arg(keyTypeLengthUnit(r.type));
                 if (role != Qt::DisplayRole)
                     return {};
                 if (r.memoryBytes >= 0)
                     return format::bytes(r.memoryBytes);
                 return r.elements >= 0
                     ? QStringLiteral("%1 %2").arg(format::count(quint64(r.elements)), keyTypeLengthUnit(r.type))
                     : QStringLiteral("—");
             }},
            {QObject::tr("Flags"), [](const SessionRow &r, int role) -> QVariant {
                 if (role == SessionsModel::SortRole)
                     return int(r.severity());
                 return role == Qt::DisplayRole || role == Qt::ToolTipRole ? r.flags() : QVariant();
             }}};
}

QList<RowTableModel<SessionIndexRow>::Column> indexColumns()
{
    return {{QObject::tr("Index"),
             [](const SessionIndexRow &r, int role) -> QVariant {
                 if (role == Qt::DisplayRole)
                     return bytesescape::quoteIfNeeded(r.key);
                 if (role == Qt::ToolTipRole)
                     return r.sessionPrefix.isEmpty() ? QObject::tr("No session family known to join ids to.")
                                                      : QObject::tr("ids joined to %1 to find their session")
                                                            .arg(bytesescape::quoteIfNeeded(r.sessionPrefix));
                 return {};
             }},
            {QObject::tr("Ids"),
             [](const SessionIndexRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == SessionIndexesModel::SortRole)
                     return r.cardinality;
                 if (role != Qt::DisplayRole)
                     return {};
                 return r.cardinality < 0 ? QStringLiteral("—") : format::count(quint64(r.cardinality));
             }},
            {QObject::tr("TTL"),
             [](const SessionIndexRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == SessionIndexesModel::SortRole)
                     return r.pttlMs;
                 if (role != Qt::DisplayRole)
                     return {};
                 return r.pttlMs == -1 ? QObject::tr("no TTL")
                     : r.pttlMs >= 0   ? format::duration(r.pttlMs)
                                       : QStringLiteral("—");
             }},
            {QObject::tr("Dangling"),
             [](const SessionIndexRow &r, int role) -> QVariant {
                 if (role == Qt::TextAlignmentRole)
                     return right();
                 if (role == SessionIndexesModel::SortRole)
                     return r.dangling.size();
                 if (role == Qt::ToolTipRole)
                     return r.complete ? QObject::tr("Every id was checked.")
                                       : QObject::tr("The first %1 ids were checked (bounded read).").arg(r.scanned);
                 if (role != Qt::DisplayRole)
                     return {};
                 return r.complete ? QString::number(r.dangling.size())
                                   : QObject::tr("%1 of first %2").arg(r.dangling.size()).arg(r.scanned);
             }},
            {QObject::tr("Dangling ids"), [](const SessionIndexRow &r, int role) -> QVariant {
                 if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
                     return {};
                 if (!r.error.isEmpty())
                     return r.error;
                 QStringList ids;
                 for (const QByteArray &id : r.dangling.mid(0, role == Qt::DisplayRole ? 5 : 50))
                     ids << bytesescape::quoteIfNeeded(id);
                 if (r.dangling.size() > ids.size())
                     ids << QStringLiteral("…");
                 return ids.join(QStringLiteral(", "));
             }}};
}

} // namespace

SessionsModel::SessionsModel(QObject *parent)
    : RowTableModel(sessionColumns(this),
                    {[](const SessionRow &r) { return r.key; }, [](const SessionRow &r) { return r.severity(); },
                     [](const SessionRow &r) { return r.type; }},
                    parent)
{ }

SessionIndexesModel::SessionIndexesModel(QObject *parent)
    : RowTableModel(indexColumns(),
                    {[](const SessionIndexRow &r) { return r.key; },
                     [](const SessionIndexRow &r) { return r.severity(); },
                     [](const SessionIndexRow &) { return KeyType::Set; }},
                    parent)
{ }
