// SPDX-License-Identifier: GPL-3.0-or-later
#include "output.h"

#include <QRandomGenerator>
#include <QTemporaryFile>
#include <QTest>

#include <csignal>
#include <unistd.h>

// Output is what every `redislens show` record goes through: whatever is appended, in whatever
// sizes, must reach the descriptor byte for byte and in order.
class TstOutput : public QObject
{
    Q_OBJECT

private:
    // Appends the pieces through a fresh Output on a temporary file and returns what the file holds.
    static QByteArray written(const QList<QByteArray> &pieces, bool viaChar = false)
    {
        QTemporaryFile file;
        if (!file.open())
            return "<no temporary file>";
        {
            Output out(file.handle());
            for (const QByteArray &piece : pieces) {
                if (viaChar) {
                    for (const char c : piece)
                        out.append(c);
                } else {
                    out.append(QByteArrayView(piece));
                }
            }
        }
        file.seek(0);
        return file.readAll();
    }

private Q_SLOTS:
    void emptyViewsWriteNothing()
    {
        // A default QByteArrayView and a null QByteArray carry a null pointer; an empty one may too.
        QTemporaryFile file;
        QVERIFY(file.open());
        {
            Output out(file.handle());
            out.append(QByteArrayView());
            out.append(QByteArrayView(QByteArray()));
            out.append("a");
            out.append(QByteArrayView());
            out.append("b");
        }
        file.seek(0);
        QCOMPARE(file.readAll(), QByteArray("ab"));
    }

    void piecesAroundTheBlockSizeArriveInOrder_data()
    {
        QTest::addColumn<QList<int>>("sizes");
        const int block = int(Output::kBlock);
        QTest::newRow("small") << QList<int>{1, 2, 3, 0, 5};
        QTest::newRow("fills the block exactly") << QList<int>{block - 10, 10, 1};
        QTest::newRow("one over the block") << QList<int>{block - 10, 11, 1};
        QTest::newRow("a whole block") << QList<int>{block, 1};
        QTest::newRow("several blocks at once") << QList<int>{7, 3 * block + 5, 9};
        QTest::newRow("after a partial block") << QList<int>{block / 2, block - 1, block / 2 + 3};
    }
    void piecesAroundTheBlockSizeArriveInOrder()
    {
        QFETCH(QList<int>, sizes);
        QList<QByteArray> pieces;
        QByteArray expected;
        auto *random = QRandomGenerator::global();
        for (const int size : sizes) {
            QByteArray piece(size, Qt::Uninitialized);
            for (char &c : piece)
                c = char(random->bounded(256));
            pieces.append(piece);
            expected += piece;
        }
        QCOMPARE(written(pieces), expected);
    }

    void charAppendsCrossBlocks()
    {
        const QByteArray many(int(Output::kBlock) * 2 + 17, 'x');
        QCOMPARE(written({many}, true), many);
    }

    void aClosedPipeIsAFailureNotACrash()
    {
        std::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        ::close(fds[0]);
        {
            Output out(fds[1]);
            QVERIFY(!out.failed());
            out.append(QByteArray(int(Output::kBlock) + 1, 'y'));
            out.flush();
            QVERIFY(out.failed());
            out.append("more"); // ignored once failed, still no crash
        }
        ::close(fds[1]);
    }
};

QTEST_GUILESS_MAIN(TstOutput)
#include "tst_output.moc"
