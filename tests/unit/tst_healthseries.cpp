// SPDX-License-Identifier: GPL-3.0-or-later
#include "healthseries.h"

#include "respcodec.h"
#include "testdata.h"

#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <map>

using Series = HealthSeries::Series;
using Fields = std::map<QByteArray, QByteArray>;

// HealthSeries turns successive INFO samples into rates and gauges: deltas over the interval,
// no negative rates or spikes across a restart or CONFIG RESETSTAT, bounded over a day.
class TstHealthSeries : public QObject
{
    Q_OBJECT

private:
    static constexpr qint64 kStartMs = 1800000000000;

    // A plausible INFO reply; 'changes' overrides or adds fields.
    static ServerInfo info(qint64 atMs, const Fields &changes = {})
    {
        Fields f{
            {"redis_version", "7.0.15"},
            {"redis_mode", "standalone"},
            {"run_id", "a5a6a8525f9ac833597198840bae5acd6474a884"},
            {"uptime_in_seconds", "100"},
            {"connected_clients", "3"},
            {"blocked_clients", "1"},
            {"used_memory", "1048576"},
            {"used_memory_rss", "4194304"},
            {"used_memory_peak", "2097152"},
            {"maxmemory", "0"},
            {"maxmemory_policy", "noeviction"},
            {"mem_fragmentation_ratio", "4.00"},
            {"total_commands_processed", "1000"},
            {"total_net_input_bytes", "50000"},
            {"total_net_output_bytes", "80000"},
            {"keyspace_hits", "100"},
            {"keyspace_misses", "50"},
            {"expired_keys", "10"},
            {"evicted_keys", "0"},
            {"role", "master"},
            {"connected_slaves", "0"},
            {"aof_enabled", "0"},
        };
        for (const auto &[k, v] : changes)
            f[k] = v;
        QByteArray text = "# Server\r\n";
        for (const auto &[k, v] : f)
            text += k + ':' + v + "\r\n";
        text += "\r\n# Keyspace\r\ndb0:keys=12,expires=3,avg_ttl=0\r\n";
        return ServerInfo::parse(text, atMs);
    }
    static QByteArray n(qint64 v) { return QByteArray::number(v); }
    // A recorded INFO reply (tests/data/replies), as the text the engine hands over.
    static ServerInfo recorded(const QString &name, qint64 atMs)
    {
        return ServerInfo::parse(recordedValue(name).bytes(), atMs);
    }
    // The value at the newest sample.
    static double lastOf(const HealthSeries &h, Series s) { return h.series(s).last().v; }
    static bool hasNegative(const HealthSeries &h)
    {
        for (int s = 0; s < HealthSeries::kSeriesCount; ++s)
            for (const TimeSeries::Point &p : h.series(Series(s)).points())
                if (p.v < 0)
                    return true;
        return false;
    }

private Q_SLOTS:
    void errorRepliesPerSecond()
    {
        HealthSeries h;
        QVERIFY(h.addSample(info(kStartMs, {{"total_error_replies", "40"}})));
        QVERIFY(std::isnan(lastOf(h, Series::ErrorsPerSec)));
        QVERIFY(h.addSample(info(kStartMs + 2000, {{"total_error_replies", "50"}})));
        QCOMPARE(lastOf(h, Series::ErrorsPerSec), 5.0);
        // A server before 6.2 has no such counter: no line, not a zero.
        HealthSeries old;
        QVERIFY(old.addSample(info(kStartMs)));
        QVERIFY(old.addSample(info(kStartMs + 1000)));
        QVERIFY(std::isnan(lastOf(old, Series::ErrorsPerSec)));
        QCOMPARE(HealthSeries::columnName(Series::ErrorsPerSec), QStringLiteral("errors_per_sec"));
    }
    void firstSampleHasGaugesButNoRates()
    {
        HealthSeries h;
        QSignalSpy added(&h, &HealthSeries::sampleAdded);
        QVERIFY(h.addSample(info(kStartMs)));
        QCOMPARE(added.size(), 1);
        QCOMPARE(added.first().first().toDouble(), kStartMs / 1000.0);
        QCOMPARE(lastOf(h, Series::UsedMemory), 1048576.0);
        QCOMPARE(lastOf(h, Series::RssMemory), 4194304.0);
        QCOMPARE(lastOf(h, Series::PeakMemory), 2097152.0);
        QCOMPARE(lastOf(h, Series::Fragmentation), 4.0);
        QCOMPARE(lastOf(h, Series::ConnectedClients), 3.0);
        QCOMPARE(lastOf(h, Series::BlockedClients), 1.0);
        QVERIFY(std::isnan(lastOf(h, Series::MaxMemory))); // 0 means no limit: no line
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
        QVERIFY(std::isnan(lastOf(h, Series::HitRatio)));
        // Every series has a point at every sample, so CSV rows line up.
        for (int s = 0; s < HealthSeries::kSeriesCount; ++s)
            QCOMPARE(h.series(Series(s)).points().size(), 1);
    }

    void rates_data()
    {
        QTest::addColumn<Fields>("second");
        QTest::addColumn<qint64>("dtMs");
        QTest::addColumn<int>("series");
        QTest::addColumn<double>("expected");

        QTest::newRow("commands") << Fields{{"total_commands_processed", "3000"}} << qint64(2000)
                                  << int(Series::OpsPerSec) << 1000.0;
        QTest::newRow("net in") << Fields{{"total_net_input_bytes", n(50000 + 4096)}} << qint64(4000)
                                << int(Series::NetInPerSec) << 1024.0;
        QTest::newRow("net out") << Fields{{"total_net_output_bytes", "81000"}} << qint64(500)
                                 << int(Series::NetOutPerSec) << 2000.0;
        QTest::newRow("expired") << Fields{{"expired_keys", "40"}} << qint64(1000) << int(Series::ExpiredPerSec)
                                 << 30.0;
        QTest::newRow("evicted") << Fields{{"evicted_keys", "5"}} << qint64(250) << int(Series::EvictedPerSec) << 20.0;
        QTest::newRow("idle") << Fields{} << qint64(1000) << int(Series::OpsPerSec) << 0.0;
        QTest::newRow("hit ratio") << Fields{{"keyspace_hits", "103"}, {"keyspace_misses", "51"}} << qint64(1000)
                                   << int(Series::HitRatio) << 75.0;
        QTest::newRow("all hits") << Fields{{"keyspace_hits", "110"}} << qint64(1000) << int(Series::HitRatio) << 100.0;
        QTest::newRow("all misses") << Fields{{"keyspace_misses", "60"}} << qint64(1000) << int(Series::HitRatio)
                                    << 0.0;
        QTest::newRow("no lookups: no ratio")
            << Fields{} << qint64(1000) << int(Series::HitRatio) << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("maxmemory set") << Fields{{"maxmemory", "104857600"}} << qint64(1000) << int(Series::MaxMemory)
                                       << 104857600.0;
    }

    void rates()
    {
        QFETCH(Fields, second);
        QFETCH(qint64, dtMs);
        QFETCH(int, series);
        QFETCH(double, expected);
        HealthSeries h;
        QVERIFY(h.addSample(info(kStartMs)));
        QVERIFY(h.addSample(info(kStartMs + dtMs, second)));
        const double got = lastOf(h, Series(series));
        if (std::isnan(expected))
            QVERIFY2(std::isnan(got), qPrintable(QString::number(got)));
        else
            QCOMPARE(got, expected);
        QCOMPARE(h.resetCount(), 0);
    }

    void serverClockMeasuresTheInterval()
    {
        // The reply arrived 1.5 s after the previous one, but the server says 1 s passed
        // between the two sets of counters: the rate uses the server's interval.
        HealthSeries h;
        h.addSample(info(kStartMs, {{"server_time_usec", "1800000000000000"}}));
        h.addSample(
            info(kStartMs + 1500, {{"server_time_usec", "1800000001000000"}, {"total_commands_processed", "1500"}}));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 500.0);
        QCOMPARE(h.series(Series::OpsPerSec).last().t, (kStartMs + 1500) / 1000.0);
    }

    void staleSampleIgnored()
    {
        HealthSeries h;
        QVERIFY(h.addSample(info(kStartMs)));
        QVERIFY(!h.addSample(info(kStartMs, {{"total_commands_processed", "2000"}})));
        QVERIFY(!h.addSample(info(kStartMs - 1000)));
        QCOMPARE(h.sampleCount(), 1);
    }

    void resetMakesAGap_data()
    {
        QTest::addColumn<Fields>("after");

        // A restart: new run id, counters start over (smaller than before).
        QTest::newRow("restart") << Fields{{"run_id", "ffffffffffffffffffffffffffffffffffffffff"},
                                           {"uptime_in_seconds", "2"},
                                           {"total_commands_processed", "7"},
                                           {"total_net_input_bytes", "300"},
                                           {"total_net_output_bytes", "9000"},
                                           {"keyspace_hits", "0"},
                                           {"keyspace_misses", "0"},
                                           {"expired_keys", "0"}};
        // A restart that already served more commands than before: only run_id tells.
        QTest::newRow("restart, counters higher") << Fields{{"run_id", "ffffffffffffffffffffffffffffffffffffffff"},
                                                            {"total_commands_processed", "900000"},
                                                            {"total_net_input_bytes", "9000000"}};
        QTest::newRow("uptime went backwards")
            << Fields{{"uptime_in_seconds", "5"}, {"total_commands_processed", "900000"}};
        // CONFIG RESETSTAT: same process, counters back to zero.
        QTest::newRow("counter decreased") << Fields{{"total_commands_processed", "3"}, {"keyspace_hits", "0"}};
        QTest::newRow("one counter decreased") << Fields{{"expired_keys", "1"}, {"total_commands_processed", "2000"}};
    }

    void resetMakesAGap()
    {
        QFETCH(Fields, after);
        HealthSeries h;
        h.addSample(info(kStartMs));
        h.addSample(info(kStartMs + 1000, {{"total_commands_processed", "1100"}}));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 100.0);

        QVERIFY(h.addSample(info(kStartMs + 2000, after)));
        QCOMPARE(h.resetCount(), 1);
        for (Series s : {Series::OpsPerSec, Series::NetInPerSec, Series::NetOutPerSec, Series::HitRatio,
                         Series::ExpiredPerSec, Series::EvictedPerSec})
            QVERIFY2(std::isnan(lastOf(h, s)), qPrintable(HealthSeries::columnName(s)));
        // Gauges keep their value but do not join it to the previous one.
        const QList<TimeSeries::Point> used = h.series(Series::UsedMemory).points();
        QCOMPARE(used.size(), 4);
        QVERIFY(std::isnan(used[2].v));
        QCOMPARE(used[2].t, kStartMs / 1000.0 + 1.5);
        QCOMPARE(used[3].v, 1048576.0);

        // The next interval is measured from the new baseline.
        Fields next = after;
        const qint64 base = info(0, after).integer("total_commands_processed");
        next["total_commands_processed"] = n(base + 250);
        next["uptime_in_seconds"] = n(info(0, after).integer("uptime_in_seconds") + 1);
        QVERIFY(h.addSample(info(kStartMs + 3000, next)));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 250.0);
        QCOMPARE(h.resetCount(), 1);
        QVERIFY(!hasNegative(h));
        // No spike: the highest rate ever charted is an honest one.
        double highest = 0;
        for (const TimeSeries::Point &p : h.series(Series::OpsPerSec).points())
            if (!std::isnan(p.v))
                highest = std::max(highest, p.v);
        QCOMPARE(highest, 250.0);
    }

    void outageIsAGap()
    {
        // Polls failed for a minute (connection lost): no line across it, no rate averaged
        // over it, and the next interval is measured normally.
        HealthSeries h;
        h.addSample(info(kStartMs));
        h.addSample(info(kStartMs + 1000, {{"total_commands_processed", "1100"}}));
        h.markGap((kStartMs + 2000) / 1000.0);
        h.markGap((kStartMs + 3000) / 1000.0); // one break per outage
        QVERIFY(h.addSample(info(kStartMs + 60000, {{"total_commands_processed", "90000"}})));
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
        QCOMPARE(lastOf(h, Series::UsedMemory), 1048576.0);
        const QList<TimeSeries::Point> used = h.series(Series::UsedMemory).points();
        QCOMPARE(used.size(), 4);
        QVERIFY(std::isnan(used[2].v));
        QCOMPARE(used[2].t, (kStartMs + 2000) / 1000.0);
        QCOMPARE(h.resetCount(), 0);
        QVERIFY(h.addSample(info(kStartMs + 61000, {{"total_commands_processed", "90500"}})));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 500.0);

        // A restart during the outage still counts as one, with a single break.
        h.markGap((kStartMs + 62000) / 1000.0);
        QVERIFY(h.addSample(info(kStartMs + 70000, {{"run_id", "new"}, {"total_commands_processed", "5"}})));
        QCOMPARE(h.resetCount(), 1);
        QCOMPARE(h.series(Series::UsedMemory).points().size(), 7);

        // Before the first sample there is nothing to break.
        HealthSeries empty;
        empty.markGap(kStartMs / 1000.0);
        QVERIFY(empty.series(Series::UsedMemory).isEmpty());
    }

    void missingCountersGiveNoRate()
    {
        // INFO limited to some sections, or a server without a field: no rate, no failure.
        HealthSeries h;
        h.addSample(ServerInfo::parse("used_memory:100\r\n", kStartMs));
        h.addSample(ServerInfo::parse("used_memory:200\r\ntotal_commands_processed:5\r\n", kStartMs + 1000));
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
        QCOMPARE(lastOf(h, Series::UsedMemory), 200.0);
        QCOMPARE(h.resetCount(), 0);
    }

    void memoryBoundedOverASimulatedDay()
    {
        // 250 ms polling for 25 hours: 360,000 samples, each series stays within its bound.
        HealthSeries h;
        constexpr qint64 kIntervalMs = 250;
        constexpr qint64 kSamples = 25 * 3600 * 1000 / kIntervalMs;
        qint64 commands = 0;
        qsizetype most = 0;
        for (qint64 i = 0; i < kSamples; ++i) {
            commands += 100 + i % 7;
            // A restart every six hours.
            const QByteArray run = "run" + n(i / (6 * 3600 * 4));
            const qint64 cmds = commands - (i / (6 * 3600 * 4)) * 1000000;
            QByteArray text = "run_id:" + run + "\r\nused_memory:" + n(1000000 + (i % 1000) * 10)
                + "\r\ntotal_commands_processed:" + n(std::max<qint64>(0, cmds)) + "\r\nkeyspace_hits:" + n(i * 3)
                + "\r\nkeyspace_misses:" + n(i) + "\r\nconnected_clients:5\r\n";
            QVERIFY(h.addSample(ServerInfo::parse(text, kStartMs + i * kIntervalMs)));
            if (i % 4096 == 0)
                for (int s = 0; s < HealthSeries::kSeriesCount; ++s)
                    most = std::max(most, h.series(Series(s)).storedPoints());
        }
        const TimeSeries &ops = h.series(Series::OpsPerSec);
        for (int s = 0; s < HealthSeries::kSeriesCount; ++s) {
            const TimeSeries &ts = h.series(Series(s));
            most = std::max(most, ts.storedPoints());
            QVERIFY(ts.storedPoints() <= ts.maxStoredPoints());
        }
        QVERIFY2(most <= ops.maxStoredPoints(), qPrintable(QString::number(most)));
        QVERIFY(h.resetCount() >= 4);
        // The oldest point is about a day before the newest, not 25 hours.
        const QList<TimeSeries::Point> pts = ops.points();
        const double newest = (kStartMs + (kSamples - 1) * kIntervalMs) / 1000.0;
        QCOMPARE(pts.constLast().t, newest);
        QVERIFY(pts.constFirst().t >= newest - 24 * 3600 - ops.bucketSeconds());
        QVERIFY(!hasNegative(h));
        // Hit ratio 3 hits per miss throughout, also in the folded buckets.
        for (const TimeSeries::Point &p : h.series(Series::HitRatio).points())
            if (!std::isnan(p.v))
                QVERIFY(std::abs(p.v - 75.0) < 1e-9);
    }

    void csv()
    {
        HealthSeries h;
        h.addSample(info(kStartMs));
        h.addSample(info(kStartMs + 1000, {{"total_commands_processed", "1500"}, {"keyspace_hits", "104"}}));
        h.addSample(info(kStartMs + 2000, {{"run_id", "other"}, {"total_commands_processed", "10"}}));
        const QByteArray csv = h.toCsv();
        const QList<QByteArray> lines = csv.trimmed().split('\n');
        // Header, three samples and the break between the second and third.
        QCOMPARE(lines.size(), 5);
        const QList<QByteArray> header = lines[0].split(',');
        QCOMPARE(header.size(), 2 + HealthSeries::kSeriesCount);
        QCOMPARE(header[0], QByteArray("time_utc"));
        QCOMPARE(header[1], QByteArray("epoch_seconds"));
        QVERIFY(header.contains("used_memory_bytes"));
        QVERIFY(header.contains("net_input_bytes_per_sec"));
        QVERIFY(header.contains("hit_ratio_percent"));
        const qsizetype ops = header.indexOf("commands_per_sec");
        const qsizetype hit = header.indexOf("hit_ratio_percent");
        const qsizetype used = header.indexOf("used_memory_bytes");

        QList<QList<QByteArray>> rows;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            rows << lines[i].split(',');
            QCOMPARE(rows.last().size(), header.size());
        }
        QCOMPARE(rows[0][0], QByteArray("2027-01-15T08:00:00.000Z"));
        QCOMPARE(rows[0][1], QByteArray("1800000000.000"));
        QCOMPARE(rows[0][used], QByteArray("1048576"));
        QCOMPARE(rows[0][ops], QByteArray()); // no rate before the second sample
        QCOMPARE(rows[1][ops], QByteArray("500"));
        QCOMPARE(rows[1][hit], QByteArray("100"));
        QCOMPARE(rows[2][1], QByteArray("1800000001.500")); // the restart: an empty row
        QCOMPARE(rows[2][used], QByteArray());
        QCOMPARE(rows[3][ops], QByteArray());
        QCOMPARE(rows[3][used], QByteArray("1048576"));

        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        h.writeCsv(&buffer);
        QCOMPARE(buffer.data(), csv);
    }

    void facts()
    {
        HealthSeries h;
        QVERIFY(h.facts().isEmpty());
        QSignalSpy changed(&h, &HealthSeries::factsChanged);
        h.addSample(info(kStartMs,
                         {{"uptime_in_seconds", "7500"},
                          {"maxmemory", "104857600"},
                          {"maxmemory_policy", "allkeys-lru"},
                          {"aof_enabled", "1"}}));
        QVERIFY(changed.size() >= 1);
        auto factText = [&h] {
            QStringList out;
            for (const HealthSeries::Fact &f : h.facts())
                out << f.label + QLatin1String(": ") + f.value;
            return out.join(QLatin1Char('\n'));
        };
        QString text = factText();
        QVERIFY2(text.contains(QLatin1String("Version: 7.0.15")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Role: master")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Uptime: 2h 05m")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("allkeys-lru, limit 100 MiB")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("db0: 12 keys, 3 expires")), qPrintable(text));
        // Before CONFIG GET answered, persistence comes from INFO alone.
        QVERIFY2(text.contains(QLatin1String("appendonly: yes")), qPrintable(text));

        h.setConfigUnavailable(QStringLiteral("no CONFIG permission"));
        text = factText();
        QVERIFY2(text.contains(QLatin1String("save: unknown (no CONFIG permission)")), qPrintable(text));

        h.setConfig("3600 1 300 100", "no");
        text = factText();
        QVERIFY2(text.contains(QStringLiteral("save: 3600 1 300 100 · appendonly: no")), qPrintable(text));
        h.setConfig("", "yes");
        QVERIFY2(factText().contains(QStringLiteral("Persistence: save: off · appendonly: yes\n")),
                 qPrintable(factText()));

        // Once snapshots were taken: when, and what is not saved yet.
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        h.setConfig("3600 1", "no");
        h.addSample(info(kStartMs + 1000,
                         {{"rdb_saves", "2"},
                          {"rdb_last_save_time", n(now - 125)},
                          {"rdb_changes_since_last_save", "1234"},
                          {"rdb_last_bgsave_status", "err"}}));
        text = factText();
        QVERIFY2(text.contains(QStringLiteral("save: 3600 1 · appendonly: no · last RDB save 2m 0")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("ago (err) · 1,234 changes not saved")), qPrintable(text));
    }

    // A cluster's primaries as one server: the facts say so, rates are the sum of the nodes'
    // and one node's restart is a reset of the whole.
    void mergedNodes()
    {
        HealthSeries h;
        const QByteArray other = "b5a6a8525f9ac833597198840bae5acd6474a884";
        auto round = [&](qint64 ms, qint64 commandsA, qint64 commandsB, const QByteArray &runB) {
            return ServerInfo::merged(
                {info(ms, {{"total_commands_processed", n(commandsA)}, {"connected_slaves", "1"}}),
                 info(ms,
                      {{"total_commands_processed", n(commandsB)},
                       {"run_id", runB},
                       {"connected_slaves", "1"},
                       {"uptime_in_seconds", "40"}})});
        };
        QVERIFY(h.addSample(round(kStartMs, 1000, 5000, other)));
        QHash<QString, QString> facts;
        for (const HealthSeries::Fact &f : h.facts())
            facts.insert(f.label, f.value);
        QCOMPARE(facts.value(QStringLiteral("Role")), QStringLiteral("2 primaries, merged, 2 replica(s)"));
        QCOMPARE(facts.value(QStringLiteral("Uptime")), QStringLiteral("40 s (the youngest node)"));
        QCOMPARE(facts.value(QStringLiteral("Keyspace")), QStringLiteral("db0: 24 keys, 6 expires"));
        QCOMPARE(lastOf(h, Series::ConnectedClients), 6.0);

        // One second later: 100 more commands on one node, 300 on the other.
        QVERIFY(h.addSample(round(kStartMs + 1000, 1100, 5300, other)));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 400.0);
        QCOMPARE(h.resetCount(), 0);
        // The second node restarted (another run id): no rate across it.
        QVERIFY(h.addSample(round(kStartMs + 2000, 1200, 5400, "c5a6a8525f9ac833597198840bae5acd6474a884")));
        QCOMPARE(h.resetCount(), 1);
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
    }

    void recordedSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("version");
        QTest::newRow("7.0") << QStringLiteral("info-default-7.0.resp") << QStringLiteral("7.0.15");
        QTest::newRow("8.0") << QStringLiteral("info-default-8.0.resp") << QStringLiteral("8.0.2");
    }

    void recordedSamples()
    {
        QFETCH(QString, file);
        QFETCH(QString, version);
        const ServerInfo info = recorded(file, kStartMs);
        HealthSeries h;
        QVERIFY(h.addSample(info));
        QCOMPARE(lastOf(h, Series::UsedMemory), double(info.integer("used_memory")));
        QCOMPARE(lastOf(h, Series::RssMemory), double(info.integer("used_memory_rss")));
        QCOMPARE(lastOf(h, Series::Fragmentation), info.real("mem_fragmentation_ratio", 0));
        QCOMPARE(lastOf(h, Series::ConnectedClients), 1.0);
        QVERIFY(std::isnan(lastOf(h, Series::MaxMemory)));

        QHash<QString, QString> facts;
        for (const HealthSeries::Fact &f : h.facts())
            facts.insert(f.label, f.value);
        QCOMPARE(facts.value(QStringLiteral("Version")), version);
        QCOMPARE(facts.value(QStringLiteral("Role")), QStringLiteral("master"));
        QCOMPARE(facts.value(QStringLiteral("maxmemory-policy")), QStringLiteral("noeviction, no memory limit"));
        QCOMPARE(facts.value(QStringLiteral("Keyspace")),
                 QStringLiteral("db0: 6 keys, 3 expires · db3: 2 keys, 0 expires"));
        const QString persistence = facts.value(QStringLiteral("Persistence"));
        // A fresh server: rdb_last_save_time is its start time, not a save.
        QCOMPARE(persistence,
                 QStringLiteral(
                     "save: unknown (not read yet) · appendonly: no · no RDB save since start · 13 changes not saved"));

        // Seconds later the same server: rates from the recorded counters, no reset.
        QByteArray text;
        for (const ServerInfo::Field &f : info.fields()) {
            QByteArray value = f.value;
            if (f.name == "total_commands_processed")
                value = n(info.integer("total_commands_processed") + 400);
            else if (f.name == "uptime_in_seconds")
                value = n(info.integer("uptime_in_seconds") + 2);
            else if (f.name == "server_time_usec")
                value = n(info.integer("server_time_usec") + 2000000);
            text += f.name + ':' + value + "\r\n";
        }
        QVERIFY(h.addSample(ServerInfo::parse(text, kStartMs + 2000)));
        QCOMPARE(lastOf(h, Series::OpsPerSec), 200.0);
        QCOMPARE(lastOf(h, Series::NetInPerSec), 0.0);
        QCOMPARE(h.resetCount(), 0);
    }

    void upgradeIsARestart()
    {
        // 7.0 replaced by 8.0 on the same address: another run_id, smaller counters.
        HealthSeries h;
        QVERIFY(h.addSample(recorded(QStringLiteral("info-default-7.0.resp"), kStartMs)));
        QVERIFY(h.addSample(recorded(QStringLiteral("info-default-8.0.resp"), kStartMs + 1000)));
        QCOMPARE(h.resetCount(), 1);
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
        QVERIFY(!hasNegative(h));
    }

    void manyDatabases()
    {
        HealthSeries h;
        QByteArray text = "# Server\r\nredis_version:7.0.15\r\n# Keyspace\r\n";
        for (int db = 0; db < 5; ++db)
            text += "db" + n(db) + ":keys=" + n(1000 * (db + 1)) + ",expires=" + n(db) + ",avg_ttl=0\r\n";
        h.addSample(ServerInfo::parse(text, kStartMs));
        for (const HealthSeries::Fact &f : h.facts()) {
            if (f.label != QLatin1String("Keyspace"))
                continue;
            QCOMPARE(f.value,
                     QStringLiteral("db0: 1,000 keys, 0 expires · db1: 2,000 keys, 1 expires · … (5 databases)"));
            QCOMPARE(f.toolTip.count(QLatin1Char('\n')), 4);
            QVERIFY(f.toolTip.endsWith(QLatin1String("db4: 5,000 keys, 4 expires")));
            return;
        }
        QFAIL("no keyspace fact");
    }

    void replicaFacts()
    {
        HealthSeries h;
        h.addSample(info(kStartMs,
                         {{"role", "slave"},
                          {"master_host", "10.0.0.5"},
                          {"master_port", "6379"},
                          {"master_link_status", "up"},
                          {"redis_mode", "cluster"}}));
        QStringList values;
        for (const HealthSeries::Fact &f : h.facts())
            values << f.value;
        QVERIFY(values.contains(QLatin1String("replica of 10.0.0.5:6379, link up")));
        QVERIFY(values.contains(QLatin1String("7.0.15 (cluster)")));
    }

    void clearStartsOver()
    {
        HealthSeries h;
        h.addSample(info(kStartMs));
        h.addSample(info(kStartMs + 1000));
        h.clear();
        QCOMPARE(h.sampleCount(), 0);
        QVERIFY(h.series(Series::UsedMemory).isEmpty());
        QVERIFY(h.addSample(info(kStartMs))); // an earlier time is fine after clear()
        QVERIFY(std::isnan(lastOf(h, Series::OpsPerSec)));
    }
};

QTEST_GUILESS_MAIN(TstHealthSeries)
#include "tst_healthseries.moc"
