// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "geohash.h"
#include "rowtablemodel.h"
#include "zsetkind.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QStringList>

enum class GeoUnit : quint8 { M, Km, Mi };
QByteArray geoUnitArg(GeoUnit unit); // "m", "km", "mi"
QString geoUnitName(GeoUnit unit);
double geoUnitMetres(GeoUnit unit);

struct GeoMember
{
    QByteArray member;
    GeoPoint pos;
    double distance = -1; // in the query's unit; -1 when not measured
};

// One search, as GEOSEARCH takes it.
struct GeoQuery
{
    QByteArray key;
    bool fromMember = true;
    QByteArray member; // FROMMEMBER
    GeoPoint centre; // FROMLONLAT
    bool byBox = false;
    double radius = 100; // BYRADIUS
    double width = 200, height = 200; // BYBOX
    GeoUnit unit = GeoUnit::Km;
    int count = 100;
};

// What the map shows of one geo set.
struct GeoSample
{
    QByteArray key;
    qint64 zcard = 0;
    bool sampled = false;
    QList<GeoMember> points;
    // "all 1,234 members" or "showing 10,000 of 1,234,567 (sampled)"
    QString description() const;
};

// Search results: member, distance, longitude, latitude, merged by member (RowListModel), so
// the selection stays on its members when a search is run again.
class GeoPointsModel : public RowListModel<GeoMember>, public RowTableRoles
{
    Q_OBJECT
public:
    enum Column { MemberColumn, DistanceColumn, LongitudeColumn, LatitudeColumn, ColumnCount };

    explicit GeoPointsModel(QObject *parent = nullptr);
    void setResults(const QList<GeoMember> &rows, GeoUnit unit);
    const GeoMember &at(int row) const { return rows().at(row); }
    GeoUnit unit() const { return m_unit; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    GeoUnit m_unit = GeoUnit::Km;
};

// The world outline: polylines of (lon, lat), read from the "RLC1" file that
// resources/convert-coastline.mjs writes. Empty on a missing or malformed file.
QList<QList<GeoPoint>> loadCoastline(const QString &fileName);
// The built-in outline (Natural Earth 1:110m land, resources/README.md), as a resource path.
QString worldOutlineFile();

// Land or sea by an outline's rings: a point is on land when a ray from it towards the north
// pole crosses the outline an odd number of times. The outline's cuts at the antimeridian and
// Antarctica's closing edge lie where no such ray crosses, so the open rings still count right
// (a point exactly on ±180° may be wrong). At 1:110m, points within a few kilometres of a coast
// may fall on either side.
class LandMask
{
public:
    explicit LandMask(const QList<QList<GeoPoint>> &outline);
    static const LandMask &world(); // worldOutlineFile(), loaded once
    bool isEmpty() const { return m_segments.isEmpty(); }
    bool isLand(GeoPoint p) const;

private:
    struct Segment
    {
        double x1, y1, x2, y2;
    };
    QList<Segment> m_segments; // sorted by their smaller longitude
    double m_widest = 0; // the widest segment's span in longitude
};

Q_DECLARE_METATYPE(GeoSample)
