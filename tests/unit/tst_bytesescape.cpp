// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytesescape.h"

#include <QRandomGenerator>
#include <QTest>

// The escape is the only way a key's bytes reach the screen and come back from it (copy a name,
// paste it into a command), so every byte sequence must survive the round trip exactly.
class TstBytesEscape : public QObject
{
    Q_OBJECT

private:
    static void verifyRoundTrip(const QByteArray &bytes)
    {
        for (const bool keepUtf8 : {true, false}) {
            const QString shown = bytesescape::escape(bytes, keepUtf8);
            QString error;
            const std::optional<QByteArray> back = bytesescape::unescape(shown, &error);
            QVERIFY2(back.has_value(),
                     qPrintable(QStringLiteral("%1 -> %2: %3").arg(QString::fromLatin1(bytes.toHex()), shown, error)));
            QCOMPARE(*back, bytes);
        }
        const QString quoted = bytesescape::quoteIfNeeded(bytes);
        QString error;
        const std::optional<QByteArray> back = bytesescape::unescape(quoted, &error);
        QVERIFY2(back.has_value(),
                 qPrintable(QStringLiteral("%1 -> %2: %3").arg(QString::fromLatin1(bytes.toHex()), quoted, error)));
        QCOMPARE(*back, bytes);
    }

    // Nothing that could change the layout of a line, or hide, reaches the screen unescaped.
    static bool isDisplaySafe(const QString &s)
    {
        for (const QChar c : s) {
            const char16_t u = c.unicode();
            if (u < 0x20 || (u >= 0x7f && u < 0xa0) || u == 0x2028 || u == 0x2029 || u == 0xfeff)
                return false;
        }
        return true;
    }

private Q_SLOTS:
    void everySingleByte()
    {
        for (int c = 0; c < 256; ++c) {
            const QByteArray b(1, char(c));
            verifyRoundTrip(b);
            if (QTest::currentTestFailed())
                QFAIL(qPrintable(QStringLiteral("byte %1").arg(c)));
            const QString plain = bytesescape::escape(b, false);
            QVERIFY(isDisplaySafe(plain));
            for (const QChar ch : plain)
                QVERIFY2(ch.unicode() >= 0x20 && ch.unicode() < 0x7f, qPrintable(plain));
            // A lone byte is never valid UTF-8 beyond ASCII, so both modes agree.
            QCOMPARE(bytesescape::escape(b, true), plain);
        }
    }

    void everyBytePair()
    {
        // All 65,536 two-byte sequences: covers every lead byte followed by every continuation.
        QByteArray b(2, '\0');
        for (int hi = 0; hi < 256; ++hi) {
            for (int lo = 0; lo < 256; ++lo) {
                b[0] = char(hi);
                b[1] = char(lo);
                const QString shown = bytesescape::escape(b);
                const std::optional<QByteArray> back = bytesescape::unescape(shown);
                if (!back || *back != b)
                    QFAIL(qPrintable(QStringLiteral("%1 -> %2").arg(QString::fromLatin1(b.toHex()), shown)));
                if (!isDisplaySafe(shown))
                    QFAIL(qPrintable(QStringLiteral("%1 shown unsafely").arg(QString::fromLatin1(b.toHex()))));
            }
        }
    }

    void allBytesAtOnce()
    {
        QByteArray all;
        for (int c = 0; c < 256; ++c)
            all += char(c);
        verifyRoundTrip(all);
        verifyRoundTrip(all + all);
    }

    void randomBytes()
    {
        // Fixed seed: a failure names a reproducible case. Mixes raw bytes with UTF-8 fragments
        // so that valid and broken sequences sit next to each other.
        QRandomGenerator rng(20240611);
        const QByteArray fragments[]
            = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\x91", "\xe2\x80\xa8",     "\\",   "\"",
               "\\x",      "\xc3",         "\xed\xa0\x80",     "\xf4\x90\x80\x80", "\\\"", "\"\\"};
        for (int round = 0; round < 3000; ++round) {
            QByteArray b;
            const int len = int(rng.bounded(40));
            for (int i = 0; i < len; ++i) {
                if (rng.bounded(4) == 0)
                    b += fragments[rng.bounded(int(std::size(fragments)))];
                else
                    b += char(rng.bounded(256));
            }
            verifyRoundTrip(b);
            if (QTest::currentTestFailed())
                QFAIL(qPrintable(QStringLiteral("round %1: %2").arg(round).arg(QString::fromLatin1(b.toHex()))));
            QVERIFY(isDisplaySafe(bytesescape::escape(b)));
        }
    }

    void escape_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("keepUtf8");
        QTest::addColumn<QString>("expected");

        QTest::newRow("empty") << QByteArray() << true << QString();
        QTest::newRow("ascii") << QByteArray("user:1000") << true << QStringLiteral("user:1000");
        QTest::newRow("nul") << QByteArray(1, '\0') << true << QStringLiteral("\\x00");
        QTest::newRow("nul inside") << QByteArrayLiteral("a\0b") << true << QStringLiteral("a\\x00b");
        QTest::newRow("newline") << QByteArray("line1\nline2\r\n") << true << QStringLiteral("line1\\nline2\\r\\n");
        QTest::newRow("tab bell backspace") << QByteArray("\t\a\b") << true << QStringLiteral("\\t\\a\\b");
        QTest::newRow("quotes") << QByteArray("say \"hi\"") << true << QStringLiteral("say \\\"hi\\\"");
        QTest::newRow("single quote") << QByteArray("it's") << true << QStringLiteral("it's");
        QTest::newRow("backslash") << QByteArray("a\\b") << true << QStringLiteral("a\\\\b");
        QTest::newRow("escape lookalike") << QByteArray("\\x41") << true << QStringLiteral("\\\\x41");
        QTest::newRow("del") << QByteArray("\x7f") << true << QStringLiteral("\\x7f");
        QTest::newRow("esc") << QByteArray("\x1b[31m") << true << QStringLiteral("\\x1b[31m");
        QTest::newRow("invalid utf8") << QByteArray("\xff\xfe\xfd") << true << QStringLiteral("\\xff\\xfe\\xfd");
        QTest::newRow("truncated utf8") << QByteArray("ab\xc3") << true << QStringLiteral("ab\\xc3");
        QTest::newRow("overlong nul") << QByteArray("\xc0\x80") << true << QStringLiteral("\\xc0\\x80");
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << true << QStringLiteral("\\xed\\xa0\\x80");
        QTest::newRow("past U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << true
                                       << QStringLiteral("\\xf4\\x90\\x80\\x80");
        QTest::newRow("stray continuation") << QByteArray("\x80"
                                                          "abc")
                                            << true << QStringLiteral("\\x80abc");
        QTest::newRow("latin1 e-acute") << QByteArray("caf\xe9") << true << QStringLiteral("caf\\xe9");
        QTest::newRow("utf8 kept") << QByteArray("caf\xc3\xa9") << true << QStringLiteral("caf\u00e9");
        QTest::newRow("utf8 escaped on request")
            << QByteArray("caf\xc3\xa9") << false << QStringLiteral("caf\\xc3\\xa9");
        QTest::newRow("cyrillic") << QByteArray("\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87") << true
                                  << QStringLiteral("\u043a\u043b\u044e\u0447");
        QTest::newRow("cjk") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac") << true << QStringLiteral("\u65e5\u672c");
        QTest::newRow("emoji") << QByteArray("\xf0\x9f\x94\x91") << true << QString::fromUtf8("\xf0\x9f\x94\x91");
        QTest::newRow("C1 control") << QByteArray("\xc2\x85") << true << QStringLiteral("\\xc2\\x85");
        QTest::newRow("line separator") << QByteArray("a\xe2\x80\xa8"
                                                      "b")
                                        << true << QStringLiteral("a\\xe2\\x80\\xa8b");
        QTest::newRow("bom") << QByteArray("\xef\xbb\xbf"
                                           "k")
                             << true << QStringLiteral("\\xef\\xbb\\xbfk");
        QTest::newRow("valid then invalid") << QByteArray("\xc3\xa9\xc3") << true << QStringLiteral("\u00e9\\xc3");
    }

    void escape()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, keepUtf8);
        QFETCH(QString, expected);
        QCOMPARE(bytesescape::escape(bytes, keepUtf8), expected);
        verifyRoundTrip(bytes);
    }

    void unescape_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QByteArray>("expected");

        QTest::newRow("empty") << QString() << QByteArray();
        QTest::newRow("empty quoted") << QStringLiteral("\"\"") << QByteArray();
        QTest::newRow("plain") << QStringLiteral("user:1") << QByteArray("user:1");
        QTest::newRow("hex lower") << QStringLiteral("\\x00\\xff") << QByteArrayLiteral("\0\xff");
        QTest::newRow("hex upper") << QStringLiteral("\\xAB\\xCd") << QByteArray("\xab\xcd");
        QTest::newRow("named escapes") << QStringLiteral("\\n\\r\\t\\a\\b\\\\\\\"\\'") << QByteArray("\n\r\t\a\b\\\"'");
        QTest::newRow("quoted") << QStringLiteral("\"with space\"") << QByteArray("with space");
        QTest::newRow("quoted ending in backslash") << QStringLiteral("\"a\\\\\"") << QByteArray("a\\");
        QTest::newRow("quoted ending in quote") << QStringLiteral("\"a\\\"\"") << QByteArray("a\"");
        QTest::newRow("quoted quote only") << QStringLiteral("\"\\\"\"") << QByteArray("\"");
        QTest::newRow("quote inside, unquoted") << QStringLiteral("a\"b") << QByteArray("a\"b");
        QTest::newRow("utf8 text") << QStringLiteral("caf\u00e9") << QByteArray("caf\xc3\xa9");
        QTest::newRow("mixed") << QStringLiteral("\u00e9\\xc3\\n") << QByteArray("\xc3\xa9\xc3\n");
    }

    void unescape()
    {
        QFETCH(QString, text);
        QFETCH(QByteArray, expected);
        QString error;
        const std::optional<QByteArray> got = bytesescape::unescape(text, &error);
        QVERIFY2(got.has_value(), qPrintable(error));
        QCOMPARE(*got, expected);
    }

    void unescapeRejects_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reasonContains");

        QTest::newRow("trailing backslash") << QStringLiteral("abc\\") << QStringLiteral("backslash");
        QTest::newRow("unknown escape") << QStringLiteral("a\\qb") << QStringLiteral("\\q");
        QTest::newRow("unknown escape u") << QStringLiteral("\\u00e9") << QStringLiteral("\\u");
        QTest::newRow("x without digits") << QStringLiteral("\\x") << QStringLiteral("two hex digits");
        QTest::newRow("x one digit at end") << QStringLiteral("\\x4") << QStringLiteral("two hex digits");
        QTest::newRow("x non-hex") << QStringLiteral("\\xzz") << QStringLiteral("two hex digits");
        QTest::newRow("x one digit then text") << QStringLiteral("\\x4g") << QStringLiteral("two hex digits");
        // QByteArray::toInt would take these as numbers; an escape is exactly two hex digits.
        QTest::newRow("x minus") << QStringLiteral("\\x-1") << QStringLiteral("two hex digits");
        QTest::newRow("x plus") << QStringLiteral("\\x+f") << QStringLiteral("two hex digits");
        QTest::newRow("x leading space") << QStringLiteral("\\x f") << QStringLiteral("two hex digits");
        QTest::newRow("x trailing space") << QStringLiteral("\\x1 ") << QStringLiteral("two hex digits");
        QTest::newRow("x 0x prefix") << QStringLiteral("\\x0x41") << QStringLiteral("two hex digits");
    }

    void unescapeRejects()
    {
        QFETCH(QString, text);
        QFETCH(QString, reasonContains);
        QString error;
        const std::optional<QByteArray> got = bytesescape::unescape(text, &error);
        QVERIFY2(
            !got.has_value(),
            qPrintable(QStringLiteral("accepted as %1").arg(QString::fromLatin1(got.value_or(QByteArray()).toHex()))));
        QVERIFY2(error.contains(reasonContains), qPrintable(error));
        QVERIFY(!bytesescape::unescape(text).has_value()); // no error pointer: still refused, no crash
    }

    void quoteIfNeeded_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");

        QTest::newRow("plain") << QByteArray("session:42") << QStringLiteral("session:42");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("\"\"");
        QTest::newRow("space") << QByteArray("a b") << QStringLiteral("\"a b\"");
        QTest::newRow("single quote") << QByteArray("it's") << QStringLiteral("\"it's\"");
        QTest::newRow("nul") << QByteArray(1, '\0') << QStringLiteral("\"\\x00\"");
        QTest::newRow("ends with backslash") << QByteArray("a\\") << QStringLiteral("\"a\\\\\"");
        QTest::newRow("ends with quote") << QByteArray("a\"") << QStringLiteral("\"a\\\"\"");
        QTest::newRow("only quote") << QByteArray("\"") << QStringLiteral("\"\\\"\"");
        QTest::newRow("readable utf-8") << QByteArray("caf\xc3\xa9:\xe2\x82\xac") << QStringLiteral("café:€");
        QTest::newRow("quotes around") << QByteArray("\"x\"") << QStringLiteral("\"\\\"x\\\"\"");
    }

    void quoteIfNeeded()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QCOMPARE(bytesescape::quoteIfNeeded(bytes), expected);
        verifyRoundTrip(bytes);
    }

    void longNames()
    {
        // 64 KB of every byte value, and 64 KB of readable UTF-8.
        QByteArray binary(64 * 1024, '\0');
        QRandomGenerator rng(7);
        for (char &c : binary)
            c = char(rng.bounded(256));
        verifyRoundTrip(binary);

        QByteArray text;
        while (text.size() < 64 * 1024)
            text += "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87:";
        const QString shown = bytesescape::escape(text);
        QVERIFY(!shown.contains(QLatin1Char('\\')));
        QVERIFY(shown.size() < text.size()); // kept as characters, not \x escapes
        verifyRoundTrip(text);
    }

    void elided()
    {
        QCOMPARE(bytesescape::escapeElided("short", 10), QStringLiteral("short"));
        const QByteArray big(100000, 'k');
        const QString shown = bytesescape::escapeElided(big, 60);
        QVERIFY(shown.size() < 100);
        QVERIFY2(shown.contains(QStringLiteral("99940 bytes")), qPrintable(shown));
        QVERIFY(shown.startsWith(QLatin1String("kkkk")));
        QVERIFY(shown.endsWith(QLatin1String("kkkk")));
    }

    void hexDump()
    {
        const QString dump = bytesescape::hexDump(QByteArrayLiteral("ABC\0\xff"
                                                                    "0123456789abcdef"));
        const QStringList lines = dump.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines.at(0),
                 QStringLiteral("00000000  41 42 43 00 ff 30 31 32  33 34 35 36 37 38 39 61  |ABC..0123456789a|"));
        QVERIFY2(lines.at(1).startsWith(QLatin1String("00000010  62 63 64 65 66 ")), qPrintable(lines.at(1)));
        QVERIFY2(lines.at(1).endsWith(QLatin1String("|bcdef|")), qPrintable(lines.at(1)));

        const QString cut = bytesescape::hexDump(QByteArray(100, 'x'), 32);
        QCOMPARE(cut.count(QLatin1Char('|')), 4);
        QVERIFY2(cut.contains(QStringLiteral("68 more bytes")), qPrintable(cut));
    }

    void validUtf8_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("valid");
        QTest::newRow("empty") << QByteArray() << true;
        QTest::newRow("ascii with nul") << QByteArrayLiteral("a\0b") << true;
        QTest::newRow("e-acute") << QByteArray("\xc3\xa9") << true;
        QTest::newRow("emoji") << QByteArray("\xf0\x9f\x94\x91") << true;
        QTest::newRow("truncated") << QByteArray("\xc3") << false;
        QTest::newRow("overlong") << QByteArray("\xc0\x80") << false;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false;
        QTest::newRow("too big") << QByteArray("\xf4\x90\x80\x80") << false;
        QTest::newRow("latin1") << QByteArray("\xe9t\xe9") << false;
    }

    void validUtf8()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, valid);
        QCOMPARE(bytesescape::isValidUtf8(bytes), valid);
    }
};

QTEST_GUILESS_MAIN(TstBytesEscape)
#include "tst_bytesescape.moc"
