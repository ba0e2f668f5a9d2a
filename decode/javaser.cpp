// SPDX-License-Identifier: GPL-3.0-or-later
#include "decoders_p.h"

namespace decode::detail {

StepOutput javaSerialization(const QByteArray &input, const Limits &limits)
{
    Q_UNUSED(limits);
    return fail(QStringLiteral("not read yet"), input.isEmpty() ? 0 : 0);
}

bool looksLikeJavaSerialization(const QByteArray &input)
{
    Q_UNUSED(input);
    return false;
}

} // namespace decode::detail
