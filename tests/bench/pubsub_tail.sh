#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The live tail under a flood, as the panel runs it: tst_pubsubpanel's flood case starts a
# private redis-server on a free loopback port, a Pub/Sub panel tailing one channel with a
# 16 MiB bound, and redis-benchmark publishing 1,000,000 messages of about 120 bytes (one
# connection, 8 in flight). It prints the publisher's rate, how many messages the tail saw,
# kept and dropped, and how much this process grew (the target: at most the bound + 20 MB).
#
#   tests/bench/pubsub_tail.sh [BUILD_DIR] [RUNS]      (default build/dev, 3 runs)
set -eu

build=${1:-build/dev}
runs=${2:-3}
test=$build/tests/gui/tst_pubsubpanel
[ -x "$test" ] || { echo "pubsub_tail: $test is not built" >&2; exit 2; }
i=0
while [ "$i" -lt "$runs" ]; do
    QT_QPA_PLATFORM=offscreen "$test" boundHoldsUnderAFlood 2>&1 | tr '\r' '\n' \
        | sed -n 's/^QINFO  : TstPubSubPanel::boundHoldsUnderAFlood() \(published.*\)$/\1/p; /^FAIL/p'
    i=$((i + 1))
done
