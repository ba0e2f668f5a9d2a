// SPDX-License-Identifier: GPL-3.0-or-later
#include "valuedecoding.h"

#include "bytesescape.h"
#include "format.h"
#include "masking.h"

#include <QCoreApplication>

namespace valuedecoding {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("valuedecoding", text);
}

} // namespace

bool Decoded::useful() const
{
    if (named)
        return true;
    return result.decodedAnything()
        && !(result.steps.size() == 1 && result.steps.constFirst().format == decode::Format::Json);
}

QString Decoded::summary() const
{
    if (!result.decodedAnything())
        return {};
    // A format read in place (CBOR, MessagePack) has no second size to give.
    if (result.decodedBytes() == result.valueBytes())
        return result.chainText();
    return tr("%1, %2 → %3")
        .arg(result.chainText(), format::bytes(result.valueBytes()), format::bytes(result.decodedBytes()));
}

QString Decoded::stopped() const
{
    if (result.ok() || !result.failedFormat)
        return {};
    return tr("%1 stopped at byte %2: %3")
        .arg(decode::title(*result.failedFormat))
        .arg(result.errorOffset)
        .arg(result.error);
}

Decoded decodeValue(const QByteArray &bytes, const QList<decode::Format> &steps, const decode::Limits &limits,
                    Made made)
{
    Decoded v;
    v.named = !steps.isEmpty();
    v.result = steps.isEmpty() ? decode::detect(bytes, limits) : decode::decodeWith(steps, bytes, limits);
    const decode::Result &r = v.result;
    if (made == Made::Tree) {
        if (r.tree) {
            v.masked = *r.tree;
            v.secrets = masking::maskTree(*v.masked);
        }
        return v;
    }
    QString head;
    if (r.truncated())
        head = tr("decoded the first %1 (the decoding cap)").arg(format::bytes(limits.maxOutput)) + QLatin1Char('\n');
    if (!r.ok())
        head += v.stopped() + QLatin1Char('\n');
    if (r.tree) {
        decode::Node masked = *r.tree;
        v.secrets = masking::maskTree(masked);
        v.text = head + decode::treeText(*r.tree);
        v.maskedText = v.secrets > 0 ? head + decode::treeText(masked) : v.text;
        return v;
    }
    // No structure: the bytes the last step made, as text when they read as text. Where a
    // named step stopped, what it was given, as hex, so the bytes are all still there.
    const bool text = r.ok() && bytesescape::isValidUtf8(r.bytes);
    v.text = head + (text ? QString::fromUtf8(r.bytes) : bytesescape::hexDump(r.bytes));
    v.maskedText = v.text;
    return v;
}

} // namespace valuedecoding
