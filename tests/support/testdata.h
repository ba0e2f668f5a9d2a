// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

class RedisValue;

// The bytes of a recorded server reply in tests/data/replies/ (see its README). A missing file
// ends the test run with its path: a parser test without its evidence must not pass.
QByteArray recordedReply(const QString &name);

// The one reply such a file holds, parsed; a file that is not exactly one reply ends the run.
RedisValue recordedValue(const QString &name);

// A child widget or object by object name; a missing one ends the test run with its name.
template <typename T> T *requireChild(const QObject *parent, const char *name)
{
    auto *child = parent->findChild<T *>(QString::fromLatin1(name));
    if (!child)
        qFatal("no child named %s", name);
    return child;
}
