// SPDX-License-Identifier: GPL-3.0-or-later
#include "luaeditor.h"

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
        QVERIFY(editor.font().fixedPitch() || QFontInfo(editor.font()).fixedPitch());
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
