// SPDX-License-Identifier: GPL-3.0-or-later
#include "luaeditor.h"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QToolTip>

#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#include <QVersionNumber>
#include <ksyntaxhighlighting_version.h>

namespace {
// Loading the definitions and themes reads hundreds of files: once per process.
KSyntaxHighlighting::Repository &repository()
{
    static KSyntaxHighlighting::Repository repo;
    return repo;
}
} // namespace
#endif

class LuaEditorGutter : public QWidget
{
public:
    explicit LuaEditorGutter(LuaEditor *editor) : QWidget(editor), m_editor(editor) { }
    QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent *event) override { m_editor->paintGutter(event); }

private:
    LuaEditor *m_editor;
};

namespace {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

} // namespace

bool LuaEditor::isMonospace(const QFont &font)
{
    const QFontMetricsF fm(font);
    const qreal narrow = fm.horizontalAdvance(QLatin1Char('i'));
    return narrow > 0 && qFuzzyCompare(narrow, fm.horizontalAdvance(QLatin1Char('M')))
        && qFuzzyCompare(narrow, fm.horizontalAdvance(QLatin1Char('0')));
}

QFont LuaEditor::monospaceFont(const QFont &preferred)
{
    // Measured, not asked: QFontInfo::fixedPitch() is false for some monospace faces (Noto
    // Sans Mono), and a minimal or offscreen platform theme may name a fixed font that
    // fontconfig resolves to a proportional one.
    if (isMonospace(preferred))
        return preferred;
    const auto sized = [&preferred](QFont font) {
        if (preferred.pixelSize() > 0)
            font.setPixelSize(preferred.pixelSize());
        else if (preferred.pointSizeF() > 0)
            font.setPointSizeF(preferred.pointSizeF());
        return font;
    };
    // Families that are monospace wherever they are installed; the common Linux ones first.
    static const char *const kFamilies[]
        = {"DejaVu Sans Mono", "Noto Sans Mono", "Liberation Mono", "Ubuntu Mono", "Source Code Pro", "Hack",
           "Cascadia Mono",    "Consolas",       "Menlo",           "Courier New"};
    const QStringList installed = QFontDatabase::families();
    for (const char *family : kFamilies) {
        const QString name = QString::fromLatin1(family);
        if (!installed.contains(name))
            continue;
        const QFont font = sized(QFont(name));
        if (isMonospace(font))
            return font;
    }
    // None of them: let the font matcher pick by style.
    QFont hinted = sized(QFont(QStringLiteral("monospace")));
    hinted.setStyleHint(QFont::TypeWriter);
    hinted.setFixedPitch(true);
    return hinted;
}

LuaEditor::LuaEditor(QWidget *parent) : QPlainTextEdit(parent), m_gutter(new LuaEditorGutter(this))
{
    setFont(monospaceFont(QFontDatabase::systemFont(QFontDatabase::FixedFont)));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 4);
    document()->setDocumentMargin(6);
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
    const KSyntaxHighlighting::Definition lua = repository().definitionForName(QStringLiteral("Lua"));
    if (lua.isValid()) {
        auto *h = new KSyntaxHighlighting::SyntaxHighlighter(document());
        h->setDefinition(lua);
        m_highlighter = h;
    }
#endif
    connect(this, &QPlainTextEdit::blockCountChanged, this, &LuaEditor::updateGutterWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &LuaEditor::updateGutter);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, &LuaEditor::updateSelections);
    connect(document(), &QTextDocument::contentsChanged, this, [this] {
        // Highlighting re-formats blocks and reports that as a change too (with a new revision on
        // some Qt versions); only a change of the text clears the mark. Scripts are short.
        if (m_errorLine > 0 && toPlainText() != m_markedText)
            clearErrorLine();
    });
    updateGutterWidth();
    applyTheme();
}

LuaEditor::~LuaEditor() = default;

bool LuaEditor::hasHighlighting()
{
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
    return true;
#else
    return false;
#endif
}

QString LuaEditor::highlightingStatus()
{
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
    const QVersionNumber v = QVersionNumber::fromString(QStringLiteral(KSYNTAXHIGHLIGHTING_VERSION_STRING));
    return tr("Lua highlighting: KSyntaxHighlighting %1")
        .arg(QVersionNumber(v.majorVersion(), v.minorVersion()).toString());
#else
    return tr("Lua highlighting: not available at build time: plain editor");
#endif
}

QString LuaEditor::themeName() const
{
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
    if (auto *h = dynamic_cast<KSyntaxHighlighting::SyntaxHighlighter *>(m_highlighter))
        return h->theme().name();
#endif
    return {};
}

void LuaEditor::applyTheme()
{
#ifdef REDISLENS_HAVE_KSYNTAXHIGHLIGHTING
    if (auto *h = dynamic_cast<KSyntaxHighlighting::SyntaxHighlighter *>(m_highlighter)) {
        const auto which = isDark(palette()) ? KSyntaxHighlighting::Repository::DarkTheme
                                             : KSyntaxHighlighting::Repository::LightTheme;
        const KSyntaxHighlighting::Theme theme = repository().defaultTheme(which);
        if (theme.name() != h->theme().name()) {
            h->setTheme(theme);
            h->rehighlight();
        }
    }
#endif
    updateSelections();
    m_gutter->update();
}

int LuaEditor::gutterWidth() const
{
    int digits = 2;
    for (int n = qMax(1, blockCount()); n >= 100; n /= 10)
        ++digits;
    return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void LuaEditor::updateGutterWidth()
{
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

void LuaEditor::updateGutter(const QRect &rect, int dy)
{
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    if (rect.contains(viewport()->rect()))
        updateGutterWidth();
}

void LuaEditor::resizeEvent(QResizeEvent *event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void LuaEditor::changeEvent(QEvent *event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
    else if (event->type() == QEvent::FontChange)
        updateGutterWidth();
}

void LuaEditor::keyPressEvent(QKeyEvent *event)
{
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)
        && (event->modifiers() & Qt::ControlModifier)) {
        Q_EMIT runRequested();
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

bool LuaEditor::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_errorLine > 0) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (cursorForPosition(help->pos()).blockNumber() + 1 == m_errorLine) {
            QToolTip::showText(help->globalPos(), m_errorMessage, viewport());
            return true;
        }
        QToolTip::hideText();
    }
    return QPlainTextEdit::viewportEvent(event);
}

void LuaEditor::markErrorLine(int line, const QString &message)
{
    m_errorLine = (line >= 1 && line <= blockCount()) ? line : 0;
    m_errorMessage = m_errorLine ? message : QString();
    m_markedText = toPlainText();
    if (m_errorLine) {
        // Show the line, without moving the user's cursor when it is already visible.
        const QTextBlock block = document()->findBlockByNumber(m_errorLine - 1);
        QTextCursor c(block);
        if (!blockBoundingGeometry(block).translated(contentOffset()).intersects(viewport()->rect()))
            setTextCursor(c);
    }
    updateSelections();
    m_gutter->update();
}

void LuaEditor::clearErrorLine()
{
    if (m_errorLine == 0)
        return;
    m_errorLine = 0;
    m_errorMessage.clear();
    m_markedText.clear();
    updateSelections();
    m_gutter->update();
}

void LuaEditor::updateSelections()
{
    QList<QTextEdit::ExtraSelection> selections;
    const QColor base = palette().color(QPalette::Base);
    const QColor highlight = palette().color(QPalette::Highlight);
    QTextEdit::ExtraSelection current;
    // A faint tint of the selection colour, readable on light and dark bases alike.
    QColor tint = highlight;
    tint.setAlpha(isDark(palette()) ? 60 : 35);
    current.format.setBackground(tint);
    current.format.setProperty(QTextFormat::FullWidthSelection, true);
    current.cursor = textCursor();
    current.cursor.clearSelection();
    selections.append(current);
    if (m_errorLine > 0) {
        QTextEdit::ExtraSelection error;
        QColor red(isDark(palette()) ? QColor(200, 60, 60) : QColor(230, 80, 80));
        red.setAlpha(isDark(palette()) ? 110 : 70);
        error.format.setBackground(red);
        error.format.setProperty(QTextFormat::FullWidthSelection, true);
        error.format.setToolTip(m_errorMessage);
        error.cursor = QTextCursor(document()->findBlockByNumber(m_errorLine - 1));
        selections.append(error);
    }
    Q_UNUSED(base)
    setExtraSelections(selections);
}

void LuaEditor::paintGutter(QPaintEvent *event)
{
    QPainter p(m_gutter);
    const QPalette pal = palette();
    // The window colour sets the numbers apart from the text on light and dark palettes alike.
    p.fillRect(event->rect(), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(m_gutter->width() - 1, event->rect().top(), m_gutter->width() - 1, event->rect().bottom());
    p.setFont(font());
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int current = textCursor().blockNumber();
    const int w = m_gutter->width() - 6;
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            const int number = block.blockNumber() + 1;
            QColor c = pal.color(QPalette::PlaceholderText);
            if (number == m_errorLine)
                c = QColor(220, 50, 50);
            else if (block.blockNumber() == current)
                c = pal.color(QPalette::Text);
            p.setPen(c);
            p.drawText(0, top, w, fontMetrics().height(), Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}
