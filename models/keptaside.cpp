// SPDX-License-Identifier: GPL-3.0-or-later
#include "keptaside.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace keptaside {

QString keepAside(const QString &path, QString *error)
{
    const QString stem
        = path + QStringLiteral(".corrupt-") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString aside = stem;
    for (int n = 2; QFileInfo::exists(aside); ++n)
        aside = stem + QLatin1Char('-') + QString::number(n);
    QFile f(path);
    if (!f.rename(aside)) {
        if (error)
            *error = QStringLiteral("cannot move %1 aside: %2").arg(QDir::toNativeSeparators(path), f.errorString());
        return {};
    }
    return aside;
}

} // namespace keptaside
