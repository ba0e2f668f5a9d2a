// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

// A file of ours that cannot be read as what it should be (a settings, history or connections
// file damaged by a crash, a disk or a hand edit) is moved out of the way before defaults are
// written over its name, so that nothing in it is lost.
namespace keptaside {

// Renames 'path' to 'path.corrupt-YYYYMMDD-HHMMSS' (then '-2', '-3', … when that exists) in the
// same directory and returns the new path; empty, with 'error', when it cannot be renamed.
QString keepAside(const QString &path, QString *error = nullptr);

} // namespace keptaside
