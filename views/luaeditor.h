// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPlainTextEdit>

class QSyntaxHighlighter;

// The console's Lua editor: monospace, line numbers, the current line tinted, and Lua
// colouring through KSyntaxHighlighting where it was available at build time (one Repository
// for the whole process; the theme follows the palette's lightness). Without it the editor
// works the same, uncoloured. Ctrl+Enter asks to run.
class LuaEditor : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit LuaEditor(QWidget *parent = nullptr);
    ~LuaEditor() override;

    // Whether this build has KSyntaxHighlighting, and one line for the about box.
    static bool hasHighlighting();
    static QString highlightingStatus();

    // The attached highlighter (nullptr in a plain build or without a Lua definition).
    QSyntaxHighlighter *highlighter() const { return m_highlighter; }
    // The KSyntaxHighlighting theme in use; empty in a plain build.
    QString themeName() const;

    // Marks a 1-based line as the place of an error (red tint, the message as its tooltip).
    // The mark goes away with the next edit.
    void markErrorLine(int line, const QString &message);
    void clearErrorLine();
    int errorLine() const { return m_errorLine; }
    QString errorMessage() const { return m_errorMessage; }

    int gutterWidth() const;

    // Whether 'i', 'M' and '0' advance alike in this font: what makes columns line up.
    static bool isMonospace(const QFont &font);
    // 'preferred' when it draws monospace, else a known monospace family or the Monospace style
    // hint at its size: fontconfig may answer the system's fixed font with a proportional face.
    static QFont monospaceFont(const QFont &preferred);

Q_SIGNALS:
    void runRequested();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    friend class LuaEditorGutter;
    void paintGutter(QPaintEvent *event);
    void updateGutterWidth();
    void updateGutter(const QRect &rect, int dy);
    void updateSelections();
    void applyTheme();

    QWidget *m_gutter;
    QSyntaxHighlighter *m_highlighter = nullptr;
    int m_errorLine = 0;
    QString m_errorMessage;
    QString m_markedText; // the text the mark belongs to
};
