// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>

#include <random>

// A deterministic mutation source for the fuzz loop in ctest: the same seed gives the same
// inputs on every machine, so a failure found in CI is found again by running the test.
class Mutator
{
public:
    Mutator(quint64 seed, QList<QByteArray> corpus, QList<QByteArray> dictionary);

    // The next input: a corpus entry changed by one to four mutations (bit flips, random or
    // boundary bytes, a dictionary token inserted or written over, a range deleted, repeated
    // or spliced in from another entry), at most 'maxSize' bytes.
    QByteArray next(qsizetype maxSize = 64 * 1024);
    // Inputs worth keeping as seeds of later mutations (the loop adds every tenth input).
    void keep(const QByteArray &input);

private:
    qsizetype below(qsizetype n); // uniform in [0, n), 0 when n <= 0
    void mutateOnce(QByteArray &data);

    std::mt19937_64 m_random;
    QList<QByteArray> m_corpus;
    QList<QByteArray> m_dictionary;
};
