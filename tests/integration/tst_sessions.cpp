// SPDX-License-Identifier: GPL-3.0-or-later
#include "decodercases.h"
#include "masking.h"
#include "patterntestdata.h"
#include "redisclient.h"
#include "sessions.h"
#include "sessionsreader.h"
#include "testserver.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

// Sessions on a real server, written the way docs/patterns.md describes them: hashes with a TTL
// (some slid by PEXPIRE between two polls, some left alone), one without TTL, one far bigger
// than its siblings, a JSON string session, a name with an e-mail in it, and per-user
// reverse indexes, one with an id whose session is gone. Plus the masking rules on their own.
namespace {
constexpr int kWaitMs = 20000;
constexpr qint64 kTtl = 1'800'000; // 30 min
constexpr qint64 kAged = 60'000; // sessions were last touched a minute ago

QByteArray sid(int i)
{
    return QByteArray::number(0x5e55100 + i * 7919, 16).rightJustified(24, 'a');
}

QByteArray sessionKey(int i)
{
    return "session:" + sid(i);
}

} // namespace

class TstSessions : public QObject
{
    Q_OBJECT

private:
    static constexpr int kFixed = 6;
    static constexpr int kSliding = 4;
    TestServer m_server;
    QList<PatternMatch> m_matches;
    QByteArray m_noTtl = "session:" + sid(100);
    QByteArray m_big = "session:" + sid(101);
    QByteArray m_json = "session:" + sid(102);
    QByteArray m_email = "session:alice@example.com";
    QByteArray m_dangling = sid(999);

    // Runs one poll of 'reader' and waits for it.
    static bool poll(SessionsReader &reader)
    {
        QSignalSpy spy(&reader, &SessionsReader::refreshed);
        reader.refresh();
        return spy.wait(kWaitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_server.start(&error), qPrintable(error));
        QList<QList<QByteArray>> cmds;
        const auto hash = [&cmds](const QByteArray &key, int user) {
            cmds.append({"HSET", key, "user_id", QByteArray::number(user), "created_at", "1764400000", "csrf_token",
                         "c5rf-" + key.right(8), "cart_items", "3"});
        };
        for (int i = 0; i < kFixed + kSliding; ++i) {
            hash(sessionKey(i), 1000 + i);
            cmds.append({"PEXPIRE", sessionKey(i), QByteArray::number(kTtl - kAged)});
        }
        hash(m_noTtl, 2000);
        hash(m_big, 2001);
        QList<QByteArray> big{"HSET", m_big};
        for (int f = 0; f < 400; ++f)
            big << "recent_view_" + QByteArray::number(f) << QByteArray(120, 'v');
        cmds.append(big);
        cmds.append({"PEXPIRE", m_big, QByteArray::number(kTtl - kAged)});
        cmds.append(
            {"SET", m_json,
             R"({"user_id":2002,"access_token":"eyJhbGciOi.secret.sig","profile":{"name":"Bo","api_key":"k-123"},"theme":"dark"})",
             "PX", QByteArray::number(kTtl - kAged)});
        hash(m_email, 2003);
        cmds.append({"PEXPIRE", m_email, QByteArray::number(kTtl - kAged)});
        cmds.append({"SADD", "user:1042:sessions", sid(0), sid(1), m_dangling});
        cmds.append({"SADD", "user:7:sessions", sid(2), sid(3)});
        for (const RedisValue &v : m_server.pipeline(cmds))
            QVERIFY2(!v.isError(), qPrintable(v.toDisplayString()));

        const QString family = QStringLiteral("session:{id}");
        for (int i = 0; i < kFixed + kSliding; ++i)
            m_matches.append(patternMatch(sessionKey(i), PatternKind::Session, KeyType::Hash, family, kTtl - kAged));
        m_matches.append(patternMatch(m_noTtl, PatternKind::Session, KeyType::Hash, family, -1));
        m_matches.append(patternMatch(m_big, PatternKind::Session, KeyType::Hash, family, kTtl - kAged));
        m_matches.append(patternMatch(m_json, PatternKind::Session, KeyType::String, family, kTtl - kAged));
        m_matches.append(patternMatch(m_email, PatternKind::Session, KeyType::Hash, family, kTtl - kAged));
        for (const QByteArray &index : {QByteArray("user:1042:sessions"), QByteArray("user:7:sessions")})
            m_matches.append(
                patternMatch(index, PatternKind::SessionIndex, KeyType::Set, QStringLiteral("user:{n}:sessions"), -1));
        // Not a session: ignored.
        m_matches.append(
            patternMatch("lock:report", PatternKind::Lock, KeyType::String, QStringLiteral("lock:{name}"), 5000));
    }

    void secretNames_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<bool>("secret");
        QTest::newRow("csrf") << QByteArray("csrf_token") << true;
        QTest::newRow("xsrf upper") << QByteArray("X-XSRF-TOKEN") << true;
        QTest::newRow("password") << QByteArray("password") << true;
        QTest::newRow("passwd") << QByteArray("old_passwd") << true;
        QTest::newRow("api key dash") << QByteArray("api-key") << true;
        QTest::newRow("apikey") << QByteArray("ApiKey") << true;
        QTest::newRow("oauth") << QByteArray("oauth_state") << true;
        QTest::newRow("cookie") << QByteArray("remember_cookie") << true;
        QTest::newRow("jwt") << QByteArray("jwt") << true;
        QTest::newRow("session_key") << QByteArray("session_key") << true;
        QTest::newRow("secret") << QByteArray("client_secret") << true;
        QTest::newRow("user id") << QByteArray("user_id") << false;
        QTest::newRow("created") << QByteArray("created_at") << false;
        QTest::newRow("theme") << QByteArray("theme") << false;
        QTest::newRow("cart") << QByteArray("cart_items") << false;
    }
    void secretNames()
    {
        QFETCH(QByteArray, name);
        QFETCH(bool, secret);
        QCOMPARE(masking::isSecretName(name), secret);
    }

    void maskJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("masked");
        QTest::addColumn<QByteArray>("mustKeep");
        QTest::addColumn<QByteArray>("mustHide");
        QTest::newRow("flat") << QByteArray(R"({"user":"bo","token":"fixture-token"})") << 1 << QByteArray("\"bo\"")
                              << QByteArray("fixture-token");
        QTest::newRow("nested") << QByteArray(R"({"a":{"b":[{"password":"fixture-not-a-secret","x":1}]}})") << 1
                                << QByteArray("\"x\":1") << QByteArray("fixture-not-a-secret");
        QTest::newRow("number secret") << QByteArray(R"({"otp":123456,"n":7})") << 1 << QByteArray("\"n\":7")
                                       << QByteArray("123456");
        QTest::newRow("object under secret") << QByteArray(R"({"auth":{"bearer":"abc"},"ok":true})") << 1
                                             << QByteArray("\"ok\":true") << QByteArray("abc");
        QTest::newRow("null secret kept") << QByteArray(R"({"csrf":null})") << 0 << QByteArray("null") << QByteArray();
        QTest::newRow("nothing secret") << QByteArray(R"([1,{"k":"v"}])") << 0 << QByteArray("\"k\":\"v\"")
                                        << QByteArray();
    }
    void maskJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, masked);
        QFETCH(QByteArray, mustKeep);
        QFETCH(QByteArray, mustHide);
        int count = -1;
        const std::optional<QByteArray> out = masking::maskJson(json, &count);
        QVERIFY(out);
        QCOMPARE(count, masked);
        QVERIFY2(out->contains(mustKeep), out->constData());
        if (!mustHide.isEmpty()) {
            QVERIFY2(!out->contains(mustHide), out->constData());
            QVERIFY(out->contains(masking::maskText().toUtf8()));
        }
    }
    void maskJsonRejectsText()
    {
        QVERIFY(!masking::maskJson("not json"));
        QVERIFY(!masking::maskJson("42")); // a bare number is no document
    }

    void contentsMasking()
    {
        const sessions::Contents hash = sessions::Contents::fromHash(
            "session:x", {{"user_id", "7"}, {"csrf_token", "abc123"}, {"prefs", R"({"lang":"de","api_key":"zz9"})"}},
            false);
        QCOMPARE(hash.fields.size(), 3);
        QCOMPARE(hash.maskedCount(), 2);
        SessionContentsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setContents(hash);
        const auto value
            = [&model](int row) { return model.index(row, SessionContentsModel::ValueColumn).data().toString(); };
        QCOMPARE(value(0), QStringLiteral("7"));
        QCOMPARE(value(1), masking::maskText());
        QVERIFY(!value(2).contains(QLatin1String("zz9")));
        QVERIFY(value(2).contains(QLatin1String("de")));
        QVERIFY(model.index(1, 1).data(SessionContentsModel::MaskedRole).toBool());
        QVERIFY(!model.index(0, 1).data(SessionContentsModel::MaskedRole).toBool());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setRevealed(true);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(value(1), QStringLiteral("abc123"));
        QVERIFY(value(2).contains(QLatin1String("zz9")));
        model.setRevealed(false);
        QCOMPARE(value(1), masking::maskText());

        const sessions::Contents json = sessions::Contents::fromString(
            "session:y", R"({"user_id":5,"refresh_token":"r-tok","profile":{"password":"pw1","name":"Ann"}})", false);
        QVERIFY(json.json);
        QCOMPARE(json.fields.size(), 3);
        for (const sessions::Field &f : json.fields) {
            QVERIFY2(!f.masked.contains("r-tok") && !f.masked.contains("pw1"), f.masked.constData());
            if (f.name == "profile") {
                QVERIFY(!f.secret);
                QVERIFY(f.masked.contains("Ann"));
                QVERIFY(f.value.contains("pw1"));
            }
            if (f.name == "refresh_token")
                QVERIFY(f.secret);
        }
        const sessions::Contents plain = sessions::Contents::fromString("session:z", "opaque-bytes", false);
        QCOMPARE(plain.fields.size(), 1);
        QCOMPARE(plain.maskedCount(), 0);

        // Sessions their frameworks pickle or pack (write_values.py: Python's pickle, python3-msgpack):
        // the decoded map's entries are the fields, masked after decoding.
        QTemporaryDir dir;
        QString error;
        const QHash<QString, QByteArray> values = valuesByName(writePythonCases(dir.path(), &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        struct Case
        {
            const char *name;
            const char *chain;
            const char *token;
        };
        for (const Case &k :
             {Case{"pickled object 4", "pickle", "4f1c9a7e2b"}, Case{"msgpack", "MessagePack", "b7c1e0f2a9d34c58"},
              Case{"gzip+msgpack", "gzip → MessagePack", "b7c1e0f2a9d34c58"}}) {
            const QByteArray value = values.value(QString::fromLatin1(k.name));
            QVERIFY2(!value.isEmpty(), k.name);
            const sessions::Contents decoded = sessions::Contents::fromString("session:p", value, false);
            QCOMPARE(decoded.decoded, QString::fromUtf8(k.chain));
            QVERIFY2(decoded.fields.size() >= 3, k.name);
            QCOMPARE(decoded.maskedCount(), 1);
            for (const sessions::Field &f : decoded.fields) {
                QVERIFY2(!f.masked.contains(k.token), f.masked.constData());
                if (f.name == "csrf_token") {
                    QVERIFY(f.secret);
                    QCOMPARE(f.value, QByteArray(k.token));
                }
            }
            // Cut short, it is not decoded: one field, and no guess at what it holds.
            const sessions::Contents cut = sessions::Contents::fromString("session:p", value.left(8), true);
            QCOMPARE(cut.fields.size(), 1);
            QVERIFY(cut.decoded.isEmpty());
        }
    }

    void keyNames_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<bool>("issue");
        QTest::newRow("email") << QByteArray("session:bob.smith@mail.example.org") << true;
        QTest::newRow("jwt") << QByteArray("sess:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc") << true;
        QTest::newRow("token=") << QByteArray("cache:token=9f8e7d6c5b4a") << true;
        QTest::newRow("random id") << QByteArray("session:9f8e7d6c5b4a39281706") << false;
        QTest::newRow("user index") << QByteArray("user:1042:sessions") << false;
        QTest::newRow("at without domain") << QByteArray("job@host") << false;
    }
    void keyNames()
    {
        QFETCH(QByteArray, key);
        QFETCH(bool, issue);
        QCOMPARE(!sessions::keyNameIssue(key).isEmpty(), issue);
    }

    void lifetime_data()
    {
        using L = sessions::Lifetime;
        QTest::addColumn<int>("previous");
        QTest::addColumn<qint64>("before");
        QTest::addColumn<qint64>("after");
        QTest::addColumn<int>("expected");
        QTest::newRow("first read") << int(L::Unknown) << ttl::kUnknown << qint64(100000) << int(L::Unknown);
        QTest::newRow("unchanged") << int(L::Unknown) << qint64(100000) << qint64(100020) << int(L::Fixed);
        QTest::newRow("moved") << int(L::Unknown) << qint64(100000) << qint64(160000) << int(L::Sliding);
        QTest::newRow("sliding stays") << int(L::Sliding) << qint64(100000) << qint64(100000) << int(L::Sliding);
        QTest::newRow("fixed then moved") << int(L::Fixed) << qint64(100000) << qint64(105000) << int(L::Sliding);
        QTest::newRow("ttl removed") << int(L::Fixed) << qint64(100000) << qint64(-1) << int(L::NoTtl);
        QTest::newRow("ttl added") << int(L::NoTtl) << qint64(-1) << qint64(100000) << int(L::Unknown);
        QTest::newRow("unreadable") << int(L::Fixed) << qint64(100000) << ttl::kUnknown << int(L::Fixed);
    }
    void lifetime()
    {
        QFETCH(int, previous);
        QFETCH(qint64, before);
        QFETCH(qint64, after);
        QFETCH(int, expected);
        QCOMPARE(int(sessions::observe(sessions::Lifetime(previous), before, after)), expected);
    }

    void familyPrefix()
    {
        QCOMPARE(sessions::familyPrefix(QStringLiteral("session:{id}")), QByteArray("session:"));
        QCOMPARE(sessions::familyPrefix(QStringLiteral("app:sess:{id}")), QByteArray("app:sess:"));
        QCOMPARE(sessions::familyPrefix(QStringLiteral("{id}:session")), QByteArray());
    }

    void monitorsRealSessions()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        SessionsReader reader(&client);
        SessionsModel sessionsModel;
        SessionIndexesModel indexesModel;
        QObject::connect(&reader, &SessionsReader::sessionsAvailable, &sessionsModel,
                         [&](const SessionsResults &results) {
                             sessionsModel.setNow(results.summary.nowMs);
                             sessionsModel.setRows(results.sessions);
                             indexesModel.setRows(results.indexes);
                         });
        QAbstractItemModelTester t1(&sessionsModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QAbstractItemModelTester t2(&indexesModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
        reader.setMatches(m_matches);
        QVERIFY(!reader.isPolling());

        QVERIFY(poll(reader));
        SessionsSummary s = reader.summary();
        const int total = kFixed + kSliding + 4;
        QCOMPARE(s.sessions, total);
        QCOMPARE(s.noTtl, 1);
        QCOMPARE(s.unknownLifetime, total - 1); // one read: nothing known yet but "no TTL"
        QCOMPARE(s.outliers, 1);
        QCOMPARE(s.nameIssues, 1);
        QCOMPARE(s.indexes, 2);
        QCOMPARE(s.dangling, 1);
        QCOMPARE(s.buckets[ttlbucket::NoTtl], quint64(1));
        QCOMPARE(s.buckets[ttlbucket::FifteenToSixtyMinutes], quint64(total - 1));

        // Use the sliding sessions: PEXPIRE pushes their expiry forward by a minute.
        QList<QList<QByteArray>> touch;
        for (int i = kFixed; i < kFixed + kSliding; ++i)
            touch.append({"PEXPIRE", sessionKey(i), QByteArray::number(kTtl)});
        for (const RedisValue &v : m_server.pipeline(touch))
            QCOMPARE(v.toInteger(), 1);
        QVERIFY(poll(reader));
        s = reader.summary();
        QCOMPARE(s.sliding, kSliding);
        QCOMPARE(s.fixed, total - 1 - kSliding);
        QCOMPARE(s.unknownLifetime, 0);

        const SessionsModel *model = &sessionsModel;
        QCOMPARE(model->rowCount(), total);
        for (const SessionRow &r : model->rows()) {
            if (r.key == m_noTtl) {
                QCOMPARE(r.lifetime, sessions::Lifetime::NoTtl);
                QCOMPARE(r.severity(), Severity::Bad);
            } else if (r.key == m_big) {
                QVERIFY(r.outlier);
                QVERIFY2(r.sizeFactor >= SessionsReader::kOutlierFactor, qPrintable(QString::number(r.sizeFactor)));
                QCOMPARE(r.memoryBytes, m_server.command({"MEMORY", "USAGE", m_big}).toInteger());
            } else if (r.key == m_email) {
                QVERIFY(!r.nameIssue.isEmpty());
                QCOMPARE(r.severity(), Severity::Warning);
            } else {
                QVERIFY(!r.outlier);
                QCOMPARE(r.severity(), Severity::None);
            }
            bool sliding = false;
            for (int i = kFixed; i < kFixed + kSliding; ++i)
                sliding |= r.key == sessionKey(i);
            if (r.key != m_noTtl)
                QCOMPARE(r.lifetime, sliding ? sessions::Lifetime::Sliding : sessions::Lifetime::Fixed);
            const int row = model->rowOf(r.key);
            QCOMPARE(model->index(row, 0).data(SessionsModel::KeyRole).toByteArray(), r.key);
            QCOMPARE(model->index(row, 0).data(SessionsModel::SeverityRole).toInt(), int(r.severity()));
        }

        // The index with a gone session, checked against EXISTS on a plain socket.
        const SessionIndexesModel *indexes = &indexesModel;
        const int row = indexes->rowOf("user:1042:sessions");
        QVERIFY(row >= 0);
        const SessionIndexRow &index = indexes->rows().at(row);
        QCOMPARE(index.cardinality, 3);
        QVERIFY(index.complete);
        QCOMPARE(index.sessionPrefix, QByteArray("session:"));
        QCOMPARE(index.dangling, QList<QByteArray>{m_dangling});
        QCOMPARE(m_server.command({"EXISTS", "session:" + m_dangling}).toInteger(), 0);
        QCOMPARE(index.pttlMs, -1);
        QVERIFY(indexes->rows().at(indexes->rowOf("user:7:sessions")).dangling.isEmpty());

        // A session that ends between polls leaves the table and dangles in its index.
        m_server.command({"DEL", sessionKey(2)});
        QVERIFY(poll(reader));
        QCOMPARE(reader.summary().sessions, total - 1);
        QCOMPARE(model->rowOf(sessionKey(2)), -1);
        QCOMPARE(indexes->rows().at(indexes->rowOf("user:7:sessions")).dangling, QList<QByteArray>{sid(2)});
        QCOMPARE(reader.summary().dangling, 2);
        m_server.command({"HSET", sessionKey(2), "user_id", "1002"});
    }

    void contentsOnDemand()
    {
        RedisClient client(m_server.profile());
        client.connectToServer();
        QVERIFY(waitForReady(client));
        SessionsReader reader(&client);
        reader.setMatches(m_matches);
        QSignalSpy loaded(&reader, &SessionsReader::contentsAvailable);

        reader.loadContents(sessionKey(0), KeyType::Hash);
        QVERIFY(loaded.wait(kWaitMs));
        auto c = loaded.takeFirst().at(0).value<sessions::Contents>();
        QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
        QCOMPARE(c.fields.size(), 4);
        QCOMPARE(c.maskedCount(), 1);
        for (const sessions::Field &f : c.fields)
            QCOMPARE(f.secret, f.name == "csrf_token");

        // Bounded: the big session gives kContentsFields fields and says there are more.
        reader.loadContents(m_big, KeyType::Hash);
        QVERIFY(loaded.wait(kWaitMs));
        c = loaded.takeFirst().at(0).value<sessions::Contents>();
        QCOMPARE(c.fields.size(), SessionsReader::kContentsFields);
        QVERIFY(c.truncated);

        reader.loadContents(m_json, KeyType::String);
        QVERIFY(loaded.wait(kWaitMs));
        c = loaded.takeFirst().at(0).value<sessions::Contents>();
        QVERIFY(c.json);
        QCOMPARE(c.maskedCount(), 2); // access_token, and api_key inside profile
        for (const sessions::Field &f : c.fields)
            QVERIFY2(!f.masked.contains("k-123") && !f.masked.contains("eyJhbGciOi"), f.masked.constData());

        reader.loadContents("user:7:sessions", KeyType::Set);
        QVERIFY(loaded.wait(kWaitMs));
        QVERIFY(!loaded.takeFirst().at(0).value<sessions::Contents>().error.isEmpty());
    }

    void noPermissionIsOneLine()
    {
        std::unique_ptr<RedisClient> client = clientWithout(m_server, "nomem", {"memory", "sscan"});
        QVERIFY(client);
        SessionsReader reader(client.get());
        QSignalSpy failed(&reader, &SessionsReader::failed);
        reader.setMatches(m_matches);
        QVERIFY(poll(reader));
        // Sizes fall back to HLEN/STRLEN; the indexes say why they could not be read.
        QCOMPARE(reader.summary().sessions, kFixed + kSliding + 4);
        for (const SessionRow &r : reader.sessions()) {
            QCOMPARE(r.memoryBytes, -1);
            QVERIFY(r.elements > 0);
        }
        const SessionIndexRow &index = reader.indexes().first();
        QVERIFY2(index.error.contains(QLatin1String("sscan"), Qt::CaseInsensitive), qPrintable(index.error));
        QVERIFY(!index.error.contains(QLatin1Char('\n')));
        QCOMPARE(reader.summary().outliers, 1); // by field count instead
    }
};

QTEST_GUILESS_MAIN(TstSessions)
#include "tst_sessions.moc"
