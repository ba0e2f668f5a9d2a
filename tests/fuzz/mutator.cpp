// SPDX-License-Identifier: GPL-3.0-or-later
#include "mutator.h"

Mutator::Mutator(quint64 seed, QList<QByteArray> corpus, QList<QByteArray> dictionary)
    : m_random(seed), m_corpus(std::move(corpus)), m_dictionary(std::move(dictionary))
{
    if (m_corpus.isEmpty())
        m_corpus.append(QByteArray());
}

qsizetype Mutator::below(qsizetype n)
{
    return n <= 0 ? 0 : qsizetype(m_random() % quint64(n));
}

void Mutator::keep(const QByteArray &input)
{
    // A bounded pool: the oldest kept inputs make room, the seeds stay.
    constexpr qsizetype kPool = 512;
    if (m_corpus.size() >= kPool)
        m_corpus.removeAt(kPool / 2 + below(kPool / 2));
    m_corpus.append(input);
}

void Mutator::mutateOnce(QByteArray &data)
{
    static const char boundary[] = {'\0', '\x01', '\x7f', '\x80', '\xff', '\r', '\n', '\\', '"', '%', '@', ':'};
    const qsizetype size = data.size();
    switch (below(9)) {
    case 0: // flip a bit
        if (size > 0)
            data[below(size)] = char(data[below(size)] ^ char(1 << below(8)));
        break;
    case 1: // a random byte
        if (size > 0)
            data[below(size)] = char(below(256));
        break;
    case 2: // a boundary byte inserted
        data.insert(below(size + 1), boundary[below(sizeof(boundary))]);
        break;
    case 3: // a dictionary token inserted
        if (!m_dictionary.isEmpty())
            data.insert(below(size + 1), m_dictionary.at(below(m_dictionary.size())));
        break;
    case 4: { // a dictionary token written over what is there
        if (m_dictionary.isEmpty() || size == 0)
            break;
        const QByteArray &token = m_dictionary.at(below(m_dictionary.size()));
        const qsizetype at = below(size);
        data.replace(at, qMin(token.size(), size - at), token);
        break;
    }
    case 5: { // a range deleted
        const qsizetype at = below(size);
        data.remove(at, 1 + below(qMin<qsizetype>(size - at, 64)));
        break;
    }
    case 6: { // a range repeated
        if (size == 0)
            break;
        const qsizetype at = below(size);
        const QByteArray range = data.mid(at, 1 + below(qMin<qsizetype>(size - at, 32)));
        data.insert(below(size + 1), range.repeated(1 + int(below(8))));
        break;
    }
    case 7: { // spliced with another entry
        const QByteArray &other = m_corpus.at(below(m_corpus.size()));
        data = data.left(below(size + 1)) + other.mid(below(other.size() + 1));
        break;
    }
    default: // cut short
        data.truncate(below(size + 1));
        break;
    }
}

QByteArray Mutator::next(qsizetype maxSize)
{
    QByteArray data = m_corpus.at(below(m_corpus.size()));
    const int rounds = 1 + int(below(4));
    for (int i = 0; i < rounds; ++i)
        mutateOnce(data);
    data.truncate(maxSize);
    return data;
}
