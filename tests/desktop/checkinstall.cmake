# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DBUILD_DIR=… -DWORK_DIR=… -DWITH_MAN=0|1 -P checkinstall.cmake
# Installs the build under a scratch DESTDIR with prefix /usr and checks that every file of the
# desktop integration is where the freedesktop specifications say.
file(REMOVE_RECURSE ${WORK_DIR})
set(ENV{DESTDIR} ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix /usr
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
set(expected
    usr/bin/redislens
    usr/share/applications/org.redislens.RedisLens.desktop
    usr/share/icons/hicolor/scalable/apps/org.redislens.RedisLens.svg
    usr/share/metainfo/org.redislens.RedisLens.metainfo.xml)
if(WITH_MAN)
    list(APPEND expected usr/share/man/man1/redislens.1)
endif()
set(missing "")
foreach(f IN LISTS expected)
    if(NOT EXISTS ${WORK_DIR}/${f})
        list(APPEND missing ${f})
    endif()
endforeach()
if(missing)
    file(GLOB_RECURSE landed RELATIVE ${WORK_DIR} ${WORK_DIR}/*)
    message(FATAL_ERROR "not installed: ${missing}\ninstalled: ${landed}")
endif()
if(WITH_MAN)
    file(READ ${WORK_DIR}/usr/share/man/man1/redislens.1 page)
    if(NOT page MATCHES "\\.TH REDISLENS" OR NOT page MATCHES "-panel")
        message(FATAL_ERROR "the man page does not look like redislens --help")
    endif()
endif()
file(REMOVE_RECURSE ${WORK_DIR})
message(STATUS "installed: ${expected}")
