// SPDX-License-Identifier: GPL-3.0-or-later
#include "decodercases.h"

#include "processrun.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <optional>

namespace {

// A writer's cases file: a JSON array.
std::optional<QJsonArray> readCases(const QString &file, QString *error)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1").arg(file);
        return std::nullopt;
    }
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parse);
    if (!doc.isArray()) {
        *error = QStringLiteral("%1: %2").arg(file, parse.errorString());
        return std::nullopt;
    }
    return doc.array();
}

} // namespace

QJsonArray writeDecoderCases(const QString &workDir, const QString &bombsDir, QString *error)
{
    const QDir fixtures(qEnvironmentVariable("REDISLENS_SOURCE_DIR") + QStringLiteral("/tests/fixtures/decoders"));
    QJsonArray cases;
    const auto take = [&](const QString &file) {
        const std::optional<QJsonArray> read = readCases(file, error);
        for (const QJsonValue c : read.value_or(QJsonArray()))
            cases.append(c);
        return read.has_value();
    };
    const QStringList writers = fixtures.entryList({QStringLiteral("write_*")}, QDir::Files, QDir::Name);
    for (const QString &writer : writers) {
        QString program;
        if (writer.endsWith(QLatin1String(".py")))
            program = QStringLiteral("/usr/bin/python3"); // Debian's, for Debian's packages
        else if (writer.endsWith(QLatin1String(".rb")))
            program = QStringLiteral("ruby");
        else if (writer.endsWith(QLatin1String(".php")))
            program = QStringLiteral("php");
        else
            continue;
        const QString out = QDir(workDir).filePath(writer + QStringLiteral(".json"));
        QStringList args{fixtures.filePath(writer), QStringLiteral("--out"), out};
        if (!bombsDir.isEmpty() && writer == QLatin1String("write_values.py"))
            args << QStringLiteral("--bombs") << bombsDir;
        const ProcessRun run = runProgram(program, args, 120000);
        if (run.code != 0) {
            *error = QStringLiteral("%1: %2").arg(writer, QString::fromUtf8(run.err));
            return {};
        }
        if (!take(out))
            return {};
    }
    for (const QString &kept : fixtures.entryList({QStringLiteral("cases_*.json")}, QDir::Files, QDir::Name))
        if (!take(fixtures.filePath(kept)))
            return {};
    return cases;
}

QJsonArray writePythonCases(const QString &workDir, QString *error)
{
    const QString out = QDir(workDir).filePath(QStringLiteral("write_values.json"));
    const ProcessRun run = runPythonFixture(QStringLiteral("decoders/write_values.py"), {QStringLiteral("--out"), out});
    if (run.code != 0) {
        *error = QString::fromUtf8(run.err);
        return {};
    }
    return readCases(out, error).value_or(QJsonArray());
}

QHash<QString, QByteArray> valuesByName(const QJsonArray &cases)
{
    QHash<QString, QByteArray> values;
    for (const QJsonValue c : cases)
        values.insert(c[QStringLiteral("name")].toString(),
                      QByteArray::fromBase64(c[QStringLiteral("value")].toString().toLatin1()));
    return values;
}
