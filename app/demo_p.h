// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the demo's seeding (demoseed.cpp) and its simulator (demotick.cpp) share: the sizes and
// names of the data, and small helpers. Private to app/demo*.cpp.

#include "rediscommand.h"

#include <QByteArray>
#include <QDate>
#include <QDateTime>
#include <QString>

#include <cstddef>

namespace demo {

inline constexpr int kSeedBatchSize = 500; // commands per pipelined seeding batch
inline constexpr int kProducts = 1000; // app:product:1 .. 1000
inline constexpr int kFirstUser = 1000; // users 1000 .. 1299
inline constexpr int kUsers = 300;
inline constexpr int kPlayers = 400;
inline constexpr qint64 kMinute = 60 * 1000;
inline constexpr qint64 kHour = 60 * kMinute;
inline constexpr qint64 kDay = 24 * kHour;
inline constexpr int kFixedLimit = 10;
inline constexpr qint64 kFixedWindow = kMinute;
inline constexpr int kSlidingLimit = 20;
inline constexpr qint64 kSlidingWindow = kMinute;
inline constexpr int kBucketCapacity = 20;
inline constexpr int kBucketRate = 5; // tokens per second
inline constexpr int kStreamCap = 1000;
inline constexpr int kMaxKnownSessions = 600;

inline const char *const kScripts[] = {
    "fixed_window_limit", "sliding_window_limit", "token_bucket",   "lock_acquire",      "lock_release", "lock_extend",
    "claim_due_jobs",     "stream_dead_letter",   "tag_invalidate", "cache_get_or_lock", "session_touch"};

inline const char *const kAdjectives[] = {"Walnut", "Compact", "Wireless", "Ceramic", "Linen", "Steel",
                                          "Bamboo", "Vintage", "Portable", "Modular", "Quiet", "Solar"};
inline const char *const kNouns[] = {"Desk Lamp", "Kettle",     "Headphones", "Backpack", "Chair", "Notebook",
                                     "Blender",   "Bike Light", "Speaker",    "Planter",  "Mug",   "Keyboard"};
inline const char *const kTemplates[]
    = {"welcome", "order_confirmation", "password_reset", "weekly_digest", "shipping_update"};
inline const char *const kOrderEvents[] = {"order.created", "order.paid", "order.shipped", "order.cancelled"};
inline const char *const kLockResources[]
    = {"invoice:1042",      "invoice:1043",         "payment:88121",        "report:monthly",
       "cron:cleanup",      "inventory:sku-000311", "inventory:sku-000207", "export:orders",
       "user:1042:profile", "search:reindex",       "mailer:batch-7",       "billing:run-2026"};

struct City
{
    const char *name;
    double lon; // GEOADD takes longitude first
    double lat;
};

inline const City kCities[] = {
    {"Berlin", 13.4050, 52.5200},
    {"Paris", 2.3522, 48.8566},
    {"London", -0.1276, 51.5072},
    {"Madrid", -3.7038, 40.4168},
    {"Rome", 12.4964, 41.9028},
    {"Amsterdam", 4.9041, 52.3676},
    {"Vienna", 16.3738, 48.2082},
    {"Prague", 14.4378, 50.0755},
    {"Warsaw", 21.0122, 52.2297},
    {"Stockholm", 18.0686, 59.3293},
    {"Oslo", 10.7522, 59.9139},
    {"Copenhagen", 12.5683, 55.6761},
    {"Helsinki", 24.9384, 60.1699},
    {"Dublin", -6.2603, 53.3498},
    {"Lisbon", -9.1393, 38.7223},
    {"Athens", 23.7275, 37.9838},
    {"Istanbul", 28.9784, 41.0082},
    {"Moscow", 37.6173, 55.7558},
    {"Reykjav\xc3\xadk", -21.9426, 64.1466},
    {"Cairo", 31.2357, 30.0444},
    {"Lagos", 3.3792, 6.5244},
    {"Nairobi", 36.8219, -1.2921},
    {"Johannesburg", 28.0473, -26.2041},
    {"Cape Town", 18.4241, -33.9249},
    {"Dubai", 55.2708, 25.2048},
    {"Mumbai", 72.8777, 19.0760},
    {"Delhi", 77.1025, 28.7041},
    {"Bengaluru", 77.5946, 12.9716},
    {"Singapore", 103.8198, 1.3521},
    {"Bangkok", 100.5018, 13.7563},
    {"Jakarta", 106.8456, -6.2088},
    {"Hong Kong", 114.1694, 22.3193},
    {"Shanghai", 121.4737, 31.2304},
    {"Beijing", 116.4074, 39.9042},
    {"Seoul", 126.9780, 37.5665},
    {"Tokyo", 139.6503, 35.6762},
    {"Sydney", 151.2093, -33.8688},
    {"Melbourne", 144.9631, -37.8136},
    {"Auckland", 174.7633, -36.8485},
    {"Los Angeles", -118.2437, 34.0522},
    {"San Francisco", -122.4194, 37.7749},
    {"Seattle", -122.3321, 47.6062},
    {"Vancouver", -123.1207, 49.2827},
    {"Chicago", -87.6298, 41.8781},
    {"Toronto", -79.3832, 43.6532},
    {"New York", -74.0060, 40.7128},
    {"Mexico City", -99.1332, 19.4326},
    {"Bogot\xc3\xa1", -74.0721, 4.7110},
    {"Lima", -77.0428, -12.0464},
    {"S\xc3\xa3o Paulo", -46.6333, -23.5505},
    {"Buenos Aires", -58.3816, -34.6037},
    {"Santiago", -70.6693, -33.4489},
};

template <typename T, size_t N> inline constexpr int lengthOf(const T (&)[N])
{
    return int(N);
}

// Bytes of a literal that may hold NULs, without its terminator.
template <size_t N> inline QByteArray bytes(const char (&literal)[N])
{
    return QByteArray(literal, qsizetype(N - 1));
}

inline QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

inline qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

inline QByteArray isoDate(const QDate &date)
{
    return date.toString(Qt::ISODate).toLatin1();
}

inline QDate today()
{
    return QDateTime::currentDateTimeUtc().date();
}

inline QByteArray isoWeek(const QDate &date)
{
    int year = 0;
    const int week = date.weekNumber(&year);
    return num(year) + "-W" + QByteArray::number(week).rightJustified(2, '0');
}

inline QByteArray sessionKey(const QByteArray &id)
{
    return "session:" + id;
}

inline QByteArray userSessionsKey(int userId)
{
    return "user:" + num(userId) + ":sessions";
}

inline QString describe(const RedisCommand &c)
{
    QString s = QString::fromLatin1(c.value(0));
    if (c.value(0).startsWith("EVALSHA"))
        s += QStringLiteral(" (script with key %1)").arg(QString::fromUtf8(c.value(3)));
    else if (c.size() > 1)
        s += QLatin1Char(' ') + QString::fromUtf8(c.value(1).left(60));
    return s;
}

} // namespace demo
