// SPDX-License-Identifier: GPL-3.0-or-later
#include "patterntestdata.h"
#include "ratelimits.h"
#include "ratelimitspanel.h"
#include "ratelimitsreader.h"
#include "redisclient.h"
#include "screenshots.h"
#include "scriptlibrary.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QImage>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <memory>

// The rate limits panel on limiters written by the project's own scripts: an API limiter
// with fixed windows, a login limiter with a sliding log, token buckets, and the mistakes
// (a counter without TTL, an untrimmed log, a bucket without TTL). Limiters and callers fill,
// selecting a limiter filters its callers and explains its window, a screenshot is taken.
namespace {

constexpr int kWaitMs = 20000;
constexpr qint64 kWindowMs = 60000;

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

QList<QByteArray> evalsha(const char *script, const QList<QByteArray> &keys, const QList<QByteArray> &args)
{
    const ScriptInfo *info = ScriptLibrary::instance().find(QLatin1String(script));
    QList<QByteArray> c{"EVALSHA", info ? info->sha1 : QByteArray("0"), num(keys.size())};
    return c << keys << args;
}

} // namespace

class TstRateLimitsPanel : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    QList<PatternMatch> m_matches;
    const QString kApi = QStringLiteral("rate:api:user:{n}:{n}");
    const QString kLogin = QStringLiteral("rate:sliding:login:{n}");
    const QString kBucket = QStringLiteral("bucket:api:client-{n}");

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        RawConnection raw(m_server.port());
        for (const ScriptInfo &s : ScriptLibrary::instance().scripts())
            QCOMPARE(raw.command({"SCRIPT", "LOAD", s.source}).bytes(), s.sha1);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QByteArray window = num(now / kWindowMs);
        QList<QList<QByteArray>> cmds;
        // API: limit 100 a minute. Heavy users spend it all; a few scripts push past it.
        const QList<int> api{100, 100, 100, 100, 100, 100, 100, 104, 131, 162, 12, 3, 45, 67, 88, 23, 9, 51};
        for (int c = 0; c < api.size(); ++c) {
            const QByteArray key = "rate:api:user:" + num(1000 + c * 37) + ':' + window;
            for (int h = 0; h < api.at(c); ++h)
                cmds.append(evalsha("fixed_window_limit", {key}, {"100", num(kWindowMs)}));
            m_matches << patternMatch(key, PatternKind::FixedWindow, KeyType::String, kApi);
        }
        cmds.append({"SET", "rate:api:user:4242:" + window, "187"}); // INCR without EXPIRE
        m_matches << patternMatch("rate:api:user:4242:" + window, PatternKind::FixedWindow, KeyType::String, kApi);
        // Logins: 5 per minute, sliding.
        const QList<int> logins{5, 5, 7, 1, 2, 3};
        for (int c = 0; c < logins.size(); ++c) {
            const QByteArray log = "rate:sliding:login:" + num(500 + c);
            for (int h = 0; h < logins.at(c); ++h)
                cmds.append(evalsha("sliding_window_limit", {log, log + ":seq"}, {num(now + h), num(kWindowMs), "5"}));
            m_matches << patternMatch(log, PatternKind::SlidingWindow, KeyType::ZSet, kLogin, ttl::kUnknown,
                                      {{QStringLiteral("limit"), 5}, {QStringLiteral("window_ms"), kWindowMs}});
        }
        QList<QByteArray> untrimmed{"ZADD", "rate:sliding:login:599"};
        for (int i = 0; i < 9; ++i)
            untrimmed << num(now - 400000 + i * 30000) << num(now - 400000 + i * 30000) + ":" + num(i);
        untrimmed << num(now - 2000) << num(now - 2000) + ":9";
        cmds.append(untrimmed);
        cmds.append({"PEXPIRE", "rate:sliding:login:599", num(kWindowMs)});
        m_matches << patternMatch("rate:sliding:login:599", PatternKind::SlidingWindow, KeyType::ZSet, kLogin,
                                  ttl::kUnknown,
                                  {{QStringLiteral("limit"), 5}, {QStringLiteral("window_ms"), kWindowMs}});
        // Buckets: 20 tokens, 3 a minute.
        const QVariantMap bucketRule{{QStringLiteral("capacity"), 20}, {QStringLiteral("rate"), 0.05}};
        const QList<int> taken{25, 14, 6, 2};
        for (int c = 0; c < taken.size(); ++c) {
            const QByteArray key = "bucket:api:client-" + num(c + 1);
            for (int h = 0; h < taken.at(c); ++h)
                cmds.append(evalsha("token_bucket", {key}, {"20", "0.05", num(now), "1"}));
            m_matches << patternMatch(key, PatternKind::TokenBucket, KeyType::Hash, kBucket, ttl::kUnknown, bucketRule);
        }
        cmds.append({"HSET", "bucket:api:client-9", "tokens", "11", "last_refill", num(now - 3 * 3600 * 1000)});
        m_matches << patternMatch("bucket:api:client-9", PatternKind::TokenBucket, KeyType::Hash, kBucket,
                                  ttl::kUnknown, bucketRule);
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));
    }

    void showsLimitersAndCallers()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        RateLimitsPanel panel(&client);
        QAbstractItemModelTester t1(panel.limitersView()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(panel.callersView()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1200, 720);
        panel.show();
        QSignalSpy ready(&panel, &Panel::contentReady);
        QVERIFY(!panel.hasContent());
        panel.setMatches(m_matches);
        QCOMPARE(client.pendingCount(), 0); // nothing read while the panel is hidden
        panel.setActive(true);
        QVERIFY(ready.wait(kWaitMs));

        QAbstractItemModel *limiters = panel.limitersView()->model();
        QCOMPARE(limiters->rowCount(), 3);
        QAbstractItemModel *callers = panel.callersView()->model();
        QCOMPARE(callers->rowCount(), 19 + 7 + 5);
        QVERIFY2(panel.summaryText().startsWith(QStringLiteral("3 limiters · 31 callers")),
                 qPrintable(panel.summaryText()));
        // Top caller by pressure: the counter at 187 without TTL.
        QCOMPARE(callers->index(0, CallersModel::CallerColumn).data().toString(), QStringLiteral("4242"));
        QCOMPARE(callers->index(0, CallersModel::PressureColumn).data().toString(), QStringLiteral("187 %"));
        QVERIFY(callers->index(0, CallersModel::FlagsColumn).data().toString().contains(QLatin1String("without TTL")));
        QVERIFY(callers->index(0, CallersModel::FlagsColumn).data(Qt::ForegroundRole).isValid());
        // The API limit is inferred, the fixed window's burst explained in the overview.
        const int api = panel.limitersModel()->rowOf(kApi);
        QVERIFY(api >= 0);
        QCOMPARE(limiters->index(api, LimitersModel::LimitColumn).data().toString(),
                 QStringLiteral("100 (inferred: 7 of 19 callers stop at 100)"));
        QVERIFY(panel.noteText().contains(QStringLiteral("2 × the limit")));

        // Selecting a limiter shows its callers only and its details.
        panel.selectLimiter(kLogin);
        QCOMPARE(callers->rowCount(), 7);
        QVERIFY2(panel.noteText().contains(QLatin1String("limit 5 (rule)")), qPrintable(panel.noteText()));
        QVERIFY(!panel.noteText().contains(QStringLiteral("2 ×")));
        panel.selectLimiter(kApi);
        QCOMPARE(callers->rowCount(), 19);
        QVERIFY(panel.noteText().contains(QStringLiteral("200 requests (2 × 100)")));
        panel.selectLimiter({});
        QCOMPARE(callers->rowCount(), 31);

        // The window countdown runs between reads.
        const auto left = [&] {
            const int row = panel.callersModel()->rowOf(panel.callersModel()->rows().at(1).key);
            return panel.callersModel()->index(row, CallersModel::RemainingColumn).data().toString();
        };
        const QString before = left();
        QVERIFY2(before.endsWith(QLatin1String(" s")), qPrintable(before));
        QTRY_VERIFY_WITH_TIMEOUT(left() != before, 5000);

        // Double-click opens the key with its type.
        QSignalSpy open(&panel, &Panel::openKeyRequested);
        const int bucketRow = panel.callersModel()->rowOf("bucket:api:client-9");
        Q_EMIT panel.callersView()->doubleClicked(callers->index(bucketRow, 0));
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toByteArray(), QByteArray("bucket:api:client-9"));
        QCOMPARE(open.first().at(1).value<KeyType>(), KeyType::Hash);

        QTest::qWait(0);
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("ratelimits.png")));
        panel.selectLimiter(kApi);
        QTest::qWait(0); // the layout fits the two-line note
        QVERIFY(screenshots::save(panel.grab().toImage(), QStringLiteral("ratelimits-api.png")));

        panel.setActive(false);
        QVERIFY(!panel.reader()->isPolling());
    }

    void noPermissionIsOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "viewer", {"zcard"});
        QVERIFY(client);
        RateLimitsPanel panel(client.get());
        QSignalSpy failed(panel.reader(), &RateLimitsReader::failed);
        panel.setMatches(m_matches);
        panel.setActive(true);
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY2(panel.statusText().startsWith(QLatin1String("Cannot read rate limiters:")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.statusText().contains(QLatin1String("NOPERM")));
    }
};

QTEST_MAIN(TstRateLimitsPanel)
#include "tst_ratelimitspanel.moc"
