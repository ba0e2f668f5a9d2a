// SPDX-License-Identifier: GPL-3.0-or-later
#include "emptydatabasedialog.h"

#include "format.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

EmptyDatabaseDialog::EmptyDatabaseDialog(const QString &connectionName, int database, QWidget *parent)
    : QDialog(parent), m_name(connectionName), m_database(database)
{
    setObjectName(QStringLiteral("emptyDatabaseDialog"));
    setWindowTitle(tr("Empty database %1").arg(database));
    setMinimumWidth(460);
    auto *layout = new QVBoxLayout(this);
    m_question = new QLabel(this);
    m_question->setObjectName(QStringLiteral("question"));
    m_question->setTextFormat(Qt::PlainText); // the name is the user's, shown as typed
    m_question->setWordWrap(true);
    auto *prompt = new QLabel(tr("Type the connection's name to confirm: %1").arg(connectionName), this);
    prompt->setTextFormat(Qt::PlainText);
    prompt->setWordWrap(true);
    m_typed = new QLineEdit(this);
    m_typed->setObjectName(QStringLiteral("typedName"));
    m_typed->setPlaceholderText(connectionName);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_empty = buttons->addButton(tr("Empty database %1").arg(database), QDialogButtonBox::DestructiveRole);
    m_empty->setObjectName(QStringLiteral("emptyButton"));
    m_empty->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(m_empty, &QPushButton::clicked, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_typed, &QLineEdit::textChanged, this, &EmptyDatabaseDialog::update);
    layout->addWidget(m_question);
    layout->addWidget(prompt);
    layout->addWidget(m_typed);
    layout->addWidget(buttons);
    update();
    m_typed->setFocus();
}

void EmptyDatabaseDialog::setKeyCount(qint64 keys)
{
    m_keys = keys;
    update();
}

bool EmptyDatabaseDialog::nameMatches() const
{
    return m_typed->text() == m_name;
}

QString EmptyDatabaseDialog::question() const
{
    return m_question->text();
}

void EmptyDatabaseDialog::update()
{
    const QString keys = m_keys < 0 ? tr("every key") : tr("all %1 keys").arg(format::count(quint64(m_keys)));
    m_question->setText(tr("FLUSHDB deletes %1 in database %2 of %3. The other databases are not touched. "
                           "This cannot be undone.")
                            .arg(keys)
                            .arg(m_database)
                            .arg(m_name));
    m_empty->setEnabled(nameMatches());
}
