// SPDX-License-Identifier: GPL-3.0-or-later
#include "luaresult.h"

#include "bytesescape.h"
#include "decoders.h"
#include "keptaside.h"
#include "masking.h"
#include "threadcheck.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace luaresult {

int errorLine(const QByteArray &error, QString *message)
{
    const QString text = QString::fromUtf8(error);
    // The call site ("on @user_script:2.") is where a redis.call failed; the plain form is
    // where Lua itself stopped (compile errors, error(), indexing nil). Either names the line.
    static const QRegularExpression lineRe(QStringLiteral("(?:@?user_script|f_[0-9a-f]{40}):(\\d+)"));
    const QRegularExpressionMatch m = lineRe.match(text);
    if (message) {
        QString shown = text;
        static const QRegularExpression noise(
            QStringLiteral("^ERR (?:Error compiling script \\(new function\\): |Error running script \\(call to "
                           "f_[0-9a-f]{40}\\): )?"));
        shown.remove(noise);
        static const QRegularExpression where(QStringLiteral("^(?:@?user_script|f_[0-9a-f]{40}):\\d+: "));
        shown.remove(where);
        static const QRegularExpression tail(QStringLiteral(" script: [0-9a-f]{40}, on @user_script:\\d+\\.?$"));
        shown.remove(tail);
        *message = shown.trimmed();
    }
    if (!m.hasMatch())
        return 0;
    return m.captured(1).toInt();
}

namespace {

// CRC16/XMODEM (polynomial 0x1021, initial value 0), as the Redis Cluster spec defines it.
quint16 crc16(const char *data, qsizetype length)
{
    quint16 crc = 0;
    for (qsizetype i = 0; i < length; ++i) {
        crc ^= quint16(quint8(data[i])) << 8;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? quint16((crc << 1) ^ 0x1021) : quint16(crc << 1);
    }
    return crc;
}

} // namespace

quint16 keySlot(const QByteArray &key)
{
    // Only the part between the first '{' and the next '}' counts, and only when non-empty.
    const qsizetype open = key.indexOf('{');
    if (open >= 0) {
        const qsizetype close = key.indexOf('}', open + 1);
        if (close > open + 1)
            return crc16(key.constData() + open + 1, close - open - 1) & 16383;
    }
    return crc16(key.constData(), key.size()) & 16383;
}

bool keysInOneSlot(const QList<QByteArray> &keys, QList<QByteArray> *offending)
{
    if (offending)
        offending->clear();
    if (keys.size() < 2)
        return true;
    const quint16 first = keySlot(keys.first());
    bool one = true;
    for (qsizetype i = 1; i < keys.size(); ++i) {
        if (keySlot(keys.at(i)) != first) {
            one = false;
            if (offending)
                offending->append(keys.at(i));
        }
    }
    return one;
}

QString summary(const RedisValue &value)
{
    switch (value.kind()) {
    case RedisValue::Kind::Invalid: return QStringLiteral("no reply");
    case RedisValue::Kind::Nil: return QStringLiteral("nil");
    case RedisValue::Kind::Integer: return QStringLiteral("integer %1").arg(value.toInteger());
    case RedisValue::Kind::Error: return QStringLiteral("error: %1").arg(bytesescape::escapeElided(value.bytes(), 120));
    case RedisValue::Kind::Status: return QStringLiteral("status %1").arg(bytesescape::escapeElided(value.bytes(), 80));
    case RedisValue::Kind::Array:
    case RedisValue::Kind::Set:
    case RedisValue::Kind::Push:
        return value.size() == 0 ? QStringLiteral("empty array") : QStringLiteral("array of %1").arg(value.size());
    case RedisValue::Kind::Map: return QStringLiteral("map of %1").arg(value.size() / 2);
    case RedisValue::Kind::Bool:
        return QStringLiteral("boolean %1").arg(value.toInteger() ? QStringLiteral("true") : QStringLiteral("false"));
    case RedisValue::Kind::Double:
    case RedisValue::Kind::BigNumber:
        return QStringLiteral("%1 %2").arg(kindName(value.kind()), QString::fromLatin1(value.bytes()));
    case RedisValue::Kind::Bulk:
    case RedisValue::Kind::Verbatim: return QStringLiteral("bulk %1").arg(bytesescape::escapeElided(value.bytes(), 80));
    }
    return {};
}

} // namespace luaresult

// ---------------------------------------------------------------------------------------------

LuaResultModel::LuaResultModel(QObject *parent) : QAbstractItemModel(parent)
{ }

LuaResultModel::~LuaResultModel() = default;

int LuaResultModel::addNode(const RedisValue *value, int parent, int row)
{
    const int id = int(m_nodes.size());
    m_nodes.push_back(Node{value, parent, row, {}});
    if (value->isArray()) {
        QList<int> children;
        children.reserve(value->size());
        for (qsizetype i = 0; i < value->size(); ++i)
            children.append(addNode(&value->elements().at(i), id, int(i)));
        m_nodes[size_t(id)].children = std::move(children);
    }
    return id;
}

void LuaResultModel::setResult(const RedisValue &value, bool resp2)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    beginResetModel();
    m_nodes.clear();
    m_value = value;
    m_resp2 = resp2;
    // Nodes point into m_value, which no longer changes until the next reset.
    addNode(&m_value, -1, 0);
    decodeBulks();
    endResetModel();
}

void LuaResultModel::decodeBulks()
{
    // A script often returns what it read: a pickled job, a MessagePack session. Each bulk
    // string is decoded as the value viewer decodes it, within a budget (the reply is shown on
    // the GUI thread); secrets are masked in what decoding finds.
    QElapsedTimer spent;
    spent.start();
    for (Node &n : m_nodes) {
        if (spent.elapsed() >= kDecodeBudgetMs)
            return;
        if (n.value->kind() != RedisValue::Kind::Bulk)
            continue;
        const std::optional<masking::DecodedInline> d = masking::decodeInline(n.value->bytes());
        // Plain JSON reads as it is.
        if (!d || (d->result.steps.size() == 1 && d->result.steps.constFirst().format == decode::Format::Json))
            continue;
        n.chain = d->result.chainText();
        n.decoded = decode::treeText(d->masked, 2000);
    }
}

void LuaResultModel::clear()
{
    beginResetModel();
    m_nodes.clear();
    m_value = RedisValue();
    endResetModel();
}

void LuaResultModel::setHexMode(bool on)
{
    if (on == m_hex)
        return;
    m_hex = on;
    if (!m_nodes.empty()) {
        // Every level may hold bulks; a reset is cheaper than a dataChanged per parent.
        beginResetModel();
        endResetModel();
    }
}

QModelIndex LuaResultModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        if (row != 0 || m_nodes.empty())
            return {};
        return createIndex(row, column, quintptr(0));
    }
    const Node &p = m_nodes[size_t(parent.internalId())];
    if (row >= p.children.size())
        return {};
    return createIndex(row, column, quintptr(p.children.at(row)));
}

QModelIndex LuaResultModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node &n = m_nodes[size_t(child.internalId())];
    if (n.parent < 0)
        return {};
    return createIndex(m_nodes[size_t(n.parent)].row, 0, quintptr(n.parent));
}

int LuaResultModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return m_nodes.empty() ? 0 : 1;
    if (parent.column() != 0)
        return 0;
    return int(m_nodes[size_t(parent.internalId())].children.size());
}

int LuaResultModel::columnCount(const QModelIndex &parent) const
{
    Q_UNUSED(parent)
    return ColumnCount;
}

QString LuaResultModel::valueText(const Node &node) const
{
    const RedisValue &v = *node.value;
    switch (v.kind()) {
    case RedisValue::Kind::Invalid: return tr("(no reply)");
    case RedisValue::Kind::Nil: return tr("(nil)");
    case RedisValue::Kind::Integer: return QString::number(v.toInteger());
    case RedisValue::Kind::Bool: return v.toInteger() ? QStringLiteral("true") : QStringLiteral("false");
    case RedisValue::Kind::Double:
    case RedisValue::Kind::BigNumber: return QString::fromLatin1(v.bytes());
    case RedisValue::Kind::Status:
    case RedisValue::Kind::Error: return bytesescape::escapeElided(v.bytes(), 4096);
    case RedisValue::Kind::Bulk:
    case RedisValue::Kind::Verbatim:
        if (m_hex) {
            const QByteArray shown = v.bytes().left(2048).toHex(' ');
            return v.bytes().size() > 2048 ? QString::fromLatin1(shown) + tr(" … (%1 bytes)").arg(v.bytes().size())
                                           : QString::fromLatin1(shown);
        }
        // Always quoted, so an empty string reads "" and is not mistaken for a missing value.
        return QLatin1Char('"') + bytesescape::escapeElided(v.bytes(), 4096) + QLatin1Char('"');
    case RedisValue::Kind::Array:
    case RedisValue::Kind::Set:
    case RedisValue::Kind::Push:
        return v.size() == 0 ? tr("(empty array)") : tr("%n element(s)", nullptr, int(v.size()));
    case RedisValue::Kind::Map: return v.size() == 0 ? tr("(empty map)") : tr("%n pair(s)", nullptr, int(v.size() / 2));
    }
    return {};
}

QString LuaResultModel::typeText(const Node &node) const
{
    const RedisValue &v = *node.value;
    switch (v.kind()) {
    case RedisValue::Kind::Nil: return m_resp2 ? tr("nil or false") : tr("nil");
    case RedisValue::Kind::Bulk:
        return node.chain.isEmpty()
            ? tr("bulk, %n byte(s)", nullptr, int(v.bytes().size()))
            : tr("bulk, %n byte(s), decoded: %1", nullptr, int(v.bytes().size())).arg(node.chain);
    case RedisValue::Kind::Bool: return tr("boolean");
    default: return kindName(v.kind());
    }
}

QString LuaResultModel::elementText(const Node &node) const
{
    if (node.parent < 0)
        return tr("reply");
    if (m_nodes[size_t(node.parent)].value->kind() == RedisValue::Kind::Map)
        return node.row % 2 == 0 ? tr("key %1").arg(node.row / 2 + 1) : tr("value %1").arg(node.row / 2 + 1);
    return QString::number(node.row + 1);
}

QVariant LuaResultModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node &node = m_nodes[size_t(index.internalId())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ElementColumn: return elementText(node);
        case ValueColumn: return valueText(node);
        default: return typeText(node);
        }
    case Qt::ToolTipRole:
        if (node.value->isNil() && m_resp2)
            return tr("Lua nil and Lua false both arrive as nil over RESP2; this reply cannot tell them apart.");
        if (node.value->isError())
            return QString::fromUtf8(node.value->bytes());
        if (!node.decoded.isEmpty())
            return tr("Decoded (%1):\n%2").arg(node.chain, node.decoded);
        return {};
    case KindRole: return int(node.value->kind());
    case BytesRole: return node.value->bytes();
    case DecodedRole: return node.decoded;
    default: return {};
    }
}

QVariant LuaResultModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ElementColumn: return tr("Element");
    case ValueColumn: return tr("Value");
    default: return tr("Type");
    }
}

// ---------------------------------------------------------------------------------------------

bool LuaRun::operator==(const LuaRun &o) const
{
    return script == o.script && keys == o.keys && args == o.args && summary == o.summary && elapsedUs == o.elapsedUs
        && server == o.server && at == o.at;
}

LuaHistory::LuaHistory(const QString &path, int limit) : m_path(path), m_limit(qMax(1, limit))
{ }

QString LuaHistory::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/lua-history.json");
}

bool LuaHistory::add(const LuaRun &run, QString *error)
{
    m_runs.prepend(run);
    if (!m_keepArguments) {
        m_runs.first().keys.clear();
        m_runs.first().args.clear();
    }
    while (m_runs.size() > m_limit)
        m_runs.removeLast();
    return save(error);
}

bool LuaHistory::clear(QString *error)
{
    m_runs.clear();
    return save(error);
}

void LuaHistory::setKeepArguments(bool keep)
{
    if (keep == m_keepArguments)
        return;
    m_keepArguments = keep;
    if (keep)
        return;
    for (LuaRun &r : m_runs) {
        r.keys.clear();
        r.args.clear();
    }
    save();
}

namespace {

// Keys and arguments are bytes: base64 keeps them exact in JSON.
QJsonArray toJson(const QList<QByteArray> &list)
{
    QJsonArray a;
    for (const QByteArray &b : list)
        a.append(QString::fromLatin1(b.toBase64()));
    return a;
}

QList<QByteArray> fromJson(const QJsonValue &v)
{
    QList<QByteArray> out;
    const QJsonArray a = v.toArray();
    for (const auto &e : a)
        out.append(QByteArray::fromBase64(e.toString().toLatin1()));
    return out;
}

} // namespace

bool LuaHistory::load(QString *error)
{
    m_runs.clear();
    QFile f(m_path);
    if (!f.exists())
        return true; // no runs yet
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(m_path, f.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parseError);
    if (!doc.isObject()) {
        // The next run would write over it: keep what is there before starting a new history.
        f.close();
        QString why;
        const QString aside = keptaside::keepAside(m_path, &why);
        if (error)
            *error = aside.isEmpty()
                ? QStringLiteral("%1 is not a history file (%2), and %3").arg(m_path, parseError.errorString(), why)
                : QStringLiteral("%1 is not a history file (%2); it was kept as %3 and a new "
                                 "history starts")
                      .arg(m_path, parseError.errorString(), aside);
        return false;
    }
    const QJsonArray runs = doc.object().value(QLatin1String("runs")).toArray();
    for (const auto &v : runs) {
        const QJsonObject o = v.toObject();
        LuaRun r;
        r.script = o.value(QLatin1String("script")).toString();
        r.keys = fromJson(o.value(QLatin1String("keys")));
        r.args = fromJson(o.value(QLatin1String("args")));
        r.summary = o.value(QLatin1String("summary")).toString();
        r.elapsedUs = qint64(o.value(QLatin1String("elapsedUs")).toDouble(-1));
        r.server = o.value(QLatin1String("server")).toString();
        r.at = QDateTime::fromMSecsSinceEpoch(qint64(o.value(QLatin1String("atMs")).toDouble())).toUTC();
        m_runs.append(r);
        if (m_runs.size() >= m_limit)
            break;
    }
    return true;
}

bool LuaHistory::save(QString *error) const
{
    QJsonArray runs;
    for (const LuaRun &r : m_runs) {
        QJsonObject o;
        o.insert(QLatin1String("script"), r.script);
        o.insert(QLatin1String("keys"), toJson(r.keys));
        o.insert(QLatin1String("args"), toJson(r.args));
        o.insert(QLatin1String("summary"), r.summary);
        o.insert(QLatin1String("elapsedUs"), double(r.elapsedUs));
        o.insert(QLatin1String("server"), r.server);
        o.insert(QLatin1String("atMs"), double(r.at.toMSecsSinceEpoch()));
        runs.append(o);
    }
    QJsonObject root;
    root.insert(QLatin1String("version"), 1);
    root.insert(QLatin1String("runs"), runs);
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile f(m_path);
    // Owner-only before a byte is written: the temporary file becomes the history file.
    if (!f.open(QIODevice::WriteOnly) || !f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || f.write(QJsonDocument(root).toJson(QJsonDocument::Compact)) < 0 || !f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(m_path, f.errorString());
        return false;
    }
    return true;
}
