// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

// Keys → Empty database: says which database of which server, how many keys it holds, and
// empties it only once the connection's name has been typed (a click or Enter alone cannot).
class EmptyDatabaseDialog : public QDialog
{
    Q_OBJECT
public:
    EmptyDatabaseDialog(const QString &connectionName, int database, QWidget *parent = nullptr);

    // DBSIZE as read just now; -1 when the server did not say.
    void setKeyCount(qint64 keys);
    QString question() const;
    bool nameMatches() const;

private:
    void update();

    QString m_name;
    int m_database;
    qint64 m_keys = -1;
    QLabel *m_question;
    QLineEdit *m_typed;
    QPushButton *m_empty;
};
