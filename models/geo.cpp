// SPDX-License-Identifier: GPL-3.0-or-later
#include "geo.h"

#include "bytesescape.h"
#include "format.h"

#include <QFile>
#include <QObject>
#include <QtEndian>
#include <algorithm>

QByteArray geoUnitArg(GeoUnit unit)
{
    switch (unit) {
    case GeoUnit::M: return "m";
    case GeoUnit::Mi: return "mi";
    case GeoUnit::Km: break;
    }
    return "km";
}

QString geoUnitName(GeoUnit unit)
{
    return QString::fromLatin1(geoUnitArg(unit));
}

double geoUnitMetres(GeoUnit unit)
{
    switch (unit) {
    case GeoUnit::M: return 1;
    case GeoUnit::Mi: return 1609.34; // Redis's mile
    case GeoUnit::Km: break;
    }
    return 1000;
}

// --- GeoSample ---

QString GeoSample::description() const
{
    if (sampled)
        return QObject::tr("showing %1 of %2 (sampled)")
            .arg(format::count(quint64(points.size())), format::count(quint64(zcard)));
    return QObject::tr("all %1 members").arg(format::count(quint64(points.size())));
}

// --- GeoPointsModel ---

GeoPointsModel::GeoPointsModel(QObject *parent)
    : RowListModel([](const GeoMember &m) { return m.member; }, ColumnCount, -1, parent)
{ }

void GeoPointsModel::setResults(const QList<GeoMember> &rows, GeoUnit unit)
{
    m_unit = unit; // the distances of kept rows are shown in it by the update setRows() sends
    setRows(rows);
}

QVariant GeoPointsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const GeoMember &m = rows().at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case MemberColumn: return bytesescape::escape(m.member);
        case DistanceColumn:
            return m.distance < 0
                ? QString()
                : QString::number(m.distance, 'f', m_unit == GeoUnit::M ? 1 : 3) % u' ' % geoUnitName(m_unit);
        case LongitudeColumn: return QString::number(m.pos.lon, 'f', 6);
        case LatitudeColumn: return QString::number(m.pos.lat, 'f', 6);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case MemberColumn: return m.member;
        case DistanceColumn: return m.distance;
        case LongitudeColumn: return m.pos.lon;
        case LatitudeColumn: return m.pos.lat;
        }
        break;
    case KeyRole: return m.member;
    case Qt::TextAlignmentRole:
        if (index.column() != MemberColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

QVariant GeoPointsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case MemberColumn: return tr("Member");
    case DistanceColumn: return tr("Distance");
    case LongitudeColumn: return tr("Longitude");
    case LatitudeColumn: return tr("Latitude");
    }
    return {};
}

// --- coastline ---

// Outside any namespace, as Q_INIT_RESOURCE requires: the qrc lives in a static library, whose
// resources are registered only when something names them.
static void initMapResources()
{
    Q_INIT_RESOURCE(maps);
}

QString worldOutlineFile()
{
    static const bool once = [] {
        initMapResources();
        return true;
    }();
    Q_UNUSED(once);
    return QStringLiteral(":/maps/land-110m.bin");
}

LandMask::LandMask(const QList<QList<GeoPoint>> &outline)
{
    for (const QList<GeoPoint> &line : outline) {
        for (qsizetype i = 1; i < line.size(); ++i) {
            const GeoPoint a = line.at(i - 1);
            const GeoPoint b = line.at(i);
            if (a.lon == b.lon)
                continue; // a meridian segment: no northward ray crosses it
            Segment s = a.lon < b.lon ? Segment{a.lon, a.lat, b.lon, b.lat} : Segment{b.lon, b.lat, a.lon, a.lat};
            m_widest = std::max(m_widest, s.x2 - s.x1);
            m_segments.append(s);
        }
    }
    std::sort(m_segments.begin(), m_segments.end(), [](const Segment &a, const Segment &b) { return a.x1 < b.x1; });
}

const LandMask &LandMask::world()
{
    static const LandMask mask(loadCoastline(worldOutlineFile()));
    return mask;
}

bool LandMask::isLand(GeoPoint p) const
{
    // Only segments whose span holds p.lon: those starting at most m_widest before it.
    auto it = std::lower_bound(m_segments.cbegin(), m_segments.cend(), p.lon - m_widest,
                               [](const Segment &s, double x) { return s.x1 < x; });
    bool inside = false;
    for (; it != m_segments.cend() && it->x1 <= p.lon; ++it) {
        if (p.lon < it->x1 || p.lon >= it->x2)
            continue; // half-open, so a ray through a vertex counts it once
        const double y = it->y1 + (p.lon - it->x1) * (it->y2 - it->y1) / (it->x2 - it->x1);
        if (y > p.lat)
            inside = !inside;
    }
    return inside;
}

QList<QList<GeoPoint>> loadCoastline(const QString &fileName)
{
    QFile f(fileName);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray data = f.readAll();
    if (data.size() < 8 || !data.startsWith("RLC1"))
        return {};
    const auto u32 = [&data](qsizetype at) { return qFromLittleEndian<quint32>(data.constData() + at); };
    const auto i32 = [&data](qsizetype at) { return qFromLittleEndian<qint32>(data.constData() + at); };
    QList<QList<GeoPoint>> lines;
    const quint32 count = u32(4);
    qsizetype at = 8;
    for (quint32 l = 0; l < count; ++l) {
        if (at + 4 > data.size())
            return {};
        const quint32 n = u32(at);
        at += 4;
        if (qsizetype(n) * 8 > data.size() - at)
            return {};
        QList<GeoPoint> line;
        line.reserve(n);
        for (quint32 i = 0; i < n; ++i, at += 8)
            line.append(GeoPoint{i32(at) / 1e4, i32(at + 4) / 1e4});
        lines.append(line);
    }
    return lines;
}
