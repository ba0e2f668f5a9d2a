// SPDX-License-Identifier: GPL-3.0-or-later
#include "tableview.h"

#include <QHeaderView>
#include <QTableView>

namespace tableview {

QTableView *make(QAbstractItemModel *model, QWidget *parent, const QString &objectName)
{
    auto *view = new QTableView(parent);
    if (!objectName.isEmpty())
        view->setObjectName(objectName);
    if (model)
        view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

} // namespace tableview
