// SPDX-License-Identifier: GPL-3.0-or-later
// redislens-bench: headless measurements of the real engine (worker thread, scanner, models)
// against a minimal raw-hiredis reference run in the same process on the same server.
// Prints one JSON line per run. Figures are ratios, since absolute times vary by machine.

#include "clusterrouter.h"
#include "clustertopology.h"
#include "decoders.h"
#include "keyscanner.h"
#include "keytreemodel.h"
#include "localserver.h"
#include "memoryreader.h"
#include "patternindex.h"
#include "redisclient.h"
#include "scanfeed.h"
#include "valuemodel.h"

#include <QCborArray>
#include <QCborMap>
#include <QCborValue>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <hiredis/hiredis.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace {

double rssMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
    }
    return -1;
}

// The reference: what a careful hand-written client does. SCAN COUNT 1000, then TYPE and PTTL
// for the batch in one pipeline, on a blocking hiredis context.
struct ReferenceResult
{
    double seconds = 0;
    qint64 keys = 0;
};

ReferenceResult referenceScan(const QString &host, int port, bool details, bool memory)
{
    // MEMORY USAGE takes a subcommand: the reference sends it as "MEMORY" "USAGE" key below.
    std::vector<const char *> perKey{"TYPE", "PTTL"};
    ReferenceResult result;
    redisContext *c = redisConnect(host.toUtf8().constData(), port);
    if (!c || c->err) {
        std::fprintf(stderr, "reference: cannot connect\n");
        std::exit(1);
    }
    QElapsedTimer clock;
    clock.start();
    QByteArray cursor = "0";
    do {
        auto *reply = static_cast<redisReply *>(
            redisCommand(c, "SCAN %b COUNT 1000", cursor.constData(), size_t(cursor.size())));
        if (!reply || reply->type != REDIS_REPLY_ARRAY) {
            std::fprintf(stderr, "reference: SCAN failed\n");
            std::exit(1);
        }
        cursor = QByteArray(reply->element[0]->str, qsizetype(reply->element[0]->len));
        const redisReply *keys = reply->element[1];
        result.keys += qint64(keys->elements);
        if (details) {
            // The argv form: no format string to parse per command.
            for (size_t i = 0; i < keys->elements; ++i) {
                for (const char *cmd : perKey) {
                    const char *argv[] = {cmd, keys->element[i]->str};
                    const size_t argl[] = {strlen(cmd), keys->element[i]->len};
                    redisAppendCommandArgv(c, 2, argv, argl);
                }
                if (memory) {
                    const char *argv[] = {"MEMORY", "USAGE", keys->element[i]->str};
                    const size_t argl[] = {6, 5, keys->element[i]->len};
                    redisAppendCommandArgv(c, 3, argv, argl);
                }
            }
            for (size_t i = 0; i < keys->elements * (perKey.size() + (memory ? 1 : 0)); ++i) {
                void *r = nullptr;
                if (redisGetReply(c, &r) != REDIS_OK) {
                    std::fprintf(stderr, "reference: pipeline failed\n");
                    std::exit(1);
                }
                freeReplyObject(r);
            }
        }
        freeReplyObject(reply);
    } while (cursor != "0");
    result.seconds = clock.nsecsElapsed() / 1e9;
    redisFree(c);
    return result;
}

struct LensResult
{
    double seconds = 0;
    quint64 keys = 0;
    double maxStallMs = 0;
    double maxBusyMs = 0;
    double rssMb = 0;
    int batches = 0;
    qint64 sampleCommands = 0;
    int sampledKeys = 0;
    int classified = 0;
    QString error;
};

// Connects and waits; an empty string when ready, else the reason.
QString connectBlocking(RedisClient &client)
{
    QString error;
    QEventLoop loop;
    QObject::connect(&client, &RedisClient::ready, &loop, &QEventLoop::quit);
    QObject::connect(&client, &RedisClient::connectionError, &loop, [&](const RedisError &e) {
        error = e.message;
        loop.quit();
    });
    client.connectToServer();
    loop.exec();
    return error;
}

// The GUI thread's own CPU time: what it spent working, not waiting for a core.
qint64 threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return qint64(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// The stall probe: a 1 ms timer on the GUI thread; the longest gap between two of its ticks
// is the longest the event loop was kept from running. On a machine with fewer cores than
// busy threads (the server, the worker, the GUI thread) a gap also holds time the GUI thread
// waited for a core; the CPU time it used within the gap is what RedisLens's own work kept it.
class StallProbe
{
public:
    StallProbe()
    {
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double gap = m_sinceTick.nsecsElapsed() / 1e6;
            const double busy = (threadCpuNs() - m_cpuAtTick) / 1e6;
            m_maxMs = qMax(m_maxMs, gap);
            m_maxBusyMs = qMax(m_maxBusyMs, busy);
            m_cpuAtTick = threadCpuNs();
            m_sinceTick.restart();
        });
    }
    void start()
    {
        m_sinceTick.start();
        m_cpuAtTick = threadCpuNs();
        m_timer.start();
    }
    double stop()
    {
        m_timer.stop();
        return m_maxMs;
    }
    double maxBusyMs() const { return m_maxBusyMs; }

private:
    QElapsedTimer m_sinceTick;
    QTimer m_timer;
    qint64 m_cpuAtTick = 0;
    double m_maxMs = 0;
    double m_maxBusyMs = 0;
};

LensResult lensScan(const ConnectionProfile &profile, bool details, bool memory, bool patterns = false,
                    int scanRate = 0)
{
    LensResult result;
    RedisClient client(profile);
    KeyTreeModel model;
    ScanFeed feed(&client, &model);
    KeyScanner &scanner = *feed.scanner();
    result.error = connectBlocking(client);
    if (!result.error.isEmpty())
        return result;
    QEventLoop loop;
    StallProbe probe;

    // Wired as MainWindow wires it: the index samples on the scan's own connection, paced by the
    // scan's ceiling (0: none), and fed every batch as it arrives. No rules file: no user rules.
    PatternIndex index(&client);
    index.setMaxCommandsPerSecond(scanRate);
    bool scanDone = false;
    if (patterns) {
        QObject::connect(&scanner, &KeyScanner::batchAvailable, &index,
                         [&](const ScanBatch &batch) { index.addKeys(batch.keys); });
        QObject::connect(&index, &PatternIndex::idle, &loop, [&] {
            if (scanDone)
                loop.quit();
        });
    }
    QObject::connect(&scanner, &KeyScanner::batchAvailable, [&] { ++result.batches; });
    QObject::connect(&feed, &ScanFeed::completed, &loop, [&](const ScanProgress &p) {
        if (p.error)
            result.error = p.error.message;
        scanDone = true;
        if (!patterns || index.isIdle())
            loop.quit();
    });

    ScanOptions options;
    options.details = details;
    options.memory = memory;
    options.maxCommandsPerSecond = scanRate;
    QElapsedTimer clock;
    clock.start();
    probe.start();
    scanner.start(options);
    loop.exec();
    result.maxStallMs = probe.stop();
    result.maxBusyMs = probe.maxBusyMs();
    result.seconds = clock.nsecsElapsed() / 1e9;
    result.keys = model.keyCount();
    result.rssMb = rssMb();
    result.sampleCommands = index.sampleCommandCount();
    result.sampledKeys = index.sampledKeyCount();
    result.classified = index.size() - index.count(PatternKind::Unknown);
    return result;
}

// A keyspace with every type, like a real one: 70% small strings from DEBUG POPULATE, the rest
// hashes, lists, sets and sorted sets of 5 to 40 elements in their own namespaces.
bool populateMixed(const QString &host, int port, qint64 keys)
{
    redisContext *c = redisConnect(host.toUtf8().constData(), port);
    if (!c || c->err)
        return false;
    const qint64 strings = keys * 7 / 10;
    auto *r = static_cast<redisReply *>(redisCommand(c, "DEBUG POPULATE %lld cache:item 64", strings));
    freeReplyObject(r);
    const char *kinds[] = {"HSET", "RPUSH", "SADD", "ZADD"};
    const char *spaces[] = {"user:", "queue:", "tags:", "board:"};
    qint64 pending = 0;
    for (qint64 i = 0; i < keys - strings; ++i) {
        const int kind = int(i % 4);
        const QByteArray name = QByteArray(spaces[kind]) + QByteArray::number(i);
        const int elements = 5 + int((i * 2654435761u) % 36);
        QList<QByteArray> args{kinds[kind], name};
        for (int e = 0; e < elements; ++e) {
            const QByteArray member = "member-" + QByteArray::number(e);
            if (kind == 0)
                args << member << "value-" + QByteArray::number(i);
            else if (kind == 3)
                args << QByteArray::number(e) << member;
            else
                args << member;
        }
        std::vector<const char *> argv;
        std::vector<size_t> argl;
        for (const QByteArray &a : args) {
            argv.push_back(a.constData());
            argl.push_back(size_t(a.size()));
        }
        redisAppendCommandArgv(c, int(argv.size()), argv.data(), argl.data());
        if (++pending == 1000) {
            for (; pending > 0; --pending) {
                void *reply = nullptr;
                if (redisGetReply(c, &reply) != REDIS_OK)
                    return false;
                freeReplyObject(reply);
            }
        }
    }
    for (; pending > 0; --pending) {
        void *reply = nullptr;
        if (redisGetReply(c, &reply) != REDIS_OK)
            return false;
        freeReplyObject(reply);
    }
    redisFree(c);
    return true;
}

struct CliResult
{
    double seconds = 0;
    QHash<QString, QByteArray> biggest; // type → key name as redis-cli prints it
};

// redis-cli --memkeys (or --bigkeys) on the same server: the tool people use today.
CliResult redisCli(const QString &host, int port, const QString &mode)
{
    CliResult result;
    QProcess p;
    QElapsedTimer clock;
    clock.start();
    p.start(QStandardPaths::findExecutable(QStringLiteral("redis-cli")),
            {QStringLiteral("-h"), host, QStringLiteral("-p"), QString::number(port), mode});
    p.waitForFinished(-1);
    result.seconds = clock.nsecsElapsed() / 1e9;
    // redis-cli 7 quotes the name as '"name"', redis-cli 8 as "name".
    static const QRegularExpression line(QStringLiteral("^Biggest\\s+(\\w+) found '?\"(.*)\"'? has"));
    for (const QByteArray &raw : p.readAllStandardOutput().split('\n')) {
        const auto m = line.match(QString::fromUtf8(raw));
        if (m.hasMatch())
            result.biggest.insert(m.captured(1), m.captured(2).toUtf8());
    }
    return result;
}

struct MemoryResult
{
    double seconds = 0;
    quint64 keys = 0;
    double maxStallMs = 0;
    double rssMb = 0;
    QHash<QString, QByteArray> biggest;
    QString error;
};

// The memory panel's analysis, headless: KeyScanner with MEMORY USAGE and the length commands
// into MemoryStats, unpaced, with the same stall probe as the scan mode.
MemoryResult lensMemory(const ConnectionProfile &profile)
{
    MemoryResult result;
    RedisClient client(profile);
    MemoryReader analysis(&client);
    result.error = connectBlocking(client);
    if (!result.error.isEmpty())
        return result;
    QEventLoop loop;
    StallProbe probe;
    QObject::connect(&analysis, &MemoryReader::finished, &loop, [&](const ScanProgress &p) {
        if (p.error)
            result.error = p.error.message;
        loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    probe.start();
    analysis.start(0);
    loop.exec();
    result.maxStallMs = probe.stop();
    // The analysis is done when its tables are: the namespace ranking and the top lists.
    const MemoryStats &stats = analysis.stats();
    const QList<NamespaceMemory> namespaces = stats.namespaces(1);
    for (KeyType t : {KeyType::String, KeyType::Hash, KeyType::List, KeyType::Set, KeyType::ZSet, KeyType::Stream}) {
        const KeySize k = stats.biggestByMemory(t);
        if (!k.name.isEmpty())
            result.biggest.insert(keyTypeName(t), k.name);
    }
    result.seconds = clock.nsecsElapsed() / 1e9;
    result.keys = stats.keyCount();
    result.rssMb = rssMb();
    Q_UNUSED(namespaces)
    return result;
}

// ---- cluster mode ----

// Writes 'count' string keys "bench:<n>" to whichever of 'ports' owns each (by 'ownerOf'), in
// pipelines of 10,000 on blocking hiredis contexts.
bool populateKeys(const QList<quint16> &ports, const std::function<quint16(int slot)> &ownerOf, qint64 count)
{
    QHash<quint16, redisContext *> contexts;
    QHash<quint16, int> pending;
    for (const quint16 port : ports) {
        redisContext *c = redisConnect("127.0.0.1", port);
        if (!c || c->err)
            return false;
        contexts.insert(port, c);
    }
    auto drain = [&](quint16 port) {
        for (int i = 0; i < pending.value(port); ++i) {
            void *r = nullptr;
            if (redisGetReply(contexts.value(port), &r) != REDIS_OK)
                return false;
            freeReplyObject(r);
        }
        pending[port] = 0;
        return true;
    };
    for (qint64 i = 0; i < count; ++i) {
        const QByteArray key = "bench:" + QByteArray::number(i);
        const quint16 port = ownerOf(cluster::keySlot(key));
        const char *argv[] = {"SET", key.constData(), "value"};
        const size_t argl[] = {3, size_t(key.size()), 5};
        redisAppendCommandArgv(contexts.value(port), 3, argv, argl);
        if (++pending[port] >= 10000 && !drain(port))
            return false;
    }
    bool ok = true;
    for (const quint16 port : ports)
        ok = drain(port) && ok;
    for (redisContext *c : std::as_const(contexts))
        redisFree(c);
    return ok;
}

// Three primaries made one cluster by redis-cli, on free loopback ports.
bool startCluster(std::vector<std::unique_ptr<LocalServer>> &nodes, QString *error)
{
    QStringList addresses;
    for (int i = 0; i < 3; ++i) {
        auto node = std::make_unique<LocalServer>();
        node->setExtraArguments({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                                 QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf")});
        if (!node->start(error))
            return false;
        addresses << QStringLiteral("127.0.0.1:%1").arg(node->port());
        nodes.push_back(std::move(node));
    }
    QProcess cli;
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.start(QStringLiteral("redis-cli"),
              QStringList{QStringLiteral("--cluster"), QStringLiteral("create")} + addresses
                  + QStringList{QStringLiteral("--cluster-yes")});
    if (!cli.waitForFinished(120000) || cli.exitCode() != 0) {
        *error = QStringLiteral("redis-cli --cluster create failed: ") + QString::fromUtf8(cli.readAll());
        return false;
    }
    for (int tries = 0; tries < 300; ++tries) {
        bool ok = true;
        for (const auto &n : nodes) {
            redisContext *c = redisConnect("127.0.0.1", n->port());
            auto *r = static_cast<redisReply *>(redisCommand(c, "CLUSTER INFO"));
            ok = ok && r && r->type == REDIS_REPLY_STRING && std::strstr(r->str, "cluster_state:ok");
            freeReplyObject(r);
            redisFree(c);
        }
        if (ok)
            return true;
        QThread::msleep(100);
    }
    *error = QStringLiteral("the cluster did not reach cluster_state:ok");
    return false;
}

// The raw reference on a cluster: referenceScan on every primary at once, one thread each.
ReferenceResult parallelReference(const QList<quint16> &ports)
{
    QElapsedTimer clock;
    clock.start();
    std::vector<ReferenceResult> results(size_t(ports.size()));
    std::vector<std::thread> threads;
    for (qsizetype i = 0; i < ports.size(); ++i)
        threads.emplace_back([&results, &ports, i] {
            results[size_t(i)] = referenceScan(QStringLiteral("127.0.0.1"), ports.at(i), true, false);
        });
    for (std::thread &t : threads)
        t.join();
    ReferenceResult out;
    out.seconds = clock.nsecsElapsed() / 1e9;
    for (const ReferenceResult &r : results)
        out.keys += r.keys;
    return out;
}

// The mean time, in microseconds, of 'count' GETs of the benchmark's keys through 'client',
// one at a time.
double clientGetMicros(RedisClient &client, int count)
{
    QElapsedTimer clock;
    double total = 0;
    QObject context;
    for (int i = 0; i < count; ++i) {
        const QByteArray key = "bench:" + QByteArray::number(i * 7919 % 1000);
        QEventLoop loop;
        clock.start();
        client.send({"GET", key}, &context, [&](const RedisReply &) { loop.quit(); });
        loop.exec();
        total += clock.nsecsElapsed() / 1e3;
    }
    return total / count;
}

// The same GETs on hiredis contexts connected to each key's owner: one round trip, no threads.
double rawGetMicros(const QHash<quint16, redisContext *> &owners, const ClusterRouter &router, int count)
{
    QElapsedTimer clock;
    double total = 0;
    for (int i = 0; i < count; ++i) {
        const QByteArray key = "bench:" + QByteArray::number(i * 7919 % 1000);
        redisContext *c = owners.value(router.ownerOf(cluster::keySlot(key))->address.port);
        clock.start();
        freeReplyObject(redisCommand(c, "GET %b", key.constData(), size_t(key.size())));
        total += clock.nsecsElapsed() / 1e3;
    }
    return total / count;
}

int clusterBench(qint64 keys)
{
    std::vector<std::unique_ptr<LocalServer>> nodes;
    QString error;
    if (!startCluster(nodes, &error)) {
        std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(error));
        return 1;
    }
    QList<quint16> ports;
    for (const auto &n : nodes)
        ports << n->port();
    ConnectionProfile profile;
    profile.port = ports.first();
    profile.cluster = true;
    profile.commandTimeoutMs = 60000;
    RedisClient seed(profile);
    if (const QString e = connectBlocking(seed); !e.isEmpty() || !seed.cluster()) {
        std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(e.isEmpty() ? seed.clusterProblem() : e));
        return 1;
    }
    const ClusterRouter &router = *seed.cluster();
    if (!populateKeys(
            ports, [&](int slot) { return router.ownerOf(slot)->address.port; }, keys)) {
        std::fprintf(stderr, "redislens-bench: populating the cluster failed\n");
        return 1;
    }
    LocalServer single;
    if (!single.start(&error)
        || !populateKeys(
            {single.port()}, [&](int) { return single.port(); }, keys)) {
        std::fprintf(stderr, "redislens-bench: the single server: %s\n", qPrintable(error));
        return 1;
    }
    ConnectionProfile one;
    one.port = single.port();
    one.commandTimeoutMs = 60000;

    const ReferenceResult ref1 = parallelReference(ports);
    const LensResult lens = lensScan(profile, true, false);
    const LensResult lensDefault = lensScan(profile, true, false, false, kAdaptivePacing);
    const LensResult lensOne = lensScan(one, true, false);
    const LensResult lensOneDefault = lensScan(one, true, false, false, kAdaptivePacing);
    const ReferenceResult ref2 = parallelReference(ports);
    QHash<quint16, redisContext *> owners;
    for (const quint16 port : ports)
        owners.insert(port, redisConnect("127.0.0.1", port));
    const quint64 redirectsBefore = router.redirectMark();
    const double openLens = clientGetMicros(seed, 2000);
    const quint64 redirects = router.redirectMark() - redirectsBefore;
    const double openRaw = rawGetMicros(owners, router, 2000);
    // The same GETs through a client of the one server: what routing adds to a key's opening.
    RedisClient oneClient(one);
    connectBlocking(oneClient);
    const double openOne = clientGetMicros(oneClient, 2000);
    for (redisContext *c : std::as_const(owners))
        redisFree(c);
    for (const QString &e : {lens.error, lensDefault.error, lensOne.error})
        if (!e.isEmpty()) {
            std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(e));
            return 1;
        }
    const double reference = (ref1.seconds + ref2.seconds) / 2;
    QJsonObject out{
        {QStringLiteral("mode"), QStringLiteral("cluster")},
        {QStringLiteral("primaries"), int(ports.size())},
        {QStringLiteral("keys"), qint64(lens.keys)},
        {QStringLiteral("reference_keys"), ref1.keys},
        {QStringLiteral("seconds"), lens.seconds},
        {QStringLiteral("default_pacing_seconds"), lensDefault.seconds},
        {QStringLiteral("default_pacing_keys"), qint64(lensDefault.keys)},
        {QStringLiteral("parallel_reference_seconds"), reference},
        {QStringLiteral("ratio_to_reference"), reference > 0 ? lens.seconds / reference : 0},
        {QStringLiteral("one_server_seconds"), lensOne.seconds},
        {QStringLiteral("ratio_to_one_server"), lensOne.seconds > 0 ? lens.seconds / lensOne.seconds : 0},
        {QStringLiteral("one_server_default_pacing_seconds"), lensOneDefault.seconds},
        {QStringLiteral("default_ratio_to_one_server"),
         lensOneDefault.seconds > 0 ? lensDefault.seconds / lensOneDefault.seconds : 0},
        {QStringLiteral("key_open_us"), openLens},
        {QStringLiteral("key_open_raw_us"), openRaw},
        {QStringLiteral("key_open_one_server_us"), openOne},
        {QStringLiteral("key_open_redirects"), qint64(redirects)},
        {QStringLiteral("max_stall_ms"), lens.maxStallMs},
        {QStringLiteral("cores"), int(std::thread::hardware_concurrency())},
    };
    QTextStream(stdout) << QJsonDocument(out).toJson(QJsonDocument::Compact) << '\n';
    return 0;
}

} // namespace

// The value decoders on 64 KiB values: detection of each kind (the median of many runs), against
// zlib inflating the same gzip value directly, the work detection cannot avoid for it.
QByteArray gzipOf(const QByteArray &data)
{
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(qsizetype(deflateBound(&z, uLong(data.size()))), Qt::Uninitialized);
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(qsizetype(z.total_out));
    deflateEnd(&z);
    return out;
}

double medianMicros(const std::function<void()> &work, int runs)
{
    std::vector<double> times;
    times.reserve(size_t(runs));
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        work();
        times.push_back(double(t.nsecsElapsed()) / 1000.0);
    }
    std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
    return times[size_t(runs / 2)];
}

int decodeBench()
{
    constexpr qsizetype kSize = 64 * 1024;
    // JSON of session-like records, to 64 KiB.
    QByteArray json = "[";
    for (int i = 0; json.size() < kSize - 200; ++i)
        json += "{\"user_id\":" + QByteArray::number(i * 7919) + ",\"name\":\"user-" + QByteArray::number(i)
            + "\",\"roles\":[\"read\",\"write\"],\"score\":" + QByteArray::number(i * 0.25) + "},";
    json.chop(1);
    json += "]";
    QByteArray random(kSize, Qt::Uninitialized);
    quint32 x = 2463534242u;
    for (char &c : random) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c = char(x);
    }
    QByteArray text;
    while (text.size() < kSize)
        text += "The quick brown fox jumps over the lazy dog. ";
    text.truncate(kSize);
    // Compressed values of 64 KiB: compress more JSON until the output is that large.
    QByteArray bigJson = json;
    QByteArray gz = gzipOf(bigJson);
    while (gz.size() < kSize) {
        bigJson.chop(1);
        bigJson += "," + json.mid(1);
        gz = gzipOf(bigJson);
    }
    const QByteArray b64 = gzipOf(json).toBase64();

    struct Case
    {
        const char *name;
        QByteArray value;
    };
    const Case cases[] = {
        {"json_64k", json}, {"gzip_json_64k", gz},  {"base64_gzip_json", b64},
        {"text_64k", text}, {"random_64k", random},
    };
    QJsonObject figures;
    for (const Case &c : cases) {
        decode::Result r;
        // Detection: the formats the value may be, from magic bytes and cheap grammar checks.
        const double detect = medianMicros([&] { (void)decode::candidates(c.value); }, 200);
        // Decoding: every step confirmed and the structure read into a tree, as the viewer does.
        const double whole = medianMicros([&] { r = decode::detect(c.value); }, 200);
        figures.insert(QString::fromLatin1(c.name),
                       QJsonObject{{QStringLiteral("bytes"), c.value.size()},
                                   {QStringLiteral("chain"), r.chainText()},
                                   {QStringLiteral("decoded_bytes"), r.decodedBytes()},
                                   {QStringLiteral("detect_us"), detect},
                                   {QStringLiteral("decode_us"), whole}});
    }
    // The reference: zlib alone inflating the gzip value, output size known.
    const qsizetype out = bigJson.size();
    const double raw = medianMicros(
        [&] {
            QByteArray dst(out, Qt::Uninitialized);
            z_stream z{};
            inflateInit2(&z, 16 + MAX_WBITS);
            z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(gz.constData()));
            z.avail_in = uInt(gz.size());
            z.next_out = reinterpret_cast<Bytef *>(dst.data());
            z.avail_out = uInt(dst.size());
            inflate(&z, Z_FINISH);
            inflateEnd(&z);
        },
        200);
    const double detectGz = figures.value(QStringLiteral("gzip_json_64k"))[QStringLiteral("decode_us")].toDouble();

    // The GUI thread's part of showing a page of a hash: the value viewer's model takes 200
    // fields and decodes those that may be encoded to find the secrets they hide (within
    // ValueModel::kMaskingBudgetMs). Against the same page of plain text, which has nothing to
    // decode: CBOR sessions as Qt writes them, and a heavy case, every field base64 of gzip of 64 KiB of JSON.
    const auto pageOf = [](const std::function<QByteArray(int)> &value) {
        ValuePage page;
        page.key = "bench:hash";
        for (int i = 0; i < 200; ++i)
            page.entries.append(ValueEntry{"field:" + QByteArray::number(i), value(i), {}, -1});
        return page;
    };
    const ValuePage plainPage
        = pageOf([](int i) -> QByteArray { return "plain value number " + QByteArray::number(i); });
    const ValuePage cborPage = pageOf([](int i) -> QByteArray {
        return QCborValue(QCborMap{{QStringLiteral("user_id"), i},
                                   {QStringLiteral("csrf_token"), QStringLiteral("tok-%1").arg(i)},
                                   {QStringLiteral("cart"), QCborArray{QStringLiteral("A-100"), 2}}})
            .toCbor();
    });
    const ValuePage gzipPage = pageOf([&b64](int) -> QByteArray { return b64; });
    QJsonObject masking;
    for (const auto &[name, page] : {std::pair{"plain_text", &plainPage}, std::pair{"cbor_sessions", &cborPage},
                                     std::pair{"base64_gzip_json_64k", &gzipPage}}) {
        int masked = 0;
        const double us = medianMicros(
            [&, page = page] {
                ValueModel model;
                model.setMode(ValueModel::Mode::Hash);
                model.appendPage(*page);
                masked = model.maskedCount();
            },
            21);
        masking.insert(QString::fromLatin1(name),
                       QJsonObject{{QStringLiteral("append_page_us"), us}, {QStringLiteral("rows_masked"), masked}});
    }
    const double plainUs = masking.value(QStringLiteral("plain_text"))[QStringLiteral("append_page_us")].toDouble();
    for (const char *name : {"cbor_sessions", "base64_gzip_json_64k"}) {
        QJsonObject o = masking.value(QString::fromLatin1(name)).toObject();
        o.insert(QStringLiteral("to_plain"), o.value(QStringLiteral("append_page_us")).toDouble() / plainUs);
        masking.insert(QString::fromLatin1(name), o);
    }
    const QJsonObject result{{QStringLiteral("mode"), QStringLiteral("decode")},
                             {QStringLiteral("values"), figures},
                             {QStringLiteral("raw_inflate_us"), raw},
                             {QStringLiteral("gzip_decode_to_raw_inflate"), detectGz / raw},
                             {QStringLiteral("page_of_200_masked"), masking}};
    std::printf("%s\n", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
    return 0;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("redislens-bench"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("RedisLens benchmarks. Modes: scan, memory, patterns, cluster (three local primaries "
                       "against the same keys on one server and a parallel hiredis reference), decode (the "
                       "value decoders on 64 KiB values)"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("scan | memory | patterns | cluster | decode"));
    const QCommandLineOption hostOpt({QStringLiteral("host")}, QStringLiteral("Server host."), QStringLiteral("host"),
                                     QStringLiteral("127.0.0.1"));
    const QCommandLineOption portOpt({QStringLiteral("port")}, QStringLiteral("Server port."), QStringLiteral("port"),
                                     QStringLiteral("6379"));
    const QCommandLineOption localOpt(QStringLiteral("local"), QStringLiteral("Start a private redis-server."));
    const QCommandLineOption populateOpt(QStringLiteral("populate"),
                                         QStringLiteral("DEBUG POPULATE this many keys first (local server only)."),
                                         QStringLiteral("n"));
    const QCommandLineOption namesOpt(QStringLiteral("names-only"), QStringLiteral("Scan names only (no TYPE/PTTL)."));
    const QCommandLineOption memoryOpt(QStringLiteral("memory"), QStringLiteral("Also MEMORY USAGE per key."));
    const QCommandLineOption scanRateOpt(
        QStringLiteral("scan-rate"),
        QStringLiteral("patterns: the scan's and the sampling's ceiling in commands per second, as "
                       "redislens --scan-rate (default 0: none)."),
        QStringLiteral("n"), QStringLiteral("0"));
    parser.addOptions({hostOpt, portOpt, localOpt, populateOpt, namesOpt, memoryOpt, scanRateOpt});
    parser.process(app);
    const QString mode = parser.positionalArguments().value(0);
    if (mode != QLatin1String("scan") && mode != QLatin1String("memory") && mode != QLatin1String("patterns")
        && mode != QLatin1String("cluster") && mode != QLatin1String("decode")) {
        std::fprintf(stderr,
                     "redislens-bench: unknown or missing mode (expected: scan, memory, patterns, cluster or "
                     "decode)\n");
        return 2;
    }
    // Bad input exits 2 with one line, before anything connects or writes.
    qint64 populate = 0;
    if (parser.isSet(populateOpt)) {
        if (!parser.isSet(localOpt)) {
            std::fprintf(stderr,
                         "redislens-bench: --populate needs --local (it only writes into a private "
                         "server it starts)\n");
            return 2;
        }
        bool ok = false;
        populate = parser.value(populateOpt).toLongLong(&ok);
        if (!ok || populate < 1) {
            std::fprintf(stderr, "redislens-bench: invalid --populate '%s': expected a number of keys\n",
                         qPrintable(parser.value(populateOpt)));
            return 2;
        }
    }
    bool rateOk = false;
    const int scanRate = parser.value(scanRateOpt).toInt(&rateOk);
    if (!rateOk || scanRate < 0) {
        std::fprintf(stderr, "redislens-bench: invalid --scan-rate '%s': expected commands per second\n",
                     qPrintable(parser.value(scanRateOpt)));
        return 2;
    }

    if (mode == QLatin1String("cluster"))
        return clusterBench(populate > 0 ? populate : 1000000);
    if (mode == QLatin1String("decode"))
        return decodeBench();

    ConnectionProfile profile;
    profile.host = parser.value(hostOpt);
    profile.port = quint16(parser.value(portOpt).toUInt());
    profile.commandTimeoutMs = 60000;
    LocalServer server;
    if (parser.isSet(localOpt)) {
        QString error;
        if (!server.start(&error)) {
            std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(error));
            return 1;
        }
        profile.host = server.host();
        profile.port = server.port();
        if (populate > 0 && mode != QLatin1String("scan")) {
            if (!populateMixed(profile.host, profile.port, populate)) {
                std::fprintf(stderr, "redislens-bench: populating failed\n");
                return 1;
            }
        } else if (populate > 0) {
            redisContext *c = redisConnect(profile.host.toUtf8().constData(), profile.port);
            auto *r = static_cast<redisReply *>(redisCommand(c, "DEBUG POPULATE %lld", populate));
            freeReplyObject(r);
            redisFree(c);
        }
    }
    if (mode == QLatin1String("memory")) {
        if (QStandardPaths::findExecutable(QStringLiteral("redis-cli")).isEmpty()) {
            std::fprintf(stderr, "redislens-bench: the memory mode compares with redis-cli, which is not installed\n");
            return 1;
        }
        const double rssBefore = rssMb();
        const CliResult cli1 = redisCli(profile.host, profile.port, QStringLiteral("--memkeys"));
        const MemoryResult lens = lensMemory(profile);
        const CliResult cli2 = redisCli(profile.host, profile.port, QStringLiteral("--memkeys"));
        if (!lens.error.isEmpty()) {
            std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(lens.error));
            return 1;
        }
        const double reference = (cli1.seconds + cli2.seconds) / 2;
        QJsonObject out{
            {QStringLiteral("mode"), QStringLiteral("memory")},
            {QStringLiteral("keys"), qint64(lens.keys)},
            {QStringLiteral("seconds"), lens.seconds},
            {QStringLiteral("memkeys_seconds"), reference},
            {QStringLiteral("ratio"), reference > 0 ? lens.seconds / reference : 0},
            {QStringLiteral("biggest_agree"), lens.biggest == cli1.biggest},
            {QStringLiteral("max_stall_ms"), lens.maxStallMs},
            {QStringLiteral("rss_mb"), lens.rssMb},
            {QStringLiteral("rss_before_mb"), rssBefore},
        };
        QTextStream(stdout) << QJsonDocument(out).toJson(QJsonDocument::Compact) << '\n';
        return lens.biggest == cli1.biggest ? 0 : 3;
    }

    if (mode == QLatin1String("patterns")) {
        // The key browser's scan alone, then the same scan with every key classified as it
        // arrives, then the scan alone again: the ratio is what classification adds.
        const LensResult alone1 = lensScan(profile, true, false, false, scanRate);
        const LensResult lens = lensScan(profile, true, false, true, scanRate);
        const LensResult alone2 = lensScan(profile, true, false, false, scanRate);
        const QString error = !lens.error.isEmpty() ? lens.error : alone1.error;
        if (!error.isEmpty()) {
            std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(error));
            return 1;
        }
        const double reference = (alone1.seconds + alone2.seconds) / 2;
        QJsonObject out{
            {QStringLiteral("mode"), QStringLiteral("patterns")},
            {QStringLiteral("keys"), qint64(lens.keys)},
            {QStringLiteral("seconds"), lens.seconds},
            {QStringLiteral("scan_alone_seconds"), reference},
            {QStringLiteral("ratio"), reference > 0 ? lens.seconds / reference : 0},
            {QStringLiteral("sample_commands"), lens.sampleCommands},
            {QStringLiteral("sampled_keys"), lens.sampledKeys},
            {QStringLiteral("classified_keys"), lens.classified},
            {QStringLiteral("max_stall_ms"), lens.maxStallMs},
            {QStringLiteral("max_busy_ms"), lens.maxBusyMs},
            {QStringLiteral("scan_alone_max_stall_ms"), qMax(alone1.maxStallMs, alone2.maxStallMs)},
            {QStringLiteral("rss_mb"), lens.rssMb},
            // The first scan alone ran before the index existed: the difference is the index.
            {QStringLiteral("scan_alone_rss_mb"), alone1.rssMb},
            {QStringLiteral("scan_rate"), scanRate},
        };
        QTextStream(stdout) << QJsonDocument(out).toJson(QJsonDocument::Compact) << '\n';
        return 0;
    }

    const bool details = !parser.isSet(namesOpt);
    const double rssBefore = rssMb();
    const ReferenceResult ref1 = referenceScan(profile.host, profile.port, details, parser.isSet(memoryOpt));
    const LensResult lens = lensScan(profile, details, parser.isSet(memoryOpt));
    const ReferenceResult ref2 = referenceScan(profile.host, profile.port, details, parser.isSet(memoryOpt));
    if (!lens.error.isEmpty()) {
        std::fprintf(stderr, "redislens-bench: %s\n", qPrintable(lens.error));
        return 1;
    }
    const double reference = (ref1.seconds + ref2.seconds) / 2;
    QJsonObject out{
        {QStringLiteral("mode"),
         details ? (parser.isSet(memoryOpt) ? QStringLiteral("scan+memory") : QStringLiteral("scan"))
                 : QStringLiteral("scan-names")},
        {QStringLiteral("keys"), qint64(lens.keys)},
        {QStringLiteral("reference_keys"), ref1.keys},
        {QStringLiteral("seconds"), lens.seconds},
        {QStringLiteral("reference_seconds"), reference},
        {QStringLiteral("ratio"), reference > 0 ? lens.seconds / reference : 0},
        {QStringLiteral("max_stall_ms"), lens.maxStallMs},
        {QStringLiteral("max_busy_ms"), lens.maxBusyMs},
        {QStringLiteral("rss_mb"), lens.rssMb},
        {QStringLiteral("rss_before_mb"), rssBefore},
        {QStringLiteral("bytes_per_key"), lens.keys > 0 ? (lens.rssMb - rssBefore) * 1048576 / double(lens.keys) : 0},
        {QStringLiteral("batches"), lens.batches},
    };
    QTextStream(stdout) << QJsonDocument(out).toJson(QJsonDocument::Compact) << '\n';
    return 0;
}
