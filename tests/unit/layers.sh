#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The arrows of docs/architecture.md, checked on the sources: models/ sends nothing (no
# connection header), views/ sends through inspect/ (no script runner or killer of its own, no
# scanner it makes), and nothing below views/ includes a widget header, so every panel's data
# can be produced without a display.
set -eu
src="${1:?usage: layers.sh SOURCE_DIR}"
status=0
bad=$(grep -lE '#include ["<](redisclient|redisworker|rediscommand|pollingreader|boundedread|keyscanner)\.h[">]' \
    "$src"/models/*.h "$src"/models/*.cpp "$src"/decode/*.h "$src"/decode/*.cpp || true)
if [ -n "$bad" ]; then
    echo "models/ or decode/ includes a connection header (the readers live in inspect/):"
    echo "$bad"
    status=1
fi
bad=$(grep -lE '#include "(redisworker|scriptcall|scriptkiller)\.h"|new KeyScanner' \
    "$src"/views/*.h "$src"/views/*.cpp || true)
if [ -n "$bad" ]; then
    echo "a view reaches the engine without inspect/ (ScriptRunner, ScanFeed):"
    echo "$bad"
    status=1
fi
bad=$(grep -lE '#include <(QtWidgets/|QWidget|QApplication|QDialog|QMainWindow|QAbstractItemView)' \
    "$src"/redis/* "$src"/decode/* "$src"/lua/*.h "$src"/lua/*.cpp "$src"/models/* "$src"/inspect/* "$src"/headless/* || true)
if [ -n "$bad" ]; then
    echo "a layer below views/ includes a widget header:"
    echo "$bad"
    status=1
fi
bad=$(grep -lE '#include "[a-z]*panel\.h"|#include "mainwindow\.h"' \
    "$src"/models/* "$src"/inspect/* "$src"/headless/* || true)
if [ -n "$bad" ]; then
    echo "a layer below views/ includes a panel or the window:"
    echo "$bad"
    status=1
fi
exit $status
