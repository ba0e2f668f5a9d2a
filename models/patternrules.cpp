// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternrules.h"

PatternRulesFile::PatternRulesFile(const QString &path, QObject *parent) : QObject(parent), m_path(path) {}
