// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediscommand.h"

// Where a command's keys are, so that a cluster connection can send it to the node that owns
// them. A built-in table of the commands' key specifications (the same as COMMAND GETKEYS would
// answer, without its round trip); a command it does not know has its key at argv[1].
namespace cluster {

// The argument indexes of the command's keys, in order; empty for a command without keys
// (INFO, PING, CONFIG GET, SCAN, EVAL with no keys, …).
QList<int> keyPositions(const RedisCommand &argv);

// The hash slot every key of the command hashes to; -1 when it has no keys, -2 when its keys
// hash to different slots (the server would answer CROSSSLOT).
int commandSlot(const RedisCommand &argv);

} // namespace cluster
