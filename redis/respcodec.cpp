// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"

#include <hiredis/hiredis.h>

#include <cstring>

#include <charconv>
#include <vector>

namespace resp {

namespace {

void appendDecimal(QByteArray &out, qsizetype n)
{
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, r.ptr - digits);
}

} // namespace

QByteArray formatCommands(const QList<QList<QByteArray>> &commands)
{
    // A multibulk request is a length-prefixed list of byte strings. Writing it directly is
    // one allocation for the whole pipeline instead of several per command; the output is
    // checked byte for byte against redisFormatCommandArgv in tst_respcodec.
    qsizetype total = 0;
    for (const QList<QByteArray> &cmd : commands) {
        total += 16;
        for (const QByteArray &arg : cmd)
            total += arg.size() + 16;
    }
    QByteArray out;
    out.reserve(total);
    for (const QList<QByteArray> &cmd : commands) {
        out.append('*');
        appendDecimal(out, cmd.size());
        out.append("\r\n", 2);
        for (const QByteArray &arg : cmd) {
            out.append('$');
            appendDecimal(out, arg.size());
            out.append("\r\n", 2);
            out.append(arg);
            out.append("\r\n", 2);
        }
    }
    return out;
}

QByteArray formatWithHiredis(const QList<QList<QByteArray>> &commands)
{
    QByteArray out;
    std::vector<const char *> argv;
    std::vector<size_t> argl;
    for (const QList<QByteArray> &cmd : commands) {
        argv.clear();
        argl.clear();
        for (const QByteArray &arg : cmd) {
            argv.push_back(arg.constData());
            argl.push_back(size_t(arg.size()));
        }
        char *formatted = nullptr;
        const int len = redisFormatCommandArgv(&formatted, int(argv.size()), argv.data(), argl.data());
        if (len > 0 && formatted)
            out.append(formatted, len);
        redisFreeCommand(formatted);
    }
    return out;
}

} // namespace resp

namespace {
// An array header is a claim, not bytes: "*2147483647\r\n" costs the server 13 bytes. Room for
// this many elements is made up front, the rest as they arrive.
constexpr qsizetype kReserveAtMost = 4096;
// Deeper than any reply Redis makes (a script's nested tables are limited by Lua's own C
// stack, about 200): past it a value would take more stack to free than a thread has.
constexpr int kMaxNesting = 1000;
} // namespace

// Builds RedisValues as hiredis parses. A child is appended straight to its parent's element
// list; hiredis delivers an array's children in order and finishes each before the next, so the
// only addresses still in use are those of the open arrays, which are the last element of their
// own parent and do not move. Only a top-level value is allocated on its own, and only that is
// ever handed back to freeObject.
struct RespBuilder
{
    static void *place(const redisReadTask *task, RedisValue &&value)
    {
        if (task->parent) {
            QList<RedisValue> &siblings = static_cast<RedisValue *>(task->parent->obj)->m_elements;
            Q_ASSERT(siblings.size() == task->idx);
            siblings.append(std::move(value));
            return &siblings.last();
        }
        return new RedisValue(std::move(value));
    }

    static QByteArray status(const char *str, size_t len)
    {
        // The replies a scan receives by the million; sharing them saves an allocation each.
        static const QByteArray common[] = {"OK", "PONG", "string", "hash", "list", "set", "zset", "stream", "none"};
        if (len <= 6) {
            for (const QByteArray &c : common) {
                if (size_t(c.size()) == len && memcmp(c.constData(), str, len) == 0)
                    return c;
            }
        }
        return QByteArray(str, qsizetype(len));
    }

    static void *createString(const redisReadTask *task, char *str, size_t len)
    {
        switch (task->type) {
        case REDIS_REPLY_ERROR: return place(task, RedisValue::error(QByteArray(str, qsizetype(len))));
        case REDIS_REPLY_STATUS: return place(task, RedisValue::status(status(str, len)));
#ifdef REDIS_REPLY_VERB
        case REDIS_REPLY_VERB:
            // "txt:" (a three-letter format and a colon) comes before the text.
            return place(task,
                         RedisValue::typed(RedisValue::Kind::Verbatim,
                                           len >= 4 ? QByteArray(str + 4, qsizetype(len - 4)) : QByteArray()));
#endif
#ifdef REDIS_REPLY_BIGNUM
        case REDIS_REPLY_BIGNUM:
            return place(task, RedisValue::typed(RedisValue::Kind::BigNumber, QByteArray(str, qsizetype(len))));
#endif
        default: return place(task, RedisValue::bulk(QByteArray(str, qsizetype(len))));
        }
    }

    template <typename Count> static void *createArray(const redisReadTask *task, Count elements)
    {
        RedisValue::Kind kind = RedisValue::Kind::Array;
        switch (task->type) {
#ifdef REDIS_REPLY_MAP
        case REDIS_REPLY_MAP: kind = RedisValue::Kind::Map; break;
#endif
#ifdef REDIS_REPLY_SET
        case REDIS_REPLY_SET: kind = RedisValue::Kind::Set; break;
#endif
#ifdef REDIS_REPLY_PUSH
        case REDIS_REPLY_PUSH: kind = RedisValue::Kind::Push; break;
#endif
        default: break;
        }
        int depth = 0;
        for (const redisReadTask *t = task->parent; t; t = t->parent)
            ++depth;
        if (depth >= kMaxNesting) {
            // hiredis takes a null object for an error of its own; the reader tells which.
            if (auto *refusal = static_cast<QString *>(task->privdata))
                *refusal = QStringLiteral("reply nested deeper than %1 levels").arg(kMaxNesting);
            return nullptr;
        }
        QList<RedisValue> items;
        if (elements > 0)
            items.reserve(qMin(qsizetype(elements), kReserveAtMost));
        return place(task, RedisValue::array(std::move(items), kind));
    }

    static void *createInteger(const redisReadTask *task, long long value)
    {
        return place(task, RedisValue::integer(value));
    }

    static void *createNil(const redisReadTask *task)
    {
        return place(task, RedisValue::nil());
    }

#if HIREDIS_MAJOR >= 1
    static void *createDouble(const redisReadTask *task, double value, char *str, size_t len)
    {
        return place(task, RedisValue::number(value, QByteArray(str, qsizetype(len))));
    }

    static void *createBool(const redisReadTask *task, int value)
    {
        return place(task, RedisValue::boolean(value != 0));
    }
#endif

    static void freeObject(void *obj)
    {
        delete static_cast<RedisValue *>(obj);
    }

    static redisReplyObjectFunctions *functions()
    {
        static redisReplyObjectFunctions fn = [] {
            redisReplyObjectFunctions f{};
            f.createString = &RespBuilder::createString;
            f.createArray = &RespBuilder::createArray;
            f.createInteger = &RespBuilder::createInteger;
            f.createNil = &RespBuilder::createNil;
#if HIREDIS_MAJOR >= 1
            f.createDouble = &RespBuilder::createDouble;
            f.createBool = &RespBuilder::createBool;
#endif
            f.freeObject = &RespBuilder::freeObject;
            return f;
        }();
        return &fn;
    }
};

namespace resp {

ReplyReader::ReplyReader() : m_reader(redisReaderCreateWithFunctions(RespBuilder::functions()))
{
    m_reader->privdata = &m_refusal; // every read task carries it to RespBuilder
}

ReplyReader::~ReplyReader()
{
    redisReaderFree(m_reader);
}

bool ReplyReader::feed(const char *data, qsizetype length)
{
    return redisReaderFeed(m_reader, data, size_t(length)) == REDIS_OK;
}

ReplyReader::Result ReplyReader::next(RedisValue *out)
{
    void *raw = nullptr;
    if (redisReaderGetReply(m_reader, &raw) != REDIS_OK)
        return Result::Error;
    if (!raw)
        return Result::NeedMore;
    auto *value = static_cast<RedisValue *>(raw);
    *out = std::move(*value);
    delete value;
    return Result::Reply;
}

QString ReplyReader::error() const
{
    return m_refusal.isEmpty() ? QString::fromLatin1(m_reader->errstr) : m_refusal;
}

bool parseAll(const QByteArray &bytes, QList<RedisValue> *out, QString *error)
{
    ReplyReader reader;
    bool ok = reader.feed(bytes.constData(), bytes.size());
    RedisValue value;
    ReplyReader::Result result = ReplyReader::Result::NeedMore;
    while (ok && (result = reader.next(&value)) == ReplyReader::Result::Reply)
        out->append(std::move(value));
    if (result == ReplyReader::Result::Error)
        ok = false;
    if (!ok && error)
        *error = reader.error();
    // Did the buffer end between replies? hiredis's own state cannot tell: a GetReply call that
    // finds no reply arms a new read in every version. So feed one more reply: after a
    // complete buffer it comes back as itself; after a partial one it is swallowed by, or
    // breaks, the reply that was cut off.
    if (ok) {
        static const char sentinel[] = "+\x01redislens\r\n";
        const bool complete = reader.feed(sentinel, sizeof(sentinel) - 1)
            && reader.next(&value) == ReplyReader::Result::Reply && value.kind() == RedisValue::Kind::Status
            && value.bytes() == "\x01redislens";
        if (!complete) {
            ok = false;
            if (error)
                *error = QStringLiteral("incomplete reply");
        }
    }
    return ok;
}

} // namespace resp
