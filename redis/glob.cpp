// SPDX-License-Identifier: GPL-3.0-or-later
#include "glob.h"

namespace {

// One element of a glob that is not '*' ('?', a [class], an escaped or a plain byte) against
// one byte: where the pattern goes on after it, or -1 when the byte does not match.
qsizetype matchOne(const QByteArray &pattern, qsizetype p, char byte)
{
    const char c = pattern.at(p);
    if (c == '?')
        return p + 1;
    if (c == '[') {
        qsizetype q = p + 1;
        bool negate = false;
        if (q < pattern.size() && (pattern.at(q) == '^' || pattern.at(q) == '!')) {
            negate = true;
            ++q;
        }
        bool matched = false;
        const unsigned char ch = static_cast<unsigned char>(byte);
        while (q < pattern.size() && pattern.at(q) != ']') {
            unsigned char lo = static_cast<unsigned char>(pattern.at(q));
            if (lo == '\\' && q + 1 < pattern.size())
                lo = static_cast<unsigned char>(pattern.at(++q));
            if (q + 2 < pattern.size() && pattern.at(q + 1) == '-' && pattern.at(q + 2) != ']') {
                unsigned char hi = static_cast<unsigned char>(pattern.at(q + 2));
                q += 2;
                if (hi == '\\' && q + 1 < pattern.size())
                    hi = static_cast<unsigned char>(pattern.at(++q));
                if (lo > hi)
                    std::swap(lo, hi);
                matched = matched || (ch >= lo && ch <= hi);
            } else {
                matched = matched || ch == lo;
            }
            ++q;
        }
        if (matched == negate)
            return -1;
        return q < pattern.size() ? q + 1 : q; // an unclosed '[' ends the pattern, as in Redis
    }
    if (c == '\\' && p + 1 < pattern.size())
        return pattern.at(p + 1) == byte ? p + 2 : -1;
    return c == byte ? p + 1 : -1;
}

// globCaptures' backtracking: each '*' first takes as much as it can.
bool captureFrom(const QByteArray &pattern, qsizetype p, const QByteArray &text, qsizetype t,
                 QList<QByteArray> *captures)
{
    while (p < pattern.size()) {
        if (pattern.at(p) == '*') {
            qsizetype next = p;
            while (next < pattern.size() && pattern.at(next) == '*')
                ++next;
            for (qsizetype end = text.size(); end >= t; --end) {
                captures->append(text.mid(t, end - t));
                if (captureFrom(pattern, next, text, end, captures))
                    return true;
                captures->removeLast();
            }
            return false;
        }
        if (t >= text.size())
            return false;
        p = matchOne(pattern, p, text.at(t));
        if (p < 0)
            return false;
        ++t;
    }
    return t == text.size();
}

} // namespace

bool globMatch(const QByteArray &pattern, const QByteArray &text)
{
    qsizetype p = 0, t = 0;
    // Backtracking point for the last '*': where it stood and how much text it has eaten.
    qsizetype starP = -1, starT = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern.at(p) == '*') {
            while (p < pattern.size() && pattern.at(p) == '*')
                ++p;
            starP = p;
            starT = t;
            continue;
        }
        const qsizetype next = p < pattern.size() ? matchOne(pattern, p, text.at(t)) : -1;
        if (next >= 0) {
            p = next;
            ++t;
            continue;
        }
        if (starP < 0)
            return false;
        p = starP;
        t = ++starT;
    }
    while (p < pattern.size() && pattern.at(p) == '*')
        ++p;
    return p == pattern.size();
}

std::optional<QList<QByteArray>> globCaptures(const QByteArray &pattern, const QByteArray &text)
{
    QList<QByteArray> captures;
    if (!captureFrom(pattern, 0, text, 0, &captures))
        return std::nullopt;
    return captures;
}
