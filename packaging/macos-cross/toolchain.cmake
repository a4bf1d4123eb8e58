# CMake toolchain for macOS from Linux with Zig's C/C++ toolchain (packaging/macos-cross/build.sh
# sets it up and passes these):
#   IPYBOX_MACOS_CROSS_BIN       the folder of the cc, c++, ar and ranlib wrappers for one target
#   IPYBOX_MACOS_CROSS_ARCH      aarch64 or x86_64
#   IPYBOX_MACOS_CROSS_PREFIXES  the prefixes find_* may look in (the header-only dependencies,
#                                OpenSSL); nothing of the Linux host is ever found
set(CMAKE_SYSTEM_NAME Darwin)
if(IPYBOX_MACOS_CROSS_ARCH STREQUAL "aarch64")
    set(CMAKE_SYSTEM_PROCESSOR arm64)
else()
    set(CMAKE_SYSTEM_PROCESSOR x86_64)
endif()
# try_compile projects read this file again: they get the same variables.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES IPYBOX_MACOS_CROSS_BIN IPYBOX_MACOS_CROSS_ARCH
     IPYBOX_MACOS_CROSS_PREFIXES)

set(CMAKE_C_COMPILER ${IPYBOX_MACOS_CROSS_BIN}/cc)
set(CMAKE_CXX_COMPILER ${IPYBOX_MACOS_CROSS_BIN}/c++)
set(CMAKE_AR ${IPYBOX_MACOS_CROSS_BIN}/ar CACHE FILEPATH "zig ar")
set(CMAKE_RANLIB ${IPYBOX_MACOS_CROSS_BIN}/ranlib CACHE FILEPATH "zig ranlib")

# The target (and its macOS version) is the wrappers' -target: no Apple SDK, no -arch,
# no -isysroot, no -mmacosx-version-min from CMake.
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "" FORCE)
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)
set(CMAKE_OSX_DEPLOYMENT_TARGET "" CACHE STRING "" FORCE)

# Debian 12's Boost 1.74 Asio predates clang's and libc++'s C++20 support:
# - it asks for std::invoke_result only of MSVC and falls back on std::result_of, which libc++
#   (zig's C++ library, as Apple's) no longer has in C++20;
# - it allows co_await (awaitable, co_spawn, use_awaitable) on clang only with the Coroutines TS
#   (<experimental/coroutine>, gone from libc++), though it finds clang's C++20 <coroutine>
#   (BOOST_ASIO_HAS_STD_COROUTINE) by itself.
set(CMAKE_CXX_FLAGS_INIT "-DBOOST_ASIO_HAS_STD_INVOKE_RESULT=1 -DBOOST_ASIO_HAS_CO_AWAIT=1")

set(CMAKE_FIND_ROOT_PATH ${IPYBOX_MACOS_CROSS_PREFIXES})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Boost is header-only here: FindBoost looks for boost/version.hpp under the prefixes, and never
# for Debian's BoostConfig (which names the host's compiled libraries).
set(Boost_NO_BOOST_CMAKE ON)
