// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "panelshow.h"
#include "patternindex.h"

#include <QHash>

class KeyspaceScan;

// `show keys`: the key browser's scan and its pattern column, one record per key.
class ShowKeys final : public PanelShow
{
    Q_OBJECT
public:
    explicit ShowKeys(const Context &context, QObject *parent = nullptr);

    void start() override;
    QList<Column> columns() const override;
    qsizetype recordCount() const override;
    void writeRecord(RecordWriter &writer, qsizetype row) const override;
    QJsonObject coverage() const override;

    // The rules file's spelling of a verdict: "lock", "session", …; "none" when a rule says
    // the key is no pattern, "unknown" when nothing recognised it.
    static QByteArray patternId(const PatternMatch &match);

private:
    QByteArrayView utf8Of(const QString &text) const;

    KeyspaceScan *m_scan;
    QList<QByteArray> m_typeNames; // by KeyType
    mutable QHash<const void *, QByteArray> m_utf8;
    QList<PatternIndex::KeyVerdict> m_keys; // read from the index once the scan is done
};
