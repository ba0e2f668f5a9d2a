// SPDX-License-Identifier: GPL-3.0-or-later
// notify-keyspace-events as CONFIG GET gives it (Redis writes "AKE" for "KEA") and as people
// write it, the messages its channels carry (keys are bytes: ':' , spaces, NUL, invalid UTF-8),
// and how one interval's events per key add up.
#include "keyspaceevents.h"

#include <QTest>

using namespace keyspaceevents;

namespace {

RedisValue pmessage(const QByteArray &pattern, const QByteArray &channel, const QByteArray &payload)
{
    return RedisValue::array({RedisValue::bulk("pmessage"), RedisValue::bulk(pattern), RedisValue::bulk(channel),
                              RedisValue::bulk(payload)});
}

const Flag *flag(const Setting &s, char letter)
{
    for (const Flag &f : s.flags) {
        if (f.letter == letter)
            return &f;
    }
    return nullptr;
}

} // namespace

class TestKeyspaceEvents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void explain_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("publishes");
        QTest::addColumn<bool>("followable");
        QTest::addColumn<bool>("complete");
        QTest::addColumn<QByteArray>("suggested");
        QTest::addColumn<QString>("summaryHas");
        QTest::addColumn<QStringList>("missingHas");

        QTest::newRow("default: off") << QByteArray() << false << false << false << QByteArray("KA") << "off"
                                      << QStringList{"neither K nor E"};
        QTest::newRow("a channel, no class") << QByteArray("K") << false << false << false << QByteArray("KA")
                                             << "no event class" << QStringList{"(g)", "(x)", "(e)", "($)"};
        QTest::newRow("classes, no channel") << QByteArray("g$x") << false << false << false << QByteArray("KA")
                                             << "neither K nor E" << QStringList{"(K)"};
        // What CONFIG GET says after CONFIG SET notify-keyspace-events KEA.
        QTest::newRow("AKE") << QByteArray("AKE") << true << true << true << QByteArray("KEA") << "every change"
                             << QStringList{};
        QTest::newRow("KA") << QByteArray("KA") << true << true << true << QByteArray("KA") << "every change"
                            << QStringList{};
        // An application that listens for expirations only: kept, and the rest added.
        QTest::newRow("Ex") << QByteArray("Ex") << true << true << false << QByteArray("EA") << "partly on"
                            << QStringList{"(g)", "(e)", "($)", "new lists, sets, hashes, sorted sets, streams"};
        // New keys through 'n' instead of every type's commands (7.0+).
        QTest::newRow("n instead of the types")
            << QByteArray("g$xenK") << true << true << true << QByteArray("Kg$xen") << "every change" << QStringList{};
        QTest::newRow("n without strings") << QByteArray("Kgxen") << true << true << false << QByteArray("Kg$xen")
                                           << "a SET over a key" << QStringList{"($)"};
        QTest::newRow("some types") << QByteArray("Kg$hzxe") << true << true << false << QByteArray("KA")
                                    << "new lists, sets, streams" << QStringList{"(l, s, t)"};
        QTest::newRow("key misses only") << QByteArray("Km") << true << false << false << QByteArray("KAm")
                                         << "nothing the key browser can use" << QStringList{};
        QTest::newRow("A and more") << QByteArray("AKEnm") << true << true << true << QByteArray("KEAnm")
                                    << "every change" << QStringList{};
    }
    void explain()
    {
        QFETCH(QByteArray, value);
        QFETCH(bool, publishes);
        QFETCH(bool, followable);
        QFETCH(bool, complete);
        QFETCH(QByteArray, suggested);
        QFETCH(QString, summaryHas);
        QFETCH(QStringList, missingHas);

        const Setting s = keyspaceevents::explain(value);
        QCOMPARE(s.value, value);
        QCOMPARE(s.publishes, publishes);
        QCOMPARE(s.followable, followable);
        QCOMPARE(s.complete, complete);
        QCOMPARE(s.suggested, suggested);
        QVERIFY2(s.summary.contains(summaryHas), qPrintable(s.summary));
        QVERIFY2(!s.summary.contains(QLatin1Char('\n')), qPrintable(s.summary));
        const QString missing = s.missing.join(QLatin1Char('\n'));
        for (const QString &part : missingHas)
            QVERIFY2(missing.contains(part), qPrintable(missing));
        if (complete)
            QVERIFY(s.missing.isEmpty());
        else if (followable)
            QVERIFY(!s.missing.isEmpty());
        // The suggestion itself covers the browser, and keeps every class that was on.
        const Setting after = keyspaceevents::explain(s.suggested);
        QVERIFY2(after.complete, qPrintable(after.summary));
        QCOMPARE(after.classes & s.classes, s.classes);
    }

    void flags()
    {
        const Setting s = keyspaceevents::explain("AKE");
        // Every class the brief of the setting lists, each with a line of text.
        for (const char letter : QByteArray("KEAg$lshzxetdnm")) {
            const Flag *f = flag(s, letter);
            QVERIFY2(f, QByteArray(1, letter).constData());
            QVERIFY(!f->text.isEmpty());
        }
        QVERIFY(flag(s, 'K')->on);
        QVERIFY(flag(s, 'E')->on);
        QVERIFY(flag(s, 'A')->on);
        QVERIFY(flag(s, 'g')->on);
        QVERIFY(flag(s, 'd')->on); // A includes module events…
        QVERIFY(!flag(s, 'n')->on); // …and not new-key events nor key misses
        QVERIFY(!flag(s, 'm')->on);
        QVERIFY(!flag(s, 'm')->used);
        QVERIFY(flag(s, 'x')->used);
        QVERIFY(flag(s, 'n')->text.contains(QStringLiteral("not part of A")));
        // Redis 8's classes are listed when on, and a letter RedisLens does not know is named.
        QVERIFY(!flag(s, 'o'));
        const Setting newer = keyspaceevents::explain("KAocq");
        QVERIFY(flag(newer, 'o') && flag(newer, 'o')->on);
        QVERIFY(flag(newer, 'c') && flag(newer, 'c')->on);
        QCOMPARE(newer.unknownLetters, QByteArray("q"));
        QVERIFY(flag(newer, 'q'));
        QVERIFY(newer.complete);
    }

    void formatsAsRedisDoes()
    {
        QCOMPARE(formatClasses(parseClasses("KEA")), QByteArray("KEA"));
        QCOMPARE(formatClasses(parseClasses("xgK")), QByteArray("Kgx"));
        QCOMPARE(formatClasses(parseClasses("Kg$lshzxetd")), QByteArray("KA"));
        QCOMPARE(formatClasses(parseClasses("Kg$lshzxetn")), QByteArray("Kg$lshzxetn")); // no d: not A
    }

    void parseMessage_data()
    {
        QTest::addColumn<RedisValue>("message");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("db");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("event");

        QTest::newRow("keyspace") << pmessage("__keyspace@0__:*", "__keyspace@0__:user:1", "set") << true << 0
                                  << QByteArray("user:1") << QByteArray("set");
        QTest::newRow("colons and spaces") << pmessage("__keyspace@0__:*", "__keyspace@0__:a b::c: d:", "hset") << true
                                           << 0 << QByteArray("a b::c: d:") << QByteArray("hset");
        static const char raw[] = "\0\xff\n:__keyspace@1__:x";
        const QByteArray binary(raw, sizeof raw - 1);
        QTest::newRow("binary key") << pmessage("__keyspace@0__:*", "__keyspace@0__:" + binary, "del") << true << 0
                                    << binary << QByteArray("del");
        QTest::newRow("empty key") << pmessage("__keyspace@0__:*", "__keyspace@0__:", "set") << true << 0
                                   << QByteArray() << QByteArray("set");
        QTest::newRow("database 12") << pmessage("__keyspace@12__:*", "__keyspace@12__:k", "expire") << true << 12
                                     << QByteArray("k") << QByteArray("expire");
        QTest::newRow("keyevent") << pmessage("__keyevent@0__:*", "__keyevent@0__:expired", "session:9") << true << 0
                                  << QByteArray("session:9") << QByteArray("expired");
        QTest::newRow("keyevent, binary key") << pmessage("__keyevent@3__:*", "__keyevent@3__:rename_to", binary)
                                              << true << 3 << binary << QByteArray("rename_to");
        QTest::newRow("subscribed channel") << RedisValue::array(
            {RedisValue::bulk("message"), RedisValue::bulk("__keyspace@0__:k"), RedisValue::bulk("lpush")})
                                            << true << 0 << QByteArray("k") << QByteArray("lpush");
        QTest::newRow("not a keyspace channel")
            << pmessage("*", "orders", "hello") << false << 0 << QByteArray() << QByteArray();
        QTest::newRow("no database") << pmessage("*", "__keyspace@__:k", "set") << false << 0 << QByteArray()
                                     << QByteArray();
        QTest::newRow("one underscore") << pmessage("*", "__keyspace@0_:k", "set") << false << 0 << QByteArray()
                                        << QByteArray();
        QTest::newRow("subkey channel") << pmessage("*", "__subkeyspace@0__:k", "hset|1:f") << false << 0
                                        << QByteArray() << QByteArray();
        QTest::newRow("subscription reply") << RedisValue::array(
            {RedisValue::bulk("psubscribe"), RedisValue::bulk("__keyspace@0__:*"), RedisValue::integer(1)})
                                            << false << 0 << QByteArray() << QByteArray();
        QTest::newRow("not an array") << RedisValue::bulk("__keyspace@0__:k") << false << 0 << QByteArray()
                                      << QByteArray();
    }
    void parseMessage()
    {
        QFETCH(RedisValue, message);
        QFETCH(bool, valid);
        QFETCH(int, db);
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, event);
        const std::optional<KeyEvent> e = keyspaceevents::parseMessage(message);
        QCOMPARE(e.has_value(), valid);
        if (!valid)
            return;
        QCOMPARE(e->db, db);
        QCOMPARE(e->key, key);
        QCOMPARE(e->event, event);
    }

    void patterns()
    {
        QCOMPARE(keyspacePattern(0, {}), QByteArray("__keyspace@0__:*"));
        QCOMPARE(keyspacePattern(4, "user:*"), QByteArray("__keyspace@4__:user:*"));
        QCOMPARE(keyeventPattern(2), QByteArray("__keyevent@2__:*"));
    }

    void effects_data()
    {
        QTest::addColumn<QByteArray>("event");
        QTest::addColumn<int>("effect");
        for (const char *e : {"del", "expired", "evicted", "rename_from", "move_from"})
            QTest::newRow(e) << QByteArray(e) << int(Effect::Removed);
        for (const char *e : {"set", "new", "expire", "persist", "rename_to", "move_to", "copy_to", "restore",
                              "sortstore", "sinterstore", "zrangestore", "overwritten", "type_changed"})
            QTest::newRow(e) << QByteArray(e) << int(Effect::Written);
        for (const char *e : {"hset", "lpush", "sadd", "zadd", "xadd", "incrby", "append", "hexpired", "json.set"})
            QTest::newRow(e) << QByteArray(e) << int(Effect::Modified);
        QTest::newRow("keymiss") << QByteArray("keymiss") << int(Effect::None);
    }
    void effects()
    {
        QFETCH(QByteArray, event);
        QFETCH(int, effect);
        QCOMPARE(int(effectOf(event)), effect);
    }

    void coalesces()
    {
        Coalescer c;
        const auto add = [&c](const char *key, const char *event) { c.add({0, key, event}); };
        add("a", "set");
        add("a", "del"); // set, then deleted: gone
        add("b", "del");
        add("b", "hset"); // deleted, then written again: read it again
        add("c", "hset");
        add("c", "hset"); // changed twice: once
        add("d", "hset");
        add("d", "expire"); // its TTL changed
        add("e", "keymiss"); // a read: nothing
        add("from", "rename_from");
        add("to", "rename_to");
        QCOMPARE(c.size(), 6);
        const ChangeBatch batch = c.take();
        QCOMPARE(c.size(), 0);
        QCOMPARE(batch.removed.size(), 2);
        QCOMPARE(batch.removed.at(0).key, QByteArray("a"));
        QCOMPARE(batch.removed.at(0).event, QByteArray("del"));
        QCOMPARE(batch.removed.at(1).key, QByteArray("from"));
        QCOMPARE(batch.changed.size(), 4);
        QCOMPARE(batch.changed.at(0).key, QByteArray("b"));
        QCOMPARE(batch.changed.at(0).effect, Effect::Written);
        QCOMPARE(batch.changed.at(0).event, QByteArray("hset"));
        QCOMPARE(batch.changed.at(1).key, QByteArray("c"));
        QCOMPARE(batch.changed.at(1).effect, Effect::Modified);
        QCOMPARE(batch.changed.at(2).key, QByteArray("d"));
        QCOMPARE(batch.changed.at(2).effect, Effect::Written);
        QCOMPARE(batch.changed.at(3).key, QByteArray("to"));
        QCOMPARE(batch.changed.at(3).effect, Effect::Written);
        QVERIFY(c.take().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestKeyspaceEvents)
#include "tst_keyspaceevents.moc"
