// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QString>

// The values of tst_decoders and tst_decodefuzz, each written by the library that writes it in
// real applications: every writer in tests/fixtures/decoders/ is run (write_*.py with Debian's
// python3, write_*.rb with ruby, write_*.php with php) with --out, and the cases a real JVM
// wrote (cases_*.json, kept with the program that wrote them) are read. Every case is
// {"name", "value": BASE64, "chain": [STEP…], "rule": [STEP…]?, "truth": CANONICAL}.
// 'bombsDir' not empty: write_values.py also writes its compression bombs there.
// Empty, with 'error' set, when a writer fails.
QJsonArray writeDecoderCases(const QString &workDir, const QString &bombsDir, QString *error);

// The cases of write_values.py alone (Python's writers: quick), for tests that need a few real
// values; and any cases' values by name.
QJsonArray writePythonCases(const QString &workDir, QString *error);
QHash<QString, QByteArray> valuesByName(const QJsonArray &cases);
