# IPYBOX_PLATFORM: which implementation of each platform concern the modules build (issue 39).
#
#   linux     every Linux facility (cgroups, pidfds, close_range, /proc, ...): the default on Linux
#   darwin    macOS: POSIX implementations and Darwin's own (the default on Apple systems)
#   portable  Darwin's logic that needs no Darwin (the POSIX implementations) built on Linux, so
#             that it is tested here; Linux facilities stay only where the concern has no POSIX
#             implementation yet
#
# A module names its implementations in ipybox_add_module (LINUX, DARWIN and PORTABLE source
# lists); the implementations live in <module>/src/linux/, posix/ and darwin/, and
# tests/style/platform_calls.py (style.platform) keeps Linux-only calls inside linux/ folders.
if(APPLE)
    set(ipybox_default_platform darwin)
else()
    set(ipybox_default_platform linux)
endif()
set(IPYBOX_PLATFORM ${ipybox_default_platform} CACHE STRING
    "Platform implementations to build: linux, darwin or portable (Darwin's logic on Linux)")
set_property(CACHE IPYBOX_PLATFORM PROPERTY STRINGS linux darwin portable)
if(NOT IPYBOX_PLATFORM MATCHES "^(linux|darwin|portable)$")
    message(FATAL_ERROR "IPYBOX_PLATFORM must be linux, darwin or portable, not '${IPYBOX_PLATFORM}'")
endif()
if(IPYBOX_PLATFORM STREQUAL "portable" AND NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    message(FATAL_ERROR "IPYBOX_PLATFORM=portable is Darwin's logic built on Linux: use darwin here")
endif()
