// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QObject>
#include <QPushButton>
#include <QString>
#include <QTimer>
#include <QWidget>

// Answers the confirmation dialogs a panel opens (panelparts::confirm, a modal QMessageBox
// named "confirmation") while the action that asked waits in the dialog's own event loop:
// records what each one said and presses Yes or Cancel. Header-only, for GUI tests; lives as
// long as the test wants dialogs answered.
//
//     ConfirmationAnswerer answer(ConfirmationAnswerer::Reject);
//     panel.releaseSelected(token); // returns once the dialog was answered
//     QCOMPARE(answer.count(), 1);
class ConfirmationAnswerer : public QObject
{
public:
    enum Answer { Accept, Reject };

    explicit ConfirmationAnswerer(Answer answer) : m_answer(answer)
    {
        m_timer.setInterval(10);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { answerOpenDialog(); });
        m_timer.start();
    }

    void setAnswer(Answer answer) { m_answer = answer; }
    int count() const { return m_count; }
    // What the last dialog showed, and how.
    QString objectName() const { return m_objectName; } // "confirmation" from panelparts::confirm
    QString title() const { return m_title; }
    QString text() const { return m_text; }
    Qt::TextFormat textFormat() const { return m_format; }
    bool cancelWasDefault() const { return m_cancelDefault; }

private:
    void answerOpenDialog()
    {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        // Any modal message box, so that a test never waits forever on a dialog it did not expect.
        if (!box || !box->isVisible())
            return;
        ++m_count;
        m_objectName = box->objectName();
        m_title = box->windowTitle();
        m_text = box->text();
        m_format = box->textFormat();
        m_cancelDefault = box->defaultButton() == box->button(QMessageBox::Cancel);
        QAbstractButton *press = box->button(m_answer == Accept ? QMessageBox::Yes : QMessageBox::Cancel);
        if (press)
            press->click();
        else
            box->reject();
    }

    QTimer m_timer;
    Answer m_answer;
    int m_count = 0;
    QString m_objectName;
    QString m_title;
    QString m_text;
    Qt::TextFormat m_format = Qt::AutoText;
    bool m_cancelDefault = false;
};
