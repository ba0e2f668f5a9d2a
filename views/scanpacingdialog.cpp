// SPDX-License-Identifier: GPL-3.0-or-later
#include "scanpacingdialog.h"

#include "keyscanner.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

std::optional<int> askScanPacing(QWidget *parent, int current)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("scanPacingDialog"));
    dialog.setWindowTitle(QObject::tr("Scan pacing"));
    auto *layout = new QVBoxLayout(&dialog);
    auto *adaptive = new QRadioButton(QObject::tr("&Adaptive: measure the server's load and back off"), &dialog);
    adaptive->setObjectName(QStringLiteral("adaptive"));
    auto *note = new QLabel(QObject::tr("The scan watches a PING on a connection of its own, the commands other "
                                        "clients send, the server's CPU and the slow log, and slows down as soon "
                                        "as it costs others anything. On an idle server it runs at full speed."),
                            &dialog);
    note->setWordWrap(true);
    note->setIndent(20);
    auto *fixed = new QRadioButton(QObject::tr("&Fixed ceiling (commands per second, 0: none):"), &dialog);
    fixed->setObjectName(QStringLiteral("fixed"));
    auto *rate = new QSpinBox(&dialog);
    rate->setObjectName(QStringLiteral("rate"));
    rate->setRange(0, 10000000);
    rate->setSingleStep(1000);
    rate->setGroupSeparatorShown(true);
    rate->setSpecialValueText(QObject::tr("none"));
    rate->setValue(current == kAdaptivePacing ? 50000 : current);
    (current == kAdaptivePacing ? adaptive : fixed)->setChecked(true);
    rate->setEnabled(fixed->isChecked());
    QObject::connect(fixed, &QRadioButton::toggled, rate, &QSpinBox::setEnabled);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(adaptive);
    layout->addWidget(note);
    layout->addWidget(fixed);
    layout->addWidget(rate);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return adaptive->isChecked() ? kAdaptivePacing : rate->value();
}
