// SPDX-License-Identifier: GPL-3.0-or-later
#include "pubsub.h"

#include "format.h"

#include <QCoreApplication>
#include <algorithm>

namespace pubsub {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("pubsub", text);
}

// "33554432", "32mb", "8m", "1gb" → bytes; -1 when it is none of those.
qint64 memoryValue(const QByteArray &text)
{
    QByteArray t = text.trimmed().toLower();
    qint64 unit = 1;
    for (const auto &[suffix, factor] :
         {std::pair{"gb", qint64(1) << 30}, std::pair{"mb", qint64(1) << 20}, std::pair{"kb", qint64(1) << 10},
          std::pair{"g", qint64(1000000000)}, std::pair{"m", qint64(1000000)}, std::pair{"k", qint64(1000)}}) {
        if (t.endsWith(suffix)) {
            t.chop(qsizetype(qstrlen(suffix)));
            unit = factor;
            break;
        }
    }
    bool ok = false;
    const qint64 n = t.toLongLong(&ok);
    return ok && n >= 0 ? n * unit : -1;
}

} // namespace

OutputLimit pubsubLimit(const QByteArray &configValue)
{
    OutputLimit limit;
    const QList<QByteArray> words = configValue.simplified().split(' ');
    for (qsizetype i = 0; i + 3 < words.size(); i += 4) {
        if (words.at(i).toLower() != "pubsub")
            continue;
        const qint64 hard = memoryValue(words.at(i + 1));
        const qint64 soft = memoryValue(words.at(i + 2));
        bool ok = false;
        const qint64 seconds = words.at(i + 3).toLongLong(&ok);
        if (hard < 0 || soft < 0 || !ok)
            return {};
        limit.hardBytes = hard;
        limit.softBytes = soft;
        limit.softSeconds = seconds;
        limit.known = true;
    }
    return limit;
}

QList<SlowSubscriber> slowSubscribers(const QList<ClientEntry> &clients, const OutputLimit &limit)
{
    QList<SlowSubscriber> out;
    for (const ClientEntry &c : clients) {
        if (!c.isPubSub() || c.omem <= 0)
            continue;
        SlowSubscriber s;
        s.client = c;
        if (limit.known && limit.hardBytes > 0)
            s.shareOfHard = double(c.omem) / double(limit.hardBytes);
        const bool overSoft = limit.known && limit.softBytes > 0 && c.omem >= limit.softBytes;
        if (overSoft) {
            s.critical = true;
            s.verdict = limit.softSeconds > 0
                ? tr("over the soft limit (%1): cut after %2 s over it, or at %3")
                      .arg(format::bytes(limit.softBytes))
                      .arg(limit.softSeconds)
                      .arg(limit.hardBytes > 0 ? format::bytes(limit.hardBytes) : tr("no hard limit"))
                : tr("over the soft limit (%1)").arg(format::bytes(limit.softBytes));
        } else if (s.shareOfHard >= 0.25) {
            s.critical = s.shareOfHard >= 0.75;
            s.verdict = tr("%1 % of the hard limit (%2): cut when it is reached")
                            .arg(qRound(s.shareOfHard * 100))
                            .arg(format::bytes(limit.hardBytes));
        } else if ((!limit.known || (limit.hardBytes == 0 && limit.softBytes == 0)) && c.omem > (1 << 20)) {
            s.verdict = tr("%1 waiting to be read, and no limit cuts it: the server's memory grows")
                            .arg(format::bytes(c.omem));
        } else {
            continue;
        }
        out.append(s);
    }
    std::sort(out.begin(), out.end(),
              [](const SlowSubscriber &a, const SlowSubscriber &b) { return a.client.omem > b.client.omem; });
    return out;
}

} // namespace pubsub
