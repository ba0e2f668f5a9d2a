// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDir>
#include <QImage>
#include <QString>
#include <QTemporaryDir>

// Where GUI tests write their pictures: $REDISLENS_SCREENSHOT_DIR when set (to keep and look at
// them), otherwise a temporary directory that goes away with the test process. Never a fixed
// path: a test must pass wherever it runs, and write only under the build tree or a temporary
// directory. Header-only, so a test uses it without a build change.
namespace screenshots {

inline QString directory()
{
    const QString keep = qEnvironmentVariable("REDISLENS_SCREENSHOT_DIR");
    if (!keep.isEmpty()) {
        QDir().mkpath(keep);
        return keep;
    }
    static QTemporaryDir scratch; // removed at exit
    return scratch.isValid() ? scratch.path() : QString();
}

// Saves 'image' as 'name' ("locks.png") in directory(); false when it is empty or unwritable.
inline bool save(const QImage &image, const QString &name)
{
    const QString dir = directory();
    return !dir.isEmpty() && !image.isNull() && image.save(QDir(dir).filePath(name));
}

} // namespace screenshots
