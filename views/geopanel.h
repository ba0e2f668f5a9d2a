// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "georeader.h"
#include "panel.h"

class QCPCurve;
class QCPGraph;
class QCustomPlot;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTableView;
class QVBoxLayout;
class RedisClient;

// Geo sets on a world map: the members (all of a small set, a sample of a big one, said on
// screen) over a light Natural Earth outline, longitude on x and latitude on y at equal scale.
// Radius and box searches run on the server (GEOSEARCH) from a member or a clicked point;
// results are drawn and listed with distances; GEODIST between two selected results.
class GeoPanel : public Panel
{
    Q_OBJECT
public:
    explicit GeoPanel(RedisClient *client, QWidget *parent = nullptr);
    ~GeoPanel() override;

    bool hasContent() const override { return m_hasContent; }

    // Geo sets found by the scan (GeoDetectReader); the first one opens if none is open.
    void setCandidates(const QList<QByteArray> &geoKeys);
    void openGeoSet(const QByteArray &key);
    // Opens the candidate with the most members.
    void openLargest();
    // Fills the search form from 'query' and runs it on the open set.
    void search(const GeoQuery &query);
    // The FROMLONLAT centre (a click on the map sets it).
    void setSearchCentre(GeoPoint centre);
    void showWorld();
    // Shows at least this lon/lat rectangle at equal scale.
    void zoomTo(const QRectF &bounds);

    QByteArray currentKey() const { return m_key; }
    const GeoSample &sample() const { return m_sample; }
    GeoPointsModel *resultsModel() const { return m_results; }
    QTableView *resultsView() const { return m_resultsView; }
    QCustomPlot *plot() const { return m_plot; }
    QCPCurve *coastline() const { return m_land; }
    QCPGraph *pointsGraph() const { return m_pointsGraph; }
    QCPGraph *resultsGraph() const { return m_resultsGraph; }
    QString headerText() const;
    QString distanceText() const;
    // The tooltip the map shows with the mouse at 'pos' (plot widget pixels); empty when no
    // point is near.
    QString hoverText(const QPoint &pos) const;

public Q_SLOTS:
    void runSearch();
    void measureSelected();

Q_SIGNALS:
    void sampleLoaded(const GeoSample &sample);
    void searchFinished(int results);
    void distanceMeasured(double distance);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildTopBar(QVBoxLayout *layout);
    void buildMap(QSplitter *split);
    void loadWorldOutline();
    void buildSearchForm(QWidget *side, QVBoxLayout *sideLayout);
    void buildResults(QWidget *side, QVBoxLayout *sideLayout);
    void connectReaders();
    void onSample(const GeoSample &sample);
    void onResults(const GeoQuery &query, const QList<GeoMember> &results);
    void showError(const QString &message);
    void updateHeader();
    void applyStyle();
    void drawSearchArea(const GeoQuery &query, GeoPoint centre);
    void keepAspect();
    void updateGraticule();
    const GeoMember *nearest(const QPoint &pos, double maxPixels) const;

    GeoSampleReader *m_sampler;
    GeoSearchReader *m_search;
    GeoPointsModel *m_results;
    QSortFilterProxyModel *m_resultsProxy = nullptr;
    QComboBox *m_keys = nullptr;
    QLabel *m_header = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_distance = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPCurve *m_land = nullptr;
    QCPCurve *m_area = nullptr;
    QCPGraph *m_pointsGraph = nullptr;
    QCPGraph *m_resultsGraph = nullptr;
    QCPGraph *m_centreGraph = nullptr;
    QComboBox *m_from = nullptr;
    QLineEdit *m_member = nullptr;
    QDoubleSpinBox *m_lon = nullptr;
    QDoubleSpinBox *m_lat = nullptr;
    QComboBox *m_shape = nullptr;
    QDoubleSpinBox *m_radius = nullptr;
    QDoubleSpinBox *m_width = nullptr;
    QDoubleSpinBox *m_height = nullptr;
    QComboBox *m_unit = nullptr;
    QSpinBox *m_count = nullptr;
    QPushButton *m_searchButton = nullptr;
    QPushButton *m_distanceButton = nullptr;
    QLabel *m_memberLabel = nullptr;
    QLabel *m_lonLabel = nullptr;
    QLabel *m_latLabel = nullptr;
    QLabel *m_radiusLabel = nullptr;
    QLabel *m_widthLabel = nullptr;
    QLabel *m_heightLabel = nullptr;
    QTableView *m_resultsView = nullptr;

    QByteArray m_key;
    GeoSample m_sample;
    QList<GeoMember> m_shown; // sample points, then search results, for hovering
    QList<QByteArray> m_candidates;
    qint64 m_memory = -1;
    QString m_distanceText;
    QPoint m_pressPos;
    QRectF m_fitBounds; // applied at the next layout, when the plot's size is known
    bool m_hasContent = false;
};
