// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace tableview {

// The panels' table: whole rows, one at a time, read-only, no row numbers, no wrapping, and
// fixed uniform row heights so a model of thousands of rows is never measured row by row.
// The last column takes the spare width; panels set their own column widths after.
QTableView *make(QAbstractItemModel *model, QWidget *parent, const QString &objectName = {});

} // namespace tableview
