// SPDX-License-Identifier: GPL-3.0-or-later
#include "testdata.h"

#include "redisvalue.h"
#include "respcodec.h"

#include <QFile>
#include <QTest>

QByteArray recordedReply(const QString &name)
{
    // ctest sets REDISLENS_SOURCE_DIR; run by hand, the file is found next to the sources.
    const QString dir = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    const QString path = dir.isEmpty() ? QFINDTESTDATA(QStringLiteral("../data/replies/") + name)
                                       : dir + QStringLiteral("/tests/data/replies/") + name;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open recorded reply %s", qPrintable(path));
    return f.readAll();
}

RedisValue recordedValue(const QString &name)
{
    QList<RedisValue> values;
    QString error;
    if (!resp::parseAll(recordedReply(name), &values, &error) || values.size() != 1)
        qFatal("%s is not exactly one RESP reply: %s", qPrintable(name), qPrintable(error));
    return values.first();
}
