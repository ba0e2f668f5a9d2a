// SPDX-License-Identifier: GPL-3.0-or-later
#include "valueview.h"

#include "clusterrouter.h"

#include "bytesescape.h"
#include "decoders.h"
#include "format.h"
#include "masking.h"
#include "patternrules.h"
#include "valuedecoding.h"
#include "valuemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <chrono>
#include <mutex>
#include <thread>

namespace {

QString sizeText(const KeyInfo &info)
{
    if (info.size < 0)
        return {};
    const QString n = QString::number(info.size);
    switch (info.type) {
    case KeyType::String: return format::bytes(info.size);
    case KeyType::Hash: return ValueView::tr("%1 fields").arg(n);
    case KeyType::List: return ValueView::tr("%1 elements").arg(n);
    case KeyType::Set:
    case KeyType::ZSet: return ValueView::tr("%1 members").arg(n);
    case KeyType::Stream: return ValueView::tr("%1 entries").arg(n);
    default: return {};
    }
}

} // namespace

ValueView::ValueView(RedisClient *client, QWidget *parent)
    : QWidget(parent),
      m_client(client),
      m_reader(new ValueReader(client, this)),
      m_model(new ValueModel(this)),
      m_decodeCap(decode::Limits::kDefaultMaxOutput),
      m_rules(std::make_unique<PatternRules>())
{
    feedValueModel(m_reader, m_model); // first: the handlers below read the model
    buildUi();
    connect(m_reader, &ValueReader::keyOpened, this, &ValueView::onKeyOpened);
    connect(m_reader, &ValueReader::stringAvailable, this, &ValueView::onStringAvailable);
    connect(m_reader, &ValueReader::pageLoaded, this, &ValueView::onPageLoaded);
    connect(m_reader, &ValueReader::errorOccurred, this, &ValueView::onError);
    connect(m_reader, &ValueReader::loadingChanged, this, &ValueView::updateStatus);
    clear();
}

ValueView::~ValueView()
{
    // A decoding thread posts its result to this view: let the last ones finish (each is
    // bounded by the decode cap) so none posts to a view that is gone.
    while (m_decodesRunning->load() > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    QCoreApplication::removePostedEvents(this);
}

void ValueView::setDecodeCap(qint64 bytes)
{
    m_decodeCap = qMax<qint64>(64 * 1024, bytes);
}

void ValueView::forgetDecoded()
{
    // A decoding still running is for the value that was shown: its result is dropped.
    ++m_decodeGeneration;
    m_decoded.reset();
}

QString ValueView::decodedSummary() const
{
    return m_decoded ? m_decoded->summary() : QString();
}

void ValueView::setDecodeRules(const PatternRules &rules)
{
    *m_rules = rules;
}

bool ValueView::setDecodeSteps(const QString &steps, QString *why)
{
    QString reason;
    QList<decode::Format> parsed;
    if (!steps.trimmed().isEmpty() && !decode::parseChain(steps, &parsed, &reason)) {
        if (why)
            *why = reason;
        return false;
    }
    m_decodeSteps->setText(steps.trimmed());
    onDecodeStepsEdited();
    return true;
}

void ValueView::onDecodeStepsEdited()
{
    // The shown value again, with the steps typed (or, cleared, the rule's or detection).
    if (m_stack->currentWidget() != m_tablePage
        && (m_string.key.isNull() || m_string.truncated || m_string.isHyperLogLog))
        return;
    if (m_stack->currentWidget() == m_tablePage) {
        onRowSelected();
        return;
    }
    forgetDecoded();
    startDecoding({m_string.preview}, false);
}

void ValueView::startDecoding(const QList<QByteArray> &values, bool element)
{
    const quint64 generation = ++m_decodeGeneration;
    decode::Limits limits;
    limits.maxOutput = m_decodeCap;
    // Steps typed for this value, else the first rule that names steps for its key, else detection.
    QList<decode::Format> steps;
    m_decodeBy.clear();
    QString why;
    if (!m_decodeSteps->text().trimmed().isEmpty() && decode::parseChain(m_decodeSteps->text(), &steps, &why)) {
        m_decodeBy = tr("your steps");
    } else if (const PatternRule *rule = m_rules->decodeRule(m_info.key, element ? m_info.type : KeyType::String)) {
        steps = rule->decode;
        m_decodeBy = tr("rule %1").arg(m_rules->indexOf(rule) + 1);
    }
    // Every value on a thread of its own: a few KiB of gzip can expand to megabytes of JSON,
    // so the size of the value says nothing of the time its decoding takes. The result (and
    // its text) comes back queued, for this value only.
    m_decodesRunning->fetch_add(1);
    // The result crosses threads through a std::mutex (which ThreadSanitizer sees), not through
    // Qt's event queue alone (which it does not); the queued call only says it is there.
    struct Mailbox
    {
        std::mutex lock;
        std::vector<valuedecoding::Decoded> values;
    };
    auto box = std::make_shared<Mailbox>();
    std::thread([view = QPointer<ValueView>(this), running = m_decodesRunning, box, generation, values, steps, limits,
                 element] {
        std::vector<valuedecoding::Decoded> decoded;
        decoded.reserve(size_t(values.size()));
        for (const QByteArray &v : values)
            decoded.push_back(valuedecoding::decodeValue(v, steps, limits));
        {
            const std::lock_guard<std::mutex> hold(box->lock);
            box->values = std::move(decoded);
        }
        QMetaObject::invokeMethod(
            view.data(),
            [view, generation, box, element] {
                std::vector<valuedecoding::Decoded> arrived;
                {
                    const std::lock_guard<std::mutex> hold(box->lock);
                    arrived = std::move(box->values);
                }
                if (!view)
                    return;
                if (element)
                    view->onElementDecoded(generation, arrived);
                else if (!arrived.empty())
                    view->onDecoded(generation,
                                    std::make_shared<const valuedecoding::Decoded>(std::move(arrived.front())));
            },
            Qt::QueuedConnection);
        running->fetch_sub(1);
    }).detach();
}

void ValueView::onDecoded(quint64 generation, const std::shared_ptr<const valuedecoding::Decoded> &value)
{
    if (generation != m_decodeGeneration)
        return; // another value is shown now
    auto *items = qobject_cast<QStandardItemModel *>(m_stringMode->model());
    // Plain JSON has its own mode; a chain that ends in it, any other format, or steps a rule or
    // the user named (even where they stopped: the viewer says where) are decoded.
    if (!value->useful())
        return;
    m_decoded = value;
    if (items)
        items->item(int(StringMode::Decoded))->setEnabled(true);
    QString info = m_stringInfo->text().section(QStringLiteral(" · decod"), 0, 0);
    if (!value->result.ok())
        info += QStringLiteral(" · ") + tr("decoding by %1 stopped: %2").arg(m_decodeBy, value->stopped());
    else
        info += QStringLiteral(" · ")
            + (m_decodeBy.isEmpty() ? tr("decoded: %1").arg(decodedSummary())
                                    : tr("decoded by %1: %2").arg(m_decodeBy, decodedSummary()));
    m_stringInfo->setText(info);
    // The writer's format was recognised: shown decoded, the raw text one choice away.
    const QSignalBlocker block(m_stringMode);
    m_stringMode->setCurrentIndex(int(StringMode::Decoded));
    renderString();
}

void ValueView::matchNameToWindow()
{
    // The name reads as a label: its field takes the window's colours, again on every palette
    // change (a copy made once kept a light field in a dark palette, with light text on it).
    QPalette namePalette = palette();
    namePalette.setColor(QPalette::Base, namePalette.color(QPalette::Window));
    namePalette.setColor(QPalette::Text, namePalette.color(QPalette::WindowText));
    m_keyName->setPalette(namePalette);
}

void ValueView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_keyName)
        matchNameToWindow();
}

void ValueView::buildUi()
{
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);

    // A read-only line edit rather than a label: long names scroll, and the escaped text can be
    // selected and copied whole (the escape is reversible).
    m_keyName = new QLineEdit(this);
    m_keyName->setObjectName(QStringLiteral("valueKeyName"));
    m_keyName->setReadOnly(true);
    m_keyName->setFrame(false);
    m_keyName->setPlaceholderText(tr("no key selected"));
    matchNameToWindow();
    QFont nameFont = fixed;
    nameFont.setBold(true);
    m_keyName->setFont(nameFont);

    m_refresh = new QPushButton(tr("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("valueRefresh"));
    m_refresh->setToolTip(tr("Read the key again from the server"));
    connect(m_refresh, &QPushButton::clicked, this, &ValueView::refresh);

    m_meta = new QLabel(this);
    m_meta->setObjectName(QStringLiteral("valueMeta"));
    m_meta->setTextFormat(Qt::PlainText);
    m_ttl = new QLabel(this);
    m_ttl->setObjectName(QStringLiteral("valueTtl"));
    m_ttl->setTextFormat(Qt::PlainText);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("valueBanner"));
    m_banner->setTextFormat(Qt::PlainText);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setAutoFillBackground(true);
    m_banner->setContentsMargins(6, 3, 6, 3);
    QPalette bannerPalette = m_banner->palette();
    bannerPalette.setColor(QPalette::Window, QColor(0xf8, 0xd7, 0xda));
    bannerPalette.setColor(QPalette::WindowText, QColor(0x72, 0x1c, 0x24));
    m_banner->setPalette(bannerPalette);
    m_banner->hide();

    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setEnabled(false);

    buildStringPage(fixed);
    buildTablePage();

    m_stack = new QStackedWidget(this);
    m_stack->setObjectName(QStringLiteral("valueStack"));
    m_stack->addWidget(m_placeholder);
    m_stack->addWidget(m_stringPage);
    m_stack->addWidget(m_tablePage);

    m_reveal = new QCheckBox(tr("Reveal secrets"), this);
    m_reveal->setObjectName(QStringLiteral("valueReveal"));
    m_reveal->setToolTip(tr("Values of fields named like secrets (token, password, csrf, api_key…), also inside "
                            "JSON, are masked until revealed"));
    m_reveal->hide();
    connect(m_reveal, &QCheckBox::toggled, this, [this](bool on) {
        m_model->setRevealed(on);
        renderString();
        renderElement();
    });
    auto *top = new QHBoxLayout;
    top->addWidget(m_keyName, 1);
    top->addWidget(m_reveal);
    top->addWidget(m_refresh);
    auto *metaRow = new QHBoxLayout;
    metaRow->addWidget(m_meta);
    metaRow->addStretch(1);
    // The steps apply to a string and to a collection's selected element alike.
    metaRow->addWidget(m_decodeSteps);
    metaRow->addSpacing(12);
    metaRow->addWidget(m_ttl);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(metaRow);
    layout->addWidget(m_banner);
    layout->addWidget(m_stack, 1);

    m_ttlTimer = new QTimer(this);
    m_ttlTimer->setSingleShot(true);
    connect(m_ttlTimer, &QTimer::timeout, this, &ValueView::updateTtl);
}

void ValueView::buildStringPage(const QFont &fixed)
{
    m_stringPage = new QWidget(this);
    m_stringMode = new QComboBox(m_stringPage);
    m_stringMode->setObjectName(QStringLiteral("valueStringMode"));
    m_stringMode->addItem(tr("Text"));
    m_stringMode->addItem(tr("JSON"));
    m_stringMode->addItem(tr("Hex"));
    m_stringMode->addItem(tr("Decoded"));
    m_stringMode->setItemData(int(StringMode::Decoded),
                              tr("The value as its writer meant it: decompressed, base64 or hex undone, "
                                 "MessagePack or CBOR read"),
                              Qt::ToolTipRole);
    m_stringInfo = new QLabel(m_stringPage);
    m_stringInfo->setObjectName(QStringLiteral("valueStringInfo"));
    m_stringInfo->setTextFormat(Qt::PlainText);
    // Formats without a magic (Brotli, LZ4 block, raw deflate, Protocol Buffers) or a chain
    // detection does not find: named here for this value, or for a glob in the rules.
    m_decodeSteps = new QLineEdit(m_stringPage);
    m_decodeSteps->setObjectName(QStringLiteral("valueDecodeSteps"));
    m_decodeSteps->setPlaceholderText(tr("decode: detected"));
    m_decodeSteps->setToolTip(tr("Steps that decode this value, in order (base64, gzip, zlib, deflate, lz4, "
                                 "lz4-block, snappy, zstd, brotli, hex, json, cbor, msgpack, pickle, java, marshal, "
                                 "php, protobuf); empty: a rule's steps, else what detection finds. For every key "
                                 "of a glob, add a rule with Decode steps."));
    m_decodeSteps->setClearButtonEnabled(true);
    m_decodeSteps->setMaximumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28);
    connect(m_decodeSteps, &QLineEdit::returnPressed, this, [this] {
        QString why;
        QList<decode::Format> steps;
        if (!m_decodeSteps->text().trimmed().isEmpty() && !decode::parseChain(m_decodeSteps->text(), &steps, &why)) {
            showBanner(tr("Decode steps: %1").arg(why));
            return;
        }
        m_banner->hide();
        onDecodeStepsEdited();
    });
    m_stringText = new QPlainTextEdit(m_stringPage);
    m_stringText->setObjectName(QStringLiteral("valueStringText"));
    m_stringText->setReadOnly(true);
    m_stringText->setFont(fixed);
    connect(m_stringMode, &QComboBox::currentIndexChanged, this, &ValueView::renderString);
    auto *stringBar = new QHBoxLayout;
    stringBar->addWidget(m_stringMode);
    stringBar->addWidget(m_stringInfo, 1);
    auto *stringLayout = new QVBoxLayout(m_stringPage);
    stringLayout->setContentsMargins(0, 0, 0, 0);
    stringLayout->addLayout(stringBar);
    stringLayout->addWidget(m_stringText, 1);
}

void ValueView::buildTablePage()
{
    m_tablePage = new QWidget(this);
    m_table = new QTableView(m_tablePage);
    m_table->setObjectName(QStringLiteral("valueTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    // Fixed, uniform rows: a big model never asks every row for its size hint.
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    // The "load more" row spans the table, so a narrow first column does not cut its text.
    const ValueModel *model = m_model;
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, &ValueView::updateLoadMoreSpan);
    connect(model, &QAbstractItemModel::modelReset, this, &ValueView::updateLoadMoreSpan);
    connect(m_table, &QAbstractItemView::clicked, this, &ValueView::onRowActivated);
    connect(m_table, &QAbstractItemView::activated, this, &ValueView::onRowActivated);
    m_status = new QLabel(m_tablePage);
    m_status->setObjectName(QStringLiteral("valueStatus"));
    m_status->setTextFormat(Qt::PlainText);
    // The selected row's value, decoded as a string is: a MessagePack hash field, a pickled
    // stream field, a base64 + zlib list element.
    auto *element = new QWidget(m_tablePage);
    m_elementInfo = new QLabel(element);
    m_elementInfo->setObjectName(QStringLiteral("valueElementInfo"));
    m_elementInfo->setTextFormat(Qt::PlainText);
    m_elementInfo->setText(tr("Select a row to see its value decoded"));
    m_elementText = new QPlainTextEdit(element);
    m_elementText->setObjectName(QStringLiteral("valueElementText"));
    m_elementText->setReadOnly(true);
    m_elementText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_elementText->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto *elementLayout = new QVBoxLayout(element);
    elementLayout->setContentsMargins(0, 0, 0, 0);
    elementLayout->addWidget(m_elementInfo);
    elementLayout->addWidget(m_elementText, 1);
    auto *split = new QSplitter(Qt::Vertical, m_tablePage);
    split->setObjectName(QStringLiteral("valueTableSplit"));
    split->addWidget(m_table);
    split->addWidget(element);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ValueView::onRowSelected);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ValueView::onRowSelected);
    auto *tableLayout = new QVBoxLayout(m_tablePage);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(split, 1);
    tableLayout->addWidget(m_status);
}

void ValueView::openKey(const QByteArray &key, KeyType hint)
{
    // Steps typed for one value are not another's (a refresh keeps them).
    if (key != m_info.key)
        m_decodeSteps->clear();
    m_info = KeyInfo();
    m_info.key = key;
    m_string = StringValue();
    forgetDecoded();
    m_expireAtMs = KeyInfo::kTtlUnknown;
    m_ttlTimer->stop();
    m_banner->hide();
    m_banner->clear();
    m_keyName->setText(bytesescape::escape(key));
    m_keyName->setCursorPosition(0);
    m_keyName->setToolTip(
        tr("%1 bytes; the name is shown escaped (\\xHH for bytes that are not text)").arg(key.size()));
    m_meta->setText(tr("loading…"));
    m_ttl->clear();
    m_refresh->setEnabled(true);
    m_placeholder->clear();
    m_stack->setCurrentWidget(m_placeholder);
    m_reader->openKey(key, hint);
}

void ValueView::refresh()
{
    if (m_reader->hasKey())
        openKey(m_reader->currentKey(), m_reader->currentType());
}

void ValueView::clear()
{
    m_reader->clear();
    m_info = KeyInfo();
    m_string = StringValue();
    forgetDecoded();
    m_expireAtMs = KeyInfo::kTtlUnknown;
    m_ttlTimer->stop();
    m_keyName->clear();
    m_meta->clear();
    m_ttl->clear();
    m_banner->hide();
    m_banner->clear();
    m_stringText->clear();
    m_refresh->setEnabled(false);
    m_placeholder->setText(tr("Select a key to see its value."));
    m_stack->setCurrentWidget(m_placeholder);
}

QString ValueView::errorText() const
{
    return m_banner->isHidden() ? QString() : m_banner->text();
}

ValueView::StringMode ValueView::stringMode() const
{
    return StringMode(m_stringMode->currentIndex());
}

void ValueView::setStringMode(StringMode mode)
{
    m_stringMode->setCurrentIndex(int(mode));
}

void ValueView::onKeyOpened(const KeyInfo &info)
{
    m_info = info;
    // Every key opens with its secrets hidden, whatever the previous one showed.
    m_stringMasked = false;
    {
        const QSignalBlocker block(m_reveal);
        m_reveal->setChecked(false);
    }
    m_model->setRevealed(false);
    m_reveal->hide();
    QStringList parts;
    parts << (info.type == KeyType::Module ? bytesescape::escape(info.typeName) : keyTypeName(info.type));
    const QString size = sizeText(info);
    if (!size.isEmpty())
        parts << size;
    if (!info.encoding.isEmpty() && info.encoding != info.typeName)
        parts << bytesescape::escape(info.encoding);
    // On a cluster, where the key lives: its hash slot and the primary that owns it now.
    if (const ClusterRouter *router = m_client->cluster()) {
        const int slot = cluster::keySlot(info.key);
        const cluster::Node *owner = router->ownerOf(slot);
        parts << (owner ? tr("slot %1 on %2").arg(slot).arg(owner->address.toString()) : tr("slot %1").arg(slot));
    }
    m_meta->setText(parts.join(QStringLiteral(" · ")));

    m_expireAtMs = info.expireAtMs();
    updateTtl();

    if (info.type == KeyType::String) {
        m_stringText->setPlainText(tr("loading…"));
        m_stringInfo->clear();
        m_stack->setCurrentWidget(m_stringPage);
    } else if (ValueModel::modeForType(info.type) != ValueModel::Mode::None) {
        // Sensible starting widths; never ResizeToContents (it would measure every row).
        QHeaderView *header = m_table->horizontalHeader();
        const int narrow = fontMetrics().horizontalAdvance(QStringLiteral("0000000000"));
        const int wide = qMax(160, m_table->viewport()->width() / 3);
        switch (info.type) {
        case KeyType::List: header->resizeSection(0, narrow); break;
        case KeyType::ZSet:
            header->resizeSection(0, narrow);
            header->resizeSection(1, qMax(wide, m_table->viewport()->width() - 3 * narrow));
            break;
        case KeyType::Hash: header->resizeSection(0, wide); break;
        case KeyType::Stream:
            header->resizeSection(0, fontMetrics().horizontalAdvance(QStringLiteral("0000000000000-000000")));
            break;
        default: break;
        }
        m_stack->setCurrentWidget(m_tablePage);
        updateStatus();
    } else {
        m_stack->setCurrentWidget(m_placeholder);
    }
    Q_EMIT keyOpened(info);
}

void ValueView::onStringAvailable(const StringValue &value)
{
    m_string = value;
    forgetDecoded();
    auto *items = qobject_cast<QStandardItemModel *>(m_stringMode->model());
    if (items) {
        items->item(int(StringMode::Json))->setEnabled(value.isJson);
        items->item(int(StringMode::Decoded))->setEnabled(false);
    }

    QStringList info;
    if (value.isHyperLogLog)
        info << tr("HyperLogLog, estimated cardinality %1 (±0.81 %)").arg(value.hllCount);
    if (value.truncated)
        info << tr("showing first %1 of %2").arg(format::bytes(value.preview.size()), format::bytes(value.fullLength));
    else if (!value.isHyperLogLog)
        info << format::bytes(value.fullLength);
    if (value.isHyperLogLog) {
        QString meta = m_meta->text();
        if (meta.startsWith(keyTypeName(KeyType::String)))
            m_meta->setText(meta.replace(0, keyTypeName(KeyType::String).size(), tr("string (HyperLogLog)")));
    }
    if (value.isBinary && !value.isHyperLogLog)
        info << tr("binary");
    else if (value.isJson)
        info << tr("JSON");
    m_stringInfo->setText(info.join(QStringLiteral(" · ")));

    StringMode mode = StringMode::Text;
    if (value.isJson)
        mode = StringMode::Json;
    else if (value.isBinary && !value.isHyperLogLog)
        mode = StringMode::Hex;
    {
        const QSignalBlocker block(m_stringMode);
        m_stringMode->setCurrentIndex(int(mode));
    }
    renderString();
    // A preview cut short is not the whole value: a compressed one would not decompress.
    if (!value.truncated && !value.isHyperLogLog)
        startDecoding({value.preview}, false);
}

void ValueView::renderString()
{
    // JSON with secret-named keys shows masked, in every mode, until revealed.
    int maskedCount = 0;
    const std::optional<QByteArray> masked
        = m_string.isJson ? masking::maskJson(m_string.preview, &maskedCount) : std::nullopt;
    const bool hide = masked && maskedCount > 0 && !m_reveal->isChecked();
    const int decodedSecrets = m_decoded ? m_decoded->secrets : 0;
    m_stringMasked = (masked && maskedCount > 0) || decodedSecrets > 0;
    updateRevealToggle();
    const QByteArray &bytes = hide ? *masked : m_string.preview;
    QString text;
    bool wrap = false;
    // Secrets the decoded tree masks are in the raw bytes too, encoded or compressed: the raw
    // views show them only once revealed.
    const bool rawHidesSecrets = decodedSecrets > 0 && !m_reveal->isChecked()
        && (stringMode() == StringMode::Text || stringMode() == StringMode::Hex);
    if (rawHidesSecrets) {
        m_stringText->setLineWrapMode(QPlainTextEdit::WidgetWidth);
        m_stringText->setPlainText(tr("The decoded value holds %n secret(s), masked in the Decoded view; its raw "
                                      "bytes are shown once the secrets are revealed.",
                                      nullptr, decodedSecrets));
        return;
    }
    switch (stringMode()) {
    case StringMode::Text:
        if (m_string.isHyperLogLog) {
            text = tr("HyperLogLog, estimated cardinality %1 (±0.81 %)").arg(m_string.hllCount);
        } else if (m_string.isBinary) {
            // Escaped, but each newline byte also breaks the line, so text-like data keeps its shape.
            const QList<QByteArray> lines = bytes.split('\n');
            for (qsizetype i = 0; i < lines.size(); ++i) {
                if (i > 0)
                    text += QLatin1String("\\n\n");
                text += bytesescape::escape(lines.at(i));
            }
        } else {
            text = QString::fromUtf8(bytes);
        }
        wrap = true;
        break;
    case StringMode::Json:
        if (m_string.isJson)
            text = QString::fromUtf8(QJsonDocument::fromJson(bytes).toJson(QJsonDocument::Indented));
        else
            text = tr("not JSON (or only a part of it was fetched)");
        break;
    case StringMode::Hex: text = bytesescape::hexDump(bytes, bytes.size()); break;
    case StringMode::Decoded: {
        text = !m_decoded           ? tr("nothing recognised in this value")
            : m_reveal->isChecked() ? m_decoded->text
                                    : m_decoded->maskedText;
        break;
    }
    }
    if (m_string.truncated && stringMode() != StringMode::Json && stringMode() != StringMode::Decoded)
        text += QLatin1Char('\n') + tr("… %1 more not fetched").arg(format::bytes(m_string.fullLength - bytes.size()));

    // Wrapping one very long line costs QPlainTextEdit seconds (it grows with the square of the
    // length); such text scrolls sideways instead.
    if (wrap) {
        constexpr qsizetype kMaxWrappedLine = 16 * 1024;
        qsizetype start = 0;
        while (wrap && start < text.size()) {
            qsizetype end = text.indexOf(QLatin1Char('\n'), start);
            if (end < 0)
                end = text.size();
            wrap = end - start <= kMaxWrappedLine;
            start = end + 1;
        }
    }
    m_stringText->setLineWrapMode(wrap ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    m_stringText->setPlainText(text);
}

void ValueView::onPageLoaded()
{
    updateStatus();
    updateRevealToggle();
}

void ValueView::updateRevealToggle()
{
    const bool secrets = m_stack->currentWidget() == m_stringPage ? m_stringMasked : m_model->maskedCount() > 0;
    m_reveal->setVisible(secrets);
}

void ValueView::updateStatus()
{
    const ValueModel *model = m_model;
    if (model->mode() == ValueModel::Mode::None) {
        m_status->clear();
        return;
    }
    QString text = model->total() >= 0 ? tr("showing %1 of %2").arg(model->entryCount()).arg(model->total())
                                       : tr("showing %1").arg(model->entryCount());
    if (m_reader->isLoading())
        text += QStringLiteral(" · ") + tr("loading…");
    m_status->setText(text);
}

void ValueView::updateLoadMoreSpan()
{
    const ValueModel *model = m_model;
    m_table->clearSpans();
    if (model->hasMore() && model->columnCount() > 1)
        m_table->setSpan(model->rowCount() - 1, 0, 1, model->columnCount());
}

QString ValueView::elementText() const
{
    return m_elementText->toPlainText();
}

QString ValueView::elementInfo() const
{
    return m_elementInfo->text();
}

void ValueView::onRowSelected()
{
    ++m_decodeGeneration; // a decoding of the previous row is dropped
    m_elementLabels.clear();
    m_elementValues.clear();
    m_elementDecoded.clear();
    m_elementHead.clear();
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    const int row = current.row();
    if (!current.isValid() || row >= m_model->entryCount()) {
        m_elementInfo->setText(tr("Select a row to see its value decoded"));
        m_elementText->clear();
        return;
    }
    const auto raw
        = [this, row](int column) { return m_model->index(row, column).data(ValueModel::RawBytesRole).toByteArray(); };
    switch (m_model->mode()) {
    case ValueModel::Mode::Hash:
        m_elementHead = tr("field %1").arg(bytesescape::quoteIfNeeded(raw(0)));
        m_elementLabels << raw(0);
        m_elementValues << raw(1);
        break;
    case ValueModel::Mode::List:
        m_elementHead = tr("element %1").arg(QString::fromLatin1(raw(0)));
        m_elementLabels << QByteArray();
        m_elementValues << raw(1);
        break;
    case ValueModel::Mode::Set:
        m_elementHead = tr("member");
        m_elementLabels << QByteArray();
        m_elementValues << raw(0);
        break;
    case ValueModel::Mode::ZSet:
        m_elementHead = tr("member at rank %1").arg(QString::fromLatin1(raw(0)));
        m_elementLabels << QByteArray();
        m_elementValues << raw(1);
        break;
    case ValueModel::Mode::Stream: {
        m_elementHead = tr("entry %1").arg(QString::fromLatin1(raw(0)));
        const QList<QByteArray> fields
            = m_model->index(row, 1).data(ValueModel::StreamFieldsRole).value<QList<QByteArray>>();
        for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
            m_elementLabels << fields.at(i);
            m_elementValues << fields.at(i + 1);
        }
        break;
    }
    case ValueModel::Mode::None: return;
    }
    m_elementInfo->setText(tr("%1 · decoding…").arg(m_elementHead));
    m_elementText->clear();
    startDecoding(m_elementValues, true);
}

void ValueView::onElementDecoded(quint64 generation, const std::vector<valuedecoding::Decoded> &values)
{
    if (generation != m_decodeGeneration || values.size() != size_t(m_elementValues.size()))
        return; // another row, or another key, is shown now
    m_elementDecoded = values;
    renderElement();
}

void ValueView::renderElement()
{
    if (m_elementDecoded.empty() && m_elementValues.isEmpty())
        return;
    const bool reveal = m_reveal->isChecked();
    QStringList chains;
    QString text;
    for (qsizetype i = 0; i < m_elementValues.size() && size_t(i) < m_elementDecoded.size(); ++i) {
        const QByteArray &label = m_elementLabels.at(i);
        const valuedecoding::Decoded &d = m_elementDecoded[size_t(i)];
        QString part;
        // A secret-named field is a secret whatever it decodes to; JSON and decoded trees mask
        // their own secret-named keys.
        if (!reveal && !label.isEmpty() && masking::isSecretName(label)) {
            part = masking::maskText();
        } else if (d.useful()) {
            part = reveal ? d.text : d.maskedText;
            chains << d.summary();
        } else {
            const QByteArray hidden = reveal ? QByteArray() : masking::maskedValue(nullptr, m_elementValues.at(i));
            const QByteArray &shown = hidden.isNull() ? m_elementValues.at(i) : hidden;
            part = bytesescape::isValidUtf8(shown) ? QString::fromUtf8(shown) : bytesescape::hexDump(shown);
        }
        if (!label.isEmpty() && m_model->mode() == ValueModel::Mode::Stream)
            part = bytesescape::escape(label) + QStringLiteral(":\n") + part;
        text += (text.isEmpty() ? QString() : QStringLiteral("\n\n")) + part;
    }
    chains.removeDuplicates();
    chains.removeAll(QString());
    QString info = m_elementHead;
    if (!chains.isEmpty())
        info += QStringLiteral(" · ")
            + (m_decodeBy.isEmpty() ? tr("decoded: %1").arg(chains.join(QStringLiteral("; ")))
                                    : tr("decoded by %1: %2").arg(m_decodeBy, chains.join(QStringLiteral("; "))));
    for (const valuedecoding::Decoded &d : m_elementDecoded)
        if (!d.stopped().isEmpty()) {
            info += QStringLiteral(" · ") + tr("decoding by %1 stopped: %2").arg(m_decodeBy, d.stopped());
            break;
        }
    m_elementInfo->setText(info);
    m_elementText->setPlainText(text);
}

void ValueView::onRowActivated(const QModelIndex &index)
{
    if (index.isValid() && m_model->isLoadMoreRow(index.row()))
        m_reader->loadMore();
}

void ValueView::onError(const QString &message)
{
    if (m_info.type == KeyType::None || m_info.type == KeyType::Unknown) {
        m_meta->setText(m_info.type == KeyType::None ? keyTypeName(KeyType::None) : QString());
        m_stack->setCurrentWidget(m_placeholder);
    }
    showBanner(message);
    updateStatus();
    Q_EMIT errorOccurred(message);
}

void ValueView::showBanner(const QString &message)
{
    m_banner->setText(message);
    m_banner->setToolTip(message);
    m_banner->show();
}

void ValueView::updateTtl()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_expireAtMs == KeyInfo::kTtlUnknown) {
        m_ttl->setText(m_info.type == KeyType::Unknown || m_info.type == KeyType::None ? QString() : tr("TTL unknown"));
        m_ttlTimer->stop();
        return;
    }
    const QString text = format::ttl(m_expireAtMs, now);
    if (m_expireAtMs < 0 || m_expireAtMs <= now) {
        m_ttl->setText(text);
        m_ttlTimer->stop();
        return;
    }
    m_ttl->setText(tr("TTL %1").arg(text));
    // Tick on the whole seconds of the countdown, so "expired" shows when the key expires.
    const qint64 toNextSecond = (m_expireAtMs - now) % 1000;
    m_ttlTimer->start(int(toNextSecond > 0 ? toNextSecond : 1000));
}
