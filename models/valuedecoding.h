// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoders.h"

#include <QList>
#include <QString>

// A value decoded for showing, the one way every place that shows values does it (the value
// viewer, `redislens show value`): by the steps a rule or the user names, else by detection;
// the tree's secrets masked by the masking rules; past the cap, a note saying how much was
// decoded; where a step stopped, the offset and reason, and the bytes so far as hex.
namespace valuedecoding {

struct Decoded
{
    decode::Result result;
    QString text; // the tree, the decoded text, or a hex dump; a note first when truncated
    QString maskedText; // the same with the tree's secrets masked (the same text when none)
    int secrets = 0; // values the masking hid
    bool named = false; // the steps were named (a rule, --decode), not detected
    std::optional<decode::Node> masked; // Made::Tree: the tree with its secrets masked

    // Something was decoded: a plain JSON value (which needs no decoding) does not count, unless
    // its steps were named.
    bool useful() const;
    // "base64 → gzip → JSON, 1.2 KiB → 14 KiB"; empty when nothing was decoded.
    QString summary() const;
    // "gzip stopped at byte 120: invalid block type"; empty when nothing stopped.
    QString stopped() const;
};

// What decodeValue makes besides the result: the text to show (the viewer: made on its thread,
// so the GUI thread only shows it), or the masked tree (output for programs).
enum class Made : quint8 { Text, Tree };

// 'steps' empty: detection.
Decoded decodeValue(const QByteArray &bytes, const QList<decode::Format> &steps, const decode::Limits &limits,
                    Made made = Made::Text);

} // namespace valuedecoding
