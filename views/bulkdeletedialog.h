// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "bulkdelete.h"

#include <QDialog>

#include <optional>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

// Keys → Delete keys matching: a dry run first (Count: how many keys match, by type, and their
// names), then Delete, which asks once more naming the count, shows progress and can be
// cancelled, and ends with a report that can be saved. On a read-only connection the count
// works and Delete is off, saying why.
class BulkDeleteDialog : public QDialog
{
    Q_OBJECT
public:
    // 'where' names the database and connection ("database 0 of orders") in every question.
    BulkDeleteDialog(BulkDelete *bulk, const QString &where, const QByteArray &pattern, QWidget *parent = nullptr);

    // A new pattern for the next count (ignored while a run goes).
    void setPattern(const QByteArray &pattern);
    void count();
    void deleteMatching(); // asks first (panelparts::confirm)
    bool saveReport(const QString &file, QString *error = nullptr) const;
    QString summaryText() const;
    QString reportText() const;

protected:
    void reject() override;

private:
    void onProgress(const BulkDeleteReport &report);
    void onFinished(const BulkDeleteReport &report);
    void present(const BulkDeleteReport &report);
    void updateButtons();
    std::optional<QByteArray> pattern() const;

    BulkDelete *m_bulk;
    QString m_where;
    BulkDeleteReport m_counted; // the last dry run that finished
    bool m_haveCount = false;
    QLineEdit *m_pattern;
    QLabel *m_summary;
    QLabel *m_types;
    QLabel *m_pace;
    QPlainTextEdit *m_names;
    QProgressBar *m_progress;
    QPushButton *m_count;
    QPushButton *m_delete;
    QPushButton *m_cancel;
    QPushButton *m_save;
};
