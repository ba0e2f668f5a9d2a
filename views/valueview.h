// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keytype.h"
#include "valuereader.h"

#include <QWidget>

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
// Strings show a preview as text, pretty JSON or hex; collections show the rows fetched so far
// in a table whose last row loads the next page. Errors go into a one-line banner.
class ValueView : public QWidget
{
    Q_OBJECT
public:
    enum class StringMode { Text, Json, Hex };
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
    QLabel *m_banner = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    QWidget *m_stringPage = nullptr;
    QComboBox *m_stringMode = nullptr;
    QLabel *m_stringInfo = nullptr;
    QPlainTextEdit *m_stringText = nullptr;
    QWidget *m_tablePage = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_status = nullptr;
    QTimer *m_ttlTimer = nullptr;
};
