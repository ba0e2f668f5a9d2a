// SPDX-License-Identifier: GPL-3.0-or-later
#include "luaeditor.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <QSignalSpy>
#include <QSyntaxHighlighter>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

// The Lua editor on both kinds of build. With KSyntaxHighlighting, keywords and strings must
// actually get different formats; without it, the editor must be plain and say so. Either way
// the test fails when the build and the editor disagree.
namespace {

// The format the highlighter gave the character at 'column' of 'block' (default when none).
QTextCharFormat formatAt(const QTextBlock &block, int column)
{
    const QList<QTextLayout::FormatRange> ranges = block.layout()->formats();
    for (const QTextLayout::FormatRange &r : ranges) {
        if (column >= r.start && column < r.start + r.length)
            return r.format;
    }
    return {};
}

const QString kScript = QStringLiteral("local function f(key)\n"
                                       "    return \"a string\"\n"
                                       "end\n");

// "Noto Sans Mono: i 7.8, M 7.8, 0 7.8" for a failure message.
QString advances(const QFont &font)
{
    const QFontMetricsF fm(font);
    QString out = QFontInfo(font).family() + QLatin1Char(':');
    for (QChar c : {QLatin1Char('i'), QLatin1Char('M'), QLatin1Char('0')})
        out += QLatin1Char(' ') + c + QLatin1Char(' ') + QString::number(fm.horizontalAdvance(c));
    return out;
}

} // namespace

class TestLuaEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void buildAndStatusAgree()
    {
        LuaEditor editor;
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
        QVERIFY(LuaEditor::hasHighlighting());
        QVERIFY(editor.highlighter() != nullptr);
        QVERIFY2(LuaEditor::highlightingStatus().startsWith(QLatin1String("Lua highlighting: KSyntaxHighlighting 6.")),
                 qPrintable(LuaEditor::highlightingStatus()));
        QVERIFY(!editor.themeName().isEmpty());
#else
        QVERIFY(!LuaEditor::hasHighlighting());
        QVERIFY(editor.highlighter() == nullptr);
        QVERIFY(editor.findChild<QSyntaxHighlighter *>() == nullptr);
        QVERIFY(editor.document()->findChild<QSyntaxHighlighter *>() == nullptr);
        QCOMPARE(LuaEditor::highlightingStatus(),
                 QStringLiteral("Lua highlighting: not available at build time: plain editor"));
        QVERIFY(editor.themeName().isEmpty());
#endif
    }

    // What the reader sees: a narrow, a wide and a digit glyph take the same room in the face
    // the editor really draws with. (QFontInfo::fixedPitch() is no help: Qt reports it false for
    // Noto Sans Mono, a common monospace face.)
    void fontIsMonospace()
    {
        LuaEditor editor;
        editor.setPlainText(kScript);
        const QFont drawn = editor.document()->defaultFont();
        QCOMPARE(drawn.family(), editor.font().family());
        QVERIFY2(LuaEditor::isMonospace(drawn), qPrintable(advances(drawn)));
        QVERIFY2(LuaEditor::isMonospace(editor.font()), qPrintable(advances(editor.font())));
    }

    // A preferred face that is proportional (a platform theme mapping "monospace" to a sans) is
    // replaced by a monospace one, at the preferred size; a monospace one is kept.
    void proportionalFaceFallsBack()
    {
        QFont sans(QStringLiteral("DejaVu Sans"), 13);
        if (QFontInfo(sans).family() != QLatin1String("DejaVu Sans"))
            QSKIP("DejaVu Sans is not installed");
        QVERIFY2(!LuaEditor::isMonospace(sans), qPrintable(advances(sans)));
        const QFont chosen = LuaEditor::monospaceFont(sans);
        QVERIFY2(LuaEditor::isMonospace(chosen), qPrintable(advances(chosen)));
        QCOMPARE(chosen.pointSize(), 13);

        const QFont mono = LuaEditor::monospaceFont(QFont());
        QVERIFY2(LuaEditor::isMonospace(mono), qPrintable(advances(mono)));
        const QFont kept = LuaEditor::monospaceFont(chosen);
        QCOMPARE(QFontInfo(kept).family(), QFontInfo(chosen).family());
    }

    void keywordsAndStringsFormatted()
    {
        LuaEditor editor;
        editor.resize(600, 300);
        editor.show();
        editor.setPlainText(kScript);
        if (editor.highlighter())
            editor.highlighter()->rehighlight();
        const QTextBlock first = editor.document()->findBlockByNumber(0);
        const QTextBlock second = editor.document()->findBlockByNumber(1);
        const QTextCharFormat local = formatAt(first, 0);
        const QTextCharFormat function = formatAt(first, 6);
        const QTextCharFormat ret = formatAt(second, 4);
        const QTextCharFormat str = formatAt(second, 12);
        const QTextCharFormat plain = formatAt(first, 15); // "f"
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
        // Keywords look alike, strings differently, and both unlike an identifier.
        QVERIFY(local.hasProperty(QTextFormat::ForegroundBrush) || local.fontWeight() > QFont::Normal);
        QCOMPARE(function.foreground(), local.foreground());
        QCOMPARE(ret.foreground(), local.foreground());
        QVERIFY(str.hasProperty(QTextFormat::ForegroundBrush));
        QVERIFY(str.foreground() != local.foreground());
        QVERIFY(local != plain);
        QVERIFY(str != plain);
#else
        QVERIFY(first.layout()->formats().isEmpty());
        QVERIFY(second.layout()->formats().isEmpty());
        QCOMPARE(local, str);
        Q_UNUSED(function)
        Q_UNUSED(ret)
        Q_UNUSED(plain)
#endif
    }

    void themeFollowsPalette()
    {
        LuaEditor editor;
        QPalette light = editor.palette();
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        editor.setPalette(light);
        const QString lightTheme = editor.themeName();
        QPalette dark = light;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        editor.setPalette(dark);
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
        QVERIFY(!lightTheme.isEmpty());
        QVERIFY2(editor.themeName() != lightTheme, qPrintable(editor.themeName()));
#else
        QVERIFY(lightTheme.isEmpty());
        QVERIFY(editor.themeName().isEmpty());
#endif
    }

    void errorLineMarkedAndClearedOnEdit()
    {
        LuaEditor editor;
        editor.setPlainText(kScript);
        const int before = int(editor.extraSelections().size());
        editor.markErrorLine(2, QStringLiteral("attempt to index a nil value"));
        QCOMPARE(editor.errorLine(), 2);
        const QList<QTextEdit::ExtraSelection> selections = editor.extraSelections();
        QCOMPARE(int(selections.size()), before + 1);
        const QTextEdit::ExtraSelection &mark = selections.last();
        QCOMPARE(mark.cursor.blockNumber(), 1);
        QCOMPARE(mark.format.toolTip(), QStringLiteral("attempt to index a nil value"));
        QVERIFY(mark.format.background().color().red() > mark.format.background().color().green());
        // Re-highlighting is not an edit; typing is.
        if (editor.highlighter())
            editor.highlighter()->rehighlight();
        QCOMPARE(editor.errorLine(), 2);
        editor.moveCursor(QTextCursor::End);
        editor.insertPlainText(QStringLiteral("-- x"));
        QCOMPARE(editor.errorLine(), 0);
        QCOMPARE(int(editor.extraSelections().size()), before);
        // Lines outside the script are not marked.
        editor.markErrorLine(99, QStringLiteral("nowhere"));
        QCOMPARE(editor.errorLine(), 0);
    }

    void ctrlEnterAsksToRun()
    {
        LuaEditor editor;
        editor.setPlainText(QStringLiteral("return 1"));
        editor.show();
        QSignalSpy run(&editor, &LuaEditor::runRequested);
        QTest::keyClick(&editor, Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(run.count(), 1);
        QCOMPARE(editor.toPlainText(), QStringLiteral("return 1")); // no newline typed
        QTest::keyClick(&editor, Qt::Key_Return);
        QCOMPARE(run.count(), 1);
        QCOMPARE(editor.blockCount(), 2);
    }

    void gutterGrowsWithLines()
    {
        LuaEditor editor;
        editor.setPlainText(QStringLiteral("x"));
        const int small = editor.gutterWidth();
        QVERIFY(small > 0);
        editor.setPlainText(QStringLiteral("x\n").repeated(1500));
        QVERIFY(editor.gutterWidth() > small);
    }
};

QTEST_MAIN(TestLuaEditor)
#include "tst_luaeditor.moc"
