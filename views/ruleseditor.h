// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "patternrules.h"

#include <QList>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;
class QVBoxLayout;

// The user's pattern rules (rules.json in the config directory) as a table: glob, type, kind,
// parameters, note. Save writes the shared PatternRulesFile, which every panel follows. Edits
// made on disk show up live; if the table has unsaved edits then, a notice asks whether to
// take the file's version or keep the table's. A broken file is shown in red with its line,
// and the rules from before it broke stay in use.
class RulesEditor : public QWidget
{
    Q_OBJECT

public:
    explicit RulesEditor(QWidget *parent = nullptr);
    ~RulesEditor() override;

    // Not owned: the main window's one file object, shared with the panels.
    void setFile(PatternRulesFile *file);
    PatternRulesFile *file() const { return m_file; }

    PatternRulesModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *status() const { return m_status; }
    // "The file changed on disk: Reload / Keep mine", shown only then.
    QWidget *changedNotice() const { return m_notice; }
    // The table differs from what it was loaded from (or last saved).
    bool isModified() const;

    // The buttons, as a test presses them.
    void addRule();
    void removeSelectedRule();
    void moveSelectedRule(int delta);
    bool save();
    void reload(); // throws unsaved edits away and reads the file again
    void keepMine(); // dismisses the notice; the next Save writes the table over the file

Q_SIGNALS:
    void saved();

protected:
    void changeEvent(QEvent *event) override;

private:
    void onRulesChanged();
    void takeFileRules();
    void updateStatus();
    void buildNotice(QVBoxLayout *layout);
    void buildButtons(QVBoxLayout *layout);
    void styleNotice();
    void openLocation();
    void copyPath();

    QPointer<PatternRulesFile> m_file;
    PatternRulesModel *m_model;
    QList<PatternRule> m_baseline; // what the table was loaded from
    QTableView *m_view = nullptr;
    QLabel *m_status = nullptr;
    QWidget *m_notice = nullptr;
    QLabel *m_noticeText = nullptr;
    QString m_message; // the last action's outcome: "Saved 3 rules." / a refused edit
    bool m_messageIsError = false;
    bool m_writing = false; // our own save or reload: the file's signal is expected
    QList<QPushButton *> m_fileButtons; // need a file
};
