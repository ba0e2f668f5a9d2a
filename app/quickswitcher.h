// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QLabel;
class QLineEdit;
class QListWidget;

// Ctrl+K: a small popup that jumps to a panel by name or title, or opens a key by its name
// (redis-cli escaping, as --open takes it). Type, arrow keys to pick, Enter to go, Escape to
// leave.
class QuickSwitcher : public QFrame
{
    Q_OBJECT
public:
    explicit QuickSwitcher(QWidget *parent = nullptr);

    // Shows the popup near the top of 'window', empty and focused.
    void popUp(QWidget *window);
    QLineEdit *input() const { return m_input; }
    QListWidget *list() const { return m_list; }
    QString errorText() const;
    // Goes to the current entry of the list, as Enter does.
    void activateCurrent();

Q_SIGNALS:
    void panelChosen(const QString &name);
    void keyChosen(const QByteArray &key);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refill(const QString &text);

    QLineEdit *m_input = nullptr;
    QListWidget *m_list = nullptr;
    QLabel *m_error = nullptr;
};
