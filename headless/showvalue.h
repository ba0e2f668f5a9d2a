// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoded.h"
#include "panelshow.h"
#include "valuemodel.h"

#include <QList>

class ValueReader;

// `show value KEY`: the value as the value viewer reads it (a string whole, up to the decoding
// cap; a collection page by page, as far as --limit, 1,000 elements by default), each string,
// field, element, member or stream field decoded as the viewer decodes it (--decode auto: the
// first rule that names steps for the key, else detection; none; or the steps named), with
// secrets masked in the decoded value and the raw value withheld where decoding found any.
class ShowValue final : public PanelShow
{
    Q_OBJECT
public:
    static constexpr qint64 kDefaultElements = 1000;

    explicit ShowValue(const Context &context, QObject *parent = nullptr);
    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override { return m_records.size(); }
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override { return m_coverage; }
    QJsonObject subject() const override { return m_subject; }

private:
    struct Record
    {
        QByteArray name; // hash field, set or sorted-set member, stream entry id; null: none
        QByteArray field; // a stream entry's field; null: none
        QByteArray raw; // the value's bytes
        QByteArray rawShown; // the same masked; null: withheld (decoding found secrets)
        QByteArray decoded; // compact JSON of the masked tree, or the decoded bytes' text; null: none
        QString chain;
        QString error;
        qint64 position = -1; // list index, sorted-set rank
        double score = 0;
        int secrets = 0;
        bool hasScore = false;
    };

    void add(const QByteArray *fieldName, Record record);
    void finish();

    ValueReader *m_reader;
    KeyInfo m_info;
    QList<Record> m_records;
    QList<decode::Format> m_steps; // named by --decode or a rule; empty: detection
    QJsonObject m_subject;
    QJsonObject m_coverage;
    qint64 m_maxElements = kDefaultElements;
    int m_withheld = 0;
    bool m_decode = true;
};
