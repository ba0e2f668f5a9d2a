// SPDX-License-Identifier: GPL-3.0-or-later
#include "valuemodel.h"

#include "bytesescape.h"
#include "masking.h"
#include "threadcheck.h"

#include <QElapsedTimer>
#include <QFont>

namespace {

enum Column { C0, C1, C2 };

int columnsFor(ValueModel::Mode mode)
{
    switch (mode) {
    case ValueModel::Mode::None: return 0;
    case ValueModel::Mode::Set: return 1;
    case ValueModel::Mode::Hash:
    case ValueModel::Mode::List:
    case ValueModel::Mode::Stream: return 2;
    case ValueModel::Mode::ZSet: return 3;
    }
    return 0;
}

// Columns whose cells are numbers: right-aligned, no escaping.
bool isNumberColumn(ValueModel::Mode mode, int column)
{
    return (mode == ValueModel::Mode::List && column == C0) || (mode == ValueModel::Mode::ZSet && column != C1);
}

} // namespace

ValueModel::ValueModel(QObject *parent) : QAbstractTableModel(parent)
{
    static const bool registered = [] {
        qRegisterMetaType<ValueEntry>();
        qRegisterMetaType<ValuePage>();
        return true;
    }();
    Q_UNUSED(registered)
}

ValueModel::~ValueModel() = default;

ValueModel::Mode ValueModel::modeForType(KeyType type)
{
    switch (type) {
    case KeyType::Hash: return Mode::Hash;
    case KeyType::List: return Mode::List;
    case KeyType::Set: return Mode::Set;
    case KeyType::ZSet: return Mode::ZSet;
    case KeyType::Stream: return Mode::Stream;
    default: return Mode::None;
    }
}

void ValueModel::setMode(Mode mode)
{
    beginResetModel();
    m_mode = mode;
    m_entries.clear();
    m_masked.clear();
    m_maskedCount = 0;
    m_hasMore = false;
    m_loading = false;
    m_total = -1;
    endResetModel();
}

void ValueModel::clear()
{
    setMode(m_mode);
}

ValueModel::Masked ValueModel::maskedOf(const ValueEntry &e, bool decodeCheck) const
{
    Masked m;
    switch (m_mode) {
    case Mode::Hash: m.bytes = masking::maskedValue(&e.name, e.value, decodeCheck); break;
    case Mode::List: m.bytes = masking::maskedValue(nullptr, e.value, decodeCheck); break;
    case Mode::Set:
    case Mode::ZSet: m.bytes = masking::maskedValue(nullptr, e.name, decodeCheck); break;
    case Mode::Stream: {
        bool any = false;
        QList<QByteArray> fields = e.fields;
        for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
            const QByteArray hidden = masking::maskedValue(&fields.at(i), fields.at(i + 1), decodeCheck);
            if (!hidden.isNull()) {
                fields[i + 1] = hidden;
                any = true;
            }
        }
        if (any)
            m.fields = fields;
        break;
    }
    case Mode::None: break;
    }
    return m;
}

void ValueModel::setRevealed(bool revealed)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (revealed == m_revealed)
        return;
    m_revealed = revealed;
    if (m_maskedCount > 0 && !m_entries.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_entries.size()) - 1, columnCount() - 1));
}

void ValueModel::appendPage(const ValuePage &page)
{
    REDISLENS_ASSERT_OWN_THREAD(this);
    if (!page.entries.isEmpty()) {
        const int first = int(m_entries.size());
        beginInsertRows({}, first, first + int(page.entries.size()) - 1);
        m_entries.append(page.entries);
        // Worked out once per page, not on every paint, and within a budget: decoding values to
        // find the secrets their encoding hides must not hold up the window.
        QElapsedTimer spent;
        spent.start();
        for (const ValueEntry &e : page.entries) {
            m_masked.append(maskedOf(e, spent.elapsed() < kMaskingBudgetMs));
            m_maskedCount += m_masked.last().any() ? 1 : 0;
        }
        endInsertRows();
    }
    m_loading = false;
    setHasMore(page.hasMore, page.total);
}

void ValueModel::setHasMore(bool more, qint64 total)
{
    const int row = int(m_entries.size());
    const bool had = m_hasMore;
    m_total = total;
    if (had && !more) {
        beginRemoveRows({}, row, row);
        m_hasMore = false;
        endRemoveRows();
    } else if (!had && more) {
        beginInsertRows({}, row, row);
        m_hasMore = true;
        endInsertRows();
    } else if (more && columnCount() > 0) {
        // The counts on the row changed.
        Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1));
    }
}

void ValueModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    if (m_hasMore && columnCount() > 0) {
        const int row = int(m_entries.size());
        Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1));
    }
}

int ValueModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return int(m_entries.size()) + (m_hasMore ? 1 : 0);
}

int ValueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : columnsFor(m_mode);
}

QVariant ValueModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.parent().isValid())
        return {};
    const int row = index.row();
    if (row < 0 || index.column() >= columnCount())
        return {};
    if (row < m_entries.size())
        return entryData(row, index.column(), role);
    if (isLoadMoreRow(row))
        return loadMoreData(index.column(), role);
    return {};
}

QVariant ValueModel::entryData(int row, int column, int role) const
{
    const ValueEntry &e = m_entries.at(row);
    const Masked &hidden = m_masked.at(row);
    // The bytes behind the cell; null for computed cells (numbers, stream fields).
    const QByteArray *bytes = nullptr;
    switch (m_mode) {
    case Mode::Hash: bytes = column == C0 ? &e.name : &e.value; break;
    case Mode::List: bytes = column == C1 ? &e.value : nullptr; break;
    case Mode::Set: bytes = &e.name; break;
    case Mode::ZSet: bytes = column == C1 ? &e.name : column == C2 ? &e.value : nullptr; break;
    case Mode::Stream: bytes = column == C0 ? &e.name : nullptr; break;
    case Mode::None: return {};
    }
    const bool number = isNumberColumn(m_mode, column);
    // The cell that holds what 'hidden' masks: the hash value, the list element, the member.
    const bool masksThis = !hidden.bytes.isNull()
        && ((m_mode == Mode::Hash && column == C1) || (m_mode == Mode::List && column == C1) || (m_mode == Mode::Set)
            || (m_mode == Mode::ZSet && column == C1));
    const bool masksFields = !hidden.fields.isEmpty() && m_mode == Mode::Stream && column == C1;

    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        const int limit = role == Qt::DisplayRole ? kDisplayChars : kToolTipChars;
        if (number && !bytes)
            return QString::number(e.position);
        if (!m_revealed && masksThis)
            return role == Qt::ToolTipRole ? tr("Masked: it looks like a secret. Reveal secrets shows it.")
                                           : bytesescape::escapeElided(hidden.bytes, limit);
        if (bytes)
            return bytesescape::escapeElided(*bytes, limit);
        return streamFieldsText(!m_revealed && masksFields ? hidden.fields : e.fields, limit); // stream fields
    }
    case MaskedRole: return masksThis || masksFields;
    case RawBytesRole:
        if (bytes)
            return *bytes;
        if (number)
            return QByteArray::number(e.position);
        return {};
    case StreamFieldsRole: return m_mode == Mode::Stream ? QVariant::fromValue(e.fields) : QVariant();
    case PositionRole: return (m_mode == Mode::List || m_mode == Mode::ZSet) ? QVariant(e.position) : QVariant();
    case LoadMoreRole: return false;
    case Qt::TextAlignmentRole:
        if (number)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    default: return {};
    }
}

QString ValueModel::loadMoreText() const
{
    // Only the total, never the loaded count: inserting a page above this row must not change
    // what the row says (views and QAbstractItemModelTester rely on moved rows keeping data).
    if (m_loading)
        return tr("Loading…");
    if (m_total >= 0)
        return tr("Load more… (%1 in all)").arg(m_total);
    return tr("Load more…");
}

QVariant ValueModel::loadMoreData(int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole: return column == C0 ? QVariant(loadMoreText()) : QVariant();
    case Qt::ToolTipRole: return tr("Fetch the next page from the server");
    case LoadMoreRole: return true;
    case Qt::FontRole: {
        QFont font;
        font.setItalic(true);
        return font;
    }
    default: return {};
    }
}

QVariant ValueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (m_mode) {
    case Mode::Hash: return section == C0 ? tr("Field") : tr("Value");
    case Mode::List: return section == C0 ? tr("Index") : tr("Value");
    case Mode::Set: return tr("Member");
    case Mode::ZSet: return section == C0 ? tr("Rank") : section == C1 ? tr("Member") : tr("Score");
    case Mode::Stream: return section == C0 ? tr("ID") : tr("Fields");
    case Mode::None: break;
    }
    return {};
}

Qt::ItemFlags ValueModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

QString ValueModel::streamFieldsText(const QList<QByteArray> &fields, int maxChars)
{
    QString out;
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        if (!out.isEmpty())
            out += QLatin1Char(' ');
        if (out.size() >= maxChars) {
            out += QStringLiteral("… (%1 more fields)").arg((fields.size() - i) / 2);
            break;
        }
        // Each part gets a share of what is left, so one huge value cannot hide the others.
        const int room = qMax(16, int(maxChars - out.size()) / 2);
        out += bytesescape::escapeElided(fields.at(i), room) + QLatin1Char('=')
            + bytesescape::escapeElided(fields.at(i + 1), room);
    }
    return out;
}
