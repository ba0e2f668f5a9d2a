// SPDX-License-Identifier: GPL-3.0-or-later
#include "bulkdeletedialog.h"

#include "bytesescape.h"
#include "format.h"
#include "panelparts.h"
#include "scanbatch.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>

#include <algorithm>

namespace {
// Names shown in the dialog; the saved report has every name the run kept (BulkDelete::kNameLimit).
constexpr int kNamesShown = 500;
} // namespace

BulkDeleteDialog::BulkDeleteDialog(BulkDelete *bulk, const QString &where, const QByteArray &pattern, QWidget *parent)
    : QDialog(parent), m_bulk(bulk), m_where(where)
{
    setObjectName(QStringLiteral("bulkDeleteDialog"));
    setWindowTitle(tr("Delete keys matching a pattern"));
    resize(620, 520);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Keys of %1 whose names match a SCAN pattern (* ? [abc], \\xNN for any byte). "
                                "Count first: it only reads.")
                                 .arg(where),
                             this);
    intro->setTextFormat(Qt::PlainText);
    intro->setWordWrap(true);
    m_pattern = new QLineEdit(bytesescape::escape(pattern, false), this);
    m_pattern->setObjectName(QStringLiteral("pattern"));
    m_pattern->setPlaceholderText(QStringLiteral("cache:session:*"));
    m_count = new QPushButton(tr("&Count"), this);
    m_count->setObjectName(QStringLiteral("countButton"));
    auto *row = new QHBoxLayout;
    row->addWidget(m_pattern, 1);
    row->addWidget(m_count);
    m_summary = panelparts::statusLabel(QStringLiteral("summary"), tr("Nothing counted yet"), this);
    m_types = panelparts::statusLabel(QStringLiteral("types"), QString(), this);
    m_pace = panelparts::statusLabel(QStringLiteral("pace"), QString(), this);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setVisible(false);
    m_names = new QPlainTextEdit(this);
    m_names->setObjectName(QStringLiteral("names"));
    m_names->setReadOnly(true);
    m_names->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_delete = buttons->addButton(tr("&Delete…"), QDialogButtonBox::DestructiveRole);
    m_delete->setObjectName(QStringLiteral("deleteButton"));
    m_cancel = buttons->addButton(tr("C&ancel run"), QDialogButtonBox::ActionRole);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_save = buttons->addButton(tr("&Save report…"), QDialogButtonBox::ActionRole);
    m_save->setObjectName(QStringLiteral("saveButton"));
    for (QPushButton *b : {m_delete, m_cancel, m_save, m_count})
        b->setAutoDefault(false);
    layout->addWidget(intro);
    layout->addLayout(row);
    layout->addWidget(m_summary);
    layout->addWidget(m_types);
    layout->addWidget(m_pace);
    layout->addWidget(m_progress);
    layout->addWidget(m_names, 1);
    layout->addWidget(buttons);

    connect(m_count, &QPushButton::clicked, this, &BulkDeleteDialog::count);
    connect(m_pattern, &QLineEdit::returnPressed, this, &BulkDeleteDialog::count);
    connect(m_pattern, &QLineEdit::textChanged, this, &BulkDeleteDialog::updateButtons);
    connect(m_delete, &QPushButton::clicked, this, &BulkDeleteDialog::deleteMatching);
    connect(m_cancel, &QPushButton::clicked, m_bulk, &BulkDelete::cancel);
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Save report"), QStringLiteral("deleted-keys.txt"));
        QString error;
        if (!file.isEmpty() && !saveReport(file, &error))
            m_summary->setText(tr("Could not save the report: %1").arg(error));
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &BulkDeleteDialog::reject);
    connect(m_bulk, &BulkDelete::progressChanged, this, &BulkDeleteDialog::onProgress);
    connect(m_bulk, &BulkDelete::finished, this, &BulkDeleteDialog::onFinished);
    updateButtons();
}

std::optional<QByteArray> BulkDeleteDialog::pattern() const
{
    return bytesescape::unescape(m_pattern->text());
}

void BulkDeleteDialog::setPattern(const QByteArray &pattern)
{
    if (!m_bulk->isRunning())
        m_pattern->setText(bytesescape::escape(pattern, false));
}

void BulkDeleteDialog::count()
{
    QString error;
    const std::optional<QByteArray> p = bytesescape::unescape(m_pattern->text(), &error);
    if (!p) {
        m_summary->setText(tr("Cannot read that pattern: %1").arg(error));
        return;
    }
    m_haveCount = false;
    m_names->clear();
    m_types->clear();
    m_progress->setRange(0, 0); // SCAN MATCH cannot say how many there will be
    m_progress->setVisible(true);
    m_bulk->count(*p);
    updateButtons();
}

void BulkDeleteDialog::deleteMatching()
{
    const std::optional<QByteArray> p = pattern();
    if (!p || !m_haveCount || m_counted.pattern != *p || !m_bulk->refusal(*p).isEmpty())
        return;
    if (!panelparts::confirm(
            this, tr("Delete keys"),
            tr("UNLINK the %1 keys matching %2 in %3?\n\nThe keys are found again by a paced scan "
               "as they are deleted, so keys created since the count that match are deleted too; "
               "the report says how many.\nThis cannot be undone.")
                .arg(format::count(quint64(m_counted.matched)), bytesescape::quoteIfNeeded(p->left(256)), m_where)))
        return;
    m_names->clear();
    m_types->clear();
    m_progress->setRange(0, int(qMin<qint64>(m_counted.matched, std::numeric_limits<int>::max())));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_bulk->remove(*p);
    updateButtons();
}

void BulkDeleteDialog::onProgress(const BulkDeleteReport &report)
{
    present(report);
    if (report.stage == BulkDeleteReport::Stage::Deleting && m_progress->maximum() > 0)
        m_progress->setValue(int(qMin<qint64>(report.deleted, m_progress->maximum())));
}

void BulkDeleteDialog::onFinished(const BulkDeleteReport &report)
{
    present(report);
    m_progress->setVisible(false);
    if (report.stage == BulkDeleteReport::Stage::Counting) {
        m_haveCount = !report.cancelled && !report.error;
        m_counted = report;
    } else {
        m_haveCount = false; // a second delete counts again first
    }
    updateButtons();
}

void BulkDeleteDialog::present(const BulkDeleteReport &report)
{
    m_summary->setText(report.summary());
    QStringList types;
    for (auto it = report.byType.cbegin(); it != report.byType.cend(); ++it)
        types.append(QStringLiteral("%1 %2").arg(format::count(quint64(it.value())), keyTypeName(it.key())));
    m_types->setText(types.isEmpty() ? QString() : tr("By type: %1").arg(types.join(QStringLiteral(", "))));
    if (report.finished) {
        m_pace->clear(); // what it sent is told while it runs; at the end it sends nothing
    } else if (report.ceiling > 0 || report.commandsPerSecond > 0 || !report.paceReason.isEmpty()) {
        ScanProgress pace;
        pace.commandsPerSecond = report.commandsPerSecond;
        pace.ceiling = report.ceiling;
        pace.adaptive = !report.paceReason.isEmpty();
        pace.paceReason = report.paceReason;
        m_pace->setText(tr("Scan: %1").arg(format::scanPace(pace)));
    }
    if (report.finished) {
        // In byte order, as a listing reads best; the scan found them in hash order.
        QList<QByteArray> names = report.names;
        std::sort(names.begin(), names.end());
        QStringList lines;
        const qsizetype shown = qMin<qsizetype>(names.size(), kNamesShown);
        lines.reserve(shown + 1);
        for (qsizetype i = 0; i < shown; ++i)
            lines.append(bytesescape::escape(names.at(i)));
        if (report.matched > shown)
            lines.append(
                tr("… and %1 more (Save report lists them)").arg(format::count(quint64(report.matched - shown))));
        m_names->setPlainText(lines.join(QLatin1Char('\n')));
    }
}

void BulkDeleteDialog::updateButtons()
{
    const bool running = m_bulk->isRunning();
    const std::optional<QByteArray> p = pattern();
    const QString why = p ? m_bulk->refusal(*p) : tr("the pattern cannot be read");
    m_count->setEnabled(!running);
    m_pattern->setReadOnly(running);
    m_cancel->setEnabled(running);
    m_save->setEnabled(!running && m_bulk->report().finished);
    const bool counted = m_haveCount && p && m_counted.pattern == *p && m_counted.matched > 0;
    m_delete->setEnabled(!running && why.isEmpty() && counted);
    if (!why.isEmpty())
        m_delete->setToolTip(tr("Delete is off: %1").arg(why));
    else if (!counted)
        m_delete->setToolTip(tr("Count the keys of this pattern first"));
    else
        m_delete->setToolTip(tr("Delete the %1 keys counted").arg(format::count(quint64(m_counted.matched))));
}

QString BulkDeleteDialog::summaryText() const
{
    return m_summary->text();
}

QString BulkDeleteDialog::reportText() const
{
    const BulkDeleteReport &r = m_bulk->report();
    QStringList lines;
    lines << tr("# RedisLens: %1 of keys matching %2 in %3")
                 .arg(r.stage == BulkDeleteReport::Stage::Counting ? tr("count") : tr("deletion"),
                      bytesescape::quoteIfNeeded(r.pattern), m_where);
    lines << tr("# %1").arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    lines << QStringLiteral("# ") + r.summary();
    for (auto it = r.byType.cbegin(); it != r.byType.cend(); ++it)
        lines << QStringLiteral("# %1: %2").arg(keyTypeName(it.key())).arg(it.value());
    if (!r.namesComplete)
        lines << tr("# the first %1 names of %2").arg(r.names.size()).arg(r.matched);
    QList<QByteArray> names = r.names;
    std::sort(names.begin(), names.end());
    for (const QByteArray &name : std::as_const(names))
        lines << bytesescape::escape(name);
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

bool BulkDeleteDialog::saveReport(const QString &file, QString *error) const
{
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(reportText().toUtf8()) < 0 || !out.commit()) {
        if (error)
            *error = out.errorString();
        return false;
    }
    return true;
}

void BulkDeleteDialog::reject()
{
    // Closing while a run goes stops it; the UNLINKs already sent finish and are counted.
    if (m_bulk->isRunning())
        m_bulk->cancel();
    QDialog::reject();
}
