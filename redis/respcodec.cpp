// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"

#include <hiredis/hiredis.h>

#include <vector>

namespace resp {

QByteArray formatCommands(const QList<QList<QByteArray>> &commands)
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

RedisValue fromHiredis(const redisReply *r)
{
    if (!r)
        return {};
    auto text = [r] { return QByteArray(r->str, qsizetype(r->len)); };
    auto children = [r](RedisValue::Kind kind) {
        QList<RedisValue> items;
        items.reserve(qsizetype(r->elements));
        for (size_t i = 0; i < r->elements; ++i)
            items.append(fromHiredis(r->element[i]));
        return RedisValue::array(std::move(items), kind);
    };
    switch (r->type) {
    case REDIS_REPLY_STRING:
        return RedisValue::bulk(text());
    case REDIS_REPLY_STATUS:
        return RedisValue::status(text());
    case REDIS_REPLY_ERROR:
        return RedisValue::error(text());
    case REDIS_REPLY_INTEGER:
        return RedisValue::integer(r->integer);
    case REDIS_REPLY_NIL:
        return RedisValue::nil();
    case REDIS_REPLY_ARRAY:
        return children(RedisValue::Kind::Array);
#ifdef REDIS_REPLY_DOUBLE
    case REDIS_REPLY_DOUBLE:
        return RedisValue::number(r->dval, text());
#endif
#ifdef REDIS_REPLY_BOOL
    case REDIS_REPLY_BOOL:
        return RedisValue::boolean(r->integer != 0);
#endif
#ifdef REDIS_REPLY_MAP
    case REDIS_REPLY_MAP:
        return children(RedisValue::Kind::Map);
#endif
#ifdef REDIS_REPLY_SET
    case REDIS_REPLY_SET:
        return children(RedisValue::Kind::Set);
#endif
#ifdef REDIS_REPLY_PUSH
    case REDIS_REPLY_PUSH:
        return children(RedisValue::Kind::Push);
#endif
#ifdef REDIS_REPLY_BIGNUM
    case REDIS_REPLY_BIGNUM:
        return RedisValue::typed(RedisValue::Kind::BigNumber, text());
#endif
#ifdef REDIS_REPLY_VERB
    case REDIS_REPLY_VERB:
        return RedisValue::typed(RedisValue::Kind::Verbatim, text());
#endif
    default:
        return RedisValue::error("ERR reply type not understood");
    }
}

bool parseAll(const QByteArray &bytes, QList<RedisValue> *out, QString *error)
{
    redisReader *reader = redisReaderCreate();
    bool ok = redisReaderFeed(reader, bytes.constData(), size_t(bytes.size())) == REDIS_OK;
    while (ok) {
        void *raw = nullptr;
        if (redisReaderGetReply(reader, &raw) != REDIS_OK) {
            ok = false;
            break;
        }
        if (!raw)
            break;
        out->append(fromHiredis(static_cast<redisReply *>(raw)));
        freeReplyObject(raw);
    }
    if (!ok && error)
        *error = QString::fromLatin1(reader->errstr);
    // Did the buffer end between replies? hiredis's own state cannot tell: a GetReply call that
    // finds no reply arms a new read (ridx 0) in every version. So feed one more reply: after a
    // complete buffer it comes back as itself; after a partial one it is swallowed by, or
    // breaks, the reply that was cut off.
    if (ok) {
        static const char sentinel[] = "+\x01redislens\r\n";
        void *raw = nullptr;
        bool complete = redisReaderFeed(reader, sentinel, sizeof(sentinel) - 1) == REDIS_OK
            && redisReaderGetReply(reader, &raw) == REDIS_OK && raw;
        if (complete) {
            const auto *r = static_cast<const redisReply *>(raw);
            complete = r->type == REDIS_REPLY_STATUS && QByteArray(r->str, qsizetype(r->len)) == "\x01redislens";
        }
        if (raw)
            freeReplyObject(raw);
        if (!complete) {
            ok = false;
            if (error)
                *error = QStringLiteral("incomplete reply");
        }
    }
    redisReaderFree(reader);
    return ok;
}

} // namespace resp
