// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

// The parsers that read what RedisLens does not control (a server's replies, the command
// line, URIs, pasted or imported connections, the rules file, escaped key names), each as a
// function of bytes that must not crash, hang or break its own round trip. tst_fuzz runs them
// over a deterministic mutation loop in ctest; redislens-fuzz-NAME runs one under libFuzzer
// (script/fuzz).
namespace fuzz {

struct Target
{
    QString name;
    void (*run)(const QByteArray &input);
    QStringList seedDirs; // relative to the source directory
    QList<QByteArray> dictionary; // tokens the mutator inserts
};

const QList<Target> &targets();
const Target *findTarget(const QString &name);
// The seeds of a target: every file in its seed directories.
QList<QByteArray> seeds(const Target &target, const QString &sourceDir);

// A broken invariant: prints the target, what broke and the input (escaped), then aborts, so
// that both the ctest loop and libFuzzer stop on it with the input in hand.
[[noreturn]] void violated(const char *target, const char *what, const QByteArray &input);

} // namespace fuzz
