// SPDX-License-Identifier: GPL-3.0-or-later
#include "patternindex.h"

struct PatternIndex::Private
{
};

PatternIndex::PatternIndex(RedisClient *, QObject *parent) : QObject(parent), d(new Private) {}

PatternIndex::~PatternIndex() = default;
