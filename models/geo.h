// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "geohash.h"
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

// Search results: member, distance, longitude, latitude.
class GeoPointsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { MemberColumn, DistanceColumn, LongitudeColumn, LatitudeColumn, ColumnCount };
    enum Role { MemberBytesRole = Qt::UserRole + 1, SortRole };

    using QAbstractTableModel::QAbstractTableModel;
    void setResults(const QList<GeoMember> &rows, GeoUnit unit);
    void clear();
    const GeoMember &at(int row) const { return m_rows.at(row); }
    const QList<GeoMember> &rows() const { return m_rows; }
    GeoUnit unit() const { return m_unit; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<GeoMember> m_rows;
    GeoUnit m_unit = GeoUnit::Km;
};

// The world outline: polylines of (lon, lat), read from the "RLC1" file that
// resources/convert-coastline.mjs writes. Empty on a missing or malformed file.
QList<QList<GeoPoint>> loadCoastline(const QString &fileName);

Q_DECLARE_METATYPE(GeoSample)
