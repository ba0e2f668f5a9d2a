// SPDX-License-Identifier: GPL-3.0-or-later
#include "valuereader.h"

#include "boundedread.h"

#include "hyperloglog.h"

#include "bytesescape.h"
#include "redisclient.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>

namespace {

// The open pipeline: these come first, then the size and the first page (or preview).
constexpr qsizetype kTypeAt = 0;
constexpr qsizetype kPttlAt = 1;
constexpr qsizetype kEncodingAt = 2;
constexpr qsizetype kSizeAt = 3;
constexpr qsizetype kPageAt = 4;

// A key that changes type between TYPE and the page read is retried this often.
constexpr int kMaxOpenAttempts = 3;

bool isCollection(KeyType t)
{
    return t == KeyType::Hash || t == KeyType::List || t == KeyType::Set || t == KeyType::ZSet || t == KeyType::Stream;
}

// A preview cut at an arbitrary byte may end inside a UTF-8 sequence; that alone does not
// make the value binary.
QByteArray withoutIncompleteTail(const QByteArray &b)
{
    qsizetype i = b.size();
    int continuation = 0;
    while (i > 0 && continuation < 3 && (uchar(b.at(i - 1)) & 0xc0) == 0x80) {
        --i;
        ++continuation;
    }
    if (i == 0)
        return b;
    const auto lead = uchar(b.at(i - 1));
    int need = 0;
    if ((lead & 0xe0) == 0xc0)
        need = 1;
    else if ((lead & 0xf0) == 0xe0)
        need = 2;
    else if ((lead & 0xf8) == 0xf0)
        need = 3;
    if (need > continuation)
        return b.left(i - 1);
    return b;
}

bool looksBinary(const QByteArray &bytes, bool truncated)
{
    const QByteArray b = truncated ? withoutIncompleteTail(bytes) : bytes;
    for (const char ch : b) {
        const auto c = uchar(ch);
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f)
            return true;
    }
    return !bytesescape::isValidUtf8(b);
}

bool looksLikeJson(const QByteArray &bytes)
{
    for (const char c : bytes) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c != '{' && c != '[')
            return false;
        QJsonParseError error;
        QJsonDocument::fromJson(bytes, &error);
        return error.error == QJsonParseError::NoError;
    }
    return false;
}

qint64 integerOr(const RedisValue &v, qint64 fallback)
{
    if (v.isError())
        return fallback;
    bool ok = false;
    const qint64 n = v.toInteger(&ok);
    return ok ? n : fallback;
}

} // namespace

ValueReader::ValueReader(RedisClient *client, QObject *parent) : QObject(parent), m_client(client)
{
    static const bool registered = [] {
        qRegisterMetaType<KeyInfo>();
        qRegisterMetaType<StringValue>();
        qRegisterMetaType<ValuePage>();
        return true;
    }();
    Q_UNUSED(registered)
}

ValueReader::~ValueReader()
{
    cancelRequests();
}

QByteArray ValueReader::previousStreamId(const QByteArray &id)
{
    const qsizetype dash = id.indexOf('-');
    if (dash <= 0)
        return {};
    bool okMs = false;
    bool okSeq = false;
    const quint64 ms = id.left(dash).toULongLong(&okMs);
    const quint64 seq = id.mid(dash + 1).toULongLong(&okSeq);
    if (!okMs || !okSeq)
        return {};
    if (seq > 0)
        return QByteArray::number(ms) + '-' + QByteArray::number(seq - 1);
    if (ms == 0)
        return {};
    return QByteArray::number(ms - 1) + '-' + QByteArray::number(std::numeric_limits<quint64>::max());
}

void ValueReader::openKey(const QByteArray &key, KeyType hint)
{
    startGeneration(key);
    if (!isCollection(hint) && hint != KeyType::String)
        hint = KeyType::Unknown;
    requestOpen(hint, 0);
}

void ValueReader::clear()
{
    const bool wasLoading = isLoading();
    cancelRequests();
    ++m_generation;
    m_hasKey = false;
    m_key.clear();
    m_type = KeyType::Unknown;
    m_info = KeyInfo();
    m_hasMore = false;
    m_seen.clear();
    Q_EMIT keyClosed();
    if (wasLoading)
        Q_EMIT loadingChanged(false);
}

void ValueReader::startGeneration(const QByteArray &key)
{
    const bool wasLoading = isLoading();
    cancelRequests();
    ++m_generation;
    m_hasKey = true;
    m_key = key;
    m_type = KeyType::Unknown;
    m_info = KeyInfo();
    m_cursor = "0";
    m_offset = 0;
    m_streamEnd = "+";
    m_hasMore = false;
    m_loaded = 0;
    m_seen.clear();
    Q_EMIT keyClosed();
    if (wasLoading)
        Q_EMIT loadingChanged(false);
}

void ValueReader::cancelRequests()
{
    // Requests already written still get an answer; RedisClient drops it because the id is
    // no longer pending.
    if (m_client) {
        for (const RequestId id : std::as_const(m_requests))
            m_client->cancel(id);
    }
    m_requests.clear();
}

void ValueReader::send(const QList<RedisCommand> &commands, std::function<void(const RedisReply &)> handler)
{
    if (!m_client) {
        fail(RedisError::make(RedisError::Kind::NotConnected, tr("not connected")), {});
        return;
    }
    const bool wasLoading = isLoading();
    const quint64 generation = m_generation;
    const RequestId id = m_client->sendBatch(commands, this,
                                             [this, generation, handler = std::move(handler)](const RedisReply &reply) {
                                                 m_requests.removeOne(reply.id);
                                                 if (generation != m_generation)
                                                     return;
                                                 handler(reply);
                                                 if (generation == m_generation && !isLoading()) {
                                                     Q_EMIT loadingChanged(false);
                                                 }
                                             });
    m_requests.append(id);
    if (!wasLoading)
        Q_EMIT loadingChanged(true);
}

RedisCommand ValueReader::sizeCommand(KeyType type) const
{
    return boundedread::lengthOf(m_key, type);
}

QList<RedisCommand> ValueReader::pageCommands() const
{
    const QByteArray count = QByteArray::number(m_pageSize);
    const QByteArray start = QByteArray::number(m_offset);
    const QByteArray stop = QByteArray::number(m_offset + m_pageSize - 1);
    RedisCommand page;
    switch (m_type) {
    case KeyType::String: page = {"GETRANGE", m_key, "0", QByteArray::number(m_previewBytes - 1)}; break;
    case KeyType::Hash: page = {"HSCAN", m_key, m_cursor, "COUNT", count}; break;
    case KeyType::Set: page = {"SSCAN", m_key, m_cursor, "COUNT", count}; break;
    case KeyType::List: page = {"LRANGE", m_key, start, stop}; break;
    case KeyType::ZSet: page = {"ZRANGE", m_key, start, stop, "WITHSCORES"}; break;
    case KeyType::Stream: page = {"XREVRANGE", m_key, m_streamEnd, "-", "COUNT", count}; break;
    default: return {};
    }
    // The size rides along with every page, so "X of Y" follows a collection that changes.
    return {sizeCommand(m_type), page};
}

void ValueReader::requestOpen(KeyType type, int attempt)
{
    QList<RedisCommand> commands{
        {"TYPE", m_key},
        {"PTTL", m_key},
        {"OBJECT", "ENCODING", m_key},
    };
    if (type != KeyType::Unknown) {
        // Read the page with the hinted type in the same round trip; TYPE confirms it.
        const KeyType current = m_type;
        m_type = type;
        commands += pageCommands();
        m_type = current;
    }
    send(commands, [this, type, attempt](const RedisReply &reply) { onOpenReply(reply, type, attempt); });
}

void ValueReader::onOpenReply(const RedisReply &reply, KeyType asked, int attempt)
{
    if (!reply.ok())
        return fail(reply.error, {});
    const RedisValue &typeReply = reply.value(kTypeAt);
    if (typeReply.isError())
        return fail(RedisError::fromReply(typeReply), "type");

    const KeyType actual = keyTypeFromReply(typeReply.bytes());
    if (actual != asked && actual != KeyType::None && actual != KeyType::Module) {
        if (attempt + 1 >= kMaxOpenAttempts)
            return fail(RedisError::make(RedisError::Kind::WrongType, tr("the key keeps changing type")), {});
        requestOpen(actual, attempt + 1);
        return;
    }

    KeyInfo info;
    info.generation = m_generation;
    info.key = m_key;
    info.type = actual;
    info.typeName = typeReply.bytes();
    info.fetchedAtMs = QDateTime::currentMSecsSinceEpoch();
    const RedisValue &pttl = reply.value(kPttlAt);
    info.pttlMs = ttl::fromReply(pttl);
    const RedisValue &encoding = reply.value(kEncodingAt);
    if (encoding.isString())
        info.encoding = encoding.bytes();
    if (actual == KeyType::None || info.pttlMs == -2) {
        info.type = KeyType::None;
        m_type = KeyType::None;
        m_info = info;
        Q_EMIT keyOpened(info);
        m_hasMore = false;
        Q_EMIT errorOccurred(tr("key no longer exists"));
        return;
    }
    info.size = reply.values.size() > kSizeAt ? integerOr(reply.value(kSizeAt), -1) : -1;
    m_type = actual;
    m_info = info;
    Q_EMIT keyOpened(info);

    if (actual == KeyType::Module) {
        Q_EMIT errorOccurred(
            tr("module type %1: RedisLens cannot show its value").arg(bytesescape::escape(info.typeName)));
        return;
    }
    if (actual == KeyType::String)
        onStringReply(reply, kSizeAt, kPageAt);
    else
        onPageReply(reply, kSizeAt, kPageAt);
}

void ValueReader::onStringReply(const RedisReply &reply, qsizetype sizeAt, qsizetype previewAt)
{
    const RedisValue &preview = reply.value(previewAt);
    if (preview.isError())
        return fail(RedisError::fromReply(preview), "getrange");
    StringValue value;
    value.generation = m_generation;
    value.key = m_key;
    value.preview = preview.bytes();
    value.fullLength = qMax<qint64>(integerOr(reply.value(sizeAt), -1), value.preview.size());
    value.truncated = value.fullLength > value.preview.size();

    // A HyperLogLog is a string that starts with "HYLL". Its count comes from its bytes, not
    // from PFCOUNT, which would rewrite the value's cached count (hyperloglog.h); a look-alike
    // or corrupt string is shown as bytes.
    if (value.preview.startsWith("HYLL") && !value.truncated) {
        if (const std::optional<qint64> count = hyperloglog::cardinality(value.preview)) {
            value.isHyperLogLog = true;
            value.hllCount = *count;
        }
    }
    finishString(std::move(value));
}

void ValueReader::finishString(StringValue value)
{
    value.isBinary = value.isHyperLogLog || looksBinary(value.preview, value.truncated);
    value.isJson = !value.truncated && !value.isBinary && looksLikeJson(value.preview);
    m_hasMore = false;
    Q_EMIT stringAvailable(value);
}

void ValueReader::loadMore()
{
    if (!m_hasMore || isLoading() || !isCollection(m_type))
        return;
    requestPage();
}

void ValueReader::requestPage()
{
    send(pageCommands(), [this](const RedisReply &reply) {
        if (!reply.ok())
            return fail(reply.error, {});
        onPageReply(reply, 0, 1);
    });
}

void ValueReader::onPageReply(const RedisReply &reply, qsizetype sizeAt, qsizetype pageAt)
{
    const RedisValue &data = reply.value(pageAt);
    if (data.isError() || !data.isValid()) {
        QByteArray command;
        switch (m_type) {
        case KeyType::Hash: command = "hscan"; break;
        case KeyType::Set: command = "sscan"; break;
        case KeyType::List: command = "lrange"; break;
        case KeyType::ZSet: command = "zrange"; break;
        case KeyType::Stream: command = "xrevrange"; break;
        default: break;
        }
        if (!data.isValid())
            return fail(RedisError::make(RedisError::Kind::Protocol,
                                         tr("no reply to %1").arg(QString::fromLatin1(command.toUpper()))),
                        command);
        return fail(RedisError::fromReply(data), command);
    }

    ValuePage page;
    page.generation = m_generation;
    page.key = m_key;
    page.type = m_type;
    page.total = integerOr(reply.value(sizeAt), -1);
    // Redis deletes a collection with its last element, so a size of 0 means the key is gone.
    if (page.total == 0)
        return fail(RedisError::make(RedisError::Kind::Server, tr("key no longer exists")), {});
    const QList<RedisValue> &items = data.elements();

    switch (m_type) {
    case KeyType::Hash:
    case KeyType::Set:
        if (!readScanPage(data, page))
            return;
        break;
    case KeyType::List: readListPage(items, page); break;
    case KeyType::ZSet: readZSetPage(items, page); break;
    case KeyType::Stream: readStreamPage(items, page); break;
    default: return;
    }

    m_loaded += page.entries.size();
    page.hasMore = m_hasMore;
    Q_EMIT pageLoaded(page);

    // A scan step can come back empty (sparse table) or with repeats only; fetching on saves
    // the user a click on a "load more" that showed nothing new.
    if (page.entries.isEmpty() && m_hasMore)
        requestPage();
}

bool ValueReader::readScanPage(const RedisValue &data, ValuePage &page)
{
    if (data.size() != 2) {
        fail(RedisError::make(RedisError::Kind::Protocol, tr("unexpected scan reply")), {});
        return false;
    }
    m_cursor = data.at(0).bytes();
    const QList<RedisValue> &found = data.at(1).elements();
    const bool hash = m_type == KeyType::Hash;
    const qsizetype step = hash ? 2 : 1;
    page.entries.reserve(found.size() / step);
    for (qsizetype i = 0; i + step - 1 < found.size(); i += step) {
        const QByteArray &name = found.at(i).bytes();
        if (m_seen.contains(name))
            continue; // SCAN may return an element twice while the table rehashes
        m_seen.insert(name);
        ValueEntry e;
        e.name = name;
        if (hash)
            e.value = found.at(i + 1).bytes();
        page.entries.append(std::move(e));
    }
    m_hasMore = m_cursor != "0";
    return true;
}

void ValueReader::readListPage(const QList<RedisValue> &items, ValuePage &page)
{
    page.entries.reserve(items.size());
    for (const RedisValue &v : items) {
        ValueEntry e;
        e.value = v.bytes();
        e.position = m_offset++;
        page.entries.append(std::move(e));
    }
    m_hasMore = items.size() == m_pageSize && (page.total < 0 || m_offset < page.total);
}

void ValueReader::readZSetPage(const QList<RedisValue> &items, ValuePage &page)
{
    // RESP2 gives member, score, member, score; RESP3 gives [member, score] pairs.
    const bool pairs = !items.isEmpty() && items.first().isArray();
    const qsizetype step = pairs ? 1 : 2;
    page.entries.reserve(items.size() / step);
    for (qsizetype i = 0; i + step - 1 < items.size(); i += step) {
        ValueEntry e;
        e.name = pairs ? items.at(i).at(0).bytes() : items.at(i).bytes();
        e.value = pairs ? items.at(i).at(1).bytes() : items.at(i + 1).bytes();
        e.position = m_offset++;
        page.entries.append(std::move(e));
    }
    m_hasMore = page.entries.size() == m_pageSize && (page.total < 0 || m_offset < page.total);
}

void ValueReader::readStreamPage(const QList<RedisValue> &items, ValuePage &page)
{
    page.entries.reserve(items.size());
    for (const RedisValue &v : items) {
        ValueEntry e;
        e.name = v.at(0).bytes();
        const QList<RedisValue> &fields = v.at(1).elements();
        e.fields.reserve(fields.size());
        for (const RedisValue &f : fields)
            e.fields.append(f.bytes());
        page.entries.append(std::move(e));
    }
    if (!page.entries.isEmpty())
        m_streamEnd = previousStreamId(page.entries.constLast().name);
    m_hasMore = items.size() == m_pageSize && !m_streamEnd.isEmpty()
        && (page.total < 0 || m_loaded + page.entries.size() < page.total);
}

void ValueReader::fail(const RedisError &error, const QByteArray &command)
{
    // A lost connection or a timeout can be retried with "load more"; anything else ends the
    // reading of this key until it is refreshed.
    if (!error.isConnectionLevel())
        m_hasMore = false;
    Q_EMIT errorOccurred(describe(error, command));
}

QString ValueReader::describe(const RedisError &error, const QByteArray &command) const
{
    switch (error.kind) {
    case RedisError::Kind::NoPerm: {
        const QString user = !m_client || m_client->profile().username.isEmpty() ? QStringLiteral("default")
                                                                                 : m_client->profile().username;
        const QString text = error.message;
        if (text.contains(QLatin1String("key"), Qt::CaseInsensitive))
            return tr("needs access to key %1 for user %2").arg(bytesescape::quoteIfNeeded(m_key), user);
        // "... no permissions to run the 'hscan' command" (6.x and 7.x word it differently).
        QString name = QString::fromLatin1(command);
        const qsizetype open = text.indexOf(QLatin1Char('\''));
        const qsizetype close = open >= 0 ? text.indexOf(QLatin1Char('\''), open + 1) : -1;
        if (close > open + 1)
            name = text.mid(open + 1, close - open - 1);
        if (name.isEmpty())
            return tr("not allowed for user %1: %2").arg(user, text);
        return tr("needs +%1 for user %2").arg(name.toLower(), user);
    }
    case RedisError::Kind::WrongType:
        return tr("the key changed type while it was read; refresh to read it again (%1)").arg(error.message);
    case RedisError::Kind::UnknownCommand:
        return tr("the server does not support %1: %2").arg(QString::fromLatin1(command.toUpper()), error.message);
    default: return error.message;
    }
}

void feedValueModel(ValueReader *reader, ValueModel *model)
{
    QObject::connect(reader, &ValueReader::keyClosed, model, [model] { model->setMode(ValueModel::Mode::None); });
    QObject::connect(reader, &ValueReader::keyOpened, model,
                     [model](const KeyInfo &info) { model->setMode(ValueModel::modeForType(info.type)); });
    QObject::connect(reader, &ValueReader::pageLoaded, model, &ValueModel::appendPage);
    QObject::connect(reader, &ValueReader::loadingChanged, model, &ValueModel::setLoading);
    // After a failure "load more" stays only when the error was the connection's.
    QObject::connect(reader, &ValueReader::errorOccurred, model, [reader, model] {
        model->setLoading(false);
        model->setHasMore(reader->hasMore(), model->total());
    });
}
