// SPDX-License-Identifier: GPL-3.0-or-later
#include "processrun.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>

ProcessRun runProgram(const QString &program, const QStringList &args, int timeoutMs, const QProcessEnvironment &env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    ProcessRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QProcessEnvironment isolatedEnvironment(const QString &home)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("REDISCLI_AUTH"));
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
    return env;
}

QString validateAgainstSchema(const QString &schemaName, const QByteArray &output, const QString &format,
                              const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly) || f.write(output) != output.size())
        return QStringLiteral("cannot write the output");
    f.close();
    const QString source = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            {source + QStringLiteral("/tests/support/validate_show.py"),
             source + QStringLiteral("/docs/schemas/") + schemaName, file, format});
    if (!p.waitForFinished(60000))
        return QStringLiteral("the validator timed out");
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return {};
}

ProcessRun runNodeFixture(const QString &script, const QStringList &args, const QString &home, int timeoutMs)
{
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty()) {
        ProcessRun r;
        r.err = "node is not on PATH (run script/bootstrap)";
        return r;
    }
    const QString source = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    return runProgram(node, QStringList{source + QStringLiteral("/tests/fixtures/libraries/node/") + script} + args,
                      timeoutMs, isolatedEnvironment(home));
}

ProcessRun runPythonFixture(const QString &script, const QStringList &args, int timeoutMs)
{
    const QString source = qEnvironmentVariable("REDISLENS_SOURCE_DIR");
    return runProgram(QStringLiteral("/usr/bin/python3"),
                      QStringList{source + QStringLiteral("/tests/fixtures/") + script} + args, timeoutMs);
}

std::unique_ptr<QProcess> startRedisCli(quint16 port, const QStringList &args)
{
    auto p = std::make_unique<QProcess>();
    p->start(QStringLiteral("redis-cli"),
             QStringList{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(port)}
                 + args);
    if (!p->waitForStarted())
        return nullptr;
    return p;
}
