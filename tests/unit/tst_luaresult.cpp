// SPDX-License-Identifier: GPL-3.0-or-later
#include "luaresult.h"

#include <QAbstractItemModelTester>
#include <QCborMap>
#include <QCborValue>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

// The console's headless half: the typed result tree, error-to-line mapping, cluster hash
// slots and the bounded history file.
class TestLuaResult : public QObject
{
    Q_OBJECT

private:
    static QString text(const LuaResultModel &m, const QModelIndex &idx, int column = LuaResultModel::ValueColumn)
    {
        return m.data(m.index(idx.row(), column, idx.parent())).toString();
    }
    static int kind(const LuaResultModel &m, const QModelIndex &idx)
    {
        return m.data(idx, LuaResultModel::KindRole).toInt();
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void topRowKinds_data()
    {
        QTest::addColumn<RedisValue>("value");
        QTest::addColumn<QString>("shown");
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("children");
        QTest::newRow("nil") << RedisValue::nil() << "(nil)"
                             << "nil or false" << 0;
        QTest::newRow("empty array") << RedisValue::array({}) << "(empty array)"
                                     << "array" << 0;
        QTest::newRow("empty string") << RedisValue::bulk("") << "\"\""
                                      << "bulk, 0 byte(s)" << 0;
        QTest::newRow("integer") << RedisValue::integer(-42) << "-42"
                                 << "integer" << 0;
        QTest::newRow("status") << RedisValue::status("OK") << "OK"
                                << "status" << 0;
        QTest::newRow("error") << RedisValue::error("ERR boom") << "ERR boom"
                               << "error" << 0;
        QTest::newRow("binary bulk") << RedisValue::bulk(QByteArray("a\x00\xff", 3)) << "\"a\\x00\\xff\""
                                     << "bulk, 3 byte(s)" << 0;
        QTest::newRow("resp3 double") << RedisValue::number(3.5, "3.5") << "3.5" << kindName(RedisValue::Kind::Double)
                                      << 0;
        QTest::newRow("resp3 false") << RedisValue::boolean(false) << "false"
                                     << "boolean" << 0;
        QTest::newRow("array") << RedisValue::array({RedisValue::integer(1), RedisValue::bulk("x")}) << "2 element(s)"
                               << "array" << 2;
    }

    void topRowKinds()
    {
        QFETCH(RedisValue, value);
        QFETCH(QString, shown);
        QFETCH(QString, type);
        QFETCH(int, children);
        LuaResultModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(value);
        QCOMPARE(m.rowCount(), 1);
        const QModelIndex top = m.index(0, 0);
        QCOMPARE(text(m, top), shown);
        QCOMPARE(text(m, top, LuaResultModel::TypeColumn), type);
        QCOMPARE(m.rowCount(top), children);
        QCOMPARE(kind(m, top), int(value.kind()));
    }

    // The three "nothing" answers must never read alike.
    void nilEmptyArrayEmptyStringDiffer()
    {
        LuaResultModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(RedisValue::array({RedisValue::nil(), RedisValue::array({}), RedisValue::bulk("")}));
        const QModelIndex top = m.index(0, 0);
        QCOMPARE(m.rowCount(top), 3);
        QSet<QString> shown;
        for (int i = 0; i < 3; ++i)
            shown.insert(text(m, m.index(i, 0, top)) + QLatin1Char('|')
                         + text(m, m.index(i, 0, top), LuaResultModel::TypeColumn));
        QCOMPARE(shown.size(), 3);
        // Over RESP2 the nil row says it may have been a Lua false.
        QVERIFY(m.data(m.index(0, 0, top), Qt::ToolTipRole).toString().contains(QLatin1String("false")));
        QVERIFY(m.data(m.index(2, 0, top), Qt::ToolTipRole).toString().isEmpty());
        // With a RESP3 connection a nil is only a nil.
        m.setResult(RedisValue::nil(), false);
        QCOMPARE(text(m, m.index(0, 0), LuaResultModel::TypeColumn), QStringLiteral("nil"));
        QVERIFY(m.data(m.index(0, 0), Qt::ToolTipRole).toString().isEmpty());
    }

    void nestedArrays()
    {
        LuaResultModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const RedisValue inner
            = RedisValue::array({RedisValue::integer(2), RedisValue::array({RedisValue::bulk("deep")})});
        m.setResult(RedisValue::array({RedisValue::integer(1), inner, RedisValue::status("OK")}));
        const QModelIndex top = m.index(0, 0);
        QCOMPARE(m.rowCount(top), 3);
        const QModelIndex second = m.index(1, 0, top);
        QCOMPARE(m.rowCount(second), 2);
        const QModelIndex third = m.index(1, 0, second);
        QCOMPARE(m.rowCount(third), 1);
        const QModelIndex deep = m.index(0, 0, third);
        QCOMPARE(text(m, deep), QStringLiteral("\"deep\""));
        QCOMPARE(m.parent(deep), third);
        QCOMPARE(m.parent(third), second);
        QCOMPARE(m.parent(second), top);
        QCOMPARE(m.data(m.index(0, 0, third), LuaResultModel::BytesRole).toByteArray(), QByteArray("deep"));
        // The element column counts from 1, as Lua does.
        QCOMPARE(text(m, top, LuaResultModel::ElementColumn), QStringLiteral("reply"));
        QCOMPARE(text(m, second, LuaResultModel::ElementColumn), QStringLiteral("2"));
        QCOMPARE(text(m, deep, LuaResultModel::ElementColumn), QStringLiteral("1"));
        m.clear();
        QCOMPARE(m.rowCount(), 0);
    }

    void resp3Map()
    {
        LuaResultModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(
            RedisValue::array({RedisValue::bulk("field"), RedisValue::number(1.5, "1.5")}, RedisValue::Kind::Map),
            false);
        const QModelIndex top = m.index(0, 0);
        QCOMPARE(text(m, top), QStringLiteral("1 pair(s)"));
        QCOMPARE(text(m, m.index(0, 0, top), LuaResultModel::ElementColumn), QStringLiteral("key 1"));
        QCOMPARE(text(m, m.index(1, 0, top), LuaResultModel::ElementColumn), QStringLiteral("value 1"));
        QCOMPARE(text(m, m.index(1, 0, top)), QStringLiteral("1.5"));
    }

    void hexToggle()
    {
        LuaResultModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setResult(RedisValue::array({RedisValue::bulk(QByteArray("\x00\xff"
                                                                   "A",
                                                                   3)),
                                       RedisValue::integer(7)}));
        const QModelIndex top = m.index(0, 0);
        QCOMPARE(text(m, m.index(0, 0, top)), QStringLiteral("\"\\x00\\xffA\""));
        m.setHexMode(true);
        QCOMPARE(text(m, m.index(0, 0, top)), QStringLiteral("00 ff 41"));
        QCOMPARE(text(m, m.index(1, 0, top)), QStringLiteral("7")); // integers stay decimal
        m.setHexMode(false);
        QCOMPARE(text(m, m.index(0, 0, top)), QStringLiteral("\"\\x00\\xffA\""));
    }

    // A script that returns what it read: a CBOR session (as Qt writes one) is decoded in the
    // type and tooltip, its token masked; plain text and plain JSON are not.
    void bulkStringsDecoded()
    {
        LuaResultModel m;
        const QByteArray session = QCborValue(QCborMap{{QStringLiteral("user_id"), 5},
                                                       {QStringLiteral("csrf_token"), QStringLiteral("tok-9")}})
                                       .toCbor();
        m.setResult(RedisValue::array(
            {RedisValue::bulk(session), RedisValue::bulk("plain words"), RedisValue::bulk(R"({"a":1})")}));
        const QModelIndex top = m.index(0, 0);
        const QModelIndex typeOf = m.index(0, LuaResultModel::TypeColumn, top);
        QVERIFY2(typeOf.data().toString().endsWith(QStringLiteral("decoded: CBOR")),
                 qPrintable(typeOf.data().toString()));
        const QString decoded = m.index(0, 0, top).data(LuaResultModel::DecodedRole).toString();
        QVERIFY2(decoded.contains(QLatin1String("user_id: 5")) && !decoded.contains(QLatin1String("tok-9")),
                 qPrintable(decoded));
        QVERIFY(m.index(0, LuaResultModel::ValueColumn, top).data(Qt::ToolTipRole).toString().contains(decoded));
        QVERIFY(m.index(1, 0, top).data(LuaResultModel::DecodedRole).toString().isEmpty());
        QVERIFY(m.index(2, 0, top).data(LuaResultModel::DecodedRole).toString().isEmpty());
        QCOMPARE(m.index(2, LuaResultModel::TypeColumn, top).data().toString(),
                 QStringLiteral("bulk, 7 byte(s)")); // no translation with plural forms ships yet
    }

    // Messages as Redis 6, 7.0 and 8.0 write them (the 7.0 ones captured from redis-server 7.0.15).
    void errorLine_data()
    {
        QTest::addColumn<QByteArray>("error");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("7.0 compile") << QByteArray(
            "ERR Error compiling script (new function): user_script:3: unexpected "
            "symbol near 'return'") << 3
                                     << "unexpected symbol near 'return'";
        QTest::newRow("7.0 redis.call") << QByteArray("ERR value is not an integer or out of range script: "
                                                      "1d4d1cfb3984c75a6c46b316cfb5d989ce599669, on @user_script:2.")
                                        << 2 << "value is not an integer or out of range";
        QTest::newRow("7.0 error()") << QByteArray("ERR user_script:2: boom script: "
                                                   "73188b7294d6de446ee8cf5f6e71b55ba062c49e, on @user_script:2.")
                                     << 2 << "boom";
        QTest::newRow("6.x runtime") << QByteArray("ERR Error running script (call to "
                                                   "f_54222809c766ad240371c165ff85490de677eed5): @user_script:4: "
                                                   "attempt to index a nil value")
                                     << 4 << "attempt to index a nil value";
        QTest::newRow("6.x f_sha") << QByteArray("ERR Error compiling script (new function): "
                                                 "f_54222809c766ad240371c165ff85490de677eed5:7: '=' expected near 'x'")
                                   << 7 << "'=' expected near 'x'";
        QTest::newRow("no line") << QByteArray("NOSCRIPT No matching script. Please use EVAL.") << 0
                                 << "NOSCRIPT No matching script. Please use EVAL.";
        QTest::newRow("custom error_reply") << QByteArray("MY custom") << 0 << "MY custom";
    }

    void errorLine()
    {
        QFETCH(QByteArray, error);
        QFETCH(int, line);
        QFETCH(QString, message);
        QString shown;
        QCOMPARE(luaresult::errorLine(error, &shown), line);
        QCOMPARE(shown, message);
    }

    // Values from CLUSTER KEYSLOT on a real cluster-enabled redis-server 7.0.15 (and, for foo,
    // somekey and foo{hash_tag}, the Redis documentation).
    void keySlot_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("slot");
        QTest::newRow("foo") << QByteArray("foo") << 12182;
        QTest::newRow("bar") << QByteArray("bar") << 5061;
        QTest::newRow("hello") << QByteArray("hello") << 866;
        QTest::newRow("somekey") << QByteArray("somekey") << 11058;
        QTest::newRow("tag") << QByteArray("foo{hash_tag}") << 2515;
        QTest::newRow("following") << QByteArray("{user1000}.following") << 3443;
        QTest::newRow("followers") << QByteArray("{user1000}.followers") << 3443;
        QTest::newRow("first brace pair") << QByteArray("foo{{bar}}zap") << 4015;
        QTest::newRow("unclosed") << QByteArray("{bar") << 4015;
        QTest::newRow("empty tag hashes all") << QByteArray("foo{}{bar}") << 8363;
        QTest::newRow("first tag wins") << QByteArray("foo{bar}{zap}") << 5061;
        QTest::newRow("empty key") << QByteArray() << 0;
        QTest::newRow("binary") << QByteArray("a\x00\xff", 3) << 12971;
    }

    void keySlot()
    {
        QFETCH(QByteArray, key);
        QFETCH(int, slot);
        QCOMPARE(int(luaresult::keySlot(key)), slot);
    }

    void keysInOneSlot()
    {
        QList<QByteArray> offending{"stale"};
        QVERIFY(luaresult::keysInOneSlot({}, &offending));
        QVERIFY(offending.isEmpty());
        QVERIFY(luaresult::keysInOneSlot({"foo"}, &offending));
        QVERIFY(luaresult::keysInOneSlot({"{user1000}.following", "{user1000}.followers"}, &offending));
        QVERIFY(luaresult::keysInOneSlot({"bar", "foo{bar}{zap}"}, &offending));
        QVERIFY(!luaresult::keysInOneSlot({"foo", "{foo}x", "bar", "hello"}, &offending));
        QCOMPARE(offending, (QList<QByteArray>{"bar", "hello"}));
    }

    void summaries()
    {
        QCOMPARE(luaresult::summary(RedisValue::nil()), QStringLiteral("nil"));
        QCOMPARE(luaresult::summary(RedisValue::array({})), QStringLiteral("empty array"));
        QCOMPARE(luaresult::summary(RedisValue::integer(3)), QStringLiteral("integer 3"));
        QCOMPARE(luaresult::summary(RedisValue::bulk("")), QStringLiteral("bulk "));
        QVERIFY(luaresult::summary(RedisValue::error("ERR x")).startsWith(QLatin1String("error: ")));
    }

    void historyBoundedRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/history.json"));
        LuaHistory h(path, 5);
        for (int i = 0; i < 8; ++i) {
            LuaRun r;
            r.script = QStringLiteral("return %1").arg(i);
            r.keys = {QByteArray("k\x00", 2) + QByteArray::number(i)};
            r.args = {QByteArray("\xff\xfe"), QByteArray()};
            r.summary = QStringLiteral("integer %1").arg(i);
            r.elapsedUs = 100 + i;
            r.server = QStringLiteral("127.0.0.1:6379/0");
            r.at = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000 + i).toUTC();
            h.add(r);
        }
        QCOMPARE(h.runs().size(), 5);
        QCOMPARE(h.runs().first().script, QStringLiteral("return 7")); // newest first
        QCOMPARE(h.runs().last().script, QStringLiteral("return 3"));
        QVERIFY(QFile::exists(path));

        LuaHistory again(path, 5);
        QString error;
        QVERIFY2(again.load(&error), qPrintable(error));
        QCOMPARE(again.runs(), h.runs());
        QCOMPARE(again.runs().first().keys.first(),
                 QByteArray("k\x00"
                            "7",
                            3));
        QCOMPARE(again.runs().first().args, (QList<QByteArray>{"\xff\xfe", QByteArray()}));

        // A smaller limit on load keeps the newest.
        LuaHistory fewer(path, 2);
        QVERIFY(fewer.load());
        QCOMPARE(fewer.runs().size(), 2);
        QCOMPARE(fewer.runs().first().script, QStringLiteral("return 7"));

        QFile broken(dir.filePath(QStringLiteral("broken.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("not json");
        broken.close();
        LuaHistory bad(broken.fileName());
        QVERIFY(!bad.load(&error));
        QVERIFY(error.contains(QLatin1String("broken.json")));
        QVERIFY(bad.runs().isEmpty());
        // The damaged file is kept aside, whole, before the next run writes a new history.
        QVERIFY2(error.contains(QLatin1String("kept as")), qPrintable(error));
        const QStringList aside = QDir(dir.path()).entryList({QStringLiteral("broken.json.corrupt-*")});
        QCOMPARE(aside.size(), 1);
        QFile kept(dir.filePath(aside.first()));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("not json"));
        LuaRun next;
        next.script = QStringLiteral("return 1");
        QVERIFY(bad.add(next));
        LuaHistory reread(broken.fileName());
        QVERIFY(reread.load());
        QCOMPARE(reread.runs().size(), 1);
    }

    // KEYS and ARGV can be lock tokens: the file is its owner's alone, a failed save is said,
    // and the history can be kept without arguments (earlier runs' removed from the file too).
    void historyPrivateAndOptional()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.json"));
        // An older file readable by everyone becomes owner-only on the next save.
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write(R"({"version":1,"runs":[]})");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther
                                   | QFileDevice::ReadGroup));
        LuaHistory h(path);
        QVERIFY(h.load());
        LuaRun r;
        r.script = QStringLiteral("return redis.call('GET', KEYS[1])");
        r.keys = {"lock:invoice:1042"};
        r.args = {"token-fixture-3f1c9a0e"};
        QString error;
        QVERIFY2(h.add(r, &error), qPrintable(error));
        QCOMPARE(
            QFile::permissions(path)
                & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther),
            QFileDevice::Permissions());
        QVERIFY(QFile::permissions(path) & QFileDevice::ReadOwner);
        auto fileHas = [&path](const QByteArray &needle) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) && f.readAll().contains(needle);
        };
        QVERIFY(fileHas(QByteArray("token-fixture-3f1c9a0e").toBase64()));

        // Without arguments: this run's and the earlier ones' are gone from memory and file.
        h.setKeepArguments(false);
        QVERIFY(!fileHas(QByteArray("token-fixture-3f1c9a0e").toBase64()));
        QVERIFY(h.runs().first().args.isEmpty() && h.runs().first().keys.isEmpty());
        QCOMPARE(h.runs().first().script, r.script);
        QVERIFY(h.add(r));
        QVERIFY(!fileHas(QByteArray("token-fixture-3f1c9a0e").toBase64()));
        QVERIFY(!fileHas(QByteArray("lock:invoice:1042").toBase64()));
        QCOMPARE(h.runs().size(), 2);

        // A directory that cannot be written: add() says so, and the run stays in memory.
        const QString blocked = dir.filePath(QStringLiteral("blocked"));
        QVERIFY(QDir().mkpath(blocked));
        QVERIFY(QFile::setPermissions(blocked, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        if (QFileInfo(blocked).isWritable()) // root writes anywhere: make the target a directory
            QVERIFY(QDir().mkpath(blocked + QStringLiteral("/history.json")));
        LuaHistory failing(blocked + QStringLiteral("/history.json"));
        QVERIFY(!failing.add(r, &error));
        QVERIFY2(error.contains(QLatin1String("cannot write")), qPrintable(error));
        QCOMPARE(failing.runs().size(), 1);
        QFile::setPermissions(blocked, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }

    void historyDefaultPathIsAppData()
    {
        QVERIFY(
            LuaHistory::defaultPath().startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
    }
};

QTEST_GUILESS_MAIN(TestLuaResult)
#include "tst_luaresult.moc"
