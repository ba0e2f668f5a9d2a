// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <memory>

class QProcess;

// A program run to its end, for the tests that run RedisLens's own binary or a fixture writer.
struct ProcessRun
{
    int code = -1; // -1: it crashed or timed out
    QByteArray out;
    QByteArray err;
};

// Runs 'program' and waits; after 'timeoutMs' it is killed and err says "timed out".
ProcessRun runProgram(const QString &program, const QStringList &args, int timeoutMs,
                      const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

// The environment of a headless run: no display or platform plugin, no REDISCLI_AUTH, and a
// home and config directory of its own under 'home' (no rules file of the person testing).
QProcessEnvironment isolatedEnvironment(const QString &home);

// Validates a JSON output of RedisLens against one of docs/schemas/ with Debian's
// python3-jsonschema (tests/support/validate_show.py): 'format' json (one document) or jsonl
// (one record a line). The output is written to 'file' first. Empty when it conforms, else
// the validator's complaints.
QString validateAgainstSchema(const QString &schemaName, const QByteArray &output, const QString &format,
                              const QString &file);

// Runs a Python fixture writer (tests/fixtures/<script>) with Debian's /usr/bin/python3 (named
// explicitly: the Debian packages the writers import are installed for it, not for another
// python3 earlier on PATH).
ProcessRun runPythonFixture(const QString &script, const QStringList &args, int timeoutMs = 120000);

// Runs a Node.js library fixture (tests/fixtures/libraries/node/<script>) with 'args' in the
// environment of a headless run under 'home'; node_modules come from script/bootstrap.
ProcessRun runNodeFixture(const QString &script, const QStringList &args, const QString &home, int timeoutMs = 120000);

// A redis-cli that stays running (a SUBSCRIBE, a MONITOR) against the server on 127.0.0.1:'port',
// started with 'args'; null when it did not start. The caller kills it.
std::unique_ptr<QProcess> startRedisCli(quint16 port, const QStringList &args);
