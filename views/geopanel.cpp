// SPDX-License-Identifier: GPL-3.0-or-later
#include "geopanel.h"

#include "bytesescape.h"
#include "chartstyle.h"
#include "format.h"
#include "qcp.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

// Degrees on a world map: at equal scale a tall map shows more than 180° of latitude, and no
// tick or grid line names a latitude beyond the poles (or a longitude beyond ±180°).
class DegreeTicker : public QCPAxisTickerFixed
{
public:
    explicit DegreeTicker(double limit) : m_limit(limit) { }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override
    {
        QVector<double> ticks = QCPAxisTickerFixed::createTickVector(tickStep, range);
        const double limit = m_limit + 1e-9;
        ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [limit](double t) { return std::abs(t) > limit; }),
                    ticks.end());
        return ticks;
    }

private:
    double m_limit;
};
constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QDoubleSpinBox *spin(double min, double max, double value, int decimals, QWidget *parent)
{
    auto *s = new QDoubleSpinBox(parent);
    s->setRange(min, max);
    s->setDecimals(decimals);
    s->setValue(value);
    return s;
}

QString lonLat(GeoPoint p)
{
    return QStringLiteral("%1, %2").arg(p.lon, 0, 'f', 6).arg(p.lat, 0, 'f', 6);
}

// The point 'metres' away from 'from' at 'bearing' degrees on Redis's sphere.
GeoPoint destination(GeoPoint from, double bearing, double metres)
{
    const double d = metres / geohash::kEarthRadiusM, t = bearing * kPi / 180;
    const double p1 = from.lat * kPi / 180, l1 = from.lon * kPi / 180;
    const double p2 = std::asin(std::sin(p1) * std::cos(d) + std::cos(p1) * std::sin(d) * std::cos(t));
    const double l2
        = l1 + std::atan2(std::sin(t) * std::sin(d) * std::cos(p1), std::cos(d) - std::sin(p1) * std::sin(p2));
    return GeoPoint{l2 * 180 / kPi, p2 * 180 / kPi};
}
} // namespace

GeoPanel::GeoPanel(RedisClient *client, QWidget *parent)
    : Panel(parent),
      m_sampler(new GeoSampleReader(client, this)),
      m_search(new GeoSearchReader(client, this)),
      m_results(new GeoPointsModel(this))
{
    setObjectName(QStringLiteral("geoPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    buildTopBar(layout);

    auto *split = new QSplitter(Qt::Horizontal, this);
    buildMap(split);
    auto *side = new QWidget(split);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    buildSearchForm(side, sideLayout);
    buildResults(side, sideLayout);
    split->addWidget(m_plot);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({700, 330});
    layout->addWidget(split, 1);

    connectReaders();
    applyStyle();
    showWorld();
}

void GeoPanel::buildTopBar(QVBoxLayout *layout)
{
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Geo set:"), this));
    m_keys = new QComboBox(this);
    m_keys->setObjectName(QStringLiteral("geoKeys"));
    m_keys->setMinimumContentsLength(24);
    m_keys->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_keys->setToolTip(tr("Sorted sets whose scores are geohashes (GEOADD)"));
    top->addWidget(m_keys);
    auto *world = new QPushButton(tr("World"), this);
    world->setToolTip(tr("Show the whole map"));
    auto *fit = new QPushButton(tr("Fit results"), this);
    fit->setToolTip(tr("Zoom to the search results"));
    top->addWidget(world);
    top->addWidget(fit);
    top->addStretch(1);
    layout->addLayout(top);

    m_header = new QLabel(tr("No geo set open. Geo sets are sorted sets written by GEOADD."), this);
    m_header->setObjectName(QStringLiteral("geoHeader"));
    m_header->setTextFormat(Qt::PlainText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("geoError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_error);

    connect(m_keys, &QComboBox::activated, this,
            [this](int index) { openGeoSet(m_keys->itemData(index).toByteArray()); });
    connect(world, &QPushButton::clicked, this, &GeoPanel::showWorld);
    connect(fit, &QPushButton::clicked, this, [this] {
        if (m_results->rowCount() == 0)
            return;
        QRectF r;
        for (const GeoMember &m : m_results->rows())
            r = r.united(QRectF(m.pos.lon - 0.01, m.pos.lat - 0.01, 0.02, 0.02));
        zoomTo(r.adjusted(-r.width() * 0.2, -r.height() * 0.2, r.width() * 0.2, r.height() * 0.2));
    });
}

void GeoPanel::buildMap(QSplitter *split)
{
    m_plot = new QCustomPlot(split);
    m_plot->setObjectName(QStringLiteral("geoMap"));
    m_plot->setMinimumSize(320, 220);
    m_plot->setMouseTracking(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    chartstyle::label(m_plot->xAxis, tr("Longitude (°)"));
    chartstyle::label(m_plot->yAxis, tr("Latitude (°)"));
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        auto ticker = QSharedPointer<DegreeTicker>::create(axis == m_plot->xAxis ? 180.0 : 90.0);
        ticker->setTickStep(30);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
        axis->setTicker(ticker);
    }

    // The outline: one curve, polylines separated by NaN points (QCPCurve leaves a gap there).
    m_land = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    loadWorldOutline();
    m_land->setSelectable(QCP::stNone);
    m_area = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_area->setSelectable(QCP::stNone);
    m_pointsGraph = m_plot->addGraph();
    m_pointsGraph->setLineStyle(QCPGraph::lsNone);
    m_pointsGraph->setName(tr("Members"));
    m_resultsGraph = m_plot->addGraph();
    m_resultsGraph->setLineStyle(QCPGraph::lsNone);
    m_resultsGraph->setName(tr("Search results"));
    m_centreGraph = m_plot->addGraph();
    m_centreGraph->setLineStyle(QCPGraph::lsNone);
    m_centreGraph->setName(tr("Search centre"));
    for (QCPAbstractPlottable *p :
         {static_cast<QCPAbstractPlottable *>(m_pointsGraph), static_cast<QCPAbstractPlottable *>(m_resultsGraph),
          static_cast<QCPAbstractPlottable *>(m_centreGraph)})
        p->setSelectable(QCP::stNone);
    connect(m_plot, &QCustomPlot::afterLayout, this, &GeoPanel::keepAspect);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        const QString text = hoverText(e->position().toPoint());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(m_plot->mapToGlobal(e->position().toPoint()), text, m_plot);
    });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) { m_pressPos = e->position().toPoint(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *e) {
        // A click, not the end of a drag: the point becomes the search centre.
        if (e->button() != Qt::LeftButton || (e->position().toPoint() - m_pressPos).manhattanLength() > 3)
            return;
        setSearchCentre(GeoPoint{m_plot->xAxis->pixelToCoord(e->position().toPoint().x()),
                                 m_plot->yAxis->pixelToCoord(e->position().toPoint().y())});
        if (!m_key.isEmpty())
            runSearch();
    });
}

void GeoPanel::loadWorldOutline()
{
    QVector<double> t, x, y;
    const QList<QList<GeoPoint>> lines = loadCoastline(worldOutlineFile());
    for (const QList<GeoPoint> &line : lines) {
        for (const GeoPoint &p : line) {
            t.append(t.size());
            x.append(p.lon);
            y.append(p.lat);
        }
        t.append(t.size());
        x.append(kNaN);
        y.append(kNaN);
    }
    m_land->setData(t, x, y, true);
    if (lines.isEmpty())
        showError(tr("The world outline (:/maps/land-110m.bin) could not be read."));
}

void GeoPanel::buildSearchForm(QWidget *side, QVBoxLayout *sideLayout)
{
    auto *form = new QFormLayout;
    m_from = new QComboBox(side);
    m_from->setObjectName(QStringLiteral("geoFrom"));
    m_from->addItem(tr("a member"));
    m_from->addItem(tr("a point (click the map)"));
    form->addRow(tr("Search from"), m_from);
    m_member = new QLineEdit(side);
    m_member->setObjectName(QStringLiteral("geoMember"));
    m_member->setPlaceholderText(tr("member (escaped as shown)"));
    m_memberLabel = new QLabel(tr("Member"), side);
    form->addRow(m_memberLabel, m_member);
    m_lon = spin(-180, 180, 0, 6, side);
    m_lat = spin(geohash::kLatMin, geohash::kLatMax, 0, 6, side);
    m_lonLabel = new QLabel(tr("Longitude"), side);
    m_latLabel = new QLabel(tr("Latitude"), side);
    form->addRow(m_lonLabel, m_lon);
    form->addRow(m_latLabel, m_lat);
    m_shape = new QComboBox(side);
    m_shape->setObjectName(QStringLiteral("geoShape"));
    m_shape->addItem(tr("radius"));
    m_shape->addItem(tr("box"));
    form->addRow(tr("Area"), m_shape);
    m_radius = spin(0.001, 20000000, 100, 3, side);
    m_width = spin(0.001, 40000000, 400, 3, side);
    m_height = spin(0.001, 40000000, 400, 3, side);
    m_radiusLabel = new QLabel(tr("Radius"), side);
    m_widthLabel = new QLabel(tr("Width"), side);
    m_heightLabel = new QLabel(tr("Height"), side);
    form->addRow(m_radiusLabel, m_radius);
    form->addRow(m_widthLabel, m_width);
    form->addRow(m_heightLabel, m_height);
    m_unit = new QComboBox(side);
    m_unit->setObjectName(QStringLiteral("geoUnit"));
    for (GeoUnit u : {GeoUnit::M, GeoUnit::Km, GeoUnit::Mi})
        m_unit->addItem(geoUnitName(u), int(u));
    m_unit->setCurrentIndex(1);
    form->addRow(tr("Unit"), m_unit);
    m_count = new QSpinBox(side);
    m_count->setRange(1, 10000);
    m_count->setValue(100);
    m_count->setToolTip(tr("COUNT: the nearest this many"));
    form->addRow(tr("At most"), m_count);
    sideLayout->addLayout(form);
    m_searchButton = new QPushButton(tr("Search"), side);
    m_searchButton->setObjectName(QStringLiteral("geoSearch"));
    m_searchButton->setToolTip(tr("GEOSEARCH … WITHDIST WITHCOORD ASC COUNT n, on the server"));
    sideLayout->addWidget(m_searchButton);

    // Rows are disabled, not hidden, so that the map keeps its size while the form changes.
    const auto formChanged = [this] {
        const bool member = m_from->currentIndex() == 0, box = m_shape->currentIndex() == 1;
        for (QWidget *w : {static_cast<QWidget *>(m_member), static_cast<QWidget *>(m_memberLabel)})
            w->setEnabled(member);
        for (QWidget *w : {static_cast<QWidget *>(m_lon), static_cast<QWidget *>(m_lonLabel),
                           static_cast<QWidget *>(m_lat), static_cast<QWidget *>(m_latLabel)})
            w->setEnabled(!member);
        for (QWidget *w : {static_cast<QWidget *>(m_radius), static_cast<QWidget *>(m_radiusLabel)})
            w->setEnabled(!box);
        for (QWidget *w : {static_cast<QWidget *>(m_width), static_cast<QWidget *>(m_widthLabel),
                           static_cast<QWidget *>(m_height), static_cast<QWidget *>(m_heightLabel)})
            w->setEnabled(box);
    };
    connect(m_from, &QComboBox::currentIndexChanged, this, formChanged);
    connect(m_shape, &QComboBox::currentIndexChanged, this, formChanged);
    formChanged();
    connect(m_searchButton, &QPushButton::clicked, this, &GeoPanel::runSearch);
    connect(m_member, &QLineEdit::returnPressed, this, &GeoPanel::runSearch);
}

void GeoPanel::buildResults(QWidget *side, QVBoxLayout *sideLayout)
{
    m_resultsProxy = new QSortFilterProxyModel(this);
    m_resultsProxy->setSourceModel(m_results);
    m_resultsProxy->setSortRole(GeoPointsModel::SortRole);
    m_resultsView = new QTableView(side);
    m_resultsView->setObjectName(QStringLiteral("geoResults"));
    m_resultsView->setModel(m_resultsProxy);
    m_resultsView->setSortingEnabled(true);
    m_resultsView->sortByColumn(GeoPointsModel::DistanceColumn, Qt::AscendingOrder);
    m_resultsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_resultsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_resultsView->setAlternatingRowColors(true);
    m_resultsView->setWordWrap(false);
    m_resultsView->verticalHeader()->hide();
    m_resultsView->verticalHeader()->setDefaultSectionSize(m_resultsView->fontMetrics().height() + 6);
    m_resultsView->horizontalHeader()->setSectionResizeMode(GeoPointsModel::MemberColumn, QHeaderView::Stretch);
    m_resultsView->setToolTip(tr("Select two rows for GEODIST; double-click a row to search from it"));
    sideLayout->addWidget(m_resultsView, 1);
    auto *distRow = new QHBoxLayout;
    m_distanceButton = new QPushButton(tr("Distance"), side);
    m_distanceButton->setObjectName(QStringLiteral("geoDistance"));
    m_distanceButton->setToolTip(tr("GEODIST between the two selected members"));
    m_distance = new QLabel(side);
    m_distance->setObjectName(QStringLiteral("geoDistanceText"));
    m_distance->setTextFormat(Qt::PlainText);
    m_distance->setTextInteractionFlags(Qt::TextSelectableByMouse);
    distRow->addWidget(m_distanceButton);
    distRow->addWidget(m_distance, 1);
    sideLayout->addLayout(distRow);
    connect(m_distanceButton, &QPushButton::clicked, this, &GeoPanel::measureSelected);
    connect(m_resultsView, &QTableView::activated, this, [this](const QModelIndex &index) {
        m_from->setCurrentIndex(0);
        m_member->setText(bytesescape::escape(m_resultsProxy->data(index, GeoPointsModel::KeyRole).toByteArray()));
        runSearch();
    });
}

void GeoPanel::connectReaders()
{
    connect(m_sampler, &GeoSampleReader::sampleAvailable, this, &GeoPanel::onSample);
    connect(m_sampler, &GeoSampleReader::memoryAvailable, this, [this](const QByteArray &key, qint64 bytes) {
        if (key != m_key)
            return;
        m_memory = bytes >= 0 ? bytes : -2;
        updateHeader();
    });
    connect(m_sampler, &GeoSampleReader::largestAvailable, this, &GeoPanel::openGeoSet);
    connect(m_sampler, &GeoSampleReader::failed, this, &GeoPanel::showError);
    connect(m_search, &GeoSearchReader::resultsAvailable, this, &GeoPanel::onResults);
    connect(m_search, &GeoSearchReader::failed, this, &GeoPanel::showError);
    connect(m_search, &GeoSearchReader::distanceAvailable, this,
            [this](const QByteArray &a, const QByteArray &b, double d, GeoUnit unit) {
                m_distanceText = d < 0
                    ? tr("%1 or %2 is not in the set").arg(bytesescape::quoteIfNeeded(a), bytesescape::quoteIfNeeded(b))
                    : tr("%1 ↔ %2: %3 %4")
                          .arg(bytesescape::quoteIfNeeded(a), bytesescape::quoteIfNeeded(b), QString::number(d, 'f', 3),
                               geoUnitName(unit));
                m_distance->setText(m_distanceText);
                Q_EMIT distanceMeasured(d);
            });
}

GeoPanel::~GeoPanel() = default;

void GeoPanel::setCandidates(const QList<QByteArray> &geoKeys)
{
    m_candidates = geoKeys;
    const QSignalBlocker block(m_keys);
    m_keys->clear();
    for (const QByteArray &k : geoKeys)
        m_keys->addItem(bytesescape::quoteIfNeeded(k), k);
    if (!m_key.isEmpty() && !geoKeys.contains(m_key))
        m_keys->insertItem(0, bytesescape::quoteIfNeeded(m_key), m_key);
    m_keys->setCurrentIndex(qMax(0, m_keys->findData(m_key)));
    if (m_key.isEmpty() && !geoKeys.isEmpty())
        openLargest();
}

void GeoPanel::openLargest()
{
    if (m_candidates.isEmpty())
        return;
    if (m_candidates.size() == 1)
        openGeoSet(m_candidates.first());
    else
        m_sampler->findLargest(m_candidates);
}

void GeoPanel::openGeoSet(const QByteArray &key)
{
    m_key = key;
    m_sample = GeoSample{};
    m_sample.key = key;
    m_memory = -1;
    m_shown.clear();
    m_results->clear();
    m_resultsGraph->data()->clear();
    m_centreGraph->data()->clear();
    m_area->data()->clear();
    m_distanceText.clear();
    m_distance->clear();
    m_error->hide();
    if (m_keys->findData(key) < 0)
        m_keys->insertItem(0, bytesescape::quoteIfNeeded(key), key);
    m_keys->setCurrentIndex(m_keys->findData(key));
    m_header->setText(tr("%1 · loading…").arg(bytesescape::quoteIfNeeded(key)));
    m_sampler->load(key);
}

void GeoPanel::onSample(const GeoSample &sample)
{
    if (sample.key != m_key)
        return;
    m_sample = sample;
    QVector<double> x, y;
    x.reserve(sample.points.size());
    y.reserve(sample.points.size());
    for (const GeoMember &m : sample.points) {
        x.append(m.pos.lon);
        y.append(m.pos.lat);
    }
    m_pointsGraph->setData(x, y); // sorts by longitude; hovering uses m_shown
    m_shown = sample.points;
    if (!sample.points.isEmpty() && m_member->text().isEmpty())
        m_member->setText(bytesescape::escape(sample.points.first().member));
    updateHeader();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    if (!m_hasContent && !sample.points.isEmpty()) {
        m_hasContent = true;
        Q_EMIT contentReady();
    }
    Q_EMIT sampleLoaded(sample);
}

void GeoPanel::updateHeader()
{
    if (m_key.isEmpty())
        return;
    QStringList parts{bytesescape::quoteIfNeeded(m_key), tr("ZCARD %1").arg(format::count(quint64(m_sample.zcard)))};
    if (m_memory >= 0)
        parts << tr("MEMORY USAGE %1").arg(format::bytes(m_memory));
    else if (m_memory == -2)
        parts << tr("memory unknown");
    parts << (m_sampler->isLoading() ? tr("loading…") : m_sample.description());
    m_header->setText(parts.join(QStringLiteral(" · ")));
}

QString GeoPanel::headerText() const
{
    return m_header->text();
}

QString GeoPanel::distanceText() const
{
    return m_distanceText;
}

void GeoPanel::setSearchCentre(GeoPoint centre)
{
    m_lon->setValue(qBound(-180.0, centre.lon, 180.0));
    m_lat->setValue(qBound(geohash::kLatMin, centre.lat, geohash::kLatMax));
    m_from->setCurrentIndex(1);
    m_centreGraph->setData({m_lon->value()}, {m_lat->value()});
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void GeoPanel::search(const GeoQuery &query)
{
    if (!query.key.isEmpty() && query.key != m_key)
        openGeoSet(query.key);
    m_from->setCurrentIndex(query.fromMember ? 0 : 1);
    m_member->setText(bytesescape::escape(query.member));
    m_lon->setValue(query.centre.lon);
    m_lat->setValue(query.centre.lat);
    m_shape->setCurrentIndex(query.byBox ? 1 : 0);
    m_radius->setValue(query.radius);
    m_width->setValue(query.width);
    m_height->setValue(query.height);
    m_unit->setCurrentIndex(m_unit->findData(int(query.unit)));
    m_count->setValue(query.count);
    runSearch();
}

void GeoPanel::runSearch()
{
    if (m_key.isEmpty()) {
        showError(tr("Open a geo set first."));
        return;
    }
    GeoQuery q;
    q.key = m_key;
    q.fromMember = m_from->currentIndex() == 0;
    if (q.fromMember) {
        QString error;
        const std::optional<QByteArray> member = bytesescape::unescape(m_member->text(), &error);
        if (!member || member->isEmpty()) {
            showError(tr("Member: %1").arg(error.isEmpty() ? tr("type a member of the set") : error));
            return;
        }
        q.member = *member;
    }
    q.centre = GeoPoint{m_lon->value(), m_lat->value()};
    q.byBox = m_shape->currentIndex() == 1;
    q.radius = m_radius->value();
    q.width = m_width->value();
    q.height = m_height->value();
    q.unit = GeoUnit(m_unit->currentData().toInt());
    q.count = m_count->value();
    m_error->hide();
    m_search->search(q);
}

void GeoPanel::onResults(const GeoQuery &query, const QList<GeoMember> &results)
{
    if (query.key != m_key)
        return;
    m_results->setResults(results, query.unit);
    QVector<double> x, y;
    for (const GeoMember &m : results) {
        x.append(m.pos.lon);
        y.append(m.pos.lat);
    }
    m_resultsGraph->setData(x, y);
    m_shown = m_sample.points + results;
    GeoPoint centre = query.centre;
    bool known = !query.fromMember;
    for (const GeoMember &m : results) {
        if (query.fromMember && m.member == query.member) {
            centre = m.pos;
            known = true;
            break;
        }
    }
    if (known) {
        m_centreGraph->setData({centre.lon}, {centre.lat});
        drawSearchArea(query, centre);
    } else {
        m_centreGraph->data()->clear();
        m_area->data()->clear();
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    Q_EMIT searchFinished(int(results.size()));
}

void GeoPanel::drawSearchArea(const GeoQuery &query, GeoPoint centre)
{
    const double unit = geoUnitMetres(query.unit);
    QVector<double> t, x, y;
    const auto add = [&](GeoPoint p) {
        t.append(t.size());
        x.append(p.lon);
        y.append(p.lat);
    };
    if (query.byBox) {
        // GEOSEARCH BYBOX: height along the meridian, width along the centre's parallel.
        const double dLat = query.height * unit / 2 / geohash::kEarthRadiusM * 180 / kPi;
        const double dLon
            = query.width * unit / 2 / (geohash::kEarthRadiusM * std::cos(centre.lat * kPi / 180)) * 180 / kPi;
        for (const auto &[sx, sy] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-1, -1}})
            add(GeoPoint{centre.lon + sx * dLon, centre.lat + sy * dLat});
    } else {
        for (int bearing = 0; bearing <= 360; bearing += 5)
            add(destination(centre, bearing, query.radius * unit));
    }
    m_area->setData(t, x, y, true);
}

void GeoPanel::measureSelected()
{
    const QModelIndexList rows = m_resultsView->selectionModel()->selectedRows();
    if (rows.size() != 2) {
        m_distanceText = tr("Select two results for GEODIST.");
        m_distance->setText(m_distanceText);
        return;
    }
    m_search->distance(m_key, m_resultsProxy->data(rows.at(0), GeoPointsModel::KeyRole).toByteArray(),
                       m_resultsProxy->data(rows.at(1), GeoPointsModel::KeyRole).toByteArray(),
                       GeoUnit(m_unit->currentData().toInt()));
}

void GeoPanel::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
    if (!m_sampler->isLoading())
        updateHeader();
}

void GeoPanel::showWorld()
{
    zoomTo(QRectF(-180, -90, 360, 180));
}

void GeoPanel::zoomTo(const QRectF &bounds)
{
    m_fitBounds = bounds.normalized();
    m_plot->xAxis->setRange(m_fitBounds.left(), m_fitBounds.right());
    m_plot->yAxis->setRange(m_fitBounds.top(), m_fitBounds.bottom());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void GeoPanel::keepAspect()
{
    // Plate carrée at equal scale: a degree of longitude is as many pixels as one of latitude.
    const QRect rect = m_plot->axisRect()->rect();
    if (rect.width() <= 0 || rect.height() <= 0)
        return;
    const QCPRange oldX = m_plot->xAxis->range(), oldY = m_plot->yAxis->range();
    if (m_fitBounds.isValid()) {
        const double aspect = double(rect.height()) / rect.width();
        const QPointF c = m_fitBounds.center();
        double w = m_fitBounds.width(), h = m_fitBounds.height();
        if (h / w > aspect)
            w = h / aspect;
        else
            h = w * aspect;
        m_plot->xAxis->setRange(c.x() - w / 2, c.x() + w / 2);
        m_plot->yAxis->setRange(c.y() - h / 2, c.y() + h / 2);
        if (isVisible())
            m_fitBounds = QRectF();
    } else {
        m_plot->yAxis->setScaleRatio(m_plot->xAxis, 1.0);
    }
    updateGraticule();
    // Ticks were laid out for the old ranges before this signal: draw once more when they moved.
    const auto moved = [](const QCPRange &a, const QCPRange &b) {
        return std::abs(a.lower - b.lower) + std::abs(a.upper - b.upper) > 1e-9 * qMax(1.0, a.size());
    };
    if (moved(oldX, m_plot->xAxis->range()) || moved(oldY, m_plot->yAxis->range()))
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void GeoPanel::updateGraticule()
{
    // Every 30° on the world map, finer when zoomed in.
    const double span = qMin(m_plot->xAxis->range().size(), m_plot->yAxis->range().size());
    double step = 30;
    for (double s : {30.0, 10.0, 5.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001}) {
        step = s;
        if (span / s >= 3)
            break;
    }
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis})
        if (auto fixed = axis->ticker().dynamicCast<QCPAxisTickerFixed>())
            fixed->setTickStep(step);
}

const GeoMember *GeoPanel::nearest(const QPoint &pos, double maxPixels) const
{
    const GeoMember *best = nullptr;
    double bestD = maxPixels * maxPixels;
    for (const GeoMember &m : m_shown) {
        const double dx = m_plot->xAxis->coordToPixel(m.pos.lon) - pos.x();
        const double dy = m_plot->yAxis->coordToPixel(m.pos.lat) - pos.y();
        const double d = dx * dx + dy * dy;
        if (d <= bestD) { // '<=': a search result (listed last) wins over the same map point
            bestD = d;
            best = &m;
        }
    }
    return best;
}

QString GeoPanel::hoverText(const QPoint &pos) const
{
    const GeoMember *m = nearest(pos, 8);
    if (!m)
        return {};
    QString text = bytesescape::quoteIfNeeded(m->member) % u'\n' % lonLat(m->pos);
    if (m->distance >= 0)
        text += u'\n' % QString::number(m->distance, 'f', 3) % u' ' % geoUnitName(m_results->unit());
    return text;
}

void GeoPanel::applyStyle()
{
    chartstyle::apply(m_plot, palette());
    QColor land = palette().color(QPalette::Text);
    land.setAlpha(chartstyle::isDark(palette()) ? 110 : 90);
    m_land->setPen(QPen(land, 1));
    m_land->setBrush(Qt::NoBrush);
    m_land->setScatterStyle(QCPScatterStyle::ssNone);
    m_land->setLineStyle(QCPCurve::lsLine);
    const QColor points = chartstyle::series(0, palette());
    m_pointsGraph->setPen(QPen(points));
    m_pointsGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, points, points, 4));
    const QColor results = chartstyle::series(1, palette());
    m_resultsGraph->setPen(QPen(results));
    m_resultsGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(results, 2), Qt::NoBrush, 9));
    const QColor centre = chartstyle::bad(palette());
    m_centreGraph->setPen(QPen(centre));
    m_centreGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(centre, 2), Qt::NoBrush, 14));
    m_area->setPen(QPen(results, 1.5, Qt::DashLine));
    m_area->setBrush(Qt::NoBrush);
    m_area->setScatterStyle(QCPScatterStyle::ssNone);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void GeoPanel::changeEvent(QEvent *event)
{
    Panel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_plot)
        applyStyle();
}
