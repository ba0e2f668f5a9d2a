// SPDX-License-Identifier: GPL-3.0-or-later
// One fuzz target under libFuzzer, for long local runs: script/fuzz NAME [SECONDS].
#include "fuzztargets.h"

#include <QCoreApplication>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
const fuzz::Target *g_target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static QCoreApplication app(*argc, *argv); // some parsers ask Qt for paths
    g_target = fuzz::findTarget(QStringLiteral(REDISLENS_FUZZ_TARGET));
    if (!g_target) {
        std::fprintf(stderr, "no fuzz target named %s\n", REDISLENS_FUZZ_TARGET);
        std::exit(2);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_target->run(QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    return 0;
}
