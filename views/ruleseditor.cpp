// SPDX-License-Identifier: GPL-3.0-or-later
#include "ruleseditor.h"

#include "chartstyle.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace {

// Type and kind are picked from a list; the model takes the file's spellings (edit role).
class RuleDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        if (index.column() == PatternRulesModel::TypeColumn) {
            auto *box = new QComboBox(parent);
            for (KeyType t : patternRuleTypes())
                box->addItem(patternRuleTypeId(t), patternRuleTypeId(t));
            return box;
        }
        if (index.column() == PatternRulesModel::KindColumn) {
            auto *box = new QComboBox(parent);
            for (int k = 0; k < kPatternKindCount; ++k) {
                const auto kind = PatternKind(k);
                const QString id = QString::fromLatin1(patternKindId(kind));
                const QString name
                    = kind == PatternKind::Unknown ? RulesEditor::tr("not a pattern") : patternKindName(kind);
                box->addItem(name == id ? id : QStringLiteral("%1 — %2").arg(id, name), id);
            }
            // A rule that only says how to decode classifies nothing.
            box->addItem(RulesEditor::tr("decode only (no kind)"), QString::fromLatin1(PatternRulesModel::kDecodeOnly));
            box->setMaxVisibleItems(kPatternKindCount + 1);
            return box;
        }
        return QStyledItemDelegate::createEditor(parent, option, index);
    }

    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        if (auto *box = qobject_cast<QComboBox *>(editor)) {
            box->setCurrentIndex(qMax(0, box->findData(index.data(Qt::EditRole))));
            return;
        }
        QStyledItemDelegate::setEditorData(editor, index);
    }

    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        if (auto *box = qobject_cast<QComboBox *>(editor)) {
            model->setData(index, box->currentData(), Qt::EditRole);
            return;
        }
        QStyledItemDelegate::setModelData(editor, model, index);
    }
};

// "1 rule" / "3 rules": plain English, as no translation with plural forms ships yet.
QString rulesCount(int n)
{
    return n == 1 ? RulesEditor::tr("1 rule") : RulesEditor::tr("%1 rules").arg(n);
}

QString kindsHelp()
{
    QStringList lines;
    for (int k = 1; k < kPatternKindCount; ++k)
        lines.append(QString::fromLatin1(patternKindId(PatternKind(k))) + QStringLiteral(" — ")
                     + patternKindName(PatternKind(k)));
    lines.append(QStringLiteral("none — not a pattern (stops the built-in guesses)"));
    lines.append(QStringLiteral("decode only — no kind: the rule only decodes values (its Decode column)"));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

RulesEditor::RulesEditor(QWidget *parent) : QWidget(parent), m_model(new PatternRulesModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0); // the page or dialog around it has its own
    auto *intro = new QLabel(tr("Your rules decide before the built-in recognition: the first rule whose glob (as in "
                                "SCAN MATCH, \\xHH for bytes) and type match a key gives its kind; the first that "
                                "names Decode steps (base64, gzip, json…) decodes its values in the value viewer "
                                "and in redislens show value. Double-click a cell to edit it."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    buildNotice(layout);

    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setItemDelegate(new RuleDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                            | QAbstractItemView::SelectedClicked);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(PatternRulesModel::GlobColumn, 200);
    m_view->setColumnWidth(PatternRulesModel::TypeColumn, 70);
    m_view->setColumnWidth(PatternRulesModel::KindColumn, 200);
    m_view->setColumnWidth(PatternRulesModel::ParamsColumn, 200);
    m_view->setColumnWidth(PatternRulesModel::DecodeColumn, 160);
    layout->addWidget(m_view, 1);

    buildButtons(layout);

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    auto *help = new QLabel(
        tr("<b>Kinds</b> (hover for names): %1.<br><b>Parameters</b>, as name=value separated by commas: rate limits "
           "(fixed-window, sliding-window) <tt>limit=100, window_ms=60000</tt>; token buckets "
           "<tt>capacity=20, refill_per_sec=5</tt>; session indexes <tt>session_prefix=\"session:\"</tt>. "
           "Other names are kept but not read (see docs/rules.md).")
            .arg([] {
                QStringList ids;
                for (int k = 1; k < kPatternKindCount; ++k)
                    ids.append(QString::fromLatin1(patternKindId(PatternKind(k))));
                ids.append(QStringLiteral("none"));
                return ids.join(QStringLiteral(", "));
            }()),
        this);
    help->setWordWrap(true);
    help->setTextFormat(Qt::RichText);
    help->setToolTip(kindsHelp());
    layout->addWidget(help);

    const auto edited = [this] { updateStatus(); };
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this] {
        m_message.clear();
        updateStatus();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, edited);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, edited);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, edited);
    connect(m_model, &PatternRulesModel::editRefused, this, [this](const QString &why) {
        m_message = tr("Not changed: %1").arg(why);
        m_messageIsError = true;
        updateStatus();
    });
    updateStatus();
}

RulesEditor::~RulesEditor() = default;

// The notice bar for a file that changed on disk while the table has unsaved edits.
void RulesEditor::buildNotice(QVBoxLayout *layout)
{
    m_notice = new QWidget(this);
    m_notice->setAutoFillBackground(true);
    auto *noticeLayout = new QHBoxLayout(m_notice);
    noticeLayout->setContentsMargins(6, 4, 6, 4);
    m_noticeText = new QLabel(tr("The file changed on disk while you were editing."), m_notice);
    m_noticeText->setWordWrap(true);
    noticeLayout->addWidget(m_noticeText, 1);
    auto *reloadNotice = new QPushButton(tr("Reload"), m_notice);
    reloadNotice->setToolTip(tr("Show the file's rules; your unsaved edits are lost"));
    connect(reloadNotice, &QPushButton::clicked, this, &RulesEditor::reload);
    noticeLayout->addWidget(reloadNotice);
    auto *keep = new QPushButton(tr("Keep mine"), m_notice);
    keep->setToolTip(tr("Keep editing; Save writes the table over the file"));
    connect(keep, &QPushButton::clicked, this, &RulesEditor::keepMine);
    noticeLayout->addWidget(keep);
    m_notice->hide();
    styleNotice();
    layout->addWidget(m_notice);
}

// Editing the table, then the rules file's own actions.
void RulesEditor::buildButtons(QVBoxLayout *layout)
{
    auto *buttons = new QHBoxLayout;
    const auto button = [&](const QString &text, const QString &tip, auto slot) {
        auto *b = new QPushButton(text, this);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, slot);
        buttons->addWidget(b);
        return b;
    };
    button(tr("Add"), tr("A new rule at the end"), [this] { addRule(); });
    button(tr("Remove"), tr("Remove the selected rule"), [this] { removeSelectedRule(); });
    button(tr("Move up"), tr("Earlier rules win"), [this] { moveSelectedRule(-1); });
    button(tr("Move down"), tr("Earlier rules win"), [this] { moveSelectedRule(1); });
    buttons->addStretch();
    m_fileButtons.append(
        button(tr("Open file location"), tr("Show the folder of the rules file"), [this] { openLocation(); }));
    m_fileButtons.append(button(tr("Copy path"), tr("Copy the rules file's path"), [this] { copyPath(); }));
    m_fileButtons.append(button(tr("Reload"), tr("Read the file again; unsaved edits are lost"), [this] { reload(); }));
    m_fileButtons.append(
        button(tr("Save"), tr("Write the rules file; every panel follows at once"), [this] { save(); }));
    layout->addLayout(buttons);
}

void RulesEditor::setFile(PatternRulesFile *file)
{
    if (m_file)
        disconnect(m_file, nullptr, this, nullptr);
    m_file = file;
    if (m_file) {
        connect(m_file, &PatternRulesFile::rulesChanged, this, &RulesEditor::onRulesChanged);
        connect(m_file, &PatternRulesFile::loadFailed, this, [this] { updateStatus(); });
    }
    m_message.clear();
    takeFileRules();
}

bool RulesEditor::isModified() const
{
    return m_model->rules() != m_baseline;
}

void RulesEditor::takeFileRules()
{
    m_baseline = m_file ? m_file->rules().rules() : QList<PatternRule>();
    m_model->setRules(m_baseline);
    m_notice->hide();
    updateStatus();
}

void RulesEditor::onRulesChanged()
{
    if (m_writing)
        return;
    if (!isModified()) {
        takeFileRules();
        return;
    }
    if (m_file->rules().rules() != m_baseline) {
        m_noticeText->setText(tr("<b>%1 changed on disk</b> while you have unsaved edits here.")
                                  .arg(QFileInfo(m_file->path()).fileName().toHtmlEscaped()));
        m_notice->show();
    }
    updateStatus();
}

void RulesEditor::addRule()
{
    m_model->addRule({"myapp:*", KeyType::Unknown, PatternKind::Unknown, {}, {}, 0});
    const QModelIndex glob = m_model->index(m_model->rowCount() - 1, PatternRulesModel::GlobColumn);
    m_view->selectRow(glob.row());
    m_view->scrollTo(glob);
    if (m_view->isVisible())
        m_view->edit(glob);
}

void RulesEditor::removeSelectedRule()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (!rows.isEmpty())
        m_model->removeRuleAt(rows.first().row());
}

void RulesEditor::moveSelectedRule(int delta)
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const int row = rows.first().row();
    m_model->moveRule(row, delta);
    m_view->selectRow(qBound(0, row + delta, m_model->rowCount() - 1));
}

bool RulesEditor::save()
{
    if (!m_file) {
        m_message = tr("No rules file is set.");
        m_messageIsError = true;
        updateStatus();
        return false;
    }
    // An open cell editor holds the last keystrokes.
    if (QWidget *editor = m_view->indexWidget(m_view->currentIndex()))
        Q_EMIT m_view->itemDelegate()->commitData(editor);
    QString error;
    m_writing = true;
    const bool ok = m_file->save(m_model->rules(), &error);
    m_writing = false;
    if (!ok) {
        // The file's own error is on the line above already.
        m_message = m_file->lastError().isEmpty() ? error
                                                  : tr("Not saved: fix the file's error above, or remove the file, "
                                                       "then save again.");
        m_messageIsError = true;
        updateStatus();
        return false;
    }
    m_baseline = m_model->rules();
    m_notice->hide();
    m_message = tr("Saved %1.").arg(rulesCount(int(m_baseline.size())));
    m_messageIsError = false;
    updateStatus();
    Q_EMIT saved();
    return true;
}

void RulesEditor::reload()
{
    if (!m_file)
        return;
    m_writing = true;
    m_file->reload();
    m_writing = false;
    m_message.clear();
    takeFileRules();
}

void RulesEditor::keepMine()
{
    // Compare later changes with what is on disk now, so this notice does not come back for it.
    if (m_file)
        m_baseline = m_file->rules().rules();
    m_notice->hide();
    updateStatus();
}

void RulesEditor::openLocation()
{
    if (m_file)
        QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(m_file->path()).absolutePath()));
}

void RulesEditor::copyPath()
{
    if (m_file)
        QApplication::clipboard()->setText(QDir::toNativeSeparators(QFileInfo(m_file->path()).absoluteFilePath()));
}

void RulesEditor::styleNotice()
{
    // A warning tint over the window colour: stands out in light and dark themes alike.
    QPalette p = palette();
    const QColor base = p.color(QPalette::Window);
    const QColor tint = chartstyle::warning(p);
    const auto mix = [](int a, int b) { return (a * 3 + b) / 4; };
    p.setColor(QPalette::Window,
               QColor(mix(base.red(), tint.red()), mix(base.green(), tint.green()), mix(base.blue(), tint.blue())));
    m_notice->setPalette(p);
}

void RulesEditor::updateStatus()
{
    for (QPushButton *b : std::as_const(m_fileButtons))
        b->setEnabled(m_file != nullptr);
    if (!m_file) {
        m_status->setText(tr("No rules file."));
        return;
    }
    const QString red = chartstyle::bad(palette()).name();
    const QString path = QDir::toNativeSeparators(QFileInfo(m_file->path()).absoluteFilePath());
    QStringList lines;
    QString state;
    const int inUse = int(m_file->rules().rules().size());
    if (!QFileInfo::exists(m_file->path()))
        state = tr("no file yet; Save creates it");
    else
        state = tr("%1 in use").arg(rulesCount(inUse));
    if (isModified())
        state += tr(" · unsaved edits");
    lines.append(tr("<b>Rules file:</b> %1 · %2").arg(path.toHtmlEscaped(), state));
    if (!m_file->lastError().isEmpty()) {
        // The error names the path already; the line and the reason are what matter here.
        QString error = m_file->lastError();
        if (error.startsWith(path))
            error = error.mid(path.size()).trimmed();
        lines.append(QStringLiteral("<span style=\"color:%1\"><b>%2</b> — %3</span>")
                         .arg(red, error.toHtmlEscaped(),
                              inUse == 1 ? tr("the previous rule is still in use")
                                         : tr("the previous %1 are still in use").arg(rulesCount(inUse))));
    }
    if (!m_message.isEmpty()) {
        lines.append(m_messageIsError
                         ? QStringLiteral("<span style=\"color:%1\">%2</span>").arg(red, m_message.toHtmlEscaped())
                         : m_message.toHtmlEscaped());
    }
    m_status->setText(lines.join(QStringLiteral("<br>")));
}

void RulesEditor::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        updateStatus(); // the error's red follows the theme
        styleNotice();
    }
    QWidget::changeEvent(event);
}
