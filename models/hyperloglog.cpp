// SPDX-License-Identifier: GPL-3.0-or-later
#include "hyperloglog.h"

#include <QCoreApplication>

#include <array>
#include <cmath>

namespace hyperloglog {

namespace {

// The layout of Redis's hyperloglog.c: "HYLL", encoding (0 dense, 1 sparse), three unused
// bytes, then the cached cardinality in 8 little-endian bytes whose top bit says "stale".
constexpr int kHeader = 16;
constexpr int kRegisters = 16384; // 2^14
constexpr int kQ = 64 - 14; // bits of the hash left for the run of zeros
constexpr double kAlphaInf = 0.721347520444481703680;

using Histogram = std::array<int, 64>;

bool fail(QString *why, const char *text)
{
    if (why)
        *why = QCoreApplication::translate("HyperLogLog", text);
    return false;
}

bool denseHistogram(const QByteArray &bytes, Histogram &h, QString *why)
{
    if (bytes.size() < kMaxBytes)
        return fail(why, "a dense HyperLogLog shorter than its registers");
    const auto *p = reinterpret_cast<const uchar *>(bytes.constData()) + kHeader;
    for (int i = 0; i < kRegisters; ++i) {
        // Register i is the six bits from bit i * 6, least significant first.
        const int bit = i * 6;
        const int byte = bit / 8;
        const int shift = bit % 8;
        const unsigned low = p[byte];
        const unsigned high = byte + 1 < kRegisters * 6 / 8 ? p[byte + 1] : 0;
        ++h[((low >> shift) | (high << (8 - shift))) & 63];
    }
    return true;
}

bool sparseHistogram(const QByteArray &bytes, Histogram &h, QString *why)
{
    const auto *p = reinterpret_cast<const uchar *>(bytes.constData());
    int index = 0;
    for (qsizetype i = kHeader; i < bytes.size();) {
        const uchar op = p[i];
        int run = 0;
        int value = 0;
        if ((op & 0xc0) == 0x00) { // ZERO: 00xxxxxx, x + 1 zero registers
            run = (op & 0x3f) + 1;
            i += 1;
        } else if ((op & 0xc0) == 0x40) { // XZERO: 01xxxxxx yyyyyyyy, 14 bits + 1 zero registers
            if (i + 1 >= bytes.size())
                return fail(why, "a sparse HyperLogLog cut short");
            run = (((op & 0x3f) << 8) | p[i + 1]) + 1;
            i += 2;
        } else { // VAL: 1vvvvvxx, x + 1 registers of value v + 1
            value = ((op >> 2) & 0x1f) + 1;
            run = (op & 0x03) + 1;
            i += 1;
        }
        index += run;
        if (index > kRegisters)
            return fail(why, "a sparse HyperLogLog with more registers than it has");
        h[value] += run;
    }
    if (index != kRegisters)
        return fail(why, "a sparse HyperLogLog that does not cover its registers");
    return true;
}

double sigma(double x)
{
    if (x == 1.0)
        return INFINITY;
    double y = 1;
    double z = x;
    double previous;
    do {
        x *= x;
        previous = z;
        z += x * y;
        y += y;
    } while (previous != z);
    return z;
}

double tau(double x)
{
    if (x == 0.0 || x == 1.0)
        return 0;
    double y = 1;
    double z = 1 - x;
    double previous;
    do {
        x = std::sqrt(x);
        previous = z;
        y *= 0.5;
        z -= std::pow(1 - x, 2) * y;
    } while (previous != z);
    return z / 3;
}

} // namespace

std::optional<qint64> cardinality(const QByteArray &bytes, QString *why)
{
    if (bytes.size() < kHeader || !bytes.startsWith("HYLL")) {
        fail(why, "not a HyperLogLog");
        return std::nullopt;
    }
    const auto *p = reinterpret_cast<const uchar *>(bytes.constData());
    // As PFCOUNT checks it: a known encoding, and a dense one of exactly its size. The sparse
    // runs are checked too, so a look-alike string is never counted.
    Histogram h{};
    bool ok = false;
    if (p[4] == 0)
        ok = bytes.size() == kMaxBytes ? denseHistogram(bytes, h, why)
                                       : fail(why, "a dense HyperLogLog of the wrong size");
    else if (p[4] == 1)
        ok = sparseHistogram(bytes, h, why);
    else
        ok = fail(why, "a HyperLogLog of an unknown encoding");
    if (!ok)
        return std::nullopt;
    if (!(p[15] & 0x80)) {
        // The cached count is valid: PFCOUNT would answer it.
        quint64 cached = 0;
        for (int i = 7; i >= 0; --i)
            cached = (cached << 8) | p[8 + i];
        return qint64(cached);
    }
    // Ertl's estimator, as Redis computes it (hllCount in hyperloglog.c, Redis 5 and later).
    const double m = kRegisters;
    double z = m * tau((m - h[kQ + 1]) / m);
    for (int j = kQ; j >= 1; --j) {
        z += h[j];
        z *= 0.5;
    }
    z += m * sigma(h[0] / m);
    return qint64(std::llround(kAlphaInf * m * m / z));
}

} // namespace hyperloglog
