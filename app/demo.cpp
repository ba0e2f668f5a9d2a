// SPDX-License-Identifier: GPL-3.0-or-later
#include "demo.h"

#include "localserver.h"
#include "redisclient.h"
#include "scriptlibrary.h"

#include <QDateTime>
#include <QEventLoop>
#include <QHash>
#include <QSet>
#include <QTimer>
#include <QVersionNumber>

#include <algorithm>

namespace {

constexpr int kSeedBatchSize = 500; // commands per pipelined seeding batch
constexpr int kProducts = 1000; // app:product:1 .. 1000
constexpr int kFirstUser = 1000; // users 1000 .. 1299
constexpr int kUsers = 300;
constexpr int kPlayers = 400;
constexpr qint64 kMinute = 60 * 1000;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;
constexpr int kFixedLimit = 10;
constexpr qint64 kFixedWindow = kMinute;
constexpr int kSlidingLimit = 20;
constexpr qint64 kSlidingWindow = kMinute;
constexpr int kBucketCapacity = 20;
constexpr int kBucketRate = 5; // tokens per second
constexpr int kStreamCap = 1000;
constexpr int kMaxKnownSessions = 600;

const char *const kScripts[] = {"fixed_window_limit", "sliding_window_limit", "token_bucket",   "lock_acquire",
                                "lock_release",       "lock_extend",          "claim_due_jobs", "stream_dead_letter",
                                "tag_invalidate",     "cache_get_or_lock",    "session_touch"};

const char *const kAdjectives[] = {"Walnut", "Compact", "Wireless", "Ceramic", "Linen", "Steel",
                                   "Bamboo", "Vintage", "Portable", "Modular", "Quiet", "Solar"};
const char *const kNouns[] = {"Desk Lamp", "Kettle",     "Headphones", "Backpack", "Chair", "Notebook",
                              "Blender",   "Bike Light", "Speaker",    "Planter",  "Mug",   "Keyboard"};
const char *const kTemplates[]
    = {"welcome", "order_confirmation", "password_reset", "weekly_digest", "shipping_update"};
const char *const kOrderEvents[] = {"order.created", "order.paid", "order.shipped", "order.cancelled"};
const char *const kLockResources[]
    = {"invoice:1042",      "invoice:1043",         "payment:88121",        "report:monthly",
       "cron:cleanup",      "inventory:sku-000311", "inventory:sku-000207", "export:orders",
       "user:1042:profile", "search:reindex",       "mailer:batch-7",       "billing:run-2026"};

struct City
{
    const char *name;
    double lon; // GEOADD takes longitude first
    double lat;
};

const City kCities[] = {
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

template <typename T, size_t N> constexpr int lengthOf(const T (&)[N])
{
    return int(N);
}

// Bytes of a literal that may hold NULs, without its terminator.
template <size_t N> QByteArray bytes(const char (&literal)[N])
{
    return QByteArray(literal, qsizetype(N - 1));
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray isoDate(const QDate &date)
{
    return date.toString(Qt::ISODate).toLatin1();
}

QDate today()
{
    return QDateTime::currentDateTimeUtc().date();
}

QByteArray isoWeek(const QDate &date)
{
    int year = 0;
    const int week = date.weekNumber(&year);
    return num(year) + "-W" + QByteArray::number(week).rightJustified(2, '0');
}

QByteArray sessionKey(const QByteArray &id)
{
    return "session:" + id;
}

QByteArray userSessionsKey(int userId)
{
    return "user:" + num(userId) + ":sessions";
}

QString describe(const RedisCommand &c)
{
    QString s = QString::fromLatin1(c.value(0));
    if (c.value(0).startsWith("EVALSHA"))
        s += QStringLiteral(" (script with key %1)").arg(QString::fromUtf8(c.value(3)));
    else if (c.size() > 1)
        s += QLatin1Char(' ') + QString::fromUtf8(c.value(1).left(60));
    return s;
}

} // namespace

void Demo::Batch::add(RedisCommand command, std::function<void(const RedisValue &)> handler)
{
    commands.append(std::move(command));
    handlers.append(std::move(handler));
}

Demo::Demo(QObject *parent)
    : QObject(parent),
      // A fixed seed: the same demo every run, which screenshots, docs and tests rely on.
      m_rng(20261129u)
{
    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, &Demo::onTick);
}

Demo::~Demo()
{
    m_stopping = true;
    m_timer->stop();
    m_client.reset(); // stops the worker thread before the server goes
    m_server.reset();
}

bool Demo::start(QString *error)
{
    QString why;
    if (m_server && m_server->isRunning())
        return true;
    const ScriptLibrary &library = ScriptLibrary::instance();
    for (const char *name : kScripts) {
        if (!library.find(QString::fromLatin1(name))) {
            why = QStringLiteral("the demo needs the Lua script %1, which is not in the build")
                      .arg(QLatin1String(name));
            if (error)
                *error = why;
            return false;
        }
    }

    m_client.reset();
    m_server = std::make_unique<LocalServer>();
    // Mixed cache and critical data: a memory limit with volatile-* eviction, as the
    // production checklist asks, so the memory panels have something to compare against.
    // The slowlog and the latency monitor are set low enough that the simulator's bad habits
    // (below, in onTick) show up in the slowlog panel within seconds.
    m_server->setExtraArguments({QStringLiteral("--maxmemory"), QStringLiteral("256mb"),
                                 QStringLiteral("--maxmemory-policy"), QStringLiteral("volatile-lru"),
                                 QStringLiteral("--slowlog-log-slower-than"), QStringLiteral("1000"),
                                 QStringLiteral("--latency-monitor-threshold"), QStringLiteral("2")});
    if (!m_server->start(&why)) {
        if (error)
            *error = QStringLiteral("cannot start the demo server: %1").arg(why);
        m_server.reset();
        return false;
    }
    connect(m_server.get(), &LocalServer::exited, this, [this](int code) {
        if (m_stopping)
            return;
        stopSimulation();
        Q_EMIT failed(QStringLiteral("the demo server exited unexpectedly (code %1)").arg(code));
    });

    ConnectionProfile own = profile();
    own.clientName = QStringLiteral("redislens-demo");
    // Our own server on loopback: a slow machine (a sanitizer build, a busy CI runner) makes
    // the seed slow, not wrong, so give its batches time.
    own.commandTimeoutMs = 60000;
    m_client = std::make_unique<RedisClient>(own);
    m_client->connectToServer();
    seed();
    return true;
}

ConnectionProfile Demo::profile() const
{
    ConnectionProfile p;
    p.name = QStringLiteral("Demo");
    if (m_server) {
        p.host = m_server->host();
        p.port = m_server->port();
    }
    return p;
}

qint64 Demo::serverPid() const
{
    return m_server ? m_server->pid() : 0;
}

QString Demo::serverDirectory() const
{
    return m_server ? m_server->directory() : QString();
}

bool Demo::seedBlocking(QString *error, int timeoutMs)
{
    if (m_seeded)
        return true;
    if (!m_server || !m_server->isRunning()) {
        if (!start(error))
            return false;
    } else if (!m_seeding) {
        seed(); // an earlier attempt failed: try again from an empty database
    }
    if (m_seeding) {
        QEventLoop loop;
        QTimer deadline;
        deadline.setSingleShot(true);
        connect(this, &Demo::seeded, &loop, &QEventLoop::quit);
        connect(this, &Demo::failed, &loop, &QEventLoop::quit);
        connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        deadline.start(timeoutMs);
        loop.exec();
    }
    if (m_seeded)
        return true;
    if (error)
        *error = m_seeding ? QStringLiteral("seeding did not finish within %1 ms").arg(timeoutMs) : m_seedError;
    return false;
}

// ---- helpers -------------------------------------------------------------------------------

RedisCommand Demo::script(const char *name, const QList<QByteArray> &keys, const QList<QByteArray> &args) const
{
    const ScriptInfo *info = ScriptLibrary::instance().find(QString::fromLatin1(name));
    if (!info)
        return {}; // start() checked every script; an empty command fails its batch loudly
    return ScriptLibrary::evalShaCommand(*info, keys, args);
}

QByteArray Demo::hex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (int i = 0; i < bytes; ++i)
        raw[i] = char(m_rng.bounded(256));
    return raw.toHex();
}

int Demo::between(int low, int high)
{
    return m_rng.bounded(low, high + 1);
}

QByteArray Demo::productJson(int id)
{
    const QByteArray name = QByteArray(kAdjectives[id % lengthOf(kAdjectives)]) + ' '
        + QByteArray(kNouns[(id / lengthOf(kAdjectives)) % lengthOf(kNouns)]);
    return "{\"id\":" + num(id) + ",\"sku\":\"SKU-" + num(id).rightJustified(6, '0') + "\",\"name\":\"" + name
        + "\",\"category\":" + num(id % 20 + 1) + ",\"price_cents\":" + num(between(299, 49999))
        + ",\"currency\":\"EUR\",\"stock\":" + num(between(0, 250)) + ",\"updated_at\":" + num(nowMs()) + ",\"v\":2}";
}

QByteArray Demo::jobJson(int id)
{
    static const char *const types[] = {"send_reminder", "expire_trial", "retry_payment", "publish_post"};
    return "{\"id\":" + num(id) + ",\"type\":\"" + QByteArray(types[id % lengthOf(types)])
        + "\",\"user_id\":" + num(kFirstUser + id % kUsers) + '}';
}

QByteArray Demo::emailJob(int id, qint64 enqueuedAtMs)
{
    return "{\"id\":\"em-" + num(id) + "\",\"template\":\"" + QByteArray(kTemplates[id % lengthOf(kTemplates)])
        + "\",\"user_id\":" + num(kFirstUser + id % kUsers) + ",\"enqueued_at\":" + num(enqueuedAtMs) + '}';
}

QByteArray Demo::newSession(Batch &b, int userId, qint64 createdMs, qint64 ttlMs)
{
    static const char *const agents[] = {
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0", "RedisLensDemo/1.0 (Android 14)"};
    const QByteArray id = hex(16);
    const QByteArray key = sessionKey(id);
    b.add({"HSET", key, "user_id", num(userId), "created_at", num(createdMs), "last_seen",
           num(createdMs + between(0, 600) * 1000), "csrf_token", hex(16), "ip", "198.51.100." + num(between(1, 254)),
           "user_agent", agents[between(0, lengthOf(agents) - 1)], "locale", (userId % 3 == 0) ? "de-DE" : "en-GB"});
    if (ttlMs > 0)
        b.add({"PEXPIRE", key, num(ttlMs)});
    return id;
}

// ---- seeding -------------------------------------------------------------------------------

void Demo::seed()
{
    if (!m_client)
        return;
    m_seeding = true;
    m_seeded = false;
    m_seedError.clear();
    m_seedClock.start();
    m_sessions.clear();
    m_staleSessions.clear();
    m_locks.clear();
    m_recompute.clear();
    m_invalidate.clear();
    m_toAck.clear();
    m_leftPending.clear();
    m_processing.clear();

    Batch b;
    // The server is ours alone; starting empty makes a second attempt behave like the first.
    b.add({"FLUSHDB"});
    for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
        b.add(ScriptLibrary::loadCommand(s));
    seedCaches(b);
    seedSessions(b);
    seedRateLimits(b);
    seedLocks(b);
    seedLeaderboards(b);
    seedGeo(b);
    seedStreams(b);
    seedQueues(b);
    seedMisc(b);

    // Replies come back in order, so the last batch to answer ends the seeding.
    const int batches = int((b.commands.size() + kSeedBatchSize - 1) / kSeedBatchSize);
    for (int i = 0; i < batches; ++i) {
        const QList<RedisCommand> part = b.commands.mid(qsizetype(i) * kSeedBatchSize, kSeedBatchSize);
        const int remaining = batches - 1 - i;
        m_client->sendBatch(part, this,
                            [this, part, remaining](const RedisReply &reply) { onSeedBatch(reply, part, remaining); });
    }
}

void Demo::onSeedBatch(const RedisReply &reply, const QList<RedisCommand> &commands, int remaining)
{
    if (!m_seeding)
        return; // an earlier batch already failed
    if (!reply.ok()) {
        finishSeeding(QStringLiteral("seeding the demo failed: %1").arg(reply.error.message));
        return;
    }
    for (qsizetype i = 0; i < reply.values.size(); ++i) {
        const RedisValue &v = reply.values.at(i);
        if (v.isError()) {
            finishSeeding(QStringLiteral("seeding the demo failed at %1: %2")
                              .arg(describe(commands.value(i)), QString::fromUtf8(v.bytes())));
            return;
        }
    }
    if (remaining == 0)
        finishSeeding({});
}

void Demo::finishSeeding(const QString &error)
{
    m_seeding = false;
    m_seedMs = m_seedClock.elapsed();
    if (!error.isEmpty()) {
        m_seedError = error;
        Q_EMIT failed(error);
        return;
    }
    m_seeded = true;
    // Loading the seed is not what the slowlog panel is there to show: start it empty, so
    // what it fills with is the simulator's traffic.
    m_client->send({"SLOWLOG", "RESET"}, this, [](const RedisReply &) {});
    Q_EMIT seeded();
    if (m_simulate && !m_timer->isActive())
        m_timer->start(m_intervalMs);
}

void Demo::seedCaches(Batch &b)
{
    const qint64 now = nowMs();
    // Cache-aside with jitter: a base TTL per kind plus up to ±10 %, so entries written
    // together do not all expire together.
    static const qint64 bases[] = {15 * kMinute, kHour, 2 * kHour};
    for (int id = 1; id <= kProducts; ++id) {
        const QByteArray key = "app:product:" + num(id);
        if (id % 167 == 0) {
            b.add({"SET", key, productJson(id)}); // forgotten TTL: grows for ever
            continue;
        }
        const qint64 base = bases[id % 3];
        const qint64 ttl = base + m_rng.bounded(qint64(-base / 10), qint64(base / 10));
        b.add({"SET", key, productJson(id), "PX", num(ttl)});
    }
    for (int u = 0; u < kUsers; ++u) {
        const int id = kFirstUser + u;
        const QByteArray json = "{\"id\":" + num(id) + ",\"display_name\":\"user" + num(id) + "\",\"plan\":\""
            + QByteArray(u % 4 == 0 ? "pro" : "free") + "\",\"created_at\":" + num(now - qint64(between(1, 900)) * kDay)
            + '}';
        b.add({"SET", "app:user:" + num(id) + ":profile", json, "PX",
               num(30 * kMinute + m_rng.bounded(qint64(5 * kMinute)))});
    }
    // A namespace written without jitter: every price expires in the same second.
    const qint64 priceExpiry = (now / 1000 + 600) * 1000;
    for (int i = 1; i <= 200; ++i) {
        const QByteArray key = "app:price:sku-" + num(i).rightJustified(6, '0');
        b.add({"SET", key, "{\"amount_cents\":" + num(between(199, 99999)) + ",\"currency\":\"EUR\"}"});
        b.add({"PEXPIREAT", key, num(priceExpiry)});
    }
    // Reference data that is meant to live without a TTL.
    b.add({"SET", "app:config:feature-flags", "{\"new_checkout\":true,\"dark_mode\":true,\"beta_search\":false}"});
    b.add({"SET", "app:config:currencies", "[\"EUR\",\"USD\",\"GBP\",\"JPY\",\"CHF\"]"});
    b.add({"SET", "app:config:shipping-zones", "{\"eu\":[\"DE\",\"FR\",\"NL\"],\"uk\":[\"GB\"],\"us\":[\"US\"]}"});

    // Negative caching: short-lived markers for rows that do not exist, and one without a TTL.
    for (int i = 0; i < 30; ++i)
        b.add({"SET", "app:product:" + num(900001 + i), "{\"missing\":true}", "EX", num(between(25, 35))});
    for (int i = 0; i < 10; ++i)
        b.add({"SET", "app:user:" + num(9001 + i) + ":profile", "null", "EX", num(between(25, 35))});
    b.add({"SET", "app:product:999999", "{\"missing\":true}"});

    // Stampede protection, second style: the value carries a logical expiry, the real TTL is longer.
    static const char *const regions[] = {"emea", "apac", "amer", "latam"};
    for (int i = 0; i < 20; ++i) {
        const QByteArray key = "app:report:sales:" + QByteArray(regions[i % 4]) + ':' + num(2026 * 100 + i / 4 + 1);
        b.add({"SET", key,
               "{\"value\":{\"orders\":" + num(between(100, 9000))
                   + ",\"revenue_cents\":" + num(between(10000, 9000000))
                   + "},\"logical_expires_at\":" + num(now + between(1, 10) * kMinute) + '}',
               "PX", num(kHour + m_rng.bounded(qint64(10 * kMinute)))});
    }
    // Recompute locks beside missing entries, and one left behind without a TTL.
    for (int id = kProducts + 1; id <= kProducts + 5; ++id)
        b.add({"SET", "app:product:" + num(id) + ":lock", hex(8), "NX", "PX", num(between(20, 45) * 1000)});
    b.add({"SET", "app:product:" + num(kProducts + 6) + ":lock", hex(8)});

    // Tags: each product's category; a few dangling members whose entry is gone; tag TTL a
    // little longer than its members', except category 13 (shorter: invalidation misses keys).
    for (int tag = 1; tag <= 20; ++tag) {
        RedisCommand sadd{"SADD", "tag:category:" + num(tag)};
        for (int id = 1; id <= kProducts; ++id) {
            if (id % 20 + 1 == tag) // the category productJson() writes
                sadd << "app:product:" + num(id);
        }
        for (int d = 0; d < 1 + tag % 3; ++d)
            sadd << "app:product:" + num(5000 + tag * 10 + d);
        b.add(sadd);
        b.add({"PEXPIRE", "tag:category:" + num(tag), num(tag == 13 ? 2 * kMinute : 2 * kHour + 30 * kMinute)});
    }
}

void Demo::seedSessions(Batch &b)
{
    const qint64 now = nowMs();
    QHash<int, QList<QByteArray>> byUser;
    for (int i = 0; i < 400; ++i) {
        const int user = kFirstUser + between(0, kUsers - 1);
        const qint64 ttl = (30 * kMinute) + m_rng.bounded(qint64(kDay - 30 * kMinute));
        const QByteArray id = newSession(b, user, now - m_rng.bounded(qint64(20 * kHour)), ttl);
        byUser[user].append(id);
        m_sessions.append(KnownSession{id, user});
    }
    // Sessions somebody created without a TTL.
    for (int i = 0; i < 2; ++i) {
        const int user = kFirstUser + i;
        const QByteArray id = newSession(b, user, now - 3 * kDay, 0);
        byUser[user].append(id);
    }
    for (auto it = byUser.cbegin(); it != byUser.cend(); ++it) {
        RedisCommand sadd{"SADD", userSessionsKey(it.key())};
        sadd << it.value();
        if (it.key() % 5 == 0)
            sadd << hex(16); // a session that expired without the index being cleaned
        b.add(sadd);
        b.add({"PEXPIRE", userSessionsKey(it.key()), num(kDay)});
    }
}

void Demo::seedRateLimits(Batch &b)
{
    const qint64 now = nowMs();
    const QByteArray window = num(now / kFixedWindow);
    for (int u = 0; u < 80; ++u) {
        const QByteArray key = "rate:user:" + num(kFirstUser + u) + ':' + window;
        const int hits = between(1, kFixedLimit + 4);
        for (int h = 0; h < hits; ++h)
            b.add(script("fixed_window_limit", {key}, {num(kFixedLimit), num(kFixedWindow)}));
    }
    // A counter written without its TTL: this caller stays locked out for ever.
    b.add({"INCRBY", "rate:user:4242:" + num(now / kFixedWindow - 37), "57"});

    for (int u = 0; u < 25; ++u) {
        const QByteArray key = "rate:sliding:user:" + num(kFirstUser + u);
        const int hits = between(3, kSlidingLimit + 6);
        const qint64 span = kSlidingWindow - 5000;
        for (int h = 0; h < hits; ++h) {
            const qint64 at = now - span + span * h / hits;
            b.add(script("sliding_window_limit", {key, key + ":seq"},
                         {num(at), num(kSlidingWindow), num(kSlidingLimit)}));
        }
    }

    for (int c = 1; c <= 30; ++c) {
        const QByteArray key = "bucket:api:client-" + num(c);
        const int calls = between(1, kBucketCapacity + 10);
        for (int i = 0; i < calls; ++i) {
            b.add(
                script("token_bucket", {key}, {num(kBucketCapacity), num(kBucketRate), num(now - 3000 + i * 40), "1"}));
        }
    }
}

void Demo::seedLocks(Batch &b)
{
    for (const char *resource : kLockResources) {
        b.add(script("lock_acquire", {"lock:" + QByteArray(resource)}, {hex(16), num(between(10, 300) * 1000)}));
    }
    // Going wrong, on purpose: a lock stuck without a TTL (its holder crashed), a lock whose
    // value is "1" (anyone may release it), and a TTL far longer than the work it guards.
    b.add({"SET", "lock:migration:schema-v42", hex(16)});
    b.add({"SET", "lock:cron:send-digest", "1", "PX", num(15 * kMinute)});
    b.add(script("lock_acquire", {"lock:import:catalog"}, {hex(16), num(kDay)}));
}

void Demo::seedLeaderboards(Batch &b)
{
    const QDate day0 = today();
    RedisCommand weekly{"ZUNIONSTORE", "lb:weekly:" + isoWeek(day0), "7"};
    for (int d = 0; d < 7; ++d) {
        const QByteArray key = "lb:daily:" + isoDate(day0.addDays(-d));
        weekly << key;
        // 300 of the 400 players; scores in steps of 10, so ties happen as they do in games.
        QList<int> players;
        for (int p = 1; p <= kPlayers; ++p)
            players.append(p);
        for (int i = players.size() - 1; i > 0; --i)
            players.swapItemsAt(i, between(0, i));
        players.resize(300);
        RedisCommand zadd{"ZADD", key};
        for (int i = 0; i < players.size(); ++i) {
            // The top two are tied: ZRANGE orders them by member name, which nobody chose.
            const int score = i < 2 ? 6000 : between(0, 500) * 10;
            zadd << num(score) << "player:" + num(players.at(i));
            if (zadd.size() >= 2 + 200) {
                b.add(zadd);
                zadd = RedisCommand{"ZADD", key};
            }
        }
        if (zadd.size() > 2)
            b.add(zadd);
        b.add({"PEXPIRE", key, num(8 * kDay)});
    }
    b.add(weekly);
    b.add({"PEXPIRE", "lb:weekly:" + isoWeek(day0), num(14 * kDay)});
}

void Demo::seedGeo(Batch &b)
{
    RedisCommand geo{"GEOADD", "geo:cities"};
    for (const City &c : kCities)
        geo << QByteArray::number(c.lon, 'f', 4) << QByteArray::number(c.lat, 'f', 4) << QByteArray(c.name);
    b.add(geo);
}

void Demo::seedStreams(Batch &b)
{
    const qint64 now = nowMs();
    const QByteArray stream = "events:orders";
    QList<QByteArray> ids;
    const qint64 first = now - 2 * kHour;
    for (int i = 0; i < 500; ++i) {
        // Explicit ids, known before the replies arrive, so the group set-up fits one pipeline.
        const QByteArray id = num(first + qint64(i) * 14000 + between(0, 999)) + "-0";
        ids.append(id);
        const int order = 50000 + i;
        b.add({"XADD", stream, "MAXLEN", "~", num(kStreamCap), id, "type", kOrderEvents[i % lengthOf(kOrderEvents)],
               "order_id", num(order), "user_id", num(kFirstUser + order % kUsers), "amount_cents",
               num(between(500, 250000)), "currency", "EUR"});
    }
    b.add({"XGROUP", "CREATE", stream, "billing", "0"});
    b.add({"XGROUP", "CREATE", stream, "analytics", ids.at(449)});
    b.add({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "60", "STREAMS", stream, ">"});
    b.add({"XREADGROUP", "GROUP", "billing", "worker-2", "COUNT", "40", "STREAMS", stream, ">"});
    b.add({"XREADGROUP", "GROUP", "analytics", "reader-1", "COUNT", "10", "STREAMS", stream, ">"});

    // Left pending: {index, consumer, idle minutes (negative: seconds), delivery count}.
    struct Stuck
    {
        int index;
        const char *consumer;
        int idle;
        int deliveries;
    };
    static const Stuck stuck[] = {
        {0, "worker-1", 95, 17},  {1, "worker-1", 80, 25}, {2, "worker-1", 70, 12}, // poison
        {5, "worker-1", 60, 2},   {10, "worker-1", 45, 1}, {20, "worker-1", 30, 3},  {30, "worker-1", 20, 1},
        {40, "worker-1", 12, 2},  {50, "worker-1", 5, 1},  {55, "worker-1", -90, 1}, {58, "worker-1", -20, 1},
        {59, "worker-1", -3, 1},  {60, "worker-2", 40, 4}, {70, "worker-2", 10, 1},  {85, "worker-2", 2, 1},
        {95, "worker-2", -30, 1}, {98, "worker-2", -8, 1}, {99, "worker-2", -1, 1},
    };
    QSet<int> keep;
    for (const Stuck &s : stuck)
        keep.insert(s.index);
    RedisCommand ack{"XACK", stream, "billing"};
    for (int i = 0; i < 100; ++i) {
        if (!keep.contains(i))
            ack << ids.at(i);
    }
    b.add(ack);
    RedisCommand ackAnalytics{"XACK", stream, "analytics"};
    for (int i = 450; i < 460; ++i)
        ackAnalytics << ids.at(i);
    b.add(ackAnalytics);
    for (const Stuck &s : stuck) {
        const qint64 idleMs = s.idle >= 0 ? s.idle * kMinute : qint64(-s.idle) * 1000;
        b.add({"XCLAIM", stream, "billing", s.consumer, "0", ids.at(s.index), "IDLE", num(idleMs), "RETRYCOUNT",
               num(s.deliveries), "JUSTID"});
    }
    // The worst poison entry goes to the dead-letter stream, atomically with its XACK.
    b.add(script("stream_dead_letter", {stream, "events:orders:dead"},
                 {"billing", ids.at(1), "delivered 25 times", "10000"}));

    // An audit stream nobody trims.
    const qint64 auditFirst = now - 6 * kHour;
    static const char *const actions[] = {"login", "update_profile", "export", "delete_item", "grant_role"};
    for (int i = 0; i < 300; ++i) {
        b.add({"XADD", "events:audit", num(auditFirst + qint64(i) * 70000) + "-0", "actor",
               "user:" + num(kFirstUser + between(0, kUsers - 1)), "action", actions[i % lengthOf(actions)], "target",
               "app:product:" + num(between(1, kProducts))});
    }
}

void Demo::seedQueues(Batch &b)
{
    const qint64 now = nowMs();
    // LPUSH to enqueue, workers take from the right: the oldest item is the last one.
    RedisCommand push{"LPUSH", "q:email"};
    for (int i = 0; i < 120; ++i) {
        push << emailJob(m_nextEmail++, now - 10 * kMinute + qint64(i) * 5000);
        if (push.size() >= 2 + 50) {
            b.add(push);
            push = RedisCommand{"LPUSH", "q:email"};
        }
    }
    if (push.size() > 2)
        b.add(push);
    m_queueLength = 120;
    // worker-1 died 45 minutes ago holding three items; worker-2 is alive.
    RedisCommand dead{"LPUSH", "q:email:proc:worker-1"};
    for (int i = 0; i < 3; ++i)
        dead << emailJob(m_nextEmail++, now - 47 * kMinute + i * 1000);
    b.add(dead);
    const QByteArray working = emailJob(m_nextEmail++, now - 3000);
    b.add({"LPUSH", "q:email:proc:worker-2", working});
    m_processing.append(working);

    // Delayed jobs in epoch ms: 40 overdue (some by hours), the rest due within two hours.
    RedisCommand zadd{"ZADD", "sched:due"};
    for (int i = 0; i < 300; ++i) {
        const qint64 due = i < 40 ? now - qint64(between(1, 180)) * kMinute : now + qint64(between(1, 120)) * kMinute;
        zadd << num(due) << jobJson(m_nextJob++);
        if (zadd.size() >= 2 + 200) {
            b.add(zadd);
            zadd = RedisCommand{"ZADD", "sched:due"};
        }
    }
    if (zadd.size() > 2)
        b.add(zadd);
    b.add(script("claim_due_jobs", {"sched:due"}, {num(now), "10"}));
}

void Demo::seedMisc(Batch &b)
{
    const QDate day0 = today();
    // Dedup: one set that only grows (to 60,000 ids, big enough that reading it whole is
    // slow), and per-event keys that expire.
    RedisCommand seen{"SADD", "seen:webhook"};
    for (int i = 1; i <= 60000; ++i) {
        seen << "wh_" + num(i * 7 + between(0, 6));
        if (seen.size() >= 2 + 250) {
            b.add(seen);
            seen = RedisCommand{"SADD", "seen:webhook"};
        }
    }
    if (seen.size() > 2)
        b.add(seen);
    for (int i = 1; i <= 200; ++i)
        b.add({"SET", "seen:evt:wh_" + num(i), "1", "NX", "EX", num(between(3600, 86400))});

    // HyperLogLogs per day and counters per day.
    for (int d = 0; d < 7; ++d) {
        const QByteArray key = "hll:pageviews:" + isoDate(day0.addDays(-d));
        const int visitors = between(1500, 3000);
        RedisCommand pfadd{"PFADD", key};
        for (int v = 0; v < visitors; ++v) {
            pfadd << "v" + num(between(1, 20000));
            if (pfadd.size() >= 2 + 500) {
                b.add(pfadd);
                pfadd = RedisCommand{"PFADD", key};
            }
        }
        if (pfadd.size() > 2)
            b.add(pfadd);
        b.add({"PEXPIRE", key, num(35 * kDay)});
    }
    for (int d = 0; d < 14; ++d) {
        const QByteArray date = isoDate(day0.addDays(-d));
        b.add({"INCRBY", "stats:signups:" + date, num(between(20, 200))});
        b.add({"INCRBY", "stats:orders:" + date, num(between(100, 900))});
    }

    // Bytes, not strings: names with a NUL, with invalid UTF-8 and a newline, binary values,
    // and one big blob (which also shows what "blobs belong in an object store" means).
    b.add({"SET",
           bytes("bin:nul\x00"
                 "name"),
           "a key whose name holds a NUL byte"});
    b.add({"SET", bytes("bin:\xff\xfe-not-utf8"), bytes("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")});
    b.add({"SET", bytes("bin:\x00\xff\nkey"), bytes("line one\nline two\x00\xff\xfe")});
    QByteArray blob;
    blob.reserve(2 * 1024 * 1024 + 128);
    blob += "order_id,user_id,amount_cents,currency,created_at\n";
    const qint64 start = nowMs() - 30 * kDay;
    for (int row = 0; blob.size() < 2 * 1024 * 1024; ++row) {
        blob += num(1000000 + row) + ',' + num(kFirstUser + row % kUsers) + ',' + num(between(500, 250000)) + ",EUR,"
            + num(start + qint64(row) * 1000) + '\n';
    }
    b.add({"SET", "blob:export:orders.csv", blob});
}

// ---- simulation ----------------------------------------------------------------------------

void Demo::startSimulation(int intervalMs)
{
    m_simulate = true;
    m_intervalMs = qMax(10, intervalMs);
    if (m_seeded)
        m_timer->start(m_intervalMs);
}

void Demo::stopSimulation()
{
    m_simulate = false;
    m_timer->stop();
}

void Demo::onTick()
{
    // One batch at a time: a slow server delays ticks instead of piling them up.
    if (!m_seeded || m_tickBusy || !m_client)
        return;
    const qint64 now = nowMs();
    const QDate day0 = today();
    Batch b;

    if (m_reloadScripts) {
        for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
            b.add(ScriptLibrary::loadCommand(s));
        m_reloadScripts = false;
    }

    // Cache-aside: last tick's lock winners write the entry with a jittered TTL and release
    // their recompute lock; this tick's readers go through cache_get_or_lock.
    for (const auto &r : std::as_const(m_recompute)) {
        const int id = r.first.mid(12).toInt();
        const int category = id % 20 + 1;
        const QByteArray tag = "tag:category:" + num(category);
        b.add({"SET", r.first, productJson(id), "PX",
               num(kHour + m_rng.bounded(qint64(-6 * kMinute), qint64(6 * kMinute)))});
        b.add({"SADD", tag, r.first});
        b.add({"PEXPIRE", tag, num(category == 13 ? 2 * kMinute : 2 * kHour + 30 * kMinute)});
        b.add(script("lock_release", {r.first + ":lock"}, {r.second}));
    }
    m_recompute.clear();
    // Tag invalidation: a category changed; its entries go in bounded batches picked with
    // SRANDMEMBER on one tick and deleted by the script on the next.
    if (m_invalidate.size() > 1)
        b.add(script("tag_invalidate", m_invalidate, {}));
    m_invalidate.clear();
    if (m_ticks % 15 == 7) {
        const QByteArray tag = "tag:category:" + num(between(1, 20));
        b.add({"SRANDMEMBER", tag, "5"}, [this, tag](const RedisValue &v) {
            m_invalidate = {tag};
            for (const RedisValue &member : v.elements()) {
                // Keep the seeded entries without a TTL: they are the "going wrong" examples.
                if (member.bytes().mid(12).toInt() % 167 != 0)
                    m_invalidate.append(member.bytes());
            }
        });
    }
    for (int i = 0; i < 12; ++i) {
        const QByteArray key = "app:product:" + num(between(1, kProducts + 100));
        const QByteArray token = hex(8);
        b.add(script("cache_get_or_lock", {key, key + ":lock"}, {token, "5000"}),
              [this, key, token](const RedisValue &v) {
                  if (v.at(1).toInteger() == 1)
                      m_recompute.append({key, token});
              });
    }
    for (int i = 0; i < 15; ++i)
        b.add({"GET", "app:product:" + num(between(1, kProducts + 300))});
    for (int i = 0; i < 3; ++i)
        b.add({"GET", "app:user:" + num(kFirstUser + between(0, kUsers + 20)) + ":profile"});
    if (between(0, 3) == 0)
        b.add({"SET", "app:product:" + num(900001 + between(0, 60)), "{\"missing\":true}", "EX", "30"});

    // Sessions: slide a few on use; now and then one logs out and another logs in. Ids of
    // sessions found gone leave their user's index, so the simulator adds no dangling ids.
    for (const KnownSession &gone : std::as_const(m_staleSessions))
        b.add({"SREM", userSessionsKey(gone.user), gone.id});
    m_staleSessions.clear();
    for (int i = 0; i < 5 && !m_sessions.isEmpty(); ++i) {
        const KnownSession s = m_sessions.at(between(0, int(m_sessions.size()) - 1));
        b.add(script("session_touch", {sessionKey(s.id)}, {num(2 * kHour), num(now), "user_id"}),
              [this, s](const RedisValue &v) {
                  if (v.at(0).toInteger() != 0)
                      return;
                  const auto known = std::find_if(m_sessions.begin(), m_sessions.end(),
                                                  [&s](const KnownSession &k) { return k.id == s.id; });
                  if (known != m_sessions.end()) {
                      m_sessions.erase(known);
                      m_staleSessions.append(s);
                  }
              });
    }
    if (between(0, 4) == 0 && !m_sessions.isEmpty()) {
        const KnownSession gone = m_sessions.takeAt(between(0, int(m_sessions.size()) - 1));
        b.add({"DEL", sessionKey(gone.id)});
        b.add({"SREM", userSessionsKey(gone.user), gone.id});
        const int user = kFirstUser + between(0, kUsers - 1);
        const QByteArray id = newSession(b, user, now, 30 * kMinute + m_rng.bounded(qint64(90 * kMinute)));
        b.add({"SADD", userSessionsKey(user), id});
        b.add({"PEXPIRE", userSessionsKey(user), num(kDay)});
        if (m_sessions.size() < kMaxKnownSessions)
            m_sessions.append(KnownSession{id, user});
    }

    // Rate limits through their scripts.
    const QByteArray window = num(now / kFixedWindow);
    for (int i = 0; i < 20; ++i) {
        b.add(script("fixed_window_limit", {"rate:user:" + num(kFirstUser + between(0, 79)) + ':' + window},
                     {num(kFixedLimit), num(kFixedWindow)}));
    }
    for (int i = 0; i < 8; ++i) {
        const QByteArray key = "rate:sliding:user:" + num(kFirstUser + between(0, 24));
        b.add(script("sliding_window_limit", {key, key + ":seq"}, {num(now), num(kSlidingWindow), num(kSlidingLimit)}));
    }
    for (int i = 0; i < 8; ++i) {
        b.add(script("token_bucket", {"bucket:api:client-" + num(between(1, 30))},
                     {num(kBucketCapacity), num(kBucketRate), num(now), "1"}));
    }

    // Locks: holders extend once, then release; two new attempts per tick.
    for (qsizetype i = m_locks.size() - 1; i >= 0; --i) {
        HeldLock &l = m_locks[i];
        ++l.age;
        if (l.age == 2) {
            b.add(script("lock_extend", {l.key}, {l.token, num(between(10, 30) * 1000)}));
        } else if (l.age >= 4) {
            b.add(script("lock_release", {l.key}, {l.token}));
            m_locks.removeAt(i);
        }
    }
    for (int i = 0; i < 2; ++i) {
        const QByteArray key = "lock:" + QByteArray(kLockResources[between(0, lengthOf(kLockResources) - 1)]);
        const QByteArray token = hex(16);
        b.add(script("lock_acquire", {key}, {token, num(between(5, 30) * 1000)}),
              [this, key, token](const RedisValue &v) {
                  if (v.at(0).toInteger() == 1)
                      m_locks.append(HeldLock{key, token, 0});
              });
    }

    // Leaderboard of the day, capped so it cannot grow without bound.
    const QByteArray board = "lb:daily:" + isoDate(day0);
    for (int i = 0; i < 15; ++i)
        b.add({"ZINCRBY", board, num(between(1, 10) * 10), "player:" + num(between(1, kPlayers))});
    b.add({"PEXPIRE", board, num(8 * kDay)});
    if (m_ticks % 30 == 0)
        b.add({"ZREMRANGEBYRANK", board, "0", "-1001"});

    // Stream: produce, consume with XREADGROUP, acknowledge last tick's reads (keeping a
    // bounded few pending), now and then dead-letter one of those.
    const QByteArray stream = "events:orders";
    const int produce = between(1, 5);
    for (int i = 0; i < produce; ++i) {
        const int order = 60000 + m_ticks * 5 + i;
        b.add({"XADD", stream, "MAXLEN", "~", num(kStreamCap), "*", "type",
               kOrderEvents[between(0, lengthOf(kOrderEvents) - 1)], "order_id", num(order), "user_id",
               num(kFirstUser + order % kUsers), "amount_cents", num(between(500, 250000)), "currency", "EUR"});
    }
    if (!m_toAck.isEmpty() && between(0, 9) == 0)
        m_leftPending.append(m_toAck.takeLast());
    while (m_leftPending.size() > 20)
        m_toAck.append(m_leftPending.takeFirst());
    if (!m_toAck.isEmpty()) {
        RedisCommand ack{"XACK", stream, "billing"};
        ack << m_toAck;
        b.add(ack);
        m_toAck.clear();
    }
    if (m_ticks % 20 == 19 && !m_leftPending.isEmpty()) {
        const QByteArray id = m_leftPending.takeFirst();
        b.add(script("stream_dead_letter", {stream, "events:orders:dead"},
                     {"billing", id, "gave up after retries", "10000"}));
    }
    const QByteArray consumer = m_ticks % 2 ? "worker-1" : "worker-2";
    b.add({"XREADGROUP", "GROUP", "billing", consumer, "COUNT", "6", "STREAMS", stream, ">"},
          [this](const RedisValue &v) {
              for (const RedisValue &s : v.elements()) {
                  for (const RedisValue &entry : s.at(1).elements())
                      m_toAck.append(entry.at(0).bytes());
              }
          });
    b.add({"XREADGROUP", "GROUP", "analytics", "reader-1", "COUNT", "4", "NOACK", "STREAMS", stream, ">"});
    b.add({"PUBLISH", "orders.live", "{\"tick\":" + num(m_ticks) + '}'});

    // Reliable list queue: ack what worker-2 took last tick, enqueue, take a few more.
    for (const QByteArray &item : std::as_const(m_processing))
        b.add({"LREM", "q:email:proc:worker-2", "1", item});
    m_processing.clear();
    const int enqueue = between(1, 4);
    for (int i = 0; i < enqueue; ++i) {
        b.add({"LPUSH", "q:email", emailJob(m_nextEmail++, now)},
              [this](const RedisValue &v) { m_queueLength = v.toInteger(); });
    }
    const bool hasLmove = m_client->facts().version.isNull() || m_client->facts().version >= QVersionNumber(6, 2);
    const int take = m_queueLength > 300 ? 8 : 3;
    for (int i = 0; i < take; ++i) {
        RedisCommand move = hasLmove ? RedisCommand{"LMOVE", "q:email", "q:email:proc:worker-2", "RIGHT", "LEFT"}
                                     : RedisCommand{"RPOPLPUSH", "q:email", "q:email:proc:worker-2"};
        b.add(move, [this](const RedisValue &v) {
            if (v.isString())
                m_processing.append(v.bytes());
        });
    }

    // Delayed jobs: schedule a few, claim the due ones in a bounded batch.
    const int schedule = between(1, 3);
    for (int i = 0; i < schedule; ++i)
        b.add({"ZADD", "sched:due", num(now + qint64(between(5, 600)) * 1000), jobJson(m_nextJob++)});
    b.add(script("claim_due_jobs", {"sched:due"}, {num(now), "5"}));

    // Unique counting, counters, dedup (event ids from a bounded space).
    RedisCommand pfadd{"PFADD", "hll:pageviews:" + isoDate(day0)};
    for (int i = 0; i < 10; ++i)
        pfadd << "v" + num(between(1, 20000));
    b.add(pfadd);
    if (between(0, 2) == 0)
        b.add({"INCR", "stats:signups:" + isoDate(day0)});
    b.add({"INCRBY", "stats:orders:" + isoDate(day0), num(between(1, 5))});
    const QByteArray event = "wh_" + num(between(1, 3000));
    b.add({"SADD", "seen:webhook", event});
    // Bad habits for the slowlog panel: a cleanup job that reads the whole dedup set, and a
    // report that still uses KEYS. Both are what docs/patterns.md says never to do in production.
    if (m_ticks % 4 == 0)
        b.add({"SMEMBERS", "seen:webhook"});
    if (m_ticks % 10 == 1)
        b.add({"KEYS", "stats:*"});
    b.add({"SET", "seen:evt:" + event, "1", "NX", "EX", "3600"});

    m_tickBusy = true;
    m_client->sendBatch(b.commands, this, [this, b](const RedisReply &reply) { onTickReply(reply, b); });
}

void Demo::onTickReply(const RedisReply &reply, const Batch &batch)
{
    m_tickBusy = false;
    for (qsizetype i = 0; i < reply.values.size() && i < batch.handlers.size(); ++i) {
        const RedisValue &v = reply.values.at(i);
        if (ScriptLibrary::isNoScript(v)) {
            m_reloadScripts = true; // somebody ran SCRIPT FLUSH
            continue;
        }
        if (v.isError()) {
            ++m_tickErrors;
            m_lastTickError = describe(batch.commands.value(i)) + QStringLiteral(": ") + QString::fromUtf8(v.bytes());
            continue;
        }
        if (!batch.handlers.at(i))
            continue;
        batch.handlers.at(i)(v);
    }
    if (!reply.ok())
        return; // connection trouble: the client reconnects, the next tick tries again
    ++m_ticks;
    Q_EMIT tick(m_ticks);
}
