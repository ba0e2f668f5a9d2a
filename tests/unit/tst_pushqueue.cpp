// SPDX-License-Identifier: GPL-3.0-or-later
#include "pushqueue.h"

#include <QTest>

class TestPushQueue : public QObject
{
    Q_OBJECT

    static RedisValue message(int n, int payload = 10)
    {
        return RedisValue::array({RedisValue::bulk("message"), RedisValue::bulk("ch"),
                                  RedisValue::bulk(QByteArray::number(n).leftJustified(payload, '.'))});
    }

private Q_SLOTS:
    // The consumer is told once per drain, however many messages arrive meanwhile.
    void toldOncePerTake()
    {
        PushQueue q;
        QVERIFY(q.push(message(1)));
        QVERIFY(!q.push(message(2)));
        QVERIFY(!q.push(message(3)));
        const PushQueue::Taken t = q.take();
        QCOMPARE(t.messages.size(), 3);
        QCOMPARE(t.dropped, 0);
        QCOMPARE(t.messages.at(0).at(2).bytes().left(1), QByteArray("1"));
        QVERIFY(q.take().messages.isEmpty());
        QVERIFY(q.push(message(4)));
    }

    // Over the count, the oldest go and are counted; the newest are kept.
    void countBoundDropsOldest()
    {
        PushQueue q;
        q.setBound(100, qint64(1) << 30);
        for (int i = 1; i <= 1000; ++i)
            q.push(message(i));
        const PushQueue::Taken t = q.take();
        QCOMPARE(t.messages.size(), 100);
        QCOMPARE(t.dropped, 900);
        QCOMPARE(t.messages.first().at(2).bytes().left(3), QByteArray("901"));
        QCOMPARE(t.messages.last().at(2).bytes().left(4), QByteArray("1000"));
        QCOMPARE(q.take().dropped, 0); // counted once
    }

    // Over the bytes, likewise; a message larger than the whole bound is still delivered alone.
    void byteBoundDropsOldest()
    {
        PushQueue q;
        const qint64 each = PushQueue::footprint(message(0, 1000));
        q.setBound(1000000, each * 10);
        for (int i = 0; i < 50; ++i)
            q.push(message(i, 1000));
        PushQueue::Taken t = q.take();
        QCOMPARE(t.messages.size(), 10);
        QCOMPARE(t.dropped, 40);
        q.push(message(7, 1 << 20));
        t = q.take();
        QCOMPARE(t.messages.size(), 1);
        QCOMPARE(t.messages.first().at(2).bytes().size(), 1 << 20);
    }

    // A tighter bound applies to what already waits.
    void tighterBoundTrimsAtOnce()
    {
        PushQueue q;
        for (int i = 0; i < 20; ++i)
            q.push(message(i));
        q.setBound(5, qint64(1) << 30);
        const PushQueue::Taken t = q.take();
        QCOMPARE(t.messages.size(), 5);
        QCOMPARE(t.dropped, 15);
    }
};

QTEST_APPLESS_MAIN(TestPushQueue)
#include "tst_pushqueue.moc"
