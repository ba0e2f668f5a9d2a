// SPDX-License-Identifier: GPL-3.0-or-later
#include "leaderboardreader.h"
#include "redisclient.h"
#include "serverinfo.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

// The leaderboard reader against a real server: every page, rank, neighbour window, histogram
// bucket and union is checked against the server's own ZRANGE/ZREVRANK/ZCOUNT/ZUNION, read on
// an independent connection. A million-member board must be served by bounded replies only.
namespace {

constexpr int kWaitMs = 30000;
const QByteArray kTies = "lb:ties";
const QByteArray kInf = "lb:inf";
const QByteArray kSingle = "lb:single";
const QByteArray kBig = "lb:big";
const QList<QByteArray> kDays{"lb:daily:2024-05-01", "lb:daily:2024-05-02", "lb:daily:2024-05-03"};

struct Row
{
    QByteArray member;
    QByteArray score;
    bool operator==(const Row &o) const { return member == o.member && score == o.score; }
};

QList<Row> rowsOf(const RedisValue &flat)
{
    QList<Row> out;
    for (qsizetype i = 0; i + 1 < flat.size(); i += 2)
        out.append({flat.at(i).bytes(), flat.at(i + 1).bytes()});
    return out;
}

QList<Row> rowsOf(const LeaderboardModel *model)
{
    QList<Row> out;
    for (const LeaderboardEntry &e : model->rows())
        out.append({e.member, e.scoreText});
    return out;
}

QByteArray describe(const QList<Row> &rows)
{
    QByteArray out;
    for (const Row &r : rows)
        out += r.member + '=' + r.score + ' ';
    return out;
}

qint64 infoField(TestServer &server, const QByteArray &section, const QByteArray &field)
{
    const ServerInfo info = ServerInfo::parse(server.command({"INFO", section}).bytes(), 0);
    return info.integer(field);
}

// The reader with the two models a panel gives it: the reader emits, the models show.
class WiredReader : public LeaderboardReader
{
public:
    explicit WiredReader(RedisClient *client) : LeaderboardReader(client)
    {
        connect(this, &LeaderboardReader::pageAvailable, &m_page, &LeaderboardModel::setPage);
        connect(this, &LeaderboardReader::unionAvailable, &m_union,
                [this](const BoardUnion &u) { m_union.setRows(u.top, true); });
    }
    LeaderboardModel *pageModel() { return &m_page; }
    LeaderboardModel *unionModel() { return &m_union; }

private:
    LeaderboardModel m_page;
    LeaderboardModel m_union;
};

} // namespace

class TestLeaderboard : public QObject
{
    Q_OBJECT

private:
    TestServer m_server;
    std::unique_ptr<RedisClient> m_client;

    bool openAndWait(LeaderboardReader &reader, const QByteArray &key)
    {
        QSignalSpy page(&reader, &LeaderboardReader::pageAvailable);
        QSignalSpy histogram(&reader, &LeaderboardReader::histogramAvailable);
        QSignalSpy header(&reader, &LeaderboardReader::headerAvailable);
        reader.setKey(key);
        return (!page.isEmpty() || page.wait(kWaitMs)) && (!histogram.isEmpty() || histogram.wait(kWaitMs))
            && (!header.isEmpty() || header.wait(kWaitMs));
    }

    static bool pageAndWait(LeaderboardReader &reader, qint64 start)
    {
        QSignalSpy page(&reader, &LeaderboardReader::pageAvailable);
        reader.loadPage(start);
        return page.wait(kWaitMs);
    }

    static MemberSearch findAndWait(LeaderboardReader &reader, const QByteArray &member, bool *ok)
    {
        QSignalSpy searched(&reader, &LeaderboardReader::memberSearched);
        QSignalSpy page(&reader, &LeaderboardReader::pageAvailable);
        reader.findMember(member);
        *ok = searched.wait(kWaitMs);
        if (!*ok)
            return {};
        const auto s = searched.first().first().value<MemberSearch>();
        if (s.found)
            *ok = page.wait(kWaitMs);
        return s;
    }

    void checkHistogram(const ScoreHistogram &h, const QByteArray &key)
    {
        QVERIFY2(h.error.isEmpty(), qPrintable(h.error));
        QVERIFY(!h.buckets.isEmpty());
        QList<QList<QByteArray>> cmds;
        for (const auto &b : h.buckets)
            cmds.append({"ZCOUNT", key, b.lowArg, b.highArg});
        const QList<RedisValue> direct = m_server.pipeline(cmds);
        for (int i = 0; i < h.buckets.size(); ++i)
            QCOMPARE(h.buckets.at(i).count, direct.at(i).toInteger());
        const qint64 card = m_server.command({"ZCARD", key}).toInteger();
        QCOMPARE(h.cardinality, card);
        QCOMPARE(h.total(), card);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QList<QList<QByteArray>> cmds;
        // 103 members on 20 scores: every score is shared by about five members.
        for (int i = 0; i < 103; ++i)
            cmds.append(
                {"ZADD", kTies, QByteArray::number(i % 20), "p" + QByteArray::number(i).rightJustified(3, '0')});
        cmds.append({"ZADD", kTies, "7", QByteArray("bin\x00\xff", 5)});
        cmds.append({"ZADD", kInf, "-inf", "floor", "+inf", "sky", "1e300", "huge", "0", "a", "0", "b", "-2.5", "c"});
        cmds.append({"ZADD", kSingle, "42", "x", "42", "y", "42", "z"});
        for (int d = 0; d < kDays.size(); ++d) {
            for (int i = 0; i < 40; ++i)
                cmds.append({"ZADD", kDays.at(d), QByteArray::number((i * (d + 3)) % 17),
                             "user" + QByteArray::number(i + d * 10)});
        }
        cmds.append({"SET", "lb:notazset", "x"});
        m_server.pipeline(cmds);

        const QByteArray fill = "local args = {} "
                                "for i = 1, tonumber(ARGV[1]) do "
                                "  args[#args + 1] = math.floor(i / 7) "
                                "  args[#args + 1] = 'player:' .. i "
                                "  if #args >= 2000 then redis.call('ZADD', KEYS[1], unpack(args)) args = {} end "
                                "end "
                                "if #args > 0 then redis.call('ZADD', KEYS[1], unpack(args)) end "
                                "return redis.call('ZCARD', KEYS[1])";
        QCOMPARE(m_server.command({"EVAL", fill, "1", kBig, "1000000"}).toInteger(), qint64(1000000));

        m_client = connectedClient(m_server.profile());

        QVERIFY(m_client);
    }

    void cleanupTestCase() { m_client.reset(); }

    void pagesMatchServer_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<QString>("version"); // empty: the server's own
        for (bool desc : {true, false}) {
            const char *dir = desc ? "desc" : "asc";
            for (qint64 start : {0, 25, 100}) {
                QTest::addRow("ties %s from %lld", dir, start) << kTies << desc << start << QString();
                QTest::addRow("ties %s from %lld as 6.0", dir, start)
                    << kTies << desc << start << QStringLiteral("6.0.9");
            }
            QTest::addRow("infinities %s", dir) << kInf << desc << qint64(0) << QString();
            QTest::addRow("big %s deep", dir) << kBig << desc << qint64(654321) << QString();
        }
    }

    void pagesMatchServer()
    {
        QFETCH(QByteArray, key);
        QFETCH(bool, descending);
        QFETCH(qint64, start);
        QFETCH(QString, version);
        WiredReader reader(m_client.get());
        QAbstractItemModelTester tester(reader.pageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        if (!version.isEmpty())
            reader.overrideServerVersion(QVersionNumber::fromString(version));
        reader.setDescending(descending);
        reader.setPageSize(25);
        QVERIFY(openAndWait(reader, key));
        QVERIFY(pageAndWait(reader, start));

        const QByteArray a = QByteArray::number(start), b = QByteArray::number(start + 24);
        const RedisValue direct = descending ? m_server.command({"ZRANGE", key, a, b, "REV", "WITHSCORES"})
                                             : m_server.command({"ZRANGE", key, a, b, "WITHSCORES"});
        const QList<Row> expected = rowsOf(direct);
        QVERIFY(!expected.isEmpty());
        QCOMPARE(describe(rowsOf(reader.pageModel())), describe(expected));
        const LeaderboardModel *m = reader.pageModel();
        for (int i = 0; i < m->rowCount(); ++i) {
            QCOMPARE(m->at(i).rank, start + i);
            QCOMPARE(m->data(m->index(i, LeaderboardModel::RankColumn)).toString(), QString::number(start + i + 1));
            // A tie marker exactly when a neighbour (also across the page edge) has the same score.
            const qint64 r = start + i;
            const RedisValue around = descending
                ? m_server.command({"ZRANGE", key, QByteArray::number(qMax<qint64>(0, r - 1)),
                                    QByteArray::number(r + 1), "REV", "WITHSCORES"})
                : m_server.command({"ZRANGE", key, QByteArray::number(qMax<qint64>(0, r - 1)),
                                    QByteArray::number(r + 1), "WITHSCORES"});
            const QList<Row> near = rowsOf(around);
            int equal = 0;
            for (const Row &n : near)
                equal += n.score == m->at(i).scoreText;
            QCOMPARE(m->at(i).tieGroup >= 0, equal > 1);
            QCOMPARE(m->data(m->index(i, LeaderboardModel::TieColumn)).toString() == QLatin1String("="), equal > 1);
        }
    }

    void infiniteScoresKeepTheirText()
    {
        WiredReader reader(m_client.get());
        QVERIFY(openAndWait(reader, kInf));
        const LeaderboardModel *m = reader.pageModel();
        QCOMPARE(m->at(0).scoreText, QByteArray("inf"));
        QVERIFY(std::isinf(m->at(0).score) && m->at(0).score > 0);
        // The server's own spelling ("1e+300" or "1.0000000000000001e+300" by version), not ours.
        QCOMPARE(m->at(1).scoreText, m_server.command({"ZSCORE", kInf, "huge"}).bytes());
        QCOMPARE(m->at(1).score, 1e300);
        QCOMPARE(m->at(m->rowCount() - 1).scoreText, QByteArray("-inf"));
        QVERIFY(
            !m->data(m->index(2, LeaderboardModel::ScoreColumn), Qt::ToolTipRole).toString().isEmpty()); // a/b tie at 0
    }

    void findMemberMatchesServer_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("member");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<QString>("version");
        for (bool desc : {true, false}) {
            const char *dir = desc ? "desc" : "asc";
            QTest::addRow("tied middle %s", dir) << kTies << QByteArray("p047") << desc << QString();
            QTest::addRow("tied middle %s as 6.0", dir)
                << kTies << QByteArray("p047") << desc << QStringLiteral("6.0.0");
            QTest::addRow("first %s", dir) << kTies << QByteArray("p019") << desc << QString();
            QTest::addRow("last %s", dir) << kTies << QByteArray("p000") << desc << QString();
            QTest::addRow("binary %s", dir) << kTies << QByteArray("bin\x00\xff", 5) << desc << QString();
            QTest::addRow("missing %s", dir) << kTies << QByteArray("nobody") << desc << QString();
            QTest::addRow("big %s", dir) << kBig << QByteArray("player:500000") << desc << QString();
        }
    }

    void findMemberMatchesServer()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, member);
        QFETCH(bool, descending);
        QFETCH(QString, version);
        WiredReader reader(m_client.get());
        QAbstractItemModelTester tester(reader.pageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        if (!version.isEmpty())
            reader.overrideServerVersion(QVersionNumber::fromString(version));
        reader.setDescending(descending);
        QVERIFY(openAndWait(reader, key));
        bool ok = false;
        const MemberSearch s = findAndWait(reader, member, &ok);
        QVERIFY(ok);
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        QCOMPARE(s.member, member);

        const RedisValue rank = m_server.command({descending ? "ZREVRANK" : "ZRANK", key, member});
        if (rank.isNil()) {
            QVERIFY(!s.found);
            QCOMPARE(reader.pageModel()->highlightedRow(), -1);
            return;
        }
        QVERIFY(s.found);
        const qint64 r = rank.toInteger();
        QCOMPARE(s.rank, r);
        QCOMPARE(s.scoreText, m_server.command({"ZSCORE", key, member}).bytes());
        // Five above and five below, as the server orders them.
        const QByteArray a = QByteArray::number(qMax<qint64>(0, r - 5)), b = QByteArray::number(r + 5);
        const RedisValue direct = descending ? m_server.command({"ZRANGE", key, a, b, "REV", "WITHSCORES"})
                                             : m_server.command({"ZRANGE", key, a, b, "WITHSCORES"});
        QCOMPARE(describe(rowsOf(reader.pageModel())), describe(rowsOf(direct)));
        const int row = reader.pageModel()->highlightedRow();
        QVERIFY(row >= 0);
        QCOMPARE(reader.pageModel()->at(row).member, member);
        QCOMPARE(reader.pageModel()->at(row).rank, r);
        QVERIFY(reader.pageModel()->index(row, 0).data(LeaderboardModel::HighlightRole).toBool());
    }

    void histogramMatchesZCount_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("buckets");
        QTest::newRow("ties") << kTies << 20;
        QTest::newRow("ties 7 buckets") << kTies << 7;
        QTest::newRow("infinities") << kInf << 10;
        QTest::newRow("one score") << kSingle << 20;
        QTest::newRow("a million") << kBig << 20;
    }

    void histogramMatchesZCount()
    {
        QFETCH(QByteArray, key);
        QFETCH(int, buckets);
        WiredReader reader(m_client.get());
        reader.setHistogramBuckets(buckets);
        QSignalSpy spy(&reader, &LeaderboardReader::histogramAvailable);
        reader.setKey(key);
        QVERIFY(spy.wait(kWaitMs));
        const auto h = spy.first().first().value<ScoreHistogram>();
        checkHistogram(h, key);
        if (key == kInf) {
            QCOMPARE(h.buckets.first().lowArg, QByteArray("-inf"));
            QCOMPARE(h.buckets.first().count, qint64(1));
            QCOMPARE(h.buckets.last().highArg, QByteArray("+inf"));
            QCOMPARE(h.buckets.last().count, qint64(1));
        } else if (key == kSingle) {
            QCOMPARE(h.buckets.size(), 1);
        } else {
            QCOMPARE(h.buckets.size(), buckets);
        }
    }

    void bucketEdges()
    {
        // Scores near the ends of the double range: no overflow, edges ascend, the last is max.
        const auto b = LeaderboardReader::bucketsFor(-1e308, 1e308, 20);
        QCOMPARE(b.size(), 20);
        QVERIFY(b.first().lowInclusive);
        QCOMPARE(b.first().low, -1e308);
        QCOMPARE(b.last().high, 1e308);
        for (int i = 1; i < b.size(); ++i) {
            QVERIFY(!b.at(i).lowInclusive);
            QCOMPARE(b.at(i).low, b.at(i - 1).high);
            QVERIFY(b.at(i).lowArg.startsWith('('));
            QVERIFY(b.at(i).high >= b.at(i).low);
        }
        QCOMPARE(LeaderboardReader::bucketsFor(3, 3, 20).size(), 1);
        QVERIFY(LeaderboardReader::bucketsFor(1, 0, 20).isEmpty());
    }

    void millionMemberBoardStaysBounded()
    {
        WiredReader reader(m_client.get());
        const qint64 before = infoField(m_server, "stats", "total_net_output_bytes");
        QVERIFY(openAndWait(reader, kBig));
        QCOMPARE(reader.header().cardinality, qint64(1000000));
        QVERIFY(pageAndWait(reader, 999990));
        QCOMPARE(reader.pageModel()->rowCount(), 10);
        reader.nextPage(); // past the end: nothing to ask
        QVERIFY(!reader.isLoading());
        bool ok = false;
        const MemberSearch s = findAndWait(reader, "player:3", &ok);
        QVERIFY(ok && s.found);
        QCOMPARE(s.rank, m_server.command({"ZREVRANK", kBig, "player:3"}).toInteger());
        const qint64 after = infoField(m_server, "stats", "total_net_output_bytes");
        // The board is ~20 MB as a reply; everything above (pages, rank, histogram, header,
        // and the INFO reply itself) fits in a few kilobytes.
        QVERIFY2(after - before < 64 * 1024, qPrintable(QString::number(after - before)));
    }

    void headerAndTrimSuggestion()
    {
        WiredReader reader(m_client.get());
        QVERIFY(openAndWait(reader, kBig));
        BoardHeader h = reader.header();
        QCOMPARE(h.cardinality, qint64(1000000));
        QVERIFY(h.memory > 1000000);
        QCOMPARE(h.pttlMs, qint64(-1));
        QVERIFY2(h.trimSuggestion().contains(QLatin1String("ZREMRANGEBYRANK lb:big 0 -10001")),
                 qPrintable(h.trimSuggestion()));

        QVERIFY(openAndWait(reader, kTies));
        QVERIFY(reader.header().trimSuggestion().isEmpty()); // small

        h.pttlMs = 60000;
        QVERIFY(h.trimSuggestion().isEmpty()); // big, but it expires

        QSignalSpy header(&reader, &LeaderboardReader::headerAvailable);
        QSignalSpy failed(&reader, &LeaderboardReader::pageFailed);
        reader.setKey("lb:notazset");
        QVERIFY(header.wait(kWaitMs));
        QVERIFY(header.first().first().value<BoardHeader>().error.contains(QLatin1String("not a sorted set")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kWaitMs);
    }

    void unionEqualsZUnionAndWritesNothing()
    {
        WiredReader reader(m_client.get());
        QAbstractItemModelTester tester(reader.unionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const qint64 dbsize = m_server.command({"DBSIZE"}).toInteger();
        const qint64 changes = infoField(m_server, "persistence", "rdb_changes_since_last_save");
        QSignalSpy spy(&reader, &LeaderboardReader::unionAvailable);
        reader.compare(kDays, 15);
        QVERIFY(spy.wait(kWaitMs));
        const auto u = spy.first().first().value<BoardUnion>();
        QVERIFY2(u.error.isEmpty(), qPrintable(u.error));

        QList<QByteArray> cmd{"ZUNION", QByteArray::number(kDays.size())};
        cmd.append(kDays);
        cmd.append("WITHSCORES");
        QList<Row> expected = rowsOf(m_server.command(cmd));
        QCOMPARE(u.unionSize, qint64(expected.size()));
        QCOMPARE(u.inputSize, qint64(120));
        std::reverse(expected.begin(), expected.end());
        expected.resize(15);
        QCOMPARE(describe(rowsOf(reader.unionModel())), describe(expected));
        QCOMPARE(reader.unionModel()->at(0).rank, qint64(0));

        QCOMPARE(m_server.command({"DBSIZE"}).toInteger(), dbsize);
        QCOMPARE(infoField(m_server, "persistence", "rdb_changes_since_last_save"), changes);
    }

    void unionRefusesHugeAndOldServers()
    {
        WiredReader reader(m_client.get());
        QSignalSpy spy(&reader, &LeaderboardReader::unionAvailable);
        const qint64 before = infoField(m_server, "stats", "total_net_output_bytes");
        reader.compare({kBig, kTies});
        QVERIFY(spy.wait(kWaitMs));
        const auto big = spy.takeFirst().first().value<BoardUnion>();
        QVERIFY2(big.error.contains(QLatin1String("100,000")), qPrintable(big.error));
        QCOMPARE(reader.unionModel()->rowCount(), 0);
        QVERIFY(infoField(m_server, "stats", "total_net_output_bytes") - before < 16 * 1024);

        const QString needs = LeaderboardReader::unionUnavailable(QVersionNumber(6, 0, 16));
        QVERIFY(needs.contains(QLatin1String("6.2")) && needs.contains(QLatin1String("6.0.16")));
        QVERIFY(LeaderboardReader::unionUnavailable(QVersionNumber(6, 2, 0)).isEmpty());
        QVERIFY(LeaderboardReader::unionUnavailable(QVersionNumber(7, 0, 15)).isEmpty());
        const qint64 commandsBefore = infoField(m_server, "stats", "total_commands_processed");
        reader.overrideServerVersion(QVersionNumber(6, 0, 16));
        reader.compare(kDays);
        QCOMPARE(spy.size(), 1); // answered at once: nothing is sent, ZUNIONSTORE least of all
        QCOMPARE(spy.first().first().value<BoardUnion>().error, needs);
        QCOMPARE(infoField(m_server, "stats", "total_commands_processed"), commandsBefore + 1); // the INFO itself
    }

    void commandChoiceByVersion()
    {
        const QVersionNumber v60(6, 0, 9), v70(7, 0, 15), v72(7, 2, 4);
        QCOMPARE(LeaderboardReader::rangeCommand("k", 0, 9, true, v70),
                 (RedisCommand{"ZRANGE", "k", "0", "9", "REV", "WITHSCORES"}));
        QCOMPARE(LeaderboardReader::rangeCommand("k", 0, 9, true, v60),
                 (RedisCommand{"ZREVRANGE", "k", "0", "9", "WITHSCORES"}));
        QCOMPARE(LeaderboardReader::rangeCommand("k", 0, 9, true, {}),
                 (RedisCommand{"ZREVRANGE", "k", "0", "9", "WITHSCORES"}));
        QCOMPARE(LeaderboardReader::rangeCommand("k", 5, 9, false, v60),
                 (RedisCommand{"ZRANGE", "k", "5", "9", "WITHSCORES"}));
        QCOMPARE(LeaderboardReader::rankCommand("k", "m", true, v70), (RedisCommand{"ZREVRANK", "k", "m"}));
        QCOMPARE(LeaderboardReader::rankCommand("k", "m", false, v72), (RedisCommand{"ZRANK", "k", "m", "WITHSCORE"}));
        QCOMPARE(LeaderboardReader::rankCommand("k", "m", true, v72),
                 (RedisCommand{"ZREVRANK", "k", "m", "WITHSCORE"}));
    }

    void candidatesLargestFirst()
    {
        WiredReader reader(m_client.get());
        QSignalSpy spy(&reader, &LeaderboardReader::candidatesAvailable);
        reader.loadCandidates({kTies, kSingle, "lb:gone", kBig, "lb:notazset", kInf});
        QVERIFY(spy.wait(kWaitMs));
        const auto boards = spy.first().first().value<QList<BoardSize>>();
        QCOMPARE(boards.size(), 4);
        QCOMPARE(boards.at(0).key, kBig);
        QCOMPARE(boards.at(1).key, kTies);
        QCOMPARE(boards.at(1).cardinality, qint64(104));
        QCOMPARE(boards.at(2).key, kInf);
        QCOMPARE(boards.at(3).key, kSingle);
    }

    void staleRepliesDropped()
    {
        WiredReader reader(m_client.get());
        QAbstractItemModelTester tester(reader.pageModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy page(&reader, &LeaderboardReader::pageAvailable);
        QSignalSpy histogram(&reader, &LeaderboardReader::histogramAvailable);
        reader.setKey(kBig);
        reader.setKey(kSingle);
        QVERIFY(histogram.wait(kWaitMs));
        QTRY_VERIFY_WITH_TIMEOUT(!reader.isLoading(), kWaitMs);
        QCOMPARE(page.size(), 1);
        QCOMPARE(histogram.size(), 1);
        QCOMPARE(histogram.first().first().value<ScoreHistogram>().key, kSingle);
        QCOMPARE(reader.pageModel()->rowCount(), 3);
        QCOMPARE(reader.header().key, kSingle);
        QCOMPARE(reader.header().cardinality, qint64(3));
    }
};

QTEST_MAIN(TestLeaderboard)
#include "tst_leaderboard.moc"
