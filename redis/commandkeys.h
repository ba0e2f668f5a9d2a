// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>

// Where a command's arguments hold keys, from a built-in table of the commands' key
// specifications: what COMMAND GETKEYS would answer, without asking the server. A command the
// table does not know has its key at argument 1; connection, server and pub/sub commands have
// none.
namespace commandkeys {

// Indexes in 'args' (args[0] is the command) of the keys, in order: at most 'max' of them
// (-1: all). The name is matched in any case.
QList<qsizetype> keyPositions(const QList<QByteArray> &args, qsizetype max = -1);

} // namespace commandkeys
