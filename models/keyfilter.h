// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ttl.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>

// A view filter on keys the scan already found (SCAN cannot select by TTL, so this runs on
// the client): a namespace prefix and/or a remaining-TTL range. Panels emit one ("show me the
// keys in this TTL bucket"), the key browser applies it and says so in a removable line.
struct KeyFilter
{
    enum class Ttl : quint8 { Any, None, Range };

    QByteArray prefix; // namespace prefix including its separator; empty: every key
    Ttl ttl = Ttl::Any;
    qint64 minTtlMs = 0; // Range: minTtlMs <= remaining < maxTtlMs
    qint64 maxTtlMs = 0;
    QString label; // what the browser shows, e.g. "TTL 1–5 min in session:"

    bool isEmpty() const { return prefix.isEmpty() && ttl == Ttl::Any; }

    // expireAtMs as KeyTreeModel stores it (-1 no TTL, ttl::kUnknown unknown), nowMs the
    // wall clock. A key whose TTL is unknown matches no TTL condition.
    bool matches(const QByteArray &name, qint64 expireAtMs, qint64 nowMs) const
    {
        if (!prefix.isEmpty() && !name.startsWith(prefix))
            return false;
        switch (ttl) {
        case Ttl::Any: return true;
        case Ttl::None: return expireAtMs == -1;
        case Ttl::Range:
            if (expireAtMs < 0)
                return false;
            const qint64 left = qMax<qint64>(0, expireAtMs - nowMs);
            return left >= minTtlMs && left < maxTtlMs;
        }
        return false;
    }
};
Q_DECLARE_METATYPE(KeyFilter)
