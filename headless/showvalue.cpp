// SPDX-License-Identifier: GPL-3.0-or-later
#include "showvalue.h"

#include "bytesescape.h"
#include "decoders.h"
#include "masking.h"
#include "patternrules.h"
#include "showrequest.h"
#include "valuedecoding.h"
#include "valuereader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

ShowValue::ShowValue(const Context &context, QObject *parent)
    : PanelShow(context, parent), m_reader(new ValueReader(m_client, this))
{
    connect(m_reader, &ValueReader::errorOccurred, this, &PanelShow::failed);
    connect(m_reader, &ValueReader::keyOpened, this, [this](const KeyInfo &info) {
        m_info = info;
        if (info.type == KeyType::None) {
            Q_EMIT failed(QStringLiteral("no key %1").arg(bytesescape::quoteIfNeeded(m_request.key)));
            return;
        }
        m_subject = {{QStringLiteral("key"), m_request.keyText},
                     {QStringLiteral("type"), QString::fromLatin1(info.typeName)},
                     {QStringLiteral("encoding"), QString::fromLatin1(info.encoding)},
                     {QStringLiteral("size"), info.size},
                     {QStringLiteral("ttl_ms"), info.pttlMs}};
        // The decoding: --decode's, else (auto) the first rule naming steps for this key.
        if (m_request.decode == QLatin1String("none")) {
            m_decode = false;
        } else if (m_request.decode.isEmpty() || m_request.decode == QLatin1String("auto")) {
            if (!m_request.rulesFile.isEmpty()) {
                PatternRules rules;
                if (rules.load(m_request.rulesFile)) {
                    if (const PatternRule *rule = rules.decodeRule(m_request.key, info.type)) {
                        m_steps = rule->decode;
                        m_coverage.insert(QStringLiteral("decode_rule"), rules.indexOf(rule) + 1);
                    }
                }
            }
        } else {
            QString why;
            decode::parseChain(m_request.decode, &m_steps, &why); // checked on the command line
        }
        QStringList names;
        for (const decode::Format f : std::as_const(m_steps))
            names << decode::name(f);
        m_coverage.insert(QStringLiteral("decode"),
                          !m_decode             ? QStringLiteral("none")
                              : names.isEmpty() ? QStringLiteral("auto")
                                                : names.join(QLatin1Char(',')));
    });
    connect(m_reader, &ValueReader::stringAvailable, this, [this](const StringValue &value) {
        m_coverage.insert(QStringLiteral("bytes_read"), value.preview.size());
        m_coverage.insert(QStringLiteral("complete"), !value.truncated);
        Record r;
        r.raw = value.preview;
        add(nullptr, r);
        finish();
    });
    connect(m_reader, &ValueReader::pageLoaded, this, [this](const ValuePage &page) {
        for (const ValueEntry &e : page.entries) {
            if (qint64(m_records.size()) >= m_maxElements)
                break;
            Record r;
            switch (m_info.type) {
            case KeyType::Hash:
                r.name = e.name;
                r.raw = e.value;
                add(&e.name, r);
                break;
            case KeyType::List:
                r.position = e.position;
                r.raw = e.value;
                add(nullptr, r);
                break;
            case KeyType::Set:
                r.raw = e.name;
                add(nullptr, r);
                break;
            case KeyType::ZSet:
                r.raw = e.name;
                r.position = e.position;
                r.score = e.value.toDouble(&r.hasScore);
                add(nullptr, r);
                break;
            case KeyType::Stream:
                for (qsizetype i = 0; i + 1 < e.fields.size(); i += 2) {
                    Record f;
                    f.name = e.name;
                    f.field = e.fields.at(i);
                    f.raw = e.fields.at(i + 1);
                    add(&f.field, f);
                }
                break;
            default: break;
            }
        }
        if (m_reader->hasMore() && qint64(m_records.size()) < m_maxElements) {
            m_reader->loadMore();
            return;
        }
        m_coverage.insert(QStringLiteral("complete"), !m_reader->hasMore());
        finish();
    });
}

void ShowValue::start()
{
    if (m_request.limit >= 0)
        m_maxElements = m_request.limit;
    // A string is read whole up to the decoding cap: a compressed value cut short would not
    // decompress. Collections in the viewer's pages.
    m_reader->setPreviewBytes(decode::Limits::kDefaultMaxOutput);
    m_reader->openKey(m_request.key);
}

void ShowValue::add(const QByteArray *fieldName, Record record)
{
    // Masked as the viewer masks: a secret-named field's value, JSON's secret-named keys, and
    // (below, or by masking::maskedValue when nothing is decoded here) what decoding finds.
    const QByteArray hidden
        = m_decode ? masking::maskedByName(fieldName, record.raw) : masking::maskedValue(fieldName, record.raw);
    record.rawShown = hidden.isNull() ? record.raw : hidden;
    if (m_decode && !(fieldName && masking::isSecretName(*fieldName))) {
        const valuedecoding::Decoded d
            = valuedecoding::decodeValue(record.raw, m_steps, decode::Limits(), valuedecoding::Made::Tree);
        if (d.useful()) {
            record.chain = d.result.chainText();
            record.error = d.stopped();
            if (d.masked) {
                record.secrets = d.secrets;
                // Any JSON value, a bare scalar too, as compact text: inside an array, unwrapped.
                record.decoded = QJsonDocument(QJsonArray{decode::toJson(*d.masked)})
                                     .toJson(QJsonDocument::Compact)
                                     .chopped(1)
                                     .mid(1);
            } else if (d.result.ok()) {
                record.decoded = bytesescape::isValidUtf8(d.result.bytes)
                    ? d.result.bytes
                    : bytesescape::escape(d.result.bytes).toUtf8();
            }
            // The secrets decoding found are in the raw bytes too, encoded or compressed.
            if (record.secrets > 0) {
                record.rawShown = QByteArray();
                ++m_withheld;
            }
        } else if (!d.result.ok()) {
            record.error = d.stopped();
        }
    }
    m_records.append(record);
}

void ShowValue::finish()
{
    m_coverage.insert(QStringLiteral("records"), m_records.size());
    m_coverage.insert(QStringLiteral("max_elements"), m_maxElements);
    m_coverage.insert(QStringLiteral("raw_withheld"), m_withheld);
    Q_EMIT finished();
}

QList<Column> ShowValue::columns() const
{
    return {{"name", Column::Type::Text},    {"field", Column::Type::Text},    {"position", Column::Type::Integer},
            {"score", Column::Type::Number}, {"bytes", Column::Type::Integer}, {"value", Column::Type::Text},
            {"chain", Column::Type::Text},   {"decoded", Column::Type::Text},  {"secrets", Column::Type::Integer},
            {"error", Column::Type::Text}};
}

void ShowValue::writeRecord(RecordWriter &writer, qsizetype row) const
{
    const Record &r = m_records.at(row);
    const auto bytesOrNull = [&writer](const QByteArray &b) {
        if (b.isNull())
            writer.null();
        else
            writer.bytes(b);
    };
    bytesOrNull(r.name);
    bytesOrNull(r.field);
    if (r.position >= 0)
        writer.integer(r.position);
    else
        writer.null();
    if (r.hasScore)
        writer.number(r.score);
    else
        writer.null();
    writer.integer(r.raw.size());
    bytesOrNull(r.rawShown);
    if (r.chain.isEmpty())
        writer.null();
    else
        writer.text(r.chain);
    if (r.decoded.isNull())
        writer.null();
    else
        writer.text(QByteArrayView(r.decoded));
    writer.integer(r.secrets);
    if (r.error.isEmpty())
        writer.null();
    else
        writer.text(r.error);
}
