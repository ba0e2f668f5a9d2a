// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

class QWidget;

// View → Scan pacing: adaptive (kAdaptivePacing), a fixed ceiling, or none (0). Returns the
// choice, or nothing when cancelled.
std::optional<int> askScanPacing(QWidget *parent, int current);
