// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "valuereader.h"

#include <QWidget>
#include <atomic>
#include <memory>
#include <vector>

class PatternRules;
namespace valuedecoding {
struct Decoded;
}

class QCheckBox;
class QComboBox;
class QFont;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTimer;
class RedisClient;

// Shows one key: a header (name, type, size, live TTL countdown, Refresh), then the value.
// Strings show a preview as text, pretty JSON, hex, or decoded (decode::detect: compression,
// base64 and hex, MessagePack, CBOR… as a tree with its secrets masked), which a string whose
// writer's format was recognised opens in, the raw text one choice away (decoded on a thread, so
// a value that expands to megabytes never holds up the window); collections show the
// rows fetched so far in a table whose last row loads the next page. Errors go into a one-line
// banner.
class ValueView : public QWidget
{
    Q_OBJECT
public:
    enum class StringMode { Text, Json, Hex, Decoded };
    Q_ENUM(StringMode)

    explicit ValueView(RedisClient *client, QWidget *parent = nullptr);
    ~ValueView() override;

    ValueReader *reader() const { return m_reader; }
    ValueModel *model() const { return m_model; }
    QByteArray currentKey() const { return m_reader->currentKey(); }
    // The banner's message, empty when none.
    QString errorText() const;
    StringMode stringMode() const;
    void setStringMode(StringMode mode);
    // The most a decoding step may output (a compression bomb stops there); 16 MiB by default.
    void setDecodeCap(qint64 bytes);
    // The user's rules: the first whose glob matches the shown key and names decode steps
    // decodes its value, ahead of detection.
    void setDecodeRules(const PatternRules &rules);
    // Steps the user typed for the shown value ("base64, gzip, json"), ahead of any rule; empty:
    // the rule's, else detection. False and why when a step is unknown.
    bool setDecodeSteps(const QString &steps, QString *why = nullptr);
    QLineEdit *decodeStepsEdit() const { return m_decodeSteps; }
    // "base64 → gzip → JSON, 1.2 KiB → 14 KiB" when the shown string was recognised, else empty.
    QString decodedSummary() const;
    // The selected element of a collection (a hash field's value, a list element, a set or
    // sorted-set member, a stream entry's fields), decoded below the table: its text, and its
    // info line ("field profile · decoded: MessagePack").
    QString elementText() const;
    QString elementInfo() const;
    // Decodings still running on their threads (a string opened, then another): for tests.
    int decodingsInFlight() const { return m_decodesRunning->load(); }
    // "Reveal secrets": visible when the shown value hides any.
    QCheckBox *revealToggle() const { return m_reveal; }

public Q_SLOTS:
    // Shows 'key'; 'hint' is the type the key browser saw (Unknown is fine).
    void openKey(const QByteArray &key, KeyType hint = KeyType::Unknown);
    void refresh();
    void clear();

Q_SIGNALS:
    void keyOpened(const KeyInfo &info);
    void errorOccurred(const QString &message);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    void buildStringPage(const QFont &fixed);
    void buildTablePage();
    void matchNameToWindow();
    void onKeyOpened(const KeyInfo &info);
    void onStringAvailable(const StringValue &value);
    void onPageLoaded();
    void onError(const QString &message);
    void onRowActivated(const QModelIndex &index);
    void updateLoadMoreSpan();
    void renderString();
    void updateTtl();
    void updateStatus();
    void showBanner(const QString &message);
    void updateRevealToggle();
    void forgetDecoded();
    // Decodes 'values' on a thread of their own with the steps typed, else the key's rule's, else
    // detection; the results arrive at onDecoded (the string) or onElementDecoded (a row).
    void startDecoding(const QList<QByteArray> &values, bool element);
    void onDecoded(quint64 generation, const std::shared_ptr<const valuedecoding::Decoded> &value);
    void onElementDecoded(quint64 generation, const std::vector<valuedecoding::Decoded> &values);
    void onRowSelected();
    void renderElement();
    void onDecodeStepsEdited();

    RedisClient *m_client;

    ValueReader *m_reader;
    ValueModel *m_model;
    KeyInfo m_info;
    StringValue m_string;
    qint64 m_expireAtMs = KeyInfo::kTtlUnknown;

    QLineEdit *m_keyName = nullptr;
    QLabel *m_meta = nullptr;
    QLabel *m_ttl = nullptr;
    QPushButton *m_refresh = nullptr;
    QCheckBox *m_reveal = nullptr;
    bool m_stringMasked = false;
    std::shared_ptr<const valuedecoding::Decoded> m_decoded; // of the string shown; null until decoded, or none
    quint64 m_decodeGeneration = 0;
    qint64 m_decodeCap;
    std::unique_ptr<PatternRules> m_rules;
    QString m_decodeBy; // "rule 3" or "your steps" when named steps decoded the shown value
    // Decodings still running on their threads: the view waits for them before it goes.
    std::shared_ptr<std::atomic<int>> m_decodesRunning = std::make_shared<std::atomic<int>>(0);
    QLabel *m_banner = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    QWidget *m_stringPage = nullptr;
    QComboBox *m_stringMode = nullptr;
    QLabel *m_stringInfo = nullptr;
    QLineEdit *m_decodeSteps = nullptr;
    QPlainTextEdit *m_stringText = nullptr;
    QWidget *m_tablePage = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_elementInfo = nullptr;
    QPlainTextEdit *m_elementText = nullptr;
    // The selected row: its labels (a stream entry's field names; one empty label otherwise), the
    // raw values, and their decodings once they arrive.
    QList<QByteArray> m_elementLabels;
    QList<QByteArray> m_elementValues;
    QString m_elementHead; // "field profile", "element 3", "member", "entry 1-0"
    std::vector<valuedecoding::Decoded> m_elementDecoded;
    QTimer *m_ttlTimer = nullptr;
};
