// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "patterns.h"
#include "rediscommand.h"

#include <QList>
#include <QVersionNumber>

// The reads that sample one key for the classifier, and what their replies say. PatternIndex
// decides which keys to read and when; this is how one key is read.
namespace keysampler {

// The commands that sample a key of 'type' (TYPE alone when the type is not known), then PTTL
// (it tells a key that expired since the scan from an empty value), then the length command
// when 'elements' is not known. 'version' is the server's (HRANDFIELD needs 6.2).
QList<RedisCommand> commands(const QByteArray &key, KeyType type, qint64 elements, const QVersionNumber &version);
// Where PTTL and the length command stand among commands(): 'first' is the index of the
// key's first command in the batch, 'count' how many it has.
int pttlIndex(int first, int count, bool withLength);
int lengthIndex(int first, int count, bool withLength); // -1 without
bool readsLength(KeyType type, qint64 elements);

// Fills the sample's head, members and scores from the value replies, 'first' being the index
// of the key's first command in 'reply'.
void readValue(const RedisReply &reply, int first, KeySample *sample);

} // namespace keysampler
